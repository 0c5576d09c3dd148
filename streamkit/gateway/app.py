"""The gateway as an ASGI app: any wire in, any provider out, re-encoded live.

One request's way through (:meth:`Gateway.answer`):

1. the path says the caller's wire (:func:`~streamkit.providers.routes.served_call`);
2. the caller's key is checked (:mod:`.callers`); the body is read (bounded)
   and parsed as a :class:`~streamkit.Request` of that wire;
3. the public model it names picks the route (:mod:`.config`): a
   :class:`~streamkit.Client` per route, with its fallbacks, which writes the
   upstream's wire (translation warnings and refusals are the codec's);
4. the upstream's answer is encoded in the caller's wire: a stream event by
   event as it comes (:func:`~streamkit.encode_stream`), or the body
   (:func:`~streamkit.encode_response`).

A token count (each wire's count endpoint, :attr:`ServedCall.count
<streamkit.providers.routes.ServedCall.count>`) takes the same first steps and
is answered by the upstream's own count (``client.count_tokens()``), written
in the caller's wire's count answer; an upstream whose API cannot count gives
an estimate, said by the :data:`ESTIMATE_HEADER` response header. The
caller's headers its wire's list allows (and ``[gateway] forward_headers``)
go to an upstream of the caller's wire, never another's, never a key
(:mod:`streamkit.client.forwarding`).

Errors: before the first byte, the caller's wire's HTTP error with the
upstream's status (:func:`~streamkit.encode_error`; 502 when the upstream
never answered or answered nothing: a redirect, an empty or another wire's
body, a stream that ended before any content; 400 for a request the
upstream's wire cannot hold). A stream is read ahead to its first content
before the caller gets its 200, so each of those is still an HTTP error. After
the first byte, the caller's wire's in-stream error event, after the partial
already sent, by the stream's own encoder (Gemini's JSON array closed after
its error item); an upstream stream cut without its end is such an error too,
never an answer.
The caller going away closes the upstream stream at once (the body's
``finally``, shielded from the cancellation that stops it). No upstream key
reaches a caller or a log line: the client takes its own keys out of what it
reads and of its errors, and the gateway writes only what the client gives.

Each request ends with one log line on the ``streamkit.gateway`` logger: a
JSON object with the path, the caller's wire, the public model, the upstream
that answered, the status, the tokens, the time to first byte and the
duration, and ``warnings``: what the translation to the upstream's wire
dropped (each :class:`~streamkit.LossyTranslationWarning`'s text, kept for
this line rather than issued as Python warnings: see
:func:`~streamkit.model.errors.collecting_losses`). Spans and metrics are the client's own
(:mod:`streamkit.observability`): configure it and every upstream call is one.
The app keeps no state between requests beyond its clients' connection pools,
so it scales out as worker processes behind any load balancer.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable
from typing import Any, TypeVar

import anyio
import httpx
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect
from starlette.requests import Request as HttpRequest
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from ..client.client import Client
from ..client.fallbacks import Fallback
from ..client.forwarding import ForwardedHeaders
from ..conversation.request import Request
from ..framing.encoding import json_bytes
from ..model.errors import (
    IncompleteStreamError,
    InvalidBodyError,
    ProviderConfigError,
    ProviderError,
    StreamkitError,
    UnsupportedFeatureError,
    collecting_losses,
)
from ..model.events import BlockDelta, BlockStart
from ..model.response import ChatResponse
from ..providers.cache_points import with_automatic_points
from ..providers.codec import (
    EncodedStream,
    encode_error,
    encode_response,
    encode_stream,
    encode_token_count,
    error_event,
    parse_count_request,
    parse_request,
)
from ..providers.routes import ServedCall, served_call
from ..providers.wire_format import wire_format
from ..reading.stream import Stream
from .access_log import ACCESS, AccessLog, AccessRecord
from .callers import caller_key, config_keys, gateway_option, is_allowed
from .config import GatewayConfig, GatewayConfigError, ModelRoute, Upstream, in_config_words
from .limits import TIMED_OUT
from .upstream import UpstreamTransport

__all__ = ["Gateway", "create_app"]

logger = logging.getLogger("streamkit.gateway")

#: The status of a request whose upstream never answered (no connection, no
#: headers in time): the gateway stood in front of nothing.
NO_UPSTREAM_STATUS = 502

#: The status logged for a stream the caller left before its end (nginx's word for it).
CALLER_GONE_STATUS = 499

#: The status logged for a request whose body did not come in time (:mod:`.limits`).
TIMED_OUT_STATUS = 408

#: The response header of a token count the upstream's API could not make,
#: estimated by the gateway instead: how (``characters/4``). No wire's count
#: answer has a field for it.
ESTIMATE_HEADER = "x-streamkit-token-estimate"

#: Bodies by the frame writers' one JSON rule: a lone surrogate an answer holds
#: is its escape, never a failed response.
_json = json_bytes


class Gateway:
    """The routes and clients of one configuration; :attr:`app` serves them."""

    def __init__(self, config: GatewayConfig, *,
                 http_client: httpx.AsyncClient | None = None) -> None:
        self.config = config
        self._upstream = UpstreamTransport() if http_client is None else None
        self._http = http_client or httpx.AsyncClient(transport=self._upstream, timeout=None)
        self._clients = {name: self._client(route) for name, route in config.models.items()}
        self.app = Starlette(routes=[
            Route("/health", self.health, methods=["GET"]),
            Route("/v1/models", self.models, methods=["GET"]),
            Route("/{path:path}", self.answer, methods=["POST"]),
        ], lifespan=self._lifespan, middleware=[Middleware(AccessLog, keys=config_keys(config))])

    def _client(self, route: ModelRoute) -> Client:
        """The client that serves ``route``: its model's upstream settings, and
        each fallback with its own provider's. A key or base URL it cannot
        find is said in the config file's words."""
        try:
            return self._made_client(route)
        except GatewayConfigError:
            raise
        except ProviderConfigError as error:
            raise in_config_words(error, f"[models.{route.name}]") from None

    def _made_client(self, route: ModelRoute) -> Client:
        upstream = self.config.upstream(route.model)
        fallbacks = []
        for model in route.fallbacks:
            settings = self.config.upstream(model)
            fallbacks.append(Fallback(model, api_key=settings.api_key,
                                      base_url=settings.base_url, **_overrides(settings)))
        return Client(route.model, api_key=upstream.api_key, base_url=upstream.base_url,
                      http_client=self._http, timeout=self.config.upstream_timeouts,
                      fallbacks=fallbacks,
                      **_overrides(upstream))

    @contextlib.asynccontextmanager
    async def _lifespan(self, app: Starlette) -> AsyncIterator[None]:
        """The upstream connections kept alive from start to shutdown; without
        a lifespan each lives while requests use it
        (:class:`~streamkit.gateway.upstream.UpstreamTransport`). A client
        given to :func:`create_app` is closed at shutdown."""
        if self._upstream is None:
            try:
                yield
            finally:
                await self._http.aclose()
            return
        async with self._upstream.held():
            yield

    # ------------------------------------------------------------ the small endpoints

    async def health(self, request: HttpRequest) -> Response:
        """Alive, and how many public models it serves."""
        return Response(_json({"status": "ok", "models": len(self.config.models)}),
                        media_type="application/json")

    async def models(self, request: HttpRequest) -> Response:
        """The public model names, as OpenAI's ``GET /v1/models`` lists models."""
        if not self._allowed(request):
            return _plain_error(401, "invalid or missing gateway key")
        data = [{"id": name, "object": "model", "created": 0, "owned_by": "streamkit-gateway"}
                for name in self.config.models]
        return Response(_json({"object": "list", "data": data}), media_type="application/json")

    def _allowed(self, request: HttpRequest) -> bool:
        return self.config.open or is_allowed(
            caller_key(request.headers, request.url.query), self.config.keys)

    # ------------------------------------------------------------ a model call

    async def answer(self, request: HttpRequest) -> Response:
        """One call in any wire (see the module docstring); what its
        translation drops is kept for its log line, not issued as warnings."""
        log = CallLog(request)
        with collecting_losses() as losses:
            log.losses = losses
            return await self._answer(request, log)

    async def _answer(self, request: HttpRequest, log: CallLog) -> Response:
        call = served_call(request.url.path, request.url.query)
        if call is None:
            return log.done(_plain_error(404, f"no API is served at {request.url.path}"))
        log.wire = call.wire
        if not self._allowed(request):
            return log.done(_error(call, 401, "invalid or missing gateway key"))
        parsed = await self._read(request, call, log)
        if isinstance(parsed, Response):
            return parsed
        option = gateway_option(parsed)
        if option is not None:
            return log.done(_error(call, 400, option))
        name = call.model or parsed.model
        route = self.config.models.get(name or "")
        log.model = name
        if route is None:
            known = ", ".join(sorted(self.config.models))
            return log.done(_error(call, 404, f"the gateway serves no model {name!r}; "
                                              f"it serves: {known}"))
        client = self._clients[route.name]
        if route.cache == "auto":  # the config asks for cache points (docs/caching.md)
            parsed = with_automatic_points(parsed)
        forwarded = self._forwarded(request, call)
        if call.count:
            return await self._counted(request, call, client, parsed, forwarded, log)
        if call.streams(parsed.stream):
            return await self._streamed(request, call, client, parsed, forwarded, log)
        return await self._answered(request, call, client, parsed, forwarded, log)

    def _forwarded(self, request: HttpRequest, call: ServedCall) -> ForwardedHeaders:
        """The caller's headers an upstream of its wire gets: its wire's list
        and the config's (:mod:`streamkit.client.forwarding`; never a key)."""
        allowed = wire_format(call.wire).forwarded_headers | self.config.forward_headers
        return ForwardedHeaders.chosen(call.wire, request.headers.items(), allowed)

    async def _read(self, request: HttpRequest, call: ServedCall,
                    log: CallLog) -> Request | Response:
        """The caller's request, or the error answer that refuses it."""
        body = bytearray()
        try:
            async for chunk in request.stream():
                body += chunk
                if len(body) > self.config.max_body_bytes:
                    return log.done(_error(call, 413, f"the request body is over "
                                                      f"{self.config.max_body_bytes} bytes"))
        except ClientDisconnect:  # gone, or closed by the edge's timeout: nobody to answer
            timed_out = request.scope.get(TIMED_OUT) is not None
            return log.done(Response(status_code=TIMED_OUT_STATUS if timed_out
                                     else CALLER_GONE_STATUS))
        try:
            if call.count:
                return parse_count_request(call.provider, bytes(body))
            return parse_request(call.provider, bytes(body))
        except InvalidBodyError as error:
            return log.done(_error(call, 400, str(error)))

    async def _counted(self, request: HttpRequest, call: ServedCall, client: Client,
                       parsed: Request, forwarded: ForwardedHeaders, log: CallLog) -> Response:
        """A token count in the caller's wire's answer, by the upstream's own
        count endpoint (whatever its wire), or estimated where it has none:
        then the :data:`ESTIMATE_HEADER` header says how."""
        try:
            count = await _while_there(request, client.count_tokens(
                parsed, forward_headers=forwarded))
        except StreamkitError as error:
            return log.done(_upstream_error(call, error), error=error)
        if count is None:
            return log.done(Response(status_code=CALLER_GONE_STATUS))
        said = {ESTIMATE_HEADER: count.method or "estimated"} if count.estimated else {}
        return log.done(Response(_json(encode_token_count(call.provider, count)),
                                 media_type="application/json", headers=said))

    async def _answered(self, request: HttpRequest, call: ServedCall, client: Client,
                        parsed: Request, forwarded: ForwardedHeaders, log: CallLog) -> Response:
        try:
            response = await _while_there(request, client.create(parsed,
                                                                  forward_headers=forwarded))
        except StreamkitError as error:
            return log.done(_upstream_error(call, error), error=error)
        if response is None:
            return log.done(Response(status_code=CALLER_GONE_STATUS))
        try:
            body = encode_response(call.provider, response)
        except StreamkitError as refused:  # an answer the caller's wire cannot say
            return log.done(_error(call, NO_UPSTREAM_STATUS, refused), error=refused)
        return log.done(Response(_json(body), media_type="application/json"),
                        response=response)

    async def _streamed(self, request: HttpRequest, call: ServedCall, client: Client,
                        parsed: Request, forwarded: ForwardedHeaders, log: CallLog) -> Response:
        """A streamed answer, once the upstream said something an answer says
        (:func:`_read_ahead`): a failure before that is the caller's wire's HTTP
        error, never a 200 whose stream holds nothing."""
        context = client.stream(parsed, forward_headers=forwarded)
        try:
            opened = await _while_there(request, _opened(context))
        except StreamkitError as error:
            return log.done(_upstream_error(call, error), error=error)
        if opened is None:
            return log.done(Response(status_code=CALLER_GONE_STATUS))
        events, held = opened
        encoded = encode_stream(call.provider, _relayed(held, events), request=parsed,
                                **({"array": True} if call.array else {}))
        return StreamingResponse(self._relay(call, encoded, context, events, log),
                                 media_type=encoded.content_type,
                                 headers={"cache-control": "no-cache"})

    async def _relay(self, call: ServedCall, encoded: EncodedStream, context: Any,
                     events: Any, log: CallLog) -> AsyncIterator[bytes]:
        """The caller's bytes, as the upstream's events come; the upstream closed
        however this ends (the caller gone included)."""
        status = CALLER_GONE_STATUS
        refused: StreamkitError | None = None
        try:
            try:
                async for chunk in encoded:
                    log.first_byte()
                    yield chunk
            except StreamkitError as error:  # an answer the caller's wire cannot say
                refused = error
                yield encoded.fail(error_event(error, NO_UPSTREAM_STATUS))
            status = 200
        finally:
            with anyio.CancelScope(shield=True):
                await context.__aexit__(None, None, None)
            log.finish(status, response=events.response, error=encoded.error or refused)


