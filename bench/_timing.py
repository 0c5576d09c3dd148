"""Shared timing helpers for bench/: alternate contenders, report medians and ratios.

Machines here are noisy, so each contender runs several times, interleaved with
the others, and the median is kept; results are reported as ratios measured in
the same run.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable


def median_times(contenders: dict[str, Callable[[], object]], repeat: int = 5) -> dict[str, float]:
    """Median wall time of each contender, runs alternating between them."""
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(repeat):
        for name, run in contenders.items():
            gc.collect()
            start = time.perf_counter()
            run()
            samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in samples.items()}


def fmt_seconds(seconds: float) -> str:
    """A duration with a sensible unit."""
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def table(title: str, rows: list[tuple[str, ...]], header: tuple[str, ...]) -> str:
    """A Markdown table."""
    lines = [f"\n### {title}\n", "| " + " | ".join(header) + " |",
             "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)
