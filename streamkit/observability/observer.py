"""What observes a call, and what :func:`configure` set.

:class:`CallObserver` is the interface a call reports to (the base observes
nothing: :data:`NO_OBSERVER`); :mod:`.telemetry` records spans and metrics
behind it, and :func:`~streamkit.observability.calls.observe_call` picks one. The
settings here are read by both; this module imports nothing of OpenTelemetry.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..model.response import ChatResponse
    from ..model.timing import AttemptLog
    from ..reading.stream import Stream, SyncStream

__all__ = ["CAPTURE_CONTENT_ENV", "NO_OBSERVER", "CallObserver", "capture_content", "configure"]

#: The environment variable that opts in to message content.
CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"

class CallObserver:
    """What observes one call; this base observes nothing (:data:`NO_OBSERVER`)."""

    def watch(self, events: Stream | SyncStream) -> None:
        """The call's answer streams through ``events``."""

    def finish(self, response: ChatResponse | None = None, *,
               choices: list[ChatResponse] | None = None, error: BaseException | None = None,
               log: AttemptLog | None = None) -> None:
        """The call ended: with ``response`` (every choice in ``choices``), or
        ``error`` (its partial response, if any, in ``response``); ``log`` holds
        its attempts. Only the first call counts."""


#: The observer of every call while no telemetry is wanted.
NO_OBSERVER = CallObserver()


class _Settings:
    """What :func:`configure` set."""

    def __init__(self) -> None:
        self.tracer_provider: Any = None
        self.meter_provider: Any = None
        self.capture_content: bool | None = None
        self.chunk_metric = True
        self.lock = threading.Lock()
        self.instruments: dict[tuple[int, int], Any] = {}


_SETTINGS = _Settings()


def configure(*, tracer_provider: Any = None, meter_provider: Any = None,
              capture_content: bool | None = None, chunk_metric: bool = True) -> None:
    """Record calls with these providers rather than the global ones (``None``:
    the global one, if set); ``capture_content=True`` records message content
    (``None``: as :data:`CAPTURE_CONTENT_ENV` says, off when unset);
    ``chunk_metric=False`` leaves out ``gen_ai.client.operation.time_per_output_chunk``,
    the one metric recorded once per chunk (at a stream's end: about as many
    histogram records as chunks; a gateway of many streams may not want them).
    Each call replaces every setting."""
    with _SETTINGS.lock:
        _SETTINGS.tracer_provider = tracer_provider
        _SETTINGS.meter_provider = meter_provider
        _SETTINGS.capture_content = capture_content
        _SETTINGS.chunk_metric = chunk_metric
        _SETTINGS.instruments.clear()


def capture_content() -> bool:
    """Whether message content is recorded (off unless opted in)."""
    if _SETTINGS.capture_content is not None:
        return _SETTINGS.capture_content
    return os.environ.get(CAPTURE_CONTENT_ENV, "").strip().lower() == "true"
