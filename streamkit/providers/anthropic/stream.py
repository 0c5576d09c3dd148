"""Anthropic Messages streams (``POST /v1/messages`` with ``stream: true``).

The wire format is a sequence of typed SSE events::

    message_start -> (content_block_start, content_block_delta*, content_block_stop)*
                  -> message_delta -> message_stop

with ``ping`` keep-alives anywhere and an ``error`` event when the API fails
mid-stream. The payload's own ``type`` names the event (the SSE event name only
when the payload has none). Anthropic numbers its content blocks itself
(``index``): that index is the part key of the
:class:`~streamkit.providers.ledger.BlockLedger`, which keeps the response's
lifecycle, maps Anthropic's index to streamkit's (they are the same unless a
vendor breaks the protocol) and makes up the ids the wire does not give. This
module keeps only what each event means, and, per open block
(:class:`_OpenBlock`), the little it needs to finish the block correctly.

What each event becomes:

- ``message_start`` -> :class:`ResponseStart` (id, model, the message's other
  fields as metadata) and its usage; a repeated one only adds metadata. A block
  that comes first starts the response with the provider (and a made-up id);
  the late ``message_start`` then gives :class:`ResponseMetadata` (id, model,
  fields).
- ``content_block_start`` -> :class:`BlockStart` with the block
  :func:`~.assistant.content_block` makes of it.
- ``content_block_delta`` -> one :class:`BlockDelta` (see :data:`_DELTAS`). A
  delta whose kind does not match the open block (a vendor changing the block
  kind mid-stream), or for an index that was never started, opens a new block
  of the right kind at the next streamkit index (the old one is ended first).
- ``content_block_stop`` -> :class:`BlockEnd`. A tool call that got no
  arguments ends with input ``{}`` (or the complete ``input`` its start sent);
  arguments cut off at ``max_tokens`` stay raw and the accumulator marks the
  block ``incomplete``.
- ``message_delta`` -> the stop reason, metadata (``stop_sequence``,
  ``stop_details``, ``container``...) and usage; ``error`` ->
  :func:`~streamkit.providers.error_payloads.error_event`.
- ``message_stop`` -> :class:`ResponseEnd` (``terminated=True``). Without it, a
  clean end of input ends the response in :meth:`AnthropicParser.finish` (the
  ledger's one finish: the stop reason ``message_delta`` gave, ``unknown`` if
  none, ``terminated=False``).

Hostile or broken input never raises anything but a
:class:`~streamkit.model.errors.ProtocolError` (for a payload that is not JSON, or is
nested too deeply). A field of the wrong type is treated as absent and kept: an
``index`` that is not an integer is the block with no index, a ``stop_reason``
or ``usage`` that is not what the API documents is kept in the response's
metadata under its own name, a delta whose content has the wrong type and any
event type this version does not know are kept whole in
``metadata["unknown_events"]`` (:func:`~streamkit.providers.unknown.unknown_payload`).

The hot path, a text or tool-argument fragment for the open block, is one
strict msgspec decode and one event (:meth:`AnthropicParser.fast_delta`, which
the pipeline asks first for a read that is one SSE event; ``fast_decode=True``,
the default); every other payload, and every payload when ``fast_decode=False``,
takes the general path, which gives the same events (tested over every recorded
stream).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, NamedTuple

import msgspec

from ...model.blocks import Block, TextBlock, ThinkingBlock, ToolCallBlock
from ...model.events import (
    BlockDelta,
    CitationDelta,
    Delta,
    Event,
    MetadataDelta,
    ResponseMetadata,
    SignatureDelta,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
    UsageUpdate,
)
from ...model.ids import StreamIds
from ..base import Framing, StreamParser, decode_json
from ..coerce import as_dict, as_int, as_str
from ..error_payloads import error_event
from ..ledger import BlockLedger, OpenBlock
from ..lossless import unmodelled
from ..unknown import unknown_payload
from ..usage_fields import usage_from
from .assistant import content_block, start_input
from .citations import read_citation
from .wire import MESSAGE_DEFAULTS, PROVIDER, USAGE_FIELDS, map_stop_reason

__all__ = ["AnthropicParser", "map_stop_reason"]


def _citation_delta(citation: dict[str, Any]) -> CitationDelta:
    return CitationDelta(read_citation(citation))


class _DeltaRule(NamedTuple):
    """What one Anthropic delta type becomes: the ``field`` that carries its
    content, read with ``read`` (a wrong type makes the payload unknown), the
    streamkit block class it belongs to (``None``: whichever block is open), the
    Anthropic block type to open when no such block is, and the streamkit delta."""

    field: str
    read: Callable[[Any], Any]
    block: type[Block] | None
    opens: str
    make: Callable[[Any], Delta]


_DELTAS: dict[str, _DeltaRule] = {
    "text_delta": _DeltaRule("text", as_str, TextBlock, "text", TextDelta),
    "thinking_delta": _DeltaRule("thinking", as_str, ThinkingBlock, "thinking", ThinkingDelta),
    # a lone signature belongs to reasoning: thinking is the block it signs
    "signature_delta": _DeltaRule("signature", as_str, None, "thinking", SignatureDelta),
    "input_json_delta": _DeltaRule("partial_json", as_str, ToolCallBlock, "tool_use",
                                   ToolInputDelta),
    "citations_delta": _DeltaRule("citation", as_dict, TextBlock, "text", _citation_delta),
}


# The hot path: a content_block_delta carrying text or tool JSON and nothing else.
# Decoding into these strict Structs is most of the pipeline's speed on a long
# stream: ``make bench-micro`` times it (test_end_to_end_20k[anthropic]), and
# replaying the same body with ``fast_decode=False`` gives the general path alone
# to compare. Any other shape (an extra field, another delta type) fails and takes
# the general path, which alone decides what every other payload means. Both kinds
# name their fragment ``content``, so the hot path reads it without asking which.
class _FastText(msgspec.Struct, tag_field="type", tag="text_delta",
                forbid_unknown_fields=True, gc=False):
    content: str = msgspec.field(name="text")


class _FastJSON(msgspec.Struct, tag_field="type", tag="input_json_delta",
                forbid_unknown_fields=True, gc=False):
    content: str = msgspec.field(name="partial_json")


class _FastDelta(msgspec.Struct, tag_field="type", tag="content_block_delta",
                 forbid_unknown_fields=True, gc=False):
    index: int
    delta: _FastText | _FastJSON


_FAST_DECODE = msgspec.json.Decoder(_FastDelta).decode


class _OpenBlock(OpenBlock):
    """What the parser remembers about one open Anthropic content block beyond
    the ledger's index and kind: the fast-path fragment kind it takes
    (``fast_kind``, made into an event by ``fast_make``: text for a text block,
    JSON for a tool call once its arguments stream, else none); and, for a tool
    call, what its :class:`BlockEnd` may need (id, name, the complete input of
    its start, and whether argument deltas came, which makes that input stale)."""

    __slots__ = ("arguments_streamed", "call_id", "fast_kind", "fast_make", "name",
                 "start_input")

    def __init__(self, index: int, kind: type[Block]) -> None:
        super().__init__(index, kind)
        self.call_id = ""
        self.name = ""
        self.start_input: str | None = None
        self.arguments_streamed = False
        self.fast_kind: type[_FastText | _FastJSON] | None = (
            _FastText if kind is TextBlock else None)
        self.fast_make: Callable[[str], Delta] = TextDelta

    def stream_arguments(self) -> None:
        """The first argument fragment came: later ones take the fast path."""
        self.arguments_streamed = True
        self.fast_kind, self.fast_make = _FastJSON, ToolInputDelta


def _snapshot(state: _OpenBlock) -> Block | None:
    """What a block's :class:`BlockEnd` says it finally is: for a tool call that
    got no argument deltas, the call with its input (``{}``, or the input its
    start sent; cut-off JSON is marked by the accumulator); else nothing."""
    if state.kind is not ToolCallBlock or state.arguments_streamed:
        return None
    return ToolCallBlock(state.call_id, state.name, state.start_input or "{}")


class AnthropicParser(StreamParser):
    """Anthropic Messages SSE -> streamkit events (see the module docstring).

    ``provider`` is the registry name the responses report (a vendor speaking
    this wire); ``fast_decode=False`` sends every payload through the general
    path (the agreement test runs every fixture both ways).
    """

    framing: ClassVar[Framing] = "sse"

    def __init__(self, *, provider: str = PROVIDER, fast_decode: bool = True) -> None:
        self.name = provider
        self._fast_decode = fast_decode
        #: The ids this stream makes up, derived from its first payload.
        self.ids = StreamIds()
        self._ledger: BlockLedger[_OpenBlock] = BlockLedger(provider, self.ids, slot=_OpenBlock)
        self._blocks = self._ledger.blocks  # Anthropic index -> open block, for the hot path
        self._message_started = False
        self._handlers: dict[str, Callable[[dict[str, Any]], list[Event]]] = {
            "content_block_delta": self._content_block_delta,
            "content_block_start": self._content_block_start,
            "content_block_stop": self._content_block_stop,
            "message_start": self._message_start,
            "message_delta": self._message_delta,
            "message_stop": self._message_stop,
            "ping": self._ping,
            "error": self._error,
        }

    # ------------------------------------------------------------ driving (feed: StreamParser)

    def fast_delta(self, name: str, data: bytes | str) -> BlockDelta | None:
        """The hot path: a text or tool-JSON fragment for its open block is one
        strict decode and one event; ``None`` (nothing changed) for anything else."""
        if not self._fast_decode or (name != "content_block_delta" and name != "message"):
            return None
        try:
            fast = _FAST_DECODE(data)
        except (ValueError, RecursionError):  # another shape, or not JSON (a
            return None  # DecodeError is a ValueError): the general path decides
        state = self._blocks.get(fast.index)
        if state is None or type(fast.delta) is not state.fast_kind or not fast.delta.content:
            return None  # an empty fragment too: no event, or "no arguments yet"
        return BlockDelta(index=state.index, delta=state.fast_make(fast.delta.content))

    def _general(self, data: bytes | str, event: str | None) -> list[Event]:
        """The general path: decode the payload and dispatch on its ``type``."""
        self.ids.seed(data)  # the first payload names the stream's made-up ids
        payload = decode_json(data, event)
        if type(payload) is dict:
            handler = self._handlers.get(as_str(payload.get("type")) or event or "")
            if handler is not None:
                return handler(payload)
        return [unknown_payload(payload, event)]

    def finish(self) -> list[Event]:
        """End the response if ``message_stop`` never came (see the module
        docstring); a block a vendor opened after it is ended too."""
        out: list[Event] = []
        self._ledger.close_all(out, _snapshot)
        self._ledger.finish(out, map_stop_reason(self._ledger.stop_reason), snapshot=_snapshot)
        return out

    # ------------------------------------------------------------ message events

    def _message_start(self, payload: dict[str, Any]) -> list[Event]:
        message = as_dict(payload.get("message"))
        if message is None:
            return [unknown_payload(payload, "message_start")]
        message_id = as_str(message.get("id"))
        model = as_str(message.get("model"))
        usage = as_dict(message.get("usage"))
        metadata = unmodelled(message, {"id": message_id, "model": model, "usage": usage})
        for key, default in MESSAGE_DEFAULTS.items():
            if metadata.get(key) == default:
                del metadata[key]
        if not metadata.get("content"):  # empty today; kept when the API sends some
            metadata.pop("content", None)
        metadata.update(unmodelled(payload, {"type": True, "message": message}))
        out: list[Event] = []
        if not self._message_started:  # the response's start, or (after a block) its id
            self._message_started = True
            self._ledger.start(out, id=message_id, model=model, metadata=metadata)
        elif metadata:  # a repeated message_start: keep the first id, record the rest
            out.append(ResponseMetadata(metadata=metadata))
        if usage is not None:
            out.append(UsageUpdate(usage=usage_from(USAGE_FIELDS, usage)))
        return out

    def _message_delta(self, payload: dict[str, Any]) -> list[Event]:
        """The stop reason and what else the message ends with (``stop_sequence``,
        ``stop_details``, ``container``...), and the final usage."""
        delta = as_dict(payload.get("delta"))
        usage = as_dict(payload.get("usage"))
        metadata = unmodelled(payload, {"type": True, "delta": delta, "usage": usage})
        if delta is not None:
            stop_reason = as_str(delta.get("stop_reason"))
            if stop_reason is not None:
                self._ledger.stop_reason = stop_reason
            metadata.update(unmodelled(delta, {"stop_reason": stop_reason}))
        out: list[Event] = []
        if metadata:
            out.append(ResponseMetadata(metadata=metadata))
        if usage is not None:
            out.append(UsageUpdate(usage=usage_from(USAGE_FIELDS, usage)))
        return out

    def _message_stop(self, payload: dict[str, Any]) -> list[Event]:
        out: list[Event] = []
        self._ledger.close_all(out, _snapshot)
        metadata = unmodelled(payload, {"type": True})  # a gateway's invocation metrics...
        if metadata:
            out.append(ResponseMetadata(metadata=metadata))
        self._ledger.end(out, map_stop_reason(self._ledger.stop_reason))
        return out

    def _ping(self, payload: dict[str, Any]) -> list[Event]:
        return []

    def _error(self, payload: dict[str, Any]) -> list[Event]:
        """``{"type": "error", "error": {"type": ..., "message": ...}}`` mid-stream."""
        out: list[Event] = []
        self._ledger.error(error_event(payload.get("error", payload), payload), out)
        return out

    # ------------------------------------------------------------ block events

    def _content_block_start(self, payload: dict[str, Any]) -> list[Event]:
        key = as_int(payload.get("index"))
        block = as_dict(payload.get("content_block"))
        if block is None:  # kept whole as a raw block
            block = {"type": "unknown", "content_block": payload.get("content_block")}
        out: list[Event] = []
        self._close(key, out)  # a vendor restarted an open index: end the old block
        self._open(key, block, out)
        return out

    def _open(self, key: int | None, block: dict[str, Any], out: list[Event]) -> _OpenBlock:
        """Open the streamkit block for an Anthropic ``content_block`` (a block
        before ``message_start`` starts the response: the ledger does)."""
        new = content_block(block, self.ids)
        state = self._ledger.open(key, new, out)
        if type(new) is ToolCallBlock:
            state.call_id = new.id
            state.name = new.name
            state.start_input = start_input(block)
        return state

    def _close(self, key: int | None, out: list[Event]) -> None:
        """End the block open at ``key``, if any (a stop for a block that is
        not open closes nothing)."""
        state = self._blocks.get(key)
        if state is not None:
            self._ledger.close(key, out, _snapshot(state))

    def _content_block_delta(self, payload: dict[str, Any]) -> list[Event]:
        delta = as_dict(payload.get("delta"))
        rule = _DELTAS.get(as_str(delta.get("type")) or "") if delta is not None else None
        if delta is None or rule is None:
            return [unknown_payload(payload, "content_block_delta")]
        value = rule.read(delta.get(rule.field))
        if value is None:  # the content has the wrong type: kept whole
            return [unknown_payload(payload, "content_block_delta")]
        out: list[Event] = []
        state = self._block_for(as_int(payload.get("index")), rule, out)
        if len(delta) > 2:  # fields beside type and content: the block keeps them
            rest = unmodelled(delta, {"type": True, rule.field: value})
            if rest:
                out.append(BlockDelta(index=state.index, delta=MetadataDelta(rest)))
        if rule.block is ToolCallBlock:
            if not value or (not state.arguments_streamed and value.isspace()):
                return out  # nothing, or only whitespace so far: still "no arguments"
            state.stream_arguments()
        out.append(BlockDelta(index=state.index, delta=rule.make(value)))
        return out

    def _block_for(self, key: int | None, rule: _DeltaRule, out: list[Event]) -> _OpenBlock:
        """The open block a delta goes to: the one at ``key`` when its class
        matches, else a new block of the right kind (a block at ``key`` of
        another kind is ended first). Nothing is dropped and nothing raises."""
        state = self._blocks.get(key)
        if state is not None and (rule.block is None or state.kind is rule.block):
            return state
        self._close(key, out)
        return self._open(key, {"type": rule.opens}, out)

    def _content_block_stop(self, payload: dict[str, Any]) -> list[Event]:
        out: list[Event] = []
        self._close(as_int(payload.get("index")), out)
        return out
