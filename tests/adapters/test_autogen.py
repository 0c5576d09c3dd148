"""streamkit.adapters.autogen: autogen's ChatCompletionClient over streamkit.Client.

The real autogen-core and autogen-agentchat drive it: an ``AssistantAgent`` with
a Python function tool completes tool round trips over ``ReplayServer`` (real
sockets on 127.0.0.1) with recorded answers, and the requests the provider would
have received are checked against what the recorded clients sent: Anthropic's
thinking block with its signature and Gemini's ``thoughtSignature`` survive
autogen's history, which has no field for them. Then each conversion on its own.
"""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest
from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.base import TaskResult
from autogen_agentchat.messages import (
    ModelClientStreamingChunkEvent,
    TextMessage,
    ThoughtEvent,
    ToolCallExecutionEvent,
    ToolCallRequestEvent,
)
from autogen_core import CancellationToken, FunctionCall, Image
from autogen_core.models import (
    AssistantMessage,
    ChatCompletionClient,
    CreateResult,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    LLMMessage,
    SystemMessage,
    UserMessage,
)
from autogen_core.tools import FunctionTool, ToolSchema
from PIL import Image as PILImage
from support.conversations import CONVERSATIONS
from support.recordings import FIXTURES, body, fixture_id, recordings

import streamkit
from streamkit import (
    ChatResponse,
    ChatUsage,
    FinishReason,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)
from streamkit.adapters.autogen import (
    MAX_IMAGE_TOKENS,
    TOKENS_PER_MESSAGE,
    ResponseMemory,
    StreamkitChatCompletionClient,
    autogen_model_info,
    finish_reason,
    request_usage,
    to_create_result,
    to_streamkit_message,
    to_streamkit_tool,
)
from streamkit.client import Client
from streamkit.conversation import messages as sk
from streamkit.model.blocks import DataBlock
from streamkit.model.vendors import ModelInfo as StreamkitModelInfo
from streamkit.providers.codec import parse_response
from streamkit.testing import ReplayServer

KEY = {"ANTHROPIC_API_KEY": "sk-ant-test", "GEMINI_API_KEY": "gm-test"}
THINKING_TOOL_TURN = CONVERSATIONS / "anthropic/tool-use-thinking-signature"
GEMINI_SIGNED_CALL = CONVERSATIONS / "gemini/function-call-thought-signature-stream"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # autogen runs on asyncio


def get_user_country() -> str:
    return "Mexico"


def get_country() -> str:
    return "Mexico"


def get_weather(location: str) -> str:
    """The current weather in a city."""
    return f"Sunny, 21 °C in {location}"


def answering(server: ReplayServer, answers: Sequence[Path]) -> httpx.AsyncClient:
    """The server answers each request with the next recording; an httpx client for it."""
    server.add_sequence("*", answers)
    return httpx.AsyncClient()


#: What the tests' models can do: unknown models are taken to do none of it.
CAPABLE = {"vision": True, "function_calling": True, "json_output": True,
           "structured_output": True}


def anthropic(server: ReplayServer, http: httpx.AsyncClient, **options: Any,
              ) -> StreamkitChatCompletionClient:
    client = Client("anthropic:claude-sonnet-4-0", base_url=server.url + "/v1", environ=KEY,
                    http_client=http)
    return StreamkitChatCompletionClient(client, model_info=CAPABLE, **options)


def replayed(path: Path, provider: str = "anthropic") -> ChatResponse:
    """The response a recorded answer stands for (a stream, or a whole JSON body)."""
    if path.suffix == ".json":
        return parse_response(provider, path.read_bytes())
    return streamkit.replay(body(path), on_error="return")[1]


def requests_of(server: ReplayServer) -> list[dict[str, Any]]:
    return [request.json() for request in server.requests]


# ================================================================= the agent


