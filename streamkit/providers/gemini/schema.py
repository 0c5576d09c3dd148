"""Gemini's ``Schema`` object (a subset of OpenAPI 3.0) and JSON Schema, both ways.

streamkit's model holds a tool's parameters (and a structured output's schema)
as JSON Schema: the form OpenAI, Anthropic and Ollama take and pydantic writes.
Gemini takes JSON Schema as well (``parametersJsonSchema``,
``responseJsonSchema``: what the builder writes for every other schema), but a
body may declare a schema in Gemini's older form, ``parameters`` /
``responseSchema``: OpenAPI's Schema object, where a type is an enum word
(``"OBJECT"``, ``"STRING"``), ``nullable: true`` says "or null", ``example``
holds one example, counts are int64 (strings in proto JSON), an enum's values
are strings whatever the type, ``format: "enum"`` marks an enum, and Vertex AI
adds ``ref`` / ``defs`` for ``$ref`` / ``$defs``. Copied as it is into another
wire, ``"type": "OBJECT"`` is a schema no JSON Schema validator takes.

:func:`from_openapi` reads such a schema as the JSON Schema it stands for
(request reading); :func:`to_openapi` writes JSON Schema in that form
(request building, for a tool read from ``parameters``), or returns ``None``
when the schema says something the Schema object has no field for (then the
builder writes the JSON Schema field instead: the API takes either, never both).
A field is read under either spelling (``any_of`` / ``anyOf``); keys neither
form knows stay as they are.

Which field a body said a schema in, for a tool and a structured output alike:
:func:`read_schema` reads one as JSON Schema, recording in the metadata the
OpenAPI field it came from (:data:`SCHEMA_FIELD`) and the body's own schema
when :func:`to_openapi` would not give it back (:data:`OPENAPI_SCHEMA`:
lower-case types, counts as strings); :func:`schema_as` writes it back to that
field, so the body rebuilds exactly.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .spelling import camel

__all__ = ["OPENAPI_SCHEMA", "SCHEMA_FIELD", "from_openapi", "read_schema", "schema_as",
           "to_openapi"]

#: Tool / JsonSchemaOutput metadata key: the schema field the body used when it
#: is not the JSON Schema one (``parameters``, ``responseSchema``: the OpenAPI subset).
SCHEMA_FIELD = "schema_field"
#: Tool / JsonSchemaOutput metadata key: the body's own OpenAPI schema, kept when
#: writing the JSON Schema read from it would not give it back (lower-case types,
#: counts as strings...): written while the JSON Schema still stands for it.
OPENAPI_SCHEMA = "openapi_schema"
# The JSON Schema field beside each OpenAPI one (the API takes either, never both).
_JSON_SCHEMA_FIELD = {"parameters": "parametersJsonSchema",
                      "responseSchema": "responseJsonSchema"}

# The Schema object's fields (Gemini API ``Schema``; google-genai ``types.Schema``)
# that mean the same in JSON Schema and are copied as they are.
_SAME = frozenset({
    "title", "description", "default", "required", "pattern", "minimum", "maximum",
    "minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties",
    "propertyOrdering",
})
# Its int64 fields: proto JSON writes them as strings, JSON Schema needs integers.
_COUNTS = frozenset({"minItems", "maxItems", "minLength", "maxLength", "minProperties",
                     "maxProperties"})
_INTEGER = re.compile(r"-?[0-9]+")
_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_NUMERIC = ("integer", "number")
_NULL: dict[str, Any] = {"type": "null"}


def from_openapi(schema: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema a Gemini ``Schema`` object stands for."""
    out: dict[str, Any] = {}
    nullable = False
    for key, value in schema.items():
        name = camel(key)
        if name == "type" and isinstance(value, str):
            if value.upper() != "TYPE_UNSPECIFIED":
                out["type"] = value.lower()
        elif name == "nullable" and isinstance(value, bool):
            nullable = value
        elif name == "format" and value == "enum":
            continue  # Gemini's mark of an enum: JSON Schema's ``enum`` says it
        elif name == "example":
            out["examples"] = [value]
        elif name in ("items", "additionalProperties") and isinstance(value, dict):
            out[name] = from_openapi(value)
        elif name in ("properties", "defs") and isinstance(value, dict):
            out["$defs" if name == "defs" else name] = {
                key: from_openapi(item) if isinstance(item, dict) else item
                for key, item in value.items()}
        elif name == "anyOf" and isinstance(value, list):
            out[name] = [from_openapi(item) if isinstance(item, dict) else item
                         for item in value]
        elif name == "ref" and isinstance(value, str):
            out["$ref"] = value.replace("#/defs/", "#/$defs/")
        elif name in _COUNTS and isinstance(value, str) and _INTEGER.fullmatch(value):
            out[name] = int(value)
        else:
            out[name if name in _SAME else key] = value
    _numeric_enum(out)
    if nullable:
        _add_null(out)
    return out


