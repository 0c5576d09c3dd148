"""The OpenAI Responses API stream (``POST /v1/responses`` with ``stream: true``).

Every payload is one typed event (``response.created``, ``response.output_text.delta``,
``response.output_item.done``...). The type is read from the payload's ``type`` field,
not the SSE ``event:`` line, because OpenRouter sends data-only framing; the SSE name
is only a fallback for a payload without one.

How the wire maps onto blocks
-----------------------------
The response's ``output`` is a list of *items* (a message, a reasoning item, a function
call, a web search...), addressed by ``output_index``; items hold *parts* (a message's
``content_index``, a reasoning item's ``summary_index``). Each part is its own block,
keyed by position first, because ids can be empty, repeated, or change between events
for the same item (OpenRouter's final reasoning item id differs from the streamed one);
:mod:`.items` says which block each item and part is, and how an event finds its item.
What only a stream says:

- ``output_text.annotation.added`` -> :class:`~streamkit.model.events.CitationDelta`
  (typed :class:`~streamkit.model.blocks.Citation` s: :mod:`.citations`);
- a reasoning item's ``encrypted_content`` goes on the item's first block;
- a server-side tool's progress events (``.searching``, ``.interpreting``...) set
  its RawBlock's ``metadata["progress"]``; each partial image of an image generation
  is its own complete image :class:`~streamkit.model.blocks.DataBlock`
  (``metadata["partial"] = True``), one block per partial, because a "latest
  replaces" snapshot cannot shrink a block (a later PNG can be smaller) and keeping
  every partial is lossless;
- ``response.audio.delta`` / ``audio.transcript.delta`` (no item id) -> one audio
  :class:`~streamkit.model.blocks.DataBlock` of ``audio_media_type``, closed once both
  ``audio.done`` and ``audio.transcript.done`` came (or at the end).

The eight streamed content kinds (text, refusal, summary, reasoning text, arguments,
custom tool input, audio, transcript) are one table, :data:`.deltas.CONTENT_STREAMS`:
one function handles every ``.delta`` and one every ``.done``.

Snapshots: part-level ``.done`` events (``output_text.done``, ``content_part.done``,
``function_call_arguments.done``...) are remembered, and a block is closed by its item's
``output_item.done`` with the item as the authoritative snapshot (falling back to the
remembered part), so a vendor that skips deltas still yields full content, and streamed
content is never replaced. Blocks still open at the terminal event are filled from the
final ``response.output``; output items that were never streamed at all become complete
blocks there. Reasoning blocks close at ``output_item.done`` rather than at their part's
``.done`` so the item's final ``encrypted_content`` can still land on them.

Lifecycle and blocks: a :class:`~streamkit.providers.ledger.BlockLedger` keyed by
:class:`~.items.PartKey` keeps both (this module keeps only what each event means). The
response starts at the first response object, or at a block that comes first: then the
:class:`~streamkit.model.events.ResponseStart` carries an id made up from the stream
(:class:`~streamkit.model.ids.StreamIds`) and the provider, and the late response object brings
the wire's id, model and metadata as :class:`~streamkit.model.events.ResponseMetadata`. It ends
either at ``response.completed`` / ``incomplete`` / ``failed`` (``terminated=True``) or at
:meth:`~OpenAIResponsesParser.finish` at a clean end of input without one
(``terminated=False``, honestly). Finish reason ``stop`` (``tool_calls`` when the output
has a function or custom tool call), ``length`` / ``content_filter`` from
``incomplete_details.reason``, ``error`` for ``failed`` (with an
:class:`~streamkit.model.events.ErrorEvent` from ``response.error`` unless the same error was
already reported by an ``error`` event). A trailing ``[DONE]`` (OpenRouter) sets
:attr:`OpenAIResponsesParser.done` but is not a response terminator. ``sequence_number``
is not required and a stream may begin with ``response.queued``. Once the response has
ended, nothing opens a block again: later payloads are kept in
``metadata["unknown_events"]`` (an ``error`` event is still reported).

Speed: a ``*.delta`` event for an open block is decoded straight into
:class:`~.deltas.DeltaEvent` (:mod:`.deltas`) and costs one dict lookup (the ledger's
open blocks) and one :class:`~streamkit.model.events.BlockDelta`; anything else takes
the general path, a lenient dict decode. ``fast_decode=False`` turns the typed decode
off; the tests run every recording both ways and compare.

Hostile input: every failure is a :class:`~streamkit.model.errors.ProtocolError` naming the
event: malformed JSON (with the byte offset), JSON nested deeper than
:data:`~streamkit.model.limits.MAX_JSON_DEPTH`, base64 audio that does not decode (dropping a
chunk would shift every later sample). Invalid UTF-8 is replaced (U+FFFD), as the SSE
decoder does. A wrongly typed field is treated as absent (an ``output_index`` that is
not an integer: the item is found by its id); a delta that is not text, a partial image
whose base64 does not decode, and any unknown event type are kept whole in the response's
``metadata["unknown_events"]`` (:func:`~streamkit.providers.unknown.unknown_payload`);
a final image ``result`` that does not decode stays in its item's RawBlock only.

Deliberately not kept: per-delta ``logprobs`` (the done part carries them all, kept in
``metadata["logprobs"]``), ``obfuscation`` padding and ``sequence_number``; the streamed
code / MCP argument / shell command deltas of server-side tools (the item's
``output_item.done`` carries the final text in the RawBlock). Unknown fields on a delta
event become block metadata; unknown fields of items and parts too, unless null
(:func:`~streamkit.providers.lossless.unmodelled`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Final

import msgspec

from ...model.blocks import (
    ContentBlock,
    DataBlock,
    RawBlock,
    ThinkingBlock,
    ToolCallBlock,
)
from ...model.errors import ProtocolError
from ...model.events import BlockDelta, CitationDelta, Event, MetadataDelta, UsageUpdate
from ...model.finish import FinishReason
from ...model.ids import StreamIds
from ...model.merge import streamed_text
from ..base import Framing, StreamParser, decode_json
from ..coerce import as_dict, as_int, as_list, as_str, mapping, path
from ..error_payloads import error_event
from ..ledger import BlockLedger, Phase
from ..lossless import unmodelled
from ..unknown import unknown_payload
from .citations import read_citation
from .deltas import (
    AUDIO_STREAMS,
    DELTA_EVENTS,
    DELTA_FIELDS,
    DONE_EVENTS,
    ContentStream,
    DeltaEvent,
    decode_delta_event,
    delta_event,
)
from .items import (
    AUDIO,
    AUDIO_KEY,
    CALL,
    CLIENT_CALLS,
    PARTIAL_IMAGE,
    PROGRESS_FIELDS,
    RAW,
    REFUSAL,
    TEXT,
    THINKING_KINDS,
    ItemReader,
    Outputs,
    Part,
    PartKey,
    PartSnapshot,
    decode_base64,
    event_extras,
    merged,
    with_content,
)
from .wire import FINISH_REASONS, NAME, TOOL_PROGRESS, TOOL_TEXT_EVENTS, map_usage

__all__ = ["OpenAIResponsesParser"]

# Fields of a response object read into the events (or reported elsewhere: its
# output as blocks, its usage, its error as an ErrorEvent), whatever else it holds
# being response metadata.
_RESPONSE_READ: Final = ("id", "model", "output", "output_text", "usage", "object", "error")


def _is_done_marker(data: bytes | str) -> bool:
    return data.strip() == (b"[DONE]" if isinstance(data, bytes) else "[DONE]")


# A handler of one event type: its events, or None to keep the payload as unknown.
Handler = Callable[[dict[str, Any], str], list[Event] | None]


class OpenAIResponsesParser(StreamParser):
    """Parser of OpenAI Responses API streams (and Perplexity's, DeepSeek's,
    OpenRouter's ``/responses``).

    ``provider`` is the registry name the responses are reported from.
    ``audio_media_type`` is the media type of ``response.audio.delta`` bytes, which the
    stream itself never states (it is the request's audio format). ``fast_decode``
    decodes delta events with a typed decoder first (the per-token case); turning it off
    gives the same events through the general path only.
    """

    framing: ClassVar[Framing] = "sse"

    def __init__(self, audio_media_type: str = "audio/pcm;rate=24000", *,
                 provider: str = NAME, fast_decode: bool = True) -> None:
        self.name = provider
        self.audio_media_type = audio_media_type
        self.fast_decode = fast_decode
        self._ids = StreamIds()
        self._ledger: BlockLedger[Part] = BlockLedger(provider, self._ids, slot=Part)
        # The open parts by key: the hot path's lookup. It is looked up with plain
        # tuples (equal to, and hashed as, the PartKey), which cost less to build.
        self._blocks = self._ledger.blocks
        self._parts: dict[PartKey, Part] = {}  # every part opened: the latest of each key
        self._reader = ItemReader(self._ids)
        self._done_marker = False  # OpenRouter's trailing [DONE] was seen
        self._outputs = Outputs()
        self._audio_done: set[str] = set()  # which halves of the open audio block are done
        self._response_id: str | None = None  # the wire's own (not the ledger's made-up one)
        self._model: str | None = None
        self._response_metadata: dict[str, Any] = {}
        self._errors: set[tuple[str, str | None]] = set()  # (message, code) reported
        self._handlers: dict[str, Handler] = {
            "response.created": self._on_response,
            "response.queued": self._on_response,
            "response.in_progress": self._on_response,
            "response.completed": self._on_terminal,
            "response.incomplete": self._on_terminal,
            "response.failed": self._on_terminal,
            "error": self._on_error,
            "response.output_item.added": self._on_item_added,
            "response.output_item.done": self._on_item_done,
            "response.content_part.added": self._on_content_part_added,
            "response.content_part.done": self._on_content_part_done,
            "response.reasoning_summary_part.added": self._on_summary_part_added,
            "response.reasoning_summary_part.done": self._on_summary_part_done,
            "response.output_text.annotation.added": self._on_annotation,
            "response.image_generation_call.partial_image": self._on_partial_image,
        }
        self._handlers.update(dict.fromkeys(DELTA_EVENTS, self._on_delta))
        self._handlers.update(dict.fromkeys(DONE_EVENTS, self._on_done))
        for tool, statuses in TOOL_PROGRESS.items():
            for status in statuses:
                self._handlers[f"response.{tool}.{status}"] = self._on_tool_progress
        self._handlers.update(dict.fromkeys(TOOL_TEXT_EVENTS, self._on_tool_text))

    # ------------------------------------------------------------ protocol

    @property
    def done(self) -> bool:
        """Whether a terminal event (or OpenRouter's ``[DONE]``) has been seen."""
        return self._ledger.phase is Phase.ENDED or self._done_marker

    def fast_delta(self, name: str, data: bytes | str) -> BlockDelta | None:
        """The per-token case: a ``*.delta`` event with exactly its documented
        fields (a typed decode into :class:`~.deltas.DeltaEvent`), for a block
        that is open, is one dict lookup and one BlockDelta. ``None`` (nothing
        changed) for anything else, or with ``fast_decode=False``: the general
        path, :meth:`_general`, decides. Audio that is not base64 raises the
        general path's ``InvalidBase64Error``."""
        if not self.fast_decode:
            return None
        try:
            wire = decode_delta_event(data)
        except (msgspec.DecodeError, RecursionError, UnicodeEncodeError):
            return None  # another shape, not JSON, or text holding a lone surrogate
        stream = DELTA_EVENTS.get(wire.type)
        if stream is None:
            return None
        if stream.part == AUDIO:  # the key _lookup_key gives, inlined
            part = self._blocks.get(AUDIO_KEY)
        else:
            position = wire.output_index
            if position is None or self._outputs.aliases:
                position = self._outputs.resolve(position, wire.item_id)
            sub_field = stream.sub_index_field
            sub_index = getattr(wire, sub_field) if sub_field else None
            part = self._blocks.get((position, stream.part, sub_index or 0))
        if part is None:
            return None
        return BlockDelta(index=part.index, delta=stream.delta(wire.delta))

    def finish(self) -> list[Event]:
        """Close what is open; end the response if no terminal event came."""
        if self._ledger.ended:
            return []
        out = self._close_items(None, cut_calls=False)
        self._ledger.finish(out, snapshot=self._pending)
        return out

    # ------------------------------------------------------------ decoding

    def _general(self, data: bytes | str, event: str | None) -> list[Event]:
        """The general path: any payload, decoded leniently and handled by its type."""
        self._ids.seed(data)  # the first payload names the stream's made-up ids
        try:
            payload = decode_json(data, event)
        except ProtocolError:
            if _is_done_marker(data):
                self._done_marker = True
                return []
            raise
        if type(payload) is not dict:
            return [unknown_payload(payload, event)]
        kind = payload.get("type")
        event_type = kind if type(kind) is str else event  # no type: the SSE event name says it
        handler = self._handlers.get(event_type) if event_type is not None else None
        if handler is None or event_type is None or (
                self._ledger.ended and event_type != "error"):
            return [unknown_payload(payload, event)]
        out = handler(payload, event_type)
        return [unknown_payload(payload, event)] if out is None else out

    # ------------------------------------------------------------ blocks

    def _open(self, key: PartKey, block: ContentBlock, out: list[Event]) -> Part:
        """Open a block for ``key`` (its BlockStart appended to ``out``; the
        ledger starts the response first if nothing did)."""
        part = self._ledger.open(key, block, out)
        part.key = key
        part.block_id = block.id
        self._parts[key] = part
        if key.kind == AUDIO:
            self._audio_done = set()
        else:
            self._outputs.item(key.position).parts[key] = None
        return part

    def _is_open(self, part: Part) -> bool:
        return self._blocks.get(part.key) is part

    def _ensure_open(self, key: PartKey,
                     make: Callable[[], ContentBlock]) -> tuple[int, list[Event]]:
        """The index of the open block for ``key``, opening one if needed."""
        part = self._blocks.get(key)
        if part is not None:
            return part.index, []
        out: list[Event] = []
        return self._open(key, make(), out).index, out

    def _announce(self, snapshot: PartSnapshot) -> list[Event]:
        """A part was announced (``*.added``): open its block (content streams next);
        content the announcement already holds is kept as the pending snapshot, so
        deltas that follow never duplicate it."""
        key, block = snapshot
        self._outputs.item(key.position)
        out: list[Event] = []
        part = self._blocks.get(key)
        if part is None:
            part = self._open(key, self._reader.empty_like(block), out)
        if streamed_text(block):
            part.pending = merged(part.pending, block)
        return out

    def _remember(self, snapshot: PartSnapshot) -> list[Event]:
        """A part-level ``.done``: keep its content as the part's snapshot; the block
        closes with its item (``output_item.done``) or at the end. A part that never
        streamed opens now; one already closed by its item has nothing left to fill."""
        key, block = snapshot
        part = self._parts.get(key)
        if part is None:
            self._outputs.item(key.position)
            out: list[Event] = []
            self._open(key, self._reader.empty_like(block), out).pending = block
            return out
        if self._is_open(part):
            part.pending = merged(part.pending, block)
        return []

    def _pending(self, part: Part) -> ContentBlock | None:
        """The snapshot a part closes with at the end: its pending one."""
        return part.pending

    def _cut(self, part: Part, snapshot: ContentBlock | None,
             cut_calls: bool) -> ContentBlock | None:
        """A tool call still open when the response ends incomplete was cut off:
        mark it, whatever snapshot closes it."""
        if not cut_calls or part.key.kind != CALL:
            return snapshot
        if not isinstance(snapshot, ToolCallBlock):
            return ToolCallBlock(part.block_id, incomplete=True)
        snapshot.incomplete = True
        return snapshot

    # ------------------------------------------------------------ streamed content

    def _lookup_key(self, stream: ContentStream, wire: DeltaEvent) -> tuple[int, str, int]:
        """The key of the part a delta grows, as a plain tuple (see ``_blocks``)."""
        if stream.part == AUDIO:
            return AUDIO_KEY
        position = wire.output_index
        if position is None or self._outputs.aliases:
            position = self._outputs.resolve(position, wire.item_id)
        sub_index = getattr(wire, stream.sub_index_field) if stream.sub_index_field else None
        return (position, stream.part, sub_index or 0)

    def _on_delta(self, payload: dict[str, Any], event_type: str) -> list[Event] | None:
        """Any ``*.delta`` of :data:`~.deltas.CONTENT_STREAMS`; its unknown fields
        become block metadata."""
        wire = delta_event(payload, event_type)
        if wire is None:  # a delta that is not text
            return None
        stream = DELTA_EVENTS[event_type]
        delta = stream.delta(wire.delta)  # first: a bad audio chunk opens nothing
        key = PartKey._make(self._lookup_key(stream, wire))
        index, out = self._ensure_open(key, lambda: self._new_block(stream, key, wire.item_id))
        out.append(BlockDelta(index=index, delta=delta))
        unknown_fields = event_extras(payload, DELTA_FIELDS)
        if unknown_fields:
            out.append(BlockDelta(index=index, delta=MetadataDelta(unknown_fields)))
        return out

    def _new_block(self, stream: ContentStream, key: PartKey,
                   item_id: str | None) -> ContentBlock:
        """The empty block a part of ``stream`` opens with; the events name its item."""
        if key.kind == AUDIO:
            return DataBlock(id=self._ids.make("data"), media_type=self.audio_media_type)
        record = self._outputs.item(key.position, item_id, stream.item_type)
        return self._reader.part_block(key, self._outputs.item_id(key.position, item_id),
                                       record.added, custom=stream.item_type == "custom_tool_call")

    def _on_done(self, payload: dict[str, Any], event_type: str) -> list[Event] | None:
        """Any ``*.done`` of :data:`~.deltas.CONTENT_STREAMS`: the part's whole content,
        remembered as its snapshot (audio: one half of the audio block is done)."""
        stream = DONE_EVENTS[event_type]
        if stream.done_field is None:
            return self._audio_half_done(stream.prefix)
        item_id = as_str(payload.get("item_id"))
        position = self._outputs.resolve(as_int(payload.get("output_index")), item_id)
        sub_field = stream.sub_index_field
        sub_index = (as_int(payload.get(sub_field)) if sub_field else None) or 0
        key = PartKey(position, stream.part, sub_index)
        block = with_content(self._new_block(stream, key, item_id),
                             as_str(payload.get(stream.done_field)) or "")
        if isinstance(block, ToolCallBlock):
            block.name = block.name or as_str(payload.get("name")) or ""
        elif key.kind in (TEXT, REFUSAL) and payload.get("logprobs"):
            block.metadata["logprobs"] = payload["logprobs"]
        return self._remember(PartSnapshot(key, block))

    def _audio_half_done(self, prefix: str) -> list[Event]:
        """The audio block ends when both its bytes and its transcript are done
        (neither event carries content; a stream without one closes at the end)."""
        part = self._blocks.get(AUDIO_KEY)
        if part is None:
            return []
        self._audio_done.add(prefix)
        if self._audio_done < AUDIO_STREAMS:
            return []
        out: list[Event] = []
        self._ledger.close(AUDIO_KEY, out)
        return out

    def _on_annotation(self, payload: dict[str, Any], event_type: str) -> list[Event] | None:
        annotation = as_dict(payload.get("annotation"))
        if annotation is None:
            return None
        item_id = as_str(payload.get("item_id"))
        position = self._outputs.resolve(as_int(payload.get("output_index")), item_id)
        key = PartKey(position, TEXT, as_int(payload.get("content_index")) or 0)
        stream = DELTA_EVENTS["response.output_text.delta"]
        index, out = self._ensure_open(key, lambda: self._new_block(stream, key, item_id))
        out.append(BlockDelta(index=index, delta=CitationDelta(read_citation(annotation))))
        return out

    # ------------------------------------------------------------ parts

    def _content_part(self, payload: dict[str, Any]) -> PartSnapshot:
        item_id = as_str(payload.get("item_id"))
        position = self._outputs.resolve(as_int(payload.get("output_index")), item_id)
        return self._reader.content_part(position, as_int(payload.get("content_index")) or 0,
                                         mapping(payload.get("part")),
                                         self._outputs.item_id(position, item_id),
                                         self._outputs.item_type(position))

    def _on_content_part_added(self, payload: dict[str, Any], event_type: str) -> list[Event]:
        return self._announce(self._content_part(payload))

    def _on_content_part_done(self, payload: dict[str, Any], event_type: str) -> list[Event]:
        return self._remember(self._content_part(payload))

    def _summary_part(self, payload: dict[str, Any]) -> PartSnapshot:
        item_id = as_str(payload.get("item_id"))
        position = self._outputs.resolve(as_int(payload.get("output_index")), item_id)
        return self._reader.summary_part(position, as_int(payload.get("summary_index")) or 0,
                                         mapping(payload.get("part")),
                                         self._outputs.item_id(position, item_id))

    def _on_summary_part_added(self, payload: dict[str, Any], event_type: str) -> list[Event]:
        return self._announce(self._summary_part(payload))

    def _on_summary_part_done(self, payload: dict[str, Any], event_type: str) -> list[Event]:
        return self._remember(self._summary_part(payload))

    # ------------------------------------------------------------ items

    def _item_snapshots(self, position: int, item: dict[str, Any]) -> list[PartSnapshot]:
        """The blocks an item implies (none for ``{}``: only events, never the item
        itself, named this position)."""
        if not item:
            return []
        record = self._outputs.items.get(position)
        call = self._parts.get(PartKey(position, CALL, 0))
        return self._reader.item(position, item,
                                 self._outputs.item_id(position, as_str(item.get("id"))),
                                 has_parts=record is not None and bool(record.parts),
                                 call_block_id=call.block_id if call is not None else None)

    def _on_item_added(self, payload: dict[str, Any], event_type: str) -> list[Event]:
        """Open the blocks the item already implies: a tool call, a raw item, and parts
        that carry content (kept as pending, so deltas never duplicate it)."""
        item = mapping(payload.get("item"))
        position = self._outputs.add(as_int(payload.get("output_index")), item)
        out: list[Event] = []
        for snapshot in self._item_snapshots(position, item):
            if snapshot.key.kind in (CALL, RAW) or streamed_text(snapshot.block):
                out += self._announce(snapshot)
        return out

    def _on_item_done(self, payload: dict[str, Any], event_type: str) -> list[Event] | None:
        item = mapping(payload.get("item"))
        item_id = as_str(item.get("id")) or None
        position = self._outputs.resolve(as_int(payload.get("output_index")), item_id)
        record = self._outputs.item(position, item_id, as_str(item.get("type")))
        if record.done:  # a repeated done: nothing left open to fill
            return None
        return self._close_item(position, item, cut_calls=False)

    def _close_item(self, position: int, item: dict[str, Any], *,
                    cut_calls: bool) -> list[Event]:
        """Close item ``position`` with a final snapshot of it (``output_item.done``,
        the terminal response): open blocks close with the item's content (else their
        pending part snapshot); parts never streamed become complete blocks."""
        record = self._outputs.items[position]
        snapshots = self._item_snapshots(position, item)
        record.done = True
        closing: dict[PartKey, ContentBlock | None] = {}
        new: list[PartSnapshot] = []
        for key, block in snapshots:
            part = self._parts.get(key)
            if part is None:
                new.append(PartSnapshot(key, block))
            elif self._is_open(part):
                closing[key] = merged(block, part.pending)
                if item.get("status") != "completed":  # the final item may say it finished
                    closing[key] = self._cut(part, closing[key], cut_calls)
        for key in record.parts:
            part = self._parts[key]
            if self._is_open(part) and key not in closing:
                closing[key] = self._cut(part, part.pending, cut_calls)
        order = sorted(closing, key=lambda key: self._parts[key].index)
        encrypted = as_str(item.get("encrypted_content"))
        if encrypted:
            self._attach_encrypted(encrypted, order, closing, new)
        out: list[Event] = []
        for key in order:
            self._ledger.close(key, out, closing[key])
        for key, block in new:
            self._open(key, block, out)
            self._ledger.close(key, out)
        return out

    def _attach_encrypted(self, encrypted: str, order: list[PartKey],
                          closing: dict[PartKey, ContentBlock | None],
                          new: list[PartSnapshot]) -> None:
        """Put a reasoning item's ``encrypted_content`` on its first thinking block
        (the open ones close before the new ones open, so they come first)."""
        for key in order:
            if key.kind in THINKING_KINDS:
                block = closing[key]
                if not isinstance(block, ThinkingBlock):
                    block = closing[key] = ThinkingBlock(id=self._ids.make("think"), metadata={})
                block.encrypted = encrypted
                return
        for snapshot in new:
            if isinstance(snapshot.block, ThinkingBlock):
                snapshot.block.encrypted = encrypted
                return

    def _close_items(self, output: list[Any] | None, *, cut_calls: bool) -> list[Event]:
        """Fill and close every item at the end: from the final output when the
        terminal event has one, else from what ``output_item.added`` said."""
        out: list[Event] = []
        used: set[int] = set()
        for index, raw_item in enumerate(output or ()):
            item = mapping(raw_item)
            position = self._outputs.match(index, item, used)
            used.add(position)
            record = self._outputs.item(position, as_str(item.get("id")),
                                        as_str(item.get("type")))
            if not record.done:
                out += self._close_item(position, item, cut_calls=cut_calls)
        for position in sorted(self._outputs.items):
            record = self._outputs.items[position]
            if not record.done and (record.parts or record.added):
                out += self._close_item(position, record.added, cut_calls=cut_calls)
        return out

    # ------------------------------------------------------------ server-side tools

    def _on_tool_progress(self, payload: dict[str, Any], event_type: str) -> list[Event]:
        """``response.<tool>.<status>``: the status goes on the item's RawBlock."""
        tool, _, status = event_type[len("response."):].rpartition(".")
        item_id = as_str(payload.get("item_id"))
        position = self._outputs.resolve(as_int(payload.get("output_index")), item_id)
        self._outputs.item(position, item_id, tool)
        key = PartKey(position, RAW, 0)
        part = self._parts.get(key)
        if part is not None and not self._is_open(part):
            return []  # the item is done: its final state is in the closed block
        index, out = self._ensure_open(key, lambda: RawBlock(
            tool, {"type": tool, "id": item_id}, id=item_id or self._ids.make("raw")))
        metadata = {"progress": status, **event_extras(payload, PROGRESS_FIELDS)}
        out.append(BlockDelta(index=index, delta=MetadataDelta(metadata)))
        return out

    def _on_tool_text(self, payload: dict[str, Any], event_type: str) -> list[Event]:
        return []  # streamed fields of a server-side tool item: output_item.done has them

    def _on_partial_image(self, payload: dict[str, Any], event_type: str) -> list[Event] | None:
        """One partial image: a complete image block of its own. Base64 that does not
        decode is not an image: the payload is kept whole instead."""
        text = as_str(payload.get("partial_image_b64"))
        image = decode_base64(text) if text is not None else None
        if image is None:
            return None
        item_id = as_str(payload.get("item_id"))
        position = self._outputs.resolve(as_int(payload.get("output_index")), item_id)
        record = self._outputs.item(position, item_id, "image_generation_call")
        key, block = self._reader.partial_image(position, image, payload, record,
                                                self._outputs.item_id(position, item_id))
        if key in self._parts:  # a repeated partial index: a new key, never a mismatch
            key = PartKey(position, PARTIAL_IMAGE, max(k.sub_index for k in record.parts) + 1)
        out: list[Event] = []
        self._open(key, block, out)
        self._ledger.close(key, out)
        return out

    # ------------------------------------------------------------ response level

    def _response(self, response: dict[str, Any]) -> list[Event]:
        """The ResponseStart at the first response object; afterwards, the
        response-level fields that changed (the first id and model are kept)."""
        response_id = as_str(response.get("id"))
        model = as_str(response.get("model"))
        read = {key: response.get(key) for key in _RESPONSE_READ}
        read.update(id=response_id, model=model, output=as_list(response.get("output")),
                    usage=as_dict(response.get("usage")))
        fields = unmodelled(response, read)
        response_id, model = response_id or None, model or None
        out: list[Event] = []
        if not self._ledger.started:
            self._response_id, self._model, self._response_metadata = response_id, model, fields
            self._ledger.start(out, id=response_id, model=model, metadata=dict(fields))
        else:
            changed = {key: value for key, value in fields.items()
                       if self._response_metadata.get(key) != value}
            if response_id and self._response_id and response_id != self._response_id:
                changed["final_response_id"] = response_id  # keep the first id; record this one
            new_id = response_id if response_id and not self._response_id else None
            new_model = model if model and not self._model else None
            self._response_metadata.update(changed)
            self._response_id = self._response_id or new_id
            self._model = self._model or new_model
            self._ledger.start(out, id=new_id, model=new_model, metadata=changed)
        usage = read["usage"]
        if usage is not None:
            out.append(UsageUpdate(usage=map_usage(usage)))
        return out

    def _on_response(self, payload: dict[str, Any], event_type: str) -> list[Event] | None:
        """``response.created`` / ``queued`` / ``in_progress``."""
        response = as_dict(payload.get("response"))
        return self._response(response) if response is not None else None

    def _on_terminal(self, payload: dict[str, Any], event_type: str) -> list[Event] | None:
        """``response.completed`` / ``incomplete`` / ``failed``: close every item from
        the final output, then end the response."""
        response = as_dict(payload.get("response"))
        if response is None:
            return None
        status = event_type.rpartition(".")[2]
        out = self._response(response)
        output = as_list(response.get("output"))
        cut_calls = status == "incomplete"
        out += self._close_items(output, cut_calls=cut_calls)
        self._ledger.close_all(out, lambda part: self._cut(part, part.pending, cut_calls))
        if status == "failed":
            self._failed_error(response, out)
        stop_reason = status
        if status == "incomplete":
            stop_reason = as_str(path(response, "incomplete_details", "reason")) or status
        finish = FINISH_REASONS.get(stop_reason, FinishReason.UNKNOWN)
        if finish is FinishReason.STOP and self._has_client_call(output):
            finish = FinishReason.TOOL_CALLS
        self._ledger.stop_reason = stop_reason
        self._ledger.end(out, finish)
        return out

    def _has_client_call(self, output: list[Any] | None) -> bool:
        """Whether the caller has tools to run: the final output says so when it lists
        items; otherwise (an empty or missing output) the streamed items do."""
        if output:
            return any(as_str(mapping(item).get("type")) in CLIENT_CALLS for item in output)
        return any(key.kind == CALL for key in self._parts)

    def _on_error(self, payload: dict[str, Any], event_type: str) -> list[Event]:
        error = payload.get("error")
        if type(error) is not dict:  # the SDK's shape: code / message / param at the top
            error = {key: value for key, value in payload.items() if key != "type"}
        out: list[Event] = []
        self._error(error, payload, out)
        return out

    def _failed_error(self, response: dict[str, Any], out: list[Event]) -> None:
        error = as_dict(response.get("error"))
        if error is not None:
            self._error(error, error, out)
        else:
            self._error({"message": "the response failed"}, None, out)

    def _error(self, error: dict[str, Any], raw: Any, out: list[Event]) -> None:
        """One ErrorEvent per distinct error: OpenAI reports a failure both as an
        ``error`` event and in ``response.failed``."""
        event = error_event(error, raw)
        reported = (event.message, event.code)
        if reported not in self._errors:
            self._errors.add(reported)
            self._ledger.error(event, out)
