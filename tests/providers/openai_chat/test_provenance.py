"""Provenance on the Chat Completions wire: what its readers keep is tagged as
this wire's, and its builders write no other wire's extras.

- ``parse_request`` tags every metadata it keeps (messages, blocks, tool
  results, tools, dict tool entries, structured output, the options) as
  :class:`~streamkit.model.extras.Extras` of ``openai-chat``, and makes up its ids
  from the body (two reads of one body are ``==`` with the default ids);
- ``build_request`` given a conversation full of another wire's extras (and
  that wire's bookkeeping keys) writes none of them, and the official
  ``openai`` SDK's request types accept what it writes; the same metadata set
  by hand (no origin) is written, so the filter is provenance, not key names;
- what the wire cannot take is an :class:`~streamkit.model.errors.UnsupportedFeatureError`
  naming the wire;
- annotations are typed :class:`~streamkit.model.blocks.Citation` s, stream and body.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from support.conversations import conversations
from support.openai_chat_bodies import DOCUMENTED_BODIES
from support.openai_chat_stream import chunk, run
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
    Citation,
    DataBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    URLSource,
)
from streamkit.model.errors import LossyTranslationWarning, UnsupportedFeatureError
from streamkit.model.extras import Extras, origin_of
from streamkit.model.ids import id_factory
from streamkit.model.response import ChatResponse
from streamkit.providers.openai_chat.request import build_request, parse_request
from streamkit.providers.openai_chat.response import parse_response

WIRE = "openai-chat"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8

#: Every request body this wire has: the recorded ones and the documented shapes.
BODIES: list[tuple[str, str | None, dict[str, Any]]] = [
    *((f"{c.name}/turn{turn}", None, request)
      for folder in ("openai-chat", "openai-compatible") for c in conversations(folder)
      for turn, request in ((1, c.turn1_request), (2, c.turn2_request))),
    *((f"documented {index}", dialect, body)
      for index, (dialect, body) in enumerate(DOCUMENTED_BODIES)),
]


def kept_metadata(request: Request) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Every mapping a read of a body keeps, with where it is."""
    yield "options", request.options
    for position, message in enumerate(request.messages):
        where = f"messages[{position}]"
        if isinstance(message, FunctionExecutionResultMessage):
            for result in message.content:
                yield f"{where} result {result.call_id}", result.metadata
                if not isinstance(result.content, str):
                    yield from ((f"{where} result block", b.metadata) for b in result.content)
            continue
        yield where, message.metadata
        if not isinstance(message.content, str):
            yield from ((f"{where} {b.type} block", b.metadata) for b in message.content)
    for tool in request.tools or []:
        yield "tool", tool if isinstance(tool, dict) else tool.metadata
    if isinstance(request.json_output, JsonSchemaOutput):
        yield "json_output", request.json_output.metadata


@pytest.mark.parametrize(("name", "dialect", "body"), BODIES, ids=[b[0] for b in BODIES])
def test_a_read_body_tags_everything_it_keeps(name: str, dialect: str | None,
                                              body: dict[str, Any]) -> None:
    request = parse_request(copy.deepcopy(body), dialect)
    kept = list(kept_metadata(request))
    assert len(kept) > 1
    for where, metadata in kept:
        assert origin_of(metadata) == WIRE, (where, metadata)
    assert build_request(request, dialect) == body  # still exact


@pytest.mark.parametrize(("name", "dialect", "body"), BODIES, ids=[b[0] for b in BODIES])
def test_two_reads_of_a_body_are_equal_with_default_ids(name: str, dialect: str | None,
                                                        body: dict[str, Any]) -> None:
    with id_factory(None):
        first = parse_request(copy.deepcopy(body), dialect)
        assert parse_request(copy.deepcopy(body), dialect) == first


