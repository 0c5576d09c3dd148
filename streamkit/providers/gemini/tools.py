"""Gemini tool definitions, both ways: the body's ``tools`` and ``toolConfig``.

- ``tools``: consecutive :class:`~streamkit.conversation.tools.Tool` s -> one
  ``{"functionDeclarations": [...]}`` entry, each ``{"name", "description",
  "parametersJsonSchema"}`` (JSON Schema, the form pydantic makes) plus its
  metadata (:func:`tool_definition`); a tool read with ``parameters`` (the
  OpenAPI subset, ``"type": "OBJECT"``) holds the JSON Schema it stands for,
  as every other wire takes it, and is written back in its own form
  (:mod:`.schema`); ``description`` is always a string (``None`` is written
  ``""``); ``strict`` has no Gemini field. A dict (``{"googleSearch": {}}``,
  ``{"codeExecution": {}}``, ``{"fileSearch": ...}``) goes as it is, unless
  another wire's reader kept it (a tool of that API: dropped, said by
  :func:`~streamkit.providers.function_tools.own_entry`);
- ``tool_choice`` -> ``toolConfig.functionCallingConfig``: ``auto`` is
  ``AUTO``, ``required`` is ``ANY``, ``none`` is ``NONE``, a tool name is
  ``ANY`` with ``allowedFunctionNames: [name]`` (the function-calling guide's
  forms); a ``toolConfig`` option is the object the choice is added to.

Reading a body back, a declaration becomes a ``Tool`` only when writing the
``Tool`` gives it back exactly (:func:`read_tool_definition`) and its schema is
what every API takes as a function's parameters (an object's: the check of
every reader, :func:`~streamkit.providers.function_tools.is_function_schema`;
another is Gemini's own entry, dropped with a warning elsewhere), a
``functionDeclarations`` entry only when all of its declarations do, and the
``tools`` array only when writing what was read gives it back (else it stays
an option, whole); a ``functionCallingConfig`` only in a form
:func:`write_tools` writes. The spelling of each field is kept
(:mod:`.spelling`).
"""

from __future__ import annotations

from typing import Any, cast

from ...conversation.request import Request
from ...conversation.tools import Tool
from ...model.extras import Extras, extras_for
from ..coerce import Wire
from ..function_tools import function_schema, is_function_schema, own_entry
from ..lossless import ABSENT
from .content import RECORDS, absent_fields
from .schema import OPENAPI_SCHEMA, SCHEMA_FIELD, read_schema, schema_as
from .spelling import SNAKE_CASE, Spelling, pop_object, put_field
from .wire import NAME

__all__ = ["TOOLS_ENTRY", "read_tool_definition", "read_tools", "tool_definition",
           "write_tools"]

#: Tool metadata key: this tool starts a new ``tools`` entry, whose wrapper key
#: (``functionDeclarations`` or ``function_declarations``) is the value.
TOOLS_ENTRY = "tools_entry"

# tool_choice words <-> functionCallingConfig.mode.
_MODES = {"auto": "AUTO", "required": "ANY", "none": "NONE"}
_MODE_WORDS = {mode: word for word, mode in _MODES.items()}

# A tool's metadata keys that are this package's records, never declaration fields.
_TOOL_RECORDS = frozenset({TOOLS_ENTRY, SCHEMA_FIELD, OPENAPI_SCHEMA})


def tool_definition(tool: Tool) -> Wire:
    """``{"name", "description", "parametersJsonSchema"}`` and the tool's
    Gemini extras."""
    metadata = extras_for(tool.metadata, NAME)
    spelling = Spelling.of(metadata)
    absent = absent_fields(metadata)
    out: Wire = {"name": tool.name}
    if "description" not in absent:  # a string (the API's docs call it required)
        out["description"] = tool.description if isinstance(tool.description, str) else ""
    if "parameters" not in absent:
        field, schema = schema_as(metadata.get(SCHEMA_FIELD, "parametersJsonSchema"),
                                  function_schema(tool, NAME), metadata)
        out[spelling.key(field)] = schema
    out.update({key: value for key, value in metadata.items()
                if key not in RECORDS and key not in _TOOL_RECORDS})
    return out


