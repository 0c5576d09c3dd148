"""OpenAI Responses on the shared block ledger: its record, its lifecycle, and the
ids it makes up, derived from the bytes so that two readings of them agree.

Every test here runs with streamkit's default ids (``id_factory(None)``), not the
counting ids the other tests get: what is asserted is that the made-up ids are
the stream's own, carried by the events.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.conversations import conversations
from support.openai_responses_stream import wire
from support.parser_runs import check_event_contract
from support.recordings import body, fixture_id, recordings, sse_body

from streamkit.model.accumulate import Accumulator
from streamkit.model.events import BlockStart, Event, ResponseEnd, ResponseStart
from streamkit.model.finish import FinishReason
from streamkit.model.ids import id_factory
from streamkit.model.response import ChatResponse
from streamkit.providers import get_parser, wire_format
from streamkit.providers.codec import parse_request, parse_response
from streamkit.providers.openai_responses import WIRE, OpenAIResponsesParser
from streamkit.providers.openai_responses import http as responses_http
from streamkit.providers.openai_responses.request import build_request
from streamkit.providers.openai_responses.wire import FINISH_REASONS, USAGE_FIELDS
from streamkit.reading.pipeline import Pipeline

RESPONSES = "openai-responses"
RECORDINGS = [path for path in recordings() if "responses" in path.name]
CONVERSATIONS = conversations(RESPONSES)


@pytest.fixture(autouse=True)
def default_ids() -> Any:
    """The library's own ids, not the tests' counting ones."""
    with id_factory(None):
        yield


def parsed(raw: bytes, provider: str = RESPONSES) -> tuple[ChatResponse, list[Event]]:
    pipeline = Pipeline(provider)
    events = pipeline.feed(raw) + pipeline.finish()
    return pipeline.response, events


# ---------------------------------------------------------------- the record


def test_the_wire_record_names_this_packages_verbs() -> None:
    assert wire_format(RESPONSES) is WIRE
    assert (WIRE.name, WIRE.parser, WIRE.build_request) == (
        RESPONSES, OpenAIResponsesParser, build_request)
    assert WIRE.finish_reasons is FINISH_REASONS and WIRE.usage_fields is USAGE_FIELDS
    assert WIRE.endpoint("https://api.openai.com/v1/", "gpt-5", stream=True) == \
        "https://api.openai.com/v1/responses"
    assert WIRE.model_in_body is responses_http.MODEL_IN_BODY is True and not WIRE.dialects


@pytest.mark.parametrize("vendor", ["openai-responses", "perplexity"])
def test_each_vendor_of_the_wire_is_reported_by_its_own_name(vendor: str) -> None:
    parser = get_parser(vendor)
    assert isinstance(parser, OpenAIResponsesParser) and parser.name == vendor
    response, events = parsed(body("openai-responses/text.sse"), vendor)
    assert isinstance(events[0], ResponseStart) and events[0].provider == vendor
    assert response.provider == vendor and response.text


# ---------------------------------------------------------------- ids from the stream


@pytest.mark.parametrize("path", RECORDINGS, ids=fixture_id)
def test_two_parses_of_a_recording_are_equal_and_its_events_rebuild_it(path: Path) -> None:
    raw = body(path)
    first, events = parsed(raw)
    second, again = parsed(raw)
    assert first == second and events == again
    replayed = Accumulator()
    replayed.apply_all(events)
    assert replayed.response == first  # the made-up ids travel in the events


def test_a_stream_without_a_response_object_makes_its_id_from_its_bytes() -> None:
    """The block that comes first starts the response with an id derived from the
    stream: the same for the same bytes, another for other bytes, in the event."""
    delta = {"type": "response.output_text.delta", "output_index": 0, "content_index": 0,
             "delta": "Hi"}
    raw = sse_body([wire(delta)])
    response, events = parsed(raw)
    start = events[0]
    assert isinstance(start, ResponseStart) and start.id is not None
    assert start.id.startswith("resp_") and response.id == start.id
    [opened] = [event for event in events if isinstance(event, BlockStart)]
    assert opened.block.id.startswith("text_") and response.content[0].id == opened.block.id
    assert parsed(raw)[0] == response
    other = parsed(sse_body([wire({**delta, "delta": "Ho"})]))[0]
    assert other.id != response.id and other.content[0].id != response.content[0].id


def test_an_empty_stream_still_starts_and_ends_its_response() -> None:
    """The ledger's one finish: a response that never started starts, then ends cut off."""
    parser = OpenAIResponsesParser()
    events = parser.finish()
    check_event_contract(events)
    assert [type(event) for event in events] == [ResponseStart, ResponseEnd]
    end = events[-1]
    assert isinstance(end, ResponseEnd) and end.finish_reason is FinishReason.UNKNOWN
    assert not end.terminated and not parser.done
    assert parser.finish() == []  # ended once


def test_an_error_before_anything_starts_the_response_and_ends_it_as_error() -> None:
    parser = OpenAIResponsesParser(provider="perplexity")
    events = parser.feed(json.dumps({"type": "error", "code": "rate_limit_exceeded",
                                     "message": "Slow down."}), "error")
    assert isinstance(events[0], ResponseStart) and events[0].provider == "perplexity"
    end = parser.finish()[-1]
    assert isinstance(end, ResponseEnd) and end.finish_reason is FinishReason.ERROR


# ---------------------------------------------------------------- ids from a body


@pytest.mark.parametrize("conversation", CONVERSATIONS, ids=[c.name for c in CONVERSATIONS])
def test_two_readings_of_a_recorded_body_are_equal(conversation: Any) -> None:
    for request in (conversation.turn1_request, conversation.turn2_request):
        assert parse_request(RESPONSES, request) == parse_request(RESPONSES, request)
    if not conversation.streamed:
        answer = json.loads(conversation.turn1_response)
        assert parse_response(RESPONSES, answer) == parse_response(RESPONSES, answer)


def test_a_made_up_request_id_comes_from_the_body() -> None:
    """An input text part has no id: the one made up for it is the body's own."""
    body_a = {"model": "m", "input": [{"role": "user", "content": [
        {"type": "input_text", "text": "a"}]}]}
    body_b = {"model": "m", "input": [{"role": "user", "content": [
        {"type": "input_text", "text": "b"}]}]}
    [first] = parse_request(RESPONSES, body_a).messages
    [again] = parse_request(RESPONSES, body_a).messages
    [other] = parse_request(RESPONSES, body_b).messages
    assert first.blocks[0].id == again.blocks[0].id != other.blocks[0].id  # type: ignore[union-attr]
