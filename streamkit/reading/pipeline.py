"""The sans-IO chain: bytes -> framing -> provider parser -> Accumulator.

:class:`Pipeline` is what :mod:`streamkit.stream` drives, and what a test, a
benchmark or a replay drives directly with a list of byte strings. It is pure
and synchronous: ``feed(chunk)`` returns the events that chunk completed (each
already applied: ``pipeline.accumulator.block(index)`` is the block's live
state), ``finish()`` flushes at a clean end of input. The result never depends
on how the bytes were chunked.

Framing: JSON lines (NDJSON) for Ollama; for every other provider, and for
``provider="auto"``, the first byte after a byte order mark and blank space
decides (the bytes before it are held, however they were split): ``{`` or
``[`` means JSON lines (Ollama, or a JSON error body: no SSE stream starts so),
anything else Server-Sent Events.

The live shape: a live stream mostly arrives one SSE event per read, and
most of those continue an open block with one fragment. Once the first
payload is in (and unless the ``<think>`` filter must see every event), such
a read goes :meth:`SSEDecoder.feed_one` -> :meth:`Parser.fast_delta` ->
:meth:`Accumulator.apply_delta`: one decode and one event, without the lists,
loops and handler lookups a chunk of many events needs (at one read per
token, those cost as much as the work). Either step may decline, changing
nothing, and the read then takes the general path, with the same result
(``tests/reading/test_live_shape.py``).

The rules for input that is not what it should be, all documented in the
README:

- A JSON line that is not JSON is a :class:`~streamkit.model.errors.ProtocolError`
  at that line, like an SSE payload that is not JSON. The one exception is a
  JSON document spread over several lines (a pretty-printed error body): a
  line that is the *beginning* of a JSON value is joined with the next ones
  while the joined text is still the beginning of a JSON value (each line is
  read once), up to ``max_event_bytes``.
- A clean end of input without the provider's terminator is not an error,
  wherever it falls, once the stream said something: content, or why it
  stopped. One that said neither (zero payloads, or only the opening ones)
  is no answer, an :class:`~streamkit.model.errors.IncompleteStreamError`
  with the partial, never an empty response that looks complete. When the
  end falls inside the last payload (its JSON cut off), that payload is left out and kept whole in
  ``metadata["truncated_payload"]``; the response ends with
  ``terminated=False``, open tool calls are marked ``incomplete``.
- Every stream that ends cleanly and said something ends with a
  :class:`~streamkit.model.events.ResponseEnd`; one that said nothing (see above)
  has a :class:`~streamkit.model.events.ResponseStart` and the error.
- A stream none of whose payloads meant anything to the provider that was
  named (``provider="openai"`` on an Anthropic stream) is a ``ProtocolError``
  naming the provider it looks like, rather than an empty response.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NamedTuple, Unpack

from ..framing.ndjson import NDJSONDecoder
from ..framing.sse import SSEDecoder
from ..model.accumulate import Accumulator
from ..model.errors import (
    IncompleteStreamError,
    LimitExceeded,
    ProtocolError,
    ProviderError,
    StreamError,
)
from ..model.events import (
    TRUNCATED_PAYLOAD,
    BlockDelta,
    BlockStart,
    ErrorEvent,
    Event,
    ResponseEnd,
    ResponseMetadata,
    ResponseStart,
)
from ..model.finish import FinishReason
from ..model.ids import StreamIds
from ..model.limits import DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_TOTAL_BYTES
from ..model.partial_json import PartialJSON, PartialJSONError
from ..model.response import ChatResponse
from ..model.think import ThinkTagFilter
from ..providers import Parser, get_parser, wire_of
from ..providers.base import decode_json
from ..providers.detect import AutoParser, detect_provider
from .options import ReadKeywords, ReadOptions, read_options

__all__ = ["DEFAULT_MAX_EVENT_BYTES", "DEFAULT_MAX_TOTAL_BYTES", "Pipeline", "Replayed", "replay"]

_BOM = b"\xef\xbb\xbf"
_BLANK = b" \t\r\n"
_SSE_FIELDS = (b"data:", b"event:", b"id:", b"retry:", b":")


def _is_cut_json(data: bytes | str) -> bool:
    """Whether ``data`` is the beginning of a JSON value that never closed:
    every character valid, the value incomplete (empty text included)."""
    parser = PartialJSON()
    try:
        parser.feed(data if isinstance(data, str) else bytes(data).decode("utf-8", "replace"))
    except PartialJSONError:
        return False
    return not parser.done


def _is_cut_payload(data: bytes) -> bool:
    """Whether the last payload of a stream was cut off by the end of input:
    JSON that never closed, or the start of OpenAI's ``[DONE]``."""
    return b"[DONE]".startswith(data.strip()) or _is_cut_json(data)


