"""Chat Completions requests, OpenAI and every OpenAI-compatible dialect: every
turn 2 rebuilt from turn 1 + the parsed response, hand-built bodies for what the
recordings do not cover, and every body checked against the official ``openai``
SDK's request types.

The SDK oracle, with the fields each dialect documents beyond OpenAI's, is
``support.request_oracles.openai_chat`` (``sdk_valid("openai-chat", body, dialect=...)``).

Every recorded request rebuilt exactly and valid for the SDK is a contract of
``providers/test_wire_contracts.py``, written once for every wire.
"""

from __future__ import annotations

import base64
import copy
import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from support.conversations import Conversation, chat_conversations, smart_chars
from support.openai_chat_bodies import DOCUMENTED_BODIES
from support.recordings import FIXTURES, payloads
from support.request_oracles import sdk_valid

from streamkit.conversation.messages import (
    AssistantMessage,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    Message,
    SystemMessage,
    UserMessage,
)
from streamkit.conversation.request import UNIFORM_OPTIONS, JsonSchemaOutput, Request
from streamkit.conversation.tools import Tool
from streamkit.model.blocks import (
    Base64Source,
    Citation,
    DataBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    URLSource,
)
from streamkit.model.errors import LossyTranslationWarning
from streamkit.model.extras import Extras
from streamkit.model.response import ChatResponse
from streamkit.providers.codec import build_request, parse_request
from streamkit.providers.openai_chat import request as chat_request
from streamkit.providers.openai_chat import response as chat_response
from streamkit.providers.openai_chat.assistant import ABSENT, REASONING_FORM
from streamkit.providers.openai_chat.content import RAW_KIND
from streamkit.providers.openai_chat.dialects import DEFAULT_RULES, DIALECTS, HistoryRules
from streamkit.providers.openai_chat.history import BuildContext, Source, source_of
from streamkit.providers.openai_chat.request import MAX_TOKENS_FIELD, SEE_NEXT_MESSAGE
from streamkit.reading.pipeline import replay

# ---------------------------------------------------------------- which vendor each recording is

#: Endpoint host (and path) in SOURCE.txt -> dialect.
ENDPOINT_DIALECT = {
    "api.openai.com/v1/": None,
    "api.cerebras.ai/": "cerebras",
    "api.inference.crusoecloud.com/": "crusoe",
    "generativelanguage.googleapis.com/v1beta/openai/": "gemini-openai",
    "api.mistral.ai/": "mistral",
    "ollama.com/v1/": "ollama-openai",
    "openrouter.ai/api/": "openrouter",
    "api.z.ai/": "glm",
}

CONVERSATIONS = chat_conversations()


def conversation_id(case: tuple[Conversation, str | None]) -> str:
    return case[0].name


def test_each_recording_is_read_as_the_dialect_of_its_endpoint() -> None:
    for conversation, dialect in CONVERSATIONS:
        source = (conversation.path / "SOURCE.txt").read_text()
        endpoint = re.search(r"^endpoint: POST https://(\S+)$", source, re.M)
        assert endpoint is not None, conversation.name
        matches = [d for prefix, d in ENDPOINT_DIALECT.items() if endpoint[1].startswith(prefix)]
        assert matches == [dialect], (conversation.name, endpoint[1])


# ---------------------------------------------------------------- the SDK oracle


def test_the_oracle_catches_a_field_openai_does_not_know() -> None:
    body = {"model": "m", "messages": [{"role": "assistant", "content": "x",
                                        "reasoning_content": "r"}]}
    with pytest.raises(AssertionError, match="reasoning_content"):
        sdk_valid("openai-chat", body)
    sdk_valid("openai-chat", body, dialect="deepseek")
    with pytest.raises(Exception, match="text"):
        sdk_valid("openai-chat", {"model": "m", "messages": [{"role": "user", "content": [
            {"type": "text"}]}]})


# ---------------------------------------------------------------- helpers

def build(messages: list[Message] | Request, dialect: str | None = None,
          **options: Any) -> dict[str, Any]:
    """A body through the wire module (dialects the registry does not list
    yet, cerebras / crusoe / ollama-openai / gemini-openai, included)."""
    request = messages if isinstance(messages, Request) else Request(
        messages=list(messages), model="m", stream=options.pop("stream", None),
        tools=options.pop("tools", None), tool_choice=options.pop("tool_choice", None),
        json_output=options.pop("json_output", None), options=options)
    return chat_request.build_request(request, dialect)


def wire(messages: list[Message], dialect: str | None = None) -> list[dict[str, Any]]:
    """Messages as this wire writes them (to compare messages whose made-up ids differ)."""
    written: list[dict[str, Any]] = build(messages, dialect)["messages"]
    return written


def round_trip(body: dict[str, Any], dialect: str | None = None) -> Request:
    request = chat_request.parse_request(copy.deepcopy(body), dialect)
    assert chat_request.build_request(request, dialect) == body
    return request


def response_of(message: dict[str, Any], dialect: str | None = None,
                **fields: Any) -> ChatResponse:
    """A non-streamed response holding ``message``."""
    return chat_response.parse_response(
        {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
         "choices": [{"index": 0, "message": {"role": "assistant", **message},
                      "finish_reason": fields.pop("finish_reason", "stop")}], **fields},
        dialect)


# ---------------------------------------------------------------- recorded requests


@pytest.mark.parametrize("name", ["openai", "openai-chat", "mistral", "openrouter", "glm"])
def test_the_entry_points_dispatch_to_this_wire(name: str) -> None:
    conversation, dialect = next(case for case in CONVERSATIONS
                                 if case[1] == (None if name.startswith("openai") else name))
    body = conversation.turn2_request
    request = parse_request(name, copy.deepcopy(body))
    assert build_request(name, request) == body
    direct = chat_request.parse_request(copy.deepcopy(body), dialect)
    assert wire(request.messages, dialect) == wire(direct.messages, dialect)