def read_tool_definition(declaration: Any) -> Tool | None:
    """The :class:`~streamkit.conversation.tools.Tool` a function declaration
    stands for, when writing it gives the declaration back exactly and its
    schema is an object's (``None``: another shape). Its other fields, a
    description that is no string, the fields it leaves out and its spelling
    are the tool's Gemini metadata."""
    if not isinstance(declaration, dict) or not isinstance(declaration.get("name"), str):
        return None
    spelling = Spelling()
    metadata = Extras(NAME)
    absent: list[str] = []
    description = declaration.get("description")
    if "description" not in declaration:
        absent.append("description")
    elif not isinstance(description, str):  # null or another type: written back as it was
        metadata["description"] = description
    schema_key = spelling.find(declaration, "parametersJsonSchema")
    if schema_key is None and "parameters" in declaration:
        schema_key = "parameters"
        metadata[SCHEMA_FIELD] = "parameters"
    schema = declaration.get(schema_key) if schema_key is not None else None
    if schema_key is None:
        absent.append("parameters")
    metadata.update({k: v for k, v in declaration.items()
                     if k not in ("name", "description", schema_key)})
    if spelling.paths:
        metadata[SNAKE_CASE] = spelling.record()
    if absent:
        metadata[ABSENT] = absent
    tool = Tool(name=declaration["name"],
                description=description if isinstance(description, str) else "",
                metadata=metadata)
    if isinstance(schema, dict):
        tool.parameters = read_schema(metadata.get(SCHEMA_FIELD, ""), schema, metadata)
    if not is_function_schema(tool.parameters):
        return None  # no API's function: kept as Gemini's own entry (as every reader does)
    try:
        return tool if tool_definition(tool) == declaration else None
    except (ValueError, TypeError):
        return None


def write_tools(body: dict[str, Any], request: Request, options: dict[str, Any],
                spelling: Spelling) -> None:
    """``tools`` and ``toolConfig`` (with a ``toolConfig`` option, consumed
    from ``options``) for the request's tools and choice."""
    tools = _entries(request.tools or [])
    if tools:
        body["tools"] = tools
    tool_config = _tool_config(request.tool_choice, options, spelling)
    if tool_config is not None:
        put_field(body, spelling.key("toolConfig"), tool_config)


def read_tools(rest: dict[str, Any], request: Request, spelling: Spelling) -> None:
    """``tools`` and ``toolConfig``'s choice, consumed from ``rest`` when read
    (the rest of ``toolConfig`` becomes an option)."""
    _read_entries(rest, request)
    _read_tool_config(rest, request, spelling)


def _entries(entries: list[Tool | dict[str, Any]]) -> list[Wire]:
    """Consecutive tools in one ``functionDeclarations`` entry (a tool marked
    :data:`TOOLS_ENTRY` starts its own); a dict entry as it is, unless another
    wire's reader kept it (its server tools are no Gemini tool entry: dropped,
    said by :func:`~streamkit.providers.function_tools.own_entry`)."""
    out: list[Wire] = []
    declarations: list[Wire] | None = None
    for entry in entries:
        if isinstance(entry, dict):
            kept = own_entry(entry, NAME)
            if kept is not None:
                out.append(kept)
                declarations = None
            continue
        mark = extras_for(entry.metadata, NAME).get(TOOLS_ENTRY)
        if declarations is None or isinstance(mark, str):
            declarations = []
            out.append({mark if isinstance(mark, str) else "functionDeclarations": declarations})
        declarations.append(tool_definition(entry))
    return out


