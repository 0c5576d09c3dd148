"""Anthropic Messages requests: every turn 2 rebuilt from turn 1 + the parsed
response, hand-built bodies for what the recordings do not cover, and every body
checked against the official ``anthropic`` SDK's request types.

The SDK oracle is ``support.request_oracles.anthropic`` (``sdk_valid("anthropic", body)``).

Every recorded request rebuilt exactly and valid for the SDK is a contract of
``providers/test_wire_contracts.py``, written once for every wire.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest
from pydantic import BaseModel
from support.conversations import Conversation, conversations, smart_chars
from support.request_oracles import sdk_valid

from streamkit import CachePoint
from streamkit.conversation.messages import (
    AssistantMessage,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    Message,
    SystemMessage,
    UserMessage,
)
from streamkit.conversation.request import JsonSchemaOutput, Request
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
from streamkit.model.extras import Extras
from streamkit.model.response import ChatResponse
from streamkit.model.vendors import PROVIDERS
from streamkit.providers.anthropic.content import tool_id
from streamkit.providers.anthropic.request import SAME_TURN
from streamkit.providers.anthropic.tools import JSON_TOOL
from streamkit.providers.codec import build_request, parse_request, parse_response

ANTHROPIC = "anthropic"
CONVERSATIONS = conversations("anthropic")

# ---------------------------------------------------------------- the SDK oracle


def test_the_oracle_refuses_what_the_api_refuses() -> None:
    """The oracle is not a rubber stamp: each of these bodies is wrong."""
    good = {"model": "claude-sonnet-4-5", "max_tokens": 10,
            "messages": [{"role": "user", "content": "hi"}]}
    sdk_valid("anthropic", good)
    wrong = [
        {**good, "max_tokens": None},  # required
        {k: v for k, v in good.items() if k != "max_tokens"},
        {**good, "messages": [{"role": "user", "content": [{"type": "text"}]}]},
        {**good, "messages": [{"role": "assistant", "content": [  # thinking needs a signature
            {"type": "thinking", "thinking": "x"}]}]},
        {**good, "messages": [{"role": "user", "content": [  # bmp is no inline image type
            {"type": "image", "source": {"type": "base64", "media_type": "image/bmp",
                                         "data": "AA=="}}]}]},
        {**good, "messages": [{"role": "user", "content": [  # an unknown key in a block
            {"type": "text", "text": "x", "encrypted_content": "y"}]}]},
        {**good, "seed": 1},  # an unknown top-level field
    ]
    for body in wrong:
        with pytest.raises((ValueError, AssertionError)):
            sdk_valid("anthropic", body)


# ---------------------------------------------------------------- recorded requests


def test_recorded_requests_read_into_the_model() -> None:
    """What the round trip goes through: the uniform parts, not a raw copy."""
    by_name = {c.path.name: c for c in CONVERSATIONS}
    tool_use = parse_request(ANTHROPIC, by_name["tool-use-thinking-signature"].turn2_request)
    assert tool_use.model == "claude-sonnet-4-0" and tool_use.stream is False
    assert tool_use.options == {"max_tokens": 4096, "thinking_budget": 3000}
    assert tool_use.tool_choice == "auto"
    [tool] = tool_use.tools or []
    assert isinstance(tool, Tool) and tool.name == "get_user_country"
    assert tool.parameters == {"additionalProperties": False, "properties": {}, "type": "object"}
    user, assistant, results = tool_use.messages
    assert isinstance(user, UserMessage) and isinstance(user.content[0], TextBlock)
    assert isinstance(assistant, AssistantMessage) and assistant.provider == "anthropic"
    thinking, text, call = assistant.blocks
    assert isinstance(thinking, ThinkingBlock) and thinking.signature
    assert isinstance(text, TextBlock) and isinstance(call, ToolCallBlock)
    assert (call.id, call.name, call.arguments()) == ("toolu_01YGzqpRE16Vricda3Aqcejo",
                                                     "get_user_country", {})
    assert isinstance(results, FunctionExecutionResultMessage)
    [result] = results.content
    assert (result.call_id, result.content, result.is_error) == (
        "toolu_01YGzqpRE16Vricda3Aqcejo", "Mexico", False)

    bedrock = parse_request(ANTHROPIC, by_name["bedrock-invoke-cache-breakpoint"].turn1_request)
    assert bedrock.model is None and bedrock.stream is None
    assert bedrock.options == {"anthropic_version": "bedrock-2023-05-31", "max_tokens": 4096}
    system, question = bedrock.messages
    assert system == SystemMessage("You are a helpful assistant.")
    assert isinstance(question, UserMessage)
    # its cache_control is the block's cache point, the same place and time to live
    assert (question.blocks[0].metadata, question.blocks[0].cache) == ({}, CachePoint("5m"))

    redacted = parse_request(ANTHROPIC, by_name["redacted-thinking-then-user"].turn2_request)
    turn = redacted.messages[1]
    assert isinstance(turn, AssistantMessage)
    block = turn.blocks[0]
    assert isinstance(block, ThinkingBlock) and block.redacted
    assert block.encrypted is not None and block.encrypted.startswith("EvgFCkYIBxgCKkBmxKtC")

    search = parse_request(ANTHROPIC, by_name["pause-turn-web-search"].turn2_request)
    paused = search.messages[1]
    assert isinstance(paused, AssistantMessage)
    kinds = [type(b) for b in paused.blocks]
    assert kinds[:4] == [ThinkingBlock, TextBlock, ToolCallBlock, RawBlock]
    assert kinds[-1] is ToolCallBlock  # the paused server_tool_use, no result yet
    [server_tool] = search.tools or []
    assert isinstance(server_tool, dict) and server_tool["type"] == "web_search_20250305"


# ---------------------------------------------------------------- turn 2 from turn 1

# What the recording client (pydantic-ai) or its cassette serializer changed in
# turn 2 that no provider asked for (MANIFEST.md, SOURCE.txt "artifacts").
ARTIFACTS = {
    "bedrock-invoke-cache-breakpoint": "client moves the cache_control breakpoint from the "
                                       "first user message to the newest one",
    "mcp-server-tool": "client adds citations: null to the text inside mcp_tool_result",
    "web-fetch-server-tool": "client adds citations: null inside the fetched document",
}


def turn1_response(conversation: Conversation) -> ChatResponse:
    assert not conversation.streamed  # every Anthropic pair has a JSON turn 1
    return parse_response(ANTHROPIC, conversation.turn1_response)


def build_turn2(conversation: Conversation) -> dict[str, Any]:
    """Turn 1's history + the parsed turn-1 response + the inputs that follow
    it in turn 2, with turn 2's own options."""
    history = parse_request(ANTHROPIC, conversation.turn1_request).messages
    turn2 = parse_request(ANTHROPIC, conversation.turn2_request)
    last_assistant = max(i for i, m in enumerate(turn2.messages)
                         if isinstance(m, AssistantMessage))
    after = turn2.messages[last_assistant + 1:]
    messages: list[Message] = [*history, turn1_response(conversation), *after]
    body = build_request(ANTHROPIC, Request(
        messages=messages, model=turn2.model, tools=turn2.tools, tool_choice=turn2.tool_choice,
        json_output=turn2.json_output, stream=turn2.stream, options=turn2.options))
    sdk_valid("anthropic", body)
    return body