def test_recorded_requests_read_as_the_model() -> None:
    """What the recordings say lands in the model, not only in metadata."""
    by_name = {c.path.name: (c, d) for c, d in CONVERSATIONS}
    conversation, dialect = by_name["tool-result-then-user-image"]
    request = chat_request.parse_request(conversation.turn2_request, dialect)
    _, assistant, results, attached = request.messages
    assert isinstance(assistant, AssistantMessage) and assistant.provider == "openai"
    call = assistant.blocks[0]
    assert isinstance(call, ToolCallBlock) and (call.id, call.name, call.input) == (
        "call_4hrT4QP9jfojtK69vGiFCFjG", "get_image", "{}")
    assert assistant.metadata == {ABSENT: ["content"]}  # the recording has no content key
    assert isinstance(results, FunctionExecutionResultMessage)
    assert results.content[0].call_id == call.id and results.content[0].content == "See file bd38f5"
    assert isinstance(attached, UserMessage)
    image = attached.blocks[1]
    assert isinstance(image, DataBlock) and isinstance(image.source, URLSource)
    assert request.tools is not None and isinstance(request.tools[0], Tool)
    assert (request.tool_choice, request.options) == ("auto", {"n": 1})

    conversation, dialect = by_name["zai-reasoning-content-preserved"]
    request = chat_request.parse_request(conversation.turn2_request, dialect)
    thinking = request.messages[1].blocks[0]  # type: ignore[union-attr]
    assert isinstance(thinking, ThinkingBlock)
    assert thinking.thinking.startswith("\nThe user is asking for the product of 17 and 19.")
    assert request.options == {"thinking": {"clear_thinking": False, "type": "enabled"}}

    conversation, dialect = by_name["tool-result-then-user-file"]
    request = chat_request.parse_request(conversation.turn2_request, dialect)
    pdf = request.messages[-1].blocks[0]  # type: ignore[union-attr]
    assert isinstance(pdf, DataBlock) and pdf.media_type == "application/pdf"
    assert pdf.name == "filename.pdf" and pdf.data.startswith(b"%PDF-1.4")


# ---------------------------------------------------------------- turn 2 from turn 1

# Differences from the recording client (pydantic-ai), each named in SOURCE.txt or
# the MANIFEST's quirks, asserted present and undone on the recorded message.
Artifact = Callable[[dict[str, Any], dict[str, Any], list[dict[str, Any]]], None]


def content_omitted(ours: dict[str, Any], recorded: dict[str, Any],
                    later: list[dict[str, Any]]) -> None:
    """Older recordings leave ``content`` out of a tool-call turn; we send
    ``null`` (both accepted: MANIFEST, OpenAI Chat quirks)."""
    assert "content" not in recorded and ours["content"] is None and "tool_calls" in recorded
    recorded["content"] = None


def synthetic_call_id(ours: dict[str, Any], recorded: dict[str, Any],
                      later: list[dict[str, Any]]) -> None:
    """Gemini's endpoint returned the call with id ``""``: the client made up
    ``pyd_ai_<hex>``, streamkit makes up its own; the tool result follows."""
    (call,), (mine,) = recorded["tool_calls"], ours["tool_calls"]
    assert call["id"].startswith("pyd_ai_") and mine["id"] != call["id"]
    for message in later:
        if message.get("tool_call_id") == call["id"]:
            message["tool_call_id"] = mine["id"]
    call["id"] = mine["id"]


def content_as_text_parts(ours: dict[str, Any], recorded: dict[str, Any],
                          later: list[dict[str, Any]]) -> None:
    """Mistral: the client sends the content as ``[{type: text}]`` ([] for a
    call); the plain string (null for a call) means the same."""
    parts = recorded["content"]
    assert isinstance(parts, list) and all(p.keys() == {"type", "text"} for p in parts)
    recorded["content"] = "".join(part["text"] for part in parts) or None


def prefix_false(ours: dict[str, Any], recorded: dict[str, Any],
                 later: list[dict[str, Any]]) -> None:
    """Mistral: ``prefix: false``, the default (docs.mistral.ai/guides/prefix)."""
    assert recorded.pop("prefix") is False and "prefix" not in ours


def empty_tool_calls(ours: dict[str, Any], recorded: dict[str, Any],
                     later: list[dict[str, Any]]) -> None:
    """Mistral: the client turns the response's ``tool_calls: null`` into ``[]``."""
    assert recorded.pop("tool_calls") == [] and "tool_calls" not in ours


def call_index_kept(ours: dict[str, Any], recorded: dict[str, Any],
                    later: list[dict[str, Any]]) -> None:
    """Mistral: the client keeps the response's ``tool_calls[].index``."""
    for position, call in enumerate(recorded["tool_calls"]):
        assert call.pop("index") == position


#: Recordings whose client answered calls under ids it made up (the response's were "").
MADE_UP_CALL_IDS = {"openai-compatible/gemini-openai-compat-tool-call"}


def answer_our_calls(response: ChatResponse, following: list[Message]) -> None:
    """The results answer the calls by the ids streamkit gave them, as a client
    using streamkit does (the recording's answer the client's ``pyd_ai_`` ids)."""
    results = [result for message in following
               if isinstance(message, FunctionExecutionResultMessage)
               for result in message.content]
    assert len(results) == len(response.tool_calls)
    for result, call in zip(results, response.tool_calls, strict=True):
        assert result.call_id.startswith("pyd_ai_")
        result.call_id = call.id


ARTIFACTS: dict[str, list[Artifact]] = {
    "openai-chat/tool-call-json": [content_omitted],
    "openai-chat/tool-call-third-turn": [content_omitted],
    "openai-chat/tool-result-then-user-image": [content_omitted],
    "openai-compatible/gemini-openai-compat-tool-call": [synthetic_call_id, content_omitted],
    "openai-compatible/mistral-content-array-prefix": [content_as_text_parts, prefix_false,
                                                       empty_tool_calls],
    "openai-compatible/mistral-tool-call": [content_as_text_parts, prefix_false,
                                            call_index_kept],
}


def turn2_of(conversation: Conversation, dialect: str | None) -> dict[str, Any]:
    """Turn 2 rebuilt: turn 1's history + the parsed turn-1 response + what
    follows the assistant turn in turn2.request.json; options from turn 2."""
    turn1 = chat_request.parse_request(copy.deepcopy(conversation.turn1_request), dialect)
    if conversation.streamed:
        _, response = replay(conversation.turn1_response, dialect or "openai-chat")
        response.provider = dialect or "openai"
    else:
        response = chat_response.parse_response(json.loads(conversation.turn1_response), dialect)
    turn2 = chat_request.parse_request(copy.deepcopy(conversation.turn2_request), dialect)
    history = turn2.messages[:len(turn1.messages)]
    # turn 1's conversation is a prefix of turn 2's
    assert wire(history, dialect) == wire(turn1.messages, dialect)
    following = turn2.messages[len(turn1.messages) + 1:]
    if conversation.name in MADE_UP_CALL_IDS:
        answer_our_calls(response, following)
    rebuilt = Request([*turn1.messages, response, *following], model=turn2.model,
                      tools=turn2.tools, tool_choice=turn2.tool_choice,
                      json_output=turn2.json_output, stream=turn2.stream, options=turn2.options)
    return chat_request.build_request(rebuilt, dialect)


