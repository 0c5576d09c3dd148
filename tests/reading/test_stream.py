"""streamkit.stream over real sockets: every format end to end, both anyio
backends, cancellation, broken transports, HTTP errors, limits, sync twin."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from support.recordings import FIXTURES

import streamkit
from streamkit import (
    BlockDelta,
    ChatResponse,
    FinishReason,
    IncompleteStreamError,
    LimitExceeded,
    ProtocolError,
    ProviderError,
    TextDelta,
    replay,
)
from streamkit.testing import ReplayServer, load_recording

ALL_RECORDINGS = sorted(
    p for p in FIXTURES.rglob("*")
    if p.suffix in (".sse", ".ndjson") or p.name.endswith(".chunks.jsonl")
    if "edge" not in p.parts
)
# (file, provider name auto-detection must find)
FORMATS = [
    ("openai-chat/text-with-usage-chunk.sse", "openai"),
    ("openai-responses/text.sse", "openai-responses"),
    ("anthropic/text-basic.sse", "anthropic"),
    ("gemini/text.sse", "gemini"),
    ("openai-compatible/qwen-dashscope-tool-call.chunks.jsonl", "openai"),
    ("edge/ollama-chat-thinking-tools.ndjson", "ollama"),
    ("ollama/docs-generate-midstream-error.ndjson", "ollama"),
]
OPENAI_TEXT = FIXTURES / "openai-chat/text-with-usage-chunk.sse"


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def openai_expected_text(path: Path) -> str:
    """The text of an OpenAI Chat recording, read straight from its JSON."""
    parts = []
    for line in path.read_text().splitlines():
        if line.startswith("data: {"):
            for choice in json.loads(line[6:])["choices"]:
                parts.append(choice["delta"].get("content") or "")
    return "".join(parts)


async def collect(http: httpx.Response, **options: Any) -> tuple[list[Any], streamkit.Stream]:
    s = streamkit.stream(http, **options)
    items = [item async for item in s]
    return items, s


GENERATED_ID = re.compile(r"^[a-z_]+_[0-9a-f]{24}$")


def comparable(response: ChatResponse) -> dict[str, Any]:
    """The response as a dict without the ids streamkit generates at random."""
    d = response.to_dict()
    for key in ("id", "created_at"):
        d.pop(key)
    for block in d["content"]:
        if GENERATED_ID.match(block["id"]):
            block.pop("id")
    return d


@pytest.mark.anyio
@pytest.mark.parametrize(("name", "provider"), FORMATS)
async def test_every_format_end_to_end_over_real_http(name: str, provider: str) -> None:
    body, content_type = load_recording(FIXTURES / name)
    _, expected = replay(body, provider, on_error="return")
    async with ReplayServer() as server, httpx.AsyncClient() as client:
        server.add("/v1/stream", body, content_type=content_type, chunk_size=97)
        async with client.stream("POST", server.url + "/v1/stream", json={"stream": True}) as http:
            items, s = await collect(http, on_error="return")  # the Ollama doc ends in an error
    final = items[-1]
    assert isinstance(final, ChatResponse) and final.is_last  # the body was read to its end
    assert s.error is None or isinstance(s.error, ProviderError)
    assert s.provider == provider
    assert comparable(final) == comparable(expected)
    assert final.content, "every one of these recordings has content"
    assert server.requests[0].json() == {"stream": True}


@pytest.mark.anyio
async def test_openai_text_and_text_stream() -> None:
    body, content_type = load_recording(OPENAI_TEXT)
    async with ReplayServer() as server, httpx.AsyncClient() as client:
        server.add("/s", body, content_type=content_type, chunk_size=13)
        async with client.stream("POST", server.url + "/s") as http:
            s = streamkit.stream(http, "openai")
            texts = [t async for t in s.text_stream]
    assert "".join(texts) == openai_expected_text(OPENAI_TEXT) == s.response.text
    assert s.response.usage is not None and s.response.usage.total_tokens == 44
    assert s.response.finished_reason is FinishReason.STOP and s.response.terminated


@pytest.mark.anyio
async def test_final_drains_and_returns_the_response() -> None:
    body, content_type = load_recording(FIXTURES / "anthropic/text-basic.sse")
    async with ReplayServer() as server, httpx.AsyncClient() as client:
        server.add("/s", body, content_type=content_type, chunk_size=5)
        async with client.stream("POST", server.url + "/s") as http:
            final = await streamkit.stream(http).final()
    assert final.text == "Hello there!" and final.is_last
    assert final.usage is not None and final.usage.output_tokens == 6


@pytest.mark.parametrize("path", ALL_RECORDINGS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_one_byte_chunks_equal_one_chunk(path: Path) -> None:
    body, _ = load_recording(path)
    events_whole, whole = replay(body, on_error="return")
    events_bytes, by_byte = replay([body[i:i + 1] for i in range(len(body))], on_error="return")
    assert comparable(whole) == comparable(by_byte)
    assert [type(e).__name__ for e in events_whole] == [type(e).__name__ for e in events_bytes]


async def _slow_server(server: ReplayServer, path: str = "/slow") -> None:
    body, content_type = load_recording(OPENAI_TEXT)
    server.add(path, body * 1, content_type=content_type, chunk_size=40, delay=0.05)


@pytest.mark.anyio
async def test_break_closes_the_response_at_once() -> None:
    async with ReplayServer() as server, httpx.AsyncClient() as client:
        await _slow_server(server)
        async with client.stream("POST", server.url + "/slow") as http, \
                streamkit.stream(http) as s:
            async for item in s:
                if isinstance(item, BlockDelta):
                    break
        assert await server.wait_disconnect(timeout=5)
    assert s.response.finished_reason is FinishReason.INTERRUPTED
    assert s.response.content  # what arrived is kept


@pytest.mark.anyio
async def test_cancel_scope_timeout_keeps_the_partial() -> None:
    async with ReplayServer() as server, httpx.AsyncClient() as client:
        await _slow_server(server)
        async with client.stream("POST", server.url + "/slow") as http:
            s = streamkit.stream(http)
            with anyio.move_on_after(1.5):
                async for _ in s:
                    pass
            await s.aclose()
        assert await server.wait_disconnect(timeout=5)
    assert s.response.finished_reason is FinishReason.INTERRUPTED
    assert 0 < len(s.response.text) < len(openai_expected_text(OPENAI_TEXT))


@pytest.mark.anyio
async def test_connection_cut_mid_event_raises_incomplete_with_partial() -> None:
    body, content_type = load_recording(OPENAI_TEXT)
    cut = body.index(b"data:", len(body) // 2) + 30  # inside an event
    async with ReplayServer() as server, httpx.AsyncClient() as client:
        server.add("/cut", body, content_type=content_type, chunk_size=50, cut_after=cut)
        async with client.stream("POST", server.url + "/cut") as http:
            s = streamkit.stream(http)
            with pytest.raises(IncompleteStreamError) as info:
                async for _ in s:
                    pass
    partial = info.value.partial
    assert partial is s.response and partial.finished_reason is FinishReason.INTERRUPTED
    assert partial.text and openai_expected_text(OPENAI_TEXT).startswith(partial.text)
    assert not partial.is_last


@pytest.mark.anyio
async def test_on_error_return_ends_with_the_partial() -> None:
    body, content_type = load_recording(OPENAI_TEXT)
    async with ReplayServer() as server, httpx.AsyncClient() as client:
        server.add("/cut", body, content_type=content_type, chunk_size=50, cut_after=len(body) // 2)
        async with client.stream("POST", server.url + "/cut") as http:
            items, s = await collect(http, on_error="return")
    assert isinstance(items[-1], ChatResponse) and items[-1] is s.response
    assert isinstance(s.error, IncompleteStreamError)
    assert items[-1].finished_reason is FinishReason.INTERRUPTED and items[-1].text


@pytest.mark.anyio
@pytest.mark.parametrize("status", [429, 500])
async def test_http_error_status_is_a_provider_error(status: int) -> None:
    error = {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit"}}
    async with ReplayServer() as server, httpx.AsyncClient() as client:
        server.add("/e", json.dumps(error).encode(), status=status,
                   content_type="application/json")
        async with client.stream("POST", server.url + "/e") as http:
            with pytest.raises(ProviderError) as info:
                await streamkit.stream(http).final()
    exc = info.value
    assert (exc.status, exc.code, exc.message, exc.error_type) == (
        status, "rate_limit", "Rate limit reached", "requests")
    assert exc.raw == error and exc.partial is not None and exc.partial.content == []


@pytest.mark.anyio
async def test_json_body_instead_of_a_stream() -> None:
    async with ReplayServer() as server, httpx.AsyncClient() as client:
        server.add("/j", b'{"id": "chatcmpl-1", "object": "chat.completion"}',
                   content_type="application/json")
        server.add("/g", b'[{"error": {"code": 400, "message": "bad key", "status": '
                   b'"INVALID_ARGUMENT"}}]', content_type="application/json")
        async with client.stream("POST", server.url + "/j") as http:
            with pytest.raises(ProtocolError, match="expected a streamed response"):
                await streamkit.stream(http).final()
        async with client.stream("POST", server.url + "/g") as http:
            with pytest.raises(ProviderError) as info:
                await streamkit.stream(http).final()
    assert (info.value.code, info.value.error_type) == ("400", "INVALID_ARGUMENT")


@pytest.mark.anyio
async def test_oversized_event_is_limit_exceeded_with_partial() -> None:
    first = b'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,' \
            b'"delta":{"content":"kept"}}]}\n\n'
    huge = b"data: " + b"x" * 5000 + b"\n\n"
    async with ReplayServer() as server, httpx.AsyncClient() as client:
        server.add("/big", first + huge, chunk_size=512)
        async with client.stream("POST", server.url + "/big") as http:
            with pytest.raises(LimitExceeded) as info:
                await streamkit.stream(http, max_event_bytes=1024).final()
    assert info.value.limit == "max_event_bytes" and info.value.value == 1024
    assert info.value.partial is not None and info.value.partial.text == "kept"


@pytest.mark.anyio
async def test_stream_without_terminator_ends_normally() -> None:
    body, content_type = load_recording(OPENAI_TEXT)
    cut = body.index(b'"finish_reason":"stop"')
    cut = body.rindex(b"data:", 0, cut)
    async with ReplayServer() as server, httpx.AsyncClient() as client:
        server.add("/n", body[:cut], content_type=content_type, chunk_size=64)
        async with client.stream("POST", server.url + "/n") as http:
            final = await streamkit.stream(http).final()
    assert final.is_last and not final.terminated
    assert final.finished_reason is FinishReason.UNKNOWN
    assert final.text == openai_expected_text(OPENAI_TEXT)


def test_sync_client_and_sync_stream() -> None:
    body, content_type = load_recording(FIXTURES / "anthropic/text-basic.sse")
    with ReplayServer.in_thread() as server, httpx.Client() as client:
        server.add("/s", body, content_type=content_type, chunk_size=11)
        with client.stream("POST", server.url + "/s") as http, streamkit.stream(http) as s:
            items = list(s)
    assert isinstance(s, streamkit.SyncStream)
    assert isinstance(items[-1], ChatResponse) and items[-1].text == "Hello there!"
    assert [t for t in (i.delta.text for i in items if isinstance(i, BlockDelta)
                        and isinstance(i.delta, TextDelta))] == ["Hello", " there", "!"]


def test_sync_break_closes_the_response() -> None:
    body, content_type = load_recording(OPENAI_TEXT)
    with ReplayServer.in_thread() as server, httpx.Client() as client:
        server.add("/slow", body, content_type=content_type, chunk_size=40, delay=0.05)
        with client.stream("POST", server.url + "/slow") as http, streamkit.stream(http) as s:
            for item in s:
                if isinstance(item, BlockDelta):
                    break
        assert server.wait_disconnect(timeout=5)
    assert s.response.finished_reason is FinishReason.INTERRUPTED


@pytest.mark.anyio
async def test_async_byte_iterator_and_no_read_ahead() -> None:
    body, _ = load_recording(FIXTURES / "anthropic/text-basic.sse")
    pieces = body.split(b"\n\n")
    chunks = [p + b"\n\n" for p in pieces if p]
    pulled = 0

    async def source() -> AsyncIterator[bytes]:
        nonlocal pulled
        for chunk in chunks:
            pulled += 1
            yield chunk

    s = streamkit.stream(source())
    async for item in s:
        if isinstance(item, BlockDelta):
            # the first text delta is in the 4th event; nothing beyond it was read
            assert pulled == 4
            break
    await s.aclose()
    assert s.response.text == "Hello"


def test_httpx_sse_events_are_a_source() -> None:
    from httpx_sse import ServerSentEvent

    body, _ = load_recording(FIXTURES / "anthropic/text-basic.sse")
    events: list[ServerSentEvent] = []
    for block in body.decode().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "data" in lines:
            events.append(ServerSentEvent(event=lines.get("event", "message"),
                                          data=lines["data"]))
    final = streamkit.stream(iter(events)).final()
    assert final.text == "Hello there!" and final.terminated


def test_sync_byte_iterator_transport_error_is_incomplete() -> None:
    body, _ = load_recording(OPENAI_TEXT)

    def source() -> Iterator[bytes]:
        yield body[: len(body) // 2]
        raise ConnectionResetError("peer reset")

    s = streamkit.stream(source())
    with pytest.raises(IncompleteStreamError, match="ConnectionResetError") as info:
        s.final()
    assert info.value.partial is not None and info.value.partial.text
    assert info.value.partial.finished_reason is FinishReason.INTERRUPTED


def test_in_stream_provider_error_raises_after_everything_is_applied() -> None:
    body, _ = load_recording(FIXTURES / "openai-responses/error-then-failed.chunks.jsonl")
    s = streamkit.stream(iter([body]))
    with pytest.raises(ProviderError) as info:
        s.final()
    assert info.value.partial is s.response
    assert s.response.finished_reason is FinishReason.ERROR


@pytest.mark.anyio
async def test_httpx2_response_is_a_source() -> None:
    httpx2 = pytest.importorskip("httpx2")
    body, content_type = load_recording(FIXTURES / "anthropic/text-basic.sse")
    async with ReplayServer() as server, httpx2.AsyncClient() as client:
        server.add("/s", body, content_type=content_type, chunk_size=16)
        async with client.stream("POST", server.url + "/s") as http:
            final = await streamkit.stream(http).final()
    assert final.text == "Hello there!" and final.terminated


def test_n2_choices_are_all_reachable() -> None:
    body = (FIXTURES / "edge/openai-chat-n2-choices.sse").read_bytes()
    s = streamkit.stream(iter([body]))
    final = s.final()
    assert len(s.choices) == 2 and s.choices[0] is final
    assert all(c.text for c in s.choices) and s.choices[0].text != s.choices[1].text


@pytest.mark.parametrize("body", [
    b'{\n  "error": {\n    "code": 429,\n    "message": "Resource exhausted",\n'
    b'    "status": "RESOURCE_EXHAUSTED"\n  }\n}\n',
    b'[{\n  "error": {\n    "code": 429,\n    "message": "Resource exhausted",\n'
    b'    "status": "RESOURCE_EXHAUSTED"\n  }\n}\n]\n',
])
def test_raw_json_error_body_in_a_stream_is_a_provider_error(body: bytes) -> None:
    chunks = [body[i:i + 9] for i in range(0, len(body), 9)]
    with pytest.raises(ProviderError) as info:
        streamkit.stream(iter(chunks)).final()
    assert info.value.message == "Resource exhausted"
    assert (info.value.code, info.value.error_type) == ("429", "RESOURCE_EXHAUSTED")


@pytest.mark.anyio
async def test_a_stopped_hostile_stream_is_closed_and_marked() -> None:
    first = b'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,' \
            b'"delta":{"content":"kept"}}]}\n\n'
    async with ReplayServer() as server, httpx.AsyncClient() as client:
        server.add("/big", first + b"data: " + b"x" * 200_000, chunk_size=4096, delay=0.01)
        async with client.stream("POST", server.url + "/big") as http:
            s = streamkit.stream(http, max_event_bytes=8192)
            with pytest.raises(LimitExceeded):
                await s.final()
            assert http.is_closed  # closed by the stream, before the client's context exits
        assert await server.wait_disconnect(timeout=5)
    assert s.response.finished_reason is FinishReason.INTERRUPTED and s.response.text == "kept"


@pytest.mark.anyio
async def test_http_error_marks_the_partial_as_error() -> None:
    async with ReplayServer() as server, httpx.AsyncClient() as client:
        server.add("/e", b'{"error": {"message": "overloaded"}}', status=529,
                   content_type="application/json")
        async with client.stream("POST", server.url + "/e") as http:
            with pytest.raises(ProviderError) as info:
                await streamkit.stream(http).final()
    assert info.value.partial is not None
    assert info.value.partial.finished_reason is FinishReason.ERROR


def test_invalid_utf8_in_a_payload_is_replaced_not_fatal() -> None:
    body = (b'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,'
            b'"delta":{"content":"caf\xc3"}}]}\n\ndata: [DONE]\n\n')
    final = streamkit.stream(iter([body])).final()
    assert final.text == "caf\ufffd"


@pytest.mark.parametrize("provider", ["anthropic", "auto"])
def test_a_bad_payload_keeps_what_came_before_it_in_the_same_chunk(provider: str) -> None:
    body, _ = load_recording(FIXTURES / "anthropic/text-basic.sse")
    cut = body.index(b"event: content_block_stop")
    bad = body[:cut] + b"event: content_block_delta\ndata: {\"type\": oops}\n\n"
    with pytest.raises(ProtocolError) as info:
        streamkit.stream(iter([bad]), provider).final()  # one network chunk
    assert info.value.partial is not None and info.value.partial.text == "Hello there!"
    assert info.value.event == "content_block_delta"


def test_replay_names_its_two_results_and_still_unpacks() -> None:
    body = (FIXTURES / "anthropic/text-basic.sse").read_bytes()
    replayed = replay(body)
    assert isinstance(replayed, streamkit.Replayed)
    assert replayed.response.text == "Hello there!"
    assert replayed.events[-1] == replayed[0][-1] and replayed.response is replayed[1]
    events, response = replayed
    assert events is replayed.events and response is replayed.response
    texts = [e.delta.text for e in events if isinstance(e, BlockDelta)
             and isinstance(e.delta, TextDelta)]
    assert "".join(texts) == response.text


#: One whole answer in each wire's stream, the registry provider that reads it.
WIRE_STREAMS = {wire: (provider, b"".join(streamkit.encode_stream(wire, ChatResponse(
    content=[streamkit.TextBlock(id="t", text="all of it")], model="m", terminated=True,
    finished_reason=FinishReason.STOP)))) for wire, provider in [
        ("openai-chat", "openai"), ("openai-responses", "openai-responses"),
        ("anthropic", "anthropic"), ("gemini", "gemini"), ("ollama", "ollama")]}


def _broken_after(data: bytes) -> Iterator[bytes]:
    yield data
    raise ConnectionResetError("peer reset")


@pytest.mark.parametrize("wire", sorted(WIRE_STREAMS))
@pytest.mark.parametrize("kept", ["all but the last byte", "no line end"])
def test_a_break_before_the_last_event_s_line_end_still_delivers_it(wire: str,
                                                                    kept: str) -> None:
    """The transport broke after the last event's data, before its line end
    (Ollama's final LF, SSE's blank line): that event is complete and read as a
    clean end reads it (its events before the error), then the break's typed
    error, whose partial is the whole answer (was: lost, the partial
    interrupted; issue 31's campaign, an Ollama stream reset one byte short)."""
    provider, whole = WIRE_STREAMS[wire]
    sent = whole[:-1] if kept == "all but the last byte" else whole.rstrip(b"\r\n")
    s = streamkit.stream(_broken_after(sent), provider, on_error="return")
    items = list(s)
    assert isinstance(s.error, IncompleteStreamError)
    assert s.response.text == "all of it" and s.response.terminated
    assert s.response.finished_reason is FinishReason.STOP
    clean = replay(whole, provider).events  # every event, as the clean end gives (ids apart)
    assert [type(item) for item in items[:-1]] == [type(event) for event in clean]


@pytest.mark.parametrize("wire", sorted(WIRE_STREAMS))
def test_a_break_inside_the_last_event_s_json_keeps_it_as_cut(wire: str) -> None:
    """A break inside the last JSON payload: that event is not read (its JSON
    is cut) but kept as the truncated payload, as a clean end keeps it, and
    the answer is interrupted."""
    provider, whole = WIRE_STREAMS[wire]
    sent = whole[:whole.rindex(b'{"') + 4]
    s = streamkit.stream(_broken_after(sent), provider, on_error="return")
    list(s)
    assert isinstance(s.error, IncompleteStreamError)
    assert not s.response.terminated and s.response.finished_reason is FinishReason.INTERRUPTED
    assert s.response.metadata.get("truncated_payload")
