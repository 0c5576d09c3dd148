"""streamkit for the browser: any provider's stream as the Vercel AI SDK UI message stream.

- :class:`UIMessageStreamEncoder`: sans-IO, ``encode(item) -> bytes`` for each
  event of a stream and then its final response;
- :func:`ui_message_stream`: a stream (or several, one step each) -> an async
  iterator of the bytes to send, with :data:`UI_MESSAGE_STREAM_HEADERS`;
- :func:`ui_message_response`: ``await ui_message_response(client.stream(...))``
  in a Starlette / FastAPI endpoint, an upstream error before the first byte
  answered as an HTTP error with its status (:func:`open_ui_message_stream`
  is the same without a web framework);
- :mod:`streamkit.web.demo`: the demo page (``python -m streamkit web``), which
  needs the ``web`` extra (starlette, uvicorn).

The encoder and the stream need no web framework.
"""

from .encoder import DONE_FRAME, UIMessageStreamEncoder, encode_frame, finish_reason_for_ui
from .response import (
    UIMessageReply,
    error_status,
    open_ui_message_stream,
    ui_message_response,
)
from .stream import UI_MESSAGE_STREAM_HEADERS, ui_message_stream

__all__ = [
    "DONE_FRAME",
    "UI_MESSAGE_STREAM_HEADERS",
    "UIMessageReply",
    "UIMessageStreamEncoder",
    "encode_frame",
    "error_status",
    "finish_reason_for_ui",
    "open_ui_message_stream",
    "ui_message_response",
    "ui_message_stream",
]
