"""OpenAI Chat answers written back in every OpenAI-compatible dialect, spoken
answers, errors the official SDKs raise on, and scripted answers with every
finish reason.

Each vendor recording (``openai-compatible/``, ``edge/openai-chat-*``, the
audio recording) is read with its vendor's registry name and written back with
the same name: parse -> encode -> parse gives an equal response, and the
vendor's own fields (OpenRouter ``reasoning_details``, Groq ``channel``, kept
extras) are written the way that vendor sends them, for its own answers only.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.comparing import comparable, fresh_ids
from support.recordings import FIXTURES, body, fixture_id
from support.sdk_stream_readers import openai_chat_final

import streamkit
from streamkit import (
    ChatResponse,
    ChatUsage,
    DataBlock,
    FinishReason,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    encode_error,
    encode_response,
    encode_stream,
    replay,
)
from streamkit.model.errors import ProviderError, StreamError
from streamkit.model.events import BlockDelta, BlockEnd, BlockStart, ResponseStart, TextDelta
from streamkit.testing import ReplayServer

#: The vendor each recording is read and written as (the file name says it).
VENDORS = ("deepseek", "openrouter", "qwen", "groq", "mistral")

DIALECT_RECORDINGS = sorted(
    [*(FIXTURES / "openai-compatible").glob("*.sse"),
     *(FIXTURES / "openai-compatible").glob("*.chunks.jsonl"),
     *(FIXTURES / "edge").glob("openai-chat-*.sse"),
     FIXTURES / "synthetic/openai-chat-audio.sse"])

AUDIO = FIXTURES / "synthetic/openai-chat-audio.sse"


def _vendor(path: Path) -> str:
    return next((name for name in VENDORS if name in path.name), "openai")


def _parsed(path: Path, provider: str | None = None) -> tuple[list[Any], ChatResponse]:
    with fresh_ids():
        return replay(body(path), provider or _vendor(path), on_error="return")


def _reparsed(provider: str, encoded: bytes) -> ChatResponse:
    with fresh_ids():
        return replay(encoded, provider, on_error="return")[1]


def _deltas(encoded: bytes) -> Iterator[dict[str, Any]]:
    """Every ``choices[].delta`` of an encoded chunk stream."""
    for line in encoded.split(b"\n"):
        if line.startswith(b"data: {"):
            for entry in json.loads(line[6:]).get("choices") or ():
                if type(entry) is dict and type(entry.get("delta")) is dict:
                    yield entry["delta"]


# ---------------------------------------------------------------- round trips


def test_every_vendor_recording_is_taken() -> None:
    names = {fixture_id(path) for path in DIALECT_RECORDINGS}
    assert len(names) >= 16
    assert {"openai-compatible/openrouter-reasoning-details.sse",
            "edge/openai-chat-openrouter-reasoning-encrypted.sse",
            "edge/openai-chat-groq-channel.sse", "synthetic/openai-chat-audio.sse"} <= names
    assert {_vendor(path) for path in DIALECT_RECORDINGS} == {*VENDORS, "openai"}


@pytest.mark.parametrize("path", DIALECT_RECORDINGS, ids=fixture_id)
def test_a_vendor_recording_written_as_its_vendor_reads_back_equal(path: Path) -> None:
    events, response = _parsed(path)
    provider = _vendor(path)
    again = _reparsed(provider, b"".join(encode_stream(provider, events)))
    assert comparable(again) == comparable(response)
    assert again.provider == provider and again.usage == response.usage


@pytest.mark.parametrize("path", DIALECT_RECORDINGS, ids=fixture_id)
def test_a_vendor_answer_replayed_as_events_reads_back_equal(path: Path) -> None:
    _, response = _parsed(path)
    provider = _vendor(path)
    again = _reparsed(provider, b"".join(encode_stream(provider, response)))
    assert comparable(again) == comparable(response)


@pytest.mark.parametrize(("path", "field", "other"), [
    ("openai-compatible/deepseek-reasoning_content.sse", "reasoning_content", "reasoning"),
    ("openai-compatible/qwen-dashscope-reasoning.chunks.jsonl", "reasoning_content",
     "reasoning"),
    ("openai-compatible/openrouter-reasoning-details.sse", "reasoning", "reasoning_content"),
    ("edge/openai-chat-groq-channel.sse", "reasoning", "reasoning_content"),
])
def test_reasoning_is_written_in_the_dialects_own_field(path: str, field: str,
                                                        other: str) -> None:
    events, response = _parsed(FIXTURES / path)
    deltas = list(_deltas(b"".join(encode_stream(_vendor(FIXTURES / path), events))))
    assert "".join(delta.get(field) or "" for delta in deltas) == response.thinking
    assert not any(other in delta for delta in deltas)


def test_mistral_thinking_goes_as_its_thinking_chunks() -> None:
    path = FIXTURES / "edge/openai-chat-mistral-list-content.sse"
    events, response = _parsed(path)
    deltas = list(_deltas(b"".join(encode_stream("mistral", events))))
    chunks = [part for delta in deltas if type(delta.get("content")) is list
              for part in delta["content"] if part.get("type") == "thinking"]
    assert "".join(piece["text"] for part in chunks for piece in part["thinking"]) == \
        response.thinking == "Let me think."
    assert not any("reasoning_content" in delta for delta in deltas)


def test_groq_channels_go_back_on_every_delta_of_their_block() -> None:
    events, _ = _parsed(FIXTURES / "edge/openai-chat-groq-channel.sse")
    groq = list(_deltas(b"".join(encode_stream("groq", events))))
    assert [delta["channel"] for delta in groq if delta.get("content")] \
        == ["final", "final"]
    replayed = b"".join(encode_stream("groq", _parsed(
        FIXTURES / "edge/openai-chat-groq-channel.sse")[1]))
    assert {delta.get("channel") for delta in _deltas(replayed) if delta.get("reasoning")} \
        == {"analysis"}
    openai = b"".join(encode_stream("openai", events))  # another dialect: Groq's own field
    assert b"channel" not in openai


def test_groq_errors_are_its_error_events() -> None:
    events, response = _parsed(FIXTURES / "edge/openai-chat-groq-event-error.sse")
    encoded = b"".join(encode_stream("groq", events))
    assert b"event: error\ndata: {\"error\"" in encoded
    assert b"finish_reason\":\"stop" not in encoded and b"[DONE]" not in encoded
    assert _reparsed("groq", encoded).metadata["error"]["message"] == "Service Unavailable"
    assert response.finished_reason == FinishReason.ERROR


def test_kept_extras_go_back_to_their_own_dialect_only() -> None:
    events, response = _parsed(FIXTURES / "edge/openai-chat-unknown-fields.sse")
    own = b"".join(encode_stream("openai", events))
    assert b"event: vendor.ping" in own and b'"x_phase":"draft"' in own
    assert b"content_filter_offsets" in own
    mistral = b"".join(encode_stream("mistral", events))
    assert b"vendor.ping" not in mistral and b"x_phase" not in mistral
    assert _reparsed("mistral", mistral).text == response.text


# ---------------------------------------------------------------- OpenRouter reasoning details


def _details(encoded: bytes) -> list[dict[str, Any]]:
    return [detail for delta in _deltas(encoded) for detail in delta.get("reasoning_details", ())]


def test_openrouter_details_are_written_as_openrouter_sends_them() -> None:
    path = FIXTURES / "openai-compatible/openrouter-reasoning-details.sse"
    events, response = _parsed(path)
    details = _details(b"".join(encode_stream("openrouter", events)))
    thinking = response.content[0]
    assert isinstance(thinking, ThinkingBlock) and thinking.signature
    assert "".join(detail.get("text", "") for detail in details) == thinking.thinking
    assert [detail["signature"] for detail in details if "signature" in detail] == \
        [thinking.signature]
    assert {(detail["type"], detail["format"], detail["index"]) for detail in details} == \
        {("reasoning.text", "anthropic-claude-v1", 0)}


def test_openrouter_encrypted_and_summary_details_keep_their_ids_and_order() -> None:
    path = FIXTURES / "edge/openai-chat-openrouter-reasoning-encrypted.sse"
    events, response = _parsed(path)
    details = _details(b"".join(encode_stream("openrouter", events)))
    assert [(d["type"], d["id"], d["index"]) for d in details] == [
        ("reasoning.summary", "rs_1", 0), ("reasoning.summary", "rs_1", 0),
        ("reasoning.encrypted", "rs_2", 1), ("reasoning.encrypted", "rs_1", 0)]
    assert [d["data"] for d in details if "data" in d] == ["gAAAAENC1", "gAAAAENC0"]
    replayed = _details(b"".join(encode_stream("openrouter", response)))
    assert [(d["type"], d["id"]) for d in replayed] == [
        ("reasoning.summary", "rs_1"), ("reasoning.encrypted", "rs_1"),
        ("reasoning.encrypted", "rs_2")]  # a whole block: its data after its text


def test_openrouter_details_go_to_openrouter_only() -> None:
    _, response = _parsed(FIXTURES / "openai-compatible/openrouter-reasoning-details.sse")
    signature = response.content[0].signature  # type: ignore[union-attr]
    assert signature
    for provider in ("openai", "deepseek", "groq"):
        encoded = b"".join(encode_stream(provider, response))
        assert b"reasoning_details" not in encoded and signature.encode() not in encoded
        assert _reparsed(provider, encoded).thinking == response.thinking
        assert "reasoning_details" not in encode_response(provider, response)["choices"][0][
            "message"]


def _signed(provider: str | None) -> ChatResponse:
    return ChatResponse(
        id="msg_1", model="m", provider=provider, is_last=True, terminated=True,
        content=[ThinkingBlock("Let me add.", id="th", signature="sig-anthropic"),
                 TextBlock("4", id="tx")],
        finished_reason=FinishReason.STOP, stop_reason=None)


def test_anthropic_signed_thinking_goes_to_openrouter_as_plain_reasoning() -> None:
    """The decision (module docstring of openai_chat/encode.py): another wire's
    signature is never written; OpenRouter gets the visible reasoning only."""
    response = _signed("anthropic")
    encoded = b"".join(encode_stream("openrouter", response))
    assert b"sig-anthropic" not in encoded and b"reasoning_details" not in encoded
    again = _reparsed("openrouter", encoded)
    assert (again.thinking, again.text) == ("Let me add.", "4")
    assert again.content[0].signature is None  # type: ignore[union-attr]
    message = encode_response("openrouter", response)["choices"][0]["message"]
    assert message["reasoning"] == "Let me add." and "reasoning_details" not in message
    made_by_hand = encode_response("openrouter", _signed(None))["choices"][0]["message"]
    assert made_by_hand["reasoning_details"] == [
        {"type": "reasoning.text", "text": "Let me add.", "id": "th", "index": 0,
         "signature": "sig-anthropic"}]


def test_an_openrouter_body_keeps_its_details_and_reads_back_equal() -> None:
    openai_types = pytest.importorskip("openai.types.chat")
    for name in ("openai-compatible/openrouter-reasoning-details.sse",
                 "edge/openai-chat-openrouter-reasoning-encrypted.sse"):
        _, response = _parsed(FIXTURES / name)
        written = encode_response("openrouter", response)
        openai_types.ChatCompletion.model_validate(written)
        with fresh_ids():
            again = streamkit.parse_response("openrouter", written)
        assert comparable(again)["content"] == comparable(response)["content"], name


@pytest.mark.anyio
async def test_the_openai_sdk_reads_openrouter_details_and_signature() -> None:
    _, response = _parsed(FIXTURES / "openai-compatible/openrouter-reasoning-details.sse")
    final = await openai_chat_final(b"".join(encode_stream("openrouter", response)))
    message = final.choices[0].message
    details = message.model_extra["reasoning_details"]
    thinking = response.content[0]
    assert isinstance(thinking, ThinkingBlock)
    assert details[0]["text"] == thinking.thinking
    assert details[0]["signature"] == thinking.signature
    assert message.model_extra["reasoning"] == thinking.thinking
    assert message.content == response.text


# ---------------------------------------------------------------- the SDK reads each dialect


_SDK_READABLE = [path for path in DIALECT_RECORDINGS if "error" not in path.name]


async def _openai_error(encoded: bytes) -> BaseException | None:
    """What the openai SDK's stream helper raises reading ``encoded``."""
    openai = pytest.importorskip("openai")
    async with ReplayServer() as server:
        server.add("/v1/chat/completions", encoded)
        client = openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
        try:
            async with client.chat.completions.stream(
                    model="m", messages=[{"role": "user", "content": "hi"}]) as stream:
                await stream.get_final_completion()
        except Exception as error:
            return error
        finally:
            await client.close()
    return None


