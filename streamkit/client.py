"""``streamkit.Client`` / ``SyncClient``: a provider from the registry, over httpx.

A thin I/O layer over pieces that each do one thing:

- :mod:`streamkit.registry` says where a provider lives and how it takes a key;
- :func:`streamkit.build_request` / :func:`streamkit.parse_response` encode the
  conversation and decode a whole answer for the provider's wire format;
- each wire package's ``http.py`` says where its endpoint is under the base URL
  and whether the model goes in the URL or the body;
- :mod:`streamkit.retry` decides whether to try again and how long to wait;
- :func:`streamkit.stream` turns the HTTP response into events.

This module knows no wire field name: it sends the body it is given.

Retries happen only before the first byte of a response body: a connection that
failed, or an error status (:data:`~streamkit.retry.RETRY_STATUSES`, whose small
error body is read for its message). A stream that already delivered content is
never sent again; when it breaks, the error carries the partial response, as
:func:`streamkit.stream` always does. Each attempt is reported to the
``on_attempt`` callback and logged on the ``streamkit.client`` logger (DEBUG for
one that worked, WARNING for one that failed).

Usage, in autogen's terms (``ChatCompletionClient.total_usage`` /
``actual_usage``): autogen's OpenAI client adds each call's usage to both, and
its ``ChatCompletionCache`` documents that "cache hits do not contribute to token
usage"; autogen 0.2's ``OpenAIWrapper`` defined *actual* as the non-cached calls
and *total* as all the completions handed back. streamkit has no cache, so the
two differ where calls fail: :attr:`Client.total_usage` sums the usage of every
answer handed back whole (a ``create()`` result, a stream that ended normally);
:attr:`Client.actual_usage` adds what the provider reported for calls that
broke or were closed early (their partial response's usage): tokens spent but
never delivered. Both are summed additively across calls, each call counting
its own final usage once, whatever the provider's in-stream rule (cumulative or
additive) was. Counts a provider never reported stay ``None``.

A key never appears in a ``repr``, a log line or an error: it is held in an
object that prints as where it came from, sent in one header of each request,
and removed from the request object as soon as the request is sent (so that
httpx's exceptions and ``response.request`` do not carry it); a key with
characters a header cannot carry is refused before any request, without being
shown.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import logging
import os
import re
import threading
from collections.abc import (
    AsyncIterator,
    Callable,
    Iterator,
    Mapping,
    Sequence,
)
from dataclasses import dataclass
from types import MappingProxyType, ModuleType, TracebackType
from typing import Any, Self

import anyio
import httpx
import msgspec

from .error_body import provider_error_from_body
from .errors import IncompleteStreamError, LimitExceeded, ProviderError, StreamError
from .finish import FinishReason
from .limits import DEFAULT_MAX_TOTAL_BYTES, MAX_ERROR_BODY_BYTES
from .messages import Message
from .providers import wire_of
from .registry import (
    AUTH_HEADERS,
    ModelInfo,
    ProviderConfigError,
    ProviderEntry,
    fill_base_url,
    resolve_model,
)
from .request import JsonOutput, Request, ToolChoice, build_request, parse_response
from .response import ChatResponse
from .retry import RetryPolicy, SyncTiming, Timing
from .stream import OnError, Stream, SyncStream, stream
from .tools import Tool
from .usage import ChatUsage, merge_usage

__all__ = [
    "ERROR_HEADERS",
    "RETRYABLE_TRANSPORT_ERRORS",
    "Attempt",
    "Client",
    "SyncClient",
    "Timeouts",
]

logger = logging.getLogger("streamkit.client")

#: Response headers an error keeps for the caller (the rest are not copied).
ERROR_HEADERS = ("retry-after", "retry-after-ms", "x-request-id", "request-id", "x-should-retry")

#: Transport failures before any response that are worth another attempt: the
#: request may not have reached the model, and nothing was received.
RETRYABLE_TRANSPORT_ERRORS: tuple[type[httpx.HTTPError], ...] = (
    httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError,
)

#: What a key may be made of: printable ASCII, no spaces (what an HTTP header
#: value carries unchanged). Anything else is refused before a request is made.
_KEY_CHARACTERS = re.compile(r"[\x21-\x7e]+")

_ENCODE = msgspec.json.encode

_UNSET: Any = object()

_NO_HEADERS: Mapping[str, str] = MappingProxyType({})

Tools = Sequence[Tool | Callable[..., Any] | dict[str, Any]]


@dataclass(frozen=True)
class Timeouts:
    """How long each phase of a call may take, in seconds (``None``: no limit).

    ``connect``, ``read`` (between two pieces of the response), ``write`` and
    ``pool`` (waiting for a free connection) are httpx's; ``total`` bounds a
    whole call: every attempt and wait, and the whole body of a stream (a stream
    past it ends with :class:`~streamkit.errors.IncompleteStreamError` and the
    partial response). A sync stream checks ``total`` between reads."""

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


class _Secret:
    """A key that prints as where it came from, never as itself."""

    __slots__ = ("_value", "source")

    def __init__(self, value: str, source: str) -> None:
        self._value = value
        self.source = source

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return f"<key from {self.source}>"

    __str__ = __repr__

    def __reduce__(self) -> Any:
        raise TypeError("an API key is not pickled")


def _resolve_key(entry: ProviderEntry, api_key: str | None,
                 environ: Mapping[str, str]) -> _Secret | None:
    """The key to send, from ``api_key`` or the entry's environment variables; a
    missing required key is a :class:`ProviderConfigError` naming them."""
    if AUTH_HEADERS[entry.auth] is None:
        return None
    if api_key is not None:
        value, source = api_key, "api_key="
    else:
        found = next((name for name in entry.env_keys if environ.get(name, "").strip()), None)
        if found is None:
            if not entry.key_required:
                return None
            names = " or ".join(entry.env_keys)
            hint = f"set {names} (or pass api_key=)" if names else "pass api_key="
            raise ProviderConfigError(f"no API key for {entry.title}: {hint}",
                                      missing=entry.env_keys)
        value, source = environ[found], found
    value = value.strip()
    if not _KEY_CHARACTERS.fullmatch(value):
        raise ProviderConfigError(
            f"the API key from {source} is empty or holds characters an HTTP header cannot "
            f"carry (spaces, line breaks, non-ASCII); it is not shown here")
    return _Secret(value, source)


def _increment(usage: ChatUsage) -> ChatUsage:
    """One call's final usage as an additive increment (its ``raw`` dropped: a
    provider's raw object is not summable)."""
    counts = {f.name: getattr(usage, f.name) for f in dataclasses.fields(usage)
              if f.name.endswith("_tokens")}
    return ChatUsage(**counts, accounting="additive")


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


