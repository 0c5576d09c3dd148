"""The Accumulator: applies stream events to responses, one per choice.

This is where a stream becomes a :class:`~streamkit.model.response.ChatResponse`.
Blocks are keyed by ``(choice, index)`` as the parsers number them; the
merging itself is :func:`streamkit.model.merge.apply_delta`, shared with the
``ChatResponse.append_*`` methods. ``apply`` is one dict lookup plus O(1)
work per event.

Applying never changes the event nor anything it holds: the block of a
``BlockStart`` and the snapshot of a ``BlockEnd`` are copied (once per block,
not per delta), so any number of accumulators can fold the same events, and
the events can be re-applied later, with equal results. :meth:`Accumulator.block`
is the read-only view of a block's current state that UIs use while it streams.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from streamkit.model.json_values import copy_json

from .blocks import ContentBlock, ToolCallBlock
from .errors import ProtocolError
from .events import (
    BlockDelta,
    BlockEnd,
    BlockStart,
    ErrorEvent,
    Event,
    ResponseEnd,
    ResponseMetadata,
    ResponseStart,
    UsageUpdate,
)
from .finish import FinishReason
from .merge import DELTA_APPLIERS, apply_snapshot
from .partial_json import is_truncated
from .response import ChatResponse
from .usage import merge_usage


def _mark_truncated(block: ToolCallBlock) -> None:
    """A tool call whose JSON arguments never closed (cut at max_tokens, by any
    provider) is marked ``incomplete``; its raw text stays as it is. Free-form
    custom-tool input is not JSON and is left alone."""
    meta = block.metadata
    custom = meta.get("custom") or meta.get("type") == "custom"
    if not block.incomplete and not custom and is_truncated(block.input):
        block.incomplete = True


class _Choice:
    """One choice's response and its blocks by parser index."""

    __slots__ = ("blocks", "ended", "response", "started")

    def __init__(self) -> None:
        self.response = ChatResponse()
        self.blocks: dict[int, ContentBlock] = {}
        self.started = False
        self.ended = False


