"""Ollama's non-streamed ``/api/chat`` (and ``/api/generate``) response.

With ``"stream": false`` Ollama answers with ONE object: the stream's last
line, ``done: true`` with the counters, carrying the whole ``message`` (or the
whole ``response`` / ``thinking`` of ``/api/generate``) instead of the last
fragment. That is exactly one NDJSON line of the stream format, so the stream
parser (:class:`~streamkit.providers.ollama.stream.OllamaParser`) reads it:
the same blocks in the same order (thinking, text, tool calls, images), the
same metadata keys, usage and finish reason as the equivalent stream, by
construction rather than by a second copy of the field mapping.

An ``{"error": ...}`` body raises :class:`~streamkit.errors.ProviderError`
(with the response as ``partial``), as the stream does at its end.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ...accumulate import Accumulator
from ...errors import ProviderError
from ...response import ChatResponse
from .stream import OllamaParser

__all__ = ["parse_response"]

_ENCODE = msgspec.json.encode


def parse_response(body: dict[str, Any], dialect: str | None) -> ChatResponse:
    """The :class:`~streamkit.ChatResponse` of a non-streamed response body."""
    parser = OllamaParser()
    accumulator = Accumulator()
    accumulator.apply_all(parser.feed(_ENCODE(body)))
    accumulator.apply_all(parser.finish())
    response = accumulator.response
    response.provider = "ollama"
    if accumulator.errors:
        error = accumulator.errors[0]
        raise ProviderError(error.message, status=error.status, code=error.code,
                            error_type=error.error_type, raw=error.raw, partial=response)
    return response
