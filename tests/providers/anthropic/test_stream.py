"""AnthropicParser: every recorded Anthropic stream, checked field by field and
against the official SDK's accumulator, plus edge cases real vendors produce,
the fast decoder against the general path, and hostile payloads.

The contracts every wire keeps (the event contract, payload at a time equals
the byte pipeline, auto-detection, the registry's parser) are
``providers/test_wire_contracts.py``'s, written once for every wire."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from anthropic.lib.streaming._messages import accumulate_event
from jiter import from_json
from support.comparing import comparable, fresh_ids
from support.growth import objects_held, payloads_carried
from support.parser_runs import Run, check_event_contract, run_parser
from support.recordings import EDGE, FIXTURES, Payload, payloads, replay_chunked, sse_body

import streamkit
from streamkit import (
    BlockDelta,
    BlockEnd,
    BlockStart,
    FinishReason,
    ProtocolError,
    ProviderError,
    RawBlock,
    ResponseEnd,
    TextBlock,
    TextDelta,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from streamkit.model.blocks import Citation
from streamkit.model.events import ResponseMetadata, ResponseStart
from streamkit.model.response import ChatResponse
from streamkit.providers.anthropic import AnthropicParser, map_stop_reason

ANTHROPIC = FIXTURES / "anthropic"
RECORDED = sorted(ANTHROPIC.iterdir())
ALL = RECORDED + sorted(EDGE.glob("anthropic-*"))


def run(parser: AnthropicParser, items: Sequence[tuple[str | None, str]]) -> Run:
    """Payloads one at a time into ``parser``, then ``finish()``; the contract checked."""
    result = run_parser(parser, items)
    check_event_contract(result.events)
    return result


def parse(path: Path) -> ChatResponse:
    return run(AnthropicParser(), payloads(path)).response



def sdk_message(path: Path) -> Any:
    """The official SDK's accumulated message for a recorded stream (its
    MessageStream skips ``ping`` the same way)."""
    snapshot: Any = None
    json_bufs: dict[int, bytes] = {}
    for _, data in payloads(path):
        event = json.loads(data)
        if event["type"] == "ping":
            continue
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=json_bufs)
    return snapshot


# ---------------------------------------------------------------- recorded fixtures


def test_text_basic() -> None:
    r = parse(ANTHROPIC / "text-basic.sse")
    assert r.id == "msg_4QpJur2dWWDjF6C758FbBw5vm12BaVipnK"
    assert r.model == "claude-3-opus-latest"
    assert len(r.content) == 1 and isinstance(r.content[0], TextBlock)
    assert r.text == "Hello there!"
    assert r.usage is not None
    assert (r.usage.input_tokens, r.usage.output_tokens) == (11, 6)
    assert r.usage.cached_tokens is None and r.usage.cache_creation_tokens is None
    assert r.usage.total_tokens is None  # Anthropic reports none; never invented
    assert r.usage.raw == {"input_tokens": 11, "output_tokens": 6}
    assert r.finished_reason is FinishReason.STOP and r.stop_reason == "end_turn"
    assert r.terminated and r.is_last
    assert r.metadata == {}  # pings leave no trace


def test_text_delta_is_exactly_one_event() -> None:
    parser = AnthropicParser()
    for event, data in payloads(ANTHROPIC / "text-basic.sse")[:2]:
        parser.feed(data, event)
    out = parser.feed('{"type":"content_block_delta","index":0,'
                      '"delta":{"type":"text_delta","text":"Hi"}}', "content_block_delta")
    assert len(out) == 1
    assert isinstance(out[0], BlockDelta) and out[0].delta == TextDelta("Hi")
    assert out[0].index == 0


def test_thinking_signature() -> None:
    r = parse(ANTHROPIC / "thinking-signature.sse")
    assert r.id == "msg_01ALwQ87pTS7hH1PjSdC9wJD" and r.model == "claude-sonnet-4-20250514"
    thinking, text = r.content
    assert isinstance(thinking, ThinkingBlock) and isinstance(text, TextBlock)
    assert thinking.thinking == (
        "This is a straightforward question about pedestrian safety. I should provide clear, "
        "helpful advice about how to safely cross a street. This is basic safety information "
        "that could help prevent accidents."
    )
    sig = thinking.signature
    assert sig is not None and len(sig) == 504
    assert sig.startswith("EvMCCkYICxgCKkCHP2cSuEdc") and sig.endswith("eb1vgb7wwzDvP/UhjfQYAQ==")
    assert not thinking.redacted and thinking.encrypted is None
    assert len(text.text) == 1021
    assert text.text.startswith("Here are the basic steps for safely crossing the street:\n\n**At")
    assert text.text.endswith("Always prioritize safety over speed when crossing streets.")
    assert r.usage is not None
    assert (r.usage.input_tokens, r.usage.output_tokens) == (43, 282)
    assert (r.usage.cached_tokens, r.usage.cache_creation_tokens) == (0, 0)
    assert r.usage.raw["inference_geo"] == "not_available"  # from message_start, kept
    assert r.usage.raw["cache_creation"] == {"ephemeral_5m_input_tokens": 0,
                                             "ephemeral_1h_input_tokens": 0}
    assert r.finished_reason is FinishReason.STOP and r.terminated


def test_redacted_thinking() -> None:
    r = parse(ANTHROPIC / "redacted-thinking.sse")
    assert r.id == "msg_018XZkwvj9asBiffg3fXt88s" and r.model == "claude-sonnet-4-5-20250929"
    first, second, text = r.content
    for block, length, head, tail in (
        (first, 744, "EqkECkYIBxgCKkA8AZ4noDfV", "AhDIXXjpot45vnBd4ewJ/hgB"),
        (second, 296, "EtgBCkYIBxgCKkDQfGkwzflE", "jRRFuab/DBV3yRYdZ1J0GAE="),
    ):
        assert isinstance(block, ThinkingBlock) and block.redacted
        assert block.thinking == "" and block.signature is None
        assert block.encrypted is not None and len(block.encrypted) == length
        assert block.encrypted.startswith(head) and block.encrypted.endswith(tail)
    assert isinstance(text, TextBlock)
    assert text.text == (
        "I notice that you've sent what appears to be some kind of test string or command. "
        "I don't have any special \"magic string\" triggers or backdoor commands that would "
        "expose internal systems or change my behavior.\n\nI'm Claude, an AI assistant created "
        "by Anthropic to be helpful, harmless, and honest. How can I assist you today with a "
        "legitimate task or question?"
    )
    assert r.usage is not None
    assert (r.usage.input_tokens, r.usage.output_tokens) == (92, 189)
    assert r.usage.raw["service_tier"] == "standard"
    assert r.finished_reason is FinishReason.STOP and r.stop_reason == "end_turn"


def test_tool_use() -> None:
    r = parse(ANTHROPIC / "tool-use.sse")
    assert r.id == "msg_019Q1hrJbZG26Fb9BQhrkHEr"
    text, call = r.content
    assert isinstance(text, TextBlock)
    assert text.text == "I'll check the current weather in Paris for you."
    assert isinstance(call, ToolCallBlock)
    assert (call.id, call.name) == ("toolu_01NRLabsLyVHZPKxbKvkfSMn", "get_weather")
    assert call.input == '{"location": "Paris"}'  # raw text exactly as streamed
    assert call.arguments() == {"location": "Paris"}
    assert call.metadata == {"caller": {"type": "direct"}}
    assert not call.incomplete
    assert r.tool_calls == [call]
    assert r.usage is not None and (r.usage.input_tokens, r.usage.output_tokens) == (377, 65)
    assert r.finished_reason is FinishReason.TOOL_CALLS and r.stop_reason == "tool_use"


def test_tool_no_args_ends_with_empty_object() -> None:
    r = parse(ANTHROPIC / "tool-no-args.chunks.jsonl")
    assert r.id == "msg_01GE2RKp1VYsPzdFs3sS9z5S"
    text, call = r.content
    assert isinstance(text, TextBlock) and text.text == "I'll update the issue list for you."
    assert isinstance(call, ToolCallBlock)
    assert (call.id, call.name, call.input) == ("toolu_01QE1WLsSVp5hy5Q3GmGTmjP",
                                                "updateIssueList", "{}")
    assert call.arguments() == {} and not call.incomplete
    assert r.usage is not None and (r.usage.input_tokens, r.usage.output_tokens) == (565, 48)
    assert r.finished_reason is FinishReason.TOOL_CALLS


def test_tool_json_cut_at_max_tokens_is_kept_raw_and_incomplete() -> None:
    r = parse(ANTHROPIC / "tool-use-incomplete-partial-json.sse")
    text, call = r.content
    assert isinstance(text, TextBlock)
    assert text.text == ("I'll create a comprehensive tax guide for someone with multiple W2s and "
                         "save it in a file called taxes.txt. Let me do that for you now.")
    assert isinstance(call, ToolCallBlock)
    assert (call.id, call.name) == ("toolu_01EKqbqmZrGRXy18eN7m9kvY", "make_file")
    assert call.input == (
        '{"filename": "taxes.txt", "lines_of_text": [\n"# COMPREHENSIVE TAX GUIDE FOR '
        'INDIVIDUALS WITH MULTIPLE W-2s",\n"",\n"## INTRODUCTION",\n"",\n"Filing taxes'
    )
    assert call.incomplete
    assert r.finished_reason is FinishReason.LENGTH and r.stop_reason == "max_tokens"
    assert r.usage is not None and (r.usage.input_tokens, r.usage.output_tokens) == (450, 124)
    assert r.terminated  # message_stop came; only the block was cut


def test_refusal_with_stop_details() -> None:
    r = parse(ANTHROPIC / "refusal-stop-details.chunks.jsonl")
    assert r.id == "msg_01RefusalStreamAbcdefghijk" and r.model == "claude-fable-5"
    assert r.content == []
    assert r.finished_reason is FinishReason.REFUSAL and r.stop_reason == "refusal"
    assert r.metadata == {"stop_details": {
        "type": "refusal",
        "category": "cyber",
        "explanation": "This request triggered restrictions on violative cyber content and was "
                       "blocked under Anthropic's Usage Policy.",
        "recommended_model": "claude-fable-5",
    }}
    assert r.usage is not None and (r.usage.input_tokens, r.usage.output_tokens) == (18, 5)
    assert r.terminated


# ---------------------------------------------------------------- the SDK oracle


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.name)
def test_matches_the_official_sdk_accumulator(path: Path) -> None:
    ours = parse(path)
    sdk = sdk_message(path)
    assert ours.id == sdk.id and ours.model == sdk.model
    assert len(ours.content) == len(sdk.content)
    for block, expected in zip(ours.content, sdk.content, strict=True):
        if expected.type == "text":
            assert isinstance(block, TextBlock) and block.text == expected.text
            assert block.citations == (expected.citations or [])
        elif expected.type == "thinking":
            assert isinstance(block, ThinkingBlock)
            assert (block.thinking, block.signature) == (expected.thinking, expected.signature)
        elif expected.type == "redacted_thinking":
            assert isinstance(block, ThinkingBlock) and block.redacted
            assert block.encrypted == expected.data
        else:
            assert expected.type == "tool_use"
            assert isinstance(block, ToolCallBlock)
            assert (block.id, block.name) == (expected.id, expected.name)
            if block.incomplete:
                # SDK defect: it jiter-parses cut-off argument JSON in partial mode and
                # presents the fragment as if it were the complete input, with no mark.
                # We keep the raw text and mark the block; the SDK's dict is its prefix.
                assert from_json(block.input.encode(), partial_mode=True) == expected.input
            else:
                assert block.arguments() == expected.input
    assert ours.stop_reason == sdk.stop_reason
    assert ours.finished_reason == map_stop_reason(sdk.stop_reason)
    assert ours.usage is not None
    assert ours.usage.input_tokens == sdk.usage.input_tokens
    assert ours.usage.output_tokens == sdk.usage.output_tokens
    assert ours.usage.cached_tokens == sdk.usage.cache_read_input_tokens
    assert ours.usage.cache_creation_tokens == sdk.usage.cache_creation_input_tokens
    if sdk.stop_details is not None:
        assert ours.metadata["stop_details"] == sdk.stop_details.to_dict()


# ---------------------------------------------------------------- edge cases


def test_interleaved_tool_calls_unknown_events_and_fields() -> None:
    r = run(AnthropicParser(), payloads(EDGE / "anthropic-interleaved-tools-unknown.sse")).response
    text, weather, time = r.content
    assert isinstance(text, TextBlock) and text.text == "Checking both cities now."
    raw = {"type": "char_location", "cited_text": "Paris is in France.", "document_index": 0,
           "document_title": "Atlas", "start_char_index": 0, "end_char_index": 19}
    assert text.citations == [Citation(title="Atlas", cited_text="Paris is in France.", start=0,
                                       end=19, document_index=0, raw=raw, wire="anthropic")]
    assert isinstance(weather, ToolCallBlock) and isinstance(time, ToolCallBlock)
    assert (weather.id, weather.name) == ("toolu_A", "get_weather")
    assert weather.arguments() == {"city": 'Paris "16e" {['}
    assert not weather.incomplete  # brackets and escaped quotes inside a string are text
    assert (time.id, time.name, time.arguments()) == ("toolu_B", "get_time",
                                                      {"tz": "Europe/Paris"})
    assert r.metadata["vendor_trace"] == "abc-123"  # unknown message field kept
    assert r.metadata["unknown_events"] == [
        {"event": "annotation_added",
         "data": {"type": "annotation_added", "annotation": {"kind": "beta-feature", "value": 7}}},
        {"event": "content_block_delta",
         "data": {"type": "content_block_delta", "index": 1,
                  "delta": {"type": "sparkle_delta", "sparkle": "*"}}},
    ]
    assert r.metadata["container"] == {"id": "cont_1", "expires_at": "2026-01-01T00:00:00Z"}
    assert r.metadata["context_management"] == {"applied_edits": []}
    assert "stop_sequence" not in r.metadata  # null: nothing to keep
    assert r.usage is not None
    assert (r.usage.input_tokens, r.usage.output_tokens) == (120, 77)  # input kept from start
    assert (r.usage.cached_tokens, r.usage.cache_creation_tokens) == (900, 30)
    assert r.usage.reasoning_tokens == 0  # output_tokens_details.thinking_tokens
    assert r.finished_reason is FinishReason.TOOL_CALLS and r.terminated


def test_server_and_mcp_tools_and_their_results() -> None:
    r = run(AnthropicParser(), payloads(EDGE / "anthropic-server-tools.sse")).response
    search, search_result, mcp_call, mcp_result, text = r.content
    assert isinstance(search, ToolCallBlock)
    assert (search.id, search.name, search.input) == ("srvtoolu_1", "web_search",
                                                      '{"query": "weather paris"}')
    assert search.metadata == {"server": True, "block_type": "server_tool_use"}
    assert isinstance(search_result, RawBlock)
    assert search_result.kind == "web_search_tool_result"
    assert search_result.data["tool_use_id"] == "srvtoolu_1"
    assert search_result.data["content"][0]["encrypted_content"] == "EqgfCioIARgBIiQ3"
    assert isinstance(mcp_call, ToolCallBlock)
    # complete input in content_block_start and no delta: that input is the call's
    assert mcp_call.arguments() == {"country": "FR", "limit": 3}
    assert mcp_call.metadata == {"server": True, "block_type": "mcp_tool_use",
                                 "server_name": "atlas"}
    assert isinstance(mcp_result, ToolResultBlock)
    assert mcp_result.call_id == "mcptoolu_1" and not mcp_result.is_error
    assert [c.text for c in mcp_result.content if isinstance(c, TextBlock)] == [
        "Paris, Lyon, Nice"]
    assert mcp_result.metadata == {"block_type": "mcp_tool_result"}
    assert isinstance(text, TextBlock) and text.text == "It is sunny in Paris."
    assert text.citations[0].cited_text == "Sunny, 24C"
    assert r.usage is not None and r.usage.raw["server_tool_use"] == {"web_search_requests": 1}
    assert r.finished_reason is FinishReason.PAUSE and r.stop_reason == "pause_turn"


def test_error_event_raises_provider_error_with_the_partial() -> None:
    path = EDGE / "anthropic-overloaded-midstream.sse"
    r = run(AnthropicParser(), payloads(path)).response
    assert r.text == "Partial ans"
    assert r.finished_reason is FinishReason.ERROR and not r.terminated
    assert r.metadata["error"]["type"] == "overloaded_error"
    assert r.metadata["error"]["status"] == 529
    body = path.read_bytes()
    with pytest.raises(ProviderError) as info:
        streamkit.stream(iter([body]), "anthropic").final()
    assert info.value.message == "Overloaded"
    assert (info.value.error_type, info.value.status) == ("overloaded_error", 529)
    assert info.value.raw["request_id"] == "req_011CSHoEeqs5C35K2UUqR7Fy"
    assert info.value.partial is not None and info.value.partial.text == "Partial ans"


def test_block_kind_change_orphan_delta_and_missing_message_stop() -> None:
    r = run(AnthropicParser(), payloads(EDGE / "anthropic-kind-change-no-stop.sse")).response
    hello, thought, orphan, cut = r.content
    assert isinstance(hello, TextBlock) and hello.text == "Hello"
    assert isinstance(thought, ThinkingBlock)
    assert (thought.thinking, thought.signature) == ("wait, thinking now", "sig-1")
    assert isinstance(orphan, TextBlock) and orphan.text == "orphan"
    assert isinstance(cut, ToolCallBlock) and cut.incomplete
    assert cut.input == '{"path": "a.txt", "body": "line\\'
    # no message_stop: the stream's own stop reason, and no terminator recorded
    assert r.finished_reason is FinishReason.LENGTH and r.stop_reason == "max_tokens"
    assert not r.terminated and r.is_last


def test_missing_terminator_without_stop_reason_ends_unknown() -> None:
    parser = AnthropicParser()
    items = payloads(ANTHROPIC / "text-basic.sse")[:-2]  # no message_delta, no message_stop
    acc = run(parser, items).accumulator
    assert not parser.done
    assert acc.response.text == "Hello there!"
    assert acc.response.finished_reason is FinishReason.UNKNOWN
    assert not acc.response.terminated
    assert parser.finish() == []  # idempotent


def test_done_after_message_stop() -> None:
    parser = AnthropicParser()
    items = payloads(ANTHROPIC / "text-basic.sse")
    for event, data in items[:-1]:
        parser.feed(data, event)
        assert not parser.done
    out = parser.feed(items[-1].data, items[-1].event)
    assert parser.done
    assert [type(e) for e in out] == [ResponseEnd]
    assert parser.finish() == []  # the stream already ended


def test_deltas_without_index_and_type_only_from_event_name() -> None:
    parser = AnthropicParser()
    acc = run(parser, [
        Payload("message_start", '{"message":{"id":"m1","model":"x"}}'),
        Payload(None, '{"type":"content_block_delta","delta":{"type":"text_delta","text":"a"}}'),
        Payload(None, '{"type":"content_block_delta","delta":{"type":"text_delta","text":"b"}}'),
        Payload(None, '{"type":"message_stop"}'),
    ]).accumulator
    assert (acc.response.id, acc.response.text) == ("m1", "ab")
    assert len(acc.response.content) == 1


def test_complete_tool_input_in_start_loses_to_following_deltas() -> None:
    acc = run(AnthropicParser(), [
        Payload(None, '{"type":"message_start","message":{"id":"m","model":"x"}}'),
        Payload(None, '{"type":"content_block_start","index":0,"content_block":'
                      '{"type":"tool_use","id":"t","name":"f","input":{"stale":true}}}'),
        Payload(None, '{"type":"content_block_delta","index":0,'
                      '"delta":{"type":"input_json_delta","partial_json":"{\\"a\\": 1}"}}'),
        Payload(None, '{"type":"content_block_stop","index":0}'),
    ]).accumulator
    call = acc.response.content[0]
    assert isinstance(call, ToolCallBlock) and call.input == '{"a": 1}'


def test_unknown_block_type_is_kept_whole() -> None:
    block = {"type": "container_upload", "file_id": "file_1"}
    acc = run(AnthropicParser(), [
        Payload(None, json.dumps({"type": "content_block_start", "index": 0,
                                  "content_block": block})),
        Payload(None, '{"type":"content_block_stop","index":0}'),
    ]).accumulator
    raw = acc.response.content[0]
    assert isinstance(raw, RawBlock) and (raw.kind, raw.data) == ("container_upload", block)


def test_malformed_json_is_a_protocol_error_with_offset() -> None:
    parser = AnthropicParser()
    bad = '{"type":"content_block_delta","index":0,"delta":{"type":text_delta}}'
    with pytest.raises(ProtocolError) as info:
        parser.feed(bad, "content_block_delta")
    assert info.value.offset is not None
    assert bad.index("text_delta") <= info.value.offset < bad.index("}}")  # in the bad token
    assert info.value.event == "content_block_delta"


def test_block_start_carries_a_complete_redacted_block_and_end_follows() -> None:
    events = run(AnthropicParser(), payloads(ANTHROPIC / "redacted-thinking.sse")).events
    starts = [e for e in events if isinstance(e, BlockStart)]
    ends = [e for e in events if isinstance(e, BlockEnd)]
    assert [type(s.block) for s in starts] == [ThinkingBlock, ThinkingBlock, TextBlock]
    assert [e.index for e in ends] == [0, 1, 2]
    first = starts[0].block
    assert isinstance(first, ThinkingBlock) and first.redacted and first.encrypted


@pytest.mark.parametrize(("fragments", "incomplete"), [
    (['{"a": "x\\', '""}'], False),  # an escape split across fragments
    (['{"a": "x\\\\', '"}'], False),  # an escaped backslash, then the closing quote
    (['{"a": "x\\\\"', ', "b": [1, {"c": "}"}]}'], False),
    (['{"a": "x\\"}'], True),  # the quote is escaped: the string never closes
    (['{"a": [1, 2'], True),
    (['   '], False),  # whitespace only: no arguments, ends as {}
])
def test_tool_json_completeness_is_tracked_across_fragments(
    fragments: list[str], incomplete: bool
) -> None:
    items = [Payload(None, '{"type":"content_block_start","index":0,"content_block":'
                           '{"type":"tool_use","id":"t","name":"f","input":{}}}')]
    items += [Payload(None, json.dumps({"type": "content_block_delta", "index": 0,
                                        "delta": {"type": "input_json_delta", "partial_json": f}}))
              for f in fragments]
    items.append(Payload(None, '{"type":"content_block_stop","index":0}'))
    acc = run(AnthropicParser(), items).accumulator
    call = acc.response.content[0]
    assert isinstance(call, ToolCallBlock) and call.incomplete is incomplete
    if not incomplete:
        assert call.arguments() == json.loads("".join(fragments).strip() or "{}")


# ---------------------------------------------------------------- the fast decoder


@pytest.mark.parametrize("size", [None, 7], ids=["whole", "7-byte"])
@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_the_fast_decoder_agrees_with_the_general_path(path: Path, size: int | None) -> None:
    """Every fixture, through the pipeline (several payloads per ``feed_into``)
    and payload at a time: the same events and response with ``fast_decode`` off."""
    runs = []
    for fast_decode in (True, False):
        with fresh_ids():
            events, response = replay_chunked(path, "anthropic", size, fast_decode=fast_decode)
        with fresh_ids():
            one_by_one = run(AnthropicParser(fast_decode=fast_decode), payloads(path))
        runs.append((events, comparable(response), one_by_one.events))
    assert runs[0] == runs[1]


def delta_payload(index: int | None, delta: dict[str, Any]) -> str:
    payload: dict[str, Any] = {"type": "content_block_delta", "delta": delta}
    if index is not None:
        payload["index"] = index
    return json.dumps(payload)


ODD_DELTAS = [
    delta_payload(0, {"type": "text_delta", "text": "a"}),
    delta_payload(0, {"type": "input_json_delta", "partial_json": ""}),
    delta_payload(0, {"type": "input_json_delta", "partial_json": " "}),
    delta_payload(0, {"type": "input_json_delta", "partial_json": "{"}),
    delta_payload(0, {"type": "input_json_delta", "partial_json": ""}),
    delta_payload(0, {"type": "text_delta", "text": "b"}),
    delta_payload(5, {"type": "text_delta", "text": "c"}),
    delta_payload(5, {"type": "text_delta", "text": "d", "x": 1}),
    delta_payload(None, {"type": "text_delta", "text": "e"}),
    '{"type":"content_block_delta","delta":{"type":"text_delta","text":"f"},"index":5}',
]


def test_the_fast_decoder_agrees_on_odd_delta_sequences() -> None:
    """Kind changes, empty and whitespace-only argument fragments, an index never
    started, extra fields, fields out of order: the fast path takes only what it
    can, and the result is the general path's."""
    start = Payload(None, '{"type":"content_block_start","index":0,"content_block":'
                          '{"type":"tool_use","id":"t","name":"f","input":{}}}')
    results = []
    for fast_decode in (True, False):
        with fresh_ids():
            parser = AnthropicParser(fast_decode=fast_decode)
            events = parser.feed(start.data)
            parser.feed_into([("message", data) for data in ODD_DELTAS], events)
            events += parser.finish()
        check_event_contract(events)
        results.append(events)
    assert results[0] == results[1]
    assert any(isinstance(e, BlockDelta) and e.delta == TextDelta("f") for e in results[0])


