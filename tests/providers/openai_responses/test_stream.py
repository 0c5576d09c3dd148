"""The OpenAI Responses API parser: every fixture checked field by field against
what the stream says, the official SDK's ``ResponseStreamState`` as an oracle
where it works, the robustness edge cases (tests/fixtures/edge/openai-responses-*),
the fast (typed) decode against the general path on every recording, and hostile
input (invalid UTF-8, wrong types, bad base64, deep nesting).

The contracts every wire keeps (the event contract, payload at a time equals
the byte pipeline, auto-detection, the registry's parser) are
``providers/test_wire_contracts.py``'s, written once for every wire."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from support.comparing import comparable
from support.openai_responses_stream import assert_matches_sdk, run, run_file, sdk_final, wire
from support.parser_runs import check_event_contract
from support.recordings import FIXTURES, Payload, body, fixture_id, payloads, recordings, sse_body

from streamkit import replay
from streamkit.model.blocks import (
    Citation,
    DataBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)
from streamkit.model.errors import ProtocolError, StreamError
from streamkit.model.events import (
    BlockDelta,
    BlockEnd,
    BlockStart,
    ErrorEvent,
    MetadataDelta,
    ResponseEnd,
    ResponseMetadata,
    ResponseStart,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
    UsageUpdate,
    event_to_dict,
)
from streamkit.model.ids import counting_ids, id_factory
from streamkit.model.response import FinishReason
from streamkit.providers import get_parser
from streamkit.providers.openai_responses import OpenAIResponsesParser, map_usage
from streamkit.reading.pipeline import Pipeline

RECORDED = [
    "openai-responses/text.sse",
    "openai-responses/function-call.sse",
    "openai-responses/deepseek-responses-reasoning-function-call.sse",
    "openai-responses/openrouter-reasoning_text.sse",
    "openai-responses/reasoning-summary-text.sse",
    "openai-responses/error-then-failed.chunks.jsonl",
    "synthetic/openai-responses-audio.sse",
]
EDGE = [
    "edge/openai-responses-parallel-tools.sse",
    "edge/openai-responses-missing-index.sse",
    "edge/openai-responses-unknown-events.sse",
    "edge/openai-responses-kind-change.sse",
    "edge/openai-responses-server-tools.sse",
    "edge/openai-responses-incomplete.sse",
    "edge/openai-responses-no-deltas.sse",
]
# Every stream of this wire format: the recordings above, any added later, and the
# streamed turns of the recorded conversations.
ALL = sorted({*(path for path in recordings() if "openai-responses" in fixture_id(path)),
              *(FIXTURES / "conversations" / "openai-responses").glob("*/turn1.response.sse")})
AUDIO_SHA256 = "4cd1edd3d9c943ae1156b41d4fe25dc1f56dd32b1296afcddf5a1e8d719b8cee"
TRANSCRIPT = ("Hello from stream kit. This audio arrived in small chunks, and was put back "
              "together without losing a single byte.")


def only(blocks: list[Any], kind: type[Any]) -> Any:
    assert len(blocks) == 1 and type(blocks[0]) is kind, blocks
    return blocks[0]


def done_texts(name: str, event_type: str) -> list[str]:
    """The ``text`` of every ``event_type`` payload in a fixture: what the stream
    itself says the finished part is."""
    return [json.loads(data)["text"] for _, data in payloads(name)
            if data.startswith("{") and json.loads(data)["type"] == event_type]


# ---------------------------------------------------------------- recorded fixtures


def test_text_stream() -> None:
    r = run_file("openai-responses/text.sse").response
    assert r.id == "resp_67e554a21aa88191b65876ac5e5bbe0406c52f0e511c76ed"
    assert r.model == "gpt-4o-2024-08-06"
    block = only(r.content, TextBlock)
    assert block.text == "The capital of France is Paris."
    assert block.metadata == {"item_id": "msg_67e554a28bec8191b56d3e2331eff88006c52f0e511c76ed"}
    assert block.citations == [] and not block.refusal
    assert r.finished_reason is FinishReason.STOP and r.stop_reason == "completed"
    assert r.terminated and r.is_last
    assert r.usage is not None
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.total_tokens) == (278, 9, 287)
    assert (r.usage.cached_tokens, r.usage.reasoning_tokens) == (0, 0)
    assert r.usage.cache_creation_tokens is None and r.usage.audio_tokens is None
    assert r.usage.raw == {"input_tokens": 278, "input_tokens_details": {"cached_tokens": 0},
                           "output_tokens": 9, "output_tokens_details": {"reasoning_tokens": 0},
                           "total_tokens": 287}
    meta = r.metadata
    assert meta["status"] == "completed" and meta["created_at"] == 1743082658
    assert meta["tools"][0]["name"] == "get_capital" and meta["tool_choice"] == "auto"
    assert meta["temperature"] == 1.0 and meta["truncation"] == "disabled"
    # the final response object is not copied into metadata: no content twice
    assert not {"output", "output_text", "usage", "id", "model"} & set(meta)


def test_function_call_stream() -> None:
    r = run_file("openai-responses/function-call.sse").response
    assert r.id == "resp_67e554a155508191900ee113293c4c830794405d35281ae2"
    call = only(r.content, ToolCallBlock)
    assert (call.id, call.name) == ("call_kL0PCQV7M2WMoVX8V8OtYSAL", "get_capital")
    assert call.input == '{"country":"France"}' and call.arguments() == {"country": "France"}
    # the item's in-progress status at output_item.added must not stick to the block
    assert call.metadata == {"item_id": "fc_67e554a1de488191af0831d35cbe082e0794405d35281ae2"}
    assert not call.incomplete
    assert r.finished_reason is FinishReason.TOOL_CALLS and r.stop_reason == "completed"
    assert r.usage is not None
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.total_tokens) == (255, 16, 271)
    assert r.text == "" and r.thinking == ""


def test_deepseek_reasoning_text_then_function_call() -> None:
    name = "openai-responses/deepseek-responses-reasoning-function-call.sse"
    result = run_file(name)
    r = result.response
    assert (r.id, r.model) == ("1235b7ba-fdc9-4a1c-bfe4-6137c207baf3", "deepseek-v4-flash")
    thinking, call = r.content
    assert isinstance(thinking, ThinkingBlock) and isinstance(call, ToolCallBlock)
    assert thinking.thinking == "The user asks about temperature in Tokyo. I'll call the tool."
    # DeepSeek's reasoning item says "completed", OpenAI's none: kept, to be written back
    assert thinking.metadata == {"item_id": "fa6f3a83-5d25-46e8-9d03-1a89ce5cf2ba",
                                 "content_index": 0, "kind": "reasoning_text",
                                 "status": "completed"}
    assert thinking.encrypted is None and thinking.signature is None
    assert (call.id, call.name) == ("call_00_xjY8Z2BvSlzgEmmw0DtH0464", "get_temperature")
    assert call.arguments() == {"city": "Tokyo"}
    assert call.metadata == {"item_id": "62bf2bb7-56af-4e3a-883b-83d4aad54da1"}
    assert r.finished_reason is FinishReason.TOOL_CALLS
    assert r.usage is not None
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.total_tokens) == (366, 59, 425)
    assert (r.usage.cached_tokens, r.usage.reasoning_tokens) == (256, 14)
    # service_tier and completed_at only appear / change at the end: reported once
    assert r.metadata["completed_at"] == 1785983456 and r.metadata["status"] == "completed"
    late = result.of_type(ResponseMetadata)
    assert [m.metadata for m in late] == [{"status": "completed", "completed_at": 1785983456}]
    # 14 reasoning deltas and 9 argument deltas: one event each, no extra events
    assert len(result.of_type(BlockDelta)) == 14 + 9


def test_openrouter_data_only_reasoning_text_and_done() -> None:
    name = "openai-responses/openrouter-reasoning_text.sse"
    assert all(event is None for event, _ in payloads(name))  # no `event:` lines at all
    result = run_file(name)
    r = result.response
    assert (r.id, r.model) == ("gen-1764265411-Fu1iEX7h5MRWiL79lb94", "openai/gpt-oss-20b")
    thinking, text = r.content
    assert isinstance(thinking, ThinkingBlock) and isinstance(text, TextBlock)
    assert thinking.thinking == (
        'The user asks: "What is 2+2?" They expect a straightforward answer: 4. Just answer 4.')
    # blocks are kept by position: the final output renames the reasoning item
    # (rs_tmp_ku4i7pagjwn), the streamed id stays
    assert thinking.metadata["item_id"] == "rs_tmp_2kbe7x16sax"
    assert text.text == "4" and text.metadata == {"item_id": "msg_tmp_8cjof4f6zpw"}
    # the reasoning part's .done arrives after the message item: blocks close in
    # their own item's order, each exactly once
    check_event_contract(result.events)
    assert r.finished_reason is FinishReason.STOP and r.terminated
    assert result.parser.done  # [DONE] after response.completed
    assert r.usage is not None and r.usage.reasoning_tokens == 22
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.total_tokens) == (78, 37, 115)
    assert r.usage.raw["cost"] == 0.0000113 and r.usage.raw["is_byok"] is False


def test_reasoning_summary_parts_and_encrypted_content() -> None:
    name = "openai-responses/reasoning-summary-text.sse"
    r = run_file(name).response
    assert (r.id, r.model) == ("resp_68c42d0fb418819dbfa579f69406b49508fbf9b1584184ff",
                               "o3-mini-2025-01-31")
    *blocks, text = r.content
    summaries = [b for b in blocks if isinstance(b, ThinkingBlock)]
    assert len(summaries) == len(blocks) == 4
    headings = ["**Providing street crossing instructions**",
                "**Explaining street crossing safety**",
                "**Sharing street crossing safety tips**",
                "**Providing safe crossing advice**"]
    lengths = [460, 517, 540, 505]
    item_id = "rs_68c42d1d0878819d8266007cd3d1402c08fbf9b1584184ff"
    for i, block in enumerate(summaries):
        assert block.thinking.startswith(headings[i] + "\n\n")
        assert len(block.thinking) == lengths[i]
        assert block.metadata == {"item_id": item_id, "summary_index": i, "kind": "summary"}
    assert [b.thinking for b in summaries] == done_texts(
        name, "response.reasoning_summary_text.done")
    # encrypted_content goes once, on the item's first block, from output_item.done
    # (the added / done / completed events each carry a differently re-encrypted token)
    assert summaries[0].encrypted is not None
    assert summaries[0].encrypted.startswith("gAAAAABoxC0m_QWpOlSt8wyPk_gtnjiI4mNLOryY")
    assert len(summaries[0].encrypted) == 440
    assert [b.encrypted for b in summaries[1:]] == [None, None, None]
    assert isinstance(text, TextBlock) and len(text.text) == 1251
    assert text.text.startswith("I'm not a road safety professional, but here are some")
    assert text.text.endswith("rules specific to your area. Stay safe!")
    assert text.metadata == {"item_id": "msg_68c42d26866c819da8d5c606621c911608fbf9b1584184ff"}
    assert r.usage is not None
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.reasoning_tokens) == (
        13, 1680, 1408)
    assert r.finished_reason is FinishReason.STOP
    assert r.metadata["reasoning"] == {"effort": "high", "summary": "detailed"}
    # service_tier said "auto" at creation and "default" at the end: the end wins
    assert r.metadata["service_tier"] == "default"


def test_error_then_failed_is_one_provider_error() -> None:
    result = run_file("openai-responses/error-then-failed.chunks.jsonl")
    r = result.response
    assert r.id == "resp_05500b38c2cd9bfc00691c7c9d222481a3b595421266dab424"
    assert r.model == "gpt-5-nano-2025-08-07"
    message = ("You exceeded your current quota, please check your plan and billing details. "
               "For more information on this error, read the docs: "
               "https://platform.openai.com/docs/guides/error-codes/api-errors.")
    # the `error` event and response.failed report the same error: one ErrorEvent
    (error,) = result.of_type(ErrorEvent)
    assert (error.message, error.code, error.error_type) == (
        message, "insufficient_quota", "insufficient_quota")
    assert error.raw["error"]["param"] is None and error.raw["sequence_number"] == 2
    assert r.content == [] and r.usage is None
    assert r.finished_reason is FinishReason.ERROR and r.stop_reason == "failed"
    assert r.terminated and result.parser.done
    assert r.metadata["status"] == "failed"
    assert r.metadata["error"]["message"] == message
    assert r.metadata["error"]["type"] == "insufficient_quota"


def test_synthetic_audio_gives_back_the_exact_pcm_and_transcript() -> None:
    result = run_file("synthetic/openai-responses-audio.sse")
    r = result.response
    audio = only(r.content, DataBlock)
    assert len(audio.data) == 322604
    assert hashlib.sha256(audio.data).hexdigest() == AUDIO_SHA256
    assert audio.transcript == TRANSCRIPT
    assert audio.media_type == "audio/pcm;rate=24000"
    assert audio.duration == pytest.approx(322604 / 48000)
    assert (r.id, r.model) == ("resp_audio_synthetic_1", "gpt-audio-synthetic")
    assert r.finished_reason is FinishReason.STOP and r.terminated
    assert r.usage is not None
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.total_tokens) == (24, 180, 204)
    # the block closes when both the audio and its transcript are done, before the end
    ends = [i for i, e in enumerate(result.events) if type(e) is BlockEnd]
    assert ends == [len(result.events) - 4]
    assert [type(e) for e in result.events[-3:]] == [ResponseMetadata, UsageUpdate, ResponseEnd]


def test_audio_media_type_option() -> None:
    r = run_file("synthetic/openai-responses-audio.sse",
                 audio_media_type="audio/pcm;rate=16000").response
    assert r.data_blocks[0].media_type == "audio/pcm;rate=16000"
    assert get_parser("openai-responses", audio_media_type="audio/wav")  # accepted by name


# ---------------------------------------------------------------- the SDK as oracle

SDK_COMPARABLE = [
    "openai-responses/text.sse",
    "openai-responses/function-call.sse",
    "openai-responses/deepseek-responses-reasoning-function-call.sse",
    "openai-responses/openrouter-reasoning_text.sse",
    "openai-responses/reasoning-summary-text.sse",
    "edge/openai-responses-parallel-tools.sse",
    "edge/openai-responses-server-tools.sse",
    "edge/openai-responses-incomplete.sse",
    "edge/openai-responses-no-deltas.sse",
]


@pytest.mark.parametrize("name", SDK_COMPARABLE)
def test_final_response_equals_the_sdk_accumulator(name: str) -> None:
    items = payloads(name)
    assert_matches_sdk(run(items).response, sdk_final(items))


# Not compared with the SDK (its ResponseStreamState cannot take them; we test the
# correct behaviour below instead):
# - missing-index: the SDK raises "Expected to have received `response.created`
#   before `response.queued`" (a resumed background stream starts with queued), and
#   needs output_index on every event;
# - unknown-events: the SDK raises IndexError on a text delta whose
#   content_part.added was skipped; kind-change: it asserts the item kind;
# - error-then-failed: the SDK's Stream raises at the `error` event;
# - the audio stream: the SDK does not accumulate audio at all.
# Deliberate differences where it works: a reasoning item's encrypted_content is the
# one of output_item.done (the SDK keeps response.completed's re-encrypted copy),
# and OpenRouter's renamed final reasoning id is not adopted (positions win).


def test_sdk_encrypted_content_differs_only_by_re_encryption() -> None:
    items = payloads("openai-responses/reasoning-summary-text.sse")
    ours = run(items).response.content[0]
    theirs = sdk_final(items).output[0].encrypted_content
    assert isinstance(ours, ThinkingBlock) and ours.encrypted is not None
    assert ours.encrypted != theirs and len(ours.encrypted) == len(theirs)
    assert ours.encrypted[:6] == theirs[:6] == "gAAAAA"  # both Fernet tokens


# ---------------------------------------------------------------- edge fixtures


def test_parallel_tool_calls_interleaved() -> None:
    r = run_file("edge/openai-responses-parallel-tools.sse").response
    reasoning, a, b, custom, no_deltas = r.content
    # a reasoning item with no summary still gets a block for its encrypted content
    assert isinstance(reasoning, ThinkingBlock) and reasoning.thinking == ""
    assert reasoning.encrypted == "ENC-DONE"  # output_item.done's, not added's
    assert reasoning.metadata == {"item_id": "rs_1", "kind": "item"}
    calls = [(c.id, c.name, c.input, c.metadata) for c in (a, b, custom, no_deltas)
             if isinstance(c, ToolCallBlock)]
    assert calls == [
        ("call_a", "get_weather", '{"city":"Paris"}', {"item_id": "fc_a"}),
        ("call_b", "get_time", '{"tz":"CET"}', {"item_id": "fc_b"}),
        # a custom tool call has no usual status (the SDK's type has no field): kept
        ("call_c", "run_sql", "SELECT 1 FROM t", {"item_id": "ctc_1", "custom": True,
                                                  "status": "completed"}),
        # no argument deltas at all: filled from output_item.done
        ("call_d", "noop", '{"verbose":true}', {"item_id": "fc_d"}),
    ]
    assert r.finished_reason is FinishReason.TOOL_CALLS
    assert r.usage is not None and (r.usage.cached_tokens, r.usage.reasoning_tokens) == (64, 32)


def test_missing_output_index_queued_start_and_done_without_completed() -> None:
    result = run_file("edge/openai-responses-missing-index.sse")
    r = result.response
    start = only(result.of_type(ResponseStart), ResponseStart)
    assert start.id == "resp_bg_1" and start.metadata["status"] == "queued"
    assert start.metadata["background"] is True
    text, call = r.content
    # deltas without output_index find their item by item_id, or the latest item
    assert isinstance(text, TextBlock) and text.text == "Hello world"
    assert text.citations == [Citation(
        url="https://example.com", title="Example", start=0, end=5, wire="openai-responses",
        raw={"type": "url_citation", "url": "https://example.com", "title": "Example",
             "start_index": 0, "end_index": 5})]
    assert isinstance(call, ToolCallBlock)
    assert (call.id, call.name, call.arguments()) == ("call_y", "lookup", {"q": "hi"})
    # [DONE] is not a response terminator: the response never completed
    assert result.parser.done
    assert r.finished_reason is FinishReason.UNKNOWN and r.stop_reason is None
    assert not r.terminated and r.is_last
    assert r.metadata["status"] == "in_progress" and r.usage is None


def test_unknown_events_and_fields_survive() -> None:
    result = run_file("edge/openai-responses-unknown-events.sse")
    r = result.response
    text, hologram, teleport = r.content
    assert isinstance(text, TextBlock) and text.text == "Hi!"
    # an unknown delta field becomes block metadata; an unknown item field too
    assert text.metadata == {"item_id": "msg_u", "vendor_token_id": 42, "phase": "final_answer"}
    assert isinstance(hologram, RawBlock) and hologram.kind == "output_hologram"
    assert hologram.data == {"type": "output_hologram", "url": "https://example.com/h.glb"}
    assert isinstance(teleport, RawBlock) and teleport.kind == "teleport_call"
    assert teleport.id == "tp_1"
    assert teleport.data == {"type": "teleport_call", "id": "tp_1", "status": "completed",
                             "destination": "mars", "eta": "3d"}
    assert [e["data"]["type"] for e in r.metadata["unknown_events"]] == [
        "response.future_feature.delta", "response.teleport_call.warming_up"]
    assert r.metadata["unknown_events"][0]["data"]["delta"] == "zzz"
    assert r.metadata["unknown_events"][0]["event"] == "response.future_feature.delta"
    assert r.metadata["vendor_envelope"] == {"region": "eu"}
    assert r.usage is not None and r.usage.total_tokens == 8
    # counts the provider did not state stay unknown, never 0
    assert r.usage.cached_tokens is None and r.usage.reasoning_tokens is None
    assert r.finished_reason is FinishReason.STOP


def test_kind_change_mid_stream_never_mismatches() -> None:
    r = run_file("edge/openai-responses-kind-change.sse").response
    announced, refusal, call = r.content
    # the part was announced as output_text but streamed as a refusal: both kept,
    # no delta ever applied to a block of the wrong kind
    assert isinstance(announced, TextBlock) and announced.text == ""
    assert isinstance(refusal, TextBlock) and refusal.refusal
    assert r.refusal == "I can't help with that." and r.text == ""
    assert isinstance(call, ToolCallBlock) and call.input == "{}"
    # the final output lists no function call: the response did not ask for tools
    assert r.finished_reason is FinishReason.STOP


def test_server_side_tools() -> None:
    result = run_file("edge/openai-responses-server-tools.sse")
    r = result.response
    search, text, image_call, partial0, partial1, image, code, mcp = r.content
    assert isinstance(search, RawBlock) and search.kind == "web_search_call"
    # the raw item is updated from output_item.done (action, final status)
    assert search.data["status"] == "completed"
    assert search.data["action"]["query"] == "weather paris"
    assert search.metadata == {"progress": "completed"}
    progress = [e.delta.metadata["progress"] for e in result.of_type(BlockDelta)
                if e.index == 0 and isinstance(e.delta, MetadataDelta)]
    assert progress == ["in_progress", "searching", "completed"]
    assert isinstance(text, TextBlock) and text.text == "It is sunny."
    assert text.citations == [Citation(
        url="https://weather.example", title="Weather", start=0, end=12, wire="openai-responses",
        raw={"type": "url_citation", "url": "https://weather.example", "title": "Weather",
             "start_index": 0, "end_index": 12})]
    assert isinstance(image_call, RawBlock) and image_call.kind == "image_generation_call"
    assert image_call.data["revised_prompt"] == "a sunny street"
    for i, block in enumerate((partial0, partial1)):
        assert isinstance(block, DataBlock) and block.media_type == "image/png"
        assert block.data == f"PARTIAL-{i}".encode()
        assert block.metadata["partial"] is True and block.metadata["partial_image_index"] == i
        assert block.metadata["item_id"] == "ig_1" and block.metadata["size"] == "1024x1024"
    assert isinstance(image, DataBlock) and image.data == b"FINAL-IMAGE"
    assert image.media_type == "image/png" and image.metadata == {"item_id": "ig_1"}
    assert isinstance(code, RawBlock) and code.kind == "code_interpreter_call"
    assert code.data["code"] == "print(1+1)"
    assert code.data["outputs"] == [{"type": "logs", "logs": "2\n"}]
    assert isinstance(mcp, RawBlock) and mcp.data["output"] == "answer"
    assert mcp.data["arguments"] == '{"q":"x"}' and mcp.data["status"] == "completed"
    assert r.tool_calls == []  # server-side tools are not calls for the client
    assert r.finished_reason is FinishReason.STOP


def test_incomplete_max_output_tokens_marks_the_cut_call() -> None:
    r = run_file("edge/openai-responses-incomplete.sse").response
    text, call = r.content
    assert isinstance(text, TextBlock) and text.text == "Writing the file now."
    assert isinstance(call, ToolCallBlock) and call.incomplete
    assert call.input == '{"path":"a.txt","content":"Lorem ipsum'
    assert call.metadata == {"item_id": "fc_z", "status": "incomplete"}
    assert r.finished_reason is FinishReason.LENGTH and r.stop_reason == "max_output_tokens"
    assert r.terminated
    assert r.metadata["incomplete_details"] == {"reason": "max_output_tokens"}
    assert r.usage is not None and r.usage.output_tokens == 16


def test_no_deltas_content_from_item_done_and_completed() -> None:
    result = run_file("edge/openai-responses-no-deltas.sse")
    r = result.response
    assert result.of_type(BlockDelta) == []
    text, call, thinking, late = r.content
    assert isinstance(text, TextBlock) and text.text == "Full answer."
    assert isinstance(call, ToolCallBlock) and call.arguments() == {"a": 1}
    # a reasoning item whose content only the final response holds
    assert isinstance(thinking, ThinkingBlock) and thinking.thinking == "Thought about it."
    assert thinking.metadata == {"item_id": "rs_n", "summary_index": 0, "kind": "summary"}
    # an output item that was never streamed at all
    assert isinstance(late, TextBlock) and late.text == "Late text."
    assert late.metadata == {"item_id": "msg_late"}
    assert r.finished_reason is FinishReason.TOOL_CALLS


# ---------------------------------------------------------------- every fixture


def test_every_listed_fixture_is_in_the_every_fixture_tests() -> None:
    assert {FIXTURES / name for name in RECORDED + EDGE} <= set(ALL)


@pytest.mark.parametrize("path", ALL, ids=fixture_id)
def test_fast_decode_and_the_general_path_agree(path: Path) -> None:
    """The typed fast decode is only a faster way to the same events: with it off,
    every payload takes the general path, and nothing changes (payload by payload,
    and through the pipeline's ``feed_into`` in 7-byte chunks)."""
    items = payloads(path)
    runs = []
    for fast_decode in (True, False):
        with id_factory(counting_ids()):
            result = run(items, fast_decode=fast_decode)
        runs.append(([event_to_dict(e) for e in result.events], comparable(result.response)))
    assert runs[0] == runs[1]
    data = body(path)
    for fast_decode in (True, False):
        with id_factory(counting_ids()):
            pipeline = Pipeline("openai-responses", fast_decode=fast_decode)
            events = [event for i in range(0, len(data), 7)
                      for event in pipeline.feed(data[i:i + 7])]
            events += pipeline.finish()
        assert [event_to_dict(e) for e in events] == runs[0][0]
        assert comparable(pipeline.response) == runs[0][1]


# ---------------------------------------------------------------- inline cases

CREATED = {"type": "response.created",
           "response": {"id": "resp_a", "model": "m", "status": "in_progress", "output": []}}
MESSAGE = {"type": "response.output_item.added", "output_index": 0,
           "item": {"type": "message", "id": "msg_1", "role": "assistant", "content": []}}


def text_delta(text: Any, **extra: Any) -> dict[str, Any]:
    return {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0,
            "content_index": 0, "delta": text, **extra}


def test_hot_path_is_one_event_per_delta() -> None:
    parser = OpenAIResponsesParser()
    for payload in (CREATED, MESSAGE, text_delta("a")):
        parser.feed(json.dumps(payload))
    event = json.dumps(text_delta(" b", logprobs=[], obfuscation="Xy", sequence_number=9))
    (out,) = parser.feed(event, "response.output_text.delta")
    assert type(out) is BlockDelta and out.delta == TextDelta(" b") and out.index == 0
    cases = [
        ({"type": "response.reasoning_summary_text.delta", "output_index": 1,
          "summary_index": 0, "delta": "t"}, ThinkingDelta("t")),
        ({"type": "response.reasoning_text.delta", "output_index": 2, "content_index": 0,
          "delta": "r"}, ThinkingDelta("r")),
        ({"type": "response.function_call_arguments.delta", "output_index": 3,
          "delta": "{"}, ToolInputDelta("{")),
    ]
    for payload, delta in cases:
        first = parser.feed(json.dumps(payload))  # opens the block
        assert [type(e) for e in first] == [BlockStart, BlockDelta]
        (again,) = parser.feed(json.dumps(payload))
        assert type(again) is BlockDelta and again.delta == delta


def test_malformed_json_is_a_protocol_error_with_offset() -> None:
    parser = OpenAIResponsesParser()
    with pytest.raises(ProtocolError) as info:
        parser.feed('{"type":"response.output_text.delta","delta":"a"',
                    "response.output_text.delta")
    assert info.value.offset is not None and info.value.offset > 40
    assert info.value.event == "response.output_text.delta"


def test_invalid_base64_audio_is_a_protocol_error() -> None:
    parser = OpenAIResponsesParser()
    with pytest.raises(ProtocolError, match="base64"):
        parser.feed(json.dumps({"type": "response.audio.delta", "delta": "abc"}))


def test_mistyped_fields_fall_back_instead_of_crashing() -> None:
    result = run([wire(CREATED), wire(MESSAGE),
                  # output_index as a string: the item is found by its id instead
                  wire(text_delta("ok", output_index="0")),
                  # a delta that is not text: kept whole as an unknown event
                  wire(text_delta(["not", "text"])),
                  wire({"type": 7}), ("response.completed", "[1, 2]"),
                  # no type in the payload: the SSE event name decides
                  ("response.output_text.delta", json.dumps(
                      {"output_index": 0, "content_index": 0, "delta": "!", "extra": 1}))])
    r = result.response
    assert r.text == "ok!" and not result.parser.done
    kept = [unknown["data"] for unknown in r.metadata["unknown_events"]]
    assert kept[0]["delta"] == ["not", "text"] and kept[1] == {"type": 7} and kept[2] == [1, 2]
    check_event_contract(result.events)


def test_clean_end_without_terminator_closes_everything() -> None:
    result = run([wire(CREATED), wire(MESSAGE), wire(text_delta("par")),
                  wire({"type": "response.output_item.added", "output_index": 1,
                        "item": {"type": "function_call", "id": "fc", "call_id": "c",
                                 "name": "f", "arguments": ""}}),
                  wire({"type": "response.function_call_arguments.delta", "output_index": 1,
                        "delta": '{"x":'})])
    r = result.response
    assert not result.parser.done
    end = result.events[-1]
    assert type(end) is ResponseEnd and not end.terminated and end.finish_reason == "unknown"
    assert r.text == "par" and r.tool_calls[0].input == '{"x":'
    assert r.finished_reason is FinishReason.UNKNOWN and not r.terminated
    check_event_contract(result.events)
    assert result.parser.finish() == []  # finishing twice adds nothing


def test_reasoning_item_without_done_keeps_its_added_encrypted_content() -> None:
    result = run([wire(CREATED),
                  wire({"type": "response.output_item.added", "output_index": 0,
                        "item": {"type": "reasoning", "id": "rs_9", "summary": [],
                                 "encrypted_content": "ENC-ONLY"}})])
    block = only(result.response.content, ThinkingBlock)
    assert block.encrypted == "ENC-ONLY"
    assert block.metadata == {"item_id": "rs_9", "kind": "item"}


def test_incomplete_content_filter() -> None:
    r = run([wire(CREATED), wire(MESSAGE), wire(text_delta("Some")),
             wire({"type": "response.incomplete", "response": {
                 "id": "resp_a", "status": "incomplete", "output": [],
                 "incomplete_details": {"reason": "content_filter"}}})]).response
    assert r.finished_reason is FinishReason.CONTENT_FILTER
    assert r.stop_reason == "content_filter" and r.terminated and r.text == "Some"


def test_failed_without_error_event_reports_the_response_error() -> None:
    result = run([wire(CREATED), wire({"type": "response.failed", "response": {
        "id": "resp_a", "status": "failed", "output": [],
        "error": {"code": "server_error", "message": "The server had an error."}}})])
    (error,) = result.of_type(ErrorEvent)
    assert (error.message, error.code) == ("The server had an error.", "server_error")
    assert error.raw == {"code": "server_error", "message": "The server had an error."}
    assert result.response.finished_reason is FinishReason.ERROR


def test_sdk_shaped_error_event_and_no_failed() -> None:
    result = run([wire(CREATED), wire(MESSAGE), wire(text_delta("half")),
                  wire({"type": "error", "code": "rate_limit_exceeded", "message": "Slow down.",
                        "param": None, "sequence_number": 4})])
    (error,) = result.of_type(ErrorEvent)
    assert (error.message, error.code, error.error_type) == (
        "Slow down.", "rate_limit_exceeded", None)
    r = result.response
    assert r.text == "half" and r.finished_reason is FinishReason.ERROR and not r.terminated


def test_event_name_stands_in_for_a_missing_type() -> None:
    r = run([wire(CREATED), wire(MESSAGE), wire(text_delta("x")),
             ("response.incomplete", json.dumps({"response": {
                 "id": "resp_a", "status": "incomplete", "output": [],
                 "incomplete_details": {"reason": "max_output_tokens"}}}))]).response
    assert r.finished_reason is FinishReason.LENGTH and r.terminated


def test_later_response_id_is_recorded_but_the_first_kept() -> None:
    r = run([wire(CREATED), wire({"type": "response.completed", "response": {
        "id": "resp_b", "status": "completed", "output": []}})]).response
    assert r.id == "resp_a" and r.metadata["final_response_id"] == "resp_b"
    assert r.model == "m"


def test_usage_with_cache_writes_and_audio_tokens() -> None:
    usage = {"input_tokens": 50, "output_tokens": 20, "total_tokens": 70,
             "input_tokens_details": {"cached_tokens": 10, "cache_write_tokens": 30,
                                      "audio_tokens": 4},
             "output_tokens_details": {"reasoning_tokens": 5, "audio_tokens": 6}}
    result = run([wire({"type": "response.completed", "response": {
        "id": "resp_u", "status": "completed", "output": [], "usage": usage}})])
    (update,) = result.of_type(UsageUpdate)
    u = update.usage
    assert (u.cached_tokens, u.cache_creation_tokens, u.reasoning_tokens, u.audio_tokens) == (
        10, 30, 5, 10)
    assert u.raw == usage
    # a terminal event without an earlier created still starts the response
    assert result.response.id == "resp_u" and result.response.terminated


def test_late_part_done_for_an_unstreamed_part_opens_it() -> None:
    r = run([wire(CREATED), wire(MESSAGE),
             wire({"type": "response.output_text.done", "output_index": 0, "content_index": 0,
                   "item_id": "msg_1", "text": "only in done"})]).response
    assert r.text == "only in done"


def test_partial_image_payload_decodes() -> None:
    png = b"\x89PNG\r\n\x1a\n"
    r = run([wire({"type": "response.image_generation_call.partial_image", "output_index": 0,
                   "item_id": "ig", "partial_image_index": 0,
                   "partial_image_b64": base64.b64encode(png).decode(),
                   "output_format": "webp"})]).response
    image = only(r.content, DataBlock)
    assert image.data == png and image.media_type == "image/webp"


def test_reused_output_index_starts_a_new_item() -> None:
    message = {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
               "content": [{"type": "output_text", "text": "A", "annotations": []}]}
    call = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f",
            "arguments": '{"k":2}', "status": "completed"}
    result = run([
        wire(CREATED), wire(MESSAGE), wire(text_delta("A")),
        wire({"type": "response.output_item.done", "output_index": 0, "item": message}),
        # a vendor that numbers every item 0
        wire({"type": "response.output_item.added", "output_index": 0,
              "item": {**call, "arguments": "", "status": "in_progress"}}),
        wire({"type": "response.function_call_arguments.delta", "output_index": 0,
              "delta": '{"k":'}),
        wire({"type": "response.function_call_arguments.delta", "output_index": 0,
              "delta": "2}"}),
        wire({"type": "response.output_item.done", "output_index": 0, "item": call}),
        wire({"type": "response.completed", "response": {
            "id": "resp_a", "status": "completed", "output": [message, call]}}),
    ])
    r = result.response
    assert [b.type for b in r.content] == ["text", "tool_call"]  # nothing duplicated
    assert r.text == "A" and r.tool_calls[0].arguments() == {"k": 2}
    assert "unknown_events" not in r.metadata  # the second done was not mistaken for a repeat
    assert r.finished_reason is FinishReason.TOOL_CALLS
    check_event_contract(result.events)


