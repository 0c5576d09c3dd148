"""A tool loop over a :class:`~streamkit.testing.FakeProvider`, for any tools.

:func:`run_loop` plays the model's turns on one provider's wire: each scripted
turn's calls are answered by :func:`streamkit.run_calls` against the ``tools``
the requests were given (workbenches, functions, tools), until the last turn's
text. Turns alternate ``client.stream`` and ``client.create``, so both carry
workbenches. What each request sent comes back as the wire's reader parsed it
and as the raw body (checked against the wire's SDK types by the caller with
``support.request_oracles.sdk_valid``). The workbench tests of
``tests/conversation`` and the MCP tests drive their workbenches through it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import streamkit
from streamkit import ChatResponse, DataBlock, FunctionExecutionResultMessage, TextBlock
from streamkit.conversation.messages import Message, UserMessage
from streamkit.conversation.workbench import AnyTools
from streamkit.model.blocks import ToolCallBlock
from streamkit.model.data_sources import Base64Source
from streamkit.testing import FakeProvider
from streamkit.testing.fakes import FakeRequest

#: One provider of each wire, by wire name.
WIRES = {"openai-chat": "openai", "openai-responses": "openai-responses",
         "anthropic": "anthropic", "gemini": "gemini", "ollama": "ollama"}

#: The smallest PNG header a tool can return as its image.
PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489")


@dataclass
class LoopRun:
    """What a loop sent and ended with."""

    messages: list[Message]
    requests: list[FakeRequest]

    def tool_names(self, request: int) -> list[str]:
        """The names of the tools request ``request`` offered, as its wire's reader read them."""
        parsed = self.requests[request].request
        assert parsed is not None, self.requests[request].error
        return sorted(spec.name if isinstance(spec, streamkit.Tool) else str(spec)
                      for spec in parsed.tools or [])

    def body(self, request: int) -> dict[str, Any]:
        """Request ``request``'s JSON body as it was sent."""
        body: dict[str, Any] = self.requests[request].raw.json()
        return body

    def images(self, request: int) -> list[bytes]:
        """The bytes of every inline image request ``request`` carried, as its
        wire's reader read them (in a tool result, or beside it)."""
        found = []
        for message in self.requests[request].messages:
            for block in _blocks(message):
                if isinstance(block, DataBlock) and isinstance(block.source, Base64Source):
                    found.append(block.source.raw)
        return found


def _blocks(message: Message) -> list[Any]:
    """The blocks of a message, the blocks of its tool results included."""
    if isinstance(message, FunctionExecutionResultMessage):
        return [block for result in message.content for block in result.blocks]
    content = getattr(message, "content", "")
    return [] if isinstance(content, str) else list(content)


def image_result(caption: str = "The chart:") -> list[TextBlock | DataBlock]:
    """What an image tool returns: a caption and a PNG."""
    return [TextBlock(caption), DataBlock(source=Base64Source(PNG, "image/png"))]


def call(call_id: str, name: str, arguments: str = "{}") -> ToolCallBlock:
    return ToolCallBlock(call_id, name, arguments)


async def run_loop(provider: str, tools: AnyTools, turns: Sequence[Sequence[ToolCallBlock]],
                   answer: str = "Done.") -> LoopRun:
    """The loop on ``provider``'s wire: the model makes ``turns``' calls, one
    turn a request, then answers ``answer``; every call is run by
    :func:`streamkit.run_calls` over ``tools``."""
    script = [ChatResponse(content=list(calls)) for calls in turns]
    fake = FakeProvider([*script, ChatResponse(content=[TextBlock(answer)])])
    messages: list[Message] = [UserMessage("Go.")]
    async with fake, streamkit.Client(f"{provider}:model", api_key="sk-fake",
                                      base_url=fake.base_url(provider)) as client:
        for turn in range(len(turns) + 1):
            reply = await _turn(client, messages, tools, streamed=turn % 2 == 0)
            messages.append(reply)
            if not reply.tool_calls:
                break
            results = await streamkit.run_calls(reply.tool_calls, tools=tools)
            messages.append(FunctionExecutionResultMessage(results))
    return LoopRun(messages, list(fake.requests))


async def _turn(client: streamkit.Client, messages: list[Message], tools: AnyTools, *,
                streamed: bool) -> ChatResponse:
    """One answer, streamed or whole."""
    if not streamed:
        return await client.create(messages, tools=tools)
    async with client.stream(messages, tools=tools) as events:
        async for _ in events:
            pass
    return events.response
