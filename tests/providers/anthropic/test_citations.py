"""Anthropic citations as typed :class:`~streamkit.model.blocks.Citation` s: every kind
the API sends (the SDK's ``TextCitation`` union is the oracle of their shapes),
in a stream's ``citations_delta`` and a complete message's text block alike,
the provider's object kept as ``raw`` and written back to Anthropic only."""

from __future__ import annotations

import json
from typing import Any

import pytest
from anthropic.lib.streaming._messages import accumulate_event
from anthropic.types import TextCitation
from pydantic import TypeAdapter
from support.comparing import fresh_ids
from support.parser_runs import check_event_contract, run_parser
from support.recordings import Payload, sse_body
from support.request_oracles import sdk_valid

from streamkit import (
    AssistantMessage,
    TextBlock,
    UserMessage,
    build_request,
    parse_request,
    parse_response,
    replay,
)
from streamkit.model.blocks import Citation
from streamkit.model.events import BlockDelta, CitationDelta
from streamkit.providers.anthropic import AnthropicParser

CHAR = {"type": "char_location", "cited_text": "Paris is in France.", "document_index": 0,
        "document_title": "Atlas", "start_char_index": 0, "end_char_index": 19}
PAGE = {"type": "page_location", "cited_text": "Revenue grew 12%.", "document_index": 1,
        "document_title": "Annual report", "start_page_number": 4, "end_page_number": 5}
BLOCKS = {"type": "content_block_location", "cited_text": "Step one.", "document_index": 2,
          "document_title": None, "start_block_index": 0, "end_block_index": 1}
WEB = {"type": "web_search_result_location", "cited_text": "Sunny, 24C",
       "encrypted_index": "Eo8BCioIAhgBIiQ3", "title": "Paris weather",
       "url": "https://weather.example/paris"}
SEARCH = {"type": "search_result_location", "cited_text": "Use pip install.",
          "search_result_index": 0, "source": "https://docs.example/install",
          "title": "Install", "start_block_index": 1, "end_block_index": 2}
RAWS = [CHAR, PAGE, BLOCKS, WEB, SEARCH]

#: What each kind means, written out field by field.
EXPECTED = [
    Citation(title="Atlas", cited_text="Paris is in France.", start=0, end=19, document_index=0,
             raw=CHAR, wire="anthropic"),
    Citation(title="Annual report", cited_text="Revenue grew 12%.", start=4, end=5,
             document_index=1, raw=PAGE, wire="anthropic"),
    Citation(cited_text="Step one.", start=0, end=1, document_index=2, raw=BLOCKS,
             wire="anthropic"),
    Citation(url="https://weather.example/paris", title="Paris weather", cited_text="Sunny, 24C",
             raw=WEB, wire="anthropic"),
    Citation(url="https://docs.example/install", title="Install", cited_text="Use pip install.",
             start=1, end=2, raw=SEARCH, wire="anthropic"),
]

TEXT = "Paris is sunny."


def test_the_fixtures_are_citations_the_sdk_knows() -> None:
    adapter: TypeAdapter[Any] = TypeAdapter(TextCitation)
    for raw in RAWS:
        assert adapter.validate_python(raw).model_dump(exclude_unset=True) == raw


def cited_stream() -> list[Payload]:
    """A message whose text block gets one citation of every kind as deltas."""
    items = [
        Payload("message_start", json.dumps({"type": "message_start", "message": {
            "id": "msg_c", "type": "message", "role": "assistant", "model": "claude-x",
            "content": [], "stop_reason": None, "usage": {"input_tokens": 5,
                                                          "output_tokens": 1}}})),
        Payload("content_block_start", json.dumps({"type": "content_block_start", "index": 0,
                                                   "content_block": {"type": "text",
                                                                     "text": ""}})),
        Payload("content_block_delta", json.dumps({"type": "content_block_delta", "index": 0,
                                                   "delta": {"type": "text_delta",
                                                             "text": TEXT}})),
    ]
    items += [Payload("content_block_delta", json.dumps({
        "type": "content_block_delta", "index": 0,
        "delta": {"type": "citations_delta", "citation": raw}})) for raw in RAWS]
    items += [
        Payload("content_block_stop", '{"type":"content_block_stop","index":0}'),
        Payload("message_delta", '{"type":"message_delta","delta":{"stop_reason":"end_turn"},'
                                 '"usage":{"output_tokens":9}}'),
        Payload("message_stop", '{"type":"message_stop"}'),
    ]
    return items


def sdk_message(items: list[Payload]) -> dict[str, Any]:
    """The complete message the official SDK accumulates from the stream."""
    snapshot: Any = None
    buffers: dict[int, bytes] = {}
    for _, data in items:
        snapshot = accumulate_event(event=json.loads(data), current_snapshot=snapshot,
                                    json_bufs=buffers)
    message: dict[str, Any] = snapshot.model_dump(mode="json", exclude_unset=True,
                                                  warnings=False)
    return message