# ---------------------------------------------------------------- hostile payloads


def started(*items: Payload, fast_decode: bool = True) -> Run:
    """A stream that began normally (a message and an open text block at index
    0), then ``items``; the contract is checked on what comes out."""
    prefix = [
        Payload(None, '{"type":"message_start","message":{"id":"m","model":"x"}}'),
        Payload(None, '{"type":"content_block_start","index":0,'
                      '"content_block":{"type":"text","text":""}}'),
    ]
    return run(AnthropicParser(fast_decode=fast_decode), [*prefix, *items])


HOSTILE = [
    '{"type":"content_block_start","index":[],"content_block":{"type":"text","text":""}}',
    '{"type":"content_block_delta","index":[],"delta":{"type":"text_delta","text":"x"}}',
    '{"type":"content_block_delta","index":{"a":1},"delta":'
    '{"type":"input_json_delta","partial_json":"{"}}',
    '{"type":"content_block_stop","index":[]}',
    '{"type":"message_delta","delta":{"stop_reason":[]}}',
    '{"type":"message_delta","delta":{"stop_reason":{"a":1}},"usage":[]}',
    '{"type":"message_delta","delta":[],"usage":{"output_tokens":[]}}',
    '{"type":[],"index":0}',
    '{"type":["content_block_delta"],"index":0,"delta":{"type":"text_delta","text":"x"}}',
    '{"type":"content_block_start","index":1,"content_block":{"type":[],"id":[]}}',
    '{"type":"content_block_start","index":1,"content_block":'
    '{"type":"tool_use","id":[],"name":{},"input":[]}}',
    '{"type":"content_block_start","index":1,"content_block":'
    '{"type":"thinking","thinking":5,"signature":[]}}',
    '{"type":"content_block_start","index":1,"content_block":'
    '{"type":"redacted_thinking","data":[]}}',
    '{"type":"content_block_start","index":1,"content_block":'
    '{"type":"web_search_tool_result","tool_use_id":[],"content":"x"}}',
    '{"type":"content_block_start","index":1,"content_block":'
    '{"type":"mcp_tool_result","tool_use_id":"t","content":[{"type":"text","text":[]}]}}',
    '{"type":"content_block_start","index":1,"content_block":{"type":"future","id":{}}}',
    '{"type":"content_block_start","index":1,"content_block":[]}',
    '{"type":"content_block_delta","index":0,"delta":{"type":[],"text":"x"}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":5}}',
    '{"type":"content_block_delta","index":0,"delta":[]}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":"x"}}',
    '{"type":"content_block_delta","index":true,"delta":{"type":"text_delta","text":"x"}}',
    '{"type":"content_block_delta","index":1.5,"delta":{"type":"text_delta","text":"x"}}',
    '{"type":"content_block_delta","index":123456789012345678901234567890,'
    '"delta":{"type":"text_delta","text":"x"}}',
    '{"type":"message_start","message":{"id":[],"model":{},"usage":"x","role":[]}}',
    '{"type":"message_start","message":[]}',
    '{"type":"message_stop","extra":[]}',
    '{"type":"error","error":[]}',
    '{"type":"error","error":{"type":[],"message":{},"code":[]}}',
    '{"type":"error","error":null}',
    '{"type":"error"}',
    "[]",
    "1",
    '"x"',
    "null",
]


