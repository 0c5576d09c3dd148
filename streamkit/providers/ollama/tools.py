"""Ollama's tool definitions, both directions, and the schema form its server keeps.

A file of its own because Ollama's server does not pass a tool's schema
through: it decodes ``parameters`` into Go structs and renders the model's
prompt from them (:func:`ollama_schema` says what survives), which is the one
thing about tools a reader of this package must know.

A :class:`~streamkit.conversation.tools.Tool` is ``{"type": "function", "function":
{"name", "description", "parameters"}}`` (no ``strict``: Ollama has none), its
parameters rewritten by :func:`ollama_schema` (nested models inlined). A dict
is the wire's own entry and goes as it is; a dict another wire's reader kept
(:class:`~streamkit.model.extras.Extras` of that wire: a server tool, an entry with
fields Ollama does not know) is refused, as Ollama could not run it.

``tool_choice``: Ollama has none. ``auto`` and ``required`` send the tools
(``required`` cannot be enforced), ``none`` sends no tools, a tool's name sends
only that tool (the model may still answer in text).

Reading a body, a documented function entry becomes a ``Tool`` only when
writing the ``Tool`` gives the entry back exactly; any other entry stays the
dict it is, as Ollama's extras.
"""

from __future__ import annotations

from typing import Any

from ...conversation.tools import Tool, inline_refs
from ...model.extras import Extras
from ..function_tools import named_tools, own_entry, read_function, written_tools
from .wire import NAME

__all__ = ["build_tools", "ollama_schema", "parse_tool"]



def build_tools(tools: list[Tool | dict[str, Any]] | None,
                choice: str | None) -> list[dict[str, Any]] | None:
    """The ``tools`` array for ``tools`` and ``tool_choice`` (``None``: no field)."""
    chosen = _chosen_tools(tools, choice)
    return None if chosen is None else written_tools(chosen, _tool)


def _chosen_tools(tools: list[Tool | dict[str, Any]] | None,
                  choice: str | None) -> list[Tool | dict[str, Any]] | None:
    """The tools to send for ``tool_choice`` (Ollama has no such field)."""
    if tools is None or choice in (None, "auto", "required"):
        return tools
    if choice == "none":
        return None
    return named_tools(tools, choice)


def _tool(item: Tool | dict[str, Any]) -> dict[str, Any] | None:
    """A tool definition; a dict is the wire's own entry, sent as it is (another
    wire's is dropped: :func:`~streamkit.providers.function_tools.own_entry`)."""
    if isinstance(item, dict):
        return own_entry(item, NAME)
    function: dict[str, Any] = {"name": item.name}
    if item.description:
        function["description"] = item.description
    function["parameters"] = ollama_schema(item.parameters)
    return {"type": "function", "function": function}


def parse_tool(item: dict[str, Any]) -> Tool | dict[str, Any]:
    """A documented function entry as a :class:`~streamkit.conversation.tools.Tool`; any
    other entry stays the dict it is (sent back as it is)."""
    function = item.get("function")
    tool = read_function(function, NAME) if item.get("type") == "function" and isinstance(
        function, dict) else None
    # an odd field or description, or a schema the encoder would rewrite, would
    # not come back as it was: the body's own entry is kept
    return tool if tool is not None and _tool(tool) == item else Extras(NAME, item)


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
