"""OpenAI Responses requests: every turn 2 rebuilt from turn 1 + the parsed
response, hand-built bodies for what the recordings do not cover, and every body
checked against the official ``openai`` SDK's request types.

The SDK oracle is ``support.request_oracles.openai_responses``
(``sdk_valid("openai-responses", body)``).

Every recorded request rebuilt exactly and valid for the SDK is a contract of
``providers/test_wire_contracts.py``, written once for every wire.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from pydantic import BaseModel
from support.conversations import Conversation, conversations, smart_chars
from support.recordings import FIXTURES, payloads, replay_chunked
from support.request_oracles import sdk_valid

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
    Citation,
    DataBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    URLSource,
)
from streamkit.model.errors import UnsupportedFeatureError
from streamkit.model.extras import Extras
from streamkit.model.response import ChatResponse
from streamkit.providers.codec import build_request, parse_request, parse_response
from streamkit.providers.openai_responses.request import PROVIDER, STRING_INPUT, is_own

RESPONSES = "openai-responses"
CONVERSATIONS = conversations("openai-responses")

# ---------------------------------------------------------------- the SDK oracle


def test_the_oracle_refuses_what_the_api_refuses() -> None:
    """The oracle is not a rubber stamp: each of these bodies is wrong."""
    good = {"model": "gpt-5", "input": [{"role": "user", "content": "hi"}]}
    sdk_valid("openai-responses", good)
    wrong: list[dict[str, Any]] = [
        {**good, "input": [{"type": "reasoning", "summary": []}]},  # a reasoning item needs its id
        {**good, "input": [{"type": "function_call", "call_id": "c", "name": "f"}]},  # arguments
        {**good, "input": [{"role": "user", "content": [  # an image needs its detail
            {"type": "input_image", "image_url": "https://x/y.png"}]}]},
        {**good, "input": [{"role": "user", "content": [{"type": "input_audio", "input_audio": {
            "data": "AA==", "format": "wav"}}]}]},  # no audio input on Responses
        {**good, "input": [{"role": "user", "content": "hi", "encrypted_content": "x"}]},
        {**good, "tools": [{"type": "function", "name": "f", "parameters": {}}]},  # strict
        {**good, "stop": ["END"]},  # an unknown top-level field
        {**good, "seed": 1},
    ]
    for body in wrong:
        with pytest.raises((ValueError, AssertionError)):
            sdk_valid("openai-responses", body)


# ---------------------------------------------------------------- recorded requests


def _by_name(name: str) -> Conversation:
    [conversation] = [c for c in CONVERSATIONS if c.path.name == name]
    return conversation


def test_recorded_requests_read_into_the_model() -> None:
    """What the round trip goes through: the uniform parts, not a raw copy."""
    thinking = parse_request(RESPONSES,
                             _by_name("reasoning-encrypted-message-then-user").turn2_request)
    assert thinking.model == "gpt-5" and thinking.stream is False
    assert thinking.options == {"reasoning_effort": "high", "reasoning": {"summary": "detailed"},
                                "include": ["reasoning.encrypted_content"]}
    question, turn, follow_up = thinking.messages
    assert isinstance(question, UserMessage) and question.content == "How do I cross the street?"
    assert isinstance(turn, AssistantMessage) and turn.provider == PROVIDER
    *summaries, answer = turn.blocks
    assert len(summaries) == 6 and all(isinstance(b, ThinkingBlock) for b in summaries)
    first = summaries[0]
    assert isinstance(first, ThinkingBlock) and first.encrypted is not None
    assert first.encrypted.startswith("gAAAAABoxCyzDT6i7ehEoWDB")
    assert first.metadata == {"item_id": "rs_68c42c90b950819c9e32c46d4f8326ca07460311b0c8d3de",
                              "summary_index": 0, "kind": "summary"}
    assert isinstance(answer, TextBlock) and answer.text.startswith("Here")
    assert answer.metadata == {"item_id": "msg_68c42cb1aaec819cb992bd92a8c7766007460311b0c8d3de"}
    assert isinstance(follow_up, UserMessage)

    tools = parse_request(RESPONSES, _by_name("bedrock-mantle-call-id-rewrite").turn2_request)
    system, _, calls, results = tools.messages
    assert system == SystemMessage(tools.messages[0].text)  # instructions: no metadata
    [tool, _] = tools.tools or []
    assert isinstance(tool, Tool) and tool.name == "first_tool" and tool.strict is False
    assert tool.description == "" and tool.metadata == {"description": None}
    assert tools.tool_choice == "auto"
    assert isinstance(calls, AssistantMessage)
    [call] = calls.blocks
    assert isinstance(call, ToolCallBlock) and call.name == "first_tool" and call.arguments() == {}
    assert call.metadata == {"item_id": "fc_ccdc17fdac4f5c7e863e8d8fd3812a13"}
    assert isinstance(results, FunctionExecutionResultMessage)
    assert [(r.call_id, r.content) for r in results.content] == [(call.id, "first result")]

    mcp = parse_request(RESPONSES, _by_name("mcp-list-tools-mcp-call").turn2_request)
    turn = mcp.messages[2]
    assert isinstance(turn, AssistantMessage)
    assert [type(b) for b in turn.blocks] == [RawBlock, ThinkingBlock, RawBlock, ThinkingBlock,
                                              TextBlock]
    assert [b.kind for b in turn.blocks if isinstance(b, RawBlock)] == ["mcp_list_tools",
                                                                       "mcp_call"]
    [server] = mcp.tools or []
    assert isinstance(server, dict) and server["type"] == "mcp"

    deepseek = parse_request(RESPONSES,
                             _by_name("deepseek-reasoning-function-call-stream").turn2_request)
    reasoning = deepseek.messages[1].blocks[0]  # type: ignore[union-attr]
    assert isinstance(reasoning, ThinkingBlock) and reasoning.encrypted is None
    assert reasoning.metadata["kind"] == "reasoning_text"
    assert reasoning.metadata["encrypted_content"] is None  # the explicit null, kept


# ---------------------------------------------------------------- turn 2 from turn 1

# What the recording client (pydantic-ai) changed in turn 2 that no provider asked
# for (MANIFEST.md, SOURCE.txt "artifacts"); each is asserted by its own test below.
ARTIFACTS = {
    "bedrock-mantle-call-id-rewrite": "client rewrites call_id to <response id>:call_0",
    "deepseek-reasoning-function-call-stream": "client adds encrypted_content: null to the "
                                               "reasoning item, drops the function_call id",
    "mcp-list-tools-mcp-call": "client empties mcp_list_tools.tools, nulls mcp_call.output, "
                               "drops status / approval_request_id",
    "non-reasoning-no-item-ids": "client drops the function_call id",
    "parallel-function-calls": "client inserts an empty assistant message and drops the "
                               "function_call ids",
    "web-search-call-stream": "client drops web_search_call action.sources",
}


def turn1_response(conversation: Conversation) -> ChatResponse:
    if conversation.streamed:
        response = replay([conversation.turn1_response], RESPONSES)[1]
    else:
        response = parse_response(RESPONSES, conversation.turn1_response)
    response.provider = RESPONSES  # what the stream pipeline sets (replay leaves None)
    return response


def _is_instructions(message: Message) -> bool:
    return isinstance(message, SystemMessage) and not message.metadata


def build_turn2(conversation: Conversation) -> dict[str, Any]:
    """Turn 1's history + the parsed turn-1 response + the inputs that follow it in
    turn 2, with turn 2's own options. In a chained turn 2 (``previous_response_id``
    / ``conversation``) nothing is re-sent, so every input of turn 2 follows it."""
    history = parse_request(RESPONSES, conversation.turn1_request).messages
    turn2 = parse_request(RESPONSES, conversation.turn2_request)
    assistants = [i for i, m in enumerate(turn2.messages) if isinstance(m, AssistantMessage)]
    if assistants:
        after = turn2.messages[assistants[-1] + 1:]
    else:
        assert "previous_response_id" in turn2.options or "conversation" in turn2.options
        after = [m for m in turn2.messages if not _is_instructions(m)]
    messages: list[Message] = [*history, turn1_response(conversation), *after]
    body = build_request(RESPONSES, Request(
        messages=messages, model=turn2.model, tools=turn2.tools, tool_choice=turn2.tool_choice,
        json_output=turn2.json_output, stream=turn2.stream, options=turn2.options))
    sdk_valid("openai-responses", body)
    return body


@pytest.mark.parametrize("conversation", CONVERSATIONS, ids=[c.name for c in CONVERSATIONS])
def test_turn2_is_turn1_plus_the_response(conversation: Conversation) -> None:
    built = smart_chars(build_turn2(conversation))
    expected = smart_chars(conversation.turn2_request)
    artifact = ARTIFACTS.get(conversation.path.name)
    if artifact is None:
        assert built == expected
    else:  # the difference is exactly the named artifact, asserted by its own test
        assert built != expected, f"the artifact ({artifact}) is gone: update ARTIFACTS"


def _item(body: dict[str, Any], item_type: str) -> list[dict[str, Any]]:
    return [item for item in body["input"] if item.get("type") == item_type]


def test_turn2_artifact_call_id_rewritten() -> None:
    """Bedrock Mantle reuses call_0 in every response; the client made it unique as
    ``<response id>:call_0`` on both sides. We send the call as it came; the output
    in turn 2's tail carries the client's id."""
    conversation = _by_name("bedrock-mantle-call-id-rewrite")
    response = turn1_response(conversation)
    built, expected = build_turn2(conversation), conversation.turn2_request
    [call] = _item(built, "function_call")
    assert call["call_id"] == "call_0"
    call["call_id"] = f"{response.id}:call_0"
    assert _item(expected, "function_call_output")[0]["call_id"] == call["call_id"]
    assert built == expected


def test_turn2_artifact_deepseek_null_encrypted_content_and_no_call_id() -> None:
    conversation = _by_name("deepseek-reasoning-function-call-stream")
    built, expected = build_turn2(conversation), conversation.turn2_request
    [reasoning] = _item(built, "reasoning")
    assert "encrypted_content" not in reasoning  # DeepSeek sent none
    assert reasoning.pop("status") == "completed"  # the status DeepSeek gave its item
    reasoning["encrypted_content"] = None
    [call] = _item(built, "function_call")
    assert call.pop("id") == "62bf2bb7-56af-4e3a-883b-83d4aad54da1"  # the item id DeepSeek gave
    assert built == expected


def test_turn2_artifact_mcp_results_stripped() -> None:
    """The MCP items go back verbatim (the API takes them: ``McpListTools``,
    ``McpCall`` in the SDK); the client emptied their results."""
    conversation = _by_name("mcp-list-tools-mcp-call")
    built, expected = build_turn2(conversation), conversation.turn2_request
    [listed] = _item(built, "mcp_list_tools")
    assert [tool["name"] for tool in listed["tools"]] == ["ask_question"]
    listed["tools"] = []
    [call] = _item(built, "mcp_call")
    assert call["output"].startswith("Pydantic AI is a Python agent framework")
    assert (call.pop("status"), call.pop("approval_request_id")) == ("completed", None)
    call["output"] = None
    assert smart_chars(built) == smart_chars(expected)


@pytest.mark.parametrize("name", ["non-reasoning-no-item-ids", "parallel-function-calls"])
def test_turn2_artifact_call_item_ids_dropped(name: str) -> None:
    """Function calls go back with their item ids, as the response gave them (the
    conversation-state guide sends the output items back whole); the client dropped
    them for a non-reasoning model."""
    conversation = _by_name(name)
    built, expected = build_turn2(conversation), conversation.turn2_request
    calls = _item(built, "function_call")
    assert calls and all(call.pop("id").startswith("fc_") for call in calls)
    if name == "parallel-function-calls":  # and inserted an empty assistant message
        first = built["input"].index(calls[0])
        built["input"].insert(first, {"role": "assistant", "content": ""})
    assert built == expected


def test_turn2_artifact_web_search_sources_dropped() -> None:
    conversation = _by_name("web-search-call-stream")
    built, expected = build_turn2(conversation), conversation.turn2_request
    [search] = _item(built, "web_search_call")
    assert search["action"].pop("sources") == [{"type": "api", "name": "oai-weather"}]
    assert smart_chars(built) == smart_chars(expected)


def test_turn2_logprobs_artifact_has_nothing_to_drop() -> None:
    """SOURCE.txt says the client dropped output_text logprobs: they were ``[]``,
    which the parsed response does not keep, so the rebuilt turn has none either."""
    conversation = _by_name("reasoning-encrypted-message-then-user")
    response = json.loads(conversation.turn1_response)
    [message] = [item for item in response["output"] if item["type"] == "message"]
    assert message["content"][0]["logprobs"] == []
    [text] = [b for b in turn1_response(conversation).content if isinstance(b, TextBlock)]
    assert "logprobs" not in text.metadata
    [built] = _item(build_turn2(conversation), "message")
    assert "logprobs" not in built["content"][0]


@pytest.mark.parametrize("name", ["previous-response-id-then-user",
                                  "previous-response-id-function-output",
                                  "conversation-id-function-output"])
def test_turn2_chained_sends_only_the_new_items(name: str) -> None:
    """The chain names turn 1's response (its id, or its conversation), so the
    history and the response are not re-sent; the instructions are (they are not
    carried over)."""
    conversation = _by_name(name)
    response = turn1_response(conversation)
    turn2 = conversation.turn2_request
    if "previous_response_id" in turn2:
        assert turn2["previous_response_id"] == response.id
    else:
        assert response.metadata["conversation"] == {"id": turn2["conversation"]}
    built = build_turn2(conversation)
    assert len(built["input"]) == 1 and built["input"] == turn2["input"]
    assert built.get("instructions") == conversation.turn1_request.get("instructions")
    # without the chain option the same messages go whole
    options = {k: v for k, v in parse_request(RESPONSES, turn2).options.items()
               if k not in ("previous_response_id", "conversation")}
    history = parse_request(RESPONSES, conversation.turn1_request).messages
    whole = build_request(RESPONSES, [*history, response, UserMessage("next")], model="gpt-4.1",
                          **options)
    sdk_valid("openai-responses", whole)
    assert len(whole["input"]) > 2


def test_turn2_with_a_foreign_turn1_response_is_still_valid() -> None:
    """The same history with the response marked as another API's: item ids,
    encrypted reasoning and server items go; text and calls stay."""
    for conversation in CONVERSATIONS:
        response = turn1_response(conversation)
        response.provider = "anthropic"
        history = parse_request(RESPONSES, conversation.turn1_request)
        body = build_request(RESPONSES, Request(
            messages=[*history.messages, response, UserMessage("and?")],
            model=history.model, stream=history.stream,
            options={k: v for k, v in history.options.items()
                     if k not in ("previous_response_id", "conversation")}))
        sdk_valid("openai-responses", body)
        for item in body["input"]:
            assert item.get("type") in (None, "function_call"), item
            assert set(item) <= {"role", "content", "type", "call_id", "name", "arguments"}


# ---------------------------------------------------------------- own turns, as they came


def _done_items(path: Any) -> list[dict[str, Any]]:
    """The output items of a recorded stream as ``response.output_item.done`` gave
    them (the values to send back: MANIFEST.md)."""
    done = []
    for payload in payloads(path):
        try:
            event = json.loads(payload.data)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("type") == "response.output_item.done":
            done.append((event["output_index"], event["item"]))
    return [item for _, item in sorted(done, key=lambda pair: pair[0])]


def _without_empty(item: dict[str, Any]) -> dict[str, Any]:
    """An item without what the parsed response keeps nothing of, as it says
    nothing: ``status: completed`` on a call item (OpenAI's usual word there; a
    message keeps its status: it is required there, and a reasoning item's,
    which OpenAI's do not say, is DeepSeek's own) and empty ``logprobs``."""
    out = dict(item)
    if out.get("type") == "function_call" and out.get("status") == "completed":
        del out["status"]
    if isinstance(out.get("content"), list):
        out["content"] = [{k: v for k, v in part.items() if not (k == "logprobs" and v == [])}
                          for part in out["content"]]
    return out


@pytest.mark.parametrize("name", ["text.sse", "function-call.sse", "reasoning-summary-text.sse",
                                  "deepseek-responses-reasoning-function-call.sse",
                                  "openrouter-reasoning_text.sse"])
def test_an_own_streamed_turn_goes_back_as_its_output_items(name: str) -> None:
    path = FIXTURES / "openai-responses" / name
    response = replay_chunked(path, RESPONSES)[1]
    response.provider = RESPONSES
    body = build_request(RESPONSES, [UserMessage("q"), response, UserMessage("more")],
                         model="gpt-5")
    sdk_valid("openai-responses", body)
    assert body["input"][1:-1] == [_without_empty(item) for item in _done_items(path)]


# ---------------------------------------------------------------- hand-built: content kinds

PNG = b"\x89PNG\r\n\x1a\n fake image bytes"
PDF_BYTES = b"%PDF-1.7 fake"
CSV = b"a,b\n1,2\n"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def body_of(messages: list[Message], **options: Any) -> dict[str, Any]:
    """A body built with the usual model, checked against the SDK, and read back
    into the same body."""
    body = build_request(RESPONSES, messages, model="gpt-5", **options)
    sdk_valid("openai-responses", body)
    assert build_request(RESPONSES, parse_request(RESPONSES, body)) == body
    return body


def test_user_content_kinds() -> None:
    """Text, images and files by bytes and by URL, as the images and file-inputs
    guides show them (``data:`` URLs for bytes; ``detail`` defaults to ``auto``)."""
    body = body_of([UserMessage([
        TextBlock("Compare these."),
        DataBlock(source=Base64Source(PNG, "image/png")),
        DataBlock(source=URLSource("https://example.com/cat.jpg", "image/jpeg"),
                  metadata={"detail": "high"}),
        DataBlock(source=Base64Source(PDF_BYTES, "application/pdf"), name="report.pdf"),
        DataBlock(source=URLSource("https://example.com/paper.pdf", "application/pdf")),
        DataBlock(source=Base64Source(CSV, "text/csv")),
        RawBlock("input_file", {"type": "input_file", "file_id": "file-abc"}),
    ])], stream=False)
    assert body == {"model": "gpt-5", "stream": False, "input": [{"role": "user", "content": [
        {"type": "input_text", "text": "Compare these."},
        {"type": "input_image", "image_url": f"data:image/png;base64,{_b64(PNG)}",
         "detail": "auto"},
        {"type": "input_image", "image_url": "https://example.com/cat.jpg", "detail": "high"},
        {"type": "input_file", "filename": "report.pdf",
         "file_data": f"data:application/pdf;base64,{_b64(PDF_BYTES)}"},
        {"type": "input_file", "file_url": "https://example.com/paper.pdf"},
        {"type": "input_file", "filename": "file.csv",
         "file_data": f"data:text/csv;base64,{_b64(CSV)}"},
        {"type": "input_file", "file_id": "file-abc"},
    ]}]}
    [message] = parse_request(RESPONSES, body).messages
    assert isinstance(message, UserMessage)
    text, image, linked, pdf, paper, csv, by_id = message.blocks
    assert isinstance(text, TextBlock) and text.text == "Compare these."
    assert isinstance(image, DataBlock) and image.data == PNG and image.media_type == "image/png"
    assert isinstance(linked, DataBlock) and isinstance(linked.source, URLSource)
    assert isinstance(pdf, DataBlock) and pdf.data == PDF_BYTES and pdf.name == "report.pdf"
    assert isinstance(paper, DataBlock) and paper.media_type == "application/pdf"
    assert isinstance(csv, DataBlock) and csv.data == CSV and csv.name == "file.csv"
    assert isinstance(by_id, RawBlock)


def test_string_input_round_trips() -> None:
    """``input`` as one string (the quickstart form) reads as one user message."""
    wire = {"model": "gpt-5", "input": "Tell me a joke", "instructions": "Be brief."}
    request = parse_request(RESPONSES, wire)
    system, user = request.messages
    assert system == SystemMessage("Be brief.")
    assert isinstance(user, UserMessage) and user.content == "Tell me a joke"
    assert user.metadata == {STRING_INPUT: True}
    assert build_request(RESPONSES, request) == wire
    sdk_valid("openai-responses", wire)
    user.metadata = {}  # a message built by hand goes as an item
    assert build_request(RESPONSES, request)["input"] == [
        {"role": "user", "content": "Tell me a joke"}]


def test_request_forms_streamkit_does_not_write_are_kept_whole() -> None:
    """Input a writer would not give back the same way reads into metadata or a
    RawBlock, and writes back exactly."""
    wire = {"model": "gpt-5", "input": [
        {"type": "message", "role": "developer", "content": [
            {"type": "input_text", "text": "Rules."}]},
        {"role": "user", "content": [
            {"type": "input_image", "image_url": "https://example.com/a.png"},  # no detail
            {"type": "input_file", "file_data": f"data:application/pdf;base64,{_b64(PDF_BYTES)}"},
            {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}}]},
        {"role": "assistant", "content": [{"type": "output_text", "text": "Hello."}]},
        {"type": "message", "role": "assistant", "id": "msg_1", "content": [
            {"type": "output_text", "text": "Hi", "annotations": []}]},  # no status
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}",
         "status": "completed", "id": "fc_1"},
        {"type": "function_call_output", "call_id": "c1", "output": [
            {"type": "input_text", "text": "done"}, {"type": "output_text", "text": "odd"}]},
        {"type": "item_reference", "id": "msg_0"},
        {"type": "compaction", "id": "cmp_1", "encrypted_content": "gAAA"},
    ]}
    request = parse_request(RESPONSES, wire)
    assert build_request(RESPONSES, request) == wire
    developer, user, assistant, results, references = request.messages
    assert isinstance(developer, SystemMessage) and developer.metadata == {
        "role": "developer", "type": "message"}
    assert isinstance(user, UserMessage)
    assert [type(b) for b in user.blocks] == [DataBlock, DataBlock, RawBlock]
    assert isinstance(assistant, AssistantMessage)
    easy, item_text, call = assistant.blocks
    assert isinstance(easy, TextBlock) and easy.text == "Hello."  # another wire gets the text
    assert isinstance(item_text, TextBlock) and item_text.metadata["status"] is None
    assert isinstance(call, ToolCallBlock) and call.metadata["status"] == "completed"
    assert isinstance(results, FunctionExecutionResultMessage)
    assert results.content[0].metadata["output"][1]["type"] == "output_text"
    assert isinstance(references, AssistantMessage)
    assert [b.kind for b in references.blocks if isinstance(b, RawBlock)] == [
        "item_reference", "compaction"]


def test_edge_input_forms_round_trip() -> None:
    """An empty string input, an image at the default detail (no note needed), a
    message part of a type streamkit does not model."""
    empty = {"model": "m", "input": ""}
    assert build_request(RESPONSES, parse_request(RESPONSES, empty)) == empty
    image = {"model": "m", "input": [{"role": "user", "content": [
        {"type": "input_image", "image_url": "https://example.com/a.png", "detail": "auto"}]}]}
    [message] = parse_request(RESPONSES, image).messages
    assert isinstance(message, UserMessage) and message.blocks[0].metadata == {}
    assert build_request(RESPONSES, parse_request(RESPONSES, image)) == image


def test_an_unmodelled_message_part_goes_back_inside_its_message() -> None:
    """The stream keeps a message part of an unknown type as a RawBlock naming its
    message; it goes back inside that message, first part or not."""
    part = {"type": "output_audio_future", "data": "x"}
    response = ChatResponse(content=[
        RawBlock("output_audio_future", part, metadata={"item_id": "msg_1", "phase": "final"}),
        TextBlock("Hi", metadata={"item_id": "msg_1", "phase": "final"}),
    ], provider=RESPONSES)
    body = build_request(RESPONSES, [UserMessage("q"), response], model="m")
    # (a made-up part type: the SDK oracle would refuse it, as it should)
    assert body["input"][1:] == [{"type": "message", "role": "assistant", "id": "msg_1",
                                  "status": "completed", "phase": "final", "content": [
                                      part, {"type": "output_text", "text": "Hi",
                                             "annotations": []}]}]


@pytest.mark.parametrize("media_type", ["audio/wav", "audio/mpeg", "video/mp4"])
def test_audio_and_video_input_raise(media_type: str) -> None:
    block = DataBlock(source=Base64Source(b"x", media_type))
    with pytest.raises(ValueError, match="text, images and files"):
        build_request(RESPONSES, [UserMessage([block])], model="gpt-5")


def test_system_messages() -> None:
    """The leading system message is ``instructions``; a later one an input item
    (``system`` when built by hand, or the role the body used)."""
    body = body_of([SystemMessage("Be brief."), UserMessage("q"),
                    SystemMessage("Now in French."),
                    SystemMessage([TextBlock("Rules.")], metadata={"role": "developer"})])
    assert body["instructions"] == "Be brief."
    assert body["input"] == [{"role": "user", "content": "q"},
                             {"role": "system", "content": "Now in French."},
                             {"role": "developer",
                              "content": [{"type": "input_text", "text": "Rules."}]}]


# ---------------------------------------------------------------- tool calls and results


def test_parallel_tool_calls_and_results() -> None:
    """Two calls in one turn, answered by two outputs: text, and text with an image
    (``is_error`` has no field here: the content says it)."""
    turn = AssistantMessage([
        TextBlock("Checking both."),
        ToolCallBlock("call_1", "weather", '{"city":"Paris"}'),
        ToolCallBlock("call_2", "chart", '{"days":3}'),
    ], provider=RESPONSES)
    results = FunctionExecutionResultMessage([
        FunctionExecutionResult("call_1", "18 C", name="weather"),
        FunctionExecutionResult("call_2", [TextBlock("renderer failed, last chart:"),
                                           DataBlock(source=Base64Source(PNG, "image/png"))],
                                is_error=True),
    ])
    body = body_of([UserMessage("Weather and chart?"), turn, results])
    assert body["input"][1:] == [
        {"role": "assistant", "content": "Checking both."},
        {"type": "function_call", "call_id": "call_1", "name": "weather",
         "arguments": '{"city":"Paris"}'},
        {"type": "function_call", "call_id": "call_2", "name": "chart", "arguments": '{"days":3}'},
        {"type": "function_call_output", "call_id": "call_1", "output": "18 C"},
        {"type": "function_call_output", "call_id": "call_2", "output": [
            {"type": "input_text", "text": "renderer failed, last chart:"},
            {"type": "input_image", "image_url": f"data:image/png;base64,{_b64(PNG)}",
             "detail": "auto"}]},
    ]
    [_, _, read] = parse_request(RESPONSES, body).messages
    assert isinstance(read, FunctionExecutionResultMessage)
    assert [r.call_id for r in read.content] == ["call_1", "call_2"]


def test_own_turn_with_reasoning_items_and_ids() -> None:
    """A turn as the stream parser leaves it: summary parts of one reasoning item
    with its encrypted content, a message with its phase and citations, a call with
    its item id. It goes back as the items of the conversation-state guide."""
    citation = {"type": "url_citation", "url": "https://example.com", "title": "Ex",
                "start_index": 0, "end_index": 2}
    response = ChatResponse(content=[
        ThinkingBlock("Plan.", encrypted="gAAAA-1",
                      metadata={"item_id": "rs_1", "summary_index": 0, "kind": "summary"}),
        ThinkingBlock("Check.", metadata={"item_id": "rs_1", "summary_index": 1,
                                          "kind": "summary"}),
        TextBlock("On it.", citations=[Citation(url="https://example.com", raw=citation,
                                                wire=RESPONSES)],
                  metadata={"item_id": "msg_1", "phase": "commentary"}),
        ToolCallBlock("call_1", "search", '{"q":"x"}', metadata={"item_id": "fc_1"}),
        ThinkingBlock("", encrypted="gAAAA-2", metadata={"item_id": "rs_2", "kind": "item"}),
        ToolCallBlock("call_2", "shell", "ls -l", metadata={"item_id": "ctc_2", "custom": True}),
    ], provider=RESPONSES)
    results = FunctionExecutionResultMessage([FunctionExecutionResult("call_1", "found"),
                                              FunctionExecutionResult("call_2", "a.txt")])
    body = body_of([UserMessage("Go."), response, results],
                   tools=[Tool("search", strict=False), {"type": "custom", "name": "shell"}])
    assert body["input"][1:] == [
        {"type": "reasoning", "id": "rs_1", "encrypted_content": "gAAAA-1", "summary": [
            {"type": "summary_text", "text": "Plan."}, {"type": "summary_text", "text": "Check."}]},
        {"type": "message", "role": "assistant", "id": "msg_1", "status": "completed",
         "phase": "commentary",
         "content": [{"type": "output_text", "text": "On it.", "annotations": [citation]}]},
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "search",
         "arguments": '{"q":"x"}'},
        {"type": "reasoning", "id": "rs_2", "encrypted_content": "gAAAA-2", "summary": []},
        {"type": "custom_tool_call", "id": "ctc_2", "call_id": "call_2", "name": "shell",
         "input": "ls -l"},
        {"type": "function_call_output", "call_id": "call_1", "output": "found"},
        {"type": "custom_tool_call_output", "call_id": "call_2", "output": "a.txt"},
    ]


def test_a_call_whose_wire_id_changed_is_answered_under_it() -> None:
    """The stream keeps a call's first id as the block id and the final
    ``call_id`` in metadata: the output goes under the id the call was sent with."""
    turn = AssistantMessage([ToolCallBlock("call_first", "f", "{}",
                                           metadata={"item_id": "fc_1", "call_id": "call_final"})])
    body = body_of([UserMessage("q"), turn,
                    FunctionExecutionResultMessage([FunctionExecutionResult("call_first", "ok")])])
    assert [item["call_id"] for item in body["input"][1:]] == ["call_final", "call_final"]


def test_a_trailing_reasoning_item_is_not_sent() -> None:
    """A response cut off while reasoning: the API refuses a reasoning item with no
    item after it ("provided without its required following item"); its text
    goes as thinking that cannot be an item does, its encrypted content not."""
    cut = ChatResponse(content=[
        TextBlock("Partial.", metadata={"item_id": "msg_1"}),
        ThinkingBlock("Still", encrypted="gAAA", metadata={"item_id": "rs_1", "kind": "summary"}),
    ], provider=RESPONSES)
    body = body_of([UserMessage("q"), cut, UserMessage("go on")])
    assert [item.get("type") for item in body["input"]] == [None, "message", None, None]
    assert body["input"][2] == {"role": "assistant", "content": "<think>\nStill\n</think>"}


def test_thinking_without_an_item_drops_the_call_item_ids() -> None:
    """Thinking that cannot be a reasoning item goes as text; the turn's calls then
    go without item ids, which would demand the reasoning item."""
    turn = AssistantMessage([ThinkingBlock("I should call f."),
                             ToolCallBlock("call_1", "f", "{}", metadata={"item_id": "fc_1"})])
    body = body_of([UserMessage("q"), turn])
    assert body["input"][1:] == [
        {"role": "assistant", "content": "<think>\nI should call f.\n</think>"},
        {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}"},
    ]
    dropped = body_of([UserMessage("q"), turn], foreign_thinking="drop")
    assert dropped["input"][1:] == [
        {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}"}]


def test_server_items_and_generated_images_go_back_once() -> None:
    """An image generation's item holds its result; the image block the parser
    made of it (and its partial images) are not sent again. Spoken output goes as
    its transcript."""
    item = {"type": "image_generation_call", "id": "ig_1", "status": "completed",
            "result": _b64(PNG)}
    response = ChatResponse(content=[
        DataBlock(source=Base64Source(b"partial", "image/png"),
                  metadata={"item_id": "ig_1", "partial": True, "partial_image_index": 0}),
        RawBlock("image_generation_call", item, id="ig_1", metadata={"progress": "completed"}),
        DataBlock(source=Base64Source(PNG, "image/png"), metadata={"item_id": "ig_1"}),
        DataBlock(source=Base64Source(b"\x00\x00", "audio/pcm;rate=24000"), transcript="Done."),
    ], provider=RESPONSES)
    body = body_of([UserMessage("Draw."), response])
    assert body["input"][1:] == [item, {"role": "assistant", "content": "Done."}]


def test_tools_written_as_the_docs_show() -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}},
              "required": ["city"], "additionalProperties": False}
    body = body_of([UserMessage("hi")], tools=[
        Tool("weather", "Current weather.", schema, strict=True),
        Tool("ping", strict=False, metadata={"defer_loading": True}),
        {"type": "web_search", "search_context_size": "low"},
    ])
    assert body["tools"] == [
        {"type": "function", "name": "weather", "description": "Current weather.",
         "parameters": schema, "strict": True},
        {"type": "function", "name": "ping", "parameters": {"type": "object", "properties": {}},
         "strict": False, "defer_loading": True},
        {"type": "web_search", "search_context_size": "low"},
    ]
    read = parse_request(RESPONSES, body).tools or []
    assert [type(t) for t in read] == [Tool, Tool, Extras]  # a tool of this wire, as it came


def test_a_tool_with_no_strict_is_not_strict() -> None:
    """``strict=None`` (unspecified) is written ``False``: an omitted ``strict`` is
    strict mode on this API (optional parameters turned mandatory), and the SDK's
    FunctionToolParam declares it required."""
    body = build_request(RESPONSES, [UserMessage("q")], model="gpt-5", tools=[Tool("ping")])
    assert body["tools"] == [{"type": "function", "name": "ping",
                              "parameters": {"type": "object", "properties": {}},
                              "strict": False}]
    sdk_valid("openai-responses", body)


def test_a_tool_read_without_strict_is_written_back_without_it() -> None:
    body = {"model": "gpt-5", "input": "q", "tools": [
        {"type": "function", "name": "ping", "parameters": {"type": "object"}}]}
    request = parse_request(RESPONSES, body)
    assert build_request(RESPONSES, request) == body
    sent_elsewhere = build_request("openai", request.messages, tools=request.tools)
    assert "absent" not in json.dumps(sent_elsewhere)


# ---------------------------------------------------------------- another API's turns


def test_an_anthropic_turn_keeps_text_calls_and_thinking_as_text() -> None:
    """Signatures, redacted thinking, server tool calls and their results are
    Anthropic's; visible thinking becomes ``<think>`` text (or nothing)."""
    response = ChatResponse(content=[
        ThinkingBlock("Let me think.", signature="EqQBCkgIARABGAIi"),
        ThinkingBlock("", encrypted="EmwKAhgBEgy3", redacted=True),
        ToolCallBlock("srvtoolu_1", "web_search", '{"query":"x"}',
                      metadata={"server": True, "block_type": "server_tool_use"}),
        RawBlock("web_search_tool_result", {"type": "web_search_tool_result",
                                            "tool_use_id": "srvtoolu_1", "content": []}),
        TextBlock("Answer.", citations=[{"type": "web_search_result_location", "url": "u"}],
                  metadata={"caller": {"type": "direct"}}),
        ToolCallBlock("toolu_1", "lookup", '{"a":1}', metadata={"caller": {"type": "direct"}}),
    ], provider="anthropic")
    body = body_of([UserMessage("q"), response])
    assert body["input"][1:] == [
        {"role": "assistant", "content": "<think>\nLet me think.\n</think>"},
        {"role": "assistant", "content": "Answer."},
        {"type": "function_call", "call_id": "toolu_1", "name": "lookup", "arguments": '{"a":1}'},
    ]
    dropped = body_of([UserMessage("q"), response], foreign_thinking="drop")
    assert dropped["input"][1:] == body["input"][2:]


