"""Frame-rate coalescing: fewer, merged deltas; nothing lost or reordered."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamkit import (
    Accumulator,
    BlockDelta,
    BlockEnd,
    BlockStart,
    ChatResponse,
    DataBlock,
    DataDelta,
    Event,
    FinishReason,
    ResponseEnd,
    TextBlock,
    TextDelta,
    ThinkingBlock,
    ThinkingDelta,
    ToolCallBlock,
    ToolInputDelta,
)
from streamkit.model.events import SignatureDelta
from streamkit.reading.coalesce import Coalescer, coalesce


def script(pieces: list[tuple[int, str]]) -> list[Event]:
    """A fresh event list: 3 blocks; ``pieces`` are (block, fragment) deltas."""
    events: list[Event] = [
        BlockStart(index=0, block=ThinkingBlock(id="th")),
        BlockStart(index=1, block=TextBlock(id="tx")),
        BlockStart(index=2, block=ToolCallBlock("tc", "f")),
        BlockStart(index=3, block=DataBlock("da", "audio/pcm;rate=24000")),
    ]
    for block, fragment in pieces:
        delta: Any = (ThinkingDelta(fragment), TextDelta(fragment), ToolInputDelta(fragment),
                      DataDelta(fragment.encode()))[block]
        events.append(BlockDelta(index=block, delta=delta))
        if fragment == "!":  # a boundary in the middle of the stream
            events.append(BlockDelta(index=0, delta=SignatureDelta("sig" + str(len(events)))))
    events += [BlockEnd(index=i) for i in range(4)]
    events.append(ResponseEnd(finish_reason=FinishReason.STOP))
    return events


def apply(events: list[Any]) -> ChatResponse:
    acc = Accumulator()
    acc.apply_all(events)
    return acc.response


def boundaries(events: list[Any]) -> list[str]:
    return [f"{type(e).__name__}:{getattr(e, 'index', '')}" for e in events
            if not (type(e) is BlockDelta and type(e.delta) is not SignatureDelta)]


@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["a", "bc", "!", "é"])),
                max_size=60),
       st.lists(st.floats(0, 0.2), min_size=1, max_size=60))
def test_coalesced_events_give_the_same_response(pieces: list[tuple[int, str]],
                                                 gaps: list[float]) -> None:
    original = apply(script(pieces))
    coalescer = Coalescer(interval=0.05)
    out: list[Any] = []
    now = 0.0
    events = script(pieces)
    for i, event in enumerate(events):
        now += gaps[i % len(gaps)]
        out += coalescer.push(event, now)
    out += coalescer.flush()
    assert apply(out).to_dict() | {"id": 0, "created_at": 0} == \
        original.to_dict() | {"id": 0, "created_at": 0}
    assert boundaries(out) == boundaries(script(pieces))  # never merged away or reordered


def test_deltas_within_a_frame_merge_and_frames_are_rate_limited() -> None:
    coalescer = Coalescer(interval=0.05)
    start = BlockStart(index=0, block=TextBlock())
    assert coalescer.push(start, 0.0) == [start]
    emitted: list[Any] = []
    for i in range(100):  # 100 deltas over 0.5 s: at most ~10 frames
        emitted += coalescer.push(BlockDelta(index=0, delta=TextDelta(str(i % 10))), i * 0.005)
    emitted += coalescer.flush()
    assert 8 <= len(emitted) <= 11
    assert "".join(e.delta.text for e in emitted) == "0123456789" * 10


def test_due_and_deadline() -> None:
    coalescer = Coalescer(interval=0.1)
    assert not coalescer.due(100.0)
    coalescer.push(BlockStart(index=0, block=TextBlock()), 1.0)
    coalescer.push(BlockDelta(index=0, delta=TextDelta("x")), 1.0)
    assert coalescer.deadline == pytest.approx(1.1)
    assert not coalescer.due(1.05) and coalescer.due(1.1)


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.mark.anyio
async def test_coalesce_flushes_on_time_while_the_stream_pauses() -> None:
    async def source() -> AsyncIterator[Any]:
        yield BlockStart(index=0, block=TextBlock())
        for piece in ("a", "b", "c"):
            yield BlockDelta(index=0, delta=TextDelta(piece))
        await anyio.sleep(0.5)  # the model pauses; the UI must still see "abc" now
        yield BlockDelta(index=0, delta=TextDelta("d"))
        yield BlockEnd(index=0)

    seen: list[tuple[float, Any]] = []
    async with coalesce(source(), interval=0.05) as frames:
        started = anyio.current_time()
        async for item in frames:
            seen.append((anyio.current_time() - started, item))
    kinds = [type(item).__name__ for _, item in seen]
    assert kinds == ["BlockStart", "BlockDelta", "BlockDelta", "BlockEnd"]
    first_delta_time, first_delta = seen[1]
    assert first_delta.delta.text == "abc" and first_delta_time < 0.4
    assert seen[2][1].delta.text == "d"
