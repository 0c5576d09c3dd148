"""The targets' acceptance rules (:mod:`streamkit.providers.acceptance`): each
rule with a conversation whose body its API answered 400 to (built so on main),
now built without the shape the rule refuses, valid for the SDK's types, what
was dropped having said nothing (no warning); a body read from the rule's own
wire goes back as it came, rule broken or not (its API decides)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from support.request_oracles import sdk_valid

from streamkit import (
    AssistantMessage,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    LossyTranslationWarning,
    SystemMessage,
    TextBlock,
    ToolCallBlock,
    UnsupportedFeatureError,
    UserMessage,
    build_request,
    parse_request,
)
from streamkit.providers.acceptance import RULES, Rule

#: Each wire's own vendor name.
TARGETS = {"anthropic": "anthropic", "gemini": "gemini"}

#: The issue's OpenAI user turn: an empty text part beside the words.
_EMPTY_PART = {"model": "m", "messages": [
    {"role": "user", "content": [{"type": "text", "text": ""}, {"type": "text", "text": "go"}]}]}

#: An OpenAI conversation whose assistant said nothing between two user turns.
_EMPTY_TURN = {"model": "m", "messages": [
    {"role": "system", "content": ""}, {"role": "user", "content": "a"},
    {"role": "assistant", "content": ""}, {"role": "user", "content": [{"type": "text",
                                                                        "text": "b"}]}]}

_CALL = ToolCallBlock("c1", "lookup", '{"q": "x"}')

#: A conversation that broke each rule on main, by rule name.
CASES: dict[tuple[str, str], list[Any]] = {
    ("anthropic", "non-empty text"): [
        *parse_request("openai", _EMPTY_PART).messages,
        AssistantMessage([TextBlock(""), _CALL]),
        FunctionExecutionResultMessage([FunctionExecutionResult(
            "c1", [TextBlock(""), TextBlock("found")])]),
        SystemMessage([TextBlock("")]), UserMessage("thanks")],
    ("anthropic", "non-empty messages"): parse_request("openai", _EMPTY_TURN).messages,
    ("anthropic", "no trailing whitespace in a prefill"): [
        UserMessage("Name a colour"), AssistantMessage([TextBlock("The colour is "),
                                                        TextBlock(" \n")])],
    ("gemini", "non-empty text"): parse_request("openai", _EMPTY_PART).messages,
    ("gemini", "non-empty parts"): parse_request("openai", _EMPTY_TURN).messages,
}


def _built(rule: Rule, messages: list[Any]) -> dict[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("error", LossyTranslationWarning)  # nothing said was dropped
        return build_request(TARGETS[rule.wire], messages, model="m", max_tokens=64)


def test_every_rule_has_a_case() -> None:
    assert {(rule.wire, rule.name) for rule in RULES} == set(CASES)


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: f"{rule.wire}: {rule.name}")
def test_a_body_built_for_the_target_keeps_its_rule(rule: Rule) -> None:
    body = _built(rule, CASES[rule.wire, rule.name])
    assert not rule.broken(body), rule.says
    sdk_valid(rule.wire, body)
    again = build_request(TARGETS[rule.wire], parse_request(TARGETS[rule.wire], body))
    assert rule.broken(again) is False  # and its own wire writes it back as it is
    assert rule.broken(_own_wire_body(rule, body)), "the predicate sees the shape refused"


def _own_wire_body(rule: Rule, body: dict[str, Any]) -> dict[str, Any]:
    """A body of the rule's wire holding the refused shape, read and written
    back: exactly (its API decides), so still breaking the rule."""
    broken = {**body, **_BROKEN[rule.wire, rule.name]}
    return build_request(TARGETS[rule.wire], parse_request(TARGETS[rule.wire], broken))


_BROKEN: dict[tuple[str, str], dict[str, Any]] = {
    ("anthropic", "non-empty text"): {"messages": [
        {"role": "user", "content": [{"type": "text", "text": ""}]}]},
    ("anthropic", "non-empty messages"): {"messages": [
        {"role": "user", "content": "a"}, {"role": "assistant", "content": []},
        {"role": "user", "content": "b"}]},
    ("anthropic", "no trailing whitespace in a prefill"): {"messages": [
        {"role": "user", "content": "a"}, {"role": "assistant", "content": "b "}]},
    ("gemini", "non-empty text"): {"contents": [{"role": "user", "parts": [{"text": ""}]}]},
    ("gemini", "non-empty parts"): {"contents": [{"role": "user", "parts": []}]},
}


def test_what_the_anthropic_rules_keep() -> None:
    """The words stay, in their turns: only what said nothing went."""
    text = _built(RULES[0], CASES["anthropic", "non-empty text"])
    assert text["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "go"}]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "c1", "name": "lookup", "input": {"q": "x"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "c1",
             "content": [{"type": "text", "text": "found"}]}, {"type": "text", "text": "thanks"}]}]
    turns = _built(RULES[0], CASES["anthropic", "non-empty messages"])
    assert "system" not in turns
    assert turns["messages"] == [{"role": "user", "content": [
        {"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]
    prefill = _built(RULES[0], CASES["anthropic", "no trailing whitespace in a prefill"])
    assert prefill["messages"][-1]["content"] == [{"type": "text", "text": "The colour is"}]


def test_what_the_gemini_rules_keep() -> None:
    body = _built(RULES[-1], CASES["gemini", "non-empty parts"])
    assert "systemInstruction" not in body
    assert body["contents"] == [{"role": "user", "parts": [{"text": "a"}, {"text": "b"}]}]


def test_a_cache_point_on_a_dropped_empty_block_is_said() -> None:
    marked = TextBlock("", metadata={"cache_control": {"type": "ephemeral"}})
    with pytest.warns(LossyTranslationWarning, match="cache point on an empty text block"):
        body = build_request("anthropic", [UserMessage([TextBlock("hi"), marked])], model="m",
                             max_tokens=8)
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]


@pytest.mark.parametrize("target", TARGETS.values())
def test_a_last_user_message_with_no_content_is_refused(target: str) -> None:
    """Left out, the assistant's turn before it would be a prefill."""
    conversation = [UserMessage("a"), AssistantMessage("b"), UserMessage([TextBlock("")])]
    with pytest.raises(UnsupportedFeatureError, match="last user message with no content"):
        build_request(target, conversation, model="m", max_tokens=8)


