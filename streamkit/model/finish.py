"""Why a model stopped: one word for every provider.

It lives in its own module because both the event vocabulary
(:class:`~streamkit.model.events.ResponseEnd`) and the response model use it.
"""

from __future__ import annotations

from enum import StrEnum


class FinishReason(StrEnum):
    """Why the model stopped, the same word for every provider."""

    STOP = "stop"
    LENGTH = "length"
    TOOL_CALLS = "tool_calls"
    CONTENT_FILTER = "content_filter"
    REFUSAL = "refusal"
    PAUSE = "pause"
    ERROR = "error"
    INTERRUPTED = "interrupted"
    UNKNOWN = "unknown"

    @classmethod
    def parse(cls, value: str | None) -> FinishReason | None:
        """``None`` stays ``None``; an unknown word becomes ``UNKNOWN``."""
        if value is None:
            return None
        try:
            return cls(value)
        except ValueError:
            return cls.UNKNOWN
