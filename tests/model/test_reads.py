"""Reading a growing block after every delta: what was added since an offset,
the byte length without a copy, and the cost of each read whoever holds what.

``bench/reads.py`` measures the same reads at four sizes, the previous value
kept and dropped; the growth probes here compare two sizes four times apart
(linear work grows about 4x, quadratic 16x; the bound is 8x, CPU time, best
of three, tried twice), as ``tests/test_fuzz.py`` does.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from support.growth import assert_linear

from streamkit import DataBlock, TextBlock, ThinkingBlock, ToolCallBlock
from streamkit.model.events import (
    DataDelta,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
    TranscriptDelta,
)
from streamkit.model.fragments import TextBuffer
from streamkit.model.merge import apply_delta

# ---------------------------------------------------------------- what was added


def test_the_rope_gives_any_suffix_and_its_length_whatever_is_held() -> None:
    rng = random.Random(21)
    for _ in range(500):
        expected = rng.choice(["", "abc", "héllo"])
        buffer = TextBuffer(expected)
        held = []
        for _ in range(rng.randint(1, 50)):
            roll = rng.random()
            if roll < 0.5:
                fragment = "".join(rng.choice("xé😀 ") for _ in range(rng.randint(0, 5)))
                buffer.append(fragment)
                expected += fragment
            elif roll < 0.65:
                held.append(buffer.read())  # a caller that keeps the whole text
                assert held[-1] == expected
            elif roll < 0.9:
                start = rng.randint(-1, len(expected) + 2)
                assert buffer.read_from(start) == expected[max(start, 0):]
            else:
                assert len(buffer) == len(expected) and bool(buffer) == bool(expected)
        assert buffer.read() == expected


@pytest.mark.parametrize("kind", ["text", "thinking", "input", "transcript"])
def test_each_growing_text_reads_from_an_offset(kind: str) -> None:
    block: Any
    if kind == "text":
        block, delta, since = TextBlock("ab"), TextDelta, "text_since"
    elif kind == "thinking":
        block, delta, since = ThinkingBlock("ab"), ThinkingDelta, "thinking_since"
    elif kind == "input":
        block, delta, since = ToolCallBlock("c", "f", "ab"), ToolInputDelta, "input_since"
    else:
        block, delta, since = DataBlock(transcript="ab"), TranscriptDelta, "transcript_since"
    shown, offset = [], 0
    for piece in ["c", "", "dé", "f😀"]:
        apply_delta(block, delta(piece))
        new = getattr(block, since)(offset)
        offset += len(new)
        shown.append(new)
    assert shown == ["abc", "", "dé", "f😀"]
    assert getattr(block, since)(0) == getattr(block, kind) == "abcdéf😀"
    assert getattr(block, since)(5) == "f😀" and getattr(block, since)(99) == ""


def test_audio_reads_from_an_offset_and_its_length_costs_no_copy() -> None:
    block = DataBlock(media_type="audio/pcm;rate=24000")
    played, offset = [], 0
    for chunk in [b"\x01\x02", b"", b"\x03" * 4]:
        apply_delta(block, DataDelta(chunk))
        assert block.byte_length == offset + len(chunk)
        new = block.data_since(offset)
        offset += len(new)
        played.append(new)
    assert played == [b"\x01\x02", b"", b"\x03" * 4]
    assert block.duration == pytest.approx(6 / 48000)
    assert block.source._buf._bytes is None  # type: ignore[union-attr]  # never made: no copy
    assert block.data == b"\x01\x02" + b"\x03" * 4 and block.byte_length == 6
    assert DataBlock(source=None, media_type="image/png").data_since(0) == b""


# ---------------------------------------------------------------- linear cost


def _texts(n: int) -> list[TextDelta]:
    return [TextDelta(f"w{i % 100:02d} ") for i in range(n)]


def test_text_since_after_every_delta_is_linear_while_the_text_is_held() -> None:
    """The caller keeps the whole text it read once and every piece since: the
    rope slices its pieces and never copies the text held."""
    def make(n: int) -> Callable[[], Any]:
        deltas = _texts(n)

        def run() -> None:
            block = TextBlock("start")
            held = block.text
            pieces, offset = [], len(held)
            for delta in deltas:
                apply_delta(block, delta)
                pieces.append(block.text_since(offset))
                offset += len(pieces[-1])
            assert held + "".join(pieces) == block.text
        return run

    assert_linear(make, 20_000)


def test_text_read_after_every_delta_then_dropped_is_linear() -> None:
    def make(n: int) -> Callable[[], Any]:
        deltas = _texts(n)

        def run() -> None:
            block = TextBlock()
            for delta in deltas:
                apply_delta(block, delta)
                assert block.text  # read, and let go

        return run

    assert_linear(make, 20_000)


def test_input_since_and_byte_length_after_every_delta_are_linear() -> None:
    def arguments(n: int) -> Callable[[], Any]:
        deltas = [ToolInputDelta('{"body": "')] + [ToolInputDelta("abcd")] * n

        def run() -> None:
            block = ToolCallBlock("c", "write")
            held, offset = [], 0
            for delta in deltas:
                apply_delta(block, delta)
                held.append(block.input_since(offset))
                offset += len(held[-1])
        return run

    def audio(n: int) -> Callable[[], Any]:
        deltas = [DataDelta(b"\x00" * 96)] * n

        def run() -> None:
            block = DataBlock(media_type="audio/pcm;rate=24000")
            for delta in deltas:
                apply_delta(block, delta)
                assert block.byte_length
                assert block.duration
        return run

    assert_linear(arguments, 20_000)
    assert_linear(audio, 20_000)