def test_a_gemini_turn_loses_its_signatures() -> None:
    response = ChatResponse(content=[
        ThinkingBlock("Thought.", metadata={"thought": True}),
        ToolCallBlock("call_g", "f", "", metadata={"thought_signature": "CiQB"}),
        TextBlock("", metadata={"thought_signature": "CiQC"}),
    ], provider="gemini")
    body = body_of([UserMessage("q"), response], foreign_thinking="drop")
    assert body["input"][1:] == [
        {"type": "function_call", "call_id": "call_g", "name": "f", "arguments": "{}"}]


def test_an_openai_chat_turn_is_foreign_to_this_wire() -> None:
    """OpenAI Chat is another wire format: its reasoning text has no item here."""
    response = ChatResponse(content=[ThinkingBlock("r", metadata={"item_id": "x"}),
                                     TextBlock("t", metadata={"item_id": "chatcmpl-1"})],
                            provider="deepseek")
    body = body_of([UserMessage("q"), response])
    assert body["input"][1:] == [{"role": "assistant", "content": "<think>\nr\n</think>"},
                                 {"role": "assistant", "content": "t"}]


def test_own_is_the_wire_and_dialect() -> None:
    assert is_own(None, None) and is_own("openai-responses", None)
    assert not is_own("openai", None) and not is_own("anthropic", None)
    assert not is_own("openai-responses", "some-vendor")  # another vendor of this wire
    assert not is_own("not-a-provider", None)


