"""Issue #10 outside the parsers: every failure typed, every cost linear, limits
that hold, chunking that changes nothing, and what a new user's trial found.

One regression test per defect of the issue, with a hand-built input; the
fuzzing that keeps them fixed is ``tests/test_fuzz.py``.
"""

from __future__ import annotations

import base64
import binascii
import json
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from support.comparing import comparable
from support.recordings import FIXTURES, body, fixture_id, recordings

import streamkit
from streamkit import (
    Base64Source,
    BlockDelta,
    BlockStart,
    ChatResponse,
    DataBlock,
    FinishReason,
    IncompleteStreamError,
    LimitExceeded,
    ProtocolError,
    ProviderError,
    ResponseEnd,
    ResponseStart,
    StreamError,
    TextBlock,
    ToolArgumentsError,
    ToolCallBlock,
    replay,
)
from streamkit.cli.commands import PlainRenderer, main, terminal_safe
from streamkit.model.errors import InvalidBase64Error, MediaTypeError
from streamkit.model.ids import counting_ids, id_factory
from streamkit.model.limits import MAX_ERROR_BODY_BYTES, MAX_ERROR_MESSAGE_CHARS, MAX_JSON_DEPTH
from streamkit.model.partial_json import PartialJSON, is_truncated
from streamkit.providers import get_parser
from streamkit.reading.coalesce import coalesce
from streamkit.reading.pipeline import Pipeline
from streamkit.testing import ReplayServer, load_recording

BOM = b"\xef\xbb\xbf"
ANTHROPIC_TEXT = "anthropic/text-basic.sse"
OPENAI_TEXT = "openai-chat/text-with-usage-chunk.sse"


def chat_chunk(content: str, **delta: Any) -> bytes:
    chunk = {"id": "c", "object": "chat.completion.chunk", "model": "m",
             "choices": [{"index": 0, "delta": {"content": content, **delta},
                          "finish_reason": None}]}
    return b"data: " + json.dumps(chunk).encode() + b"\n\n"


def ollama_line(content: str, done: bool = False) -> bytes:
    line: dict[str, Any] = {"model": "m", "created_at": "t",
                            "message": {"role": "assistant", "content": content}, "done": done}
    if done:
        line["done_reason"] = "stop"
    return json.dumps(line).encode() + b"\n"


# ---------------------------------------------------------------- crash classes


def test_tool_arguments_nested_past_the_limit_are_a_tool_arguments_error() -> None:
    for depth in (MAX_JSON_DEPTH + 1, 2_000, 100_000):  # 100,000: RecursionError in json.loads
        call = ToolCallBlock("c", "walk", "[" * depth + "]" * depth)
        with pytest.raises(ToolArgumentsError) as info:
            call.arguments()
        assert info.value.tool == "walk" and info.value.offset == MAX_JSON_DEPTH
        assert f"max_depth={MAX_JSON_DEPTH}" in str(info.value)
    deepest = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert ToolCallBlock("c", "walk", deepest).arguments() == json.loads(deepest)


def test_tool_arguments_error_is_a_value_error_not_a_stream_error() -> None:
    """Raised by arguments(), after the stream, never by it: caught with pydantic's
    ValidationError by ``except ValueError`` (see errors.py)."""
    assert issubclass(ToolArgumentsError, ValueError)
    assert not issubclass(ToolArgumentsError, StreamError)


def test_an_integer_past_pythons_digit_limit_never_escapes() -> None:
    number = "7" * 5_000
    call = ToolCallBlock("c", "count", '{"n": ' + number + "}")
    with pytest.raises(ToolArgumentsError) as info:
        call.arguments()
    assert info.value.offset == len('{"n": ') and "integer too long" in str(info.value)
    assert is_truncated('{"n": ' + number + "}") is False  # complete, merely too long
    assert is_truncated('{"n": ' + number) is True  # cut off before the number ended
    with pytest.raises(ToolArgumentsError):
        ToolCallBlock("c", "count", "[" + number + ",").arguments()


