"""OpenAI's strict mode for JSON schemas, and reading the arguments it makes a model send.

Strict mode (Structured Outputs, for ``response_format`` and for function tools
with ``"strict": true``) takes a subset of JSON Schema:

- every object has ``"additionalProperties": false`` and lists every property
  in ``"required"`` (API error: "'required' is required to be supplied and to
  be an array including every key in properties"); an optional property is
  emulated by allowing null ("To emulate an optional parameter, use a union
  type with null");
- every node has a ``"type"`` (or ``anyOf`` / ``$ref``): "schema must have a
  'type' key";
- the root is an object, not ``anyOf``; ``"$ref"`` takes no sibling keywords
  (the openai SDK's own ``to_strict_json_schema`` unrolls such refs);
  ``"default"`` is refused (the API rejects it); ``oneOf`` is not supported,
  ``anyOf`` is;
- some keywords are not supported and are moved into the description, as
  pydantic-ai's ``OpenAIJsonSchemaTransformer`` does (``profiles/openai.py``).

:func:`strict_schema` makes any schema follow these rules (a tool's
parameters, the structured-output schema of
:class:`~streamkit.conversation.request.JsonSchemaOutput`). A model then sends every
property, ``null`` for an optional one it leaves out:
:func:`drop_optional_nulls` takes those away again before the arguments are
validated against the function's own (non-strict) schema.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

from ..model.errors import StreamkitError

__all__ = ["StrictSchemaError", "accepts_null", "drop_optional_nulls", "strict_schema"]

#: Keywords strict mode does not support: moved into the description.
_STRICT_UNSUPPORTED = ("minLength", "maxLength", "patternProperties", "unevaluatedProperties",
                       "propertyNames", "minProperties", "maxProperties", "unevaluatedItems",
                       "contains", "minContains", "maxContains", "uniqueItems")
_STRICT_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname",
                             "ipv4", "ipv6", "uuid"})
_DROPPED = ("$schema", "discriminator")
_JSON_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string",
               type(None): "null", list: "array", dict: "object"}


class StrictSchemaError(StreamkitError, ValueError):
    """A schema strict mode cannot express: ``path`` is where in the schema,
    ``reason`` why. A ``ValueError``, as :func:`strict_schema` always raised."""

    def __init__(self, path: tuple[str, ...], reason: str) -> None:
        super().__init__(reason)
        self.path = path
        self.reason = reason

    def describe(self, *, parameter: bool = False) -> str:
        if parameter and len(self.path) >= 2 and self.path[0] == "properties":
            return f"parameter {self.path[1]!r}: {self.reason} (at {'/'.join(self.path[2:])})" \
                if len(self.path) > 2 else f"parameter {self.path[1]!r}: {self.reason}"
        return f"{self.reason} (at /{'/'.join(self.path)})"

    def __str__(self) -> str:
        return self.describe()


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``schema`` that follows OpenAI's strict-mode rules (see the
    module docstring): every object closed and every property required, the
    optional ones made nullable (a model that sends ``null`` for one gets the
    default: :func:`drop_optional_nulls` takes such nulls away before the
    arguments are validated), refs valid, unsupported keywords moved into
    descriptions. Raises ``ValueError``
    (naming the path) for a schema strict mode cannot express.
    """
    out = copy.deepcopy(schema)
    defs = out.get("$defs")
    root_ref = out.get("$ref")
    if isinstance(root_ref, str) and isinstance(defs, dict):
        # a recursive model: its schema is a $ref into $defs; the root must be
        # the object itself (the definition stays, for the inner refs)
        target = _resolve(out, root_ref, ())
        del out["$ref"]
        out = {**copy.deepcopy(target), **out}
    if isinstance(defs, dict):
        for key, definition in defs.items():
            if isinstance(definition, dict):
                _strict(definition, ("$defs", key))
    _strict(out, ())
    if out.get("type") != "object":
        raise StrictSchemaError((), "the root must be an object schema")
    return out


def _strict(node: dict[str, Any], path: tuple[str, ...]) -> None:
    """Make one node (and what it contains) strict, in place."""
    for key in _DROPPED:
        node.pop(key, None)
    if "oneOf" in node:
        node["anyOf"] = node.pop("oneOf")
    all_of = node.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
        del node["allOf"]
        for key, value in all_of[0].items():
            node.setdefault(key, value)
    if "$ref" in node and len(node) > 1:
        node["anyOf"] = [{"$ref": node.pop("$ref")}, *node.pop("anyOf", [])]
    _strict_keywords(node)
    if "type" not in node and ("enum" in node or "const" in node):
        values = node.get("enum", [node.get("const")])
        types = sorted({_JSON_TYPES.get(type(value), "string") for value in values})
        node["type"] = types[0] if len(types) == 1 else types
    if not any(key in node for key in ("type", "anyOf", "$ref", "allOf")):
        raise StrictSchemaError(path, "strict mode needs a type here (OpenAI refuses a "
                                       "schema without 'type'); use a concrete type")
    for key in ("anyOf", "allOf"):
        for index, variant in enumerate(node.get(key) or ()):
            if isinstance(variant, dict):
                _strict(variant, (*path, key, str(index)))
    items = node.get("items")
    if isinstance(items, dict):
        _strict(items, (*path, "items"))
    elif isinstance(items, list):  # tuple form: prefixItems in 2020-12
        for index, item in enumerate(items):
            _strict(item, (*path, "items", str(index)))
    for index, item in enumerate(node.get("prefixItems") or ()):
        _strict(item, (*path, "prefixItems", str(index)))
    if node.get("type") == "object" or "properties" in node:
        _strict_object(node, path)


