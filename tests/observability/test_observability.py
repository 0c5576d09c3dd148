"""OpenTelemetry for every Client call, checked with the SDK's own in-memory span
exporter and metric reader over real sockets (ReplayServer) on three wires:
every attribute and metric of a streamed call, a non-streamed call, a failed
call and a retried call; message content only when opted in; the autogen
adapter's spans; and nothing recorded, nor any per-chunk work, without a provider.

Every attribute and metric name is the semantic conventions package's own
constant (as in the code), so a name typed by hand anywhere would fail here."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import anyio
import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import HistogramDataPoint, InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
from opentelemetry.semconv._incubating.metrics import gen_ai_metrics
from opentelemetry.semconv.attributes import error_attributes, http_attributes, server_attributes
from opentelemetry.trace import SpanKind, StatusCode
from support.conversations import CONVERSATIONS
from support.recordings import FIXTURES

from streamkit import (
    Client,
    IncompleteStreamError,
    Message,
    ProviderError,
    SyncClient,
    SystemMessage,
    UserMessage,
    parse_response,
    replay,
)
from streamkit.client.retry import Timing
from streamkit.model.timing import ResponseTiming
from streamkit.model.vendors import PROVIDERS, ProviderEntry
from streamkit.observability import observer as observability
from streamkit.observability.telemetry import (
    ATTEMPTS,
    COST,
    LONGEST_CHUNK_GAP,
    OUTPUT_TOKENS_PER_SECOND,
    RETRY_ATTEMPT,
    RETRY_EVENT,
    RETRY_IN,
    SECONDS_BUCKETS,
    TIME_BEFORE_ANSWER,
    TIME_TO_FIRST_TOKEN,
    TOKEN_BUCKETS,
)
from streamkit.providers.wire_format import WIRE_NAMES, wire_format
from streamkit.testing import ReplayServer, load_recording

KEY = "sk-test-key"
WAIT = 0.2  # the server's Retry-After on a retried call, in seconds (really waited)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass
class Recorded:
    spans: InMemorySpanExporter
    metrics: InMemoryMetricReader

    def span(self) -> ReadableSpan:
        (only,) = self.spans.get_finished_spans()
        return only

    def points(self) -> dict[str, list[HistogramDataPoint]]:
        data = self.metrics.get_metrics_data()
        out: dict[str, list[HistogramDataPoint]] = {}
        for resource in data.resource_metrics if data is not None else []:
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    out.setdefault(metric.name, []).extend(metric.data.data_points)  # type: ignore[arg-type]
        return out


@pytest.fixture
def recorded() -> Iterator[Recorded]:
    spans = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    reader = InMemoryMetricReader()
    observability.configure(tracer_provider=tracer_provider,
                            meter_provider=MeterProvider(metric_readers=[reader]))
    yield Recorded(spans, reader)
    observability.configure()


@dataclass(frozen=True)
class Case:
    """One wire's call: the recording served and what its span must say."""

    provider: str
    model: str
    recording: Path
    response_id: str
    response_model: str
    finish_reasons: tuple[str, ...]
    usage: dict[str, int]
    """Inclusive totals and their parts, as the conventions define them."""
    operation: str = gen_ai.GenAiOperationNameValues.CHAT.value
    provider_name: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    request: dict[str, Any] = field(default_factory=dict)


def usage(input: int, output: int, **parts: int) -> dict[str, int]:
    names = {"cache_read": gen_ai.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
             "cache_creation": gen_ai.GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
             "reasoning": gen_ai.GEN_AI_USAGE_REASONING_OUTPUT_TOKENS}
    return {gen_ai.GEN_AI_USAGE_INPUT_TOKENS: input, gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS: output,
            **{names[name]: count for name, count in parts.items()}}


