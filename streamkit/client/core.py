"""One call to a provider, without I/O: what it sends, its attempts, its errors, its usage.

:class:`ClientCore` is everything :class:`~streamkit.Client` and
:class:`~streamkit.SyncClient` share; they only perform the I/O it asks for,
as :mod:`streamkit.stream`'s ``_Driver`` does for streams. A call is a
generator of steps (:meth:`ClientCore.attempts`, :meth:`ClientCore.create`):

- :class:`Send`: send the request under these httpx timeouts; the shell tells
  the core the response (its headers read, its body not) or the httpx error;
- :class:`Read`: read a response's body into a
  :class:`~streamkit.reading.error_body.BoundedBody` before the deadline, then close
  the response; the shell tells the httpx error that cut it short, or ``None``;
- :class:`Wait`: sleep this long before the next attempt.

The core decides everything else: whether an attempt worked, the error it
stands for (a :class:`~streamkit.model.errors.ProviderError` with the headers a
caller needs, or a :class:`~streamkit.model.errors.NoResponseError` when nothing
came), whether to try again and after how long (:mod:`streamkit.client.retry`, within
the total timeout), what each attempt is reported as (the ``on_attempt``
callback and the ``streamkit.client`` logger), and the usage totals.

httpx appears here only as values (a response's status and headers, its
exception classes, ``httpx.Timeout``); every read, write and sleep is the
shell's.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
import logging
import os
import threading
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Generic, TypeVar

import httpx
import msgspec

from ..conversation.messages import Message
from ..conversation.request import JsonOutput, Request, ToolChoice
from ..conversation.tools import Tool
from ..model.cost import CostTotals
from ..model.errors import (
    IncompleteStreamError,
    InvalidBodyError,
    LimitExceeded,
    NoResponseError,
    ProtocolError,
    ProviderError,
    StreamError,
)
from ..model.finish import FinishReason
from ..model.limits import DEFAULT_MAX_TOTAL_BYTES, MAX_ERROR_BODY_BYTES
from ..model.partial_json import PartialJSON, PartialJSONError
from ..model.response import ChatResponse
from ..model.timing import AttemptLog, RequestTiming, ResponseTiming
from ..model.usage import ChatUsage, merge_usage, token_counts
from ..model.vendors import (
    AUTH_HEADERS,
    ModelInfo,
    ProviderConfigError,
    ProviderEntry,
    fill_base_url,
    resolve_model,
)
from ..observability.calls import observe_call
from ..observability.observer import CallObserver
from ..providers.codec import build_request, parse_response
from ..providers.wire_format import WireFormat, wire_format
from ..reading.error_body import BoundedBody, provider_error_from_body
from ..reading.stream import OnError, Stream, SyncStream, stream
from .keys import ApiKey
from .retry import RetryPolicy, SyncTiming, Timing

__all__ = [
    "ERROR_HEADERS",
    "RETRYABLE_TRANSPORT_ERRORS",
    "UNSET",
    "Attempt",
    "Call",
    "ClientCore",
    "Progress",
    "Read",
    "Send",
    "Step",
    "Timeouts",
    "Tools",
    "Wait",
]

logger = logging.getLogger("streamkit.client")

#: Response headers an error keeps for the caller (the rest are not copied).
ERROR_HEADERS = ("retry-after", "retry-after-ms", "x-request-id", "request-id", "x-should-retry")

#: Transport failures before any response that are worth another attempt: the
#: request may not have reached the model, and nothing was received.
RETRYABLE_TRANSPORT_ERRORS: tuple[type[httpx.HTTPError], ...] = (
    httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError,
)

_ENCODE = msgspec.json.encode


def body_bytes(body: dict[str, Any]) -> bytes:
    """A request body as the JSON bytes sent. msgspec writes UTF-8, which cannot
    carry a lone surrogate (a conversation read from a body that held
    ``"\\ud800"`` keeps it, see :func:`streamkit.parse_request`); such a body is
    written with the surrogate as the same escape, which is JSON, by Python's
    encoder (every non-ASCII character escaped: still the same text)."""
    try:
        return _ENCODE(body)
    except UnicodeEncodeError:
        return json.dumps(body, separators=(",", ":")).encode("ascii")

#: ``timeout=`` not given: the httpx client's own timeouts, or ``Timeouts()``
#: for an httpx client the streamkit client makes.
UNSET: Any = object()

_NO_HEADERS: Mapping[str, str] = MappingProxyType({})

#: How much of a ``create()`` body that did not arrive whole (cut, over
#: ``max_body_bytes``, or not the wire's answer) is decoded for its partial answer:
#: the incremental JSON parser is pure Python, so a cut gigabyte is not read for it.
PARTIAL_BODY_BYTES = 256 * 1024

Tools = Sequence[Tool | Callable[..., Any] | dict[str, Any]]

#: Where the core reads the time from (its ``sleep`` is the shell's to call).
Clock = Timing | SyncTiming


@dataclass(frozen=True)
class Timeouts:
    """How long each phase of a call may take, in seconds (``None``: no limit).

    ``connect``, ``read`` (between two pieces of the response), ``write`` and
    ``pool`` (waiting for a free connection) are httpx's; ``total`` bounds a
    whole call in every phase: each attempt's connect, request and headers (past
    it: :class:`~streamkit.model.errors.NoResponseError`), an error body (read as far
    as it came), each wait, and the whole body (past it:
    :class:`~streamkit.model.errors.IncompleteStreamError` with the partial response),
    however slowly the bytes trickle in. The sync client keeps to it in every
    socket operation of the httpx client it makes itself
    (:mod:`streamkit.client.sync_deadline`); with an ``http_client`` of the caller's own
    it checks it once the headers came and between reads."""

    connect: float | None = 10.0
    read: float | None = 600.0
    """A reasoning model may be silent for minutes before its first token."""
    write: float | None = 60.0
    pool: float | None = 10.0
    total: float | None = None

    def for_attempt(self, remaining: float | None) -> httpx.Timeout:
        """httpx's timeouts for one attempt, none longer than ``remaining``."""
        def bounded(value: float | None) -> float | None:
            if remaining is None:
                return value
            return remaining if value is None else min(value, remaining)

        return httpx.Timeout(connect=bounded(self.connect), read=bounded(self.read),
                             write=bounded(self.write), pool=bounded(self.pool))