#: The events that make an upstream's stream an answer worth a 200.
_ANSWERING = (BlockStart, BlockDelta)

T = TypeVar("T")


async def _while_there(request: HttpRequest, work: Awaitable[T]) -> T | None:
    """``work``'s result, or ``None`` when the caller left first: ``work`` (the
    upstream call, before any answer went to the caller) is cancelled then, as
    nobody will read its answer and an upstream bills a generation to its end
    (nor is it tried again for nobody, after its read timeout)."""
    done: list[T] = []
    failed: list[Exception] = []  # raised as it is, not in a task group's ExceptionGroup

    async def watch(scope: anyio.CancelScope) -> None:
        while (await request.receive())["type"] != "http.disconnect":
            pass  # the body was read: only the disconnect can come
        scope.cancel()

    async with anyio.create_task_group() as group:
        group.start_soon(watch, group.cancel_scope)
        try:
            done.append(await work)
        except Exception as error:
            failed.append(error)
        group.cancel_scope.cancel()
    if failed:
        raise failed[0]
    return done[0] if done else None


async def _opened(context: Any) -> tuple[Stream, list[Any]]:
    """The upstream's stream opened and read ahead (:func:`_read_ahead`);
    closed again when that fails or is cancelled (the caller gone)."""
    events = await context.__aenter__()
    try:
        return events, await _read_ahead(events)
    except BaseException:
        with anyio.CancelScope(shield=True):
            await context.__aexit__(None, None, None)
        raise