def _drop_null_citations(value: Any) -> Any:
    """``value`` without the ``citations: null`` the client adds."""
    if isinstance(value, dict):
        return {k: _drop_null_citations(v) for k, v in value.items()
                if not (k == "citations" and v is None)}
    if isinstance(value, list):
        return [_drop_null_citations(item) for item in value]
    return value


@pytest.mark.parametrize("conversation", CONVERSATIONS, ids=[c.name for c in CONVERSATIONS])
def test_turn2_is_turn1_plus_the_response(conversation: Conversation) -> None:
    built = smart_chars(build_turn2(conversation))
    expected = smart_chars(conversation.turn2_request)
    artifact = ARTIFACTS.get(conversation.path.name)
    if artifact is None:
        assert built == expected
    else:  # the difference is exactly the named artifact, asserted by its own test
        assert built != expected, f"the artifact ({artifact}) is gone: update ARTIFACTS"


def test_turn2_artifact_cache_breakpoint_moved() -> None:
    """Bedrock: the client moved cache_control from the first user message to
    the newest; we keep turn 1's first message as it was sent."""
    [conversation] = [c for c in CONVERSATIONS
                      if c.path.name == "bedrock-invoke-cache-breakpoint"]
    built = build_turn2(conversation)
    expected = conversation.turn2_request
    first = built["messages"][0]["content"][0]
    assert first.pop("cache_control") == {"ttl": "5m", "type": "ephemeral"}
    assert "cache_control" not in expected["messages"][0]["content"][0]
    assert expected["messages"][-1]["content"][0]["cache_control"] == {"ttl": "5m",
                                                                       "type": "ephemeral"}
    assert built == expected


