"""The ids the Anthropic wire makes up (text and thinking blocks have none on the
wire, a vendor may send no message id) come from the bytes read and travel in
the events: with the default ids (``id_factory(None)``), two parses of the same
bytes are equal, re-applying a stream's events gives its response, and two
reads of a request or response body are equal. Also the lifecycle the shared
block ledger now keeps for the parser."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.comparing import comparable
from support.conversations import conversations
from support.parser_runs import check_event_contract, run_parser
from support.recordings import EDGE, FIXTURES, Payload, body, payloads

from streamkit import parse_request, parse_response, replay
from streamkit.model.accumulate import Accumulator
from streamkit.model.blocks import TextBlock
from streamkit.model.events import (
    BlockEnd,
    BlockStart,
    ErrorEvent,
    Event,
    ResponseEnd,
    ResponseStart,
)
from streamkit.model.finish import FinishReason
from streamkit.model.ids import id_factory
from streamkit.providers.anthropic import AnthropicParser

STREAMS = sorted((FIXTURES / "anthropic").iterdir()) + sorted(EDGE.glob("anthropic-*"))
CONVERSATIONS = conversations("anthropic")
REQUESTS = [(f"{c.name}/{turn}", request) for c in CONVERSATIONS
            for turn, request in (("turn1", c.turn1_request), ("turn2", c.turn2_request))]


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: p.name)
def test_two_parses_of_a_stream_are_equal_with_default_ids(path: Path) -> None:
    with id_factory(None):
        first = run_parser(AnthropicParser(), payloads(path))
        second = run_parser(AnthropicParser(fast_decode=False), payloads(path))
        raw = body(path)
        bytewise = replay([raw[i:i + 1] for i in range(len(raw))], "anthropic",
                          on_error="return")[1]
    assert first.events == second.events
    assert comparable(first.response) == comparable(second.response)
    assert comparable(first.response) == comparable(bytewise)


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: p.name)
def test_reapplying_the_events_gives_the_same_ids(path: Path) -> None:
    with id_factory(None):
        events, response = replay(body(path), "anthropic", on_error="return")
        again = Accumulator()
        again.apply_all(events)
    assert comparable(again.response) == comparable(response)
    started = {e.block.id for e in events if isinstance(e, BlockStart)}
    assert {block.id for block in response.content} <= started  # every id is in an event


def test_made_up_ids_differ_between_streams_and_within_one() -> None:
    with id_factory(None):
        basic = replay(body(FIXTURES / "anthropic" / "text-basic.sse"), "anthropic")[1]
        thinking = replay(body(FIXTURES / "anthropic" / "thinking-signature.sse"),
                          "anthropic")[1]
    made_up = [basic.content[0].id, *(block.id for block in thinking.content)]
    assert all(isinstance(i, str) and len(i.split("_")[1]) == 24 for i in made_up)
    assert len(set(made_up)) == len(made_up)
    assert thinking.content[0].id.startswith("think_")
    assert basic.content[0].id.startswith("text_")


@pytest.mark.parametrize(("name", "wire"), REQUESTS, ids=[name for name, _ in REQUESTS])
def test_two_reads_of_a_request_body_are_equal_with_default_ids(
        name: str, wire: dict[str, Any]) -> None:
    with id_factory(None):
        first, second = parse_request("anthropic", wire), parse_request("anthropic", wire)
    assert first == second
    ids = [block.id for message in first.messages if not isinstance(message.content, str)
           for block in message.content if hasattr(block, "id")]
    assert ids == [block.id for message in second.messages
                   if not isinstance(message.content, str)
                   for block in message.content if hasattr(block, "id")]


@pytest.mark.parametrize("conversation", CONVERSATIONS, ids=[c.name for c in CONVERSATIONS])
def test_two_reads_of_a_response_body_are_equal_with_default_ids(conversation: object) -> None:
    answer = conversation.turn1_response  # type: ignore[attr-defined]
    with id_factory(None):
        first, second = parse_response("anthropic", answer), parse_response("anthropic", answer)
    assert first == second and first.id == second.id
    assert [b.id for b in first.content] == [b.id for b in second.content]


def test_a_body_without_an_id_gets_one_from_the_body() -> None:
    answer = {"type": "message", "role": "assistant", "content": [{"type": "text", "text": "a"}]}
    other = {**answer, "content": [{"type": "text", "text": "b"}]}
    with id_factory(None):
        one, again, two = (parse_response("anthropic", b) for b in (answer, answer, other))
    assert one.id == again.id and one.id.startswith("resp_") and one.id != two.id
    assert one.content[0].id == again.content[0].id != two.content[0].id


# ---------------------------------------------------------------- the ledger's lifecycle


def test_the_parser_reports_the_vendor_it_is_built_for() -> None:
    parser = AnthropicParser(provider="a-gateway")
    assert parser.name == "a-gateway"
    result = run_parser(parser, payloads(FIXTURES / "anthropic" / "text-basic.sse"))
    start = result.events[0]
    assert isinstance(start, ResponseStart) and start.provider == "a-gateway"
    assert result.response.provider == "a-gateway"


def test_an_error_before_anything_starts_the_response_first() -> None:
    result = run_parser(AnthropicParser(), [Payload("error", json.dumps(
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}))])
    check_event_contract(result.events)
    start, error, end = result.events
    assert isinstance(start, ResponseStart) and start.provider == "anthropic"
    assert start.id is not None and start.id.startswith("resp_")
    assert isinstance(error, ErrorEvent) and error.status == 529
    assert isinstance(end, ResponseEnd) and end.finish_reason is FinishReason.ERROR
    assert not end.terminated


def test_message_stop_alone_starts_and_ends_the_response() -> None:
    parser = AnthropicParser()
    result = run_parser(parser, [Payload(None, '{"type":"message_stop"}')])
    check_event_contract(result.events)
    assert [type(e) for e in result.events] == [ResponseStart, ResponseEnd]
    assert parser.done and result.response.terminated


def test_a_block_after_message_stop_is_ended_at_the_end_of_input() -> None:
    parser = AnthropicParser()
    events: list[Event] = []
    for data in ('{"type":"message_start","message":{"id":"m","model":"x"}}',
                 '{"type":"message_stop"}',
                 '{"type":"content_block_start","index":0,"content_block":{"type":"text"}}'):
        events += parser.feed(data)
    tail = parser.finish()
    assert [type(e) for e in tail] == [BlockEnd]
    assert parser.finish() == []
    starts = [e for e in events if isinstance(e, BlockStart)]
    assert len(starts) == 1 and isinstance(starts[0].block, TextBlock)
