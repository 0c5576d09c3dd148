"""Answers written in OpenAI Responses: ``encode_stream("openai-responses", ...)``,
``encode_response`` and ``encode_error``.

The two oracles: our own parser (parse -> encode -> parse gives an equal
response on every recording of the wire) and the official ``openai`` SDK,
whose ``responses.stream()`` reads the encoded bytes from a real socket
(:class:`streamkit.testing.ReplayServer`) and must end with the same text,
refusal, reasoning, function calls, usage and status; the bodies validate as
``openai.types.responses.Response``. Every OpenAI Chat and Anthropic recording
is written to Responses too: what does not cross (another wire's signatures,
redacted reasoning, server tool calls and citations) is said in
``_expected``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from support.comparing import comparable, fresh_ids
from support.recordings import FIXTURES, body, fixture_id, recordings, sse_body
from support.recordings import payloads as payloads_of
from support.sdk_stream_readers import responses_output

import streamkit
from streamkit import (
    ChatResponse,
    ChatUsage,
    DataBlock,
    FinishReason,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    UserMessage,
    encode_error,
    encode_response,
    encode_stream,
    replay,
)
from streamkit.framing.sse import SSEDecoder
from streamkit.model.accumulate import Accumulator
from streamkit.model.blocks import Base64Source
from streamkit.model.events import (
    BlockDelta,
    BlockStart,
    ErrorEvent,
    ResponseEnd,
    ResponseStart,
    TextDelta,
)
from streamkit.model.replay import events_of
from streamkit.providers import wire_format
from streamkit.providers.encoder import input_tokens_for, response_id, wire_of_provider
from streamkit.testing import ReplayServer

WIRE = "openai-responses"


def _wire_of_path(path: Path) -> str:
    """The wire a recording is in: its folder, or an edge / synthetic file's prefix."""
    folder = path.relative_to(FIXTURES).parts[0]
    if folder in ("edge", "synthetic"):
        for wire in ("openai-responses", "openai-chat", "anthropic"):
            if path.name.startswith(wire + "-"):
                return wire
        return "other"
    return folder


OWN = [path for path in recordings() if _wire_of_path(path) == WIRE]
#: Other wires' recordings written to Responses (the OpenAI Chat and Anthropic folders).
CROSS = [path for path in recordings()
         if path.relative_to(FIXTURES).parts[0] in ("openai-chat", "anthropic")]
PROVIDERS = {"openai-responses": WIRE, "openai-chat": "openai", "anthropic": "anthropic"}

#: Recordings in a vendor's shape rather than OpenAI's (no ``content_part.added``,
#: no ``output_index``, a reused or missing part): written back in OpenAI's shape,
#: so the ids the reader makes up for parts (``text_...``, which the wire does
#: not carry) count differently; everything else is equal.
VENDOR_SHAPES = {"edge/openai-responses-missing-index.sse", "edge/openai-responses-no-deltas.sse",
                 "edge/openai-responses-unknown-events.sse",
                 "edge/openai-responses-kind-change.sse"}


def _parsed(path: Path) -> tuple[list[Any], ChatResponse]:
    with fresh_ids():
        return replay(body(path), PROVIDERS[_wire_of_path(path)], on_error="return")


def _written_id(response: ChatResponse) -> str:
    """The response's id in this wire's form (``test_encode_ids.py`` pins the rule)."""
    return response_id(response.id, "resp_",
                       from_this_wire=wire_of_provider(response.provider) == WIRE)


def _reparsed(encoded: bytes) -> ChatResponse:
    with fresh_ids():
        return replay(encoded, WIRE, on_error="return")[1]


def _payloads(encoded: bytes) -> list[tuple[str, dict[str, Any]]]:
    decoder = SSEDecoder()
    return [(event.event, json.loads(event.data))
            for event in decoder.feed(encoded) + decoder.flush()]