@pytest.mark.parametrize("case", CONVERSATIONS, ids=conversation_id)
def test_turn2_is_rebuilt_from_turn1(case: tuple[Conversation, str | None]) -> None:
    conversation, dialect = case
    ours = turn2_of(conversation, dialect)
    sdk_valid("openai-chat", ours, dialect=dialect)
    recorded = copy.deepcopy(conversation.turn2_request)
    index = len(conversation.turn1_request["messages"])
    assistant = recorded["messages"][index]
    assert assistant["role"] == "assistant"
    for artifact in ARTIFACTS.get(conversation.name, []):
        artifact(ours["messages"][index], assistant, recorded["messages"][index + 1:])
    assert smart_chars(ours) == smart_chars(recorded)


def test_every_artifact_belongs_to_a_recording() -> None:
    assert set(ARTIFACTS) <= {c.name for c, _ in CONVERSATIONS}


def test_turn2_reasoning_goes_back_where_each_vendor_wants_it() -> None:
    """The recorded turn 2s, read for their reasoning: each in its vendor's form."""
    forms = {}
    for conversation, dialect in CONVERSATIONS:
        assistant = turn2_of(conversation, dialect)["messages"][
            len(conversation.turn1_request["messages"])]
        forms[conversation.path.name] = sorted(
            key for key in assistant if key.startswith("reasoning")) or (
            "think tags" if "<think>" in str(assistant.get("content")) else None)
    assert forms["zai-reasoning-content-preserved"] == ["reasoning_content"]
    assert forms["crusoe-reasoning-tool-call"] == ["reasoning"]
    assert forms["ollama-cloud-reasoning"] == ["reasoning"]
    assert forms["cerebras-glm-think-tags"] == "think tags"
    assert forms["openrouter-tool-call"] is None  # its response had no reasoning


# ---------------------------------------------------------------- documented bodies round trip

@pytest.mark.parametrize("case", DOCUMENTED_BODIES, ids=lambda case: str(case[0]))
def test_documented_bodies_round_trip_and_validate(case: tuple[str | None,
                                                               dict[str, Any]]) -> None:
    dialect, body = case
    round_trip(body, dialect)
    if body["model"] not in ("m",):  # the last case is made of unknown fields on purpose
        sdk_valid("openai-chat", body, dialect=dialect)


def test_documented_bodies_read_into_the_model() -> None:
    _, openai_body = DOCUMENTED_BODIES[0]
    request = round_trip(openai_body)
    developer, system, user = request.messages
    assert isinstance(developer, SystemMessage) and developer.metadata == {"role": "developer"}
    assert isinstance(system, SystemMessage) and system.metadata == {"name": "policy"}
    assert [block.text for block in system.content] == ["Answer in French."]  # type: ignore
    assert request.options["max_tokens"] == 50 and request.options[MAX_TOKENS_FIELD] == "max_tokens"
    assert isinstance(user, UserMessage) and user.name == "ana"
    kinds = [(type(b).__name__, getattr(b, "media_type", None)) for b in user.blocks]
    assert kinds == [("TextBlock", None), ("DataBlock", "image/*"), ("DataBlock", "image/png"),
                     ("DataBlock", "audio/wav"), ("DataBlock", "audio/mpeg"),
                     ("DataBlock", "application/pdf"), ("DataBlock", "")]
    assert user.blocks[1].metadata == {"detail": "low"}
    assert user.blocks[6].metadata == {"file_id": "file-abc123"}

    _, spoken = DOCUMENTED_BODIES[1]
    request = round_trip(spoken)
    assert request.options == {"audio": {"voice": "alloy", "format": "wav"},
                               "include_usage": True}
    answer = request.messages[1]
    assert isinstance(answer, AssistantMessage)
    assert answer.blocks[0].metadata == {"audio_id": "audio_abc123"}

    _, loop = DOCUMENTED_BODIES[2]
    request = round_trip(loop)
    assert request.tool_choice == "get_weather"
    assert isinstance(request.json_output, JsonSchemaOutput)
    assert (request.json_output.name, request.json_output.strict) == ("Answer", True)
    calls = request.messages[1].blocks  # type: ignore[union-attr]
    assert [(c.id, c.input) for c in calls] == [  # type: ignore[union-attr]
        ("call_1", '{"city":"Paris"}'), ("call_2", '{"city":"Rome"}')]
    results = request.messages[2]
    assert isinstance(results, FunctionExecutionResultMessage)
    assert [r.call_id for r in results.content] == ["call_1", "call_2"]
    refused = request.messages[3]
    assert isinstance(refused, AssistantMessage) and refused.blocks[0].refusal  # type: ignore

    _, deepseek = DOCUMENTED_BODIES[4]
    request = round_trip(deepseek, "deepseek")
    thinking = request.messages[1].blocks[0]  # type: ignore[union-attr]
    assert isinstance(thinking, ThinkingBlock) and thinking.thinking == "Need the date first."

    _, openrouter = DOCUMENTED_BODIES[5]
    request = round_trip(openrouter, "openrouter")
    signed = request.messages[1].blocks[0]  # type: ignore[union-attr]
    assert isinstance(signed, ThinkingBlock) and signed.signature == "EqQBCkgI"
    summary, encrypted = request.messages[3].blocks[:2]  # type: ignore[union-attr]
    assert isinstance(summary, ThinkingBlock) and isinstance(encrypted, ThinkingBlock)
    assert (summary.id, summary.thinking, summary.encrypted) == ("rs_1", "Add.", "gAAAAENC0")
    assert (encrypted.id, encrypted.redacted, encrypted.encrypted) == ("rs_2", True, "gAAAAENC1")
    assert request.messages[3].metadata == {}  # written back from the blocks alone

    _, mistral = DOCUMENTED_BODIES[6]
    request = round_trip(mistral, "mistral")
    chunk = request.messages[1].blocks[0]  # type: ignore[union-attr]
    assert isinstance(chunk, ThinkingBlock) and chunk.thinking == "18^2-1"
    assert request.messages[-1].metadata == {"prefix": True}

    _, qwen = DOCUMENTED_BODIES[7]
    assert round_trip(qwen, "qwen").options == {"thinking_budget": 50, "include_usage": True,
                                                "enable_thinking": True}

    _, unknown = DOCUMENTED_BODIES[9]
    request = round_trip(unknown, "vllm")
    user = request.messages[0]
    assert isinstance(user, UserMessage) and user.metadata == {"x_message": True}
    assert user.blocks[0].metadata == {"x_part": 1}
    raw = user.blocks[1]
    assert isinstance(raw, RawBlock) and raw.kind == RAW_KIND + "video_url"
    critic = request.messages[-1]
    assert isinstance(critic, UserMessage) and critic.metadata == {"role": "critic"}
    assert request.options == {"x_top": {"a": 1}, "stream_options": {"include_usage": False}}


