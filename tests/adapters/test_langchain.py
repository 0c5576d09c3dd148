"""streamkit <-> LangChain AIMessage / AIMessageChunk, on every recorded stream.

LangChain itself is the oracle: its ``content_blocks`` reads our messages as
standard v1 content, and its own ``+`` sums our chunks into the final message.
"""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.utils.json import parse_partial_json
from support.comparing import comparable
from support.recordings import body, fixture_id, recordings

import streamkit
from streamkit import ChatResponse, ChatUsage, ThinkingBlock, ToolCallBlock
from streamkit.adapters.langchain import (
    aiter_ai_message_chunks,
    from_ai_message,
    iter_ai_message_chunks,
    to_ai_message,
)

RECORDINGS = recordings()
_FIELDS = ("content", "tool_calls", "invalid_tool_calls", "usage_metadata",
           "response_metadata", "id", "additional_kwargs")


def replayed(path: Path) -> tuple[list[Any], ChatResponse]:
    return streamkit.replay(body(path), on_error="return")


def summed(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    """The chunks added up by LangChain's own ``+``, one at a time as a consumer does."""
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    return total


def fields(message: AIMessage) -> dict[str, Any]:
    return {name: getattr(message, name) for name in _FIELDS}


def not_json(response: ChatResponse) -> list[ToolCallBlock]:
    """The client tool calls whose arguments are not a JSON object: cut off, or free text."""
    return [b for b in response.tool_calls
            if not b.metadata.get("server") and (b.incomplete or not _object(b.input))]


@pytest.mark.parametrize("path", RECORDINGS, ids=fixture_id)
def test_round_trip_through_an_ai_message_gives_back_the_same_response(path: Path) -> None:
    _, original = replayed(path)
    message = to_ai_message(original)
    assert message.content_blocks == message.content  # LangChain reads it as standard v1
    back = from_ai_message(message)
    assert comparable(back) == comparable(original)
    assert back.created_at == original.created_at


@pytest.mark.parametrize("path", RECORDINGS, ids=fixture_id)
def test_the_message_holds_the_content_where_langchain_users_look(path: Path) -> None:
    _, original = replayed(path)
    message = to_ai_message(original)
    calls = [b for b in original.tool_calls if not b.metadata.get("server")]
    valid = [b for b in calls if b not in not_json(original)]
    assert [(c["id"], c["name"], c["args"]) for c in message.tool_calls] == [
        (b.id, b.name, b.arguments()) for b in valid]
    assert [(c["id"], c["args"]) for c in message.invalid_tool_calls] == [
        (b.id, b.input) for b in calls if b not in valid]
    texts = [b["text"] for b in message.content_blocks if b["type"] == "text"]
    assert "".join(texts) == original.text
    reasoning = [b for b in message.content_blocks if b["type"] == "reasoning"]
    thinking = [b for b in original.content if isinstance(b, ThinkingBlock)]
    assert [(r.get("reasoning"), r.get("extras", {}).get("signature")) for r in reasoning] == [
        (t.thinking, t.signature) for t in thinking]
    for block, data in zip([b for b in message.content_blocks
                            if b["type"] in ("audio", "image", "video", "file")],
                           original.data_blocks, strict=True):
        assert base64.b64decode(block["base64"]) == data.data  # type: ignore[typeddict-item]
    if original.usage is not None:
        assert message.usage_metadata is not None
        assert message.usage_metadata["output_tokens"] == (original.usage.output_tokens or 0)


def _object(text: str) -> bool:
    try:
        return isinstance(json.loads(text or "{}"), dict)
    except ValueError:
        return False


@pytest.mark.parametrize("path", RECORDINGS, ids=fixture_id)
def test_langchain_sums_our_chunks_into_the_final_message(path: Path) -> None:
    events, final = replayed(path)
    chunks = list(iter_ai_message_chunks([*events, final]))
    assert all(isinstance(c, AIMessageChunk) for c in chunks)
    total = summed(chunks)
    expected = to_ai_message(final)
    odd = not_json(final)
    if not odd:
        assert fields(total) == fields(expected)
        assert comparable(from_ai_message(total)) == comparable(final)
        return
    # The documented differences, LangChain's doing (parse_partial_json), not the chunks':
    # cut-off JSON is repaired into a valid call; free text is an error-less invalid call.
    ids = {b.id for b in odd}
    assert [c["id"] for c in expected.invalid_tool_calls] == [b.id for b in odd]
    assert all(c["error"] for c in expected.invalid_tool_calls)
    repaired = {c["id"]: c["args"] for c in total.tool_calls if c["id"] in ids}
    assert repaired == {b.id: parse_partial_json(b.input) for b in odd if b.incomplete}
    assert [(c["id"], c["args"], c["error"]) for c in total.invalid_tool_calls] == [
        (b.id, b.input, None) for b in odd if not b.incomplete]
    assert [c for c in total.tool_calls if c["id"] not in ids] == expected.tool_calls
    others = [b for b in total.content if not (isinstance(b, dict) and b.get("id") in ids)]
    assert others == [b for b in expected.content
                      if not (isinstance(b, dict) and b.get("id") in ids)]


def test_the_recordings_have_parallel_calls_and_cut_off_calls() -> None:
    """The streaming test above meets both of LangChain's usual failures."""
    parallel = incomplete = 0
    for path in RECORDINGS:
        _, final = replayed(path)
        parallel += len(final.tool_calls) >= 2
        incomplete += any(b.incomplete for b in not_json(final))
    assert parallel >= 3 and incomplete >= 2


@pytest.mark.parametrize("path", [p for p in RECORDINGS if "parallel" in p.name], ids=fixture_id)
def test_parallel_calls_keep_their_own_ids_and_arguments(path: Path) -> None:
    """Ids are sent once and each call has its own index: LangChain's sum
    neither concatenates ids (``call_1call_1``) nor merges parallel calls."""
    events, final = replayed(path)
    total = summed(list(iter_ai_message_chunks([*events, final])))
    calls = [b for b in final.tool_calls
             if not b.metadata.get("server") and b not in not_json(final)]
    assert len(calls) >= 2
    assert [(c["id"], c["name"], c["args"]) for c in total.tool_calls] == [
        (b.id, b.name, b.arguments()) for b in calls]


def test_what_langchain_does_to_chunks_that_repeat_a_name_or_share_an_index() -> None:
    """Why each call's id and name go in its first chunk only, under its own index:
    LangChain's `+` concatenates a name sent twice, and merges two calls that share
    an index (one call named ``fg``); ours, on the same kind of stream, do neither."""
    def chunk(name: str | None, args: str, call_id: str | None) -> AIMessageChunk:
        return AIMessageChunk(content="", tool_call_chunks=[
            {"name": name, "args": args, "id": call_id, "index": 0}])

    repeated = summed([chunk("f", '{"a"', "call_1"), chunk("f", ": 1}", "call_1")])
    assert [c["name"] for c in repeated.tool_calls] == ["ff"]
    shared = summed([chunk("f", "{}", "call_1"), chunk("g", "{}", None)])
    assert len(shared.tool_calls) + len(shared.invalid_tool_calls) == 1
    path = next(p for p in RECORDINGS if p.name == "openai-chat-parallel-tools-interleaved.sse")
    events, final = replayed(path)
    ours = summed(list(iter_ai_message_chunks([*events, final])))
    assert [(c["id"], c["name"]) for c in ours.tool_calls] == [
        (b.id, b.name) for b in final.tool_calls]
    assert len(ours.tool_calls) >= 2


def test_audio_streams_as_base64_of_whole_byte_groups() -> None:
    path = next(p for p in RECORDINGS if p.name == "openai-chat-audio.sse")
    events, final = replayed(path)
    chunks = list(iter_ai_message_chunks([*events, final]))
    pieces = [block["base64"] for chunk in chunks for block in chunk.content
              if isinstance(block, dict) and block.get("type") == "audio" and block.get("base64")]
    assert len(pieces) > 2  # it streams, not one blob at the end
    assert all(len(p) % 4 == 0 and "=" not in p for p in pieces[:-1])
    assert base64.b64decode("".join(pieces)) == final.data_blocks[0].data


def test_async_streams_give_the_same_chunks() -> None:
    path = next(p for p in RECORDINGS if p.name == "tool-use.sse")
    events, final = replayed(path)

    async def items() -> Any:
        for item in [*events, final]:
            yield item

    async def collect() -> list[AIMessageChunk]:
        return [chunk async for chunk in aiter_ai_message_chunks(items())]

    assert asyncio.run(collect()) == list(iter_ai_message_chunks([*events, final]))


def test_anthropic_input_tokens_include_the_cache_for_langchain() -> None:
    response = ChatResponse(provider="anthropic", usage=ChatUsage(
        input_tokens=10, output_tokens=3, cached_tokens=100, cache_creation_tokens=5,
        reasoning_tokens=2, input_includes_cache=False))  # as Anthropic's reader stamps it
    usage = to_ai_message(response).usage_metadata
    assert usage == {"input_tokens": 115, "output_tokens": 3, "total_tokens": 118,
                     "input_token_details": {"cache_read": 100, "cache_creation": 5},
                     "output_token_details": {"reasoning": 2}}
    assert from_ai_message(to_ai_message(response)).usage == response.usage
    native = AIMessage(content="hi", usage_metadata=usage, response_metadata={
        "model_provider": "anthropic", "model_name": "claude", "finish_reason": "stop"})
    back = from_ai_message(native).usage
    assert back is not None and back.input_tokens == 10 and back.cached_tokens == 100


def test_a_plain_langchain_message_converts_through_content_blocks() -> None:
    """A message from any LangChain integration (string content, tool_calls beside it)."""
    message = AIMessage(content="Paris.", id="run-1", tool_calls=[
        {"name": "lookup", "args": {"q": "x"}, "id": "call_9", "type": "tool_call"}],
        response_metadata={"model_name": "gpt-x", "finish_reason": "tool_calls",
                           "system_fingerprint": "fp_1"})
    response = from_ai_message(message)
    assert response.id == "run-1" and response.model == "gpt-x"
    assert response.text == "Paris."
    assert [(b.id, b.name, b.arguments()) for b in response.tool_calls] == [
        ("call_9", "lookup", {"q": "x"})]
    assert response.finished_reason == "tool_calls"
    assert response.metadata == {"system_fingerprint": "fp_1"}
