"""Append-only buffers: amortised O(1) appends, joined only when read.

A streamed response grows by thousands of small fragments. Concatenating on
every fragment (``text += delta``) or re-encoding a base64 string per audio
chunk makes a stream quadratic; these buffers keep fragments in a list (or a
``bytearray``) and produce the joined value lazily.

Reading after every append is a common UI pattern, so :meth:`TextBuffer.read`
grows the cached string in place where CPython allows it (the cached ``str``
is not referenced elsewhere): reading the text after each delta then stays
linear in practice instead of copying the whole text each time.
"""

from __future__ import annotations

import base64
from collections.abc import Callable


class TextBuffer:
    """An append-only string: fragments are listed, then joined (and cached) on read.

    ``append`` is the fragment list's own (C-level) ``append``, bound once: adding
    a fragment runs no Python code, which matters at one call per streamed token.
    """

    __slots__ = ("_joined", "_pending", "append")

    def __init__(self, initial: str = "") -> None:
        self._joined = initial
        self._pending: list[str] = []
        #: Add a fragment at the end; O(1). (Empty fragments are harmless.)
        self.append: Callable[[str], None] = self._pending.append

    def replace(self, value: str) -> None:
        """Set the whole value (used for authoritative snapshots)."""
        self._joined = value
        self._pending.clear()

    def read(self) -> str:
        """The whole text; joins only the fragments added since the last read."""
        pending = self._pending
        if pending:
            text = self._joined
            self._joined = ""  # drop our reference so CPython may grow `text` in place
            if len(pending) == 1:
                text += pending[0]
            else:
                text += "".join(pending)
            pending.clear()  # the same list: `append` stays bound to it
            self._joined = text
        return self._joined

    def __bool__(self) -> bool:
        return bool(self._joined) or any(self._pending)


class BytesBuffer:
    """An append-only byte string in a ``bytearray``; base64 only on request."""

    __slots__ = ("_b64", "_buf", "_bytes")

    def __init__(self, initial: bytes = b"") -> None:
        self._buf = bytearray(initial)
        self._bytes: bytes | None = None
        self._b64: str | None = None

    def append(self, data: bytes) -> None:
        """Add ``data`` at the end; amortised O(len(data))."""
        if data:
            self._buf += data
            self._bytes = None
            self._b64 = None

    def replace(self, data: bytes) -> None:
        """Set the whole content."""
        self._buf = bytearray(data)
        self._bytes = None
        self._b64 = None

    def read(self) -> bytes:
        """The whole content as ``bytes`` (cached until the next append)."""
        if self._bytes is None:
            self._bytes = bytes(self._buf)
        return self._bytes

    def read_base64(self) -> str:
        """The whole content base64-encoded (cached until the next append)."""
        if self._b64 is None:
            self._b64 = base64.b64encode(self._buf).decode("ascii")
        return self._b64

    def __len__(self) -> int:
        return len(self._buf)
