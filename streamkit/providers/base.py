"""What every provider parser is: a pure, synchronous payload -> events machine.

A parser is fed one decoded payload at a time (the ``data`` of an SSE event
with its event name, or one NDJSON line) and returns the uniform
:mod:`streamkit.model.events` it implies. ``finish()`` flushes at a clean end of
input: blocks still open are closed and, when the provider's terminator never
came, a :class:`~streamkit.model.events.ResponseEnd` with ``terminated=False`` is
emitted. Parsers do no I/O and keep no copy of the content: they only track
which block index each provider item maps to.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Literal, Protocol

import msgspec

from ..model.errors import ProtocolError
from ..model.events import BlockDelta, Event
from ..model.limits import MAX_JSON_DEPTH, too_deep
from .ledger import BlockLedger, Phase

Framing = Literal["sse", "ndjson"]

_JSON = msgspec.json.Decoder()

_BYTE_OFFSET = re.compile(r"byte (\d+)")

#: A JSON escape of a UTF-16 surrogate (``\ud83d``), which msgspec reads only
#: as half of a pair.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89abcdefABCDEF]")


# One SSE event or JSON line: the SSE event type (``"message"`` when unnamed, as
# the SSE decoder gives it) and the data.
Payloads = Sequence[tuple[str, bytes | str]]


class Parser(Protocol):
    """The interface the stream layer drives."""

    framing: ClassVar[Framing]

    @property
    def name(self) -> str:
        """The vendor's registry name (:data:`streamkit.PROVIDERS`), which the
        responses report as their provider."""
        ...

    def feed(self, data: bytes | str, event: str | None = None) -> list[Event]:
        """Events implied by one payload (``event`` is the SSE event name, if any)."""
        ...

    def feed_into(self, payloads: Payloads, out: list[Event]) -> None:
        """Append the events of one network chunk's payloads to ``out``, in order.
        A parser can run its per-token case here without a call per payload; ``out``
        keeps the events of the payloads before one that raises."""
        ...

    def fast_delta(self, name: str, data: bytes | str) -> BlockDelta | None:
        """The one event of a payload that only continues an open block (the
        per-token case), or ``None``, having changed nothing, when :meth:`feed`
        must decide; content the general path would refuse raises the same
        :class:`~streamkit.model.errors.StreamError` here. The pipeline asks this
        first for a read that is one SSE event, so the live shape costs one
        decode and one event; a parser without such a case returns ``None``
        (one written before this method joined the protocol may lack it: the
        pipeline then takes the general path for every read)."""
        ...

    def finish(self) -> list[Event]:
        """Events that close the stream at a clean end of input."""
        ...

    @property
    def done(self) -> bool:
        """Whether the provider's own terminator has been seen."""
        ...


def feed_fast_first(fast_delta: Callable[[str, bytes | str], BlockDelta | None],
                    general: Callable[[bytes | str, str | None], list[Event]],
                    payloads: Payloads, out: list[Event]) -> None:
    """The ``feed_into`` of a parser with a fast path: each payload's
    ``fast_delta`` event, else what its ``general`` path (data, SSE event name or
    ``None``) gives; ``out`` keeps the events before a payload that raises."""
    append = out.append
    for name, data in payloads:
        event = fast_delta(name, data)
        if event is not None:
            append(event)
        else:
            out += general(data, None if name == "message" else name)


class StreamParser:
    """What the five parsers share around their wire's own tables: ``feed`` is
    :meth:`feed_into` of one payload, which asks :meth:`fast_delta` (the
    per-token case; none here) before the general path, ``_general`` (data,
    SSE event name or ``None``); :attr:`done` is the ledger's end. A parser
    with its own ``feed`` (Gemini, Ollama: no per-token case apart from it)
    feeds each payload instead (:func:`feed_each`)."""

    framing: ClassVar[Framing]
    name: str
    _ledger: BlockLedger[Any]

    @property
    def done(self) -> bool:
        """Whether the provider's own terminator has been seen."""
        return self._ledger.phase is Phase.ENDED

    def feed(self, data: bytes | str, event: str | None = None) -> list[Event]:
        """Events implied by one payload."""
        out: list[Event] = []
        self.feed_into(((event or "message", data),), out)
        return out

    def feed_into(self, payloads: Payloads, out: list[Event]) -> None:
        """Append the events of one network chunk's payloads to ``out``; ``out``
        keeps the events of the payloads before one that raises."""
        feed_fast_first(self.fast_delta, self._general, payloads, out)

    def fast_delta(self, name: str, data: bytes | str) -> BlockDelta | None:
        """No per-token case unless the parser has one."""
        return None

    def _general(self, data: bytes | str, event: str | None) -> list[Event]:
        raise NotImplementedError


def feed_each(parser: Parser, payloads: Payloads, out: list[Event]) -> None:
    """``feed`` per payload: the plain ``feed_into`` of parsers with no faster one."""
    feed = parser.feed
    for name, data in payloads:
        out += feed(data, None if name == "message" else name)


def _check_depth(data: bytes, event: str | None) -> None:
    """:class:`ProtocolError` for a payload nested deeper than :data:`MAX_JSON_DEPTH`."""
    depth = too_deep(data)
    if depth is not None:
        raise ProtocolError(
            f"JSON in {event or 'message'} event nested {depth} levels deep; the limit is "
            f"{MAX_JSON_DEPTH}", event=event, raw=data[:200])


def _with_lone_surrogates(data: bytes) -> Any:
    """A payload holding the escape of a lone surrogate (a provider that cut an
    emoji's pair in two, or streamkit's own encoders writing a string that
    holds one), read as Python's decoder reads it: the surrogate kept, as the
    official SDKs keep it. JSON's other rules stay msgspec's (no ``NaN``)."""
    return json.loads(data, parse_constant=_not_json)


def _not_json(word: str) -> Any:
    raise ValueError(f"{word} is not JSON")


def decode_json(data: bytes | str, event: str | None = None) -> Any:
    """Decode one JSON payload; malformed JSON, or JSON nested deeper than
    :data:`MAX_JSON_DEPTH`, raises :class:`~streamkit.model.errors.ProtocolError`
    naming the event (and the byte offset of a syntax error)."""
    if isinstance(data, str):  # text fed by hand may hold a lone surrogate: "?" for it
        data = data.encode("utf-8", "replace")
    _check_depth(data, event)
    try:
        return _JSON.decode(data)
    except RecursionError:  # a deep stack at the caller: still a typed error
        raise ProtocolError(f"JSON in {event or 'message'} event nested too deeply to decode",
                            event=event) from None
    except msgspec.DecodeError as exc:
        if _SURROGATE_ESCAPE.search(data) is not None:
            try:
                return _with_lone_surrogates(data)
            except ValueError:
                pass
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