def test_a_huge_integer_in_streamed_arguments_ends_cleanly() -> None:
    arguments = '{"n": ' + "9" * 5_000 + "}"
    events = [b'event: message_start\ndata: {"type":"message_start","message":{"id":"m",'
              b'"type":"message","role":"assistant","content":[],"model":"x","usage":'
              b'{"input_tokens":1,"output_tokens":1}}}\n\n',
              b'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
              b'"content_block":{"type":"tool_use","id":"t","name":"count","input":{}}}\n\n',
              b'event: content_block_delta\ndata: ' + json.dumps(
                  {"type": "content_block_delta", "index": 0,
                   "delta": {"type": "input_json_delta", "partial_json": arguments}}).encode()
              + b"\n\n",
              b'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n']
    _, response = replay(b"".join(events))
    (call,) = response.tool_calls
    assert call.input == arguments and not call.incomplete
    with pytest.raises(ToolArgumentsError):
        call.arguments()


@pytest.mark.parametrize("media_type", [
    "audio/pcm;rate=0", "audio/pcm;rate=abc", "audio/pcm;rate=-8000", "audio/pcm;rate=1.5",
    "audio/L16;codec=pcm;rate=24000;channels=0", "audio/pcm;rate=99999999999",
    "audio/pcm;rate=999999999;channels=999", "audio/pcm;rate=8000;channels=40000",
])
def test_a_pcm_rate_from_the_wire_is_never_trusted(media_type: str) -> None:
    block = DataBlock("a", media_type)
    block.append_bytes(b"\x00\x01" * 100)
    assert block.is_pcm and block.pcm_format is None and block.duration is None
    with pytest.raises(MediaTypeError) as info:
        block.to_wav()
    assert media_type in str(info.value) and isinstance(info.value, ValueError)


def test_pcm_without_a_rate_is_taken_as_24_khz_and_says_so() -> None:
    block = DataBlock("a", "audio/pcm")
    block.append_bytes(b"\x00\x00" * 24_000)
    assert block.pcm_format == (24_000, 1, True) and block.duration == 1.0
    assert block.metadata["pcm_rate_assumed"] == 24_000
    assert block.to_wav()[24:28] == (24_000).to_bytes(4, "little")
    stated = DataBlock("b", "audio/pcm;rate=16000")
    assert stated.pcm_format == (16_000, 1, False) and "pcm_rate_assumed" not in stated.metadata


