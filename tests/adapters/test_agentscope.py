"""streamkit <-> agentscope 2.0.11 ChatResponse, on every recorded stream.

The round trip through agentscope gives back the same response; the losses of a
plain agentscope response (``keep_extras=False``) are exactly the documented
ones; and agentscope's own Anthropic formatter reads the thinking signatures and
redacted thinking where the adapter put them.
"""

from __future__ import annotations

import asyncio
import base64
import copy
from pathlib import Path
from typing import Any

import pytest
from agentscope.formatter import AnthropicChatFormatter
from agentscope.message import DataBlock as AsDataBlock
from agentscope.message import Msg
from agentscope.message import TextBlock as AsTextBlock
from agentscope.message import ThinkingBlock as AsThinkingBlock
from agentscope.message import ToolCallBlock as AsToolCallBlock
from agentscope.model import ChatResponse as AsChatResponse
from agentscope.model import ChatUsage as AsChatUsage
from agentscope.model._model_response import FinishedReason
from support.comparing import comparable
from support.recordings import FIXTURES, body, fixture_id, recordings

import streamkit
from streamkit import ChatResponse, ChatUsage, Citation, FinishReason, TextBlock, ToolCallBlock
from streamkit.adapters.agentscope import STASH, from_agentscope, to_agentscope

RECORDINGS = recordings()


def replayed(path: Path) -> ChatResponse:
    return streamkit.replay(body(path), on_error="return")[1]


@pytest.mark.parametrize("path", RECORDINGS, ids=fixture_id)
def test_round_trip_through_agentscope_gives_back_the_same_response(path: Path) -> None:
    original = replayed(path)
    theirs = to_agentscope(original)
    back = from_agentscope(theirs)
    assert comparable(back) == comparable(original)
    assert back.created_at == original.created_at


@pytest.mark.parametrize("path", RECORDINGS, ids=fixture_id)
def test_agentscope_holds_every_field_it_has(path: Path) -> None:
    """Without the stash, agentscope's own fields carry the content."""
    original = replayed(path)
    theirs = to_agentscope(original, keep_extras=False)
    assert isinstance(theirs, AsChatResponse)
    assert (theirs.id, theirs.created_at, theirs.is_last) == (
        original.id, original.created_at, original.is_last)
    assert theirs.metadata == original.metadata
    modelled = [b for b in original.content if b.type in ("text", "thinking", "tool_call", "data")]
    assert [b.id for b in theirs.content] == [b.id for b in modelled]
    for mine, block in zip(modelled, theirs.content, strict=True):
        if isinstance(block, AsTextBlock):
            assert block.text == mine.text  # type: ignore[union-attr]
        elif isinstance(block, AsThinkingBlock):
            assert block.thinking == mine.thinking  # type: ignore[union-attr]
            extra = block.model_extra or {}
            assert extra.get("signature") == mine.signature  # type: ignore[union-attr]
            encrypted = extra.get("redacted_thinking_data", extra.get("encrypted"))
            assert encrypted == mine.encrypted  # type: ignore[union-attr]
            assert extra.get("metadata", {}) == mine.metadata
        elif isinstance(block, AsToolCallBlock):
            assert (block.name, block.input) == (mine.name, mine.input)  # type: ignore[union-attr]
        else:
            assert isinstance(block, AsDataBlock)
            assert base64.b64decode(block.source.data) == mine.data  # type: ignore[union-attr]
            assert block.source.media_type == mine.media_type  # type: ignore[union-attr]
    expected = (FinishedReason.INTERRUPTED if original.finished_reason is FinishReason.INTERRUPTED
                else FinishedReason.COMPLETED)
    assert theirs.finished_reason == expected
    if original.usage is None:
        assert theirs.usage is None
    else:
        assert isinstance(theirs.usage, AsChatUsage)
        assert theirs.usage.input_tokens == (original.usage.input_tokens or 0)
        assert theirs.usage.output_tokens == (original.usage.output_tokens or 0)
        assert theirs.usage.cache_input_tokens == (original.usage.cached_tokens or 0)
        assert theirs.usage.cache_creation_input_tokens == (
            original.usage.cache_creation_tokens or 0)


def after_documented_losses(response: ChatResponse) -> dict[str, Any]:
    """What the module's table says a plain agentscope response cannot hold,
    removed from ``response`` (written from the table, not from the adapter)."""
    out = comparable(response)
    out["content"] = [copy.deepcopy(b) for b in out["content"]
                      if b["type"] in ("text", "thinking", "tool_call", "data")]
    for block in out["content"]:
        if block["type"] != "thinking":  # thinking keeps everything as extras
            for lost in ("metadata", "citations", "refusal", "incomplete", "transcript"):
                block.pop(lost, None)
    interrupted = response.finished_reason is FinishReason.INTERRUPTED
    out.update(model=None, stop_reason=None, provider=None,
               finished_reason="interrupted" if interrupted else None,
               terminated=response.is_last and not interrupted)
    if response.usage is not None:
        usage = response.usage
        out["usage"] = {
            "input_tokens": usage.input_tokens or 0, "output_tokens": usage.output_tokens or 0,
            "cached_tokens": usage.cached_tokens or 0,
            "cache_creation_tokens": usage.cache_creation_tokens or 0,
            "total_tokens": None, "reasoning_tokens": None, "audio_tokens": None,
            "accounting": "cumulative", "type": "chat",
            "input_includes_cache": None, "output_includes_reasoning": None,
            "raw": {"input_tokens": usage.input_tokens or 0,
                    "output_tokens": usage.output_tokens or 0, "time": 0.0,
                    "cache_creation_input_tokens": usage.cache_creation_tokens or 0,
                    "cache_input_tokens": usage.cached_tokens or 0, "type": "chat",
                    "metadata": None},
        }
    return out


