"""A first call: a fake provider answers, so no key and no network are needed."""

import asyncio

import streamkit
from streamkit import ChatResponse, TextBlock, UserMessage
from streamkit.testing import FakeProvider

# What the fake model answers, in order: one ChatResponse per request.
script = [ChatResponse(content=[TextBlock("Hello! I am a fake model, streamed live.")])]


async def main() -> None:
    async with (
        FakeProvider(script) as fake,  # a real HTTP server on 127.0.0.1
        streamkit.Client("anthropic:claude-sonnet-4-5", api_key="sk-anything",
                         base_url=fake.base_url("anthropic")) as client,
    ):
        async with client.stream([UserMessage("Say hello.")]) as events:
            async for text in events.text_stream:  # the text as it arrives
                print(text, end="", flush=True)
        reply = events.response  # the whole answer: a ChatResponse
    print(f"\nfinished: {reply.finished_reason}")


asyncio.run(main())