@pytest.mark.parametrize("arguments_done", [False, True])
def test_incomplete_without_output_marks_the_open_call(arguments_done: bool) -> None:
    items = [wire(CREATED),
             wire({"type": "response.output_item.added", "output_index": 0,
                   "item": {"type": "function_call", "id": "fc", "call_id": "call_cut",
                            "name": "write", "arguments": ""}}),
             wire({"type": "response.function_call_arguments.delta", "output_index": 0,
                   "delta": '{"text":"abc'})]
    if arguments_done:  # a part-level .done came, the item's done did not
        items.append(wire({"type": "response.function_call_arguments.done", "output_index": 0,
                           "arguments": '{"text":"abc'}))
    items.append(wire({"type": "response.incomplete", "response": {
        "id": "resp_a", "status": "incomplete",
        "incomplete_details": {"reason": "max_output_tokens"}}}))
    r = run(items).response
    (call,) = r.tool_calls
    assert call.incomplete and call.input == '{"text":"abc' and call.name == "write"
    assert r.finished_reason is FinishReason.LENGTH


def test_part_done_fills_what_deltas_and_item_done_missed() -> None:
    # deltas skipped and an output_item.done without content: the part's own .done
    # (output_text.done, then content_part.done with the annotations) is authoritative
    cite = {"type": "url_citation", "url": "https://a.example", "title": "A",
            "start_index": 0, "end_index": 4}
    r = run([wire(CREATED), wire(MESSAGE),
             wire({"type": "response.content_part.added", "output_index": 0, "content_index": 0,
                   "part": {"type": "output_text", "text": "", "annotations": []}}),
             wire({"type": "response.output_text.done", "output_index": 0, "content_index": 0,
                   "text": "Done text"}),
             wire({"type": "response.content_part.done", "output_index": 0, "content_index": 0,
                   "part": {"type": "output_text", "text": "Done text", "annotations": [cite]}}),
             wire({"type": "response.output_item.done", "output_index": 0,
                   "item": {"type": "message", "id": "msg_1", "content": []}})]).response
    block = only(r.content, TextBlock)
    assert block.text == "Done text"
    assert block.citations == [Citation(url="https://a.example", title="A", start=0, end=4,
                                        raw=cite, wire="openai-responses")]


