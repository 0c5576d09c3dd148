"""A real HTTP/1.1 server that replays recorded LLM streaming responses.

Why a real server rather than ``httpx.MockTransport``: the bugs this library
cares about live in the network layer -- bodies split at arbitrary byte
boundaries, connections cut mid-stream, clients that stop reading and must close
the socket at once.  A mock transport never exercises those paths; a socket on
127.0.0.1 does, and it does so for any client (httpx, the official SDKs, curl).

The server is built on anyio + h11, both already dependencies of httpx, so using
it costs nothing extra and it runs under asyncio and trio alike::

    async with ReplayServer() as server:
        server.add_file("/v1/chat/completions", "tests/fixtures/openai-chat/refusal.sse",
                        chunk_size=7)
        async with httpx.AsyncClient(base_url=server.url) as client:
            ...

A conversation (a tool loop, a retry) needs one answer per request on the same
path: :meth:`ReplayServer.add_sequence` serves a list of replies in order, and
:attr:`ReplayServer.requests` keeps what each request sent (its JSON body, its
headers without the key)::

    server.add_sequence("/v1/messages", ["tool-use.sse", "text-basic.sse"])
    ...
    first, second = (request.json() for request in server.requests)

Synchronous code (the sync client, plain ``def`` tests) uses
:meth:`ReplayServer.in_thread`, which runs the same server on an event loop in a
background thread.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from types import TracebackType
from typing import Any, Self, TypedDict, Unpack

import anyio
import anyio.abc
import anyio.from_thread
import h11

from .recordings import load_recording

__all__ = [
    "SECRET_HEADERS",
    "RecordedRequest",
    "ReplayServer",
    "Reply",
    "Responder",
    "ThreadedReplayServer",
]

logger = logging.getLogger("streamkit.testing")

#: Errors that mean "the peer went away"; they end a connection quietly because a
#: client hanging up is an expected event for a streaming server, not a bug.
_PEER_GONE: tuple[type[BaseException], ...] = (
    anyio.BrokenResourceError,
    anyio.ClosedResourceError,
    anyio.EndOfStream,
    OSError,
)

_RECEIVE_SIZE = 65536

#: Request headers that carry a key or a session: a :class:`RecordedRequest`
#: shows them as :data:`REDACTED` in ``headers`` (and so in its repr and in a
#: failing test's output) and keeps their values in ``secret_headers``.
SECRET_HEADERS = frozenset({
    "authorization", "proxy-authorization", "x-api-key", "api-key", "x-goog-api-key", "cookie",
})

#: What a secret header's value reads as in :attr:`RecordedRequest.headers`.
REDACTED = "<redacted>"


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server received it, kept so tests can assert on what a
    client actually put on the wire (method, URL, headers, body).

    ``headers`` keys are lower-cased (HTTP header names are case-insensitive and
    h11 normalises them); repeated headers are joined with ``", "``.  The value
    of a header that carries a key (:data:`SECRET_HEADERS`) reads as
    ``"<redacted>"`` there, so a repr or a failed assertion never prints it;
    the value itself is in ``secret_headers`` (left out of the repr), for a test
    that checks which key was sent.  ``path`` excludes the query string, which
    is kept separately in ``query``.
    """

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    query: str = ""
    secret_headers: dict[str, str] = field(default_factory=dict, repr=False)

    def json(self) -> Any:
        """The body decoded as JSON -- the common case for LLM API requests."""
        return json.loads(self.body)