class _SpreadJSON:
    """A JSON document spread over several lines, read one line at a time.

    Each line goes once through an incremental parser that says whether the
    text so far is still the beginning of a JSON value, so a bad line is found
    at once and the cost stays linear however many lines come.
    """

    __slots__ = ("lines", "parser", "size")

    def __init__(self, first: bytes) -> None:
        self.lines = [first]
        self.size = len(first)
        self.parser = PartialJSON()
        self.parser.feed(first.decode("utf-8", "replace"))  # the caller checked it

    def add(self, line: bytes) -> bool:
        """Add a line; ``False`` when the text stops being the beginning of JSON."""
        self.lines.append(line)
        self.size += len(line) + 1
        try:
            self.parser.feed("\n" + line.decode("utf-8", "replace"))
        except PartialJSONError:
            return False
        return True

    @property
    def complete(self) -> bool:
        return self.parser.done

    @property
    def text(self) -> bytes:
        return b"\n".join(self.lines)


class Pipeline:
    """Feed raw response bytes; get applied events; read the response.

    How it reads is a :class:`~streamkit.reading.options.ReadOptions`
    (``options=``, or its fields as keywords): ``max_event_bytes`` bounds one
    SSE event or JSON line and ``max_total_bytes`` the whole body, so a hostile
    stream cannot eat memory (both raise
    :class:`~streamkit.model.errors.LimitExceeded`); ``think_tags`` turns inline
    ``<think>...</think>`` text into thinking blocks (``True``, or an
    ``(open, close)`` tag pair; by default the dialect decides), and
    ``start_in_thinking`` is for models whose template already opened the tag;
    ``dialect``, ``audio_media_type`` and ``fast_decode`` go to the wire's
    parser. :attr:`errors` lists the provider's in-stream errors; the stream
    layer turns the first into a ``ProviderError`` at the end.
    """

    def __init__(self, provider: str | Parser = "auto", *, options: ReadOptions | None = None,
                 **keywords: Unpack[ReadKeywords]) -> None:
        self.options = options = read_options(options, keywords)
        """How this pipeline reads (:class:`~streamkit.reading.options.ReadOptions`;
        ``on_error`` and ``request_timing`` are the stream's)."""
        self.parser: Parser = (
            get_parser(provider, **options.parser_options()) if isinstance(provider, str)
            else provider
        )
        think_tags = options.think_tags
        if think_tags is None:  # the dialect's default (vLLM, LM Studio... put <think> inline)
            think_tags = bool(getattr(self.parser, "think_tags", False))
        self._think: ThinkTagFilter | None = None
        if think_tags:
            tags = think_tags if isinstance(think_tags, tuple) else ("<think>", "</think>")
            self._think = ThinkTagFilter(*tags, start_in_thinking=options.start_in_thinking)
        self.accumulator = Accumulator()
        self.max_event_bytes = options.max_event_bytes  # read per chunk: attributes of their own
        self.max_total_bytes = options.max_total_bytes
        self.bytes_received = 0
        self._sse: SSEDecoder | None = None
        self._lines: NDJSONDecoder | None = None
        self._undecided = bytearray()  # auto: the bytes before the framing is known
        self._head = b""  # the first bytes of the body, to say what a wrong one looks like
        self._first_payload: tuple[str | None, bytes | str] | None = None
        self._spread: _SpreadJSON | None = None
        self._finished = False
        # The live shape's path (see :meth:`feed`), on once the first payload is in
        # and unless the ``<think>`` filter must see every event.
        self._fast_delta: Callable[[str, bytes], BlockDelta | None] | None = None
        self._apply_delta = self.accumulator.apply_delta

    # ------------------------------------------------------------ reading

    @property
    def response(self) -> ChatResponse:
        """The live response of choice 0."""
        return self.accumulator.response

    @property
    def responses(self) -> list[ChatResponse]:
        """Every choice's live response."""
        return self.accumulator.responses

    @property
    def provider(self) -> str | None:
        """The provider's registry name (``None`` while auto-detection waits)."""
        if isinstance(self.parser, AutoParser):
            return self.parser.provider
        return self.parser.name

    @property
    def errors(self) -> list[ErrorEvent]:
        """The provider's in-stream errors so far, in order."""
        return self.accumulator.errors

    # ------------------------------------------------------------ feeding

    def feed(self, chunk: bytes) -> list[Event]:
        """Events completed by one network chunk, already applied.

        When the chunk breaks the stream, the events it completed before the
        break are applied too, and the :class:`~streamkit.model.errors.StreamError`
        raised carries them (``error.events``), so that what a caller saw and
        ``response`` never disagree."""
        received = self.bytes_received + len(chunk)
        if received > self.max_total_bytes:
            raise LimitExceeded(
                f"stream body exceeded max_total_bytes={self.max_total_bytes}",
                limit="max_total_bytes", value=self.max_total_bytes, observed=received,
            )
        self.bytes_received = received
        if not chunk:
            return []
        sse = self._sse
        payload = None
        if sse is not None:
            # A live stream's read is mostly one SSE event, and mostly one
            # continuing an open block: one payload, one BlockDelta, applied
            # without the lists, loops and handler lookups a chunk of many needs.
            payload = sse.feed_one(chunk)
            fast_delta = self._fast_delta
            if payload is not None and fast_delta is not None:
                name, data = payload  # no ``*payload``: a star call is not inlined
                event = fast_delta(name, data)
                if event is not None:
                    self._apply_delta(event)  # one event: applied whole, or refused
                    return [event]
        out: list[Event] = []
        try:
            if sse is not None:
                self._feed_sse_events(sse.feed_payloads(chunk) if payload is None
                                      else [payload], out)
            elif self._lines is not None:
                self._feed_lines(self._lines.feed(chunk), out)
            else:
                self._choose_framing(chunk, out)
        except StreamError as error:
            error.events = tuple(out)
            raise
        return out

    def _choose_framing(self, chunk: bytes, out: list[Event]) -> None:
        """Start the framing decoder on the first chunk with a byte that decides,
        fed together with the bytes before it."""
        framing = self.parser.framing
        if framing == "sse":  # ``auto`` too, until it knows better
            first = self._first_content_byte(chunk)
            if first is None:  # only a byte order mark or blank space so far
                if len(self._undecided) > self.max_event_bytes:
                    raise LimitExceeded(
                        f"{len(self._undecided)} bytes of blank space before the first payload "
                        f"exceed max_event_bytes={self.max_event_bytes}",
                        limit="max_event_bytes", value=self.max_event_bytes,
                        observed=len(self._undecided))
                return
            if first in (b"{", b"["):
                framing = "ndjson"
            chunk = bytes(self._undecided)
            self._undecided = bytearray()
        self._head = chunk[:4096]
        if framing == "ndjson":
            self._lines = NDJSONDecoder(self.max_event_bytes)
            self._feed_lines(self._lines.feed(chunk), out)
        else:
            self._sse = SSEDecoder(self.max_event_bytes)
            self._feed_sse_events(self._sse.feed_payloads(chunk), out)

    def _first_content_byte(self, chunk: bytes) -> bytes | None:
        """Hold ``chunk`` with the undecided bytes; return the first byte after
        a leading byte order mark and blank space, ``None`` while there is none.
        Each chunk is looked at once: the bytes held before it are blank."""
        held = len(self._undecided)
        self._undecided += chunk
        if len(self._undecided) < len(_BOM) and _BOM.startswith(self._undecided):
            return None  # maybe a byte order mark split across chunks
        rest = bytes(self._undecided).removeprefix(_BOM) if held < len(_BOM) else chunk
        return rest.lstrip(_BLANK)[:1] or None

    def _feed_sse_events(self, sse_events: list[tuple[str, bytes]], out: list[Event]) -> None:
        """Parse and apply SSE payloads. Like every reading method here, it adds
        each event to ``out`` once applied, so that ``out`` is exactly what the
        response reflects when a later payload of the read breaks it."""
        if not sse_events:
            return
        if self._first_payload is None:
            name, data = sse_events[0]
            self._keep_first(None if name == "message" else name, data)
            # A parser of the caller's own written before fast_delta joined the
            # protocol has none: its reads all take the general path.
            fast_delta = getattr(self.parser, "fast_delta", None)
            if fast_delta is not None and self._think is None:
                self._fast_delta = fast_delta
        parsed: list[Event] = []
        try:
            self.parser.feed_into(sse_events, parsed)
        except ProtocolError as error:
            self._add_hint(error)
            raise
        finally:  # apply what the chunk gave, also when a later payload in it was bad
            if parsed:
                self._apply(parsed, out)

    def _feed_lines(self, lines: list[bytes], out: list[Event]) -> None:
        for line in lines:
            if self._spread is not None:
                self._continue_spread(line, out)
                continue
            try:
                self._feed_payload(line, None, out)
            except ProtocolError as error:
                if not _is_cut_json(line):
                    self._add_hint(error)
                    raise
                self._spread = _SpreadJSON(line)  # the first line of a multi-line document

    def _continue_spread(self, line: bytes, out: list[Event]) -> None:
        """One more line of a JSON document spread over several lines."""
        spread = self._spread
        assert spread is not None
        if not spread.add(line):
            self._spread = None
            raise ProtocolError(
                f"invalid JSON: {len(spread.lines) - 1} line(s) that began a JSON document "
                f"are not continued by the next line; the document starts "
                f"{spread.lines[0][:200]!r}", raw=spread.text[:2000])
        if spread.size > self.max_event_bytes:
            self._spread = None
            raise LimitExceeded(
                f"a JSON document spread over {len(spread.lines)} lines exceeds "
                f"max_event_bytes={self.max_event_bytes}",
                limit="max_event_bytes", value=self.max_event_bytes, observed=spread.size)
        if not spread.complete:
            return
        self._spread = None
        self._feed_payload(spread.text, None, out)

    def feed_payload(self, data: bytes | str, event: str | None = None) -> list[Event]:
        """Events of one already-framed payload (an SSE ``data`` with its event
        name, a JSON line), already applied. Used for httpx-sse sources."""
        out: list[Event] = []
        try:
            self._feed_payload(data, event, out)
        except StreamError as error:
            error.events = tuple(out)
            raise
        return out

    def _feed_payload(self, data: bytes | str, event: str | None, out: list[Event]) -> None:
        if self._first_payload is None:
            self._keep_first(event, data)
        events = self.parser.feed(data, event)
        if events:
            self._apply(events, out)

    def _apply(self, events: list[Event], out: list[Event]) -> None:
        """Apply a batch of parser events (rewritten by the ``<think>`` filter when on)."""
        if self._think is not None:
            events = self._think.process(events)
        self._apply_each(events, out)

    def _apply_each(self, events: list[Event], out: list[Event]) -> None:
        """Apply ``events`` in order, adding each to ``out`` once applied: when the
        accumulator refuses one (a delta for a block never started), ``out`` holds
        exactly the events the response reflects, for the caller to see."""
        apply_delta, apply = self._apply_delta, self.accumulator.apply
        append = out.append
        for event in events:
            if type(event) is BlockDelta:  # the per-token case: skip the lookup
                apply_delta(event)
            else:
                apply(event)
            append(event)

    # ------------------------------------------------------------ ending

    def finish(self) -> list[Event]:
        """Flush framing and parser at a clean end of input (idempotent): the
        last payload, the parser's closing events, and a ``ResponseEnd`` if
        the stream gave none."""
        if self._finished:
            return []
        self._finished = True
        out: list[Event] = []
        try:
            self._finish(out)
        except StreamError as error:  # its events reach the caller with it
            error.events = tuple(out)
            raise
        return out

    def broken(self) -> list[Event]:
        """At a broken transport, before its error: the last payload the framing
        holds, read as a clean end reads it (:meth:`finish`). Its data all came,
        only its line end did not (Ollama's last LF, an SSE event's blank line),
        so it is part of the answer, often its end; a payload the break cut
        is kept as ``truncated_payload``. Never raises: a payload that does
        not read is dropped, as the break's error is the one to tell."""
        if self._finished:
            return []
        out: list[Event] = []
        try:
            self._flush_framing(out)
        except StreamError as error:
            out += error.events
        return out

    def _finish(self, out: list[Event]) -> None:
        self._flush_framing(out)
        tail = self.parser.finish()
        # a stream of another provider is said as such (_check_provider_matched)
        answered = self._answered(tail) or self._mismatch_message() is not None
        if not answered:  # ended as a cut, unfinished: see _refuse_no_answer
            tail = [event for event in tail if type(event) is not ResponseEnd]
        if tail:
            self._apply(tail, out)
        if not self.response.is_last:  # no ResponseEnd for choice 0: an empty body, say
            closing: list[Event] = []
            if not self.accumulator.started(0):  # nor a start: its id is made up here
                closing.append(ResponseStart(id=StreamIds().make("resp")))
            if answered:
                closing.append(ResponseEnd(terminated=False))
            self._apply_each(closing, out)
        self._check_provider_matched()
        if not answered:
            self._refuse_no_answer()

    def _flush_framing(self, out: list[Event]) -> None:
        """The payload the framing holds at the end of input: the last SSE event
        no blank line ended, the last JSON line no LF ended, a spread document."""
        if self._sse is not None:
            for name, data in self._sse.flush_payloads():  # at most the one unterminated event
                self._feed_unterminated(name, data, out)
        if self._lines is not None:  # a last line cut off becomes a spread document here
            self._feed_lines(self._lines.flush(), out)
        if self._spread is not None:  # the end of input cut a JSON document
            self._keep_truncated(None, self._spread.text, out)
            self._spread = None

    def _feed_unterminated(self, name: str, data: bytes, out: list[Event]) -> None:
        """The last SSE event, which no blank line ended: when the end of input
        cut its JSON off, it is left out and kept, not an error."""
        try:
            self._feed_sse_events([(name, data)], out)
        except ProtocolError:
            if not _is_cut_payload(data):
                raise
            self._keep_truncated(None if name == "message" else name, data, out)

    def _keep_truncated(self, name: str | None, data: bytes | str, out: list[Event]) -> None:
        text = data if isinstance(data, str) else data.decode("utf-8", "replace")
        if not text.strip():
            return  # cut right after ``data:``: nothing of the payload arrived
        kept = ResponseMetadata(metadata={TRUNCATED_PAYLOAD: {"event": name, "data": text}})
        self._apply_each([kept], out)

    # ------------------------------------------------------------ the wrong provider

    def _understood_nothing(self) -> bool:
        """Whether no payload meant anything to the parser: no block, no usage,
        no finish reason of its own, no error."""
        return not self.errors and all(
            not response.content and response.usage is None
            and response.finished_reason in (None, FinishReason.UNKNOWN)
            for response in self.responses)

    def _looks_like(self) -> str | None:
        """The provider the body looks like, when it is not the one named
        (``None`` with ``provider="auto"``, or when it cannot be told)."""
        if isinstance(self.parser, AutoParser):
            return None
        try:
            named_wire = wire_of(self.parser.name)[0]
        except ValueError:  # a parser from outside the registry
            return None
        head = self._head.removeprefix(_BOM).lstrip(_BLANK)
        if self.parser.framing == "ndjson" and head.startswith(_SSE_FIELDS):
            return "an SSE stream (Server-Sent Events, not JSON lines)"
        if self._first_payload is None:
            return None
        event, data = self._first_payload
        try:
            detected = detect_provider(decode_json(data, event), event)
        except StreamError:
            return None
        if detected is None or wire_of(detected)[0] == named_wire:
            return None
        return detected

    def _mismatch_message(self) -> str | None:
        looks_like = self._looks_like()
        if looks_like is None:
            return None
        return (f"nothing in the stream matched provider={self.parser.name!r}: it looks like "
                f"{looks_like}; name that provider, or use provider='auto'")

    def _keep_first(self, event: str | None, data: bytes | str) -> None:
        """Remember the first payload (a reference, no copy; not one over 1 MiB)
        to say which provider a stream looks like."""
        self._first_payload = (event, data if len(data) <= 1024 * 1024 else b"")

    def _add_hint(self, error: ProtocolError) -> None:
        """Make ``error`` say which provider the stream looks like, when nothing
        before it meant anything to the provider that was named."""
        if self._understood_nothing():
            hint = self._mismatch_message()
            if hint is not None:
                error.message = f"{error.message} ({hint})"
                error.args = (error.message, *error.args[1:])

    def _check_provider_matched(self) -> None:
        if self._understood_nothing() and (self._first_payload is not None or self._head.strip()):
            message = self._mismatch_message()
            if message is not None:
                first = self._first_payload
                raise ProtocolError(message, event=None if first is None else first[0],
                                    raw=None if first is None else first[1][:200])

    # ------------------------------------------------------------ no answer

    def _answered(self, tail: list[Event]) -> bool:
        """Whether the stream, with the parser's closing ``tail``, said anything
        an answer says: content, why it stopped, its wire's end, or an error."""
        if self.errors or any(
                response.content or response.terminated
                or response.finished_reason not in (None, FinishReason.UNKNOWN)
                for response in self.responses):
            return True
        return any(type(event) in _ANSWERING or (type(event) is ResponseEnd and (
            event.terminated or event.finish_reason is not FinishReason.UNKNOWN))
            for event in tail)

    def _refuse_no_answer(self) -> None:
        """A stream that ended with no content, no reason to stop, no error and
        without its wire's end: the connection closed before the answer, which
        an empty response would pass off as one. Its responses are left
        unfinished (no ``ResponseEnd``), so the error marks them interrupted."""
        raise IncompleteStreamError(
            f"the stream ended after {self.bytes_received} bytes with no content and without "
            f"{self.parser.name}'s end: the connection closed before any answer (try again; a "
            "server that is no streaming endpoint of this provider ends so too)")

    # ------------------------------------------------------------ failing

    def fail(self, error: StreamError) -> StreamError:
        """``error`` with the partial response attached, the responses marked:
        ``error`` for a provider's error, else (a broken transport, a malformed
        or oversized stream) every unfinished response ``interrupted`` and its
        open tool calls checked for cut-off arguments."""
        if isinstance(error, ProviderError):
            for response in self.responses:
                response.finished_reason = response.finished_reason or FinishReason.ERROR
        else:
            self.accumulator.interrupt()
        error.partial = self.response
        return error