@pytest.mark.parametrize("fast_decode", [True, False], ids=["fast", "general"])
@pytest.mark.parametrize("data", HOSTILE)
def test_wrongly_typed_fields_never_raise(data: str, fast_decode: bool) -> None:
    """Whatever the types, the stream goes on and the events still fold: no
    TypeError from an unhashable index, stop reason, type or id."""
    result = started(Payload(None, data), fast_decode=fast_decode)
    assert result.response.id == "m" or "id" in result.response.metadata
    for block in result.response.content:
        assert type(block.id) is str


def test_an_index_of_the_wrong_type_is_the_block_without_index() -> None:
    r = started(
        Payload(None, '{"type":"content_block_delta","index":0,'
                      '"delta":{"type":"text_delta","text":"a"}}'),
        Payload(None, '{"type":"content_block_start","index":[1],'
                      '"content_block":{"type":"text","text":""}}'),
        Payload(None, '{"type":"content_block_delta","index":[1],'
                      '"delta":{"type":"text_delta","text":"b"}}'),
        Payload(None, '{"type":"content_block_delta","delta":{"type":"text_delta","text":"c"}}'),
        Payload(None, '{"type":"content_block_stop","index":{"i":1}}'),
    ).response
    assert [block.text for block in r.content if isinstance(block, TextBlock)] == ["a", "bc"]