class Accumulator:
    """Folds events into responses: ``apply(event)`` for each, then read
    :attr:`response` (choice 0) or :attr:`responses` (every choice)."""

    def __init__(self) -> None:
        self._choices: dict[int, _Choice] = {}
        #: The provider's in-stream errors, in order (the stream raises the first).
        self.errors: list[ErrorEvent] = []
        self._handlers: dict[type, Callable[[Any], None]] = {
            BlockDelta: self.apply_delta,
            BlockStart: self._start_block,
            BlockEnd: self._end_block,
            ResponseStart: self._start,
            UsageUpdate: self._usage,
            ResponseMetadata: self._metadata,
            ResponseEnd: self._end,
            ErrorEvent: self._error,
        }

    def _choice(self, index: int) -> _Choice:
        state = self._choices.get(index)
        if state is None:
            state = self._choices[index] = _Choice()
        return state

    @property
    def response(self) -> ChatResponse:
        """The response of choice 0 (the only one unless ``n > 1``)."""
        return self._choice(0).response

    @property
    def responses(self) -> list[ChatResponse]:
        """Every choice's response, ordered by choice index."""
        if not self._choices:
            return [self.response]
        return [self._choices[i].response for i in sorted(self._choices)]

    def block(self, index: int, choice: int = 0) -> ContentBlock:
        """The live block at parser ``index`` of ``choice``: the accumulator's own
        state, read-only for the caller, growing as later events are applied
        (``.copy()`` it to keep a moment's snapshot). ``KeyError`` if never started."""
        state = self._choices.get(choice)
        if state is None:
            raise KeyError((choice, index))
        return state.blocks[index]

    def started_blocks(self, choice: int = 0) -> dict[int, ContentBlock]:
        """Every block of ``choice`` started so far, by parser index: the live
        blocks (read-only for the caller), in a new dict."""
        state = self._choices.get(choice)
        return {} if state is None else dict(state.blocks)

    def apply(self, event: Event) -> None:
        """Merge one event into its choice's response."""
        self._handlers[type(event)](event)

    def apply_all(self, events: list[Event]) -> None:
        """Apply several events in order."""
        handlers = self._handlers
        delta_handler = self.apply_delta
        for event in events:
            if type(event) is BlockDelta:  # the per-token case: skip the lookup
                delta_handler(event)
            else:
                handlers[type(event)](event)

    def interrupt(self) -> None:
        """Mark every unfinished response as interrupted (the transport broke,
        or the consumer stopped early); what was received stays. Its tool calls
        get the check a ``BlockEnd`` gives them: arguments cut off are marked
        ``incomplete`` (O(argument text), once per interruption)."""
        for state in self._choices.values() or [self._choice(0)]:
            if not state.ended:
                state.response.finished_reason = FinishReason.INTERRUPTED
                for block in state.blocks.values():
                    if type(block) is ToolCallBlock:
                        _mark_truncated(block)

    # ------------------------------------------------------------ handlers

    def apply_delta(self, event: BlockDelta) -> None:
        """:meth:`apply` for a :class:`BlockDelta`, the per-token event: a caller
        that knows the type skips the dispatch."""
        try:
            block = self._choices[event.choice].blocks[event.index]
        except KeyError:
            raise ProtocolError(
                f"delta for block {event.index} of choice {event.choice}, which was never started"
            ) from None
        delta = event.delta
        DELTA_APPLIERS[type(delta)](block, delta)  # merge.apply_delta, one call less

    def _start_block(self, event: BlockStart) -> None:
        state = self._choice(event.choice)
        block: Any = event.block.copy()  # the event keeps its own value
        state.blocks[event.index] = block
        state.response.add_block(block)

    def _end_block(self, event: BlockEnd) -> None:
        state = self._choice(event.choice)
        block = state.blocks.get(event.index)
        if block is None:
            if event.snapshot is None:
                raise ProtocolError(
                    f"end of block {event.index} of choice {event.choice}, which was never started"
                )
            block = event.snapshot.copy()  # type: ignore[assignment]
            state.blocks[event.index] = block  # type: ignore[assignment]
            state.response.add_block(block)  # type: ignore[arg-type]
        elif event.snapshot is not None:
            # a copy, so the block never shares a citation or metadata object with the event
            apply_snapshot(block, event.snapshot.copy())
        if type(block) is ToolCallBlock:
            _mark_truncated(block)

    def started(self, choice: int = 0) -> bool:
        """Whether a :class:`ResponseStart` has been applied to ``choice``."""
        state = self._choices.get(choice)
        return state is not None and state.started

    def _start(self, event: ResponseStart) -> None:
        state = self._choice(event.choice)
        state.started = True
        response = state.response
        if event.id:
            response.id = event.id
        if event.model:
            response.model = event.model
        if event.provider:
            response.provider = event.provider
        if event.metadata:
            response.metadata.update(copy_json(event.metadata))  # the event keeps its own

    def _usage(self, event: UsageUpdate) -> None:
        response = self._choice(event.choice).response
        response.usage = merge_usage(response.usage, event.usage)

    def _metadata(self, event: ResponseMetadata) -> None:
        response = self._choice(event.choice).response
        if event.metadata:
            response.metadata.update(copy_json(event.metadata))  # the event keeps its own
        for key, items in event.append.items():
            kept = response.metadata.get(key)
            if type(kept) is not list:
                kept = response.metadata[key] = []
            kept.extend(copy_json(items))
        if event.id:
            response.id = event.id
        if event.model:
            response.model = event.model

    def _end(self, event: ResponseEnd) -> None:
        state = self._choice(event.choice)
        response = state.response
        reason = event.finish_reason
        if response.finished_reason is FinishReason.ERROR:
            pass  # an in-stream error stays the reason, whatever end follows it
        elif reason is not None:
            response.finished_reason = reason
        elif response.finished_reason is None:
            response.finished_reason = FinishReason.UNKNOWN
        if event.stop_reason is not None:
            response.stop_reason = event.stop_reason
        response.terminated = response.terminated or event.terminated
        response.is_last = True
        state.ended = True

    def _error(self, event: ErrorEvent) -> None:
        self.errors.append(event)
        response = self._choice(event.choice).response
        response.finished_reason = FinishReason.ERROR
        response.metadata["error"] = {
            "message": event.message,
            "code": event.code,
            "type": event.error_type,
            "status": event.status,
            "raw": event.raw,
        }
