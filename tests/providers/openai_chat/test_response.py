"""Non-streamed Chat Completions responses: the same ChatResponse as the stream.

The equivalence is tested two ways. Over the recorded streams, the official
``openai`` SDK's own stream accumulator (``ChatCompletionStreamState``, an
oracle independent of streamkit) sums each stream into the ``chat.completion``
it stands for; parsing that body must give what replaying the stream gives.
The SDK's accumulator is only used where it is faithful: it concatenates every
string field it does not know (OpenRouter detail ``format`` s, Groq
``channel`` s, Mistral chunk lists), so for those shapes the non-streamed body
is written by hand from the stream instead.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.comparing import comparable
from support.conversations import conversations
from support.openai_chat_stream import sdk_snapshot
from support.recordings import FIXTURES, body, payloads

from streamkit.model.blocks import DataBlock, TextBlock, ThinkingBlock
from streamkit.model.errors import InvalidBodyError, ProviderError
from streamkit.model.finish import FinishReason
from streamkit.model.ids import counting_ids, id_factory
from streamkit.model.response import ChatResponse
from streamkit.providers import wire_of
from streamkit.providers.codec import parse_response as parse_any
from streamkit.providers.openai_chat.response import OTHER_CHOICES, as_chunk, parse_response
from streamkit.reading.pipeline import replay

#: Recorded streams whose SDK-accumulated body is faithful, with the registry
#: name they were recorded from, and what the SDK's body cannot say.
SDK_SUMMED = {
    "openai-chat/finish-length.sse": ("openai-chat", ()),
    "openai-chat/logprobs-content.sse": ("openai-chat", ()),
    "openai-chat/refusal.sse": ("openai-chat", ()),
    "openai-chat/text-with-usage-chunk.sse": ("openai-chat", ()),
    "openai-chat/tool-call-single.sse": ("openai-chat", ()),
    "openai-chat/tool-calls-parallel.sse": ("openai-chat", ()),
    # the SDK's snapshot drops the usage that follows the moderation chunk
    "openai-chat/gpt5-obfuscation-usage-moderation.sse": ("openai-chat", ("usage",)),
    "openai-compatible/deepseek-reasoning_content.sse": ("deepseek", ()),
    # these recordings end without [DONE]: the stream is not terminated, a body always is
    "openai-compatible/qwen-dashscope-reasoning.chunks.jsonl": ("qwen", ("terminated",)),
    "openai-compatible/qwen-dashscope-tool-call.chunks.jsonl": ("qwen", ("terminated",)),
    "synthetic/openai-chat-audio.sse": ("openai-chat", ()),
}


def streamed(path: Path, provider: str) -> ChatResponse:
    with id_factory(counting_ids()):
        return replay(body(path), provider)[1]


def parsed(payload: dict[str, Any], dialect: str | None) -> ChatResponse:
    with id_factory(counting_ids()):
        return parse_response(payload, dialect)


def assert_same(stream: ChatResponse, response: ChatResponse, unsaid: tuple[str, ...] = ()
                ) -> None:
    ours, theirs = comparable(stream), comparable(response)
    # both name this wire (the stream as replayed, the body as the wire module reads it)
    assert wire_of(ours.pop("provider"))[0] == wire_of(theirs.pop("provider"))[0] == "openai-chat"
    for field in unsaid:
        assert ours.pop(field) != theirs.pop(field), field  # the difference is real
    assert theirs == ours


@pytest.mark.parametrize("name", sorted(SDK_SUMMED))
def test_the_sdk_summed_body_parses_as_its_stream(name: str) -> None:
    provider, unsaid = SDK_SUMMED[name]
    path = FIXTURES / name
    snapshot = sdk_snapshot(payloads(path), lenient=True)
    completion = snapshot.model_dump(mode="json", exclude_unset=True)
    completion["object"] = "chat.completion"
    dialect = None if provider == "openai-chat" else provider
    response = parsed(completion, dialect)
    assert response.provider == (dialect or "openai")
    assert response.terminated and response.is_last
    assert_same(streamed(path, provider), response, unsaid)


def test_openrouter_details_parse_as_their_stream() -> None:
    """The edge stream's non-streamed form (OpenRouter sends the whole details)."""
    completion = {
        "id": "gen-edge-enc", "object": "chat.completion", "created": 1767225600,
        "model": "openai/o4-mini",
        "choices": [{"index": 0, "finish_reason": "stop", "native_finish_reason": "completed",
                     "message": {"role": "assistant", "content": "Done.",
                                 "reasoning": "Summary.", "reasoning_details": [
                                     {"type": "reasoning.summary", "summary": "Summary.",
                                      "id": "rs_1", "format": "openai-responses-v1", "index": 0},
                                     {"type": "reasoning.encrypted", "data": "gAAAAENC0",
                                      "id": "rs_1", "format": "openai-responses-v1", "index": 0},
                                     {"type": "reasoning.encrypted", "data": "gAAAAENC1",
                                      "id": "rs_2", "format": "openai-responses-v1",
                                      "index": 1}]}}]}
    path = FIXTURES / "edge/openai-chat-openrouter-reasoning-encrypted.sse"
    response = parsed(completion, "openrouter")
    assert_same(streamed(path, "openrouter"), response)
    summary, encrypted = response.content[:2]
    assert isinstance(summary, ThinkingBlock) and isinstance(encrypted, ThinkingBlock)
    assert (summary.id, summary.thinking, summary.encrypted) == ("rs_1", "Summary.", "gAAAAENC0")
    assert (encrypted.id, encrypted.redacted) == ("rs_2", True)