# a property: any body of documented parts, in any order, comes back exactly
_TEXT = st.text(st.characters(codec="utf-8"), max_size=10)
_NAME = st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True)
_ARGUMENTS = st.dictionaries(_NAME, st.integers() | _TEXT, max_size=2).map(json.dumps)
_B64 = st.binary(min_size=1, max_size=12).map(lambda data: base64.b64encode(data).decode())
_PART = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, _TEXT),
    st.builds(lambda d: {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{d}"}},
              _B64),
    st.builds(lambda d, f: {"type": "input_audio", "input_audio": {"data": d, "format": f}},
              _B64, st.sampled_from(["wav", "mp3"])),
    st.builds(lambda d, n: {"type": "file", "file": {
        "file_data": f"data:application/pdf;base64,{d}", "filename": n}}, _B64, _NAME))
_CALL = st.builds(lambda i, n, a: {"id": i, "type": "function",
                                   "function": {"name": n, "arguments": a}},
                  st.from_regex(r"call_[A-Za-z0-9]{6}", fullmatch=True), _NAME, _ARGUMENTS)
_MESSAGE = st.one_of(
    st.fixed_dictionaries({"role": st.sampled_from(["system", "developer"]), "content": _TEXT}),
    st.fixed_dictionaries({"role": st.just("user"),
                           "content": _TEXT | st.lists(_PART, max_size=3)},
                          optional={"name": _NAME}),
    st.fixed_dictionaries({"role": st.just("assistant")}, optional={
        "content": _TEXT | st.none(), "tool_calls": st.lists(_CALL, min_size=1, max_size=2),
        "reasoning_content": _TEXT, "refusal": _TEXT | st.none(), "name": _NAME}),
    st.fixed_dictionaries({"role": st.just("tool"), "content": _TEXT,
                           "tool_call_id": st.from_regex(r"call_[A-Za-z0-9]{6}",
                                                         fullmatch=True)}))
_BODY = st.fixed_dictionaries(
    {"model": _NAME, "messages": st.lists(_MESSAGE, max_size=6)},
    optional={"stream": st.booleans(), "max_tokens": st.integers(1, 99),
              "max_completion_tokens": st.integers(1, 99), "temperature": st.floats(0, 2),
              "stop": _TEXT | st.lists(_TEXT, max_size=2), "seed": st.integers(0, 9),
              "tool_choice": st.sampled_from(["auto", "none", "required"]),
              "response_format": st.just({"type": "json_object"}),
              "parallel_tool_calls": st.booleans()})


@settings(max_examples=300, deadline=None)
@given(_BODY, st.sampled_from([None, "deepseek", "vllm", "openrouter", "mistral", "cerebras"]))
def test_any_documented_body_round_trips(body: dict[str, Any], dialect: str | None) -> None:
    round_trip(body, dialect)


# ---------------------------------------------------------------- user content

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt "


def test_every_user_content_kind() -> None:
    message = UserMessage([
        TextBlock("Look."),
        DataBlock(source=URLSource("https://example.com/cat.jpg")),
        DataBlock(source=Base64Source(PNG, "image/png"), metadata={"detail": "high"}),
        DataBlock(source=Base64Source(WAV, "audio/wav")),
        DataBlock(source=Base64Source(b"ID3", "audio/mpeg")),
        DataBlock(source=Base64Source(b"%PDF-1.4", "application/pdf"), name="a.pdf"),
        DataBlock(metadata={"file_id": "file-1"}),
        RawBlock("image", {"type": "image", "source": {"type": "base64"}}),  # Anthropic's
    ], name="ana")
    body = build([message])
    assert body["messages"] == [{"role": "user", "name": "ana", "content": [
        {"type": "text", "text": "Look."},
        {"type": "image_url", "image_url": {"url": "https://example.com/cat.jpg"}},
        {"type": "image_url", "image_url": {
            "url": "data:image/png;base64," + base64.b64encode(PNG).decode(), "detail": "high"}},
        {"type": "input_audio", "input_audio": {"data": base64.b64encode(WAV).decode(),
                                                "format": "wav"}},
        {"type": "input_audio", "input_audio": {"data": "SUQz", "format": "mp3"}},
        {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBERi0xLjQ=",
                                  "filename": "a.pdf"}},
        {"type": "file", "file": {"file_id": "file-1"}},
    ]}]
    sdk_valid("openai-chat", body)


def test_pcm_audio_goes_as_wav() -> None:
    samples = b"\x01\x00\x02\x00"
    block = DataBlock(source=Base64Source(samples, "audio/pcm;rate=16000"))
    part = build([UserMessage([block])])["messages"][0]["content"][0]
    assert part["input_audio"]["format"] == "wav"
    assert base64.b64decode(part["input_audio"]["data"]) == block.to_wav()


@pytest.mark.parametrize(("block", "error"), [
    (DataBlock(source=URLSource("https://x/a.wav", "audio/wav")), "audio by URL"),
    (DataBlock(source=URLSource("https://x/a.pdf", "application/pdf")), "only images by URL"),
    (DataBlock(source=Base64Source(b"fLaC", "audio/flac")), "wav or mp3"),
])
def test_content_the_wire_cannot_take_is_refused(block: DataBlock, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        build([UserMessage([block])])


# ---------------------------------------------------------------- tool loop

def test_tool_loop_with_parallel_calls_and_results() -> None:
    response = response_of({"content": None, "tool_calls": [
        {"id": "call_a", "type": "function",
         "function": {"name": "weather", "arguments": '{"city":"Paris"}'}},
        {"id": "call_b", "type": "function",
         "function": {"name": "weather", "arguments": '{"city":"Rome"}'}}]},
        finish_reason="tool_calls")
    results = FunctionExecutionResultMessage([
        FunctionExecutionResult("call_a", "18C", name="weather"),
        FunctionExecutionResult("call_b", [TextBlock("21C"), TextBlock(" and dry")],
                                is_error=True, name="weather")])
    body = build([UserMessage("Weather?"), response, results])
    assert body["messages"][1:] == [
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_a", "type": "function",
             "function": {"name": "weather", "arguments": '{"city":"Paris"}'}},
            {"id": "call_b", "type": "function",
             "function": {"name": "weather", "arguments": '{"city":"Rome"}'}}]},
        {"role": "tool", "tool_call_id": "call_a", "content": "18C"},
        # is_error has no field and name no place: the content says what happened
        {"role": "tool", "tool_call_id": "call_b", "content": [
            {"type": "text", "text": "21C"}, {"type": "text", "text": " and dry"}]},
    ]
    sdk_valid("openai-chat", body)


