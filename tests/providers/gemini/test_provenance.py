"""Gemini requests and provenance: everything ``parse_request`` keeps is
Gemini's :class:`Extras`, the builder writes only Gemini's extras (another
wire's fields and streamkit's own records never reach the body, checked with
the google-genai SDK's types), the ids a read makes up come from the body, and
what Gemini cannot take is refused with a typed error."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from support.conversations import conversations
from support.request_oracles import sdk_valid

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
from streamkit.model.blocks import Base64Source, DataBlock, RawBlock, TextBlock, ToolCallBlock
from streamkit.model.errors import (
    InvalidBodyError,
    LossyTranslationWarning,
    UnsupportedFeatureError,
)
from streamkit.model.extras import Extras, origin_of
from streamkit.model.ids import id_factory
from streamkit.providers.codec import build_request, parse_request
from streamkit.providers.gemini.content import FOREIGN_CALL_SIGNATURE

GEMINI = "gemini"
BODIES = [(f"{c.path.name}/turn{n}", body) for c in conversations("gemini")
          for n, body in ((1, c.turn1_request), (2, c.turn2_request))]
PNG = b"\x89PNG\r\n\x1a\n fake image bytes"
SCHEMA = {"type": "object", "properties": {"q": {"type": "integer"}}, "required": ["q"]}

#: streamkit's own records of the Gemini reader (and of others): never wire fields.
RECORDS = {"snake_case": ["text"], "absent": ["text", "role", "description"],
           "same_turn": True, "base64": "urlsafe", "response_object": True,
           "schema_field": "responseSchema", "tools_entry": "function_declarations",
           "signature": "c2ln", "max_tokens_field": "max_completion_tokens"}
#: Fields another wire kept, some of them Gemini field names too (videoMetadata,
#: safetySettings, role): from another wire they mean nothing here.
FIELDS = {"cache_control": {"type": "ephemeral"}, "videoMetadata": {"fps": 1}, "name": "bob",
          "role": "system", "is_error": False}


def history(extras: Any) -> Request:
    """A conversation whose every metadata is ``extras(fields)``."""
    return Request(
        messages=[
            SystemMessage("Be brief.", metadata=extras({"role": "system", **RECORDS})),
            UserMessage([
                TextBlock("Hi", metadata=extras({**FIELDS, **RECORDS})),
                DataBlock(source=Base64Source(PNG, "image/png"), metadata=extras(RECORDS)),
                RawBlock("document", {"type": "document", "source": {"type": "text"}},
                         metadata=extras({})),
            ], metadata=extras({**FIELDS, **RECORDS})),
            AssistantMessage([
                TextBlock("Looking.", metadata=extras({**FIELDS, **RECORDS})),
                ToolCallBlock("toolu_1", "lookup", '{"q": 1}', metadata=extras(
                    {"caller": {"type": "direct"}, **RECORDS})),
            ], metadata=extras({"stop_reason": "tool_use"})),
            FunctionExecutionResultMessage(
                [FunctionExecutionResult("toolu_1", '{"v": 42}', metadata=extras(
                    {**FIELDS, **RECORDS}))], metadata=extras(FIELDS)),
            UserMessage("Thanks.", metadata=extras({"same_turn": True})),
        ],
        tools=[Tool("lookup", "Look up.", SCHEMA, metadata=extras({**FIELDS, **RECORDS})),
               extras({"type": "web_search_20250305", "name": "web_search"})],
        json_output=JsonSchemaOutput("out", SCHEMA, metadata=extras(RECORDS)),
        options=extras({"temperature": 0.5, "top_k": 3, "metadata": {"user_id": "u"},
                        "safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT",
                                            "threshold": "BLOCK_NONE"}], **RECORDS}),
    )


def anthropic_extras(fields: Mapping[str, Any]) -> Extras:
    return Extras("anthropic", fields)


def test_another_wires_extras_and_records_never_reach_the_body() -> None:
    """The same conversation as read from Anthropic: only what the model holds
    goes; the turn's blocks, another wire's, are written as another API's."""
    body = build_request(GEMINI, history(anthropic_extras))
    assert body == {
        "contents": [
            {"role": "user", "parts": [
                {"text": "Hi"},
                {"inlineData": {"mimeType": "image/png",
                                "data": base64.b64encode(PNG).decode()}}]},
            {"role": "model", "parts": [
                {"text": "Looking."},
                {"functionCall": {"id": "toolu_1", "name": "lookup", "args": {"q": 1}},
                 "thoughtSignature": FOREIGN_CALL_SIGNATURE}]},
            # Anthropic's same_turn mark is not written; the turns alternate: one user content
            {"role": "user", "parts": [{"functionResponse": {
                "id": "toolu_1", "name": "lookup", "response": {"output": '{"v": 42}'}}},
                {"text": "Thanks."}]},
        ],
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
        "tools": [{"functionDeclarations": [
            {"name": "lookup", "description": "Look up.", "parametersJsonSchema": SCHEMA}]}],
        "generationConfig": {"temperature": 0.5, "responseMimeType": "application/json",
                             "responseJsonSchema": SCHEMA},
    }
    sdk_valid("gemini", body)


