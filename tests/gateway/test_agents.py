"""Coding agents through the gateway: what Claude Code, OpenAI's Codex CLI and
Gemini CLI send (tests/fixtures/agents, reconstructed field for field from
their sources: see tests/fixtures/MANIFEST.md), sent by the agent's own SDK to
the gateway, served by a fake upstream of every wire.

What each pair must hold: the upstream's body valid for its wire's SDK (the
request oracles), the agent's conversation reaching it whole (every function
tool declared, every earlier call answered by its result), and the gateway's
streamed answer read by the agent's SDK as the agent would read it (the call,
the text before it, the reasoning).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from support.asgi_server import serving
from support.gateway_upstreams import UPSTREAMS, via_every_wire
from support.paths import FIXTURES
from support.request_oracles import sdk_valid

from streamkit import (
    ChatResponse,
    ChatUsage,
    FinishReason,
    FunctionExecutionResultMessage,
    Request,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from streamkit.conversation.messages import AssistantMessage
from streamkit.conversation.tools import Tool
from streamkit.gateway import create_app
from streamkit.gateway.config import parse_config
from streamkit.providers import wire_format
from streamkit.testing import FakeProvider

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")
genai = pytest.importorskip("google.genai")

KEY = "sk-gateway-agents-0123456789"
REASONING = "The test fails: look at the parser."
BEFORE = "Let me run the tests."
ARGUMENTS = {"command": "make test"}

def _recording(agent: str) -> dict[str, Any]:
    """The agent's request: its path, its own headers and its body."""
    loaded: dict[str, Any] = json.loads(
        (FIXTURES / "agents" / f"{agent}.request.json").read_text())
    return loaded


def _first_function(request: Request) -> str:
    """The name of the first function tool the agent declared (the fake calls it)."""
    return next(tool.name for tool in request.tools or [] if isinstance(tool, Tool))


def _answer(request: Request) -> ChatResponse:
    """The fake upstream: reasoning, a sentence, then a call of the agent's first tool."""
    return ChatResponse(
        content=[ThinkingBlock(REASONING, id="r1"), TextBlock(BEFORE, id="t1"),
                 ToolCallBlock(id="call_agent_1", name=_first_function(request),
                               input=json.dumps(ARGUMENTS))],
        usage=ChatUsage(input_tokens=900, output_tokens=40),
        finished_reason=FinishReason.TOOL_CALLS, terminated=True, is_last=True)


@pytest.fixture(scope="module")
def fake() -> Iterator[Any]:
    with FakeProvider.in_thread(_answer) as server:
        yield server


@pytest.fixture(scope="module")
def gateway(fake: Any) -> Iterator[str]:
    config = parse_config(via_every_wire(fake.url, KEY))
    with serving(create_app(config)) as url:
        yield url


# ---------------------------------------------------------------- each agent, by its SDK


@dataclass
class Answer:
    """The gateway's answer as the agent's SDK read it from the stream."""

    text: str = ""
    reasoning: str = ""
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


Agent = Callable[[str, str], Answer]


def _claude_code(url: str, model: str) -> Answer:
    """Claude Code: the beta Messages endpoint (``?beta=true``), its betas in
    ``anthropic-beta``, streamed, read with the SDK's stream accumulator."""
    recording = _recording("claude-code")
    body = {key: value for key, value in recording["body"].items() if key != "stream"}
    headers = dict(recording["headers"])
    betas = headers.pop("anthropic-beta").split(",")
    client = anthropic.Anthropic(base_url=url, api_key=KEY, max_retries=0)
    sampling = {key: body.pop(key) for key in ("temperature",)}  # not declared by anthropic 2.14
    with client.beta.messages.stream(**{**body, "model": model}, betas=betas, extra_body=sampling,
                                     extra_headers=headers) as stream:
        message = stream.get_final_message()
    return Answer(text="".join(b.text for b in message.content if b.type == "text"),
                  reasoning="".join(b.thinking for b in message.content if b.type == "thinking"),
                  calls=[(b.name, b.input) for b in message.content if b.type == "tool_use"])


def _codex_cli(url: str, model: str) -> Answer:
    """Codex CLI: Responses with ``store: false`` and encrypted reasoning,
    streamed; the SDK's typed events, the items as ``output_item.done`` gives them."""
    recording = _recording("codex-cli")
    client = openai.OpenAI(base_url=url + "/v1", api_key=KEY, max_retries=0)
    events = client.responses.create(**{**recording["body"], "model": model},
                                     extra_headers=recording["headers"])
    items = [event.item for event in events if event.type == "response.output_item.done"]
    return Answer(
        text="".join(part.text for item in items if item.type == "message"
                     for part in item.content if part.type == "output_text"),
        reasoning="".join(part.text for item in items if item.type == "reasoning"
                          for part in item.summary),
        calls=[(item.name, json.loads(item.arguments)) for item in items
               if item.type == "function_call"])


