"""OpenAI Responses tool definitions, both ways: the body's ``tools`` and
``tool_choice``.

- ``tools``: a :class:`~streamkit.conversation.tools.Tool` -> ``{"type":
  "function", "name", "description", "parameters", "strict"}`` plus its
  ``metadata`` (:func:`tool_definition`); ``strict`` is always written
  (``False`` when the tool does not say), because an omitted ``strict`` is
  strict mode on this API (the function-calling guide: "Responses requests
  will attempt to normalize your schema into strict mode"; to opt out
  "explicitly set strict: false"), and a tool of another API (or one declared
  without ``strict``) is not strict; only a tool read from a Responses body
  without ``strict`` is written back without it. A dict (``web_search``,
  ``mcp``, ``file_search``, ``custom``...) goes as it is, unless another wire's
  reader kept it (dropped, said by
  :func:`~streamkit.providers.function_tools.own_entry`);
- ``tool_choice``: ``auto`` / ``required`` / ``none``, or a tool's name
  (``{"type": "function", "name": ...}``; ``{"type": "custom", ...}`` for a
  custom tool in ``tools``); any other form (``allowed_tools``, a hosted tool)
  is an option under its own name.

Reading a body back, a function entry becomes a ``Tool`` only when it writes
back exactly (:func:`read_tool_definition`); any other entry stays the dict it
is, as this wire's :class:`~streamkit.model.extras.Extras`.
"""

from __future__ import annotations

from typing import Any, Final

from ...conversation.request import Request
from ...conversation.tools import Tool
from ...model.errors import InvalidBodyError
from ...model.extras import Extras
from ..coerce import Wire
from ..function_tools import (
    check_named_choice,
    function_fields,
    own_entry,
    read_function,
    written_tools,
)
from ..lossless import ABSENT
from ..options import put_field
from .wire import NAME

__all__ = ["read_tool_definition", "read_tools", "tool_definition", "write_tools"]

_CHOICE_WORDS: Final = ("auto", "required", "none")


def tool_definition(tool: Tool) -> Wire:
    """A function tool with the metadata of this wire, and ``strict`` always
    said (see the module docstring)."""
    return function_fields(tool, NAME, prefix={"type": "function"}, strict=False)


def read_tool_definition(entry: dict[str, Any]) -> Tool | None:
    """The :class:`~streamkit.conversation.tools.Tool` a function entry stands
    for, when writing it gives the entry back exactly (``None``: another entry)."""
    tool = read_function(entry, NAME, written=("type",)) if entry.get(
        "type") == "function" else None
    if tool is not None and "strict" not in entry:
        tool.metadata[ABSENT] = ["strict"]  # so that writing it back leaves strict out
    return tool if tool is not None and tool_definition(tool) == entry else None


def write_tools(body: dict[str, Any], request: Request) -> None:
    """``tools`` and ``tool_choice`` for the request's tools and choice."""
    written = _entries(request.tools)
    if written is not None:
        body["tools"] = written
    if request.tool_choice is not None:
        put_field(body, "tool_choice", _tool_choice(request.tool_choice, written or []))


def read_tools(rest: dict[str, Any], request: Request) -> None:
    """``tools`` (function tools as :class:`Tool` s) and ``tool_choice``
    (consumed from ``rest`` when read)."""
    if isinstance(rest.get("tools"), list):
        request.tools = [_read_entry(entry) for entry in rest.pop("tools")]
    choice = rest.get("tool_choice")
    written = _entries(request.tools) or []
    if isinstance(choice, str) and choice in _CHOICE_WORDS:
        request.tool_choice = rest.pop("tool_choice")
    elif isinstance(choice, dict) and isinstance(choice.get("name"), str):
        name = choice["name"]
        if name not in _CHOICE_WORDS and _tool_choice(name, written) == choice:
            request.tool_choice = name
            del rest["tool_choice"]
    check_named_choice(request, NAME)


def _entry(item: Tool | dict[str, Any]) -> Wire | None:
    """A tool's entry; a dict as it is; ``None`` for a dict another wire's
    reader kept (a tool of that API)."""
    return own_entry(item, NAME) if isinstance(item, dict) else tool_definition(item)


def _entries(tools: list[Tool | dict[str, Any]] | None) -> list[Wire] | None:
    return None if tools is None else written_tools(tools, _entry)


def _read_entry(entry: Any) -> Tool | dict[str, Any]:
    """A function tool as a :class:`Tool` when it writes back exactly; else as it is."""
    if not isinstance(entry, dict):
        raise InvalidBodyError(f"not a Responses tool: {str(entry)[:200]}", wire=NAME,
                               where="tools")
    tool = read_tool_definition(entry)
    return tool if tool is not None else Extras(NAME, entry)


def _tool_choice(choice: str, tools: list[Wire]) -> str | Wire:
    """A word, or the named tool (a custom tool when ``tools`` has one by that name)."""
    if choice in _CHOICE_WORDS:
        return choice
    custom = any(tool.get("type") == "custom" and tool.get("name") == choice for tool in tools)
    return {"type": "custom" if custom else "function", "name": choice}
