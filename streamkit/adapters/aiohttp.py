"""An ``aiohttp.ClientResponse`` as a source of :func:`streamkit.stream`.

``pip install 'streamkit[aiohttp]'``; streamkit's core never imports aiohttp.

>>> async with session.post(url, json=body, headers=headers) as response:
...     async with streamkit.adapters.aiohttp.stream(response) as events:
...         async for item in events: ...

:func:`aiohttp_chunks` is the whole adapter: the response's body as an async
iterator of network chunks (``iter_any``: whatever each read gave, nothing
buffered ahead), with the HTTP error handling of an httpx response: an error
status, or JSON / HTML where a stream was expected, is read up to
:data:`~streamkit.limits.MAX_ERROR_BODY_BYTES` and never further, and raised as
the :class:`~streamkit.errors.ProviderError` (or
:class:`~streamkit.errors.ProtocolError`) that
:func:`streamkit.stream.provider_error_from_body` makes of it, with the partial
response attached by the stream. aiohttp's own failures mid-body (a payload
error, a server disconnect, a read timeout) are raised as ``ConnectionError``,
which the stream reports as an :class:`~streamkit.errors.IncompleteStreamError`
with the partial response marked ``interrupted``, as for httpx. Closing the
stream early closes the connection; a body read to its end releases it to the
session's pool.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp

from ..errors import ProtocolError, StreamError
from ..limits import MAX_ERROR_BODY_BYTES
from ..stream import Stream, provider_error_from_body
from ..stream import stream as _stream

__all__ = ["aiohttp_chunks", "stream"]


def must_read_body(response: aiohttp.ClientResponse) -> bool:
    """Whether the body is an error to read whole (the rule of httpx responses in
    :mod:`streamkit.stream`): an error status, or JSON / HTML where a stream was
    expected."""
    kind = response.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    return response.status >= 400 or kind == "application/json" or kind.startswith("text/html")


async def _error(response: aiohttp.ClientResponse, limit: int) -> StreamError:
    """The error an HTTP error response stands for, its body read up to ``limit``."""
    body = bytearray()
    async for chunk in response.content.iter_any():
        body += chunk[: limit + 1 - len(body)]
        if len(body) > limit:
            break
    cut = len(body) > limit
    content_type = response.headers.get("content-type", "")
    error = provider_error_from_body(response.status, bytes(body[:limit]), content_type, cut=cut)
    if response.status >= 400 or (isinstance(error.raw, dict) and "error" in error.raw):
        return error
    return ProtocolError(
        f"expected a streamed response, got {content_type!r} (was stream=true requested?)",
        raw=bytes(body[:2000]))


async def aiohttp_chunks(response: aiohttp.ClientResponse, *,
                         max_error_bytes: int = MAX_ERROR_BODY_BYTES) -> AsyncIterator[bytes]:
    """The body of an open aiohttp response, chunk by chunk, for :func:`streamkit.stream`."""
    finished = False
    try:
        if must_read_body(response):
            raise await _error(response, max_error_bytes)
        try:
            async for chunk in response.content.iter_any():
                yield chunk
        except (TimeoutError, aiohttp.ClientError) as exc:
            if isinstance(exc, OSError):
                raise
            raise ConnectionError(f"{type(exc).__name__}: {exc}") from exc
        finished = True
    finally:
        if finished:
            response.release()  # read to the end: the connection goes back to the pool
        else:
            response.close()  # stopped early, failed or cancelled: never reuse it


def stream(response: aiohttp.ClientResponse, provider: str = "auto", **options: Any) -> Stream:
    """``streamkit.stream(aiohttp_chunks(response), provider, **options)``."""
    return _stream(aiohttp_chunks(response), provider, **options)