def _timeouts(timeout: float | Timeouts | None) -> Timeouts:
    if timeout is None:
        return Timeouts(connect=None, read=None, write=None, pool=None)
    if isinstance(timeout, Timeouts):
        return timeout
    return Timeouts(connect=timeout, read=timeout, write=timeout, pool=timeout)


@dataclass(frozen=True)
class Attempt:
    """What one attempt of a call gave, as the ``on_attempt`` callback sees it."""

    number: int
    """1 for the first attempt."""
    max_attempts: int
    method: str
    url: str
    status: int | None
    """The HTTP status; ``None`` when no response came."""
    error: StreamError | None
    """Why it failed (``None`` when it worked)."""
    retry_in: float | None
    """Seconds until the next attempt; ``None`` when there is none."""
    request_id: str | None
    provider: str = ""
    """The registry name of the provider attempted (``anthropic``)."""
    model: str = ""
    """The model attempted, as sent."""
    fallback: int = 0
    """Which of the client's models: 0 its own, 1 its first fallback, and so on."""


def _key_in(environ: Mapping[str, str], names: Sequence[str]) -> ApiKey | None:
    """The first of the environment variables ``names`` that is set, as an
    :class:`ApiKey` (never raises: the environment is in no failing frame)."""
    found = next((name for name in names if environ.get(name, "").strip()), None)
    return None if found is None else ApiKey(environ[found], found)


