"""OpenAI Responses non-streamed responses: the ``Response`` object reads into the
same :class:`ChatResponse` its stream gives.

The equivalent pairs come from the recordings: a stream's terminal event
(``response.completed`` / ``incomplete`` / ``failed``) carries the whole
response object, which is exactly the non-streamed body of the same response.
What a stream has and its object has not is named where it is dropped before
comparing (:func:`_stream_only`), never ignored wholesale.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from support.comparing import comparable, fresh_ids
from support.conversations import conversations
from support.recordings import FIXTURES, payloads, replay_chunked

from streamkit import replay
from streamkit.model.blocks import DataBlock, RawBlock, TextBlock, ThinkingBlock, ToolCallBlock
from streamkit.model.errors import ProviderError
from streamkit.model.finish import FinishReason
from streamkit.model.response import ChatResponse
from streamkit.providers.codec import parse_response

RESPONSES = "openai-responses"
_TERMINAL = ("response.completed", "response.incomplete", "response.failed")


def _terminal_object(path: Path) -> dict[str, Any]:
    """The response object of a recorded stream's terminal event."""
    terminal = []
    for payload in payloads(path):
        try:
            event = json.loads(payload.data)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("type") in _TERMINAL:
            terminal.append(event["response"])
    [response] = terminal
    return dict(response)


def _comparable(response: ChatResponse) -> dict[str, Any]:
    """The response as a dict without what is local to one parse: ``created_at``,
    the ids streamkit made up for text, thinking and data blocks (the wire's ids are
    in their metadata; the stream makes some blocks it later supersedes, so the
    counter differs), and ``provider`` (the stream pipeline's to set)."""
    out = comparable(response)
    out.pop("provider")
    for block in out["content"]:
        if block["type"] in ("text", "thinking", "data"):
            block.pop("id")
    return out


def _stream_only(response: dict[str, Any], *, encrypted: bool = False,
                 partial_images: bool = False) -> dict[str, Any]:
    """What only a stream says, named: a server tool's last progress event
    (``metadata["progress"]``); optionally the encrypted reasoning, which the
    terminal event repeats re-encrypted (same length, other bytes: MANIFEST.md),
    and the partial images of an image generation."""
    content = []
    for block in response["content"]:
        metadata = dict(block.get("metadata", {}))
        metadata.pop("progress", None)
        block = {**block, "metadata": metadata}
        if encrypted and "encrypted" in block:
            block["encrypted"] = len(block["encrypted"])
        if partial_images and metadata.get("partial"):
            continue
        content.append(block)
    return {**response, "content": content}


