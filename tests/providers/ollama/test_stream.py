"""OllamaParser: the documented /api/generate error stream and /api/chat,
/api/generate edge-case streams written from Ollama's documented format, and
hostile lines.

The contracts every wire keeps (the event contract, payload at a time equals
the byte pipeline, auto-detection, the registry's parser) are
``providers/test_wire_contracts.py``'s, written once for every wire."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Sequence
from pathlib import Path

import pytest
from support.growth import objects_held, payloads_carried
from support.parser_runs import Run, check_event_contract, run_parser
from support.recordings import EDGE, FIXTURES, Payload, payloads

import streamkit
from streamkit import (
    BlockDelta,
    DataBlock,
    FinishReason,
    ProtocolError,
    ProviderError,
    TextBlock,
    TextDelta,
    ThinkingBlock,
    ToolCallBlock,
)
from streamkit.model.events import ResponseMetadata, ResponseStart
from streamkit.model.response import ChatResponse
from streamkit.providers.ollama import OllamaParser, map_done_reason

DOCS_ERROR = FIXTURES / "ollama" / "docs-generate-midstream-error.ndjson"
GENERATED_CALL_ID = r"^call_[0-9a-f]{24}$"


def run(parser: OllamaParser, items: Sequence[tuple[str | None, str]]) -> Run:
    """Lines one at a time into ``parser``, then ``finish()``; the contract checked."""
    result = run_parser(parser, items)
    check_event_contract(result.events)
    return result


def parse(path: Path) -> ChatResponse:
    return run(OllamaParser(), payloads(path)).response



def lines(*objects: object) -> list[Payload]:
    return [Payload(None, json.dumps(o)) for o in objects]


def chat(content: str = "", done: bool = False, **message: object) -> dict[str, object]:
    return {"model": "llama3.2", "created_at": "2025-06-01T00:00:00Z",
            "message": {"role": "assistant", "content": content, **message}, "done": done}


# ---------------------------------------------------------------- the documented stream


def test_docs_generate_midstream_error() -> None:
    r = parse(DOCS_ERROR)
    assert r.model == "gemma4"
    assert r.metadata["created_at"] == "2025-10-26T17:21:21.196249Z"
    assert len(r.content) == 1 and r.text == " Yes.Ican"
    assert r.finished_reason is FinishReason.ERROR and not r.terminated
    assert r.metadata["error"]["message"] == "an error was encountered while running the model"
    assert r.usage is None  # no done line: no counters


def test_error_line_raises_provider_error_with_the_partial() -> None:
    with pytest.raises(ProviderError) as info:
        streamkit.stream(iter([DOCS_ERROR.read_bytes()])).final()  # auto-detected
    assert info.value.message == "an error was encountered while running the model"
    assert info.value.raw == {"error": "an error was encountered while running the model"}
    assert info.value.partial is not None and info.value.partial.text == " Yes.Ican"


# ---------------------------------------------------------------- edge fixtures


def test_chat_thinking_text_and_tool_calls_with_object_arguments() -> None:
    r = parse(EDGE / "ollama-chat-thinking-tools.ndjson")
    assert r.model == "qwen3:8b"
    thinking, text, weather, clock = r.content
    assert isinstance(thinking, ThinkingBlock)
    assert thinking.thinking == "The user wants the weather."
    assert isinstance(text, TextBlock) and text.text == "Let me check."
    assert isinstance(weather, ToolCallBlock) and isinstance(clock, ToolCallBlock)
    assert weather.name == "get_weather"
    assert weather.input == '{"city":"Paris","unit":"celsius"}'  # the object's JSON text
    assert weather.arguments() == {"city": "Paris", "unit": "celsius"}
    assert (clock.name, clock.arguments()) == ("get_time", {"tz": "Europe/Paris"})
    assert clock.metadata == {"index": 1}
    assert re.match(GENERATED_CALL_ID, weather.id) and weather.id != clock.id
    assert r.usage is not None
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.total_tokens) == (26, 298, 324)
    assert r.usage.raw == {"total_duration": 4883583458, "load_duration": 1334875,
                           "prompt_eval_count": 26, "prompt_eval_duration": 342546000,
                           "eval_count": 298, "eval_duration": 4535599000}
    # Ollama says "stop" after tool calls; the uniform reason says what happened
    assert r.finished_reason is FinishReason.TOOL_CALLS and r.stop_reason == "stop"
    assert r.terminated


def test_chat_text_cut_at_length() -> None:
    r = parse(EDGE / "ollama-chat-text-length.ndjson")
    assert r.model == "llama3.2" and r.text == "The sky is blue because"
    assert len(r.content) == 1
    assert r.usage is not None
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.total_tokens) == (12, 3, 15)
    assert r.finished_reason is FinishReason.LENGTH and r.stop_reason == "length"
    assert r.metadata == {"created_at": "2025-06-01T11:00:00.000000Z"}  # first line's only


def test_generate_thinking_response_and_context() -> None:
    r = parse(EDGE / "ollama-generate-thinking.ndjson")
    assert r.model == "deepseek-r1:7b"
    thinking, text = r.content
    assert isinstance(thinking, ThinkingBlock) and thinking.thinking == "Two plus two is four."
    assert isinstance(text, TextBlock) and text.text == "4."
    assert r.metadata["context"] == [151644, 17, 10, 17, 151645]
    assert r.usage is not None
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.total_tokens) == (8, 5, 13)
    assert r.finished_reason is FinishReason.STOP and r.terminated


# ---------------------------------------------------------------- inline edge cases


def test_text_line_is_exactly_one_event() -> None:
    parser = OllamaParser()
    parser.feed(json.dumps(chat("Hi")))
    generate = {"model": "llama3.2", "created_at": "t", "response": "!", "done": False}
    for line, text in ((chat(" there"), " there"), (generate, "!")):
        out = parser.feed(json.dumps(line))
        assert len(out) == 1 and isinstance(out[0], BlockDelta)
        assert out[0].delta == TextDelta(text)


def test_missing_done_line_ends_unknown_without_terminator() -> None:
    parser = OllamaParser()
    acc = run(parser, lines(chat("a"), chat("b"))).accumulator
    assert not parser.done
    assert acc.response.text == "ab"
    assert acc.response.finished_reason is FinishReason.UNKNOWN
    assert not acc.response.terminated and acc.response.is_last
    assert parser.finish() == []


def test_done_line_is_the_terminator() -> None:
    parser = OllamaParser()
    parser.feed(json.dumps(chat("a")))
    assert not parser.done
    parser.feed(json.dumps({**chat(done=True), "done_reason": "stop"}))
    assert parser.done


def test_load_reply_has_no_content_and_keeps_its_reason() -> None:
    acc = run(OllamaParser(), lines({**chat(done=True), "done_reason": "load"})).accumulator
    r = acc.response
    assert r.content == [] and r.usage is None  # no counters: nothing invented
    assert r.finished_reason is FinishReason.STOP and r.stop_reason == "load"
    assert r.metadata["done_reason"] == "load"


def test_done_without_reason_and_unknown_fields_survive() -> None:
    acc = run(OllamaParser(), lines(
        {**chat("x", tool_name="calc"), "remote_host": "https://ollama.com"},
        {**chat("y"), "remote_host": "https://ollama.com"},
        {**chat(done=True), "eval_count": 2},
    )).accumulator
    r = acc.response
    assert r.text == "xy"
    assert r.metadata["remote_host"] == "https://ollama.com"
    assert r.metadata["message.tool_name"] == "calc"
    assert r.finished_reason is FinishReason.UNKNOWN and r.terminated
    assert r.usage is not None
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.total_tokens) == (None, 2, None)


def test_string_arguments_given_ids_and_images() -> None:
    png = b"\x89PNG\r\n\x1a\n\x00\x00"
    acc = run(OllamaParser(), lines(
        chat(tool_calls=[{"id": "call_given", "function": {"name": "f",
                                                           "arguments": '{"a": 1}'}}]),
        chat(images=[base64.b64encode(png).decode()]),
        {**chat(done=True), "done_reason": "stop"},
    )).accumulator
    call, image = acc.response.content
    assert isinstance(call, ToolCallBlock)
    assert (call.id, call.name, call.input) == ("call_given", "f", '{"a": 1}')
    assert isinstance(image, DataBlock) and (image.media_type, image.data) == ("image/png", png)


def test_logprobs_accumulate_across_lines() -> None:
    first = [{"token": "a", "logprob": -0.1}]
    second = [{"token": "b", "logprob": -0.2}]
    acc = run(OllamaParser(), lines({**chat("a"), "logprobs": first},
                                    {**chat("b"), "logprobs": second})).accumulator
    assert acc.response.metadata["logprobs"] == first + second


def test_done_reason_mapping() -> None:
    assert map_done_reason("stop") == "stop"
    assert map_done_reason("stop", tool_calls=True) == "tool_calls"
    assert map_done_reason("length", tool_calls=True) == "length"
    assert map_done_reason("unload") == "stop"
    assert map_done_reason("something-new") == "unknown"
    assert map_done_reason(None) == "unknown"


def test_malformed_line_is_a_protocol_error_with_offset() -> None:
    bad = '{"model":"m","message":{"role":"assistant","content":"x"},"done":flase}'
    with pytest.raises(ProtocolError) as info:
        OllamaParser().feed(bad)
    assert info.value.offset is not None
    assert bad.index("flase") <= info.value.offset < len(bad)


def test_the_response_id_is_stated_by_the_first_event() -> None:
    """Ollama gives no id: the one streamkit makes up is in ResponseStart, so
    every accumulator of the events agrees on it."""
    result = run(OllamaParser(), lines(chat("a"), {**chat(done=True), "done_reason": "stop"}))
    start = result.events[0]
    assert isinstance(start, ResponseStart) and start.id is not None
    assert start.id.startswith("resp_") and result.response.id == start.id


def test_logprobs_events_are_values() -> None:
    """Each line's logprobs are appended by their own event; an event already
    emitted never grows."""
    parser = OllamaParser()
    first = parser.feed(json.dumps({**chat("a"), "logprobs": [{"token": "a"}]}))
    parser.feed(json.dumps({**chat("b"), "logprobs": [{"token": "b"}]}))
    kept = [e for e in first if isinstance(e, ResponseMetadata)]
    assert [e.append for e in kept] == [{"logprobs": [{"token": "a"}]}]


# ---------------------------------------------------------------- hostile lines


def test_images_that_are_not_base64_are_kept_not_raised() -> None:
    """One character (binascii.Error), text that is not ASCII (ValueError), a
    number: each is kept whole; the valid image beside them still decodes."""
    png = b"\x89PNG\r\n\x1a\n\x00\x00"
    r = run(OllamaParser(), lines(
        chat(images=["w", "\u00e9t\u00e9", 123, base64.b64encode(png).decode()]),
        {**chat(done=True), "done_reason": "stop"},
    )).response
    (image,) = r.content
    assert isinstance(image, DataBlock) and image.data == png
    assert r.metadata["unknown_events"] == [
        {"event": "message.images", "data": "w"},
        {"event": "message.images", "data": "\u00e9t\u00e9"},
        {"event": "message.images", "data": 123},
    ]


def test_fields_of_the_wrong_type_are_absent_and_kept() -> None:
    result = run(OllamaParser(), lines(
        {"model": ["m"], "created_at": "t", "response": [1], "thinking": 7, "done": "no",
         "logprobs": "x", "message": {"role": "assistant", "content": 5, "thinking": {},
                                      "tool_calls": {"x": 1}, "images": "abc"}},
        {"model": "m", "message": "hi", "done": False},
        {"model": "m", "done": True, "done_reason": ["stop"], "eval_count": "2"},
    ))
    r = result.response
    assert r.content == [] and r.model == "m"
    assert {key: r.metadata[key] for key in (
        "response", "thinking", "done", "logprobs", "message.content", "message.thinking",
        "message.tool_calls", "message.images", "message", "done_reason",
    )} == {
        "response": [1], "thinking": 7, "done": "no", "logprobs": "x", "message.content": 5,
        "message.thinking": {}, "message.tool_calls": {"x": 1}, "message.images": "abc",
        "message": "hi", "done_reason": ["stop"],
    }
    start = result.events[0]
    assert isinstance(start, ResponseStart) and start.model is None
    assert r.metadata["model"] == ["m"]  # the first line's model, kept
    assert r.finished_reason is FinishReason.UNKNOWN and r.stop_reason is None and r.terminated
    assert r.usage is not None and r.usage.output_tokens is None
    assert r.usage.raw == {"eval_count": "2"}


def test_tool_calls_of_the_wrong_shape_are_kept() -> None:
    r = run(OllamaParser(), lines(chat(tool_calls=[
        1, {"function": []}, {"id": [], "function": {"name": 5, "arguments": {"a": 1}}},
    ]))).response
    (call,) = r.content
    assert isinstance(call, ToolCallBlock)
    assert re.match(GENERATED_CALL_ID, call.id) and call.name == "" and call.input == '{"a":1}'
    assert call.metadata == {"id": [], "name": 5}
    assert r.metadata["unknown_events"] == [
        {"event": "message.tool_calls", "data": 1},
        {"event": "message.tool_calls", "data": {"function": []}},
    ]


def test_error_objects_go_through_the_shared_mapping() -> None:
    error = {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}
    r = run(OllamaParser(), lines(chat("a"), {"error": error})).response
    assert r.metadata["error"] == {"message": "quota", "code": "429",
                                   "type": "RESOURCE_EXHAUSTED", "status": 429,
                                   "raw": {"error": error}}
    assert r.finished_reason is FinishReason.ERROR and not r.terminated


HOSTILE = [
    '{"model":{},"done":[]}',
    '{"message":[],"done":null}',
    '{"message":{"role":[],"content":[],"tool_calls":[[]],"images":[[],{}]}}',
    '{"message":{"tool_calls":[{"function":{"name":[],"arguments":[1,{"a":[]}]}}]}}',
    '{"error":[]}',
    '{"error":{"message":{},"code":[]}}',
    '{"error":null}',
    '{"done":true,"done_reason":{},"prompt_eval_count":[],"eval_count":1.5}',
    '{"done":true,"done_reason":"stop","context":{}}',
    '{"logprobs":[[],1]}',
    "[]",
    "1",
    '"x"',
    "null",
]


@pytest.mark.parametrize("data", HOSTILE)
def test_wrongly_typed_fields_never_raise(data: str) -> None:
    result = run(OllamaParser(), [*lines(chat("a")), Payload(None, data)])
    assert result.response.text.startswith("a")
    for block in result.response.content:
        assert type(block.id) is str


def test_json_nested_too_deeply_is_a_protocol_error() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(ProtocolError) as info:
        OllamaParser().feed('{"model":"m","message":{"role":"assistant","content":' + deep + "}}")
    assert "nested" in info.value.message


def test_invalid_utf8_is_replaced() -> None:
    parser = OllamaParser()
    parser.feed(json.dumps(chat("a")))
    out = parser.feed(b'{"model":"llama3.2","created_at":"t",'
                      b'"message":{"role":"assistant","content":"b\xffc"},"done":false}')
    assert [e.delta for e in out if isinstance(e, BlockDelta)] == [TextDelta("b\ufffdc")]


# ---------------------------------------------------------------- linear growth


def test_unknown_lines_and_logprobs_keep_linear_memory() -> None:
    """20,000 lines that are not objects, then 20,000 lines with logprobs: each
    event carries its own line's values only, never the list so far."""
    count = 20_000
    items = lines(chat("a"))
    items += [Payload(None, json.dumps([n])) for n in range(count)]
    items += lines(*({**chat("b"), "logprobs": [{"token": "b", "logprob": -n}]}
                     for n in range(count)))
    result = run(OllamaParser(), items)
    kept = result.of_type(ResponseMetadata)
    assert len(kept) == 2 * count
    assert all(payloads_carried(event) == 1 for event in kept)
    assert max(objects_held(event) for event in kept) <= 6  # the wrapper, the payload
    r = result.response
    assert len(r.metadata["unknown_events"]) == count and len(r.metadata["logprobs"]) == count
    assert r.metadata["unknown_events"][-1] == {"event": None, "data": [count - 1]}
