"""One client call made every way a caller makes it (``Client`` and
``SyncClient``, ``create`` and ``stream``), against a server's URL: its error,
what it gave, how long it took. For the client's fault tests."""

from __future__ import annotations

import time
from typing import Any

import anyio

from streamkit import StreamError
from streamkit.client import Client, SyncClient
from streamkit.conversation.messages import UserMessage

SECRET = "sk-fault-0123456789abcdefSECRET"
CALL_KINDS = ["Client.create", "Client.stream", "SyncClient.create", "SyncClient.stream"]
SSE = {"content-type": "text/event-stream"}
JSON = {"content-type": "application/json"}


def headers(fields: dict[str, str], **more: str) -> list[tuple[str, str]]:
    return [*fields.items(), *((name.replace("_", "-"), value) for name, value in more.items())]


def call(kind: str, url: str, **options: Any) -> tuple[StreamError | None, Any, float]:
    """One call made as ``kind`` says to ``url`` (a DeepSeek client: OpenAI
    Chat, the key in a bearer header); its error (or ``None``), what it gave
    (the answer, or the events of a stream), and how long it took."""
    settings: dict[str, Any] = {"base_url": url, "api_key": SECRET, "max_retries": 0, **options}
    started = time.monotonic()
    got: Any = None
    try:
        if kind.startswith("SyncClient"):
            with SyncClient("deepseek:deepseek-chat", **settings) as sync:
                if kind.endswith("create"):
                    got = sync.create([UserMessage("hi")])
                else:
                    with sync.stream([UserMessage("hi")]) as events:
                        got = list(events)
        else:
            async def main() -> Any:
                async with Client("deepseek:deepseek-chat", **settings) as client:
                    if kind.endswith("create"):
                        return await client.create([UserMessage("hi")])
                    async with client.stream([UserMessage("hi")]) as events:
                        return [item async for item in events]

            got = anyio.run(main)
    except StreamError as error:
        return error, got, time.monotonic() - started
    return None, got, time.monotonic() - started