def test_gemini_extras_are_written_back_where_they_were() -> None:
    """The control: Gemini's own extras go on the wire, and its records do
    their work (an absent role, a snake_case spelling, URL-safe bytes, a
    whole response object, a turn joined, a tools entry, the schema field)."""
    def own(**fields: Any) -> Extras:
        return Extras(GEMINI, fields)

    openapi = {"type": "OBJECT", "properties": {"q": {"type": "INTEGER"}}}
    safety = [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}]
    body = build_request(GEMINI, Request(
        messages=[
            UserMessage([TextBlock("Hi", metadata=own(videoMetadata={"fps": 1})),
                         DataBlock(source=Base64Source(PNG, "image/png"),
                                   metadata=own(base64="urlsafe")),
                         RawBlock("executableCode", {"executableCode": {"code": "1"}},
                                  metadata=own())],
                        metadata=own(absent=["role"])),
            AssistantMessage([TextBlock("Looking.", metadata=own(
                signature="c2ln", snake_case=["thoughtSignature"]))]),
            FunctionExecutionResultMessage([FunctionExecutionResult(
                "toolu_1", '{"v": 42}', name="lookup", metadata=own(response_object=True))]),
            UserMessage("Thanks.", metadata=own(same_turn=True)),
        ],
        tools=[Tool("lookup", "Look up.", SCHEMA, metadata=own(
                   tools_entry="function_declarations")), own(googleSearch={})],
        json_output=JsonSchemaOutput("out", openapi, metadata=own(schema_field="responseSchema")),
        options=own(topK=3, safetySettings=safety, snake_case=["generationConfig"])))
    assert body == {
        "contents": [
            {"parts": [{"text": "Hi", "videoMetadata": {"fps": 1}},
                       {"inlineData": {"mimeType": "image/png",
                                       "data": base64.urlsafe_b64encode(PNG).decode()}},
                       {"executableCode": {"code": "1"}}]},
            {"role": "model", "parts": [{"text": "Looking.", "thought_signature": "c2ln"}]},
            {"role": "user", "parts": [
                {"functionResponse": {"id": "toolu_1", "name": "lookup", "response": {"v": 42}}},
                {"text": "Thanks."}]},
        ],
        "tools": [{"function_declarations": [
            {"name": "lookup", "description": "Look up.", "parametersJsonSchema": SCHEMA}]},
            {"googleSearch": {}}],
        "generation_config": {"topK": 3, "responseMimeType": "application/json",
                              "responseSchema": openapi},
        "safetySettings": safety,
    }
    sdk_valid("gemini", body)


def test_a_hand_made_dict_has_no_origin_and_is_written() -> None:
    body = build_request(GEMINI, [UserMessage([TextBlock("Hi", metadata={"videoMetadata": {}})])],
                         tools=[{"googleSearch": {}}], top_k=3)
    assert body["contents"][0]["parts"] == [{"text": "Hi", "videoMetadata": {}}]
    assert body["tools"] == [{"googleSearch": {}}]
    assert body["generationConfig"] == {"top_k": 3}


def test_a_user_turn_of_only_another_wires_items_is_left_out_and_said() -> None:
    """Left out without a word before (a silent loss the write-side fuzzer
    counts): now with a warning naming the part, as on OpenAI Chat and Ollama."""
    raw = RawBlock("document", {"type": "document"}, metadata=Extras("anthropic"))
    for target in (GEMINI, "openai", "ollama"):
        with pytest.warns(LossyTranslationWarning, match="anthropic 'document' part"):
            body = build_request(target, [UserMessage("Hi"), UserMessage([raw])], model="m")
        if target == GEMINI:
            assert body["contents"] == [{"role": "user", "parts": [{"text": "Hi"}]}]


