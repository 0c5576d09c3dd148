"""Inline <think> tags become thinking blocks, however the chunks are cut."""

from __future__ import annotations

import json

import pytest

from streamkit import Accumulator, BlockEnd, BlockStart, TextBlock, TextDelta, ThinkingBlock
from streamkit.model.events import BlockDelta, Event
from streamkit.model.think import ThinkTagFilter
from streamkit.reading.pipeline import Pipeline

CONTENT = "<think>The user greets me.</think>\n\nHello! <b>bold</b> text"


def chat_sse(pieces: list[str]) -> bytes:
    """A vLLM-style OpenAI Chat stream whose content arrives in ``pieces``."""
    chunks = [{"id": "c", "object": "chat.completion.chunk", "model": "qwq",
               "choices": [{"index": 0, "delta": {"role": "assistant", "content": p},
                            "finish_reason": None}]} for p in pieces]
    chunks.append({"id": "c", "object": "chat.completion.chunk", "model": "qwq",
                   "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    body = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks)
    return body + b"data: [DONE]\n\n"


def run(body: bytes, **options: object) -> list[tuple[str, str]]:
    pipeline = Pipeline("openai", **options)  # type: ignore[arg-type]
    pipeline.feed(body)
    pipeline.finish()
    out = []
    for block in pipeline.response.content:
        if isinstance(block, ThinkingBlock):
            out.append(("thinking", block.thinking))
        elif isinstance(block, TextBlock):
            out.append(("text", block.text))
    return out


# the line breaks right after </think> are dropped, as the vendors' UIs do (issue #10)
EXPECTED = [("thinking", "The user greets me."), ("text", "Hello! <b>bold</b> text")]


def test_every_two_way_split_gives_the_same_blocks() -> None:
    for cut in range(len(CONTENT) + 1):
        pieces = [p for p in (CONTENT[:cut], CONTENT[cut:]) if p]
        assert run(chat_sse(pieces), think_tags=True) == EXPECTED, cut


def test_one_character_chunks() -> None:
    assert run(chat_sse(list(CONTENT)), think_tags=True) == EXPECTED


def test_line_breaks_alone_after_the_closing_tag_open_no_text_block() -> None:
    assert run(chat_sse(["<think>a</think>", "\n", "\r\n"]), think_tags=True) == [
        ("thinking", "a")]


def test_off_by_default_for_plain_openai() -> None:
    assert run(chat_sse([CONTENT])) == [("text", CONTENT)]


def test_start_in_thinking_and_custom_tags() -> None:
    body = chat_sse(["Reasoning first", "</reason>", "Answer"])
    assert run(body, think_tags=("<reason>", "</reason>"), start_in_thinking=True) == [
        ("thinking", "Reasoning first"), ("text", "Answer")]


def test_snapshot_only_text_is_split_and_indexes_stay_consistent() -> None:
    events: list[Event] = [
        BlockStart(index=0, block=TextBlock()),
        BlockEnd(index=0, snapshot=TextBlock("<think>a</think>b")),
        BlockStart(index=1, block=TextBlock("x")),
        BlockDelta(index=1, delta=TextDelta("y")),
        BlockEnd(index=1),
    ]
    out = ThinkTagFilter().process(events)
    acc = Accumulator()
    acc.apply_all(out)
    blocks = acc.response.content
    assert [(b.type, getattr(b, "thinking", None) or getattr(b, "text", None))
            for b in blocks] == [("thinking", "a"), ("text", "b"), ("text", "xy")]
    starts = [e.index for e in out if isinstance(e, BlockStart)]
    assert starts == [0, 1, 2]


@pytest.mark.parametrize("cut", [3, 8, 20])
def test_stream_api_accepts_think_tags(cut: int) -> None:
    import streamkit

    body = chat_sse([CONTENT[:cut], CONTENT[cut:]])
    final = streamkit.stream(iter([body]), provider="vllm", think_tags=True).final()
    assert final.thinking == "The user greets me." and final.text == EXPECTED[1][1]
