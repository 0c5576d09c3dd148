"""Checked by tests/test_typing.py with mypy --strict: what a user's type checker
sees of ``streamkit.stream()``. The last line must be reported as an error."""

from collections.abc import AsyncIterator, Iterator

import streamkit
from streamkit.reading.stream import Stream, SyncStream


async def network() -> AsyncIterator[bytes]:
    yield b""


def recording() -> Iterator[bytes]:
    yield b""


async_stream: Stream = streamkit.stream(network())
sync_stream: SyncStream = streamkit.stream(recording())
listed: SyncStream = streamkit.stream([b"data: {}\n\n"])
wrong: SyncStream = streamkit.stream(network())  # the error the test expects
