"""Gemini's non-streamed ``generateContent`` response.

A ``GenerateContentResponse`` from ``:generateContent`` has exactly the shape
of one chunk of ``:streamGenerateContent?alt=sse``: ``candidates`` (each with
its whole ``content``, ``finishReason``, ``safetyRatings``,
``groundingMetadata``...), ``usageMetadata``, ``modelVersion``,
``responseId``, ``promptFeedback``. So it is read as a one-chunk stream
(:func:`~streamkit.providers.body.read_body`): the same blocks (text and
thought parts merged, signatures on the part they came on, made-up call ids),
the same metadata keys, usage and finish reason as the equivalent stream, by
construction rather than by a second copy of the part rules. A JSON array of
such responses (what ``:streamGenerateContent`` answers without ``alt=sse``)
reads as the stream it is. A body (or an array item) with none of a Gemini
answer's fields is refused (:func:`~streamkit.providers.body.require_answer`),
as an empty array is.

An ``{"error": {...}}`` body raises :class:`~streamkit.model.errors.ProviderError`
(with the response as ``partial``), as an error chunk ends a stream.
"""

from __future__ import annotations

from typing import Any

from ...framing.encoding import json_bytes
from ...model.errors import InvalidBodyError
from ...model.response import ChatResponse
from ..body import read_body, require_answer
from .stream import GeminiParser
from .wire import NAME

__all__ = ["parse_response"]


def parse_response(body: dict[str, Any] | list[Any], dialect: str | None) -> ChatResponse:
    """The :class:`~streamkit.ChatResponse` of candidate 0 of a non-streamed response."""
    if type(body) is list:
        if not body:
            raise InvalidBodyError("an empty array is no gemini answer: the array of "
                                   "streamGenerateContent has one chunk at least", wire=NAME)
        for chunk in body:
            require_answer(chunk, NAME)
    else:
        require_answer(body, NAME)
    return read_body(GeminiParser(), [(None, json_bytes(body))])[0]
