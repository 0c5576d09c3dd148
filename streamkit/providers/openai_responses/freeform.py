"""Custom (freeform) tools crossing to another wire, as functions.

A Responses ``custom`` tool (``{"type": "custom", "name", "description",
"format"}``) takes free text where a function takes a JSON object: any text,
or text in a grammar (``format: {"type": "grammar", "syntax": "lark" |
"regex", "definition"}``), and the model's call of it is a
``custom_tool_call`` with that text as ``input``. OpenAI's Codex CLI declares
its file editor ``apply_patch`` so. Every other wire has functions only, so
the tool would be dropped there and the agent left without its editor.

Instead it crosses as a function of one required string argument ``input``:
the form Codex itself declares ``apply_patch`` in for models without freeform
tools, and whose calls its handler takes as well (openai/codex
``codex-rs/core/src/tools/handlers/apply_patch.rs``: ``ToolPayload::Function``
reads ``{"input"}``, ``ToolPayload::Custom`` the text). A grammar goes into
that argument's description, where the model reads it but the API no longer
enforces it: that loss is said with a
:class:`~streamkit.LossyTranslationWarning`. A custom tool's call in the
history crosses as that function's call, ``{"input": <its text>}``.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Final, TypeGuard

from ...conversation.messages import AssistantMessage, Message
from ...conversation.request import Request
from ...conversation.tools import Tool
from ...model.blocks import ToolCallBlock
from ...model.errors import warn_lossy
from ...model.extras import Extras, origin_of
from .content import CUSTOM
from .wire import NAME

__all__ = ["FREEFORM_ARGUMENT", "function_forms"]

FREEFORM_ARGUMENT: Final = "input"
"""The one argument a custom tool's function form takes: its text."""


def function_forms(request: Request, wire: str) -> Request:
    """``request`` for ``wire`` (another API) with this wire's custom tools and
    their calls in the history as functions (see the module docstring); the
    request itself when it holds none."""
    tools = request.tools or []
    if not any(_is_custom_tool(tool) for tool in tools) and not any(
            _is_custom_call(block) for message in request.messages
            for block in _blocks(message)):
        return request
    return dataclasses.replace(
        request, tools=[_as_function(tool, wire) if _is_custom_tool(tool) else tool
                        for tool in tools] if request.tools is not None else None,
        messages=[_with_function_calls(message) for message in request.messages])


def _is_custom_tool(tool: Tool | dict[str, Any]) -> TypeGuard[dict[str, Any]]:
    """A custom tool this wire's reader kept (never a tool given by hand)."""
    return (isinstance(tool, dict) and origin_of(tool) == NAME and tool.get("type") == "custom"
            and isinstance(tool.get("name"), str))


def _is_custom_call(block: object) -> TypeGuard[ToolCallBlock]:
    return (isinstance(block, ToolCallBlock) and origin_of(block.metadata) == NAME
            and block.metadata.get(CUSTOM) is True)


def _blocks(message: Message) -> list[Any]:
    content = message.content if isinstance(message, AssistantMessage) else None
    return content if isinstance(content, list) else []


def _as_function(entry: dict[str, Any], wire: str) -> Tool:
    """The custom tool as a function taking its text as ``input``; a grammar
    it had is described there, and its loss of force said."""
    name = entry["name"]
    grammar = _grammar(entry.get("format"))
    said = "The tool's input: free text, not JSON."
    if grammar is not None:
        syntax, definition = grammar
        said = f"The tool's input: text in this {syntax} grammar, not JSON.\n{definition}"
        warn_lossy(wire, f"the {syntax} grammar of the custom tool {name!r} read from {NAME}",
                   f"only {NAME} holds its calls to a grammar; the tool goes as a function "
                   f"taking its text as the string argument {FREEFORM_ARGUMENT!r}, the "
                   "grammar in that argument's description")
    description = entry.get("description")
    return Tool(name=name, description=description if isinstance(description, str) else "",
                parameters={"type": "object",
                            "properties": {FREEFORM_ARGUMENT: {"type": "string",
                                                               "description": said}},
                            "required": [FREEFORM_ARGUMENT], "additionalProperties": False})


def _grammar(form: Any) -> tuple[str, str] | None:
    """The syntax and definition of a ``grammar`` format (``None``: free text)."""
    if not isinstance(form, dict) or form.get("type") != "grammar":
        return None
    syntax, definition = form.get("syntax"), form.get("definition")
    if isinstance(syntax, str) and isinstance(definition, str):
        return syntax, definition
    return None


def _with_function_calls(message: Message) -> Message:
    """An assistant turn with its custom tool calls as calls of their function form."""
    blocks = _blocks(message)
    if not isinstance(message, AssistantMessage) or not any(
            _is_custom_call(block) for block in blocks):
        return message
    return dataclasses.replace(message, content=[
        _function_call(block) if _is_custom_call(block) else block for block in blocks])


def _function_call(block: ToolCallBlock) -> ToolCallBlock:
    """The call with its text as the ``input`` argument (its other records kept)."""
    rest = {key: value for key, value in block.metadata.items() if key != CUSTOM}
    return ToolCallBlock(id=block.id, name=block.name,
                         input=json.dumps({FREEFORM_ARGUMENT: block.input}, ensure_ascii=False),
                         incomplete=block.incomplete, metadata=Extras(NAME, rest))
