"""An Ollama tool result may name its call only by ``tool_name`` (the API
docs' tool-calling examples; ``tool_call_id`` came later). The reader gives
it the id of the call it answers (the earliest unanswered call of that name
in the assistant message before it), so the pairing survives on the wires
that match results by id; the Ollama body still rebuilds exactly (an id the
body did not have is not written back).

Bodies: the recorded docs conversation (four results by name only, two per
name) and tests/fixtures/edge/ollama-results-by-tool-name.request.json (hand
built: calls with and without ids, results out of call order, one result
with its id, a second turn reusing a name).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from support.recordings import FIXTURES
from support.request_oracles import sdk_valid
from support.translation_matrix import TARGETS

from streamkit import (
    AssistantMessage,
    FunctionExecutionResultMessage,
    Request,
    Tool,
    ToolCallBlock,
    build_request,
    parse_request,
)

BODIES = {
    "docs-parallel": FIXTURES / "ollama" / "conversations" / "docs-parallel-tool-calls-stream"
    / "turn2.request.json",
    "edge": FIXTURES / "edge" / "ollama-results-by-tool-name.request.json",
}
#: Which result answers which call: "city/tool" -> the result's text.
PAIRS = {
    "docs-parallel": {"New York/get_temperature": "22°C",
                      "New York/get_conditions": "Partly cloudy",
                      "London/get_temperature": "15°C", "London/get_conditions": "Rainy"},
    "edge": {"Paris/get_time": "14:05", "Paris/get_weather": "18 degrees, cloudy",
             "Tokyo/get_weather": "25 degrees, sunny", "Lima/get_weather": "16 degrees, misty"},
}


def load(name: str) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(BODIES[name].read_text())
    return body


def pairs(request: Request) -> dict[str, str]:
    """Each call ("city/tool") -> the text of the result whose call id is its id."""
    calls = {block.id: f"{block.arguments()['city']}/{block.name}"
             for message in request.messages if isinstance(message, AssistantMessage)
             for block in message.blocks if isinstance(block, ToolCallBlock)}
    out = {}
    for message in request.messages:
        if isinstance(message, FunctionExecutionResultMessage):
            for result in message.content:
                assert result.call_id in calls, f"{result.call_id!r} answers no call"
                out[calls[result.call_id]] = result.text
    return out


@pytest.mark.parametrize("name", BODIES)
def test_results_by_tool_name_answer_their_calls_and_rebuild_exactly(name: str) -> None:
    body = load(name)
    request = parse_request("ollama", body)
    assert pairs(request) == PAIRS[name]
    assert build_request("ollama", request) == body
    sdk_valid("ollama", body)


@pytest.mark.parametrize("name", BODIES)
@pytest.mark.parametrize("wire", ["openai-chat", "openai-responses", "anthropic", "gemini"])
def test_the_pairing_survives_on_every_wire(name: str, wire: str) -> None:
    source = parse_request("ollama", load(name))
    request = Request(messages=source.messages, tools=copy.deepcopy(source.tools),
                      options={"max_tokens": 1024} if wire == "anthropic" else {})
    for tool in request.tools or []:
        if isinstance(tool, Tool) and wire == "openai-responses":
            tool.strict = False  # Ollama's tools are not strict
    vendor, model = TARGETS[wire]
    body = build_request(vendor, request, model=model)
    sdk_valid(wire, body)
    assert pairs(parse_request(vendor, body)) == PAIRS[name]


def test_an_id_the_body_gave_is_kept_and_a_made_up_one_is_not_written() -> None:
    body = load("edge")
    request = parse_request("ollama", body)
    built = build_request("openai", request, model="gpt-4o")
    ids = [message["tool_call_id"] for message in built["messages"] if message["role"] == "tool"]
    calls = [call["id"] for message in built["messages"] if message["role"] == "assistant"
             for call in message.get("tool_calls", [])]
    assert ids[1:3] == ["call_w1", "call_w2"] and sorted(ids) == sorted(calls)
    own = build_request("ollama", request)
    assert [message.get("tool_call_id") for message in own["messages"]
            if message["role"] == "tool"] == [None, None, "call_w2", None]