_MADE_UP = re.compile(r"^(text|think|raw|data)_[0-9a-f]{24}$")


def _without_made_up_ids(response: ChatResponse) -> dict[str, Any]:
    out = comparable(response)
    for block in out["content"]:
        if _MADE_UP.match(block["id"]):
            block["id"] = "made-up"
    return out


# ---------------------------------------------------------------- the record


def test_the_wire_record_has_all_three_encoders() -> None:
    record = wire_format(WIRE)
    assert record.encode_stream is not None and record.encode_response is not None
    assert record.encode_error is not None
    assert record.encode_stream(None).wire == WIRE


def test_every_recording_of_the_wire_is_taken() -> None:
    names = {fixture_id(path) for path in OWN}
    assert {"openai-responses/text.sse", "openai-responses/reasoning-summary-text.sse",
            "openai-responses/error-then-failed.chunks.jsonl",
            "edge/openai-responses-server-tools.sse",
            "synthetic/openai-responses-audio.sse"} <= names
    assert len(names) >= 15
    assert names >= VENDOR_SHAPES
    assert len(CROSS) >= 14


# ---------------------------------------------------------------- round trips


@pytest.mark.parametrize("path", OWN, ids=fixture_id)
def test_parse_encode_parse_gives_an_equal_response(path: Path) -> None:
    events, response = _parsed(path)
    encoded = b"".join(encode_stream(WIRE, events))
    again = _reparsed(encoded)
    name = fixture_id(path)
    if name == "edge/openai-responses-kind-change.sse":
        # a function call's delta inside a message item: it is written as the
        # function_call item it is, so it reads back as a call to run
        assert again.finished_reason == FinishReason.TOOL_CALLS
        again.finished_reason = response.finished_reason
    if name in VENDOR_SHAPES:
        assert _without_made_up_ids(again) == _without_made_up_ids(response)
    else:
        assert comparable(again) == comparable(response)
    assert again.id == response.id and again.usage == response.usage
    assert [call.id for call in again.tool_calls] == [call.id for call in response.tool_calls]


@pytest.mark.parametrize("path", OWN, ids=fixture_id)
def test_a_final_response_replayed_as_events_encodes_to_the_same_answer(path: Path) -> None:
    _, response = _parsed(path)
    accumulator = Accumulator()
    accumulator.apply_all(list(events_of(response)))
    assert comparable(accumulator.response) == comparable(response)
    again = _reparsed(b"".join(encode_stream(WIRE, response)))
    assert _without_made_up_ids(again)["content"] == _without_made_up_ids(response)["content"]
    if fixture_id(path) == "edge/openai-responses-kind-change.sse":  # see the test above
        again.finished_reason = response.finished_reason
    assert (again.finished_reason, again.stop_reason, again.usage, again.metadata) == \
        (response.finished_reason, response.stop_reason, response.usage, response.metadata)


@pytest.mark.parametrize("path", OWN + CROSS, ids=fixture_id)
def test_each_event_is_written_as_it_comes_with_sequence_numbers(path: Path) -> None:
    events, _ = _parsed(path)
    factory = wire_format(WIRE).encode_stream
    assert factory is not None
    writer = factory(None)
    written = b""
    for event in events:
        written += writer.feed(event)
        if isinstance(event, BlockStart) and isinstance(event.block, ToolCallBlock) \
                and not event.block.server_side:
            assert event.block.id.encode() in written
    written += writer.close()
    assert _without_times(written) == _without_times(b"".join(encode_stream(WIRE, events)))
    payloads = _payloads(written)
    assert payloads[0][1]["type"] == "response.created"
    own_numbers = [data["sequence_number"] for name, data in payloads
                   if name == data["type"] and not _kept_unknown(data)]
    assert own_numbers == sorted(own_numbers) and len(set(own_numbers)) == len(own_numbers)
    assert all(name == data["type"] for name, data in payloads)


