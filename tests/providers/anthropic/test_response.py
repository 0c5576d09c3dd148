"""Anthropic Messages non-streamed responses: ``parse_response`` gives the same
ChatResponse as the stream of the same message, and reads the recorded
turn-1 responses field by field.

The equivalence oracle is independent of streamkit: for every recorded
Anthropic stream, the official SDK's own accumulator
(``anthropic.lib.streaming._messages.accumulate_event``) builds the final
``Message``, i.e. the body the same request would have got with
``stream: false``; ``parse_response`` of that body must equal the stream
parser's response. One difference is inherent and compared separately: a
streamed tool call keeps its argument text as it streamed (``{"a": 1}``), a
complete message has only the object (read as compact JSON ``{"a":1}``), so
tool inputs are compared as parsed JSON.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from anthropic.lib.streaming._messages import accumulate_event
from pydantic import BaseModel
from support.comparing import comparable
from support.conversations import conversations
from support.recordings import FIXTURES, body, payloads

from streamkit import replay
from streamkit.conversation.messages import UserMessage
from streamkit.model.blocks import (
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from streamkit.model.errors import InvalidBodyError, ProviderError
from streamkit.model.finish import FinishReason
from streamkit.model.ids import counting_ids, id_factory
from streamkit.model.response import ChatResponse
from streamkit.providers.anthropic import WIRE
from streamkit.providers.anthropic.response import payloads as body_payloads
from streamkit.providers.anthropic.tools import JSON_TOOL
from streamkit.providers.codec import build_request, parse_response

ANTHROPIC = "anthropic"
# Every recorded Anthropic stream that ended as a message (the cut-off one has
# no complete-message twin) and the edge stream of server tools.
STREAMS = [path for path in sorted((FIXTURES / "anthropic").iterdir())
           if path.name != "tool-use-incomplete-partial-json.sse"]
STREAMS.append(FIXTURES / "edge" / "anthropic-server-tools.sse")
CONVERSATIONS = {c.path.name: c for c in conversations("anthropic")}


def sdk_message(path: Path) -> dict[str, Any]:
    """The non-streamed body the official SDK accumulates from a recorded stream."""
    snapshot: Any = None
    json_buffers: dict[int, bytes] = {}
    for _, data in payloads(path):
        event = json.loads(data)
        if event["type"] != "ping":
            snapshot = accumulate_event(event=event, current_snapshot=snapshot,
                                        json_bufs=json_buffers)
    message: dict[str, Any] = snapshot.model_dump(mode="json", exclude_unset=True,
                                                  warnings=False)
    return message


def _tool_inputs_parsed(response: dict[str, Any]) -> dict[str, Any]:
    for block in response["content"]:
        if block["type"] == "tool_call":
            block["input"] = json.loads(block["input"])
    return response


@pytest.mark.parametrize("path", STREAMS, ids=[p.name for p in STREAMS])
def test_non_streamed_equals_streamed(path: Path) -> None:
    with id_factory(counting_ids()):
        _, streamed = replay(body(path), ANTHROPIC)
    with id_factory(counting_ids()):
        parsed = parse_response(ANTHROPIC, sdk_message(path))
    assert parsed.provider == ANTHROPIC
    streamed.provider = ANTHROPIC  # what the stream pipeline sets (the registry name)
    assert _tool_inputs_parsed(comparable(parsed)) == _tool_inputs_parsed(comparable(streamed))
    assert parsed.is_last and parsed.terminated


def test_tool_input_is_compact_json_of_the_object() -> None:
    parsed = parse_response(ANTHROPIC, sdk_message(FIXTURES / "anthropic" / "tool-use.sse"))
    [call] = parsed.tool_calls
    assert call.input == '{"location":"Paris"}' and call.arguments() == {"location": "Paris"}
    no_arguments = parse_response(ANTHROPIC, sdk_message(
        FIXTURES / "anthropic" / "tool-no-args.chunks.jsonl"))
    assert [c.input for c in no_arguments.tool_calls] == ["{}"]


# ---------------------------------------------------------------- recorded turn-1 responses


def turn1(name: str) -> ChatResponse:
    return parse_response(ANTHROPIC, CONVERSATIONS[name].turn1_response)


def test_tool_use_with_thinking() -> None:
    response = turn1("tool-use-thinking-signature")
    assert response.id == "msg_01WvueFjZVbHcj4H4zUzeGv2"
    assert response.model == "claude-sonnet-4-20250514"
    assert response.finished_reason is FinishReason.TOOL_CALLS
    assert response.stop_reason == "tool_use"
    thinking, text, call = response.content
    assert isinstance(thinking, ThinkingBlock) and thinking.signature is not None
    assert thinking.signature.startswith("EqEECkYICxgCKkAo3UA4WwDb")
    assert thinking.thinking.startswith("The user is asking about the largest city")
    assert isinstance(text, TextBlock)
    assert text.text == ("I'll help you find the largest city in your country. First, let me "
                         "determine which country you're from.")
    assert isinstance(call, ToolCallBlock)
    assert (call.id, call.name, call.arguments(), call.metadata) == (
        "toolu_01YGzqpRE16Vricda3Aqcejo", "get_user_country", {}, {})
    assert response.usage is not None
    assert (response.usage.input_tokens, response.usage.output_tokens) == (398, 155)
    assert (response.usage.cached_tokens, response.usage.cache_creation_tokens) == (0, 0)
    assert response.usage.raw["service_tier"] == "standard"
    assert response.metadata == {}  # stop_sequence null, type/role constant


def test_redacted_thinking() -> None:
    thinking, text = turn1("redacted-thinking-then-user").content
    assert isinstance(thinking, ThinkingBlock) and thinking.redacted
    assert thinking.thinking == "" and thinking.signature is None
    assert thinking.encrypted is not None and len(thinking.encrypted) == 1020
    assert isinstance(text, TextBlock) and text.text.startswith("I notice that your message")


def test_mcp_blocks() -> None:
    thinking, call, result, text = turn1("mcp-server-tool").content
    assert isinstance(thinking, ThinkingBlock) and isinstance(text, TextBlock)
    assert isinstance(call, ToolCallBlock)
    assert call.metadata == {"server_name": "deepwiki", "server": True,
                             "block_type": "mcp_tool_use"}
    assert call.arguments() == {"question": "What is pydantic-ai and what does this repository "
                                            "do?", "repoName": "pydantic/pydantic-ai"}
    assert isinstance(result, ToolResultBlock) and result.call_id == call.id
    assert not result.is_error and result.metadata == {"block_type": "mcp_tool_result"}
    [part] = result.content
    assert isinstance(part, TextBlock)
    assert part.text.startswith("Pydantic AI is a Python agent framework")


def test_server_tools_pause_turn() -> None:
    response = turn1("pause-turn-web-search")
    assert response.finished_reason is FinishReason.PAUSE
    assert response.stop_reason == "pause_turn"
    calls = [b for b in response.content if isinstance(b, ToolCallBlock)]
    results = [b for b in response.content if isinstance(b, RawBlock)]
    assert len(calls) == 11 and len(results) == 10  # the last search has no result yet
    assert {c.metadata["block_type"] for c in calls} == {"server_tool_use"}
    assert {r.kind for r in results} == {"web_search_tool_result"}
    assert results[0].data["tool_use_id"] == calls[0].id == "srvtoolu_015V9Q8YNSkSyaVE5jFgZPhy"
    assert response.usage is not None and response.usage.input_tokens == 401468
    assert response.usage.raw["server_tool_use"] == {"web_search_requests": 10}


def test_compaction_block_and_context_management() -> None:
    response = turn1("compaction-block")
    compaction, text = response.content
    assert isinstance(compaction, RawBlock) and compaction.kind == "compaction"
    assert compaction.data["content"].startswith("The user provided a very long context")
    assert isinstance(text, TextBlock) and text.text == "Hello! \U0001f44b"
    # stop_details is null (dropped); context_management is kept, as the stream keeps it
    assert response.metadata == {"context_management": {"applied_edits": []}}


def test_bedrock_response() -> None:
    response = turn1("bedrock-invoke-cache-breakpoint")
    assert response.id == "msg_bdrk_01H8tV2orbi5sQVskxVthgZy"
    assert response.usage is not None and response.usage.cached_tokens == 9511


# ---------------------------------------------------------------- other bodies


def test_error_body_raises_provider_error() -> None:
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"},
             "request_id": "req_1"}
    with pytest.raises(ProviderError) as raised:
        parse_response(ANTHROPIC, json.dumps(error).encode())
    assert raised.value.status == 529 and raised.value.error_type == "overloaded_error"
    assert "Overloaded" in str(raised.value) and raised.value.raw == error


def test_odd_bodies_keep_what_they_have() -> None:
    response = parse_response(ANTHROPIC, {"type": "message", "role": "assistant",
                                          "content": ["not a block", {"type": "sparkle"}],
                                          "stop_reason": None, "vendor": 1})
    assert response.finished_reason is FinishReason.UNKNOWN
    assert [b.kind for b in response.content if isinstance(b, RawBlock)] == ["unknown",
                                                                             "sparkle"]
    assert response.metadata == {"vendor": 1}


class Answer(BaseModel):
    city: str
    population: int


def test_structured_output_from_the_forced_tool() -> None:
    """``json_output=True`` is answered with one ``tool_use`` of :data:`JSON_TOOL`
    and no text (forced tool use prefills the call): ``parse`` reads its input."""
    request = build_request(ANTHROPIC, [UserMessage("Largest city of Mexico?")],
                            model="claude-sonnet-4-5", max_tokens=256, json_output=True)
    assert request["tool_choice"] == {"type": "tool", "name": JSON_TOOL}
    response = parse_response(ANTHROPIC, {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": JSON_TOOL,
                     "input": {"city": "Mexico City", "population": 9209944}}],
        "stop_reason": "tool_use", "stop_sequence": None,
        "usage": {"input_tokens": 40, "output_tokens": 20}})
    assert response.parse(Answer) == Answer(city="Mexico City", population=9209944)


def test_structured_output_from_the_text() -> None:
    response = parse_response(ANTHROPIC, {
        "id": "msg_2", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": '{"city": "Lima", "population": 10000000}'}],
        "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 40, "output_tokens": 20}})
    assert response.parse(Answer) == Answer(city="Lima", population=10000000)


# ---------------------------------------------------------------- one path: the body as its stream


BODIES = [*(sdk_message(path) for path in STREAMS),
          *(json.loads(c.turn1_response) for c in CONVERSATIONS.values())]


def _set(message: dict[str, Any]) -> dict[str, Any]:
    """A message's fields that say something (the SDK writes absent ones as null)."""
    return {key: value for key, value in message.items() if value is not None}


