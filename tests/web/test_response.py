"""``ui_message_response(client.stream(...))``: one call from a model call to the
browser, read by the AI SDK's own Chat in Node (``web/scripts/chat-client.mjs``).

The upstream is a ReplayServer behind a real :class:`streamkit.Client`; the
endpoint is a Starlette app under uvicorn. An upstream 401 (or 429) before the
first byte is an HTTP error with that status, whose text the Chat shows as its
error; a stream cut after its first text is a 200 ending in the ``error``
chunk, the text received kept; a whole stream is the whole message.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from support.asgi_server import serving
from support.recordings import FIXTURES, body
from support.web_node import WEB, ensure_packages, run, tool

import streamkit
from streamkit.conversation.messages import UserMessage
from streamkit.testing import ReplayServer, ThreadedReplayServer
from streamkit.web import error_status, open_ui_message_stream, ui_message_response

SECRET = "sk-web-test-0123456789-SECRET"
TOOL_USE = FIXTURES / "anthropic/tool-use.sse"
TEXT = FIXTURES / "anthropic/text-basic.sse"  # "Hello there!"


def error_body(message: str, kind: str) -> bytes:
    return json.dumps({"type": "error", "error": {"type": kind, "message": message}}).encode()


def app_for(upstream: str) -> Any:
    """One endpoint per upstream path: ``POST /api/{name}`` calls the model at
    ``{upstream}/{name}/v1`` and answers with ``ui_message_response``."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    async def chat(request: Request) -> Response:
        ui = await request.json()
        prompt = " ".join(p.get("text", "") for p in ui["messages"][-1]["parts"])
        name = request.path_params["name"]
        client = streamkit.Client("anthropic:claude-test", base_url=f"{upstream}/{name}/v1",
                                  api_key=SECRET, max_retries=0)
        return await ui_message_response(client.stream([UserMessage(prompt)]))

    return Starlette(routes=[Route("/api/{name}", chat, methods=["POST"])])


@pytest.fixture(scope="module")
def upstream() -> Iterator[ThreadedReplayServer]:
    text = body(TEXT)
    with ReplayServer.in_thread() as server:
        server.add_file("/ok/v1/messages", TOOL_USE, chunk_size=50)
        server.add("/unauthorized/v1/messages",
                   error_body("invalid x-api-key", "authentication_error"), status=401,
                   content_type="application/json")
        server.add("/busy/v1/messages", error_body("slow down", "rate_limit_error"),
                   status=429, content_type="application/json", headers={"Retry-After": "7"})
        server.add("/cut/v1/messages", text, chunk_size=20, cut_after=text.index(b" there"))
        yield server


def ai_sdk_chat(urls: list[str]) -> dict[str, dict[str, Any]]:
    """What the AI SDK's Chat (and a plain fetch) got from each URL."""
    node = tool("node")
    ensure_packages()
    done = run([node, str(WEB / "scripts" / "chat-client.mjs"), *urls], timeout=120)
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return {line["url"].rsplit("/", 1)[1]: line for line in lines}


