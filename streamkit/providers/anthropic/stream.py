"""Anthropic Messages streams (``POST /v1/messages`` with ``stream: true``).

The wire format is a sequence of typed SSE events::

    message_start -> (content_block_start, content_block_delta*, content_block_stop)*
                  -> message_delta -> message_stop

with ``ping`` keep-alives anywhere and an ``error`` event when the API fails
mid-stream. Anthropic numbers its content blocks itself (``index``), so this
parser only maps Anthropic's index to streamkit's (they are the same unless a
vendor breaks the protocol) and remembers, per open block, the little it needs
to finish the block correctly:

- which block class is open, so a delta of another kind (a vendor changing the
  block kind mid-stream) opens a new block instead of corrupting the old one;
- for tool calls, whether any non-empty ``input_json_delta`` arrived and the
  JSON nesting state of the fragments (a few integers, not the text): a tool
  with no arguments ends with input ``{}``; arguments cut off at ``max_tokens``
  stay raw and the block is marked ``incomplete`` rather than failing later;
- the complete ``input`` object of a ``content_block_start`` (server and MCP
  tools may send it there instead of as deltas), used only if no delta follows.

Terminator: ``message_stop`` (``ResponseEnd(terminated=True)``). Without it, a
clean end of input closes every open block in :meth:`AnthropicParser.finish` and
ends with the stop reason ``message_delta`` gave (``unknown`` if none) and
``terminated=False``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import msgspec

from ...blocks import (
    Block,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ...events import (
    BlockDelta,
    BlockEnd,
    BlockStart,
    CitationDelta,
    ErrorEvent,
    Event,
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
from ...usage import ChatUsage
from ..base import Framing, decode_json

__all__ = ["AnthropicParser", "map_stop_reason"]

_FINISH = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "pause_turn": "pause",
    "refusal": "refusal",
}

# Anthropic's documented error types and the HTTP status each one comes with
# (https://docs.anthropic.com/en/api/errors); an in-stream error has no HTTP
# status of its own, so this lets callers treat both the same way.
_ERROR_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}

# Tool-use block types: the model's own tool calls and the server-side ones
# (web search, code execution, MCP...) that the API runs itself.
_TOOL_TYPES = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})

# The fields a message_start's message maps to; the rest is kept as metadata.
_MESSAGE_FIELDS = frozenset({"id", "model", "usage", "content"})
_MESSAGE_DEFAULTS = {"type": "message", "role": "assistant"}

_IMPLIED: dict[type[Block] | None, str] = {
    TextBlock: "text", ThinkingBlock: "thinking", ToolCallBlock: "tool_use",
}

_ENCODE = msgspec.json.encode


def map_stop_reason(stop_reason: str | None) -> str | None:
    """The uniform finish reason for an Anthropic ``stop_reason`` (``None`` stays
    ``None``; a reason this version does not know becomes ``unknown``)."""
    if stop_reason is None:
        return None
    return _FINISH.get(stop_reason, "unknown")


def _count(value: Any) -> int | None:
    """A token count, or ``None`` when the provider did not give a number."""
    return value if type(value) is int else None


def map_usage(usage: dict[str, Any]) -> ChatUsage:
    """Anthropic ``usage`` -> :class:`ChatUsage`; counts it omits stay ``None``
    (a ``message_delta`` usually repeats only ``output_tokens``) and the whole
    object is kept in ``raw``. Anthropic reports no total, so none is invented."""
    details = usage.get("output_tokens_details")
    reasoning = _count(details.get("thinking_tokens")) if type(details) is dict else None
    return ChatUsage(
        input_tokens=_count(usage.get("input_tokens")),
        output_tokens=_count(usage.get("output_tokens")),
        cached_tokens=_count(usage.get("cache_read_input_tokens")),
        cache_creation_tokens=_count(usage.get("cache_creation_input_tokens")),
        reasoning_tokens=reasoning,
        raw=usage,
    )


# The hot path: a content_block_delta carrying text or tool JSON and nothing else.
# Decoding into these strict Structs is about twice as fast as a dict decode; any
# other shape (an extra field, another delta type) fails and takes the general path.
class _FastText(msgspec.Struct, tag_field="type", tag="text_delta",
                forbid_unknown_fields=True, gc=False):
    text: str


class _FastJSON(msgspec.Struct, tag_field="type", tag="input_json_delta",
                forbid_unknown_fields=True, gc=False):
    partial_json: str


class _FastDelta(msgspec.Struct, tag_field="type", tag="content_block_delta",
                 forbid_unknown_fields=True, gc=False):
    index: int
    delta: _FastText | _FastJSON


_FAST_DECODE = msgspec.json.Decoder(_FastDelta).decode


class _Open:
    """What the parser remembers about one open Anthropic content block."""

    __slots__ = ("block_id", "cls", "index", "name", "saw_input", "start_input")

    def __init__(self, index: int, cls: type[Block], block_id: str = "", name: str = "") -> None:
        self.index = index  # streamkit's block index
        self.cls = cls
        self.block_id = block_id
        self.name = name
        self.saw_input = False  # a non-empty input_json_delta arrived
        self.start_input: str | None = None  # complete input sent in content_block_start


class AnthropicParser:
    """Anthropic Messages SSE -> streamkit events (see the module docstring)."""

    name: ClassVar[str] = "anthropic"
    framing: ClassVar[Framing] = "sse"

    def __init__(self) -> None:
        self._open: dict[Any, _Open] = {}  # Anthropic block index -> open block
        self._next_index = 0
        self._started = False
        self._ended = False
        self._done = False
        self._errored = False
        self._stop_reason: str | None = None
        self._unknown: list[Any] = []
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
        return self._done

    # ------------------------------------------------------------ driving

    def feed(self, data: bytes | str, event: str | None = None) -> list[Event]:
        """Events implied by one SSE payload; the payload's own ``type`` wins
        over the SSE event name (they agree on every real stream)."""
        out: list[Event] = []
        self.feed_into([(event or "message", data)], out)
        return out

    def feed_into(self, payloads: Sequence[tuple[str, bytes | str]], out: list[Event]) -> None:
        """Append the events of several ``(SSE event type, data)`` payloads to ``out``.

        The pipeline calls this once per network chunk: the per-token case runs
        inline, with no call per payload; ``out`` keeps the events of the
        payloads before one that raises.
        """
        opened = self._open
        append = out.append
        for name, data in payloads:
            if name == "content_block_delta" or name == "message":
                try:
                    fast = _FAST_DECODE(data)
                except msgspec.DecodeError:  # another shape (or bad JSON): the general path
                    pass
                else:  # one text or tool-JSON fragment into its open block: one event
                    state = opened.get(fast.index)
                    if state is not None:
                        delta = fast.delta
                        if isinstance(delta, _FastText):
                            if state.cls is TextBlock:
                                append(BlockDelta(index=state.index, delta=TextDelta(delta.text)))
                                continue
                        elif state.cls is ToolCallBlock and state.saw_input:
                            if delta.partial_json:
                                append(BlockDelta(index=state.index,
                                                  delta=ToolInputDelta(delta.partial_json)))
                            continue
            out += self._payload(data, None if name == "message" else name)

    def _payload(self, data: bytes | str, event: str | None) -> list[Event]:
        """The general path: decode the payload and dispatch on its ``type``."""
        payload = decode_json(data, event)
        if type(payload) is dict:
            kind = payload.get("type") or event
            handler = self._handlers.get(kind) if type(kind) is str else None
            if handler is not None:
                return handler(payload)
        return self._unknown_event(payload, event)

    def finish(self) -> list[Event]:
        """Close open blocks; end the response if ``message_stop`` never came."""
        out = self._close_all()
        if not self._ended:
            self._ended = True
            if self._errored:
                reason: str | None = "error"
            else:
                reason = map_stop_reason(self._stop_reason) or "unknown"
            finish = FinishReason.parse(reason)
            out.append(ResponseEnd(finish_reason=finish, stop_reason=self._stop_reason,
                                   terminated=False))
        return out

    # ------------------------------------------------------------ message events

    def _message_start(self, payload: dict[str, Any]) -> list[Event]:
        message = payload.get("message")
        if type(message) is not dict:
            return self._unknown_event(payload, "message_start")
        metadata = {
            k: v for k, v in message.items()
            if k not in _MESSAGE_FIELDS and v is not None and _MESSAGE_DEFAULTS.get(k) != v
        }
        content = message.get("content")
        if content:  # never sent by the API today; kept rather than dropped
            metadata["content"] = content
        out: list[Event] = []
        if not self._started:
            self._started = True
            out.append(ResponseStart(id=message.get("id"), model=message.get("model"),
                                     metadata=metadata))
        elif metadata:  # a repeated message_start: keep the first id, record the rest
            out.append(ResponseMetadata(metadata=metadata))
        usage = message.get("usage")
        if type(usage) is dict:
            out.append(UsageUpdate(usage=map_usage(usage)))
        return out

    def _message_delta(self, payload: dict[str, Any]) -> list[Event]:
        out: list[Event] = []
        delta = payload.get("delta")
        metadata: dict[str, Any] = {}
        if type(delta) is dict:
            for key, value in delta.items():
                if key == "stop_reason":
                    if value is not None:
                        self._stop_reason = value
                elif value is not None:  # stop_sequence, stop_details, container...
                    metadata[key] = value
        for key, value in payload.items():
            if key not in ("type", "delta", "usage") and value is not None:
                metadata[key] = value
        if metadata:
            out.append(ResponseMetadata(metadata=metadata))
        usage = payload.get("usage")
        if type(usage) is dict:
            out.append(UsageUpdate(usage=map_usage(usage)))
        return out

    def _message_stop(self, payload: dict[str, Any]) -> list[Event]:
        out = self._close_all()
        self._done = True
        if not self._ended:
            self._ended = True
            reason = "error" if self._errored and self._stop_reason is None else (
                map_stop_reason(self._stop_reason))
            finish = FinishReason.parse(reason)
            out.append(ResponseEnd(finish_reason=finish, stop_reason=self._stop_reason,
                                   terminated=True))
        return out

    def _ping(self, payload: dict[str, Any]) -> list[Event]:
        return []

    def _error(self, payload: dict[str, Any]) -> list[Event]:
        """``{"type": "error", "error": {"type": ..., "message": ...}}`` mid-stream."""
        self._errored = True
        error = payload.get("error")
        if type(error) is dict:
            error_type = error.get("type")
            message = error.get("message")
            status = _ERROR_STATUS.get(error_type) if type(error_type) is str else None
            return [ErrorEvent(message=str(message if message is not None else error),
                               error_type=error_type if type(error_type) is str else None,
                               status=status, raw=payload)]
        return [ErrorEvent(message=str(error), raw=payload)]

    def _unknown_event(self, payload: Any, event: str | None) -> list[Event]:
        """An event type this version does not know: kept, never fatal."""
        self._unknown.append({"event": event, "data": payload})
        return [ResponseMetadata(metadata={"unknown_events": list(self._unknown)})]

    # ------------------------------------------------------------ block events

    def _content_block_start(self, payload: dict[str, Any]) -> list[Event]:
        key = payload.get("index")
        block = payload.get("content_block")
        if type(block) is not dict:  # kept whole as a raw block
            block = {"type": "unknown", "content_block": block}
        out: list[Event] = []
        if key in self._open:  # a vendor restarted an open index: end the old block
            out += self._end(self._open.pop(key))
        state = self._begin(block, out)
        self._open[key] = state
        return out

    def _begin(self, block: dict[str, Any], out: list[Event]) -> _Open:
        """Open the streamkit block for an Anthropic ``content_block``."""
        index = self._next_index
        self._next_index += 1
        kind = block.get("type")
        new: Block
        if kind == "text":
            new = _text_block(block)
        elif kind == "thinking":
            new = ThinkingBlock(_str(block.get("thinking")),
                                signature=block.get("signature") or None,
                                metadata=_extras(block, ("type", "thinking", "signature")))
        elif kind == "redacted_thinking":
            new = ThinkingBlock(encrypted=block.get("data"), redacted=True,
                                metadata=_extras(block, ("type", "data")))
        elif kind in _TOOL_TYPES:
            metadata = _extras(block, ("type", "id", "name", "input"))
            if kind != "tool_use":
                metadata["server"] = True
                metadata["block_type"] = kind
            call = ToolCallBlock(block.get("id") or None, _str(block.get("name")),
                                 metadata=metadata)
            state = _Open(index, ToolCallBlock, call.id, call.name)
            tool_input = block.get("input")
            if tool_input:  # complete input, used at the stop unless deltas follow
                state.start_input = _ENCODE(tool_input).decode()
            out.append(BlockStart(index=index, block=call))
            return state
        elif type(kind) is str and kind.endswith("_tool_result"):
            new = _tool_result_block(block)
        else:
            new = RawBlock(str(kind), block, id=block.get("id") or None)
        out.append(BlockStart(index=index, block=new))
        return _Open(index, type(new), new.id)

    def _content_block_delta(self, payload: dict[str, Any]) -> list[Event]:
        delta = payload.get("delta")
        state = self._open.get(payload.get("index"))
        if type(delta) is dict and state is not None:
            cls = state.cls
            if cls is TextBlock:
                # the hot path: one text fragment -> exactly one event
                text = delta.get("text")
                if type(text) is str and delta.get("type") == "text_delta":
                    return [BlockDelta(index=state.index, delta=TextDelta(text))]
            elif cls is ToolCallBlock and state.saw_input:
                # the argument hot path, once the arguments have begun
                fragment = delta.get("partial_json")
                if type(fragment) is str and delta.get("type") == "input_json_delta":
                    if not fragment:
                        return []
                    return [BlockDelta(index=state.index, delta=ToolInputDelta(fragment))]
        if type(delta) is not dict:
            return self._unknown_event(payload, "content_block_delta")
        return self._delta(payload, delta, state)

    def _delta(self, payload: dict[str, Any], delta: dict[str, Any],
               state: _Open | None) -> list[Event]:
        """Every delta but plain text into an open text block."""
        kind = delta.get("type")
        out: list[Event] = []
        if kind == "text_delta":
            state = self._ensure(payload, state, TextBlock, out)
            out.append(BlockDelta(index=state.index, delta=TextDelta(_str(delta.get("text")))))
        elif kind == "thinking_delta":
            state = self._ensure(payload, state, ThinkingBlock, out)
            out.append(BlockDelta(index=state.index,
                                  delta=ThinkingDelta(_str(delta.get("thinking")))))
        elif kind == "signature_delta":
            state = self._ensure(payload, state, None, out)
            out.append(BlockDelta(index=state.index,
                                  delta=SignatureDelta(_str(delta.get("signature")))))
        elif kind == "input_json_delta":
            state = self._ensure(payload, state, ToolCallBlock, out)
            fragment = _str(delta.get("partial_json"))
            if fragment:
                if not state.saw_input and fragment.isspace():
                    return out  # only whitespace so far: still "no arguments"
                state.saw_input = True
                out.append(BlockDelta(index=state.index, delta=ToolInputDelta(fragment)))
        elif kind == "citations_delta":
            state = self._ensure(payload, state, TextBlock, out)
            citation = delta.get("citation")
            if type(citation) is dict:
                out.append(BlockDelta(index=state.index, delta=CitationDelta(citation)))
        else:
            return self._unknown_event(payload, "content_block_delta")
        return out

    def _ensure(self, payload: dict[str, Any], state: _Open | None, cls: type[Block] | None,
                out: list[Event]) -> _Open:
        """The open block a delta of class ``cls`` goes to.

        A delta for an index that was never started, or whose kind does not
        match the open block (a provider changing the block kind mid-stream),
        opens a new block of the right kind at the next streamkit index; the
        old block is ended first. Nothing is dropped and nothing raises.
        """
        if state is not None and (cls is None or state.cls is cls):
            return state
        key = payload.get("index")
        if state is not None:
            out += self._end(self._open.pop(key))
        # a lone signature belongs to reasoning: thinking is the block it signs
        kind = _IMPLIED.get(cls, "thinking")
        new = self._begin({"type": kind}, out)
        self._open[key] = new
        return new

    def _content_block_stop(self, payload: dict[str, Any]) -> list[Event]:
        state = self._open.pop(payload.get("index"), None)
        if state is None:  # a stop for a block that is not open: nothing to close
            return []
        return self._end(state)

    def _end(self, state: _Open) -> list[Event]:
        """``BlockEnd`` for one block; for a tool call the snapshot carries what
        the deltas could not: ``{}`` for no arguments or the input sent in
        ``content_block_start`` (cut-off JSON is marked by the accumulator)."""
        if state.cls is not ToolCallBlock:
            return [BlockEnd(index=state.index)]
        snapshot: ToolCallBlock | None = None
        if not state.saw_input:
            snapshot = ToolCallBlock(state.block_id, state.name, state.start_input or "{}")
        return [BlockEnd(index=state.index, snapshot=snapshot)]

    def _close_all(self) -> list[Event]:
        out: list[Event] = []
        for state in sorted(self._open.values(), key=lambda s: s.index):
            out += self._end(state)
        self._open.clear()
        return out


# ---------------------------------------------------------------- block helpers


def _str(value: Any) -> str:
    return value if type(value) is str else ""


def _extras(block: dict[str, Any], known: tuple[str, ...]) -> dict[str, Any]:
    """The fields of a provider block that streamkit's block has no slot for."""
    return {k: v for k, v in block.items() if k not in known and v is not None}