@pytest.mark.anyio
async def test_agent_tool_round_trip_sends_the_thinking_signature_back() -> None:
    """Turn 2 as the recorded client (pydantic-ai, on the real API) sent it: the
    thinking block with its signature, the text and the call verbatim, then the
    tool's result for the call's id."""
    recorded = json.loads((THINKING_TOOL_TURN / "turn2.request.json").read_bytes())
    question = recorded["messages"][0]["content"][0]["text"]
    final_answer = CONVERSATIONS / "anthropic/thinking-signature-then-user/turn1.response.json"
    async with ReplayServer() as server:
        async with answering(server, [THINKING_TOOL_TURN / "turn1.response.json",
                                      final_answer]) as http:
            model = anthropic(server, http, thinking_budget=3000)
            agent = AssistantAgent("assistant", model_client=model, tools=[get_user_country],
                                   system_message=None, max_tool_iterations=2)
            result = await agent.run(task=question)
        first, second = requests_of(server)
    assert first["messages"] == [{"role": "user", "content": question}]
    assert [tool["name"] for tool in first["tools"]] == ["get_user_country"]
    assistant, results = second["messages"][1:]
    assert assistant == recorded["messages"][1]  # thinking + signature, text, tool_use
    assert assistant["content"][0]["signature"].startswith("EqEECkYICxgCKkAo3UA4")
    tool_result, = results["content"]
    expected, = recorded["messages"][2]["content"]
    assert tool_result.pop("is_error", False) is expected.pop("is_error")  # recorded: false
    assert tool_result == expected == {"type": "tool_result", "content": "Mexico",
                                       "tool_use_id": "toolu_01YGzqpRE16Vricda3Aqcejo"}
    assert second["thinking"] == recorded["thinking"]

    kinds = [type(message) for message in result.messages]
    assert kinds == [TextMessage, ThoughtEvent, ToolCallRequestEvent, ToolCallExecutionEvent,
                     ThoughtEvent, TextMessage]
    thought = result.messages[1]
    assert isinstance(thought, ThoughtEvent)
    assert thought.content.startswith("The user is asking about the largest city")
    assert thought.content.endswith("let me determine which country you're from.")
    final = result.messages[-1]
    assert isinstance(final, TextMessage)
    assert final.content == replayed(final_answer).text
    usage = model.total_usage()
    assert (usage.prompt_tokens, usage.completion_tokens) == (398 + 43, 155 + 321)


@pytest.mark.anyio
async def test_run_stream_shows_the_chunks_and_keeps_a_streamed_signature() -> None:
    """Streamed: the tool turn's text arrives in chunks (autogen's thought), the
    answer's chunks join into the final text, and the streamed answer's thinking
    signature goes back with the next task."""
    thinking_answer = FIXTURES / "anthropic/thinking-signature.sse"
    async with ReplayServer() as server:
        answers = [FIXTURES / "anthropic/tool-use.sse", thinking_answer,
                   FIXTURES / "anthropic/text-basic.sse"]
        async with answering(server, answers) as http:
            model = anthropic(server, http)
            agent = AssistantAgent("assistant", model_client=model, tools=[get_weather],
                                   system_message=None, model_client_stream=True,
                                   max_tool_iterations=2)
            items = [item async for item in agent.run_stream(task="Weather in Paris?")]
            later = [item async for item in agent.run_stream(task="Thanks!")]
        first, second, third = requests_of(server)

    assert first["stream"] is True and [t["name"] for t in first["tools"]] == ["get_weather"]
    *events, outcome = items
    assert isinstance(outcome, TaskResult)
    request_at = next(i for i, e in enumerate(events) if isinstance(e, ToolCallRequestEvent))
    executed_at = next(i for i, e in enumerate(events) if isinstance(e, ToolCallExecutionEvent))
    before = [e.content for e in events[:request_at]
              if isinstance(e, ModelClientStreamingChunkEvent)]
    after = [e.content for e in events[executed_at:]
             if isinstance(e, ModelClientStreamingChunkEvent)]
    assert before == ["I", "'ll check the current weather in Paris for you."]
    thought = next(e for e in events if isinstance(e, ThoughtEvent))
    assert thought.content == "".join(before)
    final = outcome.messages[-1]
    assert isinstance(final, TextMessage)
    assert len(after) > 1 and "".join(after) == final.content == replayed(thinking_answer).text

    text, call = second["messages"][1]["content"]
    assert text == {"type": "text", "text": thought.content}
    assert call == {"type": "tool_use", "id": "toolu_01NRLabsLyVHZPKxbKvkfSMn",
                    "name": "get_weather", "input": {"location": "Paris"},
                    "caller": {"type": "direct"}}  # the recorded block, not autogen's copy
    assert second["messages"][2]["content"] == [{
        "type": "tool_result", "tool_use_id": "toolu_01NRLabsLyVHZPKxbKvkfSMn",
        "content": "Sunny, 21 °C in Paris"}]

    streamed = replayed(thinking_answer).content[0]
    assert isinstance(streamed, ThinkingBlock) and streamed.signature
    answered = third["messages"][3]
    assert answered["role"] == "assistant"
    assert answered["content"][0] == {"type": "thinking", "thinking": streamed.thinking,
                                      "signature": streamed.signature}
    assert third["messages"][4] == {"role": "user", "content": "Thanks!"}
    assert isinstance(later[-1], TaskResult)


