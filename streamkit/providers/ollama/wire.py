"""What Ollama's words and counters mean, as data: one table for every reader.

The stream parser (:mod:`.stream`) and, through it, the non-streamed reader
(:mod:`.response`) read a ``done`` line with these tables:

- :data:`FINISH_REASONS`: ``done_reason`` words -> :class:`FinishReason`.
  Ollama says ``stop`` also when the model called tools
  (:data:`TOOL_CALLS_STOP`): that is reported as ``tool_calls``, the word
  itself stays the response's ``stop_reason``. ``load`` / ``unload`` (a
  request that only loaded or unloaded the model, :data:`MODEL_LOADING`) end
  as ``stop`` and are kept in the response's metadata too.
- :data:`FINISH_WORDS`: the ``done_reason`` an encoder writes for a uniform
  reason of another wire (:data:`FINISH_REASONS` read backwards).
- :data:`USAGE_FIELDS`: where the counters are; :data:`USAGE_COUNTERS`: the
  counters and durations (nanoseconds) a usage's ``raw`` keeps. Ollama counts
  only prompt and output tokens, so their sum is the total when both are given
  (:func:`map_usage`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

from ...model.finish import FinishReason
from ...model.usage import ChatUsage
from ..usage_fields import UsageFields, first, usage_from

__all__ = ["FINISH_REASONS", "FINISH_WORDS", "MODEL_LOADING", "NAME", "TOOL_CALLS_STOP",
           "USAGE_COUNTERS", "USAGE_FIELDS", "map_done_reason", "map_usage"]

#: The wire format's name: its parser's default vendor, the origin of what its readers keep.
NAME: Final = "ollama"

FINISH_REASONS: Final[dict[str, FinishReason]] = {
    "stop": FinishReason.STOP,
    "length": FinishReason.LENGTH,
    "load": FinishReason.STOP,
    "unload": FinishReason.STOP,
}

#: The ``done_reason`` Ollama gives after tool calls as after text.
TOOL_CALLS_STOP: Final = "stop"

#: The ``done_reason`` written for each uniform reason (an answer of this wire
#: keeps its own word): Ollama ends calls, filtered, refused and paused answers
#: with ``stop``; an error or an unknown end has none.
FINISH_WORDS: Final[Mapping[FinishReason, str | None]] = MappingProxyType({
    FinishReason.STOP: "stop",
    FinishReason.LENGTH: "length",
    FinishReason.TOOL_CALLS: TOOL_CALLS_STOP,
    FinishReason.CONTENT_FILTER: "stop",
    FinishReason.REFUSAL: "stop",
    FinishReason.PAUSE: "stop",
    FinishReason.INTERRUPTED: "stop",
    FinishReason.ERROR: None,
    FinishReason.UNKNOWN: None,
})

#: ``done_reason`` words of a request that ran no model turn: kept as metadata.
MODEL_LOADING: Final = frozenset({"load", "unload"})

USAGE_FIELDS: Final = UsageFields(input_tokens=first("prompt_eval_count"),
                                  output_tokens=first("eval_count"))

#: The counters and durations of a ``done`` line: a usage's ``raw`` object.
USAGE_COUNTERS: Final[tuple[str, ...]] = (
    "total_duration", "load_duration", "prompt_eval_count", "prompt_eval_duration",
    "eval_count", "eval_duration",
)


def map_done_reason(reason: str | None, tool_calls: bool = False) -> FinishReason:
    """The uniform finish reason for a ``done_reason`` (``tool_calls``: whether
    the model called a tool); a missing or unknown word is ``unknown``."""
    if reason is None:
        return FinishReason.UNKNOWN
    if tool_calls and reason == TOOL_CALLS_STOP:
        return FinishReason.TOOL_CALLS
    return FINISH_REASONS.get(reason, FinishReason.UNKNOWN)


def map_usage(line: dict[str, Any]) -> ChatUsage | None:
    """The counters of a ``done`` line as :class:`ChatUsage` (``None``: none given)."""
    counters = {key: line[key] for key in USAGE_COUNTERS if key in line}
    if not counters:
        return None
    usage = usage_from(USAGE_FIELDS, counters)
    if usage.input_tokens is not None and usage.output_tokens is not None:
        usage.total_tokens = usage.input_tokens + usage.output_tokens
    return usage
