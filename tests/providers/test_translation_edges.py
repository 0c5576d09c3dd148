"""Crossing wires at the edges the request fuzzer found: what a target cannot
hold is said (a :class:`~streamkit.LossyTranslationWarning` naming it) or
refused with a typed error, never dropped or changed silently; a body built
for a target is valid for its SDK's types.

What "kept" means is the translation matrix's (:func:`support.translation_matrix.losses`),
the target's validity its SDK's request types (:mod:`support.request_oracles`),
as ``tests/support/write_fuzzing.py`` checks mutated recordings."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from support.request_oracles import sdk_valid
from support.translation_matrix import essence, losses

import streamkit
from streamkit import (
    AssistantMessage,
    LossyTranslationWarning,
    Tool,
    ToolCallBlock,
    UnsupportedFeatureError,
    UserMessage,
    build_request,
    parse_request,
)

#: Each wire's own vendor name, as a target.
TARGETS = {"openai-chat": "openai", "openai-responses": "openai-responses",
           "anthropic": "anthropic", "gemini": "gemini", "ollama": "ollama"}


def _built(target: str, request: streamkit.Request) -> tuple[dict[str, Any], list[str]]:
    """The body built for ``target`` and the losses it said."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        body = build_request(target, request, model="m")
    said = [str(w.message) for w in caught if issubclass(w.category, LossyTranslationWarning)]
    return body, said


def _kept(request: streamkit.Request, target: str, body: dict[str, Any]) -> list[str]:
    """What of ``request``'s conversation the body lost, read back by ``target``."""
    return losses(essence(request), essence(parse_request(target, body)))


# ---------------------------------------------------------------- tool schemas


_NO_OBJECT_SCHEMAS = [{"type": -1}, {"type": "object", "properties": float("inf")},
                      {"type": "object", "properties": {"x": {"type": 7}}},
                      {"type": "string"}, {"type": "object", "required": "x"}]


@pytest.mark.parametrize("schema", _NO_OBJECT_SCHEMAS)
@pytest.mark.parametrize("field", ["parametersJsonSchema", "parameters_json_schema",
                                   "parameters"])
def test_a_gemini_declaration_of_no_object_schema_stays_gemini_s_own(
        field: str, schema: dict[str, Any]) -> None:
    """Read as a function, it was declared to Ollama as a tool its SDK's types
    refuse (``parameters.type`` must be ``object``, ``properties`` a dict):
    Gemini's reader now keeps it as its own entry, as the other readers do
    (written back exactly, dropped with a warning elsewhere)."""
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}],
            "tools": [{"functionDeclarations": [{"name": "f", "description": "",
                                                 field: schema}]}]}
    request = parse_request("gemini", body)
    assert build_request("gemini", request)["tools"] == body["tools"]
    for wire, target in TARGETS.items():
        if wire != "gemini":
            built, said = _built(target, request)
            assert "tools" not in built and any("'functionDeclarations'" in s for s in said)
            sdk_valid(wire, built)


@pytest.mark.parametrize("target", list(TARGETS.values()))
def test_a_tool_of_no_object_schema_is_refused_by_every_builder(target: str) -> None:
    """A tool made by hand (or by an MCP server) whose parameters no API takes
    as a function's: a typed refusal naming it, not a body the API answers 400."""
    for schema in _NO_OBJECT_SCHEMAS:
        request = streamkit.Request([UserMessage("hi")], tools=[Tool("odd", parameters=schema)])
        with pytest.raises(UnsupportedFeatureError, match="'odd'"):
            build_request(target, request, model="m")


# ---------------------------------------------------------------- call arguments


_NO_OBJECT_ARGUMENTS = ["Infinity", '{"n": 1e400}', '{"n": NaN}', '{"n": ' + "9" * 4301 + "}",
                        "\u202eevil", '{"a": 1', "[1, 2]", "null"]


@pytest.mark.parametrize("target", ["anthropic", "gemini", "ollama"])
def test_arguments_an_object_wire_cannot_hold_are_said(target: str) -> None:
    """Arguments that are no JSON object (or hold a number JSON has no words
    for, or one past Python's digit limit) went as ``{}`` without a word: the
    loss is now said, naming the call; an object of big integers is kept
    exactly, and no arguments at all are ``{}`` without a warning."""
    for text in _NO_OBJECT_ARGUMENTS:
        request = _call_request(text)
        body, said = _built(target, request)
        assert len(said) == 1 and "'call_1'" in said[0] and "'f'" in said[0], (text, said)
        sdk_valid(streamkit.providers.wire_of(target)[0], body)
    for text in ['{"n": ' + "9" * 80 + ', "m": -' + "1" * 300 + "}", "", "  "]:
        request = _call_request(text)
        body, said = _built(target, request)
        assert said == [] and _kept(request, target, body) == [], text


