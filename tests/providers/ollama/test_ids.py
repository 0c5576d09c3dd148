"""Ollama's stream parser on the block ledger: the ids it makes up come from
the stream, so parses of the same bytes are equal with the default ids, and
its lifecycle ends every response exactly once.

Ollama sends no response id and (before 0.12) no call ids; every id here is
made up. These tests run with the default ids (``id_factory(None)``), not the
counting ids every other test gets, since that is what users get.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.parser_runs import check_event_contract, run_parser
from support.recordings import EDGE, FIXTURES, body, payloads

from streamkit import FinishReason, StreamError
from streamkit.model.accumulate import Accumulator
from streamkit.model.events import BlockStart, Event, ResponseEnd, ResponseStart
from streamkit.model.ids import id_factory
from streamkit.model.response import ChatResponse
from streamkit.providers import get_parser
from streamkit.providers.codec import parse_response
from streamkit.providers.ollama import OllamaParser
from streamkit.reading.pipeline import replay

OLLAMA = FIXTURES / "ollama"
STREAMS = [OLLAMA / "docs-generate-midstream-error.ndjson", *sorted(EDGE.glob("ollama-*.ndjson")),
           *sorted((OLLAMA / "conversations").glob("*/turn1.response.jsonl"))]
BODIES = sorted((OLLAMA / "responses").glob("*.json"))
HASHED_ID = r"^(resp|text|think|call|data)_[0-9a-f]{24}$"


@pytest.fixture(autouse=True)
def default_ids() -> Iterator[None]:
    """The ids users get: no factory, so the stream's own."""
    with id_factory(None):
        yield


def name(path: Path) -> str:
    return str(path.relative_to(FIXTURES))


def parsed(path: Path) -> tuple[list[Event], ChatResponse]:
    """The fixture line by line through a fresh parser, its events checked."""
    result = run_parser(OllamaParser(), payloads(path))
    check_event_contract(result.events)
    return result.events, result.response


def piped(path: Path, size: int | None) -> ChatResponse:
    """The fixture's bytes through the pipeline in ``size``-byte chunks (an
    error line raises: its partial is the response)."""
    raw = body(path)
    chunks = [raw] if size is None else [raw[i:i + size] for i in range(0, len(raw), size)]
    try:
        return replay(chunks, "ollama")[1]
    except StreamError as error:
        assert error.partial is not None
        return error.partial


def comparable(response: ChatResponse) -> dict[str, Any]:
    """Everything but the local time the response object was made."""
    out = response.to_dict()
    out.pop("created_at")
    return out


@pytest.mark.parametrize("path", STREAMS, ids=name)
def test_two_parses_of_the_same_bytes_are_equal(path: Path) -> None:
    _, first = parsed(path)
    _, second = parsed(path)
    assert comparable(first) == comparable(second)
    assert first.id is not None and first.id.startswith("resp_")
    assert all(block.id for block in first.content)


@pytest.mark.parametrize("path", STREAMS, ids=name)
def test_whole_and_byte_by_byte_bodies_agree_on_the_ids(path: Path) -> None:
    whole, one_byte = piped(path, None), piped(path, 1)
    assert comparable(whole) == comparable(one_byte)
    assert comparable(whole) == comparable(parsed(path)[1])


@pytest.mark.parametrize("path", STREAMS, ids=name)
def test_reapplying_the_events_gives_the_same_response(path: Path) -> None:
    """The made-up ids travel in the events: a fresh accumulator of them
    agrees with the first, id for id."""
    events, response = parsed(path)
    again = Accumulator()
    again.apply_all(events)
    assert comparable(again.response) == comparable(response)
    start = events[0]
    assert isinstance(start, ResponseStart) and start.id == response.id
    started = [event.block.id for event in events if isinstance(event, BlockStart)]
    assert started == [block.id for block in response.content]


