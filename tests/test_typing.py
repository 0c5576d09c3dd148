"""The public API as a user's ``mypy --strict`` sees it."""

from __future__ import annotations

from pathlib import Path

from mypy import api

ROOT = Path(__file__).parent.parent


def test_stream_is_typed_by_its_source() -> None:
    """Async sources give a ``Stream``, sync ones a ``SyncStream``: with ``Any``
    the wrong assignment on the snippet's last line would pass unnoticed."""
    snippet = Path(__file__).parent / "typing" / "stream_overloads.py"
    # mypy's own incremental cache, which make typecheck has just filled: the
    # library and its dependencies are not checked again (minutes of CPU saved)
    stdout, _, status = api.run(["--strict", "--cache-dir", str(ROOT / ".mypy_cache"),
                                 str(snippet)])
    errors = [line for line in stdout.splitlines() if ": error:" in line]
    assert status == 1
    assert len(errors) == 1, stdout
    assert "stream_overloads.py:21:" in errors[0] and "SyncStream" in errors[0], stdout