# ---------------------------------------------------------------- chaining


def test_previous_response_id_sends_only_what_follows_that_response() -> None:
    first = ChatResponse(id="resp_1", content=[TextBlock("Hi.", metadata={"item_id": "msg_1"})],
                         provider=RESPONSES)
    second = ChatResponse(id="resp_2", content=[
        ToolCallBlock("call_1", "f", "{}", metadata={"item_id": "fc_1"})], provider=RESPONSES)
    messages: list[Message] = [SystemMessage("Be brief."), UserMessage("hello"), first,
                               UserMessage("call f"), second,
                               FunctionExecutionResultMessage([FunctionExecutionResult(
                                   "call_1", "ok")])]
    body = body_of(messages, previous_response_id="resp_2", store=True)
    assert body["instructions"] == "Be brief."
    assert body["input"] == [{"type": "function_call_output", "call_id": "call_1",
                              "output": "ok"}]
    middle = body_of(messages[:4], previous_response_id="resp_1")
    assert middle["input"] == [{"role": "user", "content": "call f"}]
    unknown = body_of(messages, previous_response_id="resp_0")  # not in the list: all of it
    assert len(unknown["input"]) == 5


def test_conversation_sends_only_what_follows_its_last_response() -> None:
    response = ChatResponse(id="resp_1", content=[TextBlock("Hi.")], provider=RESPONSES,
                            metadata={"conversation": {"id": "conv_1"}})
    for conversation in ("conv_1", {"id": "conv_1"}):
        body = body_of([UserMessage("hello"), response, UserMessage("more")],
                       conversation=conversation)
        assert body["input"] == [{"role": "user", "content": "more"}]


