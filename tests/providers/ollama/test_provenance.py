"""Ollama's request codec and provenance: what ``parse_request`` keeps is
Ollama's (:class:`~streamkit.model.extras.Extras` of ``ollama``), and what another
wire's reader kept never reaches an Ollama body; the package's record
(``WIRE``) and its typed refusals.

Bodies built here are checked against the ``ollama`` package and the server's
Go structs (``support.request_oracles.ollama``), as in ``test_request.py``.
"""

from __future__ import annotations

import base64
import copy
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.recordings import FIXTURES
from support.request_oracles import sdk_valid

from streamkit import (
    Base64Source,
    DataBlock,
    InvalidBodyError,
    LossyTranslationWarning,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    UnsupportedFeatureError,
    URLSource,
)
from streamkit.conversation.messages import (
    AssistantMessage,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    Message,
    SystemMessage,
    UserMessage,
)
from streamkit.conversation.request import JsonSchemaOutput, Request
from streamkit.model.extras import Extras, origin_of
from streamkit.model.ids import id_factory
from streamkit.providers import ollama
from streamkit.providers.codec import build_request, parse_request
from streamkit.providers.ollama.stream import OllamaParser
from streamkit.providers.ollama.wire import FINISH_REASONS, USAGE_FIELDS
from streamkit.providers.wire_format import wire_format

OLLAMA = FIXTURES / "ollama"
BODIES = [*sorted((OLLAMA / "requests").glob("*.json")),
          *sorted((OLLAMA / "conversations").glob("*/turn*.request.json"))]
PNG = base64.b64decode(json.loads((OLLAMA / "requests" / "docs-chat-with-images.json").read_text())
                       ["messages"][0]["images"][0])
OTHER_WIRES = ("openai-chat", "openai-responses", "anthropic", "gemini")


def name(path: Path) -> str:
    return str(path.relative_to(OLLAMA))


def load(path: Path) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(path.read_text())
    return body


def kept_metadata(request: Request) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every metadata dict a read request holds, with where it is."""
    yield "options", request.options
    if isinstance(request.json_output, JsonSchemaOutput):
        yield "json_output", request.json_output.metadata
    for index, tool in enumerate(request.tools or ()):
        yield f"tools[{index}]", tool if isinstance(tool, dict) else tool.metadata
    for index, message in enumerate(request.messages):
        yield f"messages[{index}]", message.metadata
        results = message.content if isinstance(message, FunctionExecutionResultMessage) else []
        for number, result in enumerate(results):
            yield f"messages[{index}].content[{number}]", result.metadata
            if not isinstance(result.content, str):
                for block in result.content:
                    yield f"messages[{index}].content[{number}].{block.id}", block.metadata
        content = getattr(message, "content", "")
        if isinstance(message, (UserMessage, AssistantMessage)) and not isinstance(content, str):
            for block in message.blocks:
                yield f"messages[{index}].{block.id}", block.metadata


# ---------------------------------------------------------------- reading: everything is Ollama's


@pytest.mark.parametrize("path", BODIES, ids=name)
def test_parse_request_tags_everything_it_keeps(path: Path) -> None:
    request = parse_request("ollama", load(path))
    places = dict(kept_metadata(request))
    assert len(places) >= len(request.messages) + 1
    untagged = {where: metadata for where, metadata in places.items()
                if origin_of(metadata) != "ollama"}
    assert untagged == {}


def test_the_records_live_inside_ollamas_extras() -> None:
    """``absent`` and ``generated_id`` are Ollama's own bookkeeping: kept
    where another wire's builder cannot see them."""
    request = parse_request("ollama", load(OLLAMA / "requests"
                                           / "docs-tool-calling-parallel-results.json"))
    assistant = request.messages[1]
    assert isinstance(assistant, AssistantMessage)
    assert assistant.metadata == {"absent": ["content"]}
    assert origin_of(assistant.metadata) == "ollama"
    call = assistant.blocks[0]
    assert isinstance(call, ToolCallBlock) and call.metadata["generated_id"] is True
    assert origin_of(call.metadata) == "ollama"
    assert call.to_dict()["origin"] == "ollama"


@pytest.mark.parametrize("path", BODIES, ids=name)
def test_two_reads_of_a_body_are_equal_with_the_default_ids(path: Path) -> None:
    with id_factory(None):
        first = parse_request("ollama", load(path))
        second = parse_request("ollama", load(path))
    assert first == second
    assert build_request("ollama", first) == load(path)


