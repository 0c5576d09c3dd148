"""Playing the client shell's part by hand for the sans-IO core
(``client/test_core.py``, ``client/test_orchestration.py``): a clock the test
moves, and the error answers a provider sends."""

from __future__ import annotations

import json

import httpx

from streamkit.client.retry import Timing

#: The wall clock's reading in every timing the tests make.
NOW = 1_800_000_000.0


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.at = 100.0

    def timing(self) -> Timing:
        return Timing(monotonic=lambda: self.at, now=lambda: NOW, random=lambda: 0.5)


def error_response(status: int, message: str, **headers: str) -> httpx.Response:
    """An Anthropic error answer with ``status`` and ``message``."""
    body = json.dumps({"type": "error", "error": {"type": "api_error", "message": message}})
    return httpx.Response(status, headers={"content-type": "application/json", **headers},
                          content=body.encode())