@pytest.mark.anyio
@pytest.mark.parametrize("path", _SDK_READABLE, ids=fixture_id)
async def test_the_openai_sdk_reads_each_dialects_encoding(path: Path) -> None:
    events, response = _parsed(path)
    provider = _vendor(path)
    final = await openai_chat_final(b"".join(encode_stream(provider, events)))
    message = final.choices[0].message
    assert (message.content or "") == response.text
    extra = message.model_extra or {}
    reasoning = extra.get("reasoning_content") or extra.get("reasoning") or ""
    if provider != "mistral":  # Mistral's thinking chunks: the SDK has no field for them
        assert reasoning == response.thinking
    assert [(call.id, call.function.name, call.function.arguments)
            for call in message.tool_calls or []] == \
        [(call.id, call.name, call.input) for call in response.tool_calls]
    assert final.choices[0].finish_reason == response.stop_reason


# ---------------------------------------------------------------- audio


def _audio_block(response: ChatResponse) -> DataBlock:
    block = next(block for block in response.content if isinstance(block, DataBlock))
    return block


def test_audio_is_written_as_openai_streams_it() -> None:
    events, response = _parsed(AUDIO)
    encoded = b"".join(encode_stream("openai", events))
    audio = [delta["audio"] for delta in _deltas(encoded) if "audio" in delta]
    assert audio[0] == {"id": "audio_synthetic_0001", "transcript": ""}
    block = _audio_block(response)
    assert base64.b64decode("".join(piece.get("data", "") for piece in audio)) == block.data
    assert "".join(piece.get("transcript", "") for piece in audio) == block.transcript
    assert {"expires_at": 1764550800} in audio  # a field of its own, as OpenAI sends it


