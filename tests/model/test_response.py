"""ChatResponse.append_*: agentscope's API with each of its 2.0.11 defects fixed.

Each ``test_regression_*`` names the agentscope defect it guards against.
"""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from streamkit import (
    BlockConflictError,
    ChatResponse,
    ChatUsage,
    Citation,
    DataBlock,
    FinishReason,
    TextBlock,
    ThinkingBlock,
    ToolArgumentsError,
    ToolCallBlock,
)


def test_append_text_continues_last_text_block() -> None:
    r = ChatResponse().append_text("Hel").append_text("lo")
    assert [b.type for b in r.content] == ["text"]
    assert r.text == "Hello"


def test_regression_text_after_tool_call_opens_a_new_block() -> None:
    # agentscope appends block_id=None text to the FIRST text block, so text
    # that follows a tool call is merged into the text before it.
    r = ChatResponse()
    r.append_text("Let me check.")
    r.append_tool_call("call_1", "get_weather", '{"city": "Paris"}')
    r.append_text("It is sunny.")
    assert [b.type for b in r.content] == ["text", "tool_call", "text"]
    first, _, last = r.content
    assert isinstance(first, TextBlock) and first.text == "Let me check."
    assert isinstance(last, TextBlock) and last.text == "It is sunny."


def test_explicit_block_ids_keep_their_own_text() -> None:
    r = ChatResponse()
    r.append_text("a", block_id="t1").append_text("b", block_id="t2").append_text("c", "t1")
    assert [(b.id, b.text) for b in r.content if isinstance(b, TextBlock)] == [
        ("t1", "ac"), ("t2", "b")]


def test_regression_tool_call_extra_fields_go_to_metadata() -> None:
    # agentscope does setattr on a pydantic model, which raises ValueError.
    r = ChatResponse().append_tool_call("fc_1", "search", '{"q":', call_id="call_abc")
    r.append_tool_call("fc_1", "search", '"x"}', item_id="fc_1", ignored=None)
    (call,) = r.tool_calls
    assert call.metadata == {"call_id": "call_abc", "item_id": "fc_1"}
    assert call.arguments() == {"q": "x"}


def test_regression_tool_call_id_and_name_set_once() -> None:
    r = ChatResponse()
    r.append_tool_call("call_1", "get_weather", '{"city"')
    r.append_tool_call("call_1", "get_weather", ': "Oslo"}')
    r.append_tool_call("call_1", "", "")
    (call,) = r.tool_calls
    assert (call.id, call.name, call.input) == ("call_1", "get_weather", '{"city": "Oslo"}')


def test_regression_parallel_tool_calls_stay_separate() -> None:
    r = ChatResponse()
    r.append_tool_call("call_1", "a", '{"x":')
    r.append_tool_call("call_2", "b", '{"y":')
    r.append_tool_call("call_1", "a", "1}")
    r.append_tool_call("call_2", "b", "2}")
    assert [(c.id, c.arguments()) for c in r.tool_calls] == [("call_1", {"x": 1}),
                                                            ("call_2", {"y": 2})]


def test_regression_signature_replaces_never_appends() -> None:
    r = ChatResponse()
    r.append_thinking("Let me", signature="sig-part")
    r.append_thinking(" think.", signature="sig-final")
    (block,) = r.content
    assert isinstance(block, ThinkingBlock)
    assert (block.thinking, block.signature) == ("Let me think.", "sig-final")


def test_append_thinking_keeps_other_extras_and_opaque_data() -> None:
    r = ChatResponse().append_thinking("", "rs_1", encrypted="gAAA==", reasoning_item_id="rs_1")
    (block,) = r.content
    assert isinstance(block, ThinkingBlock)
    assert block.encrypted == "gAAA=="
    assert block.metadata == {"reasoning_item_id": "rs_1"}


def test_regression_reused_id_with_other_kind_raises() -> None:
    # agentscope silently creates a second block with the same id.
    r = ChatResponse().append_text("hi", block_id="b1")
    with pytest.raises(BlockConflictError, match="'b1' is a text block"):
        r.append_tool_call("b1", "f", "{}")
    with pytest.raises(BlockConflictError, match="b1"):
        r.append_data_block("b1", b"\x00", "audio/pcm")
    assert len(r.content) == 1


def test_regression_reused_data_id_with_other_media_type_raises() -> None:
    r = ChatResponse().append_data_block("a1", b"\x01\x02", "audio/pcm;rate=24000")
    with pytest.raises(BlockConflictError, match="audio/mpeg"):
        r.append_data_block("a1", b"\x03", "audio/mpeg")
    assert len(r.content) == 1 and r.data_blocks[0].data == b"\x01\x02"


def test_append_data_block_appends_bytes_without_base64_round_trips() -> None:
    r = ChatResponse()
    for i in range(10):
        r.append_data_block("a1", bytes([i]) * 4, "audio/pcm;rate=24000")
    (block,) = r.data_blocks
    assert block.data == b"".join(bytes([i]) * 4 for i in range(10))
    assert block.source.media_type == "audio/pcm;rate=24000"


def test_refusal_text_is_distinguishable() -> None:
    r = ChatResponse(content=[TextBlock("I can't help with that.", refusal=True)])
    r.append_text("ordinary")
    assert r.refusal == "I can't help with that."
    assert r.text == "ordinary"
    assert [b.refusal for b in r.content if isinstance(b, TextBlock)] == [True, False]