@pytest.mark.anyio
@pytest.mark.parametrize("remember", [512, 0])
async def test_a_gemini_function_call_keeps_its_thought_signature(remember: int) -> None:
    """Gemini 3 signs its function calls (``thoughtSignature``) and refuses a
    call sent back without it; autogen's ``FunctionCall`` has no field for it.
    Without the memory (``remember=0``) it would be lost: that is what keeps it."""
    signed = replayed(GEMINI_SIGNED_CALL / "turn1.response.sse").tool_calls[0]
    async with ReplayServer() as server:
        answers = [GEMINI_SIGNED_CALL / "turn1.response.sse", FIXTURES / "gemini/text.sse"]
        async with answering(server, answers) as http:
            client = Client("gemini:gemini-3-pro-preview", base_url=server.url + "/v1beta",
                            environ=KEY, http_client=http)
            model = StreamkitChatCompletionClient(client, remember=remember,
                                                  model_info=CAPABLE)
            agent = AssistantAgent("assistant", model_client=model, tools=[get_country],
                                   system_message=None, model_client_stream=True,
                                   max_tool_iterations=2)
            result = await agent.run(task="What is the capital of the user country?")
        second = requests_of(server)[1]
    model_turn, results = second["contents"][1:]
    part, = model_turn["parts"]
    assert part["functionCall"]["name"] == "get_country"
    assert results["parts"][0]["functionResponse"]["name"] == "get_country"
    if remember:
        assert part["thoughtSignature"] == signed.metadata["signature"]
    else:
        assert "thoughtSignature" not in part
    assert isinstance(result.messages[-1], TextMessage)
    assert result.messages[-1].content == "The capital of France is Paris.\n"


@pytest.mark.anyio
async def test_reflection_on_anthropic_declares_the_tools_and_forbids_calls() -> None:
    """``reflect_on_tool_use`` asks again with no tools; the Anthropic API refuses
    tool blocks without ``tools``, so the last ones go along, with
    ``tool_choice`` none so the reflection answers in text."""
    async with ReplayServer() as server:
        answers = [FIXTURES / "anthropic/tool-use.sse", FIXTURES / "anthropic/text-basic.sse"]
        async with answering(server, answers) as http:
            agent = AssistantAgent("assistant", model_client=anthropic(server, http),
                                   tools=[get_weather], system_message=None,
                                   model_client_stream=True, reflect_on_tool_use=True)
            result = await agent.run(task="Weather in Paris?")
        first, second = requests_of(server)
    assert "tool_choice" not in first or first["tool_choice"] == {"type": "auto"}
    assert second["tools"] == first["tools"]
    assert second["tool_choice"] == {"type": "none"}
    assert isinstance(result.messages[-1], TextMessage)
    assert result.messages[-1].content == "Hello there!"


# ================================================================= calls


@pytest.mark.anyio
async def test_cancelling_a_stalled_stream_closes_the_connection() -> None:
    answer = body(FIXTURES / "anthropic/text-basic.sse")
    async with ReplayServer() as server:
        server.default(answer, chunk_size=answer.index(b" there"), delay=60)  # stalls
        async with httpx.AsyncClient() as http:
            model = anthropic(server, http)
            token = CancellationToken()
            chunks: list[str] = []
            with pytest.raises(asyncio.CancelledError):
                async for chunk in model.create_stream([UserMessage(content="hi", source="u")],
                                                       cancellation_token=token):
                    assert isinstance(chunk, str)
                    chunks.append(chunk)
                    token.cancel()
            assert chunks == ["Hello"]
            assert await server.wait_disconnect()
            with pytest.raises(asyncio.CancelledError):
                await model.create([UserMessage(content="hi", source="u")],
                                   cancellation_token=token)
    usage = model.actual_usage()
    assert usage.prompt_tokens == 11 and model.total_usage().prompt_tokens == 0