def _without_times(encoded: bytes) -> bytes:
    """``encoded`` without ``created_at`` (an answer of another wire is dated now)."""
    return re.sub(rb'"created_at":\d+', b'"created_at":0', encoded)


def _kept_unknown(data: dict[str, Any]) -> bool:
    return str(data["type"]).startswith(("response.future_feature", "response.teleport_call"))


# ---------------------------------------------------------------- the official SDK reads it


async def _sdk_read(encoded: bytes) -> Any:
    """What ``client.responses.stream()`` ends with: the final response of a
    completed stream (``get_final_response``), else the response the terminal
    event carries (the helper has a final response for completed ones only);
    ``None`` for a stream without one."""
    openai = pytest.importorskip("openai")
    raised: Exception | None = None
    result: Any = None
    async with ReplayServer() as server:
        server.add("/v1/responses", encoded, chunk_size=37)
        client = openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
        try:
            async with client.responses.stream(model="m", input="hi") as stream:
                async for event in stream:
                    if event.type in ("response.completed", "response.incomplete",
                                      "response.failed"):
                        result = event.response
                if result is not None and result.status == "completed":
                    result = await stream.get_final_response()
        except openai.APIError as error:  # raised out of the server's task group below
            raised = error
        finally:
            await client.close()
            assert not server.errors
    if raised is not None:
        raise raised
    return result


def _expected(response: ChatResponse) -> dict[str, Any]:
    """What the SDK must report for ``response``, by what crosses to Responses:
    another wire's redacted reasoning and server tool calls are left out."""
    own = wire_of_provider(response.provider) in (None, WIRE)
    thinking = [block for block in response.content
                if type(block) is ThinkingBlock and (own or not block.redacted)]
    calls = [call for call in response.tool_calls if own or not call.server_side]
    usage = response.usage
    finish = response.finished_reason
    if own and response.stop_reason in ("max_output_tokens", "content_filter"):
        status: tuple[str, str | None] = ("incomplete", response.stop_reason)
    elif finish == FinishReason.LENGTH:
        status = ("incomplete", "max_output_tokens")
    elif finish == FinishReason.CONTENT_FILTER:
        status = ("incomplete", "content_filter")
    else:
        status = ("completed", None)
    return {
        "text": response.text, "refusal": response.refusal or "",
        "thinking": "".join(block.thinking for block in thinking),
        "calls": [(call.id, call.name, call.input) for call in calls],
        "usage": None if usage is None else (
            input_tokens_for(usage, includes_cache=True),
            usage.output_tokens),
        "status": status,
    }


def _got(final: Any) -> dict[str, Any]:
    texts, refusals, thinking, calls = responses_output(final)
    reason = final.incomplete_details.reason if final.incomplete_details else None
    return {"text": "".join(texts), "refusal": "".join(refusals), "thinking": "".join(thinking),
            "calls": calls, "usage": None if final.usage is None else (
                final.usage.input_tokens, final.usage.output_tokens),
            "status": (final.status, reason)}


@pytest.mark.anyio
@pytest.mark.parametrize("path", OWN + CROSS, ids=fixture_id)
async def test_the_official_sdk_reads_the_encoded_stream(path: Path) -> None:
    openai = pytest.importorskip("openai")
    events, response = _parsed(path)
    encoded = b"".join(encode_stream(WIRE, events))
    errors = [event for event in events if isinstance(event, ErrorEvent)]
    if errors:  # the error event the API sends: the SDK raises its own error with the message
        with pytest.raises(openai.APIError) as raised:
            await _sdk_read(encoded)
        assert raised.value.message == errors[0].message
        return
    if not response.terminated:
        assert await _sdk_read(encoded) is None  # no terminal event, as the source had none
        return
    final = await _sdk_read(encoded)
    assert final.id == _written_id(response)
    got, expected = _got(final), _expected(response)
    assert got == expected
    if final.status == "completed":
        assert final.output_text == response.text
    if wire_of_provider(response.provider) == WIRE and response.usage is not None:
        assert final.usage.model_dump(exclude_none=True) == response.usage.raw  # type: ignore[union-attr]
        for block in response.content:
            if type(block) is ThinkingBlock and block.encrypted:
                assert block.encrypted.encode() in encoded
    else:  # another wire's signatures and encrypted reasoning never reach Responses
        for block in response.content:
            if type(block) is ThinkingBlock:
                for secret in (block.signature, block.encrypted):
                    if secret:
                        assert secret.encode() not in encoded