def test_the_made_up_ids_are_derived_not_random() -> None:
    """Each id is a hash of the first line and a per-kind count: different
    streams (another created_at, another model) get other ids, and every id
    of a response differs from the others."""
    ids = {}
    for path in STREAMS:
        _, response = parsed(path)
        given = path.read_text()  # call ids the stream gave are not made up
        made = [response.id, *(block.id for block in response.content if block.id not in given)]
        for made_up in made:
            assert made_up is not None and re.match(HASHED_ID, made_up), made_up
        assert len(set(made)) == len(made)
        ids[name(path)] = response.id
    assert len(set(ids.values())) == len(ids)


def test_only_the_first_line_seeds_the_ids() -> None:
    """Streams that differ after their first line share their first ids;
    streams whose first line differs (the time) share none."""
    def stream(first_time: str, second: str) -> ChatResponse:
        lines = [{"model": "m", "created_at": first_time,
                  "message": {"role": "assistant", "content": "a"}, "done": False},
                 {"model": "m", "created_at": "t2",
                  "message": {"role": "assistant", "content": second}, "done": False}]
        return run_parser(OllamaParser(), [(None, json.dumps(line)) for line in lines]).response

    same_start, other_tail = stream("t1", "b"), stream("t1", "c")
    assert (same_start.id, same_start.content[0].id) == (other_tail.id, other_tail.content[0].id)
    later = stream("t1.5", "b")
    assert later.id != same_start.id and later.content[0].id != same_start.content[0].id


@pytest.mark.parametrize("path", BODIES, ids=lambda p: p.stem)
def test_two_reads_of_a_non_streamed_body_are_equal(path: Path) -> None:
    first = parse_response("ollama", path.read_bytes())
    second = parse_response("ollama", json.loads(path.read_text()))
    assert comparable(first) == comparable(second)
    assert first.provider == "ollama" and first.id is not None


def test_the_parser_reports_the_vendor_it_was_made_for() -> None:
    line = json.dumps({"model": "m", "created_at": "t", "message": {"role": "assistant",
                                                                     "content": "hi"},
                       "done": True, "done_reason": "stop"})
    default = OllamaParser()
    assert default.name == "ollama" and get_parser("ollama").name == "ollama"
    named = OllamaParser(provider="ollama-cloud")
    (start, *_) = named.feed(line)
    assert named.name == "ollama-cloud"
    assert isinstance(start, ResponseStart) and start.provider == "ollama-cloud"
    assert run_parser(default, [(None, line)]).response.provider == "ollama"


def test_input_that_ends_before_any_line_still_is_one_response() -> None:
    parser = OllamaParser()
    events = parser.finish()
    check_event_contract(events)
    start, end = events
    assert isinstance(start, ResponseStart) and start.id and start.provider == "ollama"
    assert isinstance(end, ResponseEnd)
    assert (end.finish_reason, end.terminated) == (FinishReason.UNKNOWN, False)
    assert parser.finish() == [] and not parser.done


def test_the_done_line_ends_once_and_finish_adds_nothing() -> None:
    chat = {"model": "m", "created_at": "t", "message": {"role": "assistant", "content": "a"}}
    parser = OllamaParser()
    parser.feed(json.dumps({**chat, "done": False}))
    done = parser.feed(json.dumps({**chat, "done": True, "done_reason": "stop"}))
    ends = [event for event in done if isinstance(event, ResponseEnd)]
    assert [(e.finish_reason, e.stop_reason, e.terminated) for e in ends] == [
        (FinishReason.STOP, "stop", True)]
    assert parser.done
    again = parser.feed(json.dumps({"model": "m", "done": True, "done_reason": "length"}))
    assert not any(isinstance(event, ResponseEnd) for event in again)
    assert parser.finish() == []


def test_an_error_line_ends_the_response_as_error_at_finish() -> None:
    parser = OllamaParser()
    events = parser.feed(json.dumps({"error": "boom"}))  # the first line: starts the response
    assert isinstance(events[0], ResponseStart) and events[0].provider == "ollama"
    (end,) = [event for event in parser.finish() if isinstance(event, ResponseEnd)]
    assert (end.finish_reason, end.terminated) == (FinishReason.ERROR, False)