def test_content_announced_in_output_item_added_is_never_duplicated() -> None:
    added = {"type": "response.output_item.added", "output_index": 0,
             "item": {"type": "message", "id": "msg_1", "role": "assistant",
                      "content": [{"type": "output_text", "text": "Pre", "annotations": []}]}}
    # no delta, and a done item without content: the announced content is all there is
    assert run([wire(CREATED), wire(added),
                wire({"type": "response.output_item.done", "output_index": 0,
                      "item": {"type": "message", "id": "msg_1", "content": []}}),
                ]).response.text == "Pre"
    # deltas that repeat it: streamed once
    assert run([wire(CREATED), wire(added), wire(text_delta("Pr")),
                wire(text_delta("e"))]).response.text == "Pre"


def test_empty_final_output_falls_back_to_the_streamed_calls() -> None:
    r = run([wire(CREATED),
             wire({"type": "response.function_call_arguments.delta", "output_index": 0,
                   "item_id": "fc", "delta": "{}"}),
             wire({"type": "response.completed", "response": {
                 "id": "resp_a", "status": "completed", "output": []}})]).response
    assert r.finished_reason is FinishReason.TOOL_CALLS and r.tool_calls[0].input == "{}"


def test_audio_block_stays_open_until_audio_and_transcript_are_done() -> None:
    pcm = base64.b64encode(b"\x01\x00\x02\x00").decode()
    result = run([wire({"type": "response.audio.transcript.delta", "delta": "Hi"}),
                  wire({"type": "response.audio.transcript.done"}),
                  wire({"type": "response.audio.delta", "delta": pcm}),
                  wire({"type": "response.audio.delta", "delta": pcm}),
                  wire({"type": "response.audio.done"})])
    audio = only(result.response.content, DataBlock)
    assert audio.data == b"\x01\x00\x02\x00" * 2 and audio.transcript == "Hi"
    assert type(result.events[-2]) is BlockEnd  # closed by audio.done, before finish()'s end


