"""Provenance on the OpenAI Responses wire: what its request reader keeps is
``Extras`` of ``openai-responses`` (down to every block, tool output, tool and
option), and its builder writes no field another wire's reader kept, wherever
that field sits; such a history still makes a body the official SDK accepts.
"""

from __future__ import annotations

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
from streamkit.model.blocks import (
    Base64Source,
    Block,
    DataBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)
from streamkit.model.errors import UnsupportedFeatureError
from streamkit.model.extras import Extras, origin_of
from streamkit.providers.codec import build_request, parse_request

RESPONSES = "openai-responses"
CONVERSATIONS = conversations(RESPONSES)


def _blocks(message: Message) -> list[Block]:
    if isinstance(message, FunctionExecutionResultMessage):
        return [block for result in message.content for block in result.blocks
                if not isinstance(result.content, str)]
    content = message.content
    return [] if isinstance(content, str) else list(content)


def _untagged(request: Request) -> list[str]:
    """Every metadata of ``request`` that is not this wire's Extras, by where it is."""
    out = []
    if origin_of(request.options) != RESPONSES:
        out.append("options")
    for index, message in enumerate(request.messages):
        if origin_of(message.metadata) != RESPONSES:
            out.append(f"messages[{index}]")
        for block in _blocks(message):
            if origin_of(block.metadata) != RESPONSES:
                out.append(f"messages[{index}] {block.type} block")
        if isinstance(message, FunctionExecutionResultMessage):
            out += [f"messages[{index}] result" for result in message.content
                    if origin_of(result.metadata) != RESPONSES]
    for tool in request.tools or []:
        kept = tool if isinstance(tool, dict) else tool.metadata
        if origin_of(kept) != RESPONSES:
            out.append(f"tool {tool!r:.40}")
    if isinstance(request.json_output, JsonSchemaOutput) and origin_of(
            request.json_output.metadata) != RESPONSES:
        out.append("json_output")
    return out


@pytest.mark.parametrize("conversation", CONVERSATIONS, ids=[c.name for c in CONVERSATIONS])
def test_every_kept_field_of_a_recorded_request_is_this_wires(conversation: Any) -> None:
    for body in (conversation.turn1_request, conversation.turn2_request):
        assert _untagged(parse_request(RESPONSES, body)) == []


def test_a_hand_built_body_with_every_kind_of_extra_is_tagged_throughout() -> None:
    body = {"model": "gpt-5", "instructions": "Be brief.", "store": False,
            "text": {"format": {"type": "json_schema", "name": "out", "schema": {},
                                "vendor_hint": 1}},
            "tools": [{"type": "function", "name": "f", "parameters": {}, "strict": True,
                       "defer_loading": True}, {"type": "web_search"}],
            "input": [
                {"type": "message", "role": "developer", "content": "Rules."},
                {"role": "user", "content": [{"type": "input_text", "text": "q", "x": 1},
                                             {"type": "input_file", "file_id": "file-1"}]},
                {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}",
                 "id": "fc_1"},
                {"type": "function_call_output", "call_id": "c1", "output": "ok",
                 "status": "completed"}]}
    request = parse_request(RESPONSES, body)
    assert _untagged(request) == []
    assert build_request(RESPONSES, request) == body


# ---------------------------------------------------------------- another wire's extras

ANTHROPIC = "anthropic"


def _foreign(fields: dict[str, Any]) -> Extras:
    return Extras(ANTHROPIC, fields)


CACHE = {"cache_control": {"type": "ephemeral"}}