def test_images_a_tool_returned_go_in_a_following_user_message() -> None:
    results = FunctionExecutionResultMessage([
        FunctionExecutionResult("call_a", [TextBlock("The chart:"),
                                           DataBlock(source=Base64Source(PNG, "image/png"))]),
        FunctionExecutionResult("call_b", [DataBlock(
            source=Base64Source(b"%PDF", "application/pdf"), name="r.pdf")]),
        FunctionExecutionResult("call_c", "plain"),
    ])
    calls = AssistantMessage([ToolCallBlock(i, "f", "{}") for i in ("call_a", "call_b", "call_c")])
    body = build([UserMessage("go"), calls, results])
    assert body["messages"][2:] == [
        {"role": "tool", "tool_call_id": "call_a",
         "content": [{"type": "text", "text": "The chart:"}]},
        {"role": "tool", "tool_call_id": "call_b", "content": SEE_NEXT_MESSAGE},
        {"role": "tool", "tool_call_id": "call_c", "content": "plain"},
        {"role": "user", "content": [
            {"type": "text", "text": "Attached to the result of tool call call_a:"},
            {"type": "image_url", "image_url": {
                "url": "data:image/png;base64," + base64.b64encode(PNG).decode()}},
            {"type": "text", "text": "Attached to the result of tool call call_b:"},
            {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBERg==",
                                      "filename": "r.pdf"}}]},
    ]
    sdk_valid("openai-chat", body)


def test_cut_off_or_invalid_arguments_go_as_the_text_that_came() -> None:
    """``arguments`` is text: a cut-off or malformed call goes back as the model
    wrote it (no completion made up, no ``"{}"`` in its place); no text is ``{}``."""
    cut = ToolCallBlock("call_x", "f", '{"city": "Par', incomplete=True)
    invalid = ToolCallBlock("call_z", "f", '{"city": Paris}')
    empty = ToolCallBlock("call_y", "g", "")
    body = build([UserMessage("go"), AssistantMessage([cut, invalid, empty])])
    arguments = [c["function"]["arguments"] for c in body["messages"][1]["tool_calls"]]
    assert arguments == ['{"city": "Par', '{"city": Paris}', "{}"]


def test_mistral_call_ids_are_nine_letters_on_the_call_and_its_result() -> None:
    openai_turn = AssistantMessage([ToolCallBlock("call_iXFttys57ap0o16JSlC8yhYo", "f", "{}")],
                                   provider="openai")
    results = FunctionExecutionResultMessage(
        [FunctionExecutionResult("call_iXFttys57ap0o16JSlC8yhYo", "ok")])
    body = build([UserMessage("go"), openai_turn, results], "mistral")
    call_id = body["messages"][1]["tool_calls"][0]["id"]
    assert re.fullmatch(r"[A-Za-z0-9]{9}", call_id)
    assert body["messages"][2]["tool_call_id"] == call_id
    native = AssistantMessage([ToolCallBlock("KikbB849t", "f", "{}")], provider="mistral")
    assert build([native], "mistral")["messages"][0]["tool_calls"][0]["id"] == "KikbB849t"
    assert build([openai_turn])["messages"][0]["tool_calls"][0]["id"] == (
        "call_iXFttys57ap0o16JSlC8yhYo")  # other vendors take any id


def test_legacy_function_call_is_answered_by_a_function_message() -> None:
    response = response_of({"content": None, "function_call": {"name": "f", "arguments": "{}"}},
                           finish_reason="function_call")
    call = response.tool_calls[0]
    body = build([UserMessage("go"), response,
                  FunctionExecutionResultMessage([FunctionExecutionResult(call.id, "done")])])
    assert body["messages"][1:] == [
        {"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": "{}"}},
        {"role": "function", "name": "f", "content": "done"}]
    sdk_valid("openai-chat", body)


# ---------------------------------------------------------------- options


def tools() -> list[Tool]:
    return [Tool("get_weather", "Weather in a city.",
                 {"type": "object", "properties": {"city": {"type": "string"}}}, strict=None),
            Tool("get_time", "", {"type": "object", "properties": {}}, strict=True)]


@pytest.mark.parametrize(("choice", "wire"), [
    ("auto", "auto"), ("required", "required"), ("none", "none"),
    ("get_time", {"type": "function", "function": {"name": "get_time"}}),
])
def test_tool_choice(choice: str, wire: Any) -> None:
    body = build([UserMessage("hi")], tools=tools(), tool_choice=choice)
    assert body["tool_choice"] == wire
    assert body["tools"] == [
        {"type": "function", "function": {
            "name": "get_weather", "description": "Weather in a city.",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}},
        {"type": "function", "function": {
            "name": "get_time", "parameters": {"type": "object", "properties": {}},
            "strict": True}}]
    sdk_valid("openai-chat", body)
    assert round_trip(body).tool_choice == choice


def test_tool_choice_naming_an_unknown_tool_is_an_error() -> None:
    with pytest.raises(ValueError, match="not among the tools"):
        build([UserMessage("hi")], tools=tools(), tool_choice="get_date")


def test_tools_from_functions() -> None:
    def get_weather(city: str) -> str:
        """Weather in a city."""
        return "sunny"

    body = build_request("openai", [UserMessage("hi")], model="gpt-4.1",
                         tools=[get_weather], tool_choice="get_weather")
    (entry,) = body["tools"]
    assert entry["type"] == "function" and entry["function"]["name"] == "get_weather"
    assert entry["function"]["description"] == "Weather in a city."
    assert entry["function"]["parameters"]["properties"]["city"]["type"] == "string"
    sdk_valid("openai-chat", body)


class Answer(BaseModel):
    city: str
    population: int