def test_a_stop_reason_of_the_wrong_type_is_absent_and_kept() -> None:
    r = started(
        Payload(None, '{"type":"message_delta","delta":{"stop_reason":["end_turn"]},'
                      '"usage":{"output_tokens":3}}'),
        Payload(None, '{"type":"message_stop"}'),
    ).response
    assert r.stop_reason is None and r.finished_reason is FinishReason.UNKNOWN
    assert r.metadata["stop_reason"] == ["end_turn"]
    assert r.usage is not None and r.usage.output_tokens == 3
    assert r.terminated


def test_a_type_of_the_wrong_type_is_absent() -> None:
    """The payload's ``type`` names the event; a list there is no name, so the
    SSE event name decides, and a block or delta without a usable type is kept."""
    r = started(
        Payload("content_block_delta", '{"type":["x"],"index":0,'
                                       '"delta":{"type":"text_delta","text":"a"}}'),
        Payload(None, '{"type":"content_block_delta","index":0,'
                      '"delta":{"type":["text_delta"],"text":"b"}}'),
        Payload(None, '{"type":"content_block_start","index":1,'
                      '"content_block":{"type":["text"],"text":"c"}}'),
    ).response
    text, raw = r.content
    assert isinstance(text, TextBlock) and text.text == "a"
    assert isinstance(raw, RawBlock) and raw.kind == "unknown"
    assert raw.data == {"type": ["text"], "text": "c"}
    assert r.metadata["unknown_events"] == [
        {"event": "content_block_delta",
         "data": {"type": "content_block_delta", "index": 0,
                  "delta": {"type": ["text_delta"], "text": "b"}}},
    ]


