"""Consume a stream over real HTTP: events as they arrive, then the final response.

A ReplayServer on 127.0.0.1 plays a recorded Anthropic stream; swap its URL for
the real API (with your key) and nothing else changes.
Run: .venv/bin/python examples/consume_stream.py
"""

from importlib import resources
from pathlib import Path

import anyio
import httpx

import streamkit
from streamkit.testing import ReplayServer, load_recording


async def main() -> None:
    recording = Path(str(resources.files("streamkit") / "demo_data" / "tool-use.sse"))
    body, content_type = load_recording(recording)
    async with ReplayServer() as server, httpx.AsyncClient() as client:
        server.add("/v1/messages", body, content_type=content_type, chunk_size=64)
        request = client.stream("POST", server.url + "/v1/messages", json={"stream": True})
        async with request as http, streamkit.stream(http) as events:
            async for item in events:
                if isinstance(item, streamkit.BlockStart):
                    print(f"\n[{item.block.type} starts]")
                elif isinstance(item, streamkit.BlockDelta):
                    delta = item.delta
                    if isinstance(delta, streamkit.TextDelta):
                        print(delta.text, end="", flush=True)
                    elif isinstance(delta, streamkit.ToolInputDelta):
                        print(delta.partial_json, end="", flush=True)
                elif isinstance(item, streamkit.ChatResponse):
                    print(f"\n\nfinal: {item.finished_reason}, usage {item.usage}")
                    for call in item.tool_calls:
                        print(f"run {call.name} with {call.arguments()}")


anyio.run(main)
