"""The fixtures and hooks every test gets; the helpers are in ``support/``.

Every test makes up the same ids on every run (:func:`repeatable_ids`), and a
skip fails in CI and under ``make test`` (``support/skips_fail.py``, whose hooks
are registered here). Assertions in ``support`` modules are rewritten as a test
module's are, so a failing oracle says what it compared.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.register_assert_rewrite("support")

from support.skips_fail import (  # noqa: E402 (after the rewrite hook)
    pytest_make_collect_report,
    pytest_runtest_makereport,
)

from streamkit.model.ids import counting_ids, id_factory  # noqa: E402

__all__ = ["pytest_make_collect_report", "pytest_runtest_makereport", "repeatable_ids"]


@pytest.fixture(autouse=True)
def repeatable_ids() -> Iterator[None]:
    """Every test makes up the same ids on every run (``text_`` + a counter)."""
    with id_factory(counting_ids()):
        yield
