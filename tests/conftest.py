"""What every test module shares: the recorded fixtures, driving a parser into
an Accumulator, the event contract every parser keeps, and repeatable ids.

Import the helpers with ``from conftest import ...`` (pytest puts this folder on
``sys.path``). Payloads are always ``Payload(event, data)``: the SSE event name
(``None`` for unnamed ``message`` events and JSON lines) and the data.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from skips_fail import pytest_make_collect_report, pytest_runtest_makereport

from streamkit import replay
from streamkit.framing.sse import SSEDecoder
from streamkit.model.accumulate import Accumulator
from streamkit.model.events import (
    BlockDelta,
    BlockEnd,
    BlockStart,
    Event,
    ResponseEnd,
    ResponseMetadata,
    ResponseStart,
)
from streamkit.model.ids import counting_ids, id_factory
from streamkit.model.response import ChatResponse
from streamkit.providers.base import Parser
from streamkit.testing import load_recording

FIXTURES = Path(__file__).parent / "fixtures"
EDGE = FIXTURES / "edge"
_STREAM_SUFFIXES = (".sse", ".ndjson", ".chunks.jsonl")

# A skip fails in CI and under make test (see skips_fail.py); the hooks live there.
__all__ = ["pytest_make_collect_report", "pytest_runtest_makereport"]


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


@dataclass
class Run:
    """The events a parser produced for a list of payloads, and their accumulation."""

    parser: Any
    events: list[Event] = field(default_factory=list)
    accumulator: Accumulator = field(default_factory=Accumulator)

    @property
    def response(self) -> ChatResponse:
        return self.accumulator.response

    @property
    def responses(self) -> list[ChatResponse]:
        return self.accumulator.responses

    def of_type(self, kind: type[Any]) -> list[Any]:
        return [e for e in self.events if type(e) is kind]


def run_parser(parser: Parser, items: Sequence[tuple[str | None, str]], *,
               finish: bool = True) -> Run:
    """Feed ``(event, data)`` payloads one at a time (then ``finish()``), folding
    every event into an Accumulator."""
    result = Run(parser)
    for event, data in items:
        events = parser.feed(data, event)
        result.accumulator.apply_all(events)
        result.events += events
    if finish:
        tail = parser.finish()
        result.accumulator.apply_all(tail)
        result.events += tail
    return result


def replay_chunked(fixture: str | Path, provider: str = "auto", size: int | None = None,
                   **options: Any) -> tuple[list[Event], ChatResponse]:
    """The fixture's body through the whole pipeline, in ``size``-byte chunks
    (``None``: one chunk); a recording that ends in its provider's error gives
    its events and partial response (``on_error="return"``)."""
    raw = body(fixture)
    chunks = [raw] if size is None else [raw[i:i + size] for i in range(0, len(raw), size)]
    return replay(chunks, provider, on_error="return", **options)


def check_event_contract(events: Sequence[Event]) -> None:
    """The contract every parser keeps, per choice: block indexes 0, 1, 2... in
    opening order; a block's deltas come between its BlockStart and its one
    BlockEnd; every block is ended; one ResponseStart at most, before any block;
    exactly one ResponseEnd, after every block event of its choice."""
    opened: dict[int, list[int]] = {}
    live: dict[int, set[int]] = {}
    ended: dict[int, set[int]] = {}
    response_starts: dict[int, int] = {}
    response_ends: dict[int, int] = {}
    for event in events:
        choice = getattr(event, "choice", 0)
        indexes = opened.setdefault(choice, [])
        open_now = live.setdefault(choice, set())
        done = ended.setdefault(choice, set())
        if isinstance(event, ResponseStart):
            assert not indexes, f"ResponseStart after blocks in choice {choice}"
            response_starts[choice] = response_starts.get(choice, 0) + 1
        elif isinstance(event, BlockStart):
            assert choice not in response_ends, "block after ResponseEnd"
            assert event.index == len(indexes), f"index {event.index}, expected {len(indexes)}"
            indexes.append(event.index)
            open_now.add(event.index)
        elif isinstance(event, BlockDelta):
            assert event.index in open_now, f"delta for block {event.index}, which is not open"
        elif isinstance(event, BlockEnd):
            assert event.index in open_now and event.index not in done, f"bad end {event.index}"
            open_now.discard(event.index)
            done.add(event.index)
        elif isinstance(event, ResponseEnd):
            assert not open_now, f"ResponseEnd with blocks {open_now} still open"
            response_ends[choice] = response_ends.get(choice, 0) + 1
    assert all(n == 1 for n in response_starts.values()), response_starts
    for choice in opened.keys() | {0}:
        assert response_ends.get(choice) == 1, f"choice {choice}: {response_ends}"
        assert not live.get(choice), f"choice {choice}: blocks {live[choice]} never ended"


def comparable(response: ChatResponse) -> dict[str, Any]:
    """The response as a dict without its local ``created_at`` (ids are
    repeatable under the ``repeatable_ids`` fixture, which every test gets)."""
    out = response.to_dict()
    out.pop("created_at")
    return out


def fresh_ids() -> Any:
    """A fresh counter for one run (``with fresh_ids(): ...``), so two independent
    runs of the same bytes make up the same ids."""
    return id_factory(counting_ids())


@pytest.fixture(autouse=True)
def repeatable_ids() -> Iterator[None]:
    """Every test makes up the same ids on every run (``text_`` + a counter)."""
    with id_factory(counting_ids()):
        yield


# ---------------------------------------------------------------- conversations

CONVERSATIONS = FIXTURES / "conversations"


class Conversation(NamedTuple):
    """One recorded exchange: turn 1's request and response, turn 2's request."""

    path: Path
    turn1_request: dict[str, Any]
    turn1_response: bytes  # JSON, or the SSE body when ``streamed``
    streamed: bool
    turn2_request: dict[str, Any]

    @property
    def name(self) -> str:
        return f"{self.path.parent.name}/{self.path.name}"


def conversations(wire: str) -> list[Conversation]:
    """Every exchange recorded for ``wire`` (a folder of ``tests/fixtures/conversations``)."""
    out = []
    for folder in sorted((CONVERSATIONS / wire).iterdir()):
        streamed = (folder / "turn1.response.sse").exists()
        response = folder / ("turn1.response.sse" if streamed else "turn1.response.json")
        out.append(Conversation(
            folder,
            json.loads((folder / "turn1.request.json").read_bytes()),
            response.read_bytes(),
            streamed,
            json.loads((folder / "turn2.request.json").read_bytes()),
        ))
    return out


_SMART_CHARS = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
                              "\u2013": "-", "\u2014": "--", "\u2026": "..."})


def smart_chars(value: Any) -> Any:
    """The cassette serializer's ``normalize_smart_chars`` applied to every string
    of ``value`` (see the conversations MANIFEST): apply it to both sides."""
    if isinstance(value, str):
        return unicodedata.normalize("NFKC", value.translate(_SMART_CHARS))
    if isinstance(value, list):
        return [smart_chars(item) for item in value]
    if isinstance(value, dict):
        return {key: smart_chars(item) for key, item in value.items()}
    return value


# ---------------------------------------------------------------- linear growth (issue #10)


def objects_held(event: ResponseMetadata) -> int:
    """How many containers (dicts and lists) one metadata event holds, all the
    way down: constant per event when each event carries only its own payload."""
    count, stack = 0, [event.metadata, event.append]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            count += 1
            stack.extend(value.values())
        elif isinstance(value, list):
            count += 1
            stack.extend(value)
    return count


def payloads_carried(event: ResponseMetadata) -> int:
    """The payloads one metadata event carries: the values it sets and the items it appends."""
    return len(event.metadata) + sum(len(items) for items in event.append.values())
