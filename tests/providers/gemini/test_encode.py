"""Gemini answers written back: ``encode_stream("gemini", ...)`` (SSE and the
JSON array), ``encode_response`` and ``encode_error``.

Oracles: our own reader (parse -> encode -> parse gives an equal response on
every Gemini recording, the edge ones too) and google-genai, whose client reads
the encoded stream from a real socket (:class:`streamkit.testing.ReplayServer`)
for every Gemini, OpenAI Chat and Anthropic recording and must give the same
text, thought text, calls, usage and finish reason; the bodies validate as
``types.GenerateContentResponse``. What another wire's answer loses on the way
is asserted where it is lost (see the module docstring of
:mod:`streamkit.providers.gemini.encode`).
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from support.comparing import comparable, fresh_ids
from support.encode_matrix import parsed
from support.recordings import FIXTURES, body, fixture_id, recordings

from streamkit import (
    ChatResponse,
    ChatUsage,
    FinishReason,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    encode_error,
    encode_response,
    encode_stream,
    parse_response,
    replay,
)
from streamkit.framing.sse import SSEDecoder
from streamkit.model.blocks import Base64Source, DataBlock
from streamkit.model.events import BlockEnd, ErrorEvent, ResponseEnd
from streamkit.providers import wire_format
from streamkit.providers.gemini.encode import GeminiArrayEncoder, GeminiStreamEncoder
from streamkit.testing import ReplayServer

genai = pytest.importorskip("google.genai")
from google.genai import errors as genai_errors  # noqa: E402
from google.genai import types  # noqa: E402

PROVIDERS = {"gemini": "gemini", "openai-chat": "openai", "anthropic": "anthropic"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # google-genai's async client runs on asyncio (aiohttp)


def _provider(path: Path) -> str:
    parts = path.relative_to(FIXTURES).parts
    if path.name.startswith("gemini-"):  # the edge and synthetic ones
        return "gemini"
    return PROVIDERS[parts[0]]


GEMINI = [path for path in recordings()
          if path.relative_to(FIXTURES).parts[0] == "gemini"
          or path.name.startswith("gemini-")]
OTHERS = [path for path in recordings() if path.relative_to(FIXTURES).parts[0] in
          ("openai-chat", "anthropic")]
# The edge recordings made up to hold what google-genai's models do not
# (an unknown part field, a partialArgs update of the wrong type).
_NOT_SDK_SHAPED = {"edge/gemini-mixed-parts-parallel-calls.sse",
                   "edge/gemini-vertex-partialArgs-unplaceable.sse"}


def _parsed(path: Path) -> tuple[list[Any], ChatResponse]:
    with fresh_ids():
        return replay(body(path), _provider(path), on_error="return")


def _reparsed(encoded: bytes) -> ChatResponse:
    with fresh_ids():
        return replay(encoded, "gemini", on_error="return")[1]


def test_the_recordings_of_gemini_are_all_taken() -> None:
    names = {fixture_id(path) for path in GEMINI}
    assert len(names) >= 9
    assert {"gemini/text.sse", "edge/gemini-two-candidates.sse",
            "gemini/vertex-function-call-partialArgs.chunks.jsonl"} <= names


def test_the_record_has_all_three_encoders() -> None:
    wire = wire_format("gemini")
    assert wire.encode_stream is not None and wire.encode_response is not None
    assert wire.encode_error is not None
    assert type(wire.encode_stream(None)) is GeminiStreamEncoder
    assert type(wire.encode_stream(None, array=True)) is GeminiArrayEncoder


# ---------------------------------------------------------------- round trips


@pytest.mark.parametrize("array", [False, True], ids=["sse", "array"])
@pytest.mark.parametrize("path", GEMINI, ids=fixture_id)
def test_parse_encode_parse_gives_an_equal_response(path: Path, array: bool) -> None:
    events, response = _parsed(path)
    encoded = encode_stream("gemini", events, array=array)
    assert encoded.content_type == ("application/json" if array else "text/event-stream")
    again = _reparsed(b"".join(encoded))
    assert comparable(again) == comparable(response)
    assert again.id == response.id and again.usage == response.usage


@pytest.mark.parametrize("path", GEMINI, ids=fixture_id)
def test_a_final_response_replayed_as_events_encodes_to_the_same_answer(path: Path) -> None:
    _, response = _parsed(path)
    again = _reparsed(b"".join(encode_stream("gemini", response)))
    assert comparable(again) == comparable(response)


@pytest.mark.parametrize("path", GEMINI, ids=fixture_id)
def test_the_body_validates_and_reads_back_equal(path: Path) -> None:
    _, response = _parsed(path)
    encoded = encode_response("gemini", response)
    if fixture_id(path) not in _NOT_SDK_SHAPED:
        types.GenerateContentResponse.model_validate(encoded)
    with fresh_ids():
        again = parse_response("gemini", encoded)
    assert comparable(again) == comparable(response)


def test_the_sse_form_has_the_recordings_framing_and_the_array_form_is_json() -> None:
    events, response = _parsed(FIXTURES / "gemini/text.sse")
    sse = b"".join(encode_stream("gemini", events))
    assert sse.startswith(b"data: {") and sse.endswith(b"}\r\n\r\n")
    chunks = [json.loads(event[len(b"data: "):]) for event in sse.split(b"\r\n\r\n") if event]
    assert chunks[-1]["candidates"][0]["finishReason"] == "STOP"
    assert chunks[-1]["usageMetadata"] == response.usage.raw  # type: ignore[union-attr]
    assert all(chunk["responseId"] == "w1peaMz6INOvnvgPgYfPiQY" for chunk in chunks)
    array = b"".join(encode_stream("gemini", events, array=True))
    assert array.startswith(b"[{") and b"},\r\n{" in array and array.endswith(b"}]")
    assert json.loads(array) == chunks


def test_each_event_is_written_as_it_comes() -> None:
    """Text goes out with its delta; a call waits for its block's end (Gemini
    sends a call whole), and nothing else waits."""
    events, _ = _parsed(FIXTURES / "edge/gemini-mixed-parts-parallel-calls.sse")
    writer = GeminiStreamEncoder()
    for event in events:
        out = writer.feed(event)
        if type(event).__name__ == "BlockDelta" and type(event.delta).__name__ == "TextDelta":
            assert json.dumps(event.delta.text)[1:-1].encode() in out
        if isinstance(event, BlockEnd) and event.index in (2, 3):
            assert b'"functionCall"' in out and b"get_" in out


def test_a_cut_stream_has_no_finish_reason_and_the_array_no_end() -> None:
    events, response = _parsed(FIXTURES / "gemini/text.sse")
    cut = [*events[:-1], ResponseEnd(finish_reason=FinishReason.UNKNOWN, terminated=False)]
    sse = b"".join(encode_stream("gemini", cut))
    assert b"finishReason" not in sse
    again = _reparsed(sse)
    assert again.text == response.text and not again.terminated
    array = b"".join(encode_stream("gemini", cut, array=True))
    assert array.startswith(b"[") and not array.endswith(b"]")
    whole = b"".join(encode_stream("gemini", events, array=True))
    assert whole.endswith(b"]")


# ---------------------------------------------------------------- google-genai reads it


def _client(server: ReplayServer, **options: Any) -> Any:
    """google-genai's client of the Gemini API (``/v1beta``) at ``server``."""
    return genai.Client(api_key="k", http_options=types.HttpOptions(
        base_url=server.url, api_version="v1beta", **options))


