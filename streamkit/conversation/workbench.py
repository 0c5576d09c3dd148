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

Where it goes: a client's ``tools=`` takes workbenches beside tools, functions
and raw tool dicts (:data:`AnyTools`); :class:`~streamkit.Client` lists each
workbench's tools (:func:`listed_tools`) before it builds a request, which
stays sans-IO (:func:`streamkit.build_request` and the
:class:`~streamkit.SyncClient` refuse a workbench: its tools are async to
list). :func:`run_calls` answers a response's calls against the same list,
each call by the tool or workbench that has its name, as an autogen agent
asks its workbench.

A :class:`StaticWorkbench`'s state is its tools' own, as autogen's
``StaticWorkbench`` saves each ``BaseTool``'s: a streamkit :class:`Tool` is a
function with no state of its own, so a tool has state when its function is a
method of an object (or a callable object) with ``save_state()`` and
``load_state(state)`` (sync or async), the object the tool's calls change.
:meth:`StaticWorkbench.save_state` is ``{"type": "StaticWorkbenchState",
"tools": {name: state}}``, the shape of autogen's ``StaticWorkbenchState``;
``load_state`` gives each named tool its state back (names it does not have
are left alone, as autogen does); ``reset`` gives each tool the state it had
before the workbench's first use (autogen's ``reset`` does nothing for a
static workbench: here it is the ABC's "back to the state just after start").
"""

from __future__ import annotations

import abc
import inspect
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import Any, Self, TypeAlias

from ..model.blocks import ToolCallBlock
from ..model.errors import InvalidMessageError, ToolDefinitionError
from ..model.partial_json import PartialJSONError
from ..model.tool_arguments import decode_arguments
from .messages import FunctionExecutionResult
from .tools import Tool

__all__ = ["AnyTools", "ListedTool", "StaticWorkbench", "Workbench", "listed_tools", "run_calls",
           "without_workbenches"]


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
    as one workbench; its state is its tools' own (see the module docstring)."""

    def __init__(self, tools: Sequence[Tool | Callable[..., Any]]) -> None:
        from .tools import tool

        self._tools = {made.name: made for made in
                       (item if isinstance(item, Tool) else tool(item) for item in tools)}
        self._initial: dict[str, Any] | None = None

    async def list_tools(self) -> list[Tool]:
        return list(self._tools.values())

    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None, *,
                        call_id: str = "") -> FunctionExecutionResult:
        found = self._tools.get(name)
        if found is None:
            return FunctionExecutionResult(call_id, f"no tool named {name!r} in this workbench; "
                                           f"it has {', '.join(sorted(self._tools)) or 'none'}",
                                           is_error=True, name=name)
        await self._first_use()
        return await found.run_json(dict(arguments or {}), call_id=call_id)

    async def start(self) -> None:
        await self._first_use()

    async def reset(self) -> None:
        """Each tool back to the state it had before the workbench's first use."""
        await self._first_use()
        assert self._initial is not None
        await self._load(self._initial)

    async def save_state(self) -> Mapping[str, Any]:
        """``{"type": "StaticWorkbenchState", "tools": {name: state}}`` for each
        tool that has state (autogen's shape)."""
        await self._first_use()
        return {"type": "StaticWorkbenchState", "tools": await self._states()}

    async def load_state(self, state: Mapping[str, Any]) -> None:
        """Give each tool named in ``state`` (from :meth:`save_state`) its state."""
        tools = state.get("tools") if isinstance(state, Mapping) else None
        if not isinstance(tools, Mapping):
            raise InvalidMessageError(
                f"a StaticWorkbench state is a mapping with a 'tools' mapping, as save_state() "
                f"gives it; got {type(state).__name__}"
                + (f" with 'tools' of {type(tools).__name__}" if isinstance(state, Mapping)
                   else ""))
        await self._first_use()
        await self._load(tools)

    async def _first_use(self) -> None:
        """Keep the tools' states before anything used them, for :meth:`reset`."""
        if self._initial is None:
            self._initial = await self._states()

    async def _states(self) -> dict[str, Any]:
        states = {}
        for name, holder in self._holders().items():
            states[name] = await _maybe_awaited(holder.save_state())
        return states

    async def _load(self, states: Mapping[str, Any]) -> None:
        for name, holder in self._holders().items():
            if name in states:
                await _maybe_awaited(holder.load_state(states[name]))

    def _holders(self) -> dict[str, Any]:
        """The object holding each stateful tool's state, by tool name."""
        holders = {}
        for name, found in self._tools.items():
            holder = _state_holder(found.func)
            if holder is not None:
                holders[name] = holder
        return holders


def _state_holder(func: Callable[..., Any] | None) -> Any:
    """The object whose state a tool's calls change: the object of a bound
    method, or a callable object itself, when it has ``save_state`` and
    ``load_state``; ``None`` for a plain function."""
    holder = getattr(func, "__self__", func)
    if callable(getattr(holder, "save_state", None)) and \
            callable(getattr(holder, "load_state", None)):
        return holder
    return None


