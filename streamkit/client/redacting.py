"""A wire's stream parser whose events never hold the client's key, also when
the server cut it across deltas.

The body's bytes have the key taken out before any parser reads them
(:class:`~streamkit.client.keys.Redactor`, which knows every way JSON writes
it), but a key cut across two deltas is two JSON strings, with the framing of
two payloads between them: no byte pattern sees it. :class:`RedactingParser`
reads the parser's events as they come, and runs each block's text,
reasoning, transcript and tool-call argument deltas through a
:class:`~streamkit.client.keys.TextRedactor` of that block, before the
accumulator applies them or a caller sees them:

- a delta whose end could begin the key gives up that end to the next delta
  of its block (at most the key's longest writing), unless that end is
  shorter than :data:`~streamkit.client.keys.SHORTEST_HELD_BEGINNING` and
  has no backslash: it is passed on (at most the key's public first three
  characters, ``sk-``), kept, and the next delta of the block that continues
  it is masked from where the key began;
- a delta with neither the key's first four characters nor a backslash, that
  does not begin as the key goes on after its first characters, passes as it
  is after four ``in`` checks, and is the same event object (a word ending in
  ``s`` for an ``sk-`` key no longer makes two new events);
- what a block still holds is given as one more delta of its kind before its
  :class:`~streamkit.model.events.BlockEnd`, before its choice's
  :class:`~streamkit.model.events.ResponseEnd` or
  :class:`~streamkit.model.events.ErrorEvent`, and at the end of input
  (the key's printed form when it is a cut key: see
  :meth:`~streamkit.client.keys.TextRedactor.flush`).

Events are values: a delta that changes is a new event, never the parser's
changed. A delta whose text is all held back is still given, empty, so the
fast path (one payload, one event) and the general one give the same events.
"""

from __future__ import annotations

from typing import Any, ClassVar

import msgspec

from ..model.blocks import TextBlock, ThinkingBlock, ToolCallBlock
from ..model.events import (
    BlockDelta,
    BlockEnd,
    ErrorEvent,
    Event,
    ResponseEnd,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
    TranscriptDelta,
)
from ..model.response import ChatResponse
from ..providers.base import Framing, Parser, Payloads
from .keys import SHORTEST_HELD_BEGINNING, ApiKey, TextRedactor

__all__ = ["RedactingParser", "redact_blocks", "redacting"]

#: The deltas whose strings continue one another, and the field that holds each one's.
TEXT_FIELDS: dict[type[Any], str] = {TextDelta: "text", ThinkingDelta: "thinking",
                                     ToolInputDelta: "partial_json", TranscriptDelta: "text"}

_Place = tuple[int, int]  # (choice, block index)


class _Held:
    """A block whose last delta ended as the key could begin: its redactor and
    the kind of delta its held text is given back as."""

    __slots__ = ("field", "kind", "redactor")

    def __init__(self, redactor: TextRedactor, kind: type[Any], field: str) -> None:
        self.redactor, self.kind, self.field = redactor, kind, field

    def flushed(self, place: _Place) -> BlockDelta | None:
        """The held text as one more delta of the block (``None``: nothing held)."""
        text = self.redactor.flush()
        if not text:
            return None
        return BlockDelta(index=place[1], choice=place[0], delta=self.kind(**{self.field: text}))


#: The block kinds whose strings a wire may assemble from several of its JSON
#: strings (Gemini's parts of one candidate), and the attribute of each.
BLOCK_TEXTS: dict[type[Any], str] = {TextBlock: "text", ThinkingBlock: "thinking",
                                     ToolCallBlock: "input"}


def redact_blocks(response: ChatResponse, key: ApiKey) -> None:
    """Take ``key`` out of a whole answer's blocks, before it is handed out: a
    wire's decoder may join several JSON strings into one block (Gemini's
    parts), which no byte pattern saw whole."""
    for block in response.content:
        name = BLOCK_TEXTS.get(type(block))
        if name is not None and (text := getattr(block, name)):
            redacted = key.redact(text)
            if redacted != text:
                setattr(block, name, redacted)


def redacting(parser: Parser, key: ApiKey) -> Parser:
    """``parser``, its events with ``key`` taken out (a parser of its framing)."""
    return _NDJSONRedactingParser(parser, key) if parser.framing == "ndjson" \
        else RedactingParser(parser, key)