def test_audio_cut_anywhere_joins_into_one_base64_string() -> None:
    sound = bytes(range(256)) * 3 + b"\x01"
    events: list[Any] = [ResponseStart(id="r", model="m"),
                         BlockStart(index=0, block=DataBlock("audio_1",
                                                             media_type="audio/pcm;rate=24000"))]
    for start in range(0, len(sound), 7):
        events.append(BlockDelta(index=0, delta=streamkit.DataDelta(
            sound[start:start + 7])))
    events.append(BlockEnd(index=0))
    encoded = b"".join(encode_stream("openai", events))
    pieces = [delta["audio"].get("data", "") for delta in _deltas(encoded) if "audio" in delta]
    assert all(len(piece) % 4 == 0 and "=" not in piece for piece in pieces[:-1])
    assert base64.b64decode("".join(pieces), validate=True) == sound
    assert _audio_block(_reparsed("openai", encoded)).data == sound


@pytest.mark.anyio
async def test_the_openai_sdk_reads_the_audio_stream_and_body() -> None:
    openai_types = pytest.importorskip("openai.types.chat")
    events, response = _parsed(AUDIO)
    block = _audio_block(response)
    final = await openai_chat_final(b"".join(encode_stream("openai", events)))
    audio = final.choices[0].message.audio
    assert audio is not None and audio.id == "audio_synthetic_0001"
    assert base64.b64decode(audio.data) == block.data
    assert audio.transcript == block.transcript and audio.expires_at == 1764550800
    written = encode_response("openai", response)
    validated = openai_types.ChatCompletion.model_validate(written)
    assert validated.choices[0].message.audio is not None
    assert base64.b64decode(validated.choices[0].message.audio.data) == block.data
    with fresh_ids():
        again = streamkit.parse_response("openai", written)
    assert comparable(again)["content"] == comparable(response)["content"]


