"""A raw-socket HTTP server that misbehaves on purpose, for the client under faults.

:class:`FaultServer` listens on 127.0.0.1 in a thread and answers every
connection with an :class:`Answer`: the bytes to send, in pieces, with a pause
before each piece after the first (a trickle is one byte a piece), and what to
do at the end (close, reset, or hang with the connection open). Nothing is
HTTP-aware beyond reading the request, so an answer can stop anywhere: before
the status line, inside the headers, inside a chunk of a chunked body, inside
a gzip stream. ``ReplayServer`` (``streamkit.testing``) is the well-behaved
server; this one exists to break the rules.

The helpers build answers: :func:`head` (a status line and headers),
:func:`chunked` (a body in HTTP chunked encoding), :func:`trickle` (one byte a
piece).
"""

from __future__ import annotations

import contextlib
import select
import socket
import struct
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import TracebackType

__all__ = ["Answer", "FaultServer", "chunked", "head", "trickle"]


@dataclass
class Answer:
    """What the server sends on one connection, once it has read the request."""

    pieces: Sequence[bytes]
    pause: float = 0.0
    """Seconds before each piece after the first."""
    then: str = "close"
    """At the end: ``close`` (a clean FIN), ``reset`` (an RST), ``hang``
    (keep the connection open, sending nothing, until the client leaves), or
    ``close when asked again`` / ``reset when asked again`` (keep it open
    until the client sends its next request on it, then close it with a FIN
    or an RST, unanswered: a server closing an idle kept-alive connection as
    the client's request crosses the close)."""


@dataclass
class Connection:
    """What one connection carried: the request, and when the client left."""

    request: bytes = b""
    opened: float = field(default_factory=time.monotonic)
    client_left: float | None = None
    """When the client closed the connection (seen while hanging or sending)."""
    closed: float | None = None
    """When the connection was over, whoever closed it (a hanging answer ends
    only when the client leaves)."""