class RedactingParser:
    """``parser``, its blocks' string deltas with ``key`` taken out (see the
    module); :func:`redacting` makes the one of the parser's framing."""

    framing: ClassVar[Framing] = "sse"

    def __init__(self, parser: Parser, key: ApiKey) -> None:
        self._parser = parser
        self._key = key
        value = key.reveal()
        # Only the key's public first characters are kept, for the quick checks.
        self._head = value[:SHORTEST_HELD_BEGINNING]
        self._starts = value[:SHORTEST_HELD_BEGINNING - 1]
        self._continues = value[1:SHORTEST_HELD_BEGINNING]
        del value
        self._held: dict[_Place, _Held] = {}
        self._shown: dict[_Place, str] = {}  # blocks whose text ended as the key begins
        self._probe = key.text_redactor()  # holds nothing between deltas: shared until it holds
        self.think_tags = bool(getattr(parser, "think_tags", False))

    @property
    def name(self) -> str:
        return self._parser.name

    @property
    def done(self) -> bool:
        return self._parser.done

    def feed(self, data: bytes | str, event: str | None = None) -> list[Event]:
        return self._redacted(self._parser.feed(data, event))

    def feed_into(self, payloads: Payloads, out: list[Event]) -> None:
        parsed: list[Event] = []
        try:
            self._parser.feed_into(payloads, parsed)
        finally:  # the events of the payloads before one that raised reach the caller too
            out += self._redacted(parsed)

    def fast_delta(self, name: str, data: bytes | str) -> BlockDelta | None:
        event = self._parser.fast_delta(name, data)
        return None if event is None else self._delta(event)

    def finish(self) -> list[Event]:
        """The parser's closing events, then whatever a block still holds."""
        out = self._redacted(self._parser.finish())
        for place in list(self._held):
            self._flush(place, out)
        return out

    # ------------------------------------------------------------ the events

    def _redacted(self, events: list[Event]) -> list[Event]:
        """``events`` with their deltas redacted and each block's held text given
        before its end: ``events`` itself, in the per-token case (nothing held,
        no delta that :meth:`_delta` would look into), after one light pass."""
        if self._held:
            return self._redacted_each(events)
        head, continues, starts, shown = self._head, self._continues, self._starts, self._shown
        for at, event in enumerate(events):
            if type(event) is not BlockDelta:
                continue
            delta = event.delta
            field = TEXT_FIELDS.get(type(delta))
            if field is None:
                continue
            text = getattr(delta, field)
            if head in text or "\\" in text or text[:1] in continues:
                return events[:at] + self._redacted_each(events[at:])
            if text[-1:] in starts:
                shown[event.choice, event.index] = text[-SHORTEST_HELD_BEGINNING + 1:]
        return events

    def _redacted_each(self, events: list[Event]) -> list[Event]:
        """``events`` with their deltas redacted and each block's held text given
        before its end (one pass, no look ahead)."""
        out: list[Event] = []
        append, delta = out.append, self._delta
        for event in events:
            kind = type(event)
            if kind is BlockDelta:
                append(delta(event))  # type: ignore[arg-type]
                continue
            if self._held and kind is BlockEnd:
                self._flush((event.choice, event.index), out)  # type: ignore[union-attr]
            elif self._held and (kind is ResponseEnd or kind is ErrorEvent):
                for place in [place for place in self._held if place[0] == event.choice]:
                    self._flush(place, out)
            append(event)
        return out

    def _delta(self, event: BlockDelta) -> BlockDelta:
        """``event`` with its text redacted: itself when the text is untouched.

        The per-token case costs a look up and four ``in`` checks: with nothing
        held, a text that holds neither the key's first
        :data:`~streamkit.client.keys.SHORTEST_HELD_BEGINNING` characters nor a
        backslash, and does not begin as the key goes on after its first
        characters, neither holds the key nor continues one; when it ends in
        one of the key's first characters, its end is kept for the next delta."""
        delta = event.delta
        field = TEXT_FIELDS.get(type(delta))
        if field is None:
            return event
        text: str = getattr(delta, field)
        if (not self._held and self._head not in text and "\\" not in text
                and text[:1] not in self._continues):
            if text[-1:] in self._starts:
                self._shown[event.choice, event.index] = text[-SHORTEST_HELD_BEGINNING + 1:]
            return event
        passed = self._feed((event.choice, event.index), delta, field, text)
        if passed == text:
            return event
        return BlockDelta(index=event.index, choice=event.choice,
                          delta=msgspec.structs.replace(delta, **{field: passed}))

    def _feed(self, place: _Place, delta: Any, field: str, text: str) -> str:
        """What of a block's ``text`` can be passed on: through the block's own
        redactor when it holds an end, else through the shared one (given the
        end the block showed, if it could begin the key), which becomes the
        block's when it holds an end of this text."""
        held = self._held.get(place)
        if held is not None:
            passed = held.redactor.feed(text)
            if not held.redactor.holding:
                del self._held[place]
                self._keep_shown(place, held.redactor.passed_end)
            return passed
        passed = self._probe.feed(text, self._shown.pop(place, None))
        if self._probe.holding:
            self._held[place] = _Held(self._probe, type(delta), field)
            self._probe = self._key.text_redactor()
        else:
            self._keep_shown(place, self._probe.passed_end)
        return passed

    def _keep_shown(self, place: _Place, end: str) -> None:
        """Keep the end a block passed on when it could begin the key."""
        if end[-1:] in self._starts:
            self._shown[place] = end

    def _flush(self, place: _Place, out: list[Event]) -> None:
        """Give what the block at ``place`` holds, if it holds any, as its last
        delta (another block may be the one holding)."""
        held = self._held.pop(place, None)
        delta = None if held is None else held.flushed(place)
        if delta is not None:
            out.append(delta)


class _NDJSONRedactingParser(RedactingParser):
    """A JSON lines wire's parser (Ollama's), its events with the key taken out."""

    framing: ClassVar[Framing] = "ndjson"
