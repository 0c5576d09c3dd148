"""Gemini requests: every turn 2 rebuilt from turn 1 + the parsed response,
hand-built bodies for what the recordings do not cover, and every body checked
against the official google-genai SDK.

The SDK oracle, three checks (types, nothing dropped, placement), is
``support.request_oracles.gemini`` (``sdk_valid("gemini", body, vertex=...)``).

Every recorded request rebuilt exactly and valid for the SDK is a contract of
``providers/test_wire_contracts.py``, written once for every wire.
"""

from __future__ import annotations

import base64
import copy
import json
from pathlib import Path
from typing import Any

import pytest
from google.genai import types
from pydantic import BaseModel, ValidationError
from support.conversations import Conversation, conversations, smart_chars
from support.request_oracles import sdk_valid
from support.request_oracles.gemini import base64_bytes

from streamkit import replay
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
    DataBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    URLSource,
)
from streamkit.model.extras import origin_of
from streamkit.model.response import ChatResponse
from streamkit.providers.codec import build_request, parse_request, parse_response
from streamkit.providers.gemini.content import (
    FOREIGN_CALL_SIGNATURE,
    GENERATED_ID,
    PART_FIELDS,
    made_up_id,
)
from streamkit.providers.gemini.request import GENERATION_FIELDS, SAME_TURN
from streamkit.providers.gemini.spelling import camel, snake
from streamkit.providers.gemini.tools import TOOLS_ENTRY

GEMINI = "gemini"
# The content kinds of a Part (what a part IS, beside the fields PART_FIELDS lists).
PART_KINDS = {"text", "inlineData", "fileData", "functionCall", "functionResponse",
              "executableCode", "codeExecutionResult", "toolCall", "toolResponse"}
CONVERSATIONS = conversations("gemini")
USER_TEXT = {"role": "user", "parts": [{"text": "Hi"}]}

# ---------------------------------------------------------------- the SDK oracle


def test_the_oracle_refuses_what_the_api_refuses() -> None:
    """The oracle is strict enough to catch an encoder's mistakes."""
    sdk_valid("gemini", {"contents": [USER_TEXT], "generationConfig": {"maxOutputTokens": 5}})
    with pytest.raises(ValidationError):  # a field no Part has
        sdk_valid("gemini", {"contents": [{"role": "user", "parts": [{"txt": "Hi"}]}]})
    with pytest.raises(AssertionError, match="top level"):  # a generation field misplaced
        sdk_valid("gemini", {"contents": [USER_TEXT], "maxOutputTokens": 5})
    with pytest.raises(ValidationError):  # a request field inside generationConfig
        sdk_valid("gemini", {"contents": [USER_TEXT], "generationConfig": {"tools": []}})
    with pytest.raises(ValidationError):  # args must be an object
        sdk_valid("gemini", {"contents": [{"role": "model", "parts": [
            {"functionCall": {"name": "f", "args": "{}"}}]}]})
    with pytest.raises(ValidationError):  # an unknown top-level field
        sdk_valid("gemini", {"contents": [USER_TEXT], "stream_options": {}})


def test_the_sdk_knows_every_generation_and_part_field_we_route() -> None:
    """The tables that decide where an option or a block extra goes are the
    SDK's fields (a field we route to generationConfig exists there)."""
    sdk_generation = {camel(name) for name in types.GenerationConfig.model_fields}
    # imageConfig: types.GenerationConfig lacks it, yet the SDK's converter writes
    # GenerateContentConfig.image_config to generationConfig.imageConfig
    assert sdk_generation <= GENERATION_FIELDS
    assert GENERATION_FIELDS - sdk_generation == {"imageConfig"}
    sdk_part = {camel(name) for name in types.Part.model_fields}
    assert sdk_part == PART_FIELDS | PART_KINDS  # a new Part field is noticed here


# ---------------------------------------------------------------- recorded requests


def test_recorded_requests_read_into_the_model() -> None:
    """What the recordings say, read as streamkit's parts (values from the files)."""
    by_name = {c.path.name: c for c in CONVERSATIONS}
    stream = parse_request(GEMINI, by_name["function-call-thought-signature-stream"]
                           .turn2_request)
    user, model, results = stream.messages
    assert isinstance(user, UserMessage)
    assert user.content == "What is the capital of the user country? Call the tool"
    assert isinstance(model, AssistantMessage) and model.provider == GEMINI
    (call,) = model.blocks
    assert isinstance(call, ToolCallBlock)
    assert (call.id, call.name, call.arguments()) == (
        "pyd_ai_29bf73b69e02448588e15893d47a3e7e", "get_country", {})
    assert call.metadata["signature"].startswith("EpwICpkIAXLI2nxlU6gsWZaZHRYk")
    assert isinstance(results, FunctionExecutionResultMessage)
    (result,) = results.content
    assert (result.call_id, result.name, json.loads(result.text)) == (
        call.id, "get_country", {"return_value": "Mexico"})
    (tool,) = stream.tools or []
    assert isinstance(tool, Tool) and tool.name == "get_country"
    assert tool.parameters == {"additionalProperties": False, "properties": {},
                               "type": "object"}
    assert stream.options == {"responseModalities": ["TEXT"]}

    thoughts = parse_request(GEMINI, by_name["thought-parts-then-user"].turn2_request)
    system, _, answer, follow_up = thoughts.messages
    assert isinstance(system, SystemMessage) and system.content == "You are a helpful assistant."
    assert system.metadata == {"role": "user"}
    assert isinstance(answer, AssistantMessage)
    thought, text = answer.blocks
    assert isinstance(thought, ThinkingBlock) and thought.signature is None
    assert thought.thinking.startswith("**A Safe Street-Crossing Guide")
    assert isinstance(text, TextBlock) and "signature" in text.metadata
    assert isinstance(follow_up, UserMessage)
    assert thoughts.options["include_thoughts"] is True  # thinkingConfig.include_thoughts

    vertex = parse_request(GEMINI, by_name["vertex-snake-case-history"].turn2_request)
    (result,) = vertex.messages[2].content  # type: ignore[union-attr]
    assert isinstance(result, FunctionExecutionResult) and result.is_error  # response.error
    assert result.text.startswith("1 validation error")

    server = parse_request(GEMINI, by_name["server-tool-call-response"].turn2_request)
    server_call, server_result, _ = server.messages[1].content  # type: ignore[misc,union-attr]
    assert isinstance(server_call, RawBlock) and server_call.kind == "toolCall"
    assert isinstance(server_result, RawBlock) and server_result.kind == "toolResponse"
    assert server.tools == [{"fileSearch": {"file_search_store_names": [
        "fileSearchStores/testfilesearchgrounding-su9hjfq28i0f"]}}]
    assert server.options["toolConfig"] == {"includeServerSideToolInvocations": True}

    parallel = parse_request(GEMINI, by_name["parallel-function-calls-x3"].turn1_request)
    assert [t.name for t in parallel.tools or [] if isinstance(t, Tool)] == [
        "generate_topic", "final_result"]
    # ANY with two allowed names is no tool_choice streamkit has: kept as it is
    assert parallel.tool_choice is None
    assert parallel.options["toolConfig"]["functionCallingConfig"]["mode"] == "ANY"


