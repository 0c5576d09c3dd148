"""Newline-delimited JSON (NDJSON / JSON Lines), both directions: an incremental,
sans-IO splitter (:class:`NDJSONDecoder`) and the line writer (:func:`ndjson_line`).

Ollama's native ``/api/chat`` and ``/api/generate`` stream one JSON object per line,
and some providers (e.g. Gemini) answer errors with a raw JSON body instead of SSE.
This module only finds the line boundaries; it never parses JSON, so the caller can
hand each line to whatever decoder it prefers (``msgspec.json.decode`` takes
``bytes`` directly, which is why lines stay ``bytes`` here).

Only LF ends a line; a CR just before it is removed (CRLF framing), and lines that
are empty or whitespace-only are skipped because JSON decoders reject them and
servers emit them as keep-alives. A UTF-8 byte order mark at the start of the
stream is removed, as the SSE decoder does, wherever the chunks split it.

Writing: one compact JSON value (:func:`~streamkit.framing.encoding.json_bytes`,
which escapes every line break, U+2028, U+2029 and U+0085 included) and LF.
"""

from __future__ import annotations

from typing import Any

from ..model.errors import LimitExceeded
from .encoding import encode, escape_line_separators, with_lone_surrogates

__all__ = ["NDJSONDecoder", "ndjson_line"]

_CR = 13
_BOM = b"\xef\xbb\xbf"


class NDJSONDecoder:
    """Split an NDJSON byte stream into complete lines, chunk by chunk.

    ``max_line_bytes`` bounds memory: a line (counted without its LF, with a CR
    before it) longer than this raises :class:`~streamkit.model.errors.LimitExceeded`.
    An unterminated line is refused *before* it is buffered, so an endless line costs
    at most ``max_line_bytes`` of memory, and the outcome does not depend on how the
    input was chunked. Lines completed earlier in the same chunk are returned first
    and the error is raised by the next call, so nothing received is lost.
    """

    __slots__ = ("_buf", "_error", "_received", "_start", "max_line_bytes")

    def __init__(self, max_line_bytes: int = 16 * 1024 * 1024) -> None:
        if max_line_bytes < 1:
            raise ValueError("max_line_bytes must be positive")
        self.max_line_bytes = max_line_bytes
        self._buf = bytearray()  # the incomplete trailing line
        self._received = 0
        self._error: LimitExceeded | None = None
        self._start = True  # first line not yet complete: it may carry the BOM

    @property
    def bytes_received(self) -> int:
        """Total number of bytes passed to :meth:`feed` (the stream offset of its end)."""
        return self._received

    @property
    def bytes_consumed(self) -> int:
        """Stream offset up to which input has been split into complete lines."""
        return self._received - len(self._buf)

    def feed(self, chunk: bytes) -> list[bytes]:
        """Consume one chunk; return the complete, non-blank lines it finished."""
        if self._error is not None:
            raise self._error
        if not chunk:
            return []
        self._received += len(chunk)
        buf = self._buf
        limit = self.max_line_bytes
        # If the buffered line plus the whole chunk fit, no line here can be too long.
        check = len(buf) + len(chunk) > limit
        lines = chunk.split(b"\n")
        tail = lines.pop()
        if not lines:
            if check and len(buf) + len(tail) > limit:
                self._error = self._overflow(len(buf) + len(tail))
                raise self._error
            buf += tail
            return []
        # A CR may sit in the chunk or end the buffered line (CRLF split in two).
        plain = _CR not in chunk
        if buf:
            plain = plain and buf[-1] != _CR
            lines[0] = b"".join((buf, lines[0]))
            buf.clear()
        if self._start:
            self._start = False
            lines[0] = lines[0].removeprefix(_BOM)
        if plain and not check:
            # Hot path: JSON lines start with "{", so isspace() stops at once.
            out = [line for line in lines if line and not line.isspace()]
        else:
            out = []
            try:
                for line in lines:
                    if check and len(line) > limit:
                        raise self._overflow(len(line))
                    if line[-1:] == b"\r":
                        line = line[:-1]
                    if line and not line.isspace():
                        out.append(line)
                if check and len(tail) > limit:
                    raise self._overflow(len(tail))
            except LimitExceeded as exc:
                self._error = exc
                if not out:
                    raise
                return out
        if tail:
            buf += tail
        return out

    def flush(self) -> list[bytes]:
        """Signal end of input; return the last line if it had no line end.

        Afterwards the decoder is empty and can take a new stream.
        """
        if self._error is not None:
            raise self._error
        start, self._start = self._start, True
        if not self._buf:
            return []
        line = bytes(self._buf)
        self._buf.clear()
        if start:
            line = line.removeprefix(_BOM)
        if line[-1:] == b"\r":
            line = line[:-1]
        return [line] if line and not line.isspace() else []

    def _overflow(self, observed: int) -> LimitExceeded:
        """Build the error for a line that grew past ``max_line_bytes``."""
        return LimitExceeded(
            f"NDJSON line exceeds max_line_bytes={self.max_line_bytes} "
            f"(reached {observed} bytes near stream offset {self._received})",
            limit="max_line_bytes",
            value=self.max_line_bytes,
            observed=observed,
        )


def ndjson_line(value: Any) -> bytes:
    """One JSON line: ``value`` by the one JSON rule, then LF."""
    try:  # json_bytes, spelt out (see streamkit.framing.encoding)
        body = encode(value)
    except UnicodeEncodeError:
        body = with_lone_surrogates(value)
    return (body if body.isascii() else escape_line_separators(body)) + b"\n"
