"""Driving a stream parser by hand: payloads in one at a time, every event
folded into an Accumulator (:func:`run_parser`), and the event contract every
parser keeps (:func:`check_event_contract`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from streamkit.model.accumulate import Accumulator
from streamkit.model.events import (
    BlockDelta,
    BlockEnd,
    BlockStart,
    Event,
    ResponseEnd,
    ResponseStart,
)
from streamkit.model.response import ChatResponse
from streamkit.providers.base import Parser


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
