"""Ollama ``/api/chat`` answers written: ``encode_stream`` / ``encode_response``
/ ``encode_error`` for the ``ollama`` wire.

The oracles: our own parser (parse -> encode -> parse gives an equal response
on every Ollama stream in ``tests/fixtures``) and the official ``ollama``
client (``AsyncClient.chat(stream=True)``), which reads the encoded NDJSON
from a real socket (:class:`streamkit.testing.ReplayServer`) and must give the
same text, thinking, tool calls, counts and ``done_reason``, for Ollama's own
recordings and for every OpenAI Chat and Anthropic recording written as
Ollama. The non-streamed bodies validate as ``ollama.ChatResponse``; errors
are raised by the client as its ``ResponseError`` with the status.

What Ollama cannot hold is asserted here one loss at a time (see
:mod:`streamkit.providers.ollama.encode`).
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import msgspec
import pydantic
import pytest
from support.comparing import comparable, fresh_ids
from support.recordings import EDGE, FIXTURES, body, fixture_id, recordings
from support.scripted import two_city_answer

import streamkit
from streamkit import (
    ChatResponse,
    ChatUsage,
    DataBlock,
    FinishReason,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    UnsupportedFeatureError,
    encode_error,
    encode_response,
    encode_stream,
    replay,
)
from streamkit.model.blocks import Base64Source
from streamkit.model.events import (
    BlockDelta,
    BlockEnd,
    BlockStart,
    ErrorEvent,
    ResponseEnd,
    ResponseMetadata,
    ResponseStart,
    TextDelta,
    UsageUpdate,
)
from streamkit.model.replay import events_of
from streamkit.providers import wire_format
from streamkit.providers.function_tools import arguments_as_object
from streamkit.testing import ReplayServer

ollama = pytest.importorskip("ollama")

#: Every Ollama stream: the recordings, the edge cases, and the conversations'
#: hand-written streamed turns (``.jsonl``, which ``recordings()`` leaves out).
STREAMS = sorted(
    [path for path in recordings()
     if path.relative_to(FIXTURES).parts[0] == "ollama" or path.name.startswith("ollama-")]
    + list((FIXTURES / "ollama/conversations").glob("*/turn1.response.jsonl")))

#: Every non-streamed Ollama answer body.
BODIES = sorted([*(FIXTURES / "ollama/responses").glob("*.json"),
                 *(FIXTURES / "ollama/conversations").glob("*/turn1.response.json")])

#: The other wires' recordings written as Ollama, with the registry name each is read with.
FOREIGN = {"openai-chat": "openai", "anthropic": "anthropic"}
OTHERS = [path for path in recordings() if path.relative_to(FIXTURES).parts[0] in FOREIGN]

#: Streams whose call arguments came as JSON text that is no object (cut off,
#: invalid): Ollama's server keeps arguments as an object, so they are written as ``{}``.
TEXT_ARGUMENTS = {EDGE / "ollama-chat-tool-call-text-arguments-cut.ndjson",
                  EDGE / "ollama-chat-tool-call-text-arguments-invalid-json.ndjson"}

_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


def _provider(path: Path) -> str:
    wire = path.relative_to(FIXTURES).parts[0]
    return FOREIGN.get(wire, "ollama")


def _parsed(path: Path) -> tuple[list[Any], ChatResponse]:
    with fresh_ids():
        return replay(body(path), _provider(path), on_error="return")


def _reparsed(encoded: bytes) -> ChatResponse:
    with fresh_ids():
        return replay(encoded, "ollama", on_error="return")[1]


def _encoded(source: Any) -> bytes:
    return b"".join(encode_stream("ollama", source))


def _as_written(response: ChatResponse) -> dict[str, Any]:
    """The response as Ollama holds it: a call's arguments as the JSON object
    they are (``{}`` for text that is no object, which then is not cut off)."""
    out = comparable(response)
    for entry, block in zip(out["content"], response.content, strict=True):
        if isinstance(block, ToolCallBlock):
            entry.pop("incomplete", None)
            entry["input"] = msgspec.json.encode(arguments_as_object(block)).decode()
    return out


def _lines(encoded: bytes) -> list[dict[str, Any]]:
    assert encoded.endswith(b"\n")
    return [json.loads(line) for line in encoded.splitlines()]


# ---------------------------------------------------------------- the wire's record


def test_the_ollama_wire_has_all_three_encoders() -> None:
    record = wire_format("ollama")
    assert record.encode_stream is not None and record.encode_response is not None
    assert record.encode_error is not None
    assert record.encode_stream(None).content_type == "application/x-ndjson"
    assert encode_stream("ollama", ChatResponse(content=[])).content_type == \
        "application/x-ndjson"


def test_every_ollama_stream_is_taken() -> None:
    names = {fixture_id(path) for path in STREAMS}
    assert {"ollama/docs-generate-midstream-error.ndjson",
            "edge/ollama-chat-thinking-tools.ndjson", "edge/ollama-generate-thinking.ndjson",
            "ollama/conversations/docs-parallel-tool-calls-stream/turn1.response.jsonl"} <= names
    assert len(STREAMS) == 8 and len(BODIES) == 10
    assert len([path for path in OTHERS if "anthropic" in path.parts]) >= 7


# ---------------------------------------------------------------- round trips


@pytest.mark.parametrize("path", STREAMS, ids=fixture_id)
def test_parse_encode_parse_gives_an_equal_response(path: Path) -> None:
    events, response = _parsed(path)
    again = _reparsed(_encoded(events))
    if path in TEXT_ARGUMENTS:
        assert comparable(again) != comparable(response)
        assert [call.input for call in again.tool_calls] == ["{}"]
    else:
        assert comparable(again) == comparable(response)
    assert comparable(again) == _as_written(response)
    assert again.id == response.id and again.usage == response.usage
    assert again.metadata == response.metadata
    assert [call.id for call in again.tool_calls] == [call.id for call in response.tool_calls]


@pytest.mark.parametrize("path", STREAMS, ids=fixture_id)
def test_a_final_response_replayed_as_events_encodes_to_the_same_answer(path: Path) -> None:
    _, response = _parsed(path)
    assert _reparsed(_encoded(response)) == _reparsed(_encoded(list(events_of(response))))
    assert comparable(_reparsed(_encoded(response))) == _as_written(response)


@pytest.mark.parametrize("path", STREAMS, ids=fixture_id)
def test_each_event_is_written_as_it_comes(path: Path) -> None:
    """Incremental: text is on the wire once its delta is fed, a call once its
    block ends (Ollama sends calls whole), and the bytes of a stream are the
    sum of the bytes of its events."""
    events, _ = _parsed(path)
    encoder = wire_format("ollama").encode_stream
    assert encoder is not None
    writer = encoder(None)
    written = b""
    for event in events:
        out = writer.feed(event)
        written += out
        if isinstance(event, BlockDelta) and isinstance(event.delta, TextDelta):
            assert json.loads(out)["message"]["content"] == event.delta.text
        if isinstance(event, BlockEnd) and isinstance(event.snapshot, ToolCallBlock):
            assert event.snapshot.id.encode() in out
    written += writer.close()
    assert written == _encoded(events)


def test_the_generate_form_is_written_as_chat_lines() -> None:
    _, response = _parsed(EDGE / "ollama-generate-thinking.ndjson")
    lines = _lines(_encoded(response))
    assert all("response" not in line and "message" in line for line in lines)
    assert [line["message"].get("thinking") for line in lines[:1]] == ["Two plus two is four."]
    assert lines[-1]["context"] == [151644, 17, 10, 17, 151645]  # kept, on the done line


# ---------------------------------------------------------------- the official client reads it


async def _client_parts(encoded: bytes, *, status: int = 200,
                        content_type: str = "application/x-ndjson") -> list[Any]:
    """What ``ollama.AsyncClient`` streams from the encoded bytes over a
    socket; what the client raised is raised once the server is closed, with
    the parts it gave before in its ``parts``."""
    parts: list[Any] = []
    raised: Exception | None = None
    async with ReplayServer() as server:
        server.add("/api/chat", encoded, status=status, content_type=content_type,
                   chunk_size=29)
        client = ollama.AsyncClient(host=server.url)
        try:
            async for part in await client.chat(
                    model="m", messages=[{"role": "user", "content": "hi"}], stream=True):
                parts.append(part)
        except Exception as error:  # the client's own exception, checked by the caller
            raised = error
        assert not server.errors
    if raised is not None:
        raised.parts = parts  # type: ignore[attr-defined]
        raise raised
    return parts


def _client_summary(parts: list[Any]) -> dict[str, Any]:
    last = parts[-1]
    return {
        "text": "".join(part.message.content or "" for part in parts),
        "thinking": "".join(part.message.thinking or "" for part in parts),
        "calls": [(call.function.name, dict(call.function.arguments))
                  for part in parts for call in part.message.tool_calls or []],
        "counts": (last.prompt_eval_count, last.eval_count),
        "done": (last.done, last.done_reason),
    }


def _expected_summary(response: ChatResponse) -> dict[str, Any]:
    """What the client must see: every text block (a refusal's too) as
    content, the thinking text, the calls Ollama can answer, the input count
    with the prompt cache in it, and Ollama's word for the finish."""
    own = response.provider == "ollama"
    usage = response.usage
    if usage is None or not response.terminated:
        counts: tuple[int | None, int | None] = (None, None)
    else:
        cache = 0 if own else (usage.cached_tokens or 0) + (usage.cache_creation_tokens or 0)
        inputs = usage.input_tokens + cache if usage.input_tokens is not None else None
        if response.provider == "openai":  # OpenAI's input count has the cache in it
            inputs = usage.input_tokens
        counts = (inputs, usage.output_tokens)
    words = {FinishReason.STOP: "stop", FinishReason.LENGTH: "length",
             FinishReason.TOOL_CALLS: "stop", FinishReason.REFUSAL: "stop",
             FinishReason.CONTENT_FILTER: "stop"}
    if not response.terminated:
        done: tuple[bool, str | None] = (False, None)
    elif own:
        done = (True, response.stop_reason)
    else:
        finish = response.finished_reason
        done = (True, words.get(finish) if finish is not None else None)
    return {
        "text": "".join(block.text for block in response.content if type(block) is TextBlock),
        "thinking": response.thinking,
        "calls": [(call.name, arguments_as_object(call)) for call in response.tool_calls
                  if own or not call.server_side],
        "counts": counts,
        "done": done,
    }


@pytest.mark.anyio
@pytest.mark.parametrize("path", STREAMS + OTHERS, ids=fixture_id)
async def test_the_ollama_client_reads_the_encoded_stream(path: Path) -> None:
    events, response = _parsed(path)
    encoded = _encoded(events)
    if response.finished_reason == FinishReason.ERROR:
        error = next(event for event in events if isinstance(event, ErrorEvent))
        with pytest.raises(ollama.ResponseError) as raised:
            await _client_parts(encoded)
        assert raised.value.error == error.message
        return
    assert _client_summary(await _client_parts(encoded)) == _expected_summary(response)


def test_the_error_recording_is_the_error_line_after_the_text() -> None:
    events, response = _parsed(FIXTURES / "ollama/docs-generate-midstream-error.ndjson")
    lines = _lines(_encoded(events))
    assert lines[-1] == {"error": "an error was encountered while running the model"}
    assert "".join(line["message"]["content"] for line in lines[:-1]) == response.text
    assert not any(line.get("done") for line in lines)


# ---------------------------------------------------------------- scripted answers


def _scripted(provider: str | None) -> ChatResponse:
    """Reasoning with a signature, text, two parallel tool calls, an image."""
    return two_city_answer(provider, DataBlock("img", media_type="image/png",
                                               source=Base64Source(_PNG, "image/png")))


@pytest.mark.anyio
async def test_a_scripted_answer_with_thinking_and_parallel_calls() -> None:
    response = _scripted(None)
    encoded = _encoded(response)
    summary = _client_summary(await _client_parts(encoded))
    assert summary == {"text": "Checking both.", "thinking": "Two cities: call twice.",
                       "calls": [("weather", {"city": "Paris"}), ("weather", {"city": "Rome"})],
                       "counts": (20, 30), "done": (True, "stop")}
    assert b"sig-1" not in encoded  # Ollama's thinking has no signature
    lines = _lines(encoded)
    assert lines[-1]["done"] is True and "total_duration" not in lines[-1]  # nothing made up
    assert [line["message"]["tool_calls"][0]["id"] for line in lines
            if "tool_calls" in line["message"]] == ["call_a", "call_b"]
    again = _reparsed(encoded)
    assert [(call.id, call.name, call.arguments()) for call in again.tool_calls] == \
        [("call_a", "weather", {"city": "Paris"}), ("call_b", "weather", {"city": "Rome"})]
    assert again.finished_reason == FinishReason.TOOL_CALLS
    assert again.thinking == "Two cities: call twice." and again.text == "Checking both."


@pytest.mark.anyio
async def test_an_answers_image_is_not_written_since_the_client_cannot_read_one() -> None:
    response = _scripted(None)
    encoded = _encoded(response)
    body_written = encode_response("ollama", response)
    assert b"images" not in encoded and "images" not in body_written["message"]
    assert not any(isinstance(block, DataBlock) for block in _reparsed(encoded).content)
    # why: a line with the message's images (as our reader would read it) fails the client
    line = {"model": "m", "created_at": "2025-01-01T00:00:00Z", "done": True,
            "message": {"role": "assistant", "content": "",
                        "images": [base64.b64encode(_PNG).decode()]}}
    with pytest.raises(pydantic.ValidationError):
        await _client_parts(json.dumps(line).encode() + b"\n")
    with pytest.raises(pydantic.ValidationError):
        ollama.ChatResponse.model_validate(line)


@pytest.mark.parametrize("finish", list(FinishReason))
def test_every_finish_reason_is_written_as_a_word_ollama_reads_back(finish: FinishReason) -> None:
    response = ChatResponse(id="r1", model="m", content=[TextBlock("x", id="t")],
                            finished_reason=finish, terminated=True)
    again = _reparsed(_encoded(response))
    body_again = streamkit.parse_response("ollama", encode_response("ollama", response))
    expected = {FinishReason.LENGTH: FinishReason.LENGTH, FinishReason.ERROR: FinishReason.UNKNOWN,
                FinishReason.UNKNOWN: FinishReason.UNKNOWN}.get(finish, FinishReason.STOP)
    assert again.finished_reason == body_again.finished_reason == expected
    assert again.terminated


def test_a_tool_call_finish_reads_back_as_tool_calls_when_a_call_was_made() -> None:
    response = ChatResponse(id="r1", model="m", provider="openai", terminated=True,
                            content=[ToolCallBlock("call_1", "f", "{}")],
                            finished_reason=FinishReason.TOOL_CALLS, stop_reason="tool_calls")
    lines = _lines(_encoded(response))
    assert lines[-1]["done_reason"] == "stop"  # Ollama's word after tool calls
    assert _reparsed(_encoded(response)).finished_reason == FinishReason.TOOL_CALLS


def test_a_stream_cut_before_its_end_is_written_without_the_done_line() -> None:
    response = ChatResponse(id="r1", model="m", content=[TextBlock("par", id="t")],
                            usage=ChatUsage(input_tokens=3, output_tokens=1),
                            finished_reason=None, terminated=False)
    lines = _lines(_encoded(response))
    assert [line["done"] for line in lines] == [False]
    again = _reparsed(_encoded(response))
    assert (again.text, again.terminated, again.finished_reason) == \
        ("par", False, FinishReason.UNKNOWN)


def test_a_second_choice_is_refused() -> None:
    with pytest.raises(UnsupportedFeatureError, match="choice 1"):
        _encoded([ResponseStart(id="r", model="m", choice=1)])


# ---------------------------------------------------------------- what Ollama cannot hold


def test_what_another_wires_answer_loses_on_ollama() -> None:
    _, response = _parsed(FIXTURES / "anthropic/thinking-signature.sse")
    signature = next(block.signature for block in response.content
                     if isinstance(block, ThinkingBlock))
    assert signature
    encoded = _encoded(response)
    assert signature.encode() not in encoded
    again = _reparsed(encoded)
    assert again.id != response.id  # Ollama names no response: a reader makes one up
    assert again.thinking == response.thinking and again.text == response.text
    assert all(block.signature is None for block in again.content
               if isinstance(block, ThinkingBlock))


def test_redacted_thinking_is_dropped() -> None:
    _, response = _parsed(FIXTURES / "anthropic/redacted-thinking.sse")
    redacted = [block for block in response.content
                if isinstance(block, ThinkingBlock) and block.redacted]
    assert redacted and redacted[0].encrypted
    encoded = _encoded(response)
    assert redacted[0].encrypted.encode() not in encoded
    again = _reparsed(encoded)
    assert not any(isinstance(block, ThinkingBlock) for block in again.content)
    assert again.text == response.text


def test_a_refusal_is_content_and_the_answer_stops() -> None:
    _, response = _parsed(FIXTURES / "openai-chat/refusal.sse")
    assert response.refusal
    again = _reparsed(_encoded(response))
    assert again.text == response.refusal and again.refusal is None
    assert again.finished_reason == FinishReason.STOP


def test_citations_audio_and_server_calls_are_dropped() -> None:
    from streamkit.model.blocks import Citation

    response = ChatResponse(
        id="r", model="m", provider="anthropic", terminated=True,
        finished_reason=FinishReason.STOP,
        content=[TextBlock("cited", id="t", citations=[Citation(url="https://x.test", title="X")]),
                 ToolCallBlock("srv_1", "web_search", '{"q": "x"}',
                               metadata={"server": "web_search_tool_result"}),
                 DataBlock("aud", media_type="audio/wav",
                           source=Base64Source(b"RIFF....WAVE", "audio/wav"))])
    assert response.content[1].server_side  # type: ignore[union-attr]
    for written in (_encoded(response), json.dumps(encode_response("ollama", response)).encode()):
        assert b"x.test" not in written and b"srv_1" not in written
        assert b"images" not in written
    again = _reparsed(_encoded(response))
    assert [type(block) for block in again.content] == [TextBlock]
    assert again.content[0].citations == []  # type: ignore[union-attr]


def test_usage_of_another_wire_is_two_counts_with_the_cache_in_the_input() -> None:
    _, response = _parsed(FIXTURES / "anthropic/text-basic.sse")
    usage = ChatUsage(input_tokens=10, output_tokens=4, cached_tokens=6,
                      cache_creation_tokens=2, reasoning_tokens=1, raw={"input_tokens": 10},
                      input_includes_cache=False)  # as Anthropic's reader stamps it
    events: list[Any] = [ResponseStart(id="r", model="m", provider="anthropic"),
                         UsageUpdate(usage=usage),
                         ResponseEnd(finish_reason=FinishReason.STOP, stop_reason="end_turn")]
    done = _lines(_encoded(events))[-1]
    assert {key: done[key] for key in done if key.endswith("count")} == \
        {"prompt_eval_count": 18, "eval_count": 4}
    assert "input_tokens" not in done and done["done_reason"] == "stop"
    assert response.usage is not None


def test_another_wires_kept_fields_are_not_written() -> None:
    _, response = _parsed(FIXTURES / "openai-chat/gpt5-obfuscation-usage-moderation.sse")
    assert "service_tier" in response.metadata
    written = encode_response("ollama", response)
    encoded = _encoded(response)
    assert b"service_tier" not in encoded and b"moderation" not in encoded
    assert "service_tier" not in written and "moderation" not in written
    assert set(written) == {"model", "created_at", "message", "done", "done_reason",
                            "prompt_eval_count", "eval_count"}


def test_an_own_answers_kept_fields_go_back() -> None:
    events: list[Any] = [
        ResponseStart(id="r", model="m", provider="ollama",
                      metadata={"created_at": "2025-01-01T00:00:00Z"}),
        ResponseMetadata(metadata={"remote_host": "h1", "message.role_hint": "x"}),
        BlockStart(index=0, block=TextBlock(id="t")),
        BlockDelta(index=0, delta=TextDelta("Hi")),
        BlockEnd(index=0),
        ResponseMetadata(metadata={"context": [1, 2]}),
        ResponseEnd(finish_reason=FinishReason.STOP, stop_reason="stop")]
    lines = _lines(_encoded(events))
    assert lines[0]["remote_host"] == "h1" and lines[0]["message"]["role_hint"] == "x"
    assert all(line["created_at"] == "2025-01-01T00:00:00Z" for line in lines)
    assert lines[-1]["context"] == [1, 2] and "context" not in lines[1]
    again = _reparsed(_encoded(events))
    assert again.metadata == {"created_at": "2025-01-01T00:00:00Z", "remote_host": "h1",
                              "message.role_hint": "x", "context": [1, 2]}
    assert again.text == "Hi"


# ---------------------------------------------------------------- non-streamed bodies


@pytest.mark.parametrize("path", BODIES, ids=fixture_id)
def test_an_own_body_is_written_back_as_it_was_read(path: Path) -> None:
    original = json.loads(path.read_text())
    with fresh_ids():
        response = streamkit.parse_response("ollama", original)
    written = encode_response("ollama", response)
    ollama.ChatResponse.model_validate(written)
    with fresh_ids():
        again = streamkit.parse_response("ollama", written)
    assert comparable(again) == comparable(response)
    message = {key: value for key, value in original["message"].items() if value is not None}
    calls = [{"id": call.id, **entry} for call, entry in
             zip(response.tool_calls, message.get("tool_calls", []), strict=True)]
    if calls:  # a call id the reader made up goes with the call, as turns sent back have it
        message["tool_calls"] = calls
    assert written == {**original, "message": message}  # the whole body, but a null it had


@pytest.mark.parametrize("path", STREAMS + OTHERS, ids=fixture_id)
def test_the_body_validates_as_the_clients_response_and_reads_back(path: Path) -> None:
    _, response = _parsed(path)
    written = encode_response("ollama", response)
    validated = ollama.ChatResponse.model_validate(written)
    expected = _expected_summary(response)
    assert validated.message.content == expected["text"]
    assert (validated.message.thinking or "") == expected["thinking"]
    assert [(call.function.name, dict(call.function.arguments))
            for call in validated.message.tool_calls or []] == expected["calls"]
    again = streamkit.parse_response("ollama", written)
    assert again.text == expected["text"] and again.thinking == expected["thinking"]
    assert [(call.name, call.arguments()) for call in again.tool_calls] == expected["calls"]
    if response.usage is not None:
        assert again.usage is not None
        assert again.usage.output_tokens == response.usage.output_tokens


# ---------------------------------------------------------------- errors


@pytest.mark.anyio
@pytest.mark.parametrize("status", [400, 401, 404, 429, 500, 503])
async def test_an_http_error_is_raised_by_the_client_with_its_status(status: int) -> None:
    error = encode_error("ollama", ErrorEvent(message=f"model 'm' failed ({status})"),
                         status=status)
    assert error.status == status and error.body == {"error": f"model 'm' failed ({status})"}
    with pytest.raises(ollama.ResponseError) as raised:
        await _client_parts(json.dumps(error.body).encode(), status=status,
                            content_type=error.content_type)
    assert (raised.value.status_code, raised.value.error) == \
        (status, f"model 'm' failed ({status})")


@pytest.mark.anyio
async def test_an_in_stream_error_is_the_error_line_the_client_raises() -> None:
    events: list[Any] = [ResponseStart(id="r1", model="m", provider="gemini"),
                         BlockStart(index=0, block=TextBlock(id="t")),
                         BlockDelta(index=0, delta=TextDelta("Hel")),
                         ErrorEvent(message="overloaded", error_type="UNAVAILABLE",
                                    raw={"error": {"code": 503}})]
    encoded = _encoded(events)
    assert _lines(encoded)[-1] == {"error": "overloaded"}  # another wire's raw is not written
    with pytest.raises(ollama.ResponseError) as raised:
        await _client_parts(encoded)
    assert (raised.value.error, raised.value.status_code) == ("overloaded", -1)
    parts = raised.value.parts  # type: ignore[attr-defined]
    assert [part.message.content for part in parts] == ["Hel"]  # the partial came first
    parsed_events, partial = replay(encoded, "ollama", on_error="return")
    assert partial.text == "Hel" and partial.finished_reason == FinishReason.ERROR
    assert [event.message for event in parsed_events if isinstance(event, ErrorEvent)] == \
        ["overloaded"]