# ---------------------------------------------------------------- hostile input (issue 10)

BOTH_PATHS = pytest.mark.parametrize("fast_decode", [True, False], ids=["fast", "general"])


@BOTH_PATHS
def test_invalid_utf8_is_replaced_as_every_parser_does(fast_decode: bool) -> None:
    # was: msgspec.DecodeError re-raised by a bare `raise`
    alone = b'{"type":"response.output_text.delta","delta":"\xff"}'
    r = run([(None, alone)], fast_decode=fast_decode).response  # type: ignore[list-item]  # bytes
    assert r.text == "\ufffd"
    in_stream = (b'{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,'
                 b'"content_index":0,"delta":"ok \xff\xfe"}')
    items: list[Any] = [wire(CREATED), wire(MESSAGE), wire(text_delta("<")),
                        Payload("response.output_text.delta", in_stream), wire(text_delta(">"))]
    result = run(items, fast_decode=fast_decode)
    assert result.response.text == "<ok \ufffd\ufffd>"
    check_event_contract(result.events)
    pipeline = Pipeline("openai-responses", fast_decode=fast_decode)
    pipeline.feed(b"data: " + alone + b"\n\n")
    pipeline.finish()
    assert pipeline.response.text == "\ufffd"


WRONGLY_TYPED = [
    # ids and positions of a delta: unhashable, or of another type
    pytest.param([text_delta("a", item_id=[]), text_delta("b", output_index={}),
                  text_delta("c", content_index=[]), text_delta("d", item_id={}, output_index=[])],
                 "abcd", id="delta-ids"),
    pytest.param([{"type": "response.output_item.added", "output_index": [],
                   "item": {"type": [], "id": {}, "content": {}}},
                  {"type": "response.output_item.done", "output_index": {},
                   "item": {"type": {}, "id": [], "status": []}}], "", id="item-ids"),
    pytest.param([{"type": "response.content_part.added", "output_index": 0, "content_index": [],
                   "item_id": {}, "part": {"type": [], "text": {}}},
                  {"type": "response.output_text.done", "output_index": [], "content_index": {},
                   "text": []},
                  {"type": "response.reasoning_summary_part.added", "summary_index": {},
                   "part": []},
                  {"type": "response.function_call_arguments.done", "item_id": [], "name": [],
                   "arguments": {}}], "", id="part-fields"),
    pytest.param([{"type": "response.output_text.annotation.added", "output_index": 0,
                   "content_index": [], "item_id": [], "annotation": {"type": []}},
                  {"type": "response.output_text.annotation.added", "annotation": []}],
                 "", id="annotations"),
    pytest.param([{"type": "response.web_search_call.searching", "item_id": [],
                   "output_index": {}},
                  {"type": "response.image_generation_call.partial_image", "item_id": {},
                   "partial_image_index": [], "partial_image_b64": "UE5H",
                   "output_format": []}], "", id="server-tools"),
    pytest.param([{"type": [], "delta": "x"}, {"type": {}}, {"type": "error", "error": {
        "message": [], "code": {}, "type": [], "status": {}}}], "", id="types-and-errors"),
    # was: TypeError (unhashable type: 'list') reading the final output's item types
    pytest.param([{"type": "response.incomplete", "response": {
        "id": [], "model": {}, "status": [], "incomplete_details": {"reason": []},
        "output": [{"type": []}, {"type": {}}, "x", {"type": "function_call", "call_id": [],
                                                   "name": {}, "arguments": []}],
        "usage": {"input_tokens": [], "output_tokens": "3",
                  "input_tokens_details": []}}}], "", id="terminal-response"),
]


