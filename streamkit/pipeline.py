"""The sans-IO chain: bytes -> framing -> provider parser -> Accumulator.

:class:`Pipeline` is what :mod:`streamkit.stream` drives, and what a test, a
benchmark or a replay drives directly with a list of byte strings. It is pure
and synchronous: ``feed(chunk)`` returns the events that chunk completed (each
already applied, so ``event.block`` holds the block's snapshot), ``finish()``
flushes at a clean end of input.

Framing follows the provider: SSE for every API but Ollama, NDJSON for Ollama.
With ``provider="auto"`` the first non-blank byte decides: ``{`` means JSON lines
(Ollama, or a JSON error body), anything else SSE. JSON that spans several
lines (a pretty-printed error body) is joined until it decodes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .accumulate import Accumulator
from .errors import LimitExceeded, ProtocolError
from .events import ErrorEvent, Event
from .ndjson import NDJSONDecoder
from .providers import Parser, get_parser
from .providers.detect import AutoParser
from .response import ChatResponse
from .sse import SSEDecoder
from .think_blocks import ThinkTagFilter

DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024
DEFAULT_MAX_TOTAL_BYTES = 1024 * 1024 * 1024
_WHITESPACE = b" \t\r\n\xef\xbb\xbf"


class Pipeline:
    """Feed raw response bytes; get applied events; read the response.

    ``max_event_bytes`` bounds one SSE event or JSON line and
    ``max_total_bytes`` the whole body, so a hostile stream cannot eat memory;
    both raise :class:`~streamkit.errors.LimitExceeded`. :attr:`errors` lists
    the provider's in-stream errors. ``think_tags`` turns
    inline ``<think>...</think>`` text into thinking blocks (``True``, or an
    ``(open, close)`` tag pair; by default the dialect decides), and
    ``start_in_thinking`` is for models whose template already opened the tag. ``errors`` collects
    the provider's in-stream :class:`~streamkit.events.ErrorEvent` s; the
    stream layer turns the first into a ``ProviderError`` at the end.
    """

    def __init__(
        self,
        provider: str | Parser = "auto",
        *,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES,
        think_tags: bool | tuple[str, str] | None = None,
        start_in_thinking: bool = False,
        **parser_options: Any,
    ) -> None:
        self.parser: Parser = (
            get_parser(provider, **parser_options) if isinstance(provider, str) else provider
        )
        if think_tags is None:  # the dialect's default (vLLM, LM Studio... put <think> inline)
            think_tags = bool(getattr(self.parser, "think_tags", False))
        self._think: ThinkTagFilter | None = None
        if think_tags:
            tags = think_tags if isinstance(think_tags, tuple) else ("<think>", "</think>")
            self._think = ThinkTagFilter(*tags, start_in_thinking=start_in_thinking)
        self.accumulator = Accumulator()
        self.max_event_bytes = max_event_bytes
        self.max_total_bytes = max_total_bytes
        self.bytes_received = 0
        self.payloads = 0
        self._sse: SSEDecoder | None = None
        self._lines: NDJSONDecoder | None = None
        self._pending_json: list[bytes] = []
        self._finished = False

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

    # ------------------------------------------------------------ feeding

    def feed(self, chunk: bytes) -> list[Event]:
        """Events completed by one network chunk, already applied."""
        if not chunk:
            return []
        self.bytes_received += len(chunk)
        if self.bytes_received > self.max_total_bytes:
            raise LimitExceeded(
                f"stream body exceeded max_total_bytes={self.max_total_bytes}",
                limit="max_total_bytes", value=self.max_total_bytes, observed=self.bytes_received,
            )
        if self._sse is not None:
            return self._feed_sse_events(self._sse.feed_payloads(chunk))
        if self._lines is not None:
            return self._feed_lines(self._lines.feed(chunk))
        return self._choose_framing(chunk)

    def _choose_framing(self, chunk: bytes) -> list[Event]:
        framing = self.parser.framing
        if isinstance(self.parser, AutoParser):
            head = chunk.lstrip(_WHITESPACE)
            if not head:  # only whitespace so far: decide on a later chunk
                self.bytes_received -= len(chunk)
                return []
            framing = "ndjson" if head[:1] in (b"{", b"[") else "sse"
        if framing == "ndjson":
            self._lines = NDJSONDecoder(self.max_event_bytes)
            return self._feed_lines(self._lines.feed(chunk))
        self._sse = SSEDecoder(self.max_event_bytes)
        return self._feed_sse_events(self._sse.feed_payloads(chunk))

    def _feed_sse_events(self, sse_events: list[tuple[str, bytes]]) -> list[Event]:
        if not sse_events:
            return []
        self.payloads += len(sse_events)
        out: list[Event] = []
        try:
            self.parser.feed_into(sse_events, out)
        finally:  # apply what the chunk gave, also when a later payload in it was bad
            if out:
                if self._think is not None:
                    out = self._think.process(out)
                self.accumulator.apply_all(out)
        return out

    def _feed_lines(self, lines: list[bytes]) -> list[Event]:
        out: list[Event] = []
        for line in lines:
            if self._pending_json:
                self._pending_json.append(line)
                line = b"\n".join(self._pending_json)
            try:
                events = self.feed_payload(line)
            except ProtocolError:
                if len(line) > self.max_event_bytes:
                    raise
                if not self._pending_json:
                    self._pending_json.append(line)
                continue  # a JSON document spread over several lines: wait for more
            self._pending_json = []
            out += events
        return out

    def feed_payload(self, data: bytes | str, event: str | None = None) -> list[Event]:
        """Events of one already-framed payload (an SSE ``data`` with its event
        name, a JSON line), already applied. Used for httpx-sse sources."""
        self.payloads += 1
        events = self.parser.feed(data, event)
        if self._think is not None and events:
            events = self._think.process(events)
        if events:
            self.accumulator.apply_all(events)
        return events

    @property
    def errors(self) -> list[ErrorEvent]:
        """The provider's in-stream errors so far, in order."""
        return self.accumulator.errors

    def finish(self) -> list[Event]:
        """Flush framing and parser at a clean end of input (idempotent)."""
        if self._finished:
            return []
        self._finished = True
        out: list[Event] = []
        if self._sse is not None:
            out += self._feed_sse_events(self._sse.flush_payloads())
        if self._lines is not None:
            out += self._feed_lines(self._lines.flush())
        if self._pending_json:
            text = b"\n".join(self._pending_json)
            self._pending_json = []
            out += self.feed_payload(text)  # raises the ProtocolError if still invalid
        tail = self.parser.finish()
        if self._think is not None and tail:
            tail = self._think.process(tail)
        if tail:
            self.accumulator.apply_all(tail)
            out += tail
        return out


def replay(
    chunks: bytes | Iterable[bytes], provider: str | Parser = "auto", **options: Any
) -> tuple[list[Event], ChatResponse]:
    """Run recorded bytes (one ``bytes`` or an iterable of network chunks)
    through a :class:`Pipeline`; return every event and the final response."""
    pipeline = Pipeline(provider, **options)
    events: list[Event] = []
    for chunk in [chunks] if isinstance(chunks, bytes) else chunks:
        events += pipeline.feed(chunk)
    events += pipeline.finish()
    return events, pipeline.response
