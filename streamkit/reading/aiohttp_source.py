"""An ``aiohttp.ClientResponse`` as a source of :func:`streamkit.stream`.

``pip install 'streamkit-llm[aiohttp]'``; streamkit's core imports aiohttp only
when it is handed an aiohttp response.

>>> async with session.post(url, json=body, headers=headers) as response:
...     async with streamkit.stream(response) as events:
...         async for item in events: ...

:func:`aiohttp_chunks` is the whole source: the response's body as an async
iterator of network chunks (``iter_any``: whatever each read gave, nothing
buffered ahead), with the HTTP error handling of an httpx response: an error
status, or JSON / HTML where a stream was expected, is read up to
:data:`~streamkit.model.limits.MAX_ERROR_BODY_BYTES` and never further, and raised as
the :class:`~streamkit.model.errors.ProviderError` (or
:class:`~streamkit.model.errors.ProtocolError`) that :mod:`streamkit.reading.error_body`
makes of it, with the partial response attached by the stream. aiohttp's own
failures mid-body (a payload error, a server disconnect, a read timeout) are
raised as ``ConnectionError``, which the stream reports as an
:class:`~streamkit.model.errors.IncompleteStreamError` with the partial response
marked ``interrupted``, as for httpx. Closing the stream early closes the
connection; a body read to its end releases it to the session's pool.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp

from ..model.limits import MAX_ERROR_BODY_BYTES
from .error_body import BoundedBody, error_from_body, must_read_body

__all__ = ["aiohttp_chunks"]


async def aiohttp_chunks(response: aiohttp.ClientResponse, *,
                         max_error_bytes: int = MAX_ERROR_BODY_BYTES) -> AsyncIterator[bytes]:
    """The body of an open aiohttp response, chunk by chunk, for :func:`streamkit.stream`."""
    finished = False
    content_type = response.headers.get("content-type", "")
    try:
        if must_read_body(response.status, content_type):
            body = await BoundedBody(max_error_bytes).aread(response.content.iter_any())
            raise error_from_body(response.status, content_type, body)
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
