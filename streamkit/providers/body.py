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
"""

from __future__ import annotations

from collections.abc import Iterable

from ..model.accumulate import Accumulator
from ..model.errors import ProviderError
from ..model.response import ChatResponse
from .base import Parser

__all__ = ["read_body"]


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
