"""The error hierarchy: every failure carries what was received before it.

Each error is a :class:`StreamError` with a ``partial`` attribute, the
:class:`~streamkit.response.ChatResponse` accumulated so far. Layers that do not
know the response (the framing decoders, the provider parsers) raise with
``partial=None``; the stream layer fills it in before the error reaches the user,
so nothing already received is ever lost.
"""

from __future__ import annotations

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


class ToolArgumentsError(ValueError):
    """A tool call's argument text is not valid JSON (names the tool and offset)."""

    def __init__(self, message: str, *, tool: str, offset: int, text: str) -> None:
        super().__init__(message)
        self.tool = tool
        self.offset = offset
        self.text = text
