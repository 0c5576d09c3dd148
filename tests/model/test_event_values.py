"""Events are values: emitted once, never changed, and applying them never
changes anything the event or another accumulator owns.

For every recorded stream, in one chunk and in 1-byte chunks: the events the
pipeline emitted, applied to fresh Accumulators (two at once, interleaved), give
a response equal to the stream's own final response; the final response and
the events are unchanged afterwards; the same holds for the coalesced frames a
UI repaints from, and with ``think_tags`` rewriting the events.
"""

from __future__ import annotations

import asyncio
import copy
from pathlib import Path
from typing import Any

import msgspec
import pytest
from support.comparing import comparable
from support.recordings import body, fixture_id, recordings

from streamkit import Accumulator, BlockDelta, BlockEnd, BlockStart, TextDelta
from streamkit.model.events import Event, event_to_dict
from streamkit.model.response import ChatResponse
from streamkit.reading.coalesce import Coalescer, coalesce
from streamkit.reading.pipeline import Pipeline
from streamkit.reading.stream import stream

RECORDINGS = recordings()


def run_pipeline(raw: bytes, size: int | None, **options: Any) -> tuple[list[Event], Pipeline]:
    """Every event of ``raw`` fed in ``size``-byte chunks (``None``: one chunk),
    ignoring a provider error at the end (its events were emitted all the same)."""
    pipeline = Pipeline("auto", **options)
    chunks = [raw] if size is None else [raw[i:i + size] for i in range(0, len(raw), size)]
    events: list[Event] = []
    for chunk in chunks:
        events += pipeline.feed(chunk)
    events += pipeline.finish()
    return events, pipeline


def reapplied(events: list[Any]) -> list[ChatResponse]:
    """Fresh accumulators folding the events: two at once, interleaved per event,
    so any state they shared through an event would show in both."""
    first, second = Accumulator(), Accumulator()
    for event in events:
        first.apply(event)
        second.apply(event)
    return [first.response, second.response]


def snapshot(events: list[Event]) -> list[Any]:
    """A deep, comparable record of the events (blocks as dicts, bytes as base64)."""
    return copy.deepcopy([event_to_dict(e) for e in events])


@pytest.mark.parametrize("size", [None, 1], ids=["whole", "1-byte"])
@pytest.mark.parametrize("path", RECORDINGS, ids=fixture_id)
def test_reapplying_the_events_gives_the_same_response(path: Path, size: int | None) -> None:
    events, pipeline = run_pipeline(body(path), size)
    final = pipeline.response
    final_before = comparable(final)
    events_before = snapshot(events)
    for copy_of_final in reapplied(events):
        assert comparable(copy_of_final) == final_before
    assert comparable(final) == final_before, "re-applying changed the stream's own response"
    assert snapshot(events) == events_before, "applying changed an event"


@pytest.mark.parametrize("path", RECORDINGS, ids=fixture_id)
def test_coalesced_frames_give_the_same_response(path: Path) -> None:
    events, pipeline = run_pipeline(body(path), 7)
    coalescer = Coalescer(interval=0.05)
    frames: list[Any] = []
    for position, event in enumerate(events):  # a clock that lets several deltas merge
        frames += coalescer.push(event, position * 0.01)
    frames += coalescer.flush()
    if any(type(e) is BlockDelta for e in events):
        assert len(frames) <= len(events)
    (ui_copy, _) = reapplied(frames)
    assert comparable(ui_copy) == comparable(pipeline.response)


@pytest.mark.parametrize("path", RECORDINGS, ids=fixture_id)
def test_think_tag_rewriting_leaves_the_parser_events_alone(path: Path) -> None:
    events, pipeline = run_pipeline(body(path), 5, think_tags=True)
    (again, _) = reapplied(events)
    assert comparable(again) == comparable(pipeline.response)


def test_the_live_block_is_the_streams_own_and_no_event_holds_it() -> None:
    """``stream.block(event)`` reads the growing block without a copy; an event
    never holds it, so a second accumulator cannot write into it."""
    path = next(p for p in RECORDINGS if p.name == "tool-use.sse" and "anthropic" in p.parts)

    async def main() -> None:
        async def chunks() -> Any:
            raw = body(path)
            for i in range(0, len(raw), 64):
                yield raw[i:i + 64]

        events = stream(chunks(), "anthropic")
        ui = Accumulator()
        async for item in events:
            if not isinstance(item, ChatResponse):
                ui.apply(item)
            if isinstance(item, (BlockStart, BlockDelta, BlockEnd)):
                live = events.block(item)
                assert live is events.block(item)  # the same object: no copy per delta
                assert live is not ui.block(item.index, item.choice)
                assert live.to_dict() == ui.block(item.index, item.choice).to_dict()
            elif isinstance(item, ChatResponse):
                assert comparable(ui.response) | {"is_last": True} == comparable(item)

    asyncio.run(main())


def test_events_are_frozen() -> None:
    delta = BlockDelta(index=0, delta=TextDelta("a"))
    with pytest.raises(AttributeError):
        delta.index = 1  # type: ignore[misc]
    with pytest.raises(AttributeError):
        delta.delta.text = "b"  # type: ignore[misc]
    assert msgspec.structs.replace(delta, index=1).index == 1 and delta.index == 0


async def _coalesced(path: Path) -> tuple[ChatResponse, ChatResponse]:
    async def chunks() -> Any:
        raw = body(path)
        for i in range(0, len(raw), 16):
            yield raw[i:i + 16]

    events = stream(chunks(), on_error="return")
    ui = Accumulator()
    async with coalesce(events, interval=0.001) as frames:
        async for frame in frames:
            if not isinstance(frame, ChatResponse):
                ui.apply(frame)
    return ui.response, events.response


@pytest.mark.parametrize("path", RECORDINGS, ids=fixture_id)
def test_live_coalesce_frames_rebuild_the_response(path: Path) -> None:
    """Over a real clock and task group, as a UI runs it."""
    ui_response, final = asyncio.run(_coalesced(path))
    assert comparable(ui_response) | {"is_last": True} == comparable(final) | {"is_last": True}
