"""pytest-benchmark micro-benchmarks of the accumulation hot paths.

Run: make bench-micro (not part of make test).
"""

from __future__ import annotations

from typing import Any

from streamkit import (
    Accumulator,
    BlockDelta,
    BlockStart,
    ChatResponse,
    TextBlock,
    TextDelta,
)

AUDIO_CHUNK = bytes(4800)


def test_text_deltas_100k(benchmark: Any) -> None:
    def run() -> str:
        r = ChatResponse()
        for _ in range(100_000):
            r.append_text("tok ")
        return r.text

    assert len(benchmark(run)) == 400_000


def test_tool_json_fragments_20k(benchmark: Any) -> None:
    def run() -> str:
        r = ChatResponse()
        for _ in range(20_000):
            r.append_tool_call("c", "f", "abcd")
        return r.tool_calls[0].input

    assert len(benchmark(run)) == 80_000


def test_audio_chunks_2000(benchmark: Any) -> None:
    def run() -> str:
        r = ChatResponse()
        for _ in range(2000):
            r.append_data_block("a", AUDIO_CHUNK, "audio/pcm;rate=24000")
        return r.data_blocks[0].source.data  # type: ignore[union-attr]

    assert len(benchmark(run)) == 12_800_000


def test_event_apply_100k(benchmark: Any) -> None:
    events = [BlockDelta(index=0, delta=TextDelta("tok ")) for _ in range(100_000)]

    def run() -> str:
        acc = Accumulator()
        acc.apply(BlockStart(index=0, block=TextBlock()))
        acc.apply_all(events)  # type: ignore[arg-type]
        return acc.response.text

    assert len(benchmark(run)) == 400_000