def test_ids_of_the_wrong_type_are_absent_and_kept() -> None:
    events = run(AnthropicParser(), [
        Payload(None, '{"type":"message_start","message":{"id":["m"],"model":"x"}}'),
        Payload(None, '{"type":"content_block_start","index":0,"content_block":'
                      '{"type":"tool_use","id":{"v":1},"name":["f"],"input":{"a":1}}}'),
        Payload(None, '{"type":"content_block_stop","index":0}'),
        Payload(None, '{"type":"content_block_start","index":1,"content_block":'
                      '{"type":"server_thing","id":[2]}}'),
        Payload(None, '{"type":"content_block_stop","index":1}'),
        Payload(None, '{"type":"message_stop"}'),
    ]).events
    start = events[0]
    assert isinstance(start, ResponseStart)
    # the wire's id is absent: the response starts with a made-up one, the list is kept
    assert start.id is not None and start.id.startswith("resp_")
    assert start.metadata == {"id": ["m"]}
    call = next(e.block for e in events if isinstance(e, BlockStart))
    assert isinstance(call, ToolCallBlock)
    assert call.id.startswith("call_") and call.name == ""
    assert call.metadata == {"id": {"v": 1}, "name": ["f"]}
    raw = [e.block for e in events if isinstance(e, BlockStart)][1]
    assert isinstance(raw, RawBlock) and raw.id.startswith("raw_") and raw.data["id"] == [2]