def test_made_up_ids_are_derived_from_the_body() -> None:
    """The documented history has a call without id and a result without
    ``tool_call_id``: one made-up id links them, the same on every read, and
    another body makes up another."""
    path = OLLAMA / "requests" / "docs-chat-with-history-tools.json"
    with id_factory(None):
        request = parse_request("ollama", load(path))
        other = load(path)
        other["messages"][0]["content"] = "what is the weather in Paris?"
        elsewhere = parse_request("ollama", other)
    (call,) = request.messages[1].blocks  # type: ignore[union-attr]
    (result,) = request.messages[2].content  # type: ignore[union-attr]
    assert isinstance(call, ToolCallBlock) and re.match(r"^call_[0-9a-f]{24}$", call.id)
    assert result.call_id == call.id  # type: ignore[union-attr]
    assert elsewhere.messages[1].blocks[0].id != call.id  # type: ignore[union-attr]


# ---------------------------------------------------------------- writing: only Ollama's


def other_wires_history(wire: str) -> list[Message]:
    """A history whose every metadata was read by ``wire``'s reader, holding
    fields and records that would change an Ollama body if written: a
    ``content`` marked absent, an unknown key, a made-up id mark, a ``base64``
    spelling of the same bytes, an ``index`` for the call's function."""
    extras = {"absent": ["content", "tool_name", "tool_call_id"], "cache_control": {"t": 1},
              "snake_case": True, "name": "someone", "thought": True}
    spelling = base64.b64encode(PNG).decode()
    spelling = spelling[:8] + "\n" + spelling[8:]  # decodes to the same bytes
    call = ToolCallBlock("call_1", "get_weather", '{"city": "Paris"}',
                         metadata=Extras(wire, {**extras, "generated_id": True, "index": 7}))
    return [
        SystemMessage("Be brief.", metadata=Extras(wire, extras)),
        UserMessage([TextBlock("Weather and this image?", metadata=Extras(wire, extras)),
                     DataBlock(media_type="image/png", source=Base64Source(PNG),
                               metadata=Extras(wire, {**extras, "base64": spelling}))],
                    metadata=Extras(wire, extras)),
        AssistantMessage([ThinkingBlock("Look it up.", metadata=Extras(wire, extras)),
                          TextBlock("Checking.", metadata=Extras(wire, extras)), call],
                         provider=None, metadata=Extras(wire, extras)),
        FunctionExecutionResultMessage(
            [FunctionExecutionResult("call_1", "18C", metadata=Extras(wire, extras))],
            metadata=Extras(wire, extras)),
    ]


@pytest.mark.parametrize("wire", OTHER_WIRES)
def test_another_wires_extras_never_reach_the_body(wire: str) -> None:
    options = Extras(wire, {"temperature": 0.2, "max_tokens": 100, "top_k": 5,
                            "metadata": {"user_id": "u"}, "service_tier": "auto",
                            "generationConfig": {"topK": 3}})
    body = build_request("ollama", Request(messages=other_wires_history(wire), model="qwen3",
                                           options=options))
    sdk_valid("ollama", body)
    system, user, assistant, result = body["messages"]
    assert system == {"role": "system", "content": "Be brief."}
    assert user == {"role": "user", "content": "Weather and this image?",
                    "images": [base64.b64encode(PNG).decode()]}
    assert assistant == {"role": "assistant", "content": "Checking.", "thinking": "Look it up.",
                         "tool_calls": [{"id": "call_1", "function": {
                             "name": "get_weather", "arguments": {"city": "Paris"}}}]}
    assert result == {"role": "tool", "content": "18C", "tool_name": "get_weather",
                      "tool_call_id": "call_1"}
    assert body["options"] == {"temperature": 0.2, "num_predict": 100}
    assert set(body) == {"model", "messages", "options"}


def test_ollamas_own_extras_and_hand_set_metadata_are_written() -> None:
    """The same history with Ollama's extras, then with plain dicts: both are
    written (the records as records, never as fields)."""
    for tag in (lambda fields: Extras("ollama", fields), dict):
        call = ToolCallBlock("call_1", "f", "{}", metadata=tag({"generated_id": True,
                                                                "index": 0}))
        messages: list[Message] = [
            UserMessage("hi", metadata=tag({"absent": ["content"]})),
            AssistantMessage([call], metadata=tag({})),
            FunctionExecutionResultMessage([FunctionExecutionResult("call_1", "ok")]),
        ]
        body = build_request("ollama", Request(messages=messages, model="m",
                                               options=tag({"keep_alive": "5m", "top_k": 2})))
        sdk_valid("ollama", body)
        assert body["messages"] == [
            {"role": "user"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"function": {"index": 0, "name": "f", "arguments": {}}}]},
            {"role": "tool", "content": "ok", "tool_name": "f"}]
        assert (body["keep_alive"], body["options"]) == ("5m", {"top_k": 2})


