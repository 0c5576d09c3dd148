"""Tests for ``streamkit.testing.ReplayServer``.

The replay server is the ground truth for every network-level stream test, so
these tests check it with real clients over real sockets: bytes arrive
unchanged, framing and pacing are what was asked for, cuts and client
disconnects are observable, and it scales to many concurrent streams.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import anyio
import httpx
import pytest
from support.recordings import FIXTURES

from streamkit.model.errors import ProviderError
from streamkit.testing import (
    SECRET_HEADERS,
    FakeProvider,
    RecordedRequest,
    ReplayServer,
    Reply,
    load_recording,
)

OPENAI_TEXT = FIXTURES / "openai-chat" / "text-with-usage-chunk.sse"
ANTHROPIC_CHUNKS = FIXTURES / "anthropic" / "tool-no-args.chunks.jsonl"
OLLAMA_NDJSON = FIXTURES / "ollama" / "docs-generate-midstream-error.ndjson"


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    """Run every async test under both backends the library supports."""
    return str(request.param)


async def _read_all_raw(response: httpx.Response) -> tuple[bytes, list[bytes]]:
    pieces = [piece async for piece in response.aiter_raw()]
    return b"".join(pieces), pieces


# --------------------------------------------------------------------- bodies


@pytest.mark.anyio
@pytest.mark.parametrize("chunk_size", [None, 7])
async def test_serves_fixture_byte_identical(chunk_size: int | None) -> None:
    expected = OPENAI_TEXT.read_bytes()
    async with ReplayServer() as server:
        server.add_file("/v1/chat/completions", OPENAI_TEXT, chunk_size=chunk_size)
        async with (
            httpx.AsyncClient() as client,
            client.stream("POST", server.url + "/v1/chat/completions") as response,
        ):
            received = b"".join([piece async for piece in response.aiter_bytes()])
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/event-stream"
    assert response.headers["transfer-encoding"] == "chunked"
    assert received == expected
    assert not server.errors


@pytest.mark.anyio
async def test_chunk_size_sets_the_wire_chunks() -> None:
    """Read the raw socket: every HTTP chunk must hold exactly ``chunk_size``
    bytes (the last one the remainder), so consumers really see split events."""
    body = OPENAI_TEXT.read_bytes()
    async with ReplayServer() as server:
        server.add("/s", body, chunk_size=7)
        async with await anyio.connect_tcp("127.0.0.1", server.port) as sock:
            await sock.send(b"GET /s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            raw = bytearray()
            with anyio.fail_after(10):
                while True:
                    try:
                        raw += await sock.receive()
                    except anyio.EndOfStream:
                        break
    head, _, rest = bytes(raw).partition(b"\r\n\r\n")
    assert b"transfer-encoding: chunked" in head.lower()
    sizes: list[int] = []
    data = bytearray()
    while True:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line, 16)
        if size == 0:
            assert rest == b"\r\n"
            break
        sizes.append(size)
        data += rest[:size]
        assert rest[size : size + 2] == b"\r\n"
        rest = rest[size + 2 :]
    assert bytes(data) == body
    assert sizes[:-1] == [7] * (len(sizes) - 1)
    assert 1 <= sizes[-1] <= 7
    assert len(sizes) == -(-len(body) // 7)


@pytest.mark.anyio
async def test_delay_paces_pieces_into_separate_reads() -> None:
    body = OPENAI_TEXT.read_bytes()  # 8761 bytes -> 9 pieces of 1000
    async with ReplayServer() as server:
        server.add("/s", body, chunk_size=1000, delay=0.03)
        async with httpx.AsyncClient() as client:
            started = time.monotonic()
            async with client.stream("GET", server.url + "/s") as response:
                received, pieces = await _read_all_raw(response)
            elapsed = time.monotonic() - started
    assert received == body
    assert len(pieces) >= 3  # pacing is visible to the client as several reads
    assert elapsed >= 8 * 0.03 * 0.9  # 8 gaps between 9 pieces


@pytest.mark.anyio
async def test_chunks_jsonl_is_rewrapped_as_sse() -> None:
    lines = [line for line in ANTHROPIC_CHUNKS.read_bytes().splitlines() if line.strip()]
    async with ReplayServer() as server:
        server.add_file("/v1/messages", ANTHROPIC_CHUNKS, chunk_size=5)
        async with httpx.AsyncClient() as client:
            response = await client.post(server.url + "/v1/messages")
    assert response.headers["content-type"] == "text/event-stream"
    events = response.content.split(b"\n\n")
    assert events[-1] == b""  # body ends with a complete event
    events = events[:-1]
    assert len(events) == len(lines)
    for event, line in zip(events, lines, strict=True):
        assert event == b"data: " + line
        json.loads(event.removeprefix(b"data: "))


def test_load_recording_picks_content_type_from_suffix(tmp_path: Path) -> None:
    assert load_recording(OPENAI_TEXT) == (OPENAI_TEXT.read_bytes(), "text/event-stream")
    assert load_recording(OLLAMA_NDJSON) == (OLLAMA_NDJSON.read_bytes(), "application/x-ndjson")
    body, content_type = load_recording(ANTHROPIC_CHUNKS)
    assert content_type == "text/event-stream"
    assert body.startswith(b'data: {"type":"message_start"')
    as_json = tmp_path / "error.json"
    as_json.write_bytes(b'{"error": {}}')
    assert load_recording(as_json) == (b'{"error": {}}', "application/json")
    unknown = tmp_path / "body.txt"
    unknown.write_bytes(b"x")
    with pytest.raises(ValueError, match=r"body\.txt"):
        load_recording(unknown)


@pytest.mark.anyio
async def test_ndjson_file_is_served_as_ndjson() -> None:
    async with ReplayServer() as server:
        server.add_file("/api/generate", OLLAMA_NDJSON, chunk_size=16)
        async with httpx.AsyncClient() as client:
            response = await client.post(server.url + "/api/generate")
    assert response.headers["content-type"] == "application/x-ndjson"
    assert response.content == OLLAMA_NDJSON.read_bytes()


@pytest.mark.anyio
@pytest.mark.parametrize("status", [429, 500])
async def test_error_status_with_json_body(status: int) -> None:
    error = {"error": {"message": "Rate limit reached", "type": "requests", "code": status}}
    async with ReplayServer() as server:
        server.add(
            "/v1/chat/completions",
            json.dumps(error).encode(),
            status=status,
            content_type="application/json",
            headers={"Retry-After": "2"},
        )
        async with httpx.AsyncClient() as client:
            response = await client.post(server.url + "/v1/chat/completions", json={})
    assert response.status_code == status
    assert response.headers["content-type"] == "application/json"
    assert response.headers["retry-after"] == "2"
    assert response.json() == error


@pytest.mark.anyio
async def test_unknown_path_is_404_and_default_route_catches_all() -> None:
    async with ReplayServer() as server, httpx.AsyncClient() as client:
        server.add("/known", b"data: 1\n\n")
        missing = await client.get(server.url + "/missing")
        assert missing.status_code == 404
        assert "/missing" in missing.json()["error"]["message"]

        server.default(b"fallback", content_type="text/plain")
        fallback = await client.get(server.url + "/missing?x=1")
        known = await client.get(server.url + "/known?x=1")  # query ignored for matching
    assert (fallback.status_code, fallback.text) == (200, "fallback")
    assert known.content == b"data: 1\n\n"


# ------------------------------------------------------------------------ cuts


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("cut_after", "chunk_size"),
    [(0, None), (100, None), (100, 64), (8761, 1000)],
    ids=["before-body", "mid-single-write", "mid-piece", "all-data-no-terminator"],
)
async def test_cut_after_breaks_the_body(cut_after: int, chunk_size: int | None) -> None:
    body = OPENAI_TEXT.read_bytes()
    assert len(body) == 8761
    received = bytearray()
    async with ReplayServer() as server:
        server.add("/s", body, chunk_size=chunk_size, cut_after=cut_after)
        async with httpx.AsyncClient() as client:
            with pytest.raises(httpx.TransportError) as excinfo:
                async with client.stream("POST", server.url + "/s") as response:
                    async for piece in response.aiter_raw():
                        received += piece
    assert isinstance(excinfo.value, httpx.RemoteProtocolError | httpx.ReadError)
    assert bytes(received) == body[:cut_after]
    assert server.disconnects == []  # a server-side cut is not a client disconnect


# -------------------------------------------------------------------- requests


@pytest.mark.anyio
async def test_records_requests() -> None:
    async def upload() -> AsyncIterator[bytes]:  # forces a chunked request body
        yield b'{"stream": '
        yield b"true}"

    async with ReplayServer() as server, httpx.AsyncClient() as client:
        server.default(b"ok", content_type="text/plain")
        await client.post(
            server.url + "/v1/chat/completions?api-version=2024",
            json={"model": "gpt-4o", "stream": True},
            headers={"Authorization": "Bearer sk-test", "X-Trace": "a"},
        )
        await client.put(server.url + "/upload", content=upload())
        await client.get(server.url + "/models")

    first, second, third = server.requests
    assert isinstance(first, RecordedRequest)
    assert (first.method, first.path, first.query) == (
        "POST",
        "/v1/chat/completions",
        "api-version=2024",
    )
    assert first.headers["authorization"] == "<redacted>"
    assert first.secret_headers["authorization"] == "Bearer sk-test"
    assert "sk-test" not in repr(first)
    assert first.headers["x-trace"] == "a"
    assert first.headers["content-type"] == "application/json"
    assert first.json() == {"model": "gpt-4o", "stream": True}
    assert (second.method, second.path, second.body) == ("PUT", "/upload", b'{"stream": true}')
    assert second.headers["transfer-encoding"] == "chunked"
    assert (third.method, third.path, third.body) == ("GET", "/models", b"")


# ------------------------------------------------------------------- sequences


@pytest.mark.anyio
async def test_a_sequence_answers_in_order_then_says_it_is_used_up() -> None:
    anthropic = FIXTURES / "anthropic" / "text-basic.sse"
    async with ReplayServer() as server, httpx.AsyncClient() as client:
        server.add_sequence("/v1/messages", [
            Reply(b'{"error": {"message": "slow down"}}', status=429,
                  content_type="application/json", headers={"Retry-After": "1"}),
            OPENAI_TEXT,
            Reply.file(anthropic, chunk_size=5),
            b"data: raw\n\n",
        ])
        answers = []
        for turn in range(5):
            response = await client.post(server.url + "/v1/messages", json={"turn": turn})
            answers.append((response.status_code, response.headers["content-type"],
                            response.content))
        assert [r.json() for r in server.requests] == [{"turn": n} for n in range(5)]
    assert answers[0] == (429, "application/json", b'{"error": {"message": "slow down"}}')
    assert answers[1] == (200, "text/event-stream", OPENAI_TEXT.read_bytes())
    assert answers[2] == (200, "text/event-stream", anthropic.read_bytes())
    assert answers[3] == (200, "text/event-stream", b"data: raw\n\n")
    status, content_type, body = answers[4]
    assert (status, content_type) == (410, "application/json")
    assert "served all 4 replies of the sequence for /v1/messages" in body.decode()


@pytest.mark.anyio
async def test_registering_a_sequence_again_starts_over_and_other_paths_are_apart() -> None:
    async with ReplayServer() as server, httpx.AsyncClient(base_url=server.url) as client:
        server.add_sequence("/a", [b"one", b"two"])
        server.add("/b", b"always")
        assert (await client.post("/a")).content == b"one"
        assert (await client.post("/b")).content == b"always"
        server.add_sequence("/a", [b"again"])
        assert (await client.post("/a")).content == b"again"
        assert (await client.post("/a")).status_code == 410
        assert (await client.post("/b")).content == b"always"


@pytest.mark.anyio
async def test_a_reply_of_a_sequence_pauses_as_add_does() -> None:
    """A reply's ``pauses`` hold its body back (the headers go at once): a
    slow first token on the second turn only. Only lower bounds are checked."""
    async with ReplayServer() as server, httpx.AsyncClient(base_url=server.url) as client:
        server.add_sequence("/a", [b"fast", Reply(b"slow", chunk_size=2, pauses={0: 0.3, 1: 0.2})])
        assert (await client.post("/a")).content == b"fast"
        async with client.stream("POST", "/a") as response:
            headers_at = time.monotonic()
            pieces = [piece async for piece in response.aiter_raw()]
            done_at = time.monotonic()
    assert b"".join(pieces) == b"slow"
    assert done_at - headers_at >= 0.5 - 0.05


def test_a_bad_reply_in_a_sequence_fails_when_registered(tmp_path: Path) -> None:
    server = ReplayServer()
    with pytest.raises(ValueError, match="status"):
        server.add_sequence("/a", [b"ok", Reply(b"", status=99)])
    with pytest.raises(ValueError, match="pauses must be >= 0"):
        server.add_sequence("/a", [Reply(b"late", pauses={0: -1.0})])
    notes = tmp_path / "notes.txt"
    notes.write_text("not a recording")
    with pytest.raises(ValueError, match="cannot infer a content type"):
        server.add_sequence("/a", [notes])


@pytest.mark.anyio
async def test_every_key_header_is_redacted_in_the_record() -> None:
    keys = {name: f"secret-{index}" for index, name in enumerate(sorted(SECRET_HEADERS))}
    async with ReplayServer() as server, httpx.AsyncClient() as client:
        server.default(b"ok")
        await client.post(server.url + "/x", headers={**keys, "X-Other": "kept"})
    request, = server.requests
    assert request.secret_headers == keys
    assert {name: request.headers[name] for name in keys} == dict.fromkeys(keys, "<redacted>")
    assert request.headers["x-other"] == "kept"
    assert not any(value in repr(request) for value in keys.values())


# ------------------------------------------------------------------ disconnect


# Under trio, leaving httpx's byte-stream async generators partly consumed makes
# trio warn when they are garbage-collected (encode/httpx#3686, client-side,
# unrelated to the server).  Only those httpx/httpcore generators are ignored.
_HTTPX_TRIO_ASYNCGEN_WARNING = (
    "ignore:Exception ignored in. <async_generator object "
    "(AsyncResponseStream|BoundAsyncStream|PoolByteStream|HTTP11ConnectionByteStream"
    "|AsyncHTTP11Connection|Response)\\.:pytest.PytestUnraisableExceptionWarning"
)


@pytest.mark.anyio
@pytest.mark.filterwarnings(_HTTPX_TRIO_ASYNCGEN_WARNING)
async def test_client_closing_early_is_detected_at_once() -> None:
    # 1000 pieces, 0.5 s apart: the server is idle in its delay when the client
    # leaves, so only watching the socket (not the next write) can notice in time.
    body = b"data: {}\n\n" * 1000
    async with ReplayServer() as server:
        server.add("/slow", body, chunk_size=10, delay=0.5)
        async with httpx.AsyncClient() as client:
            async with client.stream("POST", server.url + "/slow") as response:
                async for piece in response.aiter_raw():  # `break` out of a stream
                    assert piece
                    break
            started = time.monotonic()
            assert await server.wait_disconnect(timeout=5)
            elapsed = time.monotonic() - started
    assert server.disconnects == ["/slow"]
    assert elapsed < 0.4
    assert not server.errors


@pytest.mark.anyio
async def test_complete_read_is_not_a_disconnect() -> None:
    body = b"data: {}\n\n" * 20
    async with ReplayServer() as server:
        server.add("/s", body, chunk_size=10, delay=0.005)
        async with httpx.AsyncClient() as client:
            async with client.stream("POST", server.url + "/s") as response:
                received, _ = await _read_all_raw(response)
            assert received == body
        # The client pool is closed now, too: closing after a full body is normal.
        assert not await server.wait_disconnect(timeout=0.3)
    assert server.disconnects == []


# ------------------------------------------------------- connections, shutdown


@pytest.mark.anyio
async def test_keep_alive_and_connection_close() -> None:
    async with ReplayServer() as server:
        server.add("/s", b"data: 1\n\n", chunk_size=3)
        async with httpx.AsyncClient() as client:
            for _ in range(3):
                assert (await client.get(server.url + "/s")).content == b"data: 1\n\n"
        assert server.connections == 1
        async with httpx.AsyncClient(headers={"Connection": "close"}) as client:
            for _ in range(3):
                assert (await client.get(server.url + "/s")).content == b"data: 1\n\n"
        assert server.connections == 4


@pytest.mark.anyio
async def test_200_concurrent_streams() -> None:
    body = OPENAI_TEXT.read_bytes()
    # ~0.15 s per stream: one at a time, the first would end before the second began.
    chunk_size = -(-len(body) // 4)
    async with ReplayServer() as server:
        server.add("/s", body, chunk_size=chunk_size, delay=0.05)
        limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
        results: list[bytes] = []
        open_now, most_open = 0, 0

        async with httpx.AsyncClient(limits=limits, timeout=120) as client:

            async def one() -> None:
                nonlocal open_now, most_open
                async with client.stream("POST", server.url + "/s") as response:
                    open_now += 1
                    most_open = max(most_open, open_now)
                    results.append((await _read_all_raw(response))[0])
                    open_now -= 1

            with anyio.fail_after(120):  # a hang guard only: the machine may be busy
                async with anyio.create_task_group() as tg:
                    for _ in range(200):
                        tg.start_soon(one)
    # served at once, not one after the other (counted, not timed: machines are noisy)
    assert most_open >= 10, most_open  # a server serving one at a time would show 1
    assert len(results) == 200
    assert all(result == body for result in results)
    assert len(server.requests) == 200
    assert server.connections == 200
    assert not server.errors


@pytest.mark.anyio
async def test_exit_stops_in_flight_streams_promptly() -> None:
    """Leaving the server context must cancel streams still being served
    instead of waiting for their (here: minute-long) bodies to finish."""
    received = bytearray()
    got_some = anyio.Event()
    failures: list[Exception] = []

    async def consume(client: httpx.AsyncClient, url: str) -> None:
        try:
            async with client.stream("GET", url) as response:
                async for piece in response.aiter_raw():
                    received.extend(piece)
                    got_some.set()
        except httpx.TransportError as exc:
            failures.append(exc)

    with anyio.fail_after(10):  # without cancellation the exit would take ~50 s
        async with httpx.AsyncClient() as client, anyio.create_task_group() as tg:
            async with ReplayServer() as server:
                server.add("/slow", b"x" * 1000, chunk_size=1, delay=0.05)
                tg.start_soon(consume, client, server.url + "/slow")
                with anyio.fail_after(5):
                    await got_some.wait()
                started = time.monotonic()
            assert time.monotonic() - started < 1.0
    assert len(failures) == 1
    assert 1 <= len(received) < 1000


@pytest.mark.anyio
async def test_url_and_port() -> None:
    async with ReplayServer() as server:
        assert server.url == f"http://127.0.0.1:{server.port}"
        assert server.port > 0
    with pytest.raises(RuntimeError):
        _ = server.url


def _fail(error: ProviderError) -> None:
    """Raise ``error`` one frame below the test, so its traceback shows where."""
    raise error


@pytest.mark.anyio
@pytest.mark.parametrize("server", [ReplayServer, lambda: FakeProvider([])],
                         ids=["ReplayServer", "FakeProvider"])
async def test_an_exception_in_the_body_comes_out_as_itself(
        server: Callable[[], ReplayServer | FakeProvider]) -> None:
    """Not wrapped in the server's task group's ExceptionGroup: the ``except``
    and ``pytest.raises`` around the block match it, traceback and all."""
    raised = ProviderError("from the body", status=503)
    with pytest.raises(ProviderError) as caught:
        async with server():
            _fail(raised)
    assert caught.value is raised and raised.__context__ is None
    assert caught.traceback[-1].name == "_fail"


# -------------------------------------------------------------------- threaded


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@pytest.mark.parametrize("in_thread", [ReplayServer.in_thread,
                                       lambda backend: FakeProvider.in_thread([], backend=backend)],
                         ids=["ReplayServer", "FakeProvider"])
def test_an_exception_in_the_thread_forms_body_comes_out_as_itself(
        in_thread: Callable[..., contextlib.AbstractContextManager[object]],
        backend: str) -> None:
    raised = ProviderError("from the body", status=503)
    with pytest.raises(ProviderError) as caught, in_thread(backend=backend):
        _fail(raised)
    assert caught.value is raised and raised.__context__ is None
    assert caught.traceback[-1].name == "_fail"



@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_in_thread_with_sync_client(backend: str) -> None:
    body = OPENAI_TEXT.read_bytes()
    with ReplayServer.in_thread(backend=backend) as server, httpx.Client() as client:
        server.add_file("/v1/chat/completions", OPENAI_TEXT, chunk_size=7)
        server.add("/slow", b"data: {}\n\n" * 1000, chunk_size=10, delay=0.05)

        response = client.post(server.url + "/v1/chat/completions", json={"stream": True})
        assert response.content == body
        assert server.requests[0].json() == {"stream": True}

        with client.stream("GET", server.url + "/slow") as slow:
            next(slow.iter_raw())
        assert server.wait_disconnect(timeout=5)
        assert server.disconnects == ["/slow"]
    with pytest.raises(RuntimeError):
        _ = server.url
