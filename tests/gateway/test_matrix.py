"""Every client through the gateway to every upstream: the official SDKs
(openai Chat and Responses, anthropic, google-genai, ollama), unchanged but
for their base URL and key, call the gateway, whose upstreams are fake
providers (:class:`streamkit.testing.FakeProvider`) of each wire, streaming and
not, through a whole tool-call round trip: the question, the call the upstream
makes (with its reasoning and a sentence before it), the caller's tool result
sent back, the answer.

What each pair must carry: the call's name and arguments, the final text, the
finish of each turn in the caller's words, token counts; the tool result
reaching the upstream paired with the call it answers; the reasoning where
both wires hold it (see docs/gateway.md's table, which this file checks).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from support.asgi_server import serving
from support.gateway_upstreams import UPSTREAMS, via_every_wire

from streamkit import (
    ChatResponse,
    ChatUsage,
    FinishReason,
    FunctionExecutionResultMessage,
    Request,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)
from streamkit.conversation.messages import AssistantMessage
from streamkit.gateway import create_app
from streamkit.gateway.config import parse_config
from streamkit.testing import FakeProvider

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")
genai = pytest.importorskip("google.genai")
ollama = pytest.importorskip("ollama")

KEY = "sk-gateway-matrix-0123456789"
QUESTION = "What is the weather in Paris?"
REASONING = "The user wants the weather: call the tool."
BEFORE = "Let me check."
ANSWER = "It is 18 degrees in Paris."
ARGUMENTS = {"city": "Paris"}
RESULT = "18 degrees"
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}

#: The wires whose answers hold reasoning a caller of each wire can read back.
HOLDS_REASONING = {"openai-chat", "openai-responses", "anthropic", "gemini", "ollama"}


def _answer(request: Request) -> ChatResponse:
    """The fake upstream: a call when the question comes, the answer once the
    tool's result is in."""
    last = request.messages[-1]
    usage = ChatUsage(input_tokens=31, output_tokens=17)
    if isinstance(last, FunctionExecutionResultMessage) or _holds_result(last):
        return ChatResponse(content=[TextBlock(ANSWER, id="t2")], usage=usage,
                            finished_reason=FinishReason.STOP, terminated=True, is_last=True)
    return ChatResponse(
        content=[ThinkingBlock(REASONING, id="r1"), TextBlock(BEFORE, id="t1"),
                 ToolCallBlock(id="call_weather_1", name="get_weather",
                               input=json.dumps(ARGUMENTS))],
        usage=usage, finished_reason=FinishReason.TOOL_CALLS, terminated=True, is_last=True)


def _holds_result(message: Any) -> bool:
    from streamkit import ToolResultBlock

    content = getattr(message, "content", None)
    return isinstance(content, list) and any(isinstance(part, ToolResultBlock)
                                             for part in content)


@pytest.fixture(scope="module")
def fake() -> Iterator[Any]:
    with FakeProvider.in_thread(_answer) as server:
        yield server


@pytest.fixture(scope="module")
def gateway(fake: Any) -> Iterator[str]:
    config = parse_config(via_every_wire(fake.url, KEY))
    with serving(create_app(config)) as url:
        yield url


# ---------------------------------------------------------------- what a caller saw


@dataclass
class Turn:
    """One answer as the caller's SDK gave it."""

    text: str = ""
    reasoning: str = ""
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    finish: str | None = None
    tokens: tuple[int, int] | None = None


@dataclass
class RoundTrip:
    first: Turn
    second: Turn


Caller = Callable[[str, str, bool], RoundTrip]


def _openai_chat(url: str, model: str, stream: bool) -> RoundTrip:
    client = openai.OpenAI(base_url=url + "/v1", api_key=KEY, max_retries=0)
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": SCHEMA}}]
    messages: list[Any] = [{"role": "user", "content": QUESTION}]

    def ask() -> Any:
        if stream:
            with client.chat.completions.stream(model=model, messages=messages, tools=tools,
                                                stream_options={"include_usage": True}) as s:
                return s.get_final_completion()
        return client.chat.completions.create(model=model, messages=messages, tools=tools)

    def turn(completion: Any) -> Turn:
        choice = completion.choices[0]
        extra = choice.message.model_extra or {}
        return Turn(text=choice.message.content or "",
                    reasoning=extra.get("reasoning_content") or "",
                    calls=[(call.function.name, json.loads(call.function.arguments))
                           for call in choice.message.tool_calls or []],
                    finish=choice.finish_reason,
                    tokens=(completion.usage.prompt_tokens, completion.usage.completion_tokens))

    first = ask()
    call = first.choices[0].message.tool_calls[0]
    messages += [first.choices[0].message.model_dump(exclude_none=True, exclude={"parsed"}),
                 {"role": "tool", "tool_call_id": call.id, "content": RESULT}]
    for call_entry in messages[-2].get("tool_calls", []):
        call_entry["function"].pop("parsed_arguments", None)
    return RoundTrip(turn(first), turn(ask()))