# ---------------------------------------------------------------- turn 2


def _turn1_response(conversation: Conversation) -> ChatResponse:
    if conversation.streamed:
        _, response = replay(conversation.turn1_response, GEMINI)
        response.provider = response.provider or GEMINI  # the pipeline will set it
        return response
    return parse_response(GEMINI, conversation.turn1_response)


def _parts(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [part for content in body["contents"] for part in content["parts"]]


def _signature_key(part: dict[str, Any]) -> str | None:
    return next((k for k in ("thoughtSignature", "thought_signature") if k in part), None)


def undo_url_safe_signatures(recorded: dict[str, Any], built: dict[str, Any]) -> bool:
    """Artifact: the SDK re-encodes thoughtSignature bytes as URL-safe base64
    (MANIFEST). Each recorded signature must be the URL-safe form of ours,
    same bytes; it is replaced by ours. Returns whether any was re-encoded."""
    ours = [part[k] for part in _parts(built) if (k := _signature_key(part))]
    theirs = [(part, k) for part in _parts(recorded) if (k := _signature_key(part))]
    assert len(ours) == len(theirs)
    changed = False
    for signature, (part, key) in zip(ours, theirs, strict=True):
        assert base64_bytes(part[key]) == base64_bytes(signature)
        assert part[key] == signature.replace("+", "-").replace("/", "_")
        changed |= part[key] != signature
        part[key] = signature
    return changed


def undo_synthetic_call_ids(recorded: dict[str, Any], built: dict[str, Any]) -> bool:
    """Artifact: the response had no functionCall.id, so the client invented
    ``pyd_ai_<hex>`` ids for the calls and the same ids on the responses, in
    order (MANIFEST: not derivable). Ours sends none; theirs are removed."""
    call_ids, answer_ids = [], []
    for part in _parts(recorded):
        for kind, ids in (("functionCall", call_ids), ("functionResponse", answer_ids)):
            wire = part.get(kind) or part.get(snake(kind))
            if wire is not None and "id" in wire:
                ids.append(wire.pop("id"))
    assert all(i.startswith("pyd_ai_") for i in call_ids + answer_ids)
    assert answer_ids == call_ids
    assert not any("id" in (part.get("functionCall") or part.get("functionResponse") or {})
                   for part in _parts(built))
    return bool(call_ids)


def undo_snake_case_history(recorded: dict[str, Any], built: dict[str, Any]) -> bool:
    """Artifact: the Vertex client writes the re-sent model turn in snake_case
    (``function_call``, ``thought_signature``); the API takes both. The
    recorded model parts are brought to camelCase."""
    changed = False
    for content in recorded["contents"]:
        if content["role"] != "model":
            continue
        for index, part in enumerate(content["parts"]):
            camel_part = {camel(key): value for key, value in part.items()}
            changed |= camel_part != part
            content["parts"][index] = camel_part
    return changed


def undo_server_tool_part_rewrite(recorded: dict[str, Any], built: dict[str, Any]) -> bool:
    """Artifacts of the re-sent server tool parts: ``toolType`` written
    ``tool_type``, ``args: {}`` added to toolCall, and toolResponse given a
    ``response`` the client rebuilt from the candidate's ``groundingMetadata``
    (its retrievedContext chunks, snake_cased). Each is checked, then undone."""
    changed = False
    for part in _parts(recorded):
        for kind in ("toolCall", "toolResponse"):
            if kind not in part:
                continue
            wire = part[kind]
            wire["toolType"] = wire.pop("tool_type")
            if kind == "toolCall":
                assert wire.pop("args") == {}
            else:
                response = wire.pop("response")
                assert response == {"result": [_SNAKE_CHUNK]}
            changed = True
    return changed


# The recorded toolResponse.response: turn 1's groundingChunks[0].retrievedContext
# with snake_case keys (see server-tool-call-response/turn1.response.json).
_SNAKE_CHUNK = {
    "custom_metadata": [{"key": "source_url", "string_value": "https://example.com/paris"}],
    "file_search_store": "fileSearchStores/testfilesearchgrounding-su9hjfq28i0f",
    "text": "Paris is the capital of France. The Eiffel Tower is a famous landmark in Paris.\n",
}

# The words SOURCE.txt's "artifacts" line uses for each artifact.
ARTIFACT_WORDS = {
    undo_url_safe_signatures: "URL-safe",
    undo_synthetic_call_ids: "synthetic",
    undo_snake_case_history: "snake_case",
    undo_server_tool_part_rewrite: "tool_type",
}

# Which artifacts each recording has (MANIFEST's and SOURCE.txt's "artifacts").
ARTIFACTS = {
    "function-call-thought-signature-stream": [undo_url_safe_signatures,
                                               undo_synthetic_call_ids],
    "google-search-grounding": [],
    "parallel-function-calls-x3": [undo_url_safe_signatures, undo_synthetic_call_ids],
    "server-tool-call-response": [undo_url_safe_signatures, undo_server_tool_part_rewrite],
    "thought-parts-then-user": [undo_url_safe_signatures],
    "vertex-snake-case-history": [undo_snake_case_history, undo_url_safe_signatures,
                                  undo_synthetic_call_ids],
}


def turn2(conversation: Conversation) -> tuple[dict[str, Any], ChatResponse]:
    """Turn 2 built from turn 1's request, its parsed response and what follows
    the re-sent assistant turn in the recorded turn 2 (options from there)."""
    first = parse_request(GEMINI, conversation.turn1_request)
    second = parse_request(GEMINI, conversation.turn2_request)
    response = _turn1_response(conversation)
    count = len(first.messages)
    assert isinstance(second.messages[count], AssistantMessage)  # the re-sent turn
    tail = second.messages[count + 1:]
    for message in tail:
        if isinstance(message, FunctionExecutionResultMessage):
            # the client answered its own synthetic ids (an artifact): a real
            # loop answers the calls it got, in order
            for result, call in zip(message.content, response.tool_calls, strict=True):
                assert result.name == call.name
                result.call_id = call.id
    request = Request(messages=[*first.messages, response, *tail], tools=second.tools,
                      tool_choice=second.tool_choice, json_output=second.json_output,
                      options=second.options)
    return build_request(GEMINI, request), response


@pytest.mark.parametrize("conversation", CONVERSATIONS, ids=[c.name for c in CONVERSATIONS])
def test_turn2_is_turn1_plus_the_response(conversation: Conversation) -> None:
    built, _ = turn2(conversation)
    sdk_valid("gemini", built, vertex="vertex" in conversation.name)
    recorded = copy.deepcopy(conversation.turn2_request)
    source = (conversation.path / "SOURCE.txt").read_text()
    artifacts_line = next((line for line in source.splitlines()
                           if line.startswith("artifacts")), "")
    for undo in ARTIFACTS[conversation.path.name]:
        assert undo(recorded, built), f"{undo.__name__} changed nothing"
        # each one is a documented client artifact of this very recording
        assert ARTIFACT_WORDS[undo] in artifacts_line, undo.__name__
    assert smart_chars(built) == smart_chars(recorded)


def test_turn2_stream_trailing_empty_text_part_is_not_sent() -> None:
    """The stream ends with an empty text part (no signature); like the client
    (MANIFEST: "empty text part dropped"), the re-sent turn has none."""
    (conversation,) = [c for c in CONVERSATIONS if c.streamed]
    assert b'"parts": [{"text": ""}]' in conversation.turn1_response
    built, _ = turn2(conversation)
    (part,) = built["contents"][1]["parts"]
    assert set(part) == {"functionCall", "thoughtSignature"}


@pytest.mark.parametrize("conversation", CONVERSATIONS, ids=[c.name for c in CONVERSATIONS])
def test_a_resent_turn_reads_like_the_response_it_was(conversation: Conversation) -> None:
    """The request reader makes of a re-sent model turn the blocks the stream
    parser made of the response (the client's artifacts aside: ids, spelling,
    signature alphabet, the server parts it rewrote)."""
    first = parse_request(GEMINI, conversation.turn1_request)
    resent = parse_request(GEMINI, conversation.turn2_request).messages[len(first.messages)]
    response = _turn1_response(conversation)
    assert isinstance(resent, AssistantMessage)
    assert [type(b) for b in resent.blocks] == [type(b) for b in response.content]
    for read, parsed in zip(resent.blocks, response.content, strict=True):
        if isinstance(read, (TextBlock, ThinkingBlock)):
            assert smart_chars(read.to_dict().get("text", read.to_dict().get("thinking"))) == (
                smart_chars(parsed.to_dict().get("text", parsed.to_dict().get("thinking"))))
        if isinstance(read, ToolCallBlock):
            assert isinstance(parsed, ToolCallBlock)
            assert (read.name, read.arguments()) == (parsed.name, parsed.arguments())
        if isinstance(read, RawBlock):
            assert isinstance(parsed, RawBlock) and read.kind == parsed.kind
        signature = getattr(read, "signature", None) or read.metadata.get("signature")
        expected = getattr(parsed, "signature", None) or parsed.metadata.get("signature")
        if isinstance(read, RawBlock):
            signature = _signature_key(read.data) and read.data[_signature_key(read.data)]
        assert (base64_bytes(signature) if signature else None) == (
            base64_bytes(expected) if expected else None)


def test_turn2_needs_the_artifacts_named() -> None:
    """Without undoing them, the recorded bodies differ from ours: the named
    artifacts are the whole difference, not a blanket normalisation."""
    for conversation in CONVERSATIONS:
        if ARTIFACTS[conversation.path.name]:
            built, _ = turn2(conversation)
            assert smart_chars(built) != smart_chars(conversation.turn2_request)


def test_turn2_results_to_made_up_ids_go_by_name() -> None:
    """The response gave no ids: the calls go without, and so do the answers,
    which carry the call's name (Gemini matches them by name and order)."""
    by_name = {c.path.name: c for c in CONVERSATIONS}
    built, response = turn2(by_name["parallel-function-calls-x3"])
    assert all(made_up_id(call) for call in response.tool_calls)
    model, answers = built["contents"][1:]
    assert [p["functionCall"] for p in model["parts"]] == [
        {"name": "generate_topic", "args": {}}] * 3
    # the signature stays on the first call only, where it came
    assert ["thoughtSignature" in p for p in model["parts"]] == [True, False, False]
    assert [p["functionResponse"]["name"] for p in answers["parts"]] == ["generate_topic"] * 3


# ---------------------------------------------------------------- hand-built content


def build(messages: list[Message], **options: Any) -> dict[str, Any]:
    body = build_request(GEMINI, messages, **options)
    sdk_valid("gemini", body)
    return body


def assert_round_trip(body: dict[str, Any]) -> Request:
    request = parse_request(GEMINI, body)
    assert build_request(GEMINI, request) == body
    sdk_valid("gemini", body)
    return request


PNG = b"\x89PNG\r\n\x1a\n fake image bytes"
WAV = b"RIFF\x00\x00\x00\x00WAVEfmt fake audio"
PDF = b"%PDF-1.7 fake document"


def test_user_content_kinds() -> None:
    """Text; image, audio and document bytes as inlineData; URLs as fileData
    (the REST docs' part forms)."""
    message = UserMessage([
        TextBlock("Describe these."),
        DataBlock(source=Base64Source(PNG, "image/png")),
        DataBlock(source=Base64Source(WAV, "audio/wav")),
        DataBlock(source=Base64Source(PDF, "application/pdf"), name="report.pdf"),
        DataBlock(source=URLSource("https://generativelanguage.googleapis.com/v1beta/files/abc",
                                   "video/mp4")),
        DataBlock(source=URLSource("gs://bucket/scan.pdf", "application/pdf")),
        DataBlock(source=URLSource("data:image/jpeg;base64," + base64.b64encode(PNG).decode())),
    ])
    body = build([message])
    assert body == {"contents": [{"role": "user", "parts": [
        {"text": "Describe these."},
        {"inlineData": {"mimeType": "image/png", "data": base64.b64encode(PNG).decode()}},
        {"inlineData": {"mimeType": "audio/wav", "data": base64.b64encode(WAV).decode()}},
        {"inlineData": {"mimeType": "application/pdf", "data": base64.b64encode(PDF).decode(),
                        "displayName": "report.pdf"}},
        {"fileData": {"mimeType": "video/mp4",
                      "fileUri": "https://generativelanguage.googleapis.com/v1beta/files/abc"}},
        {"fileData": {"mimeType": "application/pdf", "fileUri": "gs://bucket/scan.pdf"}},
        {"inlineData": {"mimeType": "image/jpeg", "data": base64.b64encode(PNG).decode()}},
    ]}]}
    (read,) = assert_round_trip(body).messages
    assert isinstance(read, UserMessage)
    kinds = [(type(b).__name__, getattr(b, "media_type", None)) for b in read.blocks]
    assert kinds == [("TextBlock", None), ("DataBlock", "image/png"), ("DataBlock", "audio/wav"),
                     ("DataBlock", "application/pdf"), ("DataBlock", "video/mp4"),
                     ("DataBlock", "application/pdf"), ("DataBlock", "image/jpeg")]
    assert read.blocks[1].data == PNG  # type: ignore[union-attr]


def test_inline_data_without_media_type_raises() -> None:
    with pytest.raises(ValueError, match="mimeType"):
        build_request(GEMINI, [UserMessage([DataBlock(source=Base64Source(PNG, ""))])])


def test_url_safe_inline_bytes_read_and_written_back() -> None:
    """The SDK writes inline bytes URL-safe; the alphabet is kept."""
    raw = b"\xfb\xff\xfe" * 4  # encodes with '-' and '_' in the URL-safe alphabet
    body = {"contents": [{"role": "user", "parts": [
        {"inline_data": {"mime_type": "image/png",
                         "data": base64.urlsafe_b64encode(raw).decode()}}]}]}
    (message,) = assert_round_trip(body).messages
    block = message.blocks[0]  # type: ignore[union-attr]
    assert isinstance(block, DataBlock) and block.data == raw


def test_thought_signatures_stay_on_their_parts() -> None:
    """A Gemini turn goes back part for part: thoughts with ``thought: true``,
    each signature on the part it came on (thought-signatures guide)."""
    turn = AssistantMessage([
        ThinkingBlock("Planning.", signature="c2lnLXRob3VnaHQ="),
        TextBlock("Let me check.", metadata={"signature": "c2lnLXRleHQ="}),
        ToolCallBlock("fc_1", "get_weather", '{"city": "Paris"}',
                      metadata={"signature": "c2lnLWNhbGw="}),
        ToolCallBlock("fc_2", "get_time", '{"city": "Paris"}'),
    ], provider=GEMINI)
    body = build([UserMessage("Weather and time in Paris?"), turn])
    assert body["contents"][1] == {"role": "model", "parts": [
        {"text": "Planning.", "thought": True, "thoughtSignature": "c2lnLXRob3VnaHQ="},
        {"text": "Let me check.", "thoughtSignature": "c2lnLXRleHQ="},
        {"functionCall": {"id": "fc_1", "name": "get_weather", "args": {"city": "Paris"}},
         "thoughtSignature": "c2lnLWNhbGw="},
        {"functionCall": {"id": "fc_2", "name": "get_time", "args": {"city": "Paris"}}},
    ]}
    assert_round_trip(body)


def test_parallel_calls_and_results() -> None:
    """Parallel calls in one model content; their results in one user content,
    ``output`` / ``error`` keys (FunctionResponse.response docs), ids echoed."""
    turn = AssistantMessage([ToolCallBlock("fc_1", "add", '{"a": 1, "b": 2}'),
                             ToolCallBlock("fc_2", "div", '{"a": 1, "b": 0}')],
                            provider=GEMINI)
    results = FunctionExecutionResultMessage([
        FunctionExecutionResult("fc_1", "3"),
        FunctionExecutionResult("fc_2", "ZeroDivisionError: division by zero", is_error=True),
    ])
    body = build([UserMessage("1+2 and 1/0?"), turn, results])
    assert body["contents"][2] == {"role": "user", "parts": [
        {"functionResponse": {"id": "fc_1", "name": "add", "response": {"output": "3"}}},
        {"functionResponse": {"id": "fc_2", "name": "div", "response": {
            "error": "ZeroDivisionError: division by zero"}}},
    ]}
    read = assert_round_trip(body).messages[2]
    assert isinstance(read, FunctionExecutionResultMessage)
    assert [(r.call_id, r.text, r.is_error, r.name) for r in read.content] == [
        ("fc_1", "3", False, "add"), ("fc_2", "ZeroDivisionError: division by zero", True, "div")]


def test_result_with_images_goes_in_function_response_parts() -> None:
    """Gemini 3's multimodal function responses: media inside functionResponse.parts."""
    turn = AssistantMessage([ToolCallBlock("fc_1", "screenshot", "{}")], provider=GEMINI)
    result = FunctionExecutionResult("fc_1", [
        TextBlock("the page"), DataBlock(source=Base64Source(PNG, "image/png"), name="page.png")])
    body = build([UserMessage("Look"), turn, FunctionExecutionResultMessage([result])])
    assert body["contents"][2]["parts"] == [{"functionResponse": {
        "id": "fc_1", "name": "screenshot", "response": {"output": "the page"},
        "parts": [{"inlineData": {"mimeType": "image/png", "data": base64.b64encode(PNG).decode(),
                                  "displayName": "page.png"}}]}}]
    read = assert_round_trip(body).messages[2]
    (back,) = read.content  # type: ignore[union-attr]
    assert [type(b).__name__ for b in back.blocks] == ["TextBlock", "DataBlock"]


def test_result_named_from_its_call_and_name_required() -> None:
    turn = AssistantMessage([ToolCallBlock("fc_1", "lookup", "{}")], provider=GEMINI)
    body = build([UserMessage("x"), turn,
                  FunctionExecutionResultMessage([FunctionExecutionResult("fc_1", "ok")])])
    assert body["contents"][2]["parts"][0]["functionResponse"]["name"] == "lookup"
    with pytest.raises(ValueError, match="needs a name"):
        build_request(GEMINI, [FunctionExecutionResultMessage(
            [FunctionExecutionResult("unknown", "ok")])])


def test_response_without_ids_matched_by_name_and_order() -> None:
    """A body without ids: each response answers the earliest call of its name;
    ids are made up, marked, and not written back."""
    body = {"contents": [
        USER_TEXT,
        {"role": "model", "parts": [{"functionCall": {"name": "a", "args": {}}},
                                    {"functionCall": {"name": "b", "args": {}}},
                                    {"functionCall": {"name": "a", "args": {"n": 2}}}]},
        {"role": "user", "parts": [
            {"functionResponse": {"name": "b", "response": {"output": "B"}}},
            {"functionResponse": {"name": "a", "response": {"output": "A1"}}},
            {"functionResponse": {"name": "a", "response": {"output": "A2"}}}]},
    ]}
    request = assert_round_trip(body)
    calls = request.messages[1].blocks  # type: ignore[union-attr]
    assert all(call.metadata[GENERATED_ID] for call in calls)
    results = request.messages[2].content  # type: ignore[union-attr]
    assert [r.call_id for r in results] == [calls[1].id, calls[0].id, calls[2].id]


def test_a_response_answering_no_call_gets_an_id_of_its_own() -> None:
    body = {"contents": [USER_TEXT, {"role": "user", "parts": [
        {"functionResponse": {"name": "a", "response": {"output": "A"}}}]}]}
    request = assert_round_trip(body)
    (result,) = request.messages[1].content  # type: ignore[union-attr]
    assert result.call_id and result.metadata[GENERATED_ID]


def test_results_and_text_in_one_user_content() -> None:
    """A user content mixing responses and text reads as several messages and
    is written back as the one content."""
    body = {"contents": [
        USER_TEXT,
        {"role": "model", "parts": [{"functionCall": {"id": "1", "name": "a", "args": {}}}]},
        {"role": "user", "parts": [
            {"functionResponse": {"id": "1", "name": "a", "response": {"output": "A"}}},
            {"text": "Now summarise."}]},
    ]}
    request = assert_round_trip(body)
    results, text = request.messages[2:]
    assert isinstance(results, FunctionExecutionResultMessage)
    assert isinstance(text, UserMessage) and text.metadata == {SAME_TURN: True}


def test_parts_streamkit_does_not_model_go_back_verbatim() -> None:
    """Code execution parts (and any unknown kind) are raw blocks of the whole part."""
    code = {"executableCode": {"language": "PYTHON", "code": "print(1 + 1)"}}
    result = {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "2\n"}}
    body = {"contents": [USER_TEXT, {"role": "model", "parts": [code, result, {"text": "2"}]}],
            "tools": [{"codeExecution": {}}]}
    request = assert_round_trip(body)
    blocks = request.messages[1].blocks  # type: ignore[union-attr]
    assert [(type(b).__name__, getattr(b, "kind", None)) for b in blocks] == [
        ("RawBlock", "executableCode"), ("RawBlock", "codeExecutionResult"), ("TextBlock", None)]
    assert request.tools == [{"codeExecution": {}}]


