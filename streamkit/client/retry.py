"""When to try a request again, and how long to wait: pure rules, no I/O.

:class:`RetryPolicy` decides from what one attempt gave (an HTTP status and its
headers, or no response at all) whether another attempt is worth it and after
how long. The client only asks it before the first byte of a response body: a
stream that already delivered content is never sent again (the error carries the
partial response instead), so no answer is paid for or shown twice.

The rules, as the official OpenAI and Anthropic SDKs apply them:

- retried: :data:`RETRY_STATUSES` (408 request timeout, 409 conflict, 429 rate
  limit, every 5xx including Anthropic's 529 "overloaded") and a failed
  connection; a provider's ``x-should-retry: true`` / ``false`` overrides the
  status table either way;
- the wait is what the server asks for when it says so: ``retry-after-ms``
  (milliseconds), else ``Retry-After`` (seconds, or an HTTP date), honoured
  exactly when it is between 0 and ``max_retry_after`` seconds (a longer wish
  is not waited for: the normal backoff applies);
- otherwise exponential backoff, ``initial_delay * multiplier ** (n - 1)``
  capped at ``max_delay``, minus up to ``jitter`` of it at random so that many
  clients do not retry in step.

:class:`Timing` and :class:`SyncTiming` are where the client takes time from
(sleep, a monotonic clock, the wall clock for HTTP dates, randomness for the
jitter): tests pass their own, and never wait.
"""

from __future__ import annotations

import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime

import anyio

__all__ = [
    "RETRY_STATUSES",
    "RetryPolicy",
    "SyncTiming",
    "Timing",
    "retry_after_seconds",
]

#: HTTP statuses worth another attempt: 408, 409, 429 and every 5xx (529 included).
RETRY_STATUSES: frozenset[int] = frozenset({408, 409, 429, *range(500, 600)})

#: Headers a server uses to say how long to wait, with the divisor to seconds,
#: in the order they are read (the most precise first).
_DELAY_HEADERS: tuple[tuple[str, float], ...] = (("retry-after-ms", 1000.0), ("retry-after", 1.0))


def retry_after_seconds(headers: Mapping[str, str], now: float) -> float | None:
    """The wait the server asks for, in seconds, or ``None`` when it does not say
    (or says something unreadable). ``now`` is the wall clock (for an HTTP date)."""
    lowered = {name.lower(): value for name, value in headers.items()}
    for name, divisor in _DELAY_HEADERS:
        value = lowered.get(name)
        if value is None:
            continue
        try:
            return float(value.strip()) / divisor
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return when.timestamp() - now


@dataclass(frozen=True)
class RetryPolicy:
    """How many times to try again and how long to wait in between."""

    max_retries: int = 2
    """Attempts after the first (``0``: never retry)."""
    initial_delay: float = 0.5
    max_delay: float = 8.0
    multiplier: float = 2.0
    jitter: float = 0.25
    """The share of a backoff delay taken off at random (``0``: none)."""
    max_retry_after: float = 60.0
    """The longest server-requested wait that is honoured as is."""
    retry_statuses: frozenset[int] = field(default=RETRY_STATUSES)

    def should_retry(self, status: int | None, headers: Mapping[str, str]) -> bool:
        """Whether this outcome is worth another attempt (attempts left aside):
        ``status`` ``None`` is a connection that failed before any response."""
        if status is None:
            return True
        verdict = next((value.strip().lower() for name, value in headers.items()
                        if name.lower() == "x-should-retry"), None)
        if verdict in ("true", "false"):
            return verdict == "true"
        return status in self.retry_statuses

    def backoff(self, retry: int, rand: float) -> float:
        """The backoff before retry number ``retry`` (1 for the first), ``rand`` in [0, 1)."""
        delay = min(self.max_delay, self.initial_delay * self.multiplier ** (retry - 1))
        return delay * (1.0 - self.jitter * rand)

    def delay(self, attempt: int, status: int | None, headers: Mapping[str, str], *,
              now: float, rand: float) -> float | None:
        """Seconds to wait before the next attempt after attempt number ``attempt``
        (1 for the first) ended this way, or ``None`` to give up."""
        if attempt > self.max_retries or not self.should_retry(status, headers):
            return None
        asked = retry_after_seconds(headers, now)
        if asked is not None and 0 <= asked <= self.max_retry_after:
            return asked
        return self.backoff(attempt, rand)


async def _anyio_sleep(seconds: float) -> None:
    await anyio.sleep(seconds)


@dataclass(frozen=True)
class Timing:
    """Where an async client takes time from; replace any part in tests."""

    sleep: Callable[[float], Awaitable[None]] = _anyio_sleep
    monotonic: Callable[[], float] = time.monotonic
    """For deadlines (the total timeout)."""
    now: Callable[[], float] = time.time
    """The wall clock, for ``Retry-After`` HTTP dates."""
    random: Callable[[], float] = random.random
    """For the backoff jitter."""


@dataclass(frozen=True)
class SyncTiming:
    """Where a sync client takes time from; replace any part in tests."""

    sleep: Callable[[float], None] = time.sleep
    monotonic: Callable[[], float] = time.monotonic
    now: Callable[[], float] = time.time
    random: Callable[[], float] = random.random