def _unanswered(provider: str | None) -> list[Any]:
    """A call of ``provider``'s turn the user moved on from."""
    return [UserMessage("weather?"), AssistantMessage([TextBlock("Looking."), _CALL],
                                                      provider=provider),
            UserMessage("never mind, tell a joke")]


_UNANSWERED = _unanswered("ollama")


@pytest.mark.parametrize("target", ["openai", "openai-responses", "anthropic", "gemini"])
def test_a_call_no_result_answers_is_dropped_and_said(target: str) -> None:
    """Each of these APIs answers 400 to it (providers.acceptance.ANSWERED_CALLS);
    Gemini's and Ollama's users may leave a call unanswered. A turn of the
    target's own API, or made by hand, is written as it is (the caller's)."""
    with pytest.warns(LossyTranslationWarning, match="'lookup' .c1., which no tool result"):
        body = build_request(target, _UNANSWERED, model="m", max_tokens=8)
    assert "c1" in str(build_request(target, _unanswered(None), model="m", max_tokens=8))
    assert "c1" not in str(body) and "lookup" not in str(body) and "Looking." in str(body)
    answered = [*_UNANSWERED[:2], FunctionExecutionResultMessage([
        FunctionExecutionResult("c1", "sunny")]), _UNANSWERED[2]]
    with warnings.catch_warnings():
        warnings.simplefilter("error", LossyTranslationWarning)
        assert "c1" in str(build_request(target, answered, model="m", max_tokens=8))


def test_a_call_left_unanswered_goes_to_ollama_and_stays_in_its_own_wires_body() -> None:
    assert "c1" in str(build_request("ollama", _UNANSWERED, model="m"))
    own = build_request("openai", parse_request("openai", {"model": "m", "messages": [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
                                                               "function": {"name": "f",
                                                                            "arguments": "{}"}}]},
        {"role": "user", "content": "r"}]}))
    assert own["messages"][1]["tool_calls"][0]["id"] == "c1"
