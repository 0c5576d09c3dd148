"""What a client's calls spent, summed: usage ``total`` (answers handed back
whole) and ``actual`` (also what calls that broke or were closed early spent),
each call counted once as an additive increment, whatever its provider's
in-stream rule (cumulative or additive) was. Counts a provider never reported
stay ``None``. Thread-safe: a sync client may be shared by threads."""

from __future__ import annotations

import dataclasses
import threading

from ..model.usage import ChatUsage, merge_usage

__all__ = ["UsageTotals"]


def _increment(usage: ChatUsage) -> ChatUsage:
    """One call's final usage as an additive increment (its ``raw`` dropped: a
    provider's raw object is not summable)."""
    counts = {f.name: getattr(usage, f.name) for f in dataclasses.fields(usage)
              if f.name.endswith("_tokens")}
    return ChatUsage(**counts, accounting="additive",
                     input_includes_cache=usage.input_includes_cache,
                     output_includes_reasoning=usage.output_includes_reasoning)


class UsageTotals:
    """``total`` (whole answers) and ``actual`` (also what broken calls spent)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.total = ChatUsage(accounting="additive")
        self.actual = ChatUsage(accounting="additive")

    def add(self, usage: ChatUsage | None, *, whole: bool) -> None:
        if usage is None:
            return
        step = _increment(usage)
        with self._lock:
            self.actual = merge_usage(self.actual, step)
            if whole:
                self.total = merge_usage(self.total, step)