def test_unknown_fields_are_kept_where_they_were() -> None:
    """Fields streamkit has no slot for stay in metadata / options under their
    names, at their level (part, functionCall, content, config, top level)."""
    body = {
        "contents": [
            {"role": "user", "parts": [
                {"fileData": {"mimeType": "video/mp4", "fileUri": "gs://b/v.mp4"},
                 "videoMetadata": {"startOffset": "1s", "endOffset": "5s"}}]},
            {"role": "model", "parts": [
                {"functionCall": {"id": "c", "name": "f", "args": {}, "futureCallField": 1},
                 "futureButUnknownPartField": True}]},
        ],
        "generationConfig": {"topK": 40, "candidateCount": 1, "futureField": {"x": 1}},
        "safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT",
                            "threshold": "BLOCK_ONLY_HIGH"}],
        "cachedContent": "cachedContents/abc",
        "labels": {"team": "search"},
    }
    request = parse_request(GEMINI, body)
    assert build_request(GEMINI, request) == body
    video = request.messages[0].blocks[0]  # type: ignore[union-attr]
    assert isinstance(video, DataBlock) and "videoMetadata" in video.metadata
    # a part-level field that is no Part field cannot be told from a call field:
    # the part is kept whole rather than moved
    assert isinstance(request.messages[1].blocks[0], RawBlock)  # type: ignore[union-attr]
    assert request.options["topK"] == 40 and request.options["candidateCount"] == 1
    assert request.options["generationConfig"] == {"futureField": {"x": 1}}
    assert request.options["cachedContent"] == "cachedContents/abc"


