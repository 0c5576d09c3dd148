"""A Responses custom (freeform) tool crossing to another wire: a function of
one string argument ``input``, its grammar said lost, its calls in the history
carrying their text there (Codex CLI's ``apply_patch``: see
``streamkit/providers/openai_responses/freeform.py``)."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from support.request_oracles import sdk_valid

from streamkit import LossyTranslationWarning, ToolCallBlock
from streamkit.conversation.messages import AssistantMessage
from streamkit.providers.codec import build_request, parse_request

PATCH = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n"
GRAMMAR = {"type": "grammar", "syntax": "lark", "definition": 'start: "*** Begin Patch" /.+/s'}
OTHERS = ("openai-chat", "anthropic", "gemini", "ollama")


def _codex_turn(form: dict[str, Any] | None) -> dict[str, Any]:
    """A Responses body with a custom tool (``form``: its format) and a call of it answered."""
    tool = {"type": "custom", "name": "apply_patch", "description": "Edit files."}
    return {"model": "m", "tools": [tool if form is None else {**tool, "format": form}],
            "input": [{"role": "user", "content": "add a.txt"},
                      {"type": "custom_tool_call", "call_id": "c1", "name": "apply_patch",
                       "input": PATCH},
                      {"type": "custom_tool_call_output", "call_id": "c1", "output": "Done."}]}


def _declared_schema(wire: str, body: dict[str, Any]) -> dict[str, Any]:
    """The one tool's argument schema as ``wire`` declares it."""
    if wire == "gemini":
        declared: dict[str, Any] = body["tools"][0]["functionDeclarations"][0]
        found: dict[str, Any] = declared.get("parametersJsonSchema") or declared["parameters"]
        return found
    tool = body["tools"][0]
    schema: dict[str, Any] = tool["input_schema"] if wire == "anthropic" else tool[
        "function"]["parameters"]
    return schema


@pytest.mark.parametrize("wire", OTHERS)
def test_a_grammar_tool_crosses_as_a_function_of_its_text(wire: str) -> None:
    request = parse_request("openai-responses", _codex_turn(GRAMMAR))
    with pytest.warns(LossyTranslationWarning, match="lark grammar of the custom tool"):
        body = build_request(wire, request, model="m")
    sdk_valid(wire, json.loads(json.dumps(body)))
    schema = _declared_schema(wire, body)
    assert schema["required"] == ["input"]
    assert GRAMMAR["definition"] in schema["properties"]["input"]["description"]
    [call] = [block for message in parse_request(wire, body).messages
              if isinstance(message, AssistantMessage) and isinstance(message.content, list)
              for block in message.content if isinstance(block, ToolCallBlock)]
    assert (call.name, call.arguments()) == ("apply_patch", {"input": PATCH})


def test_free_text_crosses_unsaid_and_the_own_wire_keeps_the_custom_tool() -> None:
    body = _codex_turn(None)
    request = parse_request("openai-responses", body)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LossyTranslationWarning)
        crossed = build_request("anthropic", request, model="m")
    assert crossed["tools"][0]["input_schema"]["required"] == ["input"]
    call = crossed["messages"][1]["content"][0]
    assert (call["type"], call["input"]) == ("tool_use", {"input": PATCH})
    assert build_request("openai-responses", request, model="m") == body