def _gemini_cli(url: str, model: str) -> Answer:
    """Gemini CLI: streamGenerateContent through google-genai (the CLI's SDK is its
    JavaScript twin), its history, system instruction, tools and thinking config."""
    types = genai.types
    body = _recording("gemini-cli")["body"]
    client = genai.Client(api_key=KEY, http_options=types.HttpOptions(
        base_url=url, api_version="v1beta"))
    config = types.GenerateContentConfig.model_validate_json(json.dumps({
        **body["generationConfig"], "systemInstruction": body["systemInstruction"],
        "tools": body["tools"], "automaticFunctionCalling": {"disable": True}}))
    contents = [types.Content.model_validate_json(json.dumps(content))
                for content in body["contents"]]
    parts = [part for chunk in client.models.generate_content_stream(
        model=model, contents=contents, config=config)
        for part in chunk.candidates[0].content.parts or []]
    return Answer(text="".join(p.text for p in parts if p.text and not p.thought),
                  reasoning="".join(p.text for p in parts if p.text and p.thought),
                  calls=[(p.function_call.name, dict(p.function_call.args or {}))
                         for p in parts if p.function_call])


#: The wire each agent speaks.
AGENT_WIRES = {"claude-code": "anthropic", "codex-cli": "openai-responses",
               "gemini-cli": "gemini"}

AGENTS: dict[str, Agent] = {
    "claude-code": _claude_code,
    "codex-cli": _codex_cli,
    "gemini-cli": _gemini_cli,
}


# ---------------------------------------------------------------- what crosses


def _tool_names(agent: str) -> list[str]:
    """The tools the agent declared that run on its side (functions, Codex's
    freeform ``apply_patch``), in its own wire's words: every one must reach
    every upstream (a freeform tool as a function with one string argument
    where the wire has no freeform tools); server tools (Codex's
    ``web_search``) go where the upstream has them."""
    body = _recording(agent)["body"]
    if agent == "gemini-cli":
        return [declaration["name"] for tool in body["tools"]
                for declaration in tool["functionDeclarations"]]
    kinds: set[str | None] = {"claude-code": {None}, "codex-cli": {"function", "custom"}}[agent]
    return [tool["name"] for tool in body["tools"] if tool.get("type") in kinds]


def _declared(request: Request) -> list[str]:
    """The names of the tools the upstream was offered."""
    names = [tool.name if isinstance(tool, Tool) else tool.get("name")
             for tool in request.tools or []]
    return [name for name in names if isinstance(name, str)]


@pytest.mark.parametrize("upstream", sorted(UPSTREAMS))
@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_a_coding_agent_is_served_from_every_upstream_wire(
        agent: str, upstream: str, gateway: str, fake: Any) -> None:
    before = len(fake.requests)
    answer = AGENTS[agent](gateway, f"via-{upstream}")
    assert [name for name, _ in answer.calls] == [_tool_names(agent)[0]]
    assert answer.calls[0][1] == ARGUMENTS
    assert BEFORE in answer.text
    assert answer.reasoning == REASONING
    [served] = fake.requests[before:]
    assert served.wire == upstream and served.stream is True and served.request is not None
    sdk_valid(upstream, copy.deepcopy(served.raw.json()))
    assert _declared(served.request) == _tool_names(agent)
    _assert_every_call_answered(served.request)
    if agent == "codex-cli":
        _assert_the_patch_crossed(served.request, upstream)
    _assert_own_headers_only_to_own_wire(agent, upstream, served.headers)


def _assert_every_call_answered(request: Request) -> None:
    """The agent's earlier calls reach the upstream, each with its result after it."""
    calls = [block.id for message in request.messages if isinstance(message, AssistantMessage)
             and isinstance(message.content, list)
             for block in message.content if isinstance(block, ToolCallBlock)]
    results = [result.call_id for message in request.messages
               if isinstance(message, FunctionExecutionResultMessage)
               for result in message.content]
    results += [block.call_id for message in request.messages
                if isinstance(getattr(message, "content", None), list)
                for block in message.content if isinstance(block, ToolResultBlock)]
    assert calls and sorted(calls) == sorted(results)


def _assert_the_patch_crossed(request: Request, upstream: str) -> None:
    """Codex's earlier ``apply_patch`` call reaches the upstream with its patch:
    free text on Responses, the one string argument ``input`` elsewhere."""
    [item] = [item for item in _recording("codex-cli")["body"]["input"]
              if item["type"] == "custom_tool_call"]
    [call] = [block for message in request.messages if isinstance(message, AssistantMessage)
              and isinstance(message.content, list) for block in message.content
              if isinstance(block, ToolCallBlock) and block.name == "apply_patch"]
    if upstream == "openai-responses":
        assert call.input == item["input"]
    else:
        assert call.arguments() == {"input": item["input"]}


def _assert_own_headers_only_to_own_wire(agent: str, upstream: str,
                                         received: dict[str, str]) -> None:
    """The agent's own headers the gateway passes on (Claude Code's
    ``anthropic-beta``, Codex's ``openai-beta``) reach an upstream of its wire
    as sent, and no other."""
    wire = AGENT_WIRES[agent]
    sent = _recording(agent)["headers"]
    for name in sorted(wire_format(wire).forwarded_headers & set(sent)):
        assert received.get(name) == (sent[name] if upstream == wire else None) or (
            upstream != wire and name in wire_format(upstream).forwarded_headers), name