def _text_block(block: dict[str, Any]) -> TextBlock:
    citations = block.get("citations")
    return TextBlock(_str(block.get("text")),
                     citations=list(citations) if type(citations) is list else None,
                     metadata=_extras(block, ("type", "text", "citations")))


def _tool_result_block(block: dict[str, Any]) -> ToolResultBlock | RawBlock:
    """A server tool's result: a :class:`ToolResultBlock` when its content is
    text (MCP results), else the whole provider block as a :class:`RawBlock`
    (web search results, code execution output...), so it can be sent back."""
    content = block.get("content")
    call_id = block.get("tool_use_id")
    if type(call_id) is str:
        if type(content) is str:
            parts = [TextBlock(content)]
        elif type(content) is list and all(
            type(c) is dict and c.get("type") == "text" and set(c) <= {"type", "text"}
            for c in content
        ):
            parts = [TextBlock(_str(c.get("text"))) for c in content]
        else:
            parts = None
        if parts is not None:
            metadata = _extras(block, ("type", "tool_use_id", "content", "is_error"))
            metadata["block_type"] = block["type"]
            return ToolResultBlock(call_id, list(parts), bool(block.get("is_error")),
                                   metadata=metadata)
    return RawBlock(block["type"], block)  # own id: tool_use_id is the call's id