@BOTH_PATHS
@pytest.mark.parametrize(("hostile", "text"), WRONGLY_TYPED)
def test_wrongly_typed_fields_are_treated_as_absent(hostile: list[dict[str, Any]], text: str,
                                                    fast_decode: bool) -> None:
    items = [wire(CREATED), wire(MESSAGE)] + [wire(payload) for payload in hostile]
    result = run(items, fast_decode=fast_decode)
    check_event_contract(result.events)
    assert result.response.text == text
    assert result.response.finished_reason is not None


@BOTH_PATHS
def test_wrong_ids_find_the_latest_item(fast_decode: bool) -> None:
    call = {"type": "response.output_item.added", "output_index": 1,
            "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f"}}
    r = run([wire(CREATED), wire(MESSAGE), wire(text_delta("T")), wire(call),
             wire({"type": "response.function_call_arguments.delta", "output_index": [],
                   "item_id": {}, "delta": "{}"})], fast_decode=fast_decode).response
    assert r.text == "T"
    assert [(c.id, c.name, c.input) for c in r.tool_calls] == [("call_1", "f", "{}")]


@BOTH_PATHS
@pytest.mark.parametrize("bad", ["é", "w", "abc", "YWJj\u00e9"])
def test_bad_base64_audio_is_a_protocol_error_naming_the_field(bad: str,
                                                               fast_decode: bool) -> None:
    # was: ValueError (non-ASCII) escaping binascii
    parser = OpenAIResponsesParser(fast_decode=fast_decode)
    good = base64.b64encode(b"\x01\x00").decode()
    started = parser.feed(json.dumps({"type": "response.audio.delta", "delta": good}))
    assert [type(e) for e in started] == [ResponseStart, BlockStart, BlockDelta]
    with pytest.raises(ProtocolError, match=r"delta field of response\.audio\.delta") as info:
        parser.feed(json.dumps({"type": "response.audio.delta", "delta": bad}))
    assert info.value.event == "response.audio.delta" and info.value.raw == bad


