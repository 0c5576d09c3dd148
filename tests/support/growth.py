"""Growth probes: is a cost linear in its input? Shared by the tests that keep
every read, parse and buffer linear (test_fuzz, model/test_reads,
test_bodies_hostile), and what one metadata event holds (constant per event
when each carries only its own payload, issue #10)."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any

from streamkit.model.events import ResponseMetadata


def cpu_time(run: Callable[[], Any], runs: int = 3) -> float:
    """The CPU time of ``run``, best of ``runs`` (CPU, not wall: a busy machine
    slows the wall clock, not the work), with the cyclic garbage collector
    off: a collection walks every object the test process holds, whatever
    ``run`` did, and landing in one run and not another it made a linear
    read look quadratic. (Nor is one run before timing: in a process that
    has imported the official SDKs a full collection costs 0.2 s, more than
    most probes.)"""
    best = float("inf")
    gc.disable()
    try:
        for _ in range(runs):
            started = time.process_time()
            run()
            best = min(best, time.process_time() - started)
    finally:
        gc.enable()
    return best


def assert_linear(make: Callable[[int], Callable[[], Any]], size: int) -> None:
    """The work for ``4 * size`` is at most 8x the work for ``size`` (linear: 4x,
    quadratic: 16x), CPU time, best of three; tried twice before failing.

    The first try times the large input once, not best of three: noise only
    adds time, so one run that is within 8x already passes, and one that is
    not sends the probe to the full tries (the small input, whose noise would
    hide a quadratic large one, is always best of three). Half the work of
    a passing probe, the same verdict for a failing one."""
    small, large = make(size), make(4 * size)
    if cpu_time(large, runs=1) / max(cpu_time(small), 1e-4) <= 8:
        return
    for _ in range(2):
        ratio = cpu_time(large) / max(cpu_time(small), 1e-4)
        if ratio <= 8:
            return
    raise AssertionError(f"4x the input cost {ratio:.1f}x the time")


def objects_held(event: ResponseMetadata) -> int:
    """How many containers (dicts and lists) one metadata event holds, all the
    way down: constant per event when each event carries only its own payload."""
    count, stack = 0, [event.metadata, event.append]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            count += 1
            stack.extend(value.values())
        elif isinstance(value, list):
            count += 1
            stack.extend(value)
    return count


def payloads_carried(event: ResponseMetadata) -> int:
    """The payloads one metadata event carries: the values it sets and the items it appends."""
    return len(event.metadata) + sum(len(items) for items in event.append.values())
