"""The OpenTelemetry GenAI semantic conventions for one call: its span and metrics.

Imported only when telemetry is wanted (see :mod:`streamkit.observability`):
this module imports ``opentelemetry-api`` and the attribute and metric names of
``opentelemetry-semantic-conventions`` (0.66b2 carries the GenAI names in its
incubating modules; none is typed here). Names the conventions do not define
are streamkit's own, under ``streamkit.``.

The span (kind ``CLIENT``, named ``{gen_ai.operation.name} {gen_ai.request.model}``):

- at the start: ``gen_ai.operation.name`` (the wire record's ``operation``:
  ``generate_content`` on Gemini's own API, ``chat`` elsewhere),
  ``gen_ai.provider.name`` (the vendor record's ``telemetry_name``: the
  conventions' value where they have one, else the registry name), ``gen_ai.request.model``,
  ``gen_ai.request.stream``, the request's ``temperature``, ``top_p``,
  ``max_tokens``, ``stop_sequences`` and ``seed`` where it sets them,
  ``gen_ai.output.type`` when the request asks for a kind of output (``json``
  for structured output, ``speech`` for audio), ``server.address`` /
  ``server.port``;
- at the end: ``gen_ai.output.type`` ``text`` for a request that asked for no
  other kind, unless the answer is tool calls only (the conventions' values,
  ``text``, ``json``, ``image``, ``speech``, have none for a call, and a call
  is not text), ``gen_ai.response.id``, ``gen_ai.response.model``,
  ``gen_ai.response.finish_reasons`` (one per choice), the usage
  (``gen_ai.usage.input_tokens`` and ``output_tokens`` as inclusive totals,
  ``cache_read.input_tokens``, ``cache_creation.input_tokens``,
  ``reasoning.output_tokens``: see :func:`streamkit.model.usage.token_counts`),
  streamkit's ``streamkit.usage.cost`` (what the call cost in USD, by
  :func:`streamkit.model.cost.response_cost`, where the cost tables price
  its model; the conventions define no cost attribute), for a stream
  ``gen_ai.response.time_to_first_chunk``; streamkit's own
  ``streamkit.call.attempts``, ``streamkit.call.time_before_answer`` and, for a
  stream, ``streamkit.model.response.time_to_first_token``,
  ``streamkit.model.response.longest_chunk_gap``,
  ``streamkit.model.response.output_tokens_per_second``; one ``streamkit.client.retry``
  event per attempt that did not answer; on failure, ``error.type`` (the HTTP
  status of a provider's error, else the exception's class name) and an
  ``ERROR`` status.
- with content opted in: ``gen_ai.input.messages``,
  ``gen_ai.system_instructions``, ``gen_ai.output.messages``
  (:mod:`streamkit.observability.genai_messages`).

The metrics, with the conventions' advised bucket boundaries:
``gen_ai.client.operation.duration`` (every call; ``error.type`` on failure),
``gen_ai.client.token.usage`` (``gen_ai.token.type`` ``input`` / ``output``,
when the provider reported them) and, for streams,
``gen_ai.client.operation.time_to_first_chunk`` and
``gen_ai.client.operation.time_per_output_chunk`` (the gap before each chunk
after the first: the one telemetry cost per chunk, paid only when a meter
provider is set, and left out with ``configure(chunk_metric=False)``).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import httpx
from opentelemetry import metrics, trace
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
from opentelemetry.semconv._incubating.metrics import gen_ai_metrics
from opentelemetry.semconv.attributes import error_attributes, http_attributes, server_attributes
from opentelemetry.trace import SpanKind, Status, StatusCode

from ..__about__ import __version__
from ..model.cost import response_cost
from ..model.errors import ProviderError
from ..model.usage import token_counts
from ..model.vendors import vendor
from ..providers.codec import parse_request
from ..providers.wire_format import wire_format
from ..reading.stream import keep_chunk_gaps
from .genai_messages import input_messages, output_messages, system_instructions, to_json
from .observer import CallObserver

if TYPE_CHECKING:
    from ..conversation.request import Request
    from ..model.response import ChatResponse
    from ..model.timing import AttemptLog, ResponseTiming
    from ..reading.stream import Stream, SyncStream
    from .observer import _Settings

__all__ = ["Instruments", "instruments_for"]

# streamkit's own attributes and event, beside the conventions'.
ATTEMPTS = "streamkit.call.attempts"
TIME_BEFORE_ANSWER = "streamkit.call.time_before_answer"
TIME_TO_FIRST_TOKEN = "streamkit.model.response.time_to_first_token"
LONGEST_CHUNK_GAP = "streamkit.model.response.longest_chunk_gap"
OUTPUT_TOKENS_PER_SECOND = "streamkit.model.response.output_tokens_per_second"
RETRY_EVENT = "streamkit.client.retry"
RETRY_ATTEMPT = "streamkit.client.retry.attempt"
RETRY_IN = "streamkit.client.retry.retry_in"
COST = "streamkit.usage.cost"

#: The operation of a call whose provider the registry does not know.
CHAT = str(gen_ai.GenAiOperationNameValues.CHAT.value)

# The conventions' advised explicit bucket boundaries.
TOKEN_BUCKETS = (1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304,
                 16777216, 67108864)
SECONDS_BUCKETS = (0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48,
                   40.96, 81.92)


def _stand_in(provider: Any) -> bool:
    """Whether a provider is opentelemetry-api's own proxy or no-op: no provider."""
    return type(provider).__module__.startswith(("opentelemetry.trace", "opentelemetry.metrics"))


