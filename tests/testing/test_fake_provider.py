"""streamkit.testing.FakeProvider: scripted answers served in every wire over a
real socket, read by the official SDKs and by streamkit's own clients."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any
from urllib.parse import urlsplit

import anthropic
import httpx
import openai
import pytest

import streamkit
from streamkit import (
    ChatResponse,
    ChatUsage,
    FinishReason,
    FunctionExecutionResultMessage,
    Request,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    UserMessage,
)
from streamkit.framing.sse import SSEDecoder
from streamkit.model.errors import InvalidBodyError, ProviderError, StreamkitError
from streamkit.providers import WIRE_NAMES, vendor
from streamkit.providers.routes import OWN_PROVIDER
from streamkit.testing import (
    SECRET_HEADERS,
    FakeProvider,
    Pacing,
    RecordedRequest,
    ReplayServer,
    Reply,
)

pytestmark = pytest.mark.anyio

#: The wires a fake answers in: those with encoders (the others join when theirs land).
ENCODED = list(WIRE_NAMES)  # a fake speaks every wire

WEATHER_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {"name": "weather", "description": "The weather in a city.",
                 "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                "required": ["city"]}}}
ANTHROPIC_WEATHER: dict[str, Any] = {
    "name": "weather", "description": "The weather in a city.",
    "input_schema": WEATHER_TOOL["function"]["parameters"]}


def _tool_turn() -> ChatResponse:
    """Reasoning, then a call of ``weather``."""
    return ChatResponse(content=[ThinkingBlock("The user wants Paris.", id="th", signature="s1"),
                                 ToolCallBlock("call_1", "weather", '{"city": "Paris"}')],
                        usage=ChatUsage(input_tokens=12, output_tokens=7))


def _final_turn(text: str = "Sunny in Paris.") -> ChatResponse:
    return ChatResponse(content=[TextBlock(text, id="tx")],
                        usage=ChatUsage(input_tokens=30, output_tokens=5))


def _sse_events(body: bytes) -> list[tuple[str | None, Any]]:
    """A raw SSE body as (event name, decoded data) pairs, ``[DONE]`` kept as text."""
    decoder = SSEDecoder()
    events = [*decoder.feed(body), *decoder.flush()]
    return [(event.event, event.data if event.data == "[DONE]" else json.loads(event.data))
            for event in events]


def test_import_streamkit_loads_no_testing_module() -> None:
    code = ("import sys, streamkit; "
            "print(sorted(m for m in sys.modules if m.startswith('streamkit.') and "
            "m.split('.')[1] in ('testing', 'fake_provider')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


# ------------------------------------------------------------- official SDKs


async def test_a_tool_loop_through_the_openai_sdk_sends_the_tool_result_back() -> None:
    async with FakeProvider([_tool_turn(), _final_turn()]) as fake:
        client = openai.AsyncOpenAI(base_url=fake.url + "/v1", api_key="sk-test", max_retries=0)
        messages: list[Any] = [{"role": "user", "content": "Weather in Paris?"}]
        async with client.chat.completions.stream(model="gpt-test", messages=messages,
                                                  tools=[WEATHER_TOOL]) as stream:
            first = await stream.get_final_completion()
        message = first.choices[0].message
        assert first.model == "gpt-test"  # the request's, since the script names none
        assert getattr(message, "reasoning_content", None) == "The user wants Paris."
        assert message.tool_calls is not None
        (call,) = message.tool_calls
        assert (call.id, call.function.name, json.loads(call.function.arguments)) == \
            ("call_1", "weather", {"city": "Paris"})
        assert first.choices[0].finish_reason == "tool_calls"
        messages += [message.model_dump(exclude_none=True),
                     {"role": "tool", "tool_call_id": call.id, "content": "Sunny, 21 C"}]
        second = await client.chat.completions.create(model="gpt-test", messages=messages,
                                                      tools=[WEATHER_TOOL])
        await client.close()
    assert second.choices[0].message.content == "Sunny in Paris."
    assert second.choices[0].finish_reason == "stop"
    assert [request.stream for request in fake.requests] == [True, False]
    results = fake.requests[1].messages[-1]
    assert type(results) is FunctionExecutionResultMessage
    assert [(result.call_id, result.content) for result in results.content] == \
        [("call_1", "Sunny, 21 C")]
    assert fake.requests[0].headers["authorization"] == "<redacted>"
    assert "sk-test" not in repr(fake.requests)
    assert not fake.errors and not fake.server.errors


async def test_a_tool_loop_through_the_anthropic_sdk_sends_the_tool_result_back() -> None:
    async with FakeProvider([_tool_turn(), _final_turn()]) as fake:
        client = anthropic.AsyncAnthropic(base_url=fake.url, api_key="sk-test", max_retries=0)
        messages: list[Any] = [{"role": "user", "content": "Weather in Paris?"}]
        async with client.messages.stream(model="claude-test", max_tokens=100,
                                          messages=messages, tools=[ANTHROPIC_WEATHER]) as stream:
            first = await stream.get_final_message()
        assert [block.type for block in first.content] == ["thinking", "tool_use"]
        thinking, call = first.content
        assert thinking.type == "thinking" and thinking.thinking == "The user wants Paris."
        assert call.type == "tool_use" and (call.id, call.name, call.input) == \
            ("call_1", "weather", {"city": "Paris"})
        assert first.stop_reason == "tool_use" and first.model == "claude-test"
        messages += [{"role": "assistant", "content": [block.model_dump(exclude_none=True)
                                                       for block in first.content]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id,
                                                   "content": "Sunny, 21 C"}]}]
        second = await client.messages.create(model="claude-test", max_tokens=100,
                                              messages=messages, tools=[ANTHROPIC_WEATHER])
        await client.close()
    assert [block.type for block in second.content] == ["text"]
    assert second.content[0].type == "text" and second.content[0].text == "Sunny in Paris."
    assert second.stop_reason == "end_turn"
    results = fake.requests[1].messages[-1]
    assert type(results) is FunctionExecutionResultMessage
    assert [(result.call_id, result.content) for result in results.content] == \
        [("call_1", "Sunny, 21 C")]
    secrets = {name: value for name, value in fake.requests[0].headers.items()
               if name in SECRET_HEADERS}
    assert secrets and set(secrets.values()) == {"<redacted>"}
    assert not fake.errors


async def test_a_scripted_model_wins_over_the_requests() -> None:
    scripted = ChatResponse(content=[TextBlock("hi")], model="scripted-7")
    async with FakeProvider([scripted]) as fake:
        client = openai.AsyncOpenAI(base_url=fake.url + "/v1", api_key="k", max_retries=0)
        answer = await client.chat.completions.create(
            model="asked", messages=[{"role": "user", "content": "x"}])
        await client.close()
    assert answer.model == "scripted-7"
    assert scripted.finished_reason is None  # the script's own object is left as it was


# ------------------------------------------------------------------ pacing


async def test_pacing_splits_text_into_chunks_of_the_tokens_asked() -> None:
    text = "The quick brown fox jumps over the lazy dog!"  # 44 characters
    # 3 tokens a chunk = 12 characters: 12 + 12 + 12 + 8
    async with FakeProvider([_final_turn(text)] * 2, pacing=Pacing(tokens_per_chunk=3)) as fake:
        client = openai.AsyncOpenAI(base_url=fake.url + "/v1", api_key="k", max_retries=0)
        stream = await client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "x"}], stream=True)
        pieces = [chunk.choices[0].delta.content async for chunk in stream
                  if chunk.choices and chunk.choices[0].delta.content]
        await client.close()
        async with httpx.AsyncClient(base_url=fake.url) as http:
            raw = await http.post("/v1/messages", json={
                "model": "m", "max_tokens": 10, "stream": True,
                "messages": [{"role": "user", "content": "x"}]})
    assert pieces == [text[0:12], text[12:24], text[24:36], text[36:]]
    deltas = [data["delta"]["text"] for name, data in _sse_events(raw.content)
              if name == "content_block_delta"]
    assert deltas == pieces


async def test_pacing_splits_reasoning_and_tool_arguments_too_and_each_chunk_is_a_write() -> None:
    arguments = '{"city": "Paris", "unit": "celsius"}'  # 36 characters: 5 chunks of 8
    response = ChatResponse(content=[ThinkingBlock("Paris it is, in celsius."),  # 24: 3 of 8
                                     ToolCallBlock("call_9", "weather", arguments)])
    async with FakeProvider([response], pacing=Pacing(tokens_per_chunk=2, delay=0.01)) as fake:
        writes: list[bytes] = []
        async with httpx.AsyncClient(base_url=fake.url) as http, http.stream(
                "POST", "/v1/messages", json={"model": "m", "max_tokens": 10, "stream": True,
                                              "messages": [{"role": "user", "content": "x"}]}
        ) as answer:
            async for piece in answer.aiter_raw():
                writes.append(piece)
    events = _sse_events(b"".join(writes))
    deltas = [data["delta"] for name, data in events if name == "content_block_delta"]
    assert [delta.get("thinking") for delta in deltas if delta["type"] == "thinking_delta"] == \
        ["Paris it", " is, in ", "celsius."]
    assert [delta["partial_json"] for delta in deltas if delta["type"] == "input_json_delta"] \
        == [arguments[i:i + 8] for i in range(0, 36, 8)]
    # Each delta chunk is its own write, `delay` apart: the client sees at least one
    # read per chunk (a read never spans two writes sent 10 ms apart on loopback,
    # but the kernel may still split one write, hence >=).
    assert len(writes) >= 3 + 5


async def test_without_pacing_each_block_is_one_delta() -> None:
    async with FakeProvider([_final_turn("one two three four five six")]) as fake, \
            httpx.AsyncClient(base_url=fake.url) as http:
        raw = await http.post("/v1/chat/completions", json={
            "model": "m", "stream": True, "messages": [{"role": "user", "content": "x"}]})
    contents = [data["choices"][0]["delta"].get("content") for _, data in _sse_events(raw.content)
                if data != "[DONE]" and data["choices"]]
    assert [content for content in contents if content] == ["one two three four five six"]
    assert raw.headers["content-type"].startswith("text/event-stream")


def test_pacing_refuses_a_size_or_delay_that_cannot_be() -> None:
    with pytest.raises(ValueError, match="tokens_per_chunk"):
        Pacing(tokens_per_chunk=0)
    with pytest.raises(ValueError, match="delay"):
        Pacing(delay=-1)


# ----------------------------------------------------- a function of the request


def _echo(request: Request) -> ChatResponse:
    """Answers with the last user message's text."""
    last = [message for message in request.messages if type(message) is UserMessage][-1]
    assert isinstance(last.content, str)
    return ChatResponse(content=[TextBlock(f"you said: {last.content}")])


