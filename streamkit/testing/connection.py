"""One HTTP/1.1 connection of a :class:`~streamkit.testing.ReplayServer`, served with h11.

The network behaviour the tests rely on lives here: a request read whole (head
and body, ``100 Continue`` answered), a route's body written in the pieces,
pauses and cut its reply asks for, chunked unless the reply sets
``Content-Length``, and a client that hangs up mid-body noticed at once (a
watcher reads the socket while the body is written) rather than on the next
send. The connection knows nothing of routes or recordings: it asks its server
through :class:`ConnectionHooks`.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus

import anyio
import anyio.abc
import h11

from .replies import RecordedRequest, Route, recorded_request

__all__ = ["ConnectionHooks", "serve_connection"]

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


@dataclass(frozen=True)
class ConnectionHooks:
    """What a connection asks of its server."""

    answer: Callable[[str, RecordedRequest], Route]
    """The route answering a request (its target and the request, kept by then)."""
    failed: Callable[[BaseException], None]
    """Keep an unexpected failure of the server's own, for the test to see."""
    hung_up: Callable[[str], None]
    """Say that the client of a response on this path went away mid-body."""


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


async def serve_connection(stream: anyio.abc.SocketStream, hooks: ConnectionHooks) -> None:
    """Serve requests on ``stream`` until either side closes it; a failure of
    the server's own is kept (``hooks.failed``), a client's going away is not one."""
    try:
        async with stream:
            await _connection_loop(stream, hooks)
    except _PEER_GONE:
        pass
    except h11.RemoteProtocolError as exc:
        logger.debug("ReplayServer: bad request: %s", exc)
    except Exception as exc:
        hooks.failed(exc)
        logger.exception("ReplayServer: connection handler failed")


async def _connection_loop(stream: anyio.abc.SocketStream, hooks: ConnectionHooks) -> None:
    conn = h11.Connection(h11.SERVER)
    while True:
        try:
            received = await _read_request(stream, conn)
        except h11.RemoteProtocolError as exc:
            await _send_bad_request(stream, conn, exc)
            return
        if received is None:
            return
        request, body = received
        target = request.target.decode("latin-1")
        recorded = recorded_request(request.method, target, request.headers, body)
        route = hooks.answer(target, recorded)
        head_only = request.method == b"HEAD"
        if not await _send_response(stream, conn, route, recorded.path, hooks,
                                    head_only=head_only):
            return
        if conn.our_state is not h11.DONE or conn.their_state is not h11.DONE:
            return  # h11 says MUST_CLOSE (Connection: close, HTTP/1.0, ...)
        conn.start_next_cycle()


async def _read_request(
    stream: anyio.abc.SocketStream, conn: h11.Connection
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
    stream: anyio.abc.SocketStream, conn: h11.Connection, exc: h11.RemoteProtocolError
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
    stream: anyio.abc.SocketStream,
    conn: h11.Connection,
    route: Route,
    path: str,
    hooks: ConnectionHooks,
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
        task_group.start_soon(_watch_peer, stream, conn, state, task_group.cancel_scope)
        try:
            await _write_body(stream, conn, route, state)
        except _PEER_GONE:
            state.peer_gone = True
        task_group.cancel_scope.cancel()

    if state.completed:
        return True
    if route.cut_after is not None and not state.peer_gone:
        return False  # deliberate cut: serve_connection closes the socket
    hooks.hung_up(path)
    return False


async def _write_body(
    stream: anyio.abc.SocketStream,
    conn: h11.Connection,
    route: Route,
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