@pytest.mark.parametrize("fast_decode", [True, False], ids=["fast", "general"])
def test_every_kind_streamed_is_a_typed_citation(fast_decode: bool) -> None:
    result = run_parser(AnthropicParser(fast_decode=fast_decode), cited_stream())
    check_event_contract(result.events)
    deltas = [e.delta for e in result.events
              if isinstance(e, BlockDelta) and isinstance(e.delta, CitationDelta)]
    assert [delta.citation for delta in deltas] == EXPECTED
    [text] = result.response.content
    assert isinstance(text, TextBlock) and text.text == TEXT
    assert text.citations == EXPECTED
    assert all(citation.raw is not raw for citation, raw in zip(text.citations, RAWS,
                                                                strict=True))


def test_a_complete_message_gives_the_streams_citations() -> None:
    items = cited_stream()
    message = sdk_message(items)
    assert message["content"][0]["citations"] == RAWS  # the SDK agrees on the objects
    with fresh_ids():
        [text] = parse_response("anthropic", message).content
    assert isinstance(text, TextBlock) and text.citations == EXPECTED
    with fresh_ids():
        streamed = replay(sse_body(items), "anthropic")[1]
    assert streamed.content[0] == text


def test_an_own_turn_sends_its_citations_back_as_they_came() -> None:
    response = replay(sse_body(cited_stream()), "anthropic")[1]
    body = build_request("anthropic", [UserMessage("Weather?"), response, UserMessage("More?")],
                         model="claude-x", max_tokens=64)
    sdk_valid("anthropic", body)
    assert body["messages"][1] == {"role": "assistant", "content": [
        {"type": "text", "text": TEXT, "citations": RAWS}]}
    assert parse_request("anthropic", body).messages[1].content[0].citations == EXPECTED


def test_another_wires_citations_are_not_written() -> None:
    gemini = Citation(url="https://a.example", start=0, end=5, raw={"uri": "https://a.example",
                                                                    "startIndex": 0,
                                                                    "endIndex": 5},
                      wire="gemini")
    by_hand = Citation(url="https://b.example", title="B")  # no raw object: no Anthropic form
    own = EXPECTED[0]
    turn = AssistantMessage([TextBlock(TEXT, citations=[gemini, own, by_hand])],
                            provider="anthropic")
    body = build_request("anthropic", [UserMessage("q"), turn], model="m", max_tokens=8)
    sdk_valid("anthropic", body)
    assert body["messages"][1]["content"] == [{"type": "text", "text": TEXT,
                                               "citations": [CHAR]}]
    foreign = build_request("anthropic", [UserMessage("q"), AssistantMessage(
        [TextBlock(TEXT, citations=[own])], provider="gemini")], model="m", max_tokens=8)
    assert foreign["messages"][1]["content"] == [{"type": "text", "text": TEXT}]


def test_citations_in_a_request_read_back_typed_and_exact() -> None:
    body = {"model": "m", "max_tokens": 8, "messages": [
        {"role": "user", "content": [{"type": "text", "text": "quoted", "citations": [PAGE]}]},
        {"role": "assistant", "content": [{"type": "text", "text": TEXT, "citations": RAWS}]},
        {"role": "user", "content": "go on"},
    ]}
    sdk_valid("anthropic", body)
    request = parse_request("anthropic", body)
    user, assistant, _ = request.messages
    assert isinstance(user, UserMessage) and isinstance(assistant, AssistantMessage)
    assert user.blocks[0].metadata == {}
    assert isinstance(user.blocks[0], TextBlock) and user.blocks[0].citations == [EXPECTED[1]]
    block = assistant.blocks[0]
    assert isinstance(block, TextBlock) and block.citations == EXPECTED
    request.options["api_version"] = "2023-06-01"  # citations on a user text: that version's
    assert build_request("anthropic", request) == body


@pytest.mark.parametrize("citations", [["not an object"], "x", [CHAR, 3]])
def test_citations_that_are_not_objects_are_kept_as_they_came(citations: Any) -> None:
    """Not a list of citation objects: no Citation, the value kept in metadata."""
    block = {"type": "text", "text": "t", "citations": citations}
    items = [Payload(None, json.dumps({"type": "content_block_start", "index": 0,
                                       "content_block": block})),
             Payload(None, '{"type":"content_block_stop","index":0}')]
    [text] = run_parser(AnthropicParser(), items).response.content
    assert isinstance(text, TextBlock) and text.citations == []
    assert text.metadata == {"citations": citations}
    body = {"model": "m", "max_tokens": 8, "messages": [
        {"role": "user", "content": [block]}, {"role": "assistant", "content": [block]}]}
    request = parse_request("anthropic", body)
    request.options["api_version"] = "2023-06-01"  # citations on a user text: that version's
    assert build_request("anthropic", request) == body


def test_a_citation_with_fields_of_the_wrong_type_keeps_them_raw() -> None:
    odd = {"type": "char_location", "cited_text": ["x"], "document_index": "0",
           "start_char_index": 1.5, "end_char_index": 4, "vendor": True}
    items = [Payload(None, '{"type":"content_block_start","index":0,'
                           '"content_block":{"type":"text","text":""}}'),
             Payload(None, json.dumps({"type": "content_block_delta", "index": 0, "delta": {
                 "type": "citations_delta", "citation": odd}}))]
    [text] = run_parser(AnthropicParser(), items).response.content
    assert isinstance(text, TextBlock)
    assert text.citations == [Citation(end=4, raw=odd, wire="anthropic")]
