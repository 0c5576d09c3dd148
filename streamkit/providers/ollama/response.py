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
"""

from __future__ import annotations

from typing import Any

from ...framing.encoding import json_bytes
from ...model.response import ChatResponse
from ..body import read_body, require_answer
from .stream import OllamaParser
from .wire import NAME

__all__ = ["parse_response"]

_ENCODE = json_bytes  # a lone surrogate read from the body is its escape again


def parse_response(body: dict[str, Any], dialect: str | None) -> ChatResponse:
    """The :class:`~streamkit.ChatResponse` of a non-streamed response body."""
    require_answer(body, NAME)
    (response,) = read_body(OllamaParser(), [(None, _ENCODE(body))])
    return response
