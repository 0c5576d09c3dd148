"""GeminiParser: every recorded Gemini stream and the synthetic TTS stream,
checked field by field, plus the edge cases of the spec and hostile payloads.

The contracts every wire keeps (the event contract, payload at a time equals
the byte pipeline, auto-detection, the registry's parser) are
``providers/test_wire_contracts.py``'s, written once for every wire."""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec
import pytest
from support.comparing import fresh_ids
from support.parser_runs import Run, check_event_contract, run_parser
from support.recordings import EDGE, FIXTURES, Payload, payloads, recordings

import streamkit
from streamkit import (
    BlockDelta,
    DataBlock,
    ErrorEvent,
    FinishReason,
    ProtocolError,
    ProviderError,
    RawBlock,
    ResponseEnd,
    ResponseStart,
    TextBlock,
    TextDelta,
    ThinkingBlock,
    ToolCallBlock,
    URLSource,
    UsageUpdate,
)
from streamkit.model.blocks import Citation
from streamkit.model.events import Event, MetadataAppendDelta, ResponseMetadata, event_to_dict
from streamkit.model.response import ChatResponse
from streamkit.providers.error_payloads import error_event
from streamkit.providers.gemini import (
    FINISH_REASONS,
    USAGE_FIELDS,
    GeminiParser,
    map_finish_reason,
    map_usage,
)

GEMINI = FIXTURES / "gemini"
TTS = FIXTURES / "synthetic" / "gemini-tts-inline-audio.sse"
PCM_SHA256 = "4cd1edd3d9c943ae1156b41d4fe25dc1f56dd32b1296afcddf5a1e8d719b8cee"
# Every stream of the Gemini wire format in tests/fixtures: recorded, synthetic, edge.
ALL = [path for path in recordings()
       if path.parent == GEMINI or path.name.startswith("gemini-")]
GENERATED_CALL_ID = r"^call_[0-9a-f]{24}$"


def run(parser: GeminiParser, items: Sequence[tuple[str | None, str]]) -> Run:
    """Payloads one at a time into ``parser``, then ``finish()``; the contract checked."""
    result = run_parser(parser, items)
    check_event_contract(result.events)
    return result


def parse(path: Path) -> ChatResponse:
    return run(GeminiParser(), payloads(path)).response



def chunk(parts: list[dict[str, Any]], **candidate: Any) -> str:
    """One Gemini chunk with a single candidate."""
    return json.dumps({"candidates": [{"content": {"parts": parts, "role": "model"},
                                       **candidate}],
                       "modelVersion": "gemini-test", "responseId": "r1"})


def run_chunks(*chunks: str) -> tuple[list[Any], ChatResponse]:
    result = run(GeminiParser(), [Payload(None, c) for c in chunks])
    return result.events, result.response


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
    parser.feed(first.data, first.event)
    out = parser.feed(second.data, second.event)
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
    result = run(GeminiParser(), payloads(path))
    events, r = result.events, result.response
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


# ---------------------------------------------------------------- edge fixtures


def test_mixed_parts_parallel_calls_and_trailing_signature() -> None:
    result = run(GeminiParser(), payloads(EDGE / "gemini-mixed-parts-parallel-calls.sse"))
    events, r = result.events, result.response
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
    cited = {"startIndex": 0, "endIndex": 4, "uri": "https://example.com/done"}
    assert done.citations == [Citation(url="https://example.com/done", start=0, end=4,
                                       raw=cited, wire="gemini")]
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
    result = run(GeminiParser(), payloads(EDGE / "gemini-two-candidates.sse"))
    events = result.events
    first, second = result.responses
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
    r = run(parser, [Payload(None, json.dumps(blocked))]).response
    assert parser.done
    assert r.content == [] and r.id == "blocked-1"
    assert r.finished_reason is FinishReason.CONTENT_FILTER
    assert r.stop_reason == "PROHIBITED_CONTENT" and r.terminated
    assert r.metadata["promptFeedback"] == {"blockReason": "PROHIBITED_CONTENT"}
    assert r.usage is not None and (r.usage.input_tokens, r.usage.output_tokens) == (9, None)


def test_no_finish_reason_ends_unknown_without_terminator() -> None:
    parser = GeminiParser()
    r = run(parser, [Payload(None, chunk([{"text": "Hi"}])),
                     Payload(None, chunk([{"text": " there"}]))]).response
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
    parser.feed(items[0].data, items[0].event)
    parser.feed(items[1].data, items[1].event)  # candidate 1 finished, candidate 0 still streaming
    assert not parser.done
    parser.feed(items[2].data, items[2].event)
    assert parser.done