def test_replay_cli_survives_a_pcm_rate_of_zero(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    audio = base64.b64encode(b"\x00\x01" * 50).decode()
    chunk = {"candidates": [{"content": {"role": "model", "parts": [
        {"inlineData": {"mimeType": "audio/pcm;rate=0", "data": audio}}]},
        "finishReason": "STOP"}]}
    path = tmp_path / "rate0.sse"
    path.write_bytes(b"data: " + json.dumps(chunk).encode() + b"\n\n")
    assert main(["replay", str(path)]) == 0
    assert "100 bytes received" in capsys.readouterr().out


@pytest.mark.parametrize("text", ["w", "\u00e9t\u00e9", "abcde"])
def test_bad_base64_is_a_typed_error_naming_the_media_type(text: str) -> None:
    with pytest.raises(InvalidBase64Error) as info:
        Base64Source(text, "image/png")
    assert "image/png" in str(info.value)
    # a ProtocolError when it comes from a stream, and what base64 itself raises
    assert isinstance(info.value, ProtocolError) and isinstance(info.value, binascii.Error)
    assert Base64Source(base64.b64encode(b"ok").decode()).raw == b"ok"


def test_add_block_takes_only_blocks_with_a_string_id() -> None:
    response = ChatResponse()
    with pytest.raises(TypeError, match="str id"):
        response.add_block("text")  # type: ignore[arg-type]
    block = TextBlock("x")
    block.id = ["an", "id"]  # type: ignore[assignment]
    with pytest.raises(TypeError, match="list id"):
        response.add_block(block)
    assert response.content == []


# ---------------------------------------------------------------- costs


class CountingParser:
    """Wraps a parser, counting the payload bytes it is handed."""

    def __init__(self, name: str) -> None:
        self.inner = get_parser(name)
        self.framing = self.inner.framing
        self.name = self.inner.name
        self.bytes_fed = 0

    def feed(self, data: bytes | str, event: str | None = None) -> list[Any]:
        self.bytes_fed += len(data)
        return self.inner.feed(data, event)

    def feed_into(self, payloads: Any, out: list[Any]) -> None:
        for name, data in payloads:
            out += self.feed(data, None if name == "message" else name)

    def finish(self) -> list[Any]:
        return self.inner.finish()

    @property
    def done(self) -> bool:
        return self.inner.done


@pytest.mark.parametrize("position", [0, 1, 8_000])
def test_a_bad_json_line_is_one_error_at_that_line_and_costs_nothing_after(position: int) -> None:
    """Before: every later line was joined to the bad one and the decode retried
    (16k lines: 18.5 s, the rest lost). Now the bad line is a ProtocolError at once,
    the partial holds every line before it, and no byte is handed over twice."""
    good = [ollama_line(f"w{i} ") for i in range(16_000)]
    lines = [*good[:position], b'{"model": "m", "message": oops}\n', *good[position:]]
    parser = CountingParser("ollama")
    pipeline = Pipeline(parser)  # type: ignore[arg-type]
    with pytest.raises(ProtocolError) as info:
        for line in lines:
            pipeline.feed(line)
    assert pipeline.fail(info.value).partial is not None
    assert info.value.partial is not None
    assert info.value.partial.text == "".join(f"w{i} " for i in range(position))
    assert parser.bytes_fed <= sum(map(len, lines[:position + 1]))


def test_a_json_document_over_several_lines_is_read_each_line_once() -> None:
    document = {"error": {"code": 429, "message": "Resource exhausted", "status":
                          "RESOURCE_EXHAUSTED", "details": [{"n": i} for i in range(3_000)]}}
    text = json.dumps(document, indent=2).encode()
    parser = CountingParser("ollama")
    pipeline = Pipeline(parser)  # type: ignore[arg-type]
    for i in range(0, len(text), 7):
        pipeline.feed(text[i:i + 7])
    pipeline.finish()
    assert pipeline.errors[0].message == "Resource exhausted"
    assert parser.bytes_fed <= 2 * len(text)  # the first line, then the document once


def test_a_document_that_stops_being_json_is_a_protocol_error_and_a_long_one_a_limit() -> None:
    with pytest.raises(ProtocolError, match="not continued"):
        replay(b'{\n  "error": {\n' + ollama_line("hi"))
    spread = b"{\n" + (b'  "k": "' + b"x" * 100 + b'",\n') * 40
    with pytest.raises(LimitExceeded) as info:
        replay(spread, max_event_bytes=1_000)
    assert info.value.limit == "max_event_bytes"


def test_partial_arguments_after_every_delta_of_one_long_string_is_linear() -> None:
    """Before: each read copied the whole string (2 MB in token-sized fragments:
    10.5 s). The string shown now grows by its new characters only: counted, and
    nothing but its container holds it, so CPython grows it in place."""
    def characters_joined(fragments: int) -> int:
        call = ToolCallBlock("c", "write")
        call._input.append('{"text": "')
        for _ in range(fragments):
            call._input.append("abcd")
            value = call.partial_arguments
            assert len(value["text"]) % 4 == 0
        text = value["text"]
        holders = sys.getrefcount(text)  # the dict, ``text``, getrefcount's argument
        assert holders == 3  # no holder in the parser: CPython may grow it in place
        joined: int = call.partial_parser._joined
        return joined

    small, large = characters_joined(2_000), characters_joined(8_000)
    assert small == 4 * 2_000 and large == 4 * 8_000  # each character joined once


def test_partial_json_text_read_after_every_fragment_is_linear() -> None:
    parser = PartialJSON()
    parser.feed('"')
    for _ in range(1_000):
        parser.feed("ab")
        text = parser.text
    holders = sys.getrefcount(text)  # the fragment list, ``text``, getrefcount's argument
    assert holders == 3 and text == '"' + "ab" * 1_000


# ---------------------------------------------------------------- limits


class EndlessBody(httpx.AsyncByteStream, httpx.SyncByteStream):
    """An error body that never ends, counting what is pulled from it."""

    def __init__(self, head: bytes) -> None:
        self.head = head
        self.pulled = 0

    def _chunks(self) -> Iterator[bytes]:
        yield self.head
        while True:
            yield b" " * 65_536

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._chunks():
            self.pulled += len(chunk)
            yield chunk

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self._chunks():
            self.pulled += len(chunk)
            yield chunk


ERROR_HEAD = b'{"error": {"message": "Too many requests", "type": "rate_limit_error", "x": "'


def test_an_endless_error_body_is_read_up_to_the_limit_only() -> None:
    endless = EndlessBody(ERROR_HEAD)
    http = httpx.Response(429, headers={"content-type": "application/json"}, stream=endless)
    with pytest.raises(ProviderError) as info:
        streamkit.stream(http).final()
    assert endless.pulled <= MAX_ERROR_BODY_BYTES + 65_536
    error = info.value
    assert error.status == 429 and error.error_type == "rate_limit_error"
    assert error.message.startswith("Too many requests") and "cut at" in error.message


@pytest.mark.anyio
async def test_an_endless_error_body_is_read_up_to_the_limit_only_async() -> None:
    endless = EndlessBody(ERROR_HEAD)
    http = httpx.Response(503, headers={"content-type": "application/json"}, stream=endless)
    with pytest.raises(ProviderError) as info:
        await streamkit.stream(http).final()  # type: ignore[union-attr]
    assert endless.pulled <= MAX_ERROR_BODY_BYTES + 65_536
    assert info.value.error_type == "rate_limit_error" and info.value.partial is not None


def test_a_json_error_body_over_the_limit_keeps_message_and_type() -> None:
    details = json.dumps([{"field": f"f{i}", "problem": "x" * 50} for i in range(40_000)])
    body_bytes = json.dumps({"error": {"message": "Request too large", "type":
                                       "request_too_large"}})[:-2].encode()
    body_bytes += b', "details": ' + details.encode() + b"}}"
    assert len(body_bytes) > MAX_ERROR_BODY_BYTES
    http = httpx.Response(413, headers={"content-type": "application/json"}, content=body_bytes)
    with pytest.raises(ProviderError) as info:
        streamkit.stream(http).final()
    assert info.value.message.startswith("Request too large")
    assert (info.value.error_type, info.value.status) == ("request_too_large", 413)


def test_str_of_a_provider_error_is_bounded_in_a_body_and_in_a_stream() -> None:
    huge = {"error": {"message": "m" * 100_000, "code": "c" * 100_000, "type": "t" * 100_000}}
    http = httpx.Response(500, headers={"content-type": "application/json"},
                          content=json.dumps(huge).encode())
    with pytest.raises(ProviderError) as from_body:
        streamkit.stream(http).final()
    in_stream = b"data: " + json.dumps(huge).encode() + b"\n\n"
    with pytest.raises(ProviderError) as from_stream:
        streamkit.stream(iter([in_stream])).final()
    for error in (from_body.value, from_stream.value):
        assert len(str(error)) < 4 * (MAX_ERROR_MESSAGE_CHARS + 100)
        assert error.message.startswith("m" * MAX_ERROR_MESSAGE_CHARS)


def test_body_errors_and_in_stream_errors_map_the_same_way() -> None:
    error = {"error": {"message": "Overloaded", "type": "overloaded_error", "code": 529}}
    http = httpx.Response(529, headers={"content-type": "application/json"},
                          content=json.dumps(error).encode())
    with pytest.raises(ProviderError) as from_body:
        streamkit.stream(http).final()
    with pytest.raises(ProviderError) as from_stream:
        streamkit.stream(iter([b"data: " + json.dumps(error).encode() + b"\n\n"])).final()
    fields = ("message", "code", "error_type", "status", "raw")
    assert [getattr(from_body.value, f) for f in fields] == \
        [getattr(from_stream.value, f) for f in fields] == \
        ["Overloaded", "529", "overloaded_error", 529, error]


# ---------------------------------------------------------------- chunking


@pytest.mark.parametrize("fixture", [OPENAI_TEXT, ANTHROPIC_TEXT,
                                     "edge/ollama-chat-text-length.ndjson"])
@pytest.mark.parametrize("provider", ["auto", "named"])
def test_a_byte_order_mark_split_anywhere_changes_nothing(fixture: str, provider: str) -> None:
    name = "auto" if provider == "auto" else fixture_provider(fixture)
    raw = body(fixture)
    with id_factory(counting_ids()):
        _, expected = replay(raw, name)
    for cut in range(0, 8):
        pieces = [p for p in ((BOM + raw)[:cut], (BOM + raw)[cut:]) if p]
        for chunks in (pieces, [bytes([b]) for b in (BOM + raw)[:8]] + [raw[5:]]):
            with id_factory(counting_ids()):
                _, got = replay(chunks, name)
            assert comparable(got) == comparable(expected), (cut, chunks[:3])


def fixture_provider(fixture: str) -> str:
    return {"openai-chat": "openai", "anthropic": "anthropic", "edge": "ollama"}[
        fixture.split("/")[0]]


def test_blank_space_before_the_first_payload_is_bounded() -> None:
    with pytest.raises(LimitExceeded) as info:
        replay([b"\n" * 600, b" " * 600], max_event_bytes=1_000)
    assert info.value.limit == "max_event_bytes"
    _, response = replay([b"\n" * 600, b"\r\n" + body(OPENAI_TEXT)], max_event_bytes=100_000)
    assert response.text


# ---------------------------------------------------------------- a new user's trial


@pytest.mark.parametrize("path", recordings(), ids=fixture_id)
def test_a_clean_end_anywhere_is_never_an_error(path: Path) -> None:
    """The README's rule: a clean end of input without the terminator is not an
    error, wherever it falls (inside the last event's JSON too), once the stream
    said something; before that it is no answer (issue 31): interrupted, no end."""
    raw = body(path)
    offsets = list(range(0, len(raw), max(1, len(raw) // 60)))  # 150 were 30 s of CPU
    for cut in offsets:
        events, response = replay(raw[:cut], on_error="return")
        if not any(isinstance(event, ResponseEnd) for event in events):
            assert not response.content and response.finished_reason == "interrupted", cut
        assert response.finished_reason is not None


def test_a_cut_inside_the_last_event_keeps_it_and_ends_unterminated() -> None:
    raw = body(OPENAI_TEXT)
    cut = raw.index(b'"content":" there"') if b'"content":" there"' in raw else len(raw) // 2
    for provider in ("auto", "openai"):
        events, response = replay(raw[:cut], provider)
        assert not response.terminated and response.finished_reason is FinishReason.UNKNOWN
        kept = response.metadata["truncated_payload"]
        assert raw[:cut].decode().endswith(kept["data"]) and kept["event"] is None
        assert isinstance(events[-1], ResponseEnd)
    with pytest.raises(ProtocolError):  # garbage is still an error, at the end too
        replay(chat_chunk("a") + b'data: {"x": tru]')


def test_an_ndjson_last_line_cut_off_is_kept_not_raised() -> None:
    raw = ollama_line("Hello") + ollama_line(" there")[:30]
    _, response = replay(raw)
    assert response.text == "Hello" and not response.terminated
    assert response.metadata["truncated_payload"]["data"] == ollama_line(" there")[:30].decode()


TOOL_EVENTS = [
    b'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message",'
    b'"role":"assistant","content":[],"model":"x","usage":{"input_tokens":1,"output_tokens":1}}}'
    b"\n\n",
    b'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
    b'"content_block":{"type":"tool_use","id":"t","name":"weather","input":{}}}\n\n',
    b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
    b'"delta":{"type":"input_json_delta","partial_json":"{\\"city\\": \\"Par"}}\n\n',
]


def test_a_tool_call_cut_by_a_broken_connection_is_incomplete() -> None:
    def source() -> Iterator[bytes]:
        yield from TOOL_EVENTS
        raise ConnectionResetError("peer reset")

    with pytest.raises(IncompleteStreamError) as info:
        streamkit.stream(source()).final()
    partial = info.value.partial
    assert partial is not None and partial.finished_reason is FinishReason.INTERRUPTED
    (call,) = partial.tool_calls
    assert call.incomplete and call.input == '{"city": "Par'


@pytest.mark.anyio
async def test_a_tool_call_cut_by_closing_the_stream_is_incomplete() -> None:
    async def source() -> AsyncIterator[bytes]:
        for event in TOOL_EVENTS:
            yield event
        await anyio.sleep(10)

    events = streamkit.stream(source())
    async with events:
        async for item in events:
            if isinstance(item, BlockDelta):
                break
    assert events.response.tool_calls[0].incomplete


def test_a_tool_call_cut_by_a_protocol_error_is_incomplete_in_replay_too() -> None:
    with pytest.raises(ProtocolError) as info:
        replay([*TOOL_EVENTS, b"event: content_block_delta\ndata: {oops}\n\n"])
    assert info.value.partial is not None and info.value.partial.tool_calls[0].incomplete


@pytest.mark.parametrize("source", [b"data: x\n\n", bytearray(b"x"), "data: x", None, 42,
                                    {"not": "chunks"}.items])
def test_a_wrong_source_is_a_type_error_naming_what_is_accepted(source: Any) -> None:
    with pytest.raises(TypeError, match="httpx"):
        streamkit.stream(source)


def test_a_coroutine_or_an_unopened_context_manager_is_a_type_error() -> None:
    async def request() -> bytes:
        return b""

    with pytest.raises(TypeError, match="await it first"):
        streamkit.stream(request())
    with httpx.Client() as client, pytest.raises(TypeError, match=r"with \.\.\. as response"):
        streamkit.stream(client.stream("POST", "http://127.0.0.1:9/"))


def test_items_that_are_not_chunks_are_a_type_error() -> None:
    with pytest.raises(TypeError, match="bytes"):
        streamkit.stream(iter([1, 2, 3])).final()


@pytest.mark.anyio
async def test_the_async_sdk_wrappers_and_streams_are_sources() -> None:
    openai = pytest.importorskip("openai")
    anthropic = pytest.importorskip("anthropic")
    chat, chat_type = load_recording(FIXTURES / OPENAI_TEXT)
    messages, messages_type = load_recording(FIXTURES / ANTHROPIC_TEXT)
    _, chat_expected = replay(chat)
    request: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "hi"}],
                               "stream": True}
    async with ReplayServer() as server:
        server.add("/v1/chat/completions", chat, content_type=chat_type, chunk_size=64)
        server.add("/v1/messages", messages, content_type=messages_type, chunk_size=64)
        client = openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
        async with client.chat.completions.with_streaming_response.create(**request) as response:
            events = streamkit.stream(response)
            assert isinstance(events, streamkit.Stream)
            assert (await events.final()).text == chat_expected.text
        sdk_stream = await client.chat.completions.create(**request)
        assert (await streamkit.stream(sdk_stream).final()).text == chat_expected.text
        await client.close()
        claude = anthropic.AsyncAnthropic(base_url=server.url, api_key="k", max_retries=0)
        async with claude.messages.with_streaming_response.create(
                max_tokens=8, **request) as response:
            assert (await streamkit.stream(response).final()).text == "Hello there!"
        sdk_stream = await claude.messages.create(max_tokens=8, **request)
        assert (await streamkit.stream(sdk_stream).final()).text == "Hello there!"
        await claude.close()


def test_the_sync_sdk_wrappers_and_streams_are_sources() -> None:
    openai = pytest.importorskip("openai")
    chat, chat_type = load_recording(FIXTURES / OPENAI_TEXT)
    _, expected = replay(chat)
    request: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "hi"}],
                               "stream": True}
    with ReplayServer.in_thread() as server:
        server.add("/v1/chat/completions", chat, content_type=chat_type, chunk_size=64)
        client = openai.OpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
        with client.chat.completions.with_streaming_response.create(**request) as response:
            events = streamkit.stream(response)
            assert isinstance(events, streamkit.SyncStream)
            assert events.final().text == expected.text
        assert streamkit.stream(client.chat.completions.create(**request)).final().text == \
            expected.text
        client.close()


