"""What the McpWorkbench tests share: where the test servers are, and the tool
loop they run (the README's loop, with a workbench's tools listed afresh for
every turn)."""

from __future__ import annotations

from collections.abc import Sequence

from streamkit import (
    ChatResponse,
    FunctionExecutionResultMessage,
    McpWorkbench,
    Message,
    StreamError,
)
from streamkit.client import Client
from support.paths import TESTS

#: The MCP server written with the official SDK (stdio when run as a script).
SDK_SERVER = TESTS / "support" / "mcp_server.py"
#: The hostile MCP server, JSON-RPC by hand.
RAW_SERVER = TESTS / "support" / "mcp_raw_server.py"


async def tool_loop(client: Client, workbenches: Sequence[McpWorkbench],
                    messages: list[Message], *, rounds: int = 4) -> ChatResponse:
    """Ask, run the calls, send the results back, until an answer without
    calls. Each turn's tools are the workbenches' lists of that moment; a
    turn and its results join ``messages`` together, once every call has
    answered (a call that raises leaves ``messages`` as it was)."""
    for _ in range(rounds):
        tools, owner = [], {}
        for workbench in workbenches:
            for tool in await workbench.list_tools():
                tools.append(tool)
                owner[tool.name] = workbench
        response = await client.create(messages, tools=tools)
        if not response.tool_calls:
            messages.append(response)
            return response
        results = [await owner.get(call.name, workbenches[0]).run_call(call)
                   for call in response.tool_calls]
        messages += [response, FunctionExecutionResultMessage(results)]
    raise StreamError(f"no answer after {rounds} rounds of tool calls")