@pytest.mark.parametrize("path", RECORDINGS, ids=fixture_id)
def test_a_plain_agentscope_response_loses_exactly_what_the_table_says(path: Path) -> None:
    original = replayed(path)
    back = from_agentscope(to_agentscope(original, keep_extras=False))
    assert comparable(back) == after_documented_losses(original)


def test_the_recordings_exercise_every_documented_loss() -> None:
    """The parametrized tests above are not vacuous: some recording has each field."""
    seen: set[str] = set()
    for path in RECORDINGS:
        response = replayed(path)
        for block in response.content:
            data = block.to_dict()
            seen |= {f"{block.type}.{key}" for key in data}
        seen |= {name for name in ("model", "stop_reason") if getattr(response, name)}
    assert {"text.citations", "text.refusal", "text.metadata", "tool_call.incomplete",
            "data.transcript", "raw.kind", "tool_result.call_id", "thinking.signature",
            "thinking.encrypted", "thinking.redacted", "model", "stop_reason"} <= seen


def test_agentscope_fields_streamkit_lacks_come_back_to_agentscope() -> None:
    """agentscope -> streamkit -> agentscope keeps its finished_at, tool state and
    thinking extras; only a block's created_at (a local clock reading) is new."""
    theirs = AsChatResponse(content=[
        AsThinkingBlock(thinking="hmm", id="t1", finished_at="2026-01-01T00:00:01",
                        reasoning_item_id="rs_1", reasoning_item_raw={"id": "rs_1"}),
        AsTextBlock(text="hi", id="x1"),
        AsToolCallBlock(id="c1", name="f", input='{"a": 1}', state="allowed"),
    ], is_last=True, usage=AsChatUsage(input_tokens=3, output_tokens=4, time=1.5))
    mine = from_agentscope(theirs)
    assert mine.content[0].metadata == {"agentscope": {
        "finished_at": "2026-01-01T00:00:01", "reasoning_item_id": "rs_1",
        "reasoning_item_raw": {"id": "rs_1"}}}
    assert mine.content[2].metadata == {"agentscope": {"state": "allowed"}}
    assert mine.usage is not None and mine.usage.raw["time"] == 1.5
    assert mine.terminated and mine.finished_reason is None
    again = to_agentscope(mine, keep_extras=False)

    def dumped(response: AsChatResponse) -> list[dict[str, Any]]:
        return [b.model_dump(exclude={"created_at"}) for b in response.content]

    assert dumped(again) == dumped(theirs)
    assert [b.created_at for b in again.content] != [None] * 3
    assert again.usage is not None
    assert (again.usage.input_tokens, again.usage.output_tokens, again.usage.time) == (3, 4, 1.5)


def test_stashed_fields_never_land_on_another_block_after_an_edit() -> None:
    original = ChatResponse(content=[
        TextBlock("see", id="a", citations=[Citation(url="https://example.com")]),
        ToolCallBlock("b", "f", '{"x": 1', incomplete=True),
    ])
    theirs = to_agentscope(original)
    del theirs.content[0]  # the user dropped the text block on the agentscope side
    back = from_agentscope(theirs)
    assert [b.id for b in back.content] == ["b"]
    assert back.tool_calls[0].incomplete is False  # its stash entry was for position 1


def test_unknown_counts_are_agentscope_zeros_but_come_back_unknown() -> None:
    response = ChatResponse(usage=ChatUsage(output_tokens=7, reasoning_tokens=2,
                                            raw={"x": 1}))
    theirs = to_agentscope(response)
    assert theirs.usage is not None and theirs.usage.input_tokens == 0
    assert theirs.usage.metadata is not None and theirs.usage.metadata[STASH]["unknown"] == [
        "input_tokens", "cached_tokens", "cache_creation_tokens"]
    back = from_agentscope(theirs)
    assert back.usage == response.usage


def test_agentscope_anthropic_formatter_reads_signatures_and_redacted_thinking() -> None:
    """agentscope's own formatter sends back what the adapter put on its blocks."""
    signed = replayed(FIXTURES / "anthropic" / "thinking-signature.sse")
    redacted = replayed(FIXTURES / "anthropic" / "redacted-thinking.sse")
    for response in (signed, redacted):
        message = Msg(name="assistant", role="assistant",
                      content=to_agentscope(response, keep_extras=False).content)
        formatted = asyncio.run(AnthropicChatFormatter().format([message]))
        sent = [part for turn in formatted for part in turn["content"]
                if part["type"] in ("thinking", "redacted_thinking")]
        thinking = [b for b in response.content if b.type == "thinking"]
        assert sent and len(sent) == len(thinking)
        for part, block in zip(sent, thinking, strict=True):
            if block.redacted:  # type: ignore[union-attr]
                assert part == {"type": "redacted_thinking",
                                "data": block.encrypted}  # type: ignore[union-attr]
            else:
                assert part["signature"] == block.signature  # type: ignore[union-attr]
                assert part["thinking"] == block.thinking  # type: ignore[union-attr]