WRONG_PROVIDER = [
    (ANTHROPIC_TEXT, "openai", "anthropic"),
    (ANTHROPIC_TEXT, "gemini", "anthropic"),
    (OPENAI_TEXT, "openai-responses", "openai-chat"),
    ("gemini/text.sse", "anthropic", "gemini"),
    ("openai-responses/text.sse", "gemini", "openai-responses"),
    ("edge/ollama-chat-text-length.ndjson", "openai", "ollama"),
    (ANTHROPIC_TEXT, "ollama", "SSE"),
]


@pytest.mark.parametrize(("fixture", "named", "looks_like"), WRONG_PROVIDER)
def test_naming_the_wrong_provider_says_which_it_looks_like(fixture: str, named: str,
                                                           looks_like: str) -> None:
    with pytest.raises(ProtocolError, match=f"looks like.*{looks_like}") as info:
        streamkit.stream(iter([body(fixture)]), named).final()
    assert info.value.partial is not None
    events = streamkit.stream(iter([body(fixture)]), named, on_error="return")
    assert isinstance(events.final(), ChatResponse) and isinstance(events.error, ProtocolError)


@pytest.mark.parametrize("raw", [
    b"data: [DONE]\n\n",
    b'event: message_start\ndata: {"type":"message_start","message":{"id":"m","content":[]}}\n\n'
    b'event: message_stop\ndata: {"type":"message_stop"}\n\n',
])
def test_an_empty_stream_that_ended_is_no_error(raw: bytes) -> None:
    provider = "anthropic" if b"message_start" in raw else "openai"
    response = streamkit.stream(iter([raw]), provider).final()
    assert response.content == [] and response.finished_reason is FinishReason.UNKNOWN


