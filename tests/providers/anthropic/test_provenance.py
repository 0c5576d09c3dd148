"""Provenance on the Anthropic wire: what ``parse_request`` keeps is Anthropic's
:class:`~streamkit.model.extras.Extras` (everywhere it keeps something), the builder
writes the extras of its own wire (or set by hand) and never another wire's,
and what the wire cannot take is refused with a typed error naming the wire,
the feature and what to do."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest
from support.conversations import conversations
from support.request_oracles import sdk_valid

from streamkit import (
    AssistantMessage,
    CachePoint,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    Request,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    UserMessage,
    build_request,
    parse_request,
)
from streamkit.conversation.request import JsonSchemaOutput
from streamkit.conversation.tools import Tool
from streamkit.model.blocks import Base64Source, DataBlock, RawBlock, ToolResultBlock, URLSource
from streamkit.model.errors import (
    InvalidBodyError,
    LossyTranslationWarning,
    UnsupportedFeatureError,
)
from streamkit.model.extras import Extras, origin_of

ANTHROPIC = "anthropic"
OTHER_WIRES = ["openai-chat", "openai-responses", "gemini", "ollama"]
CACHE = {"type": "ephemeral"}
PNG = b"\x89PNG\r\n\x1a\n fake"

# A body with every place parse_request keeps something: message fields, a
# user message continued after tool results, block extras, a part kept whole,
# a tool result kept whole, a server tool, tool extras, format extras, options.
ODD_BODY: dict[str, Any] = {
    "model": "claude-x", "max_tokens": 64, "top_k": 3, "vendor_option": {"a": 1},
    "system": [{"type": "text", "text": "Be brief.", "cache_control": CACHE}],
    "output_config": {"format": {"type": "json_schema", "schema": {"type": "object"},
                                 "vendor": 1}},
    "tools": [{"name": "f", "input_schema": {"type": "object"}, "cache_control": CACHE},
              {"type": "web_search_20250305", "name": "web_search"}],
    "messages": [
        {"role": "user", "content": [
            {"type": "text", "text": "hi", "cache_control": CACHE},
            {"type": "image", "source": {"type": "url", "url": "https://x/cat.png"}},
            {"type": "document", "source": {"type": "file", "file_id": "file_1"}},
            {"type": "sparkle", "x": 1},
        ], "vendor_field": True},
        {"role": "assistant", "content": [
            {"type": "text", "text": "calling", "citations": None},
            {"type": "tool_use", "id": "t1", "name": "f", "input": {}, "caller": {
                "type": "direct"}},
            {"type": "mcp_tool_use", "id": "m1", "name": "q", "server_name": "s", "input": {}},
            {"type": "mcp_tool_result", "tool_use_id": "m1", "is_error": False,
             "content": [{"type": "text", "text": "r"}]},
            {"type": "compaction", "content": "summary"},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "ok",
             "cache_control": CACHE},
            {"type": "tool_result", "tool_use_id": "t1", "content": [
                {"type": "search_result", "source": "s", "title": "t",
                 "content": [{"type": "text", "text": "x"}]}]},
            {"type": "text", "text": "and then"},
        ]},
    ],
}

RECORDED = [(f"{c.name}/{turn}", body) for c in conversations("anthropic")
            for turn, body in (("turn1", c.turn1_request), ("turn2", c.turn2_request))]
BODIES = [*RECORDED, ("odd", ODD_BODY)]


def kept(request: Request) -> Iterator[tuple[str, Mapping[str, Any], bool]]:
    """Every metadata mapping a request holds: where, the mapping, and whether
    it must carry an origin even when empty (a part kept whole)."""
    yield "options", request.options, True
    for number, entry in enumerate(request.tools or []):
        yield (f"tools[{number}]", entry.metadata if isinstance(entry, Tool) else entry,
               isinstance(entry, dict))
    if isinstance(request.json_output, JsonSchemaOutput):
        yield "json_output", request.json_output.metadata, False
    for number, message in enumerate(request.messages):
        where = f"messages[{number}]"
        yield where, message.metadata, False
        parts: list[Any] = [] if isinstance(message.content, str) else list(message.content)
        for index, part in enumerate(parts):
            yield from _kept_in(part, f"{where}.content[{index}]")


def _kept_in(part: Any, where: str) -> Iterator[tuple[str, Mapping[str, Any], bool]]:
    yield where, part.metadata, isinstance(part, RawBlock)
    inner = part.content if isinstance(part, (FunctionExecutionResult, ToolResultBlock)) else []
    for index, block in enumerate([] if isinstance(inner, str) else inner):
        yield from _kept_in(block, f"{where}.content[{index}]")


@pytest.mark.parametrize(("name", "body"), BODIES, ids=[name for name, _ in BODIES])
def test_parse_request_keeps_everything_as_anthropics(name: str, body: dict[str, Any]) -> None:
    request = parse_request(ANTHROPIC, copy.deepcopy(body))
    places = list(kept(request))
    unmarked = [where for where, metadata, always in places
                if (metadata or always) and origin_of(metadata) != ANTHROPIC]
    assert unmarked == []
    request.options["api_version"] = "2023-06-01"  # the odd body's top_k is that version's
    assert build_request(ANTHROPIC, request) == body


def test_the_odd_body_keeps_something_in_every_kind_of_place() -> None:
    """The walk above is not vacuous: each kind of place holds something here."""
    request = parse_request(ANTHROPIC, copy.deepcopy(ODD_BODY))
    places = {where: metadata for where, metadata, _ in kept(request) if metadata}
    assert places["options"] == {"max_tokens": 64, "top_k": 3, "vendor_option": {"a": 1}}
    assert "tools[0]" not in places  # its cache_control is the tool's cache point
    assert request.tools is not None and request.tools[0].cache == CachePoint()  # type: ignore[union-attr]
    assert places["tools[1]"]["type"] == "web_search_20250305"
    assert places["json_output"] == {"vendor": 1}
    assert places["messages[1]"] == {"vendor_field": True}
    assert "messages[1].content[0]" not in places
    assert request.messages[1].content[0].cache == CachePoint()  # type: ignore[union-attr]
    user = request.messages[1]
    assert isinstance(user, UserMessage)
    assert [type(b) for b in user.blocks] == [TextBlock, DataBlock, RawBlock, RawBlock]
    assert places["messages[2].content[1]"] == {"caller": {"type": "direct"}}
    assert places["messages[4]"] == {"same_turn": True}
    assert origin_of(places["messages[4]"]) == ANTHROPIC


# ---------------------------------------------------------------- writing: own extras only


def history(wire: str) -> Request:
    """A conversation whose every extra is tagged as read from ``wire`` (keys
    Anthropic takes, so the same history tagged as Anthropic's is valid)."""
    def tag(fields: dict[str, Any] | None = None) -> Extras:
        return Extras(wire, copy.deepcopy(fields or {}))

    return Request(
        model="claude-x",
        messages=[
            SystemMessage("Be brief.", metadata=tag({"cache_control": CACHE})),
            UserMessage([TextBlock("Look:", metadata=tag({"cache_control": CACHE})),
                         DataBlock(source=Base64Source(PNG, "image/png"),
                                   metadata=tag()),
                         DataBlock(source=URLSource("https://x/a.pdf", "application/pdf"),
                                   metadata=tag({"citations": {"enabled": True}}))]),
            AssistantMessage([
                ThinkingBlock("Hmm.", signature="sig", metadata=tag()),
                TextBlock("Calling.", metadata=tag({"citations": None})),
                ToolCallBlock("t1", "f", '{"a": 1}', metadata=tag({"caller": {"type": "direct"}})),
            ]),
            FunctionExecutionResultMessage([FunctionExecutionResult(
                "t1", "done", metadata=tag({"cache_control": CACHE}))]),
            UserMessage("Thanks.", metadata=tag({"same_turn": True})),
        ],
        tools=[Tool("f", metadata=tag({"cache_control": CACHE}))],
        json_output=JsonSchemaOutput("Answer", {"type": "object"}),
        options=tag({"max_tokens": 64, "temperature": 0.5, "top_k": 5,
                     "thinking": {"type": "adaptive"}, "api_version": "2023-06-01"}),
    )


def keys(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from keys(item)
    elif isinstance(value, list):
        for item in value:
            yield from keys(item)


def test_own_extras_are_written() -> None:
    """The control: the same history, Anthropic's, writes every extra."""
    body = build_request(ANTHROPIC, history(ANTHROPIC))
    sdk_valid("anthropic", body)
    written = list(keys(body))
    assert written.count("cache_control") == 4  # Anthropic's most
    assert {"caller", "citations", "top_k", "signature"} <= set(written)
    assert body["thinking"] == {"type": "adaptive"}
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]  # joined


@pytest.mark.parametrize("wire", OTHER_WIRES)
def test_another_wires_extras_are_never_written(wire: str) -> None:
    body = build_request(ANTHROPIC, history(wire))
    sdk_valid("anthropic", body)
    written = set(keys(body))
    assert not written & {"cache_control", "caller", "citations", "top_k", "signature",
                          "thinking", "same_turn"}
    assert body["system"] == "Be brief."
    assert (body["max_tokens"], body["temperature"]) == (64, 0.5)  # uniform options stay
    assert body["messages"][1]["content"] == [
        {"type": "text", "text": "<think>\nHmm.\n</think>"},  # unverifiable here: text
        {"type": "text", "text": "Calling."},
        {"type": "tool_use", "id": "t1", "name": "f", "input": {"a": 1}},
    ]
    # another wire's same_turn mark is its bookkeeping, not written; the tool result
    # and the user's words after it are one user turn here, as the turns alternate
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert [part["type"] for part in body["messages"][2]["content"]] == ["tool_result", "text"]


@pytest.mark.parametrize("wire", OTHER_WIRES)
def test_another_wires_bookkeeping_and_format_extras_stay_there(wire: str) -> None:
    bookkeeping = {"snake_case": True, "schema_field": "parameters", "generated_id": True,
                   "absent": ["x"], "max_tokens_field": "max_completion_tokens",
                   "base64": True, "response_object": {"id": "r"}}
    request = Request(
        messages=[UserMessage([TextBlock("q", metadata=Extras(wire, bookkeeping))],
                              metadata=Extras(wire, bookkeeping))],
        model="claude-x",
        json_output=JsonSchemaOutput("A", {"type": "object"},
                                     metadata=Extras(wire, {"strict": True})),
        options=Extras(wire, {**bookkeeping, "max_tokens": 8, "logprobs": True}))
    body = build_request(ANTHROPIC, request)
    sdk_valid("anthropic", body)
    assert not set(keys(body)) & {*bookkeeping, "strict", "logprobs"}
    assert body["output_config"] == {"format": {"type": "json_schema",
                                                "schema": {"type": "object"}}}


@pytest.mark.parametrize("wire", OTHER_WIRES)
def test_what_only_another_wire_can_hold_is_dropped_or_refused(wire: str) -> None:
    tool = Extras(wire, {"type": "web_search_preview"})
    with pytest.warns(LossyTranslationWarning, match=f"'web_search_preview' tool read from {wire}"):
        body = build_request(ANTHROPIC, [UserMessage("q")], model="m", max_tokens=8, tools=[tool])
    assert "tools" not in body
    part = RawBlock("input_audio", {"type": "input_audio"}, metadata=Extras(wire))
    with pytest.raises(UnsupportedFeatureError) as refused:
        build_request(ANTHROPIC, [UserMessage([part])], model="m", max_tokens=8)
    assert "input_audio" in refused.value.feature and refused.value.hint
    own = RawBlock("document", {"type": "document", "source": {"type": "file",
                                                                "file_id": "f"}},
                   metadata=Extras(ANTHROPIC))
    body = build_request(ANTHROPIC, [UserMessage([own])], model="m", max_tokens=8)
    assert body["messages"][0]["content"] == [own.data]


# ---------------------------------------------------------------- typed refusals


def _build(messages: list[Any], **options: Any) -> Callable[[], Any]:
    options.setdefault("max_tokens", 8)
    return lambda: build_request(ANTHROPIC, messages, model="m", **options)


REFUSALS = [
    ("seed", _build([UserMessage("q")], seed=1)),
    ("audio", _build([UserMessage("q")], audio={"voice": "alloy"})),
    ("image/bmp", _build([UserMessage([DataBlock(source=Base64Source(b"x", "image/bmp"))])])),
    ("audio/wav", _build([UserMessage([DataBlock(source=Base64Source(b"x", "audio/wav"))])])),
    ("by URL", _build([UserMessage([DataBlock(source=URLSource("https://x/a.txt",
                                                                "text/plain"))])])),
    ("UTF-8", _build([UserMessage([DataBlock(source=Base64Source(b"\xff", "text/plain"))])])),
    ("tool result", _build([UserMessage("q"), AssistantMessage([ToolResultBlock("t")],
                                                               provider=ANTHROPIC)])),
    ("include_thoughts", _build([UserMessage("q")], include_thoughts=True)),
    ("thinking object", _build([UserMessage("q")], thinking_budget=10,
                               thinking={"type": "adaptive"})),
    ("tool_choice", _build([UserMessage("q")], json_output=True, tools=[Tool("f")],
                           tool_choice="f")),
    ("thinking on", _build([UserMessage("q")], json_output=True, thinking_budget=1024)),
]


@pytest.mark.parametrize(("feature", "call"), REFUSALS, ids=[f for f, _ in REFUSALS])
def test_what_the_wire_cannot_take_is_an_unsupported_feature(
        feature: str, call: Callable[[], Any]) -> None:
    with pytest.raises(UnsupportedFeatureError) as refused:
        call()
    error = refused.value
    assert isinstance(error, ValueError)  # what the builders always raised
    assert error.wire == ANTHROPIC and error.hint
    assert feature in error.feature
    assert str(error).startswith(f"anthropic cannot take {error.feature}: ")


@pytest.mark.parametrize(("body", "where"), [
    ({"messages": "hi"}, "messages"),
    ({"messages": [{"role": "user", "content": "a"}, {"role": "robot"}]}, "messages[1]"),
    ({"messages": [{"role": "system", "content": [{"type": "image"}]}]},
     "messages[0].content"),
    ({"messages": [], "tools": [{"name": "f"}, 3]}, "tools[1]"),
])
def test_a_body_that_is_not_anthropics_is_an_invalid_body(body: dict[str, Any],
                                                          where: str) -> None:
    with pytest.raises(InvalidBodyError) as invalid:
        parse_request(ANTHROPIC, body)
    assert (invalid.value.wire, invalid.value.where) == (ANTHROPIC, where)

