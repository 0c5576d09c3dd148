"""One way to read a non-streamed response body: as the stream that would carry it.

A wire's non-streamed answer holds what its stream would have said, in one
object. Every wire's ``response.py`` reads it the same way: it turns the body
into the payloads its stream parser reads (one chunk, or the events the
stream would have sent), and :func:`read_body` runs them through the parser
into an :class:`~streamkit.model.accumulate.Accumulator`. So a body and a stream of
the same answer give the same :class:`~streamkit.ChatResponse` by
construction (one parser, one accumulator, the same made-up ids for the same
bytes), and an error body raises the :class:`~streamkit.model.errors.ProviderError`
a stream would raise, with the partial response.

Before that, :func:`require_answer` checks that the body has its wire's answer
shape (:data:`ANSWER_FIELDS`): a parser reads what it knows and skips the rest,
so another wire's answer, or a JSON object with no answer in it, would read
as an empty answer, the worst a caller can get (billed, cached, shown as the
model's reply). It is an :class:`~streamkit.model.errors.InvalidBodyError`
instead, naming the fields that are missing and the wire the body looks like.
A real answer with nothing in it (an Anthropic refusal's ``content: []``, a
Gemini candidate stopped for safety, a Chat tool call with ``content: null``)
has the shape, and reads.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from ..model.accumulate import Accumulator
from ..model.errors import InvalidBodyError, ProviderError
from ..model.response import ChatResponse
from .base import Parser

__all__ = ["ANSWER_FIELDS", "is_error_body", "read_body", "require_answer"]

#: Each wire's answer shape: the top-level fields one of which every answer
#: body of the wire has, however empty the answer (no other wire's answer has
#: them at its top level, so they also tell which wire a body looks like).
ANSWER_FIELDS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "openai-chat": ("choices",),
    "openai-responses": ("output",),
    "anthropic": ("content",),
    "gemini": ("candidates", "promptFeedback", "usageMetadata"),  # a blocked prompt: no candidates
    "ollama": ("message", "response"),  # /api/chat, /api/generate
})


def is_error_body(body: dict[str, Any]) -> bool:
    """Whether ``body`` is an error body in any wire's words: an ``error`` (an
    object, or Ollama's string), or Anthropic's and vLLM's ``"error"`` type."""
    return body.get("error") is not None or "error" in (body.get("type"), body.get("object"))


def _has_answer(body: dict[str, Any], wire: str) -> bool:
    return any(body.get(field) is not None for field in ANSWER_FIELDS[wire])


def require_answer(body: Any, wire: str) -> None:
    """Refuse a body that is neither an answer of ``wire`` (none of its
    :data:`ANSWER_FIELDS`) nor an error body, with an
    :class:`~streamkit.model.errors.InvalidBodyError` saying what is missing
    and which wire's answer it looks like."""
    if type(body) is not dict:
        raise InvalidBodyError(f"a {wire} answer is a JSON object, not {type(body).__name__}",
                               wire=wire)
    if _has_answer(body, wire) or is_error_body(body):
        return
    fields = " or ".join(repr(field) for field in ANSWER_FIELDS[wire])
    looks = next((f"; it looks like a {other} answer (is the provider or base URL meant "
                  f"for another wire?)" for other in ANSWER_FIELDS
                  if other != wire and _has_answer(body, other)), "")
    raise InvalidBodyError(f"the body is no {wire} answer: a {wire} answer has {fields}, "
                           f"and this body has none of them{looks}",
                           wire=wire, where=ANSWER_FIELDS[wire][0])


def read_body(parser: Parser, payloads: Iterable[tuple[str | None, bytes | str]]
              ) -> list[ChatResponse]:
    """Every choice's response for the ``(SSE event name or None, data)``
    payloads a body stands for, read by ``parser`` to its end. The provider's
    first error raises, carrying choice 0's response."""
    accumulator = Accumulator()
    for event, data in payloads:
        accumulator.apply_all(parser.feed(data, event))
    accumulator.apply_all(parser.finish())
    responses = accumulator.responses
    for response in responses:
        response.is_last = True
    if accumulator.errors:
        error = ProviderError.from_event(accumulator.errors[0])
        error.partial = responses[0]
        raise error
    return responses