@pytest.mark.parametrize("raw", [b"", b"\n\n", BOM, b" \r\n"])
def test_an_empty_body_is_an_incomplete_stream_that_started(raw: bytes) -> None:
    """No answer, not an empty one (issue 31; tests/reading/test_no_answer.py)."""
    with pytest.raises(IncompleteStreamError) as caught:
        replay(raw)
    (start,) = caught.value.events
    assert type(start) is ResponseStart and caught.value.partial is not None
    assert caught.value.partial.id == start.id  # made up in the events, so a re-parse agrees
    assert caught.value.partial.finished_reason is FinishReason.INTERRUPTED


HOSTILE_TEXT = "ok \x1b[2J\x1b]52;c;SGVsbG8=\x07 \x9b31m \u202edone \x00"


def test_replay_cli_escapes_terminal_control_sequences(tmp_path: Path) -> None:
    path = tmp_path / "hostile.sse"
    path.write_bytes(chat_chunk(HOSTILE_TEXT) + chat_chunk("", tool_calls=[
        {"index": 0, "id": "t", "type": "function",
         "function": {"name": "\x1b]0;title\x07run", "arguments": "{}"}}]) + b"data: [DONE]\n\n")
    for extra in ([], ["--json"]):
        done = subprocess.run([sys.executable, "-m", "streamkit", "replay", str(path), *extra],
                              capture_output=True, timeout=60, check=True)
        for control in (b"\x1b", b"\x07", b"\xc2\x9b", b"\xe2\x80\xae", b"\x00"):
            assert control not in done.stdout, (extra, control)
        assert b"ok " in done.stdout


