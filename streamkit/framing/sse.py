"""Server-Sent Events (``text/event-stream``), both directions: an incremental,
sans-IO decoder (:class:`SSEDecoder`) and the frame writer (:class:`SSEWriter`,
:func:`sse_event`) every SSE stream streamkit writes goes through.

Every streaming provider but Ollama frames its output as SSE, so this decoder sits on
the hot path of every token. It therefore works on raw ``bytes`` with C-level
operations (``split``/``splitlines``/``startswith``) over whole chunks instead of
per-character Python loops, and it decodes text only once per completed field.

It follows the WHATWG "event stream interpretation" rules
(https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation)
with one deliberate deviation: at end of input, :meth:`SSEDecoder.flush` still
delivers an event whose ``data`` lines were received but not followed by a blank
line, because real recordings (e.g. Anthropic's) end exactly like that and dropping
the final ``message_stop`` would turn a complete response into a truncated one.

Why bytes and not text: a multi-byte UTF-8 character may be split across network
chunks, and the only bytes that matter for framing (CR, LF, ``:`` and space) are
ASCII, which never occur inside a UTF-8 multi-byte sequence. Splitting bytes first
and decoding each completed field afterwards therefore gives exactly the result of
decoding the whole stream first, as the spec describes, without an incremental text
decoder in the loop.

Writing: an event is an optional ``event:`` line, its data on ``data:`` lines
(a JSON payload, encoded by :func:`~streamkit.framing.encoding.json_bytes`, is
always one line) and the blank line that ends it. Content can never forge a
frame: JSON escapes every line break inside its strings, and the writer refuses
an event name that holds one.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..model.errors import LimitExceeded
from .encoding import encode, escape_line_separators, with_lone_surrogates

__all__ = ["SSEDecoder", "SSEEvent", "SSEWriter", "sse_event"]

_BOM = b"\xef\xbb\xbf"
_LF = 10
_CR = 13
_COLON = 58


class SSEEvent(msgspec.Struct, frozen=True, gc=False):
    """One dispatched Server-Sent Event.

    A frozen ``msgspec.Struct`` without GC tracking: events are created at the rate
    tokens arrive, hold only strings and ints (no reference cycles), and are facts
    about the wire that nobody should edit after the fact.

    ``event`` is the event type (``"message"`` when the stream gave none or an empty
    one). ``data`` is the ``data`` lines joined with ``"\\n"``. ``id`` is the stream's
    last event ID at dispatch time; per spec it is sticky across events, and it is
    ``None`` until the stream has sent any ``id`` field (``""`` means the stream
    explicitly reset it). ``retry`` is the reconnection time in milliseconds if a
    valid ``retry`` field appeared in this event's block, else ``None``.
    """

    event: str = "message"
    data: str = ""
    id: str | None = None
    retry: int | None = None


class SSEDecoder:
    """Turn ``text/event-stream`` bytes into :class:`SSEEvent` objects, chunk by chunk.

    Sans-IO: feed it whatever the transport delivered with :meth:`feed` and call
    :meth:`flush` once at end of input. Results never depend on where the chunks were
    split (inside a CRLF pair, inside a UTF-8 character or inside the leading BOM).

    ``max_event_bytes`` bounds memory against a hostile or broken server: the bytes
    of the line being received plus the ``data`` already accumulated for the pending
    event may not exceed it, otherwise :class:`~streamkit.model.errors.LimitExceeded` is
    raised. Only sizes are tracked, and an unterminated line is refused *before* it
    is buffered, so an endless line costs at most ``max_event_bytes`` of memory. The
    check does not depend on how the input was chunked. When events were completed
    earlier in the same chunk, they are returned first and the error is raised by the
    next call to :meth:`feed` or :meth:`flush`, so nothing received is lost.

    Besides the events, the decoder exposes stream-level state: ``last_event_id``
    (what a client would send as ``Last-Event-ID`` on reconnect), ``retry`` (the
    latest reconnection time), ``comment_count`` / :attr:`last_comment` (keep-alive
    comments such as OpenRouter's ``: OPENROUTER PROCESSING``), and the offsets
    :attr:`bytes_received` and :attr:`bytes_consumed`.
    """

    __slots__ = (
        "_buf",
        "_cr",
        "_error",
        "_event",
        "_head",
        "_head_name",
        "_head_size",
        "_idle",
        "_last_comment",
        "_names",
        "_parts",
        "_received",
        "_retry",
        "_size",
        "_start",
        "comment_count",
        "last_event_id",
        "max_event_bytes",
        "retry",
    )

    def __init__(self, max_event_bytes: int = 16 * 1024 * 1024) -> None:
        if max_event_bytes < 1:
            raise ValueError("max_event_bytes must be positive")
        self.max_event_bytes = max_event_bytes
        #: Stream-level last event ID (sticky, per spec); ``None`` until one is seen.
        self.last_event_id: str | None = None
        #: Latest valid ``retry`` value in milliseconds (sticky), or ``None``.
        self.retry: int | None = None
        #: Number of comment lines (``:`` prefix) seen so far.
        self.comment_count = 0
        self._last_comment: bytes | None = None
        self._buf = bytearray()  # the incomplete trailing line
        self._cr = False  # previous chunk ended in CR: a leading LF is its other half
        self._start = True  # first line not yet complete: it may carry the BOM
        self._parts: list[bytes] = []  # data lines of the pending event
        self._size = 0  # sum(len(part) + 1) over _parts, for the limit
        self._event = "message"  # event type of the pending event
        self._retry: int | None = None  # retry seen in the pending event's block
        self._received = 0
        self._error: LimitExceeded | None = None
        self._names: dict[bytes, str] = {}  # b"event: NAME" line -> NAME
        self._head = b"data: "  # the last one-event read's lines before its data
        self._head_name = "message"  # and the event type they name
        self._head_size = len(self._head)
        # Nothing pending (no partial line, data, event type, retry, CR or error,
        # BOM checked): a read may then be one whole event, see :meth:`feed_one`.
        self._idle = False

    @property
    def bytes_received(self) -> int:
        """Total number of bytes passed to :meth:`feed` (the stream offset of its end)."""
        return self._received

    @property
    def bytes_consumed(self) -> int:
        """Stream offset up to which input has been parsed into complete lines.

        The difference to :attr:`bytes_received` is the unterminated trailing line
        still buffered. Every event returned so far ended at or before this offset,
        which is what the layers above can report when an event's payload is bad.
        """
        return self._received - len(self._buf)

    @property
    def last_comment(self) -> str | None:
        """Text of the most recent comment line (without the ``:``), or ``None``.

        Stored as bytes and decoded only on access, because keep-alive comments are
        frequent and rarely looked at.
        """
        raw = self._last_comment
        return None if raw is None else raw.decode("utf-8", "replace")

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        """Consume one chunk of the stream; return the events it completed, in order."""
        events: list[SSEEvent] = self._decode(chunk, False)
        return events

    def feed_payloads(self, chunk: bytes) -> list[tuple[str, bytes]]:
        """Like :meth:`feed`, but each completed event is just ``(event type, data
        bytes)``: no event object and no UTF-8 decode, for a consumer that hands
        the data straight to a JSON decoder (which reads bytes). Do not mix with
        :meth:`feed` on one decoder (:meth:`feed_one` is its shortcut for a
        read that is one event)."""
        payloads: list[tuple[str, bytes]] = self._decode(chunk, True)
        return payloads

    def feed_one(self, chunk: bytes) -> tuple[str, bytes] | None:
        """The live shape without the line loop: ``(event type, data)`` of a read
        that holds exactly one whole event, a ``data:`` line after at most an
        ``event:`` line, while nothing is pending (live OpenAI, Anthropic and
        Responses streams arrive one event per read, and the loop's set-up costs
        more than the event). Anything else (another field, a CR, a second event,
        a partial line, a size near the limit) returns ``None`` and consumes
        nothing: :meth:`feed_payloads` then gives the same payload."""
        if not self._idle or _CR in chunk:
            return None
        # Consecutive reads mostly repeat one head (``event: NAME\ndata: `` or just
        # ``data: ``): a ``startswith`` on the cached head replaces finding, checking,
        # slicing and looking up the event line on every read.
        if chunk.startswith(self._head):
            data_start = self._head_size
            name = self._head_name
        else:
            first_end = chunk.find(b"\n")
            data_start = first_end + 1 if chunk.startswith(b"event: ") else 0
            if not chunk.startswith(b"data: ", data_start):
                return None
            if data_start:
                line = chunk[:first_end]
                name = self._names.get(line) or self._event_name(line)
            else:
                name = "message"
            data_start += 6
            self._head, self._head_name, self._head_size = chunk[:data_start], name, data_start
        # One event and nothing after it: the data line's LF is the last but one
        # byte and the last is LF too (cheaper than ``endswith``).
        size = len(chunk)
        data_end = chunk.find(b"\n", data_start)
        if data_end != size - 2 or chunk[-1] != _LF or size > self.max_event_bytes:
            return None
        self._received += size
        return name, chunk[data_start:data_end]

    def _decode(self, chunk: bytes, raw: bool) -> list[Any]:
        """The line loop behind :meth:`feed` and :meth:`feed_payloads`."""
        if self._error is not None:
            raise self._error
        if not chunk:
            return []
        self._idle = False  # until this chunk is read without error
        self._received += len(chunk)
        if self._cr:
            # A CR ended the previous chunk; if this one starts with LF the pair is a
            # single CRLF line end whose line was already processed.
            self._cr = False
            if chunk[0] == _LF:
                chunk = chunk[1:]
                if not chunk:
                    return []
        buf = self._buf
        limit = self.max_event_bytes
        # If even the whole chunk, the buffered line and the pending data fit, no
        # line in this chunk can break the limit: skip the per-line checks.
        check = self._size + len(buf) + len(chunk) > limit
        if _CR in chunk:  # int membership is a memchr; ``b"\r" in`` is much slower
            lines = chunk.splitlines()  # bytes split on CR, LF and CRLF only
            last = chunk[-1]
            if last == _CR:
                self._cr = True
                tail = b""
            elif last == _LF:
                tail = b""
            else:
                tail = lines.pop()
        else:
            lines = chunk.split(b"\n")
            tail = lines.pop()
        if not lines:
            # No line end in this chunk: refuse before buffering, not after.
            if check and self._size + len(buf) + len(tail) > limit:
                self._error = self._overflow(self._size + len(buf) + len(tail))
                raise self._error
            buf += tail
            return []
        if buf:
            lines[0] = b"".join((buf, lines[0]))
            buf.clear()
        if self._start:
            self._start = False
            if lines[0].startswith(_BOM):
                lines[0] = lines[0][3:]

        # The pending event lives in locals for the loop and is stored back after.
        events: list[Any] = []
        append = events.append
        names = self._names
        last_name_line, last_name = b"", "message"
        parts = self._parts
        size = self._size
        etype = self._event
        retry = self._retry
        last_id = self.last_event_id
        try:
            for line in lines:
                if check and size + len(line) > limit:
                    raise self._overflow(size + len(line))
                if not line:
                    # Blank line: dispatch if any data line was seen (even an empty
                    # one); the event type and block-scoped retry reset either way.
                    if parts:
                        joined = parts[0] if len(parts) == 1 else b"\n".join(parts)
                        if raw:
                            append((etype, joined))
                        else:
                            append(SSEEvent(etype, joined.decode("utf-8", "replace"), last_id,
                                            retry))
                        parts = []
                        size = 0
                    etype = "message"
                    retry = None
                elif line.startswith(b"data: "):  # the hot case
                    value = line[6:]
                    parts.append(value)
                    size += len(value) + 1
                elif line.startswith(b"event: "):  # Anthropic / Responses framing
                    if line != last_name_line:  # runs of one event type are the norm
                        last_name_line = line
                        last_name = names.get(line) or self._event_name(line)
                    etype = last_name
                elif line[0] == _COLON:
                    self.comment_count += 1
                    self._last_comment = line[1:]
                else:
                    name, colon, value = line.partition(b":")
                    if colon and value[:1] == b" ":
                        value = value[1:]
                    if name == b"data":
                        parts.append(value)
                        size += len(value) + 1
                    elif name == b"event":
                        etype = value.decode("utf-8", "replace") or "message"
                    elif name == b"id":
                        if b"\0" not in value:
                            last_id = value.decode("utf-8", "replace")
                    elif name == b"retry" and value.isdigit():  # ASCII digits only
                        try:
                            retry = int(value)
                        except ValueError:  # beyond int()'s digit limit: ignore
                            pass
                        else:
                            self.retry = retry
                    # any other field name is ignored, per spec
            if tail:
                if check and size + len(tail) > limit:
                    raise self._overflow(size + len(tail))
                buf += tail
        except LimitExceeded as exc:
            # Hand out what was completed before the overflow; raise on next call.
            self._error = exc
            if not events:
                raise
        self._parts = parts
        self._size = size
        self._event = etype
        self._retry = retry
        self.last_event_id = last_id
        self._idle = (not buf and not parts and not self._cr and not self._start
                      and etype == "message" and retry is None and self._error is None)
        return events

    def _event_name(self, line: bytes) -> str:
        """Decode an ``event: NAME`` line's name, remembering the few names a
        provider uses so the hot loop decodes each only once."""
        name = line[7:].decode("utf-8", "replace") or "message"
        if len(self._names) < 64:
            self._names[line] = name
        return name

    def flush_payloads(self) -> list[tuple[str, bytes]]:
        """:meth:`flush` for a decoder driven with :meth:`feed_payloads`."""
        payloads: list[tuple[str, bytes]] = self._flush(True)
        return payloads

    def flush(self) -> list[SSEEvent]:
        """Signal end of input; return the events still pending.

        A trailing line without line end is processed as a line, and an event whose
        ``data`` was received but not yet terminated by a blank line is delivered
        (see the module docstring for why this deviates from the spec). Afterwards
        the decoder is ready for a new stream; ``last_event_id`` and ``retry`` are
        kept, as a reconnecting client would keep them.
        """
        # Implemented as feeding the missing line end(s) so there is one code path:
        # LF ends the buffered line (if any) and a further LF is the blank line that
        # dispatches. A pending CR must not swallow the synthetic LF as its pair.
        events: list[SSEEvent] = self._flush(False)
        return events

    def _flush(self, raw: bool) -> list[Any]:
        self._cr = False
        received = self._received
        try:
            events = self._decode(b"\n\n" if self._buf else b"\n", raw)
        finally:
            self._received = received
        self._start = True
        self._idle = False
        return events

    def _overflow(self, observed: int) -> LimitExceeded:
        """Build the error for a pending event that grew past ``max_event_bytes``."""
        return LimitExceeded(
            f"SSE event exceeds max_event_bytes={self.max_event_bytes} "
            f"(pending line and data reached {observed} bytes "
            f"near stream offset {self._received})",
            limit="max_event_bytes",
            value=self.max_event_bytes,
            observed=observed,
        )


# ---------------------------------------------------------------- writing


class SSEWriter:
    """Writes Server-Sent Events, each line ended by ``line_end``: LF, as every
    provider but one sends them, or CRLF (Gemini's servers).

    :meth:`event` is the one place an SSE frame is made. The heads of the event
    names used (``event: content_block_delta\\ndata: ``) are kept, so a
    per-token frame costs a lookup, the payload's encoding and one join.
    """

    __slots__ = ("_end", "_heads", "_line_end")

    #: Event names whose heads are kept (a stream uses a handful).
    MAX_KEPT_HEADS = 64

    def __init__(self, line_end: bytes = b"\n") -> None:
        if line_end not in (b"\n", b"\r\n"):
            raise ValueError(f"an SSE line ends with LF or CRLF, not {line_end!r}")
        self._line_end = line_end
        self._end = line_end + line_end
        self._heads: dict[str | None, bytes] = {None: b"data: ", "": b"data: "}

    def event(self, data: Any, event: str | None = None) -> bytes:
        """One event: the ``event:`` line when ``event`` names one, ``data`` as
        JSON (:func:`~streamkit.framing.encoding.json_bytes`; ``bytes`` are
        sent as they are, a line break in them starting a new ``data:`` line,
        as the format joins them back), and the blank line that ends it."""
        head = self._heads.get(event)
        if head is None:
            head = self._head(event)
        if isinstance(data, bytes):
            if b"\n" in data or b"\r" in data:
                return head + self._data_lines(data) + self._end
            return head + data + self._end
        try:  # json_bytes, spelt out (see streamkit.framing.encoding)
            body = encode(data)
        except UnicodeEncodeError:
            body = with_lone_surrogates(data)
        return head + (body if body.isascii() else escape_line_separators(body)) + self._end

    def _data_lines(self, data: bytes) -> bytes:
        """Bytes holding line breaks: one ``data:`` line each (a reader joins
        them with LF)."""
        lines = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
        return (self._line_end + b"data: ").join(lines)

    def _head(self, event: str | None) -> bytes:
        """The head of an event named ``event``: refused when a line break in it
        would end the line early (a frame forged by a name)."""
        assert event is not None  # None and "" are kept from the start
        if "\n" in event or "\r" in event:
            raise ValueError(f"an SSE event name holds a line break: {event!r}")
        head = b"event: " + event.encode("utf-8", "backslashreplace") + self._line_end + \
            b"data: "
        if len(self._heads) < self.MAX_KEPT_HEADS:
            self._heads[event] = head
        return head


#: One LF-framed event (see :meth:`SSEWriter.event`): what every SSE encoder but
#: Gemini's writes with.
sse_event = SSEWriter().event