def test_regression_append_chat_response_keeps_everything() -> None:
    # agentscope keeps only usage: metadata, finish reason and is_last are dropped,
    # and a delta with two blocks of one id loses the first.
    r = ChatResponse(usage=ChatUsage(input_tokens=10, output_tokens=1))
    r.append_text("Hel", block_id="t1")
    delta = ChatResponse(
        content=[TextBlock("lo", id="t1"), TextBlock(" world", id="t1"),
                 ToolCallBlock("c1", "f", "{}")],
        is_last=True,
        usage=ChatUsage(output_tokens=5),
        finished_reason=FinishReason.TOOL_CALLS,
        metadata={"system_fingerprint": "fp_1"},
        stop_reason="tool_calls",
    )
    r.append_chat_response(delta)
    assert r.text == "Hello world"
    assert [b.id for b in r.content] == ["t1", "c1"]
    assert r.is_last and r.finished_reason is FinishReason.TOOL_CALLS
    assert r.metadata == {"system_fingerprint": "fp_1"} and r.stop_reason == "tool_calls"
    assert r.usage is not None
    assert (r.usage.input_tokens, r.usage.output_tokens) == (10, 5)


def test_append_chat_response_additive_usage_sums() -> None:
    r = ChatResponse(usage=ChatUsage(input_tokens=3, output_tokens=4, accounting="additive"))
    r.append_chat_response(ChatResponse(usage=ChatUsage(output_tokens=6, accounting="additive")))
    assert r.usage is not None
    assert (r.usage.input_tokens, r.usage.output_tokens) == (3, 10)


def test_append_chat_response_audio_appends_images_replace() -> None:
    r = ChatResponse()
    r.append_data_block("a", b"\x01\x02", "audio/pcm;rate=24000")
    r.append_data_block("img", b"PNG-partial-1", "image/png")
    delta = ChatResponse(content=[
        DataBlock("a", "audio/pcm;rate=24000", source=None),
        DataBlock("img", "image/png"),
    ])
    delta.content[0].append_bytes(b"\x03\x04")  # type: ignore[union-attr]
    delta.content[1].append_bytes(b"PNG-partial-2")  # type: ignore[union-attr]
    r.append_chat_response(delta)
    assert [b.data for b in r.data_blocks] == [b"\x01\x02\x03\x04", b"PNG-partial-2"]


def test_append_chat_response_copies_new_blocks() -> None:
    delta = ChatResponse(content=[TextBlock("x", id="t")])
    r = ChatResponse().append_chat_response(delta)
    delta.append_text("y", "t")
    assert r.text == "x"


def test_tool_arguments_parse_and_validate() -> None:
    class Weather(BaseModel):
        city: str
        days: int = 1

    call = ToolCallBlock("c", "weather", '{"city": "Lima", "days": 3}')
    assert call.arguments() == {"city": "Lima", "days": 3}
    assert call.arguments(Weather) == Weather(city="Lima", days=3)
    assert ToolCallBlock("c", "noargs", "").arguments() == {}


def test_invalid_tool_arguments_name_the_tool_and_offset() -> None:
    call = ToolCallBlock("c1", "weather", '{"city": Lima}')
    with pytest.raises(ToolArgumentsError) as info:
        call.arguments()
    assert info.value.tool == "weather" and info.value.offset == 9
    assert "weather" in str(info.value) and "offset 9" in str(info.value)
    assert call.input == '{"city": Lima}'  # the raw text is kept


def test_pcm_duration_and_wav() -> None:
    block = DataBlock("a", "audio/pcm;rate=24000")
    block.append_bytes(b"\x00\x01" * 12000)
    assert block.duration == pytest.approx(0.5)
    wav = block.to_wav()
    assert wav[:4] == b"RIFF" and wav[8:12] == b"WAVE"
    assert int.from_bytes(wav[24:28], "little") == 24000
    assert wav[44:] == block.data
    gemini = DataBlock("g", "audio/L16;codec=pcm;rate=16000")
    gemini.append_bytes(b"\x00" * 32000)
    assert gemini.duration == pytest.approx(1.0)
    assert DataBlock("i", "image/png").duration is None
    with pytest.raises(ValueError, match="PCM"):
        DataBlock("i", "image/png").to_wav()


def test_base64_is_produced_lazily_and_cached() -> None:
    block = DataBlock("a", "audio/pcm")
    block.append_bytes(b"abc")
    first = block.source.data  # type: ignore[union-attr]
    assert first == "YWJj" and block.source.data is first  # type: ignore[union-attr]
    block.append_bytes(b"d")
    assert block.source.data == "YWJjZA=="  # type: ignore[union-attr]


def test_serialisation_round_trip_with_every_block_kind() -> None:
    from streamkit import RawBlock, ToolResultBlock, URLSource

    r = ChatResponse(model="m", stop_reason="end_turn", finished_reason=FinishReason.STOP,
                     usage=ChatUsage(input_tokens=1, raw={"x": 1}), is_last=True, terminated=True)
    r.append_thinking("hmm", signature="s", encrypted="e")
    r.append_text("hi").content[-1].citations.append(Citation(url="u"))  # type: ignore[union-attr]
    r.append_tool_call("c", "f", '{"a":1}', item_id="i")
    r.append_data_block("d", bytes(range(256)), "audio/pcm;rate=24000", name="speech")
    r.add_block(DataBlock("u", source=URLSource("https://example.com/x.png", "image/png")))
    r.add_block(ToolResultBlock("c", [TextBlock("ok")], is_error=True))
    r.add_block(RawBlock("web_search_call", {"id": "ws_1", "status": "completed"}))
    for back in (ChatResponse.from_json(r.to_json()), ChatResponse.from_dict(r.to_dict())):
        assert back == r
        assert back.data_blocks[0].data == bytes(range(256))
        assert back.id == r.id and back.usage == r.usage
