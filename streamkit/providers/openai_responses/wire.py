"""The OpenAI Responses wire's words, as data.

Everything here is about the wire format, not about one direction of it, so the
stream parser, the response reader and the request codec share it:

- :data:`NAME`: the wire format's name, the origin its readers record on
  what they keep (:class:`~streamkit.model.extras.Extras`) and its citations' ``wire``;
- :data:`FINISH_REASONS`: why a response ended, by the wire's word, and
  :data:`FINISH_WORDS`, the word an encoder writes for a uniform reason (a
  final status of :data:`END_STATUSES`, else an incomplete response's reason);
- :data:`USAGE_FIELDS`: where a ``usage`` object keeps each count;
- :data:`TOOL_PROGRESS` / :data:`TOOL_TEXT_EVENTS`: the lifecycle and streamed
  field events of the server-side tools.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

from ...model.finish import FinishReason
from ...model.usage import ChatUsage
from ..usage_fields import UsageFields, first, total, usage_from

#: The wire format's name (:data:`~streamkit.providers.wire_format.WIRE_NAMES`).
NAME: Final = "openai-responses"

USAGE_FIELDS: Final = UsageFields(
    input_tokens=first("input_tokens"),
    output_tokens=first("output_tokens"),
    total_tokens=first("total_tokens"),
    cached_tokens=first("input_tokens_details.cached_tokens"),
    cache_creation_tokens=first("input_tokens_details.cache_write_tokens"),
    reasoning_tokens=first("output_tokens_details.reasoning_tokens"),
    audio_tokens=total("input_tokens_details.audio_tokens", "output_tokens_details.audio_tokens"),
)

#: Why the response ended, by the wire's word: a completed or failed response's
#: status, an incomplete one's ``incomplete_details.reason``. Any other word is unknown.
FINISH_REASONS: Final[dict[str, FinishReason]] = {
    "completed": FinishReason.STOP,
    "failed": FinishReason.ERROR,
    "max_output_tokens": FinishReason.LENGTH,
    "content_filter": FinishReason.CONTENT_FILTER,
}

#: The final statuses of a response that are a finish word themselves.
END_STATUSES: Final = frozenset({"completed", "failed"})

#: The word written for each uniform reason (an answer of this wire keeps its
#: own): a status of :data:`END_STATUSES`, or the ``incomplete_details.reason``
#: of an ``incomplete`` response; ``None`` (an unknown end) is ``incomplete``
#: with no reason, not a ``completed`` made up for it.
FINISH_WORDS: Final[Mapping[FinishReason, str | None]] = MappingProxyType({
    FinishReason.STOP: "completed",
    FinishReason.TOOL_CALLS: "completed",
    FinishReason.REFUSAL: "completed",
    FinishReason.PAUSE: "completed",
    FinishReason.INTERRUPTED: "completed",
    FinishReason.UNKNOWN: None,
    FinishReason.ERROR: "failed",
    FinishReason.LENGTH: "max_output_tokens",
    FinishReason.CONTENT_FILTER: "content_filter",
})

#: The ``error.code`` words of a failed response (``response.failed``'s
#: ``response.error``): the SDK's types take no other; any other code is
#: written as :data:`FAILED_CODE`, kept in the message.
FAILED_CODES: Final = frozenset({
    "server_error", "rate_limit_exceeded", "invalid_prompt", "data_residency_mismatch",
    "bio_policy", "misalignment_policy_violation", "vector_store_timeout", "invalid_image",
    "invalid_image_format", "invalid_base64_image", "invalid_image_url", "image_too_large",
    "image_too_small", "image_parse_error", "image_content_policy_violation",
    "invalid_image_mode", "image_file_too_large", "unsupported_image_media_type",
    "empty_image_file", "failed_to_download_image", "image_file_not_found"})
#: The code of a failed response whose own code is none of :data:`FAILED_CODES`.
FAILED_CODE: Final = "server_error"

#: Server-side tools whose lifecycle events are ``response.<tool>.<status>``.
TOOL_PROGRESS: Final = {
    "web_search_call": ("in_progress", "searching", "completed"),
    "file_search_call": ("in_progress", "searching", "completed"),
    "code_interpreter_call": ("in_progress", "interpreting", "completed"),
    "image_generation_call": ("in_progress", "generating", "completed"),
    "mcp_call": ("in_progress", "completed", "failed"),
    "mcp_list_tools": ("in_progress", "completed", "failed"),
    "compaction": ("compacting",),
}

#: Streamed fields of server-side tool items: the item's ``output_item.done``
#: carries each of them whole, so their events add nothing.
TOOL_TEXT_EVENTS: Final = (
    "response.code_interpreter_call_code.delta", "response.code_interpreter_call_code.done",
    "response.mcp_call_arguments.delta", "response.mcp_call_arguments.done",
    "response.shell_call_command.added", "response.shell_call_command.delta",
    "response.shell_call_command.done", "response.shell_call_output_content.delta",
    "response.shell_call_output_content.done",
)

#: The ``status`` an item type's final snapshot carries when its reader kept
#: none: the word that type's items say on OpenAI's own wire, which the reader
#: leaves out as saying nothing (:mod:`.items`). A ``message`` always has one
#: (the openai SDK's ``ResponseOutputMessage.status`` is required); a
#: ``function_call`` has ``completed`` in OpenAI's streams
#: (tests/fixtures/openai-responses/function-call.sse). Reasoning items carry
#: none there (reasoning-summary-text.sse) and a ``custom_tool_call`` has no
#: such field (``ResponseCustomToolCall``), so another vendor's word on them
#: is kept (DeepSeek's reasoning ``completed``), and a call that came without
#: one is kept as ``None``: written back, each item says what it said.
USUAL_STATUS: Final[Mapping[str, str]] = MappingProxyType({
    "message": "completed", "function_call": "completed"})


#: What the official SDK's model of a kept item requires that a vendor's item
#: of the same type may leave out (xAI and DeepSeek send ``web_search_call``
#: without ``action``; xAI's ``status`` is optional), with the value that says
#: no more than the item did: a search (which it is) with no query, no
#: queries, no container. Fields with no such
#: value (a call's id or name, a server's label, a command to run) are never
#: made up.
ITEM_DEFAULTS: Final[Mapping[str, Mapping[str, Any]]] = MappingProxyType({
    "web_search_call": {"action": {"type": "search"}},
    "file_search_call": {"queries": []},
    "code_interpreter_call": {"container_id": ""},
    "image_generation_call": {},
})


def with_required_fields(item: dict[str, Any], *, done: bool) -> dict[str, Any]:
    """A whole item kept as it came (a server tool's call, another vendor's),
    written back with what :data:`ITEM_DEFAULTS` adds for its type when it
    lacks it, and the ``status`` of the phase (``in_progress`` as it is added,
    ``completed`` once done) when it has none: so the official SDK's types
    take it. Nothing it has is changed, so nothing is lost; read back, it has
    the added fields too."""
    item_type = item.get("type")  # any JSON value: a request's item is the caller's
    defaults = ITEM_DEFAULTS.get(item_type) if type(item_type) is str else None
    if defaults is None:
        return item
    missing = {key: copy.deepcopy(value) for key, value in defaults.items() if key not in item}
    if "status" not in item:
        missing["status"] = "completed" if done else "in_progress"
    return {**item, **missing} if missing else item


def map_usage(usage: dict[str, Any]) -> ChatUsage:
    """A Responses ``usage`` object as :class:`~streamkit.model.usage.ChatUsage`."""
    return usage_from(USAGE_FIELDS, usage)
