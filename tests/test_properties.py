"""Hypothesis properties of the foundation: splitting never changes the result,
events and append_* calls agree, and serialisation is lossless."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from streamkit import (
    Accumulator,
    BlockDelta,
    BlockStart,
    ChatResponse,
    ChatUsage,
    DataBlock,
    DataDelta,
    Event,
    TextBlock,
    TextDelta,
    ThinkingBlock,
    ThinkingDelta,
    ToolCallBlock,
    ToolInputDelta,
)

json_texts = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=10,
).map(lambda v: __import__("json").dumps(v))


def split(data: Any, cuts: list[int]) -> list[Any]:
    """``data`` cut at the given positions (sorted, clipped, duplicates allowed)."""
    points = sorted({min(max(c, 0), len(data)) for c in cuts})
    edges = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(edges)]


@given(st.text(), st.lists(st.integers(0, 200), max_size=20))
def test_text_in_any_fragments_equals_one_append(text: str, cuts: list[int]) -> None:
    whole = ChatResponse().append_text(text, "t")
    pieces = ChatResponse()
    for piece in split(text, cuts):
        pieces.append_text(piece, "t")
        assert text.startswith(pieces.text)  # reading mid-stream sees a prefix
    assert pieces.text == whole.text == text


@given(json_texts, st.lists(st.integers(0, 200), max_size=20))
def test_tool_json_in_any_fragments_equals_one_append(doc: str, cuts: list[int]) -> None:
    r = ChatResponse()
    for piece in split(doc, cuts):
        r.append_tool_call("c", "f", piece)
    (call,) = r.tool_calls
    assert call.input == doc
    assert call.arguments() == __import__("json").loads(doc)


@given(st.binary(max_size=3000), st.lists(st.integers(0, 3000), max_size=30))
def test_bytes_in_any_fragments_equal_one_append(data: bytes, cuts: list[int]) -> None:
    r = ChatResponse()
    for piece in split(data, cuts):
        r.append_data_block("a", piece, "audio/pcm;rate=24000")
    if data:
        assert r.data_blocks[0].data == data
        assert r.data_blocks[0].source.data == __import__("base64").b64encode(data).decode()  # type: ignore[union-attr]


# One block of each kind, each with its own fragments; the events interleave
# the fragments of different blocks in any order (a valid order keeps each
# block's own fragments in sequence).
block_fragments = st.tuples(
    st.lists(st.text(min_size=1), min_size=1, max_size=5),
    st.lists(st.text(min_size=1), min_size=1, max_size=5),
    st.lists(st.text(min_size=1), min_size=1, max_size=5),
    st.lists(st.binary(min_size=1), min_size=1, max_size=5),
)


@given(block_fragments, st.randoms(use_true_random=False))
def test_events_in_any_valid_order_equal_append_calls(frags: Any, rnd: Any) -> None:
    thinking, text, tool, audio = frags
    expected = ChatResponse()
    for piece in thinking:
        expected.append_thinking(piece, "th")
    for piece in text:
        expected.append_text(piece, "tx")
    for piece in tool:
        expected.append_tool_call("tc", "f", piece)
    for piece in audio:
        expected.append_data_block("da", piece, "audio/pcm;rate=24000")

    starts: list[Event] = [
        BlockStart(index=0, block=ThinkingBlock(id="th")),
        BlockStart(index=1, block=TextBlock(id="tx")),
        BlockStart(index=2, block=ToolCallBlock("tc", "f")),
        BlockStart(index=3, block=DataBlock("da", "audio/pcm;rate=24000")),
    ]
    queues: list[list[Event]] = [
        [BlockDelta(index=0, delta=ThinkingDelta(p)) for p in thinking],
        [BlockDelta(index=1, delta=TextDelta(p)) for p in text],
        [BlockDelta(index=2, delta=ToolInputDelta(p)) for p in tool],
        [BlockDelta(index=3, delta=DataDelta(p)) for p in audio],
    ]
    acc = Accumulator()
    acc.apply_all(starts)
    while any(queues):
        queue = rnd.choice([q for q in queues if q])
        acc.apply(queue.pop(0))
    got = acc.response
    assert [b.to_dict() for b in got.content] == [b.to_dict() for b in expected.content]


responses = st.builds(
    lambda texts, tool, data, usage: _build(texts, tool, data, usage),
    st.lists(st.text(), max_size=3),
    json_texts,
    st.binary(max_size=500),
    st.none() | st.builds(ChatUsage, input_tokens=st.none() | st.integers(0, 10**6),
                          output_tokens=st.none() | st.integers(0, 10**6)),
)


def _build(texts: list[str], tool: str, data: bytes, usage: ChatUsage | None) -> ChatResponse:
    r = ChatResponse(usage=usage, metadata={"k": texts})
    for t in texts:
        r.append_text(t)
        r.append_thinking(t, signature=t or None)
    r.append_tool_call("c", "f", tool, call_id="x")
    r.append_data_block("d", data, "audio/pcm;rate=24000")
    return r


@settings(max_examples=60)
@given(responses)
def test_json_round_trip_is_lossless(r: ChatResponse) -> None:
    back = ChatResponse.from_json(r.to_json())
    assert back == r
    assert back.to_dict() == r.to_dict()