def instruments_for(settings: _Settings) -> Instruments | None:
    """The tracer and meter instruments for the providers in use (made once per
    pair), or ``None`` when neither a tracer nor a meter provider is set."""
    tracer_provider = settings.tracer_provider or trace.get_tracer_provider()
    meter_provider = settings.meter_provider or metrics.get_meter_provider()
    tracing = not _stand_in(tracer_provider)
    metering = not _stand_in(meter_provider)
    if not tracing and not metering:
        return None
    key = (id(tracer_provider) if tracing else 0, id(meter_provider) if metering else 0)
    with settings.lock:
        found: Instruments | None = settings.instruments.get(key)
        if found is None:
            found = settings.instruments[key] = Instruments(
                tracer_provider if tracing else None, meter_provider if metering else None,
                chunk_metric=settings.chunk_metric)
    return found


class Instruments:
    """A tracer and the conventions' four histograms, for one pair of providers."""

    def __init__(self, tracer_provider: Any, meter_provider: Any, *,
                 chunk_metric: bool = True) -> None:
        self.tracer = None if tracer_provider is None else tracer_provider.get_tracer(
            "streamkit", __version__)
        self.duration = self.token_usage = self.time_to_first_chunk = None
        self.time_per_output_chunk = None
        if meter_provider is not None:
            meter = meter_provider.get_meter("streamkit", __version__)
            self.duration = meter.create_histogram(
                gen_ai_metrics.GEN_AI_CLIENT_OPERATION_DURATION, unit="s",
                description="GenAI operation duration.",
                explicit_bucket_boundaries_advisory=SECONDS_BUCKETS)
            self.token_usage = meter.create_histogram(
                gen_ai_metrics.GEN_AI_CLIENT_TOKEN_USAGE, unit="{token}",
                description="Number of input and output tokens used.",
                explicit_bucket_boundaries_advisory=TOKEN_BUCKETS)
            self.time_to_first_chunk = meter.create_histogram(
                gen_ai_metrics.GEN_AI_CLIENT_OPERATION_TIME_TO_FIRST_CHUNK, unit="s",
                description="Time to receive the first chunk of a streamed response.",
                explicit_bucket_boundaries_advisory=SECONDS_BUCKETS)
            self.time_per_output_chunk = None if not chunk_metric else meter.create_histogram(
                gen_ai_metrics.GEN_AI_CLIENT_OPERATION_TIME_PER_OUTPUT_CHUNK, unit="s",
                description="Time between two chunks of a streamed response.",
                explicit_bucket_boundaries_advisory=SECONDS_BUCKETS)

    def observe(self, *, provider: str, model: str, url: str, body: dict[str, Any] | None,
                stream: bool, capture: bool) -> CallTelemetry:
        """The span and metrics of one call."""
        return CallTelemetry(self, provider=provider, model=model, url=url, body=body,
                             stream=stream, capture=capture)


def _names(provider: str) -> tuple[str, str]:
    """The conventions' operation and provider names of a call to ``provider``
    (a registry name), from its vendor's record and its wire's record: a name
    the registry does not know is a chat with that provider name."""
    try:
        entry = vendor(provider)
    except ValueError:
        return CHAT, provider
    return wire_format(entry.wire).operation, entry.telemetry_name


def _server(url: str) -> dict[str, Any]:
    parsed = httpx.URL(url)
    port = parsed.port or {"https": 443, "http": 80}.get(parsed.scheme)
    out: dict[str, Any] = {server_attributes.SERVER_ADDRESS: parsed.host}
    if port is not None:
        out[server_attributes.SERVER_PORT] = port
    return out


def _request(provider: str, body: dict[str, Any] | None) -> Request | None:
    """The request a body stands for (``None`` when it cannot be read: a body
    built elsewhere is sent as it is, and telemetry never fails a call)."""
    if body is None:
        return None
    try:
        return parse_request(provider, body)
    except Exception:
        return None


