"""Gemini's non-streamed response: ``parse_response`` gives the ChatResponse the
stream parser gives for the equivalent stream.

A ``generateContent`` body is one ``GenerateContentResponse``, the shape of
every ``streamGenerateContent?alt=sse`` chunk. The pairs tested here go both
ways, built by the documented rule (a candidate's ``content.parts`` are the
chunks' parts in order; ``finishReason``, ``usageMetadata`` and the other
fields are the last chunk's):

- every recorded stream (the Gemini fixtures and the streamed conversation)
  joined into one body;
- every recorded non-streamed response (the conversations) split into a
  stream: one part per chunk, text split in pieces, usage on every chunk.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from support.comparing import comparable
from support.conversations import CONVERSATIONS, conversations
from support.recordings import FIXTURES, payloads

import streamkit
from streamkit import FinishReason, ProviderError
from streamkit.model.blocks import RawBlock, TextBlock, ThinkingBlock, ToolCallBlock
from streamkit.model.ids import counting_ids, id_factory
from streamkit.model.response import ChatResponse
from streamkit.providers.codec import parse_response

GEMINI = "gemini"
STREAMS = [*sorted((FIXTURES / "gemini").glob("*.sse")),
           *sorted((CONVERSATIONS / "gemini").glob("*/turn1.response.sse"))]
BODIES = [c for c in conversations("gemini") if not c.streamed]


def joined(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """The non-streamed body of a stream's chunks."""
    body: dict[str, Any] = {}
    candidates: dict[int, dict[str, Any]] = {}
    for chunk in chunks:
        for key, value in chunk.items():
            if key != "candidates":
                body[key] = value
        for position, candidate in enumerate(chunk.get("candidates", [])):
            index = candidate.get("index", position)
            kept = candidates.setdefault(index, {"content": {"role": "model", "parts": []}})
            for key, value in candidate.items():
                if key == "content":
                    kept["content"]["parts"] += value.get("parts", [])
                else:
                    kept[key] = value
    body["candidates"] = [candidates[i] for i in sorted(candidates)]
    return body