def test_contents_without_or_with_another_role() -> None:
    body = {"contents": [{"parts": [{"text": "no role"}]},
                         {"role": "function", "parts": [{"text": "legacy"}]}]}
    assert_round_trip(body)


def test_system_prompts() -> None:
    """Every system message joins ``systemInstruction`` (Gemini's one system prompt)."""
    body = build([SystemMessage("Be brief."), UserMessage("Hi"), SystemMessage("Be kind.")])
    assert body == {"systemInstruction": {"parts": [{"text": "Be brief."}, {"text": "Be kind."}]},
                    "contents": [USER_TEXT]}
    assert_round_trip({"systemInstruction": {"parts": [{"text": "a"}, {"text": "b"}]},
                       "contents": [USER_TEXT]})
    assert_round_trip({"system_instruction": {"parts": [{"text": "a"}], "role": "user"},
                       "contents": [USER_TEXT]})


# ---------------------------------------------------------------- spelling


def test_snake_case_and_mixed_spellings_come_back_as_they_were() -> None:
    """Either spelling is read; each field is written the way the body spelled it."""
    body = {
        "system_instruction": {"parts": [{"text": "sys"}]},
        "contents": [
            {"role": "user", "parts": [{"text": "Hi"},
                                       {"inline_data": {"mime_type": "image/png",
                                                        "data": base64.b64encode(PNG).decode(),
                                                        "displayName": "x.png"}}]},
            {"role": "model", "parts": [{"text": "t", "thought": True,
                                         "thought_signature": "c2ln"},
                                        {"function_call": {"name": "f", "args": {}},
                                         "thoughtSignature": "c2ln"}]},
            {"role": "user", "parts": [{"function_response": {"name": "f",
                                                              "response": {"output": "x"}}}]},
        ],
        "tools": [{"function_declarations": [{"name": "f", "description": "d",
                                              "parameters_json_schema": {"type": "object"}}]},
                  {"functionDeclarations": [{"name": "g", "description": "",
                                             "parametersJsonSchema": {"type": "object"}}]}],
        "tool_config": {"function_calling_config": {"mode": "ANY",
                                                    "allowed_function_names": ["f"]}},
        "generationConfig": {"top_p": 0.5, "maxOutputTokens": 9, "stop_sequences": ["x"],
                             "thinking_config": {"thinkingBudget": 10, "include_thoughts": True},
                             "response_mime_type": "application/json",
                             "responseJsonSchema": {"type": "object"}, "top_k": 3},
    }
    request = assert_round_trip(body)
    assert request.tool_choice == "f"
    assert request.options["top_p"] == 0.5 and request.options["max_tokens"] == 9
    assert request.options["thinking_budget"] == 10
    assert request.options["include_thoughts"] is True
    assert request.options["top_k"] == 3
    assert isinstance(request.json_output, JsonSchemaOutput)
    f, g = request.tools  # type: ignore[misc]
    assert isinstance(f, Tool) and isinstance(g, Tool)
    assert g.metadata[TOOLS_ENTRY] == "functionDeclarations"  # a second entry stays one