@dataclass(frozen=True)
class _Call:
    """What one call sends, built once and sent by every attempt."""

    url: str
    content: bytes
    headers: Mapping[str, str]
    """Without the key: the key is added per request and removed once it is sent."""


class _Core:
    """Everything both clients share, without I/O: the entry, the key, the
    request to send, the decision after each attempt, the usage totals."""

    def __init__(self, model: str, api_key: str | None, base_url: str | None, *,
                 timeout: float | Timeouts | None, max_retries: int, retry: RetryPolicy | None,
                 model_info: ModelInfo | None, on_attempt: Callable[[Attempt], None] | None,
                 environ: Mapping[str, str] | None, overrides: dict[str, Any]) -> None:
        env = os.environ if environ is None else environ
        entry, self.model = resolve_model(model, base_url=base_url)
        self.entry = _with_overrides(entry, overrides)
        template = base_url if base_url is not None else self.entry.base_url
        if template is None:
            raise ProviderConfigError(f"{self.entry.title} has no default base URL: pass base_url=")
        self.base_url = fill_base_url(template, env).rstrip("/")
        self.secret = _resolve_key(self.entry, api_key, env)
        self.package, self.dialect = wire_of(self.entry.wire)
        self.http: ModuleType = importlib.import_module(f"streamkit.providers.{self.package}.http")
        self.timeouts = None if timeout is _UNSET else _timeouts(timeout)
        self.policy = retry if retry is not None else RetryPolicy(max_retries=max_retries)
        self.model_info = self.entry.model_info.merged(model_info)
        self.on_attempt = on_attempt
        self.usage = _UsageTotals()

    def __repr__(self) -> str:
        key = "no key" if self.secret is None else f"key from {self.secret.source}"
        return f"{self.entry.name}:{self.model!r} at {self.base_url} ({key})"

    # ------------------------------------------------------------ building

    def url(self, *, stream: bool) -> str:
        """Where the wire package says the call goes, with the entry's query."""
        endpoint: str = self.http.endpoint(self.base_url, self.model, stream=stream,
                                           dialect=self.dialect)
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
        model = self.model if self.http.MODEL_IN_BODY else None
        return build_request(self.entry.wire, messages, model=model, tools=tools,
                             tool_choice=tool_choice, json_output=json_output, stream=stream,
                             **merged)

    def call(self, body: dict[str, Any], *, stream: bool) -> _Call:
        """What every attempt of one call sends: encoded once, so a retry is the
        same request byte for byte."""
        headers = {"content-type": "application/json", **self.entry.headers}
        return _Call(self.url(stream=stream), _ENCODE(body), headers)

    def auth_header(self) -> tuple[str, str] | None:
        """The one header that carries the key (``None``: no key is sent)."""
        style = AUTH_HEADERS[self.entry.auth]
        if style is None or self.secret is None:
            return None
        name, prefix = style
        return name, prefix + self.secret.reveal()

    def deadline(self, now: float) -> float | None:
        """When the total timeout of a call started ``now`` runs out."""
        total = self.timeouts.total if self.timeouts is not None else None
        return None if total is None else now + total

    def attempt_timeout(self, deadline: float | None, now: float) -> httpx.Timeout | Any:
        """httpx's timeouts for one attempt (the http client's own when none were set)."""
        if self.timeouts is None:
            return httpx.USE_CLIENT_DEFAULT
        return self.timeouts.for_attempt(None if deadline is None else max(deadline - now, 0.0))

    # ------------------------------------------------------------ outcomes

    def provider_error(self, response: httpx.Response, body: bytes, cut: bool) -> ProviderError:
        """The error an error response stands for, with the headers a caller needs
        and an empty partial response (nothing was received)."""
        error = provider_error_from_body(response.status_code, body,
                                         response.headers.get("content-type", ""), cut=cut)
        error.headers = {name: response.headers[name] for name in ERROR_HEADERS
                         if name in response.headers}
        error.partial = ChatResponse(provider=self.entry.wire, finished_reason=FinishReason.ERROR)
        return error

    def connection_error(self, call: _Call, exc: Exception) -> IncompleteStreamError:
        """The error of an attempt that got no response: nothing was received."""
        error = IncompleteStreamError(f"no response from {call.url}: {type(exc).__name__}: {exc}")
        error.partial = ChatResponse(provider=self.entry.wire,
                                     finished_reason=FinishReason.INTERRUPTED)
        return error

    def next_delay(self, attempt: int, status: int | None, headers: Mapping[str, str], *,
                   now: float, rand: float, deadline: float | None,
                   monotonic: float) -> float | None:
        """The wait before another attempt, or ``None`` to give up (no attempts
        left, not worth it, or past the total timeout)."""
        delay = self.policy.delay(attempt, status, headers, now=now, rand=rand)
        if delay is not None and deadline is not None and monotonic + delay >= deadline:
            return None
        return delay

    def report(self, attempt: int, call: _Call, status: int | None,
               error: StreamError | None, retry_in: float | None,
               headers: Mapping[str, str]) -> None:
        """Tell the ``on_attempt`` callback and the log what one attempt gave."""
        request_id = headers.get("x-request-id") or headers.get("request-id")
        record = Attempt(attempt, self.policy.max_retries + 1, "POST", call.url, status, error,
                         retry_in, request_id)
        if error is None:
            logger.debug("POST %s: attempt %d of %d: HTTP %s", call.url, attempt,
                         record.max_attempts, status)
        else:
            outcome = f"HTTP {status}" if status is not None else "no response"
            then = (f"retrying in {retry_in:.3f} s" if retry_in is not None else "giving up")
            logger.warning("POST %s: attempt %d of %d failed (%s%s): %s; %s", call.url, attempt,
                           record.max_attempts, outcome,
                           f", request id {request_id}" if request_id else "",
                           type(error).__name__, then)
        if self.on_attempt is not None:
            self.on_attempt(record)

    def record(self, response: ChatResponse | None, *, whole: bool) -> None:
        """Count one call's usage (``whole``: its answer was handed back complete)."""
        if response is not None:
            self.usage.add(response.usage, whole=whole)


