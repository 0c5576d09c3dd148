"""A :class:`~streamkit.conversation.tools.Tool` as the function declaration the wire
formats share: ``name``, ``description`` when there is one, the JSON schema
under the wire's field name, ``strict`` when set, and the tool's ``metadata``
(wire extras such as ``cache_control``) over them when they are the wire's own
or set by hand (:func:`~streamkit.model.extras.extras_for`). Each wire wraps it its own
way (Chat Completions in ``{"type": "function", "function": ...}``, Responses
with ``"type": "function"`` first, Anthropic with ``input_schema``); what a
declaration carries is decided here once, so a new :class:`Tool` field reaches
every wire. :func:`read_function` is its inverse, for the request readers.

A structured output's named schema (:class:`~streamkit.conversation.request.JsonSchemaOutput`)
is the same kind of declaration on OpenAI's two wires (``name``, ``schema``,
``strict``, ``description``): :func:`schema_fields` and :func:`read_schema_output`.

A tool given as a dict is already in a wire's form (a server tool, an entry
written by hand): :func:`own_entry` sends it to its own wire only (and says
what it dropped elsewhere).

A call's arguments go back the same way on every wire, whoever wrote the turn:
:func:`arguments_as_text` where the wire takes the JSON text (Chat Completions
``function.arguments``, Responses ``function_call.arguments``),
:func:`arguments_as_object` where it takes an object (Anthropic
``tool_use.input``, Gemini ``functionCall.args``, Ollama
``function.arguments``). Arguments cut off (``incomplete``, e.g. at
``max_tokens``) or that are no JSON object never raise: the text wires get the
raw text exactly as the model wrote it (nothing made up, no ``"{}"`` in its
place), the object wires ``{}`` (said with a
:class:`~streamkit.LossyTranslationWarning` naming the call when it is another
API's call; the raw text stays in the response's
:class:`~streamkit.model.blocks.ToolCallBlock`). Either way
:meth:`~streamkit.conversation.tools.Tool.run_call`'s error result tells the model
what went wrong.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeGuard

from ..conversation.request import JsonSchemaOutput, Request
from ..conversation.tools import Tool
from ..model.blocks import ToolCallBlock
from ..model.errors import InvalidBodyError, UnsupportedFeatureError, warn_lossy
from ..model.extras import extras_for, origin_of
from ..model.partial_json import PartialJSONError
from ..model.tool_arguments import decode_arguments
from .lossless import unread, with_extras


def function_fields(tool: Tool, wire: str, schema_field: str = "parameters",
                    prefix: dict[str, Any] | None = None,
                    strict: bool | None = None) -> dict[str, Any]:
    """The declaration of ``tool`` for ``wire``; ``prefix`` holds fields the wire
    puts before the name (``{"type": "function"}`` on Responses), ``strict`` the
    value written when the tool does not say (``None``: nothing). A field the
    body it was read from left out (the reader's ``ABSENT`` record) stays out
    (:func:`~streamkit.providers.lossless.with_extras`)."""
    out: dict[str, Any] = {**(prefix or {}), "name": tool.name}
    if tool.description:
        out["description"] = tool.description
    out[schema_field] = function_schema(tool, wire)
    said = tool.strict if tool.strict is not None else strict
    if said is not None:
        out["strict"] = said
    return with_extras(out, tool.metadata, wire)


def read_function(fields: Mapping[str, Any], wire: str, schema_field: str = "parameters",
                  written: tuple[str, ...] = ()) -> Tool | None:
    """The :class:`Tool` a declaration read from ``wire`` stands for, its other
    fields as ``wire``'s extras (``written``: fields the wire's writer puts
    itself, such as Responses' ``type``); ``None`` without a string name and a
    schema of an object (a function's arguments are one on every wire: a
    schema of another ``type`` is kept as the wire's own entry, which another
    wire's builder drops with a warning instead of writing a declaration its
    API refuses). A description that is not a non-empty string and a
    ``strict`` that is not a bool stay among the extras, where writing puts them
    back; the reader still checks that writing the tool gives the declaration."""
    name, schema = fields.get("name"), fields.get(schema_field)
    if not isinstance(name, str) or not is_function_schema(schema):
        return None
    description, strict = fields.get("description"), fields.get("strict")
    described = description if isinstance(description, str) else ""
    strict_read = isinstance(strict, bool)
    read = (*written, "name", schema_field, *(["description"] if described else []),
            *(["strict"] if strict_read else []))
    return Tool(name=name, description=described, parameters=schema,
                strict=strict if strict_read else None, metadata=unread(fields, *read, wire=wire))


def function_schema(tool: Tool, wire: str) -> dict[str, Any]:
    """``tool``'s parameters, which every builder writes only when they are what
    every API takes as a function's (:func:`is_function_schema`): a tool made by
    hand or by an MCP server with other parameters is refused, naming it, as
    the API would refuse it (and Ollama's SDK types before the request is sent).
    A reader keeps such a declaration as its wire's own entry instead."""
    if not is_function_schema(tool.parameters):
        raise UnsupportedFeatureError(
            wire, f"the tool {tool.name!r}, whose parameters are no JSON Schema of an object",
            "a function's parameters are an object schema: {\"type\": \"object\", "
            "\"properties\": {name: schema}, \"required\": [names]}")
    return tool.parameters


def is_function_schema(schema: Any) -> TypeGuard[dict[str, Any]]:
    """A JSON schema (or Gemini's OpenAPI one, ``"OBJECT"``) of an object, or
    of a type it does not say, whose ``properties`` (if any) are an object of
    property schemas and ``required`` (if any) a list of names: what every API
    takes as a function's parameters."""
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type", "object")
    required = schema.get("required", [])
    properties = schema.get("properties", {})
    return (isinstance(kind, str) and kind.lower() == "object"
            and isinstance(properties, dict) and all(map(_property_schema, properties.values()))
            and isinstance(required, list) and all(isinstance(n, str) for n in required))


def _property_schema(schema: Any) -> bool:
    """A property's schema as JSON Schema has it and every API takes it
    (Ollama's types check these keywords): an object whose ``type`` is a name
    or a list of names, whose ``description`` is a string and ``enum`` a list."""
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type", "")
    names = isinstance(kind, list) and all(isinstance(name, str) for name in kind)
    return ((isinstance(kind, str) or names) and isinstance(schema.get("description", ""), str)
            and isinstance(schema.get("enum", []), list))


def schema_fields(output: JsonSchemaOutput, wire: str,
                  prefix: dict[str, Any] | None = None) -> dict[str, Any]:
    """``output`` as ``wire`` declares a named schema: ``name``, ``schema``,
    ``strict`` and ``description`` when set, and the output's extras of ``wire``."""
    out: dict[str, Any] = {**(prefix or {}), "name": output.name, "schema": output.schema}
    if output.strict is not None:
        out["strict"] = output.strict
    if output.description is not None:
        out["description"] = output.description
    out.update(extras_for(output.metadata, wire))
    return out


def read_schema_output(fields: Mapping[str, Any], wire: str,
                       written: tuple[str, ...] = ()) -> JsonSchemaOutput | None:
    """The inverse of :func:`schema_fields` (``None`` without a string name and
    a schema object); a ``strict`` or ``description`` of another type stays
    among the extras."""
    name, schema = fields.get("name"), fields.get("schema")
    if not isinstance(name, str) or not isinstance(schema, dict):
        return None
    strict, description = fields.get("strict"), fields.get("description")
    strict = strict if isinstance(strict, bool) else None
    description = description if isinstance(description, str) else None
    read = (*written, "name", "schema", *(["strict"] if strict is not None else []),
            *(["description"] if description is not None else []))
    return JsonSchemaOutput(name=name, schema=schema, strict=strict, description=description,
                            metadata=unread(fields, *read, wire=wire))


def own_entry(entry: dict[str, Any], wire: str) -> dict[str, Any] | None:
    """A tool given as ``wire``'s own dict (or set by hand), as it is. One
    another wire's reader kept (that API's server tool: a web search, an MCP
    server, a file search) has no form here: ``None``, dropped with a
    :class:`~streamkit.LossyTranslationWarning` naming it by its ``type`` or
    first key. Dropped rather than refused, so that a conversation can move to
    a provider that lacks the tool: the model answers without it, as it would
    if the tool had not been offered."""
    origin = origin_of(entry)
    if origin in (None, wire):
        return dict(entry)
    kind = entry.get("type")
    named = kind if isinstance(kind, str) else next(iter(entry), "empty")
    warn_lossy(wire, f"the {named!r} tool read from {origin}",
               f"it is a tool of {origin}'s API")
    return None


def written_tools(tools: Sequence[Tool | dict[str, Any]],
                  write: Callable[[Tool | dict[str, Any]], dict[str, Any] | None]
                  ) -> list[dict[str, Any]] | None:
    """Each tool as ``write`` puts it, without those it drops (:func:`own_entry`);
    ``None`` when tools were given and every one was dropped: no ``tools``
    field then, as OpenAI refuses an empty list ("[] is too short")."""
    written = [written for entry in tools if (written := write(entry)) is not None]
    return None if tools and not written else written


def arguments_as_text(block: ToolCallBlock) -> str:
    """The call's arguments for a wire that takes JSON text: the text as it
    came, valid or not, cut off or not (no text at all: ``"{}"``, no
    arguments, which is what :meth:`~streamkit.model.blocks.ToolCallBlock.arguments`
    reads it as)."""
    text = block.input
    return text if text.strip() else "{}"


def arguments_as_object(block: ToolCallBlock, wire: str | None = None) -> dict[str, Any]:
    """The call's arguments for a wire that takes a JSON object: the object
    the text is; ``{}`` when it was cut off, is not JSON, is JSON of another
    kind (an array, a string) or holds a number JSON has no words for (NaN,
    Infinity, past a float's range: an encoder writes ``null`` for it): the
    wire cannot hold the text, and no guess at what the model meant is sent in
    its place. A request builder gives its ``wire`` for another API's call
    crossing to it: such a loss is then said (a
    :class:`~streamkit.LossyTranslationWarning` naming the call); a call of
    the wire's own turn (cut off at ``max_tokens`` in a tool loop) goes so
    unsaid, its API having written it and the tool result saying what went
    wrong, as does an answer's encoder. No arguments at all are ``{}``. An
    integer of any length JSON's decoder takes is kept exactly (past Python's
    digit limit, the text is no JSON it decodes)."""
    text = block.input
    if not text.strip():
        return {}
    arguments = None if block.incomplete else _json_object(text)
    if arguments is None:
        if wire is not None:
            why = "cut off" if block.incomplete else "no JSON object a wire can carry"
            warn_lossy(wire, f"the arguments of the {block.name!r} call {block.id!r}",
                       f"they are {why}, and its calls take an object: {{}} is sent instead")
        return {}
    return arguments


def _json_object(text: str) -> dict[str, Any] | None:
    """The JSON object ``text`` is, every number in it finite (``None``: no such object)."""
    try:
        value = decode_arguments(text)
    except PartialJSONError:  # within the limits: text too deep or long for them is no JSON
        return None
    if type(value) is not dict:
        return None
    stack: list[Any] = [value]
    while stack:  # iterative: the text may nest up to the depth limit
        node = stack.pop()
        if isinstance(node, float) and not math.isfinite(node):
            return None
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return value


def named_tools(tools: Sequence[Tool | dict[str, Any]], choice: str) -> list[Tool | dict[str, Any]]:
    """The tools ``tool_choice`` names (a tool, or an entry in Chat's form
    ``{"function": {"name"}}`` or a flat ``{"name"}``); a name no tool has is
    refused before the API would be asked to call it."""
    chosen = [entry for entry in tools if _tool_name(entry) == choice]
    if not chosen:
        raise ValueError(f"tool_choice names {choice!r}, which is not among the tools")
    return chosen


#: The tool_choice words (any other choice is a tool's name).
CHOICE_WORDS = frozenset({"auto", "required", "none"})


def check_named_choice(request: Request, wire: str) -> None:
    """Refuse a body whose ``tool_choice`` names a tool it does not define
    (:class:`~streamkit.model.errors.InvalidBodyError`): its API would refuse it,
    and every builder refuses to write it (:func:`named_tools`), so a request
    read from it could be sent nowhere."""
    choice = request.tool_choice
    if choice is None or choice in CHOICE_WORDS:
        return
    if not any(_tool_name(entry) == choice for entry in request.tools or ()):
        raise InvalidBodyError(f"tool_choice names {choice!r}, which no tool of the body "
                               f"defines", wire=wire, where="tool_choice")


def _tool_name(entry: Tool | dict[str, Any]) -> str | None:
    if isinstance(entry, Tool):
        return entry.name
    function = entry.get("function")
    name = function.get("name") if isinstance(function, dict) else entry.get("name")
    return name if isinstance(name, str) else None