async def test_a_function_of_the_request_answers_each_request() -> None:
    async with FakeProvider(_echo) as fake:
        async with streamkit.Client("openai:m", api_key="k", base_url=fake.url + "/v1") as client:
            first = await client.create([UserMessage("hello")])
            async with client.stream([UserMessage("again")]) as events:
                second = await events.final()
        sdk = anthropic.AsyncAnthropic(base_url=fake.url, api_key="k", max_retries=0)
        third = await sdk.messages.create(model="claude", max_tokens=10,
                                          messages=[{"role": "user", "content": "third"}])
        await sdk.close()
    assert (first.text, second.text) == ("you said: hello", "you said: again")
    assert third.content[0].type == "text" and third.content[0].text == "you said: third"
    assert [request.wire for request in fake.requests] == \
        ["openai-chat", "openai-chat", "anthropic"]
    assert [request.stream for request in fake.requests] == [False, True, False]
    assert not fake.errors


async def test_a_function_that_raises_is_a_500_and_kept_in_errors() -> None:
    def broken(request: Request) -> ChatResponse:
        raise KeyError("no such turn")

    async with FakeProvider(broken) as fake:
        sdk = openai.AsyncOpenAI(base_url=fake.url + "/v1", api_key="k", max_retries=0)
        with pytest.raises(openai.InternalServerError, match="raised KeyError"):
            await sdk.chat.completions.create(model="m",
                                              messages=[{"role": "user", "content": "x"}])
        await sdk.close()
    assert [type(error) for error in fake.errors] == [KeyError]


