"""What the tests that run Node share: the web/ folder, node and npm, the
installed packages (``npm ci`` from the lock file when missing) and the page bundle."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
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


def ensure_packages() -> None:
    """``npm ci`` (exact versions from package-lock.json) when node_modules is
    missing or older than the lock file."""
    marker = WEB / "node_modules" / ".package-lock.json"
    lock = WEB / "package-lock.json"
    if marker.exists() and marker.stat().st_mtime >= lock.stat().st_mtime:
        return
    run([tool("npm"), "ci", "--no-audit", "--no-fund"], timeout=300)


def build_bundle() -> Path:
    """The page script, bundled by esbuild from web/src (as ``make web`` does)."""
    ensure_packages()
    run([tool("npm"), "run", "--silent", "build"], timeout=120)
    return BUNDLE
