"""aiohttp ClientResponse as a stream source, over real sockets (ReplayServer)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import pytest
from support.comparing import comparable, fresh_ids
from support.recordings import recordings

import streamkit
from streamkit import IncompleteStreamError, ProtocolError, ProviderError
from streamkit.adapters.aiohttp import aiohttp_chunks, stream
from streamkit.model.limits import MAX_ERROR_BODY_BYTES
from streamkit.testing import ReplayServer, load_recording


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


def test_every_recording_streams_through_aiohttp_as_replay_reads_it() -> None:
    paths = recordings()

    async def main() -> list[tuple[dict[str, Any], dict[str, Any]]]:
        pairs = []
        async with ReplayServer() as server, aiohttp.ClientSession(server.url) as session:
            for number, path in enumerate(paths):
                raw, content_type = load_recording(path)
                server.add(f"/{number}", raw, content_type=content_type, chunk_size=97)
            for number, path in enumerate(paths):
                raw, _ = load_recording(path)
                with fresh_ids():
                    expected = streamkit.replay(raw, on_error="return")[1]
                with fresh_ids():
                    async with session.post(f"/{number}", json={}) as response:
                        got = await stream(response, on_error="return").final()
                pairs.append((comparable(got), comparable(expected)))
        return pairs

    pairs = run(main())
    assert len(pairs) == len(paths)
    for got, expected in pairs:
        assert got == expected


def _serve(status: int, body: bytes, content_type: str, **route: Any) -> Any:
    async def main() -> Any:
        async with ReplayServer() as server, aiohttp.ClientSession(server.url) as session:
            server.add("/x", body, status=status, content_type=content_type, **route)
            async with session.post("/x") as response:
                try:
                    await stream(response).final()
                except streamkit.StreamError as error:
                    return error
        return None
    return run(main())


def test_an_error_status_is_a_provider_error_with_the_message() -> None:
    body = json.dumps({"error": {"message": "slow down", "type": "rate_limit_error"}}).encode()
    error = _serve(429, body, "application/json")
    assert isinstance(error, ProviderError)
    assert (error.status, error.error_type) == (429, "rate_limit_error")
    assert "slow down" in str(error) and error.partial is not None


def test_json_or_html_where_a_stream_was_expected() -> None:
    in_json = _serve(200, b'{"error": {"message": "bad key"}}', "application/json")
    assert isinstance(in_json, ProviderError) and "bad key" in str(in_json)
    html = _serve(200, b"<html>login</html>", "text/html")
    assert isinstance(html, ProtocolError) and "expected a streamed response" in str(html)


def test_an_error_body_is_read_up_to_the_limit_only() -> None:
    huge = b'{"error": {"message": "' + b"x" * (3 * MAX_ERROR_BODY_BYTES) + b'"}}'
    error = _serve(500, huge, "application/json", chunk_size=65536)
    assert isinstance(error, ProviderError) and error.status == 500
    assert f"cut at {MAX_ERROR_BODY_BYTES} bytes" in str(error)


def test_a_broken_connection_is_incomplete_with_the_partial() -> None:
    raw, content_type = load_recording(next(p for p in recordings()
                                            if p.name == "tool-use.sse"))
    error = _serve(200, raw, content_type, chunk_size=64, cut_after=len(raw) // 2)
    assert isinstance(error, IncompleteStreamError)
    assert error.partial is not None
    assert error.partial.finished_reason == "interrupted"


def test_leaving_early_closes_the_connection() -> None:
    raw, content_type = load_recording(next(p for p in recordings()
                                            if p.name == "tool-use.sse"))

    async def main() -> tuple[bool, str | None]:
        async with ReplayServer() as server, aiohttp.ClientSession(server.url) as session:
            server.add("/x", raw, content_type=content_type, chunk_size=16, delay=0.05)
            async with session.post("/x") as response:
                async with stream(response) as events:
                    async for _ in events:
                        break
                closed = await server.wait_disconnect(timeout=5)
                return closed, events.response.finished_reason
    closed, reason = run(main())
    assert closed and reason == "interrupted"


def test_the_chunks_are_an_ordinary_async_source() -> None:
    """``streamkit.stream(aiohttp_chunks(response))`` is the same stream."""
    raw, content_type = load_recording(next(p for p in recordings() if p.name == "text.sse"))

    async def main() -> str:
        async with ReplayServer() as server, aiohttp.ClientSession(server.url) as session:
            server.add("/x", raw, content_type=content_type)
            async with session.get("/x") as response:
                return (await streamkit.stream(aiohttp_chunks(response)).final()).text
    assert run(main()) == streamkit.replay(raw)[1].text


@pytest.mark.parametrize("source", ["not a response", 3])
def test_aiohttp_chunks_is_lazy(source: Any) -> None:
    """Nothing is read before the stream pulls (an async generator)."""
    assert hasattr(aiohttp_chunks(source), "__anext__")
