"""The OpenAI Chat parser on the shared block ledger: made-up ids that come from
the stream, one lifecycle per choice, the vendor's name on every response.

Every test here runs with the default ids (``id_factory(None)``): the ids a
stream makes up must be derived from its bytes, so two parses of the same
recording are ``==`` and re-applying a stream's events to a fresh accumulator
gives the response the stream gave, without a counting factory.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.openai_chat_stream import chat_recordings, chunk
from support.recordings import body, fixture_id, sse_body

from streamkit.model.accumulate import Accumulator
from streamkit.model.events import BlockStart, Event, ResponseEnd, ResponseStart
from streamkit.model.ids import id_factory
from streamkit.model.response import ChatResponse
from streamkit.providers.ledger import Phase
from streamkit.providers.openai_chat import OpenAIChatParser
from streamkit.reading.pipeline import Pipeline


def one_event_per_read(raw: bytes) -> list[bytes]:
    events = raw.split(b"\n\n")
    return [event + b"\n\n" for event in events[:-1]] + ([events[-1]] if events[-1] else [])


def parse(reads: list[bytes], **options: object) -> tuple[list[Event], list[ChatResponse]]:
    """Every event and every choice's response, with the default (derived) ids."""
    pipeline = Pipeline(OpenAIChatParser(**options))  # type: ignore[arg-type]
    events: list[Event] = []
    for read in reads:
        events += pipeline.feed(read)
    events += pipeline.finish()
    return events, pipeline.responses


@pytest.fixture(autouse=True)
def default_ids() -> object:
    """The random / derived ids users get, not the tests' counting factory."""
    with id_factory(None):
        yield


@pytest.mark.parametrize("path", chat_recordings(), ids=fixture_id)
def test_two_parses_of_the_same_bytes_are_equal(path: Path) -> None:
    raw = body(path)
    first_events, first = parse([raw])
    again_events, again = parse([raw])
    assert again == first and again_events == first_events
    _, live = parse(one_event_per_read(raw))
    assert live == first  # the read shape changes nothing, ids included


@pytest.mark.parametrize("path", chat_recordings(), ids=fixture_id)
def test_reapplying_the_events_gives_the_same_responses(path: Path) -> None:
    events, responses = parse([body(path)])
    for _ in range(2):
        fresh = Accumulator()
        fresh.apply_all(events)
        for response in fresh.responses:
            response.is_last = True  # the pipeline's finish says the stream is over
        assert fresh.responses == responses


def test_every_made_up_id_is_in_the_events() -> None:
    """A stream without any id: the response's and the blocks' ids are made up
    by the parser, carried by the events, and derived from the bytes."""
    items = [(None, json.dumps({"choices": [{"index": 0, "delta": {"content": "Hi"}}]})),
             (None, json.dumps({"choices": [{"index": 0, "delta": {"tool_calls": [
                 {"index": 0, "function": {"name": "f", "arguments": "{}"}}]}}]})),
             (None, json.dumps({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})),
             (None, "[DONE]")]
    raw = sse_body(items)
    events, (response,) = parse([raw])
    start = next(event for event in events if isinstance(event, ResponseStart))
    blocks = [event.block for event in events if isinstance(event, BlockStart)]
    assert start.id is not None and start.id.startswith("resp_") and response.id == start.id
    assert [block.id for block in blocks] == [block.id for block in response.content]
    assert [block.id.split("_")[0] for block in blocks] == ["text", "call"]
    other = sse_body([(None, items[0][1].replace("Hi", "Ho")), *items[1:]])
    _, (different,) = parse([other])
    assert different.id != response.id  # derived from the stream, not a constant
    assert [b.id for b in different.content] != [b.id for b in response.content]


def test_each_choice_has_its_own_ledger_and_made_up_id() -> None:
    items = [(None, json.dumps({"choices": [{"index": 0, "delta": {"content": "A"}},
                                             {"index": 1, "delta": {"content": "B"}}]})),
             (None, json.dumps({"choices": [{"index": 1, "delta": {}, "finish_reason": "length"},
                                             {"index": 0, "delta": {}, "finish_reason": "stop"}]}))]
    events, (zero, one) = parse([sse_body(items)])
    assert (zero.text, one.text) == ("A", "B")
    assert zero.id != one.id and zero.id.startswith("resp_") and one.id.startswith("resp_")
    ends = [event for event in events if isinstance(event, ResponseEnd)]
    assert [(e.choice, e.stop_reason, e.terminated) for e in ends] == [
        (0, "stop", False), (1, "length", False)]  # no [DONE]: finish() ended them


def test_the_parsers_lifecycle_is_choice_zeros_ledger() -> None:
    parser = OpenAIChatParser()
    assert not parser.done
    parser.feed(chunk({"content": "x"}))
    assert parser._ledger.phase is Phase.STREAMING
    parser.feed("[DONE]")
    assert parser.done and parser._ledger.phase is Phase.ENDED
    assert parser.finish() == [] and parser.feed("[DONE]") == []
    cut = OpenAIChatParser()
    cut.feed(chunk({"content": "x"}))
    (end,) = [event for event in cut.finish() if isinstance(event, ResponseEnd)]
    assert not end.terminated and not cut.done and cut._ledger.phase is Phase.CUT_OFF
    assert cut.feed(chunk({"content": "late"})) == [] and cut.finish() == []


def test_the_provider_keyword_names_every_response() -> None:
    raw = body("openai-compatible/deepseek-reasoning_content.sse")
    events, (response,) = parse([raw], dialect="deepseek", provider="deepseek")
    assert response.provider == "deepseek"
    assert {e.provider for e in events if isinstance(e, ResponseStart)} == {"deepseek"}
    _, (plain,) = parse([raw])
    assert plain.provider == "openai"  # the wire's own vendor by default
