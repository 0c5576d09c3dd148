"""Chat Completions tool definitions, both ways: the body's ``tools`` and
``tool_choice``.

- ``tools``: a :class:`~streamkit.conversation.tools.Tool` -> ``{"type":
  "function", "function": {"name", "description"?, "parameters", "strict"?}}``
  with its ``metadata`` written into ``function``
  (:func:`tool_definition`); a dict goes as it is, unless another wire's
  reader kept it (a server tool of that API: dropped, said by
  :func:`~streamkit.providers.function_tools.own_entry`);
- ``tool_choice``: ``auto`` / ``required`` / ``none``, a tool's name ->
  ``{"type": "function", "function": {"name"}}``.

Reading a body back, a function entry becomes a ``Tool`` only when writing the
``Tool`` gives the entry back exactly (:func:`read_tool_definition`); any other
entry stays the dict it is, as this wire's extras. An entry without ``type``
is a function too (Mistral's API takes and sends that form): written back
without it, and to every other wire as the function it is. A ``tool_choice``
of another form (or naming a tool the body does not define) stays an option.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from ...conversation.request import Request
from ...conversation.tools import Tool
from ...model.extras import extras_for
from ..coerce import Wire
from ..function_tools import (
    check_named_choice,
    function_fields,
    named_tools,
    own_entry,
    read_function,
    written_tools,
)
from ..lossless import ABSENT
from .cache import read_tool_point
from .content import own
from .wire import NAME

__all__ = ["read_tool_definition", "read_tools", "tool_definition", "write_tools"]

_CHOICE_WORDS: Final = ("auto", "required", "none")
_UNTYPED: Final = object()  # a tool entry without "type"


def tool_definition(tool: Tool) -> Wire:
    """A function tool, with only this wire's extras (``type`` left out when
    the entry it was read from had none)."""
    function = function_fields(tool, NAME)
    if "type" in extras_for(tool.metadata, NAME).get(ABSENT, ()):  # Mistral leaves it out
        return {"function": function}
    return {"type": "function", "function": function}


def read_tool_definition(entry: dict[str, Any]) -> Tool | None:
    """The :class:`~streamkit.conversation.tools.Tool` a function entry stands
    for, when writing it gives the entry back exactly (``None``: another entry);
    a ``cache_control`` beside ``function`` is the tool's cache point."""
    entry, point = read_tool_point(entry)
    function, kind = entry.get("function"), entry.get("type", _UNTYPED)
    tool = read_function(function, NAME) if kind in ("function", _UNTYPED) and isinstance(
        function, dict) else None
    if tool is not None and kind is _UNTYPED:
        tool.metadata[ABSENT] = ["type"]
    if tool is None or tool_definition(tool) != entry:
        return None
    tool.cache = point
    return tool


def write_tools(body: dict[str, Any], request: Request) -> None:
    """``tools`` and ``tool_choice`` for the request's tools and choice."""
    tools = None if request.tools is None else written_tools(request.tools, _tool_entry)
    if tools is not None:
        body["tools"] = tools
    if request.tool_choice is not None:
        body["tool_choice"] = _tool_choice(request.tool_choice, request.tools)


def read_tools(rest: dict[str, Any], request: Request) -> None:
    """``tools`` and ``tool_choice`` (consumed from ``rest`` when read)."""
    tools = rest.get("tools")
    if isinstance(tools, list) and all(isinstance(item, dict) for item in tools):
        request.tools = [read_tool_definition(item) or own(item) for item in tools]
        del rest["tools"]
    _read_tool_choice(rest, request)


def _tool_entry(item: Tool | dict[str, Any]) -> Wire | None:
    """A tool's entry; a dict (the wire's own entry) as it is, another wire's
    ``None`` (dropped with a warning)."""
    return own_entry(item, NAME) if isinstance(item, dict) else tool_definition(item)


def _tool_choice(choice: str, tools: Sequence[Tool | dict[str, Any]] | None) -> Any:
    """A word as it is; a tool's name as the named-function form."""
    if choice in _CHOICE_WORDS:
        return choice
    if tools is not None:
        named_tools(tools, choice)  # a name no tool has is refused
    return {"type": "function", "function": {"name": choice}}


def _read_tool_choice(rest: dict[str, Any], request: Request) -> None:
    choice = rest.get("tool_choice")
    if isinstance(choice, str) and choice in _CHOICE_WORDS:
        request.tool_choice = rest.pop("tool_choice")
        return
    function = choice.get("function") if isinstance(choice, dict) else None
    name = function.get("name") if isinstance(function, dict) else None
    if not isinstance(name, str) or name in _CHOICE_WORDS:
        return
    if _tool_choice(name, None) == choice:
        request.tool_choice = name
        del rest["tool_choice"]
        check_named_choice(request, NAME)