def test_a_body_built_from_scratch_is_camel_case() -> None:
    body = build([UserMessage("Hi")], max_tokens=5, thinking_budget=10, tool_choice="auto",
                 tools=[Tool("f", "d", {"type": "object"})])
    assert body == {
        "contents": [USER_TEXT],
        "tools": [{"functionDeclarations": [{"name": "f", "description": "d",
                                             "parametersJsonSchema": {"type": "object"}}]}],
        "toolConfig": {"functionCallingConfig": {"mode": "AUTO"}},
        "generationConfig": {"maxOutputTokens": 5, "thinkingConfig": {"thinkingBudget": 10}},
    }


def test_spelling_helpers() -> None:
    assert snake("parametersJsonSchema") == "parameters_json_schema"
    assert camel("thought_signature") == "thoughtSignature"
    assert camel("text") == snake("text") == "text"


# ---------------------------------------------------------------- tools and tool choice


def test_tools_written_as_the_docs_show() -> None:
    """Function declarations in one entry (JSON Schema in parametersJsonSchema),
    server tools as given (function-calling and grounding guides)."""
    weather = Tool("get_weather", "Weather of a city.",
                   {"type": "object", "properties": {"city": {"type": "string"}},
                    "required": ["city"]}, strict=True)
    body = build([UserMessage("Hi")], tools=[weather, Tool("now", "Time."), {"googleSearch": {}},
                                             {"codeExecution": {}}])
    assert body["tools"] == [
        {"functionDeclarations": [
            {"name": "get_weather", "description": "Weather of a city.",
             "parametersJsonSchema": weather.parameters},
            {"name": "now", "description": "Time.",
             "parametersJsonSchema": {"type": "object", "properties": {}}}]},
        {"googleSearch": {}},
        {"codeExecution": {}},
    ]
    request = assert_round_trip(body)
    tools = request.tools or []
    assert [type(t).__name__ for t in tools] == ["Tool", "Tool", "Extras", "Extras"]
    assert [origin_of(t) for t in tools[2:]] == ["gemini", "gemini"]  # dicts kept for Gemini