@pytest.mark.anyio
async def test_options_tool_choice_and_json_output_reach_the_request() -> None:
    weather = FunctionTool(get_weather, description="The current weather in a city.")
    async with ReplayServer() as server:
        server.default(body(FIXTURES / "anthropic/tool-use.sse"))
        async with httpx.AsyncClient() as http:
            model = anthropic(server, http, max_tokens=100)
            result = await _drain(model.create_stream(
                [SystemMessage(content="Be brief."), UserMessage(content="hi", source="u")],
                tools=[weather], tool_choice=weather, extra_create_args={"max_tokens": 50}))
            with pytest.raises(ValueError, match="'get_weather'"):
                await model.create([UserMessage(content="hi", source="u")],
                                   tools=[], tool_choice=weather)
            schema: ToolSchema = {"name": "other",
                                  "parameters": {"type": "object", "properties": {}}}
            with pytest.raises(ValueError, match="not among"):
                await model.create([UserMessage(content="hi", source="u")],
                                   tools=[schema], tool_choice=weather)
        sent = server.requests[0].json()
    assert sent["system"] == "Be brief." and sent["max_tokens"] == 50
    assert sent["tool_choice"] == {"type": "tool", "name": "get_weather"}
    assert sent["tools"][0]["input_schema"] == weather.schema["parameters"]
    assert result.content == [FunctionCall(id="toolu_01NRLabsLyVHZPKxbKvkfSMn",
                                           arguments='{"location": "Paris"}', name="get_weather")]
    assert result.finish_reason == "function_calls" and result.cached is False
    assert result.usage.prompt_tokens == 377 and result.usage.completion_tokens == 65


@pytest.mark.anyio
async def test_json_output_on_the_openai_wire() -> None:
    async with ReplayServer() as server:
        server.default(body(FIXTURES / "openai-chat/text-with-usage-chunk.sse"))
        async with httpx.AsyncClient() as http:
            client = Client("openai:gpt-4o", base_url=server.url, environ={"OPENAI_API_KEY": "k"},
                            http_client=http)
            model = StreamkitChatCompletionClient(client, model_info={"json_output": True})
            await _drain(model.create_stream([UserMessage(content="hi", source="u")],
                                             json_output=True))
        sent = server.requests[0].json()
    assert sent["response_format"] == {"type": "json_object"}


async def _drain(stream: Any) -> CreateResult:
    items = [item async for item in stream]
    assert all(isinstance(item, str) for item in items[:-1])
    result = items[-1]
    assert isinstance(result, CreateResult)
    return result


# ================================================================= answers


RECORDINGS = recordings()


@pytest.mark.parametrize("path", RECORDINGS, ids=fixture_id)
def test_every_recording_becomes_a_create_result_and_is_found_again(path: Path) -> None:
    response = streamkit.replay(body(path), on_error="return")[1]
    result = to_create_result(response)
    to_run = [c for c in response.tool_calls if not c.metadata.get("server")]
    if to_run:
        assert isinstance(result.content, list)
        assert [(c.id, c.name) for c in result.content] == [(c.id, c.name) for c in to_run]
        assert all(c.arguments == (b.input or "{}") for c, b in zip(result.content, to_run,
                                                                    strict=True))
    else:
        assert result.content == (response.text or response.refusal or "")
    if response.thinking:
        assert result.thought is not None and response.thinking in result.thought
    memory = ResponseMemory()
    memory.remember(result, response)
    said = AssistantMessage(content=result.content, thought=result.thought, source="assistant")
    stored = AssistantMessage.model_validate_json(said.model_dump_json())  # a saved state
    assert to_streamkit_message(said, memory) is response
    assert to_streamkit_message(stored, memory) is response


