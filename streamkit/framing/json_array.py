"""A stream written as one JSON array: ``[``, the objects separated by a
separator, ``]`` once the stream is over.

It is the form Gemini's ``streamGenerateContent`` answers without ``alt=sse``
(its separator is ``,\\r\\n``). Each object is encoded by the one JSON rule
(:func:`~streamkit.framing.encoding.json_bytes`). A stream cut before its end
is left without its ``]``, as a cut response is.
"""

from __future__ import annotations

from typing import Any

from .encoding import json_bytes

__all__ = ["JSONArrayWriter"]


class JSONArrayWriter:
    """Writes one JSON array item by item (sans-IO: each call returns the
    bytes to send)."""

    __slots__ = ("_separator", "started")

    def __init__(self, separator: bytes = b",") -> None:
        if separator.strip() != b",":
            raise ValueError(f"an array's items are separated by a comma, not {separator!r}")
        self._separator = separator
        self.started = False
        """Whether the array's ``[`` was written."""

    def item(self, value: Any) -> bytes:
        """The next item, after the ``[`` or the separator before it."""
        head = self._separator if self.started else b"["
        self.started = True
        return head + json_bytes(value)

    def end(self) -> bytes:
        """The array's end (an array with no item is ``[]``)."""
        head = b"" if self.started else b"["
        self.started = True
        return head + b"]"
