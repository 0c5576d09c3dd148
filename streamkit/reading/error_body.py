"""An HTTP error response as a typed error: one reader for the client, the stream and aiohttp.

A response whose body is not the stream that was asked for (an error status,
or JSON / HTML where events were expected: :func:`must_read_body`) is read up
to a limit (:data:`~streamkit.model.limits.MAX_ERROR_BODY_BYTES`, 1 MiB) and never
further, by a :class:`BoundedBody`; :func:`error_from_body` then makes the
error it stands for by the same rule as an error inside a stream
(:func:`~streamkit.providers.error_payloads.error_event` and
:meth:`~streamkit.model.errors.ProviderError.from_event`): the provider's message (at
most 4,096 characters), code and type, also from a JSON body cut at the limit.

:class:`BoundedBody` is sans-IO (it is fed chunks); its :meth:`~BoundedBody.read`
and :meth:`~BoundedBody.aread` are the two loops that feed it from a sync or
an async iterator of chunks, whatever the HTTP client.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterable, Iterable
from typing import Any

from ..model.errors import ProtocolError, ProviderError, StreamError
from ..model.limits import bounded_message
from ..model.partial_json import PartialJSON, PartialJSONError
from ..providers.base import decode_json
from ..providers.error_payloads import error_event

__all__ = ["BoundedBody", "error_from_body", "must_read_body", "provider_error_from_body"]

#: How much of an error body cut at the size limit is read leniently for the
#: provider's message and type (they come first; a slow pure-Python read of a
#: whole MiB of hostile tokens would cost seconds).
_LENIENT_ERROR_PREFIX = 64 * 1024

#: How much of a body that is not JSON an error keeps as its ``raw`` / message.
_TEXT_PREFIX = 2000


def must_read_body(status: int, content_type: str) -> bool:
    """Whether a response must be read whole as an error body rather than as a
    stream: an error status, or JSON / HTML where a stream was expected."""
    kind = content_type.split(";", 1)[0].strip().lower()
    return status >= 400 or kind == "application/json" or kind.startswith("text/html")


class BoundedBody:
    """A body read up to ``limit`` bytes and never further: it keeps at most one
    byte past the limit, to know that the body was longer (``over_limit``)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._data = bytearray()

    def feed(self, chunk: bytes) -> bool:
        """Keep what fits of ``chunk``; ``True`` once past the limit (stop reading)."""
        self._data += chunk[: self.limit + 1 - len(self._data)]
        return len(self._data) > self.limit

    @property
    def over_limit(self) -> bool:
        """Whether the body went on past the limit (what was kept is cut)."""
        return len(self._data) > self.limit

    @property
    def data(self) -> bytes:
        """What was read, at most ``limit`` bytes (one copy: no slice of a slice)."""
        with memoryview(self._data) as read:
            return bytes(read[: self.limit])

    def read(self, chunks: Iterable[bytes]) -> BoundedBody:
        """Feed ``chunks`` until they end or the limit is passed."""
        for chunk in chunks:
            if self.feed(chunk):
                break
        return self

    async def aread(self, chunks: AsyncIterable[bytes]) -> BoundedBody:
        """:meth:`read` for an async iterator of chunks."""
        async for chunk in chunks:
            if self.feed(chunk):
                break
        return self


def _decode_error_body(body: bytes, cut: bool) -> Any:
    """The JSON of an error body, or ``None``. A body cut at the size limit is
    read leniently: the incremental parser's view of its first 64 KiB, so the
    provider's message and type, which come first, survive."""
    try:
        return decode_json(body)
    except StreamError:
        if not cut:
            return None
    parser = PartialJSON()
    with contextlib.suppress(PartialJSONError):  # what came before a bad character stays
        parser.feed(body[:_LENIENT_ERROR_PREFIX].decode("utf-8", "replace"))
    return parser.value


def provider_error_from_body(status: int | None, body: bytes, content_type: str, *,
                             cut: bool = False) -> ProviderError:
    """A :class:`ProviderError` from an HTTP error body, by the rule of in-stream
    errors; ``cut`` says the body was cut at the read limit. ``raw`` is the
    decoded JSON (the partial view of a cut body) or the bytes."""
    payload = _decode_error_body(body, cut)
    if isinstance(payload, list) and payload and isinstance(payload[0], dict):
        payload = payload[0]  # Gemini wraps errors of non-SSE calls in an array
    if isinstance(payload, dict):
        event = error_event(payload.get("error", payload), raw=payload)
        http_status = status if status is not None and status >= 400 else None
        note = f" (error body cut at {len(body)} bytes)" if cut else ""
        return ProviderError.from_event(event, status=http_status or event.status or status,
                                        note=note)
    text = bounded_message(body[:_TEXT_PREFIX].decode("utf-8", "replace"))
    return ProviderError(f"HTTP {status}: {text or content_type or 'no body'}", status=status,
                         raw=body)


def error_from_body(status: int, content_type: str, body: BoundedBody) -> StreamError:
    """The error a response that :func:`must_read_body` stands for, its body read:
    a :class:`ProviderError` for an error status or a body holding an error,
    else a :class:`ProtocolError` (a JSON or HTML answer where a stream was asked for)."""
    data = body.data
    error = provider_error_from_body(status, data, content_type, cut=body.over_limit)
    if status >= 400 or (isinstance(error.raw, dict) and "error" in error.raw):
        return error
    return ProtocolError(
        f"expected a streamed response, got {content_type!r} (was stream=true requested?)",
        raw=data[:_TEXT_PREFIX],
    )
