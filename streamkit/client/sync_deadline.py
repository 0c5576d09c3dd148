"""The total timeout inside the sync client's own transport: each socket operation keeps to it.

httpx's timeouts bound one operation each: a server that sends its headers (or
an error body) one byte every quarter of a second never trips a one-second read
timeout, however long the whole takes, and a blocking call cannot be cancelled
from outside. The async client puts each send under a cancel scope; the sync
client, when it makes its own httpx client, gives it :func:`transport`
instead of httpx's default: every connect, TLS handshake, read and write is
given at most what is left until the call's deadline, and one that would start
after it fails at once with httpx's own timeout error (``httpx.ReadTimeout``...),
which the client turns into its typed errors as any other timeout.

The deadline travels in a context variable that the client sets while one
request is sent (:func:`deadline`). A connection takes it when the request is
written (a request always begins with a write, on a new connection or a
reused one), so the reads of the body, which happen later in the caller's
loop, keep to it; a request sent without one has none.

This is I/O plumbing for ``streamkit.client`` only: httpcore (httpx's own
dependency) is reached through httpx's default transport, whose connection pool
is given a network backend that wraps the default one.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from ssl import SSLContext
from typing import Any

import httpcore
import httpx

__all__ = ["deadline", "transport"]

#: The deadline of the request being sent, with the clock it is read on.
Deadline = tuple[float, Callable[[], float]]

_SENDING: ContextVar[Deadline | None] = ContextVar("streamkit_sync_deadline", default=None)


@contextlib.contextmanager
def deadline(at: float | None, monotonic: Callable[[], float]) -> Iterator[None]:
    """The requests sent in this block keep to ``at`` (``None``: no deadline),
    read on ``monotonic``, for as long as their connection serves them."""
    token = _SENDING.set(None if at is None else (at, monotonic))
    try:
        yield
    finally:
        _SENDING.reset(token)


def _within(limit: Deadline | None, timeout: float | None,
            passed: type[httpcore.TimeoutException]) -> float | None:
    """``timeout`` for one operation, no longer than what is left of ``limit``;
    ``passed`` is raised when nothing is left."""
    if limit is None:
        return timeout
    at, monotonic = limit
    left = at - monotonic()
    if left <= 0:
        raise passed("the total timeout passed")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    """A connection's stream whose operations keep to its request's deadline."""

    def __init__(self, stream: httpcore.NetworkStream, limit: Deadline | None) -> None:
        self._stream = stream
        self._limit = limit

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        try:
            return self._stream.read(max_bytes,
                                     _within(self._limit, timeout, httpcore.ReadTimeout))
        except httpcore.ReadTimeout:
            _within(self._limit, None, httpcore.ReadTimeout)  # says so if it was the total
            raise

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._limit = _SENDING.get()  # a request begins by writing: its deadline from now on
        try:
            self._stream.write(buffer, _within(self._limit, timeout, httpcore.WriteTimeout))
        except httpcore.WriteTimeout:
            _within(self._limit, None, httpcore.WriteTimeout)
            raise

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context: SSLContext, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        bounded = _within(self._limit, timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._stream.start_tls(ssl_context, server_hostname, bounded),
                               self._limit)

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    """The default backend, its connections made within the deadline and their
    streams keeping to it."""

    def __init__(self, backend: httpcore.NetworkBackend) -> None:
        self._backend = backend

    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None,
                    socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        limit = _SENDING.get()
        try:
            stream = self._backend.connect_tcp(host, port,
                                               _within(limit, timeout, httpcore.ConnectTimeout),
                                               local_address, socket_options)
        except httpcore.ConnectTimeout:
            _within(limit, None, httpcore.ConnectTimeout)
            raise
        return _DeadlineStream(stream, limit)

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Iterable[Any] | None = None
                            ) -> httpcore.NetworkStream:
        limit = _SENDING.get()
        stream = self._backend.connect_unix_socket(
            path, _within(limit, timeout, httpcore.ConnectTimeout), socket_options)
        return _DeadlineStream(stream, limit)

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


def transport() -> httpx.HTTPTransport:
    """httpx's default transport, its connections made by the deadline backend.
    (Should a future httpx lay its pool out differently, this is its plain
    default transport, and the sync client checks the deadline between reads.)"""
    made = httpx.HTTPTransport()
    pool = getattr(made, "_pool", None)
    backend = getattr(pool, "_network_backend", None)
    if isinstance(pool, httpcore.ConnectionPool) and isinstance(backend, httpcore.NetworkBackend):
        pool._network_backend = _DeadlineBackend(backend)
    return made