def _tool_config(choice: str | None, options: dict[str, Any], spelling: Spelling) -> Wire | None:
    """``toolConfig`` with the ``functionCallingConfig`` of ``tool_choice``."""
    base = pop_object(options, "toolConfig")
    config: Wire = dict(base or {})
    if choice is not None:
        mode = _MODES.get(choice)
        calling: Wire = {"mode": mode} if mode is not None else {
            "mode": "ANY",
            spelling.key("allowedFunctionNames",
                         "toolConfig.functionCallingConfig.allowedFunctionNames"): [choice]}
        put_field(config, spelling.key("functionCallingConfig", "toolConfig.functionCallingConfig"),
             calling)
    return config if config or base is not None else None


def _read_entries(rest: dict[str, Any], request: Request) -> None:
    """``tools``: each ``functionDeclarations`` entry as :class:`Tool` s, any other
    entry as it is (all as they are unless they write back exactly)."""
    entries = rest.get("tools")
    if not isinstance(entries, list):
        return
    read: list[Tool | dict[str, Any]] = []
    for entry in entries:
        tools = _read_entry(entry)
        if tools is None:
            if not isinstance(entry, dict):
                return  # not a tool entry: kept as it is, with the rest
            read.append(entry)
            continue
        if read and isinstance(read[-1], Tool):  # written into the entry before otherwise
            tools[0].metadata[TOOLS_ENTRY] = next(iter(entry))
        read += tools
    if _entries(read) == entries:
        request.tools = [Extras(NAME, entry) if isinstance(entry, dict) else entry
                         for entry in read]
        del rest["tools"]


def _read_entry(entry: Any) -> list[Tool] | None:
    """A ``{"functionDeclarations": [...]}`` entry as tools (``None``: another entry)."""
    if not isinstance(entry, dict) or len(entry) != 1:
        return None
    spelling = Spelling()
    key = spelling.find(entry, "functionDeclarations")
    declarations = entry.get(key) if key is not None else None
    if not isinstance(declarations, list) or not declarations:
        return None
    tools = [read_tool_definition(declaration) for declaration in declarations]
    if any(tool is None for tool in tools):
        return None
    out = cast(list[Tool], tools)
    if spelling.paths:  # the wrapper spelled function_declarations: its own entry
        out[0].metadata[TOOLS_ENTRY] = key
    return out


def _read_tool_config(rest: dict[str, Any], request: Request, spelling: Spelling) -> None:
    """``toolConfig.functionCallingConfig`` in a form :func:`_tool_config` writes
    -> ``tool_choice``; the rest of ``toolConfig`` stays an option."""
    local = Spelling(spelling.paths)
    key = local.find(rest, "toolConfig")
    config = rest.get(key) if key is not None else None
    if key is None or not isinstance(config, dict):
        return
    calling_key = local.find(config, "functionCallingConfig", "toolConfig.functionCallingConfig")
    calling = config.get(calling_key) if calling_key is not None else None
    if not isinstance(calling, dict):
        return
    choice = _read_calling(calling, local)
    if choice is None:
        return
    leftover = {k: v for k, v in config.items() if k != calling_key}
    options = {key: leftover} if leftover else {}
    if _tool_config(choice, dict(options), local) != config:
        return
    del rest[key]
    request.tool_choice = choice
    request.options.update(options)
    spelling.paths |= local.paths


def _read_calling(calling: Wire, spelling: Spelling) -> str | None:
    """A ``functionCallingConfig`` as a tool_choice word or name (``None``: another form)."""
    mode = calling.get("mode")
    names_key = spelling.find(calling, "allowedFunctionNames",
                              "toolConfig.functionCallingConfig.allowedFunctionNames")
    if names_key is None:
        return _MODE_WORDS.get(mode) if isinstance(mode, str) and len(calling) == 1 else None
    names = calling[names_key]
    if mode == "ANY" and len(calling) == 2 and isinstance(names, list) and len(names) == 1 and (
            isinstance(names[0], str) and names[0] not in _MODES):
        # a tool named like a word (``auto``) would read back as the word: kept as it is
        return names[0]
    return None