async def test_a_function_that_returns_no_answer_is_a_500_saying_so() -> None:
    async with FakeProvider(lambda request: "hello") as fake:  # type: ignore[arg-type,return-value]
        sdk = anthropic.AsyncAnthropic(base_url=fake.url, api_key="k", max_retries=0)
        with pytest.raises(anthropic.InternalServerError, match="must return a ChatResponse"):
            await sdk.messages.create(model="m", max_tokens=5,
                                      messages=[{"role": "user", "content": "x"}])
        await sdk.close()
    assert [str(error) for error in fake.errors] == [
        "the FakeProvider's reply function must return a ChatResponse or a StreamkitError, "
        "not str"]


# ------------------------------------------------------------------ errors


@pytest.mark.parametrize(("status", "openai_error", "anthropic_error"), [
    (400, openai.BadRequestError, anthropic.BadRequestError),
    (401, openai.AuthenticationError, anthropic.AuthenticationError),
    (404, openai.NotFoundError, anthropic.NotFoundError),
    (429, openai.RateLimitError, anthropic.RateLimitError),
    (500, openai.InternalServerError, anthropic.InternalServerError),
])
async def test_an_error_item_is_the_sdks_own_exception_for_its_status(
        status: int, openai_error: type[Exception], anthropic_error: type[Exception]) -> None:
    error = ProviderError(f"scripted failure {status}", status=status)
    async with FakeProvider([error, error, _final_turn()]) as fake:
        chat = openai.AsyncOpenAI(base_url=fake.url + "/v1", api_key="k", max_retries=0)
        with pytest.raises(openai_error, match=f"scripted failure {status}"):
            await chat.chat.completions.create(model="m", stream=True,
                                               messages=[{"role": "user", "content": "x"}])
        await chat.close()
        claude = anthropic.AsyncAnthropic(base_url=fake.url, api_key="k", max_retries=0)
        with pytest.raises(anthropic_error, match=f"scripted failure {status}"):
            await claude.messages.create(model="m", max_tokens=5,
                                         messages=[{"role": "user", "content": "x"}])
        # the script goes on after an error: the next request gets the next answer
        after = await claude.messages.create(model="m", max_tokens=5,
                                             messages=[{"role": "user", "content": "x"}])
        await claude.close()
    assert after.content[0].type == "text" and after.content[0].text == "Sunny in Paris."
    assert not fake.errors  # a scripted error is an answer, not a fault of the fake