@pytest.mark.parametrize("name", ["mcp-server-tool", "web-fetch-server-tool"])
def test_turn2_artifact_null_citations_added(name: str) -> None:
    """MCP result text and fetched documents: the client adds ``citations: null``
    the response did not have; the response's block goes back as it came."""
    [conversation] = [c for c in CONVERSATIONS if c.path.name == name]
    built = build_turn2(conversation)
    expected = conversation.turn2_request
    without = {**expected, "messages": _drop_null_citations(expected["messages"])}
    assert without != expected  # the artifact is there
    assert built == without


def test_turn2_pause_turn_resends_the_paused_turn_last() -> None:
    [conversation] = [c for c in CONVERSATIONS if c.path.name == "pause-turn-web-search"]
    response = turn1_response(conversation)
    assert response.stop_reason == "pause_turn"
    built = build_turn2(conversation)
    last = built["messages"][-1]
    assert last["role"] == "assistant"
    assert last["content"][-1]["type"] == "server_tool_use"  # no result after it yet


def test_turn2_with_a_foreign_turn1_response_is_still_valid() -> None:
    """The same history with the response marked as another API's: signatures,
    redacted thinking and server blocks go; text and thinking (as text) stay."""
    for conversation in CONVERSATIONS:
        response = turn1_response(conversation)
        response.provider = "openai"
        history = parse_request(ANTHROPIC, conversation.turn1_request)
        body = build_request(ANTHROPIC, Request(
            messages=[*history.messages, response, UserMessage("and?")],
            model=history.model, stream=history.stream, options=history.options))
        sdk_valid("anthropic", body)
        assistant = [m for m in body["messages"] if m["role"] == "assistant"]
        for message in assistant:
            for block in message["content"]:
                assert block["type"] in ("text", "tool_use"), block["type"]
                assert set(block) <= {"type", "text", "id", "name", "input"}


# ---------------------------------------------------------------- hand-built: content kinds

PNG = b"\x89PNG\r\n\x1a\n fake image bytes"
PDF_BYTES = b"%PDF-1.7 fake"


def body_of(messages: list[Message], **options: Any) -> dict[str, Any]:
    """A body built with the usual model and budget, checked against the SDK."""
    options.setdefault("max_tokens", 1024)
    body = build_request(ANTHROPIC, messages, model="claude-sonnet-4-5", **options)
    sdk_valid("anthropic", body)
    request = parse_request(ANTHROPIC, body)  # and it reads back into the same body
    if "api_version" in options:  # a header, not a body field: the caller says it again
        request.options["api_version"] = options["api_version"]
    assert build_request(ANTHROPIC, request) == body
    return body


def test_user_content_kinds() -> None:
    """Text, images and documents by bytes and by URL, as the Messages API
    documents them (vision and PDF guides)."""
    body = body_of([UserMessage([
        TextBlock("Compare these.", metadata={"cache_control": {"type": "ephemeral"}}),
        DataBlock(source=Base64Source(PNG, "image/png")),
        DataBlock(source=URLSource("https://example.com/cat.jpg", "image/jpeg")),
        DataBlock(source=Base64Source(PDF_BYTES, "application/pdf"), name="Report"),
        DataBlock(source=URLSource("https://example.com/paper.pdf", "application/pdf")),
        DataBlock(source=Base64Source(b"plain words", "text/plain; charset=utf-8")),
        RawBlock("document", {"type": "document", "source": {"type": "file",
                                                              "file_id": "file_011"}}),
    ])], stream=False)
    assert body == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "stream": False,
        "messages": [{"role": "user", "content": [
            {"type": "text", "text": "Compare these.", "cache_control": {"type": "ephemeral"}},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                         "data": base64.b64encode(PNG).decode()}},
            {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.jpg"}},
            {"type": "document", "title": "Report",
             "source": {"type": "base64", "media_type": "application/pdf",
                        "data": base64.b64encode(PDF_BYTES).decode()}},
            {"type": "document",
             "source": {"type": "url", "url": "https://example.com/paper.pdf"}},
            {"type": "document",
             "source": {"type": "text", "media_type": "text/plain", "data": "plain words"}},
            {"type": "document", "source": {"type": "file", "file_id": "file_011"}},
        ]}],
    }