@pytest.mark.parametrize(("reason", "expected"), [
    (FinishReason.STOP, "stop"), (FinishReason.LENGTH, "length"),
    (FinishReason.TOOL_CALLS, "function_calls"), (FinishReason.CONTENT_FILTER, "content_filter"),
    (FinishReason.REFUSAL, "content_filter"), (FinishReason.PAUSE, "unknown"),
    (FinishReason.ERROR, "unknown"), (FinishReason.INTERRUPTED, "unknown"),
    (FinishReason.UNKNOWN, "unknown"), (None, "unknown")])
def test_finish_reasons(reason: FinishReason | None, expected: str) -> None:
    assert finish_reason(ChatResponse([TextBlock("x")], finished_reason=reason)) == expected


def test_calls_to_run_mean_function_calls_even_when_the_provider_says_stop() -> None:
    call = ToolCallBlock("c1", "f", "")
    assert finish_reason(ChatResponse([call], finished_reason=FinishReason.STOP)) \
        == "function_calls"
    assert finish_reason(ChatResponse([call], finished_reason=FinishReason.LENGTH)) == "length"
    result = to_create_result(ChatResponse([call]))
    assert result.content == [FunctionCall(id="c1", arguments="{}", name="f")]  # none: "{}"


def test_a_call_the_provider_ran_is_not_given_to_the_agent() -> None:
    search = ToolCallBlock("srv", "web_search", '{"q": "x"}', metadata={"server": True})
    result = to_create_result(ChatResponse([ThinkingBlock("hmm"), search, TextBlock("Found.")],
                                           finished_reason=FinishReason.STOP))
    assert result.content == "Found." and result.thought == "hmm"
    assert result.finish_reason == "stop"


def test_thought_beside_calls_holds_the_reasoning_and_the_text() -> None:
    response = ChatResponse([ThinkingBlock("Need the weather."), TextBlock("Checking."),
                             ToolCallBlock("c1", "get_weather", '{"location": "Paris"}')])
    assert to_create_result(response).thought == "Need the weather.\n\nChecking."


def test_a_refusal_is_the_content() -> None:
    response = ChatResponse([TextBlock("I can't help with that.", refusal=True)],
                            finished_reason=FinishReason.REFUSAL)
    result = to_create_result(response)
    assert result.content == "I can't help with that."
    assert result.finish_reason == "content_filter"


def test_usage_counts_the_whole_prompt() -> None:
    counts = {"input_tokens": 10, "output_tokens": 5, "cached_tokens": 100,
              "cache_creation_tokens": 20}
    anthropic = ChatUsage(**counts, input_includes_cache=False)  # as its reader stamps it
    openai = ChatUsage(**counts, input_includes_cache=True)
    assert request_usage(anthropic).prompt_tokens == 130  # Anthropic's excludes cache
    assert request_usage(openai).prompt_tokens == 10  # OpenAI's includes it
    assert request_usage(openai).completion_tokens == 5
    nothing = request_usage(None)
    assert (nothing.prompt_tokens, nothing.completion_tokens) == (0, 0)


# ================================================================= messages


def test_system_user_and_result_messages() -> None:
    assert to_streamkit_message(SystemMessage(content="Be brief.")) == sk.SystemMessage("Be brief.")
    assert to_streamkit_message(UserMessage(content="hi", source="user")) == sk.UserMessage("hi")
    results = FunctionExecutionResultMessage(content=[
        FunctionExecutionResult(content="Mexico", name="get_country", call_id="c1"),
        FunctionExecutionResult(content="boom", name="f", call_id="c2", is_error=True)])
    assert to_streamkit_message(results) == sk.FunctionExecutionResultMessage([
        sk.FunctionExecutionResult("c1", "Mexico", is_error=False, name="get_country"),
        sk.FunctionExecutionResult("c2", "boom", is_error=True, name="f")])


def test_an_image_becomes_png_bytes_of_the_same_picture() -> None:
    picture = PILImage.new("RGB", (3, 2), (200, 10, 30))
    message = to_streamkit_message(UserMessage(content=["Look:", Image.from_pil(picture)],
                                               source="user"))
    assert isinstance(message, sk.UserMessage) and isinstance(message.content, list)
    text, image = message.content
    assert isinstance(text, TextBlock) and text.text == "Look:"
    assert isinstance(image, DataBlock) and image.media_type == "image/png"
    decoded = PILImage.open(io.BytesIO(image.data))
    assert decoded.format == "PNG" and decoded.size == (3, 2)
    assert decoded.convert("RGB").getpixel((1, 1)) == (200, 10, 30)


