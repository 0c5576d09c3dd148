"""GeminiParser: every recorded Gemini stream and the synthetic TTS stream,
checked field by field, plus the edge cases of the spec."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from native_helpers import (
    EDGE,
    FIXTURES,
    check_event_contract,
    comparable,
    payloads,
    replay_bytes,
    run,
    run_file,
)

import streamkit
from streamkit import (
    BlockDelta,
    DataBlock,
    FinishReason,
    ProtocolError,
    ProviderError,
    RawBlock,
    ResponseEnd,
    ResponseMetadata,
    TextBlock,
    TextDelta,
    ThinkingBlock,
    ToolCallBlock,
    URLSource,
    UsageUpdate,
)
from streamkit.providers import get_parser
from streamkit.providers.gemini import GeminiParser, map_finish_reason
from streamkit.response import ChatResponse

GEMINI = FIXTURES / "gemini"
TTS = FIXTURES / "synthetic" / "gemini-tts-inline-audio.sse"
PCM_SHA256 = "4cd1edd3d9c943ae1156b41d4fe25dc1f56dd32b1296afcddf5a1e8d719b8cee"
RECORDED = [*sorted(GEMINI.iterdir()), TTS]
ALL = [*RECORDED, *sorted(EDGE.glob("gemini-*"))]
GENERATED_CALL_ID = r"^call_[0-9a-f]{24}$"


def parse(path: Path) -> ChatResponse:
    events, response = run_file(GeminiParser(), path)
    check_event_contract(events)
    return response


def chunk(parts: list[dict[str, Any]], **candidate: Any) -> str:
    """One Gemini chunk with a single candidate."""
    return json.dumps({"candidates": [{"content": {"parts": parts, "role": "model"},
                                       **candidate}],
                       "modelVersion": "gemini-test", "responseId": "r1"})


def run_chunks(*chunks: str) -> tuple[list[Any], ChatResponse]:
    events, acc = run(GeminiParser(), [(c, None) for c in chunks])
    check_event_contract(events)
    return events, acc.response


# ---------------------------------------------------------------- recorded fixtures


def test_text() -> None:
    r = parse(GEMINI / "text.sse")
    assert r.id == "w1peaMz6INOvnvgPgYfPiQY" and r.model == "gemini-2.0-flash-exp"
    assert len(r.content) == 1 and isinstance(r.content[0], TextBlock)
    assert r.text == "The capital of France is Paris.\n"  # three parts, one block
    assert r.usage is not None  # the last cumulative snapshot
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.total_tokens) == (13, 8, 21)
    assert r.usage.reasoning_tokens is None and r.usage.cached_tokens is None
    assert r.usage.raw["candidatesTokensDetails"] == [{"modality": "TEXT", "tokenCount": 8}]
    assert r.finished_reason is FinishReason.STOP and r.stop_reason == "STOP"
    assert r.terminated and r.metadata == {}


def test_text_chunk_is_exactly_one_event_despite_usage_on_every_chunk() -> None:
    parser = GeminiParser()
    first, second, _ = payloads(GEMINI / "text.sse")
    parser.feed(*first)
    out = parser.feed(*second)
    assert len(out) == 1
    assert isinstance(out[0], BlockDelta) and out[0].delta == TextDelta(" capital of France")


def test_thinking_thought_parts_and_signature_on_first_answer_part() -> None:
    r = parse(GEMINI / "thinking-thought-parts.sse")
    assert r.id == "beHBaJfEMIi-qtsP3769-Q8" and r.model == "gemini-2.5-pro"
    thinking, text = r.content
    assert isinstance(thinking, ThinkingBlock) and isinstance(text, TextBlock)
    assert len(thinking.thinking) == 1575
    assert thinking.thinking.startswith("**Clarifying User Goals**\n\nI'm currently focused")
    assert "**Developing a Safety Protocol**" in thinking.thinking
    assert thinking.thinking.endswith("regardless of specific circumstances or locations.\n\n\n")
    assert thinking.signature is None  # the signature came on the answer's part
    assert len(text.text) == 1938
    assert text.text.startswith("This is a great question! Safely crossing the street")
    assert text.text.endswith("Always assume a driver might not see you.")
    sig = text.metadata["signature"]
    assert len(sig) == 6152
    assert sig.startswith("CiIB0e2Kb6Syj1a961EfbWv4") and sig.endswith("rw7oTiOIFZ1EgMKlqm/dH8k=")
    assert r.usage is not None
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.total_tokens) == (34, 469, 1290)
    assert r.usage.reasoning_tokens == 787
    assert r.finished_reason is FinishReason.STOP


def test_function_call_with_thought_signature_and_empty_trailing_part() -> None:
    r = parse(GEMINI / "function-call-thought-signature.sse")
    assert r.id == "QUVVadTSNJ6_qtsPvN7J8Q0" and r.model == "gemini-3-pro-preview"
    assert len(r.content) == 1  # the empty trailing text part creates nothing
    call = r.content[0]
    assert isinstance(call, ToolCallBlock)
    assert call.name == "get_country" and call.input == "{}" and call.arguments() == {}
    assert not call.incomplete
    assert re.match(GENERATED_CALL_ID, call.id)  # Gemini sent no id: a generated one
    sig = call.metadata["signature"]
    assert len(sig) == 1408
    assert sig.startswith("EpwICpkIAXLI2nxlU6gsWZaZ") and sig.endswith("7NoL5owonoBDAXOk15QuFyU=")
    assert r.usage is not None
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.total_tokens) == (29, 10, 241)
    assert r.usage.reasoning_tokens == 202
    # STOP after a function call is a tool-call stop; the raw reason is kept
    assert r.finished_reason is FinishReason.TOOL_CALLS and r.stop_reason == "STOP"


def test_vertex_partial_args_are_assembled_as_they_stream() -> None:
    path = GEMINI / "vertex-function-call-partialArgs.chunks.jsonl"
    events, r = run_file(GeminiParser(), path)
    check_event_contract(events)
    assert r.id == "dqHOab6xGLzWodAPkPuViA4" and r.model == "gemini-3.1-pro-preview"
    first, second = r.content
    assert isinstance(first, ToolCallBlock) and isinstance(second, ToolCallBlock)
    assert (first.name, first.arguments()) == ("getWeather", {"location": "Boston"})
    assert (second.name, second.arguments()) == ("getWeather", {"location": "San Francisco"})
    assert first.id != second.id
    assert not first.incomplete and not second.incomplete
    sig = first.metadata["signature"]
    assert len(sig) == 1032 and sig.startswith("CiMBjz1rX25KieIB4d4AwFn8")
    assert "signature" not in second.metadata
    assert r.metadata == {"createTime": "2026-04-02T17:03:50.399550Z"}
    assert r.usage is not None
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.total_tokens) == (26, 23, 181)
    assert r.usage.reasoning_tokens == 132 and r.usage.raw["trafficType"] == "ON_DEMAND"
    assert r.finished_reason is FinishReason.TOOL_CALLS
    # the argument text streamed as deltas, not only as an end snapshot
    fragments = [e.delta.partial_json for e in events
                 if isinstance(e, BlockDelta) and e.index == 0
                 and hasattr(e.delta, "partial_json")]
    assert "".join(fragments) == first.input and len(fragments) > 1


def test_tts_inline_audio_gives_back_the_exact_pcm() -> None:
    r = parse(TTS)
    assert r.id == "synthetic-tts-1" and r.model == "gemini-2.5-flash-preview-tts"
    assert len(r.content) == 1  # 34 parts of one media type: one block
    audio = r.content[0]
    assert isinstance(audio, DataBlock)
    assert audio.media_type == "audio/L16;codec=pcm;rate=24000"
    assert len(audio.data) == 322604
    assert hashlib.sha256(audio.data).hexdigest() == PCM_SHA256
    assert audio.duration == pytest.approx(322604 / 48000)
    assert audio.transcript == ""  # Gemini TTS sends no transcript in the stream
    assert r.usage is not None
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.total_tokens) == (12, 340, 352)
    assert r.finished_reason is FinishReason.STOP and r.terminated


# ---------------------------------------------------------------- every fixture


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_payload_at_a_time_equals_the_byte_pipeline(path: Path) -> None:
    events, acc = run(GeminiParser(), payloads(path))
    check_event_contract(events)
    assert comparable(acc.response) == comparable(replay_bytes(path, "gemini"))


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.name)
def test_auto_detection_picks_gemini(path: Path) -> None:
    assert comparable(replay_bytes(path, "auto", size=512)) == comparable(parse(path))


def test_registry_builds_the_parser() -> None:
    parser = get_parser("gemini")
    assert isinstance(parser, GeminiParser)
    assert (parser.name, parser.framing) == ("gemini", "sse")


# ---------------------------------------------------------------- edge fixtures


def test_mixed_parts_parallel_calls_and_trailing_signature() -> None:
    events, r = run_file(GeminiParser(), EDGE / "gemini-mixed-parts-parallel-calls.sse")
    check_event_contract(events)
    thinking, text, weather, clock, code, result, image, done = r.content
    assert isinstance(thinking, ThinkingBlock)
    assert (thinking.thinking, thinking.signature) == ("Let me think.", "c2lnLXRoaW5r")
    assert isinstance(text, TextBlock) and text.text == "Plan: check weather."
    # the signature of the empty trailing part attaches to the preceding block
    assert text.metadata == {"signature": "c2lnLXRyYWlsaW5n"}
    assert isinstance(weather, ToolCallBlock) and isinstance(clock, ToolCallBlock)
    assert (weather.name, weather.arguments()) == ("get_weather", {"city": "Paris", "days": 2})
    assert weather.metadata == {"signature": "c2lnLWNhbGw="}
    assert (clock.id, clock.name, clock.arguments()) == ("call-given-2", "get_time",
                                                         {"tz": "Europe/Paris"})
    assert isinstance(code, RawBlock) and code.kind == "executableCode"
    assert code.data == {"executableCode": {"language": "PYTHON", "code": "print(1 + 1)"}}
    assert isinstance(result, RawBlock) and result.kind == "codeExecutionResult"
    assert result.data["codeExecutionResult"]["output"] == "2\n"
    assert isinstance(image, DataBlock) and image.media_type == "image/png"
    assert image.data == b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
    assert isinstance(done, TextBlock) and done.text == "Done"
    assert done.metadata == {"futurePartField": {"x": 1}}  # unknown part field kept
    assert done.citations == [{"startIndex": 0, "endIndex": 4, "uri": "https://example.com/done"}]
    assert r.metadata == {
        "sdkEnvelope": {"region": "eu"},  # unknown top-level key kept
        "safetyRatings": [{"category": "HARM_CATEGORY_HARASSMENT", "probability": "LOW"}],
    }
    # safetyRatings repeated unchanged on chunk 2 is not re-reported
    assert sum(1 for e in events if isinstance(e, ResponseMetadata)
               and "safetyRatings" in e.metadata) == 2
    assert r.usage is not None  # from the usage-only chunk after the finishReason
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.total_tokens) == (40, 33, 91)
    assert (r.usage.cached_tokens, r.usage.reasoning_tokens) == (16, 12)
    assert r.usage.raw["toolUsePromptTokenCount"] == 6
    assert r.finished_reason is FinishReason.TOOL_CALLS and r.terminated
    assert isinstance(events[-1], UsageUpdate)  # usage after ResponseEnd is applied


def test_two_candidates_end_separately() -> None:
    events, acc = run(GeminiParser(), payloads(EDGE / "gemini-two-candidates.sse"))
    check_event_contract(events)
    first, second = acc.responses
    assert (first.id, second.id) == ("edge-two", "edge-two")
    assert (first.model, second.model) == ("gemini-2.0-flash", "gemini-2.0-flash")
    assert first.text == "A1 A2" and second.text == "B1 B2"
    assert second.finished_reason is FinishReason.LENGTH and second.stop_reason == "MAX_TOKENS"
    assert first.finished_reason is FinishReason.CONTENT_FILTER
    assert first.stop_reason == "RECITATION"
    assert first.usage is not None and first.usage.total_tokens == 15
    ends = [e.choice for e in events if isinstance(e, ResponseEnd)]
    assert ends == [1, 0]


def test_partial_args_nested_paths_cut_at_max_tokens() -> None:
    path = EDGE / "gemini-vertex-partialArgs-nested-cut.chunks.jsonl"
    r = parse(path)
    text, call = r.content
    assert isinstance(text, TextBlock) and text.text == "Searching."
    assert isinstance(call, ToolCallBlock) and call.name == "search"
    assert call.arguments() == {"query": {"text": 'rainy "days" in Paris', "limit": 5},
                                "flags": [True, None], "note": "cut he"}
    assert call.incomplete  # MAX_TOKENS while the call was still streaming
    assert r.finished_reason is FinishReason.LENGTH
    assert r.usage is not None and r.usage.total_tokens == 114


# ---------------------------------------------------------------- inline edge cases


def test_error_chunk_is_a_provider_error_with_the_partial() -> None:
    error = {"error": {"code": 429, "message": "Resource has been exhausted",
                       "status": "RESOURCE_EXHAUSTED"}}
    body = (f"data: {chunk([{'text': 'Hel'}])}\r\n\r\n"
            f"data: {json.dumps(error)}\r\n\r\n").encode()
    with pytest.raises(ProviderError) as info:
        streamkit.stream(iter([body]), "gemini").final()
    assert info.value.message == "Resource has been exhausted"
    assert (info.value.status, info.value.error_type) == (429, "RESOURCE_EXHAUSTED")
    assert info.value.raw == error
    assert info.value.partial is not None and info.value.partial.text == "Hel"
    assert info.value.partial.finished_reason is FinishReason.ERROR


def test_blocked_prompt_ends_as_content_filter() -> None:
    blocked = {"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"},
               "usageMetadata": {"promptTokenCount": 9, "totalTokenCount": 9},
               "modelVersion": "gemini-2.5-flash", "responseId": "blocked-1"}
    parser = GeminiParser()
    events, acc = run(parser, [(json.dumps(blocked), None)])
    check_event_contract(events)
    r = acc.response
    assert parser.done
    assert r.content == [] and r.id == "blocked-1"
    assert r.finished_reason is FinishReason.CONTENT_FILTER
    assert r.stop_reason == "PROHIBITED_CONTENT" and r.terminated
    assert r.metadata["promptFeedback"] == {"blockReason": "PROHIBITED_CONTENT"}
    assert r.usage is not None and (r.usage.input_tokens, r.usage.output_tokens) == (9, None)


def test_no_finish_reason_ends_unknown_without_terminator() -> None:
    parser = GeminiParser()
    events, acc = run(parser, [(chunk([{"text": "Hi"}]), None),
                               (chunk([{"text": " there"}]), None)])
    check_event_contract(events)
    r = acc.response
    assert not parser.done
    assert r.text == "Hi there"
    assert r.finished_reason is FinishReason.UNKNOWN and not r.terminated and r.is_last


def test_streamed_call_without_closing_part_is_flushed_at_the_end() -> None:
    _, r = run_chunks(
        chunk([{"functionCall": {"name": "f", "willContinue": True}}]),
        chunk([{"functionCall": {"partialArgs": [{"jsonPath": "$.a", "numberValue": 1}],
                                 "willContinue": True}}]),
    )
    call = r.content[0]
    assert isinstance(call, ToolCallBlock) and call.arguments() == {"a": 1}
    assert not r.terminated and r.finished_reason is FinishReason.UNKNOWN


def test_out_of_order_partial_args_are_kept_and_mark_the_call_incomplete() -> None:
    bad = {"jsonPath": "$.a", "stringValue": "again"}
    _, r = run_chunks(
        chunk([{"functionCall": {"name": "f", "willContinue": True}}]),
        chunk([{"functionCall": {"partialArgs": [{"jsonPath": "$.a", "boolValue": False},
                                                 {"jsonPath": "$.b", "numberValue": 2.5},
                                                 bad], "willContinue": True}}]),
        chunk([{"functionCall": {}}], finishReason="STOP"),
    )
    call = r.content[0]
    assert isinstance(call, ToolCallBlock) and call.arguments() == {"a": False, "b": 2.5}
    assert call.incomplete and call.metadata["unassembledPartialArgs"] == [bad]


def test_audio_media_type_change_starts_a_new_block_and_images_are_complete() -> None:
    def inline(mime: str, data: bytes) -> dict[str, Any]:
        return {"inlineData": {"mimeType": mime, "data": base64.b64encode(data).decode()}}

    _, r = run_chunks(
        chunk([inline("audio/pcm;rate=24000", b"\x01\x02")]),
        chunk([inline("audio/pcm;rate=24000", b"\x03\x04")]),
        chunk([inline("audio/pcm;rate=16000", b"\x05\x06")]),
        chunk([inline("image/jpeg", b"\xff\xd8\xff\xe0"), inline("image/jpeg", b"\xff\xd8")]),
        chunk([{"fileData": {"mimeType": "application/pdf", "fileUri": "gs://b/doc.pdf"}}],
              finishReason="STOP"),
    )
    blocks = [b for b in r.content if isinstance(b, DataBlock)]
    assert [(b.media_type, b.data) for b in blocks[:4]] == [
        ("audio/pcm;rate=24000", b"\x01\x02\x03\x04"),
        ("audio/pcm;rate=16000", b"\x05\x06"),
        ("image/jpeg", b"\xff\xd8\xff\xe0"),
        ("image/jpeg", b"\xff\xd8"),
    ]
    assert isinstance(blocks[4].source, URLSource)
    assert (blocks[4].source.url, blocks[4].media_type) == ("gs://b/doc.pdf", "application/pdf")


def test_second_signature_on_text_starts_a_new_block() -> None:
    _, r = run_chunks(
        chunk([{"text": "one", "thoughtSignature": "s1"}]),
        chunk([{"text": " two"}]),
        chunk([{"text": "three", "thoughtSignature": "s2"}], finishReason="STOP"),
    )
    first, second = r.content
    assert isinstance(first, TextBlock) and isinstance(second, TextBlock)
    assert (first.text, first.metadata) == ("one two", {"signature": "s1"})
    assert (second.text, second.metadata) == ("three", {"signature": "s2"})


def test_signature_only_part_with_no_block_before_is_kept() -> None:
    _, r = run_chunks(chunk([{"text": "", "thoughtSignature": "lonely", "thought": True}],
                            finishReason="STOP"))
    block = r.content[0]
    assert isinstance(block, ThinkingBlock) and block.signature == "lonely"


def test_unknown_parts_and_candidate_fields_survive() -> None:
    _, r = run_chunks(
        chunk([{"text": "a"}, {"hologram": {"depth": 3}}, {"text": "b"}],
              groundingMetadata={"webSearchQueries": ["q"]}, avgLogprobs=-0.5),
        chunk([{"text": "c"}], finishReason="LANGUAGE", finishMessage="unsupported language"),
    )
    a, hologram, bc = r.content
    assert isinstance(a, TextBlock) and a.text == "a"
    assert isinstance(hologram, RawBlock) and hologram.data == {"hologram": {"depth": 3}}
    assert isinstance(bc, TextBlock) and bc.text == "bc"
    assert r.metadata == {"groundingMetadata": {"webSearchQueries": ["q"]}, "avgLogprobs": -0.5,
                          "finishMessage": "unsupported language"}
    assert r.finished_reason is FinishReason.UNKNOWN and r.stop_reason == "LANGUAGE"
    assert r.terminated


def test_index_missing_and_later_response_id_change() -> None:
    first = {"candidates": [{"content": {"parts": [{"text": "x"}]}}], "responseId": "id-1"}
    second = {"candidates": [{"content": {"parts": [{"text": "y"}]}, "finishReason": "STOP"}],
              "responseId": "id-2", "modelVersion": "gemini-late"}
    _, r = run_chunks(json.dumps(first), json.dumps(second))
    assert (r.id, r.model, r.text) == ("id-1", "gemini-late", "xy")  # first id kept
    assert r.metadata["otherResponseIds"] == ["id-2"]


def test_finish_reason_mapping() -> None:
    assert map_finish_reason("STOP") == "stop"
    assert map_finish_reason("STOP", tool_calls=True) == "tool_calls"
    assert map_finish_reason("MAX_TOKENS") == "length"
    for reason in ("SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII",
                   "IMAGE_SAFETY"):
        assert map_finish_reason(reason) == "content_filter"
    assert map_finish_reason("MALFORMED_FUNCTION_CALL") == "unknown"
    assert map_finish_reason(None) is None


def test_malformed_json_is_a_protocol_error_with_offset() -> None:
    bad = '{"candidates": [{"content": {"parts": [{"text": "a"}]]}'
    with pytest.raises(ProtocolError) as info:
        GeminiParser().feed(bad)
    assert info.value.offset == bad.index("]]") + 1


def test_done_once_every_candidate_has_its_finish_reason() -> None:
    parser = GeminiParser()
    items = payloads(EDGE / "gemini-two-candidates.sse")
    parser.feed(*items[0])
    parser.feed(*items[1])  # candidate 1 finished, candidate 0 still streaming
    assert not parser.done
    parser.feed(*items[2])
    assert parser.done