def test_a_request_read_from_ollama_goes_back_whole_but_only_its_uniform_options_elsewhere(
) -> None:
    path = OLLAMA / "conversations" / "thinking-tool-ids-image-result-stream"
    request = parse_request("ollama", load(path / "turn1.request.json"))
    assert request.options == {"temperature": 0.2, "num_ctx": 8192, "think": True,
                               "keep_alive": "10m"}
    assert origin_of(request.options) == "ollama"
    assert build_request("ollama", request) == load(path / "turn1.request.json")
    moved = copy.copy(request)
    moved.options = Extras("gemini", request.options)  # as if Gemini's reader had kept them
    body = build_request("ollama", moved)
    assert body["options"] == {"temperature": 0.2}
    assert "think" not in body and "keep_alive" not in body


def test_another_providers_server_calls_are_not_sent_as_ours() -> None:
    """A call the other provider ran itself (``metadata["server"]``) has no
    result Ollama could take: it is left out, the client call stays."""
    turn = AssistantMessage([
        ToolCallBlock("srvtoolu_1", "web_search", '{"query": "x"}', metadata={"server": True}),
        ToolCallBlock("toolu_2", "get_weather", '{"city": "Paris"}'),
    ], provider="anthropic")
    body = build_request("ollama", [UserMessage("go"), turn], model="m")
    assert [c["function"]["name"] for c in body["messages"][1]["tool_calls"]] == ["get_weather"]


def test_another_wires_tool_entry_is_dropped_with_a_warning_and_ours_goes_as_it_is() -> None:
    entry = {"type": "web_search_20250305", "name": "web_search"}
    with pytest.warns(LossyTranslationWarning, match="ollama cannot hold the "
                      "'web_search_20250305' tool read from anthropic"):
        body = build_request("ollama", Request(messages=[UserMessage("x")], model="m",
                                               tools=[Extras("anthropic", entry)]))
    assert "tools" not in body
    function = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
    for given in (function, Extras("ollama", function)):
        assert build_request("ollama", Request(messages=[], model="m", tools=[given]))[
            "tools"] == [function]


# ---------------------------------------------------------------- typed refusals


@pytest.mark.parametrize("kwargs, feature", [
    ({"audio": {"voice": "alloy", "format": "wav"}}, "audio"),
    ({"reasoning_effort": "extreme"}, "reasoning_effort"),
    ({"messages": [UserMessage([DataBlock(media_type="application/pdf",
                                          source=Base64Source(b"%PDF"))])]}, "application/pdf"),
    ({"messages": [UserMessage([DataBlock(source=URLSource("https://x.test/a.png",
                                                           "image/png"))])]}, "image URL"),
])
def test_what_ollama_cannot_take_is_an_unsupported_feature(kwargs: dict[str, Any],
                                                            feature: str) -> None:
    messages = kwargs.pop("messages", [UserMessage("hi")])
    with pytest.raises(UnsupportedFeatureError) as caught:
        build_request("ollama", messages, model="m", **kwargs)
    assert caught.value.wire == "ollama" and feature in caught.value.feature
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize("body, where", [
    ({"model": "m", "messages": {"role": "user"}}, "messages"),
    ({"model": "m", "messages": [{"role": "user", "content": "x"}, "hello"]}, "messages[1]"),
])
def test_a_body_of_the_wrong_shape_is_an_invalid_body(body: dict[str, Any], where: str) -> None:
    with pytest.raises(InvalidBodyError) as caught:
        parse_request("ollama", body)
    assert (caught.value.wire, caught.value.where) == ("ollama", where)


# ---------------------------------------------------------------- the record


def test_the_wire_record_names_the_packages_verbs() -> None:
    record = wire_format("ollama")
    assert record is ollama.WIRE and record.name == "ollama" and not record.dialects
    assert record.parser is OllamaParser
    assert record.finish_reasons is FINISH_REASONS and record.usage_fields is USAGE_FIELDS
    assert record.endpoint("http://localhost:11434/", "qwen3", stream=True) == (
        "http://localhost:11434/api/chat")
    assert record.model_in_body
    body = load(OLLAMA / "requests" / "docs-chat-with-tools.json")
    assert record.build_request(record.parse_request(body, None), None) == body
    answer = load(OLLAMA / "responses" / "docs-chat-with-tools.json")
    assert record.parse_response(answer, None).tool_calls[0].name == "get_current_weather"
    package = Path(ollama.__file__).parent
    for verb in ("stream", "request", "response", "content", "wire", "http"):
        assert (package / f"{verb}.py").is_file()
