"""A whole call across a client's models, driven by hand: no socket, no sleep, no clock.

:func:`~streamkit.client.orchestration.create_call` and
:func:`~streamkit.client.orchestration.stream_call` hold the fallback chain,
the retries, telemetry and the usage totals once for both clients, as
generators of steps. These tests play the shell's part with in-memory
``httpx.Response`` values (as ``client/test_core.py`` does for one
model's attempts), so every decision is seen as the step it produces: a retry
wait, the fall to the next model, the final error with its partial answer, a
stream opened, delivered and counted, and what a shell meets thrown back into
the core. The last tests check that the read options a caller gives reach the
stream whole, through the real clients over a real socket (``ReplayServer``).
"""

from __future__ import annotations

import json
from collections.abc import Generator, Iterator
from typing import Any

import httpx
import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.semconv.attributes import error_attributes
from opentelemetry.trace import StatusCode
from support.client_steps import Clock, error_response
from support.conversations import CONVERSATIONS

from streamkit import Client, SyncClient, UserMessage
from streamkit.client.attempts import Attempt
from streamkit.client.core import ClientCore
from streamkit.client.fallbacks import Chain
from streamkit.client.orchestration import create_call, stream_call
from streamkit.client.steps import Close, Deliver, Open, Read, Send, Step, Wait
from streamkit.client.timeouts import Timeouts
from streamkit.model.errors import IncompleteStreamError, NoResponseError, ProviderError
from streamkit.model.finish import FinishReason
from streamkit.observability import observer as observability
from streamkit.reading.options import ReadKeywords, ReadOptions
from streamkit.reading.stream import Stream, SyncStream
from streamkit.testing import ReplayServer

KEYS = {"ANTHROPIC_API_KEY": "sk-ant-orchestration-0123456789",
        "OPENAI_API_KEY": "sk-openai-orchestration-0123456789"}
OPENAI_ANSWER = (CONVERSATIONS / "openai-chat/tool-call-json/turn1.response.json").read_bytes()
OPENAI_RESPONSE = httpx.Response(200, headers={"content-type": "application/json"},
                                 content=OPENAI_ANSWER)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def chain(attempts: list[Attempt], *, stream: bool,
          max_retries: int = 1) -> tuple[Chain, ClientCore]:
    """Anthropic, falling back to OpenAI, for one user turn; and the client's
    own model, whose usage totals both count into."""
    def core(model: str, fallback: int) -> ClientCore:
        return ClientCore(model, None, "http://127.0.0.1:9/v1", timeout=Timeouts(),
                          max_retries=max_retries, retry=None, model_info=None,
                          on_attempt=attempts.append, environ=KEYS, overrides={},
                          fallback=fallback)

    own, fallback = core("anthropic:claude-test", 0), core("openai:gpt-test", 1)
    fallback.share_totals(own)
    return Chain([own, fallback], lambda model: model.body(
        [UserMessage("Where am I?")], stream=stream, tools=None, tool_choice=None,
        json_output=None, options={}), stream=stream), own


def read_body(step: Step, data: bytes | None = None) -> None:
    """The shell's part of a Read step: ``data`` (the whole in-memory body by
    default) fed to the step's sink."""
    assert isinstance(step, Read)
    step.body.read([step.response.content if data is None else data])


def result(steps: Generator[Step, Any, Any], outcome: Any = None) -> Any:
    """What the call returns once told ``outcome``."""
    with pytest.raises(StopIteration) as done:
        steps.send(outcome)
    return done.value.value


def sent_json(step: Step) -> dict[str, Any]:
    assert isinstance(step, Send)
    body: dict[str, Any] = json.loads(step.call.content)
    return body


def test_a_retry_wait_then_a_fallback_that_answers() -> None:
    attempts: list[Attempt] = []
    clock = Clock()
    calls, own = chain(attempts, stream=False)
    steps = create_call(calls, clock.timing())

    first = next(steps)
    assert isinstance(first, Send) and first.call.url.endswith("/v1/messages")
    assert sent_json(first)["model"] == "claude-test"
    read_body(steps.send(error_response(529, "overloaded")))
    wait = steps.send(None)
    assert wait == Wait(0.4375)  # the backoff: 0.5 s less a random eighth
    clock.at += wait.seconds
    again = steps.send(None)
    assert isinstance(again, Send) and again.call is first.call  # the same request
    read_body(steps.send(error_response(503, "busy")))
    fallback = steps.send(None)  # no retry left: the next model, its body built for its wire
    assert isinstance(fallback, Send) and fallback.call.url.endswith("/v1/chat/completions")
    assert sent_json(fallback)["model"] == "gpt-test"
    read = steps.send(OPENAI_RESPONSE)
    assert isinstance(read, Read) and read.response is OPENAI_RESPONSE
    read_body(read)
    answer = result(steps)
    assert answer.provider == "openai" and answer.tool_calls[0].name == "get_user_country"
    assert answer.timing.attempts == 3 and answer.timing.before_answer == 0.4375
    assert [(a.fallback, a.number, a.status, a.retry_in) for a in attempts] == [
        (0, 1, 529, 0.4375), (0, 2, 503, None), (1, 1, 200, None)]
    assert answer.usage is not None  # counted once, into the client's own totals
    assert (own.usage.total.input_tokens, own.usage.total.output_tokens) == (
        answer.usage.input_tokens, answer.usage.output_tokens) == (68, 12)