# ---------------------------------------------------------------- tool choice and structured output


@pytest.mark.parametrize(("choice", "wire"), [
    ("auto", "auto"),
    ("required", "required"),
    ("none", "none"),
    ("weather", {"type": "function", "name": "weather"}),
    ("shell", {"type": "custom", "name": "shell"}),
])
def test_tool_choice(choice: str, wire: Any) -> None:
    body = body_of([UserMessage("q")], tools=[Tool("weather", strict=True),
                                             {"type": "custom", "name": "shell"}],
                   tool_choice=choice)
    assert body["tool_choice"] == wire
    assert parse_request(RESPONSES, body).tool_choice == choice


def test_other_tool_choices_go_through() -> None:
    allowed = {"type": "allowed_tools", "mode": "auto",
               "tools": [{"type": "function", "name": "weather"}]}
    body = build_request(RESPONSES, Request([UserMessage("q")], model="gpt-5",
                                            tools=[Tool("weather", strict=True)],
                                            options={"tool_choice": allowed}))
    assert body["tool_choice"] == allowed
    sdk_valid("openai-responses", body)
    request = parse_request(RESPONSES, body)
    assert request.tool_choice is None and request.options["tool_choice"] == allowed


def test_a_tool_named_like_a_choice_word_reads_back_exactly() -> None:
    wire = {"model": "m", "input": [{"role": "user", "content": "q"}],
            "tools": [{"type": "function", "name": "auto", "parameters": {}, "strict": True}],
            "tool_choice": {"type": "function", "name": "auto"}}
    request = parse_request(RESPONSES, wire)
    assert request.tool_choice is None
    assert build_request(RESPONSES, request) == wire