@dataclass(frozen=True)
class Reply:
    """One answer of a sequence (:meth:`ReplayServer.add_sequence`) or of a
    responder (:meth:`ReplayServer.add_responder`): a body and how to send it,
    with the same meaning as :meth:`ReplayServer.add`'s arguments.
    ``Reply.file(path)`` reads a recording.

    ``splits`` are the byte offsets where the body's writes begin, in place of
    ``chunk_size``'s even pieces: a body written at its own boundaries (each
    SSE event of a paced stream in its own write, ``delay`` seconds apart)."""

    body: bytes
    status: int = 200
    content_type: str = "text/event-stream"
    headers: Mapping[str, str] | None = None
    chunk_size: int | None = None
    delay: float = 0.0
    cut_after: int | None = None
    pauses: Mapping[int, float] | None = None
    splits: Sequence[int] | None = None

    @classmethod
    def file(cls, file_path: str | os.PathLike[str], **options: Any) -> Reply:
        """A recorded body with the content type its suffix names (see
        :func:`load_recording`); ``options`` as for the class."""
        body, content_type = load_recording(file_path)
        return cls(body, **{"content_type": content_type, **options})


@dataclass(frozen=True)
class _Route:
    body: bytes
    status: int
    content_type: str
    headers: tuple[tuple[str, str], ...]
    chunk_size: int | None
    delay: float
    cut_after: int | None
    pauses: tuple[tuple[int, float], ...] = ()
    splits: tuple[int, ...] = ()


@dataclass
class _Sequence:
    """Replies served in order on one path; past the last, an error that says so."""

    routes: list[_Route]
    served: int = 0

    def next_route(self, path: str) -> _Route:
        if self.served >= len(self.routes):
            message = (f"ReplayServer served all {len(self.routes)} replies of the sequence "
                       f"for {path} already")
            return _error_route(410, message, "sequence_exhausted")
        self.served += 1
        return self.routes[self.served - 1]


Responder = Callable[[RecordedRequest], Reply]
"""A reply computed for each request from what it sent (:meth:`ReplayServer.add_responder`)."""


@dataclass(frozen=True)
class _Responder:
    respond: Responder


@dataclass
class _ResponseState:
    """Shared between the body writer and the peer watcher of one response."""

    final_send_started: bool = False
    completed: bool = False
    peer_gone: bool = False


def _reason(status: int) -> bytes:
    try:
        return HTTPStatus(status).phrase.encode()
    except ValueError:
        return b""


def _split_target(target: str) -> tuple[str, str]:
    path, _, query = target.partition("?")
    return path, query


class Serving(TypedDict, total=False):
    """How a route is served, beside its body and content type (see
    :meth:`ReplayServer.add`): one list of options for every way to add one."""

    status: int
    headers: Mapping[str, str] | None
    chunk_size: int | None
    delay: float
    cut_after: int | None
    pauses: Mapping[int, float] | None
    splits: Sequence[int] | None


class RouteOptions(Serving, total=False):
    """:class:`Serving` and the content type (:meth:`ReplayServer.default`)."""

    content_type: str


