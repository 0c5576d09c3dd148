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

The client core keeps an :class:`AttemptLog` per call (each attempt's send,
headers and failure), from which the stream's :class:`RequestTiming` is made and
which telemetry reads for the retries it reports.

All times are seconds on the monotonic clock the stream was given
(``time.monotonic`` unless the client was given its own): comparable with each
other, never with the wall clock.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

__all__ = ["AttemptLog", "FailedAttempt", "RequestTiming", "ResponseTiming"]


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
class FailedAttempt:
    """An attempt that did not answer, as a call's log keeps it."""

    number: int
    """1 for the first attempt."""
    sent: float
    status: int | None
    """The HTTP status; ``None`` when no response came."""
    error_type: str
    """The error's class name (``ProviderError``, ``NoResponseError``...)."""
    retry_in: float | None
    """Seconds waited before the next attempt; ``None``: the call gave up."""


class AttemptLog:
    """The clock readings of one call's attempts, taken by the client core as
    they happen (no clock of its own: it is told the times)."""

    __slots__ = ("attempts", "failures", "first_sent", "headers_received", "sent")

    def __init__(self) -> None:
        self.attempts = 0
        self.first_sent: float | None = None
        self.sent = 0.0
        self.headers_received: float | None = None
        self.failures: list[FailedAttempt] = []

    def sending(self, now: float) -> None:
        """An attempt's request goes out at ``now``."""
        self.attempts += 1
        if self.first_sent is None:
            self.first_sent = now
        self.sent = now
        self.headers_received = None

    def answered(self, now: float) -> None:
        """Its status and headers arrived at ``now``."""
        self.headers_received = now

    def failed(self, status: int | None, error: BaseException, retry_in: float | None) -> None:
        """It did not answer: ``error``, and the wait before the next (``None``: none)."""
        self.failures.append(FailedAttempt(self.attempts, self.sent, status,
                                           type(error).__name__, retry_in))

    def request_timing(self, clock: Callable[[], float] = time.monotonic) -> RequestTiming:
        """The answering (last) attempt's timing, on ``clock``."""
        first = self.sent if self.first_sent is None else self.first_sent
        return RequestTiming(self.sent, self.headers_received, max(self.attempts, 1),
                             self.sent - first, clock)


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

    @classmethod
    def whole_body(cls, request: RequestTiming, read: float,
                   output_tokens: int | None) -> ResponseTiming:
        """A non-streamed answer's timing: its body was read whole by ``read``;
        no chunk of it was looked at on the way, so no first byte or token."""
        opened = request.headers_received if request.headers_received is not None \
            else request.request_sent
        return cls(opened, request.request_sent, request.headers_received, last_byte=read,
                   output_tokens=output_tokens, attempts=request.attempts,
                   before_answer=request.before_answer)

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
