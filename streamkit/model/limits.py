"""The limits that keep hostile input bounded, in one place.

Each is documented in the README ("Limits") with what exceeding it does; every
one of them ends in a typed :class:`~streamkit.model.errors.StreamError` (never
another exception) with the partial response kept, or, for a value read after
the stream (tool arguments), in the documented error of that reader.

The error message cap (4,096 characters) is :data:`MAX_ERROR_MESSAGE_CHARS`,
next to the one function that applies it, :func:`bounded_message`.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

#: The deepest JSON nesting a payload or tool-argument text may have. Real
#: payloads nest a few levels (11 at most in every recording here); a hostile
#: one would otherwise hit Python's recursion limit: not in the decoder only,
#: but wherever the value goes later. ``copy.deepcopy`` (the accumulator copies
#: the metadata it keeps, ``Block.copy()`` a block's) takes two Python frames a
#: level out of the 1,000 the whole call stack shares, so 512 levels failed
#: inside the accumulator; 128 (serde_json's default limit) leaves room for a
#: deep caller. A deeper payload raises ``ProtocolError``; deeper tool
#: arguments raise ``ToolArgumentsError`` from ``arguments()``.
MAX_JSON_DEPTH = 128

#: Default ``max_event_bytes``: one SSE event (its data lines together) or one
#: JSON line, including a JSON document spread over several lines. Exceeding
#: it raises ``LimitExceeded(limit="max_event_bytes")``.
DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024

#: Default ``max_total_bytes``: the whole body of one stream. Exceeding it
#: raises ``LimitExceeded(limit="max_total_bytes")``.
DEFAULT_MAX_TOTAL_BYTES = 1024 * 1024 * 1024

#: The most of an HTTP error response's body that is read (an error status, or
#: JSON / HTML where a stream was expected): the rest is never read, so an
#: endless error body costs at most this much memory. The provider's message
#: and type are still taken from a body cut here (see ``stream.py``).
MAX_ERROR_BODY_BYTES = 1024 * 1024

# Strings (where brackets mean nothing) and the brackets outside them. The
# string pattern is unrolled (runs of plain bytes, then one escape): the same
# matches as "(?:[^"\\]|\\.)*"? at five times the speed.
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"?', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_BRACKET_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def json_depth(data: bytes | str) -> int:
    """The deepest bracket nesting of a JSON text (brackets inside strings do not
    count). C-level passes only: the strings are cut out by a regex, every byte
    but a bracket deleted, and the running depth's maximum taken."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    brackets = _JSON_STRING.sub(b"", raw).translate(None, _NOT_BRACKETS)
    if not brackets:
        return 0
    return max(itertools.accumulate(map(_BRACKET_STEP.__getitem__, brackets)))


def too_deep(data: bytes | str, limit: int = MAX_JSON_DEPTH) -> int | None:
    """The nesting depth of ``data`` when it is deeper than ``limit``, else ``None``.
    Counting the opening brackets is one C-level pass; only a text with more of
    them than the limit is measured."""
    if isinstance(data, str):
        opening = data.count("[") + data.count("{")
    else:
        opening = data.count(b"[") + data.count(b"{")
    if opening <= limit:
        return None
    depth = json_depth(data)
    return depth if depth > limit else None


def nested_deeper_than(value: Any, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether a value made of dicts and lists (a body about to be encoded)
    nests deeper than ``limit``, as its JSON would. One pass over its
    containers, no string read: a large body of text costs what its structure
    costs, not what encoding it and scanning the bytes would."""
    stack: list[tuple[Any, int]] = [(value, 1)] if isinstance(value, dict | list | tuple) else []
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        for child in node.values() if isinstance(node, dict) else node:
            if isinstance(child, dict | list | tuple):
                stack.append((child, depth + 1))
    return False


#: The longest message, code or type an error keeps from a provider: a hostile
#: or runaway message cannot make ``str(error)`` (or a log line) unbounded.
MAX_ERROR_MESSAGE_CHARS = 4096


def bounded_message(message: str) -> str:
    """``message`` cut to :data:`MAX_ERROR_MESSAGE_CHARS`, saying how much was cut."""
    if len(message) <= MAX_ERROR_MESSAGE_CHARS:
        return message
    more = len(message) - MAX_ERROR_MESSAGE_CHARS
    return f"{message[:MAX_ERROR_MESSAGE_CHARS]}... [{more} more characters]"


def shorten(text: str, limit: int = 300) -> str:
    """``text`` cut to ``limit`` characters (``...`` ending the cut): what a repr
    or an error message quotes of a value that came from the wire (a media
    type, a tool name, a reason), so it stays one readable line."""
    return text if len(text) <= limit else text[: limit - 3] + "..."