async def _maybe_awaited(value: Any) -> Any:
    """A state method's value, awaited when it is async."""
    return await value if inspect.isawaitable(value) else value


#: A tool as a request body takes it: a tool, a function (made one by
#: :func:`streamkit.tool`) or a raw tool dict.
ListedTool: TypeAlias = Tool | Callable[..., Any] | dict[str, Any]

#: What a client's ``tools=`` and :func:`run_calls` take: tools, workbenches,
#: Python functions (made tools by :func:`streamkit.tool`) and raw tool dicts.
AnyTools: TypeAlias = Sequence[Tool | Workbench | Callable[..., Any] | dict[str, Any]]


async def listed_tools(tools: AnyTools | None) -> list[ListedTool] | None:
    """``tools`` with each workbench replaced by the tools it lists now (asked
    again on every call: the list may change after a call); the rest as given."""
    if tools is None:
        return None
    listed: list[ListedTool] = []
    for item in tools:
        if isinstance(item, Workbench):
            listed += await item.list_tools()
        else:
            listed.append(item)
    return listed


def without_workbenches(tools: AnyTools | None, where: str) -> list[ListedTool] | None:
    """``tools`` as they are, when they hold no workbench; else a
    :class:`~streamkit.model.errors.ToolDefinitionError`: a workbench's tools
    are async to list, and ``where`` (sans-IO or blocking) cannot."""
    if tools is None:
        return None
    for item in tools:
        if isinstance(item, Workbench):
            raise ToolDefinitionError(
                f"{where} cannot take a workbench ({type(item).__name__}): its tools are listed "
                f"with 'await workbench.list_tools()'; pass those, or use streamkit.Client, "
                f"which lists them for every request")
    return [item for item in tools if not isinstance(item, Workbench)]


async def run_calls(calls: Sequence[ToolCallBlock], *, tools: AnyTools,
                    ) -> list[FunctionExecutionResult]:
    """The results of a response's ``calls`` (``reply.tool_calls``), in their
    order, each run by the tool or workbench in ``tools`` (what the request was
    given) that has its name, the first one when several do; the calls of one
    turn run concurrently. A name nothing has is an ``is_error`` result naming
    the tools there are; a tool with no function (a raw dict, a tool read from
    a request) raises ``TypeError``, as :meth:`Tool.run_json` does; what a
    workbench raises (its connection lost) is raised as it is, the other calls
    of the turn cancelled."""
    import anyio
    import anyio.abc

    from .tools import tool

    owners: dict[str, Tool | Workbench | dict[str, Any]] = {}
    for item in tools:
        if isinstance(item, Workbench):
            names = [listed.name for listed in await item.list_tools()]
        else:
            item = item if isinstance(item, (Tool, dict)) else tool(item)
            names = [_dict_name(item) if isinstance(item, dict) else item.name]
        for name in names:
            owners.setdefault(name, item)
    results: list[FunctionExecutionResult | None] = [None] * len(calls)
    failures: list[Exception] = []

    async def run(index: int, call: ToolCallBlock, group: anyio.abc.TaskGroup) -> None:
        try:
            results[index] = await _run_one(call, owners.get(call.name), owners)
        except Exception as failure:  # the first one is raised as it is, not in a group
            failures.append(failure)
            group.cancel_scope.cancel()

    async with anyio.create_task_group() as group:
        for index, call in enumerate(calls):
            group.start_soon(run, index, call, group)
    if failures:
        raise failures[0]
    return [result for result in results if result is not None]


async def _run_one(call: ToolCallBlock, owner: Tool | Workbench | dict[str, Any] | None,
                   owners: Mapping[str, Any]) -> FunctionExecutionResult:
    """One call's result by its owner (see :func:`run_calls`)."""
    if owner is None:
        return FunctionExecutionResult(call.id, f"no tool named {call.name!r}; the tools are "
                                       f"{', '.join(sorted(owners)) or 'none'}",
                                       is_error=True, name=call.name)
    if isinstance(owner, dict):
        raise TypeError(f"tool {call.name!r} is a raw tool dict, with no function to run "
                        f"(call {call.id!r}): answer its calls yourself")
    return await owner.run_call(call)


def _dict_name(spec: dict[str, Any]) -> str:
    """The name a raw tool dict gives its tool (OpenAI's ``function.name`` or a
    top-level ``name``), ``""`` when it gives none."""
    function = spec.get("function")
    name = function.get("name") if isinstance(function, dict) else spec.get("name")
    return name if isinstance(name, str) else ""


def _refused(call: ToolCallBlock, why: str) -> FunctionExecutionResult:
    """The error result of a call whose arguments cannot be given to its tool."""
    return FunctionExecutionResult(call.id, f"the arguments of tool {call.name!r} {why}",
                                   is_error=True, name=call.name)
