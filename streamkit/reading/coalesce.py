"""Frame-rate coalescing for UIs: repaint at most ``1 / interval`` times a second.

A fast model sends hundreds of deltas a second; a UI that repaints on each one
wastes most of its time. :class:`Coalescer` (pure, clock passed in) merges the
deltas of each block between frames: text, reasoning, tool JSON, transcript
and audio bytes are concatenated. Block starts and ends, usage, metadata and
the final response are never merged away or reordered: each one first
flushes what is pending, then passes through. Nothing is lost, and applying
the coalesced events gives the same response as the original ones.

:func:`coalesce` runs a stream through a :class:`Coalescer` on a real clock: a
reader task pulls from the stream (at most ``buffer`` items ahead) while the
consumer receives a frame whenever the frame time passes, even if the stream
has gone quiet.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterable, AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio

from ..model.events import (
    BlockDelta,
    DataDelta,
    Delta,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
    TranscriptDelta,
)

_MERGEABLE: dict[type, tuple[str, Callable[[Any], Delta]]] = {
    TextDelta: ("text", lambda parts: TextDelta("".join(parts))),
    ThinkingDelta: ("thinking", lambda parts: ThinkingDelta("".join(parts))),
    ToolInputDelta: ("partial_json", lambda parts: ToolInputDelta("".join(parts))),
    TranscriptDelta: ("text", lambda parts: TranscriptDelta("".join(parts))),
    DataDelta: ("data", lambda parts: DataDelta(b"".join(parts))),
}


class _Pending:
    """The merged-so-far deltas of one kind for one block."""

    __slots__ = ("event", "kind", "parts")

    def __init__(self, event: BlockDelta, kind: type) -> None:
        self.event = event
        self.kind = kind
        self.parts: list[Any] = [getattr(event.delta, _MERGEABLE[kind][0])]

    def build(self) -> BlockDelta:
        if len(self.parts) == 1:
            return self.event
        delta = _MERGEABLE[self.kind][1](self.parts)
        return BlockDelta(index=self.event.index, delta=delta, choice=self.event.choice)


class Coalescer:
    """Merges deltas between frames; pure: the caller passes the time.

    ``push(item, now)`` returns what must be emitted now (possibly nothing);
    ``due(now)`` says whether the frame time has passed with deltas pending;
    ``flush()`` returns everything pending.
    """

    def __init__(self, interval: float = 0.05) -> None:
        self.interval = interval
        self._pending: list[_Pending] = []
        self._by_key: dict[tuple[int, int, type], _Pending] = {}
        self._frame_start: float | None = None

    @property
    def deadline(self) -> float:
        """When the pending deltas must be emitted (``inf`` when none are)."""
        if self._frame_start is None:
            return math.inf
        return self._frame_start + self.interval

    def due(self, now: float) -> bool:
        """Whether pending deltas should be emitted at ``now``."""
        return now >= self.deadline

    def push(self, item: Any, now: float) -> list[Any]:
        """Take one stream item; return the items to emit now, in order."""
        if type(item) is BlockDelta and type(item.delta) in _MERGEABLE:
            kind = type(item.delta)
            key = (item.choice, item.index, kind)
            pending = self._by_key.get(key)
            if pending is not None:
                # each block's own deltas stay in order; deltas of different blocks
                # between two boundaries may be regrouped, which changes nothing
                pending.parts.append(getattr(item.delta, _MERGEABLE[kind][0]))
            else:
                pending = _Pending(item, kind)
                self._pending.append(pending)
                self._by_key[key] = pending
            if self._frame_start is None:
                self._frame_start = now
            return self.flush() if self.due(now) else []
        return [*self.flush(), item]  # boundaries flush first, then pass through

    def flush(self) -> list[Any]:
        """Everything pending, merged, in arrival order."""
        out = [pending.build() for pending in self._pending]
        self._pending = []
        self._by_key = {}
        self._frame_start = None
        return out


@asynccontextmanager
async def coalesce(
    source: AsyncIterable[Any], interval: float = 0.05, *, buffer: int = 1024
) -> AsyncIterator[AsyncIterator[Any]]:
    """Coalesce a stream's items into frames at most ``1 / interval`` a second.

    Use as ``async with coalesce(stream) as frames: async for item in frames``.
    The source is read by a task of its own (at most ``buffer`` items ahead) so
    pending deltas are emitted on time even when the stream pauses. It must be
    async (a :class:`~streamkit.reading.stream.Stream`); a sync one (a ``SyncStream``)
    is a ``TypeError`` naming the fix: drive a :class:`Coalescer` with
    ``time.monotonic()`` in your own loop.
    """
    if not hasattr(source, "__aiter__"):
        raise TypeError(
            f"coalesce() needs an async stream, not a {type(source).__name__}: for a "
            "SyncStream, call Coalescer(interval).push(item, time.monotonic()) for each item "
            "and .flush() at the end, or stream from an async client")
    send, receive = anyio.create_memory_object_stream[Any](buffer)
    coalescer = Coalescer(interval)

    async def read() -> None:
        async with send:
            async for item in source:
                await send.send(item)

    async def frames() -> AsyncIterator[Any]:
        async with receive:
            while True:
                timeout = coalescer.deadline - anyio.current_time()
                item: Any = _NOTHING
                with anyio.move_on_after(max(timeout, 0.0) if timeout != math.inf else None):
                    try:
                        item = await receive.receive()
                    except anyio.EndOfStream:
                        for out in coalescer.flush():
                            yield out
                        return
                now = anyio.current_time()
                emitted = coalescer.flush() if item is _NOTHING else coalescer.push(item, now)
                for out in emitted:
                    yield out

    async with anyio.create_task_group() as group:
        group.start_soon(read)
        iterator = frames()
        try:
            yield iterator
        finally:
            await iterator.aclose()  # type: ignore[attr-defined]
            group.cancel_scope.cancel()


_NOTHING = object()
