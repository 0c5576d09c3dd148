"""JSON text from path updates: Vertex ``partialArgs`` turned back into streamed arguments.

Vertex's ``streamFunctionCallArguments`` sends a call's arguments not as text
but as ``{jsonPath, stringValue | numberValue | boolValue | nullValue,
willContinue}`` updates. Streamkit's model is "arguments are streamed text"
(:attr:`~streamkit.model.blocks.ToolCallBlock.input`), so
:class:`JSONPathBuilder` writes the updates back as append-only JSON text, the
reverse of :class:`~streamkit.model.partial_json.PartialJSON`, which reads such
text into a value. :func:`parse_json_path` splits the simple JSONPaths the
updates name.
"""

from __future__ import annotations

import json
import re
from typing import Final

from .partial_json import Path

__all__ = ["JSONPathBuilder", "JSONPathValue", "parse_json_path"]

JSONPathValue = str | int | float | bool | None
"""A scalar value carried by one :class:`JSONPathBuilder` update."""

_PATH_STEP: Final = re.compile(
    r"""\.(?P<name>[^.\[\]]+)"""
    r"""|\[(?P<index>[0-9]+)\]"""
    r"""|\['(?P<sq>(?:[^'\\]|\\.)*)'\]"""
    r"""|\["(?P<dq>(?:[^"\\]|\\.)*)"\]"""
)
_UNESCAPE: Final = re.compile(r"\\(.)")


def parse_json_path(json_path: str) -> Path:
    """Split a simple JSONPath (``$.a.b[0]``, ``$['a.b']``) into keys and indexes."""
    if not json_path.startswith("$"):
        raise ValueError(f"JSONPath must start with '$': {json_path!r}")
    parts: list[str | int] = []
    pos = 1
    while pos < len(json_path):
        m = _PATH_STEP.match(json_path, pos)
        if m is None:
            raise ValueError(f"unsupported JSONPath syntax at {pos}: {json_path!r}")
        if m["name"] is not None:
            parts.append(m["name"])
        elif m["index"] is not None:
            parts.append(int(m["index"]))
        else:
            quoted = m["sq"] if m["sq"] is not None else m["dq"]
            parts.append(_UNESCAPE.sub(r"\1", quoted))
        pos = m.end()
    return tuple(parts)


class _Frame:
    """An open container in :class:`JSONPathBuilder`'s output."""

    __slots__ = ("count", "is_object", "keys", "name")

    def __init__(self, is_object: bool, name: str | int | None) -> None:
        self.is_object = is_object
        self.name = name  # key or index in the parent; None for the root
        self.count = 0  # members written so far
        self.keys: set[str] = set()


def _escape(piece: str) -> str:
    """JSON-escape a string piece without the surrounding quotes."""
    return json.dumps(piece, ensure_ascii=False)[1:-1]


class JSONPathBuilder:
    """Assemble arguments JSON text from Gemini / Vertex ``partialArgs`` updates.

    Vertex ``streamFunctionCallArguments`` sends arguments not as text but as
    ``{jsonPath, stringValue | numberValue | boolValue | nullValue,
    willContinue}`` updates; a string may arrive in several pieces for the same
    path.  Streamkit's model is "arguments are streamed text", so this class
    turns the updates back into append-only JSON text deltas: ``update`` and
    ``close`` each return the fragment to append, and the concatenation of all
    fragments is valid JSON (``{}`` if there were no updates).

    Updates must arrive in document order: once the builder has left a
    container (by writing a path outside it) it cannot go back into it, and
    array indexes must be consecutive from 0.  A violation raises ValueError
    rather than producing invalid JSON.  An empty object or array value cannot
    be expressed by these updates and so never appears.
    """

    __slots__ = ("_closed", "_frames", "_parts", "_string_path")

    def __init__(self) -> None:
        self._frames: list[_Frame] = []  # open containers, root first
        self._string_path: Path | None = None  # path of a string still continuing
        self._parts: list[str] = []
        self._closed = False

    @property
    def text(self) -> str:
        """All text emitted so far."""
        return "".join(self._parts)

    def update(self, json_path: str, value: JSONPathValue, string_continues: bool = False) -> str:
        """Apply one update and return the JSON text to append.

        ``string_continues`` (Vertex ``willContinue``) says more pieces of the
        string ``value`` at the same path follow; the string is left open until
        an update for that path arrives without it (a different path closes it
        too).
        """
        if self._closed:
            raise ValueError("update() after close()")
        path = parse_json_path(json_path)
        if not path:
            raise ValueError("a partialArgs path must name a member of the arguments object")
        if string_continues and not isinstance(value, str):
            raise ValueError("only string values can continue")
        out: list[str] = []
        if self._string_path is not None:
            if path == self._string_path:
                if not isinstance(value, str):
                    raise ValueError(f"non-string piece for the open string at {json_path}")
                out.append(_escape(value))
                if not string_continues:
                    out.append('"')
                    self._string_path = None
                return self._emit(out)
            out.append('"')
            self._string_path = None
        frames = self._frames
        if not frames:
            if self._parts:
                raise ValueError("the arguments object was already closed")
            frames.append(_Frame(isinstance(path[0], str), None))
            out.append("{" if frames[0].is_object else "[")
        parent = path[:-1]
        common = 0
        while (
            common < len(parent)
            and common + 1 < len(frames)
            and frames[common + 1].name == parent[common]
        ):
            common += 1
        while len(frames) > common + 1:
            out.append("}" if frames.pop().is_object else "]")
        for depth in range(common, len(parent)):
            self._enter(frames[-1], parent[depth], json_path, out)
            child = _Frame(isinstance(path[depth + 1], str), parent[depth])
            frames.append(child)
            out.append("{" if child.is_object else "[")
        self._enter(frames[-1], path[-1], json_path, out)
        if isinstance(value, str):
            out.append('"')
            out.append(_escape(value))
            if string_continues:
                self._string_path = path
            else:
                out.append('"')
        else:
            out.append(json.dumps(value, allow_nan=False))
        return self._emit(out)

    def close(self) -> str:
        """Close the open string and containers; return the final text to append."""
        if self._closed:
            return ""
        self._closed = True
        out: list[str] = []
        if self._string_path is not None:
            out.append('"')
            self._string_path = None
        if not self._frames and not self._parts:
            out.append("{}")
        while self._frames:
            out.append("}" if self._frames.pop().is_object else "]")
        return self._emit(out)

    @staticmethod
    def _enter(frame: _Frame, name: str | int, json_path: str, out: list[str]) -> None:
        """Write the separator and key for a new member ``name`` of ``frame``."""
        if frame.is_object:
            if not isinstance(name, str):
                raise ValueError(f"{json_path}: index into an object")
            if name in frame.keys:
                raise ValueError(f"{json_path}: goes back into an already written member")
            frame.keys.add(name)
            if frame.count:
                out.append(",")
            out.append(_escape_key(name))
        else:
            if not isinstance(name, int):
                raise ValueError(f"{json_path}: key into an array")
            if name != frame.count:
                raise ValueError(f"{json_path}: array index {name}, expected {frame.count}")
            if frame.count:
                out.append(",")
        frame.count += 1

    def _emit(self, out: list[str]) -> str:
        text = "".join(out)
        if text:
            self._parts.append(text)
        return text


def _escape_key(name: str) -> str:
    return json.dumps(name, ensure_ascii=False) + ":"