COMMON_OPTIONS = {"temperature": 0.5, "max_tokens": 100, "stop": ["END"]}
COMMON_REQUEST = {gen_ai.GEN_AI_REQUEST_TEMPERATURE: 0.5, gen_ai.GEN_AI_REQUEST_MAX_TOKENS: 100,
                  gen_ai.GEN_AI_REQUEST_STOP_SEQUENCES: ("END",),
                  gen_ai.GEN_AI_OUTPUT_TYPE: gen_ai.GenAiOutputTypeValues.TEXT.value}
OPENAI = gen_ai.GenAiProviderNameValues.OPENAI.value
ANTHROPIC = gen_ai.GenAiProviderNameValues.ANTHROPIC.value
GEMINI = gen_ai.GenAiProviderNameValues.GCP_GEMINI.value
GENERATE = gen_ai.GenAiOperationNameValues.GENERATE_CONTENT.value

STREAMED = [
    Case("openai", "gpt-4o", FIXTURES / "openai-chat/text-with-usage-chunk.sse",
         "chatcmpl-ABfw031mOJeYCSHe4yI2ZjOA6kMJL", "gpt-4o-2024-08-06", ("stop",),
         usage(14, 30, reasoning=0), provider_name=OPENAI,
         options={**COMMON_OPTIONS, "seed": 7, "top_p": 0.9},
         request={**COMMON_REQUEST, gen_ai.GEN_AI_REQUEST_SEED: 7,
                  gen_ai.GEN_AI_REQUEST_TOP_P: 0.9}),
    Case("anthropic", "claude-3-opus-latest", FIXTURES / "anthropic/text-basic.sse",
         "msg_4QpJur2dWWDjF6C758FbBw5vm12BaVipnK", "claude-3-opus-latest", ("stop",),
         usage(11, 6), provider_name=ANTHROPIC, options=COMMON_OPTIONS,
         request=COMMON_REQUEST),
    # Gemini's thoughts are output tokens: 469 of the answer and 787 of thinking
    Case("gemini", "gemini-2.5-pro", FIXTURES / "gemini/thinking-thought-parts.sse",
         "beHBaJfEMIi-qtsP3769-Q8", "gemini-2.5-pro", ("stop",),
         usage(34, 469 + 787, reasoning=787), operation=GENERATE, provider_name=GEMINI,
         options={**COMMON_OPTIONS, "seed": 7},
         request={**COMMON_REQUEST, gen_ai.GEN_AI_REQUEST_SEED: 7}),
]

CREATED = [
    # an answer that is a tool call only: no output type (the conventions have
    # no value for a call, and it is not text)
    Case("openai", "gpt-4o", CONVERSATIONS / "openai-chat/tool-call-json/turn1.response.json",
         "chatcmpl-BSXk0dWkG4hfPt0lph4oFO35iT73I", "gpt-4o-2024-08-06", ("tool_calls",),
         usage(68, 12, cache_read=0, reasoning=0), provider_name=OPENAI,
         options=COMMON_OPTIONS, request={key: value for key, value in COMMON_REQUEST.items()
                                          if key != gen_ai.GEN_AI_OUTPUT_TYPE}),
    # Anthropic's input count leaves the cache out: the conventions' total puts it back
    Case("anthropic", "claude-haiku-4-5",
         CONVERSATIONS / "anthropic/bedrock-invoke-cache-breakpoint/turn1.response.json",
         "msg_bdrk_01H8tV2orbi5sQVskxVthgZy", "claude-haiku-4-5-20251001", ("stop",),
         usage(3 + 9511, 1944, cache_read=9511, cache_creation=0), provider_name=ANTHROPIC,
         options=COMMON_OPTIONS, request=COMMON_REQUEST),
    # Google Search grounding: the 119 tokens of search results Gemini reports
    # beside the prompt are input, as its total says
    Case("gemini", "gemini-2.5-pro",
         CONVERSATIONS / "gemini/google-search-grounding/turn1.response.json",
         "btnJaOrqE4_6qtsP7bOboQs", "gemini-2.5-pro", ("stop",),
         usage(17 + 119, 201 + 213, reasoning=213), operation=GENERATE, provider_name=GEMINI,
         options=COMMON_OPTIONS, request=COMMON_REQUEST),
]