# ---------------------------------------------------------------- errors


OPENAI_CLASSES = {400: "BadRequestError", 401: "AuthenticationError",
                  403: "PermissionDeniedError", 404: "NotFoundError", 429: "RateLimitError",
                  500: "InternalServerError", 503: "InternalServerError",
                  529: "InternalServerError"}
ANTHROPIC_CLASSES = {400: "BadRequestError", 401: "AuthenticationError",
                     403: "PermissionDeniedError", 404: "NotFoundError",
                     429: "RateLimitError", 500: "InternalServerError",
                     503: "ServiceUnavailableError", 529: "OverloadedError"}


@pytest.mark.anyio
@pytest.mark.parametrize("status", sorted(OPENAI_CLASSES))
async def test_an_encoded_error_is_the_openai_sdks_exception_for_its_status(
        status: int) -> None:
    openai = pytest.importorskip("openai")
    error = encode_error("openai", f"no luck ({status})", status=status)
    assert error.status == status
    async with ReplayServer() as server:
        server.add("/v1/chat/completions", json.dumps(error.body).encode(), status=status,
                   content_type=error.content_type)
        client = openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
        try:
            with pytest.raises(openai.APIStatusError) as raised:
                await client.chat.completions.create(
                    model="m", messages=[{"role": "user", "content": "hi"}])
        finally:
            await client.close()
    assert type(raised.value).__name__ == OPENAI_CLASSES[status]
    assert raised.value.status_code == status
    assert f"no luck ({status})" in str(raised.value)