def _with_overrides(entry: ProviderEntry, overrides: dict[str, Any]) -> ProviderEntry:
    """``entry`` with the caller's settings; ``headers`` / ``query`` are merged into
    the defaults (a ``None`` value removes one) rather than replacing them."""
    changes = dict(overrides)
    for key in ("headers", "query"):
        if key in changes:
            merged = {**getattr(entry, key), **changes[key]}
            changes[key] = {k: v for k, v in merged.items() if v is not None}
    return entry.replace(**changes) if changes else entry


def _scrub(request: httpx.Request, auth: tuple[str, str] | None) -> None:
    """Remove the key from a request that has been sent: httpx's exceptions and
    ``response.request`` keep the request object."""
    if auth is not None and auth[0] in request.headers:
        del request.headers[auth[0]]


def _whole(events: Stream | SyncStream) -> bool:
    """Whether a stream ended normally (its answer was handed back whole)."""
    return events.error is None and events.response.is_last \
        and events.response.finished_reason is not FinishReason.INTERRUPTED


class _AsyncDeadlineBody:
    """An async httpx response whose body must arrive before a deadline (the
    total timeout): past it, reading raises ``httpx.ReadTimeout``, which the
    stream layer turns into an error carrying the partial response."""

    def __init__(self, response: httpx.Response, deadline: float,
                 monotonic: Callable[[], float]) -> None:
        self._response = response
        self._deadline = deadline
        self._monotonic = monotonic
        self.status_code = response.status_code
        self.headers = response.headers
        self.stream = response.stream  # says "async" to streamkit.stream()

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        chunks = self._response.aiter_bytes().__aiter__()
        while True:
            remaining = self._deadline - self._monotonic()
            try:
                if remaining <= 0:
                    raise TimeoutError
                with anyio.fail_after(remaining):
                    chunk = await chunks.__anext__()
            except StopAsyncIteration:
                return
            except TimeoutError:
                raise httpx.ReadTimeout("the total timeout passed",
                                        request=self._response.request) from None
            yield chunk

    async def aclose(self) -> None:
        await self._response.aclose()