@BOTH_PATHS
@pytest.mark.parametrize("bad", ["w", "é", "YWJj\u00e9="])
def test_image_base64_that_does_not_decode_is_kept_raw(bad: str, fast_decode: bool) -> None:
    # was: binascii.Error from Base64Source; an image is self-contained, so the stream
    # goes on and the text stays where a user can see it
    partial = {"type": "response.image_generation_call.partial_image", "output_index": 1,
               "item_id": "ig_1", "partial_image_index": 0, "partial_image_b64": bad}
    item = {"type": "image_generation_call", "id": "ig_1", "status": "completed",
            "result": bad}
    result = run([wire(CREATED), wire(MESSAGE), wire(text_delta("before")), wire(partial),
                  wire({"type": "response.output_item.done", "output_index": 1, "item": item}),
                  wire(text_delta(" after"))], fast_decode=fast_decode)
    r = result.response
    assert r.text == "before after" and r.data_blocks == []
    (raw,) = [b for b in r.content if isinstance(b, RawBlock)]
    assert raw.kind == "image_generation_call" and raw.data["result"] == bad
    assert [u["data"] for u in r.metadata["unknown_events"]] == [partial]
    check_event_contract(result.events)


@BOTH_PATHS
@pytest.mark.parametrize("depth", [600, 100_000])
def test_json_nested_too_deeply_is_a_protocol_error(depth: int, fast_decode: bool) -> None:
    nested = "[" * depth + "]" * depth
    parser = OpenAIResponsesParser(fast_decode=fast_decode)
    for payload in (CREATED, MESSAGE, text_delta("a")):
        parser.feed(json.dumps(payload))
    for data in (  # in the typed decode's logprobs, in an unknown field, at the top
            f'{{"type":"response.output_text.delta","output_index":0,"content_index":0,'
            f'"delta":"b","logprobs":{nested}}}',
            f'{{"type":"response.output_text.delta","delta":"b","extra":{nested}}}',
            nested):
        with pytest.raises(ProtocolError, match="nested") as info:
            parser.feed(data, "response.output_text.delta")
        assert info.value.event == "response.output_text.delta"