async def _read_ahead(events: Stream) -> list[Any]:
    """The upstream's first items, up to its first content or its end: what
    fails before that (a redirect's kin, an empty or another wire's stream, the
    provider's error) raises here, while the caller can still get an HTTP error."""
    held: list[Any] = []
    async for item in events:  # the stream's one iterator: the rest is read on from here
        held.append(item)
        if type(item) in _ANSWERING:
            break
    return held


async def _relayed(held: list[Any], events: Stream) -> AsyncIterator[Any]:
    """The items read ahead, then the rest of the stream; a stream that ended
    without its wire's end was cut upstream, which the caller is told as an
    error (its SDK raises), never as an answer. A connection that broke or
    hung (the read timeout) after the wire's end lost nothing of the answer:
    the caller gets it whole."""
    for item in held:
        yield item
    try:
        async for item in events:
            yield item
    except IncompleteStreamError:
        if not events.response.terminated:
            raise
        return  # broke or hung after its wire's end: nothing of the answer is missing
    if not events.response.terminated:
        raise IncompleteStreamError("the upstream's stream ended before its end (the "
                                    "connection closed mid-answer); the answer is incomplete")


def _overrides(upstream: Upstream) -> dict[str, Any]:
    """The registry settings an upstream's table changes (its headers)."""
    return {"headers": dict(upstream.headers)} if upstream.headers else {}


