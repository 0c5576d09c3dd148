"""Growth probes: is a cost linear in its input? Shared by the tests that keep
every read, parse and buffer linear (test_fuzz, test_reads, test_bodies_hostile)."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any


def cpu_time(run: Callable[[], Any]) -> float:
    """The CPU time of ``run``, best of three (CPU, not wall: a busy machine
    slows the wall clock, not the work), with the cyclic garbage collector
    off: a collection walks every object the test process holds, whatever
    ``run`` did, and landing in one run and not another it made a linear
    read look quadratic."""
    best = float("inf")
    gc.collect()
    gc.disable()
    try:
        for _ in range(3):
            started = time.process_time()
            run()
            best = min(best, time.process_time() - started)
    finally:
        gc.enable()
    return best


def assert_linear(make: Callable[[int], Callable[[], Any]], size: int) -> None:
    """The work for ``4 * size`` is at most 8x the work for ``size`` (linear: 4x,
    quadratic: 16x), CPU time, best of three; tried twice before failing."""
    small, large = make(size), make(4 * size)
    for _ in range(2):
        ratio = cpu_time(large) / max(cpu_time(small), 1e-4)
        if ratio <= 8:
            return
    raise AssertionError(f"4x the input cost {ratio:.1f}x the time")