def test_a_body_that_breaks_after_the_fallback_answered_carries_its_partial() -> None:
    attempts: list[Attempt] = []
    calls, own = chain(attempts, stream=False, max_retries=0)
    steps = create_call(calls, Clock().timing())
    next(steps)
    refused = httpx.ConnectError("refused")
    fallback = steps.send(refused)  # no response at all: straight to the next model
    assert isinstance(fallback, Send) and fallback.call.url.endswith("/v1/chat/completions")
    read = steps.send(OPENAI_RESPONSE)
    cut = OPENAI_ANSWER.index(b'"get_user_country"') + len(b'"get_user_country"')
    read_body(read, OPENAI_ANSWER[:cut])  # the body broke after the tool's name
    with pytest.raises(IncompleteStreamError) as caught:
        steps.send(httpx.ReadError("connection reset"))

    error = caught.value
    assert error.partial is not None and error.partial.provider == "openai"
    assert error.partial.finished_reason is FinishReason.INTERRUPTED
    assert [call.name for call in error.partial.tool_calls] == ["get_user_country"]
    assert error.fallback_errors == ()  # the answer had begun: the error is the answer's own
    assert own.usage.total.input_tokens is None  # nothing was handed back whole
    assert [(a.fallback, type(a.error)) for a in attempts] == [
        (0, NoResponseError), (1, type(None))]
    assert attempts[0].error is not None and attempts[0].error.__cause__ is refused


def test_when_every_model_fails_the_last_error_carries_the_earlier_ones() -> None:
    attempts: list[Attempt] = []
    steps = create_call(chain(attempts, stream=False, max_retries=0)[0], Clock().timing())
    next(steps)
    assert isinstance(steps.send(httpx.ConnectError("refused")), Send)
    read_body(steps.send(error_response(500, "broken")))
    with pytest.raises(ProviderError, match="broken") as caught:
        steps.send(None)

    error = caught.value
    assert error.status == 500 and error.partial is not None
    assert (error.partial.provider, error.partial.finished_reason) == ("openai",
                                                                       FinishReason.ERROR)
    (earlier,) = error.fallback_errors
    assert isinstance(earlier, NoResponseError) and earlier.partial is not None
    assert earlier.partial.provider == "anthropic"
    assert any("anthropic:claude-test failed before" in note for note in error.__notes__)


def test_a_status_that_does_not_fall_back_ends_the_call_with_its_error() -> None:
    attempts: list[Attempt] = []
    steps = create_call(chain(attempts, stream=False)[0], Clock().timing())
    next(steps)
    read_body(steps.send(error_response(400, "bad request")))
    with pytest.raises(ProviderError, match="bad request") as caught:
        steps.send(None)
    assert caught.value.status == 400 and caught.value.fallback_errors == ()
    assert [(a.fallback, a.status) for a in attempts] == [(0, 400)]


def sse(*chunks: dict[str, Any]) -> bytes:
    return b"".join(b"data: " + json.dumps(chunk).encode() + b"\n\n" for chunk in chunks) \
        + b"data: [DONE]\n\n"


def reasoned_chat_stream(opening: str, closing: str) -> bytes:
    """An OpenAI Chat stream whose content holds its reasoning between two tags,
    then its usage."""
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {"id": "c1", "object": "chat.completion.chunk", "model": "gpt-test",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    return sse(chunk({"role": "assistant", "content": f"{opening}Greeted"}),
               chunk({"content": f".{closing}Hello!"}), chunk({}, "stop"),
               {"id": "c1", "object": "chat.completion.chunk", "model": "gpt-test",
                "choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 4,
                                         "total_tokens": 13}})


