"""camelCase or snake_case: the two names of every Gemini request field, and
how the spelling a body chose is kept.

The Gemini API (AI Studio and Vertex AI) parses request JSON with protobuf's
JSON parser, which takes a field under its JSON name (``thoughtSignature``)
or under its proto name (``thought_signature``). Real bodies use both, often in
one request: the google-genai SDK turns the objects it converts into
camelCase and dumps the ones it passes through with pydantic's snake_case
names, so a recorded AI Studio turn 1 says ``functionDeclarations`` around a
``parameters_json_schema`` and ``thinkingConfig`` around ``include_thoughts``,
and a Vertex history says ``function_call`` / ``thought_signature`` inside
camelCase ``contents`` (see the conversations' MANIFEST).

The rule, the same everywhere: streamkit reads a field under either name and
holds it under one (the camelCase one); what it holds it in records, under
:data:`SNAKE_CASE`, the dotted camelCase paths of the fields the body spelled
in snake_case, relative to the wire object it was read from (a part for a
block, a function declaration for a :class:`~streamkit.conversation.tools.Tool`, the body
for ``Request.options``). Writing spells exactly those fields in snake_case,
and every other field in camelCase, the spelling of the API reference. A
spelling is data about one key, so mixed bodies come back exactly, and a body
built from scratch is all camelCase. Fields streamkit does not read are kept
under their own key, spelling included, so they need no record.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["SNAKE_CASE", "Spelling", "camel", "pop_object", "put_field", "snake"]

#: Metadata (and ``Request.options``) key: the camelCase paths of the fields the
#: body spelled in snake_case. streamkit's own record, never sent as a field.
SNAKE_CASE = "snake_case"

_UPPER = re.compile(r"(?<!^)([A-Z])")
_UNDERSCORED = re.compile(r"_([a-z0-9])")


@functools.lru_cache(maxsize=512)  # a few dozen field names, looked up at every part
def snake(name: str) -> str:
    """``thoughtSignature`` -> ``thought_signature`` (a proto field name)."""
    return _UPPER.sub(r"_\1", name).lower()


@functools.lru_cache(maxsize=512)
def camel(name: str) -> str:
    """``thought_signature`` -> ``thoughtSignature`` (the JSON name)."""
    return _UNDERSCORED.sub(lambda match: match.group(1).upper(), name)


class Spelling:
    """Which read fields of one wire object the body spelled in snake_case."""

    __slots__ = ("paths",)

    def __init__(self, paths: Iterable[str] = ()) -> None:
        self.paths = set(paths)

    @classmethod
    def of(cls, metadata: Mapping[str, Any]) -> Spelling:
        """The spelling recorded in ``metadata`` (none: all camelCase)."""
        recorded = metadata.get(SNAKE_CASE)
        return cls(path for path in recorded or () if isinstance(path, str))

    def find(self, wire: dict[str, Any], name: str, path: str | None = None) -> str | None:
        """The key under which ``wire`` holds the field ``name`` (camelCase
        first; ``None``: under neither name); a snake_case one is recorded at
        ``path`` (default: ``name``)."""
        if name in wire:
            return name
        proto = snake(name)
        if proto != name and proto in wire:
            self.paths.add(path or name)
            return proto
        return None

    def key(self, name: str, path: str | None = None) -> str:
        """The key to write the field ``name`` (at ``path``) under."""
        return snake(name) if (path or name) in self.paths else name

    def record(self) -> list[str]:
        """The record to keep under :data:`SNAKE_CASE` (sorted: data, not history)."""
        return sorted(self.paths)


def put_field(target: dict[str, Any], key: str, value: Any) -> None:
    """Set a field; the same field given twice (in either spelling) with
    different values is an error, with equal values written once."""
    given = [k for k in dict.fromkeys((key, camel(key), snake(key))) if k in target]
    for existing in given:
        if target[existing] != value:
            raise ValueError(f"{camel(key)!r} is given twice, as {target[existing]!r} "
                             f"and as {value!r}")
    if not given:
        target[key] = value


def pop_object(options: dict[str, Any], name: str) -> dict[str, Any] | None:
    """A wire object given as an option (``generationConfig={...}``): the base
    the built fields are added to."""
    for key in dict.fromkeys((name, snake(name))):
        if isinstance(options.get(key), dict):
            return dict(options.pop(key))
    return None