def test_structured_output() -> None:
    body = build([UserMessage("hi")], json_output=True)
    assert body["response_format"] == {"type": "json_object"}
    output = JsonSchemaOutput("Answer", {"type": "object"}, strict=False, description="one",
                              metadata={"x": 1})
    body = build([UserMessage("hi")], json_output=output)
    assert body["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "Answer", "schema": {"type": "object"}, "strict": False, "description": "one",
        "x": 1}}
    body = build_request("openai", [UserMessage("hi")], model="gpt-4.1", json_output=Answer)
    schema = body["response_format"]["json_schema"]
    assert (schema["name"], schema["strict"]) == ("Answer", True)
    assert schema["schema"]["required"] == ["city", "population"]
    assert schema["schema"]["additionalProperties"] is False
    sdk_valid("openai-chat", body)
    assert isinstance(round_trip(body).json_output, JsonSchemaOutput)


@pytest.mark.parametrize(("dialect", "option", "value", "wire"), [
    (None, "temperature", 0.3, {"temperature": 0.3}),
    (None, "top_p", 0.5, {"top_p": 0.5}),
    (None, "max_tokens", 100, {"max_completion_tokens": 100}),
    ("azure", "max_tokens", 100, {"max_completion_tokens": 100}),
    ("deepseek", "max_tokens", 100, {"max_tokens": 100}),
    ("mistral", "max_tokens", 100, {"max_tokens": 100}),
    (None, "stop", ["END"], {"stop": ["END"]}),
    (None, "seed", 42, {"seed": 42}),
    (None, "reasoning_effort", "minimal", {"reasoning_effort": "minimal"}),
    ("qwen", "thinking_budget", 500, {"thinking_budget": 500}),
    (None, "parallel_tool_calls", False, {"parallel_tool_calls": False}),
    (None, "audio", {"voice": "alloy", "format": "pcm16"},
     {"audio": {"voice": "alloy", "format": "pcm16"}, "modalities": ["text", "audio"]}),
    (None, "foreign_thinking", "drop", {}),
])
def test_each_uniform_option(dialect: str | None, option: str, value: Any,
                             wire: dict[str, Any]) -> None:
    body = build([UserMessage("hi")], dialect, **{option: value})
    assert {k: v for k, v in body.items() if k not in ("model", "messages")} == wire
    sdk_valid("openai-chat", body, dialect=dialect)
    request = round_trip(body, dialect)
    if option != "foreign_thinking":
        assert request.options == {option: value}


def test_include_usage_only_in_a_stream() -> None:
    body = build([UserMessage("hi")], stream=True, include_usage=True)
    assert (body["stream"], body["stream_options"]) == (True, {"include_usage": True})
    sdk_valid("openai-chat", body)
    assert "stream_options" not in build([UserMessage("hi")], stream=False, include_usage=True)
    assert build([UserMessage("hi")], stream=True, include_usage=True,
                 stream_options={"include_obfuscation": False})["stream_options"] == {
        "include_obfuscation": False, "include_usage": True}


@pytest.mark.parametrize("stream", [True, False, None])
def test_stream_flag(stream: bool | None) -> None:
    body = build([UserMessage("hi")], stream=stream)
    assert body.get("stream", "absent") == ("absent" if stream is None else stream)


@pytest.mark.parametrize(("dialect", "option", "error"), [
    ("deepseek", "thinking_budget", "no reasoning budget"),
    (None, "include_thoughts", "include_thoughts"),
    (None, "foreign_thinking", "foreign_thinking"),
])
def test_uniform_options_without_a_form_here_are_refused(dialect: str | None, option: str,
                                                         error: str) -> None:
    with pytest.raises(ValueError, match=error):
        build([UserMessage("hi")], dialect, **{option: "keep" if option == "foreign_thinking"
                                                else 100})


def test_a_thinking_budget_is_the_effort_it_stands_for_on_openais_own_api() -> None:
    body = build([UserMessage("hi")], None, thinking_budget=3000)
    assert body["reasoning_effort"] == "medium" and "thinking_budget" not in body


def test_a_budget_read_from_another_wire_is_dropped_where_the_dialect_has_no_budget() -> None:
    """A gateway's Anthropic request to DeepSeek: said, not refused."""
    request = Request(messages=[UserMessage("hi")], model="m",
                      options=Extras("anthropic", {"thinking_budget": 3000}))
    with pytest.warns(LossyTranslationWarning, match=r"thinking_budget \(deepseek\)"):
        body = chat_request.build_request(request, "deepseek")
    assert "thinking_budget" not in body and "reasoning_effort" not in body


def test_every_uniform_option_is_handled() -> None:
    tested = {"temperature", "top_p", "max_tokens", "stop", "seed", "reasoning_effort",
              "thinking_budget", "include_thoughts", "include_usage", "audio",
              "parallel_tool_calls", "foreign_thinking", "api_version", "prompt_cache_key",
              "prompt_cache_retention"}
    assert tested == set(UNIFORM_OPTIONS)


def test_legacy_max_tokens_keeps_its_spelling_and_a_new_request_gets_the_new_one() -> None:
    body = {"model": "gpt-4o", "max_tokens": 10, "messages": [{"role": "user", "content": "x"}]}
    request = round_trip(body)
    assert request.options == {"max_tokens": 10, MAX_TOKENS_FIELD: "max_tokens"}
    del request.options[MAX_TOKENS_FIELD]
    assert chat_request.build_request(request, None)["max_completion_tokens"] == 10
    both = {**body, "max_completion_tokens": 20}
    assert round_trip(both).options == {"max_tokens": 10, MAX_TOKENS_FIELD: "max_tokens",
                                        "max_completion_tokens": 20}


# ---------------------------------------------------------------- sending a turn back

def test_dialect_rules_are_data_for_every_dialect() -> None:
    """The writing rules are a field of the one dialect record, read as data."""
    for name, dialect in DIALECTS.items():
        rules = dialect.history
        assert isinstance(rules, HistoryRules), name
        assert BuildContext(dialect).rules is rules, name
        if rules != DEFAULT_RULES:
            assert rules.sources, f"{name}: every rule cites where it comes from"


