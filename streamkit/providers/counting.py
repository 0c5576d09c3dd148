"""What a wire's token count endpoint is: one record (:class:`TokenCounting`),
read by the client, the fake provider and the gateway through the wire's
record (:attr:`~streamkit.providers.wire_format.WireFormat.count_tokens`).

Each wire whose API counts tokens has a ``count_tokens.py`` with its facts
(path, the body fields the endpoint takes, the answer's field);
:func:`body_counting` makes the record of an endpoint that takes the wire's
own request body, some of its fields kept (Anthropic, OpenAI Responses).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from ..model.errors import InvalidBodyError
from ..model.token_count import TokenCount

__all__ = ["TokenCounting", "body_counting", "count_field"]


@dataclass(frozen=True)
class TokenCounting:
    """A wire API's token count endpoint (``count_tokens.py``), both ways: the
    client's side (where it is, the body sent, the answer read) and a server's
    (where it is served, a body read back as the wire's request, the answer
    written). Sans-IO: dicts in, dicts out."""

    endpoint: Callable[[str, str], str]
    """``endpoint(base_url, model) -> url``: where a count is posted."""
    served_path: str
    """The path a server of the wire answers counts at (a regular expression,
    matched whole; a ``model`` group when the path names it)."""
    body: Callable[[dict[str, Any], str, str], dict[str, Any]]
    """``body(request_body, model, provider)``: the count request for the body
    the wire's builder wrote for the same request (what the count endpoint
    takes of it, in its form for that provider)."""
    request_body: Callable[[dict[str, Any]], dict[str, Any]]
    """A count request as it came -> the wire's request body it stands for,
    which the wire's request reader reads (:func:`streamkit.parse_request`)."""
    read_answer: Callable[[Any], TokenCount]
    """The count endpoint's decoded answer -> a :class:`~streamkit.TokenCount`;
    an answer without the count is an :class:`~streamkit.InvalidBodyError`
    naming what was wrong."""
    write_answer: Callable[[TokenCount], dict[str, Any]]
    """A count -> the answer a server of the wire gives (its SDK reads it)."""


def count_field(body: Any, field: str, wire: str, *, zero_if_absent: bool = False) -> int:
    """The token count ``body[field]`` of a count answer: a non-negative integer
    (``zero_if_absent``: a JSON that leaves zeros out, proto3's, says nothing
    for 0); anything else is an :class:`~streamkit.InvalidBodyError` naming it."""
    if not isinstance(body, dict):
        raise InvalidBodyError(f"a token count answer is a JSON object, not "
                               f"{type(body).__name__}", wire=wire, where="body")
    value = body.get(field, 0 if zero_if_absent else None)
    if type(value) is not int or value < 0:
        shown = "nothing" if value is None else repr(value)[:100]
        raise InvalidBodyError(f"a token count answer's {field} must be a non-negative "
                               f"integer; it holds {shown}", wire=wire, where=field)
    return value




def body_counting(*, path: str, served_path: str, fields: Collection[str], wire: str,
                  answer: Callable[[int], dict[str, Any]]) -> TokenCounting:
    """The record of a count endpoint at ``{base}{path}`` that takes the wire's
    own request body's ``fields`` (the model among them) and answers
    ``answer(n)``, whose ``input_tokens`` is the count."""
    kept = frozenset(fields)

    def endpoint(base_url: str, model: str) -> str:
        return base_url.rstrip("/") + path

    def count_body(body: dict[str, Any], model: str, provider: str) -> dict[str, Any]:
        return {key: value for key, value in body.items() if key in kept}

    def read_answer(body: Any) -> TokenCount:
        return TokenCount(count_field(body, "input_tokens", wire))

    return TokenCounting(endpoint=endpoint, served_path=served_path, body=count_body,
                         request_body=dict, read_answer=read_answer,
                         write_answer=lambda count: answer(count.input_tokens))