# ---------------------------------------------------------------- shared tables


def test_finish_words_are_a_table() -> None:
    assert FINISH_REASONS["STOP"] is FinishReason.STOP
    assert all(isinstance(reason, FinishReason) for reason in FINISH_REASONS.values())
    assert map_finish_reason("STOP", tool_calls=True) is FinishReason.TOOL_CALLS
    assert map_finish_reason("FUTURE_REASON") is FinishReason.UNKNOWN


def test_usage_reads_the_table_and_sums_audio_over_modalities() -> None:
    usage = map_usage({
        "promptTokenCount": 10, "candidatesTokenCount": 20, "totalTokenCount": 35,
        "thoughtsTokenCount": 5, "cachedContentTokenCount": 4,
        "promptTokensDetails": [{"modality": "AUDIO", "tokenCount": 3},
                                {"modality": "TEXT", "tokenCount": 7}],
        "candidatesTokensDetails": [{"modality": "AUDIO", "tokenCount": 20},
                                    {"modality": "AUDIO", "tokenCount": "many"}, "junk"],
    })
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (10, 20, 35)
    assert (usage.reasoning_tokens, usage.cached_tokens, usage.audio_tokens) == (5, 4, 23)
    assert usage.accounting == "cumulative"
    wrong = map_usage({"promptTokenCount": [], "promptTokensDetails": {"modality": "AUDIO"}})
    assert (wrong.input_tokens, wrong.audio_tokens) == (None, None)
    assert USAGE_FIELDS.accounting == "cumulative"