def test_declarations_with_openapi_parameters_or_without_schema() -> None:
    body = {"contents": [USER_TEXT], "tools": [{"functionDeclarations": [
        {"name": "a", "parameters": {"type": "OBJECT", "properties": {
            "x": {"type": "STRING"}}}},
        {"name": "b", "description": "no parameters"},
        {"name": "c", "description": "", "parametersJsonSchema": {"type": "object"},
         "behavior": "NON_BLOCKING"},
    ]}]}
    request = assert_round_trip(body)
    a, b, c = request.tools  # type: ignore[misc]
    # the OpenAPI subset read as the JSON Schema it stands for; it writes back exactly
    assert a.parameters == {"type": "object", "properties": {"x": {"type": "string"}}}
    assert a.metadata == {"schema_field": "parameters", "absent": ["description"]}
    assert isinstance(b, Tool) and isinstance(c, Tool) and c.metadata["behavior"] == "NON_BLOCKING"


@pytest.mark.parametrize(("choice", "config"), [
    ("auto", {"mode": "AUTO"}),
    ("required", {"mode": "ANY"}),
    ("none", {"mode": "NONE"}),
    ("get_weather", {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}),
])
def test_tool_choice(choice: str, config: dict[str, Any]) -> None:
    """functionCallingConfig modes (function-calling guide: AUTO, ANY, NONE;
    ANY + allowedFunctionNames restricts the calls to those functions)."""
    body = build([UserMessage("Hi")], tools=[Tool("get_weather")], tool_choice=choice)
    assert body["toolConfig"] == {"functionCallingConfig": config}
    assert assert_round_trip(body).tool_choice == choice


def test_a_tool_named_like_a_choice_word_reads_back_exactly() -> None:
    body = {"contents": [USER_TEXT], "toolConfig": {"functionCallingConfig": {
        "mode": "ANY", "allowedFunctionNames": ["auto"]}}}
    assert assert_round_trip(body).tool_choice is None


def test_tool_choice_with_other_tool_config() -> None:
    body = build([UserMessage("Hi")], tool_choice="none",
                 toolConfig={"includeServerSideToolInvocations": True})
    assert body["toolConfig"] == {"includeServerSideToolInvocations": True,
                                  "functionCallingConfig": {"mode": "NONE"}}
    request = assert_round_trip(body)
    assert request.options == {"toolConfig": {"includeServerSideToolInvocations": True}}