@BOTH_PATHS
def test_nothing_opens_a_block_after_the_response_ended(fast_decode: bool) -> None:
    late = [text_delta("late"), MESSAGE,
            {"type": "response.content_part.added", "output_index": 0, "content_index": 1,
             "part": {"type": "output_text", "text": "late part"}},
            {"type": "response.created", "response": {"id": "resp_z", "model": "z"}}]
    result = run([wire(CREATED), wire(MESSAGE), wire(text_delta("on time")),
                  wire({"type": "response.completed", "response": {
                      "id": "resp_a", "status": "completed", "output": []}}),
                  *(wire(payload) for payload in late), Payload(None, "[DONE]"),
                  wire({"type": "error", "message": "after the end", "code": "late"})],
                 fast_decode=fast_decode)
    check_event_contract(result.events)
    r = result.response
    assert r.text == "on time" and (r.id, r.model) == ("resp_a", "m")
    assert [u["data"] for u in r.metadata["unknown_events"]] == late  # kept, not lost
    assert result.parser.done and r.terminated
    (error,) = result.of_type(ErrorEvent)  # an error is still reported
    assert error.message == "after the end" and r.finished_reason is FinishReason.ERROR


@pytest.mark.parametrize("provider", ["openai-responses", "auto"])
def test_a_block_before_the_response_object_starts_the_response_with_the_provider(
        provider: str) -> None:
    """The first block starts the response (the provider is known, id and model
    are not yet: the id is made up, the tests' counting one); the late response
    object gives them as metadata."""
    events, response = replay(sse_body([wire(text_delta("early")), wire(CREATED)]), provider)
    check_event_contract(events)  # never a ResponseStart after a block
    assert [type(e) for e in events[:2]] == [ResponseStart, BlockStart]
    assert (events[0].id, events[0].model, events[0].provider) == \
        ("resp_000000000000000000000001", None, "openai-responses")
    (update,) = [e for e in events if isinstance(e, ResponseMetadata)]
    assert (update.id, update.model, update.metadata) == ("resp_a", "m", {"status": "in_progress"})
    assert (response.provider, response.id, response.model, response.text) == \
        ("openai-responses", "resp_a", "m", "early")


