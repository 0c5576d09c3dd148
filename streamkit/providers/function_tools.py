"""A :class:`~streamkit.tools.Tool` as the function declaration the wire
formats share: ``name``, ``description`` when there is one, the JSON schema
under the wire's field name, ``strict`` when set, and the tool's ``metadata``
(wire extras such as ``cache_control``) over them when they are the wire's own
or set by hand (:func:`~streamkit.extras.extras_for`). Each wire wraps it its own
way (Chat Completions in ``{"type": "function", "function": ...}``, Responses
with ``"type": "function"`` first, Anthropic with ``input_schema``); what a
declaration carries is decided here once, so a new :class:`Tool` field reaches
every wire.
"""

from __future__ import annotations

from typing import Any

from ..extras import extras_for
from ..tools import Tool


def function_fields(tool: Tool, wire: str, schema_field: str = "parameters",
                    prefix: dict[str, Any] | None = None) -> dict[str, Any]:
    """The declaration of ``tool`` for ``wire``; ``prefix`` holds fields the wire
    puts before the name (``{"type": "function"}`` on Responses)."""
    out: dict[str, Any] = {**(prefix or {}), "name": tool.name}
    if tool.description:
        out["description"] = tool.description
    out[schema_field] = tool.parameters
    if tool.strict is not None:
        out["strict"] = tool.strict
    out.update(extras_for(tool.metadata, wire))
    return out