def test_json_schema_output() -> None:
    """Structured Outputs: text.format json_schema (the guide's shape), other text
    fields kept beside it."""
    schema = {"type": "object", "properties": {"answer": {"type": "string"}},
              "required": ["answer"], "additionalProperties": False}
    body = body_of([UserMessage("q")], json_output=JsonSchemaOutput(
        "answer", schema, strict=True, description="The answer."), text={"verbosity": "low"})
    assert body["text"] == {"verbosity": "low", "format": {
        "type": "json_schema", "name": "answer", "schema": schema, "strict": True,
        "description": "The answer."}}
    request = parse_request(RESPONSES, body)
    assert isinstance(request.json_output, JsonSchemaOutput)
    assert (request.json_output.name, request.json_output.strict) == ("answer", True)
    assert request.options["text"] == {"verbosity": "low"}


class Weather(BaseModel):
    """The weather in one city."""

    city: str
    celsius: float


def test_json_output_from_a_pydantic_model() -> None:
    body = body_of([UserMessage("q")], json_output=Weather)
    output = body["text"]["format"]
    assert (output["type"], output["name"], output["strict"]) == ("json_schema", "Weather", True)
    assert output["schema"]["required"] == ["city", "celsius"]
    assert output["schema"]["additionalProperties"] is False