def test_map_usage_is_the_usage_table() -> None:
    usage = {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7,
             "input_tokens_details": {"audio_tokens": 1},
             "output_tokens_details": {"audio_tokens": 2, "reasoning_tokens": "9"}}
    mapped = map_usage(usage)
    assert (mapped.input_tokens, mapped.output_tokens, mapped.total_tokens) == (5, 2, 7)
    assert mapped.audio_tokens == 3 and mapped.reasoning_tokens is None  # "9" is no count
    assert mapped.raw == usage and mapped.accounting == "cumulative"


WRONG_VALUES: list[Any] = [[], {}, "x", None, -1, 1.5, 10**30]
MUTATED = ["edge/openai-responses-server-tools.sse", "edge/openai-responses-parallel-tools.sse",
           "edge/openai-responses-missing-index.sse", "edge/openai-responses-incomplete.sse",
           "openai-responses/error-then-failed.chunks.jsonl"]


def _field_paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every field of a payload (the first items of lists too), as key paths."""
    children: list[tuple[Any, Any]] = []
    if isinstance(value, dict):
        children = list(value.items())
    elif isinstance(value, list):
        children = list(enumerate(value[:2]))
    out = []
    for key, child in children:
        out.append((*prefix, key))
        out += _field_paths(child, (*prefix, key))
    return out


@pytest.mark.parametrize("name", MUTATED)
def test_every_field_wrongly_typed_never_raises_anything_but_a_stream_error(name: str) -> None:
    """Each field of each payload, one at a time, replaced by a value of every wrong
    type: the parser ends with a typed error or a response that keeps the event
    contract (hand-built cases above; this sweeps the rest)."""
    items = payloads(name)
    for position, (event, data) in enumerate(items):
        if data.strip() == "[DONE]":
            continue
        payload = json.loads(data)
        for field_path in _field_paths(payload):
            for value in WRONG_VALUES:
                mutated = json.loads(data)
                target = mutated
                for key in field_path[:-1]:
                    target = target[key]
                target[field_path[-1]] = value
                changed = [*items[:position], Payload(event, json.dumps(mutated)),
                           *items[position + 1:]]
                try:
                    result = run(changed, fast_decode=position % 2 == 0)
                except StreamError:
                    continue
                check_event_contract(result.events)
