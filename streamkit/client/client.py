"""``streamkit.Client`` / ``SyncClient``: a provider from the registry, over httpx.

Two thin I/O shells, async and sync, over one sans-IO core
(:class:`~streamkit.client.core.ClientCore`), which is made of pieces that each
do one thing:

- :mod:`streamkit.model.vendors` says where a provider lives and how it takes a key;
- :func:`streamkit.build_request` / :func:`streamkit.parse_response` encode the
  conversation and decode a whole answer for the provider's wire format;
- each wire format's record (:class:`~streamkit.providers.wire_format.WireFormat`)
  says where its endpoint is under the base URL and whether the model goes in
  the URL or the body;
- :mod:`streamkit.client.retry` decides whether to try again and how long to wait;
- :mod:`streamkit.reading.error_body` reads an error response, as the stream does;
- :func:`streamkit.stream` turns the HTTP response into events.

The core runs a call as a generator of steps (send, read a body, wait) and
decides everything; a shell performs each step with httpx and anyio (or
blocking calls) and tells the core what came.

This module knows no wire field name: it sends the body it is given.

Retries happen only before the first byte of a response body: a connection that
failed, or an error status (:data:`~streamkit.client.retry.RETRY_STATUSES`, whose small
error body is read for its message). A call that never got an answer (refused,
unresolved, a TLS failure, a timeout before the headers) raises
:class:`~streamkit.model.errors.NoResponseError` once its attempts are spent. A stream
that already delivered content is never sent again; when it breaks, the error
carries the partial response, as :func:`streamkit.stream` always does. Each
attempt is reported to the ``on_attempt`` callback and logged on the
``streamkit.client`` logger (DEBUG for one that worked, WARNING for one that
failed), naming the provider and model attempted.

A client may have fallbacks (``fallbacks=["openai:gpt-4o", ...]``): when its
model's call fails before the answer begins, after its retries, the same
conversation is built for the next model's wire and sent there
(:mod:`streamkit.client.fallbacks` has the rules; :class:`~streamkit.client.fallbacks.Chain`
decides, the shells send).

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

A key never appears in a ``repr``, a log line, an error or a frame's locals: it
is held in an :class:`~streamkit.client.keys.ApiKey` (made of ``api_key=`` first
thing) that prints as where it came from, put in its one header by an
``httpx.Auth`` as each request is sent, and removed from the request object
once it is (so that httpx's exceptions and ``response.request`` do not carry
it); httpx's errors lose their frames' locals. A key that a server echoes is
taken out of every response body (its :class:`~streamkit.client.keys.Redactor`)
and header before anything reads them: no message, ``raw``, metadata, event or
text built from a response holds it. A key with characters a header cannot
carry is refused before any request, without being shown.

``create()`` reads at most ``max_body_bytes`` (1 GiB by default; a stream's
whole body too) and never more: past it, ``LimitExceeded(limit="max_body_bytes")``.
Every error of ``create()`` carries a partial answer: what the body decoded to
before it broke (read leniently), or an empty response with the provider. A
body whose content encoding does not decode (a corrupt gzip) is a
:class:`~streamkit.model.errors.ProtocolError`, from ``create()`` and streams alike.
"""

from __future__ import annotations

import contextlib
import traceback
from collections.abc import AsyncIterator, Callable, Generator, Iterator, Mapping, Sequence
from types import TracebackType
from typing import Any, Generic, Self, TypeVar

import anyio
import httpx

from ..conversation.messages import Message
from ..conversation.request import JsonOutput, Request, ToolChoice
from ..conversation.tools import Tool
from ..model.cost import Cost
from ..model.errors import StreamError
from ..model.limits import DEFAULT_MAX_TOTAL_BYTES
from ..model.response import ChatResponse
from ..model.usage import ChatUsage
from ..model.vendors import ModelInfo, ProviderEntry
from ..observability.observer import CallObserver
from ..reading.stream import OnError, Stream, SyncStream
from .core import (
    ERROR_HEADERS,
    RETRYABLE_TRANSPORT_ERRORS,
    UNSET,
    Attempt,
    ClientCore,
    Progress,
    Read,
    Send,
    Step,
    Timeouts,
    Tools,
)
from .fallbacks import Chain, Fallback, Leg
from .keys import ApiKey
from .retry import RetryPolicy, SyncTiming, Timing
from .sync_deadline import deadline, transport

