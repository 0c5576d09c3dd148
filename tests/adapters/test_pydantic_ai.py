"""streamkit <-> pydantic-ai ModelResponse, on every recorded stream.

pydantic-ai is the oracle: the converted response goes through its own message
storage format (``ModelMessagesTypeAdapter`` JSON) before it is read back.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from pydantic_ai.messages import (
    FilePart,
    ModelMessagesTypeAdapter,
    ModelResponse,
    NativeToolCallPart,
    NativeToolReturnPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from pydantic_ai.usage import RequestUsage
from support.comparing import comparable
from support.recordings import body, fixture_id, recordings

import streamkit
from streamkit import ChatResponse, ChatUsage, FinishReason, ThinkingBlock
from streamkit.adapters.pydantic_ai import from_pydantic_ai, to_pydantic_ai

RECORDINGS = recordings()


def replayed(path: Path) -> ChatResponse:
    return streamkit.replay(body(path), on_error="return")[1]


def stored(response: ModelResponse) -> ModelResponse:
    """The response after pydantic-ai's own JSON storage round trip."""
    restored = ModelMessagesTypeAdapter.validate_json(ModelMessagesTypeAdapter.dump_json(
        [response]))[0]
    assert isinstance(restored, ModelResponse)
    return restored


@pytest.mark.parametrize("path", RECORDINGS, ids=fixture_id)
def test_round_trip_through_pydantic_ai_storage_gives_back_the_same_response(
        path: Path) -> None:
    original = replayed(path)
    back = from_pydantic_ai(stored(to_pydantic_ai(original)))
    assert comparable(back) == comparable(original)
    assert back.created_at == original.created_at


@pytest.mark.parametrize("path", RECORDINGS, ids=fixture_id)
def test_pydantic_ai_parts_hold_the_content(path: Path) -> None:
    original = replayed(path)
    response = to_pydantic_ai(original)
    assert response.provider_response_id == original.id
    assert response.model_name == original.model
    text = "".join(p.content for p in response.parts if isinstance(p, TextPart)
                   and not (p.provider_details or {})["streamkit"].get("refusal"))
    assert text == original.text
    thinking = [b for b in original.content if isinstance(b, ThinkingBlock)]
    assert [(p.content, p.signature) for p in response.parts if isinstance(p, ThinkingPart)] == [
        (b.thinking, b.signature if b.signature is not None else b.encrypted) for b in thinking]
    calls = [(p.tool_call_id, p.tool_name, p.args, isinstance(p, NativeToolCallPart))
             for p in response.parts if isinstance(p, (ToolCallPart, NativeToolCallPart))]
    assert calls == [(b.id, b.name, b.input, bool(b.metadata.get("server")))
                     for b in original.tool_calls]
    files = [(p.content.data, p.content.media_type) for p in response.parts
             if isinstance(p, FilePart)]
    assert files == [(b.data, b.media_type) for b in original.data_blocks]
    results = [p.tool_call_id for p in response.parts if isinstance(p, NativeToolReturnPart)]
    assert results == [b.call_id for b in original.content if b.type == "tool_result"]
    usage = original.usage
    if usage is None:
        assert response.usage.unmeasured_requests == 1
    else:
        # pydantic-ai's input is the whole prompt; Anthropic's leaves the cache out
        cache = (usage.cached_tokens or 0) + (usage.cache_creation_tokens or 0)
        whole_prompt = (usage.input_tokens or 0) + (cache if original.provider == "anthropic"
                                                    and usage.input_tokens is not None else 0)
        assert (response.usage.input_tokens, response.usage.output_tokens,
                response.usage.cache_read_tokens, response.usage.output_reasoning_tokens) == (
            whole_prompt, usage.output_tokens or 0, usage.cached_tokens or 0,
            usage.reasoning_tokens or 0)
    expected_finish = {"stop": "stop", "length": "length", "tool_calls": "tool_call",
                       "content_filter": "content_filter", "refusal": "content_filter",
                       "error": "error"}.get(str(original.finished_reason))
    assert response.finish_reason == expected_finish


def test_typed_citations_name_their_sources() -> None:
    path = next(p for p in RECORDINGS if p.name == "openai-responses-missing-index.sse")
    original = replayed(path)
    part = next(p for p in to_pydantic_ai(original).parts
                if isinstance(p, TextPart) and p.citations)
    citation = part.citations[0]  # type: ignore[index]
    assert citation.sources[0].url == "https://example.com"  # type: ignore[union-attr]
    assert citation.anchor is not None
    assert part.content[citation.anchor.start:citation.anchor.end]


def test_anthropic_input_tokens_include_the_cache_for_pydantic_ai() -> None:
    response = ChatResponse(provider="anthropic", is_last=True, usage=ChatUsage(
        input_tokens=10, output_tokens=3, cached_tokens=100, cache_creation_tokens=5,
        input_includes_cache=False))  # as Anthropic's reader stamps it
    usage = to_pydantic_ai(response).usage
    assert (usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens) == (115, 100, 5)
    assert from_pydantic_ai(to_pydantic_ai(response)).usage == response.usage


def test_a_pydantic_ai_response_of_its_own_converts() -> None:
    """One pydantic-ai made (no stash): every part becomes its block."""
    theirs = ModelResponse(parts=[
        ThinkingPart("hmm", signature="sig", provider_name="anthropic"),
        TextPart("Paris.", id="msg_1", provider_name="openai"),
        ToolCallPart("lookup", {"q": "x"}, "call_1"),
    ], usage=RequestUsage(input_tokens=120, output_tokens=9, cache_read_tokens=100),
        model_name="claude", provider_name="anthropic", provider_response_id="msg_9",
        finish_reason="tool_call", timestamp=datetime(2026, 1, 1, 12, 0, 0))
    mine = from_pydantic_ai(theirs)
    assert mine.id == "msg_9" and mine.model == "claude" and mine.provider == "anthropic"
    assert mine.finished_reason is FinishReason.TOOL_CALLS and mine.terminated and mine.is_last
    assert mine.thinking == "hmm" and mine.content[0].signature == "sig"  # type: ignore[union-attr]
    assert mine.text == "Paris." and mine.content[1].id == "msg_1"
    assert mine.tool_calls[0].id == "call_1" and mine.tool_calls[0].arguments() == {"q": "x"}
    assert mine.usage is not None
    assert (mine.usage.input_tokens, mine.usage.cached_tokens) == (20, 100)  # Anthropic's own
    assert mine.created_at.startswith("2026-01-01T12:00:00")