def test_json_output_true_is_json_mode() -> None:
    body = body_of([UserMessage("Answer in JSON.")], json_output=True)
    assert body["text"] == {"format": {"type": "json_object"}}
    assert parse_request(RESPONSES, body).json_output is True


# ---------------------------------------------------------------- options


def test_uniform_options() -> None:
    body = body_of([UserMessage("q")], max_tokens=2048, temperature=0.2, top_p=0.9,
                   reasoning_effort="high", include_thoughts=True, include_usage=True,
                   parallel_tool_calls=False, store=False,
                   include=["reasoning.encrypted_content"], truncation="auto", stream=True)
    assert body == {
        "model": "gpt-5", "stream": True, "input": [{"role": "user", "content": "q"}],
        "max_output_tokens": 2048, "temperature": 0.2, "top_p": 0.9,
        "parallel_tool_calls": False, "reasoning": {"effort": "high", "summary": "auto"},
        "store": False, "include": ["reasoning.encrypted_content"], "truncation": "auto",
    }
    request = parse_request(RESPONSES, body)
    assert request.options == {"max_tokens": 2048, "temperature": 0.2, "top_p": 0.9,
                               "parallel_tool_calls": False, "reasoning_effort": "high",
                               "include_thoughts": True, "store": False,
                               "include": ["reasoning.encrypted_content"],
                               "truncation": "auto"}


