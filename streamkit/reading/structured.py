"""Structured output as a stream yields it: ``events.partial_output(Model)``.

The sans-IO reader (:class:`~streamkit.model.structured.reader.PartialOutputReader`)
takes the stream's events; these loops pull them, throttle the values to one per
``interval`` and end with ``response.parse(Model)``.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import TYPE_CHECKING

from ..model.blocks import ModelT
from ..model.structured.reader import PartialOutputReader, Throttle

if TYPE_CHECKING:
    from .stream import Stream, SyncStream

__all__ = ["iterate_async", "iterate_sync"]


def _reader_for(stream: Stream | SyncStream, model: type[ModelT]) -> PartialOutputReader[ModelT]:
    """A reader that has taken what the stream has shown already."""
    reader = PartialOutputReader(model)
    reader.read_blocks(stream._driver.pipeline.accumulator.started_blocks().items())
    return reader


async def iterate_async(stream: Stream, model: type[ModelT], interval: float | None,
                        clock: Callable[[], float] = time.monotonic) -> AsyncIterator[ModelT]:
    """What :meth:`Stream.partial_output <streamkit.stream.Stream.partial_output>` yields."""
    reader = _reader_for(stream, model)
    throttle = Throttle(interval)
    async for item in stream:
        if (reader.push(item) or reader.pending) and throttle.due(now := clock()):
            value = reader.snapshot()
            if value is not None:
                throttle.mark(now)
                yield value
    yield reader.finish(stream.response)


def iterate_sync(stream: SyncStream, model: type[ModelT], interval: float | None,
                 clock: Callable[[], float] = time.monotonic) -> Iterator[ModelT]:
    """What :meth:`SyncStream.partial_output <streamkit.stream.SyncStream.partial_output>`
    yields."""
    reader = _reader_for(stream, model)
    throttle = Throttle(interval)
    for item in stream:
        if (reader.push(item) or reader.pending) and throttle.due(now := clock()):
            value = reader.snapshot()
            if value is not None:
                throttle.mark(now)
                yield value
    yield reader.finish(stream.response)