class _SyncDeadlineBody:
    """The sync twin of :class:`_AsyncDeadlineBody`, checked between reads."""

    def __init__(self, response: httpx.Response, deadline: float,
                 monotonic: Callable[[], float]) -> None:
        self._response = response
        self._deadline = deadline
        self._monotonic = monotonic
        self.status_code = response.status_code
        self.headers = response.headers
        self.stream = response.stream

    def iter_bytes(self) -> Iterator[bytes]:
        for chunk in self._response.iter_bytes():
            if self._monotonic() >= self._deadline:
                raise httpx.ReadTimeout("the total timeout passed", request=self._response.request)
            yield chunk

    def close(self) -> None:
        self._response.close()


def _too_big(limit: int) -> LimitExceeded:
    return LimitExceeded(f"the response body is larger than {limit} bytes",
                         limit="max_total_bytes", value=limit, observed=limit + 1)


class _Readings:
    """What :class:`Client` and :class:`SyncClient` tell about themselves: read
    from their :class:`_Core`, the same whether the calls are async or not."""

    _core: _Core

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._core!r})"

    @property
    def provider(self) -> ProviderEntry:
        """The registry entry in use, with this client's overrides."""
        return self._core.entry

    @property
    def model(self) -> str:
        """The model name sent to the provider."""
        return self._core.model

    @property
    def base_url(self) -> str:
        """The base URL in use."""
        return self._core.base_url

    @property
    def model_info(self) -> ModelInfo:
        """The model's capabilities as far as known (registry, then ``model_info=``)."""
        return self._core.model_info

    def url(self, *, stream: bool = True) -> str:
        """The URL a call is posted to (with its query; never a key, which goes in a header)."""
        return self._core.url(stream=stream)

    @property
    def total_usage(self) -> ChatUsage:
        """The usage of every answer handed back whole, summed."""
        return self._core.usage.total

    @property
    def actual_usage(self) -> ChatUsage:
        """:attr:`total_usage` plus what calls that broke or were closed early spent."""
        return self._core.usage.actual


