"""A skipped test fails in CI and under make test, and only there: checked in a
pytest run of its own over a small test file that skips in both ways (a
``pytest.skip`` in a test, an ``importorskip`` at collection)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).parent

SKIPPING = '''
import pytest

def test_runs() -> None:
    assert True

def test_skips() -> None:
    pytest.skip("chromium is missing")

@pytest.mark.xfail(reason="a known failure stays an expected failure")
def test_expected_failure() -> None:
    raise AssertionError
'''

SKIPPED_MODULE = '''
import pytest
pytest.importorskip("no_such_module_here")

def test_never_collected() -> None:
    assert True
'''


def run_pytest(folder: Path, *files: str, **env: str) -> subprocess.CompletedProcess[str]:
    (folder / "conftest.py").write_text(
        f"import sys\nsys.path.insert(0, {str(TESTS)!r})\n"
        "from support.skips_fail import pytest_make_collect_report, pytest_runtest_makereport\n")
    (folder / "test_skipping.py").write_text(SKIPPING)
    (folder / "test_skipped_module.py").write_text(SKIPPED_MODULE)
    clean = {k: v for k, v in os.environ.items() if k not in ("CI", "STREAMKIT_NO_SKIPS")}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", "-p", "no:langsmith_plugin", "-p",
                           "no:hypothesispytest", "-p", "no:benchmark", *files],
                          cwd=folder, capture_output=True, text=True, timeout=120, check=False,
                          env={**clean, **env})


@pytest.mark.parametrize("switch", [{"CI": "true"}, {"STREAMKIT_NO_SKIPS": "1"}])
def test_a_skip_fails_when_everything_must_run(tmp_path: Path, switch: dict[str, str]) -> None:
    done = run_pytest(tmp_path, "test_skipping.py", **switch)
    assert done.returncode == 1, done.stdout
    assert "1 failed, 1 passed, 1 xfailed" in done.stdout.strip().splitlines()[-1], done.stdout
    assert "chromium is missing" in done.stdout
    assert "a skip is a failure when CI or STREAMKIT_NO_SKIPS is set" in done.stdout


def test_a_module_skipped_at_collection_fails_the_run(tmp_path: Path) -> None:
    done = run_pytest(tmp_path, "test_skipped_module.py", CI="1")
    assert done.returncode not in (0, 5), done.stdout
    assert "no_such_module_here" in done.stdout and "a skip is a failure" in done.stdout


def test_elsewhere_a_skip_stays_a_skip(tmp_path: Path) -> None:
    done = run_pytest(tmp_path, "test_skipping.py", "test_skipped_module.py", CI="false")
    assert done.returncode == 0, done.stdout
    assert "1 passed, 2 skipped, 1 xfailed" in done.stdout.strip().splitlines()[-1]
