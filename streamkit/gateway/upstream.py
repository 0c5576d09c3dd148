"""The gateway's upstream connections: aiohttp's pool (``httpx-aiohttp``)
behind httpx's interface, opened in the event loop that uses it and never
left open when nobody will close it.

An aiohttp session belongs to the loop it was made in and must be closed
there. Under a server that runs the app's lifespan (uvicorn, Starlette's
``TestClient`` in a ``with``), the lifespan holds the pool open from start to
shutdown, so connections are kept alive between requests. Where no lifespan
runs (``httpx.ASGITransport``, ``TestClient`` without ``with``, the app
mounted in another app, which Starlette does not give a lifespan), the pool
lives while requests use it: made at the first, closed when the last
response is closed; so nothing is left for the garbage collector
("Unclosed client session"), and a request in another event loop (each
``TestClient`` call without ``with`` runs in a new one) gets a pool of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import AsyncIterator, Awaitable, Callable
from types import SimpleNamespace

import aiohttp
import httpx
from httpx_aiohttp import AiohttpTransport

__all__ = ["UPSTREAM_CONNECTIONS", "UpstreamTransport"]

#: The upstream connections a gateway process holds at most (open streams and
#: idle keep-alive ones): past any load one process can carry.
UPSTREAM_CONNECTIONS = 10_000
#: Seconds an idle kept-alive connection is kept (httpx's default): most
#: servers close theirs later, so few requests meet a close.
KEEPALIVE_SECONDS = 5.0

#: How aiohttp says a request could not be written (an error's ``strerror``
#: or text: ``Can not write request body for <url>``, ``Failed to send bytes into
#: the underlying connection``).
_NOT_WRITTEN = ("Can not write request", "Failed to send bytes")

#: The connections the pool handed the running request that it had used before
#: (told by aiohttp's trace, in the request's own task): a list per request.
_REUSED: contextvars.ContextVar[list[bool]] = contextvars.ContextVar("streamkit_upstream_reused")


class UpstreamTransport(httpx.AsyncBaseTransport):
    """aiohttp's pool, made on first use; held open by :meth:`held` (the
    lifespan), otherwise closed as soon as no response of it is open.

    aiohttp's connections, not httpcore's: httpcore's pool looks over its
    connections on every request and every close, so its cost per call grows
    with the streams open (``make bench-gateway`` measured it: see "The
    gateway" in docs/benchmarks.md)."""

    def __init__(self, connections: int = UPSTREAM_CONNECTIONS) -> None:
        self._connections = connections
        self._pool: AiohttpTransport | None = None
        self._fresh: AiohttpTransport | None = None
        self._open = 0
        self._held = False

    @contextlib.asynccontextmanager
    async def held(self) -> AsyncIterator[None]:
        """Keep the pool between requests until the block ends (the app's
        lifespan), then close it."""
        self._held = True
        try:
            yield
        finally:
            self._held = False
            await self.aclose()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self._pool is None:
            connections = self._connections
            self._pool = AiohttpTransport(client=lambda: _pooled_connections(connections))
            self._fresh = AiohttpTransport(client=_fresh_connections)
        released = None if self._held else self._released
        if released is not None:
            self._open += 1
        try:
            response = await self._sent(request)
        except BaseException:
            if released is not None:
                await released()
            raise
        assert isinstance(response.stream, httpx.AsyncByteStream)
        return httpx.Response(response.status_code, headers=response.headers.raw,
                              stream=_Body(response.stream, request, released),
                              request=request, extensions=response.extensions)

    async def _sent(self, request: httpx.Request) -> httpx.Response:
        """``request`` sent by the pool; sent again at once on a new connection
        when the connection the pool handed it, one used before, turned out
        closed by the server before any answer: it could not be written, or
        the server closed or reset it as the request came (servers close idle
        kept-alive connections without a word, and the close crosses a
        request sent meanwhile; an upstream that closes after every answer
        makes it common). That is the connection's failure, not the call's
        (browsers send such a request again too), so no retry of the call,
        which the client's policy counts and waits for; a new connection's
        failure is the call's."""
        assert self._pool is not None and self._fresh is not None
        reused: list[bool] = []
        token = _REUSED.set(reused)
        try:
            return await self._pool.handle_async_request(request)
        except httpx.TransportError as error:
            if not (reused and _closed_by_server(error) and _in_memory(request)):
                raise _named(error, request) from error.__cause__
        finally:
            _REUSED.reset(token)
        try:
            return await self._fresh.handle_async_request(request)
        except httpx.TransportError as error:
            raise _named(error, request) from error.__cause__

    async def _released(self) -> None:
        """One response fewer; the pool closed when it was the last and no
        lifespan holds it."""
        self._open -= 1
        if self._open == 0 and not self._held:
            await self.aclose()

    async def aclose(self) -> None:
        pool, self._pool = self._pool, None
        fresh, self._fresh = self._fresh, None
        for transport in (pool, fresh):
            if transport is not None:
                await transport.aclose()


async def _on_reused(session: aiohttp.ClientSession, context: SimpleNamespace,
                     params: aiohttp.TraceConnectionReuseconnParams) -> None:
    """aiohttp's trace: the pool handed the running request a connection it had used."""
    reused = _REUSED.get(None)
    if reused is not None:
        reused.append(True)


def _pooled_connections(connections: int) -> aiohttp.ClientSession:
    """The pool's session (what ``AiohttpTransport`` makes by itself: httpx's
    TLS context, kept-alive connections dropped after 5 s idle), telling each
    request whether its connection was used before."""
    trace = aiohttp.TraceConfig()
    trace.on_connection_reuseconn.append(_on_reused)
    connector = aiohttp.TCPConnector(limit=connections, keepalive_timeout=KEEPALIVE_SECONDS,
                                     ssl=httpx.create_ssl_context())
    return aiohttp.ClientSession(connector=connector, trace_configs=[trace])


def _fresh_connections() -> aiohttp.ClientSession:
    """A session whose every request has a new connection, closed after it."""
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True, limit=0))


