"""Error payloads as data: one mapping from any provider's error object to an
:class:`~streamkit.model.events.ErrorEvent`.

Providers agree on the shape more than on the words: an ``error`` object with
a ``message``, and some of ``code`` (a string, or the HTTP status as a number),
``type`` (OpenAI, Anthropic) and ``status`` (Google's RPC status word, or a
number). Every parser and the HTTP error-body path call :func:`error_event`,
so the same payload gives the same event whoever reads it:

- ``message``: the object's ``message``; else the object as JSON. At most
  :data:`~streamkit.model.limits.MAX_ERROR_MESSAGE_CHARS` characters, so a hostile
  or runaway message cannot flood a log line or ``str(ProviderError)``; ``raw`` keeps the payload,
  which the event-size limit (``max_event_bytes``) already bounds.
- ``code``: the object's ``code`` as a string.
- ``status``: the HTTP status: a numeric ``status``, else a numeric ``code``
  between 100 and 599, else the status that goes with the error's type word
  (:data:`TYPE_STATUS`), as an in-stream error has no HTTP status of its own.
- ``error_type``: the ``type`` word, else the ``status`` word.

And back: each wire's encoder writes an error in the wire's own words for its
status (:func:`type_word`); OpenAI's two APIs share one error object
(:func:`openai_error_object`, :data:`OPENAI_ERROR_TYPES`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from ..model.events import ErrorEvent
from ..model.limits import bounded_message
from .coerce import as_int, as_str

# Error type words and the HTTP status each comes with.
TYPE_STATUS: dict[str, int] = {
    # Anthropic (docs.anthropic.com/en/api/errors)
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
    # Google RPC status words (Gemini, Vertex: cloud.google.com/apis/design/errors)
    "INVALID_ARGUMENT": 400,
    "FAILED_PRECONDITION": 400,
    "OUT_OF_RANGE": 400,
    "UNAUTHENTICATED": 401,
    "PERMISSION_DENIED": 403,
    "NOT_FOUND": 404,
    "ABORTED": 409,
    "ALREADY_EXISTS": 409,
    "RESOURCE_EXHAUSTED": 429,
    "CANCELLED": 499,
    "INTERNAL": 500,
    "UNKNOWN": 500,
    "DATA_LOSS": 500,
    "UNIMPLEMENTED": 501,
    "UNAVAILABLE": 503,
    "DEADLINE_EXCEEDED": 504,
}


def _as_text(value: Any) -> str:
    if type(value) is str:
        return value
    try:
        return msgspec.json.encode(value).decode()
    except (TypeError, ValueError, OverflowError):
        return repr(value)


def _http_status(error: dict[str, Any], error_type: str | None) -> int | None:
    status = as_int(error.get("status"))
    if status is not None:
        return status
    code = as_int(error.get("code"))
    if code is not None and 100 <= code <= 599:
        return code
    return TYPE_STATUS.get(error_type) if error_type is not None else None


def error_event(error: Any, raw: Any, *, choice: int = 0) -> ErrorEvent:
    """The uniform event for a provider's error object (the value of its ``error``
    field, or the whole payload where the provider puts the fields at the top)."""
    if type(error) is not dict:
        return ErrorEvent(message=bounded_message(_as_text(error)), raw=raw, choice=choice)
    message = error.get("message")
    code = error.get("code")
    error_type = as_str(error.get("type")) or as_str(error.get("status"))
    return ErrorEvent(
        message=bounded_message(_as_text(message if message is not None else error)),
        code=None if code is None else _as_text(code),
        error_type=error_type,
        status=_http_status(error, error_type),
        raw=raw,
        choice=choice,
    )


def type_word(status: int, error_type: str | None, words: Mapping[int, str], *,
              client_error: str, server_error: str) -> str:
    """The error type word a wire writes for an error with ``status``: the
    wire's word for the status (``words``), else the error's own word when it
    is one of the wire's, else the wire's word for any client (4xx) or server
    (5xx) error. Another wire's word is never written, so the SDK of this wire
    meets only words it knows, and they agree with the status."""
    if status in words:
        return words[status]
    if error_type is not None and error_type in words.values():
        return error_type
    return client_error if status < 500 else server_error


#: The error ``type`` word OpenAI sends with an HTTP status, on both its APIs
#: (Chat Completions, Responses); another status is an ``invalid_request_error``
#: (4xx) or a ``server_error`` (5xx). OpenAI-compatible vendors send the same words.
OPENAI_ERROR_TYPES: Mapping[int, str] = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    403: "invalid_request_error",
    404: "invalid_request_error",
    429: "requests",
    500: "server_error",
}


def openai_error_object(event: ErrorEvent, status: int) -> dict[str, Any]:
    """OpenAI's error object (an HTTP error's body, Chat's in-stream error):
    ``message``, the ``type`` word of the status, ``param`` and ``code``."""
    word = type_word(status, event.error_type, OPENAI_ERROR_TYPES,
                     client_error="invalid_request_error", server_error="server_error")
    return {"error": {"message": event.message, "type": word, "param": None,
                      "code": event.code}}