def create_app(config: GatewayConfig, *, http_client: httpx.AsyncClient | None = None,
               ) -> Starlette:
    """The ASGI app serving ``config`` (``uvicorn`` runs it; see :mod:`.serve`).

    Safe with or without its lifespan: the upstream connections are made in
    the loop that uses them and closed at shutdown, or, where no lifespan
    runs (``httpx.ASGITransport``, ``TestClient`` without ``with``, a mounted
    app), when the last response using them is closed. ``http_client``
    replaces the gateway's own upstream client (closed at shutdown)."""
    return Gateway(config, http_client=http_client).app


# ---------------------------------------------------------------- errors


def _error(call: ServedCall, status: int | None, error: StreamkitError | str) -> Response:
    """The caller's wire's own HTTP error answer (``status`` ``None``: the
    provider error's own)."""
    encoded = encode_error(call.provider, error, status=status)
    return Response(_json(encoded.body), status_code=encoded.status,
                    media_type=encoded.content_type)


def _plain_error(status: int, message: str) -> Response:
    """An error on a path no wire serves: OpenAI's shape, the most widely read."""
    return _error(ServedCall("openai-chat", "openai"), status, message)


def _upstream_error(call: ServedCall, error: StreamkitError) -> Response:
    """An upstream call that failed before its first byte, in the caller's wire:
    the provider's own status, 502 when there was no answer, 400 for a request
    the upstream's wire cannot hold."""
    if isinstance(error, ProviderError):
        return _error(call, None, error)
    if isinstance(error, UnsupportedFeatureError | InvalidBodyError):
        return _error(call, 400, error)
    if isinstance(error, ProviderConfigError):  # the clients were made at start: the request's
        return _error(call, 400, "the request asks for an option the gateway's upstream call "
                                 "cannot take")
    return _error(call, NO_UPSTREAM_STATUS, error)  # NoResponseError and its kin: nothing came back


