"""The Accumulator: events in, responses out; snapshots, choices, usage, ends."""

from __future__ import annotations

import pytest

from streamkit import (
    Accumulator,
    BlockDelta,
    BlockEnd,
    BlockStart,
    ChatUsage,
    DataBlock,
    DataDelta,
    DeltaMismatchError,
    ErrorEvent,
    FinishReason,
    ProtocolError,
    ResponseEnd,
    ResponseStart,
    TextBlock,
    TextDelta,
    ThinkingBlock,
    ThinkingDelta,
    ToolCallBlock,
    ToolInputDelta,
    UsageUpdate,
)
from streamkit.model.events import MetadataDelta, ResponseMetadata, SignatureDelta


def test_events_build_the_response_in_order_with_snapshots() -> None:
    acc = Accumulator()
    acc.apply(ResponseStart(id="msg_1", model="m", metadata={"tier": "x"}))
    acc.apply(BlockStart(index=0, block=ThinkingBlock()))
    acc.apply(BlockDelta(index=0, delta=ThinkingDelta("hm")))
    acc.apply(BlockDelta(index=0, delta=SignatureDelta("s1")))
    acc.apply(BlockDelta(index=0, delta=SignatureDelta("s2")))
    acc.apply(BlockEnd(index=0))
    acc.apply(BlockStart(index=1, block=TextBlock()))
    delta = BlockDelta(index=1, delta=TextDelta("Hi"))
    acc.apply(delta)
    live = acc.block(1)
    assert isinstance(live, TextBlock) and live.text == "Hi"
    acc.apply(BlockEnd(index=1))
    acc.apply(UsageUpdate(usage=ChatUsage(input_tokens=5, output_tokens=1)))
    acc.apply(UsageUpdate(usage=ChatUsage(output_tokens=9)))
    acc.apply(ResponseEnd(finish_reason=FinishReason.STOP, stop_reason="end_turn"))
    r = acc.response
    assert (r.id, r.model, r.metadata) == ("msg_1", "m", {"tier": "x"})
    assert r.thinking == "hm" and r.text == "Hi"
    assert isinstance(r.content[0], ThinkingBlock) and r.content[0].signature == "s2"
    assert r.usage is not None and (r.usage.input_tokens, r.usage.output_tokens) == (5, 9)
    assert r.usage.total_tokens is None  # never invented
    assert r.finished_reason is FinishReason.STOP and r.stop_reason == "end_turn"
    assert r.is_last and r.terminated


def test_choices_accumulate_separately() -> None:
    acc = Accumulator()
    for choice, text in ((0, "zero"), (1, "one")):
        acc.apply(BlockStart(index=0, block=TextBlock(), choice=choice))
        acc.apply(BlockDelta(index=0, delta=TextDelta(text), choice=choice))
    acc.apply(ResponseEnd(finish_reason=FinishReason.LENGTH, choice=1))
    zero, one = acc.responses
    assert (zero.text, one.text) == ("zero", "one")
    assert one.finished_reason is FinishReason.LENGTH and zero.finished_reason is None


def test_snapshot_fills_what_deltas_missed_and_never_erases() -> None:
    acc = Accumulator()
    acc.apply(BlockStart(index=0, block=ToolCallBlock("c", "f")))
    acc.apply(BlockEnd(index=0, snapshot=ToolCallBlock("c", "f", '{"a": 1}')))
    acc.apply(BlockStart(index=1, block=TextBlock()))
    acc.apply(BlockDelta(index=1, delta=TextDelta("streamed fully")))
    acc.apply(BlockEnd(index=1, snapshot=TextBlock("streamed")))
    call, text = acc.response.content
    assert isinstance(call, ToolCallBlock) and call.input == '{"a": 1}'
    assert isinstance(text, TextBlock) and text.text == "streamed fully"


def test_end_without_start_uses_the_snapshot() -> None:
    acc = Accumulator()
    acc.apply(BlockEnd(index=3, snapshot=TextBlock("only in done")))
    assert acc.response.text == "only in done"


def test_delta_for_unknown_block_is_a_protocol_error() -> None:
    with pytest.raises(ProtocolError, match="block 2"):
        Accumulator().apply(BlockDelta(index=2, delta=TextDelta("x")))