def test_user_content_read_back_as_blocks() -> None:
    body = body_of([UserMessage([
        DataBlock(source=Base64Source(PNG, "image/png")),
        DataBlock(source=URLSource("https://example.com/cat.jpg", "image/jpeg")),
        DataBlock(source=Base64Source(PDF_BYTES, "application/pdf"), name="Report"),
    ])])
    [message] = parse_request(ANTHROPIC, body).messages
    assert isinstance(message, UserMessage)
    image, linked, pdf = message.blocks
    assert isinstance(image, DataBlock) and image.data == PNG and image.media_type == "image/png"
    assert isinstance(linked, DataBlock) and isinstance(linked.source, URLSource)
    assert linked.media_type == "image/*"  # the wire does not say which image type
    assert isinstance(pdf, DataBlock) and pdf.data == PDF_BYTES and pdf.name == "Report"


@pytest.mark.parametrize(("media_type", "message"), [
    ("audio/wav", "images, PDF and plain-text documents"),
    ("image/bmp", "inline images"),
    ("video/mp4", "images, PDF and plain-text documents"),
])
def test_media_anthropic_cannot_take_raise(media_type: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build_request(ANTHROPIC, [UserMessage([DataBlock(source=Base64Source(b"x", media_type))])],
                      model="m", max_tokens=10)


def test_plain_text_by_url_raises() -> None:
    block = DataBlock(source=URLSource("https://example.com/a.txt", "text/plain"))
    with pytest.raises(ValueError, match="inline only"):
        build_request(ANTHROPIC, [UserMessage([block])], model="m", max_tokens=10)


# ---------------------------------------------------------------- tool calls and results


def test_parallel_tool_calls_and_results() -> None:
    """Two calls in one turn, answered in one user message: a text result and
    an error result with text and an image (the tool-use guide's shapes)."""
    turn = AssistantMessage([
        TextBlock("Checking both."),
        ToolCallBlock("toolu_1", "weather", '{"city": "Paris"}'),
        ToolCallBlock("toolu_2", "chart", '{"days": 3}'),
    ], provider="anthropic")
    results = FunctionExecutionResultMessage([
        FunctionExecutionResult("toolu_1", "18 C"),
        FunctionExecutionResult("toolu_2", [TextBlock("renderer failed, last chart:"),
                                            DataBlock(source=Base64Source(PNG, "image/png"))],
                                is_error=True),
    ])
    body = body_of([UserMessage("Weather and chart?"), turn, results])
    assert body["messages"][1:] == [
        {"role": "assistant", "content": [
            {"type": "text", "text": "Checking both."},
            {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "toolu_2", "name": "chart", "input": {"days": 3}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "18 C"},
            {"type": "tool_result", "tool_use_id": "toolu_2", "is_error": True, "content": [
                {"type": "text", "text": "renderer failed, last chart:"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                             "data": base64.b64encode(PNG).decode()}},
            ]},
        ]},
    ]
    [_, _, read] = parse_request(ANTHROPIC, body).messages
    assert isinstance(read, FunctionExecutionResultMessage)
    assert [(r.call_id, r.is_error) for r in read.content] == [("toolu_1", False),
                                                               ("toolu_2", True)]


