"""A whole call across a client's models, without I/O: the one loop both shells run.

:func:`create_call` (a non-streamed answer) and :func:`stream_call` (a streamed
one) are generators of steps (:mod:`streamkit.client.steps`) that hold every
decision of a call once, for :class:`~streamkit.Client` and
:class:`~streamkit.SyncClient` alike:

- the chain (:class:`~streamkit.client.fallbacks.Chain`): the next model, its
  body built for its wire, whether a failure falls back or ends the call;
- each model's attempts and retries (:meth:`ClientCore.attempts
  <streamkit.client.core.ClientCore.attempts>`);
- telemetry (:mod:`streamkit.observability`): one observed call per model
  tried, ended with its answer, its stream's end or its error;
- usage and costs, counted once per call into the client's totals (a whole
  answer when it parsed, a stream by how it ended);
- the answer's timing, from the first model's first attempt.

The shell performs the steps: sends, reads, waits, opens a response's body as
a source and hands the stream to its caller (:class:`~streamkit.client.steps.Deliver`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Generator, Iterator
from typing import Any

import httpx

from ..model.errors import StreamError
from ..model.response import ChatResponse
from ..observability.observer import CallObserver
from ..reading.options import ReadOptions
from .core import Clock
from .fallbacks import Chain, Leg
from .steps import Close, Deliver, Open, Step

__all__ = ["create_call", "stream_call"]


def create_call(chain: Chain, clock: Clock) -> Generator[Step, Any, ChatResponse]:
    """The answer of the first model of ``chain`` that responds, parsed whole."""
    leg, observer, response = yield from _first_response(chain, clock, stream=False)
    with _ended_by_errors(observer, leg):
        answer = yield from leg.core.answer(response, leg.call, clock,
                                            chain.request_timing(leg, clock.monotonic))
    observer.finish(answer, log=leg.call.log)
    return answer


def stream_call(chain: Chain, clock: Clock, options: ReadOptions) -> Generator[Step, Any, None]:
    """The stream of the first model of ``chain`` that responds, read as
    ``options`` say, delivered to the caller, then observed and counted as it
    ended (finished, broken or closed early)."""
    leg, observer, response = yield from _first_response(chain, clock, stream=True)
    with _ended_by_errors(observer, leg):
        source = yield Open(response, leg.call.deadline, leg.core.secret)
        try:
            events = leg.core.events(source, options, chain.request_timing(leg, clock.monotonic))
        except BaseException:
            yield Close(response)
            raise
        observer.watch(events)
        try:
            yield Deliver(events)
        finally:
            leg.core.record_stream(events)
            observer.finish(events.response, choices=events.choices, error=events.error,
                            log=leg.call.log)


def _first_response(chain: Chain, clock: Clock, *, stream: bool,
                    ) -> Generator[Step, Any, tuple[Leg, CallObserver, httpx.Response]]:
    """The first model of ``chain`` whose attempts got a response (its body
    unread): its leg, the observer of its call, the response. A model that
    failed has its call's telemetry ended with its error; the chain's last
    error is raised when no model is left to try."""
    while True:
        leg = chain.next(clock.monotonic())
        observer = leg.core.observer(leg.call, leg.body, stream=stream)
        with _ended_by_errors(observer, leg):
            try:
                response = yield from leg.core.attempts(leg.call, clock)
            except StreamError as error:
                chain.failed(leg, error)  # raises it unless the next model is tried
                observer.finish(error.partial, error=error, log=leg.call.log)
                continue
        chain.answered(leg)
        return leg, observer, response


@contextlib.contextmanager
def _ended_by_errors(observer: CallObserver, leg: Leg) -> Iterator[None]:
    """End the call's telemetry with whatever raises (its partial response, if
    any): the call's own errors, and what the shell threw in (a cancellation)."""
    try:
        yield
    except BaseException as exc:
        partial = exc.partial if isinstance(exc, StreamError) else None
        observer.finish(partial, error=exc, log=leg.call.log)
        raise
