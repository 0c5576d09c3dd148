"""Anthropic Messages streams (``POST /v1/messages`` with ``stream: true``).

The wire format is a sequence of typed SSE events::

    message_start -> (content_block_start, content_block_delta*, content_block_stop)*
                  -> message_delta -> message_stop

with ``ping`` keep-alives anywhere and an ``error`` event when the API fails
mid-stream. The payload's own ``type`` names the event (the SSE event name only
when the payload has none). Anthropic numbers its content blocks itself
(``index``), so the parser only maps Anthropic's index to streamkit's (they are
the same unless a vendor breaks the protocol) and remembers, per open block,
the little it needs to finish the block correctly (:class:`_OpenBlock`).

What each event becomes:

- ``message_start`` -> :class:`ResponseStart` (id, model, the message's other
  fields as metadata) and its usage; a repeated one only adds metadata. A block
  that comes first starts the response with the provider only; the late
  ``message_start`` then gives :class:`ResponseMetadata` (id, model, fields).
- ``content_block_start`` -> :class:`BlockStart` with the block
  :func:`~.wire.content_block` makes of it.
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
  clean end of input closes every open block in :meth:`AnthropicParser.finish`
  and ends with the stop reason ``message_delta`` gave (``unknown`` if none)
  and ``terminated=False``.

Hostile or broken input never raises anything but a
:class:`~streamkit.errors.ProtocolError` (for a payload that is not JSON, or is
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
from enum import Enum
from typing import Any, ClassVar, NamedTuple

import msgspec

from ...blocks import Block, TextBlock, ThinkingBlock, ToolCallBlock
from ...events import (
    BlockDelta,
    BlockEnd,
    BlockStart,
    CitationDelta,
    Delta,
    Event,
    MetadataDelta,
    ResponseEnd,
    ResponseMetadata,
    ResponseStart,
    SignatureDelta,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
    UsageUpdate,
)
from ...finish import FinishReason
from ..base import Framing, Payloads, decode_json, feed_fast_first
from ..coerce import as_dict, as_int, as_str
from ..error_payloads import error_event
from ..unknown import unknown_payload
from ..usage_fields import usage_from
from .wire import USAGE_FIELDS, content_block, extras, map_stop_reason, start_input

__all__ = ["AnthropicParser", "map_stop_reason"]

# Fields of a message_start's message that equal these say nothing worth keeping.
_MESSAGE_DEFAULTS = {"type": "message", "role": "assistant"}


class _Phase(Enum):
    """Where the stream is in its one lifecycle."""

    BEFORE_MESSAGE = "no message_start yet"
    IN_MESSAGE = "after message_start"
    STOPPED = "message_stop seen: the response ended, terminated"
    CUT_OFF = "finish() ended the response without message_stop"


_ENDED = frozenset({_Phase.STOPPED, _Phase.CUT_OFF})


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
    "citations_delta": _DeltaRule("citation", as_dict, TextBlock, "text", CitationDelta),
}


# The hot path: a content_block_delta carrying text or tool JSON and nothing else.
# Decoding into these strict Structs halves the pipeline's time on a long stream
# (20,000 text deltas in 4 KB reads: 27 ms, against 52 ms with fast_decode=False);
# any other shape (an extra field, another delta type) fails and takes the
# general path, which alone decides what every other payload means. Both kinds
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


class _OpenBlock:
    """What the parser remembers about one open Anthropic content block: its
    streamkit index and block class; the fast-path fragment kind it takes
    (``fast_kind``, made into an event by ``fast_make``: text for a text block,
    JSON for a tool call once its arguments stream, else none); and, for a tool
    call, what its :class:`BlockEnd` may need (id, name, the complete input of
    its start, and whether argument deltas came, which makes that input stale)."""

    __slots__ = ("arguments_streamed", "block_type", "call_id", "fast_kind", "fast_make",
                 "index", "name", "start_input")

    def __init__(self, index: int, block_type: type[Block]) -> None:
        self.index = index
        self.block_type = block_type
        self.call_id = ""
        self.name = ""
        self.start_input: str | None = None
        self.arguments_streamed = False
        self.fast_kind: type[_FastText | _FastJSON] | None = (
            _FastText if block_type is TextBlock else None)
        self.fast_make: Callable[[str], Delta] = TextDelta

    def stream_arguments(self) -> None:
        """The first argument fragment came: later ones take the fast path."""
        self.arguments_streamed = True
        self.fast_kind, self.fast_make = _FastJSON, ToolInputDelta


class AnthropicParser:
    """Anthropic Messages SSE -> streamkit events (see the module docstring).

    ``fast_decode=False`` sends every payload through the general path (the
    agreement test runs every fixture both ways).
    """

    name: ClassVar[str] = "anthropic"
    framing: ClassVar[Framing] = "sse"

    def __init__(self, *, fast_decode: bool = True) -> None:
        self._fast_decode = fast_decode
        self._phase = _Phase.BEFORE_MESSAGE
        self._open: dict[int | None, _OpenBlock] = {}  # Anthropic index -> open block
        self._next_index = 0
        self._stop_reason: str | None = None
        self._errored = False  # an error event came: the finish reason is error
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

    @property
    def done(self) -> bool:
        """Whether ``message_stop`` has been seen."""
        return self._phase is _Phase.STOPPED

    # ------------------------------------------------------------ driving

    def feed(self, data: bytes | str, event: str | None = None) -> list[Event]:
        """Events implied by one SSE payload."""
        out: list[Event] = []
        self.feed_into([(event or "message", data)], out)
        return out

    def feed_into(self, payloads: Payloads, out: list[Event]) -> None:
        """Append the events of several ``(SSE event type, data)`` payloads to ``out``;
        ``out`` keeps the events of the payloads before one that raises."""
        feed_fast_first(self.fast_delta, self._payload, payloads, out)

    def fast_delta(self, name: str, data: bytes | str) -> BlockDelta | None:
        """The hot path: a text or tool-JSON fragment for its open block is one
        strict decode and one event; ``None`` (nothing changed) for anything else."""
        if not self._fast_decode or (name != "content_block_delta" and name != "message"):
            return None
        try:
            fast = _FAST_DECODE(data)
        except (ValueError, RecursionError):  # another shape, or not JSON (a
            return None  # DecodeError is a ValueError): the general path decides
        state = self._open.get(fast.index)
        if state is None or type(fast.delta) is not state.fast_kind or not fast.delta.content:
            return None  # an empty fragment too: no event, or "no arguments yet"
        return BlockDelta(index=state.index, delta=state.fast_make(fast.delta.content))

    def _payload(self, data: bytes | str, event: str | None) -> list[Event]:
        """The general path: decode the payload and dispatch on its ``type``."""
        payload = decode_json(data, event)
        if type(payload) is dict:
            handler = self._handlers.get(as_str(payload.get("type")) or event or "")
            if handler is not None:
                return handler(payload)
        return [unknown_payload(payload, event)]

    def finish(self) -> list[Event]:
        """Close open blocks; end the response if ``message_stop`` never came."""
        out = self._close_all()
        if self._phase not in _ENDED:
            self._phase = _Phase.CUT_OFF
            if self._errored:
                reason: FinishReason | None = FinishReason.ERROR
            else:
                reason = map_stop_reason(self._stop_reason) or FinishReason.UNKNOWN
            out.append(ResponseEnd(finish_reason=reason, stop_reason=self._stop_reason,
                                   terminated=False))
        return out

    # ------------------------------------------------------------ message events

    def _message_start(self, payload: dict[str, Any]) -> list[Event]:
        message = as_dict(payload.get("message"))
        if message is None:
            return [unknown_payload(payload, "message_start")]
        message_id = as_str(message.get("id"))
        model = as_str(message.get("model"))
        usage = as_dict(message.get("usage"))
        metadata = extras(message, {"id": message_id, "model": model, "usage": usage})
        for key, default in _MESSAGE_DEFAULTS.items():
            if metadata.get(key) == default:
                del metadata[key]
        if not metadata.get("content"):  # empty today; kept when the API sends some
            metadata.pop("content", None)
        metadata.update(extras(payload, {"type": True, "message": message}))
        out: list[Event] = []
        if self._phase is _Phase.BEFORE_MESSAGE:
            self._phase = _Phase.IN_MESSAGE
            if self._next_index == 0:
                out.append(ResponseStart(id=message_id, model=model, metadata=metadata,
                                         provider=self.name))
            else:  # blocks came first and started the response
                out.append(ResponseMetadata(metadata=metadata, id=message_id, model=model))
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
        metadata = extras(payload, {"type": True, "delta": delta, "usage": usage})
        if delta is not None:
            stop_reason = as_str(delta.get("stop_reason"))
            if stop_reason is not None:
                self._stop_reason = stop_reason
            metadata.update(extras(delta, {"stop_reason": stop_reason}))
        out: list[Event] = []
        if metadata:
            out.append(ResponseMetadata(metadata=metadata))
        if usage is not None:
            out.append(UsageUpdate(usage=usage_from(USAGE_FIELDS, usage)))
        return out

    def _message_stop(self, payload: dict[str, Any]) -> list[Event]:
        out = self._close_all()
        metadata = extras(payload, {"type": True})  # a gateway's invocation metrics...
        if metadata:
            out.append(ResponseMetadata(metadata=metadata))
        if self._phase not in _ENDED:
            if self._errored and self._stop_reason is None:
                reason: FinishReason | None = FinishReason.ERROR
            else:
                reason = map_stop_reason(self._stop_reason)
            out.append(ResponseEnd(finish_reason=reason, stop_reason=self._stop_reason,
                                   terminated=True))
        self._phase = _Phase.STOPPED
        return out

    def _ping(self, payload: dict[str, Any]) -> list[Event]:
        return []

    def _error(self, payload: dict[str, Any]) -> list[Event]:
        """``{"type": "error", "error": {"type": ..., "message": ...}}`` mid-stream."""
        self._errored = True
        return [error_event(payload.get("error", payload), payload)]

    # ------------------------------------------------------------ block events

    def _content_block_start(self, payload: dict[str, Any]) -> list[Event]:
        key = as_int(payload.get("index"))
        block = as_dict(payload.get("content_block"))
        if block is None:  # kept whole as a raw block
            block = {"type": "unknown", "content_block": payload.get("content_block")}
        out: list[Event] = []
        restarted = self._open.pop(key, None)
        if restarted is not None:  # a vendor restarted an open index: end the old block
            out += self._end(restarted)
        self._open[key] = self._start_block(block, out)
        return out

    def _start_block(self, block: dict[str, Any], out: list[Event]) -> _OpenBlock:
        """Open the streamkit block for an Anthropic ``content_block``. A block
        before ``message_start`` starts the response, with the provider only:
        the late ``message_start`` brings id and model as metadata."""
        if self._next_index == 0 and self._phase is _Phase.BEFORE_MESSAGE:
            out.append(ResponseStart(provider=self.name))
        index = self._next_index
        self._next_index += 1
        new = content_block(block)
        state = _OpenBlock(index, type(new))
        if type(new) is ToolCallBlock:
            state.call_id = new.id
            state.name = new.name
            state.start_input = start_input(block)
        out.append(BlockStart(index=index, block=new))
        return state

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
            rest = extras(delta, {"type": True, rule.field: value})
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
        state = self._open.get(key)
        if state is not None and (rule.block is None or state.block_type is rule.block):
            return state
        if state is not None:
            out += self._end(self._open.pop(key))
        state = self._open[key] = self._start_block({"type": rule.opens}, out)
        return state

    def _content_block_stop(self, payload: dict[str, Any]) -> list[Event]:
        state = self._open.pop(as_int(payload.get("index")), None)
        if state is None:  # a stop for a block that is not open: nothing to close
            return []
        return self._end(state)

    def _end(self, state: _OpenBlock) -> list[Event]:
        """``BlockEnd`` for one block; for a tool call that got no argument
        deltas the snapshot carries its input: ``{}``, or the input its start
        sent (cut-off JSON is marked by the accumulator)."""
        if state.block_type is not ToolCallBlock or state.arguments_streamed:
            return [BlockEnd(index=state.index)]
        snapshot = ToolCallBlock(state.call_id, state.name, state.start_input or "{}")
        return [BlockEnd(index=state.index, snapshot=snapshot)]

    def _close_all(self) -> list[Event]:
        out: list[Event] = []
        for state in sorted(self._open.values(), key=lambda open_block: open_block.index):
            out += self._end(state)
        self._open.clear()
        return out