def test_mistral_content_chunks_parse_as_their_stream() -> None:
    completion = {
        "id": "edge-mistral-1", "object": "chat.completion", "created": 1767225600,
        "model": "magistral-medium-2509",
        "usage": {"prompt_tokens": 9, "completion_tokens": 20, "total_tokens": 29},
        "choices": [{"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant", "content": [
                {"type": "thinking", "thinking": [{"type": "text", "text": "Let me think."}]},
                {"type": "text", "text": "The answer is 42."},
                {"type": "reference", "reference_ids": [1]}]}}]}
    path = FIXTURES / "edge/openai-chat-mistral-list-content.sse"
    assert_same(streamed(path, "mistral"), parsed(completion, "mistral"))


def test_n_choices_keep_the_others_in_metadata() -> None:
    completion = {
        "id": "chatcmpl-edge-n2", "object": "chat.completion", "created": 1767225600,
        "model": "gpt-4o-mini",
        "usage": {"prompt_tokens": 7, "completion_tokens": 6, "total_tokens": 13},
        "choices": [
            {"index": 0, "finish_reason": "stop",
             "message": {"role": "assistant", "content": "Red apple."}},
            {"index": 1, "finish_reason": "length",
             "message": {"role": "assistant", "content": "Blue sky and"}}]}
    path = FIXTURES / "edge/openai-chat-n2-choices.sse"
    with id_factory(counting_ids()):
        _, stream = replay(body(path), "openai-chat")
    response = parsed(completion, None)
    others = response.metadata.pop(OTHER_CHOICES)
    assert_same(stream, response)
    assert len(others) == 1
    other = ChatResponse.from_dict(others[0])
    assert (other.text, other.finished_reason) == ("Blue sky and", FinishReason.LENGTH)


def test_calls_without_an_index_or_an_id_stay_apart() -> None:
    """Gemini's endpoint: ids "" and no index; each call is its own block, in order."""
    completion = {"id": "x", "object": "chat.completion", "model": "gemini-2.5-pro",
                  "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                      "role": "assistant", "tool_calls": [
                          {"id": "", "type": "function",
                           "function": {"name": "a", "arguments": "{}"}},
                          {"id": "", "type": "function",
                           "function": {"name": "b", "arguments": "{\"x\":1}"}}]}}]}
    chunk = as_chunk(completion)
    assert [c["index"] for c in chunk["choices"][0]["delta"]["tool_calls"]] == [0, 1]
    assert "message" not in chunk["choices"][0]
    calls = parsed(completion, "gemini-openai").tool_calls
    assert [(c.name, c.input) for c in calls] == [("a", "{}"), ("b", '{"x":1}')]
    assert calls[0].id != calls[1].id


@pytest.mark.parametrize(("error", "status"), [
    ({"error": {"message": "Incorrect API key", "type": "invalid_request_error",
                "code": "invalid_api_key"}}, 400),
    ({"object": "error", "message": "model not found", "type": "NotFoundError", "code": 404},
     404),
])
def test_an_error_body_raises(error: dict[str, Any], status: int) -> None:
    with pytest.raises(ProviderError) as raised:
        parse_response(error, None)
    assert raised.value.status == status
    assert raised.value.partial is not None


def test_the_entry_point_reads_bytes_and_names_the_provider() -> None:
    conversation = conversations("openai-chat")[0]
    response = parse_any("openai-chat", conversation.turn1_response)
    assert response.provider == "openai" and response.tool_calls[0].name == "get_user_country"
    assert parse_any("mistral", json.loads(conversations("openai-compatible")[3].turn1_response)
                     ).provider == "mistral"