def _closed_by_server(error: httpx.TransportError) -> bool:
    """Whether aiohttp's error says the server closed or reset the connection
    (it could not be written, it ended unanswered), not a timeout."""
    cause = error.__cause__
    return isinstance(cause, aiohttp.ClientConnectionError) and not isinstance(
        cause, (asyncio.TimeoutError, aiohttp.ClientConnectorError))


def _in_memory(request: httpx.Request) -> bool:
    """Whether the request's body can be sent again (read, not a stream)."""
    try:
        request.content  # noqa: B018 (raises when the body is a stream not read)
    except httpx.RequestNotRead:
        return False
    return True


def _named(error: httpx.TransportError, request: httpx.Request) -> httpx.TransportError:
    """httpx's error for what aiohttp said: ``AiohttpTransport`` calls every
    connection error a ``ConnectTimeout``, which a caller's 502 and the log
    then said of a server that closed the connection. Timeouts, and
    connections never made, keep their names."""
    cause = error.__cause__
    if not _closed_by_server(error):
        return error
    said = str(cause)
    named: httpx.TransportError
    if isinstance(cause, aiohttp.ServerDisconnectedError):
        named = httpx.RemoteProtocolError(f"the server closed the connection ({said})",
                                          request=request)
    elif any(marker in said for marker in _NOT_WRITTEN):
        named = httpx.WriteError(f"the server closed the connection before the request "
                                 f"was written ({said})", request=request)
    else:
        named = httpx.ReadError(said, request=request)
    return named


class _Body(httpx.AsyncByteStream):
    """A response's body: aiohttp's errors in it named as :func:`_named` names
    them, and its pool told when it is closed (once), when ``released`` is given."""

    def __init__(self, stream: httpx.AsyncByteStream, request: httpx.Request,
                 released: Callable[[], Awaitable[None]] | None) -> None:
        self._stream = stream
        self._chunks: AsyncIterator[bytes] | None = None
        self._request = request
        self._released = released

    def __aiter__(self) -> AsyncIterator[bytes]:
        self._chunks = self._stream.__aiter__()
        return self

    async def __anext__(self) -> bytes:
        assert self._chunks is not None
        try:
            return await self._chunks.__anext__()
        except httpx.TransportError as error:
            raise _named(error, self._request) from error.__cause__

    async def aclose(self) -> None:
        released, self._released = self._released, None
        try:
            await self._stream.aclose()
        finally:
            if released is not None:
                await released()