PROVIDER_NAME_VALUES = {member.value for member in gen_ai.GenAiProviderNameValues}


def squeezed(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


@pytest.mark.parametrize("entry", PROVIDERS.values(), ids=list(PROVIDERS))
def test_each_vendor_is_named_as_the_conventions_name_it(entry: ProviderEntry) -> None:
    """A vendor's ``gen_ai.provider.name`` is the conventions' value for it, else
    its registry name; a vendor named by its registry name has no value in the
    conventions that holds its name (``x_ai`` holds ``xai``, ``gcp.vertex_ai``
    holds ``vertex``): a value new in the conventions fails here until its
    vendor's record takes it."""
    if entry.telemetry_name in PROVIDER_NAME_VALUES:
        return
    assert entry.telemetry_name == entry.name
    assert [value for value in PROVIDER_NAME_VALUES
            if squeezed(entry.name) in squeezed(value)] == []


def test_each_wire_names_its_operation_in_the_conventions_words() -> None:
    operations = {name: wire_format(name).operation for name in WIRE_NAMES}
    assert set(operations.values()) <= {member.value
                                        for member in gen_ai.GenAiOperationNameValues}
    assert operations == {**dict.fromkeys(WIRE_NAMES, gen_ai.GenAiOperationNameValues.CHAT.value),
                          "gemini": GENERATE}


ERROR_BODIES = {
    "openai": {"error": {"message": "bad request", "type": "invalid_request_error"}},
    "anthropic": {"type": "error", "error": {"type": "invalid_request_error",
                                             "message": "bad request"}},
    "gemini": {"error": {"code": 400, "message": "bad request", "status": "INVALID_ARGUMENT"}},
}
MESSAGES: list[Message] = [SystemMessage("Be brief."), UserMessage("Say hello.")]


# The Anthropic cases send temperature: the API version that takes it.
PINNED = {"anthropic": {"headers": {"anthropic-version": "2023-06-01"}}}


def client_for(case: Case, server: ReplayServer, **options: Any) -> Client:
    return Client(f"{case.provider}:{case.model}", api_key=KEY, base_url=server.url,
                  **PINNED.get(case.provider, {}), **options)


def common(case: Case, port: int) -> dict[str, Any]:
    """The attributes every signal of a call carries."""
    return {gen_ai.GEN_AI_OPERATION_NAME: case.operation,
            gen_ai.GEN_AI_PROVIDER_NAME: case.provider_name,
            gen_ai.GEN_AI_REQUEST_MODEL: case.model,
            server_attributes.SERVER_ADDRESS: "127.0.0.1", server_attributes.SERVER_PORT: port}


@cache
def cost_of(recording: Path, provider: str) -> float:
    """What a case's answer costs: its own ``ChatResponse.cost``, read from the recording."""
    if recording.suffix == ".json":
        answer = parse_response(provider, json.loads(recording.read_bytes()))
    else:
        answer = replay(load_recording(recording)[0], provider)[1]
    cost = answer.cost()
    assert cost.amount is not None, cost.reason  # every case is priced
    return float(cost.amount)


def answered(case: Case, port: int, *, stream: bool) -> dict[str, Any]:
    """The span attributes of an answered call, timing aside."""
    return {**common(case, port), gen_ai.GEN_AI_REQUEST_STREAM: stream, **case.request,
            gen_ai.GEN_AI_RESPONSE_ID: case.response_id,
            gen_ai.GEN_AI_RESPONSE_MODEL: case.response_model,
            gen_ai.GEN_AI_RESPONSE_FINISH_REASONS: case.finish_reasons, **case.usage,
            COST: cost_of(case.recording, case.provider), ATTEMPTS: 1}


STREAM_TIMING = (gen_ai.GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK, TIME_TO_FIRST_TOKEN,
                 LONGEST_CHUNK_GAP, OUTPUT_TOKENS_PER_SECOND)


def split_timing(attributes: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    timing = {name: attributes.pop(name) for name in STREAM_TIMING if name in attributes}
    return attributes, timing


def check_span(span: ReadableSpan, case: Case, *, error: bool = False) -> None:
    assert span.name == f"{case.operation} {case.model}"
    assert span.kind is SpanKind.CLIENT
    assert span.status.status_code is (StatusCode.ERROR if error else StatusCode.UNSET)
    assert span.instrumentation_scope is not None
    assert span.instrumentation_scope.name == "streamkit"


def check_histogram(point: HistogramDataPoint, bounds: tuple[float, ...], count: int) -> None:
    assert tuple(point.explicit_bounds) == bounds
    assert point.count == count


def check_metrics(recorded: Recorded, case: Case, port: int, *,
                  streamed: ResponseTiming | None = None, writes: int = 0) -> None:
    """Every histogram of one call; for a stream (its ``timing``, served in
    ``writes`` writes) the time to the first chunk and the gap before each
    later chunk."""
    points = recorded.points()
    expected = {**common(case, port), gen_ai.GEN_AI_RESPONSE_MODEL: case.response_model}
    (duration,) = points[gen_ai_metrics.GEN_AI_CLIENT_OPERATION_DURATION]
    assert dict(duration.attributes or {}) == expected
    check_histogram(duration, SECONDS_BUCKETS, 1)
    assert 0 < duration.sum < 30
    tokens = {point.attributes[gen_ai.GEN_AI_TOKEN_TYPE]: point  # type: ignore[index]
              for point in points[gen_ai_metrics.GEN_AI_CLIENT_TOKEN_USAGE]}
    assert set(tokens) == {gen_ai.GenAiTokenTypeValues.INPUT.value,
                           gen_ai.GenAiTokenTypeValues.OUTPUT.value}
    for kind, attribute in ((gen_ai.GenAiTokenTypeValues.INPUT.value,
                             gen_ai.GEN_AI_USAGE_INPUT_TOKENS),
                            (gen_ai.GenAiTokenTypeValues.OUTPUT.value,
                             gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS)):
        point = tokens[kind]
        assert dict(point.attributes or {}) == {**expected, gen_ai.GEN_AI_TOKEN_TYPE: kind}
        check_histogram(point, TOKEN_BUCKETS, 1)
        assert point.sum == case.usage[attribute]
    stream_only = {gen_ai_metrics.GEN_AI_CLIENT_OPERATION_TIME_TO_FIRST_CHUNK,
                   gen_ai_metrics.GEN_AI_CLIENT_OPERATION_TIME_PER_OUTPUT_CHUNK}
    if streamed is None:
        assert not stream_only & set(points)
        return
    (first,) = points[gen_ai_metrics.GEN_AI_CLIENT_OPERATION_TIME_TO_FIRST_CHUNK]
    assert dict(first.attributes or {}) == expected
    check_histogram(first, SECONDS_BUCKETS, 1)
    assert first.sum == streamed.time_to_first_byte
    (per_chunk,) = points[gen_ai_metrics.GEN_AI_CLIENT_OPERATION_TIME_PER_OUTPUT_CHUNK]
    assert dict(per_chunk.attributes or {}) == expected
    assert tuple(per_chunk.explicit_bounds) == SECONDS_BUCKETS
    assert 1 <= per_chunk.count < writes  # a read holds one write or more
    assert streamed.last_byte is not None and streamed.first_byte is not None
    assert per_chunk.sum == pytest.approx(streamed.last_byte - streamed.first_byte)


# ---------------------------------------------------------------- answered calls


@pytest.mark.anyio
@pytest.mark.parametrize("case", STREAMED, ids=lambda c: c.provider)
async def test_a_streamed_call(case: Case, recorded: Recorded) -> None:
    body, content_type = load_recording(case.recording)
    async with ReplayServer() as server:
        server.default(body, content_type=content_type, chunk_size=512, delay=0.001)
        async with client_for(case, server) as client, \
                client.stream(MESSAGES, **case.options) as events:
            final = await events.final()
        port = server.port
    span = recorded.span()
    check_span(span, case)
    attributes, timing = split_timing(dict(span.attributes or {}))
    assert attributes == answered(case, port, stream=True)
    assert final.timing is not None
    assert timing == {
        gen_ai.GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK: final.timing.time_to_first_byte,
        TIME_TO_FIRST_TOKEN: final.timing.time_to_first_token,
        LONGEST_CHUNK_GAP: final.timing.longest_gap,
        OUTPUT_TOKENS_PER_SECOND: final.timing.output_tokens_per_second}
    assert not span.events
    check_metrics(recorded, case, port, streamed=final.timing,
                  writes=len(range(0, len(body), 512)))


@pytest.mark.anyio
@pytest.mark.parametrize("case", CREATED, ids=lambda c: c.provider)
async def test_a_non_streamed_call(case: Case, recorded: Recorded) -> None:
    async with ReplayServer() as server:
        server.default(case.recording.read_bytes(), content_type="application/json")
        async with client_for(case, server) as client:
            answer = await client.create(MESSAGES, **case.options)
        port = server.port
    span = recorded.span()
    check_span(span, case)
    assert dict(span.attributes or {}) == answered(case, port, stream=False)
    check_metrics(recorded, case, port)
    assert answer.timing is not None and answer.timing.first_token is None
    assert answer.timing.request_sent is not None and answer.timing.last_byte is not None
    assert answer.timing.request_sent <= answer.timing.last_byte


@pytest.mark.anyio
@pytest.mark.parametrize("case", STREAMED, ids=lambda c: c.provider)
async def test_a_failed_call(case: Case, recorded: Recorded) -> None:
    async with ReplayServer() as server:
        server.default(json.dumps(ERROR_BODIES[case.provider]).encode(), status=400,
                       content_type="application/json")
        async with client_for(case, server) as client:
            with pytest.raises(ProviderError):
                async with client.stream(MESSAGES, **case.options):
                    pytest.fail("no stream opens on an error status")
        port = server.port
    span = recorded.span()
    check_span(span, case, error=True)
    assert dict(span.attributes or {}) == {
        **common(case, port), gen_ai.GEN_AI_REQUEST_STREAM: True, **case.request,
        ATTEMPTS: 1, error_attributes.ERROR_TYPE: "400"}
    assert span.status.description is not None and "bad request" in span.status.description
    points = recorded.points()
    (duration,) = points[gen_ai_metrics.GEN_AI_CLIENT_OPERATION_DURATION]
    assert dict(duration.attributes or {}) == {**common(case, port),
                                               error_attributes.ERROR_TYPE: "400"}
    assert set(points) == {gen_ai_metrics.GEN_AI_CLIENT_OPERATION_DURATION}  # no tokens came


@pytest.mark.anyio
async def test_a_stream_that_breaks_ends_its_span_with_the_error_and_the_partial(
        recorded: Recorded) -> None:
    case = STREAMED[1]
    body, content_type = load_recording(case.recording)
    async with ReplayServer() as server:
        server.default(body, content_type=content_type, cut_after=body.index(b"text_delta"))
        async with client_for(case, server) as client:
            with pytest.raises(Exception) as caught:
                async with client.stream(MESSAGES, **case.options) as events:
                    await events.final()
        port = server.port
    assert type(caught.value) is IncompleteStreamError
    assert caught.value.partial is not None
    partial_cost = caught.value.partial.cost().amount
    assert partial_cost is not None
    span = recorded.span()
    check_span(span, case, error=True)
    attributes, timing = split_timing(dict(span.attributes or {}))
    assert attributes == {
        **common(case, port), gen_ai.GEN_AI_REQUEST_STREAM: True, **case.request,
        gen_ai.GEN_AI_RESPONSE_ID: case.response_id,
        gen_ai.GEN_AI_RESPONSE_MODEL: case.response_model,
        gen_ai.GEN_AI_RESPONSE_FINISH_REASONS: ("interrupted",),
        **usage(11, 1), COST: float(partial_cost),  # what came, priced
        ATTEMPTS: 1, error_attributes.ERROR_TYPE: "IncompleteStreamError"}
    assert gen_ai.GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK in timing


@pytest.mark.anyio
@pytest.mark.parametrize("case", STREAMED, ids=lambda c: c.provider)
async def test_a_retried_call(case: Case, recorded: Recorded) -> None:
    body, content_type = load_recording(case.recording)
    async with ReplayServer() as server:
        server.default(json.dumps(ERROR_BODIES[case.provider]).encode(), status=503,
                       content_type="application/json",
                       headers={"retry-after-ms": str(int(WAIT * 1000))})

        async def answer_then_wait(seconds: float) -> None:
            server.default(body, content_type=content_type, chunk_size=512, delay=0.001)
            await anyio.sleep(seconds)

        async with client_for(case, server, timing=Timing(sleep=answer_then_wait)) as client, \
                client.stream(MESSAGES, **case.options) as events:
            final = await events.final()
        port = server.port
    span = recorded.span()
    check_span(span, case)
    attributes, _ = split_timing(dict(span.attributes or {}))
    before = attributes.pop(TIME_BEFORE_ANSWER)
    assert attributes == {**answered(case, port, stream=True), ATTEMPTS: 2}
    assert final.timing is not None and final.timing.attempts == 2
    assert before == final.timing.before_answer >= WAIT
    (retry,) = span.events
    assert retry.name == RETRY_EVENT
    assert dict(retry.attributes or {}) == {
        RETRY_ATTEMPT: 1, http_attributes.HTTP_RESPONSE_STATUS_CODE: 503,
        error_attributes.ERROR_TYPE: "ProviderError", RETRY_IN: WAIT}
    assert span.start_time is not None and span.start_time <= retry.timestamp
    check_metrics(recorded, case, port, streamed=final.timing,
                  writes=len(range(0, len(body), 512)))


def test_the_sync_client_records_the_same(recorded: Recorded) -> None:
    case, created = STREAMED[1], CREATED[1]
    body, content_type = load_recording(case.recording)
    with ReplayServer.in_thread() as server:
        server.default(body, content_type=content_type)
        with SyncClient(f"anthropic:{case.model}", api_key=KEY, base_url=server.url,
                        **PINNED["anthropic"]) as client:
            with client.stream(MESSAGES, **case.options) as events:
                events.final()
            server.default(created.recording.read_bytes(), content_type="application/json")
            client.create(MESSAGES, **case.options)
        port = server.port
    streamed, answered_whole = recorded.spans.get_finished_spans()
    attributes, _ = split_timing(dict(streamed.attributes or {}))
    assert attributes == answered(case, port, stream=True)
    assert dict(answered_whole.attributes or {}) == {
        **answered(created, port, stream=False), gen_ai.GEN_AI_REQUEST_MODEL: case.model}


# ---------------------------------------------------------------- content


@pytest.mark.anyio
async def test_message_content_only_when_opted_in(recorded: Recorded,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    case = STREAMED[1]
    body, content_type = load_recording(case.recording)
    content = {gen_ai.GEN_AI_INPUT_MESSAGES, gen_ai.GEN_AI_OUTPUT_MESSAGES,
               gen_ai.GEN_AI_SYSTEM_INSTRUCTIONS}

    async def call() -> dict[str, Any]:
        recorded.spans.clear()
        async with ReplayServer() as server:
            server.default(body, content_type=content_type)
            async with client_for(case, server) as client, client.stream(MESSAGES) as events:
                await events.final()
        return dict(recorded.spans.get_finished_spans()[0].attributes or {})

    assert not content & set(await call())  # off by default: prompts are private
    monkeypatch.setenv(observability.CAPTURE_CONTENT_ENV, "true")
    opted_in = await call()
    assert json.loads(opted_in[gen_ai.GEN_AI_INPUT_MESSAGES]) == [
        {"role": "user", "parts": [{"type": "text", "content": "Say hello."}]}]
    assert json.loads(opted_in[gen_ai.GEN_AI_SYSTEM_INSTRUCTIONS]) == [
        {"type": "text", "content": "Be brief."}]
    assert json.loads(opted_in[gen_ai.GEN_AI_OUTPUT_MESSAGES]) == [
        {"role": "assistant", "parts": [{"type": "text", "content": "Hello there!"}],
         "finish_reason": "stop"}]
    tracer_provider = observability._SETTINGS.tracer_provider
    observability.configure(tracer_provider=tracer_provider, capture_content=False)
    assert not content & set(await call())  # the application's word beats the environment


# ---------------------------------------------------------------- the autogen adapter


@pytest.mark.anyio
async def test_the_autogen_adapter_produces_the_same_spans(recorded: Recorded) -> None:
    from autogen_core.models import UserMessage as AutogenUserMessage

    from streamkit.adapters.autogen import StreamkitChatCompletionClient

    case, created = STREAMED[1], CREATED[1]
    body, content_type = load_recording(case.recording)
    async with ReplayServer() as server:
        server.default(created.recording.read_bytes(), content_type="application/json")
        adapter = StreamkitChatCompletionClient(client_for(case, server))
        await adapter.create([AutogenUserMessage(content="Say hello.", source="user")])
        server.default(body, content_type=content_type)
        async for _ in adapter.create_stream(
                [AutogenUserMessage(content="Say hello.", source="user")]):
            pass
        await adapter.close()
        port = server.port
    whole, streamed = recorded.spans.get_finished_spans()
    # autogen sends no sampling options: the registry's max_tokens for Anthropic goes
    request = {gen_ai.GEN_AI_REQUEST_MAX_TOKENS: 4096,
               gen_ai.GEN_AI_OUTPUT_TYPE: gen_ai.GenAiOutputTypeValues.TEXT.value}

    def without_options(attributes: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in attributes.items() if k not in COMMON_REQUEST} | request

    assert dict(whole.attributes or {}) == without_options(
        {**answered(created, port, stream=False), gen_ai.GEN_AI_REQUEST_MODEL: case.model})
    attributes, _ = split_timing(dict(streamed.attributes or {}))
    assert attributes == without_options(answered(case, port, stream=True))
    assert whole.name == streamed.name == f"chat {case.model}"


# ---------------------------------------------------------------- without a provider

NO_PROVIDER = textwrap.dedent("""
    import json, sys
    import anyio
    from streamkit import Client, UserMessage
    from streamkit import observability
    from streamkit.testing import ReplayServer

    BODY = open(sys.argv[1], "rb").read()

    async def call():
        async with ReplayServer() as server:
            server.default(BODY, chunk_size=64)
            async with Client("anthropic:claude-3-opus-latest", api_key="k",
                              base_url=server.url) as client, \\
                    client.stream([UserMessage("hi")]) as events:
                await events.final()
                return events

    out = {}
    events = anyio.run(call)
    out["imported_without_opentelemetry"] = "opentelemetry" not in sys.modules
    out["per_chunk_work_without_opentelemetry"] = "feed" in vars(events._driver)

    # opentelemetry-api loaded, no provider set: still nothing, and no span asked for
    from opentelemetry import trace
    started = []
    original = trace.ProxyTracer.start_span
    def counted(self, *args, **kwargs):
        started.append(args)
        return original(self, *args, **kwargs)
    trace.ProxyTracer.start_span = counted
    events = anyio.run(call)
    out["spans_asked_for"] = len(started)
    out["per_chunk_work_with_the_api_only"] = "feed" in vars(events._driver)
    out["observer"] = type(observability.observe_call(
        provider="anthropic", model="m", url="http://127.0.0.1:1", body={}, stream=True)).__name__

    # once the application sets a provider, the same call is recorded
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    anyio.run(call)
    out["spans_with_a_provider"] = [span.name for span in exporter.get_finished_spans()]
    print(json.dumps(out))
""")


def test_nothing_is_recorded_and_nothing_runs_per_chunk_without_a_provider() -> None:
    env = {k: v for k, v in __import__("os").environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run([sys.executable, "-c", NO_PROVIDER,
                           str(FIXTURES / "anthropic/text-basic.sse")],
                          capture_output=True, text=True, timeout=120, check=False, env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "imported_without_opentelemetry": True,
        "per_chunk_work_without_opentelemetry": False,
        "spans_asked_for": 0,
        "per_chunk_work_with_the_api_only": False,
        "observer": "CallObserver",
        "spans_with_a_provider": ["chat claude-3-opus-latest"],
    }


@pytest.mark.anyio
async def test_without_the_chunk_metric_nothing_is_kept_per_chunk(recorded: Recorded) -> None:
    tracer_provider = observability._SETTINGS.tracer_provider
    meter_provider = observability._SETTINGS.meter_provider
    observability.configure(tracer_provider=tracer_provider, meter_provider=meter_provider,
                            chunk_metric=False)
    case = STREAMED[1]
    body, content_type = load_recording(case.recording)
    async with ReplayServer() as server:
        server.default(body, content_type=content_type, chunk_size=128)
        async with client_for(case, server) as client, client.stream(MESSAGES) as events:
            await events.final()
    assert "feed" not in vars(events._driver)  # the chunks' gaps are not kept
    points = recorded.points()
    assert gen_ai_metrics.GEN_AI_CLIENT_OPERATION_TIME_PER_OUTPUT_CHUNK not in points
    assert gen_ai_metrics.GEN_AI_CLIENT_OPERATION_TIME_TO_FIRST_CHUNK in points
    assert len(recorded.spans.get_finished_spans()) == 1


def test_messages_in_the_conventions_json() -> None:
    from streamkit import (
        AssistantMessage,
        ChatResponse,
        DataBlock,
        FinishReason,
        FunctionExecutionResult,
        FunctionExecutionResultMessage,
        TextBlock,
        ThinkingBlock,
        ToolCallBlock,
    )
    from streamkit.model.blocks import URLSource
    from streamkit.observability.genai_messages import (
        input_messages,
        output_messages,
        system_instructions,
    )

    image = DataBlock(media_type="image/png", source=URLSource("https://x.test/a.png",
                                                                 "image/png"))
    conversation: list[Message] = [
        SystemMessage("Be brief."),
        UserMessage([TextBlock("What is this?"), image]),
        AssistantMessage([ThinkingBlock("Look it up."),
                          ToolCallBlock("call_1", "lookup", '{"q": "a.png"}')]),
        FunctionExecutionResultMessage([FunctionExecutionResult("call_1", "a cat")]),
    ]
    assert system_instructions(conversation) == [{"type": "text", "content": "Be brief."}]
    assert input_messages(conversation) == [
        {"role": "user", "parts": [
            {"type": "text", "content": "What is this?"},
            {"type": "uri", "modality": "image", "mime_type": "image/png",
             "uri": "https://x.test/a.png"}]},
        {"role": "assistant", "parts": [
            {"type": "reasoning", "content": "Look it up."},
            {"type": "tool_call", "id": "call_1", "name": "lookup", "arguments": {"q": "a.png"}}]},
        {"role": "tool", "parts": [
            {"type": "tool_call_response", "id": "call_1", "response": "a cat"}]},
    ]
    cut = ChatResponse(content=[ToolCallBlock("call_2", "lookup", '{"q": "b')],
                       finished_reason=FinishReason.TOOL_CALLS)
    assert output_messages([cut]) == [{"role": "assistant", "parts": [
        {"type": "tool_call", "id": "call_2", "name": "lookup", "arguments": '{"q": "b'}],
        "finish_reason": "tool_call"}]
