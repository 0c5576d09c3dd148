"""The one sink for payloads a parser does not understand.

Providers add event types and fields faster than parsers learn them. Whatever a
parser cannot place is never fatal and never dropped: :func:`unknown_payload`
makes a :class:`~streamkit.model.events.ResponseMetadata` event that *appends* the
payload to the response's ``metadata["unknown_events"]`` list. Appending (not
re-sending the list so far) keeps the cost O(payload) per unknown payload, so
even a stream made only of unknown events stays linear.
"""

from __future__ import annotations

from typing import Any

from ..model.events import ResponseMetadata

UNKNOWN_EVENTS_KEY = "unknown_events"


def unknown_payload(payload: Any, event: str | None = None, *, choice: int = 0) -> ResponseMetadata:
    """The event that keeps one payload this parser does not understand."""
    return ResponseMetadata(append={UNKNOWN_EVENTS_KEY: [{"event": event, "data": payload}]},
                            choice=choice)