async def _genai_chunks(encoded: bytes) -> list[Any]:
    async with ReplayServer() as server:
        server.add("/v1beta/models/m:streamGenerateContent", encoded, chunk_size=37)
        client = _client(server)
        chunks = [chunk async for chunk in
                  await client.aio.models.generate_content_stream(model="m", contents="hi")]
        assert not server.errors
        request = server.requests[0]
        assert (request.path, request.query) == ("/v1beta/models/m:streamGenerateContent",
                                                 "alt=sse")
    return chunks


def _sdk_summary(chunks: list[Any]) -> dict[str, Any]:
    text, thought, calls, finish, usage = "", "", [], None, None
    for chunk in chunks:
        usage = chunk.usage_metadata or usage
        for candidate in chunk.candidates or []:
            if candidate.index not in (None, 0):
                continue
            finish = candidate.finish_reason or finish
            for part in (candidate.content.parts or []) if candidate.content else []:
                if part.function_call is not None and part.function_call.name:
                    calls.append((part.function_call.name, part.function_call.args or {}))
                elif part.text and part.thought:
                    thought += part.text
                elif part.text:
                    text += part.text
    return {"text": text, "thought": thought, "calls": calls,
            "finish": finish.value if finish is not None else None, "usage": usage}


def _expected_usage(usage: ChatUsage | None) -> tuple[Any, ...]:
    if usage is None:
        return (None, None)
    return (usage.output_tokens, usage.reasoning_tokens)