def _call_request(arguments: str) -> streamkit.Request:
    call = ToolCallBlock("call_1", "f", arguments)
    return streamkit.Request([UserMessage("go"), AssistantMessage([call], provider="openai"),
                              streamkit.FunctionExecutionResultMessage(
                                  [streamkit.FunctionExecutionResult("call_1", "done")])])


# ---------------------------------------------------------------- call/result pairing


def _ollama_turns(names: list[str], results: list[tuple[str, str]]) -> dict[str, Any]:
    """An Ollama body: one assistant turn calling ``names`` (no call ids: Ollama
    before 0.12), then a tool message per (``tool_name``, content) of ``results``."""
    calls = [{"function": {"name": name, "arguments": {"n": index}}}
             for index, name in enumerate(names)]
    return {"model": "m", "messages": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "", "tool_calls": calls},
        *({"role": "tool", "tool_name": name, "content": text} for name, text in results)]}


@pytest.mark.parametrize(("names", "results", "renamed"), [
    (["get_weather"], [("function", "11 degrees")], 1),
    (["temp", "cond", "temp", "cond"], [("temp", "22"), ("cond", "cloudy"), ("temp", "15"),
                                        ('{"a": 1', "rainy")], 1),
    (["temp", "cond", "temp", "cond"], [("temp", "22"), ("temp", "22"), ("temp", "15"),
                                        ("cond", "rainy")], 1),
    (["temp", "temp"], [("temp", "22"), ("temp", "15")], 0),
])
def test_an_ollama_result_keeps_its_call_on_gemini(
        names: list[str], results: list[tuple[str, str]], renamed: int) -> None:
    """Ollama has no call ids: a tool message answers the next unanswered call
    (the one of its ``tool_name`` first). Gemini pairs a response without id
    with the earliest unanswered call of its name, so a result named after
    no call of its own (or another one's) lost its call on the way, without a
    word: it now goes under its call's name, the name it had said."""
    request = parse_request("ollama", _ollama_turns(names, results))
    for target in ("gemini", "vertex"):
        body, said = _built(target, request)
        assert _kept(request, target, body) == []
        assert len(said) == renamed and all("name" in s for s in said), said
        sdk_valid("gemini", body, vertex=target == "vertex")


def test_a_result_with_a_call_id_and_no_name_goes_under_its_call_s_name() -> None:
    """The other side of the rule: a result of a wire with call ids (OpenAI's
    have no name) goes to Gemini with its call's id and name, said nothing."""
    request = _call_request('{"x": 1}')
    for target in ("gemini", "vertex"):
        body, said = _built(target, request)
        answer = body["contents"][-1]["parts"][0]["functionResponse"]
        assert (answer["id"], answer["name"], said) == ("call_1", "f", [])
        assert _kept(request, target, body) == []


# ---------------------------------------------------------------- reasoning with nothing after it


_REASONING = {"type": "reasoning", "id": "rs_1", "encrypted_content": "gAAAA-opaque",
              "summary": [{"type": "summary_text", "text": "**Plan** look left"},
                          {"type": "summary_text", "text": "then right"}]}
_ANSWER = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
           "content": [{"type": "output_text", "text": "Look both ways.", "annotations": []}]}


@pytest.mark.parametrize("after", [[{"role": "user", "content": "and?"}, _ANSWER], []])
def test_reasoning_with_nothing_after_it_in_its_turn_keeps_its_text(
        after: list[dict[str, Any]]) -> None:
    """A reasoning item the API refuses alone (nothing after it in its turn: a
    user message came between it and its answer, or the response was cut off
    while reasoning) was left out, its summary with it, without a word
    (SilentLoss on the same wire): it is thinking that cannot be a reasoning
    item, so its text goes as another API's does (``<think>`` text); its
    encrypted content, bookkeeping the server cannot check alone, is dropped."""
    body = {"model": "gpt-5", "input": [{"role": "user", "content": "cross?"}, _REASONING,
                                        *after, {"role": "user", "content": "river?"}]}
    request = parse_request("openai-responses", body)
    built = build_request("openai-responses", request)
    assert _kept(request, "openai-responses", built) == []
    assert all(item.get("type") != "reasoning" for item in built["input"])
    assert "gAAAA-opaque" not in str(built)
    sdk_valid("openai-responses", built)


# ---------------------------------------------------------------- model names


@pytest.mark.parametrize("model", ["", "a\udfffb"])
def test_a_model_name_no_api_takes_is_refused_by_every_builder(model: str) -> None:
    """An empty model (or one UTF-8 cannot carry) read from a body went into
    an Ollama body its SDK's types refuse (``model`` has at least one
    character): every builder refuses it, naming it."""
    request = parse_request("anthropic", {"model": model, "max_tokens": 5,
                                          "messages": [{"role": "user", "content": "hi"}]})
    for target in TARGETS.values():
        with pytest.raises(UnsupportedFeatureError, match="model"):
            build_request(target, request)