def test_the_demo_renderer_escapes_stream_content() -> None:
    import io

    out = io.StringIO()
    renderer = PlainRenderer(out)
    renderer.event(BlockStart(index=0, block=ToolCallBlock("t", "\x1b[2Jname")), None)
    renderer.event(BlockDelta(index=0, delta=streamkit.TextDelta(HOSTILE_TEXT)), None)
    assert "\x1b" not in out.getvalue() and "\\x1b[2Jname" in out.getvalue()
    assert terminal_safe("line\n\ttab") == "line\n\ttab"


def test_replay_errors_carry_the_partial() -> None:
    raw = body(ANTHROPIC_TEXT)
    cut = raw.index(b"event: content_block_stop")
    with pytest.raises(ProtocolError) as info:
        replay([raw[:cut], b"event: content_block_delta\ndata: {\"type\": oops}\n\n"])
    assert info.value.partial is not None and info.value.partial.text == "Hello there!"
    assert info.value.partial.finished_reason is FinishReason.INTERRUPTED
    with pytest.raises(LimitExceeded) as limit:
        replay(raw, max_total_bytes=100)
    assert limit.value.partial is not None


def test_two_parses_of_the_same_bytes_are_equal() -> None:
    raw = body("openai-chat/tool-calls-parallel.sse")
    parses = []
    for _ in range(2):
        with id_factory(counting_ids()):
            parses.append(replay(raw)[1])
    assert parses[0] == parses[1]
    parses[1].created_at = "another local time"
    assert parses[0] == parses[1]
    parses[1].content[0].metadata["x"] = 1
    assert parses[0] != parses[1]


