"""The Anthropic Messages wire's words, as data.

Every reader and writer of the format shares these tables (the stream parser,
the response reader through it, the request codec):

- :data:`NAME`: the wire format's name, which every field kept for it carries
  (:class:`~streamkit.model.extras.Extras`), and :data:`PROVIDER`, its own vendor's
  registry name;
- :data:`FINISH_REASONS`: ``stop_reason`` words -> :class:`FinishReason`;
- :data:`USAGE_FIELDS`: where a ``usage`` object keeps each count;
- :data:`TOOL_CALL_TYPES`: the content block types that are tool calls;
- :data:`MESSAGE_DEFAULTS`: the message fields that say nothing when they
  have their constant value;
- :data:`FINISH_WORDS`: the ``stop_reason`` an encoder writes for a uniform
  finish reason of another wire (:data:`FINISH_REASONS` read backwards), and
  :data:`ENDING_FIELDS`, the message fields the stream sends in ``message_delta``;
- :data:`ERROR_TYPES`: the error ``type`` word for each HTTP status.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from ...model.finish import FinishReason
from ..usage_fields import UsageFields, first

#: The wire format's name.
NAME = "anthropic"

#: The registry name of the wire's own API (the default provider of its parser).
PROVIDER = "anthropic"

FINISH_REASONS: dict[str, FinishReason] = {
    "end_turn": FinishReason.STOP,
    "stop_sequence": FinishReason.STOP,
    "max_tokens": FinishReason.LENGTH,
    "model_context_window_exceeded": FinishReason.LENGTH,
    "tool_use": FinishReason.TOOL_CALLS,
    "pause_turn": FinishReason.PAUSE,
    "refusal": FinishReason.REFUSAL,
}

# Anthropic reports no total, so none is invented; a message_delta usually
# repeats only output_tokens, and cumulative merging keeps the rest. The input
# count excludes the cache: cache reads and writes are counted beside it.
USAGE_FIELDS = UsageFields(
    input_tokens=first("input_tokens"),
    output_tokens=first("output_tokens"),
    cached_tokens=first("cache_read_input_tokens"),
    cache_creation_tokens=first("cache_creation_input_tokens"),
    reasoning_tokens=first("output_tokens_details.thinking_tokens"),
    input_includes_cache=False,
)

#: Tool-use block types: the model's own tool calls and the server-side ones
#: (web search, code execution, MCP...) that the API runs itself.
TOOL_CALL_TYPES = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})

#: The word written for each uniform reason (an answer of this wire keeps its
#: own): the first word of :data:`FINISH_REASONS` for it; a filtered answer
#: is Anthropic's refusal; an error or an interruption ends the turn; an
#: unknown end (a word streamkit does not know, or none) is ``null``, which the
#: API's types allow: no success word is made up for it.
FINISH_WORDS: Mapping[FinishReason, str | None] = MappingProxyType({
    FinishReason.STOP: "end_turn",
    FinishReason.LENGTH: "max_tokens",
    FinishReason.TOOL_CALLS: "tool_use",
    FinishReason.PAUSE: "pause_turn",
    FinishReason.REFUSAL: "refusal",
    FinishReason.CONTENT_FILTER: "refusal",
    FinishReason.ERROR: "end_turn",
    FinishReason.INTERRUPTED: "end_turn",
    FinishReason.UNKNOWN: None,
})

#: Message fields the stream sends at its end, in ``message_delta``'s ``delta``
#: (``stop_reason`` beside them).
ENDING_FIELDS = ("stop_sequence", "stop_details")

#: Fields of a message that equal these say nothing worth keeping.
MESSAGE_DEFAULTS = {"type": "message", "role": "assistant"}


def map_stop_reason(stop_reason: str | None) -> FinishReason | None:
    """The uniform finish reason for an Anthropic ``stop_reason`` (``None`` stays
    ``None``; a word this version does not know is ``unknown``)."""
    if stop_reason is None:
        return None
    return FINISH_REASONS.get(stop_reason, FinishReason.UNKNOWN)


#: The error ``type`` word of each HTTP status (docs.anthropic.com/en/api/errors);
#: another status is an ``invalid_request_error`` (4xx) or ``api_error`` (5xx).
ERROR_TYPES: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}