#: The events that make a stream an answer, whatever else it lacks.
_ANSWERING = (BlockStart, BlockDelta, ErrorEvent)


class Replayed(NamedTuple):
    """What :func:`replay` returns: every event, then the final response.
    A tuple, so ``events, response = replay(body)`` unpacks it too."""

    events: list[Event]
    """Every event the bytes produced, in order."""
    response: ChatResponse
    """The final response (choice 0)."""


def replay(chunks: bytes | Iterable[bytes], provider: str | Parser = "auto", *,
           options: ReadOptions | None = None, **keywords: Unpack[ReadKeywords]) -> Replayed:
    """Run recorded bytes (one ``bytes`` or an iterable of network chunks)
    through a :class:`Pipeline`: ``replay(body).response`` is the final
    response, ``.events`` every event on the way (a :class:`Replayed`, which
    unpacks as ``events, response``). It reads as :func:`streamkit.stream` does
    (``options=`` a :class:`~streamkit.reading.options.ReadOptions`, or its
    fields as keywords).

    It fails as ``stream(...).final()`` does: a :class:`~streamkit.model.errors.StreamError`
    carrying the partial response, and a provider's in-stream error raised as a
    :class:`~streamkit.model.errors.ProviderError` once the whole body is read. The
    error's ``events`` are every event applied to the partial, in order. With
    ``on_error="return"`` nothing is raised: those events and the partial
    response (``finished_reason`` ``error`` or ``interrupted``) are returned."""
    pipeline = Pipeline(provider, options=read_options(options, keywords))
    events: list[Event] = []
    try:
        for chunk in [bytes(chunks)] if isinstance(chunks, (bytes, bytearray)) else chunks:
            events += pipeline.feed(chunk)
        events += pipeline.finish()
        if pipeline.errors:
            raise ProviderError.from_event(pipeline.errors[0])
    except StreamError as error:
        events += error.events
        error.events = tuple(events)
        pipeline.fail(error)
        if pipeline.options.on_error == "raise":
            raise
    return Replayed(events, pipeline.response)
