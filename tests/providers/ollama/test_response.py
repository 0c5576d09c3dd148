"""Ollama's non-streamed response: ``parse_response`` gives the ChatResponse
the stream parser gives for the equivalent NDJSON stream.

A non-streamed ``/api/chat`` body is the stream's ``done`` object carrying
the whole message; the pairs here are the edge streams joined into that one
object (by the documented rule: fragments concatenated, tool calls and images
collected, the last object's counters), the hand-written conversation stream,
and the documentation's own non-streamed responses.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest
from support.recordings import EDGE, FIXTURES, body, payloads

import streamkit
from streamkit import (
    DataBlock,
    FinishReason,
    ProviderError,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)
from streamkit.model.ids import counting_ids, id_factory
from streamkit.model.response import ChatResponse
from streamkit.providers.codec import parse_response

OLLAMA = FIXTURES / "ollama"
STREAMS = [*sorted(EDGE.glob("ollama-*.ndjson")),
           *sorted((OLLAMA / "conversations").glob("*/turn1.response.jsonl"))]
DOCUMENTED = sorted((OLLAMA / "responses").glob("*.json"))
MADE_UP_ID = re.compile(r"^(text|think|call|data|resp)_[0-9a-f]{24}$")


def joined(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """The non-streamed body of a stream: Ollama's final object with the whole
    message (``content`` / ``thinking`` / ``response`` fragments concatenated,
    ``tool_calls`` and ``images`` collected in order)."""
    last = lines[-1]
    out = {key: value for key, value in last.items() if key not in ("message", "response",
                                                                   "thinking")}
    if any("message" in line for line in lines):
        message: dict[str, Any] = {"role": "assistant", "content": ""}
        for line in lines:
            part = line.get("message") or {}
            message["content"] += part.get("content", "")
            if part.get("thinking"):
                message["thinking"] = message.get("thinking", "") + part["thinking"]
            for key in ("tool_calls", "images"):
                if part.get(key):
                    message.setdefault(key, []).extend(part[key])
        out["message"] = message
    else:  # /api/generate
        out["response"] = "".join(line.get("response", "") for line in lines)
        thinking = "".join(line.get("thinking", "") for line in lines)
        if thinking:
            out["thinking"] = thinking
    return out


def normalized(response: ChatResponse) -> dict[str, Any]:
    """The response as a dict without what only says when or where it was
    made: ``created_at`` (local, and Ollama's first vs last timestamp) and the
    ids streamkit made up (numbered by position instead)."""
    out = response.to_dict()
    out.pop("created_at")
    out.pop("provider")  # asserted on its own
    out["metadata"] = {k: v for k, v in out["metadata"].items() if k != "created_at"}
    out["id"] = "<made up>" if MADE_UP_ID.match(out["id"]) else out["id"]
    for index, block in enumerate(out["content"]):
        if MADE_UP_ID.match(block["id"]):
            block["id"] = f"<made up {index}>"
    return out


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(payload.data) for payload in payloads(path)]


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_non_streamed_body_parses_like_the_stream(path: Path) -> None:
    lines = lines_of(path)
    with id_factory(counting_ids()):
        _, streamed = streamkit.replay(body(path), "ollama")
    whole = joined(lines)
    with id_factory(counting_ids()):
        single = parse_response("ollama", whole)
    assert normalized(single) == normalized(streamed)
    assert single.provider == "ollama"
    assert streamed.provider in (None, "ollama")  # the pipeline sets it (not yet everywhere)
    assert single.metadata["created_at"] == lines[-1]["created_at"]
    assert streamed.metadata["created_at"] == lines[0]["created_at"]
    assert single.content, "a pair with no content would prove little"


def test_thinking_tools_stream_pair_by_value() -> None:
    """The pair above, checked against values written from the fixture."""
    whole = joined(lines_of(EDGE / "ollama-chat-thinking-tools.ndjson"))
    response = parse_response("ollama", json.dumps(whole).encode())
    thinking, text, weather, time = response.content
    assert isinstance(thinking, ThinkingBlock)
    assert thinking.thinking == "The user wants the weather."
    assert isinstance(text, TextBlock) and text.text == "Let me check."
    assert isinstance(weather, ToolCallBlock) and weather.arguments() == {"city": "Paris",
                                                                          "unit": "celsius"}
    assert isinstance(time, ToolCallBlock) and time.metadata == {"index": 1}
    assert response.finished_reason is FinishReason.TOOL_CALLS and response.stop_reason == "stop"
    assert response.usage is not None
    assert (response.usage.input_tokens, response.usage.output_tokens) == (26, 298)


@pytest.mark.parametrize("path", DOCUMENTED, ids=lambda p: p.stem)
def test_documented_responses(path: Path) -> None:
    wire = json.loads(path.read_text())
    response = parse_response("ollama", wire)
    message = wire["message"]
    assert response.model == wire["model"] and response.is_last and response.terminated
    assert response.text == message["content"]
    calls = message.get("tool_calls") or []
    assert [(c.name, c.arguments()) for c in response.tool_calls] == [
        (c["function"]["name"], c["function"]["arguments"]) for c in calls]
    reason = wire.get("done_reason")
    assert response.stop_reason == reason
    expected = ("tool_calls" if calls else "stop") if reason in ("stop", "load", "unload") else (
        "unknown")
    assert response.finished_reason == expected
    if "eval_count" in wire:
        assert response.usage is not None and response.usage.output_tokens == wire["eval_count"]


def test_image_output_is_a_data_block() -> None:
    png = base64.b64decode(json.loads((OLLAMA / "requests" / "docs-chat-with-images.json")
                                      .read_text())["messages"][0]["images"][0])
    response = parse_response("ollama", {
        "model": "x/flux", "created_at": "2025-01-01T00:00:00Z", "done": True,
        "done_reason": "stop", "message": {"role": "assistant", "content": "",
                                           "images": [base64.b64encode(png).decode()]}})
    (image,) = response.content
    assert isinstance(image, DataBlock) and image.media_type == "image/png" and image.data == png


def test_error_body_raises_with_the_response() -> None:
    with pytest.raises(ProviderError, match="model 'nope' not found") as caught:
        parse_response("ollama", b'{"error": "model \'nope\' not found"}')
    assert caught.value.partial is not None
    assert caught.value.partial.finished_reason is FinishReason.ERROR