# google-genai refuses the made-up partialArgs update of the wrong type (as it
# would the recording itself): that recording is read by our reader only.
SDK_READABLE = [path for path in GEMINI + OTHERS
                if fixture_id(path) != "edge/gemini-vertex-partialArgs-unplaceable.sse"]


@pytest.mark.anyio
@pytest.mark.parametrize("path", SDK_READABLE, ids=fixture_id)
async def test_google_genai_reads_the_stream_of_every_recording(path: Path) -> None:
    events, response = _parsed(path)
    own = _provider(path) == "gemini"
    summary = _sdk_summary(await _genai_chunks(b"".join(encode_stream("gemini", events))))
    refusal = response.refusal or ""
    assert summary["text"] == response.text + ("" if own else refusal)
    assert summary["thought"] == response.thinking
    # a cut-off call holds no arguments: {} (its Vertex streamed form, for an
    # answer of this wire, gives the SDK the name part without them)
    assert summary["calls"] == [(call.name, {} if call.incomplete else call.arguments())
                                for call in response.tool_calls]
    if own:
        assert summary["finish"] == response.stop_reason
    else:
        words = {FinishReason.STOP: "STOP", FinishReason.LENGTH: "MAX_TOKENS",
                 FinishReason.TOOL_CALLS: "STOP", FinishReason.REFUSAL: "SAFETY"}
        assert summary["finish"] == words[response.finished_reason]  # type: ignore[index]
    usage = summary["usage"]
    if response.usage is None:
        assert usage is None
        return
    assert (usage.candidates_token_count, usage.thoughts_token_count) == _expected_usage(
        response.usage)
    if not own:
        cache = (response.usage.cached_tokens or 0) + (response.usage.cache_creation_tokens or 0)
        extra = cache if _provider(path) == "anthropic" else 0
        assert usage.prompt_token_count == (response.usage.input_tokens or 0) + extra


#: Every stream recording of every wire (but the two made up beyond the SDK's models).
EVERY = [path for path in recordings() if fixture_id(path) not in _NOT_SDK_SHAPED]


@pytest.mark.parametrize("path", EVERY, ids=fixture_id)
def test_google_genais_idiom_reads_every_chunk_of_every_encoding(path: Path) -> None:
    """``for chunk in stream: chunk.candidates[0].content.parts``, the way
    google-genai's users read a stream, on every chunk of every recording
    written to Gemini, each chunk held by the SDK's own type: the last chunk
    too (issue 30: it had no ``content``, and a usage after the end no candidate)."""
    source = parsed(path)
    if source.choices > 1 and source.wire != "gemini":
        return  # one candidate per chunk is Gemini's own multi-candidate form only
    decoder = SSEDecoder()
    encoded = b"".join(encode_stream("gemini", source.events))
    frames = [json.loads(event.data) for event in decoder.feed(encoded) + decoder.flush()]
    assert frames
    for frame in frames:
        if "error" in frame:
            continue  # the in-stream error object: google-genai raises it, no chunk
        chunk = types.GenerateContentResponse.model_validate(frame)
        assert chunk.candidates is not None and chunk.candidates[0].content is not None, frame
        assert chunk.candidates[0].content.parts is not None, frame