def test_tool_results_then_text_in_one_wire_message() -> None:
    """A user turn of tool results followed by text (what the docs allow) reads
    as two messages and writes back as the one wire message."""
    wire = {"model": "m", "max_tokens": 10, "messages": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f",
                                           "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "done"},
            {"type": "text", "text": "now summarize"},
        ]},
    ]}
    request = parse_request(ANTHROPIC, wire)
    *_, results, follow_up = request.messages
    assert isinstance(results, FunctionExecutionResultMessage)
    assert isinstance(follow_up, UserMessage) and follow_up.metadata == {SAME_TURN: True}
    assert build_request(ANTHROPIC, request) == wire
    # without the mark, read as a wire message of its own: two consecutive user messages
    follow_up.metadata = Extras(ANTHROPIC)
    assert [m["role"] for m in build_request(ANTHROPIC, request)["messages"]] == [
        "user", "assistant", "user", "user"]
    follow_up.metadata = {}  # built by hand: joins the user turn before it
    assert build_request(ANTHROPIC, request) == wire


def test_tool_result_content_streamkit_cannot_hold_stays_whole() -> None:
    wire = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": [
            {"type": "search_result", "source": "https://x", "title": "X",
             "content": [{"type": "text", "text": "x"}]}]},
    ]}]}
    [message] = parse_request(ANTHROPIC, wire).messages
    assert isinstance(message, UserMessage) and isinstance(message.content[0], RawBlock)
    assert build_request(ANTHROPIC, parse_request(ANTHROPIC, wire)) == wire


def test_tool_call_arguments_that_are_no_object_go_as_an_empty_one() -> None:
    """``input`` must be an object: arguments cut off, not JSON or JSON of
    another kind go as ``{}`` (never an exception); the raw text stays in the
    block."""
    for text, cut in [("[1, 2]", False), ('{"a": ', True), ('{"a": b}', False)]:
        call = ToolCallBlock("t1", "f", text, incomplete=cut)
        body = build_request(ANTHROPIC, [UserMessage("x"), AssistantMessage([call])],
                             model="m", max_tokens=10)
        assert body["messages"][1]["content"] == [
            {"type": "tool_use", "id": "t1", "name": "f", "input": {}}]
        assert call.input == text
        sdk_valid("anthropic", body)


def test_tools_written_as_the_docs_show() -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}},
              "required": ["city"]}
    body = body_of([UserMessage("hi")], tools=[
        Tool("weather", "Current weather.", schema, strict=True,
             metadata={"cache_control": {"type": "ephemeral"}}),
        Tool("ping"),
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
    ])
    assert body["tools"] == [
        {"name": "weather", "description": "Current weather.", "input_schema": schema,
         "strict": True, "cache_control": {"type": "ephemeral"}},
        {"name": "ping", "input_schema": {"type": "object", "properties": {}}},
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
    ]


# ---------------------------------------------------------------- thinking