class Client(_Readings):
    """An async client for one provider and model: ``Client("deepseek:deepseek-chat")``.

    ``model`` is ``"provider:model"`` (a :data:`~streamkit.registry.PROVIDERS` name
    or alias; only the first ``:`` separates them), or a bare model name with
    ``base_url`` for any OpenAI-compatible server. The key comes from ``api_key``
    or the provider's environment variables; a missing one fails here, naming
    them. ``base_url`` replaces the provider's. ``timeout`` is a number (every
    httpx phase) or :class:`Timeouts`; by default the provided or created httpx
    client's own timeouts apply, ``Timeouts()`` when the client makes its own.
    ``max_retries`` (or a whole ``retry`` policy) bounds the attempts after the
    first. ``http_client`` is used as given and not closed by :meth:`close`.
    Any other keyword overrides a :class:`~streamkit.registry.ProviderEntry`
    field (``auth="api-key"``, ``query={"api-version": ...}``, ``headers={...}``
    merged into the defaults, ``options={"max_tokens": 8192}``).
    """

    def __init__(self, model: str, api_key: str | None = None, base_url: str | None = None, *,
                 timeout: float | Timeouts | None = _UNSET, max_retries: int = 2,
                 http_client: httpx.AsyncClient | None = None, retry: RetryPolicy | None = None,
                 model_info: ModelInfo | None = None,
                 on_attempt: Callable[[Attempt], None] | None = None,
                 timing: Timing | None = None, environ: Mapping[str, str] | None = None,
                 **overrides: Any) -> None:
        if timeout is _UNSET and http_client is None:
            timeout = Timeouts()
        self._core = _Core(model, api_key, base_url, timeout=timeout, max_retries=max_retries,
                           retry=retry, model_info=model_info, on_attempt=on_attempt,
                           environ=environ, overrides=overrides)
        self._http = http_client if http_client is not None else httpx.AsyncClient()
        self._owns_http = http_client is None
        self._timing = timing if timing is not None else Timing()

    # ------------------------------------------------------------ calls

    async def create(self, messages: Sequence[Message] | Request, *, tools: Tools | None = None,
                     tool_choice: ToolChoice | Tool | None = None,
                     json_output: JsonOutput | None = None, **options: Any) -> ChatResponse:
        """One non-streamed answer, parsed by :func:`streamkit.parse_response`."""
        body = self._core.body(messages, stream=False, tools=tools, tool_choice=tool_choice,
                               json_output=json_output, options=options)
        return await self.create_body(body)

    async def create_body(self, body: dict[str, Any]) -> ChatResponse:
        """Send a request body built elsewhere (a gateway forwarding one) as it is,
        for one non-streamed answer."""
        call = self._core.call(body, stream=False)
        deadline = self._core.deadline(self._timing.monotonic())
        response = await self._send(call, deadline)
        try:
            raw = await self._read_body(response, deadline)
        finally:
            with anyio.CancelScope(shield=True):
                await response.aclose()
        answer = parse_response(self._core.entry.wire, raw)
        self._core.record(answer, whole=True)
        return answer

    @contextlib.asynccontextmanager
    async def stream(self, messages: Sequence[Message] | Request, *, tools: Tools | None = None,
                     tool_choice: ToolChoice | Tool | None = None,
                     json_output: JsonOutput | None = None, on_error: OnError = "raise",
                     think_tags: bool | tuple[str, str] | None = None,
                     **options: Any) -> AsyncIterator[Stream]:
        """``async with client.stream(messages) as events:`` a streamed answer as
        today's :class:`~streamkit.Stream` (same events, final response and errors).
        Leaving the block closes the connection."""
        body = self._core.body(messages, stream=True, tools=tools, tool_choice=tool_choice,
                               json_output=json_output, options=options)
        async with self.stream_body(body, on_error=on_error, think_tags=think_tags) as events:
            yield events

    @contextlib.asynccontextmanager
    async def stream_body(self, body: dict[str, Any], *, on_error: OnError = "raise",
                          think_tags: bool | tuple[str, str] | None = None,
                          ) -> AsyncIterator[Stream]:
        """Like :meth:`stream` for a request body built elsewhere, sent as it is."""
        call = self._core.call(body, stream=True)
        deadline = self._core.deadline(self._timing.monotonic())
        response = await self._send(call, deadline)
        try:
            source: Any = response if deadline is None else \
                _AsyncDeadlineBody(response, deadline, self._timing.monotonic)
            events = stream(source, self._core.entry.wire, on_error=on_error,
                            think_tags=think_tags)
            assert isinstance(events, Stream)
        except BaseException:
            with anyio.CancelScope(shield=True):
                await response.aclose()
            raise
        try:
            async with events:
                yield events
        finally:
            self._core.record(events.response, whole=_whole(events))

    # ------------------------------------------------------------ I/O

    async def _send(self, call: _Call, deadline: float | None) -> httpx.Response:
        """The response of the first attempt that got one with a status below 400
        (its body not read yet); the last error when none did."""
        timing, attempt = self._timing, 0
        auth = self._core.auth_header()
        while True:
            attempt += 1
            headers = dict(call.headers)
            if auth is not None:
                headers[auth[0]] = auth[1]
            request = self._http.build_request(
                "POST", call.url, content=call.content, headers=headers,
                timeout=self._core.attempt_timeout(deadline, timing.monotonic()))
            try:
                response = await self._http.send(request, stream=True)
            except RETRYABLE_TRANSPORT_ERRORS as exc:
                status, error_headers = None, _NO_HEADERS
                error: StreamError = self._core.connection_error(call, exc)
                error.__cause__ = exc
            except httpx.HTTPError as exc:
                error = self._core.connection_error(call, exc)
                self._core.report(attempt, call, None, error, None, _NO_HEADERS)
                raise error from exc
            else:
                if response.status_code < 400:
                    self._core.report(attempt, call, response.status_code, None, None,
                                      response.headers)
                    return response
                status, error_headers = response.status_code, response.headers
                error = await self._read_error(response)
            finally:
                _scrub(request, auth)
            delay = self._core.next_delay(attempt, status, error_headers, now=timing.now(),
                                          rand=timing.random(), deadline=deadline,
                                          monotonic=timing.monotonic())
            self._core.report(attempt, call, status, error, delay, error_headers)
            if delay is None:
                raise error
            await timing.sleep(delay)

    async def _read_error(self, response: httpx.Response) -> ProviderError:
        """Read an error body up to the limit, never further, and close the response."""
        body = bytearray()
        try:
            async for chunk in response.aiter_bytes():
                body += chunk[: MAX_ERROR_BODY_BYTES + 1 - len(body)]
                if len(body) > MAX_ERROR_BODY_BYTES:
                    break
        except httpx.HTTPError:
            pass  # the status says enough; a body cut short is read as far as it came
        finally:
            with anyio.CancelScope(shield=True):
                await response.aclose()
        cut = len(body) > MAX_ERROR_BODY_BYTES
        return self._core.provider_error(response, bytes(body[:MAX_ERROR_BODY_BYTES]), cut)

    async def _read_body(self, response: httpx.Response, deadline: float | None) -> bytes:
        source: Any = response if deadline is None else \
            _AsyncDeadlineBody(response, deadline, self._timing.monotonic)
        body = bytearray()
        try:
            async for chunk in source.aiter_bytes():
                body += chunk
                if len(body) > DEFAULT_MAX_TOTAL_BYTES:
                    raise _too_big(DEFAULT_MAX_TOTAL_BYTES)
        except RETRYABLE_TRANSPORT_ERRORS as exc:
            error = IncompleteStreamError(f"the response broke after {len(body)} bytes: "
                                          f"{type(exc).__name__}: {exc}")
            error.partial = ChatResponse(provider=self._core.entry.wire,
                                         finished_reason=FinishReason.INTERRUPTED)
            raise error from exc
        return bytes(body)

    # ------------------------------------------------------------ lifetime

    async def close(self) -> None:
        """Close the httpx client this client made (one passed in stays open)."""
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.close()