def _request_attributes(request: Request) -> dict[str, Any]:
    options = request.options
    out: dict[str, Any] = {}
    for name, attribute, kind in (
            ("temperature", gen_ai.GEN_AI_REQUEST_TEMPERATURE, float),
            ("top_p", gen_ai.GEN_AI_REQUEST_TOP_P, float),
            ("max_tokens", gen_ai.GEN_AI_REQUEST_MAX_TOKENS, int),
            ("seed", gen_ai.GEN_AI_REQUEST_SEED, int)):
        value = options.get(name)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out[attribute] = kind(value)
    stop = options.get("stop")
    if isinstance(stop, str):
        stop = [stop]
    if isinstance(stop, list) and all(isinstance(s, str) for s in stop):
        out[gen_ai.GEN_AI_REQUEST_STOP_SEQUENCES] = stop
    asked = _asked_output(request)
    if asked is not None:
        out[gen_ai.GEN_AI_OUTPUT_TYPE] = asked
    return out


def _asked_output(request: Request) -> str | None:
    """The kind of output a request asks for by name (``json``, ``speech``);
    ``None`` for plain text, which the span says only once the answer shows it
    was not a tool call (see the module docstring)."""
    if request.json_output:
        return str(gen_ai.GenAiOutputTypeValues.JSON.value)
    if request.options.get("audio"):
        return str(gen_ai.GenAiOutputTypeValues.SPEECH.value)
    return None


def _calls_only(choices: list[ChatResponse]) -> bool:
    """Whether every choice of an answer is tool calls and nothing else written."""
    return bool(choices) and all(choice.tool_calls and not choice.text for choice in choices)


def _cost(response: ChatResponse) -> dict[str, Any]:
    """The call's cost in :data:`~streamkit.model.cost.CURRENCY`, where it can be priced."""
    amount = response_cost(response).amount
    return {} if amount is None else {COST: float(amount)}


def _error_type(error: BaseException) -> str:
    if isinstance(error, ProviderError) and error.status is not None:
        return str(error.status)
    return type(error).__qualname__