# ---------------------------------------------------------------- scripted answers


def _scripted(provider: str | None, finish: FinishReason = FinishReason.TOOL_CALLS) -> ChatResponse:
    """Reasoning with its signature, text, then two parallel tool calls."""
    return ChatResponse(
        id="resp_scripted", model="scripted-1", provider=provider, is_last=True,
        terminated=True,
        content=[ThinkingBlock("Two cities: call twice.", id="th", signature="sig-1",
                               encrypted="enc-1"),
                 TextBlock("Checking both.", id="tx"),
                 ToolCallBlock("call_a", "weather", '{"city": "Paris"}'),
                 ToolCallBlock("call_b", "weather", '{"city": "Rome"}')],
        usage=ChatUsage(input_tokens=20, output_tokens=30, cached_tokens=5, reasoning_tokens=7),
        finished_reason=finish, stop_reason=None)


@pytest.mark.anyio
async def test_a_scripted_answer_with_reasoning_and_parallel_calls_reaches_the_sdk() -> None:
    response = _scripted(None)
    encoded = b"".join(encode_stream(WIRE, response))
    final = await _sdk_read(encoded)
    assert [item.type for item in final.output] == ["reasoning", "message", "function_call",
                                                    "function_call"]
    assert final.output[0].summary[0].text == "Two cities: call twice."
    assert final.output[0].encrypted_content == "enc-1"  # made by hand: this wire's own
    assert final.output_text == "Checking both."
    assert [(item.call_id, json.loads(item.arguments)) for item in final.output[2:]] == \
        [("call_a", {"city": "Paris"}), ("call_b", {"city": "Rome"})]
    assert final.output[2].id != final.output[2].call_id  # an item id and a call id
    usage = final.usage
    assert (usage.input_tokens, usage.input_tokens_details.cached_tokens, usage.output_tokens,
            usage.output_tokens_details.reasoning_tokens, usage.total_tokens) == (20, 5, 30, 7, 50)
    again = _reparsed(encoded)
    assert again.finished_reason == FinishReason.TOOL_CALLS
    assert [(call.id, call.arguments()) for call in again.tool_calls] == \
        [("call_a", {"city": "Paris"}), ("call_b", {"city": "Rome"})]
    assert again.thinking == "Two cities: call twice." and again.content[0].encrypted == "enc-1"


def test_another_wires_signature_and_encrypted_reasoning_are_not_written() -> None:
    for provider in ("anthropic", "gemini", "openai"):
        response = _scripted(provider)
        encoded = b"".join(encode_stream(WIRE, response))
        assert b"sig-1" not in encoded and b"enc-1" not in encoded, provider
        body = encode_response(WIRE, response)
        assert "encrypted_content" not in body["output"][0]
        assert _reparsed(encoded).thinking == "Two cities: call twice."
    redacted = ChatResponse(id="r", provider="anthropic", terminated=True,
                            content=[ThinkingBlock("", id="x", encrypted="opaque", redacted=True),
                                     TextBlock("hi", id="t")],
                            finished_reason=FinishReason.STOP)
    assert [item["type"] for item in encode_response(WIRE, redacted)["output"]] == ["message"]