def _history() -> Request:
    """A conversation whose every metadata came from another wire's reader."""
    return Request(
        model="claude-x", stream=True,
        messages=[
            SystemMessage([TextBlock("Be brief.", metadata=_foreign(CACHE))],
                          metadata=_foreign({"role": "user"})),
            UserMessage([TextBlock("Look.", metadata=_foreign(CACHE)),
                         DataBlock(source=Base64Source(b"\x89PNG fake", "image/png"),
                                   metadata=_foreign({"detail": "low", **CACHE}))],
                        metadata=_foreign({"name": None, "same_turn": True})),
            AssistantMessage([
                ThinkingBlock("Hmm.", signature="sig", metadata=_foreign({"absent": True})),
                TextBlock("Calling.", metadata=_foreign({"item_id": "msg_x", "phase": "p"})),
                ToolCallBlock("toolu_1", "f", '{"a":1}',
                              metadata=_foreign({"item_id": "fc_x", "caller": {"type": "d"}})),
                RawBlock("server_tool_use", {"type": "server_tool_use", "id": "srv_1"},
                         metadata=_foreign({})),
            ], metadata=_foreign({"snake_case": True})),
            FunctionExecutionResultMessage([FunctionExecutionResult(
                "toolu_1", [TextBlock("done", metadata=_foreign(CACHE))],
                metadata=_foreign({"is_error": False, "custom": True, **CACHE}))],
                metadata=_foreign({"base64": True})),
            UserMessage("And?", metadata=_foreign({"string_input": True})),
        ],
        tools=[Tool("f", "A tool.", strict=False, metadata=_foreign(CACHE)),
               _foreign({"type": "web_search_20250305", "name": "web_search"})],
        json_output=JsonSchemaOutput(name="out", schema={"type": "object"},
                                     metadata=_foreign({"schema_field": "input_schema"})),
        options=_foreign({"temperature": 0.5, "max_tokens": 100, "top_k": 5,
                          "max_tokens_field": "max_tokens", "container": "c1"}),
    )


_FOREIGN_KEYS = {"cache_control", "same_turn", "absent", "item_id", "phase", "caller",
                 "snake_case", "is_error", "base64", "string_input", "schema_field", "top_k",
                 "max_tokens_field", "container", "server_tool_use", "web_search_20250305",
                 "srv_1", "msg_x", "fc_x", "sig"}


def _words(value: Any) -> set[str]:
    """Every key and string value in ``value``."""
    if isinstance(value, dict):
        return {str(key) for key in value} | {w for item in value.values() for w in _words(item)}
    if isinstance(value, list):
        return {w for item in value for w in _words(item)}
    return {value} if isinstance(value, str) else set()


def test_another_wires_extras_never_reach_the_body() -> None:
    """The turn is another API's (provider None: built from a parsed history), and
    every metadata is that API's: none of it is written; the uniform parts are."""
    body = build_request(RESPONSES, _history())
    sdk_valid("openai-responses", body)
    assert _words(body) & _FOREIGN_KEYS == set()
    assert body["instructions"] == "Be brief."  # its extras were another wire's: instructions
    assert body["temperature"] == 0.5 and body["max_output_tokens"] == 100
    assert body["tools"] == [{"type": "function", "name": "f", "description": "A tool.",
                              "parameters": {"type": "object", "properties": {}},
                              "strict": False}]
    assert body["text"] == {"format": {"type": "json_schema", "name": "out",
                                       "schema": {"type": "object"}}}
    image_url = body["input"][0]["content"][1]["image_url"]
    assert image_url.startswith("data:image/png;base64,")
    assert body["input"] == [
        {"role": "user", "content": [{"type": "input_text", "text": "Look."},
                                     {"type": "input_image", "image_url": image_url,
                                      "detail": "auto"}]},
        # no item id of this wire: the thinking goes as text, the text as a message
        {"role": "assistant", "content": "<think>\nHmm.\n</think>"},
        {"role": "assistant", "content": "Calling."},
        {"type": "function_call", "call_id": "toolu_1", "name": "f", "arguments": '{"a":1}'},
        # (the other wire's server item is dropped)
        {"type": "function_call_output", "call_id": "toolu_1",
         "output": [{"type": "input_text", "text": "done"}]},
        {"role": "user", "content": "And?"},
    ]


def test_the_same_fields_as_this_wires_extras_are_written() -> None:
    """The control: the builder writes those fields when they are its own."""
    block = TextBlock("Look.", metadata=Extras(RESPONSES, {"x_vendor": 1}))
    body = build_request(RESPONSES, Request(messages=[UserMessage([block])],
                                            options=Extras(RESPONSES, {"store": False})))
    assert body == {"input": [{"role": "user", "content": [
        {"type": "input_text", "text": "Look.", "x_vendor": 1}]}], "store": False}


def test_another_wires_part_in_a_user_message_is_refused() -> None:
    """A part only another wire reads is content, not bookkeeping: dropping it
    would change what the model sees."""
    document = RawBlock("document", {"type": "document", "source": {"type": "text",
                                                                   "data": "x"}},
                        metadata=_foreign({}))
    with pytest.raises(UnsupportedFeatureError) as raised:
        build_request(RESPONSES, [UserMessage([TextBlock("Read."), document])], model="m")
    assert raised.value.wire == RESPONSES and "anthropic 'document' part" in str(raised.value)
