"""Anthropic answers written back: what only this wire's encoder does.

A tool call is written as ``input_json_delta`` fragments: another wire's call
is held until its block ends (one delta, ``{}`` for arguments that are no
object), an Anthropic answer's own fragments go back as they came (its
fine-grained tool streaming may send invalid JSON), and a held call open when
an error ends the stream keeps its arguments. What every wire's encoder does
(parse -> encode -> parse, the official SDKs reading the stream and the body)
is ``providers/test_encode_chat_and_messages.py``'s (both Anthropic and OpenAI
Chat, each read by both SDKs), ``test_encode_matrix.py``'s and
``test_encode_sdks.py``'s.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from support.comparing import comparable, fresh_ids
from support.recordings import FIXTURES, body

from streamkit import ChatResponse, encode_stream, replay
from streamkit.model.blocks import ToolCallBlock
from streamkit.model.events import BlockDelta, BlockStart, ErrorEvent, ResponseStart, ToolInputDelta


def reread(encoded: bytes) -> ChatResponse:
    """An encoded Anthropic stream read back (ids counted afresh)."""
    with fresh_ids():
        return replay(encoded, "anthropic", on_error="return")[1]


def _anthropic_events(encoded: bytes) -> list[dict[str, Any]]:
    """The data of each event of an Anthropic SSE stream, in order."""
    return [json.loads(line[len(b"data: "):]) for line in encoded.splitlines()
            if line.startswith(b"data: ")]


def _arguments_by_block(encoded: bytes) -> dict[int, list[str]]:
    """Each tool_use block's ``input_json_delta`` fragments, by wire index."""
    events = _anthropic_events(encoded)
    calls = {event["index"] for event in events if event["type"] == "content_block_start"
             and event["content_block"]["type"] == "tool_use"}
    return {index: [event["delta"]["partial_json"] for event in events
                    if event["type"] == "content_block_delta" and event["index"] == index]
            for index in sorted(calls)}


def test_another_wires_call_is_held_until_its_block_ends_and_no_object_is_written_as_empty(
        ) -> None:
    events, _ = replay(body(FIXTURES / "edge/openai-responses-parallel-tools.sse"),
                       "openai-responses")
    encoded = b"".join(encode_stream("anthropic", events))
    written = _anthropic_events(encoded)
    arguments = _arguments_by_block(encoded)
    # one delta a call (the first three came in fragments), the last event before its stop
    assert list(arguments.values()) == [['{"city":"Paris"}'], ['{"tz":"CET"}'], ["{}"],
                                        ['{"verbose":true}']]
    for index in arguments:
        stop = written.index({"type": "content_block_stop", "index": index})
        assert written[stop - 1]["delta"]["type"] == "input_json_delta"
    again = reread(encoded)
    assert [(call.name, call.arguments()) for call in again.tool_calls] == \
        [("get_weather", {"city": "Paris"}), ("get_time", {"tz": "CET"}), ("run_sql", {}),
         ("noop", {"verbose": True})]


def test_an_anthropic_answers_own_invalid_arguments_stream_back_as_they_came() -> None:
    path = FIXTURES / "edge/anthropic-tool-use-invalid-json.sse"
    with fresh_ids():
        events, response = replay(body(path), "anthropic", on_error="return")
    encoded = b"".join(encode_stream("anthropic", events))
    assert comparable(reread(encoded)) == comparable(response)
    sent = [[text for text in fragments if text]  # an empty fragment says nothing
            for fragments in _arguments_by_block(body(path)).values()]
    assert len(sent[0]) > 1  # fragments, not one held delta
    assert list(_arguments_by_block(encoded).values()) == sent


@pytest.mark.parametrize(("fragments", "written", "arguments"),
                         [(['{"a": ', "1}"], '{"a": 1}', {"a": 1}), (['{"a": '], "{}", {})])
def test_a_held_call_open_when_an_error_ends_the_stream_keeps_its_arguments(
        fragments: list[str], written: str, arguments: dict[str, Any]) -> None:
    events: list[Any] = [
        ResponseStart(id="r1", model="m", provider="openai"),
        BlockStart(index=0, block=ToolCallBlock("call_1", "f", "")),
        *[BlockDelta(index=0, delta=ToolInputDelta(text)) for text in fragments],
        ErrorEvent(message="upstream gone", status=500)]
    encoded = b"".join(encode_stream("anthropic", events))
    assert list(_arguments_by_block(encoded).values()) == [[written]]
    assert _anthropic_events(encoded)[-1]["type"] == "error"
    call, = reread(encoded).tool_calls
    assert call.arguments() == arguments


@pytest.mark.parametrize(("fixture", "provider"), [
    ("anthropic/text-basic.sse", "anthropic"), ("openai-chat/text-with-usage-chunk.sse", "openai"),
    ("gemini/text.sse", "gemini")])
def test_a_finished_answers_message_start_says_its_input_count(fixture: str,
                                                               provider: str) -> None:
    """As the API's own message_start does (tests/fixtures/anthropic): a finished
    response knows its input count before its events say it; a live stream
    whose count comes at its end says it in message_delta (cumulative)."""
    events, response = replay(body(FIXTURES / fixture), provider, on_error="return")
    assert response.usage is not None and response.usage.input_tokens
    for source, start_count in ((response, response.usage.input_tokens), (events, None)):
        written = _anthropic_events(b"".join(encode_stream("anthropic", source)))
        start = written[0]["message"]["usage"]
        delta = next(event["usage"] for event in written if event["type"] == "message_delta")
        assert delta["input_tokens"] == response.usage.input_tokens
        if start_count is not None:
            assert start == {**start, "input_tokens": start_count, "output_tokens": 0}
