"""Reading a growing block after every delta: does the cost stay linear?

Run: make bench-reads   (or .venv/bin/python bench/reads.py [--quick])

A UI reads the block it shows after every delta, and keeps what it read (a
label holds the string until the next frame). Each row applies N deltas
through ``streamkit.model.merge.apply_delta`` (the path a stream takes) and reads
after every one, at four sizes four times apart; linear work grows about 4x
per step, quadratic 16x. The floor: 4x the input, at most ~5x the
time. Two ways of holding what was read:

- *dropped*: the value read is let go before the next delta;
- *kept*: the previous value is still held when the next one is read.

A Python ``str`` / ``bytes`` cannot grow while something else holds it, so a
read that returns the whole value (``.text``, ``len(block.data)``, a string
argument of ``partial_arguments``) must copy it when the previous one is kept:
those rows are quadratic by construction, whatever the buffer; they are shown
so the difference is measured, not assumed. The reads that stay linear
whoever holds what: ``text_since(n)`` / ``input_since(n)`` / ``data_since(n)``
(what was added since offset ``n``), ``byte_length``, and ``.text`` /
``partial_arguments`` when the previous value is dropped.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _timing import fmt_seconds, table

from streamkit import DataBlock, TextBlock, ToolCallBlock
from streamkit.model.events import DataDelta, TextDelta, ToolInputDelta
from streamkit.model.merge import apply_delta

SIZES = (2_000, 8_000, 32_000, 128_000)  # deltas; 4 characters (or 96 bytes of audio) each
QUICK_SIZES = (1_000, 4_000, 16_000, 64_000)
FLOOR = 5.0  # the most 4x the input may cost, in time
PATIENCE = 2.0  # seconds: a row slower than this at one size skips the larger ones


def _text_deltas(n: int) -> list[TextDelta]:
    return [TextDelta(f"w{i % 100:02d} ") for i in range(n)]


def _argument_deltas(n: int) -> list[ToolInputDelta]:
    """A tool call writing one long string argument (a file body), 4 characters a delta."""
    return [ToolInputDelta('{"path": "a.py", "body": "')] + [
        ToolInputDelta(f"l{i % 100:02d} ") for i in range(n)]


def _audio_deltas(n: int) -> list[DataDelta]:
    return [DataDelta(bytes([i % 256]) * 96) for i in range(n)]  # 2 ms of 24 kHz PCM


Reader = Callable[[int], Callable[[], object]]


def text_read(keep: bool) -> Reader:
    def make(n: int) -> Callable[[], object]:
        deltas = _text_deltas(n)

        def run() -> object:
            block = TextBlock()
            kept: object = None
            for delta in deltas:
                apply_delta(block, delta)
                if keep:
                    kept = block.text
                else:
                    len(block.text)
            return kept
        return run
    return make


def text_since_read(n: int) -> Callable[[], object]:
    deltas = _text_deltas(n)

    def run() -> object:
        block = TextBlock()
        shown: list[str] = []  # what a UI keeps: every piece it was given
        offset = 0
        for delta in deltas:
            apply_delta(block, delta)
            new = block.text_since(offset)
            offset += len(new)
            shown.append(new)
        return shown
    return run


def arguments_read(keep: bool) -> Reader:
    def make(n: int) -> Callable[[], object]:
        deltas = _argument_deltas(n)

        def run() -> object:
            block = ToolCallBlock("call_1", "write")
            kept: object = None
            for delta in deltas:
                apply_delta(block, delta)
                view = block.partial_arguments
                if keep:  # the UI shows the growing string, and holds it until the next frame
                    kept = view.get("body") if isinstance(view, dict) else view
            assert block.partial_error is None and len(view["body"]) == 4 * n
            return kept
        return run
    return make


def input_since_read(n: int) -> Callable[[], object]:
    deltas = _argument_deltas(n)

    def run() -> object:
        block = ToolCallBlock("call_1", "write")
        shown: list[str] = []
        offset = 0
        for delta in deltas:
            apply_delta(block, delta)
            new = block.input_since(offset)
            offset += len(new)
            shown.append(new)
        return shown
    return run


def data_length_read(keep: bool) -> Reader:
    def make(n: int) -> Callable[[], object]:
        deltas = _audio_deltas(n)

        def run() -> object:
            block = DataBlock(media_type="audio/pcm;rate=24000")
            kept: object = None
            for delta in deltas:
                apply_delta(block, delta)
                if keep:
                    kept = block.data
                else:
                    len(block.data)
            return kept
        return run
    return make


def byte_length_read(n: int) -> Callable[[], object]:
    deltas = _audio_deltas(n)

    def run() -> object:
        block = DataBlock(media_type="audio/pcm;rate=24000")
        total = 0
        for delta in deltas:
            apply_delta(block, delta)
            total += block.byte_length
        return total
    return run


def data_since_read(n: int) -> Callable[[], object]:
    deltas = _audio_deltas(n)

    def run() -> object:
        block = DataBlock(media_type="audio/pcm;rate=24000")
        played: list[bytes] = []  # an audio player queues each new piece
        offset = 0
        for delta in deltas:
            apply_delta(block, delta)
            new = block.data_since(offset)
            offset += len(new)
            played.append(new)
        return played
    return run


ROWS: dict[str, tuple[Reader, str]] = {
    "`.text`, dropped": (text_read(keep=False), "linear"),
    "`.text`, kept": (text_read(keep=True), "a copy per read"),
    "`text_since(n)`, kept": (text_since_read, "linear"),
    "`partial_arguments`, dropped": (arguments_read(keep=False), "linear"),
    "`partial_arguments`, string kept": (arguments_read(keep=True), "a copy per read"),
    "`input_since(n)`, kept": (input_since_read, "linear"),
    "`len(block.data)`, dropped": (data_length_read(keep=False), "a copy per read"),
    "`len(block.data)`, kept": (data_length_read(keep=True), "a copy per read"),
    "`byte_length`": (byte_length_read, "linear"),
    "`data_since(n)`, kept": (data_since_read, "linear"),
}


def cpu_time(run: Callable[[], object], repeat: int) -> float:
    """The best CPU time of ``repeat`` runs, the collector paused during each: it
    visits every object the process holds, which is not the read's cost, and it
    is what makes single runs on a shared machine noisy."""
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            started = time.process_time()
            run()
            best = min(best, time.process_time() - started)
        finally:
            gc.enable()
    return best


def measure(sizes: tuple[int, ...], repeat: int, only: str | None) -> list[tuple[str, ...]]:
    """Each row at each size (median of ``repeat`` runs); a row whose run took
    longer than :data:`PATIENCE` skips its larger sizes (quadratic rows would
    take minutes there) and is judged by the steps measured."""
    rows = []
    for name, (make, expected) in ROWS.items():
        if only and only not in name:
            continue
        times: list[float] = []
        for n in sizes:
            if times and times[-1] > PATIENCE:
                break
            times.append(cpu_time(make(n), repeat))
        ratios = [later / max(earlier, 1e-9) for earlier, later in itertools.pairwise(times)]
        verdict = "linear" if max(ratios) <= FLOOR else "quadratic"
        shown = [fmt_seconds(t) for t in times] + ["(skipped)"] * (len(sizes) - len(times))
        rows.append((name, *shown, " / ".join(f"{r:.1f}x" for r in ratios), verdict, expected))
        print(f"  {name}: {' '.join(shown)}", file=sys.stderr)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats")
    parser.add_argument("--only", help="rows whose name holds this text")
    args = parser.parse_args()
    sizes = QUICK_SIZES if args.quick else SIZES
    rows = measure(sizes, 2 if args.quick else 3, args.only)
    header = ("read after every delta", *(f"{n:,} deltas" for n in sizes),
              "time per 4x input", "measured", "expected")
    print(table(f"Reads after every delta (floor: 4x input -> at most {FLOOR:.0f}x time)",
                rows, header))
    failed = [row[0] for row in rows if row[-1] == "linear" and row[-2] != "linear"]
    if failed:
        print(f"\nabove the floor: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
