"""One call from a model call to the browser: ``await ui_message_response(client.stream(...))``.

The HTTP status of a response goes out with its first byte, so what an error
becomes depends on when it happens:

- before anything was sent (the provider refused the request: a 401, a 429, a
  connection that never answered, or an error event before the first block),
  the browser gets an HTTP error response: the provider's own status (502
  when it had none, 504 when it timed out) and the error message as plain
  text, the body the AI SDK's ``DefaultChatTransport`` shows as the chat's
  error;
- after the first block, the stream is already a 200: the error becomes the
  UI message stream's ``error`` chunk, after every part received before it
  (see :func:`~streamkit.web.ui_message_stream`).

:func:`open_ui_message_stream` decides which without any web framework (a
:class:`UIMessageReply`: status, headers, body); :func:`ui_message_response`
wraps it as a Starlette / FastAPI response (the ``web`` extra).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import anyio

from ..model.errors import IncompleteStreamError, ProviderError, StreamError
from ..model.events import BlockStart
from ..model.response import ChatResponse
from ..reading.stream import aclose_source
from .encoder import UIMessageStreamEncoder
from .stream import UI_MESSAGE_STREAM_HEADERS, encoded_frames

if TYPE_CHECKING:
    from starlette.responses import Response

__all__ = ["UIMessageReply", "error_status", "open_ui_message_stream", "ui_message_response"]

#: Headers of a provider's error passed on to the browser (when to try again).
_PASSED_ON = ("retry-after", "retry-after-ms")


@dataclass(frozen=True)
class UIMessageReply:
    """What to answer the browser with: ``status`` and ``headers`` to send, then
    every chunk of ``body``. ``error`` is the failure that made it an HTTP
    error (``None`` for a stream)."""

    status: int
    headers: Mapping[str, str]
    body: AsyncIterator[bytes]
    error: StreamError | None = None


def error_status(error: StreamError) -> int:
    """The HTTP status to answer with for an error before the first byte: the
    provider's own (4xx / 5xx), else 504 for a timeout and 502 for anything
    else the upstream did wrong (a broken connection, an error event, bytes
    that are not its protocol, a limit)."""
    status = error.status if isinstance(error, ProviderError) else None
    if status is not None and 400 <= status <= 599:
        return status
    if isinstance(error, IncompleteStreamError) and "timeout" in str(error).lower():
        return 504
    return 502


async def open_ui_message_stream(
    source: Any,
    *,
    error_text: Callable[[str], str] | None = None,
    message_id: str | None = None,
    stream_audio: bool = False,
    pcm_as_wav: bool = True,
) -> UIMessageReply:
    """Open ``source`` and read it up to its first block: an HTTP error reply if
    it fails before, else a 200 whose body is the whole UI message stream.

    ``source`` is what ``client.stream(messages, ...)`` returns (an async
    context manager giving a :class:`~streamkit.Stream`, entered here and left
    when the body ends), or a stream itself. Nothing the browser sees is held
    back: the frames read before the first block (``start`` and the like) go
    out first in the body. Keyword options are those of
    :class:`~streamkit.web.UIMessageStreamEncoder`; ``error_text`` masks the
    message of an HTTP error too.
    """
    exits = contextlib.AsyncExitStack()
    encoder = UIMessageStreamEncoder(message_id=message_id, error_text=error_text,
                                     stream_audio=stream_audio, pcm_as_wav=pcm_as_wav)
    held: list[bytes] = []
    try:
        events = await _enter(exits, source)
        items = events.__aiter__()
        while True:
            item = await items.__anext__()
            held.append(encoder.encode(item))
            if isinstance(item, BlockStart | ChatResponse):
                break
    except StreamError as error:
        await _close(exits)
        return _error_reply(error, error_text)
    except StopAsyncIteration:  # a stream that ended without its final response
        held.append(encoder.end_step())
    except BaseException:
        await _close(exits)
        raise
    return UIMessageReply(200, UI_MESSAGE_STREAM_HEADERS,
                          _rest(encoder, items, b"".join(held), exits))


async def ui_message_response(source: Any, **options: Any) -> Response:
    """:func:`open_ui_message_stream` as a Starlette (FastAPI) response: return it
    from an endpoint. An error before the first byte is a plain-text response
    with the error's status; after it, the stream's ``error`` chunk."""
    from starlette.responses import Response, StreamingResponse

    reply = await open_ui_message_stream(source, **options)
    if reply.error is not None:
        message = b"".join([chunk async for chunk in reply.body])
        return Response(message, status_code=reply.status, headers=dict(reply.headers))
    return StreamingResponse(reply.body, status_code=reply.status, headers=dict(reply.headers))


async def _enter(exits: contextlib.AsyncExitStack, source: Any) -> Any:
    """The stream ``source`` gives: entered when it is a context manager that
    is not itself the stream, and closed with ``exits`` either way."""
    if hasattr(source, "__aiter__"):
        exits.push_async_callback(aclose_source, source)
        return source
    return await exits.enter_async_context(source)


async def _close(exits: contextlib.AsyncExitStack) -> None:
    with anyio.CancelScope(shield=True):
        await exits.aclose()


async def _rest(encoder: UIMessageStreamEncoder, items: AsyncIterator[Any], first: bytes,
                exits: contextlib.AsyncExitStack) -> AsyncIterator[bytes]:
    """The body after the first block: what was held, then every frame; an
    error is the stream's ``error`` chunk. The source is closed however the
    body ends (drained, failed, or the browser gone)."""
    try:
        if first:
            yield first
        if encoder.finished:
            return
        async with contextlib.aclosing(encoded_frames(encoder, items)) as item_frames:
            async for frames in item_frames:
                yield frames
        tail = encoder.finish()  # nothing when an error chunk finished the message
        if tail:
            yield tail
    finally:
        await _close(exits)


def _error_reply(error: StreamError, error_text: Callable[[str], str] | None) -> UIMessageReply:
    """A plain-text HTTP error: the status for the error, its message (masked by
    ``error_text``) and the provider's ``Retry-After``."""
    message = error.message or str(error) or type(error).__name__
    if error_text is not None:
        message = error_text(message) or "error"
    headers = {"content-type": "text/plain; charset=utf-8", "cache-control": "no-cache"}
    if isinstance(error, ProviderError):
        headers.update({name: error.headers[name] for name in _PASSED_ON
                        if name in error.headers})
    return UIMessageReply(error_status(error), MappingProxyType(headers),
                          _once(message.encode("utf-8", "replace")), error)


async def _once(body: bytes) -> AsyncIterator[bytes]:
    yield body