def _resolve_key(entry: ProviderEntry, api_key: ApiKey | None,
                 from_environ: ApiKey | None) -> ApiKey | None:
    """The key to send, ``api_key`` or the one from the entry's environment
    variables; a missing required key is a :class:`ProviderConfigError` naming
    them, as is one that cannot be sent (not shown)."""
    if AUTH_HEADERS[entry.auth] is None:
        return None
    key = api_key if api_key is not None else from_environ
    if key is None:
        if not entry.key_required:
            return None
        names = " or ".join(entry.env_keys)
        hint = f"set {names} (or pass api_key=)" if names else "pass api_key="
        raise ProviderConfigError(f"no API key for {entry.title}: {hint}",
                                  missing=entry.env_keys)
    if not key.can_be_sent:
        raise ProviderConfigError(
            f"the API key from {key.source} is empty or holds characters an HTTP header "
            f"cannot carry (spaces, line breaks, non-ASCII); it is not shown here")
    return key


class _KeyAuth(httpx.Auth):
    """Puts the key in its one header as httpx sends the request, and nowhere
    before: no frame of the client holds the header's value (a repr shows
    where the key came from)."""

    def __init__(self, key: ApiKey, header: str, prefix: str) -> None:
        self.key = key
        self.header = header
        self.prefix = prefix

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers[self.header] = self.prefix + self.key.reveal()
        yield request

    def __repr__(self) -> str:
        return f"<{self.header} header with the {self.key!r}>"


def _lenient_answer(provider: str, data: bytes) -> ChatResponse | None:
    """The wire's decoding of what a JSON body holds before it was cut or went
    bad (the incremental parser's view), or ``None`` when that is not enough
    for the decoder."""
    parser = PartialJSON()
    with contextlib.suppress(PartialJSONError):  # what came before a bad character stays
        parser.feed(data.decode("utf-8", "replace"))
    value = parser.value
    if not isinstance(value, dict):
        return None
    try:
        return parse_response(provider, value)
    except Exception:  # a partial body may lack what the decoder needs: nothing is shown then
        return None