def test_what_another_wires_answer_loses() -> None:
    """Another wire's call ids, signatures, redacted thinking and citations do
    not cross; a refusal is text ending in SAFETY."""
    _, anthropic = _parsed(FIXTURES / "anthropic/redacted-thinking.sse")
    assert any(block.redacted for block in anthropic.content if isinstance(block, ThinkingBlock))
    body_ = encode_response("gemini", anthropic)
    text = json.dumps(body_)
    assert "thoughtSignature" not in text and "redacted" not in text
    _, tools = _parsed(FIXTURES / "anthropic/tool-use.sse")
    written = encode_response("gemini", tools)
    calls = [part["functionCall"] for part in written["candidates"][0]["content"]["parts"]
             if "functionCall" in part]
    assert calls and all("id" not in call for call in calls)
    with fresh_ids():
        again = parse_response("gemini", written)
    assert [call.id for call in again.tool_calls] != [call.id for call in tools.tool_calls]
    assert again.tool_calls[0].arguments() == tools.tool_calls[0].arguments()
    _, refusal = _parsed(FIXTURES / "openai-chat/refusal.sse")
    back = parse_response("gemini", encode_response("gemini", refusal))
    assert back.text == refusal.text + (refusal.refusal or "")
    assert back.finished_reason is FinishReason.CONTENT_FILTER
    assert refusal.finished_reason is FinishReason.REFUSAL


def test_own_call_ids_and_signatures_go_back_made_up_ids_do_not() -> None:
    _, response = _parsed(FIXTURES / "edge/gemini-mixed-parts-parallel-calls.sse")
    parts = encode_response("gemini", response)["candidates"][0]["content"]["parts"]
    calls = [part for part in parts if "functionCall" in part]
    assert calls[0] == {"functionCall": {"name": "get_weather",
                                         "args": {"city": "Paris", "days": 2}},
                        "thoughtSignature": "c2lnLWNhbGw="}
    assert calls[1]["functionCall"]["id"] == "call-given-2"


# ---------------------------------------------------------------- scripted answers


def _scripted(finish: FinishReason, content: list[Any]) -> ChatResponse:
    return ChatResponse(content=content, id="scripted-1", model="gemini-x",
                        finished_reason=finish, terminated=True,
                        usage=ChatUsage(input_tokens=11, output_tokens=7, total_tokens=30,
                                        cached_tokens=3, reasoning_tokens=12))


@pytest.mark.parametrize("finish", [FinishReason.STOP, FinishReason.LENGTH,
                                    FinishReason.TOOL_CALLS, FinishReason.CONTENT_FILTER])
def test_every_finish_reason_gemini_has_a_word_for_reads_back(finish: FinishReason) -> None:
    content: list[Any] = [ThinkingBlock("hmm", id="t1", signature="c2ln"),
                          TextBlock("hello", id="x1")]
    if finish is FinishReason.TOOL_CALLS:
        content += [ToolCallBlock("c1", "a", '{"x": 1}'), ToolCallBlock("c2", "b", "{}")]
    response = _scripted(finish, content)
    for encoded in (b"".join(encode_stream("gemini", response)),
                    b"".join(encode_stream("gemini", response, array=True))):
        again = _reparsed(encoded)
        assert again.finished_reason is finish
        assert again.thinking == "hmm" and again.text == "hello"
        assert [block.signature for block in again.content
                if isinstance(block, ThinkingBlock)] == ["c2ln"]
        assert [(c.id, c.name, c.arguments()) for c in again.tool_calls] == [
            (c.id, c.name, c.arguments()) for c in response.tool_calls]
        assert again.usage is not None
        assert (again.usage.input_tokens, again.usage.output_tokens, again.usage.cached_tokens,
                again.usage.reasoning_tokens, again.usage.total_tokens) == (11, 7, 3, 12, 30)