def test_reasoning_options_merge_into_a_reasoning_option() -> None:
    body = body_of([UserMessage("q")], reasoning_effort="low",
                   reasoning={"summary": "detailed"})
    assert body["reasoning"] == {"summary": "detailed", "effort": "low"}
    assert body_of([UserMessage("q")], include_thoughts=False).get("reasoning") is None


@pytest.mark.parametrize(("options", "message"), [
    ({"stop": ["END"]}, "no stop sequences"),
    ({"seed": 7}, "no seed"),
    ({"audio": {"voice": "alloy", "format": "wav"}}, "no audio output"),
    ({"max_tokens": 10, "max_output_tokens": 20}, "given twice"),
    ({"include_thoughts": True, "reasoning": {"summary": "detailed"}}, "given twice"),
    ({"foreign_thinking": "keep"}, "foreign_thinking"),
])
def test_options_responses_cannot_take_raise(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build_request(RESPONSES, [UserMessage("q")], model="m", **options)


@pytest.mark.parametrize(("options", "feature"), [
    ({"stop": ["END"]}, "stop=['END']"),
    ({"thinking_budget": "lots"}, "thinking_budget='lots'"),
    ({"reasoning_effort": "low", "reasoning": "high"}, "reasoning='high'"),
    ({"text": "plain"}, "text='plain'"),
], ids=["stop", "budget", "reasoning", "text"])
def test_refusals_are_unsupported_feature_errors_naming_the_wire(options: dict[str, Any],
                                                                 feature: str) -> None:
    with pytest.raises(UnsupportedFeatureError) as raised:
        build_request(RESPONSES, [UserMessage("q")], model="m", json_output=True, **options)
    assert (raised.value.wire, raised.value.feature) == (RESPONSES, feature)


@pytest.mark.parametrize(("budget", "effort"), [
    (0, "minimal"), (1, "low"), (1024, "low"), (1025, "medium"), (8192, "medium"),
    (8193, "high"), (32000, "high")])
def test_a_thinking_budget_is_the_effort_it_stands_for(budget: int, effort: str) -> None:
    assert body_of([UserMessage("q")], thinking_budget=budget)["reasoning"] == {
        "effort": effort}


def test_an_effort_given_with_a_budget_wins_and_a_dynamic_budget_leaves_the_default() -> None:
    assert body_of([UserMessage("q")], thinking_budget=30000,
                   reasoning_effort="low")["reasoning"] == {"effort": "low"}
    assert "reasoning" not in body_of([UserMessage("q")], thinking_budget=-1)


def test_uniform_options_given_as_none_are_not_given() -> None:
    body = body_of([UserMessage("q")], temperature=None, stop=None, thinking_budget=None,
                   reasoning_effort=None, parallel_tool_calls=None, seed=None, audio=None,
                   stream=None)
    assert body == {"model": "gpt-5", "input": [{"role": "user", "content": "q"}]}


@pytest.mark.parametrize("stream", [True, False])
def test_stream_flag(stream: bool) -> None:
    assert body_of([UserMessage("q")], stream=stream)["stream"] is stream


def test_a_null_option_stays_under_its_wire_name() -> None:
    wire = {"model": "m", "input": [{"role": "user", "content": "q"}],
            "max_output_tokens": None, "reasoning": None, "text": None}
    request = parse_request(RESPONSES, wire)
    assert "max_tokens" not in request.options
    assert build_request(RESPONSES, request) == wire


def test_tool_result_blocks_in_an_assistant_turn_are_not_sent() -> None:
    """A tool result inside an assistant turn (an Anthropic MCP result) has no item
    on this wire, in an own turn too."""
    turn = AssistantMessage([TextBlock("x"), ToolResultBlock("t1", [TextBlock("r")])])
    assert body_of([UserMessage("q"), turn])["input"][1:] == [
        {"role": "assistant", "content": "x"}]
