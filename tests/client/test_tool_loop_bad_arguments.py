"""The README's tool loop through a tool call cut off at ``max_tokens`` and one
whose arguments are not JSON, on every wire, over real sockets
(``ReplayServer``): the loop never raises, the tool result tells the model what
went wrong, and the next request is valid for the wire's official SDK request
type (``support.request_oracles.sdk_valid``) and carries the arguments by the one policy of
:mod:`streamkit.providers.function_tools`: the raw text as it came where the
wire takes text (Chat ``function.arguments``, Responses
``function_call.arguments``), ``{}`` where it takes an object (Anthropic
``tool_use.input``, Gemini ``functionCall.args``, Ollama
``function.arguments``), the raw text staying in the response. The same turns
sent to every other wire (a foreign turn) follow the same policy.

The first answers are recordings where one shows the case (Anthropic's cut-off
``tool_use``) and edge streams otherwise (``tests/fixtures/edge``). Gemini's
wire carries arguments as objects, so its malformed call is a Vertex streamed
call whose ``partialArgs`` update cannot be placed; Ollama's are the JSON text
some models' templates send in place of the object.
"""

from __future__ import annotations

import ast
import json
import re
import textwrap
import warnings
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.comparing import fresh_ids
from support.paths import ROOT
from support.recordings import FIXTURES
from support.request_oracles import sdk_valid

import streamkit
from streamkit.conversation.messages import FunctionExecutionResultMessage, Message, UserMessage
from streamkit.model.blocks import ToolCallBlock
from streamkit.model.response import ChatResponse
from streamkit.providers.codec import build_request
from streamkit.testing import ReplayServer, load_recording

README = ROOT / "README.md"
README_MODEL = "anthropic:claude-sonnet-4-5"
SECRET = "sk-test-tool-loop"

#: What ``run_call`` tells the model, per case.
CUT_OFF = "were cut off before the end"
NOT_JSON = "are not valid JSON"

#: The wires that take arguments as text; the others take an object.
TEXT_WIRES = {"openai-chat", "openai-responses"}


@dataclass(frozen=True)
class Case:
    """One wire's first answer (a call with bad arguments) and the recorded
    final answer, served by the provider entry ``provider``."""

    wire: str
    provider: str
    calling: str
    answering: str
    told: str

    @property
    def name(self) -> str:
        return f"{self.wire}:{Path(self.calling).name}"


CASES = [
    Case("openai-chat", "openai", "edge/openai-chat-tool-call-cut-at-length.sse",
         "openai-chat/text-with-usage-chunk.sse", CUT_OFF),
    Case("openai-chat", "openai", "edge/openai-chat-tool-call-invalid-json.sse",
         "openai-chat/text-with-usage-chunk.sse", NOT_JSON),
    Case("openai-responses", "openai-responses", "edge/openai-responses-incomplete.sse",
         "openai-responses/text.sse", CUT_OFF),
    Case("openai-responses", "openai-responses",
         "edge/openai-responses-function-call-invalid-json.sse",
         "openai-responses/text.sse", NOT_JSON),
    Case("anthropic", "anthropic", "anthropic/tool-use-incomplete-partial-json.sse",
         "anthropic/text-basic.sse", CUT_OFF),
    Case("anthropic", "anthropic", "edge/anthropic-tool-use-invalid-json.sse",
         "anthropic/text-basic.sse", NOT_JSON),
    Case("gemini", "vertex", "edge/gemini-vertex-partialArgs-nested-cut.chunks.jsonl",
         "gemini/text.sse", CUT_OFF),
    Case("gemini", "vertex", "edge/gemini-vertex-partialArgs-unplaceable.sse",
         "gemini/text.sse", CUT_OFF),  # an update the reader cannot place: the call is cut
    Case("ollama", "ollama", "edge/ollama-chat-tool-call-text-arguments-cut.ndjson",
         "edge/ollama-chat-text-length.ndjson", CUT_OFF),
    Case("ollama", "ollama", "edge/ollama-chat-tool-call-text-arguments-invalid-json.ndjson",
         "edge/ollama-chat-text-length.ndjson", NOT_JSON),
]

WIRES = ["openai-chat", "openai-responses", "anthropic", "gemini", "ollama"]
PROVIDER_OF = {case.wire: case.provider for case in CASES}