def test_own_thinking_goes_back_verbatim() -> None:
    turn = AssistantMessage([
        ThinkingBlock("Let me think.", signature="EqQBCkYIBxgC"),
        ThinkingBlock(encrypted="EmwKAhgBEgy3va3", redacted=True),
        TextBlock("Done."),
    ], provider="anthropic")
    body = body_of([UserMessage("q"), turn, UserMessage("next")], thinking_budget=2048)
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert body["messages"][1]["content"] == [
        {"type": "thinking", "thinking": "Let me think.", "signature": "EqQBCkYIBxgC"},
        {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3"},
        {"type": "text", "text": "Done."},
    ]


def test_unsigned_own_thinking_is_not_sent_as_thinking() -> None:
    """Anthropic verifies thinking blocks: one with no signature (a cut-off
    stream) would be refused, so it follows the foreign-thinking policy."""
    turn = AssistantMessage([ThinkingBlock("half a thought"), TextBlock("ok")])
    body = body_of([UserMessage("q"), turn, UserMessage("next")])
    assert body["messages"][1]["content"] == [
        {"type": "text", "text": "<think>\nhalf a thought\n</think>"},
        {"type": "text", "text": "ok"},
    ]
    dropped = body_of([UserMessage("q"), turn, UserMessage("next")], foreign_thinking="drop")
    assert dropped["messages"][1]["content"] == [{"type": "text", "text": "ok"}]


# ---------------------------------------------------------------- other providers' turns


def foreign_turn(provider: str) -> AssistantMessage:
    """A turn as other wire formats' parsers leave it: an OpenAI Responses
    reasoning item (summary + encrypted_content), a Gemini thought signature,
    an id Anthropic would refuse, provider items and metadata."""
    return AssistantMessage([
        ThinkingBlock("Summary of my reasoning.", encrypted="gAAAAABo-encrypted",
                      metadata={"item_id": "rs_123"}),
        ThinkingBlock(encrypted="gAAAAABo-only-encrypted"),
        TextBlock("Looking it up.", citations=[Citation(
            url="https://x", raw={"type": "url_citation", "url": "https://x"},
            wire="openai-responses")],
                  metadata={"item_id": "msg_1", "phase": "commentary"}),
        ToolCallBlock("functions.lookup:1", "lookup", '{"q": "x"}',
                      metadata={"item_id": "fc_1", "thought_signature": "CiQBjz1rX"}),
        ToolCallBlock("ws_1", "web_search", "{}", metadata={"server": True}),
        RawBlock("web_search_call", {"type": "web_search_call", "id": "ws_1"}),
        DataBlock(source=Base64Source(b"RIFF", "audio/wav"), transcript="Said aloud."),
    ], provider=provider, metadata={"refusal": None})


@pytest.mark.parametrize("provider", ["openai", "openai-responses", "gemini", "deepseek",
                                      "a-provider-streamkit-does-not-know"])
def test_another_providers_turn(provider: str) -> None:
    result = FunctionExecutionResultMessage([FunctionExecutionResult("functions.lookup:1", "42")])
    body = body_of([UserMessage("q"), foreign_turn(provider), result])
    call_id = tool_id("functions.lookup:1")
    assert call_id.startswith("functions_lookup_1_") and call_id != tool_id("functions.lookup.1")
    assert body["messages"][1] == {"role": "assistant", "content": [
        {"type": "text", "text": "<think>\nSummary of my reasoning.\n</think>"},
        {"type": "text", "text": "Looking it up."},
        {"type": "tool_use", "id": call_id, "name": "lookup", "input": {"q": "x"}},
        {"type": "text", "text": "Said aloud."},
    ]}
    assert body["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": call_id, "content": "42"}]


def test_another_providers_thinking_dropped_on_request() -> None:
    result = FunctionExecutionResultMessage([FunctionExecutionResult("functions.lookup:1", "42")])
    body = body_of([UserMessage("q"), foreign_turn("openai"), result, UserMessage("more")],
                   foreign_thinking="drop")
    texts = [b.get("text") for b in body["messages"][1]["content"]]
    assert texts == ["Looking it up.", None, "Said aloud."]


def test_a_turn_with_nothing_anthropic_can_take_is_left_out() -> None:
    turn = AssistantMessage([ThinkingBlock(encrypted="gAAAA"),
                             RawBlock("reasoning", {"type": "reasoning"})], provider="openai")
    body = body_of([UserMessage("q"), turn, UserMessage("again")])
    assert body["messages"] == [{"role": "user", "content": [  # the user turns, joined
        {"type": "text", "text": "q"}, {"type": "text", "text": "again"}]}]


def test_a_response_is_its_turn() -> None:
    """A ChatResponse in the list is the assistant turn; its response metadata
    (stop_sequence, container...) is not a message field."""
    response = ChatResponse(content=[TextBlock("Hi!")], provider="anthropic",
                            metadata={"stop_sequence": "END"})
    body = body_of([UserMessage("hello"), response, UserMessage("bye")])
    assert body["messages"][1] == {"role": "assistant",
                                   "content": [{"type": "text", "text": "Hi!"}]}


@pytest.mark.parametrize("value", ["keep", "", 1])
def test_foreign_thinking_option_is_checked(value: Any) -> None:
    with pytest.raises(ValueError, match="foreign_thinking"):
        build_request(ANTHROPIC, [UserMessage("q")], model="m", max_tokens=1,
                      foreign_thinking=value)


# ---------------------------------------------------------------- system


def test_system_prompts() -> None:
    one = body_of([SystemMessage("Be brief."), UserMessage("q")])
    assert one["system"] == "Be brief."
    several = body_of([SystemMessage("Be brief."),
                       SystemMessage("Long shared context.",
                                     metadata={"cache_control": {"type": "ephemeral"}}),
                       UserMessage("q")])
    assert several["system"] == [
        {"type": "text", "text": "Be brief."},
        {"type": "text", "text": "Long shared context.", "cache_control": {"type": "ephemeral"}},
    ]
    later = body_of([SystemMessage("Be brief."), UserMessage("q"),
                     AssistantMessage("a"), UserMessage("r"), SystemMessage("Now in French.")])
    assert later["system"] == "Be brief."
    assert later["messages"][-1] == {"role": "system", "content": "Now in French."}


