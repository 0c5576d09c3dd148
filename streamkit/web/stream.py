"""Any streamkit stream -> the bytes of an AI SDK UI message stream, for an ASGI response.

``ui_message_stream(stream)`` is the one line a Starlette / FastAPI endpoint
needs::

    return StreamingResponse(ui_message_stream(events), headers=UI_MESSAGE_STREAM_HEADERS)

It depends on no web framework: it is an async iterator of ``bytes``.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Callable, Mapping
from types import MappingProxyType
from typing import Any

import anyio

from ..model.errors import StreamError
from ..model.events import Event
from ..model.response import ChatResponse
from ..reading.stream import aclose_source
from .encoder import UIMessageStreamEncoder

__all__ = ["UI_MESSAGE_STREAM_HEADERS", "ui_message_stream"]

#: The response headers of a UI message stream. The AI SDK's clients check
#: ``x-vercel-ai-ui-message-stream``; ``x-accel-buffering`` keeps nginx from
#: holding frames back. Read-only: copy it (``dict(...)``) to add your own.
UI_MESSAGE_STREAM_HEADERS: Mapping[str, str] = MappingProxyType({
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "x-vercel-ai-ui-message-stream": "v1",
    "x-accel-buffering": "no",
})


async def ui_message_stream(
    *streams: AsyncIterable[Event | ChatResponse],
    message_id: str | None = None,
    error_text: Callable[[str], str] | None = None,
    stream_audio: bool = False,
    pcm_as_wav: bool = True,
    output: type[Any] | None = None,
    output_interval: float | None = 0.05,
) -> AsyncIterator[bytes]:
    """The UI message stream of one assistant message, as bytes to send.

    Each stream (a :class:`~streamkit.reading.stream.Stream`, or any async iterable of
    events ending in the final response) is one step of the message: a model
    call of an agent loop, say. A :class:`~streamkit.model.errors.StreamError` ends
    the message with an ``error`` chunk, keeping every part received before it;
    the streams are closed whatever happens, at once when the client goes away
    (the server cancels or closes this iterator). ``output=Model`` also sends
    the structured answer as it streams, as a ``data-output`` part the client
    updates in place (:mod:`streamkit.web.output`). Keyword options are those
    of :class:`~streamkit.web.UIMessageStreamEncoder`.
    """
    encoder = UIMessageStreamEncoder(steps=max(len(streams), 1), message_id=message_id,
                                     error_text=error_text, stream_audio=stream_audio,
                                     pcm_as_wav=pcm_as_wav, output=output,
                                     output_interval=output_interval)
    try:
        for source in streams:
            async with contextlib.aclosing(encoded_frames(encoder, source)) as source_frames:
                async for frames in source_frames:
                    yield frames
            if encoder.finished:  # the source failed: its error chunk ended the message
                return
            tail = encoder.end_step()  # a source that ended without its final response
            if tail:
                yield tail
        tail = encoder.finish()
        if tail:
            yield tail
    finally:
        with anyio.CancelScope(shield=True):
            for source in streams:
                await aclose_source(source)


async def encoded_frames(encoder: UIMessageStreamEncoder,
                         items: AsyncIterable[Event | ChatResponse]) -> AsyncGenerator[bytes, None]:
    """The frames of every item; a :class:`~streamkit.model.errors.StreamError`
    the items raise becomes the message's ``error`` chunk, which finishes it
    (``encoder.finished``): what came before it is kept, nothing comes after.
    A caller that may stop early closes it (``contextlib.aclosing``)."""
    try:
        async for item in items:
            frames = encoder.encode(item)
            if frames:
                yield frames
    except StreamError as exc:
        yield encoder.encode_error(exc)