def test_a_stream_is_opened_delivered_and_counted_once_the_caller_is_done() -> None:
    attempts: list[Attempt] = []
    clock = Clock()
    calls, own = chain(attempts, stream=True, max_retries=0)
    options = ReadOptions(on_error="return", think_tags=("<r>", "</r>"))
    steps = stream_call(calls, clock.timing(), options)
    next(steps)
    fallback = steps.send(httpx.ConnectError("refused"))
    assert isinstance(fallback, Send)
    answered = httpx.Response(200, headers={"content-type": "text/event-stream"})
    opened = steps.send(answered)
    assert isinstance(opened, Open) and opened.response is answered
    assert opened.deadline is None and repr(opened.secret) == "<key from OPENAI_API_KEY>"
    clock.at = 101.0
    delivered = steps.send(iter([reasoned_chat_stream("<r>", "</r>")]))  # the shell's body
    assert isinstance(delivered, Deliver) and isinstance(delivered.events, SyncStream)
    events = delivered.events
    assert events.options.think_tags == ("<r>", "</r>") and events.options.on_error == "return"
    final = events.final()
    assert (final.provider, final.thinking, final.text) == ("openai", "Greeted.", "Hello!")
    assert final.timing.attempts == 2 and final.timing.before_answer == 0.0
    assert own.usage.total.input_tokens is None  # counted once the caller is done
    assert result(steps) is None
    assert (own.usage.total.input_tokens, own.usage.total.output_tokens) == (9, 4)


class Cancelled(BaseException):
    """What a shell may meet performing a step (a cancellation, an interrupt)."""


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    observability.configure(tracer_provider=provider)
    yield exporter
    observability.configure()


def test_what_the_shell_meets_is_thrown_into_the_core_and_ends_the_call_there(
        spans: InMemorySpanExporter) -> None:
    steps = create_call(chain([], stream=False)[0], Clock().timing())
    next(steps)
    read_body(steps.send(error_response(529, "overloaded")))
    assert isinstance(steps.send(None), Wait)
    cancelled = Cancelled()
    with pytest.raises(Cancelled) as caught:
        steps.throw(cancelled)  # the sleep was cancelled
    assert caught.value is cancelled
    (span,) = spans.get_finished_spans()
    assert span.status.status_code is StatusCode.ERROR
    assert span.attributes is not None
    assert span.attributes[error_attributes.ERROR_TYPE] == "Cancelled"


def test_a_stream_that_cannot_be_made_closes_its_response_first() -> None:
    steps = stream_call(chain([], stream=True)[0], Clock().timing(),
                        ReadOptions(audio_media_type="audio/wav"))
    next(steps)
    answered = httpx.Response(200, headers={"content-type": "text/event-stream"})
    assert isinstance(steps.send(answered), Open)
    close = steps.send(iter([b""]))  # Anthropic's parser takes no audio media type
    assert close == Close(answered)
    with pytest.raises(TypeError, match="audio_media_type"):
        steps.send(None)


# ---------------------------------------------------------------- read options, whole


def test_read_options_and_read_keywords_name_the_same_fields() -> None:
    assert list(ReadKeywords.__annotations__) == [
        name for name in ReadOptions.__dataclass_fields__]
    assert ReadOptions().parser_options() == {}
    assert ReadOptions(fast_decode=False, dialect="vllm").parser_options() == {
        "dialect": "vllm", "fast_decode": False}


def serve_reasoned(server: ReplayServer | Any) -> None:
    server.add("/v1/chat/completions", reasoned_chat_stream("<r>", "</r>"))


@pytest.mark.anyio
async def test_the_read_options_a_caller_gives_reach_the_stream_whole() -> None:
    async with ReplayServer() as server:
        serve_reasoned(server)
        async with Client("openai:gpt-test", base_url=server.url + "/v1", environ=KEYS,
                          max_body_bytes=1 << 20) as client, \
                client.stream([UserMessage("Hi")], think_tags=("<r>", "</r>"),
                              on_error="return") as events:
            assert isinstance(events, Stream)
            final = await events.final()
    given = ReadOptions(on_error="return", think_tags=("<r>", "</r>"))
    assert events.options.request_timing is not None  # the client's: when it sent the request
    assert events.options == ReadOptions(
        on_error="return", think_tags=("<r>", "</r>"), max_total_bytes=1 << 20,
        request_timing=events.options.request_timing)
    assert {name: getattr(events.options, name) for name in ("on_error", "think_tags")} \
        == {name: getattr(given, name) for name in ("on_error", "think_tags")}
    assert (final.thinking, final.text) == ("Greeted.", "Hello!")


def test_the_sync_client_passes_them_whole_too() -> None:
    with ReplayServer.in_thread() as server, \
            SyncClient("openai:gpt-test", base_url=server.url + "/v1", environ=KEYS) as client:
        serve_reasoned(server)
        with client.stream([UserMessage("Hi")], think_tags=("<r>", "</r>")) as events:
            final = events.final()
        with client.stream([UserMessage("Hi")]) as plain:  # the dialect's default: no tags
            as_sent = plain.final()
    assert events.options.think_tags == ("<r>", "</r>") and events.options.on_error == "raise"
    assert (final.thinking, final.text) == ("Greeted.", "Hello!")
    assert plain.options.think_tags is None
    assert (as_sent.thinking, as_sent.text) == ("", "<r>Greeted.</r>Hello!")
