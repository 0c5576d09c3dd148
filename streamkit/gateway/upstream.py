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

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable

import aiohttp
import httpx
from httpx_aiohttp import AiohttpTransport

__all__ = ["UPSTREAM_CONNECTIONS", "UpstreamTransport"]

#: The upstream connections a gateway process holds at most (open streams and
#: idle keep-alive ones): past any load one process can carry.
UPSTREAM_CONNECTIONS = 10_000

#: How aiohttp says a request could not be written (``ClientOSError``'s text).
_NOT_WRITTEN = "Can not write request"


class UpstreamTransport(httpx.AsyncBaseTransport):
    """aiohttp's pool, made on first use; held open by :meth:`held` (the
    lifespan), otherwise closed as soon as no response of it is open.

    aiohttp's connections, not httpcore's: httpcore's pool looks over its
    connections on every request and every close, so its cost per call grows
    with the streams open (``make bench-gateway`` measured it: see "The
    gateway" in docs/benchmarks.md)."""

    def __init__(self, connections: int = UPSTREAM_CONNECTIONS) -> None:
        self._limits = httpx.Limits(max_connections=connections,
                                    max_keepalive_connections=connections)
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
            self._pool = AiohttpTransport(limits=self._limits)
            self._fresh = AiohttpTransport(client=_fresh_connections)
        if self._held:
            return await self._sent(request)
        self._open += 1
        try:
            response = await self._sent(request)
        except BaseException:
            await self._released()
            raise
        assert isinstance(response.stream, httpx.AsyncByteStream)
        return httpx.Response(response.status_code, headers=response.headers.raw,
                              stream=_Releasing(response.stream, self._released),
                              request=request, extensions=response.extensions)

    async def _sent(self, request: httpx.Request) -> httpx.Response:
        """``request`` sent by the pool; sent again at once on a new connection
        when it could not be written at all: a kept-alive connection the
        server closed as the pool handed it out (servers close idle
        connections without a word; under load the race is common). Nothing
        of it reached the server (RFC 9112, 9.3.1: a request never applied
        may be sent again), so this is no retry of the call, which the
        client's policy counts and waits for."""
        assert self._pool is not None and self._fresh is not None
        try:
            return await self._pool.handle_async_request(request)
        except httpx.TransportError as error:
            if not _never_written(error):
                raise
        return await self._fresh.handle_async_request(request)

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


def _fresh_connections() -> aiohttp.ClientSession:
    """A session whose every request has a new connection, closed after it."""
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True, limit=0))


def _never_written(error: httpx.TransportError) -> bool:
    """Whether aiohttp could not write the request (its connection was closed
    by the server before): nothing of it reached the server."""
    cause = error.__cause__
    return isinstance(cause, aiohttp.ClientOSError) and str(cause).startswith(_NOT_WRITTEN)


class _Releasing(httpx.AsyncByteStream):
    """A response's body that tells its pool when it is closed (once)."""

    def __init__(self, stream: httpx.AsyncByteStream,
                 released: Callable[[], Awaitable[None]]) -> None:
        self._stream = stream
        self._released: Callable[[], Awaitable[None]] | None = released

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._stream.__aiter__()

    async def aclose(self) -> None:
        released, self._released = self._released, None
        try:
            await self._stream.aclose()
        finally:
            if released is not None:
                await released()
