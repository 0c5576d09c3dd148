"""Anthropic tool definitions, both ways: the body's ``tools`` and ``tool_choice``.

- ``tools``: a :class:`~streamkit.conversation.tools.Tool` -> ``{"name",
  "description", "input_schema", "strict"}`` plus its ``metadata``
  (``cache_control``, ``defer_loading``...: :func:`tool_definition`); a dict
  (a server tool: ``web_search_20250305``, ``web_fetch_20250910``...) goes as
  it is, unless another wire's reader kept it (a tool of that API: dropped,
  said by :func:`~streamkit.providers.function_tools.own_entry`);
- ``tool_choice``: ``auto`` / ``required`` (Anthropic's ``any``) / ``none`` /
  a tool name (``{"type": "tool", "name": ...}``); ``parallel_tool_calls=False``
  is ``disable_parallel_tool_use: true`` inside it;
- ``json_output=True`` has no Anthropic form of its own (its JSON outputs need
  a schema, and the API sets ``additionalProperties: false`` on every object),
  so it becomes a forced tool :data:`JSON_TOOL` with an open object schema: the
  JSON is the input of the one ``tool_use`` block of the answer. Forced tool
  use is incompatible with extended thinking, so that combination raises.

Reading a body back, a custom tool becomes a ``Tool`` only when writing the
``Tool`` gives the entry back exactly (:func:`read_tool_definition`); any
other entry stays the dict it is, as Anthropic's
:class:`~streamkit.model.extras.Extras`.
"""

from __future__ import annotations

from typing import Any

from ...conversation.request import Request
from ...conversation.tools import Tool
from ...model.errors import InvalidBodyError, UnsupportedFeatureError
from ...model.extras import Extras
from ..coerce import Wire
from ..function_tools import (
    check_named_choice,
    function_fields,
    own_entry,
    read_function,
    written_tools,
)
from ..options import put_field
from .wire import NAME

__all__ = ["JSON_TOOL", "read_tool_definition", "read_tools", "tool_definition", "tool_entries",
           "write_tools"]

#: The tool that carries the answer of ``json_output=True`` (see the module docstring).
JSON_TOOL = "json_output"
_JSON_TOOL_DESCRIPTION = "Give your answer as this tool's input: one JSON object."

# tool_choice words: streamkit's -> Anthropic's ``type``.
_CHOICES = {"auto": "auto", "required": "any", "none": "none"}
_CHOICE_WORDS = {wire: word for word, wire in _CHOICES.items()}


def tool_definition(tool: Tool) -> Wire:
    """A custom tool, with this wire's extras only."""
    return function_fields(tool, NAME, schema_field="input_schema")


def read_tool_definition(entry: dict[str, Any]) -> Tool | None:
    """The :class:`~streamkit.conversation.tools.Tool` a custom tool entry
    stands for, when writing it gives the entry back exactly (``None``:
    another entry)."""
    tool = read_function(entry, NAME, "input_schema") if entry.get(
        "type", "custom") == "custom" else None
    return tool if tool is not None and tool_definition(tool) == entry else None


def tool_entries(tools: list[Tool | dict[str, Any]] | None) -> list[Wire]:
    """The ``tools`` entries (a dict as it is, another wire's dropped), written
    before the rest of the body so that what they drop is said first."""
    return written_tools(tools or [], _entry) or []


def write_tools(body: dict[str, Any], request: Request, entries: list[Wire],
                parallel: bool | None) -> None:
    """``tools`` (``entries``, from :func:`tool_entries`) and ``tool_choice``
    (the forced :data:`JSON_TOOL` for ``json_output=True``), with the
    ``parallel_tool_calls`` option."""
    choice = request.tool_choice
    if request.json_output is True:
        _refuse_forced_json(body, choice)
        entries = [*entries, {"name": JSON_TOOL, "description": _JSON_TOOL_DESCRIPTION,
                              "input_schema": {"type": "object"}}]
        choice = JSON_TOOL
    if entries:
        body["tools"] = entries
    written = _tool_choice(choice, parallel, bool(entries))
    if written is not None:
        put_field(body, "tool_choice", written)


def read_tools(rest: dict[str, Any], request: Request) -> None:
    """``tools`` (custom ones as :class:`Tool` s) and ``tool_choice`` (with
    ``parallel_tool_calls``), consumed from ``rest`` when read."""
    if isinstance(rest.get("tools"), list):
        request.tools = [_read_entry(entry, number)
                         for number, entry in enumerate(rest.pop("tools"))]
    choice = rest.get("tool_choice")
    if isinstance(choice, dict):
        word, parallel = _read_tool_choice(choice)
        if _tool_choice(word, parallel, True) == choice:
            request.tool_choice = word
            if parallel is not None:
                request.options["parallel_tool_calls"] = parallel
            del rest["tool_choice"]
    check_named_choice(request, NAME)


def _entry(item: Tool | dict[str, Any]) -> Wire | None:
    """A tool's entry; a dict (a server tool, or a tool already in wire form)
    as it is, unless another wire's reader kept it (``None``)."""
    return own_entry(item, NAME) if isinstance(item, dict) else tool_definition(item)


def _refuse_forced_json(body: dict[str, Any], choice: str | None) -> None:
    """``json_output=True`` is a forced tool: no other choice, no thinking."""
    if choice is not None:
        raise UnsupportedFeatureError(
            NAME, f"json_output=True with tool_choice={choice!r}",
            "json_output=True is a forced tool on Anthropic: it cannot be combined "
            "with another tool_choice")
    thinking = body.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive"):
        raise UnsupportedFeatureError(
            NAME, "json_output=True with thinking on",
            "json_output=True is a forced tool on Anthropic, and forced tool use is "
            "incompatible with extended thinking: pass a schema (JsonSchemaOutput or a "
            "pydantic model) for output_config.format")


def _tool_choice(choice: str | None, parallel: bool | None, has_tools: bool) -> Wire | None:
    """``{"type": auto | any | none}`` or ``{"type": "tool", "name": ...}``, with
    ``disable_parallel_tool_use`` when ``parallel_tool_calls`` is given."""
    if choice is None:
        if parallel is None or not has_tools:
            return None
        choice = "auto"
    kind = _CHOICES.get(choice)
    out: Wire = {"type": kind} if kind is not None else {"type": "tool", "name": choice}
    if parallel is not None and kind != "none":  # the "none" choice takes no such field
        out["disable_parallel_tool_use"] = not parallel
    return out


def _read_entry(entry: Any, number: int) -> Tool | dict[str, Any]:
    """A custom tool as a :class:`Tool` when it writes back exactly; else as it
    is, kept as Anthropic's."""
    if not isinstance(entry, dict):
        raise InvalidBodyError(f"not an Anthropic tool: {str(entry)[:200]}", wire=NAME,
                               where=f"tools[{number}]")
    tool = read_tool_definition(entry)
    return tool if tool is not None else Extras(NAME, entry)


def _read_tool_choice(choice: Wire) -> tuple[str | None, bool | None]:
    """A ``tool_choice`` object as streamkit's word or tool name, and ``parallel_tool_calls``."""
    disabled = choice.get("disable_parallel_tool_use")
    parallel = (not disabled) if isinstance(disabled, bool) else None
    kind = choice.get("type")
    if kind == "tool":
        name = choice.get("name")
        # a tool named like a word (``auto``) would read back as the word: kept as it is
        return (name if isinstance(name, str) and name not in _CHOICES else None), parallel
    return _CHOICE_WORDS.get(kind) if isinstance(kind, str) else None, parallel
