"""Every encoder is linear in every count it keeps a list or an index over.

An upstream answer of 16,000 small blocks cost a Responses caller 21.6 s (a
Chat caller 1.0 s): the Responses encoder walked every earlier item and every
earlier part of an item at each new block. Each probe here grows one dimension
of an answer (blocks, items, open calls, deltas, citations, kept events,
choices...) and checks that 4x of it costs at most 8x the CPU time
(:func:`support.growth.assert_linear`), for each wire's stream encoder, the
browser's UI message stream and each wire's body (:func:`streamkit.encode_response`).
The events are built before the clock starts: only the encoder is timed.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from support.encode_matrix import TARGETS
from support.growth import assert_linear

from streamkit import ChatResponse, FinishReason, encode_response, encode_stream
from streamkit.model.blocks import Citation, RawBlock, TextBlock, ThinkingBlock, ToolCallBlock
from streamkit.model.events import (
    BlockDelta,
    BlockEnd,
    BlockStart,
    CitationDelta,
    Event,
    MetadataAppendDelta,
    ResponseEnd,
    ResponseMetadata,
    ResponseStart,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
    UsageUpdate,
)
from streamkit.model.usage import ChatUsage
from streamkit.web import UIMessageStreamEncoder

#: The stream encoders: each wire's (Gemini's JSON array form too) and the browser's.
ENCODERS = [*TARGETS, "gemini-array", "ui"]
_END = ResponseEnd(finish_reason=FinishReason.STOP)
_CITATION = Citation(url="https://example.com/", title="t", start=0, end=1)
_LOGPROB = {"token": "x", "logprob": -0.5, "bytes": [120], "top_logprobs": []}


@pytest.fixture(scope="module", autouse=True)
def _frozen_heap() -> Iterator[None]:
    """The objects the process holds before the probes are left out of the
    garbage collector's walks while they run (:func:`gc.freeze`): with the
    official SDKs imported, each full collection the probes' garbage set
    off walked them all (0.2 s), more than the probes themselves cost."""
    gc.collect()
    gc.freeze()
    yield
    gc.unfreeze()


def _block(index: int, block: Any, *deltas: Any) -> list[Event]:
    return [BlockStart(index=index, block=block),
            *(BlockDelta(index=index, delta=delta) for delta in deltas), BlockEnd(index=index)]


def _one_block(*deltas: Any, block: Any = None) -> list[Event]:
    return _block(0, block if block is not None else TextBlock(), *deltas)


#: dimension -> (events of an answer of size n, whether they are read from the
#: wire they are written to: only then are kept fields written back).
DIMENSIONS: dict[str, tuple[Callable[[int], list[Event]], bool]] = {
    "text blocks": (lambda n: [event for i in range(n) for event in _block(i, TextBlock())],
                    False),
    "text and reasoning by turns": (lambda n: [event for i in range(n) for event in (
        _block(i, TextBlock(), TextDelta("x")) if i % 2
        else _block(i, ThinkingBlock(), ThinkingDelta("x")))], False),
    "tool calls open at once": (lambda n: [
        *(BlockStart(index=i, block=ToolCallBlock(f"c{i}", "f")) for i in range(n)),
        *(BlockDelta(index=i, delta=ToolInputDelta('{"a":1}')) for i in range(n)),
        *(BlockEnd(index=i) for i in range(n))], False),
    "blocks open at the end": (lambda n: [
        *(BlockStart(index=i, block=TextBlock()) for i in range(n)),
        *(BlockDelta(index=i, delta=TextDelta("x")) for i in range(n))], False),
    "text deltas": (lambda n: _one_block(*[TextDelta("x")] * n), False),
    "argument deltas": (lambda n: _one_block(
        ToolInputDelta("["), *[ToolInputDelta("1,")] * n, ToolInputDelta("1]"),
        block=ToolCallBlock("c", "f")), False),
    "citations": (lambda n: _one_block(TextDelta("x"), *[CitationDelta(_CITATION)] * n), True),
    "logprobs appended": (lambda n: _one_block(
        *[MetadataAppendDelta("logprobs", [_LOGPROB])] * n), True),
    "provider items": (lambda n: [event for i in range(n) for event in _block(
        i, RawBlock("web_search_call", {"id": f"ws_{i}", "type": "web_search_call",
                                        "status": "completed",
                                        "action": {"type": "search"}}))], True),
    "metadata events": (lambda n: [ResponseMetadata(metadata={"service_tier": str(i)})
                                   for i in range(n)], True),
    "usage updates": (lambda n: [UsageUpdate(usage=ChatUsage(input_tokens=i, output_tokens=i))
                                 for i in range(n)], False),
}


def _answer(target: str, n: int, dimension: str) -> list[Event]:
    make, own = DIMENSIONS[dimension]
    provider = TARGETS.get(target.removesuffix("-array")) if own and target != "ui" else None
    return [ResponseStart(id="r", model="m", provider=provider), *make(n), _END]


def _kept_events(target: str, n: int) -> list[Event]:
    """An answer of this wire whose reader kept ``n`` events it did not know."""
    kept = [{"event": "vendor.note", "data": {"type": "vendor.note", "n": i}} for i in range(n)]
    return [ResponseStart(id="r", model="m", provider=TARGETS[target],
                          metadata={"unknown_events": kept}), _END]


def _choices(n: int) -> list[Event]:
    """``n`` choices, each with a block still open when every choice ends."""
    starts = [event for choice in range(n) for event in (
        ResponseStart(id="r", model="m", choice=choice),
        BlockStart(index=0, block=TextBlock(), choice=choice),
        BlockDelta(index=0, delta=TextDelta("x"), choice=choice))]
    return starts + [ResponseEnd(finish_reason=FinishReason.STOP, choice=choice)
                     for choice in range(n)]


def _encoding(target: str, events: list[Event]) -> Callable[[], Any]:
    if target == "ui":
        def browser() -> None:
            encoder = UIMessageStreamEncoder()
            for event in events:
                encoder.encode(event)
            encoder.finish()
        return browser
    options = {"array": True} if target == "gemini-array" else {}
    provider = TARGETS[target.removesuffix("-array")]
    return lambda: b"".join(encode_stream(provider, events, **options))


@pytest.mark.parametrize("dimension", list(DIMENSIONS))
@pytest.mark.parametrize("target", ENCODERS)
def test_a_stream_costs_linear_time_in(target: str, dimension: str) -> None:
    assert_linear(lambda n: _encoding(target, _answer(target, n, dimension)), 300)


@pytest.mark.parametrize("target", ["openai-chat", "openai-responses"])
def test_a_stream_costs_linear_time_in_kept_unknown_events(target: str) -> None:
    """The wires whose readers keep events they do not know write them back."""
    assert_linear(lambda n: _encoding(target, _kept_events(target, n)), 2000)


@pytest.mark.parametrize("target", ["openai-chat", "gemini", "gemini-array", "ui"])
def test_a_stream_costs_linear_time_in_choices(target: str) -> None:
    """The wires that have choices (the browser's stream shows one of them)."""
    assert_linear(lambda n: _encoding(target, _choices(n)), 200)


def _body_of(n: int, *, logprobs: bool) -> ChatResponse:
    """An answer of ``n`` blocks of every kind a body holds, or of ``n`` text
    blocks each with its logprobs (an answer of the wire, as Chat reads one)."""
    if logprobs:
        return ChatResponse(content=[TextBlock("x", metadata={"logprobs": [_LOGPROB]})
                                     for _ in range(n)], finished_reason=FinishReason.STOP)
    kinds = (lambda i: TextBlock("x"), lambda i: ThinkingBlock("x"),
             lambda i: ToolCallBlock(f"c{i}", "f", '{"a":1}'),
             lambda i: TextBlock("x", citations=[_CITATION]))
    return ChatResponse(content=[kinds[i % 4](i) for i in range(n)],
                        finished_reason=FinishReason.TOOL_CALLS)


#: Each wire's body of many blocks; the bodies that write each block's logprobs.
BODIES = [(target, False) for target in TARGETS] + [
    ("openai-chat", True), ("openai-responses", True)]


@pytest.mark.parametrize(("target", "logprobs"), BODIES,
                         ids=[f"{target}-{'logprobs' if logprobs else 'blocks'}"
                              for target, logprobs in BODIES])
def test_a_body_costs_linear_time_in(target: str, logprobs: bool) -> None:
    def make(n: int) -> Callable[[], Any]:
        response = _body_of(n, logprobs=logprobs)
        return lambda: encode_response(TARGETS[target], response)

    assert_linear(make, 200)
