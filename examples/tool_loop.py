"""A streamed tool loop on any provider: the same code, a different model string.

    python examples/tool_loop.py --model anthropic:claude-sonnet-4-5 "Weather in Paris?"
    python examples/tool_loop.py --model deepseek:deepseek-chat "Weather in Paris?"

Tools are plain Python functions (``streamkit.conversation.tools.tool`` reads their signature
and docstring); the calls of one turn run concurrently in a task group; their
results go back as one ``FunctionExecutionResultMessage``; the assistant turn
goes back as the ``ChatResponse`` it came as, so thinking signatures and
provider ids survive. The loop ends on an answer without tool calls.
``tests/client/test_client.py`` runs it over ``streamkit.testing.ReplayServer``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

import anyio

import streamkit
from streamkit.conversation.messages import (
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    Message,
    UserMessage,
)
from streamkit.conversation.tools import Tool, tool
from streamkit.model.blocks import ToolCallBlock


def get_weather(location: str) -> str:
    """The current weather in a city.

    Args:
        location: The city, e.g. "Paris".
    """
    return f"Sunny, 21 °C in {location}"


def get_user_country() -> str:
    """The country the user is in."""
    return "Mexico"


TOOLS = [tool(get_weather), tool(get_user_country)]


async def run_calls(calls: Sequence[ToolCallBlock],
                    tools: Sequence[Tool]) -> list[FunctionExecutionResult]:
    """Run every call of one turn at once; results in the order of the calls."""
    by_name = {t.name: t for t in tools}
    results: list[FunctionExecutionResult | None] = [None] * len(calls)

    async def run(index: int, call: ToolCallBlock) -> None:
        chosen = by_name.get(call.name)
        if chosen is None:
            results[index] = FunctionExecutionResult(call.id, f"no tool named {call.name!r}",
                                                     is_error=True, name=call.name)
        else:
            results[index] = await chosen.run_call(call)

    async with anyio.create_task_group() as group:
        for index, call in enumerate(calls):
            group.start_soon(run, index, call)
    return [result for result in results if result is not None]


async def tool_loop(client: streamkit.Client, question: str, tools: Sequence[Tool] = TOOLS, *,
                    stream: bool = True, max_turns: int = 8, out: Any = None,
                    **options: Any) -> streamkit.ChatResponse:
    """Ask, run the tools the model calls, send the results back, until it answers."""
    messages: list[Message] = [UserMessage(question)]
    for _ in range(max_turns):
        if stream:
            async with client.stream(messages, tools=list(tools), **options) as events:
                async for text in events.text_stream:
                    if out is not None:
                        out.write(text)
                response = events.response
        else:
            response = await client.create(messages, tools=list(tools), **options)
        messages.append(response)  # the assistant turn, signatures and ids included
        if not response.tool_calls:
            return response
        results = await run_calls(response.tool_calls, tools)
        if out is not None:
            for result in results:
                out.write(f"\n[{result.name or 'tool'} -> {result.text}]\n")
        messages.append(FunctionExecutionResultMessage(results))
    raise RuntimeError(f"no final answer after {max_turns} turns")


async def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="anthropic:claude-sonnet-4-5")
    parser.add_argument("--base-url", default=None)
    parser.add_argument("question", nargs="+")
    args = parser.parse_args(argv)
    try:
        client = streamkit.Client(args.model, base_url=args.base_url)
    except streamkit.ProviderConfigError as error:  # no key, an unknown provider: say which
        print(f"tool_loop.py: {error}", file=sys.stderr)
        return 2
    try:
        async with client:
            final = await tool_loop(client, " ".join(args.question), out=sys.stdout)
    except streamkit.StreamError as error:  # the provider refused, the connection broke
        print(f"\ntool_loop.py: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    print(f"\n\nfinish: {final.finished_reason}; usage so far: "
          f"{client.total_usage.input_tokens} in, {client.total_usage.output_tokens} out")
    return 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