ReadmeLoop = Callable[[Callable[[], streamkit.Client]], Awaitable[list[Message]]]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def readme_loop() -> ReadmeLoop:
    """The README's two-turn tool loop, as written there, made a function of
    the client it opens: the loop's ``async with`` opens ``make_client()``
    from the test instead of the README's client on its fake, and the
    statements about that fake (it, and the asserts on its answers) are left
    out; it returns the conversation."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    code, = [block for block in blocks if "run_call(call)" in block]
    tree = ast.parse(code)
    loop, = [node for node in tree.body if isinstance(node, ast.AsyncWith)]
    assert README_MODEL in ast.unparse(loop.items[-1]), "the README's tool loop changed"
    loop.items = [ast.withitem(ast.parse("make_client()", mode="eval").body,
                               ast.Name("client", ast.Store()))]
    kept = [node for node in tree.body if node is loop or not (
        isinstance(node, ast.Assert) or "fake" in {n.id for n in ast.walk(node)
                                                   if isinstance(n, ast.Name)})]
    source = ("async def readme_loop(make_client):\n"
              + textwrap.indent(ast.unparse(ast.Module(kept, [])), "    ")
              + "\n    return messages\n")
    namespace: dict[str, Any] = {}
    exec(compile(source, str(README), "exec"), namespace)
    loop_function: ReadmeLoop = namespace["readme_loop"]
    return loop_function


def environ(provider: str) -> dict[str, str]:
    entry = streamkit.PROVIDERS[provider]
    return {entry.env_keys[0]: SECRET, "GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_CLOUD_LOCATION": "l"}


def first_answer(case: Case) -> ChatResponse:
    """The first answer as the client reads it (for the expected raw text)."""
    with fresh_ids():
        _, response = streamkit.replay(load_recording(FIXTURES / case.calling)[0], case.provider)
    return response


def sent_call(wire: str, body: dict[str, Any]) -> tuple[Any, str]:
    """The arguments and id of the one call of the assistant turn in ``body``."""
    if wire == "openai-responses":
        item = next(i for i in body["input"] if i.get("type") == "function_call")
        return item["arguments"], item["call_id"]
    if wire == "gemini":
        parts = [p for c in body["contents"] for p in c["parts"] if "functionCall" in p]
        call = parts[0]["functionCall"]
        return call["args"], call.get("id", "")
    turn = next(m for m in body["messages"] if m["role"] == "assistant")
    if wire == "anthropic":
        part = next(p for p in turn["content"] if p["type"] == "tool_use")
        return part["input"], part["id"]
    entry = turn["tool_calls"][0]
    return entry["function"]["arguments"], entry.get("id", "")


def expected_arguments(wire: str, call: ToolCallBlock) -> Any:
    return call.input if wire in TEXT_WIRES else {}


@pytest.mark.anyio
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
async def test_the_readme_tool_loop_survives_bad_arguments(case: Case) -> None:
    answers = [FIXTURES / case.calling, FIXTURES / case.answering]
    called = first_answer(case)
    call, = called.tool_calls
    raw = call.input
    assert call.incomplete or case.told == NOT_JSON  # the edge stream shows its case
    async with ReplayServer() as server:
        async def next_answer(request: httpx.Request) -> None:
            server.add_file("*", answers.pop(0))

        async with httpx.AsyncClient(event_hooks={"request": [next_answer]}) as http:
            def make_client() -> streamkit.Client:
                return streamkit.Client(f"{case.provider}:test-model", base_url=server.url,
                                        environ=environ(case.provider), http_client=http)

            with fresh_ids(), warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                messages = await readme_loop()(make_client)
        first, second = (request.json() for request in server.requests)
        # an own turn loses nothing: no warning, but where the recorded call is not
        # the README tool's (Vertex's 'search'): its result goes under the call's
        # name on a wire that pairs by name, and says so
        renamed = ["gemini cannot hold the name 'get_weather' of the result answering the "
                   f"{call.name!r} call"] if case.wire == "gemini" and call.name != (
                       "get_weather") else []
        assert [str(w.message).split(":")[0] for w in caught] == renamed
    assert len(server.requests) == 2 and not answers
    _, reply, results, final = messages
    assert isinstance(reply, ChatResponse) and isinstance(final, ChatResponse)
    assert final.text and not final.tool_calls
    sent, = reply.tool_calls
    assert sent.input == raw  # the raw text stays in the response
    result, = results.content if isinstance(results, FunctionExecutionResultMessage) else []
    assert result.is_error and case.told in result.text and result.call_id == sent.id
    sdk_valid(case.wire, second)
    arguments, call_id = sent_call(case.wire, second)
    assert arguments == expected_arguments(case.wire, sent)
    assert json.dumps(result.text)[1:-1] in json.dumps(second)  # the model is told
    if call_id:
        assert json.dumps(second).count(json.dumps(call_id)) >= 2  # the call, and its result
    assert first != second


@pytest.mark.parametrize("target", WIRES)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_a_foreign_turn_with_bad_arguments_goes_by_the_same_policy(case: Case,
                                                                   target: str) -> None:
    """The same turn (and ``run_call``'s answer) written for every wire: never
    an exception, valid for the target's SDK, raw text or ``{}``."""
    reply = first_answer(case)
    tool = streamkit.tool(_get_weather, name="get_weather")
    results = [tool.run_call_sync(call) for call in reply.tool_calls]
    messages: list[Message] = [UserMessage("Weather in Paris?"), reply,
                               FunctionExecutionResultMessage(results)]
    raw = reply.tool_calls[0].input
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        body = build_request(PROVIDER_OF[target], messages, model="test-model", tools=[tool],
                             max_tokens=1024)
    sdk_valid(target, body)
    said = [str(w.message) for w in caught if "the arguments of" in str(w.message)]
    # another API's call whose arguments an object wire cannot hold: said, naming it
    assert len(said) == (target not in TEXT_WIRES and target != case.wire)
    arguments, _ = sent_call(target, body)
    assert arguments == expected_arguments(target, reply.tool_calls[0])
    assert reply.tool_calls[0].input == raw
    assert json.dumps(results[0].text)[1:-1] in json.dumps(body)


def _get_weather(location: str) -> str:
    """The current weather in a city."""
    return f"Sunny, 21 °C in {location}"
