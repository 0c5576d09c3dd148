"""Skipped tests fail where the whole suite must run: in CI (``CI`` set) and
under ``make test`` (``STREAMKIT_NO_SKIPS=1``).

A skip hides a check behind a line of the summary that nobody reads (the
browser test once skipped for months because Chromium was missing): there, a
skip is reported as a failure that says why the test could not run. A plain
``pytest`` run elsewhere keeps pytest's skips. ``tests/conftest.py`` imports
these hooks; ``tests/test_skips_fail.py`` checks them in a pytest of its own.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from typing import Any

import pytest

#: The variables that make a skip a failure (any value but empty, 0, false, no).
SWITCHES = ("CI", "STREAMKIT_NO_SKIPS")


def skips_fail() -> bool:
    """Whether this run turns skips into failures."""
    return any(os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")
               for name in SWITCHES)


def _why(report: Any) -> str:
    """The reason pytest gave for a skip (``longrepr`` is (file, line, reason))."""
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


def _fail(report: Any) -> None:
    report.outcome = "failed"
    report.longrepr = (f"{_why(report)}\n(a skip is a failure when {' or '.join(SWITCHES)} is "
                       f"set: everything must run; make the test runnable here)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]
                              ) -> Generator[None, Any, None]:
    outcome = yield
    report = outcome.get_result()
    if report.skipped and not hasattr(report, "wasxfail") and skips_fail():
        _fail(report)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, None]:
    outcome = yield
    report = outcome.get_result()
    if report.skipped and skips_fail():
        _fail(report)