@pytest.mark.parametrize("message", BODIES, ids=[*(p.name for p in STREAMS), *CONVERSATIONS])
def test_the_body_is_read_as_a_stream_the_sdk_accumulates_back(message: dict[str, Any]) -> None:
    """The oracle for the body's payloads: the official SDK's accumulator turns the
    stream a body is read as into that very body."""
    snapshot: Any = None
    buffers: dict[int, bytes] = {}
    for _, data in body_payloads(message):
        snapshot = accumulate_event(event=json.loads(data), current_snapshot=snapshot,
                                    json_bufs=buffers)
    rebuilt = snapshot.model_dump(mode="json", exclude_unset=True, warnings=False)
    assert _set(rebuilt) == _set(message)


def test_an_error_body_keeps_the_partial_with_its_provider() -> None:
    error = {"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}}
    with pytest.raises(ProviderError) as raised:
        parse_response(ANTHROPIC, error)
    partial = raised.value.partial
    assert partial is not None and partial.provider == ANTHROPIC
    assert partial.finished_reason is FinishReason.ERROR and partial.content == []
    assert raised.value.status == 429


@pytest.mark.parametrize("odd", [[{"type": "message"}], "message", {"content": object()}])
def test_a_body_that_is_not_a_json_object_is_an_invalid_body(odd: Any) -> None:
    with pytest.raises(InvalidBodyError) as invalid:
        WIRE.parse_response(odd, None)
    assert invalid.value.wire == ANTHROPIC


def test_every_field_lands_where_the_stream_puts_it() -> None:
    """Stop words, the final usage and the message's other fields, through the stream parser."""
    response = parse_response(ANTHROPIC, {
        "id": "msg_9", "type": "message", "role": "assistant", "model": "claude-x",
        "content": [{"type": "text", "text": "Hi"}], "stop_reason": "stop_sequence",
        "stop_sequence": "END", "container": {"id": "c1"},
        "usage": {"input_tokens": 7, "output_tokens": 2, "cache_read_input_tokens": 5}})
    assert (response.id, response.model, response.text) == ("msg_9", "claude-x", "Hi")
    assert response.finished_reason is FinishReason.STOP and response.stop_reason == "stop_sequence"
    assert response.metadata == {"container": {"id": "c1"}, "stop_sequence": "END"}
    assert response.usage is not None
    assert (response.usage.input_tokens, response.usage.cached_tokens) == (7, 5)