@pytest.mark.anyio
@pytest.mark.parametrize("status", sorted(ANTHROPIC_CLASSES))
async def test_an_encoded_error_is_the_anthropic_sdks_exception_for_its_status(
        status: int) -> None:
    anthropic = pytest.importorskip("anthropic")
    error = encode_error("anthropic", ProviderError(f"no luck ({status})", status=status))
    assert error.status == status
    async with ReplayServer() as server:
        server.add("/v1/messages", json.dumps(error.body).encode(), status=status,
                   content_type=error.content_type)
        client = anthropic.AsyncAnthropic(base_url=server.url, api_key="k", max_retries=0)
        try:
            with pytest.raises(anthropic.APIStatusError) as raised:
                await client.messages.create(model="m", max_tokens=8,
                                             messages=[{"role": "user", "content": "hi"}])
        finally:
            await client.close()
    assert type(raised.value).__name__ == ANTHROPIC_CLASSES[status]
    assert raised.value.status_code == status
    assert f"no luck ({status})" in str(raised.value)


def _failing(error: StreamError, *, own_event: bool = False) -> Iterator[Any]:
    """A source that says some text, then fails (after its own error event)."""
    yield ResponseStart(id="r1", model="m")
    yield BlockStart(index=0, block=TextBlock(id="t"))
    yield BlockDelta(index=0, delta=TextDelta("Partial answer"))
    if own_event:
        yield streamkit.ErrorEvent(message=error.message, error_type="overloaded_error")
    raise error


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_failing_source_ends_with_the_wires_error_event(provider: str) -> None:
    error = ProviderError("upstream overloaded", status=529, error_type="overloaded_error")
    encoded = encode_stream(provider, _failing(error))
    written = b"".join(encoded)
    assert encoded.error is error
    assert written.index(b"Partial answer") < written.index(b"upstream overloaded")
    last = written.rstrip(b"\n").rsplit(b"\n\n", 1)[-1]
    assert b"upstream overloaded" in last  # the error event is the last thing said
    assert written.count(b"upstream overloaded") == 1
    assert b"[DONE]" not in written and b"message_stop" not in written
    _, partial = replay(written, provider, on_error="return")
    assert partial.text == "Partial answer" and partial.finished_reason == FinishReason.ERROR
    assert partial.metadata["error"]["message"] == "upstream overloaded"


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_source_whose_own_error_event_came_first_gets_no_second(provider: str) -> None:
    error = StreamError("connection reset")
    encoded = encode_stream(provider, _failing(error, own_event=True))
    written = b"".join(encoded)
    assert encoded.error is error
    assert written.count(b"connection reset") == 1
    assert written.count(b'"error"') == (1 if provider == "openai" else 2)  # event: error