@pytest.mark.anyio
async def test_a_spoken_answer_is_the_audio_events() -> None:
    samples = bytes(range(200))
    response = ChatResponse(id="resp_audio", model="m", terminated=True,
                            content=[DataBlock(id="a", source=Base64Source(
                                samples, "audio/pcm;rate=24000"), transcript="Hello.")],
                            finished_reason=FinishReason.STOP)
    encoded = b"".join(encode_stream(WIRE, response))
    types = [data["type"] for _, data in _payloads(encoded)]
    assert types[2:6] == ["response.audio.delta", "response.audio.transcript.delta",
                          "response.audio.done", "response.audio.transcript.done"]
    again = _reparsed(encoded)
    block = again.content[0]
    assert isinstance(block, DataBlock) and isinstance(block.source, Base64Source)
    assert (block.source.raw, block.transcript) == (samples, "Hello.")
    assert (await _sdk_read(encoded)).status == "completed"


@pytest.mark.parametrize("finish", [FinishReason.STOP, FinishReason.LENGTH,
                                    FinishReason.TOOL_CALLS, FinishReason.CONTENT_FILTER,
                                    FinishReason.REFUSAL, FinishReason.PAUSE,
                                    FinishReason.ERROR])
def test_every_finish_reason_is_written_as_a_status_the_reader_reads_back(
        finish: FinishReason) -> None:
    content: list[Any] = [TextBlock("x", id="t")]
    if finish == FinishReason.TOOL_CALLS:
        content.append(ToolCallBlock("call_1", "f", "{}"))
    response = ChatResponse(id="r1", model="m", content=content, finished_reason=finish,
                            terminated=True, provider="anthropic")
    encoded = b"".join(encode_stream(WIRE, response))
    last = _payloads(encoded)[-1][1]
    again = _reparsed(encoded)
    # Responses has no word for a refusal or a pause: the answer completed
    collapsed = {FinishReason.REFUSAL: FinishReason.STOP, FinishReason.PAUSE: FinishReason.STOP}
    assert again.finished_reason == collapsed.get(finish, finish)
    assert again.terminated
    expected_type = {FinishReason.LENGTH: "response.incomplete",
                     FinishReason.CONTENT_FILTER: "response.incomplete",
                     FinishReason.ERROR: "response.failed"}.get(finish, "response.completed")
    assert last["type"] == expected_type
    body = encode_response(WIRE, response)
    assert body["status"] == expected_type.rpartition(".")[2]
    if finish == FinishReason.ERROR:  # a failed response is read as the error it ended with
        with pytest.raises(streamkit.ProviderError) as raised:
            streamkit.parse_response(WIRE, body)
        assert raised.value.partial is not None
        assert raised.value.partial.finished_reason == FinishReason.ERROR
    else:
        assert streamkit.parse_response(WIRE, body).finished_reason == \
            collapsed.get(finish, finish)


def test_a_stream_cut_before_its_end_has_no_final_event() -> None:
    response = ChatResponse(id="r1", model="m", content=[TextBlock("par", id="t")],
                            finished_reason=None, terminated=False)
    encoded = b"".join(encode_stream(WIRE, response))
    types = [data["type"] for _, data in _payloads(encoded)]
    assert not {"response.completed", "response.incomplete", "response.failed"} & set(types)
    again = _reparsed(encoded)
    assert (again.text, again.terminated) == ("par", False)
    events: list[Any] = [ResponseStart(id="r2", model="m"),
                         BlockStart(index=0, block=TextBlock("", id="t")),
                         BlockDelta(index=0, delta=TextDelta("half"))]
    cut = b"".join(encode_stream(WIRE, events))  # no ResponseEnd at all
    assert b"response.completed" not in cut and _reparsed(cut).text == "half"


