"""Test helpers shared by the Anthropic, Gemini and Ollama parser tests.

Fixtures are split into payloads here (``streamkit.sse.SSEDecoder`` for
``.sse``, one payload per line otherwise), fed to a parser one payload at a
time and folded into an :class:`~streamkit.accumulate.Accumulator`.
:func:`check_event_contract` asserts the parser contract every stream must
keep, whatever the provider sent.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from streamkit import replay
from streamkit.accumulate import Accumulator
from streamkit.events import (
    BlockDelta,
    BlockEnd,
    BlockStart,
    Event,
    ResponseEnd,
    ResponseStart,
)
from streamkit.providers.base import Parser
from streamkit.response import ChatResponse
from streamkit.sse import SSEDecoder
from streamkit.testing import load_recording

FIXTURES = Path(__file__).parent / "fixtures"
EDGE = FIXTURES / "edge"

Payload = tuple[str, str | None]

_GENERATED_ID = re.compile(r"^[a-z_]+_[0-9a-f]{24}$")


def payloads(path: Path) -> list[Payload]:
    """``(data, event name)`` of every payload of a fixture, in order."""
    raw = path.read_bytes()
    if path.name.endswith(".sse"):
        decoder = SSEDecoder()
        events = decoder.feed(raw) + decoder.flush()
        return [(e.data, None if e.event == "message" else e.event) for e in events]
    return [(line, None) for line in raw.decode().splitlines() if line.strip()]


def run(parser: Parser, items: Sequence[Payload]) -> tuple[list[Event], Accumulator]:
    """Feed payloads one at a time, then ``finish()``; every event is applied."""
    acc = Accumulator()
    events: list[Event] = []
    for data, event in items:
        out = parser.feed(data, event)
        acc.apply_all(out)
        events += out
    tail = parser.finish()
    acc.apply_all(tail)
    events += tail
    return events, acc


def run_file(parser: Parser, path: Path) -> tuple[list[Event], ChatResponse]:
    """:func:`run` over a fixture file; returns the events and choice 0's response."""
    events, acc = run(parser, payloads(path))
    return events, acc.response


def replay_bytes(path: Path, provider: str, size: int = 7) -> ChatResponse:
    """The fixture's raw body through the whole pipeline in ``size``-byte chunks."""
    body, _ = load_recording(path)
    _, response = replay([body[i:i + size] for i in range(0, len(body), size)], provider)
    return response


def comparable(response: ChatResponse) -> dict[str, Any]:
    """The response as a dict without what streamkit generates at random."""
    d = response.to_dict()
    for key in ("id", "created_at"):
        if _GENERATED_ID.match(str(d[key])) or key == "created_at":
            d.pop(key)
    for block in d["content"]:
        if _GENERATED_ID.match(block["id"]):
            block.pop("id")
        for inner in block.get("content", []):
            if _GENERATED_ID.match(inner["id"]):
                inner.pop("id")
    return d


def check_event_contract(events: list[Event]) -> None:
    """Per choice: indexes 0, 1, 2... in opening order; a block's deltas come
    between its BlockStart and its one BlockEnd; every block is ended; one
    ResponseStart at most, before any block; exactly one ResponseEnd, after
    every block event of its choice."""
    started: dict[int, list[int]] = {}
    open_: dict[int, set[int]] = {}
    ended: dict[int, set[int]] = {}
    response_ends: dict[int, int] = {}
    response_starts: dict[int, int] = {}
    for event in events:
        choice = getattr(event, "choice", 0)
        opened = started.setdefault(choice, [])
        live = open_.setdefault(choice, set())
        done = ended.setdefault(choice, set())
        if isinstance(event, ResponseStart):
            assert not opened, f"ResponseStart after blocks in choice {choice}"
            response_starts[choice] = response_starts.get(choice, 0) + 1
        elif isinstance(event, BlockStart):
            assert choice not in response_ends, "block after ResponseEnd"
            assert event.index == len(opened), f"index {event.index}, expected {len(opened)}"
            opened.append(event.index)
            live.add(event.index)
        elif isinstance(event, BlockDelta):
            assert event.index in live, f"delta for block {event.index}, which is not open"
        elif isinstance(event, BlockEnd):
            assert event.index in live and event.index not in done, f"bad end {event.index}"
            live.discard(event.index)
            done.add(event.index)
        elif isinstance(event, ResponseEnd):
            assert not live, f"ResponseEnd with blocks {live} still open"
            response_ends[choice] = response_ends.get(choice, 0) + 1
    assert all(n == 1 for n in response_starts.values()), response_starts
    for choice in started.keys() | {0}:
        assert response_ends.get(choice) == 1, f"choice {choice}: {response_ends}"
        assert not open_.get(choice), f"choice {choice}: blocks {open_[choice]} never ended"
