"""What a test gives a :class:`~streamkit.testing.ReplayServer` and what it keeps, as data.

A test registers replies (:class:`Reply`: a body and how to send it, by
``add``, in a sequence, or computed per request by a :data:`Responder`) and
reads back every request as the server received it (:class:`RecordedRequest`,
its key redacted). Each reply is checked once, when registered, into the
:class:`Route` the connection serves (:func:`route_of`), so a bad option fails
in the test that gave it, not in a connection handler; the server's own
answers (no route, a sequence used up, a responder that failed) are routes too
(:func:`error_route`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

from .recordings import load_recording

__all__ = [
    "REDACTED",
    "SECRET_HEADERS",
    "ComputedReplies",
    "RecordedRequest",
    "Reply",
    "ReplySequence",
    "Responder",
    "Route",
    "RouteOptions",
    "Serving",
    "error_route",
    "not_found",
    "recorded_request",
    "route_of",
    "split_target",
]


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
class Route:
    """A reply checked and made ready to serve (:func:`route_of`)."""

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
class ReplySequence:
    """Replies served in order on one path; past the last, an error that says so."""

    routes: list[Route]
    served: int = 0

    def next_route(self, path: str) -> Route:
        if self.served >= len(self.routes):
            message = (f"ReplayServer served all {len(self.routes)} replies of the sequence "
                       f"for {path} already")
            return error_route(410, message, "sequence_exhausted")
        self.served += 1
        return self.routes[self.served - 1]


Responder = Callable[[RecordedRequest], Reply]
"""A reply computed for each request from what it sent (:meth:`ReplayServer.add_responder`)."""


@dataclass(frozen=True)
class ComputedReplies:
    """A path whose every reply a :data:`Responder` computes."""

    respond: Responder


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



def route_of(reply: Reply) -> Route:
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
    return Route(
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


def error_route(status: int, message: str, kind: str) -> Route:
    """A JSON error body in the OpenAI shape the server answers its own errors with."""
    body = json.dumps({"error": {"message": message, "type": kind}}).encode()
    return Route(
        body=body,
        status=status,
        content_type="application/json",
        headers=(("Content-Type", "application/json"),),
        chunk_size=None,
        delay=0.0,
        cut_after=None,
    )


def not_found(method: str, target: str) -> Route:
    """The 404 of a request no route answers."""
    message = f"ReplayServer has no route for {method} {target}"
    return error_route(404, message, "not_found")


def split_target(target: str) -> tuple[str, str]:
    """The path and the query string of a request target."""
    path, _, query = target.partition("?")
    return path, query


def recorded_request(method: bytes, target: str, raw_headers: Iterable[tuple[bytes, bytes]],
                     body: bytes) -> RecordedRequest:
    """A request as the server keeps it: header names lower-cased (as h11 gives
    them), repeated headers joined, a secret header's value redacted."""
    path, query = split_target(target)
    headers: dict[str, str] = {}
    for raw_name, raw_value in raw_headers:
        name, value = raw_name.decode("latin-1"), raw_value.decode("latin-1")
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    secrets = {name: value for name, value in headers.items() if name in SECRET_HEADERS}
    headers.update(dict.fromkeys(secrets, REDACTED))
    return RecordedRequest(method=method.decode("latin-1"), path=path, headers=headers,
                           body=body, query=query, secret_headers=secrets)
