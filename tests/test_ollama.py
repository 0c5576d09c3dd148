"""OllamaParser: the documented /api/generate error stream and /api/chat,
/api/generate edge-case streams written from Ollama's documented format."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

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
    TextBlock,
    TextDelta,
    ThinkingBlock,
    ToolCallBlock,
)
from streamkit.providers import get_parser
from streamkit.providers.ollama import OllamaParser, map_done_reason
from streamkit.response import ChatResponse

DOCS_ERROR = FIXTURES / "ollama" / "docs-generate-midstream-error.ndjson"
ALL = [DOCS_ERROR, *sorted(EDGE.glob("ollama-*"))]
GENERATED_CALL_ID = r"^call_[0-9a-f]{24}$"


def parse(path: Path) -> ChatResponse:
    events, response = run_file(OllamaParser(), path)
    check_event_contract(events)
    return response


def lines(*objects: object) -> list[tuple[str, None]]:
    return [(json.dumps(o), None) for o in objects]


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


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_payload_at_a_time_equals_the_byte_pipeline(path: Path) -> None:
    events, acc = run(OllamaParser(), payloads(path))
    check_event_contract(events)
    assert comparable(acc.response) == comparable(replay_bytes(path, "ollama"))


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_auto_detection_picks_ollama(path: Path) -> None:
    assert comparable(replay_bytes(path, "auto", size=64)) == comparable(parse(path))


def test_registry_builds_the_parser() -> None:
    parser = get_parser("ollama")
    assert isinstance(parser, OllamaParser)
    assert (parser.name, parser.framing) == ("ollama", "ndjson")


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
    events, acc = run(parser, lines(chat("a"), chat("b")))
    check_event_contract(events)
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
    events, acc = run(OllamaParser(), lines({**chat(done=True), "done_reason": "load"}))
    check_event_contract(events)
    r = acc.response
    assert r.content == [] and r.usage is None  # no counters: nothing invented
    assert r.finished_reason is FinishReason.STOP and r.stop_reason == "load"
    assert r.metadata["done_reason"] == "load"


def test_done_without_reason_and_unknown_fields_survive() -> None:
    events, acc = run(OllamaParser(), lines(
        {**chat("x", tool_name="calc"), "remote_host": "https://ollama.com"},
        {**chat("y"), "remote_host": "https://ollama.com"},
        {**chat(done=True), "eval_count": 2},
    ))
    check_event_contract(events)
    r = acc.response
    assert r.text == "xy"
    assert r.metadata["remote_host"] == "https://ollama.com"
    assert r.metadata["message.tool_name"] == "calc"
    assert r.finished_reason is FinishReason.UNKNOWN and r.terminated
    assert r.usage is not None
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.total_tokens) == (None, 2, None)


def test_string_arguments_given_ids_and_images() -> None:
    png = b"\x89PNG\r\n\x1a\n\x00\x00"
    events, acc = run(OllamaParser(), lines(
        chat(tool_calls=[{"id": "call_given", "function": {"name": "f",
                                                           "arguments": '{"a": 1}'}}]),
        chat(images=[base64.b64encode(png).decode()]),
        {**chat(done=True), "done_reason": "stop"},
    ))
    check_event_contract(events)
    call, image = acc.response.content
    assert isinstance(call, ToolCallBlock)
    assert (call.id, call.name, call.input) == ("call_given", "f", '{"a": 1}')
    assert isinstance(image, DataBlock) and (image.media_type, image.data) == ("image/png", png)


def test_logprobs_accumulate_across_lines() -> None:
    first = [{"token": "a", "logprob": -0.1}]
    second = [{"token": "b", "logprob": -0.2}]
    events, acc = run(OllamaParser(), lines({**chat("a"), "logprobs": first},
                                            {**chat("b"), "logprobs": second}))
    check_event_contract(events)
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
