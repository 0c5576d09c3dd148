"""The steps a call is made of, and the one loop that performs them.

A call runs in the sans-IO core as a generator of steps
(:func:`streamkit.client.orchestration.create_call` for a whole call across a
client's models, :meth:`~streamkit.client.core.ClientCore.attempts` for one
model's attempts); a shell (:class:`~streamkit.Client`, async, or
:class:`~streamkit.SyncClient`) performs each one with httpx and tells the core
what it gave:

- :class:`Send`: send the call's request under these httpx timeouts; tell the
  response (its headers read, its body not) or the httpx error;
- :class:`Read`: read a response's body into a
  :class:`~streamkit.reading.error_body.BoundedBody` before the deadline, then
  close the response; tell the httpx error that cut it short, or ``None``;
- :class:`Wait`: sleep this long before the next attempt; tell nothing;
- :class:`Open`: give the response's body as the shell reads bodies (before the
  deadline, the key taken out), for the core to stream from; tell that source;
- :class:`Close`: close a response the core will not read; tell nothing;
- :class:`Deliver`: hand the stream to the caller; tell ``None`` once the
  caller is done with it, or throw in what the caller raised.

Each step holds all the shell needs (the shell never asks the core anything),
and every decision is the core's. An exception the shell meets performing a
step is thrown into the core (:meth:`Progress.throw`), which ends the call's
telemetry with it and raises it again.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import httpx

from ..model.timing import AttemptLog
from ..reading.error_body import BoundedBody
from ..reading.stream import Stream, SyncStream
from .auth import KeyAuth, scrub_request, scrub_response
from .keys import ApiKey

__all__ = ["Call", "Close", "Deliver", "Open", "Progress", "Read", "Send", "Step", "Wait"]


@dataclass(frozen=True)
class Call:
    """What one call sends, built once and sent by every attempt (a retry is the
    same request byte for byte), and when its total timeout runs out."""

    url: str
    content: bytes
    headers: Mapping[str, str]
    """Without the key: the key is added per request and removed once it is sent."""
    deadline: float | None
    """On the clock's ``monotonic`` scale; ``None``: no total timeout."""
    auth: KeyAuth | None = field(default=None, compare=False, repr=False)
    """What puts the key in its header as a request is sent (``None``: no key)."""
    log: AttemptLog = field(default_factory=AttemptLog, compare=False, repr=False)
    """The times of its attempts as they happen (the only part that changes),
    which become the answer's ``timing`` and telemetry's retries."""

    @property
    def secret(self) -> ApiKey | None:
        """The key sent, to be taken out of whatever comes back."""
        return None if self.auth is None else self.auth.key


@dataclass(frozen=True)
class Send:
    """Send the call's request under ``timeout``; tell the core the
    ``httpx.Response`` (body not read) or the ``httpx.HTTPError``. The shell's
    part, with ``http`` its httpx client::

        request = step.request(http)
        try:
            response = http.send(request, stream=True, auth=step.auth)
        finally:
            step.sent(request)
        step.received(response)
    """

    call: Call
    timeout: httpx.Timeout | Any
    """``httpx.USE_CLIENT_DEFAULT`` when the client was given no timeouts."""

    def request(self, http: httpx.AsyncClient | httpx.Client) -> httpx.Request:
        """The HTTP request of this attempt, without the key (:attr:`auth` adds it
        as the request is sent, :meth:`sent` takes it out once it is)."""
        call = self.call
        return http.build_request("POST", call.url, content=call.content, headers=call.headers,
                                  timeout=self.timeout)

    @property
    def auth(self) -> httpx.Auth | Any:
        """What to send the request with: the key's header, put in as the request
        goes out; the http client's own ``auth`` when no key is sent."""
        auth = self.call.auth
        return httpx.USE_CLIENT_DEFAULT if auth is None else auth

    def sent(self, request: httpx.Request) -> None:
        """The request went out (or failed to): the key leaves it."""
        scrub_request(self.call.auth, request)

    def received(self, response: httpx.Response) -> None:
        """The response's headers came: the key leaves them, before anything reads them."""
        scrub_response(self.call.secret, response)


@dataclass(frozen=True)
class Read:
    """Read ``response``'s body into ``body`` (it says when to stop), past
    ``deadline`` no further, ``secret`` taken out of every chunk; close the
    response; tell the core the ``httpx.HTTPError`` that cut the body short,
    or ``None``."""

    response: httpx.Response
    body: BoundedBody
    deadline: float | None
    secret: ApiKey | None = field(default=None, repr=False)


@dataclass(frozen=True)
class Wait:
    """Sleep ``seconds`` before the next attempt; tell the core nothing."""

    seconds: float


@dataclass(frozen=True)
class Open:
    """Give ``response``'s body as the shell reads it (within ``deadline``,
    ``secret`` taken out of every chunk), for the core to stream from; tell the
    core that source."""

    response: httpx.Response
    deadline: float | None
    secret: ApiKey | None = field(default=None, repr=False)


@dataclass(frozen=True)
class Close:
    """Close ``response`` (the core will not read it); tell the core nothing."""

    response: httpx.Response


@dataclass(frozen=True)
class Deliver:
    """Hand ``events`` to the caller; tell the core ``None`` once the caller is
    done with it (the stream closed), or throw in what the caller raised."""

    events: Stream | SyncStream


Step = Send | Read | Wait | Open | Close | Deliver

T = TypeVar("T")


class Progress(Generic[T]):
    """A call's steps being performed: ``step`` is the next to do until ``done``;
    :meth:`tell` gives the core what the step gave, :meth:`throw` what went
    wrong performing it. The shells' one loop::

        progress = Progress(create_call(chain, clock))
        while not progress.done:
            try:
                outcome = perform(progress.step)
            except BaseException as exc:
                progress.throw(exc)  # the core ends the call with it, and raises it
            else:
                progress.tell(outcome)
        return progress.result()
    """

    def __init__(self, steps: Generator[Step, Any, T]) -> None:
        self._steps = steps
        self._result: tuple[T] | None = None
        self.step: Step = Wait(0.0)
        self.tell(None)

    @property
    def done(self) -> bool:
        return self._result is not None

    def tell(self, outcome: Any) -> None:
        """What the last step gave (``None`` to start); the core's next step, or its end."""
        try:
            self.step = self._steps.send(outcome)
        except StopIteration as stop:
            self._result = (stop.value,)

    def throw(self, error: BaseException) -> None:
        """What performing the last step raised, thrown into the core where the
        step was asked for: it ends the call with ``error`` and raises it again
        (a core that carries on gives its next step, or its end)."""
        try:
            self.step = self._steps.throw(error)
        except StopIteration as stop:
            self._result = (stop.value,)

    def result(self) -> T:
        """What the call gave, once ``done``."""
        assert self._result is not None, "the call has not ended"
        return self._result[0]
