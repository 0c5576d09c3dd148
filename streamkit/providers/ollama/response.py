"""Ollama's non-streamed ``/api/chat`` (and ``/api/generate``) response.

With ``"stream": false`` Ollama answers with ONE object: the stream's last
line, ``done: true`` with the counters, carrying the whole ``message`` (or the
whole ``response`` / ``thinking`` of ``/api/generate``) instead of the last
fragment. That is exactly one NDJSON line of the stream format, so
:func:`~streamkit.providers.body.read_body` runs it through the stream parser
(:class:`~streamkit.providers.ollama.stream.OllamaParser`): the same blocks in
the same order (thinking, text, tool calls, images), the same metadata keys,
usage and finish reason as the equivalent stream, by construction rather than
by a second copy of the field mapping.

An ``{"error": ...}`` body raises :class:`~streamkit.model.errors.ProviderError`
(with the response as ``partial``), as the stream does at its end.

A text field that is not a string (``message.content``, ``message.thinking``,
``response``, ``thinking``) is an :class:`~streamkit.model.errors.InvalidBodyError`
naming it, before anything walks the body: the stream parser would keep it as
metadata (a line's wrong type is noted, the stream goes on), which for a whole
body costs encoding it, decoding it again and copying the value in Python
(1.8 s for 0.8 MB of small nested lists), for an answer that is none.
"""

from __future__ import annotations

from typing import Any

from ...framing.encoding import json_bytes
from ...model.errors import InvalidBodyError
from ...model.response import ChatResponse
from ..body import read_body, require_answer
from .stream import OllamaParser
from .wire import NAME

__all__ = ["parse_response"]

_ENCODE = json_bytes  # a lone surrogate read from the body is its escape again


def parse_response(body: dict[str, Any], dialect: str | None) -> ChatResponse:
    """The :class:`~streamkit.ChatResponse` of a non-streamed response body."""
    require_answer(body, NAME)
    _require_text(body)
    (response,) = read_body(OllamaParser(), [(None, _ENCODE(body))])
    return response


#: The text fields of an answer (``/api/chat``'s in its ``message``, ``/api/generate``'s
#: at the top): a string, or absent, or null.
_TEXT_FIELDS = (("message", "content"), ("message", "thinking"), ("", "response"),
                ("", "thinking"))


def _require_text(body: dict[str, Any]) -> None:
    """Refuse an answer whose text field holds another type (see the module docstring)."""
    for container_name, name in _TEXT_FIELDS:
        container = body.get(container_name) if container_name else body
        value = container.get(name) if type(container) is dict else None
        if value is not None and type(value) is not str:
            where = f"{container_name}.{name}" if container_name else name
            raise InvalidBodyError(f"an Ollama answer's {where} is text, not "
                                   f"{type(value).__name__}", wire=NAME, where=where)