# ---------------------------------------------------------------- tool choice and structured output


@pytest.mark.parametrize(("choice", "parallel", "wire"), [
    ("auto", None, {"type": "auto"}),
    ("required", None, {"type": "any"}),
    ("none", None, {"type": "none"}),
    ("weather", None, {"type": "tool", "name": "weather"}),
    ("auto", False, {"type": "auto", "disable_parallel_tool_use": True}),
    ("required", True, {"type": "any", "disable_parallel_tool_use": False}),
    ("weather", False, {"type": "tool", "name": "weather", "disable_parallel_tool_use": True}),
    (None, False, {"type": "auto", "disable_parallel_tool_use": True}),
    ("none", False, {"type": "none"}),  # the none choice takes no parallel flag
])
def test_tool_choice(choice: str | None, parallel: bool | None, wire: dict[str, Any]) -> None:
    options = {} if parallel is None else {"parallel_tool_calls": parallel}
    body = body_of([UserMessage("q")], tools=[Tool("weather")], tool_choice=choice, **options)
    assert body["tool_choice"] == wire
    request = parse_request(ANTHROPIC, body)
    assert request.tool_choice == (choice or "auto")


def test_tool_choice_without_tools_writes_no_parallel_flag() -> None:
    body = body_of([UserMessage("q")], parallel_tool_calls=False)
    assert "tool_choice" not in body and "tools" not in body


def test_a_tool_named_like_a_choice_word_reads_back_exactly() -> None:
    wire = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "q"}],
            "tools": [{"name": "auto", "input_schema": {"type": "object"}}],
            "tool_choice": {"type": "tool", "name": "auto"}}
    request = parse_request(ANTHROPIC, wire)
    assert request.tool_choice is None
    assert request.options["tool_choice"] == {"type": "tool", "name": "auto"}
    assert build_request(ANTHROPIC, request) == wire


def test_json_schema_output() -> None:
    """Structured outputs: output_config.format with the schema (the final text is the JSON)."""
    schema = {"type": "object", "properties": {"answer": {"type": "string"}},
              "required": ["answer"], "additionalProperties": False}
    body = body_of([UserMessage("q")], json_output=JsonSchemaOutput("Answer", schema),
                   reasoning_effort="medium")
    assert body["output_config"] == {"effort": "medium",
                                     "format": {"type": "json_schema", "schema": schema}}
    request = parse_request(ANTHROPIC, body)
    assert isinstance(request.json_output, JsonSchemaOutput)
    assert request.json_output.schema == schema
    assert request.options["reasoning_effort"] == "medium"


class Weather(BaseModel):
    """The weather in one city."""

    city: str
    celsius: float


def test_json_output_from_a_pydantic_model() -> None:
    body = body_of([UserMessage("q")], json_output=Weather)
    assert body["output_config"] == {"format": {
        "type": "json_schema", "schema": JsonSchemaOutput.from_model(Weather).schema}}
    schema = body["output_config"]["format"]["schema"]
    assert schema["required"] == ["city", "celsius"] and schema["additionalProperties"] is False


def test_json_output_true_is_a_forced_tool() -> None:
    body = body_of([UserMessage("q")], json_output=True, tools=[Tool("weather")])
    assert body["tools"][-1] == {"name": JSON_TOOL, "input_schema": {"type": "object"},
                                 "description": body["tools"][-1]["description"]}
    assert body["tool_choice"] == {"type": "tool", "name": JSON_TOOL}
    assert "output_config" not in body


def test_json_output_true_conflicts_raise() -> None:
    with pytest.raises(ValueError, match="extended thinking"):
        build_request(ANTHROPIC, [UserMessage("q")], model="m", max_tokens=2048,
                      json_output=True, thinking_budget=1024)
    with pytest.raises(ValueError, match="tool_choice"):
        build_request(ANTHROPIC, [UserMessage("q")], model="m", max_tokens=10,
                      json_output=True, tools=[Tool("f")], tool_choice="f")


# ---------------------------------------------------------------- options