def test_an_assistant_turn_not_remembered_is_sent_from_autogen_fields() -> None:
    calls = AssistantMessage(content=[FunctionCall(id="c1", arguments='{"a": 1}', name="f"),
                                      FunctionCall(id="c2", arguments="{}", name="g")],
                             thought="Let me look.", source="assistant")
    message = to_streamkit_message(calls, ResponseMemory())
    assert message == sk.AssistantMessage([TextBlock("Let me look.", id=_id(message, 0)),
                                           ToolCallBlock("c1", "f", '{"a": 1}'),
                                           ToolCallBlock("c2", "g", "{}")])
    answer = AssistantMessage(content="Paris.", thought="reasoning", source="assistant")
    assert to_streamkit_message(answer) == sk.AssistantMessage("Paris.")  # thought dropped


def _id(message: object, index: int) -> str:
    assert isinstance(message, sk.AssistantMessage) and isinstance(message.content, list)
    return message.content[index].id


def test_the_memory_is_bounded_and_keeps_the_most_recently_used() -> None:
    memory = ResponseMemory(size=2)
    turns = []
    for text in ("one", "two", "three"):
        response = ChatResponse([ThinkingBlock(f"why {text}", signature=f"sig-{text}"),
                                 TextBlock(text)])
        result = to_create_result(response)
        turns.append(AssistantMessage(content=result.content, thought=result.thought,
                                      source="a"))
        memory.remember(result, response)
        if text == "two":
            assert memory.recall(turns[0]) is not None  # "one" used: "two" is the oldest now
    assert len(memory) == 2
    assert memory.recall(turns[1]) is None
    assert memory.recall(turns[0]) is not None and memory.recall(turns[2]) is not None
    changed = turns[2].model_copy(update={"thought": None})  # the application changed it
    assert memory.recall(changed) is None
    with pytest.raises(ValueError, match="remember"):
        ResponseMemory(-1)


# ================================================================= tools


def test_a_function_tool_and_a_bare_schema() -> None:
    weather = FunctionTool(get_weather, description="The current weather in a city.")
    converted = to_streamkit_tool(weather)
    assert (converted.name, converted.description, converted.strict) == (
        "get_weather", "The current weather in a city.", False)
    assert converted.parameters == weather.schema["parameters"]
    assert converted.func is None  # autogen runs it
    bare = to_streamkit_tool({"name": "ping"})
    assert (bare.name, bare.description, bare.strict) == ("ping", "", None)
    assert bare.parameters == {"type": "object", "properties": {}}
    strict = to_streamkit_tool({"name": "s", "description": "d", "strict": True,
                                "parameters": {"type": "object", "properties": {},
                                               "required": [], "additionalProperties": False}})
    assert strict.strict is True and strict.parameters["additionalProperties"] is False


# ================================================================= model info, tokens, config


def _offline(model: str = "anthropic:claude-sonnet-4-5", **options: Any,
             ) -> StreamkitChatCompletionClient:
    return StreamkitChatCompletionClient(Client(model, environ=KEY), **options)


def test_model_info_is_conservative_unless_told() -> None:
    model = _offline()
    assert isinstance(model, ChatCompletionClient)
    assert model.model_info == {"vision": False, "function_calling": False,
                                "json_output": False, "structured_output": False,
                                "family": "claude"}
    told = _offline(model_info={"function_calling": True, "vision": True})
    assert (told.model_info["function_calling"], told.model_info["vision"],
            told.model_info["structured_output"]) == (True, True, False)
    known = autogen_model_info(StreamkitModelInfo(function_calling=True, family="x"),
                               {"json_output": True})
    assert (known["function_calling"], known["json_output"], known["vision"],
            known["family"]) == (True, True, False, "x")
    assert autogen_model_info(StreamkitModelInfo())["family"] == "unknown"
    with pytest.warns(DeprecationWarning):
        assert model.capabilities["function_calling"] is False


@pytest.mark.anyio
async def test_an_agent_with_tools_on_an_unknown_model_is_refused_until_told() -> None:
    with pytest.raises(ValueError, match="function calling"):
        AssistantAgent("assistant", model_client=_offline(), tools=[get_weather])
    agent = AssistantAgent("assistant", model_client=_offline(model_info=CAPABLE),
                           tools=[get_weather])
    assert agent.name == "assistant"