# ---------------------------------------------------------------- the log line


class CallLog:
    """What the one log line of a request says, gathered as it goes."""

    __slots__ = ("access", "first", "losses", "model", "started", "wire")

    def __init__(self, request: HttpRequest) -> None:
        self.access: AccessRecord = request.scope[ACCESS].claim()
        self.started = time.monotonic()
        self.first: float | None = None
        self.wire: str | None = None
        self.model: str | None = None
        self.losses: list[str] = []
        """What the translation dropped (each a LossyTranslationWarning's message)."""

    def first_byte(self) -> None:
        if self.first is None:
            self.first = time.monotonic()

    def done(self, answer: Response, *, response: ChatResponse | None = None,
             error: BaseException | None = None) -> Response:
        """Log an answer given whole, and give it."""
        self.first_byte()
        self.finish(answer.status_code, response=response, error=error)
        return answer

    def finish(self, status: int, *, response: ChatResponse | None = None,
               error: BaseException | None = None) -> None:
        now = time.monotonic()
        usage = None if response is None else response.usage
        line: dict[str, Any] = {
            "wire": self.wire, "model": self.model,
            "upstream": _upstream_of(response), "status": status,
            "input_tokens": None if usage is None else usage.input_tokens,
            "output_tokens": None if usage is None else usage.output_tokens,
            # the prompt cache's reads and writes, which a bill prices apart
            "cache_read_tokens": None if usage is None else usage.cached_tokens,
            "cache_write_tokens": None if usage is None else usage.cache_creation_tokens,
            "ttfb_ms": None if self.first is None else round((self.first - self.started) * 1000, 1),
            "duration_ms": round((now - self.started) * 1000, 1),
        }
        if error is not None:
            line["error"] = type(error).__name__
        if self.losses:
            line["warnings"] = list(self.losses)
        self.access.write(line)


def _upstream_of(response: ChatResponse | None) -> str | None:
    if response is None or response.provider is None:
        return None
    return f"{response.provider}:{response.model}" if response.model else response.provider
