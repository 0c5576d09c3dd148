"""One attempt of a call, as it is told: the :class:`Attempt` record the
``on_attempt`` callback gets, the ``streamkit.client`` log line (DEBUG for one
that worked, WARNING for one that failed), and the error of an attempt that got
no response at all."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

import httpx

from ..model.errors import NoResponseError, StreamError
from ..model.finish import FinishReason
from .answers import nothing

__all__ = ["RETRYABLE_TRANSPORT_ERRORS", "Attempt", "no_response", "report"]

logger = logging.getLogger("streamkit.client")

#: Transport failures before any response that are worth another attempt: the
#: request may not have reached the model, and nothing was received.
RETRYABLE_TRANSPORT_ERRORS: tuple[type[httpx.HTTPError], ...] = (
    httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError,
)


@dataclass(frozen=True)
class Attempt:
    """What one attempt of a call gave, as the ``on_attempt`` callback sees it."""

    number: int
    """1 for the first attempt."""
    max_attempts: int
    method: str
    url: str
    status: int | None
    """The HTTP status; ``None`` when no response came."""
    error: StreamError | None
    """Why it failed (``None`` when it worked)."""
    retry_in: float | None
    """Seconds until the next attempt; ``None`` when there is none."""
    request_id: str | None
    provider: str = ""
    """The registry name of the provider attempted (``anthropic``)."""
    model: str = ""
    """The model attempted, as sent."""
    fallback: int = 0
    """Which of the client's models: 0 its own, 1 its first fallback, and so on."""


def report(record: Attempt, name: str, on_attempt: Callable[[Attempt], None] | None) -> None:
    """Tell the log and the ``on_attempt`` callback what one attempt gave
    (``name``: the model attempted, ``provider:model``)."""
    if record.error is None:
        logger.debug("POST %s (%s): attempt %d of %d: HTTP %s", record.url, name,
                     record.number, record.max_attempts, record.status)
    else:
        outcome = f"HTTP {record.status}" if record.status is not None else "no response"
        then = (f"retrying in {record.retry_in:.3f} s" if record.retry_in is not None
                else "giving up")
        request_id = record.request_id
        logger.warning("POST %s (%s): attempt %d of %d failed (%s%s): %s; %s", record.url,
                       name, record.number, record.max_attempts, outcome,
                       f", request id {request_id}" if request_id else "",
                       type(record.error).__name__, then)
    if on_attempt is not None:
        on_attempt(record)


def no_response(provider: str, url: str, exc: Exception) -> NoResponseError:
    """The error of an attempt that got no response: nothing was received;
    the httpx error is the cause."""
    error = NoResponseError(f"no response from {url}: {type(exc).__name__}: {exc}")
    error.partial = nothing(provider, FinishReason.INTERRUPTED)
    error.__cause__ = exc
    return error