@pytest.mark.anyio
async def test_what_model_info_denies_is_refused_before_sending() -> None:
    model = _offline(model_info={"vision": False, "function_calling": False,
                                 "json_output": False, "structured_output": False})
    picture = Image.from_pil(PILImage.new("RGB", (2, 2)))
    with pytest.raises(ValueError, match="vision"):
        await model.create([UserMessage(content=[picture], source="u")])
    with pytest.raises(ValueError, match="call functions"):
        await model.create([UserMessage(content="hi", source="u")], tools=[{"name": "f"}])
    with pytest.raises(ValueError, match="JSON mode"):
        await model.create([UserMessage(content="hi", source="u")], json_output=True)
    with pytest.raises(ValueError, match="structured output"):
        await model.create([UserMessage(content="hi", source="u")], json_output=CreateResult)


def test_token_counts_are_an_estimate_of_what_would_be_sent() -> None:
    model = _offline(context_window=1_000)
    system: list[LLMMessage] = [SystemMessage(content="a" * 40)]
    assert model.count_tokens(system) == TOKENS_PER_MESSAGE + 10
    picture = Image.from_pil(PILImage.new("RGB", (100, 75)))
    assert model.count_tokens([UserMessage(content=[picture], source="u")]) \
        == TOKENS_PER_MESSAGE + 10  # 7,500 pixels / 750
    huge = Image.from_pil(PILImage.new("RGB", (2_000, 2_000)))
    assert model.count_tokens([UserMessage(content=[huge], source="u")]) \
        == TOKENS_PER_MESSAGE + MAX_IMAGE_TOKENS
    tool: ToolSchema = {"name": "f"}
    assert model.count_tokens([], tools=[tool]) == len(json.dumps(tool)) // 4 + 1
    assert model.remaining_tokens(system) == 1_000 - TOKENS_PER_MESSAGE - 10

    response = ChatResponse([ThinkingBlock("r" * 400, signature="s"), TextBlock("t" * 40)])
    result = to_create_result(response)
    said = AssistantMessage(content=result.content, thought=result.thought, source="a")
    assert model.count_tokens([said]) == TOKENS_PER_MESSAGE + 10  # lossy: the thought dropped
    model.memory.remember(result, response)
    assert model.count_tokens([said]) == TOKENS_PER_MESSAGE + 110  # the reasoning goes back

    with pytest.raises(ValueError, match="context_window"):
        _offline().remaining_tokens(system)
    assert _offline(model_info={"context_window": 50}).remaining_tokens(system) == 36


def test_the_component_config_round_trips_without_the_key(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret-value")
    model = StreamkitChatCompletionClient("anthropic:claude-sonnet-4-5", thinking_budget=2000,
                                          context_window=200_000, remember=8,
                                          model_info={"vision": False})
    dumped = model.dump_component()
    assert "sk-ant-secret-value" not in dumped.model_dump_json()
    assert dumped.provider == "streamkit.adapters.autogen.StreamkitChatCompletionClient"
    loaded = ChatCompletionClient.load_component(dumped)
    assert isinstance(loaded, StreamkitChatCompletionClient)
    assert loaded.client.model == "claude-sonnet-4-5"
    assert loaded.client.base_url == "https://api.anthropic.com/v1"
    assert loaded.model_info == model.model_info and loaded.model_info["vision"] is False
    assert loaded.memory.size == 8
    assert loaded.dump_component() == dumped
    with pytest.raises(ValueError, match="api_key and base_url"):
        StreamkitChatCompletionClient(model.client, base_url="http://x")


@pytest.mark.anyio
async def test_close_closes_only_a_client_made_here() -> None:
    async with httpx.AsyncClient() as http:
        given = Client("anthropic:claude-sonnet-4-5", environ=KEY, http_client=http)
        await StreamkitChatCompletionClient(given).close()
        assert not http.is_closed
    made = StreamkitChatCompletionClient("anthropic:claude-sonnet-4-5", api_key="k")
    inner = made.client._http  # the httpx client streamkit made
    await made.close()
    assert inner.is_closed