def split(body: dict[str, Any]) -> list[dict[str, Any]]:
    """A non-streamed body as the stream that would give it (one candidate):
    every part its own chunk, a text part in three pieces (a signature on the
    last), usage on every chunk, the candidate's other fields on the last."""
    (candidate,) = body["candidates"]
    top = {k: v for k, v in body.items() if k != "candidates"}
    pieces: list[dict[str, Any]] = []
    for part in candidate["content"]["parts"]:
        text = part.get("text")
        if isinstance(text, str) and len(text) >= 3:
            cut = [text[: len(text) // 3], text[len(text) // 3: 2 * len(text) // 3],
                   text[2 * len(text) // 3:]]
            extras = {k: v for k, v in part.items() if k != "text"}
            flags = {k: v for k, v in extras.items() if k == "thought"}
            pieces += [{"text": cut[0], **flags}, {"text": cut[1], **flags},
                       {"text": cut[2], **extras}]
        else:
            pieces.append(part)
    chunks = [{"candidates": [{"content": {"role": "model", "parts": [piece]}, "index": 0}],
               **top} for piece in pieces]
    last = chunks[-1]["candidates"][0]
    last.update({k: v for k, v in candidate.items() if k != "content"})
    return chunks


def _stream_chunks(path: Any) -> list[dict[str, Any]]:
    return [json.loads(payload.data) for payload in payloads(path)]


@pytest.mark.parametrize("path", STREAMS, ids=[p.parent.name + "/" + p.name for p in STREAMS])
def test_a_stream_joined_parses_as_the_stream(path: Any) -> None:
    chunks = _stream_chunks(path)
    with id_factory(counting_ids()):
        _, streamed = streamkit.replay(path.read_bytes(), GEMINI)
    with id_factory(counting_ids()):
        whole = parse_response(GEMINI, joined(chunks))
    streamed.provider = GEMINI  # the pipeline will set it
    assert comparable(whole) == comparable(streamed)


@pytest.mark.parametrize("conversation", BODIES, ids=[c.name for c in BODIES])
def test_a_body_split_streams_as_it_parses(conversation: Any) -> None:
    body = json.loads(conversation.turn1_response)
    sse = "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in split(body)).encode()
    with id_factory(counting_ids()):
        whole = parse_response(GEMINI, body)
    with id_factory(counting_ids()):
        _, streamed = streamkit.replay(sse, GEMINI)
    streamed.provider = GEMINI
    parts = body["candidates"][0]["content"]["parts"]
    texts = [p for p in parts if len(p.get("text", "")) >= 3]
    assert len(split(body)) == len(parts) + 2 * len(texts)  # every text really in pieces
    assert comparable(whole) == comparable(streamed)


def _by_name(name: str) -> ChatResponse:
    (conversation,) = [c for c in BODIES if c.path.name == name]
    return parse_response(GEMINI, conversation.turn1_response)


def test_parallel_calls_read_from_the_recording() -> None:
    """Values from parallel-function-calls-x3/turn1.response.json."""
    response = _by_name("parallel-function-calls-x3")
    assert response.provider == GEMINI
    assert (response.id, response.model) == ("wOd8abGuO5rgz7IP5tLEGA", "gemini-3-flash-preview")
    assert [(b.name, b.arguments()) for b in response.tool_calls] == [("generate_topic", {})] * 3
    first, second, third = response.tool_calls
    assert first.metadata["signature"].startswith("Es8FCswFAXLI2nxFGW9oAYt0")
    assert "signature" not in second.metadata and "signature" not in third.metadata
    assert response.finished_reason is FinishReason.TOOL_CALLS and response.stop_reason == "STOP"
    assert response.terminated and response.is_last
    assert response.usage is not None
    assert (response.usage.input_tokens, response.usage.output_tokens,
            response.usage.reasoning_tokens, response.usage.total_tokens) == (83, 30, 190, 303)
    assert response.metadata["finishMessage"] == "Model generated function call(s)."


def test_thought_parts_read_from_the_recording() -> None:
    response = _by_name("thought-parts-then-user")
    thought, answer = response.content
    assert isinstance(thought, ThinkingBlock) and thought.signature is None
    assert thought.thinking.startswith("**A Safe Street-Crossing Guide: My Thought Process**")
    assert isinstance(answer, TextBlock)
    assert answer.text.startswith("Crossing the street safely is a fundamental skill")
    assert answer.metadata["signature"].startswith("EqoeCqceAdHtim+cXhv3WM3Av2yB")
    assert response.finished_reason is FinishReason.STOP


def test_server_tool_parts_and_grounding_read_from_the_recording() -> None:
    response = _by_name("server-tool-call-response")
    call, result, text = response.content
    assert isinstance(call, RawBlock) and call.kind == "toolCall"
    assert call.data["toolCall"] == {"id": "j425u3dm", "toolType": "FILE_SEARCH"}
    assert isinstance(result, RawBlock) and result.kind == "toolResponse"
    assert isinstance(text, TextBlock) and text.text.startswith("The capital of France is")
    grounding = response.metadata["groundingMetadata"]
    assert grounding["groundingChunks"][0]["retrievedContext"]["text"].startswith("Paris is")


def test_vertex_function_call_read_from_the_recording() -> None:
    response = _by_name("vertex-snake-case-history")
    (call,) = response.content
    assert isinstance(call, ToolCallBlock) and call.arguments() == {"type": "all"}
    assert response.metadata["createTime"] == "2026-02-17T04:28:08.913596Z"
    assert response.metadata["avgLogprobs"] == pytest.approx(-1.4068781212514716)


@pytest.mark.parametrize(("error", "status"), [
    ({"code": 400, "message": "Invalid value at 'contents'", "status": "INVALID_ARGUMENT"}, 400),
    ({"code": 429, "message": "Resource exhausted", "status": "RESOURCE_EXHAUSTED"}, 429),
])
def test_an_error_body_raises(error: dict[str, Any], status: int) -> None:
    """Google's error envelope (``{"error": {"code", "message", "status"}}``)."""
    with pytest.raises(ProviderError) as caught:
        parse_response(GEMINI, {"error": error})
    assert caught.value.status == status
    assert error["message"] in str(caught.value)


def test_a_json_array_body_reads_as_its_stream() -> None:
    """``:streamGenerateContent`` without ``alt=sse`` answers a JSON array of chunks."""
    path = FIXTURES / "gemini" / "thinking-thought-parts.sse"
    chunks = _stream_chunks(path)
    with id_factory(counting_ids()):
        _, streamed = streamkit.replay(path.read_bytes(), GEMINI)
    with id_factory(counting_ids()):
        array = parse_response(GEMINI, json.dumps(chunks).encode())
    streamed.provider = GEMINI
    assert comparable(array) == comparable(streamed)


def test_a_blocked_prompt() -> None:
    response = parse_response(GEMINI, {"promptFeedback": {"blockReason": "SAFETY"},
                                       "usageMetadata": {"promptTokenCount": 7}})
    assert response.finished_reason is FinishReason.CONTENT_FILTER
    assert response.content == []
