"""Gemini's non-streamed ``generateContent`` response.

A ``GenerateContentResponse`` from ``:generateContent`` has exactly the shape
of one chunk of ``:streamGenerateContent?alt=sse``: ``candidates`` (each with
its whole ``content``, ``finishReason``, ``safetyRatings``,
``groundingMetadata``...), ``usageMetadata``, ``modelVersion``,
``responseId``, ``promptFeedback``. So the stream parser
(:class:`~streamkit.providers.gemini.stream.GeminiParser`) reads it as a
one-chunk stream: the same blocks (text and thought parts merged, signatures
on the part they came on, made-up call ids), the same metadata keys, usage and
finish reason as the equivalent stream, by construction rather than by a
second copy of the part rules. A JSON array of such responses (what
``:streamGenerateContent`` answers without ``alt=sse``) reads as the stream it
is.

An ``{"error": {...}}`` body raises :class:`~streamkit.errors.ProviderError`
(with the response as ``partial``), as an error chunk ends a stream.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ...accumulate import Accumulator
from ...errors import ProviderError
from ...response import ChatResponse
from .stream import GeminiParser

__all__ = ["parse_response"]

#: The registry name of this wire format's own API.
PROVIDER = "gemini"

_ENCODE = msgspec.json.encode


def parse_response(body: dict[str, Any] | list[Any], dialect: str | None) -> ChatResponse:
    """The :class:`~streamkit.ChatResponse` of candidate 0 of a non-streamed response."""
    parser = GeminiParser()
    accumulator = Accumulator()
    accumulator.apply_all(parser.feed(_ENCODE(body)))
    accumulator.apply_all(parser.finish())
    response = accumulator.response
    response.provider = PROVIDER
    if accumulator.errors:
        error = accumulator.errors[0]
        raise ProviderError(error.message, status=error.status, code=error.code,
                            error_type=error.error_type, raw=error.raw, partial=response)
    return response
