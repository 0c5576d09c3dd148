"""Structured output as a stream yields it: ``events.partial_output(Model)``.

The sans-IO reader (:class:`~streamkit.model.structured.reader.PartialOutputReader`)
takes the stream's events and its pacer throttles the values to one per
``interval`` (:class:`~streamkit.model.structured.reader.PartialOutputPacer`); these
loops only pull the events, and end with ``response.parse(Model)``.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import TYPE_CHECKING

from ..model.blocks import ModelT
from ..model.structured.reader import PartialOutputPacer, PartialOutputReader

if TYPE_CHECKING:
    from .stream import Stream, SyncStream

__all__ = ["iterate_async", "iterate_sync"]


def _pacer_for(stream: Stream | SyncStream, model: type[ModelT], interval: float | None,
               clock: Callable[[], float]) -> PartialOutputPacer[ModelT]:
    """The partial values of a reader that has taken what the stream has shown already."""
    reader = PartialOutputReader(model)
    reader.read_blocks(stream._driver.pipeline.accumulator.started_blocks().items())
    return PartialOutputPacer(reader, interval, clock)


async def iterate_async(stream: Stream, model: type[ModelT], interval: float | None,
                        clock: Callable[[], float] = time.monotonic) -> AsyncIterator[ModelT]:
    """What :meth:`Stream.partial_output <streamkit.stream.Stream.partial_output>` yields."""
    pacer = _pacer_for(stream, model, interval, clock)
    async for item in stream:
        value = pacer.take(item)
        if value is not None:
            yield value
    yield pacer.reader.finish(stream.response)


def iterate_sync(stream: SyncStream, model: type[ModelT], interval: float | None,
                 clock: Callable[[], float] = time.monotonic) -> Iterator[ModelT]:
    """What :meth:`SyncStream.partial_output <streamkit.stream.SyncStream.partial_output>`
    yields."""
    pacer = _pacer_for(stream, model, interval, clock)
    for item in stream:
        value = pacer.take(item)
        if value is not None:
            yield value
    yield pacer.reader.finish(stream.response)