__all__ = [
    "ERROR_HEADERS",
    "RETRYABLE_TRANSPORT_ERRORS",
    "Attempt",
    "Client",
    "Fallback",
    "SyncClient",
    "Timeouts",
]

HttpClient = TypeVar("HttpClient", httpx.AsyncClient, httpx.Client)
Clock = TypeVar("Clock", Timing, SyncTiming)


class _Shell(Generic[HttpClient, Clock]):
    """What both clients share above the core: their arguments (the httpx client
    and the timing of their own kind) and what they tell about themselves."""

    _http_class: type[HttpClient]
    _timing_class: type[Clock]

    def __init__(self, model: str, api_key: str | None = None, base_url: str | None = None, *,
                 timeout: float | Timeouts | None = UNSET, max_retries: int = 2,
                 http_client: HttpClient | None = None, retry: RetryPolicy | None = None,
                 model_info: ModelInfo | None = None,
                 on_attempt: Callable[[Attempt], None] | None = None,
                 timing: Clock | None = None, environ: Mapping[str, str] | None = None,
                 max_body_bytes: int = DEFAULT_MAX_TOTAL_BYTES,
                 fallbacks: Sequence[str | Fallback] = (), **overrides: Any) -> None:
        key = None if api_key is None else ApiKey(api_key, "api_key=")
        del api_key  # from here on no frame of the client holds the plain key
        if timeout is UNSET and http_client is None:
            timeout = Timeouts()
        self._core = ClientCore(model, key, base_url, timeout=timeout,
                                max_retries=max_retries, retry=retry, model_info=model_info,
                                on_attempt=on_attempt, environ=environ, overrides=overrides,
                                max_body_bytes=max_body_bytes)
        self._cores = [self._core]
        for number, value in enumerate(map(Fallback.of, fallbacks), 1):
            core = ClientCore(value.model, value.api_key, value.base_url, timeout=timeout,
                              max_retries=max_retries, retry=retry, model_info=value.model_info,
                              on_attempt=on_attempt, environ=environ,
                              overrides=dict(value.overrides), max_body_bytes=max_body_bytes,
                              fallback=number)
            core.share_totals(self._core)
            self._cores.append(core)
        self._http: HttpClient = http_client if http_client is not None else self._own_http()
        self._owns_http = http_client is None
        self._timing: Clock = timing if timing is not None else self._timing_class()

    def __repr__(self) -> str:
        fallbacks = "".join(f", then {core!r}" for core in self._cores[1:])
        return f"{type(self).__name__}({self._core!r}{fallbacks})"

    def _chain(self, messages: Sequence[Message] | Request, *, stream: bool,
               tools: Tools | None, tool_choice: ToolChoice | Tool | None,
               json_output: JsonOutput | None, options: dict[str, Any]) -> Chain:
        """One call of the conversation, across this client's models."""
        def build(core: ClientCore) -> dict[str, Any]:
            return core.body(messages, stream=stream, tools=tools, tool_choice=tool_choice,
                             json_output=json_output, options=options)

        return Chain(self._cores, build, stream=stream)

    def _only(self, body: dict[str, Any], *, stream: bool) -> Chain:
        """One call of a body built elsewhere: for this client's own model only."""
        return Chain([self._core], lambda core: body, stream=stream)

    def _own_http(self) -> HttpClient:
        """The httpx client made when none is given."""
        return self._http_class()

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
    def fallbacks(self) -> tuple[str, ...]:
        """The models tried, in order, when this client's own cannot be reached
        (``provider:model``; see :mod:`streamkit.client.fallbacks`)."""
        return tuple(core.name for core in self._cores[1:])

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

    @property
    def total_cost(self) -> Cost:
        """What the answers of :attr:`total_usage` cost (genai-prices, the ``prices``
        extra): ``amount`` in ``currency``, or ``None`` with a ``reason`` when a
        call could not be priced (see :mod:`streamkit.model.cost`)."""
        return self._core.costs.total