_BLOCK_BEFORE_MESSAGE_START = sse_body([
    Payload("content_block_start",
            '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}'),
    Payload("content_block_delta",
            '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}'),
    Payload("message_start",
            '{"type":"message_start","message":{"id":"msg_1","type":"message",'
            '"role":"assistant","model":"claude-x","content":[],'
            '"usage":{"input_tokens":3,"output_tokens":0}}}'),
    Payload("content_block_stop", '{"type":"content_block_stop","index":0}'),
    Payload("message_stop", '{"type":"message_stop"}'),
])


@pytest.mark.parametrize("provider", ["anthropic", "auto"])
def test_a_block_before_message_start_starts_the_response_with_the_provider(
        provider: str) -> None:
    """A vendor's block before ``message_start``: the block starts the response
    (provider known, model not yet, a made-up id); the late ``message_start``
    gives id and model as metadata, with its usage."""
    events, response = streamkit.replay(_BLOCK_BEFORE_MESSAGE_START, provider)
    check_event_contract(events)
    start = events[0]
    assert isinstance(start, ResponseStart) and isinstance(events[1], BlockStart)
    assert (start.model, start.provider) == (None, "anthropic")
    assert start.id is not None and start.id.startswith("resp_")
    (late,) = [e for e in events if isinstance(e, ResponseMetadata)]
    assert (late.id, late.model) == ("msg_1", "claude-x")
    assert (response.provider, response.id, response.model, response.text) == \
        ("anthropic", "msg_1", "claude-x", "Hi")
    assert response.usage is not None and response.usage.input_tokens == 3


