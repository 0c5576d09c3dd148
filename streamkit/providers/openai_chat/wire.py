"""The Chat Completions wire as data: its name, its finish words, where usage
counts live, what ends a stream.

:data:`FINISH_REASONS` are OpenAI's own ``finish_reason`` words; the words a
vendor adds are its dialect's (:mod:`.dialects`). :data:`FINISH_WORDS` is the
table read backwards: the word an encoder writes for each uniform reason. Every OpenAI-compatible
vendor names its token counts a little differently; :data:`USAGE_FIELDS`
lists, per count of :class:`~streamkit.model.usage.ChatUsage`, the paths tried in
order (or summed, for audio split into prompt and completion). Everything else
the usage object holds (``cost``, cache misses, Groq timings) stays in ``raw``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

from ...model.finish import FinishReason
from ...model.tool_arguments import arguments_text
from ...model.usage import ChatUsage
from ..usage_fields import UsageFields, first, total, usage_from

__all__ = ["DONE_MARKERS", "FINISH_REASONS", "FINISH_WORDS", "MAX_CHOICES", "NAME",
           "USAGE_FIELDS", "json_text", "map_usage"]

#: The wire format's name: what its readers tag the extras they keep with
#: (:class:`~streamkit.model.extras.Extras`) and its citations with.
NAME: Final = "openai-chat"

#: OpenAI's own finish reasons (``function_call`` is the legacy tool-call word).
FINISH_REASONS: Mapping[str, FinishReason] = MappingProxyType({
    "stop": FinishReason.STOP,
    "length": FinishReason.LENGTH,
    "tool_calls": FinishReason.TOOL_CALLS,
    "function_call": FinishReason.TOOL_CALLS,
    "content_filter": FinishReason.CONTENT_FILTER,
})

#: The ``finish_reason`` written for each uniform reason (an answer of this wire
#: keeps its own word): a refusal, a pause or an error ends its answer with
#: ``stop``; an unknown end (a word streamkit does not know, or none) says none,
#: since no success word is made up for it.
FINISH_WORDS: Mapping[FinishReason, str | None] = MappingProxyType({
    FinishReason.STOP: "stop",
    FinishReason.LENGTH: "length",
    FinishReason.TOOL_CALLS: "tool_calls",
    FinishReason.CONTENT_FILTER: "content_filter",
    FinishReason.REFUSAL: "stop",
    FinishReason.PAUSE: "stop",
    FinishReason.ERROR: "stop",
    FinishReason.INTERRUPTED: "stop",
    FinishReason.UNKNOWN: None,
})

#: The data of the terminating event (padded variants are recognised after decoding fails).
DONE_MARKERS: Final = ("[DONE]", b"[DONE]")

#: Choices a stream may have (OpenAI documents ``n`` <= 128). An entry whose
#: ``index`` is outside ``0 .. MAX_CHOICES - 1`` is kept, not applied: response
#: metadata goes to every choice, so unbounded choices would make a small body
#: cost quadratic time.
MAX_CHOICES: Final = 128

USAGE_FIELDS: Final = UsageFields(
    input_tokens=first("prompt_tokens", "input_tokens"),
    output_tokens=first("completion_tokens", "output_tokens"),
    total_tokens=first("total_tokens"),
    # OpenAI's details, else DeepSeek's prompt_cache_hit_tokens, else Moonshot's top-level count
    cached_tokens=first("prompt_tokens_details.cached_tokens",
                        "input_tokens_details.cached_tokens",
                        "prompt_cache_hit_tokens", "cached_tokens"),
    cache_creation_tokens=first("prompt_tokens_details.cache_write_tokens",
                                "prompt_tokens_details.cache_creation_tokens",
                                "input_tokens_details.cache_write_tokens",
                                "input_tokens_details.cache_creation_tokens",
                                "cache_creation_input_tokens"),
    reasoning_tokens=first("completion_tokens_details.reasoning_tokens",
                           "output_tokens_details.reasoning_tokens", "reasoning_tokens"),
    # audio in and out together: a vendor uses one naming of the details, never both
    audio_tokens=total("prompt_tokens_details.audio_tokens",
                       "completion_tokens_details.audio_tokens",
                       "input_tokens_details.audio_tokens",
                       "output_tokens_details.audio_tokens"),
)


def map_usage(raw: dict[str, Any]) -> ChatUsage:
    """A Chat Completions usage object (any vendor's) as :class:`ChatUsage`."""
    return usage_from(USAGE_FIELDS, raw)


def json_text(value: Any) -> str:
    """Arguments a vendor sent parsed (an object, not JSON text), as JSON text
    (:func:`~streamkit.model.tool_arguments.arguments_text`: a lone surrogate kept)."""
    return arguments_text(value)