async def test_streamkits_client_reads_an_error_item_as_a_provider_error() -> None:
    async with FakeProvider([ProviderError("slow down", status=429)]) as fake, \
            streamkit.Client("anthropic:m", api_key="k", base_url=fake.url + "/v1",
                             max_retries=0) as client:
        with pytest.raises(ProviderError) as raised:
            await client.create([UserMessage("x")])
    assert raised.value.status == 429 and "slow down" in raised.value.message


async def test_an_exhausted_script_is_a_500_naming_it_and_kept_in_errors() -> None:
    async with FakeProvider([_final_turn()]) as fake:
        sdk = openai.AsyncOpenAI(base_url=fake.url + "/v1", api_key="k", max_retries=0)
        messages: list[Any] = [{"role": "user", "content": "x"}]
        await sdk.chat.completions.create(model="m", messages=messages)
        with pytest.raises(openai.InternalServerError, match="script is used up") as raised:
            await sdk.chat.completions.create(model="m", messages=messages, stream=True)
        await sdk.close()
    assert raised.value.status_code == 500
    assert "request 2 (POST /v1/chat/completions)" in str(raised.value)
    (error,) = fake.errors
    assert isinstance(error, StreamkitError) and "it has 1 reply and" in str(error)
    assert len(fake.requests) == 2  # the request past the script is recorded too


async def test_a_body_its_wire_cannot_read_is_that_wires_400_and_still_recorded() -> None:
    async with FakeProvider([_final_turn()]) as fake, httpx.AsyncClient(base_url=fake.url) as http:
        bad = await http.post("/v1/messages", json={"model": "m", "messages": 5})
        not_json = await http.post("/v1/chat/completions", content=b"{nope")
        good = await http.post("/v1/chat/completions",
                               json={"model": "m", "messages": [{"role": "user", "content": "x"}]})
    assert bad.status_code == 400 and bad.json()["type"] == "error"  # Anthropic's error body
    assert bad.json()["error"]["type"] == "invalid_request_error"
    assert not_json.status_code == 400 and "not JSON" in not_json.json()["error"]["message"]
    assert good.status_code == 200 and good.json()["choices"][0]["message"]["content"] == \
        "Sunny in Paris."
    assert [(request.wire, request.request is None) for request in fake.requests] == \
        [("anthropic", True), ("openai-chat", True), ("openai-chat", False)]
    assert isinstance(fake.requests[0].error, InvalidBodyError)
    assert fake.requests[1].raw.body == b"{nope" and fake.requests[1].messages == []
    assert not fake.errors  # the script was not used by the unreadable requests


