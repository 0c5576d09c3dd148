"""What every provider parser is: a pure, synchronous payload -> events machine.

A parser is fed one decoded payload at a time (the ``data`` of an SSE event
with its event name, or one NDJSON line) and returns the uniform
:mod:`streamkit.events` it implies. ``finish()`` flushes at a clean end of
input: blocks still open are closed and, when the provider's terminator never
came, a :class:`~streamkit.events.ResponseEnd` with ``terminated=False`` is
emitted. Parsers do no I/O and keep no copy of the content: they only track
which block index each provider item maps to.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, ClassVar, Literal, Protocol

import msgspec

from ..errors import ProtocolError
from ..events import Event

Framing = Literal["sse", "ndjson"]

_JSON = msgspec.json.Decoder()
_BYTE_OFFSET = re.compile(r"byte (\d+)")


class Parser(Protocol):
    """The interface the stream layer drives."""

    name: ClassVar[str]
    framing: ClassVar[Framing]

    def feed(self, data: bytes | str, event: str | None = None) -> list[Event]:
        """Events implied by one payload (``event`` is the SSE event name, if any)."""
        ...

    def finish(self) -> list[Event]:
        """Events that close the stream at a clean end of input."""
        ...

    @property
    def done(self) -> bool:
        """Whether the provider's own terminator has been seen."""
        ...


def feed_each(parser: Parser, payloads: Sequence[tuple[str, bytes | str]],
              out: list[Event]) -> None:
    """Append the events of several ``(SSE event type, data)`` payloads to ``out``:
    a parser's ``feed_into`` when it has one (its per-token path runs without a
    call per payload), else ``feed`` per payload. ``out`` keeps the events of the
    payloads before one that raises."""
    feed_into = getattr(parser, "feed_into", None)
    if feed_into is not None:
        feed_into(payloads, out)
        return
    feed = parser.feed
    for name, data in payloads:
        out += feed(data, None if name == "message" else name)


def decode_json(data: bytes | str, event: str | None = None) -> Any:
    """Decode one JSON payload; malformed JSON raises
    :class:`~streamkit.errors.ProtocolError` naming the event and byte offset."""
    try:
        return _JSON.decode(data)
    except msgspec.DecodeError as exc:
        if not isinstance(data, str):  # invalid UTF-8 is replaced, as SSE decoding does
            try:
                return _JSON.decode(bytes(data).decode("utf-8", "replace"))
            except msgspec.DecodeError:
                pass
        match = _BYTE_OFFSET.search(str(exc))
        offset = int(match.group(1)) if match else None
        if offset is None and "truncated" in str(exc):
            offset = len(data)  # the payload ended inside a value
        raw = data if isinstance(data, str) else bytes(data)
        shown = raw[:200]
        raise ProtocolError(
            f"invalid JSON in {event or 'message'} event at byte {offset}: {exc}; payload starts "
            f"{shown!r}",
            event=event,
            offset=offset,
            raw=raw,
        ) from exc
