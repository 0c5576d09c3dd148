"""The error hierarchy: one base, and every stream failure carries what was received.

Everything streamkit raises on purpose is a :class:`StreamkitError`, so
``except streamkit.StreamkitError`` catches the library's errors and nothing
else::

    StreamkitError
    ├── StreamError                 a stream failed; .partial is what came
    │   ├── ProviderError           the provider said so (status, code, body)
    │   ├── ProtocolError           the bytes broke the wire format
    │   │   └── InvalidBase64Error
    │   ├── IncompleteStreamError   the transport broke
    │   │   └── NoResponseError     ... before any response came
    │   └── LimitExceeded
    ├── ToolServerError             a tool server (MCP) failed: no answer in time, gone
    └── the ValueError / TypeError kin: a bad value you passed or asked about
        ├── UnsupportedFeatureError a wire format cannot express what you asked
        ├── InvalidBodyError        a request or response body is not its wire's shape
        ├── InvalidMessageError     a conversation holds what is no message (an unawaited call)
        ├── ProviderConfigError     a client cannot be made as asked (streamkit.model.vendors)
        ├── ToolArgumentsError, ToolDefinitionError, StructuredOutputError,
        │   StrictSchemaError (streamkit.conversation.strict)
        ├── PartialJSONError (streamkit.model.partial_json)
        └── BlockConflictError, MediaTypeError, DeltaMismatchError (streamkit.model.merge)

    LossyTranslationWarning (a UserWarning): a conversation crossed to a wire
    that cannot hold part of it, and that part was dropped

Each stream error is a :class:`StreamError` with a ``partial`` attribute, the
:class:`~streamkit.model.response.ChatResponse` accumulated so far. Layers that do not
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
import contextlib
import contextvars
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Self

from .limits import bounded_message

__all__ = [
    "BlockConflictError",
    "IncompleteStreamError",
    "InvalidBase64Error",
    "InvalidBodyError",
    "InvalidMessageError",
    "LimitExceeded",
    "LossyTranslationWarning",
    "MediaTypeError",
    "NoResponseError",
    "ProtocolError",
    "ProviderConfigError",
    "ProviderError",
    "StreamError",
    "StreamkitError",
    "StructuredOutputError",
    "ToolArgumentsError",
    "ToolDefinitionError",
    "ToolServerError",
    "UnsupportedFeatureError",
    "collecting_losses",
    "warn_lossy",
]

if TYPE_CHECKING:
    from .events import ErrorEvent, Event
    from .response import ChatResponse


class StreamkitError(Exception):
    """Base class of every error streamkit raises on purpose."""

    fallback_errors: tuple[StreamkitError, ...] = ()
    """The errors of the models a client with fallbacks tried before the one
    that raised this, in the order they were tried (each also named in this
    error's ``__notes__``); empty otherwise."""


class StreamError(StreamkitError):
    """A stream failed; ``partial`` is the response so far."""

    def __init__(self, message: str, *, partial: ChatResponse | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.partial = partial

    events: tuple[Event, ...] = ()
    """The events already applied to ``partial`` that the call which raised could
    not hand back: those a :class:`~streamkit.reading.pipeline.Pipeline` call applied
    before the error, every event of a :func:`streamkit.replay`. A stream yields
    them before it raises, so its errors carry none: a UI that builds its state
    from events always agrees with ``partial``."""


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

    @classmethod
    def from_event(cls, event: ErrorEvent, *, status: int | None = None, note: str = "",
                   partial: ChatResponse | None = None) -> Self:
        """The error an :class:`~streamkit.model.events.ErrorEvent` stands for: its
        message, code and type, each bounded so that ``str(error)`` stays short
        whatever the provider sent, and its raw payload. ``status`` (the HTTP
        status of the response that carried it) replaces the event's own;
        ``note`` is added to the message (why it may be incomplete)."""
        return cls(
            bounded_message(event.message) + note,
            status=status if status is not None else event.status,
            code=None if event.code is None else bounded_message(event.code),
            error_type=None if event.error_type is None else bounded_message(event.error_type),
            raw=event.raw,
            partial=partial,
        )

    def __str__(self) -> str:
        parts = [self.message]
        if self.status is not None:
            parts.append(f"status={self.status}")
        if self.code is not None:
            parts.append(f"code={self.code}")
        if self.error_type is not None:
            parts.append(f"type={self.error_type}")
        return " ".join(parts) if len(parts) == 1 else f"{parts[0]} ({', '.join(parts[1:])})"

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


class NoResponseError(IncompleteStreamError):
    """The request never got an answer: the connection was refused or failed,
    the name did not resolve, or every attempt timed out before the response
    headers. Nothing was received (``partial`` is empty); the httpx error is the
    ``__cause__``. An :class:`IncompleteStreamError`, so code that catches a
    broken transport catches this too."""


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


class ToolServerError(StreamkitError):
    """A tool server (an MCP server of :class:`~streamkit.McpWorkbench`) could
    not answer a call: it gave no result within the workbench's timeout, it
    could not be started or reached, or it went away (a process that exited
    mid-call, a connection that closed). Not a tool's own failure, which is an
    ``is_error`` result the model reads; this one stops the loop, and the
    conversation is as it was before the call.

    ``server`` names the server without its secrets (the command, or the URL
    without credentials or query; never an environment value or a header),
    ``tool`` the tool being called (``None`` outside a call), ``timed_out``
    whether the time ran out."""

    def __init__(self, message: str, *, server: str, tool: str | None = None,
                 timed_out: bool = False) -> None:
        super().__init__(message)
        self.server = server
        self.tool = tool
        self.timed_out = timed_out


class UnsupportedFeatureError(StreamkitError, ValueError):
    """A wire format cannot express what was asked of it: a request builder was
    given content, a tool or an option the target API has no place for (audio
    for Anthropic, a chained Responses request for any other wire...).

    ``wire`` names the wire format (``anthropic``), ``feature`` what it cannot
    take, ``hint`` what to do instead (empty when there is nothing to suggest).
    A ``ValueError``, as the builders' refusals always were."""

    def __init__(self, wire: str, feature: str, hint: str = "") -> None:
        message = f"{wire} cannot take {feature}" + (f": {hint}" if hint else "")
        super().__init__(message)
        self.wire = wire
        self.feature = feature
        self.hint = hint


class LossyTranslationWarning(UserWarning):
    """A request builder dropped content the target wire format cannot hold
    (another API's server-side search and its results, an option only another
    wire knows, audio where the target takes none...). The message names the
    wire, what was dropped and why. Bookkeeping that means nothing elsewhere
    (another wire's ids and signatures) is dropped silently; content never is.

    A ``UserWarning``, so Python's warnings filter decides: make it an error
    with ``warnings.simplefilter("error", streamkit.LossyTranslationWarning)``
    to refuse any lossy translation."""


#: Where :func:`warn_lossy` puts a loss instead of issuing a warning, while a
#: :func:`collecting_losses` block runs (per task, as context variables are).
_COLLECTED: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "streamkit_collected_losses", default=None)


def warn_lossy(wire: str, dropped: str, why: str) -> None:
    """Issue a :class:`LossyTranslationWarning`: ``wire`` dropped ``dropped``
    because ``why``; shown at the caller of ``build_request`` (or ``Client``).
    Inside :func:`collecting_losses`, the message is kept in its list instead."""
    message = f"{wire} cannot hold {dropped}: {why}; dropped"
    collected = _COLLECTED.get()
    if collected is not None:
        collected.append(message)
        return
    import warnings

    warnings.warn(message, LossyTranslationWarning, stacklevel=_caller_level())


@contextlib.contextmanager
def collecting_losses() -> Iterator[list[str]]:
    """Within the block, each translation loss is appended to the list it
    gives (the :class:`LossyTranslationWarning`'s message) instead of being
    issued: for a server answering many calls at once (the gateway writes each
    call's losses in that call's log line), which Python's process-wide
    warnings machinery cannot keep apart, and whose "default" filter would
    show a repeated loss once per process. The block's task and the tasks it
    starts share the list (a context variable)."""
    collected: list[str] = []
    token = _COLLECTED.set(collected)
    try:
        yield collected
    finally:
        _COLLECTED.reset(token)


def _caller_level() -> int:
    """The stack level of the first frame outside streamkit, so a warning
    points at the user's call, however deep the builder that issues it."""
    import sys

    frame, level = sys._getframe(2), 2
    while frame is not None and frame.f_globals.get("__name__", "").startswith("streamkit."):
        frame, level = frame.f_back, level + 1  # type: ignore[assignment]
    return level


class InvalidBodyError(StreamkitError, ValueError):
    """A request or response body is not the shape its wire format documents
    (:func:`streamkit.parse_request`, :func:`streamkit.parse_response`).

    ``wire`` names the wire format and ``where`` the place in the body
    (``messages[2].role``) when known. A ``ValueError``."""

    def __init__(self, message: str, *, wire: str, where: str | None = None) -> None:
        super().__init__(message)
        self.wire = wire
        self.where = where


class ProviderConfigError(StreamkitError, ValueError):
    """A client cannot be made as asked: an unknown provider, a key or a setting
    that is missing. Raised when the client is created, before any request;
    ``missing`` names the environment variables that would fix it,
    ``setting`` the client argument that would (``api_key``, ``base_url``)
    and ``provider`` the registry name of the provider it is about, so a
    caller whose settings live elsewhere (the gateway's config file) can say
    what to set in its own words. The message never holds a key."""

    def __init__(self, message: str, *, missing: tuple[str, ...] = (),
                 setting: str | None = None, provider: str | None = None) -> None:
        super().__init__(message)
        self.missing = missing
        self.setting = setting
        self.provider = provider


class BlockConflictError(StreamkitError, ValueError):
    """A block id was reused for a block of another kind or media type."""


class MediaTypeError(StreamkitError, ValueError):
    """A data block's media type does not say what an operation needs:
    :meth:`~streamkit.model.blocks.DataBlock.to_wav` on a block that is not PCM audio,
    or whose ``rate`` / ``channels`` parameter is not a positive whole number
    (``audio/pcm;rate=0``). The message names the block and its media type."""


class ToolArgumentsError(StreamkitError, ValueError):
    """A tool call's argument text is not valid JSON, or breaks a limit of
    :mod:`streamkit.model.limits` (nested deeper than ``MAX_JSON_DEPTH``, an integer
    longer than Python converts); names the tool and the offset.

    Not a :class:`StreamError`: it is raised by
    :meth:`~streamkit.model.blocks.ToolCallBlock.arguments`, which you call after the
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


class InvalidMessageError(StreamkitError, TypeError):
    """A conversation holds something that is not a message, or a tool result
    message something that is not a result. Raised when the
    :class:`~streamkit.Request` or the message is made, naming the place and
    what is there, instead of failing in a wire's builder. A coroutine there
    is an async call not awaited (``tool.run_call(call)`` in sync code): the
    message says to await it, or to call its ``_sync`` twin."""


class ToolDefinitionError(StreamkitError, TypeError):
    """A function cannot become a tool: a parameter has no JSON form (``*args``,
    no annotation, a ``Callable``...) or the name is not one every provider
    accepts. Raised when the tool is defined, naming the parameter. Also a
    workbench given where its tools cannot be listed (sans-IO
    :func:`~streamkit.build_request`, the :class:`~streamkit.SyncClient`)."""


class StructuredOutputError(StreamkitError, ValueError):
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
