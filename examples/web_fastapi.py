"""Any provider's stream, served to a browser as the AI SDK UI message stream (FastAPI).

The page side is the AI SDK's own client: ``useChat()`` (React, Vue, Svelte) or
``new Chat(...)`` pointed at ``/api/chat``. Serve with
``uvicorn examples.web_fastapi:app`` (needs ``pip install 'streamkit[web]' fastapi``).

Here a ReplayServer on 127.0.0.1 plays a recorded Anthropic stream in place of
the API: put the real URL and your key in ``UPSTREAM`` / the headers and
nothing else changes. Run this file to call the endpoint once, in-process, and
print the chunks a browser would receive.
"""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path

import anyio
import httpx
from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse

import streamkit
from streamkit.testing import ReplayServer, load_recording
from streamkit.web import UI_MESSAGE_STREAM_HEADERS, ui_message_stream

RECORDING = Path(str(resources.files("streamkit") / "demo_data" / "tool-use.sse"))


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    body, content_type = load_recording(RECORDING)
    async with ReplayServer() as upstream, httpx.AsyncClient(timeout=60) as client:
        upstream.add("/v1/messages", body, content_type=content_type, chunk_size=64)
        app.state.client, app.state.url = client, upstream.url + "/v1/messages"
        yield


app = FastAPI(lifespan=lifespan)


@app.post("/api/chat")
async def chat(request: Request) -> StreamingResponse:
    ui_messages = (await request.json())["messages"]  # what useChat sends
    prompt = " ".join(p.get("text", "") for p in ui_messages[-1]["parts"])
    client: httpx.AsyncClient = request.app.state.client
    upstream = client.build_request("POST", request.app.state.url, json={
        "model": "claude-sonnet-4-20250514", "max_tokens": 1024, "stream": True,
        "messages": [{"role": "user", "content": prompt}],
    })
    http = await client.send(upstream, stream=True)
    events = streamkit.stream(http)  # closed, with the HTTP response, when the page leaves
    return StreamingResponse(ui_message_stream(events), headers=UI_MESSAGE_STREAM_HEADERS)


async def main() -> None:
    message = {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Paris?"}]}
    async with lifespan(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://demo") as client:
            response = await client.post("/api/chat", json={"messages": [message]})
    protocol = response.headers["x-vercel-ai-ui-message-stream"]
    print(f"x-vercel-ai-ui-message-stream: {protocol}")
    for frame in response.text.split("\n\n"):
        if frame:
            print(frame[:110])


if __name__ == "__main__":
    anyio.run(main)