def _add_null(schema: dict[str, Any]) -> None:
    """``nullable: true``: the type, or the choices, admit ``null`` (an untyped
    schema admits it already), and so does an enum."""
    if isinstance(schema.get("type"), str):
        schema["type"] = [schema["type"], "null"]
    elif isinstance(schema.get("anyOf"), list):
        schema["anyOf"] = [*schema["anyOf"], _NULL]
    if isinstance(schema.get("enum"), list) and None not in schema["enum"]:
        schema["enum"] = [*schema["enum"], None]


def _numeric_enum(schema: dict[str, Any]) -> None:
    """An integer or number enum's values as numbers (Gemini writes them as
    strings: ``{type: INTEGER, format: enum, enum: ["101", "201"]}``)."""
    kind, values = schema.get("type"), schema.get("enum")
    if kind not in _NUMERIC or not isinstance(values, list):
        return
    pattern = _INTEGER if kind == "integer" else _NUMBER
    if all(isinstance(value, str) and pattern.fullmatch(value) for value in values):
        schema["enum"] = [int(value) if _INTEGER.fullmatch(value) else float(value)
                          for value in values]


def to_openapi(schema: dict[str, Any]) -> dict[str, Any] | None:
    """``schema`` (JSON Schema) as a Gemini ``Schema`` object; ``None`` when it
    says something that object has no field for (a ``$ref``, ``oneOf``,
    ``additionalProperties``, ``const``, several types...)."""
    out: dict[str, Any] = {}
    nullable = False
    for key, value in schema.items():
        converted: Any = _UNSAID
        if key == "type":
            kind = _type_word(value)
            if kind is not None:
                converted, admits_null = kind
                nullable = nullable or admits_null
        elif key == "items" and isinstance(value, dict):
            converted = _or_unsaid(to_openapi(value))
        elif key == "properties" and isinstance(value, dict):
            properties = _schemas(list(value.values()))
            if properties is not None:
                converted = dict(zip(value, properties, strict=True))
        elif key == "anyOf" and isinstance(value, list):
            choices = _schemas([item for item in value if item != _NULL])
            if choices is not None:
                converted, nullable = choices, nullable or _NULL in value
        elif key == "examples" and isinstance(value, list) and len(value) == 1:
            key, converted = "example", value[0]
        elif key == "enum" and isinstance(value, list) and all(
                isinstance(item, str) or _is_number(item) or item is None for item in value):
            converted = [item if isinstance(item, str) else str(item)
                         for item in value if item is not None]
            nullable = nullable or None in value
        elif key in _SAME:
            converted = value
        if converted is _UNSAID:
            return None
        out[key] = converted
    if nullable:
        out["nullable"] = True
    return out


# What :func:`to_openapi` finds no Schema field for.
_UNSAID = object()


def _or_unsaid(schema: dict[str, Any] | None) -> Any:
    return _UNSAID if schema is None else schema


def _schemas(items: list[Any]) -> list[dict[str, Any]] | None:
    """Each of ``items`` as a Schema object (``None``: one has no such form)."""
    out: list[dict[str, Any]] = []
    for item in items:
        converted = to_openapi(item) if isinstance(item, dict) else None
        if converted is None:
            return None
        out.append(converted)
    return out


def _type_word(value: Any) -> tuple[str, bool] | None:
    """A JSON Schema ``type`` as Gemini's type word and whether it admits null."""
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not names or not all(
            isinstance(name, str) for name in names):
        return None
    kinds = [name for name in names if name != "null"]
    if len(kinds) > 1:
        return None
    return (kinds[0].upper(), len(kinds) < len(names)) if kinds else ("NULL", False)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def schema_as(field: str, schema: dict[str, Any],
              metadata: Mapping[str, Any]) -> tuple[str, Any]:
    """The field and value that say ``schema`` (JSON Schema) where a body read
    it from ``field``: an OpenAPI field (``parameters``, ``responseSchema``)
    gets the body's own schema while ``schema`` still stands for it, else
    ``schema`` converted; a schema with no OpenAPI form goes to the JSON Schema
    field beside it. A JSON Schema field gets ``schema`` as it is."""
    if field not in _JSON_SCHEMA_FIELD:
        return field, schema
    given = metadata.get(OPENAPI_SCHEMA)
    if isinstance(given, dict) and from_openapi(given) == schema:
        return field, given
    converted = to_openapi(schema)
    return (field, converted) if converted is not None else (_JSON_SCHEMA_FIELD[field], schema)


def read_schema(field: str, schema: dict[str, Any], metadata: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema a body's schema under ``field`` stands for: an OpenAPI
    one converted (kept in ``metadata`` when converting back would not give it
    exactly), a JSON Schema one as it is."""
    if field not in _JSON_SCHEMA_FIELD:
        return schema
    read = from_openapi(schema)
    if to_openapi(read) != schema:
        metadata[OPENAPI_SCHEMA] = schema
    return read
