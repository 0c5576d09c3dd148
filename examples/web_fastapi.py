"""A model call served to a browser as the AI SDK UI message stream (FastAPI), in one call.

The page side is the AI SDK's own client: ``useChat()`` (React, Vue, Svelte) or
``new Chat(...)`` pointed at ``/api/chat``. Serve it for real with
``ANTHROPIC_API_KEY=... uvicorn examples.web_fastapi:app`` (needs
``pip install 'streamkit-llm[web]' fastapi``).

``ui_message_response(client.stream(messages))`` is the whole endpoint: the
client's keys and retries apply; an upstream error before the first byte (a bad
key, a rate limit) is an HTTP error with the provider's status, which ``useChat``
shows as its error; an error after it ends the stream with its ``error`` chunk.

Run this file to call the endpoint twice, in-process, with a ReplayServer
standing in for the API: a recorded Anthropic stream, then a 401.
"""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any

import anyio
import httpx
from fastapi import FastAPI, Request, Response

import streamkit
from streamkit import AssistantMessage, Message, UserMessage
from streamkit.testing import ReplayServer, Reply
from streamkit.web import ui_message_response

MODEL = "anthropic:claude-sonnet-4-5"
RECORDING = Path(str(resources.files("streamkit") / "demo_data" / "tool-use.sse"))


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    async with streamkit.Client(MODEL) as client:  # the key from ANTHROPIC_API_KEY
        app.state.client = client
        yield


app = FastAPI(lifespan=lifespan)


def to_messages(ui_messages: list[dict[str, Any]]) -> list[Message]:
    """The conversation ``useChat`` sends (UI messages and their text parts)."""
    messages: list[Message] = []
    for ui in ui_messages:
        text = "".join(p.get("text", "") for p in ui["parts"] if p.get("type") == "text")
        messages.append(UserMessage(text) if ui["role"] == "user" else AssistantMessage(text))
    return messages


@app.post("/api/chat")
async def chat(request: Request) -> Response:
    messages = to_messages((await request.json())["messages"])
    client: streamkit.Client = request.app.state.client
    return await ui_message_response(client.stream(messages))


async def main() -> None:
    message = {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Paris?"}]}
    unauthorized = b'{"type": "error", "error": {"type": "authentication_error", ' \
                   b'"message": "invalid x-api-key"}}'
    async with ReplayServer() as upstream, \
            streamkit.Client(MODEL, base_url=upstream.url + "/v1", api_key="sk-local") as client:
        upstream.add_sequence("/v1/messages", [
            Reply.file(RECORDING, chunk_size=64),
            Reply(unauthorized, status=401, content_type="application/json"),
        ])
        app.state.client = client
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://demo") as browser:
            for _ in range(2):
                response = await browser.post("/api/chat", json={"messages": [message]})
                print(f"HTTP {response.status_code} {response.headers['content-type']}")
                for frame in response.text.split("\n\n"):
                    if frame:
                        print(" ", frame[:110])


if __name__ == "__main__":
    anyio.run(main)
