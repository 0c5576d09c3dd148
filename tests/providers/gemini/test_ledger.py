"""The Gemini parser on the shared block ledger: the ids it makes up come from
the stream (two parses of the same bytes agree with default ids, and the
events carry them), one lifecycle per candidate, Vertex as the same wire
under its own name, and citations as typed :class:`Citation` s."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from support.conversations import CONVERSATIONS
from support.parser_runs import check_event_contract
from support.recordings import EDGE, FIXTURES, Payload, payloads

import streamkit
from streamkit import FinishReason, ResponseEnd, ResponseStart, TextBlock, ToolCallBlock
from streamkit.model.accumulate import Accumulator
from streamkit.model.blocks import Citation
from streamkit.model.events import BlockDelta, BlockStart, CitationDelta, Event, ResponseMetadata
from streamkit.model.ids import id_factory
from streamkit.model.response import ChatResponse
from streamkit.providers import get_parser
from streamkit.providers.codec import parse_response
from streamkit.providers.gemini import GeminiParser
from streamkit.providers.gemini.candidate import read_citation
from streamkit.providers.ledger import Phase

STREAMS = [*sorted((FIXTURES / "gemini").glob("*.sse")),
           *sorted((FIXTURES / "gemini").glob("*.jsonl")),
           *sorted(EDGE.glob("gemini-*.sse")),
           FIXTURES / "synthetic" / "gemini-tts-inline-audio.sse",
           *sorted((CONVERSATIONS / "gemini").glob("*/turn1.response.sse"))]
BODIES = sorted((CONVERSATIONS / "gemini").glob("*/turn1.response.json"))
MADE_UP = re.compile(r"^(call|resp)_[0-9a-f]{24}$")
COUNTED = re.compile(r"^[a-z]+_0{12}")  # what counting_ids() makes: not wanted here


def parsed(items: list[Payload], provider: str = "gemini") -> tuple[list[Event], ChatResponse]:
    """The events and the response of choice 0, with the default (derived) ids."""
    parser = GeminiParser(provider=provider)
    events: list[Event] = []
    for item in items:
        events += parser.feed(item.data, item.event)
    events += parser.finish()
    check_event_contract(events)
    accumulator = Accumulator()
    accumulator.apply_all(events)
    return events, accumulator.response


def chunk(parts: list[Any], **candidate: Any) -> Payload:
    return Payload(None, json.dumps({"candidates": [
        {"content": {"role": "model", "parts": parts}, **candidate}]}))


# ---------------------------------------------------------------- ids from the stream


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_two_parses_of_a_recording_are_equal_with_default_ids(path: Path) -> None:
    with id_factory(None):
        first_events, first = parsed(payloads(path))
        second_events, second = parsed(payloads(path))
    assert first == second and first.id == second.id
    assert [b.id for b in first.content] == [b.id for b in second.content]
    assert not any(COUNTED.match(b.id) for b in first.content)  # really the default ids
    assert first_events == second_events  # the ids travel in the events, the same both times


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_reapplying_the_events_gives_the_response_again(path: Path) -> None:
    with id_factory(None):
        events, response = parsed(payloads(path))
        again = Accumulator()
        again.apply_all(events)
    assert again.response == response
    assert [b.id for b in again.response.content] == [b.id for b in response.content]


@pytest.mark.parametrize("path", BODIES, ids=lambda p: p.parent.name)
def test_two_reads_of_a_recorded_body_are_equal_with_default_ids(path: Path) -> None:
    with id_factory(None):
        first, second = (parse_response("gemini", path.read_bytes()) for _ in range(2))
    assert first == second and first.id == second.id
    assert [b.id for b in first.content] == [b.id for b in second.content]


def test_made_up_call_ids_are_in_the_events_and_differ_between_streams() -> None:
    """Gemini sent no call ids: each call's id is made up from the stream, is
    in its BlockStart, and differs from another stream's."""
    with id_factory(None):
        events, response = parsed(payloads(FIXTURES / "gemini" /
                                           "function-call-thought-signature.sse"))
        other = parse_response("gemini", (CONVERSATIONS / "gemini" / "parallel-function-calls-x3"
                                          / "turn1.response.json").read_bytes())
    (call,) = response.tool_calls
    assert MADE_UP.match(call.id)
    starts = [e.block for e in events if isinstance(e, BlockStart)]
    assert [block.id for block in starts] == [call.id]
    ids = [block.id for block in other.tool_calls]
    assert len(set(ids)) == 3 and call.id not in ids
    assert all(MADE_UP.match(i) for i in ids)


def test_a_stream_naming_no_response_gets_a_made_up_id_that_a_later_one_replaces() -> None:
    """Two candidates, no responseId until the third chunk: both responses start
    with the same made-up id, and both take the real one when it comes."""
    first = Payload(None, json.dumps({"candidates": [
        {"content": {"parts": [{"text": "a"}]}, "index": 0},
        {"content": {"parts": [{"text": "b"}]}, "index": 1}]}))
    late = Payload(None, json.dumps({"responseId": "real", "candidates": [
        {"content": {"parts": [{"text": "c"}]}, "index": 0, "finishReason": "STOP"},
        {"content": {"parts": [{"text": "d"}]}, "index": 1, "finishReason": "STOP"}]}))
    with id_factory(None):
        events, _ = parsed([first])
        starts = [e for e in events if isinstance(e, ResponseStart)]
        assert len(starts) == 2 and starts[0].id == starts[1].id
        assert starts[0].id is not None and MADE_UP.match(starts[0].id)
        parser = GeminiParser()
        accumulator = Accumulator()
        accumulator.apply_all(parser.feed(first.data) + parser.feed(late.data) + parser.finish())
    assert [r.id for r in accumulator.responses] == ["real", "real"]
    assert [r.text for r in accumulator.responses] == ["ac", "bd"]