def _pair(path: Path, body: bytes | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    with fresh_ids():
        streamed = replay([body], RESPONSES)[1] if body else replay_chunked(path, RESPONSES)[1]
    with fresh_ids():
        parsed = parse_response(RESPONSES, _terminal_object(path))
    assert parsed.provider == RESPONSES
    return _comparable(streamed), _comparable(parsed)


# ---------------------------------------------------------------- stream <-> body


STREAMED_CONVERSATIONS = [c for c in conversations("openai-responses") if c.streamed]


@pytest.mark.parametrize("conversation", STREAMED_CONVERSATIONS,
                         ids=[c.name for c in STREAMED_CONVERSATIONS])
def test_a_streamed_conversation_turn_reads_the_same_as_its_response_object(
        conversation: Any) -> None:
    path = conversation.path / "turn1.response.sse"
    streamed, parsed = _pair(path, conversation.turn1_response)
    assert _stream_only(streamed, encrypted=True) == _stream_only(parsed, encrypted=True)


def test_the_re_encrypted_reasoning_is_the_one_difference() -> None:
    """The web search turn: the terminal event's encrypted_content is another
    ciphertext than output_item.done's; the stream keeps the done one (the one
    to send back) and the body has only the other."""
    [conversation] = [c for c in STREAMED_CONVERSATIONS if c.path.name == "web-search-call-stream"]
    streamed, parsed = _pair(conversation.path / "turn1.response.sse",
                             conversation.turn1_response)
    mine = [b["encrypted"] for b in streamed["content"] if "encrypted" in b]
    theirs = [b["encrypted"] for b in parsed["content"] if "encrypted" in b]
    assert len(mine) == len(theirs) == 2
    assert all(a != b and len(a) == len(b) for a, b in zip(mine, theirs, strict=True))
    output = _terminal_object(conversation.path / "turn1.response.sse")["output"]
    assert theirs == [item["encrypted_content"] for item in output if item["type"] == "reasoning"]


@pytest.mark.parametrize(("name", "re_encrypted"), [
    ("openai-responses/text.sse", False),
    ("openai-responses/function-call.sse", False),
    ("openai-responses/reasoning-summary-text.sse", True),  # OpenAI re-encrypts at the end
    ("openai-responses/deepseek-responses-reasoning-function-call.sse", False),
    ("edge/openai-responses-incomplete.sse", False),
    ("edge/openai-responses-no-deltas.sse", False),
    ("edge/openai-responses-parallel-tools.sse", False),
])
def test_a_recorded_stream_reads_the_same_as_its_response_object(name: str,
                                                                 re_encrypted: bool) -> None:
    streamed, parsed = _pair(FIXTURES / name)
    assert _stream_only(streamed, encrypted=re_encrypted) == _stream_only(
        parsed, encrypted=re_encrypted)


def test_server_tools_read_the_same_but_for_the_partial_images() -> None:
    """Partial images exist only as stream events; the final image and every
    server item are the same."""
    streamed, parsed = _pair(FIXTURES / "edge/openai-responses-server-tools.sse")
    assert any(b.get("metadata", {}).get("partial") for b in streamed["content"])
    assert _stream_only(streamed, partial_images=True) == _stream_only(parsed)


def test_openrouter_final_reasoning_id_is_the_response_objects() -> None:
    """OpenRouter's final reasoning item has another id than the streamed one
    (the stream keeps the streamed id); all else is the same."""
    streamed, parsed = _pair(FIXTURES / "openai-responses/openrouter-reasoning_text.sse")
    [mine] = [b for b in streamed["content"] if b["type"] == "thinking"]
    [theirs] = [b for b in parsed["content"] if b["type"] == "thinking"]
    assert mine["metadata"]["item_id"] != theirs["metadata"]["item_id"]
    theirs["metadata"]["item_id"] = mine["metadata"]["item_id"]
    assert streamed == parsed


# ---------------------------------------------------------------- recorded bodies


JSON_CONVERSATIONS = [c for c in conversations("openai-responses") if not c.streamed]


@pytest.mark.parametrize("conversation", JSON_CONVERSATIONS,
                         ids=[c.name for c in JSON_CONVERSATIONS])
def test_a_recorded_body_reads_into_its_output(conversation: Any) -> None:
    """Each output item is its blocks, the usage and finish reason the body's."""
    body = json.loads(conversation.turn1_response)
    original = copy.deepcopy(body)
    response = parse_response(RESPONSES, body)
    assert body == original  # reading did not change the body
    assert response.id == body["id"] and response.model == body["model"]
    assert response.is_last and response.terminated and response.stop_reason == "completed"
    types = [item["type"] for item in body["output"]]
    calls = [item for item in body["output"] if item["type"] == "function_call"]
    expected = FinishReason.TOOL_CALLS if calls else FinishReason.STOP
    assert response.finished_reason is expected
    assert response.usage is not None
    assert response.usage.input_tokens == body["usage"]["input_tokens"]
    assert response.usage.output_tokens == body["usage"]["output_tokens"]
    assert response.usage.reasoning_tokens == body["usage"]["output_tokens_details"][
        "reasoning_tokens"]
    assert [(c.id, c.name, c.input) for c in response.tool_calls] == [
        (c["call_id"], c["name"], c["arguments"]) for c in calls]
    kinds = {"function_call": ToolCallBlock, "reasoning": ThinkingBlock, "message": TextBlock}
    assert {type(b) for b in response.content} == {kinds.get(t, RawBlock) for t in types}
    assert "output" not in response.metadata and "usage" not in response.metadata
    assert response.metadata["status"] == "completed"


def test_reasoning_items_keep_their_encrypted_content_and_summaries() -> None:
    [conversation] = [c for c in JSON_CONVERSATIONS
                      if c.path.name == "reasoning-encrypted-message-then-user"]
    body = json.loads(conversation.turn1_response)
    response = parse_response(RESPONSES, body)
    [reasoning, message] = body["output"]
    thinking = [b for b in response.content if isinstance(b, ThinkingBlock)]
    assert [b.thinking for b in thinking] == [part["text"] for part in reasoning["summary"]]
    assert thinking[0].encrypted == reasoning["encrypted_content"]
    assert [b.encrypted for b in thinking[1:]] == [None] * 5
    assert response.text == message["content"][0]["text"]


# ---------------------------------------------------------------- hand-built bodies


def _response(**fields: Any) -> dict[str, Any]:
    """A Response object as the API reference shows one."""
    return {"id": "resp_1", "object": "response", "created_at": 1, "model": "gpt-5",
            "status": "completed", "error": None, "incomplete_details": None, "output": [],
            "usage": {"input_tokens": 5, "output_tokens": 7, "total_tokens": 12,
                      "input_tokens_details": {"cached_tokens": 1},
                      "output_tokens_details": {"reasoning_tokens": 3}}, **fields}


def test_an_incomplete_response_is_cut_at_its_length() -> None:
    body = _response(status="incomplete", incomplete_details={"reason": "max_output_tokens"},
                     output=[{"type": "message", "id": "msg_1", "role": "assistant",
                              "status": "incomplete", "content": [
                                  {"type": "output_text", "text": "Once upon",
                                   "annotations": []}]}])
    response = parse_response(RESPONSES, body)
    assert response.finished_reason is FinishReason.LENGTH
    assert response.stop_reason == "max_output_tokens"
    [text] = response.content
    assert isinstance(text, TextBlock) and text.text == "Once upon"
    assert text.metadata == {"item_id": "msg_1", "status": "incomplete"}


def test_a_failed_response_is_a_response_with_its_error() -> None:
    """As its stream does, a failed response raises, with the response ended as
    ``error`` (the error in its metadata) as the partial."""
    error = {"code": "server_error", "message": "The model failed."}
    with pytest.raises(ProviderError, match="The model failed") as raised:
        parse_response(RESPONSES, _response(status="failed", error=error))
    response = raised.value.partial
    assert response is not None and raised.value.code == "server_error"
    assert response.finished_reason is FinishReason.ERROR and response.id == "resp_1"
    assert response.metadata["error"]["message"] == "The model failed."
    assert response.metadata["error"]["code"] == "server_error"


def test_a_response_still_in_progress_has_its_items_so_far() -> None:
    """A background response polled before it ended: no terminal event yet."""
    body = _response(status="in_progress", usage=None, output=[
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"}])
    response = parse_response(RESPONSES, body)
    assert response.terminated is False and response.finished_reason is FinishReason.UNKNOWN
    assert response.metadata["status"] == "in_progress"
    [thinking] = response.content
    assert isinstance(thinking, ThinkingBlock) and thinking.encrypted == "gAAA"


def test_an_image_generation_gives_its_item_and_its_image() -> None:
    body = _response(output=[{"type": "image_generation_call", "id": "ig_1",
                              "status": "completed", "result": "iVBORw0KGgo=",
                              "output_format": "png"}])
    raw, image = parse_response(RESPONSES, body).content
    assert isinstance(raw, RawBlock) and raw.data["result"] == "iVBORw0KGgo="
    assert isinstance(image, DataBlock) and image.media_type == "image/png"
    assert image.metadata == {"item_id": "ig_1"}


def test_an_error_body_raises_provider_error() -> None:
    body = {"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error",
                      "param": None, "code": "invalid_api_key"}}
    with pytest.raises(ProviderError) as raised:
        parse_response(RESPONSES, body)
    assert raised.value.status == 400 and raised.value.code == "invalid_api_key"
    assert "Incorrect API key" in str(raised.value)


def test_bytes_and_text_bodies_read_the_same() -> None:
    body = _response(output=[{"type": "message", "id": "msg_1", "role": "assistant",
                              "status": "completed", "content": [
                                  {"type": "output_text", "text": "Hi", "annotations": []}]}])
    with fresh_ids():
        from_dict = comparable(parse_response(RESPONSES, body))
    with fresh_ids():
        from_bytes = comparable(parse_response(RESPONSES, json.dumps(body).encode()))
    assert from_dict == from_bytes
    assert from_dict["finished_reason"] == "stop"
