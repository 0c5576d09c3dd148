"""Observing calls: OpenTelemetry spans and metrics, and a line about each answer.

- :mod:`.calls`: the entry point, :func:`observe_call` (telemetry only when the
  application asks for it); :mod:`.observer`, the observer's interface and
  :func:`configure`;
- :mod:`.telemetry`: the GenAI semantic conventions' span and metrics of one call;
- :mod:`.genai_messages`: messages in the conventions' JSON;
- :mod:`.summary`: one line about an answer, for a terminal.
"""

from .calls import observe_call
from .observer import CAPTURE_CONTENT_ENV, NO_OBSERVER, CallObserver, configure

__all__ = ["CAPTURE_CONTENT_ENV", "NO_OBSERVER", "CallObserver", "configure", "observe_call"]