def test_the_ai_sdk_chat_reads_success_http_errors_and_a_cut(
        upstream: ThreadedReplayServer) -> None:
    final = streamkit.replay(body(TOOL_USE)).response
    with serving(app_for(upstream.url)) as url:
        seen = ai_sdk_chat([f"{url}/api/{name}" for name in ("ok", "unauthorized", "busy",
                                                             "cut")])

    ok = seen["ok"]
    assert ok["raw"]["status"] == 200 and ok["raw"]["protocol"] == "v1"
    assert ok["chat"]["status"] == "ready" and ok["chat"]["error"] is None
    call, = final.tool_calls
    assert ok["chat"]["parts"] == [
        {"type": "text", "text": final.text, "state": "done"},
        {"type": "tool", "name": call.name, "state": "input-available",
         "input": call.arguments()},
    ]
    assert ok["chat"]["metadata"]["finishReason"] == "tool_calls"
    assert ok["chat"]["metadata"]["usage"]["output_tokens"] == final.usage.output_tokens

    unauthorized = seen["unauthorized"]
    assert unauthorized["raw"]["status"] == 401
    assert unauthorized["raw"]["contentType"].startswith("text/plain")
    assert unauthorized["raw"]["body"] == "invalid x-api-key"
    assert unauthorized["chat"]["status"] == "error"
    assert unauthorized["chat"]["error"] == "invalid x-api-key"
    assert unauthorized["chat"]["parts"] is None  # no assistant message was started

    busy = seen["busy"]
    assert (busy["raw"]["status"], busy["raw"]["retryAfter"]) == (429, "7")
    assert busy["chat"]["error"] == "slow down"

    cut = seen["cut"]
    assert cut["raw"]["status"] == 200 and '"type":"error"' in cut["raw"]["body"]
    assert cut["chat"]["status"] == "error"
    assert cut["chat"]["error"].startswith("the stream broke after")
    assert cut["chat"]["parts"] == [{"type": "text", "text": "Hello", "state": "done"}]
    assert SECRET not in json.dumps(seen)
    # every request (one raw fetch, one by the chat, for each name) reached the
    # upstream once (no retries), with the key; the module's upstream also holds
    # the requests of its tests that ran before this one
    paths = [r.path for r in upstream.requests]
    assert all(paths.count(f"/{name}/v1/messages") == 2
               for name in ("ok", "unauthorized", "busy", "cut")), paths
    assert all(r.secret_headers["x-api-key"] == SECRET for r in upstream.requests)


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_without_a_framework_the_reply_says_status_and_body(anyio_backend: str) -> None:
    async with ReplayServer() as server:
        server.add("/v1/messages", error_body("overloaded", "overloaded_error"), status=529,
                   content_type="application/json")
        async with streamkit.Client("anthropic:claude-test", base_url=server.url + "/v1",
                                    api_key=SECRET, max_retries=0) as client:
            reply = await open_ui_message_stream(client.stream([UserMessage("hi")]),
                                                 error_text=lambda m: "try again later")
            assert reply.status == 529 and isinstance(reply.error, streamkit.ProviderError)
            assert [chunk async for chunk in reply.body] == [b"try again later"]
        server.add_file("/v1/messages", TEXT)
        async with streamkit.Client("anthropic:claude-test", base_url=server.url + "/v1",
                                    api_key=SECRET) as client:
            reply = await open_ui_message_stream(client.stream([UserMessage("hi")]))
            frames = b"".join([chunk async for chunk in reply.body])
        assert reply.status == 200 and reply.error is None
        assert reply.headers["x-vercel-ai-ui-message-stream"] == "v1"
        assert frames.endswith(b"data: [DONE]\n\n") and b'"delta":"Hello"' in frames
        assert frames.count(b'"type":"start"') == 1


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_refused_connection_is_a_502_and_a_stream_is_accepted_too(
        anyio_backend: str) -> None:
    async with ReplayServer() as server:
        url = server.url  # closed once the block ends: nothing listens there afterwards
    async with streamkit.Client("anthropic:claude-test", base_url=url + "/v1", api_key=SECRET,
                                max_retries=0) as client:
        reply = await open_ui_message_stream(client.stream([UserMessage("hi")]))
    assert reply.status == 502 and isinstance(reply.error, streamkit.StreamError)
    events = streamkit.stream(iter_async([body(TEXT)]), "anthropic")
    reply = await open_ui_message_stream(events)
    frames = b"".join([chunk async for chunk in reply.body])
    assert reply.status == 200 and b"Hello there!" not in frames and b'"Hello"' in frames
    assert error_status(streamkit.IncompleteStreamError("the total timeout passed")) == 504
    assert error_status(streamkit.ProviderError("x", status=200)) == 502


async def iter_async(chunks: list[bytes]) -> Any:
    for chunk in chunks:
        yield chunk


def test_the_http_client_is_closed_when_the_body_ends(upstream: ThreadedReplayServer) -> None:
    """The browser leaves mid-stream: the upstream connection is closed at once."""
    slow = body(TEXT)
    first_text = slow.index(b"content_block_delta") + 100
    upstream.add("/slow/v1/messages", slow, chunk_size=first_text, delay=30)
    with serving(app_for(upstream.url)) as url, \
            httpx.stream("POST", f"{url}/api/slow", timeout=20, json={"messages": [
                {"role": "user", "parts": [{"type": "text", "text": "hi"}]}]}) as response:
        assert response.status_code == 200
        assert b'"type":"text-start"' in next(response.iter_bytes())
    assert upstream.wait_disconnect(10)
    assert "/slow/v1/messages" in upstream.disconnects
