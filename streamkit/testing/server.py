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

This module is the server a test holds: its routes, its lifecycle and what it
observed. The replies and recorded requests are data of their own
(:mod:`streamkit.testing.replies`), and each connection is served with h11 by
:mod:`streamkit.testing.connection`.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator, Mapping, Sequence
from types import TracebackType
from typing import Self, Unpack

import anyio
import anyio.abc
import anyio.from_thread

from .connection import ConnectionHooks, serve_connection
from .recordings import load_recording
from .replies import (
    ComputedReplies,
    RecordedRequest,
    Reply,
    ReplySequence,
    Responder,
    Route,
    RouteOptions,
    Serving,
    error_route,
    not_found,
    route_of,
    split_target,
)

__all__ = ["ReplayServer", "ThreadedReplayServer"]

logger = logging.getLogger("streamkit.testing")


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

    An exception raised in the ``async with`` (or ``in_thread``) body comes
    out as itself, not in an ``ExceptionGroup``: ``except ProviderError`` and
    ``pytest.raises`` around the block match it.

    Connections are kept alive between requests (h11 decides, honouring
    ``Connection: close``).  Each connection is served by one task with no
    per-connection buffering beyond h11's, so thousands of concurrent streams
    are cheap; the listen backlog defaults to 2048 for the same reason.
    """

    def __init__(self, *, host: str = "127.0.0.1", port: int = 0, backlog: int = 2048) -> None:
        self.host = host
        self._requested_port = port
        self._backlog = backlog
        self._routes: dict[str, Route | ReplySequence | ComputedReplies] = {}
        self.requests: list[RecordedRequest] = []
        self.disconnects: list[str] = []
        self.connections = 0
        self.errors: list[BaseException] = []
        self._port: int | None = None
        self._disconnect_event: anyio.Event | None = None
        self._exit_stack: contextlib.AsyncExitStack | None = None
        self._hooks = ConnectionHooks(answer=self._answer, failed=self.errors.append,
                                      hung_up=self._record_disconnect)

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
        self._routes[path] = route_of(Reply(body, status, content_type, headers, chunk_size,
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
            routes.append(route_of(reply))
        self._routes[path] = ReplySequence(routes)

    def add_responder(self, path: str, responder: Responder) -> None:
        """Answer each request on ``path`` with the :class:`Reply` that
        ``responder`` computes from it (a :class:`RecordedRequest`): a fake API
        whose answer depends on what was asked (see
        :class:`~streamkit.testing.FakeProvider`). The responder runs on the
        server's event loop, once per request, after the request is recorded;
        if it raises, the client gets a 500 JSON error naming the exception and
        the exception is kept in :attr:`errors`. Path matching is
        :meth:`add`'s (``"*"``: every path without its own route)."""
        self._routes[path] = ComputedReplies(responder)

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

    def _answer(self, target: str, request: RecordedRequest) -> Route:
        """Keep a request, and the route that answers it (a 404 when none does)."""
        self.requests.append(request)
        return self._route_for(target, request) or not_found(request.method, target)

    def _route_for(self, target: str, request: RecordedRequest) -> Route | None:
        path, _ = split_target(target)
        found = self._routes.get(target) or self._routes.get(path) or self._routes.get("*")
        if isinstance(found, ReplySequence):
            return found.next_route(path)
        if isinstance(found, ComputedReplies):
            return self._computed_route(found, request)
        return found

    def _computed_route(self, responder: ComputedReplies, request: RecordedRequest) -> Route:
        """The responder's reply; its failure is the server's error, said to the
        client and kept for the test."""
        try:
            return route_of(responder.respond(request))
        except Exception as exc:
            self.errors.append(exc)
            logger.exception("ReplayServer: responder for %s failed", request.path)
            return error_route(500, f"the ReplayServer responder failed: "
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
        except BaseExceptionGroup as group:
            if not _only(group, exc):
                raise
            return False  # the body's exception goes on as itself, traceback and all
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
            task_group.start_soon(serve_connection, stream, self._hooks)


def _only(group: BaseExceptionGroup[BaseException], exc: BaseException | None) -> bool:
    """Whether ``group`` holds ``exc`` and nothing else: the server's task
    group wraps the ``async with`` body's exception in a group of its own,
    which ``except ProviderError`` and ``pytest.raises`` around the block
    would not match. A failure of the server's own tasks is another member,
    and keeps the group."""
    if exc is None:
        return False
    _, rest = group.split(lambda member: member is exc)
    return rest is None


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
