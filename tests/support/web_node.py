"""What the tests that run Node share: the web/ folder, node and npm, the
installed packages (``npm ci`` from the lock file when missing) and the page bundle.

Tests run in parallel (pytest-xdist): ``npm ci`` and the bundle build write
shared folders, so each runs under an exclusive file lock and is skipped when
its output is already newer than its inputs (a worker that waited finds the
work done)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.paths import ROOT

WEB = ROOT / "web"
BUNDLE = ROOT / "streamkit" / "web" / "static" / "app.js"


def tool(name: str) -> str:
    """The path of ``node`` / ``npm``; a test fails, never skips, without them:
    the browser protocol is only proven by the real client."""
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not installed: the AI SDK checks of streamkit.web need Node.js "
                    f"18+ and npm (Debian: apt-get install nodejs npm)")
    return path


def run(args: list[str], *, timeout: float, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[str]:
    """Run a command in web/, failing the test with its output when it fails."""
    done = subprocess.run(args, cwd=WEB, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})}, check=False)
    if done.returncode != 0:
        pytest.fail(f"{' '.join(args)} failed ({done.returncode}):\n{done.stdout[-6000:]}\n"
                    f"{done.stderr[-3000:]}")
    return done


@contextlib.contextmanager
def exclusive(name: str) -> Iterator[None]:
    """Hold an exclusive lock (a file under web/) against the other test workers."""
    with (WEB / f".{name}.lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _newer(output: Path, inputs: list[Path]) -> bool:
    return output.exists() and all(output.stat().st_mtime >= i.stat().st_mtime for i in inputs)


def ensure_packages() -> None:
    """``npm ci`` (exact versions from package-lock.json) when node_modules is
    missing or older than the lock file."""
    marker = WEB / "node_modules" / ".package-lock.json"
    lock = WEB / "package-lock.json"
    with exclusive("npm"):
        if _newer(marker, [lock]):
            return
        run([tool("npm"), "ci", "--no-audit", "--no-fund"], timeout=300)
        marker.touch()


def build_bundle() -> Path:
    """The page script, bundled by esbuild from web/src (as ``make web`` does),
    unless it is newer than every source."""
    ensure_packages()
    sources = [*sorted((WEB / "src").rglob("*.js")), WEB / "package.json",
               WEB / "node_modules" / ".package-lock.json"]
    with exclusive("bundle"):
        if not _newer(BUNDLE, sources):
            run([tool("npm"), "run", "--silent", "build"], timeout=120)
    return BUNDLE
