"""What a response's body stands for: the answer of a whole body, the partial
answer of one that broke, the error of an error status.

Every error here carries a partial response, as a stream's do: what the body
decoded to before it broke (read leniently), or an empty response naming the
provider; and keeps the response headers a caller needs (:data:`ERROR_HEADERS`),
the key taken out of them. Pure: the body is given as bytes.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping

import httpx

from ..model.errors import (
    IncompleteStreamError,
    InvalidBodyError,
    ProtocolError,
    ProviderError,
    StreamError,
)
from ..model.finish import FinishReason
from ..model.partial_json import PartialJSON, PartialJSONError
from ..model.response import ChatResponse
from ..providers.codec import parse_response
from ..reading.error_body import BoundedBody, provider_error_from_body
from .keys import ApiKey

__all__ = ["ERROR_HEADERS", "PARTIAL_BODY_BYTES", "broken_body", "kept_headers", "nothing",
           "partial_answer", "provider_error", "redirected", "whole_answer"]

#: Response headers an error keeps for the caller (the rest are not copied).
ERROR_HEADERS = ("retry-after", "retry-after-ms", "x-request-id", "request-id", "x-should-retry")

#: How much of a ``create()`` body that did not arrive whole (cut, over
#: ``max_body_bytes``, or not the wire's answer) is decoded for its partial answer:
#: the incremental JSON parser is pure Python, so a cut gigabyte is not read for it.
PARTIAL_BODY_BYTES = 256 * 1024


def nothing(provider: str, reason: FinishReason) -> ChatResponse:
    """The partial response of a call that received nothing."""
    return ChatResponse(provider=provider, finished_reason=reason)


def kept_headers(headers: Mapping[str, str], secret: ApiKey | None) -> dict[str, str]:
    """The response headers an error keeps (:data:`ERROR_HEADERS`), the key
    taken out of them (a server may echo it, even in a request id)."""
    return {name: headers[name] if secret is None else secret.redact(headers[name])
            for name in ERROR_HEADERS if name in headers}


def _lenient_answer(provider: str, data: bytes) -> ChatResponse | None:
    """The wire's decoding of what a JSON body holds before it was cut or went
    bad (the incremental parser's view), or ``None`` when that is not enough
    for the decoder."""
    parser = PartialJSON()
    with contextlib.suppress(PartialJSONError):  # what came before a bad character stays
        parser.feed(data.decode("utf-8", "replace"))
    value = parser.value
    if not isinstance(value, dict):
        return None
    try:
        return parse_response(provider, value)
    except Exception:  # a partial body may lack what the decoder needs: nothing is shown then
        return None


def partial_answer(provider: str, data: bytes) -> ChatResponse:
    """What a body that did not arrive whole, or is not the wire's answer,
    decoded to: its first :data:`PARTIAL_BODY_BYTES` read leniently as JSON
    (what came before a cut or a bad character) by the wire's decoder, marked
    ``interrupted``; an empty response with the provider when that gives nothing."""
    answer = _lenient_answer(provider, data[:PARTIAL_BODY_BYTES])
    if answer is None:
        return nothing(provider, FinishReason.INTERRUPTED)
    answer.finished_reason = FinishReason.INTERRUPTED
    return answer


def broken_body(provider: str, failure: httpx.HTTPError, data: bytes) -> StreamError:
    """The error of a body that stopped short, with its partial answer. A
    content encoding that does not decode (a corrupt gzip body) is a
    :class:`~streamkit.model.errors.ProtocolError`: the connection did not break,
    the bytes that came are not what the server said they were; anything
    else is an :class:`~streamkit.model.errors.IncompleteStreamError`."""
    error: StreamError
    if isinstance(failure, httpx.DecodingError):
        error = ProtocolError(f"the response body's content encoding does not decode "
                              f"after {len(data)} bytes: {failure}")
    else:
        error = IncompleteStreamError(f"the response broke after {len(data)} bytes: "
                                      f"{type(failure).__name__}: {failure}")
    error.partial = partial_answer(provider, data)
    return error


def whole_answer(provider: str, wire: str, response: httpx.Response, data: bytes,
                 secret: ApiKey | None) -> ChatResponse:
    """A whole body by the wire's decoder. One that is not the wire's answer
    is a :class:`~streamkit.model.errors.ProviderError` when it holds the
    provider's error (a 200 can), else a :class:`~streamkit.model.errors.ProtocolError`,
    each with its partial answer."""
    try:
        return parse_response(provider, data)
    except StreamError as error:  # not JSON
        error.partial = partial_answer(provider, data)
        raise
    except InvalidBodyError as refused:
        held = provider_error_from_body(response.status_code, data,
                                        response.headers.get("content-type", ""))
        if isinstance(held.raw, dict) and held.raw.get("error") is not None:
            held.headers = kept_headers(response.headers, secret)
            held.partial = nothing(provider, FinishReason.ERROR)
            raise held from None
        raise ProtocolError(f"the response body is not a {wire} answer: {refused}",
                            raw=data[:2000], partial=partial_answer(provider, data)) from refused


def provider_error(provider: str, response: httpx.Response, body: BoundedBody,
                   secret: ApiKey | None, *, cut: bool = False) -> ProviderError:
    """The error an error response stands for, with the headers a caller needs
    and an empty partial response (nothing was received); ``cut``: the body
    stopped short (a break, the total timeout), read as far as it came."""
    error = provider_error_from_body(response.status_code, body.data,
                                     response.headers.get("content-type", ""),
                                     cut=body.over_limit or cut)
    error.headers = kept_headers(response.headers, secret)
    error.partial = nothing(provider, FinishReason.ERROR)
    return error


#: A URL's userinfo (``//user:password@``), its query and its fragment: what a
#: redirect's ``Location`` may carry a secret in, never shown.
_URL_SECRETS = re.compile(r"(?<=//)[^/?#@]*@|[?#].*", re.DOTALL)


def redirected(provider: str, response: httpx.Response, secret: ApiKey | None) -> ProtocolError:
    """The error of a redirect (any 3xx): no answer, and not followed (the
    request carries a key, which must not go where a server points), with the
    status and where it points (without userinfo, query or fragment, the key
    taken out), so the base URL can be set to it; an empty partial."""
    location = _URL_SECRETS.sub("", response.headers.get("location", ""))[:500]
    if secret is not None:
        location = secret.redact(location)
    error = ProtocolError(
        f"the server answered {response.status_code}, a redirect to {location or '(nowhere)'}, "
        f"not an answer: redirects are not followed; set the base URL to where the API is")
    error.partial = nothing(provider, FinishReason.ERROR)
    return error