@pytest.mark.anyio
async def test_an_in_stream_error_is_the_error_event_the_sdk_raises_on() -> None:
    openai = pytest.importorskip("openai")
    events: list[Any] = [ResponseStart(id="r1", model="m", provider="anthropic"),
                         BlockStart(index=0, block=TextBlock("", id="t")),
                         BlockDelta(index=0, delta=TextDelta("partial ")),
                         ErrorEvent(message="Overloaded", error_type="overloaded_error",
                                    status=529),
                         ResponseEnd(finish_reason=FinishReason.ERROR)]
    encoded = b"".join(encode_stream(WIRE, events))
    payloads = [data for _, data in _payloads(encoded)]
    error = next(data for data in payloads if data["type"] == "error")
    assert error["error"]["message"] == "Overloaded"
    assert error["error"]["type"] == "server_error"  # Anthropic's word is not OpenAI's
    assert payloads[-1]["type"] == "response.failed"
    assert payloads[-1]["response"]["error"]["message"] == "Overloaded"
    with pytest.raises(streamkit.ProviderError) as raised:
        replay(encoded, WIRE)
    assert "Overloaded" in str(raised.value)
    _, partial = replay(encoded, WIRE, on_error="return")
    assert (partial.text, partial.finished_reason) == ("partial ", FinishReason.ERROR)
    with pytest.raises(openai.APIError, match="Overloaded"):
        await _sdk_read(encoded)


@pytest.mark.anyio
async def test_a_failing_source_ends_with_the_error_event() -> None:
    def source() -> Any:
        yield ResponseStart(id="r1", model="m")
        raise streamkit.StreamError("the upstream went away")

    encoded = b"".join(encode_stream(WIRE, source()))
    assert _payloads(encoded)[-1][1]["type"] == "error"
    assert b"the upstream went away" in encoded


# ---------------------------------------------------------------- non-streamed bodies


@pytest.mark.parametrize("path", OWN + CROSS, ids=fixture_id)
def test_the_body_validates_as_the_sdks_response_and_reads_back(path: Path) -> None:
    types = pytest.importorskip("openai.types.responses")
    _, response = _parsed(path)
    written = encode_response(WIRE, response)
    validated = types.Response.model_validate(_as_the_sdk_models_it(written))
    assert validated.id == _written_id(response)
    again = streamkit.parse_response(WIRE, written) if response.finished_reason \
        != FinishReason.ERROR else None
    if again is None:
        with pytest.raises(streamkit.ProviderError) as raised:
            streamkit.parse_response(WIRE, written)
        again = raised.value.partial
        assert again is not None
    if response.terminated:
        expected = _expected(response)
        assert (again.text, again.refusal or "", again.thinking) == \
            (expected["text"], expected["refusal"], expected["thinking"])
        assert [(call.id, call.name, call.input) for call in again.tool_calls] == \
            expected["calls"]
        assert validated.output_text == response.text
    if response.usage is not None:
        assert again.usage is not None
        assert again.usage.output_tokens == response.usage.output_tokens


#: Item and part types of the recordings that the SDK has no model for (a
#: vendor's or a future API's): kept and written back, but not the SDK's to check.
_UNMODELLED = {"output_hologram", "teleport_call"}