def test_reasoning_goes_back_in_each_vendors_form() -> None:
    """The same own turn (thinking, text, a call) sent to each vendor."""
    forms = {}
    for name in ("deepseek", "glm", "moonshot", "vllm", "crusoe", "ollama-openai", "cerebras",
                 "mistral", "openrouter", None, "azure", "groq", "qwen"):
        turn = AssistantMessage([ThinkingBlock("Plan."), TextBlock("Calling."),
                                 ToolCallBlock("K1b2C3d4E", "f", "{}")],
                                provider=name or "openai")
        assistant = build([UserMessage("go"), turn], name)["messages"][1]
        sdk_valid("openai-chat", build([UserMessage("go"), turn], name), dialect=name)
        forms[name] = {key: value for key, value in assistant.items()
                       if key not in ("role", "tool_calls")}
    assert forms["deepseek"] == {"content": "Calling.", "reasoning_content": "Plan."}
    assert forms["glm"] == forms["moonshot"] == forms["deepseek"]
    assert forms["vllm"] == {"content": "Calling.", "reasoning": "Plan."}
    assert forms["crusoe"] == forms["ollama-openai"] == forms["vllm"]
    assert forms["cerebras"] == {"content": "<think>\nPlan.\n</think>\n\nCalling."}
    assert forms["mistral"] == {"content": [
        {"type": "thinking", "thinking": [{"type": "text", "text": "Plan."}]},
        {"type": "text", "text": "Calling."}]}
    assert forms["openrouter"] == {"content": "Calling.", "reasoning_details": [
        {"type": "reasoning.text", "text": "Plan.", "index": 0}]}
    # no documented way back: the vendor's own reasoning is not sent
    assert forms[None] == forms["azure"] == forms["groq"] == forms["qwen"] == {
        "content": "Calling."}


def test_own_reasoning_a_vendor_takes_no_field_for_is_not_sent_and_said() -> None:
    """OpenAI's own Chat API (and Azure, Groq, Qwen) documents no field for a
    turn's reasoning: not sent, as above, but never silently (the write-side
    fuzzer counted 1,198 such silent drops); another vendor's turn keeps its
    reasoning as ``<think>`` text, as the other wires do."""
    for name, provider in ((None, "openai"), (None, None), ("azure", "azure"),
                           ("groq", "groq")):
        turn = AssistantMessage([ThinkingBlock("Plan."), TextBlock("Done.")], provider=provider)
        with pytest.warns(LossyTranslationWarning, match="visible thinking"):
            assert build([UserMessage("go"), turn], name)["messages"][1] == {
                "role": "assistant", "content": "Done."}
    foreign = AssistantMessage([ThinkingBlock("Plan."), TextBlock("Done.")], provider="deepseek")
    assert "Plan." in build([UserMessage("go"), foreign])["messages"][1]["content"]


def test_deepseek_and_kimi_tool_turns_without_reasoning_get_an_empty_one() -> None:
    foreign = AssistantMessage([ToolCallBlock("toolu_1", "f", "{}")], provider="anthropic")
    for name in ("deepseek", "moonshot"):
        assert build([UserMessage("go"), foreign], name)["messages"][1]["reasoning_content"] == ""
    text_only = AssistantMessage([TextBlock("hi")], provider="anthropic")
    assert "reasoning_content" not in build([text_only], "deepseek")["messages"][0]
    assert "reasoning" not in build([foreign], "vllm")["messages"][0]


def test_openrouter_details_go_back_unmodified_from_a_stream() -> None:
    """A recorded OpenRouter stream (Anthropic behind it: text + signature) and
    the edge stream of an OpenAI model (summary + encrypted, encrypted only)."""
    _, signed = replay((FIXTURES / "openai-compatible/openrouter-reasoning-details.sse")
                       .read_bytes(), "openrouter")
    details = build([UserMessage("2+2?"), signed], "openrouter")["messages"][1][
        "reasoning_details"]
    recorded = [json.loads(p.data)["choices"][0]["delta"].get("reasoning_details") or []
                for p in payloads("openai-compatible/openrouter-reasoning-details.sse")
                if p.data != "[DONE]" and json.loads(p.data).get("choices")]
    fragments = [d for chunk in recorded for d in chunk]
    signature = next(d["signature"] for d in fragments if d.get("signature"))
    text = "".join(d.get("text", "") for d in fragments)
    assert details == [{"type": "reasoning.text", "text": text, "signature": signature,
                        "format": "anthropic-claude-v1", "index": 0}]

    _, encrypted = replay((FIXTURES / "edge/openai-chat-openrouter-reasoning-encrypted.sse")
                          .read_bytes(), "openrouter")
    encrypted.provider = signed.provider = "openrouter"  # what the stream pipeline will set
    details = build([UserMessage("?"), encrypted], "openrouter")["messages"][1][
        "reasoning_details"]
    assert details == [
        {"type": "reasoning.summary", "summary": "Summary.", "id": "rs_1",
         "format": "openai-responses-v1", "index": 0},
        {"type": "reasoning.encrypted", "data": "gAAAAENC0", "id": "rs_1",
         "format": "openai-responses-v1", "index": 0},
        {"type": "reasoning.encrypted", "data": "gAAAAENC1", "id": "rs_2",
         "format": "openai-responses-v1", "index": 1}]
    # the same turn to another vendor: no signature, no encrypted data, no details
    to_openai = build([UserMessage("?"), encrypted])["messages"][1]
    assert to_openai == {"role": "assistant",
                         "content": "<think>\nSummary.\n</think>\n\nDone."}


def foreign_turn(provider: str) -> AssistantMessage:
    return AssistantMessage([
        ThinkingBlock("Check the weather.", signature="c2lnbmF0dXJl"),
        ThinkingBlock("", encrypted="ZW5jcnlwdGVk", redacted=True),
        TextBlock("Let me look.", citations=[Citation(url="u", raw={"url": "u"}, wire="anthropic")],
                  metadata={"x": 1}),
        RawBlock("server_tool_use", {"type": "server_tool_use", "id": "srv_1"}),
        ToolCallBlock("toolu_01", "get_weather", '{"city": "Paris"}',
                      metadata={"caller": {"type": "direct"}}),
        DataBlock(source=Base64Source(PNG, "image/png")),
    ], provider=provider, metadata={"x_foreign": True})


@pytest.mark.parametrize("provider", ["anthropic", "openai-responses", "gemini", "ollama",
                                      "not-a-known-name"])
def test_a_turn_of_another_wire_format(provider: str) -> None:
    body = build([UserMessage("Weather?"), foreign_turn(provider)])
    assert body["messages"][1] == {
        "role": "assistant", "content": "<think>\nCheck the weather.\n</think>\n\nLet me look.",
        "tool_calls": [{"id": "toolu_01", "type": "function", "function": {
            "name": "get_weather", "arguments": '{"city": "Paris"}'}}]}
    sdk_valid("openai-chat", body)
    dropped = build([UserMessage("Weather?"), foreign_turn(provider)], foreign_thinking="drop")
    assert dropped["messages"][1]["content"] == "Let me look."
    assert source_of(provider, DIALECTS["openai"]) is Source.FOREIGN


