"""Recorded bodies as a server serves them: the content type from the file's suffix."""

from __future__ import annotations

import os
from pathlib import Path

from ..framing.sse import sse_event

__all__ = ["load_recording"]


def load_recording(file_path: str | os.PathLike[str]) -> tuple[bytes, str]:
    """Read a recorded body and return ``(body, content_type)`` ready to serve.

    The content type comes from the suffix so fixtures need no side-car metadata:
    ``.sse`` -> ``text/event-stream``; ``.ndjson`` / ``.jsonl`` ->
    ``application/x-ndjson``; ``.json`` -> ``application/json``; and
    ``.chunks.jsonl`` (Vercel AI SDK fixtures: one SSE ``data:`` payload per
    line, framing stripped) is re-wrapped as ``data: <line>\\n\\n`` events and
    served as ``text/event-stream``, so it looks to a client exactly like the
    stream it was recorded from.  Blank lines in ``.chunks.jsonl`` are skipped.

    Raises ``ValueError`` for any other suffix, rather than guessing.
    """
    path = Path(file_path)
    raw = path.read_bytes()
    name = path.name.lower()
    if name.endswith(".chunks.jsonl"):
        events = [sse_event(line) for line in raw.splitlines() if line.strip()]
        return b"".join(events), "text/event-stream"
    if name.endswith(".sse"):
        return raw, "text/event-stream"
    if name.endswith((".ndjson", ".jsonl")):
        return raw, "application/x-ndjson"
    if name.endswith(".json"):
        return raw, "application/json"
    raise ValueError(
        f"cannot infer a content type for {path.name!r}; "
        "expected .sse, .ndjson, .jsonl, .chunks.jsonl or .json"
    )