def _openai_responses(url: str, model: str, stream: bool) -> RoundTrip:
    client = openai.OpenAI(base_url=url + "/v1", api_key=KEY, max_retries=0)
    tools = [{"type": "function", "name": "get_weather", "parameters": SCHEMA, "strict": False}]
    inputs: list[Any] = [{"role": "user", "content": QUESTION}]

    def ask() -> Any:
        if stream:
            with client.responses.stream(model=model, input=inputs, tools=tools) as s:
                return s.get_final_response()
        return client.responses.create(model=model, input=inputs, tools=tools)

    def turn(response: Any) -> Turn:
        reasoning = "".join(part.text for item in response.output if item.type == "reasoning"
                            for part in item.summary)
        return Turn(text=response.output_text, reasoning=reasoning,
                    calls=[(item.name, json.loads(item.arguments)) for item in response.output
                           if item.type == "function_call"],
                    finish=response.status,
                    tokens=(response.usage.input_tokens, response.usage.output_tokens))

    first = ask()
    call = next(item for item in first.output if item.type == "function_call")
    inputs += [item.model_dump(exclude_none=True) for item in first.output]
    inputs.append({"type": "function_call_output", "call_id": call.call_id, "output": RESULT})
    return RoundTrip(turn(first), turn(ask()))


def _anthropic(url: str, model: str, stream: bool) -> RoundTrip:
    client = anthropic.Anthropic(base_url=url, api_key=KEY, max_retries=0)
    tools = [{"name": "get_weather", "input_schema": SCHEMA}]
    messages: list[Any] = [{"role": "user", "content": QUESTION}]

    def ask() -> Any:
        if stream:
            with client.messages.stream(model=model, max_tokens=256, messages=messages,
                                        tools=tools) as s:
                return s.get_final_message()
        return client.messages.create(model=model, max_tokens=256, messages=messages,
                                      tools=tools)

    def turn(message: Any) -> Turn:
        return Turn(text="".join(b.text for b in message.content if b.type == "text"),
                    reasoning="".join(b.thinking for b in message.content
                                      if b.type == "thinking"),
                    calls=[(b.name, b.input) for b in message.content if b.type == "tool_use"],
                    finish=message.stop_reason,
                    tokens=(message.usage.input_tokens, message.usage.output_tokens))

    first = ask()
    call = next(block for block in first.content if block.type == "tool_use")
    messages += [{"role": "assistant",
                  "content": [block.model_dump(exclude_none=True) for block in first.content]},
                 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id,
                                               "content": RESULT}]}]
    return RoundTrip(turn(first), turn(ask()))


def _gemini(url: str, model: str, stream: bool) -> RoundTrip:
    types = genai.types
    client = genai.Client(api_key=KEY, http_options=types.HttpOptions(
        base_url=url, api_version="v1beta"))
    config = types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=[types.FunctionDeclaration(
            name="get_weather", parameters_json_schema=SCHEMA)])],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True))
    contents: list[Any] = [types.Content(role="user", parts=[types.Part(text=QUESTION)])]

    def ask() -> tuple[list[Any], Any, Any]:
        chunks = (list(client.models.generate_content_stream(
            model=model, contents=contents, config=config)) if stream
            else [client.models.generate_content(model=model, contents=contents, config=config)])
        parts = [part for chunk in chunks
                 if chunk.candidates and chunk.candidates[0].content is not None
                 for part in chunk.candidates[0].content.parts or []]
        last = chunks[-1]
        return parts, last.candidates[0].finish_reason, last.usage_metadata

    def turn(asked: tuple[list[Any], Any, Any]) -> Turn:
        parts, finish, usage = asked
        return Turn(text="".join(p.text for p in parts if p.text and not p.thought),
                    reasoning="".join(p.text for p in parts if p.text and p.thought),
                    calls=[(p.function_call.name, dict(p.function_call.args or {}))
                           for p in parts if p.function_call],
                    finish=None if finish is None else finish.value,
                    tokens=(usage.prompt_token_count, usage.candidates_token_count))

    first = ask()
    call = next(part.function_call for part in first[0] if part.function_call)
    contents += [types.Content(role="model", parts=first[0]),
                 types.Content(role="user", parts=[types.Part.from_function_response(
                     name=call.name, response={"result": RESULT})])]
    return RoundTrip(turn(first), turn(ask()))


