"""Ollama's native /api/chat request body: build_request / parse_request.

There is no recorded native Ollama exchange (the conversations MANIFEST), so
the bodies are Ollama's own documentation examples and hand-written exchanges
in the documented shape (``fixtures/ollama/REQUESTS.md``). Every body built
here is checked against the ``ollama`` package, built the way its
``Client.chat`` builds a request, and against the fields of the server's Go
structs (``api/types.go``): ``support.request_oracles.ollama``.

Every recorded request rebuilt exactly and valid for the SDK is a contract of
``providers/test_wire_contracts.py``, written once for every wire.
"""

from __future__ import annotations

import base64
import copy
import json
from pathlib import Path
from typing import Any, Literal, NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from support.recordings import FIXTURES, body
from support.request_oracles import sdk_valid
from support.request_oracles.ollama import go_decoded

import streamkit
from streamkit import (
    Base64Source,
    ChatResponse,
    DataBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
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
from streamkit.conversation.request import UNIFORM_OPTIONS, JsonSchemaOutput, Request
from streamkit.conversation.tools import Tool, tool
from streamkit.providers.codec import build_request, parse_request, parse_response
from streamkit.providers.ollama.content import ABSENT, GENERATED_ID
from streamkit.providers.ollama.tools import ollama_schema

OLLAMA = FIXTURES / "ollama"
REQUESTS = sorted((OLLAMA / "requests").glob("*.json"))
CONVERSATIONS = sorted(path for path in (OLLAMA / "conversations").iterdir() if path.is_dir())
PNG = base64.b64decode(json.loads((OLLAMA / "requests" / "docs-chat-with-images.json").read_text())
                       ["messages"][0]["images"][0])


def load(path: Path) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(path.read_text())
    return result


def build(messages: list[Message] | Request, **kwargs: Any) -> dict[str, Any]:
    """A body built for Ollama and checked against the oracles (a Request
    brings its own model: a ``model=`` given here would win over it)."""
    if not isinstance(messages, Request):
        kwargs.setdefault("model", "qwen3")
    wire = build_request("ollama", messages, **kwargs)
    sdk_valid("ollama", wire)
    return wire


# ---------------------------------------------------------------- round trip



def test_documented_history_with_tools_reads_as_a_tool_loop() -> None:
    """docs "With history, with tools": the assistant call and the tool result
    are linked, though neither carries an id."""
    request = parse_request("ollama", load(OLLAMA / "requests"
                                           / "docs-chat-with-history-tools.json"))
    user, assistant, results = request.messages
    assert isinstance(user, UserMessage) and user.content == "what is the weather in Toronto?"
    assert isinstance(assistant, AssistantMessage) and assistant.provider == "ollama"
    (call,) = assistant.blocks
    assert isinstance(call, ToolCallBlock) and call.arguments() == {"city": "Toronto"}
    assert call.metadata == {GENERATED_ID: True}
    assert isinstance(results, FunctionExecutionResultMessage)
    (result,) = results.content
    assert (result.call_id, result.name, result.content) == (call.id, "get_weather",
                                                             "11 degrees celsius")
    assert request.stream is False and request.tools is not None
    (weather,) = request.tools
    assert isinstance(weather, Tool) and weather.name == "get_weather"
    assert weather.parameters["required"] == ["city"]


def test_documented_parallel_results_answer_the_calls_in_order() -> None:
    """tool-calling.mdx: four results with only ``tool_name`` answer the four
    calls (two per name) in order; the assistant message has no ``content``."""
    request = parse_request("ollama", load(OLLAMA / "requests"
                                           / "docs-tool-calling-parallel-results.json"))
    _, assistant, results = request.messages
    assert isinstance(assistant, AssistantMessage) and isinstance(
        results, FunctionExecutionResultMessage)
    assert assistant.metadata == {ABSENT: ["content"]}
    calls = [b for b in assistant.blocks if isinstance(b, ToolCallBlock)]
    assert [c.metadata for c in calls] == [
        {"index": i, "type": "function", GENERATED_ID: True} for i in range(4)]
    answered = {r.call_id: r.text for r in results.content}
    assert {c.arguments()["city"] + "/" + c.name: answered[c.id] for c in calls} == {
        "New York/get_temperature": "22°C", "New York/get_conditions": "Partly cloudy",
        "London/get_temperature": "15°C", "London/get_conditions": "Rainy"}


def test_documented_options_map_to_uniform_names() -> None:
    request = parse_request("ollama", load(OLLAMA / "requests" / "docs-chat-reproducible.json"))
    assert request.options == {"seed": 101, "temperature": 0}
    request = parse_request("ollama", load(OLLAMA / "requests" / "docs-unload-model.json"))
    assert request.messages == [] and request.options == {"keep_alive": 0}
    request = parse_request("ollama", load(OLLAMA / "requests" / "docs-thinking.json"))
    assert request.options == {"think": True} and request.stream is False
    request = parse_request("ollama", load(OLLAMA / "requests"
                                           / "docs-structured-outputs-json.json"))
    assert request.json_output is True
    request = parse_request("ollama", load(OLLAMA / "requests"
                                           / "docs-chat-structured-outputs.json"))
    assert isinstance(request.json_output, JsonSchemaOutput)
    assert request.json_output.schema["required"] == ["age", "available"]


def test_documented_image_is_a_png_data_block() -> None:
    request = parse_request("ollama", load(OLLAMA / "requests" / "docs-chat-with-images.json"))
    (user,) = request.messages
    assert isinstance(user, UserMessage)
    text, image = user.blocks
    assert isinstance(text, TextBlock) and text.text == "what is in this image?"
    assert isinstance(image, DataBlock) and image.media_type == "image/png"
    assert image.data.startswith(b"\x89PNG") and image.metadata == {}


# ---------------------------------------------------------------- turn 2


class Exchange(NamedTuple):
    path: Path
    turn1_request: dict[str, Any]
    turn1_response: ChatResponse
    turn2_request: dict[str, Any]


def exchange(path: Path) -> Exchange:
    streamed = path / "turn1.response.jsonl"
    if streamed.exists():
        _, response = streamkit.replay(body(streamed), "ollama")
    else:
        response = parse_response("ollama", (path / "turn1.response.json").read_bytes())
    return Exchange(path, load(path / "turn1.request.json"), response,
                    load(path / "turn2.request.json"))


def turn2(case: Exchange) -> dict[str, Any]:
    """Turn 2 built from turn 1's history, the parsed turn-1 response and the
    inputs that follow the assistant turn in turn2.request.json."""
    first = parse_request("ollama", case.turn1_request)
    second = parse_request("ollama", case.turn2_request)
    tail = second.messages[len(first.messages) + 1:]
    history: list[Message] = [*first.messages, case.turn1_response, *tail]
    return build(Request(messages=history, model=second.model, tools=second.tools,
                         json_output=second.json_output, stream=second.stream,
                         options=second.options))


# Each difference is what the recording client did (fixtures/ollama/REQUESTS.md).
def sent_made_up_call_ids(built: dict[str, Any], expected: dict[str, Any], index: int) -> None:
    """The documented response had no call ids: the stream parser made them up,
    and streamkit sends them back (servers that know no ids ignore the field)."""
    for call in built["messages"][index]["tool_calls"]:
        assert call.pop("id").startswith("call_")


def documentation_client_shape(built: dict[str, Any], expected: dict[str, Any],
                               index: int) -> None:
    """tool-calling.mdx writes the assistant message without ``content``, adds
    ``"type": "function"`` to each call (no such field in api.ToolCall) and
    drops the call ids the server sent."""
    message = built["messages"][index]
    assert message.pop("content") == ""
    for call in message["tool_calls"]:
        assert call.pop("id").startswith("call_") and "type" not in call
    for call in expected["messages"][index]["tool_calls"]:
        assert call.pop("type") == "function"


ARTIFACTS = {
    "docs-tool-history": sent_made_up_call_ids,
    "docs-parallel-tool-calls-stream": documentation_client_shape,
}


@pytest.mark.parametrize("path", CONVERSATIONS, ids=lambda p: p.name)
def test_turn2_is_rebuilt_from_turn1(path: Path) -> None:
    case = exchange(path)
    built = turn2(case)
    expected = copy.deepcopy(case.turn2_request)
    artifact = ARTIFACTS.get(path.name)
    if artifact is not None:
        before = copy.deepcopy(built)
        artifact(built, expected, len(case.turn1_request["messages"]))
        assert built != before, "the named difference is gone: drop it from ARTIFACTS"
    assert built == expected


def test_turn2_thinking_and_image_result_keep_their_fields() -> None:
    """The hand-written exchange with no artifact: what turn 1 streamed comes
    back field by field (checked by name, not only by equality)."""
    case = exchange(OLLAMA / "conversations" / "thinking-tool-ids-image-result-stream")
    assistant, first, second = turn2(case)["messages"][2:]
    assert assistant["thinking"] == "The user wants the temperature and a plot."
    assert assistant["content"] == "Let me check."
    assert [c["id"] for c in assistant["tool_calls"]] == ["call_a1b2c3d4", "call_e5f6g7h8"]
    assert [c["function"]["index"] for c in assistant["tool_calls"]] == [0, 1]
    assert first["tool_call_id"] == "call_a1b2c3d4" and first["tool_name"] == "get_temperature"
    assert base64.b64decode(second["images"][0]).startswith(b"\x89PNG")


# ---------------------------------------------------------------- hand-built


def test_system_user_and_assistant_text() -> None:
    wire = build([SystemMessage("Be brief."), UserMessage("Hi"),
                  AssistantMessage("Hello!", provider="ollama"), UserMessage("Bye")])
    assert wire["messages"] == [
        {"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello!"}, {"role": "user", "content": "Bye"}]
    assert wire["model"] == "qwen3" and wire["stream"] is True


def test_user_images_by_bytes_and_data_url() -> None:
    data_url = "data:image/png;base64," + base64.b64encode(PNG).decode()
    wire = build([UserMessage([TextBlock("Compare"), DataBlock(media_type="image/png",
                                                               source=Base64Source(PNG)),
                               TextBlock("and"), DataBlock(source=URLSource(data_url))])])
    (message,) = wire["messages"]
    assert message["content"] == "Compare\nand"
    assert [base64.b64decode(image) for image in message["images"]] == [PNG, PNG]
    assert not any(image.startswith("data:") for image in message["images"])


@pytest.mark.parametrize("block, error", [
    (DataBlock(source=URLSource("https://example.com/cat.png", "image/png")), "fetch"),
    (DataBlock(media_type="audio/wav", source=Base64Source(b"RIFF")), "images only"),
    (DataBlock(media_type="application/pdf", source=Base64Source(b"%PDF")), "images only"),
])
def test_user_content_ollama_cannot_take_is_refused(block: DataBlock, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        build_request("ollama", [UserMessage([TextBlock("look"), block])], model="m")


def test_tool_loop_messages() -> None:
    """Parallel calls, results with text, an image and is_error (no wire field:
    the text says it), names filled from the calls they answer."""
    calls = [ToolCallBlock("call_1", "get_weather", '{"city": "Paris"}'),
             ToolCallBlock("call_2", "plot", '{"city": "Paris", "days": 3}')]
    wire = build([
        UserMessage("Weather in Paris?"),
        AssistantMessage([ThinkingBlock("Two tools."), *calls], provider="ollama"),
        FunctionExecutionResultMessage([
            FunctionExecutionResult("call_1", "tool 'get_weather' raised KeyError: 'Paris'",
                                    is_error=True),
            FunctionExecutionResult("call_2", [TextBlock("Plot:"), DataBlock(
                media_type="image/png", source=Base64Source(PNG))], name="plot"),
        ]),
    ])
    _, assistant, error, plot = wire["messages"]
    assert assistant == {"role": "assistant", "content": "", "thinking": "Two tools.",
                         "tool_calls": [
                             {"id": "call_1", "function": {"name": "get_weather",
                                                           "arguments": {"city": "Paris"}}},
                             {"id": "call_2", "function": {"name": "plot", "arguments": {
                                 "city": "Paris", "days": 3}}}]}
    assert error == {"role": "tool", "content": "tool 'get_weather' raised KeyError: 'Paris'",
                     "tool_name": "get_weather", "tool_call_id": "call_1"}
    assert plot["content"] == "Plot:" and base64.b64decode(plot["images"][0]) == PNG


def test_made_up_call_ids_are_not_sent() -> None:
    call = ToolCallBlock("call_x", "f", "{}", metadata={GENERATED_ID: True})
    wire = build([UserMessage("go"), AssistantMessage([call], provider="ollama"),
                  FunctionExecutionResultMessage([FunctionExecutionResult("call_x", "ok")])])
    assert wire["messages"][1]["tool_calls"] == [{"function": {"name": "f", "arguments": {}}}]
    assert wire["messages"][2] == {"role": "tool", "content": "ok", "tool_name": "f"}


def test_cut_off_or_invalid_arguments_go_as_an_empty_object() -> None:
    """Nothing made up from a cut-off call (no ``{"city": "Par"}``): ``{}``, the
    raw text staying in the block."""
    cut = ToolCallBlock("call_1", "f", '{"city": "Par', incomplete=True)
    invalid = ToolCallBlock("call_2", "f", '{"city": Paris}')
    wire = build([UserMessage("go"), AssistantMessage([cut, invalid], provider="ollama")])
    assert [c["function"]["arguments"] for c in wire["messages"][1]["tool_calls"]] == [{}, {}]
    assert cut.input == '{"city": "Par'


def test_tools_from_functions_keep_nested_models_for_the_server() -> None:
    """Ollama's server reads properties into a struct without $ref, const or
    oneOf: nested models are inlined so the model sees their fields."""

    class Address(BaseModel):
        street: str
        city: str

    def ship(to: Address, speed: Literal["express"], note: str | None = None) -> str:
        """Ship a parcel."""
        return "ok"

    made = tool(ship)
    assert made.parameters["properties"]["to"] == {"$ref": "#/$defs/Address"}
    wire = build([UserMessage("ship it")], tools=[made])
    (entry,) = wire["tools"]
    assert entry["type"] == "function" and entry["function"]["description"] == "Ship a parcel."
    kept = go_decoded(entry["function"]["parameters"])
    assert kept["properties"]["to"] == {"type": "object", "required": ["street", "city"],
                                        "properties": {"street": {"type": "string"},
                                                       "city": {"type": "string"}}}
    assert kept["properties"]["speed"] == {"type": "string", "enum": ["express"]}
    assert kept["properties"]["note"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert "$defs" not in entry["function"]["parameters"]


def test_recursive_model_keeps_its_defs() -> None:
    class Node(BaseModel):
        value: int
        children: list[Node] = []

    def walk(tree: Node) -> int:
        """Walk a tree."""
        return tree.value

    parameters = build([UserMessage("walk")], tools=[tool(walk)])["tools"][0]["function"][
        "parameters"]
    assert parameters["properties"]["tree"]["properties"]["children"]["items"] == {
        "$ref": "#/$defs/Node"}
    assert "Node" in parameters["$defs"]


def test_a_body_schema_the_encoder_would_rewrite_stays_a_dict() -> None:
    parameters = {"type": "object", "properties": {"x": {"const": 1}}}
    entry = {"type": "function", "function": {"name": "f", "parameters": parameters}}
    request = parse_request("ollama", {"model": "m", "messages": [], "tools": [entry]})
    assert request.tools == [entry]
    assert ollama_schema(parameters)["properties"]["x"] == {"enum": [1]}


@pytest.mark.parametrize("choice, names", [
    (None, ["a", "b"]), ("auto", ["a", "b"]), ("required", ["a", "b"]), ("none", None),
    ("b", ["b"]),
])
def test_tool_choice(choice: str | None, names: list[str] | None) -> None:
    """No tool_choice field: auto/required send the tools, none sends none, a
    name sends only that tool."""

    def a(x: int) -> int:
        """A."""
        return x

    def b(y: str) -> str:
        """B."""
        return y

    wire = build([UserMessage("go")], tools=[a, b], tool_choice=choice)
    assert "tool_choice" not in wire
    assert ([t["function"]["name"] for t in wire["tools"]] if "tools" in wire else None) == names


def test_tool_choice_naming_an_unknown_tool_is_an_error() -> None:
    with pytest.raises(ValueError, match="'c'"):
        build_request("ollama", [UserMessage("go")], model="m", tools=[{"type": "function",
                      "function": {"name": "a", "parameters": {"type": "object"}}}],
                      tool_choice="c")


def test_structured_output() -> None:
    class Answer(BaseModel):
        animal: str
        legs: int

    assert build([UserMessage("json please")], json_output=True)["format"] == "json"
    schema = build([UserMessage("answer")], json_output=Answer)["format"]
    assert schema == JsonSchemaOutput.from_model(Answer).schema
    assert schema["required"] == ["animal", "legs"] and schema["additionalProperties"] is False
    raw = {"type": "object", "properties": {"a": {"type": "integer"}}}
    assert build([UserMessage("x")], json_output=raw)["format"] == raw


@pytest.mark.parametrize("option, value, where, wire_value", [
    ("temperature", 0.3, ("options", "temperature"), 0.3),
    ("top_p", 0.9, ("options", "top_p"), 0.9),
    ("max_tokens", 128, ("options", "num_predict"), 128),
    ("stop", ["\n\n", "User:"], ("options", "stop"), ["\n\n", "User:"]),
    ("stop", "User:", ("options", "stop"), ["User:"]),
    ("seed", 7, ("options", "seed"), 7),
    ("reasoning_effort", "high", ("think",), "high"),
    ("reasoning_effort", "minimal", ("think",), "low"),
    ("reasoning_effort", "none", ("think",), False),
    ("reasoning_effort", "xhigh", ("think",), "max"),
    ("thinking_budget", 2048, ("think",), True),
    ("thinking_budget", 0, ("think",), False),
    ("top_k", 20, ("options", "top_k"), 20),
    ("frequency_penalty", 0.5, ("options", "frequency_penalty"), 0.5),
    ("num_ctx", 8192, ("options", "num_ctx"), 8192),
    ("keep_alive", "10m", ("keep_alive",), "10m"),
    ("think", True, ("think",), True),
    ("truncate", False, ("truncate",), False),
    ("logprobs", True, ("logprobs",), True),
])
def test_each_option(option: str, value: Any, where: tuple[str, ...], wire_value: Any) -> None:
    wire = build([UserMessage("hi")], **{option: value})
    found: Any = wire
    for key in where:
        found = found[key]
    assert found == wire_value


@pytest.mark.parametrize("option", ["include_usage", "include_thoughts", "parallel_tool_calls"])
def test_uniform_options_without_an_ollama_switch_are_dropped(option: str) -> None:
    wire = build([UserMessage("hi")], **{option: True})
    assert wire == {"model": "qwen3", "messages": [{"role": "user", "content": "hi"}],
                    "stream": True}


def test_every_uniform_option_is_handled() -> None:
    """Each uniform option either maps, is dropped (no switch) or is refused:
    none reaches the body under its uniform name."""
    values: dict[str, Any] = {"temperature": 1.0, "top_p": 1.0, "max_tokens": 1, "stop": ["x"],
                              "seed": 1, "reasoning_effort": "low", "thinking_budget": 1,
                              "include_thoughts": True, "include_usage": True,
                              "parallel_tool_calls": False, "foreign_thinking": "drop",
                              "api_version": "2026-10-21", "prompt_cache_key": "k",
                              "prompt_cache_retention": "24h"}
    assert set(values) | {"audio"} == set(UNIFORM_OPTIONS)
    wire = build([UserMessage("hi")], **values)
    assert not set(wire) & set(UNIFORM_OPTIONS)
    with pytest.raises(ValueError, match="audio"):
        build_request("ollama", [UserMessage("hi")], model="m",
                      audio={"voice": "alloy", "format": "wav"})


def test_stream_flag() -> None:
    assert build([UserMessage("hi")], stream=False)["stream"] is False
    assert "stream" not in build([UserMessage("hi")], stream=None)


def test_unknown_effort_is_refused() -> None:
    with pytest.raises(ValueError, match="reasoning_effort"):
        build_request("ollama", [UserMessage("hi")], model="m", reasoning_effort="extreme")


# ---------------------------------------------------------------- cross-provider


def foreign_turn(provider: str) -> AssistantMessage:
    return AssistantMessage([
        ThinkingBlock("Check the weather.", signature="c2lnbmF0dXJl"),
        ThinkingBlock("", encrypted="ZW5jcnlwdGVk", redacted=True),
        TextBlock("Let me look."),
        RawBlock("server_tool_use", {"type": "server_tool_use", "id": "srv_1"}),
        ToolCallBlock("toolu_01", "get_weather", '{"city": "Paris"}',
                      metadata={"caller": {"type": "direct"}}),
        DataBlock(media_type="audio/wav", source=Base64Source(b"RIFF....WAVE")),
    ], provider=provider)


@pytest.mark.parametrize("provider", ["anthropic", "openai-responses", "gemini", "deepseek",
                                      "bedrock-unknown"])
def test_foreign_turn_keeps_text_calls_and_thinking_as_text(provider: str) -> None:
    wire = build([UserMessage("Weather?"), foreign_turn(provider),
                  FunctionExecutionResultMessage([FunctionExecutionResult("toolu_01", "18C")])])
    assistant = wire["messages"][1]
    assert assistant == {
        "role": "assistant",
        "content": "<think>\nCheck the weather.\n</think>\n\nLet me look.",
        "tool_calls": [{"id": "toolu_01", "function": {"name": "get_weather",
                                                       "arguments": {"city": "Paris"}}}]}
    assert wire["messages"][2] == {"role": "tool", "content": "18C", "tool_name": "get_weather",
                                   "tool_call_id": "toolu_01"}


def test_foreign_thinking_can_be_dropped() -> None:
    wire = build([UserMessage("Weather?"), foreign_turn("anthropic")], foreign_thinking="drop")
    assert wire["messages"][1]["content"] == "Let me look."
    with pytest.raises(ValueError, match="foreign_thinking"):
        build_request("ollama", [UserMessage("x")], model="m", foreign_thinking="keep")


def test_own_and_unattributed_thinking_go_in_the_thinking_field() -> None:
    for provider in ("ollama", None):
        turn = AssistantMessage([ThinkingBlock("Hmm."), TextBlock("Yes.")], provider=provider)
        assert build([UserMessage("?"), turn])["messages"][1] == {
            "role": "assistant", "content": "Yes.", "thinking": "Hmm."}


def test_response_from_another_provider_as_history() -> None:
    """A ChatResponse from another wire format is the assistant turn it stands for."""
    response = ChatResponse(content=[ThinkingBlock("why", signature="sig"), TextBlock("42")],
                            provider="anthropic")
    wire = build([UserMessage("?"), response])
    assert wire["messages"][1] == {"role": "assistant",
                                   "content": "<think>\nwhy\n</think>\n\n42"}


# ---------------------------------------------------------------- property: exact round trip

TEXT = st.text(st.characters(codec="utf-8"), max_size=12)
NAME = st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True)
ARGUMENTS = st.dictionaries(NAME, st.integers() | TEXT | st.booleans() | st.none(), max_size=3)
IMAGES = st.lists(st.binary(min_size=1, max_size=16).map(
    lambda data: base64.b64encode(data).decode()), min_size=1, max_size=2)
CALL = st.fixed_dictionaries(
    {"function": st.fixed_dictionaries({"name": NAME, "arguments": ARGUMENTS},
                                       optional={"index": st.integers(0, 9)})},
    optional={"id": st.from_regex(r"call_[a-z0-9]{8}", fullmatch=True),
              "type": st.just("function")})
SYSTEM = st.fixed_dictionaries({"role": st.just("system"), "content": TEXT})
USER = st.fixed_dictionaries({"role": st.just("user")},
                             optional={"content": TEXT, "images": IMAGES})
ASSISTANT = st.fixed_dictionaries(
    {"role": st.just("assistant")},
    optional={"content": TEXT, "thinking": TEXT, "tool_calls": st.lists(CALL, max_size=3),
              "images": IMAGES})
TOOL = st.fixed_dictionaries(
    {"role": st.just("tool"), "content": TEXT},
    optional={"tool_name": NAME, "tool_call_id": st.from_regex(r"call_[a-z0-9]{8}",
                                                               fullmatch=True),
              "images": IMAGES})
BODY = st.fixed_dictionaries(
    {"model": NAME, "messages": st.lists(st.one_of(SYSTEM, USER, ASSISTANT, TOOL), max_size=6)},
    optional={
        "stream": st.booleans(), "format": st.just("json") | st.just({"type": "object"}),
        "think": st.booleans() | st.sampled_from(["low", "medium", "high", "max"]),
        "keep_alive": st.integers(0, 600) | st.just("5m"),
        "options": st.fixed_dictionaries({}, optional={
            "temperature": st.floats(0, 2), "num_predict": st.integers(1, 100),
            "top_k": st.integers(1, 100), "stop": st.lists(TEXT, max_size=2),
            "num_ctx": st.integers(512, 8192), "seed": st.integers(0, 99)}),
        "tools": st.lists(st.fixed_dictionaries({"type": st.just("function"), "function":
                          st.fixed_dictionaries({"name": NAME, "parameters": st.just(
                              {"type": "object", "properties": {"x": {"type": "string"}}})},
                              optional={"description": TEXT})}), max_size=2),
        "truncate": st.booleans(), "logprobs": st.booleans(),
    })


@settings(max_examples=300, deadline=None)
@given(BODY)
def test_any_documented_body_round_trips(wire: dict[str, Any]) -> None:
    request = parse_request("ollama", copy.deepcopy(wire))
    assert build_request("ollama", request) == wire


def test_a_request_that_does_not_say_stream_is_built_as_the_caller_asks() -> None:
    """A client or a gateway sends a parsed request its own way: ``stream=`` given
    wins, and Ollama, which streams unless told, is told (``"stream": false``);
    a body read and built again without ``stream=`` stays as it was."""
    from streamkit import build_request, parse_request

    body = {"model": "llama3.2", "messages": [{"role": "user", "content": "hi"}]}
    request = parse_request("ollama", body)
    assert request.stream is None
    assert build_request("ollama", request) == body
    assert build_request("ollama", request, stream=False)["stream"] is False
    assert build_request("ollama", request, stream=True) == body  # Ollama's own default
    chat = build_request("openai", request, stream=True, include_usage=True)
    assert chat["stream"] is True and chat["stream_options"] == {"include_usage": True}
    assert "stream" not in build_request("openai", request, stream=False)