class ReplayServer:
    """HTTP/1.1 server on 127.0.0.1 that serves registered recorded bodies.

    Use as ``async with ReplayServer() as server:``; the port is ephemeral so
    parallel test runs never collide.  Routes may be added before or after the
    server starts.  Every response body is sent with chunked transfer encoding
    (unless the route's headers set ``Content-Length``) so that a truncated
    body is detectable by the client, as it is with real LLM APIs.

    What the server observes is kept on public attributes so tests can assert
    on it:

    * ``requests`` -- every fully received request, as :class:`RecordedRequest`.
    * ``disconnects`` -- the path of every response whose client went away
      before the body was completely sent (see :meth:`wait_disconnect`).
    * ``connections`` -- number of TCP connections accepted (lets a test check
      keep-alive reuse).
    * ``errors`` -- unexpected exceptions from connection handlers; they are
      logged and recorded instead of crashing the server, so a test can assert
      ``not server.errors``.

    Connections are kept alive between requests (h11 decides, honouring
    ``Connection: close``).  Each connection is served by one task with no
    per-connection buffering beyond h11's, so thousands of concurrent streams
    are cheap; the listen backlog defaults to 2048 for the same reason.
    """

    def __init__(self, *, host: str = "127.0.0.1", port: int = 0, backlog: int = 2048) -> None:
        self.host = host
        self._requested_port = port
        self._backlog = backlog
        self._routes: dict[str, _Route | _Sequence | _Responder] = {}
        self.requests: list[RecordedRequest] = []
        self.disconnects: list[str] = []
        self.connections = 0
        self.errors: list[BaseException] = []
        self._port: int | None = None
        self._disconnect_event: anyio.Event | None = None
        self._exit_stack: contextlib.AsyncExitStack | None = None

    # ------------------------------------------------------------------ routes

    def add(
        self,
        path: str,
        body: bytes,
        *,
        status: int = 200,
        content_type: str = "text/event-stream",
        headers: Mapping[str, str] | None = None,
        chunk_size: int | None = None,
        delay: float = 0.0,
        cut_after: int | None = None,
        pauses: Mapping[int, float] | None = None,
        splits: Sequence[int] | None = None,
    ) -> None:
        """Serve ``body`` for any method on ``path``.

        ``path`` is matched against the request target first with its query
        string, then without it, then against the catch-all ``"*"`` (see
        :meth:`default`); unmatched requests get a 404 JSON error.  Registering
        the same path again replaces the earlier response (or sequence).

        ``chunk_size`` splits the body into network writes of that many bytes
        (``None``: one write) with ``delay`` seconds between writes, which is how
        tests reproduce provider-side token pacing and arbitrary split points.
        ``cut_after=N`` sends only the first ``N`` body bytes (the whole body if
        ``N >= len(body)``) and then closes the connection without the final
        chunk, so the client must report an incomplete body. ``pauses`` maps a
        write's number to seconds of silence before it (``{0: 0.5}``: the
        headers at once, the body's first bytes half a second later), which is
        how tests reproduce a slow first token and a stall mid-stream.
        ``splits`` are byte offsets where writes begin, instead of
        ``chunk_size``'s even pieces (a body written at its own boundaries).
        ``headers`` are added to the response; a ``Content-Type`` in them
        overrides ``content_type``.
        """
        self._routes[path] = _route(Reply(body, status, content_type, headers, chunk_size,
                                          delay, cut_after, pauses, splits))

    def add_sequence(
        self, path: str, replies: Sequence[Reply | bytes | str | os.PathLike[str]]
    ) -> None:
        """Serve ``replies`` on ``path`` in order, one per request: the turns of a
        conversation (a tool call, then the answer) or a retry (a 429, then the
        stream).  Each reply is a :class:`Reply`, a ``bytes`` body (a
        ``text/event-stream`` 200) or the path of a recording (see
        :func:`load_recording`).  A request after the last reply gets a 410 JSON
        error saying the sequence is used up, so a test that sends one request
        too many fails loudly.  Path matching is :meth:`add`'s; registering the
        path again starts over."""
        routes = []
        for reply in replies:
            if isinstance(reply, bytes | bytearray | memoryview):
                reply = Reply(bytes(reply))
            elif not isinstance(reply, Reply):
                reply = Reply.file(reply)
            routes.append(_route(reply))
        self._routes[path] = _Sequence(routes)

    def add_responder(self, path: str, responder: Responder) -> None:
        """Answer each request on ``path`` with the :class:`Reply` that
        ``responder`` computes from it (a :class:`RecordedRequest`): a fake API
        whose answer depends on what was asked (see
        :class:`~streamkit.testing.FakeProvider`). The responder runs on the
        server's event loop, once per request, after the request is recorded;
        if it raises, the client gets a 500 JSON error naming the exception and
        the exception is kept in :attr:`errors`. Path matching is
        :meth:`add`'s (``"*"``: every path without its own route)."""
        self._routes[path] = _Responder(responder)

    def default(self, body: bytes, **options: Unpack[RouteOptions]) -> None:
        """Serve ``body`` for every path without its own route (same as
        ``add("*", ...)``, with the same options), for clients whose exact URL
        a test does not care about."""
        self.add("*", body, **options)

    def add_file(
        self,
        path: str,
        file_path: str | os.PathLike[str],
        *,
        content_type: str | None = None,
        **options: Unpack[Serving],
    ) -> None:
        """Serve a recorded fixture file on ``path``; the body and content type
        come from :func:`load_recording` (``content_type`` overrides the one
        inferred from the suffix; the other options are :meth:`add`'s)."""
        body, inferred = load_recording(file_path)
        self.add(path, body, content_type=content_type or inferred, **options)

    def _route_for(self, target: str, request: RecordedRequest) -> _Route | None:
        path, _ = _split_target(target)
        found = self._routes.get(target) or self._routes.get(path) or self._routes.get("*")
        if isinstance(found, _Sequence):
            return found.next_route(path)
        if isinstance(found, _Responder):
            return self._computed_route(found, request)
        return found

    def _computed_route(self, responder: _Responder, request: RecordedRequest) -> _Route:
        """The responder's reply; its failure is the server's error, said to the
        client and kept for the test."""
        try:
            return _route(responder.respond(request))
        except Exception as exc:
            self.errors.append(exc)
            logger.exception("ReplayServer: responder for %s failed", request.path)
            return _error_route(500, f"the ReplayServer responder failed: "
                                f"{type(exc).__name__}: {exc}", "responder_failed")

    # --------------------------------------------------------------- lifecycle

    @property
    def port(self) -> int:
        """The bound TCP port (only known once the server has started)."""
        if self._port is None:
            raise RuntimeError("ReplayServer is not running; use 'async with ReplayServer()'")
        return self._port

    @property
    def url(self) -> str:
        """Base URL, e.g. ``http://127.0.0.1:54321`` (no trailing slash)."""
        return f"http://{self.host}:{self.port}"

    async def __aenter__(self) -> Self:
        if self._exit_stack is not None:
            raise RuntimeError("ReplayServer is already running")
        self._disconnect_event = anyio.Event()
        stack = contextlib.AsyncExitStack()
        try:
            listener = await anyio.create_tcp_listener(
                local_host=self.host, local_port=self._requested_port, backlog=self._backlog
            )
            await stack.enter_async_context(listener)
            self._port = listener.extra(anyio.abc.SocketAttribute.local_port)
            task_group = await stack.enter_async_context(anyio.create_task_group())
            # Registered after the task group, so it runs first on exit: connection
            # tasks are cancelled before the task group waits for them.
            stack.callback(task_group.cancel_scope.cancel)
            for sub_listener in listener.listeners:  # one per address family
                assert isinstance(sub_listener, anyio.abc.SocketListener)
                task_group.start_soon(self._accept_loop, sub_listener, task_group)
        except BaseException:
            await stack.aclose()
            self._port = None
            raise
        self._exit_stack = stack
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        stack, self._exit_stack = self._exit_stack, None
        assert stack is not None
        try:
            return await stack.__aexit__(exc_type, exc, tb)
        finally:
            self._port = None

    @classmethod
    @contextlib.contextmanager
    def in_thread(
        cls,
        *,
        backend: str = "asyncio",
        host: str = "127.0.0.1",
        port: int = 0,
        backlog: int = 2048,
    ) -> Iterator[ThreadedReplayServer]:
        """Run a server on its own event loop in a background thread.

        For synchronous callers (the sync client, plain ``def`` tests) that have
        no event loop to host the server on.  The returned handle is ready as
        soon as the ``with`` body starts (the socket is listening); leaving the
        block stops the server and joins the thread.
        """
        server = cls(host=host, port=port, backlog=backlog)
        with (
            anyio.from_thread.start_blocking_portal(backend) as portal,
            portal.wrap_async_context_manager(server),
        ):
            yield ThreadedReplayServer(server, portal)

    # -------------------------------------------------------------- observing

    async def wait_disconnect(self, timeout: float | None = 5.0, *, count: int = 1) -> bool:
        """Wait until at least ``count`` clients have gone away mid-body.

        Returns ``True`` once ``len(self.disconnects) >= count`` and ``False`` if
        ``timeout`` seconds pass first.  This is how a test proves that leaving
        an ``async for`` over a stream really closes the HTTP connection rather
        than leaving it to be garbage-collected later.
        """
        with anyio.move_on_after(timeout):
            while len(self.disconnects) < count:
                if self._disconnect_event is None:
                    raise RuntimeError("ReplayServer is not running")
                await self._disconnect_event.wait()
        return len(self.disconnects) >= count

    def _record_disconnect(self, path: str) -> None:
        self.disconnects.append(path)
        # anyio.Event cannot be cleared: wake current waiters, then replace it.
        if self._disconnect_event is not None:
            self._disconnect_event.set()
        self._disconnect_event = anyio.Event()

    # ----------------------------------------------------------------- serving

    async def _accept_loop(
        self, listener: anyio.abc.SocketListener, task_group: anyio.abc.TaskGroup
    ) -> None:
        while True:
            try:
                stream = await listener.accept()
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                return
            except OSError as exc:
                # e.g. EMFILE under a huge benchmark: back off instead of dying,
                # the pending connections stay in the backlog.
                logger.warning("ReplayServer accept failed: %s", exc)
                await anyio.sleep(0.01)
                continue
            self.connections += 1
            task_group.start_soon(self._serve_connection, stream)

    async def _serve_connection(self, stream: anyio.abc.SocketStream) -> None:
        try:
            async with stream:
                await self._connection_loop(stream)
        except _PEER_GONE:
            pass
        except h11.RemoteProtocolError as exc:
            logger.debug("ReplayServer: bad request: %s", exc)
        except Exception as exc:
            self.errors.append(exc)
            logger.exception("ReplayServer: connection handler failed")

    async def _connection_loop(self, stream: anyio.abc.SocketStream) -> None:
        conn = h11.Connection(h11.SERVER)
        while True:
            try:
                received = await self._read_request(stream, conn)
            except h11.RemoteProtocolError as exc:
                await self._send_bad_request(stream, conn, exc)
                return
            if received is None:
                return
            request, body = received
            target = request.target.decode("latin-1")
            path, query = _split_target(target)
            headers: dict[str, str] = {}
            for raw_name, raw_value in request.headers:
                name, value = raw_name.decode("latin-1"), raw_value.decode("latin-1")
                headers[name] = f"{headers[name]}, {value}" if name in headers else value
            secrets = {name: value for name, value in headers.items() if name in SECRET_HEADERS}
            headers.update(dict.fromkeys(secrets, REDACTED))
            recorded = RecordedRequest(
                method=request.method.decode("latin-1"),
                path=path,
                headers=headers,
                body=body,
                query=query,
                secret_headers=secrets,
            )
            self.requests.append(recorded)
            route = self._route_for(target, recorded) or _not_found(request.method, target)
            head_only = request.method == b"HEAD"
            if not await self._send_response(stream, conn, route, path, head_only=head_only):
                return
            if conn.our_state is not h11.DONE or conn.their_state is not h11.DONE:
                return  # h11 says MUST_CLOSE (Connection: close, HTTP/1.0, ...)
            conn.start_next_cycle()

    async def _read_request(
        self, stream: anyio.abc.SocketStream, conn: h11.Connection
    ) -> tuple[h11.Request, bytes] | None:
        """Read one complete request (head and whole body); ``None`` on a clean
        close between requests."""
        request: h11.Request | None = None
        body = bytearray()
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                if conn.they_are_waiting_for_100_continue:
                    await stream.send(
                        conn.send(h11.InformationalResponse(status_code=100, headers=[]))
                    )
                try:
                    data = await stream.receive(_RECEIVE_SIZE)
                except anyio.EndOfStream:
                    data = b""  # h11 turns this into ConnectionClosed or an error
                conn.receive_data(data)
            elif isinstance(event, h11.Request):
                request = event
            elif isinstance(event, h11.Data):
                body += event.data
            elif isinstance(event, h11.EndOfMessage):
                assert request is not None
                return request, bytes(body)
            elif isinstance(event, h11.ConnectionClosed):
                return None
            else:  # PAUSED cannot happen before we respond; be safe anyway.
                return None

    async def _send_bad_request(
        self, stream: anyio.abc.SocketStream, conn: h11.Connection, exc: h11.RemoteProtocolError
    ) -> None:
        if conn.our_state not in (h11.IDLE, h11.SEND_RESPONSE):
            return
        body = json.dumps({"error": {"message": f"bad request: {exc}"}}).encode()
        with contextlib.suppress(*_PEER_GONE, h11.LocalProtocolError):
            await stream.send(
                conn.send(
                    h11.Response(
                        status_code=exc.error_status_hint,
                        reason=_reason(exc.error_status_hint),
                        headers=[
                            ("Content-Type", "application/json"),
                            ("Content-Length", str(len(body))),
                            ("Connection", "close"),
                        ],
                    )
                )
                + conn.send(h11.Data(data=body))
                + conn.send(h11.EndOfMessage())
            )

    async def _send_response(
        self,
        stream: anyio.abc.SocketStream,
        conn: h11.Connection,
        route: _Route,
        path: str,
        *,
        head_only: bool,
    ) -> bool:
        """Send one response; return ``False`` if the connection must be dropped
        (cut on purpose or client gone)."""
        await stream.send(
            conn.send(
                h11.Response(
                    status_code=route.status,
                    headers=list(route.headers),
                    reason=_reason(route.status),
                )
            )
        )
        if head_only or route.status in (204, 304):
            await stream.send(conn.send(h11.EndOfMessage()))
            return True

        state = _ResponseState()
        async with anyio.create_task_group() as task_group:
            task_group.start_soon(self._watch_peer, stream, conn, state, task_group.cancel_scope)
            try:
                await self._write_body(stream, conn, route, state)
            except _PEER_GONE:
                state.peer_gone = True
            task_group.cancel_scope.cancel()

        if state.completed:
            return True
        if route.cut_after is not None and not state.peer_gone:
            return False  # deliberate cut: _serve_connection closes the socket
        self._record_disconnect(path)
        return False

    async def _write_body(
        self,
        stream: anyio.abc.SocketStream,
        conn: h11.Connection,
        route: _Route,
        state: _ResponseState,
    ) -> None:
        body = route.body
        if route.cut_after is not None:
            body = body[: route.cut_after]
        if route.splits:
            starts = [0, *(split for split in route.splits if split < len(body))]
            pieces = [body[start:end] for start, end in zip(starts, [*starts[1:], len(body)],
                                                            strict=True)]
        else:
            size = route.chunk_size or max(len(body), 1)
            pieces = [body[i : i + size] for i in range(0, len(body), size)]
        pauses = dict(route.pauses)
        for index, piece in enumerate(pieces):
            if index and route.delay:
                await anyio.sleep(route.delay)
            if index in pauses:
                await anyio.sleep(pauses[index])
            framed = conn.send(h11.Data(data=piece))
            if route.cut_after is None and index == len(pieces) - 1:
                trailer = conn.send(h11.EndOfMessage())
                if not trailer:
                    # Content-Length framing: this last piece completes the message.
                    state.final_send_started = True
                    await stream.send(framed)
                    state.completed = True
                    return
                await stream.send(framed)
                state.final_send_started = True
                await stream.send(trailer)
                state.completed = True
                return
            await stream.send(framed)
        if route.cut_after is None:  # empty body
            state.final_send_started = True
            trailer = conn.send(h11.EndOfMessage())
            if trailer:
                await stream.send(trailer)
            state.completed = True

    async def _watch_peer(
        self,
        stream: anyio.abc.SocketStream,
        conn: h11.Connection,
        state: _ResponseState,
        writer_scope: anyio.CancelScope,
    ) -> None:
        """Notice a client hanging up while the body is being written.

        A slow writer would otherwise only find out on its next send (and a
        kernel send after a peer close may even succeed once), so waiting on a
        read gives immediate, deterministic detection.  Pipelined bytes that
        arrive meanwhile are handed to h11, which buffers them for the next
        request cycle.
        """
        try:
            while True:
                data = await stream.receive(_RECEIVE_SIZE)
                conn.receive_data(data)
        except _PEER_GONE:
            # If the last bytes were already handed to the kernel the client may
            # have received the whole body and closed normally: not a disconnect.
            if not state.final_send_started:
                state.peer_gone = True
                writer_scope.cancel()


