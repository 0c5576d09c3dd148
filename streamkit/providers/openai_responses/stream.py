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
for the same item (OpenRouter's final reasoning item id differs from the streamed one):

- message ``output_text`` part -> :class:`~streamkit.blocks.TextBlock`
  (``metadata["item_id"]``); ``refusal`` part -> ``TextBlock(refusal=True)``;
  ``output_text.annotation.added`` -> :class:`~streamkit.events.CitationDelta`;
- reasoning summary part -> :class:`~streamkit.blocks.ThinkingBlock` with metadata
  ``{"item_id", "summary_index", "kind": "summary"}``; raw ``reasoning_text`` part ->
  ``kind: "reasoning_text"`` with ``content_index``. The item's ``encrypted_content``
  goes on the item's first block; a reasoning item with no visible part at all still
  gets one ThinkingBlock (``kind: "item"``) so the item can be sent back;
- ``function_call`` / ``custom_tool_call`` -> :class:`~streamkit.blocks.ToolCallBlock`
  (id = ``call_id``, name from ``output_item.added``; a custom tool's ``input`` is raw
  text, marked ``metadata["custom"] = True``);
- any other item (``web_search_call``, ``code_interpreter_call``, ``mcp_call``,
  ``image_generation_call``, ``computer_call``...) -> :class:`~streamkit.blocks.RawBlock`
  ``(kind=item type, data=item)``, updated from ``output_item.done`` (the RawBlock
  rule of :func:`~streamkit.merge.apply_snapshot`); its progress events (``.searching``,
  ``.interpreting``...) set ``metadata["progress"]``. Each partial image of an image
  generation is its own complete image :class:`~streamkit.blocks.DataBlock`
  (``metadata["partial"] = True``) and the final ``result`` one more; one block per
  partial, because a "latest replaces" snapshot cannot shrink a block (a later PNG can be
  smaller) and keeping every partial is lossless;
- ``response.audio.delta`` / ``audio.transcript.delta`` (no item id) -> one audio
  :class:`~streamkit.blocks.DataBlock` of ``audio_media_type``, closed once both
  ``audio.done`` and ``audio.transcript.done`` came (or at the end).

Snapshots: part-level ``.done`` events (``output_text.done``, ``content_part.done``,
``function_call_arguments.done``...) are remembered, and a block is closed by its item's
``output_item.done`` with the item as the authoritative snapshot (falling back to the
remembered part), so a vendor that skips deltas still yields full content, and streamed
content is never replaced. Blocks still open at the terminal event are filled from the
final ``response.output``; output items that were never streamed at all become complete
blocks there. Reasoning blocks close at ``output_item.done`` rather than at their part's
``.done`` so the item's final ``encrypted_content`` can still land on them.

Positions: an event without ``output_index`` finds its item by ``item_id``, else the
latest item; an ``output_item.added`` that reuses the position of a finished item (a
vendor numbering every item 0) starts a new position that its later events follow.

Speed: every ``*.delta`` event is decoded straight into a small ``msgspec.Struct`` that
forbids unknown fields, so a plain text delta costs one typed decode, one dict lookup
and one :class:`~streamkit.events.BlockDelta`; anything else (other events, vendor
extras, mistyped fields) falls back to a lenient dict decode.

Ending: ``response.completed`` / ``incomplete`` / ``failed`` is the terminator
(``terminated=True``): finish reason ``stop`` (``tool_calls`` when the output has a
function or custom tool call), ``length`` / ``content_filter`` from
``incomplete_details.reason``, ``error`` for ``failed`` (with an
:class:`~streamkit.events.ErrorEvent` from ``response.error`` unless the same error was
already reported by an ``error`` event). A trailing ``[DONE]`` (OpenRouter) sets
:attr:`OpenAIResponsesParser.done` but is not a response terminator: without a terminal
event, :meth:`~OpenAIResponsesParser.finish` ends with ``terminated=False``, honestly.
``sequence_number`` is not required and a stream may begin with ``response.queued``.

Deliberately not kept: per-delta ``logprobs`` (the done part carries them all, kept in
``metadata["logprobs"]``), ``obfuscation`` padding and ``sequence_number``; the streamed
code / MCP argument / shell command deltas of server-side tools (the item's
``output_item.done`` carries the final text in the RawBlock). Unknown fields on a delta
event become block metadata; unknown event types are kept whole in the response's
``metadata["unknown_events"]`` (one growing list, never copied).
"""

from __future__ import annotations

import binascii
from collections.abc import Callable
from typing import Any, ClassVar

import msgspec

from ...blocks import (
    Base64Source,
    Block,
    ContentBlock,
    DataBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)
from ...errors import ProtocolError
from ...events import (
    BlockDelta,
    BlockEnd,
    BlockStart,
    CitationDelta,
    DataDelta,
    ErrorEvent,
    Event,
    MetadataDelta,
    ResponseEnd,
    ResponseMetadata,
    ResponseStart,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
    TranscriptDelta,
    UsageUpdate,
)
from ...finish import FinishReason
from ...merge import apply_snapshot
from ...usage import ChatUsage
from ..base import Framing, decode_json

__all__ = ["OpenAIResponsesParser"]

# Part kinds: the middle element of a block key (output_index, kind, sub_index).
_TEXT = "text"
_REFUSAL = "refusal"
_SUMMARY = "summary"
_REASONING = "reasoning_text"
_CALL = "call"
_RAW = "raw"
_PART = "part"  # a message content part of a type streamkit does not model
_IMAGE = "image"
_PARTIAL_IMAGE = "partial_image"
_ITEM = "item"  # a reasoning item with no visible part (encrypted content only)

Key = tuple[int, str, int]

_CLIENT_CALLS = frozenset({"function_call", "custom_tool_call"})
_INCOMPLETE_REASONS = {"max_output_tokens": "length", "content_filter": "content_filter"}
# Response-level keys that are not metadata: content (output), or reported elsewhere.
_NOT_METADATA = frozenset({"id", "model", "output", "output_text", "usage", "object", "error"})
# Fields of delta events that carry nothing worth keeping per chunk.
_DELTA_FIELDS = frozenset({
    "type", "item_id", "output_index", "content_index", "summary_index", "delta",
    "logprobs", "obfuscation", "sequence_number",
})
# Server-side tools whose lifecycle events are `response.<tool>.<status>`.
_TOOL_PROGRESS = {
    "web_search_call": ("in_progress", "searching", "completed"),
    "file_search_call": ("in_progress", "searching", "completed"),
    "code_interpreter_call": ("in_progress", "interpreting", "completed"),
    "image_generation_call": ("in_progress", "generating", "completed"),
    "mcp_call": ("in_progress", "completed", "failed"),
    "mcp_list_tools": ("in_progress", "completed", "failed"),
    "compaction": ("compacting",),
}
# Streamed text of server-side tool fields: the item's output_item.done has it whole.
_TOOL_TEXT_EVENTS = (
    "response.code_interpreter_call_code.delta", "response.code_interpreter_call_code.done",
    "response.mcp_call_arguments.delta", "response.mcp_call_arguments.done",
    "response.shell_call_command.added", "response.shell_call_command.delta",
    "response.shell_call_command.done", "response.shell_call_output_content.delta",
    "response.shell_call_output_content.done",
)


class _Delta(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """The hot-path shape of every ``*.delta`` event.

    ``forbid_unknown_fields`` makes the typed decode exact: a payload with any other
    field (an ``item``, a ``response``, a vendor extra) or an unexpected type fails
    fast and takes the lenient dict path instead, so nothing is dropped or rejected.
    """

    type: str
    delta: str = ""
    output_index: int | None = None
    content_index: int | None = None
    summary_index: int | None = None
    item_id: str | None = None
    sequence_number: int | None = None
    logprobs: Any = None
    obfuscation: str | None = None


_DELTA_DECODER = msgspec.json.Decoder(_Delta)
_JSON = msgspec.json.Decoder()


class _Item:
    """What the parser knows of one output item: its type, id, the item as
    ``output_item.added`` sent it (name, call_id), and its part keys."""

    __slots__ = ("added", "done", "id", "keys", "type")

    def __init__(self, type: str | None, id: str | None, added: dict[str, Any]) -> None:
        self.type = type
        self.id = id
        self.added = added
        self.keys: list[Key] = []
        self.done = False


class _Part:
    """One block's bookkeeping: its index, whether it is open, the id it opened
    with, and the latest part-level ``.done`` snapshot (never content deltas)."""

    __slots__ = ("block_id", "index", "key", "open", "pending")

    def __init__(self, index: int, key: Key, block_id: str) -> None:
        self.index = index
        self.key = key
        self.block_id = block_id
        self.open = True
        self.pending: ContentBlock | None = None


def _int(value: Any) -> int | None:
    return value if type(value) is int else None


def _str(value: Any) -> str | None:
    return value if type(value) is str else None


def _dict(value: Any) -> dict[str, Any]:
    return value if type(value) is dict else {}


def _list(value: Any) -> list[Any]:
    return value if type(value) is list else []


def _extras(obj: dict[str, Any], known: frozenset[str]) -> dict[str, Any]:
    """The fields of ``obj`` streamkit does not map, kept as metadata."""
    return {k: v for k, v in obj.items() if k not in known}


def _merged(current: ContentBlock | None, other: ContentBlock | None) -> ContentBlock | None:
    """Two snapshots of one part (an item's text, a part's ``.done``) merged by the
    accumulator's own rule: the fuller content wins, fields only one has are kept."""
    if current is None:
        return other
    if other is not None and type(other) is type(current):
        apply_snapshot(current, other)
    return current


def _content_of(block: Block) -> str:
    if isinstance(block, TextBlock):
        return block.text
    if isinstance(block, ThinkingBlock):
        return block.thinking
    if isinstance(block, ToolCallBlock):
        return block.input
    return ""


def _empty_like(block: ContentBlock) -> ContentBlock:
    """The block to open for a part whose content will stream (or arrive in a
    snapshot): identity and metadata, no content. Raw items and images are
    complete when they open."""
    # An item's status is in progress when it opens; the done snapshot brings the final one.
    meta = {k: v for k, v in block.metadata.items() if k != "status"}
    if isinstance(block, TextBlock):
        return TextBlock(refusal=block.refusal, metadata=meta)
    if isinstance(block, ThinkingBlock):
        return ThinkingBlock(metadata=meta)
    if isinstance(block, ToolCallBlock):
        return ToolCallBlock(block.id, block.name, metadata=meta)
    return block


def _audio_bytes(b64: str) -> bytes:
    """Decode one audio delta; corrupt base64 is a wire error, never silent loss."""
    try:
        return binascii.a2b_base64(b64)
    except binascii.Error as exc:
        raise ProtocolError(f"invalid base64 in response.audio.delta: {exc}",
                            event="response.audio.delta", raw=b64) from exc


def _media_type(output_format: Any) -> str:
    fmt = _str(output_format) or "png"
    return fmt if "/" in fmt else f"image/{fmt}"


class OpenAIResponsesParser:
    """Parser of OpenAI Responses API streams (and DeepSeek's / OpenRouter's ``/responses``).

    ``audio_media_type`` is the media type of ``response.audio.delta`` bytes, which the
    stream itself never states (it is the request's audio format).
    """

    name: ClassVar[str] = "openai-responses"
    framing: ClassVar[Framing] = "sse"

    def __init__(self, audio_media_type: str = "audio/pcm;rate=24000") -> None:
        self.audio_media_type = audio_media_type
        self._next_index = 0
        self._live: dict[Key, int] = {}  # open parts only: the hot-path lookup
        self._parts: dict[Key, _Part] = {}
        self._open: dict[int, _Part] = {}
        self._items: dict[int, _Item] = {}
        self._oi_by_id: dict[str, int] = {}
        self._alias: dict[int, int] = {}  # a reused output_index -> the new item's position
        self._last_oi = 0
        self._audio: _Part | None = None
        self._audio_done = False
        self._transcript_done = False
        self._started = False
        self._response_id: str | None = None
        self._response_meta: dict[str, Any] = {}
        self._ended = False  # a ResponseEnd was emitted (terminal event or finish())
        self._terminated = False  # response.completed / incomplete / failed seen
        self._saw_done = False
        self._ending_incomplete = False
        self._finish_reason: str | None = None
        self._errors: list[tuple[Any, Any]] = []
        self._unknown: list[Any] = []
        self._fast: dict[str, Callable[[_Delta], list[Event]]] = {
            "response.output_text.delta": self._fast_text,
            "response.reasoning_summary_text.delta": self._fast_summary,
            "response.reasoning_text.delta": self._fast_reasoning,
            "response.function_call_arguments.delta": self._fast_arguments,
            "response.custom_tool_call_input.delta": self._fast_custom_input,
            "response.refusal.delta": self._fast_refusal,
            "response.audio.delta": self._fast_audio,
            "response.audio.transcript.delta": self._fast_transcript,
        }
        self._handlers: dict[str, Callable[[dict[str, Any]], list[Event]]] = {
            "response.created": self._on_lifecycle,
            "response.queued": self._on_lifecycle,
            "response.in_progress": self._on_lifecycle,
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
            "response.output_text.delta": self._on_text_delta,
            "response.output_text.done": self._on_text_done,
            "response.output_text.annotation.added": self._on_annotation,
            "response.refusal.delta": self._on_refusal_delta,
            "response.refusal.done": self._on_refusal_done,
            "response.reasoning_summary_text.delta": self._on_summary_delta,
            "response.reasoning_summary_text.done": self._on_summary_done,
            "response.reasoning_text.delta": self._on_reasoning_delta,
            "response.reasoning_text.done": self._on_reasoning_done,
            "response.function_call_arguments.delta": self._on_arguments_delta,
            "response.function_call_arguments.done": self._on_arguments_done,
            "response.custom_tool_call_input.delta": self._on_custom_input_delta,
            "response.custom_tool_call_input.done": self._on_custom_input_done,
            "response.audio.delta": self._on_audio_delta,
            "response.audio.transcript.delta": self._on_transcript_delta,
            "response.audio.done": self._on_audio_done,
            "response.audio.transcript.done": self._on_transcript_done,
            "response.image_generation_call.partial_image": self._on_partial_image,
        }
        for tool, statuses in _TOOL_PROGRESS.items():
            for status in statuses:
                self._handlers[f"response.{tool}.{status}"] = self._on_tool_progress
        for name in _TOOL_TEXT_EVENTS:
            self._handlers[name] = self._on_tool_text

    # ------------------------------------------------------------ protocol

    @property
    def done(self) -> bool:
        """Whether a terminal event (or OpenRouter's ``[DONE]``) has been seen."""
        return self._terminated or self._saw_done

    def feed(self, data: bytes | str, event: str | None = None) -> list[Event]:
        """Events implied by one SSE payload."""
        try:
            fast = _DELTA_DECODER.decode(data)
        except (msgspec.ValidationError, msgspec.DecodeError):
            return self._feed_slow(data, event)
        handler = self._fast.get(fast.type)
        if handler is None:  # a small event with only delta-like fields: decode leniently
            return self._feed_slow(data, event)
        return handler(fast)

    def finish(self) -> list[Event]:
        """Close what is open; end the response if no terminal event came."""
        out: list[Event] = []
        if not self._ended:
            out += self._close_items(None)
        out += self._close_open()
        if not self._ended:
            self._ended = True
            finish = FinishReason.parse(self._finish_reason or "unknown")
            out.append(ResponseEnd(finish_reason=finish,
                                   terminated=False))
        return out

    # ------------------------------------------------------------ decoding

    def _feed_slow(self, data: bytes | str, event: str | None) -> list[Event]:
        try:
            payload = _JSON.decode(data)
        except msgspec.DecodeError:
            stripped = data.strip()
            if stripped == ("[DONE]" if isinstance(stripped, str) else b"[DONE]"):
                self._saw_done = True
                return []
            decode_json(data, event)  # raises ProtocolError with the offset
            raise  # pragma: no cover - decode_json always raises here
        if type(payload) is not dict:
            return self._keep_unknown(payload)
        kind = payload.get("type")
        if type(kind) is not str:  # no type in the payload: the SSE event name says it
            handler = self._handlers.get(event) if event else None
            if handler is None:
                return self._keep_unknown(payload)
            payload["type"] = event  # handlers read their event type from the payload
            return handler(payload)
        handler = self._handlers.get(kind)
        if handler is None:
            return self._keep_unknown(payload)
        return handler(payload)

    def _keep_unknown(self, payload: Any) -> list[Event]:
        """An event type streamkit does not know: kept whole, never a crash."""
        self._unknown.append(payload)
        return [ResponseMetadata(metadata={"unknown_events": self._unknown})]

    # ------------------------------------------------------------ positions

    def _resolve(self, output_index: Any, item_id: Any) -> int:
        """The output index of an event: its own, else its item id's, else the
        latest item's (ids can be missing or change; positions rarely do)."""
        if type(output_index) is int:
            return self._alias.get(output_index, output_index) if self._alias else output_index
        if type(item_id) is str and item_id in self._oi_by_id:
            return self._oi_by_id[item_id]
        return self._last_oi

    def _item(self, oi: int, item_id: str | None = None, kind: str | None = None) -> _Item:
        item = self._items.get(oi)
        if item is None:
            item = self._items[oi] = _Item(kind, item_id, {})
            if item_id:
                self._oi_by_id.setdefault(item_id, oi)
            self._last_oi = oi
        elif item.type is None:
            item.type = kind
        return item

    def _new_oi(self) -> int:
        return max(self._items, default=-1) + 1

    def _item_id(self, oi: int, event_item_id: Any) -> str | None:
        item = self._items.get(oi)
        if item is not None and item.id:
            return item.id
        return _str(event_item_id) or None

    # ------------------------------------------------------------ blocks

    def _open_part(self, key: Key, block: ContentBlock) -> BlockStart:
        index = self._next_index
        self._next_index += 1
        part = _Part(index, key, block.id)
        self._parts[key] = part
        self._open[index] = part
        if key[1] != "audio":
            self._live[key] = index
            keys = self._item(key[0]).keys
            if key not in keys:
                keys.append(key)
        return BlockStart(index=index, block=block)

    def _close_part(self, part: _Part, snapshot: ContentBlock | None) -> BlockEnd:
        part.open = False
        del self._open[part.index]
        if self._live.get(part.key) == part.index:
            del self._live[part.key]
        return BlockEnd(index=part.index, snapshot=snapshot)

    def _ensure(self, key: Key, make: Callable[[], ContentBlock]) -> tuple[int, list[Event]]:
        """The index of the open block for ``key``, opening one if needed."""
        index = self._live.get(key)
        if index is not None:
            return index, []
        start = self._open_part(key, make())
        return start.index, [start]

    def _text_block(self, oi: int, item_id: Any, refusal: bool = False) -> TextBlock:
        return TextBlock(refusal=refusal, metadata=self._id_meta(oi, item_id))

    def _thinking_block(self, oi: int, item_id: Any, kind: str, sub: int) -> ThinkingBlock:
        meta = self._id_meta(oi, item_id)
        meta["summary_index" if kind == _SUMMARY else "content_index"] = sub
        meta["kind"] = kind
        return ThinkingBlock(metadata=meta)

    def _call_block(self, oi: int, item_id: Any, custom: bool) -> ToolCallBlock:
        item = self._items.get(oi)
        added = item.added if item is not None else {}
        meta = self._id_meta(oi, item_id)
        if custom or added.get("type") == "custom_tool_call":
            meta["custom"] = True
        return ToolCallBlock(_str(added.get("call_id")) or None, _str(added.get("name")) or "",
                             metadata=meta)

    def _id_meta(self, oi: int, item_id: Any) -> dict[str, Any]:
        found = self._item_id(oi, item_id)
        return {"item_id": found} if found else {}

    def _delta(self, key: Key, make: Callable[[], ContentBlock], delta: Any) -> list[Event]:
        """Slow path of a content delta: open the block if needed, then the delta."""
        index, out = self._ensure(key, make)
        out.append(BlockDelta(index=index, delta=delta))
        return out

    # ------------------------------------------------------------ hot path

    def _fast_text(self, d: _Delta) -> list[Event]:
        oi = d.output_index
        if oi is None or self._alias:
            oi = self._resolve(oi, d.item_id)
        index = self._live.get((oi, _TEXT, d.content_index or 0))
        if index is not None:
            return [BlockDelta(index=index, delta=TextDelta(d.delta))]
        return self._text_delta(oi, d.content_index or 0, d.item_id, d.delta)

    def _text_delta(self, oi: int, ci: int, item_id: Any, text: str) -> list[Event]:
        self._item(oi, _str(item_id), "message")
        return self._delta((oi, _TEXT, ci), lambda: self._text_block(oi, item_id),
                           TextDelta(text))

    def _fast_refusal(self, d: _Delta) -> list[Event]:
        return self._refusal_delta(self._resolve(d.output_index, d.item_id),
                                   d.content_index or 0, d.item_id, d.delta)

    def _refusal_delta(self, oi: int, ci: int, item_id: Any, text: str) -> list[Event]:
        self._item(oi, _str(item_id), "message")
        return self._delta((oi, _REFUSAL, ci), lambda: self._text_block(oi, item_id, True),
                           TextDelta(text))

    def _fast_summary(self, d: _Delta) -> list[Event]:
        oi = self._resolve(d.output_index, d.item_id)
        si = d.summary_index or 0
        index = self._live.get((oi, _SUMMARY, si))
        if index is not None:
            return [BlockDelta(index=index, delta=ThinkingDelta(d.delta))]
        return self._thinking_delta(oi, _SUMMARY, si, d.item_id, d.delta)

    def _fast_reasoning(self, d: _Delta) -> list[Event]:
        oi = self._resolve(d.output_index, d.item_id)
        ci = d.content_index or 0
        index = self._live.get((oi, _REASONING, ci))
        if index is not None:
            return [BlockDelta(index=index, delta=ThinkingDelta(d.delta))]
        return self._thinking_delta(oi, _REASONING, ci, d.item_id, d.delta)

    def _thinking_delta(self, oi: int, kind: str, sub: int, item_id: Any,
                        text: str) -> list[Event]:
        self._item(oi, _str(item_id), "reasoning")
        return self._delta((oi, kind, sub), lambda: self._thinking_block(oi, item_id, kind, sub),
                           ThinkingDelta(text))

    def _fast_arguments(self, d: _Delta) -> list[Event]:
        oi = self._resolve(d.output_index, d.item_id)
        index = self._live.get((oi, _CALL, 0))
        if index is not None:
            return [BlockDelta(index=index, delta=ToolInputDelta(d.delta))]
        return self._call_delta(oi, d.item_id, d.delta, False)

    def _fast_custom_input(self, d: _Delta) -> list[Event]:
        return self._call_delta(self._resolve(d.output_index, d.item_id), d.item_id, d.delta,
                                True)

    def _call_delta(self, oi: int, item_id: Any, text: str, custom: bool) -> list[Event]:
        self._item(oi, _str(item_id), "custom_tool_call" if custom else "function_call")
        return self._delta((oi, _CALL, 0), lambda: self._call_block(oi, item_id, custom),
                           ToolInputDelta(text))

    def _fast_audio(self, d: _Delta) -> list[Event]:
        return self._audio_delta(DataDelta(_audio_bytes(d.delta)))

    def _fast_transcript(self, d: _Delta) -> list[Event]:
        return self._audio_delta(TranscriptDelta(d.delta))

    def _audio_delta(self, delta: DataDelta | TranscriptDelta) -> list[Event]:
        part = self._audio
        if part is not None and part.open:
            return [BlockDelta(index=part.index, delta=delta)]
        start = self._open_part((-1, "audio", 0), DataBlock(media_type=self.audio_media_type))
        self._audio = self._open[start.index]
        self._audio_done = self._transcript_done = False
        return [start, BlockDelta(index=start.index, delta=delta)]

    # ------------------------------------------------------------ lenient deltas

    def _delta_fields(self, p: dict[str, Any]) -> tuple[int, int, Any, str] | None:
        """(output_index, sub_index, item_id, delta) of a delta event that failed the
        typed decode; ``None`` when the delta is not text (then it is kept unknown)."""
        text = p.get("delta")
        if type(text) is not str:
            return None
        sub = _int(p.get("summary_index")) if "summary_index" in p else None
        if sub is None:
            sub = _int(p.get("content_index")) or 0
        return self._resolve(p.get("output_index"), p.get("item_id")), sub, p.get("item_id"), text

    def _with_extras(self, p: dict[str, Any], events: list[Event]) -> list[Event]:
        """Append the delta event's unknown fields as block metadata (rare: the typed
        decode already took every event that has none)."""
        extra = _extras(p, _DELTA_FIELDS)
        if extra and events:
            last = events[-1]
            if isinstance(last, BlockDelta):
                events.append(BlockDelta(index=last.index, delta=MetadataDelta(extra)))
        return events

    def _lenient(self, p: dict[str, Any],
                 run: Callable[[int, int, Any, str], list[Event]]) -> list[Event]:
        fields = self._delta_fields(p)
        if fields is None:
            return self._keep_unknown(p)
        return self._with_extras(p, run(*fields))

    def _on_text_delta(self, p: dict[str, Any]) -> list[Event]:
        return self._lenient(p, self._text_delta)

    def _on_refusal_delta(self, p: dict[str, Any]) -> list[Event]:
        return self._lenient(p, self._refusal_delta)

    def _on_summary_delta(self, p: dict[str, Any]) -> list[Event]:
        return self._lenient(
            p, lambda oi, sub, iid, text: self._thinking_delta(oi, _SUMMARY, sub, iid, text))

    def _on_reasoning_delta(self, p: dict[str, Any]) -> list[Event]:
        return self._lenient(
            p, lambda oi, sub, iid, text: self._thinking_delta(oi, _REASONING, sub, iid, text))

    def _on_arguments_delta(self, p: dict[str, Any]) -> list[Event]:
        return self._lenient(p, lambda oi, _, iid, text: self._call_delta(oi, iid, text, False))

    def _on_custom_input_delta(self, p: dict[str, Any]) -> list[Event]:
        return self._lenient(p, lambda oi, _, iid, text: self._call_delta(oi, iid, text, True))

    def _on_audio_delta(self, p: dict[str, Any]) -> list[Event]:
        text = p.get("delta")
        if type(text) is not str:
            return self._keep_unknown(p)
        return self._with_extras(p, self._audio_delta(DataDelta(_audio_bytes(text))))

    def _on_transcript_delta(self, p: dict[str, Any]) -> list[Event]:
        text = p.get("delta")
        if type(text) is not str:
            return self._keep_unknown(p)
        return self._with_extras(p, self._audio_delta(TranscriptDelta(text)))

    # ------------------------------------------------------------ part-level events

    def _on_content_part_added(self, p: dict[str, Any]) -> list[Event]:
        oi = self._resolve(p.get("output_index"), p.get("item_id"))
        ci = _int(p.get("content_index")) or 0
        part = _dict(p.get("part"))
        key, snapshot = self._content_part(oi, ci, part, p.get("item_id"), self._kind_of(oi))
        return self._open_with_pending(key, snapshot)

    def _on_content_part_done(self, p: dict[str, Any]) -> list[Event]:
        oi = self._resolve(p.get("output_index"), p.get("item_id"))
        ci = _int(p.get("content_index")) or 0
        part = _dict(p.get("part"))
        key, snapshot = self._content_part(oi, ci, part, p.get("item_id"), self._kind_of(oi))
        return self._remember(key, snapshot)

    def _on_summary_part_added(self, p: dict[str, Any]) -> list[Event]:
        oi = self._resolve(p.get("output_index"), p.get("item_id"))
        si = _int(p.get("summary_index")) or 0
        snapshot = self._summary_part(oi, si, _dict(p.get("part")), p.get("item_id"))
        return self._open_with_pending((oi, _SUMMARY, si), snapshot)

    def _on_summary_part_done(self, p: dict[str, Any]) -> list[Event]:
        oi = self._resolve(p.get("output_index"), p.get("item_id"))
        si = _int(p.get("summary_index")) or 0
        snapshot = self._summary_part(oi, si, _dict(p.get("part")), p.get("item_id"))
        return self._remember((oi, _SUMMARY, si), snapshot)

    def _on_text_done(self, p: dict[str, Any]) -> list[Event]:
        return self._text_done(p, _TEXT, "text")

    def _on_refusal_done(self, p: dict[str, Any]) -> list[Event]:
        return self._text_done(p, _REFUSAL, "refusal")

    def _text_done(self, p: dict[str, Any], kind: str, field: str) -> list[Event]:
        oi = self._resolve(p.get("output_index"), p.get("item_id"))
        ci = _int(p.get("content_index")) or 0
        block = self._text_block(oi, p.get("item_id"), kind == _REFUSAL)
        block.text = _str(p.get(field)) or ""
        logprobs = p.get("logprobs")
        if logprobs:
            block.metadata["logprobs"] = logprobs
        return self._remember((oi, kind, ci), block)

    def _on_summary_done(self, p: dict[str, Any]) -> list[Event]:
        return self._thinking_done(p, _SUMMARY, "summary_index")

    def _on_reasoning_done(self, p: dict[str, Any]) -> list[Event]:
        return self._thinking_done(p, _REASONING, "content_index")

    def _thinking_done(self, p: dict[str, Any], kind: str, sub_field: str) -> list[Event]:
        oi = self._resolve(p.get("output_index"), p.get("item_id"))
        sub = _int(p.get(sub_field)) or 0
        block = self._thinking_block(oi, p.get("item_id"), kind, sub)
        block.thinking = _str(p.get("text")) or ""
        return self._remember((oi, kind, sub), block)

    def _on_arguments_done(self, p: dict[str, Any]) -> list[Event]:
        return self._call_done(p, "arguments", False)

    def _on_custom_input_done(self, p: dict[str, Any]) -> list[Event]:
        return self._call_done(p, "input", True)

    def _call_done(self, p: dict[str, Any], field: str, custom: bool) -> list[Event]:
        oi = self._resolve(p.get("output_index"), p.get("item_id"))
        block = self._call_block(oi, p.get("item_id"), custom)
        block.input = _str(p.get(field)) or ""
        block.name = block.name or _str(p.get("name")) or ""
        return self._remember((oi, _CALL, 0), block)

    def _on_annotation(self, p: dict[str, Any]) -> list[Event]:
        annotation = p.get("annotation")
        if type(annotation) is not dict:
            return self._keep_unknown(p)
        oi = self._resolve(p.get("output_index"), p.get("item_id"))
        ci = _int(p.get("content_index")) or 0
        self._item(oi, _str(p.get("item_id")), "message")
        return self._delta((oi, _TEXT, ci), lambda: self._text_block(oi, p.get("item_id")),
                           CitationDelta(annotation))

    def _open_with_pending(self, key: Key, snapshot: ContentBlock) -> list[Event]:
        """A part was announced: open its block (content streams next); any content
        the announcement already holds is kept as the pending snapshot, so deltas that
        follow never duplicate it."""
        self._item(key[0])
        out: list[Event] = []
        if key not in self._live:
            out.append(self._open_part(key, _empty_like(snapshot)))
        part = self._parts[key]
        if _content_of(snapshot):
            part.pending = _merged(part.pending, snapshot)
        return out

    def _remember(self, key: Key, snapshot: ContentBlock) -> list[Event]:
        """A part-level ``.done``: keep its content as the part's snapshot; the block
        closes with its item (``output_item.done``) or at the end. A part that never
        streamed opens now; one already closed by its item has nothing left to fill."""
        part = self._parts.get(key)
        if part is None:
            self._item(key[0])
            start = self._open_part(key, _empty_like(snapshot))
            self._parts[key].pending = snapshot
            return [start]
        if part.open:
            part.pending = _merged(part.pending, snapshot)
        return []

    def _kind_of(self, oi: int) -> str | None:
        item = self._items.get(oi)
        return item.type if item is not None else None

    # ------------------------------------------------------------ item snapshots

    def _content_part(self, oi: int, ci: int, part: dict[str, Any], item_id: Any,
                      item_type: str | None) -> tuple[Key, ContentBlock]:
        """The key and snapshot block of one content part of a message (or of a
        reasoning item: ``reasoning_text``)."""
        ptype = part.get("type")
        if ptype == "reasoning_text" or (item_type == "reasoning" and ptype is None):
            block = self._thinking_block(oi, item_id, _REASONING, ci)
            block.thinking = _str(part.get("text")) or ""
            block.metadata.update(_extras(part, frozenset({"type", "text"})))
            return (oi, _REASONING, ci), block
        if ptype == "refusal":
            text_block = self._text_block(oi, item_id, True)
            text_block.text = _str(part.get("refusal")) or _str(part.get("text")) or ""
            text_block.metadata.update(_extras(part, frozenset({"type", "refusal"})))
            return (oi, _REFUSAL, ci), text_block
        if ptype in ("output_text", "text", None):
            text_block = self._text_block(oi, item_id)
            text_block.text = _str(part.get("text")) or ""
            text_block.citations = [a for a in _list(part.get("annotations")) if type(a) is dict]
            if part.get("logprobs"):
                text_block.metadata["logprobs"] = part["logprobs"]
            text_block.metadata.update(
                _extras(part, frozenset({"type", "text", "annotations", "logprobs"})))
            return (oi, _TEXT, ci), text_block
        raw = RawBlock(str(ptype), dict(part), metadata=self._id_meta(oi, item_id))
        return (oi, _PART, ci), raw

    def _summary_part(self, oi: int, si: int, part: dict[str, Any],
                      item_id: Any) -> ThinkingBlock:
        block = self._thinking_block(oi, item_id, _SUMMARY, si)
        block.thinking = _str(part.get("text")) or ""
        block.metadata.update(_extras(part, frozenset({"type", "text"})))
        return block

    def _item_snapshots(self, oi: int, item: dict[str, Any]) -> list[tuple[Key, ContentBlock]]:
        """Every block an output item implies, as complete snapshots."""
        itype = _str(item.get("type"))
        item_id = self._item_id(oi, item.get("id"))
        if itype == "message":
            return self._message_snapshots(oi, item, item_id)
        if itype == "reasoning":
            return self._reasoning_snapshots(oi, item, item_id)
        if itype in _CLIENT_CALLS:
            return [((oi, _CALL, 0), self._call_snapshot(oi, item, item_id))]
        return self._raw_snapshots(oi, item, itype or "unknown")

    def _item_meta(self, item: dict[str, Any], known: frozenset[str]) -> dict[str, Any]:
        meta = _extras(item, known)
        status = item.get("status")
        if status is not None and status != "completed":
            meta["status"] = status
        return meta

    def _message_snapshots(self, oi: int, item: dict[str, Any],
                           item_id: str | None) -> list[tuple[Key, ContentBlock]]:
        meta = self._item_meta(item, frozenset({"type", "id", "status", "role", "content"}))
        if item.get("role") not in (None, "assistant"):
            meta["role"] = item["role"]
        out = []
        for ci, part in enumerate(_list(item.get("content"))):
            key, block = self._content_part(oi, ci, _dict(part), item_id, "message")
            if block is not None:
                for k, v in meta.items():
                    block.metadata.setdefault(k, v)
                out.append((key, block))
        return out

    def _reasoning_snapshots(self, oi: int, item: dict[str, Any],
                             item_id: str | None) -> list[tuple[Key, ContentBlock]]:
        meta = self._item_meta(
            item, frozenset({"type", "id", "status", "summary", "content", "encrypted_content"}))
        out: list[tuple[Key, ContentBlock]] = []
        for si, part in enumerate(_list(item.get("summary"))):
            out.append(((oi, _SUMMARY, si), self._summary_part(oi, si, _dict(part), item_id)))
        for ci, part in enumerate(_list(item.get("content"))):
            out.append(self._content_part(oi, ci, _dict(part), item_id, "reasoning"))
        record = self._items.get(oi)
        if not out and (record is None or not record.keys):
            # Nothing visible: one block still carries the item (id, encrypted content)
            # so a conversation can send it back.
            bare = ThinkingBlock(metadata=self._id_meta(oi, item_id))
            bare.metadata["kind"] = _ITEM
            out.append(((oi, _ITEM, 0), bare))
        for _, block in out:
            for k, v in meta.items():
                block.metadata.setdefault(k, v)
        return out

    def _call_snapshot(self, oi: int, item: dict[str, Any], item_id: str | None) -> ToolCallBlock:
        custom = item.get("type") == "custom_tool_call"
        field = "input" if custom else "arguments"
        call_id = _str(item.get("call_id")) or None
        part = self._parts.get((oi, _CALL, 0))
        block_id = part.block_id if part is not None else call_id
        meta: dict[str, Any] = {"item_id": item_id} if item_id else {}
        if custom:
            meta["custom"] = True
        if call_id and call_id != block_id:
            meta["call_id"] = call_id
        meta.update(self._item_meta(
            item, frozenset({"type", "id", "status", "call_id", "name", field})))
        incomplete = item.get("status") == "incomplete"
        return ToolCallBlock(block_id, _str(item.get("name")) or "",
                             _str(item.get(field)) or "", incomplete=incomplete, metadata=meta)

    def _raw_snapshots(self, oi: int, item: dict[str, Any],
                       itype: str) -> list[tuple[Key, ContentBlock]]:
        out: list[tuple[Key, ContentBlock]] = [
            ((oi, _RAW, 0), RawBlock(itype, dict(item), id=_str(item.get("id")) or None))]
        result = item.get("result")
        if itype == "image_generation_call" and type(result) is str and result:
            meta = {"item_id": item["id"]} if _str(item.get("id")) else {}
            image = DataBlock(source=Base64Source(result, _media_type(item.get("output_format"))),
                              metadata=meta)
            out.append(((oi, _IMAGE, 0), image))
        return out

    # ------------------------------------------------------------ items

    def _on_item_added(self, p: dict[str, Any]) -> list[Event]:
        item = _dict(p.get("item"))
        item_id = _str(item.get("id")) or None
        wire_oi = _int(p.get("output_index"))
        if wire_oi is None:
            oi = self._oi_by_id.get(item_id, self._new_oi()) if item_id else self._new_oi()
        else:
            oi = self._resolve(wire_oi, None)
        record = self._items.get(oi)
        if record is not None and wire_oi is not None and (
                record.done or record.added.get("type") not in (None, item.get("type"))):
            # The position already holds a finished (or another kind of) item: this is a
            # new item whose vendor reuses the index; its events follow it to a new one.
            oi = self._alias[wire_oi] = self._new_oi()
            record = None
        if record is None:
            record = self._items[oi] = _Item(_str(item.get("type")), item_id, item)
        else:  # events for this position came first; the item fills in what they lacked
            record.type = record.type or _str(item.get("type"))
            record.id = record.id or item_id
            record.added = item
        if item_id:
            self._oi_by_id.setdefault(item_id, oi)
        self._last_oi = oi
        return self._sync_item(oi, item, final=False)

    def _on_item_done(self, p: dict[str, Any]) -> list[Event]:
        item = _dict(p.get("item"))
        item_id = _str(item.get("id")) or None
        oi = _int(p.get("output_index"))
        if oi is None:
            oi = self._oi_by_id.get(item_id, self._last_oi) if item_id else self._last_oi
        else:
            oi = self._resolve(oi, None)
        record = self._item(oi, item_id, _str(item.get("type")))
        if record.done:  # a repeated done: nothing left open to fill
            return self._keep_unknown(p)
        return self._sync_item(oi, item, final=True)

    def _sync_item(self, oi: int, item: dict[str, Any], final: bool) -> list[Event]:
        """Reconcile the blocks of item ``oi`` with a snapshot of the item.

        Not final (``output_item.added``): open the blocks the item already implies
        (a tool call, a raw item; parts only when they carry content), keeping that
        content as the pending snapshot so deltas never duplicate it. Final
        (``output_item.done``, the terminal response): open blocks are closed with
        the snapshot; parts never streamed become complete blocks.
        """
        record = self._items[oi]
        # ({} when only events, never the item itself, named this position)
        snapshots = self._item_snapshots(oi, item) if item else []
        out: list[Event] = []
        if not final:
            for key, snapshot in snapshots:
                if key[1] in (_CALL, _RAW) or _content_of(snapshot):
                    out += self._open_with_pending(key, snapshot)
            return out
        record.done = True
        closing: dict[Key, ContentBlock | None] = {}
        new: list[tuple[Key, ContentBlock]] = []
        for key, snapshot in snapshots:
            part = self._parts.get(key)
            if part is None:
                new.append((key, snapshot))
            elif part.open:
                closing[key] = _merged(snapshot, part.pending)
                if item.get("status") != "completed":  # the final item may say it finished
                    closing[key] = self._cut(part, closing[key])
        for key in record.keys:
            part = self._parts[key]
            if part.open and key not in closing:
                closing[key] = self._final_pending(part)
        order = sorted(closing, key=lambda k: self._parts[k].index)
        encrypted = _str(item.get("encrypted_content"))
        if encrypted:
            self._attach_encrypted(encrypted, order, closing, new)
        for key in order:
            out.append(self._close_part(self._parts[key], closing[key]))
        for key, snapshot in new:
            out.append(self._open_part(key, snapshot))
            out.append(self._close_part(self._parts[key], None))
        return out

    def _attach_encrypted(self, encrypted: str, order: list[Key],
                          closing: dict[Key, ContentBlock | None],
                          new: list[tuple[Key, ContentBlock]]) -> None:
        """Put a reasoning item's ``encrypted_content`` on its first thinking block
        (the open ones close before the new ones open, so they come first)."""
        for key in order:
            if key[1] in (_SUMMARY, _REASONING, _ITEM):
                snapshot = closing[key]
                if not isinstance(snapshot, ThinkingBlock):
                    snapshot = closing[key] = ThinkingBlock(metadata={})
                snapshot.encrypted = encrypted
                return
        for _, snapshot in new:
            if isinstance(snapshot, ThinkingBlock):
                snapshot.encrypted = encrypted
                return

    def _final_pending(self, part: _Part) -> ContentBlock | None:
        return self._cut(part, part.pending)

    def _cut(self, part: _Part, snapshot: ContentBlock | None) -> ContentBlock | None:
        """A tool call still open when the response ends incomplete was cut off:
        mark it, whatever snapshot closes it."""
        if not self._ending_incomplete or part.key[1] != _CALL:
            return snapshot
        if not isinstance(snapshot, ToolCallBlock):
            return ToolCallBlock(part.block_id, incomplete=True)
        snapshot.incomplete = True
        return snapshot

    # ------------------------------------------------------------ server-side tools

    def _on_tool_progress(self, p: dict[str, Any]) -> list[Event]:
        kind = str(p.get("type"))
        tool, _, status = kind[len("response."):].rpartition(".")
        oi = self._resolve(p.get("output_index"), p.get("item_id"))
        self._item(oi, _str(p.get("item_id")), tool)
        key = (oi, _RAW, 0)
        if key in self._parts and not self._parts[key].open:
            return []  # the item is done: its final state is in the closed block
        index, out = self._ensure(
            key, lambda: RawBlock(tool, {"type": tool, "id": p.get("item_id")},
                                  id=_str(p.get("item_id")) or None))
        meta: dict[str, Any] = {"progress": status}
        meta.update(_extras(p, frozenset({"type", "item_id", "output_index",
                                          "sequence_number"})))
        out.append(BlockDelta(index=index, delta=MetadataDelta(meta)))
        return out

    def _on_tool_text(self, p: dict[str, Any]) -> list[Event]:
        return []  # streamed fields of a server-side tool item: output_item.done has them

    def _on_partial_image(self, p: dict[str, Any]) -> list[Event]:
        b64 = p.get("partial_image_b64")
        if type(b64) is not str:
            return self._keep_unknown(p)
        oi = self._resolve(p.get("output_index"), p.get("item_id"))
        record = self._item(oi, _str(p.get("item_id")), "image_generation_call")
        n = _int(p.get("partial_image_index"))
        sub = n if n is not None else sum(k[1] == _PARTIAL_IMAGE for k in record.keys)
        meta: dict[str, Any] = self._id_meta(oi, p.get("item_id"))
        meta.update(partial=True, partial_image_index=sub)
        meta.update(_extras(p, frozenset({"type", "item_id", "output_index", "sequence_number",
                                          "partial_image_b64", "partial_image_index"})))
        fmt = p.get("output_format") or record.added.get("output_format")
        image = DataBlock(source=Base64Source(b64, _media_type(fmt)), metadata=meta)
        key = (oi, _PARTIAL_IMAGE, sub)
        if key in self._parts:  # a repeated partial index: a new key, never a mismatch
            key = (oi, _PARTIAL_IMAGE, max(k[2] for k in record.keys) + 1)
        start = self._open_part(key, image)
        return [start, self._close_part(self._parts[key], None)]

    # ------------------------------------------------------------ audio ends

    def _on_audio_done(self, p: dict[str, Any]) -> list[Event]:
        self._audio_done = True
        return self._maybe_close_audio()

    def _on_transcript_done(self, p: dict[str, Any]) -> list[Event]:
        self._transcript_done = True
        return self._maybe_close_audio()

    def _maybe_close_audio(self) -> list[Event]:
        """The audio block ends when both its bytes and its transcript are done
        (neither event carries content; a stream without one closes at the end)."""
        part = self._audio
        if part is None or not part.open or not (self._audio_done and self._transcript_done):
            return []
        return [self._close_part(part, None)]

    # ------------------------------------------------------------ response level

    def _response_fields(self, response: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in response.items() if k not in _NOT_METADATA and v is not None}

    def _start(self, response: dict[str, Any]) -> list[Event]:
        """ResponseStart once; afterwards, response-level fields that changed."""
        fields = self._response_fields(response)
        response_id = _str(response.get("id"))
        if not self._started:
            self._started = True
            self._response_id = response_id
            self._response_meta = fields
            return [ResponseStart(id=response_id or None, model=_str(response.get("model")),
                                  metadata=dict(fields))]
        changed = {k: v for k, v in fields.items() if self._response_meta.get(k) != v}
        if response_id and self._response_id and response_id != self._response_id:
            changed["final_response_id"] = response_id  # keep the first id; record this one
        if not changed:
            return []
        self._response_meta.update(changed)
        new_id = response_id if not self._response_id else None
        self._response_id = self._response_id or response_id
        return [ResponseMetadata(metadata=changed, id=new_id)]

    def _usage(self, response: dict[str, Any]) -> list[Event]:
        usage = response.get("usage")
        if type(usage) is not dict:
            return []
        inputs = _dict(usage.get("input_tokens_details"))
        outputs = _dict(usage.get("output_tokens_details"))
        audio_parts = [_int(inputs.get("audio_tokens")), _int(outputs.get("audio_tokens"))]
        known_audio = [n for n in audio_parts if n is not None]
        return [UsageUpdate(usage=ChatUsage(
            input_tokens=_int(usage.get("input_tokens")),
            output_tokens=_int(usage.get("output_tokens")),
            total_tokens=_int(usage.get("total_tokens")),
            cached_tokens=_int(inputs.get("cached_tokens")),
            cache_creation_tokens=_int(inputs.get("cache_write_tokens")),
            reasoning_tokens=_int(outputs.get("reasoning_tokens")),
            audio_tokens=sum(known_audio) if known_audio else None,
            raw=usage,
        ))]

    def _on_lifecycle(self, p: dict[str, Any]) -> list[Event]:
        response = p.get("response")
        if type(response) is not dict:
            return self._keep_unknown(p)
        return self._start(response) + self._usage(response)

    def _on_terminal(self, p: dict[str, Any]) -> list[Event]:
        response = p.get("response")
        if self._ended or type(response) is not dict:
            return self._keep_unknown(p)
        kind = str(p.get("type"))
        status = kind.rpartition(".")[2]
        out = self._start(response) + self._usage(response)
        finish, stop_reason = self._finish_of(status, response)
        self._ending_incomplete = status == "incomplete"
        output = response.get("output")
        out += self._close_items(output if type(output) is list else None)
        out += self._close_open()
        if status == "failed":
            out += self._failed_error(response)
        if finish == "stop" and self._has_client_call(output):
            finish = "tool_calls"
        self._ended = self._terminated = True
        out.append(ResponseEnd(finish_reason=FinishReason.parse(finish), stop_reason=stop_reason,
                               terminated=True))
        return out

    def _finish_of(self, status: str, response: dict[str, Any]) -> tuple[str, str]:
        if status == "completed":
            return "stop", "completed"
        if status == "failed":
            return "error", "failed"
        reason = _str(_dict(response.get("incomplete_details")).get("reason"))
        return _INCOMPLETE_REASONS.get(reason or "", "unknown"), reason or status

    def _has_client_call(self, output: Any) -> bool:
        """Whether the caller has tools to run: the final output says so when it lists
        items; otherwise (an empty or missing output) the streamed items do."""
        if _list(output):
            return any(_dict(item).get("type") in _CLIENT_CALLS for item in output)
        return any(key[1] == _CALL for key in self._parts)

    def _close_items(self, output: list[Any] | None) -> list[Event]:
        """Fill and close every item at the end: from the final output when the
        terminal event has one, else from what ``output_item.added`` said."""
        out: list[Event] = []
        used: set[int] = set()
        for position, raw_item in enumerate(output or []):
            item = _dict(raw_item)
            oi = self._match(position, item, used)
            used.add(oi)
            record = self._item(oi, _str(item.get("id")), _str(item.get("type")))
            if not record.done:
                out += self._sync_item(oi, item, final=True)
        for oi in sorted(self._items):
            record = self._items[oi]
            if not record.done and (record.keys or record.added):
                out += self._sync_item(oi, record.added, final=True)
        return out

    def _match(self, position: int, item: dict[str, Any], used: set[int]) -> int:
        """The output index of a final output item: by id, else by position when the
        item kind agrees, else a new position (a vendor's index gaps)."""
        item_id = _str(item.get("id"))
        if item_id and item_id in self._oi_by_id and self._oi_by_id[item_id] not in used:
            return self._oi_by_id[item_id]
        record = self._items.get(position)
        if position not in used and (record is None or record.type in (None, item.get("type"))):
            return position
        return max([*self._items, *used], default=-1) + 1

    def _close_open(self) -> list[Event]:
        return [self._close_part(part, self._final_pending(part))
                for part in sorted(self._open.values(), key=lambda p: p.index)]

    def _error_event(self, error: dict[str, Any], raw: Any) -> list[Event]:
        message = _str(error.get("message")) or "the provider reported an error"
        code = error.get("code")
        key = (message, code)
        if key in self._errors:
            return []
        self._errors.append(key)
        self._finish_reason = "error"
        return [ErrorEvent(message=message, code=str(code) if code is not None else None,
                           error_type=_str(error.get("type")), status=_int(error.get("status")),
                           raw=raw)]

    def _on_error(self, p: dict[str, Any]) -> list[Event]:
        nested = p.get("error")
        if type(nested) is not dict:  # the SDK's shape: code / message / param at the top
            nested = {k: v for k, v in p.items() if k != "type"}
        return self._error_event(nested, p)

    def _failed_error(self, response: dict[str, Any]) -> list[Event]:
        error = response.get("error")
        if type(error) is dict:
            return self._error_event(error, error)
        return self._error_event({"message": "the response failed"}, None)