async def test_a_path_no_wire_serves_is_a_404_and_recorded() -> None:
    async with FakeProvider([]) as fake, httpx.AsyncClient(base_url=fake.url) as http:
        answer = await http.get("/v1/models")
    message = answer.json()["error"]["message"]
    assert answer.status_code == 404 and "serves no wire at GET /v1/models" in message
    assert all(path in message for path in ("/v1/chat/completions", "/v1/responses",
                                            "/v1/messages", "/v1beta/models/MODEL:generateContent",
                                            "/api/chat", "fake.base_url(provider)")), message
    assert [(request.path, request.wire) for request in fake.requests] == [("/v1/models", None)]


def test_a_script_item_that_is_no_answer_is_refused_at_once() -> None:
    with pytest.raises(TypeError, match="reply 1 must be a ChatResponse or a StreamkitError"):
        FakeProvider([_final_turn(), "hello"])  # type: ignore[list-item]


# --------------------------------------------------------------- synchronous


def test_the_thread_form_serves_the_sync_clients() -> None:
    with FakeProvider.in_thread([_tool_turn(), _final_turn(), _final_turn("bye")]) as fake:
        with streamkit.SyncClient("openai:m", api_key="k", base_url=fake.url + "/v1") as client:
            with client.stream([UserMessage("weather?")]) as events:
                first = events.final()
            second = client.create([UserMessage("weather?"), first])
        sdk = openai.OpenAI(base_url=fake.url + "/v1", api_key="k", max_retries=0)
        third = sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
        sdk.close()
    assert [(call.id, call.name, call.arguments()) for call in first.tool_calls] == \
        [("call_1", "weather", {"city": "Paris"})]
    assert first.thinking == "The user wants Paris."
    assert first.finished_reason is FinishReason.TOOL_CALLS
    assert second.text == "Sunny in Paris." and third.choices[0].message.content == "bye"
    assert len(fake.requests) == 3 and not fake.errors


# ------------------------------------------------------ every wire with encoders


def _base_url(fake: FakeProvider, provider: str) -> str:
    """The fake as ``provider``'s base URL: its registry URL's path under the fake."""
    return fake.url + urlsplit(vendor(provider).base_url).path.rstrip("/")


@pytest.mark.parametrize("wire", ENCODED)
async def test_streamkits_client_of_each_wire_reads_the_scripted_turns(wire: str) -> None:
    provider = OWN_PROVIDER[wire]
    async with FakeProvider([_tool_turn(), _final_turn()], pacing=Pacing(2)) as fake, \
            streamkit.Client(f"{provider}:model-x", api_key="k",
                             base_url=_base_url(fake, provider)) as client:
        async with client.stream([UserMessage("weather?")]) as events:
            first = await events.final()
        second = await client.create([UserMessage("weather?"), first])
    # (ids: not every wire carries a call's id; the SDK tests above check them)
    assert [(call.name, call.arguments()) for call in first.tool_calls] == \
        [("weather", {"city": "Paris"})]
    assert first.thinking == "The user wants Paris."
    assert first.finished_reason is FinishReason.TOOL_CALLS
    assert first.model == "model-x"
    assert second.text == "Sunny in Paris." and second.finished_reason is FinishReason.STOP
    assert [request.wire for request in fake.requests] == [wire, wire]
    assert [request.stream for request in fake.requests] == [True, False]
    assert not fake.errors


@pytest.mark.parametrize("wire", ENCODED)
async def test_an_exhausted_script_is_each_wires_error(wire: str) -> None:
    provider = OWN_PROVIDER[wire]
    async with FakeProvider([]) as fake, \
            streamkit.Client(f"{provider}:model-x", api_key="k", max_retries=0,
                             base_url=_base_url(fake, provider)) as client:
        with pytest.raises(ProviderError, match="script is used up") as raised:
            await client.create([UserMessage("x")])
    assert raised.value.status == 500 and len(fake.errors) == 1