@pytest.mark.anyio
async def test_the_sdks_raise_on_the_in_stream_error() -> None:
    openai = pytest.importorskip("openai")
    anthropic = pytest.importorskip("anthropic")
    error = ProviderError("upstream overloaded", status=529, error_type="overloaded_error")
    raised = await _openai_error(b"".join(encode_stream("openai", _failing(error))))
    assert isinstance(raised, openai.APIError) and "upstream overloaded" in str(raised)
    caught: BaseException | None = None
    async with ReplayServer() as server:
        server.add("/v1/messages", b"".join(encode_stream("anthropic", _failing(error))))
        client = anthropic.AsyncAnthropic(base_url=server.url, api_key="k", max_retries=0)
        try:
            async with client.messages.stream(
                    model="m", max_tokens=8,
                    messages=[{"role": "user", "content": "hi"}]) as stream:
                async for _ in stream:
                    pass
        except anthropic.APIError as error_raised:
            caught = error_raised
        finally:
            await client.close()
    assert isinstance(caught, anthropic.APIStatusError) and "upstream overloaded" in str(caught)
    assert caught.body["error"]["type"] == "overloaded_error"  # type: ignore[index]


@pytest.mark.anyio
async def test_an_async_failing_source_ends_with_the_error_event() -> None:
    error = ProviderError("gone", status=503)

    async def source() -> Any:
        for event in list(_failing_events()):
            yield event
        raise error

    encoded = encode_stream("openai", source())
    written = b"".join([chunk async for chunk in encoded])
    assert encoded.error is error and written.endswith(b'"code":null}}\n\n')
    assert b"Partial answer" in written


def _failing_events() -> Iterator[Any]:
    yield ResponseStart(id="r1", model="m")
    yield BlockStart(index=0, block=TextBlock(id="t"))
    yield BlockDelta(index=0, delta=TextDelta("Partial answer"))


# ---------------------------------------------------------------- scripted answers


#: What each wire reads back for a uniform reason it has no word for.
#: What a reason the wire has no word for reads back as (an unknown end is no
#: word at all, so it reads back unknown: never a success made up).
COLLAPSED = {"openai": {FinishReason.REFUSAL: FinishReason.STOP,
                        FinishReason.PAUSE: FinishReason.STOP,
                        FinishReason.INTERRUPTED: FinishReason.STOP},
             "anthropic": {FinishReason.CONTENT_FILTER: FinishReason.REFUSAL,
                           FinishReason.INTERRUPTED: FinishReason.STOP}}


def _scripted(finish: FinishReason) -> ChatResponse:
    return ChatResponse(
        id="msg_scripted", model="scripted-1", is_last=True, terminated=True,
        content=[TextBlock("Checking both.", id="tx"),
                 ToolCallBlock("call_a", "weather", '{"city": "Paris"}'),
                 ToolCallBlock("call_b", "weather", '{"city": "Rome"}')],
        usage=ChatUsage(input_tokens=120, output_tokens=30, cached_tokens=50,
                        cache_creation_tokens=20),
        finished_reason=finish, stop_reason=None)