def test_coalesce_on_a_sync_stream_is_a_type_error_naming_the_fix() -> None:
    async def use() -> None:
        async with coalesce(streamkit.stream(iter([body(OPENAI_TEXT)]))):  # type: ignore[arg-type]
            pass

    with pytest.raises(TypeError, match="Coalescer"):
        anyio.run(use)


def test_cli_help_is_plain_text_and_every_option_is_explained() -> None:
    top = subprocess.run([sys.executable, "-m", "streamkit", "--help"], capture_output=True,
                         text=True, timeout=60, check=True).stdout
    replay_help = subprocess.run([sys.executable, "-m", "streamkit", "replay", "--help"],
                                 capture_output=True, text=True, timeout=60, check=True).stdout
    assert "``" not in top and ":class:" not in top and ":func:" not in top
    assert "which API produced it" in replay_help and "auto" in replay_help


def test_cli_missing_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "streamkit", "replay",
                           str(tmp_path / "missing.sse")], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and "No such file" in done.stderr


def test_cli_broken_stream_prints_the_partial_and_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "broken.sse"
    path.write_bytes(chat_chunk("kept") + b"data: {broken\n\n")
    done = subprocess.run([sys.executable, "-m", "streamkit", "replay", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "partial response:" in done.stdout and "kept" in done.stdout
    assert done.stderr.startswith("python -m streamkit replay: ProtocolError")


@pytest.mark.parametrize("path", recordings(), ids=fixture_id)
def test_every_recording_replays_equal_to_itself_and_through_the_cli(path: Path) -> None:
    with id_factory(counting_ids()):
        _, first = replay(body(path), on_error="return")
    with id_factory(counting_ids()):
        _, second = replay(body(path), on_error="return")
    assert first == second
    assert comparable(first) == comparable(second)