def _environment(environ: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if environ is None else environ


def _with_overrides(entry: ProviderEntry, overrides: dict[str, Any]) -> ProviderEntry:
    """``entry`` with the caller's settings; ``headers`` / ``query`` are merged into
    the defaults (a ``None`` value removes one) rather than replacing them."""
    changes = dict(overrides)
    for key in ("headers", "query"):
        if key in changes:
            merged = {**getattr(entry, key), **changes[key]}
            changes[key] = {k: v for k, v in merged.items() if v is not None}
    return entry.replace(**changes) if changes else entry


def _increment(usage: ChatUsage) -> ChatUsage:
    """One call's final usage as an additive increment (its ``raw`` dropped: a
    provider's raw object is not summable)."""
    counts = {f.name: getattr(usage, f.name) for f in dataclasses.fields(usage)
              if f.name.endswith("_tokens")}
    return ChatUsage(**counts, accounting="additive",
                     input_includes_cache=usage.input_includes_cache,
                     output_includes_reasoning=usage.output_includes_reasoning)


class _UsageTotals:
    """``total`` (whole answers) and ``actual`` (also what broken calls spent)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.total = ChatUsage(accounting="additive")
        self.actual = ChatUsage(accounting="additive")

    def add(self, usage: ChatUsage | None, *, whole: bool) -> None:
        if usage is None:
            return
        step = _increment(usage)
        with self._lock:
            self.actual = merge_usage(self.actual, step)
            if whole:
                self.total = merge_usage(self.total, step)


# ---------------------------------------------------------------- the steps


@dataclass(frozen=True)
class Call:
    """What one call sends, built once and sent by every attempt (a retry is the
    same request byte for byte), and when its total timeout runs out."""

    url: str
    content: bytes
    headers: Mapping[str, str]
    """Without the key: the key is added per request and removed once it is sent."""
    deadline: float | None
    """On the clock's ``monotonic`` scale; ``None``: no total timeout."""
    log: AttemptLog = field(default_factory=AttemptLog, compare=False, repr=False)
    """The times of its attempts as they happen (the only part that changes),
    which become the answer's ``timing`` and telemetry's retries."""


@dataclass(frozen=True)
class Send:
    """Send the call's request under ``timeout``; tell the core the
    ``httpx.Response`` (body not read) or the ``httpx.HTTPError``."""

    call: Call
    timeout: httpx.Timeout | Any
    """``httpx.USE_CLIENT_DEFAULT`` when the client was given no timeouts."""


@dataclass(frozen=True)
class Read:
    """Read ``response``'s body into ``body`` (it says when to stop), past
    ``deadline`` no further; close the response; tell the core the
    ``httpx.HTTPError`` that cut the body short, or ``None``."""

    response: httpx.Response
    body: BoundedBody
    deadline: float | None


@dataclass(frozen=True)
class Wait:
    """Sleep ``seconds`` before the next attempt; tell the core nothing."""

    seconds: float


Step = Send | Read | Wait

T = TypeVar("T")


class Progress(Generic[T]):
    """A call's steps being performed: ``step`` is the next to do until ``done``;
    :meth:`tell` gives the core what the step gave. The shells' one loop::

        progress = Progress(core.create(call, clock))
        while not progress.done:
            progress.tell(perform(progress.step))
        return progress.result()
    """

    def __init__(self, steps: Generator[Step, Any, T]) -> None:
        self._steps = steps
        self._result: tuple[T] | None = None
        self.step: Step = Wait(0.0)
        self.tell(None)

    @property
    def done(self) -> bool:
        return self._result is not None

    def tell(self, outcome: Any) -> None:
        """What the last step gave (``None`` to start); the core's next step, or its end."""
        try:
            self.step = self._steps.send(outcome)
        except StopIteration as stop:
            self._result = (stop.value,)

    def result(self) -> T:
        """What the call gave, once ``done``."""
        assert self._result is not None, "the call has not ended"
        return self._result[0]


# ---------------------------------------------------------------- the core


class ClientCore:
    """Everything both clients share, without I/O: the entry, the key, the
    request to send, the attempts of a call (a generator of :data:`Step` s),
    the usage totals."""

    def __init__(self, model: str, api_key: ApiKey | None, base_url: str | None, *,
                 timeout: float | Timeouts | None, max_retries: int, retry: RetryPolicy | None,
                 model_info: ModelInfo | None, on_attempt: Callable[[Attempt], None] | None,
                 environ: Mapping[str, str] | None, overrides: dict[str, Any],
                 max_body_bytes: int = DEFAULT_MAX_TOTAL_BYTES, fallback: int = 0) -> None:
        entry, self.model = resolve_model(model, base_url=base_url)
        self.fallback = fallback
        """0 for a client's own model, n for its n-th fallback."""
        self.entry = _with_overrides(entry, overrides)
        template = base_url if base_url is not None else self.entry.base_url
        if template is None:
            raise ProviderConfigError(f"{self.entry.title} has no default base URL: pass base_url=")
        # the environment (every secret of the process) is held by no local of a frame that raises
        self.base_url = fill_base_url(template, _environment(environ)).rstrip("/")
        self.secret = _resolve_key(self.entry, api_key,
                                   _key_in(_environment(environ), self.entry.env_keys))
        style = AUTH_HEADERS[self.entry.auth]
        self._key_auth = None if style is None or self.secret is None \
            else _KeyAuth(self.secret, *style)
        self.wire: WireFormat = wire_format(self.entry.wire)
        self.timeouts = None if timeout is UNSET else _timeouts(timeout)
        self.policy = retry if retry is not None else RetryPolicy(max_retries=max_retries)
        self.model_info = self.entry.model_info.merged(model_info)
        self.on_attempt = on_attempt
        self.max_body_bytes = max_body_bytes
        self.usage = _UsageTotals()
        self.costs = CostTotals()

    def share_totals(self, other: ClientCore) -> None:
        """Count usage and costs into ``other``'s totals (a client's fallbacks
        add to the client's own)."""
        self.usage = other.usage
        self.costs = other.costs

    @property
    def name(self) -> str:
        """``provider:model``, as a client is given it."""
        return f"{self.entry.name}:{self.model}"

    def __repr__(self) -> str:
        key = "no key" if self.secret is None else f"key from {self.secret.source}"
        return f"{self.entry.name}:{self.model!r} at {self.base_url} ({key})"

    # ------------------------------------------------------------ building

    def url(self, *, stream: bool) -> str:
        """Where the wire package says the call goes, with the entry's query."""
        endpoint = self.wire.endpoint(self.base_url, self.model, stream=stream,
                                      dialect=self.entry.dialect)
        if not self.entry.query:
            return endpoint
        return str(httpx.URL(endpoint).copy_merge_params(dict(self.entry.query)))

    def body(self, messages: Sequence[Message] | Request, *, stream: bool,
             tools: Tools | None, tool_choice: ToolChoice | Tool | None,
             json_output: JsonOutput | None, options: dict[str, Any]) -> dict[str, Any]:
        """The request body for the conversation, by the wire's encoder."""
        merged = {**self.entry.options, **options} if self.entry.options else dict(options)
        if stream and self.entry.stream_usage:
            merged.setdefault("include_usage", True)  # usage totals need it (OpenAI Chat)
        messages = self._for_version(messages, merged)
        model = self.model if self.wire.model_in_body else None
        return build_request(self.entry.name, messages, model=model, tools=tools,
                             tool_choice=tool_choice, json_output=json_output, stream=stream,
                             **merged)

    def api_version(self) -> str | None:
        """The API version the calls are for: the value of the wire's version
        header this client sends (Anthropic's ``anthropic-version``, from the
        registry or the client's ``headers=``); ``None`` where there is none."""
        header = self.wire.version_header
        if header is None:
            return None
        sent = {name.lower(): value for name, value in self.entry.headers.items()}
        return sent.get(header.lower())

    def _for_version(self, messages: Sequence[Message] | Request,
                     options: dict[str, Any]) -> Sequence[Message] | Request:
        """Give the builder the version the header says (``api_version``, in
        ``options`` or in the request's own), so the body fits what is sent; a
        call asking for another version than the header is refused."""
        version = self.api_version()
        if version is None:
            return messages
        held = messages.options if isinstance(messages, Request) else options
        asked = held.get("api_version")
        if asked is not None and asked != version:
            raise ProviderConfigError(
                f"api_version={asked!r}, but this client sends {self.wire.version_header}: "
                f"{version}; pass headers={{{self.wire.version_header!r}: {asked!r}}} "
                f"to the client for that version")
        if not isinstance(messages, Request):
            options["api_version"] = version
            return messages
        kept = copy.copy(messages.options)  # an Extras keeps its origin
        kept["api_version"] = version
        return dataclasses.replace(messages, options=kept)

    def call(self, body: dict[str, Any], *, stream: bool, now: float) -> Call:
        """What every attempt of one call started ``now`` (monotonic) sends."""
        headers = {"content-type": "application/json", **self.entry.headers}
        total = self.timeouts.total if self.timeouts is not None else None
        return Call(self.url(stream=stream), body_bytes(body), headers,
                    None if total is None else now + total)

    @property
    def auth(self) -> httpx.Auth | Any:
        """What to send each request with (``http.send(request, auth=core.auth)``):
        the key's header, put in as the request goes out; the http client's own
        ``auth`` when no key is sent."""
        return httpx.USE_CLIENT_DEFAULT if self._key_auth is None else self._key_auth

    def request(self, http: httpx.AsyncClient | httpx.Client, step: Send) -> httpx.Request:
        """The HTTP request of one attempt, without the key (:attr:`auth` adds it
        as the request is sent, :meth:`scrub` takes it out once it is)."""
        return http.build_request("POST", step.call.url, content=step.call.content,
                                  headers=step.call.headers, timeout=step.timeout)

    def scrub_response(self, response: httpx.Response) -> None:
        """Take the key out of a response's headers and reason phrase as soon as
        they come (a server may echo it), before anything reads or keeps them."""
        secret = self.secret
        if secret is None:
            return
        echoed = [(name, value) for name, value in response.headers.items()
                  if secret.appears_in(value)]
        for name, value in echoed:
            response.headers[name] = secret.redact(value)
        reason = response.extensions.get("reason_phrase")
        if isinstance(reason, bytes) and secret.appears_in(reason):
            response.extensions["reason_phrase"] = secret.redact(reason.decode()).encode()

    def scrub(self, request: httpx.Request) -> None:
        """Remove the key from a request that has been sent: httpx's exceptions and
        ``response.request`` keep the request object."""
        if self._key_auth is not None and self._key_auth.header in request.headers:
            del request.headers[self._key_auth.header]

    def attempt_timeout(self, deadline: float | None, now: float) -> httpx.Timeout | Any:
        """httpx's timeouts for one attempt (the http client's own when none were set)."""
        if self.timeouts is None:
            return httpx.USE_CLIENT_DEFAULT
        return self.timeouts.for_attempt(None if deadline is None else max(deadline - now, 0.0))

    # ------------------------------------------------------------ a call

    def attempts(self, call: Call, clock: Clock) -> Generator[Step, Any, httpx.Response]:
        """The retry loop: attempt after attempt until one gets a response with a
        status below 400, returned with its body unread. An error status's body
        is read for its message; a failure before any response is a
        :class:`~streamkit.model.errors.NoResponseError`. Whether to try again, and
        after how long, is :meth:`next_delay`'s; the last error is raised when
        there is no next attempt."""
        number = 0
        headers: Mapping[str, str]
        while True:
            number += 1
            sent = clock.monotonic()
            call.log.sending(sent)
            outcome = yield Send(call, self.attempt_timeout(call.deadline, sent))
            if isinstance(outcome, httpx.Response):
                call.log.answered(clock.monotonic())
            if isinstance(outcome, httpx.Response) and outcome.status_code < 400:
                self.report(number, call, outcome.status_code, None, None,
                            self.kept_headers(outcome.headers))
                return outcome
            if isinstance(outcome, httpx.Response):
                body = BoundedBody(MAX_ERROR_BODY_BYTES)
                failure = yield Read(outcome, body, call.deadline)  # cut short: as far as it came
                status, headers = outcome.status_code, self.kept_headers(outcome.headers)
                error: StreamError = self.provider_error(outcome, body, cut=failure is not None)
                delay = self.next_delay(number, status, headers, call.deadline, clock)
            else:
                status, headers = None, _NO_HEADERS
                error = self.no_response(call, outcome)
                delay = self.next_delay(number, None, headers, call.deadline, clock) \
                    if isinstance(outcome, RETRYABLE_TRANSPORT_ERRORS) else None
            self.report(number, call, status, error, delay, headers)
            call.log.failed(status, error, delay)
            if delay is None:
                raise error
            yield Wait(delay)

    def create(self, call: Call, clock: Clock) -> Generator[Step, Any, ChatResponse]:
        """A non-streamed call: :meth:`attempts`, then the whole body (up to
        ``max_body_bytes``, never further) parsed by the wire's decoder; its
        usage counted as an answer handed back whole. Every error carries what
        the body decoded to so far (:meth:`partial_answer`)."""
        response = yield from self.attempts(call, clock)
        return (yield from self.answer(response, call, clock))

    def answer(self, response: httpx.Response, call: Call, clock: Clock,
               request_timing: RequestTiming | None = None,
               ) -> Generator[Step, Any, ChatResponse]:
        """The answer of a non-streamed call whose attempts gave ``response``:
        its whole body parsed (see :meth:`create`), timed from ``request_timing``
        (the call's own log when not given; a fallback chain's adds the models
        tried before)."""
        body = BoundedBody(self.max_body_bytes)
        failure = yield Read(response, body, call.deadline)
        if body.over_limit:
            raise LimitExceeded(f"the response body is larger than max_body_bytes={body.limit}",
                                limit="max_body_bytes", value=body.limit,
                                observed=body.limit + 1, partial=self.partial_answer(body.data))
        if failure is not None:
            raise self.broken_body(failure, body.data) from failure
        answer = self.whole_answer(response, body.data)
        usage = answer.usage
        output = None if usage is None else token_counts(usage).output
        if request_timing is None:
            request_timing = call.log.request_timing(clock.monotonic)
        answer.timing = ResponseTiming.whole_body(request_timing, clock.monotonic(), output)
        self.record(answer, whole=True)
        return answer

    def events(self, source: Any, *, on_error: OnError,
               think_tags: bool | tuple[str, str] | None,
               request_timing: RequestTiming | None = None) -> Stream | SyncStream:
        """The events of a streamed answer, read from ``source`` (the response of
        :meth:`attempts`, within the deadline) by the wire's parser, timed from
        ``request_timing`` (``call.log.request_timing(clock.monotonic)``)."""
        events: Stream | SyncStream = stream(source, self.entry.name, on_error=on_error,
                                             think_tags=think_tags,
                                             max_total_bytes=self.max_body_bytes,
                                             request_timing=request_timing)
        return events

    @contextlib.contextmanager
    def observe(self, call: Call, body: dict[str, Any], *,
                stream: bool) -> Iterator[CallObserver]:
        """The telemetry of one call (:mod:`streamkit.observability`; nothing when
        no tracer or meter provider is set): the shell tells the observer how the
        call ended; a call that raises before is ended here with its error."""
        observer = observe_call(provider=self.entry.name, model=self.model, url=call.url,
                                body=body, stream=stream)
        try:
            yield observer
        except BaseException as exc:
            partial = exc.partial if isinstance(exc, StreamError) else None
            observer.finish(partial, error=exc, log=call.log)
            raise

    # ------------------------------------------------------------ outcomes

    def _empty(self, reason: FinishReason) -> ChatResponse:
        """The partial response of a call that received nothing."""
        return ChatResponse(provider=self.entry.name, finished_reason=reason)

    def partial_answer(self, data: bytes) -> ChatResponse:
        """What a body that did not arrive whole, or is not the wire's answer,
        decoded to: its first :data:`PARTIAL_BODY_BYTES` read leniently as JSON
        (what came before a cut or a bad character) by the wire's decoder, marked
        ``interrupted``; an empty response with the provider when that gives nothing."""
        answer = _lenient_answer(self.entry.name, data[:PARTIAL_BODY_BYTES])
        if answer is None:
            return self._empty(FinishReason.INTERRUPTED)
        answer.finished_reason = FinishReason.INTERRUPTED
        return answer

    def broken_body(self, failure: httpx.HTTPError, data: bytes) -> StreamError:
        """The error of a body that stopped short, with its partial answer. A
        content encoding that does not decode (a corrupt gzip body) is a
        :class:`~streamkit.model.errors.ProtocolError`: the connection did not break,
        the bytes that came are not what the server said they were; anything
        else is an :class:`~streamkit.model.errors.IncompleteStreamError`."""
        error: StreamError
        if isinstance(failure, httpx.DecodingError):
            error = ProtocolError(f"the response body's content encoding does not decode "
                                  f"after {len(data)} bytes: {failure}")
        else:
            error = IncompleteStreamError(f"the response broke after {len(data)} bytes: "
                                          f"{type(failure).__name__}: {failure}")
        error.partial = self.partial_answer(data)
        return error

    def whole_answer(self, response: httpx.Response, data: bytes) -> ChatResponse:
        """A whole body by the wire's decoder. One that is not the wire's answer
        is a :class:`~streamkit.model.errors.ProviderError` when it holds the
        provider's error (a 200 can), else a :class:`~streamkit.model.errors.ProtocolError`,
        each with its partial answer."""
        try:
            return parse_response(self.entry.name, data)
        except StreamError as error:  # not JSON
            error.partial = self.partial_answer(data)
            raise
        except InvalidBodyError as refused:
            held = provider_error_from_body(response.status_code, data,
                                            response.headers.get("content-type", ""))
            if isinstance(held.raw, dict) and "error" in held.raw:
                held.headers = self.kept_headers(response.headers)
                held.partial = self._empty(FinishReason.ERROR)
                raise held from None
            raise ProtocolError(f"the response body is not a {self.entry.wire} answer: {refused}",
                                raw=data[:2000], partial=self.partial_answer(data)) from refused

    def kept_headers(self, headers: Mapping[str, str]) -> dict[str, str]:
        """The response headers an error keeps (:data:`ERROR_HEADERS`), the key
        taken out of them (a server may echo it, even in a request id)."""
        secret = self.secret
        return {name: headers[name] if secret is None else secret.redact(headers[name])
                for name in ERROR_HEADERS if name in headers}

    def provider_error(self, response: httpx.Response, body: BoundedBody, *,
                       cut: bool = False) -> ProviderError:
        """The error an error response stands for, with the headers a caller needs
        and an empty partial response (nothing was received); ``cut``: the body
        stopped short (a break, the total timeout), read as far as it came."""
        error = provider_error_from_body(response.status_code, body.data,
                                         response.headers.get("content-type", ""),
                                         cut=body.over_limit or cut)
        error.headers = self.kept_headers(response.headers)
        error.partial = self._empty(FinishReason.ERROR)
        return error

    def no_response(self, call: Call, exc: Exception) -> NoResponseError:
        """The error of an attempt that got no response: nothing was received;
        the httpx error is the cause."""
        error = NoResponseError(f"no response from {call.url}: {type(exc).__name__}: {exc}")
        error.partial = self._empty(FinishReason.INTERRUPTED)
        error.__cause__ = exc
        return error

    def next_delay(self, attempt: int, status: int | None, headers: Mapping[str, str],
                   deadline: float | None, clock: Clock) -> float | None:
        """The wait before another attempt, or ``None`` to give up (no attempts
        left, not worth it, or past the total timeout)."""
        delay = self.policy.delay(attempt, status, headers, now=clock.now(), rand=clock.random())
        if delay is not None and deadline is not None and clock.monotonic() + delay >= deadline:
            return None
        return delay

    def report(self, attempt: int, call: Call, status: int | None,
               error: StreamError | None, retry_in: float | None,
               headers: Mapping[str, str]) -> None:
        """Tell the ``on_attempt`` callback and the log what one attempt gave."""
        request_id = headers.get("x-request-id") or headers.get("request-id")
        record = Attempt(attempt, self.policy.max_retries + 1, "POST", call.url, status, error,
                         retry_in, request_id, self.entry.name, self.model, self.fallback)
        if error is None:
            logger.debug("POST %s (%s): attempt %d of %d: HTTP %s", call.url, self.name,
                         attempt, record.max_attempts, status)
        else:
            outcome = f"HTTP {status}" if status is not None else "no response"
            then = (f"retrying in {retry_in:.3f} s" if retry_in is not None else "giving up")
            logger.warning("POST %s (%s): attempt %d of %d failed (%s%s): %s; %s", call.url,
                           self.name, attempt, record.max_attempts, outcome,
                           f", request id {request_id}" if request_id else "",
                           type(error).__name__, then)
        if self.on_attempt is not None:
            self.on_attempt(record)

    def record(self, response: ChatResponse | None, *, whole: bool) -> None:
        """Count one call's usage (``whole``: its answer was handed back complete)."""
        if response is not None:
            self.usage.add(response.usage, whole=whole)
            if whole:
                self.costs.add(response)

    def record_stream(self, events: Stream | SyncStream) -> None:
        """Count a streamed call's usage, whole when the stream ended normally."""
        response = events.response
        whole = events.error is None and response.is_last \
            and response.finished_reason is not FinishReason.INTERRUPTED
        self.record(response, whole=whole)