@pytest.mark.parametrize("finish", [reason for reason in FinishReason
                                    if reason is not FinishReason.ERROR])
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_scripted_answer_with_every_finish_reason_reads_back(
        provider: str, finish: FinishReason) -> None:
    response = _scripted(finish)
    for encoded in (b"".join(encode_stream(provider, response)),
                    json.dumps(encode_response(provider, response)).encode()):
        if encoded.startswith(b"{"):
            again = streamkit.parse_response(provider, encoded)
        else:
            again = _reparsed(provider, encoded)
        expected = COLLAPSED[provider].get(finish, finish)
        if encoded.startswith(b"{") and provider == "openai" and finish is FinishReason.UNKNOWN:
            expected = FinishReason.STOP  # the SDK's body type requires a word (docs/encoding.md)
        assert again.finished_reason == expected, (provider, finish)
        assert [(call.id, call.name, call.arguments()) for call in again.tool_calls] == \
            [("call_a", "weather", {"city": "Paris"}), ("call_b", "weather", {"city": "Rome"})]
        assert again.usage is not None
        assert (again.usage.input_tokens, again.usage.output_tokens,
                again.usage.cached_tokens) == (120, 30, 50)
        if provider == "anthropic":  # OpenAI's usage has no cache-write count
            assert again.usage.cache_creation_tokens == 20


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_scripted_error_ending_reads_back_as_an_error(provider: str) -> None:
    response = _scripted(FinishReason.ERROR)
    response.metadata["error"] = {"message": "it broke", "code": None, "type": None,
                                  "status": 500, "raw": None}
    encoded = b"".join(encode_stream(provider, response))
    _, again = replay(encoded, provider, on_error="return")
    assert again.finished_reason == FinishReason.ERROR
    assert again.metadata["error"]["message"] == "it broke"
    assert len(again.tool_calls) == 2


def test_the_usage_chunk_goes_only_to_a_request_that_asked_for_it() -> None:
    """OpenAI sends the usage chunk (``choices: []``) only with
    ``stream_options.include_usage``: a client that never asked may read
    ``choices[0]`` of every chunk. Answering a request, the encoder does the same;
    with no request it writes what it has."""
    from streamkit import ChatUsage, Request, UserMessage, parse_request

    answer = ChatResponse(content=[TextBlock("hi", id="t")], usage=ChatUsage(3, 1),
                          finished_reason=FinishReason.STOP, terminated=True, is_last=True)
    asked = parse_request("openai", {"model": "m", "stream": True,
                                     "stream_options": {"include_usage": True},
                                     "messages": [{"role": "user", "content": "hi"}]})
    silent = Request(messages=[UserMessage("hi")], stream=True)

    def chunks(request: Request | None) -> list[dict[str, Any]]:
        raw = b"".join(encode_stream("openai", answer, request=request)).decode()
        return [json.loads(line[6:]) for line in raw.splitlines()
                if line.startswith("data: {")]

    assert [chunk["usage"]["prompt_tokens"] for chunk in chunks(asked) if "usage" in chunk] == [3]
    assert all(chunk["choices"] for chunk in chunks(silent))
    assert any("usage" in chunk for chunk in chunks(None))


# ---------------------------------------------------------------- annotations

WEB_SEARCH = FIXTURES / "edge/openai-chat-openrouter-web-search-annotations.sse"


@pytest.mark.anyio
async def test_url_citations_go_back_as_annotations_the_openai_sdk_holds() -> None:
    """OpenRouter's web search ``annotations`` (url citations): written in the
    stream's delta and the body's message as they came, read back equal by
    streamkit and held by the openai SDK's types (issue 30)."""
    openai_types = pytest.importorskip("openai.types.chat")
    events, response = _parsed(WEB_SEARCH)
    came = [citation.raw for citation in response.content[0].citations]
    assert len(came) == 1 and came[0]["url_citation"]["content"]  # OpenRouter's own field
    encoded = b"".join(encode_stream("openrouter", events))
    assert [delta["annotations"] for delta in _deltas(encoded) if "annotations" in delta] == [came]
    written = encode_response("openrouter", response)
    message = openai_types.ChatCompletion.model_validate(written).choices[0].message
    assert [annotation.model_dump() for annotation in message.annotations or []] == came
    with fresh_ids():
        assert comparable(streamkit.parse_response("openrouter", written)) == comparable(response)
    final = await openai_chat_final(encoded)
    streamed = final.choices[0].message.annotations or []  # the stream helper's accumulation
    assert [annotation.model_dump() for annotation in streamed] == came