def test_error_payload_gives_the_same_event_as_every_parser() -> None:
    """``{"error": {"code": 429, ...}}``: the shared mapping, whoever reads it."""
    payload = {"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}}
    events = GeminiParser().feed(json.dumps(payload))
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert errors == [error_event(payload["error"], payload)]
    error = errors[0]
    assert (error.message, error.code, error.status, error.error_type) == (
        "quota", "429", 429, "RESOURCE_EXHAUSTED")
    assert error.raw == payload
    # the same error wrapped in a JSON array (a non-SSE error body), or not an object
    assert [e for e in GeminiParser().feed(json.dumps([payload]))
            if isinstance(e, ErrorEvent)] == [error]
    odd = [e for e in GeminiParser().feed('{"error": ["x"]}') if isinstance(e, ErrorEvent)]
    assert odd[0].message == '["x"]' and odd[0].raw == {"error": ["x"]}


# ---------------------------------------------------------------- driving


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_feed_into_equals_feed_per_payload(path: Path) -> None:
    """``feed_into`` (one network chunk's payloads at once) emits what ``feed``
    emits payload by payload; SSE ``message`` is the unnamed event."""
    items = payloads(path)
    with fresh_ids():
        parser = GeminiParser()
        one_by_one = [event for item in items for event in parser.feed(item.data, item.event)]
        one_by_one += parser.finish()
    with fresh_ids():
        parser = GeminiParser()
        together: list[Event] = []
        parser.feed_into([(item.event or "message", item.data) for item in items], together)
        together += parser.finish()
    assert [event_to_dict(e) for e in together] == [event_to_dict(e) for e in one_by_one]


def test_a_first_chunk_naming_no_response_still_starts_it_first() -> None:
    """The ResponseStart comes before any block even when the id and model are
    named only by a later chunk; they are reported then."""
    first = {"candidates": [{"content": {"parts": [{"text": "a"}]}}]}
    second = {"candidates": [{"content": {"parts": [{"text": "b"}]}, "finishReason": "STOP"}],
              "responseId": "late-id", "modelVersion": "late-model"}
    events, r = run_chunks(json.dumps(first), json.dumps(second))  # contract checked
    assert isinstance(events[0], ResponseStart)  # with an id made up from the stream
    assert events[0].id is not None and re.match(r"^resp_[0-9a-f]{24}$", events[0].id)
    assert (r.id, r.model, r.text) == ("late-id", "late-model", "ab")
    assert "otherResponseIds" not in r.metadata


def test_growing_metadata_is_appended_never_re_sent() -> None:
    """Logprobs per chunk, later response ids and citations outside a text block
    grow with the stream: each event carries only what is new, and no event
    emitted earlier changes afterwards (events are values)."""
    chunks = [
        json.dumps({"candidates": [{"content": {"parts": [{"text": f"t{n}"}]},
                                    "logprobsResult": {"chosenCandidates": [n]},
                                    "citationMetadata": {"citations": [{"uri": f"u{n}"}]}}],
                    "responseId": f"id-{n % 3}", "modelVersion": "m"})
        for n in range(6)
    ]
    parser = GeminiParser()
    seen: list[tuple[Event, Any]] = []
    for data in chunks:
        for event in parser.feed(data):
            seen.append((event, copy.deepcopy(event_to_dict(event))))
    for event, at_emission in seen:
        assert event_to_dict(event) == at_emission
    appended = [e for e, _ in seen if isinstance(e, ResponseMetadata) and e.append]
    assert all(len(items) == 1 for e in appended for items in e.append.values())
    result = run(GeminiParser(), [Payload(None, data) for data in chunks])
    r = result.response
    assert r.metadata["logprobsResult"] == [{"chosenCandidates": [n]} for n in range(6)]
    assert r.metadata["otherResponseIds"] == ["id-1", "id-2"]
    assert r.text == "t0t1t2t3t4t5"
    text = r.content[0]
    assert isinstance(text, TextBlock)
    assert text.citations == [Citation(url=f"u{n}", raw={"uri": f"u{n}"}, wire="gemini")
                              for n in range(6)]


def test_citations_outside_a_text_block_are_appended_once_each() -> None:
    cite = {"citationMetadata": {"citations": [{"uri": "a"}, {"uri": "b"}]}}
    _, r = run_chunks(
        chunk([{"functionCall": {"name": "f", "args": {}}}], **cite),
        chunk([{"functionCall": {"name": "g", "args": {}}}], **cite),
        chunk([{"functionCall": {"name": "h", "args": {}}}], citationMetadata={
            "citations": [{"uri": "b"}, {"uri": "c"}]}, finishReason="STOP"),
    )
    assert r.metadata["citations"] == [{"uri": "a"}, {"uri": "b"}, {"uri": "c"}]


# ---------------------------------------------------------------- hostile payloads


@pytest.mark.parametrize("data", ["w", "\u00e9", "aGk=\u00e9", "abcde", "AQ=\u00ff",
                                  "\u4e2d\u6587"])
def test_inline_data_that_is_not_base64_is_kept_raw_and_the_stream_goes_on(data: str) -> None:
    """1 character, non-ASCII, an impossible length: no binascii.Error or
    ValueError; the part is kept whole as a RawBlock saying why, and the audio
    around it stays bytes."""
    def audio(text: str) -> dict[str, Any]:
        return {"inlineData": {"mimeType": "audio/pcm;rate=24000", "data": text}}

    _, r = run_chunks(
        chunk([audio("AQI=")]),
        chunk([audio(data)]),
        chunk([audio("AwQ="), {"text": "after"}], finishReason="STOP"),
    )
    before, raw, after, text = r.content
    assert isinstance(before, DataBlock) and before.data == b"\x01\x02"
    assert isinstance(raw, RawBlock) and raw.kind == "inlineData"
    assert raw.data == audio(data)
    assert raw.metadata == {"unreadable": "inlineData.data is not base64 text"}
    assert isinstance(after, DataBlock) and after.data == b"\x03\x04"
    assert isinstance(text, TextBlock) and text.text == "after"
    assert r.finished_reason is FinishReason.STOP


def test_inline_data_that_is_not_base64_through_the_byte_pipeline() -> None:
    image = {"inlineData": {"mimeType": "image/png", "data": "w"}}
    body = f"data: {chunk([image], finishReason='STOP')}\r\n\r\n".encode()
    final = streamkit.stream(iter([body]), "gemini").final()
    assert isinstance(final.content[0], RawBlock) and final.terminated


def test_inline_data_accepts_url_safe_and_unpadded_base64() -> None:
    def image(text: str) -> dict[str, Any]:
        return {"inlineData": {"mimeType": "image/png", "data": text}}

    _, r = run_chunks(chunk([image("-_8"), image("aGk")], finishReason="STOP"))
    assert [b.data for b in r.content if isinstance(b, DataBlock)] == [b"\xfb\xff", b"hi"]


@pytest.mark.parametrize("json_path", [5, ["$.a"], {"path": "$.a"}, None, True])
def test_partial_args_with_a_json_path_that_is_not_a_string_are_unassembled(
        json_path: Any) -> None:
    """No AttributeError: the update is kept in ``unassembledPartialArgs``
    (a MetadataAppendDelta) and the call marked incomplete; the updates
    around it are still assembled."""
    bad = {"jsonPath": json_path, "stringValue": "x"}
    events, r = run_chunks(
        chunk([{"functionCall": {"name": "f", "willContinue": True}}]),
        chunk([{"functionCall": {"partialArgs": [{"jsonPath": "$.a", "numberValue": 1}, bad,
                                                 {"jsonPath": "$.b", "boolValue": True}],
                                 "willContinue": True}}]),
        chunk([{"functionCall": {}}], finishReason="STOP"),
    )
    call = r.content[0]
    assert isinstance(call, ToolCallBlock)
    assert call.arguments() == {"a": 1, "b": True}
    assert call.incomplete and call.metadata["unassembledPartialArgs"] == [bad]
    appends = [e.delta for e in events if isinstance(e, BlockDelta)
               and isinstance(e.delta, MetadataAppendDelta)]
    assert appends == [MetadataAppendDelta("unassembledPartialArgs", [bad])]


@pytest.mark.parametrize("update", [
    {"jsonPath": "$.a", "numberValue": "1"},
    {"jsonPath": "$.a", "numberValue": True},
    {"jsonPath": "$.a", "boolValue": "true"},
    {"jsonPath": "$.a", "stringValue": 5},
    {"jsonPath": "$.a", "stringValue": ["x"]},
    {"jsonPath": "$.a"},
    {"jsonPath": "$[" + "9" * 5000 + "]", "numberValue": 1},
    "not an object",
    [],
])
def test_partial_args_values_of_the_wrong_type_are_unassembled(update: Any) -> None:
    _, r = run_chunks(
        chunk([{"functionCall": {"name": "f", "partialArgs": [update], "willContinue": True}}]),
        chunk([{"functionCall": {}}], finishReason="STOP"),
    )
    call = r.content[0]
    assert isinstance(call, ToolCallBlock) and call.input == "{}"
    assert call.incomplete and call.metadata["unassembledPartialArgs"] == [update]


def test_candidates_that_are_not_a_list_are_kept_and_usage_still_reported() -> None:
    _, r = run_chunks(
        json.dumps({"candidates": {"content": {"parts": [{"text": "lost?"}]}},
                    "usageMetadata": {"totalTokenCount": 3}, "responseId": "r"}),
    )
    assert r.content == [] and r.id == "r"
    assert r.metadata["candidates"] == {"content": {"parts": [{"text": "lost?"}]}}
    assert r.usage is not None and r.usage.total_tokens == 3
    assert r.finished_reason is FinishReason.UNKNOWN and not r.terminated


@pytest.mark.parametrize("index", [[], [0], {"i": 0}, "0", True, 1.0, None])
def test_an_index_that_is_not_an_int_is_the_position_and_kept(index: Any) -> None:
    events, r = run_chunks(
        json.dumps({"candidates": [{"content": {"parts": [{"text": "a"}]}, "index": index}],
                    "responseId": "r"}),
        json.dumps({"candidates": [{"content": {"parts": [{"text": "b"}]}, "index": index,
                                    "finishReason": "STOP"}]}),
    )
    assert {getattr(e, "choice", 0) for e in events} == {0}
    assert r.text == "ab" and r.finished_reason is FinishReason.STOP
    if index is not None:
        assert r.metadata["index"] == index


@pytest.mark.parametrize("parts", [{"text": "x"}, "x", 5, None])
def test_parts_that_are_not_a_list_are_kept(parts: Any) -> None:
    _, r = run_chunks(json.dumps({"candidates": [{"content": {"parts": parts, "role": "model"},
                                                  "finishReason": "STOP"}],
                                  "responseId": "r"}))
    assert r.content == []
    assert r.metadata["content.parts"] == parts
    assert r.finished_reason is FinishReason.STOP


def test_parts_and_contents_of_the_wrong_type_are_kept() -> None:
    _, r = run_chunks(
        json.dumps({"candidates": [{"content": ["not", "an", "object"]}], "responseId": "r"}),
        chunk(["a string part", {"text": 5}, {"functionCall": ["f"]},
               {"inlineData": "AAAA"}, {"fileData": {"fileUri": 7}},
               {"text": "ok", "thoughtSignature": 9, "thought": "yes"}]),
        chunk([{"text": "!"}], finishReason=["STOP"]),
    )
    assert r.metadata["content"] == ["not", "an", "object"]
    raws = [b for b in r.content if isinstance(b, RawBlock)]
    assert [(b.kind, b.metadata["unreadable"]) for b in raws] == [
        ("unknown", "a part that is not an object"),
        ("text", "text is not a string"),
        ("functionCall", "functionCall is not an object"),
        ("inlineData", "inlineData is not an object"),
        ("fileData", "fileData.fileUri is not a string"),
    ]
    assert raws[0].data == {"unknown": "a string part"} and raws[1].data == {"text": 5}
    text = r.content[-1]
    assert isinstance(text, TextBlock) and text.text == "ok!"
    assert text.metadata == {"thoughtSignature": 9, "thought": "yes"}
    # a finishReason that is not a string still ends the candidate, as unknown
    assert r.finished_reason is FinishReason.UNKNOWN and r.stop_reason is None
    assert r.metadata["finishReason"] == ["STOP"] and r.terminated


def test_identity_and_usage_of_the_wrong_type_are_kept() -> None:
    _, r = run_chunks(
        json.dumps({"candidates": [{"content": {"parts": [{"text": "a"}]}}],
                    "responseId": ["r"], "modelVersion": 2, "usageMetadata": [1]}),
        json.dumps({"candidates": [{"content": {"parts": [{"text": "b"}]},
                                    "finishReason": "STOP"}],
                    "responseId": "r-2", "modelVersion": {"m": 1}}),
    )
    assert r.id == "r-2" and r.model is None and r.text == "ab"
    assert r.metadata["responseId"] == ["r"]
    assert r.metadata["modelVersion"] == {"m": 1}
    assert r.metadata["usageMetadata"] == [1] and r.usage is None


def test_function_call_fields_of_the_wrong_type_are_kept_in_metadata() -> None:
    _, r = run_chunks(chunk([{"functionCall": {"name": ["f"], "id": 3, "args": [1],
                                               "willContinue": "no"}}], finishReason="STOP"))
    call = r.content[0]
    assert isinstance(call, ToolCallBlock)
    assert call.name == "" and call.id.startswith("call_") and call.input == "[1]"
    assert call.metadata == {"name": ["f"], "id": 3, "willContinue": "no"}
    assert not call.incomplete


def test_a_blocked_prompt_with_a_reason_of_the_wrong_type() -> None:
    parser = GeminiParser()
    r = run(parser, [Payload(None, '{"promptFeedback": {"blockReason": ["SAFETY"]}}')]).response
    assert parser.done and r.finished_reason is FinishReason.CONTENT_FILTER
    assert r.stop_reason is None and r.metadata["promptFeedback"] == {"blockReason": ["SAFETY"]}


def test_invalid_utf8_is_replaced() -> None:
    parser = GeminiParser()
    parser.feed(chunk([{"text": "a"}]))
    out = parser.feed(b'{"candidates": [{"content": {"parts": [{"text": "b\xffc"}]}}]}')
    assert [e.delta for e in out if isinstance(e, BlockDelta)] == [TextDelta("b\ufffdc")]


def test_json_nested_too_deeply_is_a_protocol_error() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    parser = GeminiParser()
    parser.feed(chunk([{"text": "a"}]))
    with pytest.raises(ProtocolError) as info:
        parser.feed('{"candidates": [{"content": {"parts": [{"text": "b", "x": ' + deep + '}]}}]}')
    assert "nested" in info.value.message


def test_non_object_payloads_go_to_the_unknown_sink() -> None:
    _, r = run_chunks('"hello"', "[1, {\"responseId\": \"r\"}]", chunk([{"text": "a"}]))
    assert r.metadata["unknown_events"] == [{"event": None, "data": "hello"},
                                            {"event": None, "data": 1}]
    assert r.id == "r" and r.text == "a"


WRONG_VALUES: list[Any] = [None, True, 7, 1.5, "x", "", [], [[]], {}, {"k": []}]

# Hand-built streams that between them use every field the parser reads.
TEMPLATES: dict[str, list[Any]] = {
    "text": [
        {"candidates": [{"content": {"parts": [{"text": "think", "thought": True,
                                                "thoughtSignature": "s1"}], "role": "model"},
                         "index": 0, "safetyRatings": [{"category": "C", "probability": "LOW"}]}],
         "usageMetadata": {"promptTokenCount": 1, "totalTokenCount": 2,
                           "promptTokensDetails": [{"modality": "AUDIO", "tokenCount": 1}]},
         "modelVersion": "m", "responseId": "r", "createTime": "t"},
        {"candidates": [{"content": {"parts": [{"text": "a"},
                                               {"text": "", "thoughtSignature": "s2"}],
                                     "role": "model"},
                         "citationMetadata": {"citations": [{"uri": "u", "startIndex": 0}]},
                         "logprobsResult": {"topCandidates": []}, "index": 0}],
         "modelVersion": "m", "responseId": "r"},
        {"candidates": [{"content": {"parts": [{"text": "b"}]}, "finishReason": "MAX_TOKENS"}],
         "usageMetadata": {"candidatesTokenCount": 2, "thoughtsTokenCount": 1}},
        {"usageMetadata": {"totalTokenCount": 9}},
    ],
    "calls": [
        {"candidates": [{"content": {"parts": [
            {"functionCall": {"name": "f", "args": {"a": [1]}, "id": "c"}, "thoughtSignature": "s"},
            {"functionCall": {"name": "g", "willContinue": True}}]}}], "responseId": "r"},
        {"candidates": [{"content": {"parts": [{"functionCall": {"partialArgs": [
            {"jsonPath": "$.q.text", "stringValue": "rain", "willContinue": True},
            {"jsonPath": "$.q.n", "numberValue": 5}, {"jsonPath": "$.f[0]", "boolValue": True},
            {"jsonPath": "$.f[1]", "nullValue": "NULL_VALUE"}], "willContinue": True}}]}}]},
        {"candidates": [{"content": {"parts": [{"functionCall": {}, "thoughtSignature": "t"}]},
                         "finishReason": "STOP"}]},
    ],
    "data": [
        {"candidates": [{"content": {"parts": [
            {"inlineData": {"mimeType": "audio/pcm;rate=24000", "data": "AQI=",
                            "displayName": "a"}},
            {"inlineData": {"mimeType": "audio/pcm;rate=24000", "data": "AwQ="}},
            {"inlineData": {"mimeType": "image/png", "data": "iVBORw=="}},
            {"fileData": {"mimeType": "application/pdf", "fileUri": "gs://b/f",
                          "displayName": "f"}},
            {"executableCode": {"code": "1"}}]}, "index": 1}], "responseId": "r"},
        {"candidates": [{"content": {"parts": [{"text": "x"}]}, "index": 1,
                         "finishReason": "SAFETY"}]},
    ],
    "feedback and errors": [
        {"promptFeedback": {"blockReason": "SAFETY", "safetyRatings": []},
         "usageMetadata": {"promptTokenCount": 1}, "responseId": "r"},
        {"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}},
    ],
}


def mutations(value: Any, path: tuple[Any, ...] = ()) -> Any:
    """Every (path, container, key) of a JSON value, so that each field and
    list item can be replaced in turn."""
    if isinstance(value, dict):
        for key in value:
            yield (*path, key), value, key
            yield from mutations(value[key], (*path, key))
    elif isinstance(value, list):
        for position in range(len(value)):
            yield (*path, position), value, position
            yield from mutations(value[position], (*path, position))


@pytest.mark.parametrize("name", TEMPLATES)
def test_any_field_of_any_wrong_type_never_raises(name: str) -> None:
    """Each field (and list item) of each chunk of a hand-built stream replaced,
    one at a time, by values of every JSON type: the parser raises nothing, the
    event contract holds, the events fold, and the response serialises."""
    template = TEMPLATES[name]
    runs = 0
    for position in range(len(template)):
        for where, _, _ in mutations(template[position]):
            for wrong in WRONG_VALUES:
                chunks = copy.deepcopy(template)
                container: Any = chunks[position]
                for step in where[:-1]:
                    container = container[step]
                container[where[-1]] = wrong
                try:
                    result = run(GeminiParser(), [Payload(None, json.dumps(c)) for c in chunks])
                    for response in result.responses:
                        msgspec.json.encode(response.to_dict())
                        assert all(type(block.id) is str for block in response.content)
                except Exception as exc:
                    raise AssertionError(f"chunk {position} {where} = {wrong!r}: {exc!r}") from exc
                runs += 1
    assert runs >= 50
