"""Ollama's tool definitions, both directions, and the schema form its server keeps.

What sets Ollama's tools apart: its server does not pass a tool's schema
through; it decodes ``parameters`` into Go structs and renders the model's
prompt from them (:func:`ollama_schema` says what survives).

A :class:`~streamkit.conversation.tools.Tool` is ``{"type": "function", "function":
{"name", "description", "parameters"}}`` (no ``strict``: Ollama has none), its
parameters rewritten by :func:`ollama_schema` (nested models inlined). A dict
is the wire's own entry and goes as it is; a dict another wire's reader kept
(:class:`~streamkit.model.extras.Extras` of that wire: a server tool, an entry with
fields Ollama does not know) is dropped, as Ollama could not run it (said by
:func:`~streamkit.providers.function_tools.own_entry`).

``tool_choice``: Ollama has none. ``auto`` and ``required`` send the tools
(``required`` cannot be enforced), ``none`` sends no tools, a tool's name sends
only that tool (the model may still answer in text).

Reading a body, a documented function entry becomes a ``Tool`` only when
writing the ``Tool`` gives the entry back exactly (:func:`read_tool_definition`);
any other entry stays the dict it is, as Ollama's extras.
"""

from __future__ import annotations

from typing import Any

from ...conversation.request import Request
from ...conversation.tools import Tool, inline_refs
from ...model.extras import Extras
from ..function_tools import (
    function_schema,
    named_tools,
    own_entry,
    read_function,
    written_tools,
)
from .wire import NAME

__all__ = ["ollama_schema", "read_tool_definition", "read_tools", "tool_definition",
           "write_tools"]


def tool_definition(tool: Tool) -> dict[str, Any]:
    """``{"type": "function", "function": {"name", "description"?, "parameters"}}``,
    the parameters in the form Ollama's server keeps (:func:`ollama_schema`)."""
    function: dict[str, Any] = {"name": tool.name}
    if tool.description:
        function["description"] = tool.description
    function["parameters"] = ollama_schema(function_schema(tool, NAME))
    return {"type": "function", "function": function}


def read_tool_definition(entry: dict[str, Any]) -> Tool | None:
    """The :class:`~streamkit.conversation.tools.Tool` a documented function
    entry stands for, when writing it gives the entry back exactly (``None``:
    another entry)."""
    function = entry.get("function")
    tool = read_function(function, NAME) if entry.get("type") == "function" and isinstance(
        function, dict) else None
    # an odd field or description, or a schema the encoder would rewrite, would
    # not come back as it was: the body's own entry is kept
    return tool if tool is not None and tool_definition(tool) == entry else None


def write_tools(body: dict[str, Any], request: Request) -> None:
    """The ``tools`` array for the request's tools and ``tool_choice`` (no
    field when there are none to send)."""
    chosen = _chosen_tools(request.tools, request.tool_choice)
    tools = None if chosen is None else written_tools(chosen, _entry)
    if tools is not None:
        body["tools"] = tools


def read_tools(rest: dict[str, Any], request: Request) -> None:
    """``tools``, each entry as a :class:`Tool` when it writes back exactly,
    else as the dict it is (consumed from ``rest`` when read)."""
    tools = rest.pop("tools", None)
    if isinstance(tools, list) and all(isinstance(item, dict) for item in tools):
        request.tools = [_read_entry(item) for item in tools]
    elif tools is not None:
        rest["tools"] = tools


def _chosen_tools(tools: list[Tool | dict[str, Any]] | None,
                  choice: str | None) -> list[Tool | dict[str, Any]] | None:
    """The tools to send for ``tool_choice`` (Ollama has no such field)."""
    if tools is None or choice in (None, "auto", "required"):
        return tools
    if choice == "none":
        return None
    return named_tools(tools, choice)


def _entry(item: Tool | dict[str, Any]) -> dict[str, Any] | None:
    """A tool's entry; a dict is the wire's own entry, sent as it is (another
    wire's is dropped: :func:`~streamkit.providers.function_tools.own_entry`)."""
    return own_entry(item, NAME) if isinstance(item, dict) else tool_definition(item)


def _read_entry(entry: dict[str, Any]) -> Tool | dict[str, Any]:
    tool = read_tool_definition(entry)
    return tool if tool is not None else Extras(NAME, entry)


def ollama_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Tool parameters in the form Ollama's server keeps.

    The server decodes ``parameters`` into Go structs (api/types.go
    ``ToolFunctionParameters``: type, $defs, items, required, properties;
    ``ToolProperty``: anyOf, type, items, description, enum, properties,
    required) and renders the model's prompt from them, so any other keyword of
    a property is silently lost: a ``$ref`` to a nested model (the model would
    see a property with no type), a ``const``, a ``oneOf``. Refs are inlined
    (:func:`~streamkit.conversation.tools.inline_refs`), ``const`` becomes a one-value
    ``enum``, ``oneOf`` becomes ``anyOf``; other keywords stay (harmless).
    """
    return _keep_forms(inline_refs(schema))


_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_ONES = ("items", "additionalProperties", "not")


def _keep_forms(node: dict[str, Any]) -> dict[str, Any]:
    """``const`` / ``oneOf`` rewritten in ``node`` and every schema inside it
    (by keyword: a property named "const" is not the keyword)."""
    out = dict(node)
    if "const" in out and "enum" not in out:
        out["enum"] = [out.pop("const")]
    if "oneOf" in out and "anyOf" not in out:
        out["anyOf"] = out.pop("oneOf")
    for key in _SCHEMA_MAPS:
        if isinstance(out.get(key), dict):
            out[key] = {name: _keep_forms(sub) if isinstance(sub, dict) else sub
                        for name, sub in out[key].items()}
    for key in _SCHEMA_LISTS:
        if isinstance(out.get(key), list):
            out[key] = [_keep_forms(sub) if isinstance(sub, dict) else sub for sub in out[key]]
    for key in _SCHEMA_ONES:
        if isinstance(out.get(key), dict):
            out[key] = _keep_forms(out[key])
        elif key == "items" and isinstance(out.get(key), list):
            out[key] = [_keep_forms(sub) if isinstance(sub, dict) else sub for sub in out[key]]
    return out