class SyncClient(_Readings):
    """The synchronous twin of :class:`Client`, over ``httpx.Client``, with the
    same arguments (``timing`` a :class:`~streamkit.retry.SyncTiming`):
    ``create()`` returns the answer, ``with client.stream(messages) as events:``
    gives a :class:`~streamkit.SyncStream`."""

    def __init__(self, model: str, api_key: str | None = None, base_url: str | None = None, *,
                 timeout: float | Timeouts | None = _UNSET, max_retries: int = 2,
                 http_client: httpx.Client | None = None, retry: RetryPolicy | None = None,
                 model_info: ModelInfo | None = None,
                 on_attempt: Callable[[Attempt], None] | None = None,
                 timing: SyncTiming | None = None, environ: Mapping[str, str] | None = None,
                 **overrides: Any) -> None:
        if timeout is _UNSET and http_client is None:
            timeout = Timeouts()
        self._core = _Core(model, api_key, base_url, timeout=timeout, max_retries=max_retries,
                           retry=retry, model_info=model_info, on_attempt=on_attempt,
                           environ=environ, overrides=overrides)
        self._http = http_client if http_client is not None else httpx.Client()
        self._owns_http = http_client is None
        self._timing = timing if timing is not None else SyncTiming()

    def create(self, messages: Sequence[Message] | Request, *, tools: Tools | None = None,
               tool_choice: ToolChoice | Tool | None = None,
               json_output: JsonOutput | None = None, **options: Any) -> ChatResponse:
        """One non-streamed answer, parsed by :func:`streamkit.parse_response`."""
        body = self._core.body(messages, stream=False, tools=tools, tool_choice=tool_choice,
                               json_output=json_output, options=options)
        return self.create_body(body)

    def create_body(self, body: dict[str, Any]) -> ChatResponse:
        """Send a request body built elsewhere as it is, for one non-streamed answer."""
        call = self._core.call(body, stream=False)
        deadline = self._core.deadline(self._timing.monotonic())
        response = self._send(call, deadline)
        try:
            raw = self._read_body(response, deadline)
        finally:
            response.close()
        answer = parse_response(self._core.entry.wire, raw)
        self._core.record(answer, whole=True)
        return answer

    @contextlib.contextmanager
    def stream(self, messages: Sequence[Message] | Request, *, tools: Tools | None = None,
               tool_choice: ToolChoice | Tool | None = None,
               json_output: JsonOutput | None = None, on_error: OnError = "raise",
               think_tags: bool | tuple[str, str] | None = None,
               **options: Any) -> Iterator[SyncStream]:
        """``with client.stream(messages) as events:`` a streamed answer as a
        :class:`~streamkit.SyncStream`; leaving the block closes the connection."""
        body = self._core.body(messages, stream=True, tools=tools, tool_choice=tool_choice,
                               json_output=json_output, options=options)
        with self.stream_body(body, on_error=on_error, think_tags=think_tags) as events:
            yield events

    @contextlib.contextmanager
    def stream_body(self, body: dict[str, Any], *, on_error: OnError = "raise",
                    think_tags: bool | tuple[str, str] | None = None) -> Iterator[SyncStream]:
        """Like :meth:`stream` for a request body built elsewhere, sent as it is."""
        call = self._core.call(body, stream=True)
        deadline = self._core.deadline(self._timing.monotonic())
        response = self._send(call, deadline)
        try:
            source: Any = response if deadline is None else \
                _SyncDeadlineBody(response, deadline, self._timing.monotonic)
            events = stream(source, self._core.entry.wire, on_error=on_error,
                            think_tags=think_tags)
            assert isinstance(events, SyncStream)
        except BaseException:
            response.close()
            raise
        try:
            with events:
                yield events
        finally:
            self._core.record(events.response, whole=_whole(events))

    def _send(self, call: _Call, deadline: float | None) -> httpx.Response:
        timing, attempt = self._timing, 0
        auth = self._core.auth_header()
        while True:
            attempt += 1
            headers = dict(call.headers)
            if auth is not None:
                headers[auth[0]] = auth[1]
            request = self._http.build_request(
                "POST", call.url, content=call.content, headers=headers,
                timeout=self._core.attempt_timeout(deadline, timing.monotonic()))
            try:
                response = self._http.send(request, stream=True)
            except RETRYABLE_TRANSPORT_ERRORS as exc:
                status, error_headers = None, _NO_HEADERS
                error: StreamError = self._core.connection_error(call, exc)
                error.__cause__ = exc
            except httpx.HTTPError as exc:
                error = self._core.connection_error(call, exc)
                self._core.report(attempt, call, None, error, None, _NO_HEADERS)
                raise error from exc
            else:
                if response.status_code < 400:
                    self._core.report(attempt, call, response.status_code, None, None,
                                      response.headers)
                    return response
                status, error_headers = response.status_code, response.headers
                error = self._read_error(response)
            finally:
                _scrub(request, auth)
            delay = self._core.next_delay(attempt, status, error_headers, now=timing.now(),
                                          rand=timing.random(), deadline=deadline,
                                          monotonic=timing.monotonic())
            self._core.report(attempt, call, status, error, delay, error_headers)
            if delay is None:
                raise error
            timing.sleep(delay)

    def _read_error(self, response: httpx.Response) -> ProviderError:
        body = bytearray()
        try:
            for chunk in response.iter_bytes():
                body += chunk[: MAX_ERROR_BODY_BYTES + 1 - len(body)]
                if len(body) > MAX_ERROR_BODY_BYTES:
                    break
        except httpx.HTTPError:
            pass
        finally:
            response.close()
        cut = len(body) > MAX_ERROR_BODY_BYTES
        return self._core.provider_error(response, bytes(body[:MAX_ERROR_BODY_BYTES]), cut)

    def _read_body(self, response: httpx.Response, deadline: float | None) -> bytes:
        source: Any = response if deadline is None else \
            _SyncDeadlineBody(response, deadline, self._timing.monotonic)
        body = bytearray()
        try:
            for chunk in source.iter_bytes():
                body += chunk
                if len(body) > DEFAULT_MAX_TOTAL_BYTES:
                    raise _too_big(DEFAULT_MAX_TOTAL_BYTES)
        except RETRYABLE_TRANSPORT_ERRORS as exc:
            error = IncompleteStreamError(f"the response broke after {len(body)} bytes: "
                                          f"{type(exc).__name__}: {exc}")
            error.partial = ChatResponse(provider=self._core.entry.wire,
                                         finished_reason=FinishReason.INTERRUPTED)
            raise error from exc
        return bytes(body)

    def close(self) -> None:
        """Close the httpx client this client made (one passed in stays open)."""
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
