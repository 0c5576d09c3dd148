"""The gateway's edge: how long a caller may take to send its request, and how
many connections anybody may hold (:class:`~.config.CallerLimits`).

A caller is nobody until its request's headers are read (its key is in
them), and uvicorn bounds none of it: a socket that sends one header byte now
and then, or never finishes its body, is held for ever, and a few hundred of
them take every file descriptor the process has. uvicorn's own cap
(``limit_concurrency``) counts those sockets too and answers 503 to the real
callers behind them, so it is not used. :class:`GuardedProtocol` is
uvicorn's h11 protocol with four rules added:

- **headers**: the request line and headers within ``headers`` seconds of the
  connection (or of the previous answer, on a kept-alive connection);
- **body**: the body within ``body`` seconds of the headers' end (also when
  the gateway answered before reading it, a 401: the socket is still held);
- **idle**: never ``idle`` seconds without a byte while either is read (not
  while the gateway itself has paused reading);
- **caps**: at most ``connections`` open connections in the worker, and
  ``per_client`` from one client address. A connection over a cap is closed
  at once, before any byte of it is read: answering 503 would mean reading
  its request first (headers, and so time and memory), which is what the cap
  keeps for callers already in.

A request that runs out of time is answered ``408 Request Timeout`` (with
``Connection: close``) when no answer has begun, then closed in two steps
(RFC 9112 section 9.6): the gateway's side at once, the caller's once it
closes too or after :data:`LINGER_SECONDS`, what it sends meanwhile read and
dropped (the connection keeps its place under the caps until then). Closed at
once, a socket holding a request that came late (a caller on a busy machine)
is reset: the caller meets a broken connection (``ConnectionResetError``),
whether or not it read the 408 first. An idle
kept-alive connection is closed quietly. Each is one line on the
``streamkit.gateway`` logger (``{"closed": "headers", "client": ...}``), and
the request's own line, when the gateway had begun it, says 408.
Everything is counted per worker process.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from .config import CallerLimits

__all__ = ["TIMED_OUT", "ConnectionGuard", "GuardedProtocol", "default_connections",
           "guarded_protocol"]

logger = logging.getLogger("streamkit.gateway")

#: The scope key a request's phase is set under when its time ran out (the
#: request's log line says 408, not a caller gone).
TIMED_OUT = "streamkit.timed_out"

_TIMEOUT_TEXT = b"the request was not sent in time"

#: The answer to a request that did not arrive in time.
REQUEST_TIMEOUT = (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
                   b"connection: close\r\ncontent-length: %d\r\n\r\n%s"
                   % (len(_TIMEOUT_TEXT), _TIMEOUT_TEXT))

#: How long a timed-out connection is read (and what comes dropped) after its
#: 408, for the caller to read the answer before the socket goes.
LINGER_SECONDS = 2.0

#: File descriptors kept aside from the connection cap (logs, the listening
#: socket, the interpreter's own files).
RESERVED_FILES = 64

#: The cap where the process has no file limit to read it from (Windows), or an unlimited one.
UNLIMITED_CONNECTIONS = 10_000


def default_connections() -> int:
    """The connection cap when the config sets none: half the process's file
    limit after a reserve, since each caller's stream holds two descriptors
    (its socket and its upstream's). A cap under the limit is what keeps
    ``accept`` from failing with EMFILE for everybody."""
    try:
        import resource
    except ImportError:  # Windows: no such limit to keep under
        return UNLIMITED_CONNECTIONS
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return UNLIMITED_CONNECTIONS
    return max((soft - RESERVED_FILES) // 2, 16)


class ConnectionGuard:
    """One worker's limits and its open connections, by client address."""

    def __init__(self, limits: CallerLimits) -> None:
        self.limits = limits
        self.most = limits.connections if limits.connections is not None \
            else default_connections()
        self.open = 0
        self.by_client: Counter[str] = Counter()

    def admit(self, client: str) -> str | None:
        """Count a new connection from ``client`` in, or say which cap it is over."""
        if self.open >= self.most:
            return "max_connections"
        per_client = self.limits.per_client
        if per_client and self.by_client[client] >= per_client:
            return "max_connections_per_client"
        self.open += 1
        self.by_client[client] += 1
        return None

    def release(self, client: str) -> None:
        """Count a connection admitted by :meth:`admit` out."""
        self.open -= 1
        self.by_client[client] -= 1
        if not self.by_client[client]:
            del self.by_client[client]


def closed_line(reason: str, client: str) -> None:
    """The log line of a connection the edge closed (no request of it is served)."""
    logger.info(json.dumps({"closed": reason, "client": client}))


class GuardedProtocol(H11Protocol):
    """uvicorn's h11 protocol under :class:`ConnectionGuard`'s limits (see the
    module docstring); :func:`guarded_protocol` makes one for a set of limits."""

    guard: ClassVar[ConnectionGuard]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._address: str | None = None
        self._phase: str | None = None
        self._deadline: asyncio.TimerHandle | None = None
        self._idle: asyncio.TimerHandle | None = None
        self._lingering = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        address = self.client[0] if self.client else ""
        refused = self.guard.admit(address)
        if refused is not None:
            closed_line(refused, address)
            transport.abort()
            return
        self._address = address
        self._watch(read=True)

    def connection_lost(self, exc: Exception | None) -> None:
        self._phase = None
        self._cancel()
        if self._address is not None:
            self.guard.release(self._address)
            self._address = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._lingering:
            return  # what came after the 408: read, so the socket is not reset, and dropped
        super().data_received(data)
        self._watch(read=True)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch(read=True)

    # ------------------------------------------------------------ the clocks

    def _watch(self, *, read: bool) -> None:
        """Start the clock of the phase the caller's side is in (a new one when
        it changed), and the idle clock again after a read."""
        if self._address is None or self.transport.is_closing():
            return
        state = self.conn.their_state
        phase = "headers" if state is h11.IDLE else "body" if state is h11.SEND_BODY else None
        if phase != self._phase:
            self._phase = phase
            self._cancel()
            if phase is not None:
                limit = self.guard.limits.headers if phase == "headers" else self.guard.limits.body
                self._deadline = self.loop.call_later(limit, self._expired)
        if phase is not None and read:
            if self._idle is not None:
                self._idle.cancel()
            self._idle = self.loop.call_later(self.guard.limits.idle, self._idled)

    def _cancel(self) -> None:
        for timer in (self._deadline, self._idle):
            if timer is not None:
                timer.cancel()
        self._deadline = self._idle = None

    def _idled(self) -> None:
        """No byte for ``idle`` seconds: unless the gateway paused the reading
        itself (a body it has not taken yet), the request is given up."""
        if self.flow.read_paused:
            self._idle = self.loop.call_later(self.guard.limits.idle, self._idled)
            return
        self._expired("idle")

    def _expired(self, reason: str | None = None) -> None:
        """Answer 408 when no answer has begun, and close."""
        phase = self._phase
        if phase is None or self.transport.is_closing():
            return
        self._cancel()
        answered = self.cycle is not None and self.cycle.response_complete
        if not (answered and phase == "headers"):  # not a kept-alive connection left idle
            closed_line(f"{reason or phase} timeout", self._address or "")
        if self.cycle is not None and not self.cycle.response_complete:
            self.cycle.scope[TIMED_OUT] = phase  # type: ignore[literal-required]
        if self.cycle is None or not self.cycle.response_started:
            self.transport.write(REQUEST_TIMEOUT)
            if self.transport.can_write_eof():
                self._linger()
                return
        self.transport.close()

    def _linger(self) -> None:
        """Close the gateway's side after the 408, and the whole socket when the
        caller closes its side or :data:`LINGER_SECONDS` later; the request
        being read, if any, ends now (its handler sees the caller gone)."""
        self._lingering = True
        self.transport.write_eof()
        if self.cycle is not None:
            self.cycle.disconnected = True
            self.cycle.message_event.set()
        self._deadline = self.loop.call_later(LINGER_SECONDS, self.transport.close)


def guarded_protocol(limits: CallerLimits) -> type[GuardedProtocol]:
    """A :class:`GuardedProtocol` class with its own :class:`ConnectionGuard`
    for ``limits`` (one per server: its connections are counted apart)."""
    return type("GatewayProtocol", (GuardedProtocol,), {"guard": ConnectionGuard(limits)})