# ---------------------------------------------------------------- structured output


def test_json_output_true() -> None:
    body = build([UserMessage("Hi")], json_output=True)
    assert body["generationConfig"] == {"responseMimeType": "application/json"}
    assert assert_round_trip(body).json_output is True


def test_json_schema_output() -> None:
    """responseJsonSchema (JSON Schema) with responseMimeType application/json
    (structured-output guide)."""
    schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"],
              "title": "Person"}
    body = build([UserMessage("Hi")], json_output=JsonSchemaOutput("Person", schema, strict=True))
    assert body["generationConfig"] == {"responseMimeType": "application/json",
                                        "responseJsonSchema": schema}
    output = assert_round_trip(body).json_output
    assert isinstance(output, JsonSchemaOutput) and output.name == "Person"
    assert output.schema == schema


def test_json_output_from_a_pydantic_model() -> None:
    class City(BaseModel):
        name: str
        population: int

    body = build([UserMessage("Hi")], json_output=City)
    schema = body["generationConfig"]["responseJsonSchema"]
    assert schema["required"] == ["name", "population"]
    assert schema["additionalProperties"] is False  # JsonSchemaOutput.from_model: strict


def test_openapi_response_schema_keeps_its_field() -> None:
    body = {"contents": [USER_TEXT], "generationConfig": {
        "responseMimeType": "application/json",
        "responseSchema": {"type": "OBJECT", "properties": {"a": {"type": "STRING"}}}}}
    assert isinstance(assert_round_trip(body).json_output, JsonSchemaOutput)


def test_other_response_mime_types_are_options() -> None:
    body = {"contents": [USER_TEXT], "generationConfig": {
        "responseMimeType": "text/x.enum", "responseSchema": {"type": "STRING",
                                                              "enum": ["a", "b"]}}}
    request = assert_round_trip(body)
    assert request.json_output is None and request.options["responseMimeType"] == "text/x.enum"


# ---------------------------------------------------------------- options


def test_uniform_options() -> None:
    """Each uniform option at its GenerationConfig field (REST GenerationConfig)."""
    body = build([UserMessage("Hi")], temperature=0.2, top_p=0.9, max_tokens=100, stop="END",
                 seed=7, include_usage=True, parallel_tool_calls=False)
    assert body["generationConfig"] == {"temperature": 0.2, "topP": 0.9, "maxOutputTokens": 100,
                                        "stopSequences": ["END"], "seed": 7}
    request = assert_round_trip(body)
    assert request.options == {"temperature": 0.2, "top_p": 0.9, "max_tokens": 100,
                               "stop": ["END"], "seed": 7}


@pytest.mark.parametrize(("options", "thinking"), [
    ({"thinking_budget": 1024}, {"thinkingBudget": 1024}),
    ({"thinking_budget": 0}, {"thinkingBudget": 0}),
    ({"thinking_budget": -1, "include_thoughts": True},
     {"thinkingBudget": -1, "includeThoughts": True}),
    ({"reasoning_effort": "low"}, {"thinkingLevel": "low"}),
    ({"reasoning_effort": "high", "include_thoughts": False},
     {"thinkingLevel": "high", "includeThoughts": False}),
])
def test_thinking_forms(options: dict[str, Any], thinking: dict[str, Any]) -> None:
    """thinkingConfig (thinking guide: a budget for 2.5, a level for 3; -1 is
    dynamic, 0 off; includeThoughts returns thought summaries)."""
    body = build([UserMessage("Hi")], **options)
    assert body["generationConfig"] == {"thinkingConfig": thinking}
    assert assert_round_trip(body).options == options


def test_none_effort_is_sent_as_minimal() -> None:
    body = build([UserMessage("Hi")], reasoning_effort="none")
    assert body["generationConfig"]["thinkingConfig"] == {"thinkingLevel": "minimal"}


def test_budget_and_level_together_raise() -> None:
    with pytest.raises(ValueError, match="not both"):
        build_request(GEMINI, [UserMessage("Hi")], thinking_budget=10, reasoning_effort="low")


def test_audio_output() -> None:
    """Spoken output: responseModalities AUDIO and a prebuilt voice (speech guide)."""
    body = build([UserMessage("Say hi")], audio={"voice": "Kore", "format": "pcm16"})
    assert body["generationConfig"] == {
        "responseModalities": ["AUDIO"],
        "speechConfig": {"voiceConfig": {"prebuiltVoiceConfig": {"voiceName": "Kore"}}}}
    assert assert_round_trip(body).options == {"audio": {"voice": "Kore"}}
    with pytest.raises(ValueError, match="PCM"):
        build_request(GEMINI, [UserMessage("Hi")], audio={"voice": "Kore", "format": "mp3"})


def test_generation_fields_as_options_go_inside_generation_config() -> None:
    body = build([UserMessage("Hi")], top_k=20, response_modalities=["TEXT"],
                 safetySettings=[{"category": "HARM_CATEGORY_HATE_SPEECH",
                                  "threshold": "BLOCK_NONE"}])
    assert body["generationConfig"] == {"top_k": 20, "response_modalities": ["TEXT"]}
    assert "safetySettings" in body


def test_the_same_field_twice_raises() -> None:
    with pytest.raises(ValueError, match="given twice"):
        build_request(GEMINI, [UserMessage("Hi")], max_tokens=5, maxOutputTokens=6)


def test_uniform_options_given_as_none_are_not_given() -> None:
    body = build([UserMessage("Hi")], temperature=None, max_tokens=None)
    assert body == {"contents": [USER_TEXT]}


@pytest.mark.parametrize("stream", [True, False, None])
def test_model_and_stream_are_never_in_the_body(stream: bool | None) -> None:
    """The URL names the model and the method (generateContent /
    streamGenerateContent): the body has neither."""
    body = build([UserMessage("Hi")], model="gemini-2.5-flash", stream=stream)
    assert body == {"contents": [USER_TEXT]}


def test_empty_generation_config_round_trips() -> None:
    assert assert_round_trip({"contents": [USER_TEXT], "generationConfig": {}}).options == {
        "generationConfig": {}}