def _as_the_sdk_models_it(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` without what the SDK's model cannot hold though the API sends
    it: items and parts of types it does not know, and a failed response's
    error code outside its list (the API's recorded ``insufficient_quota``),
    each checked to be there first."""
    out = dict(body)
    items = [item for item in body["output"] if item["type"] not in _UNMODELLED]
    for item in items:
        if item["type"] == "message":
            item["content"] = [part for part in item["content"]
                               if part["type"] not in _UNMODELLED]
    out["output"] = items
    if body["status"] == "failed":
        assert body["error"]["message"]
        out["error"] = {**body["error"], "code": "server_error"}
    return out


def test_an_own_body_keeps_the_fields_its_reader_kept() -> None:
    _, response = _parsed(FIXTURES / "openai-responses/reasoning-summary-text.sse")
    written = encode_response(WIRE, response)
    assert written["reasoning"] == {"effort": "high", "summary": "detailed"}
    assert written["output"][0]["encrypted_content"] == response.content[0].encrypted
    again = streamkit.parse_response(WIRE, written)
    assert all(again.metadata[key] == value for key, value in response.metadata.items())
    assert again.usage is not None and response.usage is not None
    counts = ("input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens")
    assert [getattr(again.usage, name) for name in counts] == \
        [getattr(response.usage, name) for name in counts]
    chat = encode_response(WIRE, _parsed(FIXTURES / "anthropic/tool-use.sse")[1])
    assert "reasoning" not in chat and chat["tools"] == []


def _done_statuses(encoded: bytes) -> dict[str, Any]:
    """Each ``output_item.done`` item's type -> its status (``...``: none)."""
    return {data["item"]["type"]: data["item"].get("status", ...)
            for event, data in _payloads(encoded) if event == "response.output_item.done"}


def _without_call_status(path: Path) -> bytes:
    """A recording's stream whose ``function_call`` items say no ``status``, as
    vendors whose SDK type leaves it optional may write them."""
    out = []
    for payload in payloads_of(path):
        data = json.loads(payload.data)
        for item in [data.get("item"), *data.get("response", {}).get("output", [])]:
            if isinstance(item, dict) and item.get("type") == "function_call":
                item.pop("status", None)
        out.append((payload.event, json.dumps(data)))
    return sse_body(out)


def test_an_item_status_is_written_back_as_it_came_and_never_gained() -> None:
    """DeepSeek's reasoning item says ``completed`` (OpenAI's says none): kept;
    a call that said none is written with none, in the stream and the body."""
    deepseek = FIXTURES / "openai-responses/deepseek-responses-reasoning-function-call.sse"
    events, _ = _parsed(deepseek)
    statuses = _done_statuses(b"".join(encode_stream(WIRE, events)))
    assert statuses == {"reasoning": "completed", "function_call": "completed"}
    events, _ = _parsed(FIXTURES / "openai-responses/reasoning-summary-text.sse")
    assert _done_statuses(b"".join(encode_stream(WIRE, events)))["reasoning"] is ...
    with fresh_ids():
        events, response = replay(_without_call_status(
            FIXTURES / "openai-responses/function-call.sse"), WIRE, on_error="return")
    assert _done_statuses(b"".join(encode_stream(WIRE, events))) == {"function_call": ...}
    assert "status" not in encode_response(WIRE, response)["output"][0]
    request = streamkit.build_request(WIRE, [UserMessage("go"), response], model="m")
    assert "status" not in request["input"][1]


# ---------------------------------------------------------------- HTTP errors


@pytest.mark.anyio
@pytest.mark.parametrize(("status", "exception"), [
    (400, "BadRequestError"), (401, "AuthenticationError"), (403, "PermissionDeniedError"),
    (404, "NotFoundError"), (429, "RateLimitError"), (500, "InternalServerError"),
    (503, "InternalServerError")])
async def test_an_error_body_makes_the_sdk_raise_its_exception_for_the_status(
        status: int, exception: str) -> None:
    openai = pytest.importorskip("openai")
    error = ErrorEvent(message=f"failure {status}", error_type="overloaded_error",
                       code="some_code")
    encoded = encode_error(WIRE, error, status=status)
    assert encoded.status == status
    assert encoded.body == wire_format(WIRE).encode_error(error, status, None)  # type: ignore[misc]
    async with ReplayServer() as server:
        server.add("/v1/responses", json.dumps(encoded.body).encode(), status=status,
                   content_type="application/json")
        client = openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
        try:
            with pytest.raises(getattr(openai, exception)) as raised:
                async with client.responses.stream(model="m", input="hi") as stream:
                    await stream.get_final_response()
        finally:
            await client.close()
    assert raised.value.status_code == status
    assert raised.value.body["message"] == f"failure {status}"
    assert raised.value.code == "some_code"
    assert raised.value.type != "overloaded_error"  # another wire's word is never written
