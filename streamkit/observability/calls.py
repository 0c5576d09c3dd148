"""Telemetry for every call, when the application asks for it: the entry point.

:class:`streamkit.Client` (and so the autogen adapter, which calls through it)
observes each call with :func:`observe_call`: one OpenTelemetry span and the
GenAI semantic conventions' metrics per call (:mod:`streamkit.observability.telemetry` makes
them). A gateway that drives its own HTTP does the same with the same three
steps, so its spans are the client's::

    observer = observe_call(provider="anthropic", model=model, url=url, body=body,
                            stream=True)
    observer.watch(events)                     # once the stream is made
    observer.finish(events.response, choices=events.choices, error=events.error)

Nothing is recorded, and nothing is imported, unless telemetry is wanted: a
tracer or meter provider given to :func:`configure`, or a global one set with
``opentelemetry.trace.set_tracer_provider`` /
``opentelemetry.metrics.set_meter_provider`` (or the ``OTEL_PYTHON_*_PROVIDER``
environment variables). Without one, :func:`observe_call` returns
:data:`NO_OBSERVER` after a few dictionary lookups, without importing
opentelemetry, and a stream does no per-chunk work for telemetry.
``opentelemetry-api`` and ``opentelemetry-semantic-conventions`` are the
``otel`` extra (``pip install 'streamkit-llm[otel]'``); the SDK and an exporter are
the application's choice.

Message content (the conversation, the answer, the system instructions) is
recorded only when the application opts in: ``configure(capture_content=True)``,
or ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`` in the
environment (the variable OpenTelemetry's own GenAI instrumentations read).
Prompts are private: off by default.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from .observer import _SETTINGS, NO_OBSERVER, CallObserver, capture_content

__all__ = ["observe_call"]

#: The environment variables that make opentelemetry-api load a global provider.
_PROVIDER_ENV = ("OTEL_PYTHON_TRACER_PROVIDER", "OTEL_PYTHON_METER_PROVIDER")


def _may_be_wanted() -> bool:
    """Whether any provider could be set: configured here, or opentelemetry
    imported (only it can set a global one), or named in the environment."""
    if _SETTINGS.tracer_provider is not None or _SETTINGS.meter_provider is not None:
        return True
    modules = sys.modules
    return ("opentelemetry.trace" in modules or "opentelemetry.metrics" in modules
            or any(name in os.environ for name in _PROVIDER_ENV))


def observe_call(*, provider: str, model: str, url: str, body: dict[str, Any] | None,
                 stream: bool) -> CallObserver:
    """The observer of one call to ``provider`` (a registry name) for ``model``
    at ``url``, sending ``body`` (read for the request's parameters, and its
    messages when content is captured): a span and metrics when telemetry is
    wanted, else :data:`NO_OBSERVER`."""
    if not _may_be_wanted():
        return NO_OBSERVER
    from .telemetry import instruments_for

    instruments = instruments_for(_SETTINGS)
    if instruments is None:
        return NO_OBSERVER
    return instruments.observe(provider=provider, model=model, url=url, body=body,
                               stream=stream, capture=capture_content())