def _route(reply: Reply) -> _Route:
    """A reply checked and made ready to serve."""
    body = reply.body
    if not isinstance(body, bytes | bytearray | memoryview):
        raise TypeError(f"body must be bytes, not {type(body).__name__}")
    if not 200 <= reply.status <= 599:
        raise ValueError(f"status must be a final status code (200-599), got {reply.status}")
    if reply.chunk_size is not None and reply.chunk_size < 1:
        raise ValueError(f"chunk_size must be >= 1 or None, got {reply.chunk_size}")
    if reply.delay < 0:
        raise ValueError(f"delay must be >= 0, got {reply.delay}")
    if reply.cut_after is not None and reply.cut_after < 0:
        raise ValueError(f"cut_after must be >= 0 or None, got {reply.cut_after}")
    if reply.pauses and min(reply.pauses.values()) < 0:
        raise ValueError(f"pauses must be >= 0 seconds, got {dict(reply.pauses)}")
    splits = tuple(reply.splits or ())
    if splits and reply.chunk_size is not None:
        raise ValueError("give chunk_size or splits, not both")
    if splits and (list(splits) != sorted(set(splits)) or splits[0] < 1
                   or splits[-1] >= len(body)):
        raise ValueError(f"splits must be increasing offsets inside the body (1 to "
                         f"{len(body) - 1}), got {list(splits)}")
    extra = dict(reply.headers or {})
    if not any(name.lower() == "content-type" for name in extra):
        extra["Content-Type"] = reply.content_type
    return _Route(
        body=bytes(body),
        status=reply.status,
        content_type=reply.content_type,
        headers=tuple(extra.items()),
        chunk_size=reply.chunk_size,
        delay=reply.delay,
        cut_after=reply.cut_after,
        pauses=tuple(sorted((reply.pauses or {}).items())),
        splits=splits,
    )