# ---------------------------------------------------------------- one lifecycle


def test_each_candidate_ends_once_even_if_its_finish_reason_repeats() -> None:
    parser = GeminiParser()
    events = (parser.feed(chunk([{"text": "a"}], finishReason="STOP").data)
              + parser.feed(chunk([], finishReason="STOP").data) + parser.finish())
    ends = [e for e in events if isinstance(e, ResponseEnd)]
    assert len(ends) == 1 and ends[0].terminated and parser.done


def test_an_error_ends_every_unfinished_candidate_as_error_at_the_end_of_input() -> None:
    parser = GeminiParser()
    two = json.dumps({"candidates": [{"content": {"parts": [{"text": "a"}]}, "index": 0},
                                     {"content": {"parts": [{"text": "b"}]}, "index": 1}]})
    events = parser.feed(two)
    events += parser.feed(json.dumps({"error": {"code": 500, "message": "boom"}}))
    events += parser.finish()
    ends = {e.choice: e for e in events if isinstance(e, ResponseEnd)}
    assert {choice: end.finish_reason for choice, end in ends.items()} == {
        0: FinishReason.ERROR, 1: FinishReason.ERROR}
    assert not any(end.terminated for end in ends.values()) and not parser.done


def test_the_ledger_phases_say_how_each_candidate_ended() -> None:
    """A finishReason and a blocked prompt are the provider's end (ENDED,
    ``done``); the input stopping first is CUT_OFF."""
    finished = GeminiParser()
    finished.feed(chunk([{"text": "a"}], finishReason="STOP").data)
    blocked = GeminiParser()
    blocked.feed('{"promptFeedback": {"blockReason": "SAFETY"}}')
    cut = GeminiParser()
    cut.feed(chunk([{"text": "a"}]).data)
    cut.finish()
    assert [p._candidates[0].ledger.phase for p in (finished, blocked, cut)] == [
        Phase.ENDED, Phase.ENDED, Phase.CUT_OFF]
    assert [p.done for p in (finished, blocked, cut)] == [True, True, False]


# ---------------------------------------------------------------- Vertex: the same wire


def test_vertex_is_this_wire_under_its_own_name() -> None:
    parser = get_parser("vertex")
    assert isinstance(parser, GeminiParser) and parser.name == "vertex"
    path = FIXTURES / "gemini" / "vertex-function-call-partialArgs.chunks.jsonl"
    events, response = parsed(payloads(path), provider="vertex")
    assert [e.provider for e in events if isinstance(e, ResponseStart)] == ["vertex"]
    assert response.provider == "vertex"
    body = (FIXTURES / "gemini" / "text.sse").read_bytes()
    assert streamkit.stream(iter([body]), provider="vertex").final().provider == "vertex"
    assert parse_response("vertex", {"candidates": [
        {"content": {"parts": [{"text": "hi"}]}, "finishReason": "STOP"}]}).provider == "vertex"


# ---------------------------------------------------------------- typed citations


def test_a_citation_is_typed_and_keeps_the_object() -> None:
    cited = {"startIndex": 3, "endIndex": 9, "uri": "https://example.com/a", "title": "A",
             "license": "mit", "publicationDate": {"year": 2024}}
    citation = read_citation(cited)
    assert citation == Citation(url="https://example.com/a", title="A", start=3, end=9,
                                raw=cited, wire="gemini")
    assert Citation.from_dict(citation.to_dict()) == citation
    # fields of the wrong type are left unset, the object still kept whole
    odd = read_citation({"uri": 5, "startIndex": "3"})
    assert (odd.url, odd.start, odd.raw) == (None, None, {"uri": 5, "startIndex": "3"})
    assert read_citation("just text") == Citation(raw={"value": "just text"}, wire="gemini")


def test_citations_reach_the_text_block_as_typed_deltas() -> None:
    cited = {"startIndex": 0, "endIndex": 5, "uri": "https://example.com/x"}
    events, response = parsed([
        chunk([{"text": "Hello"}]),
        chunk([{"text": " there"}], citationMetadata={"citations": [cited]},
              finishReason="STOP"),
    ])
    deltas = [e.delta for e in events
              if isinstance(e, BlockDelta) and isinstance(e.delta, CitationDelta)]
    assert [d.citation for d in deltas] == [read_citation(cited)]
    (text,) = response.content
    assert isinstance(text, TextBlock)
    assert [(c.url, c.start, c.end, c.wire) for c in text.citations] == [
        ("https://example.com/x", 0, 5, "gemini")]
    assert text.citations[0].raw == cited
    # outside a text block they stay the response's, as the wire sent them
    events, response = parsed([chunk([{"functionCall": {"name": "f", "args": {}}}],
                                     citationMetadata={"citations": [cited]})])
    assert isinstance(response.content[0], ToolCallBlock)
    assert response.metadata["citations"] == [cited]
    assert any(isinstance(e, ResponseMetadata) and e.append for e in events)