@pytest.mark.parametrize("fast_decode", [True, False], ids=["fast", "general"])
def test_json_nested_too_deeply_is_a_protocol_error(fast_decode: bool) -> None:
    """The strict fast decoder hits Python's recursion limit on it; the general
    path reports the documented limit instead."""
    deep = "[" * 100_000 + "]" * 100_000
    data = ('{"type":"content_block_delta","index":0,"delta":{"zzz":' + deep +
            ',"type":"text_delta","text":"x"}}')
    parser = AnthropicParser(fast_decode=fast_decode)
    parser.feed('{"type":"content_block_start","index":0,"content_block":{"type":"text"}}')
    with pytest.raises(ProtocolError) as info:
        parser.feed(data, "content_block_delta")
    assert info.value.event == "content_block_delta"
    assert "nested" in info.value.message


@pytest.mark.parametrize("fast_decode", [True, False], ids=["fast", "general"])
def test_invalid_utf8_is_replaced(fast_decode: bool) -> None:
    parser = AnthropicParser(fast_decode=fast_decode)
    parser.feed('{"type":"content_block_start","index":0,"content_block":{"type":"text"}}')
    out = parser.feed(b'{"type":"content_block_delta","index":0,'
                      b'"delta":{"type":"text_delta","text":"a\xffb"}}')
    assert [e.delta for e in out if isinstance(e, BlockDelta)] == [TextDelta("a\ufffdb")]