# What each recorded turn-1 response says, copied by hand from the JSON.
TURN1: dict[str, dict[str, Any]] = {
    "openai-chat/tool-call-json": dict(
        dialect=None, text="", calls=[("call_iXFttys57ap0o16JSlC8yhYo", "get_user_country", "{}")],
        finish=FinishReason.TOOL_CALLS, tokens=(68, 12, 80),
        metadata={"created": 1746142584, "service_tier": "default",
                  "system_fingerprint": "fp_f5bdcc3276"}),
    "openai-compatible/cerebras-glm-think-tags": dict(
        dialect="cerebras", text="25 * 4 = 100.", thinking_starts="The user wants me to solve",
        finish=FinishReason.STOP, tokens=(17, 415, 432), reasoning_tokens=406),
    "openai-compatible/crusoe-reasoning-tool-call": dict(
        dialect="crusoe", text="", thinking_starts="The user wants to know the weather in Paris.",
        calls=[("chatcmpl-tool-bbb91941bf76335c", "get_weather", '{"city": "Paris"}')],
        finish=FinishReason.TOOL_CALLS, metadata_has={"stop_reason": 154829}),
    "openai-compatible/gemini-openai-compat-tool-call": dict(
        dialect="gemini-openai", text="", finish=FinishReason.TOOL_CALLS, tokens=(35, 12, 109),
        extras_have=["thought_signature", "extra_content"]),
    "openai-compatible/mistral-tool-call": dict(
        dialect="mistral", text="", calls=[("KikbB849t", "get_weather", '{"city": "Paris"}')],
        finish=FinishReason.TOOL_CALLS, tokens=(77, 12, 89)),
    "openai-compatible/openrouter-tool-call": dict(
        dialect="openrouter", text="", finish=FinishReason.TOOL_CALLS, tokens=(326, 91, 417),
        metadata_has={"provider": "Google AI Studio", "native_finish_reason": "STOP"}),
    "openai-compatible/zai-reasoning-content-preserved": dict(
        dialect="glm", text_starts="17 * 19 is 323.", thinking_starts="\nThe user is asking",
        finish=FinishReason.STOP, tokens=(17, 172, 189), reasoning_tokens=49,
        metadata_has={"request_id": "20260627095802052b238eb03242c2"}),
}


@pytest.mark.parametrize("name", sorted(TURN1))
def test_recorded_turn1_responses(name: str) -> None:
    expected = TURN1[name]
    conversation = next(c for wire in ("openai-chat", "openai-compatible")
                        for c in conversations(wire) if c.name == name)
    response = parse_response(json.loads(conversation.turn1_response), expected["dialect"])
    if "text" in expected:
        assert response.text == expected["text"]
    if "text_starts" in expected:
        assert response.text.startswith(expected["text_starts"])
    if "thinking_starts" in expected:
        assert response.thinking.startswith(expected["thinking_starts"])
        assert isinstance(response.content[0], ThinkingBlock)
    if "calls" in expected:
        assert [(c.id, c.name, c.input) for c in response.tool_calls] == expected["calls"]
    assert response.finished_reason == expected["finish"]
    if "tokens" in expected:
        assert response.usage is not None
        assert (response.usage.input_tokens, response.usage.output_tokens,
                response.usage.total_tokens) == expected["tokens"]
    if "reasoning_tokens" in expected:
        assert response.usage is not None
        assert response.usage.reasoning_tokens == expected["reasoning_tokens"]
    if "metadata" in expected:
        assert response.metadata == expected["metadata"]
    for key, value in expected.get("metadata_has", {}).items():
        assert response.metadata[key] == value
    extras = {key for entry in response.metadata.get("extras", []) for key in entry}
    assert extras >= set(expected.get("extras_have", []))
    assert not [b for b in response.content if isinstance(b, DataBlock)]


def test_a_dialect_with_inline_think_tags_splits_them_as_its_stream_does() -> None:
    """vLLM leaves reasoning inline as ``<think>`` tags: the stream pipeline
    splits them by default for that dialect, and so does the body reader."""
    message = {"role": "assistant", "content": "<think>Weigh it.</think>Yes."}
    completion: dict[str, Any] = {
        "id": "cmpl-t", "object": "chat.completion", "created": 1, "model": "qwq",
        "choices": [{"index": 0, "finish_reason": "stop", "message": message}]}
    response = parsed(completion, "vllm")
    assert (response.thinking, response.text) == ("Weigh it.", "Yes.")
    assert [type(block) for block in response.content] == [ThinkingBlock, TextBlock]
    assert parsed(completion, None).text == "<think>Weigh it.</think>Yes."  # OpenAI's own: as is
    stream = b"".join(f"data: {json.dumps(chunk)}\n\n".encode() for chunk in [
        {**completion, "object": "chat.completion.chunk", "choices": [
            {"index": 0, "delta": message, "finish_reason": "stop"}]},
    ]) + b"data: [DONE]\n\n"
    with id_factory(counting_ids()):
        _, streamed_response = replay(stream, "vllm")
    assert_same(streamed_response, response)


def test_a_body_that_is_not_an_object_is_an_invalid_body() -> None:
    bodies: list[Any] = [[], "text", {"choices": [{"message": {"content": object()}}]}]
    for body_value in bodies:
        with pytest.raises(InvalidBodyError) as raised:
            parse_response(body_value, None)
        assert raised.value.wire == "openai-chat"
