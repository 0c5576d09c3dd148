"""A scripted answer the encoder tests of several wires write: reasoning with its
signature, text, then two parallel calls of one tool (a wire's test may add
blocks of its own, such as an image)."""

from __future__ import annotations

from streamkit import (
    ChatResponse,
    ChatUsage,
    DataBlock,
    FinishReason,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)


def two_city_answer(provider: str | None, *more: DataBlock) -> ChatResponse:
    """The answer of a model that reasons, says so, and asks for the weather of
    Paris and of Rome at once (then ``more``); 20 tokens in, 5 of them cached,
    30 out."""
    return ChatResponse(
        id="msg_scripted", model="scripted-1", provider=provider, is_last=True, terminated=True,
        content=[ThinkingBlock("Two cities: call twice.", id="th", signature="sig-1"),
                 TextBlock("Checking both.", id="tx"),
                 ToolCallBlock("call_a", "weather", '{"city": "Paris"}'),
                 ToolCallBlock("call_b", "weather", '{"city": "Rome"}'), *more],
        usage=ChatUsage(input_tokens=20, output_tokens=30, cached_tokens=5),
        finished_reason=FinishReason.TOOL_CALLS, stop_reason=None)