def test_error_events_go_through_the_shared_mapping() -> None:
    r = started(Payload("error", '{"type":"error","error":{"type":"rate_limit_error",'
                                 '"message":"slow down"},"request_id":"req_1"}')).response
    assert r.metadata["error"] == {
        "message": "slow down", "code": None, "type": "rate_limit_error", "status": 429,
        "raw": {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"},
                "request_id": "req_1"},
    }
    assert r.finished_reason is FinishReason.ERROR


def test_fields_beside_a_delta_and_after_message_stop_are_kept() -> None:
    r = started(
        Payload(None, '{"type":"content_block_delta","index":0,'
                      '"delta":{"type":"text_delta","text":"a","logprob":-0.5}}'),
        Payload(None, '{"type":"message_stop",'
                      '"amazon-bedrock-invocationMetrics":{"inputTokenCount":3}}'),
    ).response
    assert r.text == "a" and r.content[0].metadata == {"logprob": -0.5}
    assert r.metadata["amazon-bedrock-invocationMetrics"] == {"inputTokenCount": 3}


# ---------------------------------------------------------------- linear growth


@pytest.mark.parametrize("fast_decode", [True, False], ids=["fast", "general"])
def test_unknown_events_keep_linear_memory(fast_decode: bool) -> None:
    """20,000 unknown events (of a new event type, and of a new delta type in an
    open block): each event carries its own payload only, never the list so far
    (which made 0.8 MB of body cost 1.5 GB)."""
    count = 10_000
    unknown = [Payload("sparkle", json.dumps({"type": "sparkle", "n": n})) for n in range(count)]
    unknown += [Payload(None, json.dumps({"type": "content_block_delta", "index": 0,
                                          "delta": {"type": "sparkle_delta", "n": n}}))
                for n in range(count)]
    result = started(*unknown, fast_decode=fast_decode)
    kept = result.of_type(ResponseMetadata)
    assert len(kept) == 2 * count
    assert all(payloads_carried(event) == 1 for event in kept)
    assert max(objects_held(event) for event in kept) <= 6  # the wrapper, the payload
    assert len(result.response.metadata["unknown_events"]) == 2 * count
    assert result.response.metadata["unknown_events"][-1]["data"]["delta"]["n"] == count - 1
