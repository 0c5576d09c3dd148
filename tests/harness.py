"""What the OpenAI parser tests share: fixture payloads, driving a parser into an
Accumulator, and the event-order contract every parser keeps."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from streamkit.accumulate import Accumulator
from streamkit.events import BlockDelta, BlockEnd, BlockStart, Event
from streamkit.providers.base import Parser
from streamkit.response import ChatResponse
from streamkit.sse import SSEDecoder

FIXTURES = Path(__file__).parent / "fixtures"

Payload = tuple[str | None, str]  # (SSE event name or None, data)
GENERATED_ID = re.compile(r"^[a-z_]+_[0-9a-f]{24}$")  # streamkit.blocks.new_block_id


def payloads(name: str) -> list[Payload]:
    """The SSE payloads of a fixture, in order (``.chunks.jsonl``: one per line)."""
    raw = (FIXTURES / name).read_bytes()
    if name.endswith(".chunks.jsonl"):
        return [(None, line.decode()) for line in raw.splitlines() if line.strip()]
    decoder = SSEDecoder()
    events = decoder.feed(raw) + decoder.flush()
    return [(None if e.event == "message" else e.event, e.data) for e in events]


def body(name: str) -> bytes:
    """The fixture as an HTTP body (``.chunks.jsonl`` re-wrapped as SSE)."""
    raw = (FIXTURES / name).read_bytes()
    if name.endswith(".chunks.jsonl"):
        return b"".join(b"data: " + line + b"\n\n" for line in raw.splitlines() if line.strip())
    return raw


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


def run_parser(parser: Parser, items: list[Payload], *, finish: bool = True) -> Run:
    """Feed payloads one at a time (then ``finish()``), folding into an Accumulator."""
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


def check_event_order(events: list[Event]) -> None:
    """Per choice: block indexes open as 0, 1, 2...; every delta follows its
    BlockStart and precedes its BlockEnd; every BlockStart gets one BlockEnd."""
    opened: dict[int, list[int]] = {}
    closed: dict[int, set[int]] = {}
    for event in events:
        if type(event) is BlockStart:
            indexes = opened.setdefault(event.choice, [])
            assert event.index == len(indexes), f"block {event.index} opened out of order"
            indexes.append(event.index)
        elif type(event) is BlockDelta:
            assert event.index in opened.get(event.choice, []), "delta before BlockStart"
            assert event.index not in closed.get(event.choice, set()), "delta after BlockEnd"
        elif type(event) is BlockEnd:
            ended = closed.setdefault(event.choice, set())
            assert event.index not in ended, "block ended twice"
            assert event.index in opened.get(event.choice, []), "BlockEnd without BlockStart"
            ended.add(event.index)
    for choice, indexes in opened.items():
        assert set(indexes) == closed.get(choice, set()), "a block never ended"


def normalized(response: ChatResponse) -> dict[str, Any]:
    """``to_dict`` without what streamkit generates (block ids it made up, the
    local ``created_at``), for comparing two runs."""
    out = response.to_dict()
    out.pop("created_at")
    for block in out["content"]:
        if GENERATED_ID.match(block["id"]):
            block.pop("id")
    return out