def test_delta_of_the_wrong_kind_is_a_clear_error() -> None:
    acc = Accumulator()
    acc.apply(BlockStart(index=0, block=TextBlock(id="t")))
    with pytest.raises(DeltaMismatchError, match="ToolInputDelta to text block 't'"):
        acc.apply(BlockDelta(index=0, delta=ToolInputDelta("{")))


def test_metadata_data_and_errors() -> None:
    acc = Accumulator()
    acc.apply(BlockStart(index=0, block=DataBlock("a", "audio/pcm;rate=24000")))
    acc.apply(BlockDelta(index=0, delta=DataDelta(b"\x01\x02")))
    acc.apply(BlockDelta(index=0, delta=MetadataDelta({"expires_at": 1})))
    acc.apply(BlockDelta(index=0, delta=MetadataDelta({"expires_at": 2})))
    acc.apply(ResponseMetadata(metadata={"moderation": {"flagged": False}}))
    acc.apply(ErrorEvent(message="overloaded", error_type="overloaded_error"))
    r = acc.response
    assert r.data_blocks[0].data == b"\x01\x02" and r.data_blocks[0].metadata == {"expires_at": 2}
    assert r.metadata["moderation"] == {"flagged": False}
    assert r.finished_reason is FinishReason.ERROR
    assert r.metadata["error"]["message"] == "overloaded"


def test_interrupt_marks_unfinished_responses_only() -> None:
    acc = Accumulator()
    acc.apply(BlockStart(index=0, block=TextBlock(), choice=0))
    acc.apply(ResponseEnd(finish_reason=FinishReason.STOP, choice=1))
    acc.interrupt()
    zero, one = acc.responses
    assert zero.finished_reason is FinishReason.INTERRUPTED
    assert one.finished_reason is FinishReason.STOP


def test_unknown_finish_word_becomes_unknown_and_raw_is_kept() -> None:
    acc = Accumulator()
    reason = FinishReason.parse("weird")  # what a parser does with a word it does not know
    acc.apply(ResponseEnd(finish_reason=reason, stop_reason="weird", terminated=False))
    r = acc.response
    assert r.finished_reason is FinishReason.UNKNOWN and r.stop_reason == "weird"
    assert not r.terminated


def test_an_error_stays_the_finish_reason_after_a_later_end() -> None:
    acc = Accumulator()
    acc.apply(ErrorEvent(message="overloaded"))
    acc.apply(ResponseEnd(finish_reason=FinishReason.UNKNOWN, terminated=False))
    assert acc.response.finished_reason is FinishReason.ERROR and acc.response.is_last


def test_truncated_json_payload_reports_its_end_as_offset() -> None:
    from streamkit.providers import decode_json

    with pytest.raises(ProtocolError) as info:
        decode_json(b'{"type": "message_st', "message_start")
    assert info.value.offset == 20 and info.value.event == "message_start"


@pytest.mark.parametrize(("text", "cut"), [
    ('{"city": "Par', True), ('{"a": [1, 2', True), ('{"a": 1}', False), ("", False),
    ('{"a": x}', False),  # invalid before its end: not a cut-off
    ('{"a": 1}   ', False), ('{"a": "\\', True),
])
def test_cut_off_tool_json_is_marked_incomplete_for_any_provider(text: str, cut: bool) -> None:
    acc = Accumulator()
    acc.apply(BlockStart(index=0, block=ToolCallBlock("c", "f")))
    acc.apply(BlockDelta(index=0, delta=ToolInputDelta(text)))
    acc.apply(BlockEnd(index=0))
    (call,) = acc.response.tool_calls
    assert call.incomplete is cut and call.input == text


def test_custom_tool_free_text_is_never_marked() -> None:
    acc = Accumulator()
    acc.apply(BlockStart(index=0, block=ToolCallBlock("c", "sh", metadata={"custom": True})))
    acc.apply(BlockDelta(index=0, delta=ToolInputDelta('{"not json, just text')))
    acc.apply(BlockEnd(index=0))
    assert not acc.response.tool_calls[0].incomplete