# ---------------------------------------------------------------- reading tags everything


def metadata_of(request: Request) -> Iterator[tuple[str, Any]]:
    """Every metadata a read request holds, with where it is."""
    yield "options", request.options
    for m, message in enumerate(request.messages):
        yield f"messages[{m}]", message.metadata
        for b, block in enumerate(_blocks(message)):
            yield f"messages[{m}].blocks[{b}]", block.metadata
    for t, tool in enumerate(request.tools or []):
        yield f"tools[{t}]", tool if isinstance(tool, dict) else tool.metadata
    if isinstance(request.json_output, JsonSchemaOutput):
        yield "json_output", request.json_output.metadata


def _blocks(message: Message) -> list[Any]:
    if isinstance(message, FunctionExecutionResultMessage):
        return [item for result in message.content
                for item in (result, *(result.content if isinstance(result.content, list)
                                       else ()))]
    content = getattr(message, "content", None)
    if isinstance(message, AssistantMessage):
        return list(message.blocks)
    return list(content) if isinstance(content, list) else []


@pytest.mark.parametrize(("name", "body"), BODIES, ids=[name for name, _ in BODIES])
def test_parse_request_tags_everything_it_keeps_as_geminis(name: str, body: dict[str, Any]
                                                            ) -> None:
    request = parse_request(GEMINI, body)
    untagged = [where for where, metadata in metadata_of(request)
                if origin_of(metadata) != GEMINI]
    assert untagged == []
    assert build_request(GEMINI, request) == body  # and the read stays exact


@pytest.mark.parametrize(("name", "body"), BODIES, ids=[name for name, _ in BODIES])
def test_two_reads_of_a_body_are_equal_with_default_ids(name: str, body: dict[str, Any]) -> None:
    with id_factory(None):
        first, second = parse_request(GEMINI, body), parse_request(GEMINI, body)
    assert first == second
    ids = [[getattr(b, "id", None) for b in _blocks(m)] for m in first.messages]
    assert ids == [[getattr(b, "id", None) for b in _blocks(m)] for m in second.messages]
    assert not any(re.match(r"^[a-z]+_0{12}", i) for row in ids for i in row if i)


def test_made_up_ids_of_a_body_pair_calls_and_results() -> None:
    body = {"contents": [
        {"role": "user", "parts": [{"text": "Hi"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "a", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "a", "response": {}}}]}]}
    with id_factory(None):
        request = parse_request(GEMINI, body)
        other = parse_request(GEMINI, {**body, "labels": {"x": "y"}})
    call = request.messages[1].blocks[0]  # type: ignore[union-attr]
    result = request.messages[2].content[0]  # type: ignore[union-attr]
    assert isinstance(call, ToolCallBlock) and re.match(r"^call_[0-9a-f]{24}$", call.id)
    assert result.call_id == call.id
    assert other.messages[1].blocks[0].id != call.id  # type: ignore[union-attr]


# ---------------------------------------------------------------- typed refusals


@pytest.mark.parametrize(("messages", "options", "feature"), [
    ([UserMessage([DataBlock(source=Base64Source(PNG, ""))])], {}, "without a media type"),
    ([UserMessage("Hi")], {"thinking_budget": 10, "reasoning_effort": "low"},
     "thinking budget and a thinking level"),
    ([UserMessage("Hi")], {"audio": {"format": "mp3"}}, "audio format 'mp3'"),
    ([FunctionExecutionResultMessage([FunctionExecutionResult("x", "ok")])], {},
     "without a name"),
])
def test_what_gemini_cannot_take_is_an_unsupported_feature_error(
        messages: list[Message], options: dict[str, Any], feature: str) -> None:
    with pytest.raises(UnsupportedFeatureError) as info:
        build_request(GEMINI, messages, **options)
    assert info.value.wire == GEMINI and feature in info.value.feature
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("body", [
    {"contents": {"role": "user"}},
    {"contents": [{"role": "user", "parts": "Hi"}]},
    {"contents": [{"role": "user", "parts": ["Hi"]}]},
])
def test_a_body_that_is_no_gemini_request_is_an_invalid_body_error(body: dict[str, Any]) -> None:
    with pytest.raises(InvalidBodyError) as info:
        parse_request(GEMINI, body)
    assert info.value.wire == GEMINI