def test_uniform_options() -> None:
    body = body_of([UserMessage("q")], max_tokens=2048, temperature=0.2, top_p=0.9,
                   stop="END", thinking_budget=1024, include_thoughts=True,
                   reasoning_effort="high", include_usage=True, top_k=40,
                   metadata={"user_id": "u1"}, stream=True, api_version="2023-06-01")
    assert body == {
        "model": "claude-sonnet-4-5", "max_tokens": 2048, "stream": True,
        "messages": [{"role": "user", "content": "q"}],
        "temperature": 0.2, "top_p": 0.9, "stop_sequences": ["END"],
        "thinking": {"type": "enabled", "budget_tokens": 1024, "display": "summarized"},
        "output_config": {"effort": "high"},
        "top_k": 40, "metadata": {"user_id": "u1"},
    }
    request = parse_request(ANTHROPIC, body)
    assert request.options == {"max_tokens": 2048, "temperature": 0.2, "top_p": 0.9,
                               "stop": ["END"], "thinking_budget": 1024,
                               "include_thoughts": True, "reasoning_effort": "high",
                               "top_k": 40, "metadata": {"user_id": "u1"}}


@pytest.mark.parametrize(("options", "thinking"), [
    ({"thinking_budget": 0}, {"type": "disabled"}),
    ({"thinking": {"type": "adaptive"}}, {"type": "adaptive"}),
    ({"thinking": {"type": "adaptive"}, "include_thoughts": False},
     {"type": "adaptive", "display": "omitted"}),
])
def test_thinking_forms(options: dict[str, Any], thinking: dict[str, Any]) -> None:
    assert body_of([UserMessage("q")], max_tokens=4096, **options)["thinking"] == thinking


def test_minimal_effort_is_sent_as_low() -> None:
    assert body_of([UserMessage("q")], reasoning_effort="minimal")["output_config"] == {
        "effort": "low"}


@pytest.mark.parametrize(("options", "message"), [
    ({"seed": 7}, "no seed"),
    ({"audio": {"voice": "alloy", "format": "wav"}}, "no audio output"),
    ({"include_thoughts": True}, "include_thoughts needs thinking"),
    ({"thinking_budget": 1024, "thinking": {"type": "adaptive"}}, "not both"),
    ({"stop": ["a"], "stop_sequences": ["b"]}, "given twice"),
])
def test_options_anthropic_cannot_take_raise(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build_request(ANTHROPIC, [UserMessage("q")], model="m", max_tokens=10, **options)


def test_max_tokens_is_required_and_the_vendor_default_gives_it() -> None:
    """The wire refuses a body without its required budget; ``build_request``
    by vendor name sends what the Client sends: the registry's default."""
    from streamkit.providers.anthropic import WIRE

    for given in ({}, {"max_tokens": None}):
        with pytest.raises(ValueError, match="requires max_tokens"):
            WIRE.build_request(Request([UserMessage("q")], model="m", options=given), None)
        body = build_request(ANTHROPIC, [UserMessage("q")], model="claude-sonnet-4-5", **given)
        assert body["max_tokens"] == PROVIDERS["anthropic"].options["max_tokens"] == 4096
    assert build_request(ANTHROPIC, [UserMessage("q")], model="m", max_tokens=5)["max_tokens"] == 5


def test_uniform_options_given_as_none_are_not_given() -> None:
    body = body_of([UserMessage("q")], temperature=None, stop=None, thinking_budget=None,
                   reasoning_effort=None, parallel_tool_calls=None, seed=None)
    assert set(body) == {"model", "max_tokens", "messages", "stream"}


@pytest.mark.parametrize("stream", [True, False])
def test_stream_flag(stream: bool) -> None:
    assert body_of([UserMessage("q")], stream=stream)["stream"] is stream


def test_bedrock_body_has_no_model_or_stream() -> None:
    """InvokeModel: anthropic_version in the body, model and stream in the URL."""
    body = build_request(ANTHROPIC, [UserMessage("q")], stream=None, max_tokens=100,
                         anthropic_version="bedrock-2023-05-31")
    assert body == {"anthropic_version": "bedrock-2023-05-31", "max_tokens": 100,
                    "messages": [{"role": "user", "content": "q"}]}
    sdk_valid("anthropic", body)