def head(status: int = 200, headers: Sequence[tuple[str, str]] = (),
         reason: str = "X") -> bytes:
    """A status line and headers, ending with the blank line."""
    lines = [f"HTTP/1.1 {status} {reason}"] + [f"{name}: {value}" for name, value in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def chunked(body: bytes, size: int = 64, *, last: bool = True) -> list[bytes]:
    """``body`` in HTTP chunked encoding, ``size`` bytes a chunk, as one piece
    per chunk (with the terminating zero chunk when ``last``)."""
    pieces = [b"%x\r\n%s\r\n" % (len(body[i:i + size]), body[i:i + size])
              for i in range(0, len(body), size)]
    return [*pieces, b"0\r\n\r\n"] if last else pieces


def trickle(data: bytes) -> list[bytes]:
    """``data`` one byte a piece."""
    return [data[i:i + 1] for i in range(len(data))]


Script = Answer | Callable[[bytes], Answer]


def _readable(conn: socket.socket, seconds: float) -> bool:
    """Whether ``conn`` has bytes (or its end) to read within ``seconds``:
    ``poll``, as ``select`` refuses a descriptor past 1023 (a campaign holds
    more sockets than that)."""
    if not hasattr(select, "poll"):  # Windows
        return bool(select.select([conn], [], [], seconds)[0])
    watch = select.poll()
    watch.register(conn, select.POLLIN)
    return bool(watch.poll(seconds * 1000))


class FaultServer:
    """``with FaultServer(answer) as server:`` every connection to ``server.url``
    gets ``answer`` (or ``answer(request)`` when it is a function of the raw
    request). ``connections`` records each one."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.connections: list[Connection] = []
        self._stop = threading.Event()
        self._listener = socket.socket()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        host, port = self._listener.getsockname()[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> FaultServer:
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(64)
        self._listener.settimeout(0.05)
        self._start(self._accept)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._stop.set()
        for thread in list(self._threads):
            thread.join(timeout=10)
        self._listener.close()

    def wait_all_left(self, timeout: float = 5.0) -> bool:
        """Whether every client has left (closed its connection) within ``timeout``."""
        return self._wait(lambda c: c.client_left is not None, timeout)

    def wait_all_closed(self, timeout: float = 5.0) -> bool:
        """Whether every connection is over within ``timeout``: none was left
        open by a client (a hanging answer waits for the client to leave)."""
        return self._wait(lambda c: c.closed is not None, timeout)

    def _wait(self, done: Callable[[Connection], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if self.connections and all(done(c) for c in self.connections):
                    return True
            time.sleep(0.01)
        return False

    def _start(self, target: Callable[..., None], *args: object) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        with self._lock:
            self._threads.append(thread)
        thread.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except (TimeoutError, OSError):
                continue
            record = Connection()
            with self._lock:
                self.connections.append(record)
            self._start(self._serve, conn, record)

    def _serve(self, conn: socket.socket, record: Connection) -> None:
        try:
            self._answer(conn, record)
        finally:
            record.closed = time.monotonic()

    def _answer(self, conn: socket.socket, record: Connection) -> None:
        with conn:
            try:
                request = self._read_request(conn)
                if request is None:
                    return
                record.request = request
                answer = self.script if isinstance(self.script, Answer) \
                    else self.script(record.request)
                if self._send(conn, answer, record):
                    self._end(conn, answer, record)
            except OSError:
                record.client_left = record.client_left or time.monotonic()

    def _read_request(self, conn: socket.socket) -> bytes | None:
        """The request's head and its ``content-length`` body (``None``: the
        client left before its head was complete)."""
        conn.settimeout(0.1)
        data = b""
        while b"\r\n\r\n" not in data:
            piece = self._recv(conn)
            if not piece:
                return None
            data += piece
        header, _, body = data.partition(b"\r\n\r\n")
        length = 0
        for line in header.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        while len(body) < length:
            piece = self._recv(conn)
            if not piece:
                break
            body += piece
        return header + b"\r\n\r\n" + body

    def _recv(self, conn: socket.socket) -> bytes:
        while not self._stop.is_set():
            try:
                return conn.recv(65536)
            except TimeoutError:
                continue
        return b""

    def _send(self, conn: socket.socket, answer: Answer, record: Connection) -> bool:
        """Send the pieces; ``False`` when the client left (or the server stops) first."""
        for number, piece in enumerate(answer.pieces):
            if number and answer.pause and self._left_within(conn, answer.pause, record):
                return False
            try:
                conn.sendall(piece)
            except OSError:
                record.client_left = time.monotonic()
                return False
        return True

    def _asked_again(self, conn: socket.socket, reset: bool) -> None:
        """Wait for the client's next bytes on ``conn``, then end it unanswered:
        an RST, or (its bytes read first, so the close is no RST) a FIN."""
        while not self._stop.is_set() and not _readable(conn, 0.05):
            pass
        if reset:
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            return
        with contextlib.suppress(OSError):
            conn.recv(65536)

    def _left_within(self, conn: socket.socket, seconds: float, record: Connection) -> bool:
        """Wait ``seconds``, watching for the client closing; ``True`` if it did
        (or the server is stopping)."""
        deadline = time.monotonic() + seconds
        while (remaining := deadline - time.monotonic()) > 0:
            if self._stop.is_set():
                return True
            if _readable(conn, min(remaining, 0.05)):
                try:
                    gone = conn.recv(65536, socket.MSG_PEEK) == b""
                except OSError:
                    gone = True
                if gone:
                    record.client_left = time.monotonic()
                    return True
                with contextlib.suppress(OSError):
                    conn.recv(65536)  # a client may send more (a pipelined request): drop it
        return False

    def _end(self, conn: socket.socket, answer: Answer, record: Connection) -> None:
        if answer.then.endswith(" when asked again"):
            self._asked_again(conn, answer.then.startswith("reset"))
            return
        if answer.then == "reset":  # closed with no lingering: an RST
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            return
        if answer.then == "close":
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_WR)
        # then wait for the client to go (hanging: as long as it takes)
        while not self._left_within(conn, 0.5, record) and answer.then == "hang":
            pass
