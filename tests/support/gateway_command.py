"""``python -m streamkit gateway`` as a subprocess on a free port: what the
tests of the command itself (its workers, its logs) talk to."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx


class GatewayCommand:
    """A running command: its ``url``, and its ``output`` (stdout and stderr
    together) once the block has ended."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.output = ""


@contextlib.contextmanager
def gateway_command(config: Path, *options: str) -> Iterator[GatewayCommand]:
    """Run the command on ``config`` (with more ``options``) until the block
    ends, once its ``/health`` answers; it is stopped as Ctrl-C would."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "streamkit", "gateway", "--config", str(config),
         "--port", str(port), *options],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env={**os.environ})
    running = GatewayCommand(f"http://127.0.0.1:{port}")
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(running.url + "/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert server.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        yield running
    finally:
        server.terminate()
        running.output = server.communicate(timeout=30)[0].decode()