def test_a_turn_of_another_openai_compatible_vendor() -> None:
    """Same wire, other dialect: text, calls, plain reasoning in the target's field;
    no metadata, signatures, encrypted data, audio id."""
    deepseek = AssistantMessage([
        ThinkingBlock("Plan.", signature="sig", metadata={REASONING_FORM: "reasoning_content"}),
        TextBlock("Text.", metadata={"x": 1}),
        ToolCallBlock("call_1", "f", "{}", metadata={"extra_content": {"google": {}}}),
        TextBlock("No.", refusal=True),
        DataBlock(metadata={"audio_id": "audio_1"}, transcript="Said."),
    ], provider="deepseek", metadata={"x_deepseek": True})
    to_vllm = build([UserMessage("go"), deepseek], "vllm")["messages"][1]
    assert to_vllm == {"role": "assistant", "content": "Text.No.Said.", "reasoning": "Plan.",
                       "tool_calls": [{"id": "call_1", "type": "function",
                                       "function": {"name": "f", "arguments": "{}"}}]}
    to_openai = build([UserMessage("go"), deepseek])["messages"][1]
    assert to_openai["content"] == "<think>\nPlan.\n</think>\n\nText.No.Said."
    assert source_of("deepseek", DIALECTS["vllm"]) is Source.SIBLING
    assert source_of("dashscope", DIALECTS["qwen"]) is Source.NATIVE
    assert source_of("openai-chat", DIALECTS["openai"]) is Source.NATIVE
    assert source_of("cerebras", DIALECTS["cerebras"]) is Source.NATIVE
    assert source_of(None, DIALECTS["mistral"]) is Source.NATIVE


def test_an_own_turn_keeps_everything() -> None:
    """OpenAI's own: refusal field, audio by id, name, metadata written over."""
    turn = AssistantMessage([
        TextBlock("Partly."), TextBlock("Not that.", refusal=True),
        DataBlock(metadata={"audio_id": "audio_abc", "expires_at": 1}, transcript="Partly."),
    ], provider="openai", name="bot", metadata={"x_own": 1})
    body = build([UserMessage("go"), turn])
    assert body["messages"][1] == {"role": "assistant", "content": "Partly.",
                                   "refusal": "Not that.", "audio": {"id": "audio_abc"},
                                   "name": "bot", "x_own": 1}


def test_gemini_signature_on_a_call_goes_back_to_gemini_only() -> None:
    signature = {"google": {"thought_signature": "CiQBcsjafE="}}
    response = response_of({"content": None, "tool_calls": [
        {"id": "", "type": "function", "function": {"name": "f", "arguments": "{}"},
         "extra_content": signature},
        {"id": "", "type": "function", "function": {"name": "g", "arguments": "{}"}}]},
        "gemini-openai", finish_reason="tool_calls")
    assert [call.name for call in response.tool_calls] == ["f", "g"]
    calls = build([UserMessage("go"), response], "gemini-openai")["messages"][1]["tool_calls"]
    assert calls[0]["extra_content"] == signature and "extra_content" not in calls[1]
    assert calls[0]["id"] != calls[1]["id"]
    to_openai = build([UserMessage("go"), response])["messages"][1]["tool_calls"]
    assert all("extra_content" not in call for call in to_openai)


def test_responses_of_the_recorded_streams_go_back_as_openai_takes_them() -> None:
    """OpenAI's refusal and spoken answers, streamed, as history."""
    _, refusal = replay((FIXTURES / "openai-chat/refusal.sse").read_bytes(), "openai-chat")
    refusal.provider = "openai"
    body = build([UserMessage("?"), refusal])
    assert body["messages"][1] == {"role": "assistant", "content": None,
                                   "refusal": refusal.refusal}
    _, spoken = replay((FIXTURES / "synthetic/openai-chat-audio.sse").read_bytes(), "openai-chat")
    spoken.provider = "openai"
    body = build([UserMessage("?"), spoken], modalities=["text", "audio"],
                 audio={"voice": "alloy", "format": "pcm16"})
    audio_id = spoken.data_blocks[0].metadata["audio_id"]
    assert body["messages"][1] == {"role": "assistant", "content": None,
                                   "audio": {"id": audio_id}}
    sdk_valid("openai-chat", body)
    to_deepseek = build([UserMessage("?"), spoken], "deepseek")["messages"][1]
    assert to_deepseek == {"role": "assistant", "content": spoken.data_blocks[0].transcript}


def test_a_chat_response_from_another_wire_format_as_history() -> None:
    response = ChatResponse(content=[ThinkingBlock("why", signature="sig"), TextBlock("42")],
                            provider="anthropic")
    assert build([UserMessage("?"), response])["messages"][1] == {
        "role": "assistant", "content": "<think>\nwhy\n</think>\n\n42"}


def test_an_empty_turn_and_a_system_message() -> None:
    body = build([SystemMessage([TextBlock("A."), TextBlock("B.")]), AssistantMessage([])])
    assert body["messages"] == [
        {"role": "system", "content": [{"type": "text", "text": "A."},
                                       {"type": "text", "text": "B."}]},
        {"role": "assistant", "content": ""}]
    sdk_valid("openai-chat", body)


def test_building_uses_a_fresh_context_each_time() -> None:
    context = BuildContext(DIALECTS["openrouter"])
    turn = AssistantMessage([ThinkingBlock("a"), ThinkingBlock("b")], provider="openrouter")
    for _ in range(2):  # each turn numbers its details from 0
        details = chat_request.build_messages([turn], context)[0]["reasoning_details"]
        assert [d["index"] for d in details] == [0, 1]


def test_a_tool_entry_without_type_is_a_function_everywhere() -> None:
    """Mistral's recorded body declares its tool without ``"type": "function"``:
    read as a Tool, written back exactly, and sent to other wires as a function."""
    body = json.loads((FIXTURES / "conversations/openai-compatible/mistral-tool-call/"
                       "turn2.request.json").read_text())
    request = parse_request("mistral", body)
    assert [type(tool) for tool in request.tools or []] == [Tool]
    assert build_request("mistral", request) == body
    gemini = build_request("gemini", request, model="gemini-2.5-flash")
    assert gemini["tools"][0]["functionDeclarations"][0]["name"] == "get_weather"
    anthropic = build_request("anthropic", request, model="claude-sonnet-4-5")
    assert [tool["name"] for tool in anthropic["tools"]] == ["get_weather"]