class CallTelemetry(CallObserver):
    """One call's span (when tracing) and metrics (when metering)."""

    def __init__(self, instruments: Instruments, *, provider: str, model: str, url: str,
                 body: dict[str, Any] | None, stream: bool, capture: bool) -> None:
        self.instruments = instruments
        self.stream = stream
        self.capture = capture
        self.started = time.perf_counter()
        self.started_epoch = time.time_ns()
        self.done = False
        self.gaps: list[float] | None = None
        operation, provider_name = _names(provider)
        self.common: dict[str, Any] = {
            gen_ai.GEN_AI_OPERATION_NAME: operation,
            gen_ai.GEN_AI_PROVIDER_NAME: provider_name,
            gen_ai.GEN_AI_REQUEST_MODEL: model,
            **_server(url),
        }
        self.span = None
        self.asked_text = False
        """Whether the request asked for plain text (no other kind of output)."""
        if instruments.tracer is not None:
            attributes = {**self.common, gen_ai.GEN_AI_REQUEST_STREAM: stream}
            request = _request(provider, body)
            if request is not None:
                attributes.update(_request_attributes(request))
                self.asked_text = gen_ai.GEN_AI_OUTPUT_TYPE not in attributes
                if capture:
                    attributes[gen_ai.GEN_AI_INPUT_MESSAGES] = to_json(
                        input_messages(request.messages))
                    system = system_instructions(request.messages)
                    if system:
                        attributes[gen_ai.GEN_AI_SYSTEM_INSTRUCTIONS] = to_json(system)
            self.span = instruments.tracer.start_span(
                f"{operation} {model}", kind=SpanKind.CLIENT, attributes=attributes,
                start_time=self.started_epoch)

    def watch(self, events: Stream | SyncStream) -> None:
        if self.instruments.time_per_output_chunk is not None:
            self.gaps = keep_chunk_gaps(events)

    def finish(self, response: ChatResponse | None = None, *,
               choices: list[ChatResponse] | None = None, error: BaseException | None = None,
               log: AttemptLog | None = None) -> None:
        if self.done:
            return
        self.done = True
        duration = time.perf_counter() - self.started
        attributes = dict(self.common)
        if response is not None and response.model:
            attributes[gen_ai.GEN_AI_RESPONSE_MODEL] = response.model
        if self.span is not None:
            self._end_span(response, choices or ([response] if response else []), error, log)
        self._record(attributes, duration, response, error)

    # ------------------------------------------------------------ the span

    def _end_span(self, response: ChatResponse | None, choices: list[ChatResponse],
                  error: BaseException | None, log: AttemptLog | None) -> None:
        span = self.span
        assert span is not None
        out: dict[str, Any] = {}
        if self.asked_text and not _calls_only(choices):
            out[gen_ai.GEN_AI_OUTPUT_TYPE] = gen_ai.GenAiOutputTypeValues.TEXT.value
        if response is not None and _received(response):
            out.update(_response_attributes(response, choices))
            out.update(_cost(response))
            if response.timing is not None:
                out.update(self._timing_attributes(response.timing))
            if self.capture and choices and error is None:
                out[gen_ai.GEN_AI_OUTPUT_MESSAGES] = to_json(output_messages(choices))
        if log is not None:
            out[ATTEMPTS] = max(log.attempts, 1)
            self._retry_events(log)
        if error is not None:
            out[error_attributes.ERROR_TYPE] = _error_type(error)
            span.set_status(Status(StatusCode.ERROR, f"{type(error).__name__}: {error}"[:1000]))
        span.set_attributes(out)
        span.end()

    def _timing_attributes(self, timing: ResponseTiming) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if timing.attempts > 1:
            out[TIME_BEFORE_ANSWER] = timing.before_answer
        if not self.stream:
            return out
        for name, value in ((gen_ai.GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK,
                             timing.time_to_first_byte),
                            (TIME_TO_FIRST_TOKEN, timing.time_to_first_token),
                            (LONGEST_CHUNK_GAP, timing.longest_gap),
                            (OUTPUT_TOKENS_PER_SECOND, timing.output_tokens_per_second)):
            if value is not None:
                out[name] = value
        return out

    def _retry_events(self, log: AttemptLog) -> None:
        assert self.span is not None
        first = log.first_sent if log.first_sent is not None else 0.0
        for failure in log.failures:
            attributes: dict[str, Any] = {RETRY_ATTEMPT: failure.number,
                                          error_attributes.ERROR_TYPE: failure.error_type}
            if failure.status is not None:
                attributes[http_attributes.HTTP_RESPONSE_STATUS_CODE] = failure.status
            if failure.retry_in is not None:
                attributes[RETRY_IN] = failure.retry_in
            at = self.started_epoch + int((failure.sent - first) * 1e9)
            self.span.add_event(RETRY_EVENT, attributes, timestamp=at)

    # ------------------------------------------------------------ the metrics

    def _record(self, attributes: dict[str, Any], duration: float,
                response: ChatResponse | None, error: BaseException | None) -> None:
        instruments = self.instruments
        if instruments.duration is None:
            return
        failed = attributes if error is None else {
            **attributes, error_attributes.ERROR_TYPE: _error_type(error)}
        instruments.duration.record(duration, failed)
        usage = None if response is None else response.usage
        if usage is not None and instruments.token_usage is not None:
            counts = token_counts(usage)
            for member, count in (("INPUT", counts.input), ("OUTPUT", counts.output)):
                if count is not None:
                    kind = gen_ai.GenAiTokenTypeValues[member].value
                    instruments.token_usage.record(
                        count, {**attributes, gen_ai.GEN_AI_TOKEN_TYPE: kind})
        if not self.stream or response is None or response.timing is None:
            return
        first_chunk = response.timing.time_to_first_byte
        if first_chunk is not None and instruments.time_to_first_chunk is not None:
            instruments.time_to_first_chunk.record(first_chunk, attributes)
        if self.gaps and instruments.time_per_output_chunk is not None:
            for gap in self.gaps:
                instruments.time_per_output_chunk.record(gap, attributes)


def _received(response: ChatResponse) -> bool:
    """Whether anything of a response came (a failed call's partial may be the
    empty response of an answer that never came, its id made up)."""
    return bool(response.content) or response.usage is not None or response.model is not None


def _response_attributes(response: ChatResponse, choices: list[ChatResponse]) -> dict[str, Any]:
    out: dict[str, Any] = {gen_ai.GEN_AI_RESPONSE_ID: response.id}
    if response.model:
        out[gen_ai.GEN_AI_RESPONSE_MODEL] = response.model
    reasons = [choice.finished_reason.value for choice in choices
               if choice.finished_reason is not None]
    if reasons:
        out[gen_ai.GEN_AI_RESPONSE_FINISH_REASONS] = reasons
    if response.usage is not None:
        counts = token_counts(response.usage)
        for attribute, count in ((gen_ai.GEN_AI_USAGE_INPUT_TOKENS, counts.input),
                                 (gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS, counts.output),
                                 (gen_ai.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS, counts.cache_read),
                                 (gen_ai.GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
                                  counts.cache_write),
                                 (gen_ai.GEN_AI_USAGE_REASONING_OUTPUT_TOKENS, counts.reasoning)):
            if count is not None:
                out[attribute] = count
    return out