def _forget_locals(error: BaseException) -> None:
    """Clear the local variables of the finished frames ``error`` and its causes
    went through: httpx's and httpcore's hold the request's headers (the key) and
    the bytes read (the key, when a server echoes it), which error trackers that
    record locals would keep. Where each frame was is still told."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        traceback.clear_frames(current.__traceback__)
        current = current.__cause__ or current.__context__


def _left(deadline: float | None, monotonic: Callable[[], float]) -> float | None:
    """What is left of ``deadline`` (``None``: no deadline)."""
    return None if deadline is None else max(deadline - monotonic(), 0.0)


def _total_passed(request: httpx.Request) -> httpx.TimeoutException:
    return httpx.TimeoutException("the total timeout passed before the response headers",
                                  request=request)


class _DeadlineBody:
    """An httpx response as the client reads its body: before a deadline (the
    total timeout: past it, reading raises ``httpx.ReadTimeout``, which the
    stream layer turns into an error carrying the partial response), and with
    the key taken out of every chunk (:class:`~streamkit.client.keys.Redactor`). A
    read's httpx error loses its frames' locals (:func:`_forget_locals`)."""

    def __init__(self, response: httpx.Response, deadline: float | None,
                 monotonic: Callable[[], float], key: ApiKey | None) -> None:
        self._response = response
        self._deadline = deadline
        self._monotonic = monotonic
        self._redactor = None if key is None else key.redactor()
        self.status_code = response.status_code
        self.headers = response.headers
        self.stream = response.stream  # says "async" or "sync" to streamkit.stream()

    @classmethod
    def around(cls, response: httpx.Response, deadline: float | None,
               monotonic: Callable[[], float], key: ApiKey | None = None) -> Any:
        """``response`` read within ``deadline``, ``key`` taken out; ``response``
        itself when there is neither."""
        if deadline is None and key is None:
            return response
        return cls(response, deadline, monotonic, key)

    def _passed(self) -> httpx.ReadTimeout:
        return httpx.ReadTimeout("the total timeout passed", request=self._response.request)

    def _redacted(self, chunk: bytes) -> bytes:
        return chunk if self._redactor is None else self._redactor.feed(chunk)

    def _held(self) -> bytes:
        """What the redactor held back, at the end of the body or a break."""
        return b"" if self._redactor is None else self._redactor.flush()


class _AsyncDeadlineBody(_DeadlineBody):
    """The async body, each read bounded by what is left of the deadline."""

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        chunks = self._response.aiter_bytes().__aiter__()
        while True:
            try:
                with anyio.fail_after(_left(self._deadline, self._monotonic)):
                    chunk = self._redacted(await chunks.__anext__())
            except StopAsyncIteration:
                break
            except TimeoutError:
                raise self._passed() from None
            except httpx.HTTPError as error:
                _forget_locals(error)
                if held := self._held():
                    yield held
                raise
            if chunk:
                yield chunk
        if held := self._held():
            yield held

    async def aclose(self) -> None:
        await self._response.aclose()


class _SyncDeadlineBody(_DeadlineBody):
    """The sync body: the client's own transport keeps every read to the
    deadline (:mod:`streamkit.client.sync_deadline`); it is checked between reads too
    (all an http client of the caller's own allows)."""

    def iter_bytes(self) -> Iterator[bytes]:
        chunks = self._response.iter_bytes()
        while True:
            try:
                chunk = self._redacted(next(chunks))
            except StopIteration:
                break
            except httpx.HTTPError as error:
                _forget_locals(error)
                if held := self._held():
                    yield held
                raise
            if self._deadline is not None and self._monotonic() >= self._deadline:
                raise self._passed()
            if chunk:
                yield chunk
        if held := self._held():
            yield held

    def close(self) -> None:
        self._response.close()


T = TypeVar("T")


class Client(_Shell[httpx.AsyncClient, Timing]):
    """An async client for one provider and model: ``Client("deepseek:deepseek-chat")``.

    ``model`` is ``"provider:model"`` (a :data:`~streamkit.model.vendors.PROVIDERS` name
    or alias; only the first ``:`` separates them), or a bare model name with
    ``base_url`` for any OpenAI-compatible server. The key comes from ``api_key``
    or the provider's environment variables; a missing one fails here, naming
    them. ``base_url`` replaces the provider's. ``timeout`` is a number (every
    httpx phase) or :class:`Timeouts`; by default the provided or created httpx
    client's own timeouts apply, ``Timeouts()`` when the client makes its own.
    ``max_retries`` (or a whole ``retry`` policy) bounds the attempts after the
    first. ``http_client`` (an ``httpx.AsyncClient``) is used as given and not
    closed by :meth:`close`; ``timing`` (a :class:`~streamkit.client.retry.Timing`) is
    where time comes from; ``max_body_bytes`` bounds the body read of one answer
    (``create()``'s JSON, a stream's whole body). Any other keyword overrides a
    :class:`~streamkit.model.vendors.ProviderEntry` field (``auth="api-key"``,
    ``query={"api-version": ...}``, ``headers={...}`` merged into the defaults,
    ``options={"max_tokens": 8192}``). ``fallbacks`` are the models tried in
    turn when this one cannot be reached before its answer begins (model
    strings or :class:`~streamkit.client.fallbacks.Fallback` values, each with its own
    key; see :mod:`streamkit.client.fallbacks`).
    """

    _http_class = httpx.AsyncClient
    _timing_class = Timing

    # ------------------------------------------------------------ calls

    async def create(self, messages: Sequence[Message] | Request, *, tools: Tools | None = None,
                     tool_choice: ToolChoice | Tool | None = None,
                     json_output: JsonOutput | None = None, **options: Any) -> ChatResponse:
        """One non-streamed answer, parsed by :func:`streamkit.parse_response`
        (from a fallback when this client's model cannot be reached)."""
        return await self._create(self._chain(
            messages, stream=False, tools=tools, tool_choice=tool_choice,
            json_output=json_output, options=options))

    async def create_body(self, body: dict[str, Any]) -> ChatResponse:
        """Send a request body built elsewhere (a gateway forwarding one) as it is,
        for one non-streamed answer (from this client's own model only)."""
        return await self._create(self._only(body, stream=False))

    async def _create(self, chain: Chain) -> ChatResponse:
        """The answer of the first model of ``chain`` that responds."""
        while True:
            leg = chain.next(self._timing.monotonic())
            with leg.core.observe(leg.call, leg.body, stream=False) as observer:
                response = await self._respond(chain, leg, observer)
                if response is None:
                    continue
                answer = await self._run(leg.core, leg.core.answer(
                    response, leg.call, self._timing,
                    chain.request_timing(leg, self._timing.monotonic)))
                observer.finish(answer, log=leg.call.log)
            return answer

    async def _respond(self, chain: Chain, leg: Leg,
                       observer: CallObserver) -> httpx.Response | None:
        """``leg``'s response (its body unread), or ``None`` when it failed and
        the next model is to be tried (its telemetry ended with the error)."""
        try:
            response = await self._run(leg.core, leg.core.attempts(leg.call, self._timing))
        except StreamError as error:
            chain.failed(leg, error)
            observer.finish(error.partial, error=error, log=leg.call.log)
            return None
        chain.answered(leg)
        return response

    @contextlib.asynccontextmanager
    async def stream(self, messages: Sequence[Message] | Request, *, tools: Tools | None = None,
                     tool_choice: ToolChoice | Tool | None = None,
                     json_output: JsonOutput | None = None, on_error: OnError = "raise",
                     think_tags: bool | tuple[str, str] | None = None,
                     **options: Any) -> AsyncIterator[Stream]:
        """``async with client.stream(messages) as events:`` a streamed answer as
        today's :class:`~streamkit.Stream` (same events, final response and errors).
        Leaving the block closes the connection. From a fallback when this
        client's model cannot be reached before the answer begins."""
        chain = self._chain(messages, stream=True, tools=tools, tool_choice=tool_choice,
                            json_output=json_output, options=options)
        async with self._stream(chain, on_error=on_error, think_tags=think_tags) as events:
            yield events

    @contextlib.asynccontextmanager
    async def stream_body(self, body: dict[str, Any], *, on_error: OnError = "raise",
                          think_tags: bool | tuple[str, str] | None = None,
                          ) -> AsyncIterator[Stream]:
        """Like :meth:`stream` for a request body built elsewhere, sent as it is
        (to this client's own model only)."""
        async with self._stream(self._only(body, stream=True), on_error=on_error,
                                think_tags=think_tags) as events:
            yield events

    @contextlib.asynccontextmanager
    async def _stream(self, chain: Chain, *, on_error: OnError,
                      think_tags: bool | tuple[str, str] | None) -> AsyncIterator[Stream]:
        """The stream of the first model of ``chain`` that responds, observed and
        counted to its end."""
        while True:
            leg = chain.next(self._timing.monotonic())
            with leg.core.observe(leg.call, leg.body, stream=True) as observer:
                response = await self._respond(chain, leg, observer)
                if response is None:
                    continue
                try:
                    source = _AsyncDeadlineBody.around(response, leg.call.deadline,
                                                       self._timing.monotonic, leg.core.secret)
                    events = leg.core.events(
                        source, on_error=on_error, think_tags=think_tags,
                        request_timing=chain.request_timing(leg, self._timing.monotonic))
                    assert isinstance(events, Stream)
                except BaseException:
                    with anyio.CancelScope(shield=True):
                        await response.aclose()
                    raise
                observer.watch(events)
                try:
                    async with events:
                        yield events
                finally:
                    leg.core.record_stream(events)
                    observer.finish(events.response, choices=events.choices,
                                    error=events.error, log=leg.call.log)
            return

    # ------------------------------------------------------------ I/O

    async def _run(self, core: ClientCore, steps: Generator[Step, Any, T]) -> T:
        """Perform each step of a call's core, telling it what came, to its end."""
        progress = Progress(steps)
        while not progress.done:
            progress.tell(await self._perform(core, progress.step))
        return progress.result()

    async def _perform(self, core: ClientCore, step: Step) -> Any:
        if isinstance(step, Send):
            return await self._send(core, step)
        if isinstance(step, Read):
            return await self._read(core, step)
        await self._timing.sleep(step.seconds)
        return None

    async def _send(self, core: ClientCore, step: Send) -> httpx.Response | httpx.HTTPError:
        """The response (its body not read yet) or the httpx error of one attempt,
        all of it (connect, write, headers) within what is left of the total timeout."""
        request = core.request(self._http, step)
        try:
            with anyio.fail_after(_left(step.call.deadline, self._timing.monotonic)):
                response = await self._http.send(request, stream=True, auth=core.auth)
        except TimeoutError:
            return _total_passed(request)
        except httpx.HTTPError as exc:
            _forget_locals(exc)
            return exc
        finally:
            core.scrub(request)
        core.scrub_response(response)
        return response

    async def _read(self, core: ClientCore, step: Read) -> httpx.HTTPError | None:
        """Read a body into the step's, then close the response; the httpx error
        that cut the body short, if any."""
        source = _AsyncDeadlineBody.around(step.response, step.deadline, self._timing.monotonic,
                                           core.secret)
        try:
            await step.body.aread(source.aiter_bytes())
        except httpx.HTTPError as exc:
            return exc
        finally:
            with anyio.CancelScope(shield=True):
                await step.response.aclose()
        return None

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


class SyncClient(_Shell[httpx.Client, SyncTiming]):
    """The synchronous twin of :class:`Client`, over ``httpx.Client``, with the
    same arguments (``http_client`` an ``httpx.Client``, ``timing`` a
    :class:`~streamkit.client.retry.SyncTiming`): ``create()`` returns the answer,
    ``with client.stream(messages) as events:`` gives a :class:`~streamkit.SyncStream`."""

    _http_class = httpx.Client
    _timing_class = SyncTiming

    def _own_http(self) -> httpx.Client:
        """An httpx client whose transport keeps each socket operation to the
        total timeout (:mod:`streamkit.client.sync_deadline`)."""
        return httpx.Client(transport=transport())

    def create(self, messages: Sequence[Message] | Request, *, tools: Tools | None = None,
               tool_choice: ToolChoice | Tool | None = None,
               json_output: JsonOutput | None = None, **options: Any) -> ChatResponse:
        """One non-streamed answer, parsed by :func:`streamkit.parse_response`
        (from a fallback when this client's model cannot be reached)."""
        return self._create(self._chain(
            messages, stream=False, tools=tools, tool_choice=tool_choice,
            json_output=json_output, options=options))

    def create_body(self, body: dict[str, Any]) -> ChatResponse:
        """Send a request body built elsewhere as it is, for one non-streamed
        answer (from this client's own model only)."""
        return self._create(self._only(body, stream=False))

    def _create(self, chain: Chain) -> ChatResponse:
        """The answer of the first model of ``chain`` that responds."""
        while True:
            leg = chain.next(self._timing.monotonic())
            with leg.core.observe(leg.call, leg.body, stream=False) as observer:
                response = self._respond(chain, leg, observer)
                if response is None:
                    continue
                answer = self._run(leg.core, leg.core.answer(
                    response, leg.call, self._timing,
                    chain.request_timing(leg, self._timing.monotonic)))
                observer.finish(answer, log=leg.call.log)
            return answer

    def _respond(self, chain: Chain, leg: Leg, observer: CallObserver) -> httpx.Response | None:
        """``leg``'s response (its body unread), or ``None`` when it failed and
        the next model is to be tried (its telemetry ended with the error)."""
        try:
            response = self._run(leg.core, leg.core.attempts(leg.call, self._timing))
        except StreamError as error:
            chain.failed(leg, error)
            observer.finish(error.partial, error=error, log=leg.call.log)
            return None
        chain.answered(leg)
        return response

    @contextlib.contextmanager
    def stream(self, messages: Sequence[Message] | Request, *, tools: Tools | None = None,
               tool_choice: ToolChoice | Tool | None = None,
               json_output: JsonOutput | None = None, on_error: OnError = "raise",
               think_tags: bool | tuple[str, str] | None = None,
               **options: Any) -> Iterator[SyncStream]:
        """``with client.stream(messages) as events:`` a streamed answer as a
        :class:`~streamkit.SyncStream`; leaving the block closes the connection.
        From a fallback when this client's model cannot be reached before the
        answer begins."""
        chain = self._chain(messages, stream=True, tools=tools, tool_choice=tool_choice,
                            json_output=json_output, options=options)
        with self._stream(chain, on_error=on_error, think_tags=think_tags) as events:
            yield events

    @contextlib.contextmanager
    def stream_body(self, body: dict[str, Any], *, on_error: OnError = "raise",
                    think_tags: bool | tuple[str, str] | None = None) -> Iterator[SyncStream]:
        """Like :meth:`stream` for a request body built elsewhere, sent as it is
        (to this client's own model only)."""
        with self._stream(self._only(body, stream=True), on_error=on_error,
                          think_tags=think_tags) as events:
            yield events

    @contextlib.contextmanager
    def _stream(self, chain: Chain, *, on_error: OnError,
                think_tags: bool | tuple[str, str] | None) -> Iterator[SyncStream]:
        """The stream of the first model of ``chain`` that responds, observed and
        counted to its end."""
        while True:
            leg = chain.next(self._timing.monotonic())
            with leg.core.observe(leg.call, leg.body, stream=True) as observer:
                response = self._respond(chain, leg, observer)
                if response is None:
                    continue
                try:
                    source = _SyncDeadlineBody.around(response, leg.call.deadline,
                                                      self._timing.monotonic, leg.core.secret)
                    events = leg.core.events(
                        source, on_error=on_error, think_tags=think_tags,
                        request_timing=chain.request_timing(leg, self._timing.monotonic))
                    assert isinstance(events, SyncStream)
                except BaseException:
                    response.close()
                    raise
                observer.watch(events)
                try:
                    with events:
                        yield events
                finally:
                    leg.core.record_stream(events)
                    observer.finish(events.response, choices=events.choices,
                                    error=events.error, log=leg.call.log)
            return

    def _run(self, core: ClientCore, steps: Generator[Step, Any, T]) -> T:
        progress = Progress(steps)
        while not progress.done:
            progress.tell(self._perform(core, progress.step))
        return progress.result()

    def _perform(self, core: ClientCore, step: Step) -> Any:
        if isinstance(step, Send):
            return self._send(core, step)
        if isinstance(step, Read):
            return self._read(core, step)
        self._timing.sleep(step.seconds)
        return None

    def _send(self, core: ClientCore, step: Send) -> httpx.Response | httpx.HTTPError:
        request = core.request(self._http, step)
        try:
            with deadline(step.call.deadline, self._timing.monotonic):
                response = self._http.send(request, stream=True, auth=core.auth)
        except httpx.HTTPError as exc:
            _forget_locals(exc)
            return exc
        finally:
            core.scrub(request)
        if _left(step.call.deadline, self._timing.monotonic) == 0:  # a caller's own http client
            response.close()
            return _total_passed(request)
        core.scrub_response(response)
        return response

    def _read(self, core: ClientCore, step: Read) -> httpx.HTTPError | None:
        source = _SyncDeadlineBody.around(step.response, step.deadline, self._timing.monotonic,
                                          core.secret)
        try:
            step.body.read(source.iter_bytes())
        except httpx.HTTPError as exc:
            return exc
        finally:
            step.response.close()
        return None

    def close(self) -> None:
        """Close the httpx client this client made (one passed in stays open)."""
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