@pytest.mark.parametrize("finish,word,back", [
    (FinishReason.REFUSAL, "SAFETY", FinishReason.CONTENT_FILTER),
    (FinishReason.PAUSE, "STOP", FinishReason.STOP),
    (FinishReason.ERROR, "OTHER", FinishReason.UNKNOWN),
])
def test_a_reason_gemini_has_no_word_for_is_the_nearest(finish: FinishReason, word: str,
                                                        back: FinishReason) -> None:
    response = _scripted(finish, [TextBlock("x", id="x1")])
    response.provider = "anthropic"
    body_ = encode_response("gemini", response)
    assert body_["candidates"][0]["finishReason"] == word
    assert parse_response("gemini", body_).finished_reason is back


def test_images_and_audio_are_inline_data() -> None:
    png = b"\x89PNG\r\n\x1a\n-image"
    pcm = bytes(range(64))
    response = _scripted(FinishReason.STOP, [
        TextBlock("look", id="x1"),
        DataBlock("d1", source=Base64Source(png, "image/png")),
        DataBlock("d2", source=Base64Source(pcm, "audio/L16;codec=pcm;rate=24000")),
    ])
    stream = b"".join(encode_stream("gemini", response))
    again = _reparsed(stream)
    media = [block for block in again.content if isinstance(block, DataBlock)]
    assert [(block.media_type, block.data) for block in media] == [
        ("image/png", png), ("audio/L16;codec=pcm;rate=24000", pcm)]
    body_ = encode_response("gemini", response)
    types.GenerateContentResponse.model_validate(body_)
    inline = [part["inlineData"] for part in body_["candidates"][0]["content"]["parts"]
              if "inlineData" in part]
    assert base64.b64decode(inline[0]["data"]) == png


@pytest.mark.anyio
async def test_google_genai_reads_a_scripted_answer_with_parallel_calls() -> None:
    response = _scripted(FinishReason.TOOL_CALLS, [
        ThinkingBlock("plan", id="t1"), TextBlock("calling", id="x1"),
        ToolCallBlock("c1", "get_weather", '{"city": "Paris"}'),
        ToolCallBlock("c2", "get_time", '{"tz": "CET"}')])
    chunks = await _genai_chunks(b"".join(encode_stream("gemini", response)))
    calls = [part.function_call for chunk in chunks for candidate in chunk.candidates or []
             for part in (candidate.content.parts if candidate.content else None) or []
             if part.function_call]
    assert [(call.id, call.name, call.args) for call in calls] == [
        ("c1", "get_weather", {"city": "Paris"}), ("c2", "get_time", {"tz": "CET"})]
    summary = _sdk_summary(chunks)
    assert summary["thought"] == "plan" and summary["text"] == "calling"
    assert summary["finish"] == "STOP"
    usage = summary["usage"]
    assert (usage.prompt_token_count, usage.candidates_token_count,
            usage.cached_content_token_count, usage.thoughts_token_count,
            usage.total_token_count) == (11, 7, 3, 12, 30)


@pytest.mark.anyio
async def test_the_sync_client_reads_it_too() -> None:
    _, response = _parsed(FIXTURES / "gemini/thinking-thought-parts.sse")
    encoded = b"".join(encode_stream("gemini", response))
    async with ReplayServer() as server:
        server.add("/v1beta/models/m:streamGenerateContent", encoded, chunk_size=101)
        client = _client(server)
        chunks = await anyio.to_thread.run_sync(lambda: list(
            client.models.generate_content_stream(model="m", contents="hi")))
    summary = _sdk_summary(chunks)
    assert (summary["text"], summary["thought"]) == (response.text, response.thinking)