def test_made_up_ids_differ_between_bodies() -> None:
    body = {"model": "m", "messages": [{"role": "assistant", "content": "A"}]}
    other = {"model": "m", "messages": [{"role": "assistant", "content": "B"}]}
    with id_factory(None):
        (first,) = parse_request(body, None).messages
        (second,) = parse_request(other, None).messages
    assert isinstance(first, AssistantMessage) and isinstance(second, AssistantMessage)
    assert first.blocks[0].id.startswith("text_")
    assert first.blocks[0].id != second.blocks[0].id


# ---------------------------------------------------------------- another wire's extras

#: Fields other wires' readers keep (their wire fields and their bookkeeping).
FOREIGN_KEYS = frozenset({"cache_control", "thought", "thoughtSignature", "snake_case",
                          "schema_field", "generated_id", "same_turn", "base64", "images",
                          "is_error", "input_examples", "propertyOrdering", "top_k",
                          "user_id", "response_object", "x_foreign"})


def conversation(extras: Any) -> Request:
    """One request with every kind of metadata set by ``extras(wire, fields)``."""
    return Request(
        model="gpt-4.1", stream=True,
        messages=[
            SystemMessage("Be brief.", metadata=extras("anthropic",
                                                       {"cache_control": {"type": "ephemeral"}})),
            UserMessage([
                TextBlock("Look.", metadata=extras("gemini", {"thought": True,
                                                              "snake_case": True})),
                DataBlock(source=Base64Source(PNG, "image/png"),
                          metadata=extras("anthropic", {"cache_control": {"type": "ephemeral"},
                                                        "base64": True})),
            ], metadata=extras("ollama", {"images": []})),
            AssistantMessage([
                ThinkingBlock("Plan.", metadata=extras("anthropic", {"same_turn": True})),
                TextBlock("Calling.", metadata=extras("openai-responses",
                                                      {"generated_id": True})),
                ToolCallBlock("call_1", "f", "{}",
                              metadata=extras("gemini", {"thoughtSignature": "c2ln",
                                                         "schema_field": "parameters"})),
            ], metadata=extras("anthropic", {"x_foreign": True})),
            FunctionExecutionResultMessage([FunctionExecutionResult(
                "call_1", "ok", metadata=extras("anthropic", {"is_error": False}))]),
        ],
        tools=[Tool("f", "Does f.", {"type": "object", "properties": {}},
                    metadata=extras("anthropic", {"input_examples": []}))],
        json_output=JsonSchemaOutput("A", {"type": "object"},
                                     metadata=extras("gemini", {"propertyOrdering": []})),
        options=extras("anthropic", {"max_tokens": 10, "temperature": 0.5, "top_k": 5,
                                     "metadata": {"user_id": "u"},
                                     "max_tokens_field": "max_tokens",
                                     "response_object": True}),
    )