def _error_route(status: int, message: str, kind: str) -> _Route:
    body = json.dumps({"error": {"message": message, "type": kind}}).encode()
    return _Route(
        body=body,
        status=status,
        content_type="application/json",
        headers=(("Content-Type", "application/json"),),
        chunk_size=None,
        delay=0.0,
        cut_after=None,
    )


def _not_found(method: bytes, target: str) -> _Route:
    message = f"ReplayServer has no route for {method.decode('latin-1')} {target}"
    return _error_route(404, message, "not_found")


class ThreadedReplayServer:
    """Synchronous handle on a :class:`ReplayServer` running in a background
    thread (see :meth:`ReplayServer.in_thread`).

    Route registration and the recorded lists are plain data shared with the
    server thread, so they are exposed directly; only waiting needs the event
    loop and goes through the portal.
    """

    def __init__(self, server: ReplayServer, portal: anyio.from_thread.BlockingPortal) -> None:
        self.server = server
        self._portal = portal
        # registering a route only stores data the server thread reads: call it directly;
        # the recorded lists are the server's own (appended to, never replaced)
        self.add = server.add
        self.default = server.default
        self.add_file = server.add_file
        self.add_sequence = server.add_sequence
        self.add_responder = server.add_responder
        self.requests: list[RecordedRequest] = server.requests
        self.disconnects: list[str] = server.disconnects
        self.errors: list[BaseException] = server.errors

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def port(self) -> int:
        return self.server.port

    @property
    def connections(self) -> int:
        return self.server.connections

    def wait_disconnect(self, timeout: float | None = 5.0, *, count: int = 1) -> bool:
        """Blocking version of :meth:`ReplayServer.wait_disconnect`."""

        async def wait() -> bool:
            return await self.server.wait_disconnect(timeout, count=count)

        return self._portal.call(wait)

