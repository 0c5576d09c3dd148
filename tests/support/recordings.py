"""The recorded streams of ``tests/fixtures`` and how a test reads them: as the
payloads the framing layer hands a parser, as the HTTP body they were recorded
from, and through the whole pipeline in network chunks.

Payloads are always ``Payload(event, data)``: the SSE event name (``None`` for
unnamed ``message`` events and JSON lines) and the data.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from streamkit import replay
from streamkit.framing.sse import SSEDecoder
from streamkit.model.events import Event
from streamkit.model.response import ChatResponse
from streamkit.testing import load_recording
from support.paths import FIXTURES

EDGE = FIXTURES / "edge"
_STREAM_SUFFIXES = (".sse", ".ndjson", ".chunks.jsonl")


def recordings() -> list[Path]:
    """Every recorded or edge stream in ``tests/fixtures`` (not the conversations)."""
    return sorted(
        path for path in FIXTURES.rglob("*")
        if path.is_file() and path.name.endswith(_STREAM_SUFFIXES)
        and "conversations" not in path.parts
    )


def fixture_id(path: Path) -> str:
    """A readable pytest id: the path below ``tests/fixtures``."""
    return str(path.relative_to(FIXTURES))


class Payload(NamedTuple):
    """One framed payload: the SSE event name (or ``None``) and its data."""

    event: str | None
    data: str | bytes


def _path(fixture: str | Path) -> Path:
    return fixture if isinstance(fixture, Path) else FIXTURES / fixture


def payloads(fixture: str | Path) -> list[Payload]:
    """The payloads of a fixture in order (``.chunks.jsonl`` / ``.ndjson``: one a line)."""
    path = _path(fixture)
    raw = path.read_bytes()
    if path.name.endswith(".sse"):
        decoder = SSEDecoder()
        events = decoder.feed(raw) + decoder.flush()
        return [Payload(None if e.event == "message" else e.event, e.data) for e in events]
    return [Payload(None, line) for line in raw.decode().splitlines() if line.strip()]


def sse_body(items: Sequence[tuple[str | None, str]]) -> bytes:
    """Inline payloads as the SSE body a provider sends: one event each, with an
    ``event:`` line when the payload has a name (the inverse of :func:`payloads`)."""
    return b"".join(((f"event: {event}\n" if event else "") + f"data: {data}\n\n").encode()
                    for event, data in items)


def body(fixture: str | Path) -> bytes:
    """The fixture as the HTTP body it was recorded from."""
    return load_recording(_path(fixture))[0]


def replay_chunked(fixture: str | Path, provider: str = "auto", size: int | None = None,
                   **options: Any) -> tuple[list[Event], ChatResponse]:
    """The fixture's body through the whole pipeline, in ``size``-byte chunks
    (``None``: one chunk); a recording that ends in its provider's error gives
    its events and partial response (``on_error="return"``)."""
    raw = body(fixture)
    chunks = [raw] if size is None else [raw[i:i + size] for i in range(0, len(raw), size)]
    return replay(chunks, provider, on_error="return", **options)
