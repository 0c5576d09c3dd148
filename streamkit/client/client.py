"""``streamkit.Client`` / ``SyncClient``: a provider from the registry, over httpx.

Two thin I/O shells, async and sync, over one sans-IO core, which is made of
pieces that each do one thing:

- :mod:`streamkit.model.vendors` says where a provider lives and how it takes a
  key (:mod:`streamkit.client.endpoint` and :mod:`streamkit.client.auth` read it);
- :func:`streamkit.build_request` / :func:`streamkit.parse_response` encode the
  conversation and decode a whole answer for the provider's wire format;
- each wire format's record (:class:`~streamkit.providers.wire_format.WireFormat`)
  says where its endpoint is under the base URL and whether the model goes in
  the URL or the body;
- :mod:`streamkit.client.retry` decides whether to try again and how long to wait;
- :mod:`streamkit.reading.error_body` reads an error response, as the stream does;
- :func:`streamkit.stream` turns the HTTP response into events.

The core runs a whole call as a generator of steps
(:mod:`streamkit.client.orchestration`: the fallback chain, each model's
attempts of :class:`~streamkit.client.core.ClientCore`, telemetry, usage and
costs) and decides everything; a shell performs each step
(:mod:`streamkit.client.steps`: send, read a body, wait, open a body as a
stream's source, hand the stream over) with httpx and anyio (or blocking
calls) and tells the core what came.

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
from collections.abc import AsyncIterator, Iterator, Sequence
from types import TracebackType
from typing import Any, Self

import anyio
import httpx

from ..conversation.messages import Message
from ..conversation.request import JsonOutput, Request, ToolChoice
from ..conversation.tools import Tool
from ..conversation.workbench import AnyTools, listed_tools, without_workbenches
from ..model.response import ChatResponse
from ..model.token_count import TokenCount
from ..reading.options import OnError, ReadOptions
from ..reading.stream import Stream, SyncStream
from .bodies import AsyncDeadlineBody, SyncDeadlineBody, forget_locals, left, total_passed
from .fallbacks import Chain
from .forwarding import ForwardedHeaders
from .orchestration import create_call, stream_call
from .retry import SyncTiming, Timing
from .shell import Shell
from .steps import Close, Deliver, Open, Progress, Read, Send, Step, Wait
from .sync_deadline import deadline, transport

__all__ = ["Client", "SyncClient"]


class Client(Shell[httpx.AsyncClient, Timing]):
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

    async def create(self, messages: Sequence[Message] | Request, *, tools: AnyTools | None = None,
                     tool_choice: ToolChoice | Tool | None = None,
                     json_output: JsonOutput | None = None,
                     forward_headers: ForwardedHeaders | None = None,
                     **options: Any) -> ChatResponse:
        """One non-streamed answer, parsed by :func:`streamkit.parse_response`
        (from a fallback when this client's model cannot be reached). A
        workbench in ``tools`` is asked for its tools now, for this request.
        ``forward_headers``: a caller's headers for the models of its wire
        (:mod:`streamkit.client.forwarding`)."""
        return await self._create(self._chain(
            messages, stream=False, tools=await listed_tools(tools), tool_choice=tool_choice,
            json_output=json_output, options=options, forwarded=forward_headers))

    async def count_tokens(self, messages: Sequence[Message] | Request, *,
                           tools: AnyTools | None = None,
                           tool_choice: ToolChoice | Tool | None = None,
                           model: str | None = None,
                           forward_headers: ForwardedHeaders | None = None,
                           **options: Any) -> TokenCount:
        """The input tokens of the conversation (and its tools) for this
        client's model, or ``model`` of the same provider: counted by the
        provider's own endpoint (Anthropic, Gemini, OpenAI Responses), with
        this client's key, retries and errors; estimated without a request
        where the API has none (``estimated=True``, see
        :mod:`streamkit.client.counting`)."""
        counting = self._count(messages, tools=await listed_tools(tools), tool_choice=tool_choice,
                               model=model, options=options, forwarded=forward_headers)
        if isinstance(counting, TokenCount):
            return counting
        progress = Progress(counting)
        await self._drive(progress)
        return progress.result()

    async def create_body(self, body: dict[str, Any]) -> ChatResponse:
        """Send a request body built elsewhere (a gateway forwarding one) as it is,
        for one non-streamed answer (from this client's own model only)."""
        return await self._create(self._only(body, stream=False))

    @contextlib.asynccontextmanager
    async def stream(self, messages: Sequence[Message] | Request, *, tools: AnyTools | None = None,
                     tool_choice: ToolChoice | Tool | None = None,
                     json_output: JsonOutput | None = None, on_error: OnError = "raise",
                     think_tags: bool | tuple[str, str] | None = None,
                     forward_headers: ForwardedHeaders | None = None,
                     **options: Any) -> AsyncIterator[Stream]:
        """``async with client.stream(messages) as events:`` a streamed answer as
        today's :class:`~streamkit.Stream` (same events, final response and errors).
        Leaving the block closes the connection. From a fallback when this
        client's model cannot be reached before the answer begins. A
        workbench in ``tools`` is asked for its tools now, for this request.
        ``forward_headers`` as for :meth:`create`."""
        chain = self._chain(messages, stream=True, tools=await listed_tools(tools),
                            tool_choice=tool_choice, json_output=json_output, options=options,
                            forwarded=forward_headers)
        async with self._stream(chain, ReadOptions(on_error, think_tags=think_tags)) as events:
            yield events

    @contextlib.asynccontextmanager
    async def stream_body(self, body: dict[str, Any], *, on_error: OnError = "raise",
                          think_tags: bool | tuple[str, str] | None = None,
                          ) -> AsyncIterator[Stream]:
        """Like :meth:`stream` for a request body built elsewhere, sent as it is
        (to this client's own model only)."""
        async with self._stream(self._only(body, stream=True),
                                ReadOptions(on_error, think_tags=think_tags)) as events:
            yield events

    async def _create(self, chain: Chain) -> ChatResponse:
        """The answer of the first model of ``chain`` that responds."""
        progress = Progress(create_call(chain, self._timing))
        await self._drive(progress)
        return progress.result()

    @contextlib.asynccontextmanager
    async def _stream(self, chain: Chain, options: ReadOptions) -> AsyncIterator[Stream]:
        """The stream of the first model of ``chain`` that responds, handed to the
        caller; the core observes and counts it once the caller is done."""
        progress = Progress(stream_call(chain, self._timing, options))
        await self._drive(progress)
        delivered = progress.step
        assert isinstance(delivered, Deliver) and isinstance(delivered.events, Stream)
        try:
            async with delivered.events as events:
                yield events
        except BaseException as exc:
            progress.throw(exc)
            raise
        progress.tell(None)

    # ------------------------------------------------------------ I/O

    async def _drive(self, progress: Progress[Any]) -> None:
        """Perform the core's steps, telling it what each gave, until the call
        ends or hands over its stream; what a step raises is thrown into the
        core (which ends the call's telemetry with it and raises it again)."""
        while not progress.done and not isinstance(progress.step, Deliver):
            try:
                outcome = await self._perform(progress.step)
            except BaseException as exc:
                progress.throw(exc)
            else:
                progress.tell(outcome)

    async def _perform(self, step: Step) -> Any:
        if isinstance(step, Send):
            return await self._send(step)
        if isinstance(step, Read):
            return await self._read(step)
        if isinstance(step, Open):
            return AsyncDeadlineBody.around(step.response, step.deadline,
                                            self._timing.monotonic, step.secret)
        if isinstance(step, Close):
            with anyio.CancelScope(shield=True):
                await step.response.aclose()
            return None
        assert isinstance(step, Wait)
        await self._timing.sleep(step.seconds)
        return None

    async def _send(self, step: Send) -> httpx.Response | httpx.HTTPError:
        """The response (its body not read yet) or the httpx error of one attempt,
        all of it (connect, write, headers) within what is left of the total timeout."""
        request = step.request(self._http)
        try:
            with anyio.fail_after(left(step.call.deadline, self._timing.monotonic)):
                response = await self._http.send(request, stream=True, auth=step.auth)
        except TimeoutError:
            return total_passed(request)
        except httpx.HTTPError as exc:
            forget_locals(exc)
            return exc
        finally:
            step.sent(request)
        step.received(response)
        return response

    async def _read(self, step: Read) -> httpx.HTTPError | None:
        """Read a body into the step's, then close the response; the httpx error
        that cut the body short, if any."""
        source = AsyncDeadlineBody.around(step.response, step.deadline, self._timing.monotonic,
                                          step.secret)
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


class SyncClient(Shell[httpx.Client, SyncTiming]):
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

    # ------------------------------------------------------------ calls

    def create(self, messages: Sequence[Message] | Request, *, tools: AnyTools | None = None,
               tool_choice: ToolChoice | Tool | None = None,
               json_output: JsonOutput | None = None,
               forward_headers: ForwardedHeaders | None = None,
               **options: Any) -> ChatResponse:
        """One non-streamed answer, parsed by :func:`streamkit.parse_response`
        (from a fallback when this client's model cannot be reached)."""
        return self._create(self._chain(
            messages, stream=False, tools=without_workbenches(tools, "SyncClient.create()"),
            tool_choice=tool_choice, json_output=json_output, options=options,
            forwarded=forward_headers))

    def count_tokens(self, messages: Sequence[Message] | Request, *,
                     tools: AnyTools | None = None,
                     tool_choice: ToolChoice | Tool | None = None, model: str | None = None,
                     forward_headers: ForwardedHeaders | None = None,
                     **options: Any) -> TokenCount:
        """:meth:`Client.count_tokens`, blocking."""
        counting = self._count(
            messages, tools=without_workbenches(tools, "SyncClient.count_tokens()"),
            tool_choice=tool_choice, model=model, options=options, forwarded=forward_headers)
        if isinstance(counting, TokenCount):
            return counting
        progress = Progress(counting)
        self._drive(progress)
        return progress.result()

    def create_body(self, body: dict[str, Any]) -> ChatResponse:
        """Send a request body built elsewhere as it is, for one non-streamed
        answer (from this client's own model only)."""
        return self._create(self._only(body, stream=False))

    @contextlib.contextmanager
    def stream(self, messages: Sequence[Message] | Request, *, tools: AnyTools | None = None,
               tool_choice: ToolChoice | Tool | None = None,
               json_output: JsonOutput | None = None, on_error: OnError = "raise",
               think_tags: bool | tuple[str, str] | None = None,
               forward_headers: ForwardedHeaders | None = None,
               **options: Any) -> Iterator[SyncStream]:
        """``with client.stream(messages) as events:`` a streamed answer as a
        :class:`~streamkit.SyncStream`; leaving the block closes the connection.
        From a fallback when this client's model cannot be reached before the
        answer begins."""
        chain = self._chain(messages, stream=True,
                            tools=without_workbenches(tools, "SyncClient.stream()"),
                            tool_choice=tool_choice, json_output=json_output, options=options,
                            forwarded=forward_headers)
        with self._stream(chain, ReadOptions(on_error, think_tags=think_tags)) as events:
            yield events

    @contextlib.contextmanager
    def stream_body(self, body: dict[str, Any], *, on_error: OnError = "raise",
                    think_tags: bool | tuple[str, str] | None = None) -> Iterator[SyncStream]:
        """Like :meth:`stream` for a request body built elsewhere, sent as it is
        (to this client's own model only)."""
        with self._stream(self._only(body, stream=True),
                          ReadOptions(on_error, think_tags=think_tags)) as events:
            yield events

    def _create(self, chain: Chain) -> ChatResponse:
        """The answer of the first model of ``chain`` that responds."""
        progress = Progress(create_call(chain, self._timing))
        self._drive(progress)
        return progress.result()

    @contextlib.contextmanager
    def _stream(self, chain: Chain, options: ReadOptions) -> Iterator[SyncStream]:
        """The stream of the first model of ``chain`` that responds, handed to the
        caller; the core observes and counts it once the caller is done."""
        progress = Progress(stream_call(chain, self._timing, options))
        self._drive(progress)
        delivered = progress.step
        assert isinstance(delivered, Deliver) and isinstance(delivered.events, SyncStream)
        try:
            with delivered.events as events:
                yield events
        except BaseException as exc:
            progress.throw(exc)
            raise
        progress.tell(None)

    # ------------------------------------------------------------ I/O

    def _drive(self, progress: Progress[Any]) -> None:
        """:meth:`Client._drive`, blocking."""
        while not progress.done and not isinstance(progress.step, Deliver):
            try:
                outcome = self._perform(progress.step)
            except BaseException as exc:
                progress.throw(exc)
            else:
                progress.tell(outcome)

    def _perform(self, step: Step) -> Any:
        if isinstance(step, Send):
            return self._send(step)
        if isinstance(step, Read):
            return self._read(step)
        if isinstance(step, Open):
            return SyncDeadlineBody.around(step.response, step.deadline,
                                           self._timing.monotonic, step.secret)
        if isinstance(step, Close):
            step.response.close()
            return None
        assert isinstance(step, Wait)
        self._timing.sleep(step.seconds)
        return None

    def _send(self, step: Send) -> httpx.Response | httpx.HTTPError:
        request = step.request(self._http)
        try:
            with deadline(step.call.deadline, self._timing.monotonic):
                response = self._http.send(request, stream=True, auth=step.auth)
        except httpx.HTTPError as exc:
            forget_locals(exc)
            return exc
        finally:
            step.sent(request)
        if left(step.call.deadline, self._timing.monotonic) == 0:  # a caller's own http client
            response.close()
            return total_passed(request)
        step.received(response)
        return response

    def _read(self, step: Read) -> httpx.HTTPError | None:
        source = SyncDeadlineBody.around(step.response, step.deadline, self._timing.monotonic,
                                         step.secret)
        try:
            step.body.read(source.iter_bytes())
        except httpx.HTTPError as exc:
            return exc
        finally:
            step.response.close()
        return None

    # ------------------------------------------------------------ lifetime

    def close(self) -> None:
        """Close the httpx client this client made (one passed in stays open)."""
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
