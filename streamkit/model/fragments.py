"""Append-only buffers: amortised O(1) appends, joined only when read.

A streamed response grows by thousands of small fragments. Concatenating on
every fragment (``text += delta``) or re-encoding a base64 string per audio
chunk makes a stream quadratic; these buffers keep fragments in a list (or a
``bytearray``) and produce the joined value lazily.

Reading after every append is a common UI pattern. Two reads serve it:

- :meth:`TextBuffer.read_from` gives what was added since an offset, in time
  proportional to what it returns, whoever holds what was read before: the
  text is a rope (a head string and the pieces after it) that it slices.
- :meth:`TextBuffer.read` gives the whole text as one ``str``. It grows the
  cached string in place where CPython allows it (nothing else references the
  string): reading after each delta then costs the new characters. A ``str``
  cannot grow while the caller still holds the previous one, so then a read
  copies the text once (a memory copy, nothing re-joined); a caller that keeps
  what it read and reads after every delta should read the new part instead.

``len()`` joins only the fragments added since the last read: the pieces
are measured as they are sealed.
"""

from __future__ import annotations

import base64
import bisect
import sys
from collections.abc import Callable


class TextBuffer:
    """An append-only string: fragments are listed, then joined (and cached) on read.

    ``append`` is the fragment list's own (C-level) ``append``, bound once: adding
    a fragment runs no Python code, which matters at one call per streamed token.

    The text is ``head`` + the sealed ``pieces`` + the ``pending`` fragments.
    Sealing joins the pending fragments into one piece (so each fragment is
    joined once). The pieces fold into the head in place whenever nothing but
    this buffer holds the head; while a caller holds it, they pile up until
    they hold as much text as the head, and the fold then copies (each
    character a bounded number of times over the stream).
    """

    __slots__ = ("_ends", "_head", "_pending", "_pieces", "append")

    def __init__(self, initial: str = "") -> None:
        self._head = initial
        self._pieces: list[str] = []
        self._ends: list[int] = []  # where each piece ends in the whole text
        self._pending: list[str] = []
        #: Add a fragment at the end; O(1). (Empty fragments are harmless.)
        self.append: Callable[[str], None] = self._pending.append

    def replace(self, value: str) -> None:
        """Set the whole value (used for authoritative snapshots)."""
        self._head = value
        self._pieces.clear()
        self._ends.clear()
        self._pending.clear()

    def read(self) -> str:
        """The whole text; joins only what was added since the last read."""
        pending = self._pending
        if pending or self._pieces:
            text = self._head
            self._head = ""  # drop our reference so CPython may grow `text` in place
            if self._pieces:
                text += "".join(self._pieces)
                self._pieces.clear()
                self._ends.clear()
            if pending:
                text += pending[0] if len(pending) == 1 else "".join(pending)
                pending.clear()  # the same list: `append` stays bound to it
            self._head = text
        return self._head

    def read_from(self, start: int) -> str:
        """The text from character ``start`` on (``""`` at or past the end). Costs
        the characters returned (and a binary search), never a copy of what
        comes before ``start``, whoever holds the text read earlier."""
        pending = self._pending
        if pending and not self._pieces and start == len(self._head):
            # The common case (a reader up to date): the new text is the pending
            # fragments, added to the head in place when nothing else holds it.
            piece = pending[0] if len(pending) == 1 else "".join(pending)
            pending.clear()
            if sys.getrefcount(self._head) == 2:  # the attribute, the argument
                text = self._head
                self._head = ""
                text += piece
                self._head = text
            else:
                self._pieces.append(piece)
                self._ends.append(start + len(piece))
                self._compact()
            return piece
        return self._read_from(start)

    def _read_from(self, start: int) -> str:
        """:meth:`read_from` in general: seal, compact, then slice the head or
        find the piece ``start`` falls in."""
        pieces = self._pieces
        sealed = self._ends[-1] if pieces else len(self._head)
        pending = self._pending
        if pending:
            piece = pending[0] if len(pending) == 1 else "".join(pending)
            pending.clear()
            pieces.append(piece)
            self._ends.append(sealed + len(piece))
            if start == sealed:  # the reader is up to date: what is new is this piece
                self._compact()
                return piece
        self._compact()
        head = self._head
        if start < len(head):
            tail = head[max(start, 0):]
            return "".join([tail, *self._pieces]) if self._pieces else tail
        ends = self._ends
        at = bisect.bisect_right(ends, start)
        if at == len(ends):
            return ""
        first = self._pieces[at][start - (ends[at - 1] if at else len(head)):]
        return "".join([first, *self._pieces[at + 1:]]) if at + 1 < len(ends) else first

    def __len__(self) -> int:
        self.read_from(sys.maxsize)  # seals what is pending
        return self._ends[-1] if self._pieces else len(self._head)

    def _compact(self) -> None:
        """Fold the pieces into the head when that is cheap: nothing but this
        buffer holds the head (CPython grows it in place), or the pieces hold at
        least as much text as the head (the copy is paid for by the pieces, so
        each character is copied a bounded number of times)."""
        if self._pieces and (self._ends[-1] >= 2 * len(self._head)
                             or sys.getrefcount(self._head) == 2):  # the attribute, the argument
            self.read()

    def __bool__(self) -> bool:
        return bool(self._head) or any(self._pieces) or any(self._pending)


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
        """The whole content as ``bytes`` (cached until the next append): a copy
        of every byte after an append, as ``bytes`` are immutable."""
        if self._bytes is None:
            self._bytes = bytes(self._buf)
        return self._bytes

    def read_from(self, start: int) -> bytes:
        """The bytes from offset ``start`` on; costs the bytes returned."""
        with memoryview(self._buf) as view:  # released at once: the buffer may grow again
            return bytes(view[max(start, 0):])

    def read_base64(self) -> str:
        """The whole content base64-encoded (cached until the next append)."""
        if self._b64 is None:
            self._b64 = base64.b64encode(self._buf).decode("ascii")
        return self._b64

    def __len__(self) -> int:
        return len(self._buf)
