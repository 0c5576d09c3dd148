"""The error hierarchy: every failure carries what was received before it.

Each error is a :class:`StreamError` with a ``partial`` attribute, the
:class:`~streamkit.response.ChatResponse` accumulated so far. Layers that do not
know the response (the framing decoders, the provider parsers) raise with
``partial=None``; the stream layer (and :func:`streamkit.replay`) fills it in
before the error reaches the user, so nothing already received is ever lost.
Whatever the bytes, a stream raises nothing but a :class:`StreamError`.

The errors of the data model are ``ValueError`` s, as Python's own are for a bad
value: a reused block id (:class:`BlockConflictError`), a media type that does
not say what an operation needs (:class:`MediaTypeError`), tool arguments that
are not JSON (:class:`ToolArgumentsError`). They are raised when you ask for
something after the stream, never by the stream itself.
"""

from __future__ import annotations

import binascii
from collections.abc import Mapping  # ProviderError.headers (client, issue 12)
from types import MappingProxyType  # ProviderError.headers (client, issue 12)
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .response import ChatResponse


class StreamError(Exception):
    """Base class of every streamkit error; ``partial`` is the response so far."""

    def __init__(self, message: str, *, partial: ChatResponse | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.partial = partial


class ProviderError(StreamError):
    """The provider said something went wrong (HTTP status, error payload or event).

    ``status`` is the HTTP status when known, ``code`` / ``error_type`` the
    provider's own error code and type, ``raw`` the undecoded error payload.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        error_type: str | None = None,
        raw: Any = None,
        partial: ChatResponse | None = None,
    ) -> None:
        super().__init__(message, partial=partial)
        self.status = status
        self.code = code
        self.error_type = error_type
        self.raw = raw

    def __str__(self) -> str:
        parts = [self.message]
        if self.status is not None:
            parts.append(f"status={self.status}")
        if self.code is not None:
            parts.append(f"code={self.code}")
        if self.error_type is not None:
            parts.append(f"type={self.error_type}")
        return " ".join(parts) if len(parts) == 1 else f"{parts[0]} ({', '.join(parts[1:])})"

    # -- added for the client (issue 12): the response headers a caller acts on.
    headers: Mapping[str, str] = MappingProxyType({})
    """The HTTP response headers the client keeps for the caller (lower-cased
    names): ``retry-after``, ``retry-after-ms``, the request id; empty for an
    error that came inside a stream."""

    @property
    def request_id(self) -> str | None:
        """The provider's id for the failed request (``x-request-id``, Anthropic's
        ``request-id``), to quote to its support."""
        return self.headers.get("x-request-id") or self.headers.get("request-id")

    @property
    def retry_after(self) -> str | None:
        """The provider's ``Retry-After`` header as sent (seconds or an HTTP date)."""
        return self.headers.get("retry-after")


class ProtocolError(StreamError):
    """The bytes or payloads broke the wire format: bad framing or invalid JSON.

    ``event`` names the SSE event (or payload number) that was bad and
    ``offset`` the byte offset within the stream or payload, when known.
    """

    def __init__(
        self,
        message: str,
        *,
        event: str | None = None,
        offset: int | None = None,
        raw: bytes | str | None = None,
        partial: ChatResponse | None = None,
    ) -> None:
        super().__init__(message, partial=partial)
        self.event = event
        self.offset = offset
        self.raw = raw


class InvalidBase64Error(ProtocolError, binascii.Error):
    """Base64 text for a data block that does not decode (bad padding, a
    character outside the alphabet, non-ASCII text).

    A :class:`ProtocolError` (the payload broke the format: a stream ends with it
    and its partial), and also the ``binascii.Error`` (a ``ValueError``) that
    :func:`base64.b64decode` raises, so code that decodes by hand catches both
    the same way.
    """


class IncompleteStreamError(StreamError):
    """The transport broke mid-stream; the partial response is marked interrupted."""


class LimitExceeded(StreamError):
    """An event or the whole stream grew past a configured limit.

    ``limit`` is the name of the limit (e.g. ``"max_event_bytes"``), ``value``
    its configured size and ``observed`` what the stream reached.
    """

    def __init__(
        self,
        message: str,
        *,
        limit: str,
        value: int,
        observed: int,
        partial: ChatResponse | None = None,
    ) -> None:
        super().__init__(message, partial=partial)
        self.limit = limit
        self.value = value
        self.observed = observed


class BlockConflictError(ValueError):
    """A block id was reused for a block of another kind or media type."""


class MediaTypeError(ValueError):
    """A data block's media type does not say what an operation needs:
    :meth:`~streamkit.blocks.DataBlock.to_wav` on a block that is not PCM audio,
    or whose ``rate`` / ``channels`` parameter is not a positive whole number
    (``audio/pcm;rate=0``). The message names the block and its media type."""


class ToolArgumentsError(ValueError):
    """A tool call's argument text is not valid JSON, or breaks a limit of
    :mod:`streamkit.limits` (nested deeper than ``MAX_JSON_DEPTH``, an integer
    longer than Python converts); names the tool and the offset.

    Not a :class:`StreamError`: it is raised by
    :meth:`~streamkit.blocks.ToolCallBlock.arguments`, which you call after the
    stream, never by the stream (a stream marks cut-off arguments
    ``incomplete`` instead). There is no partial response to carry (the block
    keeps its raw ``input``), and as a ``ValueError`` it is caught by the same
    ``except ValueError`` as the pydantic ``ValidationError`` of
    ``arguments(Model)``: both mean "these arguments cannot be used; tell the
    model".
    """

    def __init__(self, message: str, *, tool: str, offset: int, text: str) -> None:
        super().__init__(message)
        self.tool = tool
        self.offset = offset
        self.text = text


class ToolDefinitionError(TypeError):
    """A function cannot become a tool: a parameter has no JSON form (``*args``,
    no annotation, a ``Callable``...) or the name is not one every provider
    accepts. Raised when the tool is defined, naming the parameter."""


class StructuredOutputError(ValueError):
    """A response does not hold the structured output asked for.

    ``model`` is the pydantic model it was validated against, ``text`` the JSON
    text that failed (``None`` when the response had none to offer),
    ``errors`` pydantic's error list (empty when the text was not even JSON or
    was missing), ``response`` the response itself. The pydantic
    ``ValidationError`` is the ``__cause__``. ``partial_output`` is the last
    partial value shown while the answer streamed (``partial_output()``,
    ``parse(Model, partial=True)``), ``None`` otherwise.
    """

    def __init__(self, message: str, *, model: type[Any], text: str | None,
                 response: ChatResponse, errors: list[Any] | None = None,
                 partial_output: Any = None) -> None:
        super().__init__(message)
        self.model = model
        self.text = text
        self.response = response
        self.errors = errors if errors is not None else []
        self.partial_output = partial_output