# ---------------------------------------------------------------- other providers' turns


def _foreign_turn(provider: str) -> AssistantMessage:
    return AssistantMessage([
        ThinkingBlock("The user wants the weather.", signature="EqQBCkYI..."),
        ThinkingBlock("", encrypted="gAAAAABencrypted"),
        TextBlock("Checking.", citations=[{"url": "https://x"}], metadata={"phase": "x"}),
        ToolCallBlock("toolu_01", "get_weather", '{"city": "Paris"}',
                      metadata={"caller": {"type": "direct"}}),
        ToolCallBlock("srvtoolu_1", "web_search", '{"query": "q"}', metadata={"server": True}),
        RawBlock("web_search_tool_result", {"type": "web_search_tool_result"}),
        DataBlock(source=Base64Source(b"audio", "audio/wav"), transcript="Spoken answer."),
    ], provider=provider)


@pytest.mark.parametrize("provider", ["anthropic", "openai-responses", "deepseek", "some-proxy"])
def test_another_providers_turn(provider: str) -> None:
    """Another API's turn: signatures, encrypted reasoning, server calls and raw
    items dropped; thinking as <think> text; text and calls go through, the
    first call with the documented skip signature (Gemini 3 refuses unsigned
    calls of the current turn)."""
    turn = _foreign_turn(provider)
    results = FunctionExecutionResultMessage([FunctionExecutionResult("toolu_01", "22C")])
    body = build([UserMessage("Weather?"), turn, results])
    assert body["contents"][1:] == [
        {"role": "model", "parts": [
            {"text": "<think>\nThe user wants the weather.\n</think>"},
            {"text": "Checking."},
            {"functionCall": {"id": "toolu_01", "name": "get_weather", "args": {"city": "Paris"}},
             "thoughtSignature": FOREIGN_CALL_SIGNATURE},
            {"text": "Spoken answer."},
        ]},
        {"role": "user", "parts": [{"functionResponse": {
            "id": "toolu_01", "name": "get_weather", "response": {"output": "22C"}}}]},
    ]


def test_another_providers_thinking_dropped_on_request() -> None:
    body = build([UserMessage("Weather?"), _foreign_turn("anthropic")], foreign_thinking="drop")
    assert not any("<think>" in part.get("text", "") for part in _parts(body))


def test_another_providers_made_up_call_id_is_not_sent() -> None:
    call = ToolCallBlock(None, "f", "{}", metadata={"generated_id": True})  # Ollama's marker
    body = build([UserMessage("x"), AssistantMessage([call], provider="ollama"),
                  FunctionExecutionResultMessage([FunctionExecutionResult(call.id, "ok")])])
    assert body["contents"][1]["parts"][0]["functionCall"] == {"name": "f", "args": {}}
    assert body["contents"][2]["parts"][0]["functionResponse"] == {
        "name": "f", "response": {"output": "ok"}}


def test_a_turn_with_nothing_gemini_can_take_is_left_out() -> None:
    turn = AssistantMessage([RawBlock("reasoning", {"type": "reasoning"})],
                            provider="openai-responses")
    assert build([UserMessage("Hi"), turn])["contents"] == [USER_TEXT]


@pytest.mark.parametrize("value", ["keep", None, 1])
def test_foreign_thinking_option_is_checked(value: Any) -> None:
    with pytest.raises(ValueError, match="foreign_thinking"):
        build_request(GEMINI, [UserMessage("Hi")], foreign_thinking=value or "bad")


def test_a_gemini_response_is_its_turn() -> None:
    """A parsed response goes back as its turn: thought part, signed text, the
    call with its made-up id left out."""
    response = parse_response(GEMINI, {"candidates": [{"content": {"role": "model", "parts": [
        {"text": "Thinking...", "thought": True},
        {"text": "I'll look.", "thoughtSignature": "c2ln"},
        {"functionCall": {"name": "look", "args": {"q": 1}}},
    ]}, "finishReason": "STOP"}]})
    call = response.tool_calls[0]
    result = FunctionExecutionResult(call.id, "found")  # as a tool loop writes it
    body = build([UserMessage("Find it"), response, FunctionExecutionResultMessage([result])])
    assert body["contents"][1:] == [
        {"role": "model", "parts": [
            {"text": "Thinking...", "thought": True},
            {"text": "I'll look.", "thoughtSignature": "c2ln"},
            {"functionCall": {"name": "look", "args": {"q": 1}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "look",
                                                          "response": {"output": "found"}}}]},
    ]


def test_made_up_ids() -> None:
    """A made-up id is known by its mark, else by streamkit's id shape."""
    assert made_up_id(ToolCallBlock(None, "f"))
    assert not made_up_id(ToolCallBlock("call_x", "f"))
    assert not made_up_id(ToolCallBlock("call_0123456789abcdef01234567", "f",
                                        metadata={GENERATED_ID: False}))
    assert made_up_id(ToolCallBlock("anything", "f", metadata={GENERATED_ID: True}))


def test_call_arguments_that_are_no_object_go_as_an_empty_one() -> None:
    """``args`` must be an object: arguments cut off, not JSON or JSON of
    another kind go as ``{}`` (never an exception)."""
    for text, cut in [("[1]", False), ('{"a": ', True), ('{"a": b}', False)]:
        body = build_request(GEMINI, [AssistantMessage([ToolCallBlock("c", "f", text,
                                                                      incomplete=cut)])])
        assert body["contents"][0]["parts"][0]["functionCall"]["args"] == {}
        sdk_valid("gemini", body)


def test_fixtures_folder_is_the_manifests() -> None:
    """Every recorded Gemini exchange is tested (MANIFEST lists 6)."""
    assert sorted(c.path.name for c in CONVERSATIONS) == sorted(ARTIFACTS)
    assert all(isinstance(c.path, Path) for c in CONVERSATIONS)


def test_a_percent_encoded_data_url_goes_inline() -> None:
    """RFC 2397 data URLs without base64: their bytes, inline (no data: fetching)."""
    body = build([UserMessage([DataBlock(source=URLSource("data:text/plain,a%20b"))])])
    assert body["contents"][0]["parts"] == [
        {"inlineData": {"mimeType": "text/plain", "data": base64.b64encode(b"a b").decode()}}]
