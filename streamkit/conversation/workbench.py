"""Workbenches: a set of tools that share resources and state, with a lifecycle.

autogen's ``autogen_core.tools.Workbench`` is the model (``start`` / ``stop``,
an async context, ``list_tools``, ``call_tool``, ``reset``, ``save_state`` /
``load_state``), in streamkit's own types: a workbench lists
:class:`~streamkit.conversation.tools.Tool` s (a name, a description, a JSON
schema; no Python function: the workbench runs them) and answers a call with a
:class:`~streamkit.conversation.messages.FunctionExecutionResult` (text, or
text and images / files as blocks; ``is_error`` for a tool's failure), the
result a conversation sends back on every wire.

=====================================  =========================================
streamkit                              autogen_core.tools
=====================================  =========================================
:class:`Workbench`                     ``Workbench``
``list_tools() -> list[Tool]``         ``list_tools() -> list[ToolSchema]``
``call_tool(name, arguments,           ``call_tool(name, arguments,
call_id=) -> FunctionExecutionResult``   cancellation_token, call_id) -> ToolResult``
:meth:`Workbench.run_call` (a call     (none: an agent unpacks the call)
block of a response)
:class:`StaticWorkbench`               ``StaticWorkbench``
=====================================  =========================================

The list a workbench gives may change after a call (an MCP server's
``list_changed``): a client asks for it again for every request.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any, Self

from ..model.blocks import ToolCallBlock
from ..model.partial_json import PartialJSONError
from ..model.tool_arguments import decode_arguments
from .messages import FunctionExecutionResult
from .tools import Tool

__all__ = ["StaticWorkbench", "Workbench"]


class Workbench(abc.ABC):
    """A set of tools that may share resources and state (a connection, a
    session, a sandbox), started and stopped together. Use as ``async with
    workbench:``; give it to a client's ``tools=`` beside plain tools and
    functions, and answer the calls with :meth:`run_call`."""

    @abc.abstractmethod
    async def list_tools(self) -> list[Tool]:
        """The tools available now (the list may change after a call)."""

    @abc.abstractmethod
    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None, *,
                        call_id: str = "") -> FunctionExecutionResult:
        """Run tool ``name`` with ``arguments``: its result, ``is_error`` when
        the tool failed (an unknown name, arguments it refused, an exception),
        never an exception for the tool's own failure."""

    async def run_call(self, call: ToolCallBlock) -> FunctionExecutionResult:
        """Run a tool call block of a response (its arguments, its id), as
        :meth:`Tool.run_call <streamkit.conversation.tools.Tool.run_call>`
        does: a call cut off, or whose arguments are no JSON object, is an
        ``is_error`` result saying so."""
        if call.incomplete:
            return _refused(call, "were cut off before the end (the response hit its length "
                                  "limit)")
        try:
            arguments = decode_arguments(call.input) if call.input.strip() else {}
        except PartialJSONError as error:
            return _refused(call, f"are not valid JSON (at offset {error.offset}: "
                                  f"{error.message})")
        if not isinstance(arguments, dict):
            return _refused(call, f"must be a JSON object, not {type(arguments).__name__}")
        return await self.call_tool(call.name, arguments, call_id=call.id)

    async def start(self) -> None:  # noqa: B027 (a no-op default: override what you need)
        """Acquire what the tools share (a no-op unless a workbench needs it)."""

    async def stop(self) -> None:  # noqa: B027
        """Release what :meth:`start` acquired."""

    async def reset(self) -> None:  # noqa: B027
        """Back to the state just after :meth:`start`."""

    async def save_state(self) -> Mapping[str, Any]:
        """The workbench's state, as JSON-able data."""
        return {}

    async def load_state(self, state: Mapping[str, Any]) -> None:  # noqa: B027
        """Take back a state :meth:`save_state` gave."""

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.stop()


class StaticWorkbench(Workbench):
    """A fixed list of tools (:func:`streamkit.tool` s or plain functions)
    as one workbench."""

    def __init__(self, tools: Sequence[Tool | Any]) -> None:
        from .tools import tool

        self._tools = {made.name: made for made in
                       (item if isinstance(item, Tool) else tool(item) for item in tools)}

    async def list_tools(self) -> list[Tool]:
        return list(self._tools.values())

    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None, *,
                        call_id: str = "") -> FunctionExecutionResult:
        found = self._tools.get(name)
        if found is None:
            return FunctionExecutionResult(call_id, f"no tool named {name!r} in this workbench; "
                                           f"it has {', '.join(sorted(self._tools))}",
                                           is_error=True, name=name)
        return await found.run_json(dict(arguments or {}), call_id=call_id)


def _refused(call: ToolCallBlock, why: str) -> FunctionExecutionResult:
    """The error result of a call whose arguments cannot be given to its tool."""
    return FunctionExecutionResult(call.id, f"the arguments of tool {call.name!r} {why}",
                                   is_error=True, name=call.name)