def _strict_keywords(node: dict[str, Any]) -> None:
    """``default`` and unsupported keywords out, noted in the description."""
    notes = []
    if "default" in node:
        default = node.pop("default")
        if default is not None:
            notes.append(f"default: {json.dumps(default)}")
    for key in _STRICT_UNSUPPORTED:
        if key in node:
            notes.append(f"{key}: {json.dumps(node.pop(key))}")
    if "format" in node and node["format"] not in _STRICT_FORMATS:
        notes.append(f"format: {node.pop('format')}")
    if notes:
        description = node.get("description")
        note = ", ".join(notes)
        node["description"] = f"{description} ({note})" if description else note.capitalize()


def _strict_object(node: dict[str, Any], path: tuple[str, ...]) -> None:
    if node.get("additionalProperties") not in (None, False):
        raise StrictSchemaError(path, "strict mode needs additionalProperties: false (a "
                                       "dict with free keys cannot be expressed)")
    properties = node.setdefault("properties", {})
    required = set(node.get("required") or ())
    for key, value in properties.items():
        if not isinstance(value, dict):
            raise StrictSchemaError((*path, "properties", key), "not a schema")
        _strict(value, (*path, "properties", key))
        if key not in required:
            properties[key] = _nullable(value)
    node["required"] = list(properties)
    node["additionalProperties"] = False


def _nullable(node: dict[str, Any]) -> dict[str, Any]:
    """``node`` that also accepts ``null`` (an optional property in strict mode)."""
    if accepts_null(node, {}):
        return node
    kind = node.get("type")
    if "enum" not in node and "const" not in node and isinstance(kind, (str, list)):
        node["type"] = [*kind, "null"] if isinstance(kind, list) else [kind, "null"]
        return node
    variants = node.get("anyOf")
    if isinstance(variants, list) and not any(key in node for key in ("type", "enum", "const")):
        variants.append({"type": "null"})  # already a union (a described $ref): one more
        return node
    outer: dict[str, Any] = {key: node.pop(key) for key in ("description", "title")
                             if key in node}
    return {**outer, "anyOf": [node, {"type": "null"}]}


def accepts_null(node: dict[str, Any], defs: dict[str, Any]) -> bool:
    kind = node.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if None in (node.get("enum") or ()) or ("const" in node and node["const"] is None):
        return True
    if "$ref" in node:
        target = defs.get(str(node["$ref"]).rsplit("/", 1)[-1])
        return isinstance(target, dict) and accepts_null(target, defs)
    if not any(key in node for key in ("type", "enum", "const", "anyOf", "oneOf", "allOf")):
        return True  # the empty schema: any value
    return any(isinstance(variant, dict) and accepts_null(variant, defs)
               for variant in (node.get("anyOf") or node.get("oneOf") or ()))


def _resolve(root: dict[str, Any], ref: str, path: tuple[str, ...]) -> dict[str, Any]:
    if not ref.startswith("#/"):
        raise StrictSchemaError(path, f"only local refs can be resolved, not {ref!r}")
    target: Any = root
    for part in ref[2:].split("/"):
        target = target.get(part) if isinstance(target, dict) else None
    if not isinstance(target, dict):
        raise StrictSchemaError(path, f"$ref {ref!r} points nowhere")
    return target


def drop_optional_nulls(value: Any, schema: dict[str, Any], defs: dict[str, Any]) -> None:
    """Remove, in place, each ``null`` the model sent for a property that may be
    left out but does not take ``null``: strict mode makes the model send every
    property, and ``null`` is how it says "the default"."""
    for node in _object_schemas(schema, defs, value):
        properties = node.get("properties") or {}
        required = set(node.get("required") or ())
        for key in list(value):
            sub = properties.get(key)
            if not isinstance(sub, dict):
                continue
            if value[key] is None and key not in required and not accepts_null(sub, defs):
                del value[key]
            else:
                drop_optional_nulls(value[key], sub, defs)
    if isinstance(value, list):
        items = _deref(schema, defs).get("items")
        if isinstance(items, dict):
            for item in value:
                drop_optional_nulls(item, items, defs)


def _object_schemas(schema: dict[str, Any], defs: dict[str, Any],
                    value: Any) -> Iterator[dict[str, Any]]:
    """The object schema ``value`` (a dict) is checked against: the schema, the
    definition it refers to, or its one object variant."""
    if not isinstance(value, dict):
        return
    node = _deref(schema, defs)
    if "properties" in node:
        yield node
        return
    variants = [_deref(variant, defs) for variant in node.get("anyOf") or ()
                if isinstance(variant, dict)]
    objects = [variant for variant in variants if "properties" in variant]
    if len(objects) == 1:
        yield objects[0]


def _deref(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = defs.get(ref.rsplit("/", 1)[-1])
        if isinstance(target, dict):
            return target
    return schema