# ---------------------------------------------------------------- errors


@pytest.mark.anyio
@pytest.mark.parametrize("status,word,kind", [
    (400, "INVALID_ARGUMENT", "ClientError"), (401, "UNAUTHENTICATED", "ClientError"),
    (403, "PERMISSION_DENIED", "ClientError"), (404, "NOT_FOUND", "ClientError"),
    (429, "RESOURCE_EXHAUSTED", "ClientError"), (500, "INTERNAL", "ServerError"),
    (503, "UNAVAILABLE", "ServerError"), (504, "DEADLINE_EXCEEDED", "ServerError"),
])
async def test_an_error_body_is_raised_by_google_genai(status: int, word: str,
                                                       kind: str) -> None:
    error = encode_error("gemini", ErrorEvent(message="quota gone", error_type="rate_limit_error"),
                         status=status)
    assert error.status == status
    assert error.body == {"error": {"code": status, "message": "quota gone", "status": word}}
    async with ReplayServer() as server:
        server.add("/v1beta/models/m:generateContent", json.dumps(error.body).encode(),
                   status=status, content_type="application/json")
        client = _client(server, retry_options=types.HttpRetryOptions(attempts=1))
        with pytest.raises(getattr(genai_errors, kind)) as raised:
            await client.aio.models.generate_content(model="m", contents="hi")
    assert raised.value.code == status and raised.value.status == word
    assert raised.value.message == "quota gone"


@pytest.mark.anyio
async def test_an_in_stream_error_is_raised_after_the_partial() -> None:
    events, _ = _parsed(FIXTURES / "gemini/text.sse")
    failing = [*events[:3], ErrorEvent(message="overloaded", status=503)]
    encoded = b"".join(encode_stream("gemini", failing))
    assert encoded.endswith(b'data: {"error":{"code":503,"message":"overloaded",'
                            b'"status":"UNAVAILABLE"}}\r\n\r\n')
    with fresh_ids():
        read, partial = replay(encoded, "gemini", on_error="return")
    errors = [event for event in read if isinstance(event, ErrorEvent)]
    assert [(e.message, e.status) for e in errors] == [("overloaded", 503)]
    assert partial.text == "The" and partial.finished_reason is FinishReason.ERROR
    async with ReplayServer() as server:
        server.add("/v1beta/models/m:streamGenerateContent", encoded)
        client = _client(server)
        seen = []
        with pytest.raises(genai_errors.ServerError) as raised:
            async for chunk in await client.aio.models.generate_content_stream(
                    model="m", contents="hi"):
                seen.append(chunk.text)
    assert seen == ["The"] and raised.value.code == 503
    array = b"".join(encode_stream("gemini", failing, array=True))
    assert json.loads(array)[-1] == {"error": {"code": 503, "message": "overloaded",
                                               "status": "UNAVAILABLE"}}


def test_the_visible_text_of_another_wires_encrypted_reasoning_crosses() -> None:
    """Encrypted reasoning of another wire loses its encrypted data only: its
    summary text is written as a thought part, in the body as in the stream
    (a block that is only encrypted, redacted, has nothing to write)."""
    response = ChatResponse(
        id="r1", model="m", provider="openai-responses", terminated=True,
        finished_reason=FinishReason.STOP,
        content=[ThinkingBlock("Summary.", id="th", encrypted="gAAAA-secret"),
                 ThinkingBlock("", id="red", encrypted="gAAAA-only", redacted=True),
                 TextBlock("Done.", id="tx")])
    body_ = encode_response("gemini", response)
    assert "gAAAA" not in json.dumps(body_)
    assert parse_response("gemini", body_).thinking == "Summary."
    streamed = b"".join(encode_stream("gemini", response))
    assert b"gAAAA" not in streamed and _reparsed(streamed).thinking == "Summary."