@pytest.mark.parametrize("wire", ENCODED)
async def test_any_string_is_served_and_any_failure_of_the_fake_is_kept_in_errors(
        wire: str) -> None:
    """A lone surrogate (a ``str`` may hold one; UTF-8 cannot) and a line
    separator are served in every wire, streamed and whole; an answer no JSON
    can say (an ``object()`` in its kept fields) is the wire's 500 and kept in
    ``fake.errors``, whatever raised, not only a ``StreamkitError``."""
    provider = OWN_PROVIDER[wire]
    text = "a\ud800b \u2028 \U0001f600"
    said = ChatResponse(content=[TextBlock(text)])
    unsayable = ChatResponse(content=[TextBlock("x", metadata={"kept": object()})],
                             metadata={"kept": object()})
    async with FakeProvider([said, said, unsayable]) as fake, \
            streamkit.Client(f"{provider}:model-x", api_key="k", max_retries=0,
                             base_url=_base_url(fake, provider)) as client:
        async with client.stream([UserMessage("x")]) as events:
            streamed = await events.final()
        whole = await client.create([UserMessage("x")])
        with pytest.raises(ProviderError, match="FakeProvider failed") as raised:
            await client.create([UserMessage("x")])
    assert streamed.text == whole.text == text
    assert raised.value.status == 500
    assert [type(error) for error in fake.errors] == [TypeError] and not fake.server.errors


# ------------------------------------------------------------ the server under it


async def test_a_responder_computes_each_reply_from_the_request() -> None:
    def respond(request: RecordedRequest) -> Reply:
        return Reply(request.body[::-1], content_type="text/plain", status=201)

    async with ReplayServer() as server, httpx.AsyncClient(base_url=server.url) as http:
        server.add_responder("/echo", respond)
        answer = await http.post("/echo", content=b"abc")
        other = await http.post("/other", content=b"abc")
    assert (answer.status_code, answer.content) == (201, b"cba")
    assert other.status_code == 404


async def test_a_responder_that_raises_is_a_500_kept_in_the_servers_errors() -> None:
    def respond(request: RecordedRequest) -> Reply:
        raise RuntimeError("boom")

    async with ReplayServer() as server, httpx.AsyncClient(base_url=server.url) as http:
        server.add_responder("*", respond)
        answer = await http.get("/anything")
    assert answer.status_code == 500 and "RuntimeError: boom" in answer.json()["error"]["message"]
    assert [str(error) for error in server.errors] == ["boom"]


async def test_splits_write_the_body_at_its_own_boundaries() -> None:
    async with ReplayServer() as server:
        server.add("/a", b"one|two|three", splits=[4, 8], delay=0.05)
        async with httpx.AsyncClient(base_url=server.url) as http, \
                http.stream("GET", "/a") as answer:
            reads = [piece async for piece in answer.aiter_raw()]
    assert reads == [b"one|", b"two|", b"three"]


def test_splits_that_cannot_be_are_refused() -> None:
    server = ReplayServer()
    with pytest.raises(ValueError, match="splits must be increasing"):
        server.add("/a", b"abc", splits=[2, 1])
    with pytest.raises(ValueError, match="splits must be increasing"):
        server.add("/a", b"abc", splits=[3])
    with pytest.raises(ValueError, match="not both"):
        server.add("/a", b"abc", splits=[1], chunk_size=1)


async def test_base_url_reaches_every_provider_of_the_registry_through_the_client() -> None:
    """``fake.base_url(name)`` is where each provider's API is on the fake, so a
    Client given it reaches the fake in that provider's wire; Azure's
    deployment paths, which no wire serves, are refused by name."""
    names = sorted(name for name in streamkit.PROVIDERS if name != "azure")
    async with FakeProvider(_echo) as fake:
        for name in names:
            async with streamkit.Client(f"{name}:m", api_key="k",
                                        base_url=fake.base_url(name)) as client:
                answer = await client.create([UserMessage(name)])
            assert answer.text == f"you said: {name}", name
        with pytest.raises(streamkit.ProviderConfigError, match="deployments"):
            fake.base_url("azure")
        assert fake.base_url("gemini") == fake.url + "/v1beta"
        assert fake.base_url("ollama") == fake.url
    assert [request.wire for request in fake.requests] == [vendor(name).wire for name in names]
    assert not fake.errors