def _ollama(url: str, model: str, stream: bool) -> RoundTrip:
    client = ollama.Client(host=url, headers={"Authorization": f"Bearer {KEY}"})
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": SCHEMA}}]
    messages: list[Any] = [{"role": "user", "content": QUESTION}]

    def ask() -> Turn:
        parts = (list(client.chat(model=model, messages=messages, tools=tools, stream=True))
                 if stream else [client.chat(model=model, messages=messages, tools=tools,
                                             stream=False)])
        last = parts[-1]
        return Turn(text="".join(p.message.content or "" for p in parts),
                    reasoning="".join(p.message.thinking or "" for p in parts),
                    calls=[(c.function.name, dict(c.function.arguments)) for p in parts
                           for c in p.message.tool_calls or []],
                    finish=last.done_reason,
                    tokens=(last.prompt_eval_count or 0, last.eval_count or 0))

    first = ask()
    name, arguments = first.calls[0]
    messages += [{"role": "assistant", "content": first.text,
                  "tool_calls": [{"function": {"name": name, "arguments": arguments}}]},
                 {"role": "tool", "content": RESULT, "tool_name": name}]
    return RoundTrip(first, ask())


CALLERS: dict[str, Caller] = {
    "openai-chat": _openai_chat,
    "openai-responses": _openai_responses,
    "anthropic": _anthropic,
    "gemini": _gemini,
    "ollama": _ollama,
}

#: Each caller wire's words for the two turns' ends (a call, then the answer).
FINISH_WORDS = {
    "openai-chat": ("tool_calls", "stop"),
    "openai-responses": ("completed", "completed"),
    "anthropic": ("tool_use", "end_turn"),
    "gemini": ("STOP", "STOP"),
    "ollama": ("stop", "stop"),
}


# ---------------------------------------------------------------- the matrix


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "body"])
@pytest.mark.parametrize("upstream", sorted(UPSTREAMS))
@pytest.mark.parametrize("caller", sorted(CALLERS))
def test_a_tool_round_trip_crosses_from_every_client_to_every_upstream(
        caller: str, upstream: str, stream: bool, gateway: str, fake: Any) -> None:
    before = len(fake.requests)
    trip = CALLERS[caller](gateway, f"via-{upstream}", stream)
    first, second = trip.first, trip.second
    assert first.calls == [("get_weather", ARGUMENTS)]
    assert BEFORE in first.text
    assert second.text == ANSWER and second.calls == []
    assert (first.finish, second.finish) == FINISH_WORDS[caller]
    assert first.tokens is not None and first.tokens[1] == 17
    if caller in HOLDS_REASONING and upstream in HOLDS_REASONING:
        assert first.reasoning == REASONING
    asked, answered = fake.requests[before:before + 2]
    assert [asked.wire, answered.wire] == [upstream, upstream]
    assert asked.stream is stream and answered.stream is stream
    assert answered.request is not None
    _assert_result_answers_its_call(answered.request)


def _assert_result_answers_its_call(request: Request) -> None:
    """The upstream's second request holds the call and the tool's result for it."""
    calls = [block for message in request.messages if isinstance(message, AssistantMessage)
             and isinstance(message.content, list)
             for block in message.content if isinstance(block, ToolCallBlock)]
    results = [result for message in request.messages
               if isinstance(message, FunctionExecutionResultMessage)
               for result in message.content]
    assert [call.name for call in calls] == ["get_weather"]
    assert [result.call_id for result in results] == [calls[0].id]
    assert RESULT in str(results[0].content)