def keys_in(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {key for item in value.values() for key in keys_in(item)}
    if isinstance(value, list):
        return {key for item in value for key in keys_in(item)}
    return set()


@pytest.mark.parametrize("dialect", [None, "deepseek", "openrouter", "mistral", "vllm"])
def test_another_wires_extras_are_never_written(dialect: str | None) -> None:
    body = build_request(conversation(Extras), dialect)
    assert not keys_in(body) & FOREIGN_KEYS, sorted(keys_in(body) & FOREIGN_KEYS)
    budget = "max_completion_tokens" if dialect is None else "max_tokens"
    assert (body[budget], body["temperature"]) == (10, 0.5)  # the uniform options stay
    assert "metadata" not in body  # another wire's option of that name: its own words
    assert body["messages"][3] == {"role": "tool", "tool_call_id": body["messages"][2][
        "tool_calls"][0]["id"], "content": "ok"}
    sdk_valid("openai-chat", body, dialect=dialect)


def test_the_same_metadata_set_by_hand_is_written() -> None:
    """The filter is the origin: a plain dict is the caller's, written as given."""
    body = build_request(conversation(lambda wire, fields: dict(fields)), None)
    found = keys_in(body) & FOREIGN_KEYS
    assert {"cache_control", "thought", "thoughtSignature", "input_examples",
            "propertyOrdering", "top_k", "x_foreign"} <= found
    assert body["max_tokens"] == 10  # the hand-set budget field spelling


def test_this_wires_own_extras_are_written_back() -> None:
    request = conversation(lambda wire, fields: Extras(WIRE, fields))
    body = build_request(request, None)
    assert body["messages"][0]["cache_control"] == {"type": "ephemeral"}
    assert body["tools"][0]["function"]["input_examples"] == []


def test_another_wires_tool_entry_is_dropped_with_a_warning() -> None:
    server_tool = Extras("anthropic", {"type": "web_search_20250305", "name": "web_search"})
    mine = Tool("lookup")
    request = Request(messages=[UserMessage("hi")], model="m", tools=[server_tool, mine])
    with pytest.warns(LossyTranslationWarning, match="'web_search_20250305' tool read from "
                      "anthropic") as caught:
        body = build_request(request, None)
    assert len(caught) == 1
    assert [entry["function"]["name"] for entry in body["tools"]] == ["lookup"]
    own = Extras(WIRE, {"type": "function", "function": {"name": "g"}})
    request.tools = [own]
    assert build_request(request, None)["tools"] == [{"type": "function",
                                                      "function": {"name": "g"}}]


# ---------------------------------------------------------------- what the wire cannot take

@pytest.mark.parametrize(("content", "options", "feature"), [
    (DataBlock(source=URLSource("https://x/a.wav", "audio/wav")), {}, "audio by URL"),
    (DataBlock(source=Base64Source(b"fLaC", "audio/flac")), {}, "audio/flac"),
    (DataBlock(source=URLSource("https://x/a.pdf", "application/pdf")), {}, "by URL"),
    (TextBlock("hi"), {"include_thoughts": True}, "include_thoughts"),
])
def test_what_the_wire_cannot_take_is_an_unsupported_feature(
        content: Any, options: dict[str, Any], feature: str) -> None:
    messages: list[Message] = [UserMessage([content])]
    request = Request(messages=messages, model="m", options=options)
    with pytest.raises(UnsupportedFeatureError, match=feature) as raised:
        build_request(request, None)
    assert raised.value.wire == WIRE and isinstance(raised.value, ValueError)


# ---------------------------------------------------------------- citations

URL_CITATION = {"type": "url_citation", "url_citation": {
    "url": "https://example.com/a", "title": "A", "start_index": 5, "end_index": 9}}


def test_a_streamed_annotation_is_a_typed_citation() -> None:
    flat = {"type": "url_citation", "url": "https://example.com/b", "title": "B"}
    odd = {"type": "url_citation", "url_citation": {"url": 3, "start_index": "0"}}
    response = run([(None, chunk({"content": "Some text"})),
                    (None, chunk({"annotations": [URL_CITATION, flat, odd]}))]).response
    citations = response.content[0].citations  # type: ignore[union-attr]
    assert citations == [
        Citation(url="https://example.com/a", title="A", start=5, end=9, raw=URL_CITATION,
                 wire=WIRE),
        Citation(url="https://example.com/b", title="B", raw=flat, wire=WIRE),
        Citation(raw=odd, wire=WIRE),  # mistyped facts are not guessed; the raw object stays
    ]
    assert ChatResponse.from_dict(response.to_dict()) == response


def test_a_response_bodys_annotations_are_the_same_citations() -> None:
    body = {"id": "chatcmpl-c", "object": "chat.completion", "created": 1, "model": "gpt-4o",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {
                "role": "assistant", "content": "See example.", "annotations": [URL_CITATION]}}]}
    response = parse_response(json.loads(json.dumps(body)), None)
    (text,) = response.content
    assert isinstance(text, TextBlock) and text.citations == [Citation(
        url="https://example.com/a", title="A", start=5, end=9, raw=URL_CITATION, wire=WIRE)]
