"""A body is read as an answer only when it has its wire's answer shape
(issue 31, finding 3): another wire's answer, or a body with no answer in it,
is an :class:`~streamkit.InvalidBodyError` naming what is missing and the wire
it looks like, never an empty answer. Real answers with nothing in them (a
refusal, a safety stop, a tool call only, Ollama's model load) still read,
and so does every non-streamed body recorded in ``tests/fixtures``."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from support.conversations import CHAT_DIALECTS, CONVERSATIONS
from support.recordings import FIXTURES

from streamkit import ChatResponse, InvalidBodyError, ProviderError, TextBlock, encode_response
from streamkit.providers.codec import parse_response
from streamkit.providers.wire_format import WIRE_NAMES

#: Each recorded non-streamed answer, with the provider it is read as.
RECORDED = sorted(
    [(path, CHAT_DIALECTS.get(path.parent.name) or path.parent.parent.name.replace(
        "openai-compatible", "openai-chat"))
     for path in CONVERSATIONS.glob("*/*/turn1.response.json")]
    + [(path, "ollama") for path in (FIXTURES / "ollama").glob("*/*.json")
       if path.parent.name == "responses" or path.name == "turn1.response.json"])

ANSWER = ChatResponse(content=[TextBlock(id="t", text="hello")], model="m", terminated=True)


@pytest.mark.parametrize(("path", "provider"), RECORDED, ids=lambda v: getattr(v, "name", v))
def test_every_recorded_body_still_reads(path: Path, provider: str) -> None:
    assert parse_response(provider, path.read_bytes()).is_last


#: Real answers with no content, each as its API sends it.
EMPTY_BUT_REAL: list[tuple[str, dict[str, Any]]] = [
    ("anthropic", {"id": "msg_1", "type": "message", "role": "assistant", "model": "c",
                   "content": [], "stop_reason": "refusal", "stop_sequence": None,
                   "usage": {"input_tokens": 3, "output_tokens": 0}}),
    ("gemini", {"candidates": [{"finishReason": "SAFETY", "index": 0,
                                "safetyRatings": [{"category": "HARM_CATEGORY_HARASSMENT",
                                                   "probability": "HIGH"}]}]}),
    ("gemini", {"promptFeedback": {"blockReason": "SAFETY"}, "modelVersion": "g"}),
    ("openai", {"id": "c", "object": "chat.completion", "created": 1, "model": "g",
                "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                    "role": "assistant", "content": None, "tool_calls": [{
                        "id": "call_1", "type": "function",
                        "function": {"name": "f", "arguments": "{}"}}]}}]}),
    ("openai", {"id": "c", "object": "chat.completion", "created": 1, "model": "g",
                "choices": [{"index": 0, "finish_reason": "stop", "message": {
                    "role": "assistant", "content": None, "refusal": "I can't."}}]}),
    ("openai-responses", {"id": "r", "object": "response", "status": "completed",
                          "output": [], "model": "g"}),
    ("ollama", {"model": "m", "created_at": "t", "response": "", "done": True,
                "done_reason": "load"}),
]


@pytest.mark.parametrize(("provider", "body"), EMPTY_BUT_REAL)
def test_a_real_answer_with_no_content_reads(provider: str, body: dict[str, Any]) -> None:
    assert parse_response(provider, body).is_last


@pytest.mark.parametrize(("written", "read"), list(itertools.permutations(WIRE_NAMES, 2)))
def test_another_wires_answer_is_refused(written: str, read: str) -> None:
    body = encode_response(written, ANSWER)
    with pytest.raises(InvalidBodyError) as caught:
        parse_response(read, body)
    assert caught.value.wire == read
    assert f"looks like a {written} answer" in str(caught.value)
    with pytest.raises(InvalidBodyError):  # the array form too, for Gemini's reader
        parse_response(read, json.dumps([body]) if read == "gemini" else json.dumps(body))


@pytest.mark.parametrize("provider", WIRE_NAMES)
@pytest.mark.parametrize("body", [{}, {"id": "x", "model": "m"}, [], [{}]], ids=str)
def test_a_body_without_an_answer_is_refused(provider: str, body: Any) -> None:
    if isinstance(body, list) and provider != "gemini":
        body = {"items": body}
    with pytest.raises(InvalidBodyError, match=r"has none of|an empty array"):
        parse_response(provider, body)


@pytest.mark.parametrize("provider", WIRE_NAMES)
def test_an_error_body_is_still_the_providers_error(provider: str) -> None:
    with pytest.raises(ProviderError, match="overloaded"):
        parse_response(provider, {"error": {"message": "overloaded", "code": 503}})
