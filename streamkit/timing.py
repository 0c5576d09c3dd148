"""What a streamed answer's clock said: :class:`ResponseTiming`, and what came before it.

The stream layer (:mod:`streamkit.stream`) reads a monotonic clock once per
network chunk and nothing more: the first chunk's time, the last one's, and the
longest wait between two chunks; the first chunk whose events carry content
(text, thinking or tool-call arguments, a tool call's name) is the first token.
Everything else here is derived, once, when a value is asked for.

What happened before the body is not the stream's to see: the client (or a
gateway driving its own HTTP) tells it with a :class:`RequestTiming` — when the
answering request was sent, when its headers came, how many attempts the call
made and how long the attempts before the answering one took. A retry or a
fallback to another provider is therefore visible on the answer:
``timing.attempts`` and ``timing.before_answer``, on the clock of the call.

All times are seconds on the monotonic clock the stream was given
(``time.monotonic`` unless the client was given its own): comparable with each
other, never with the wall clock.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

__all__ = ["RequestTiming", "ResponseTiming"]


@dataclass(frozen=True, slots=True)
class RequestTiming:
    """What happened before a response's body: the answering attempt's send and
    headers, and the attempts (and fallbacks) before it.

    ``clock`` is the monotonic clock these times were read on; the stream goes
    on reading it, so every time of one :class:`ResponseTiming` is on one clock.
    """

    request_sent: float
    """When the answering request was sent."""
    headers_received: float | None = None
    """When its status and headers arrived."""
    attempts: int = 1
    """Attempts the call made, the answering one included (retries and fallbacks)."""
    before_answer: float = 0.0
    """Seconds between the first attempt's send and the answering attempt's."""
    clock: Callable[[], float] = field(default=time.monotonic, compare=False, repr=False)

    def preceded_by(self, attempts: int, seconds: float) -> RequestTiming:
        """This timing after ``attempts`` more attempts that took ``seconds``
        before the first of these (a fallback layer adds the providers it tried)."""
        return replace(self, attempts=self.attempts + attempts,
                       before_answer=self.before_answer + seconds)


@dataclass(frozen=True, slots=True)
class ResponseTiming:
    """When each part of one answer arrived, as its stream measured it.

    Times are monotonic seconds (``None`` when the moment never came, or was not
    the stream's to see: ``request_sent`` of a stream handed an open response).
    ``longest_gap`` is the longest wait between two chunks of the body (``None``
    with fewer than two chunks); ``output_tokens`` is the provider's count.
    """

    opened: float
    """When the stream started reading (the response's headers were in)."""
    request_sent: float | None = None
    headers_received: float | None = None
    first_byte: float | None = None
    first_token: float | None = None
    """When the first content arrived: text, thinking, or a tool call."""
    last_byte: float | None = None
    longest_gap: float | None = None
    output_tokens: int | None = None
    attempts: int = 1
    """Attempts the call made, the answering one included."""
    before_answer: float = 0.0
    """Seconds spent on attempts (and fallbacks) before the answering one."""

    @property
    def start(self) -> float:
        """Where the durations below count from: the request's send when known,
        else the moment the stream opened."""
        return self.request_sent if self.request_sent is not None else self.opened

    @property
    def time_to_first_byte(self) -> float | None:
        """Seconds from :attr:`start` to the body's first chunk."""
        return None if self.first_byte is None else self.first_byte - self.start

    @property
    def time_to_first_token(self) -> float | None:
        """Seconds from :attr:`start` to the first content (the answering
        attempt's; add :attr:`before_answer` for what the caller waited)."""
        return None if self.first_token is None else self.first_token - self.start

    @property
    def duration(self) -> float | None:
        """Seconds from :attr:`start` to the last chunk."""
        return None if self.last_byte is None else self.last_byte - self.start

    @property
    def time_per_output_token(self) -> float | None:
        """Seconds per output token after the first: from the first content to
        the last chunk, over the provider's output count less one."""
        if self.output_tokens is None or self.output_tokens < 2 \
                or self.first_token is None or self.last_byte is None:
            return None
        generating = self.last_byte - self.first_token
        return generating / (self.output_tokens - 1) if generating > 0 else None

    @property
    def output_tokens_per_second(self) -> float | None:
        """Output tokens per second after the first (``1 / time_per_output_token``)."""
        per_token = self.time_per_output_token
        return None if per_token is None else 1.0 / per_token
