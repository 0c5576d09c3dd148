"""Gemini's wire words as data: names, finish reasons, usage fields, part field types.

Everything here is a table or a pure function of one wire value, shared by
the stream parser (:mod:`.stream`, :mod:`.candidate`), the response reader
through it, and the request codec (:mod:`.request`, :mod:`.content`):

- :data:`NAME`: the wire format's name, carried by every field kept for it
  (:class:`~streamkit.model.extras.Extras`), and :data:`PROVIDER`, its own vendor's
  registry name (Vertex AI speaks the same wire under ``vertex``);
- :data:`FINISH_REASONS`: ``finishReason`` words -> :class:`FinishReason`;
- :data:`USAGE_FIELDS`: where ``usageMetadata`` keeps each count;
- :data:`FIELD_TYPES`: the documented type of each part field the parser reads;
- :func:`decode_base64` and :func:`is_audio`: how ``inlineData`` is read;
- :data:`FINISH_WORDS`: the ``finishReason`` an encoder writes for a uniform
  reason of another wire (:data:`FINISH_REASONS` read backwards);
- :data:`CANDIDATE_FIELDS`: the candidate fields a reader keeps as response
  metadata (every other kept field is the response's);
- :data:`ERROR_TYPES`: the Google RPC ``status`` word for each HTTP status.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

from ...model.finish import FinishReason
from ...model.usage import ChatUsage
from ..coerce import as_int, as_list
from ..usage_fields import UsageFields, first, usage_from

__all__ = [
    "CANDIDATE_FIELDS",
    "ERROR_TYPES",
    "FIELD_TYPES",
    "FINISH_REASONS",
    "FINISH_WORDS",
    "NAME",
    "PROMPT_REFERENCES",
    "PROVIDER",
    "USAGE_FIELDS",
    "decode_base64",
    "is_audio",
    "map_finish_reason",
    "map_usage",
    "modality_tokens",
]

#: The wire format's name.
NAME = "gemini"

#: The registry name of the wire's own API (the default provider of its parser).
PROVIDER = "gemini"

# Explicit context caching: ``cachedContent`` names a cache made beforehand
# (``cachedContents.create``, ai.google.dev/gemini-api/docs/caching), whose
# contents the model reads before the request's own; no other API can see it.
_CACHED_CONTENT = ("names a Gemini explicit context cache (cachedContents/...), prompt content "
                   "only Gemini holds: put that content in the conversation to send it elsewhere")

#: The options naming prompt content Gemini keeps (both spellings a body may use):
#: :attr:`~streamkit.providers.wire_format.WireFormat.prompt_references`.
PROMPT_REFERENCES: Final = MappingProxyType({"cachedContent": _CACHED_CONTENT,
                                             "cached_content": _CACHED_CONTENT})

#: The documented type of each field of a part the parser reads (a ``Part``,
#: ``FunctionCall``, ``Blob``, ``FileData``). A field that arrives with another
#: type is treated as absent and kept as an unread one: in the block's
#: metadata, never fatal. (The chunk and candidate readers check their few
#: fields where they read them, off the per-token path.)
FIELD_TYPES: dict[str, type] = {
    # Part
    "text": str,
    "thought": bool,
    "thoughtSignature": str,
    # FunctionCall (and Vertex streamed arguments)
    "id": str,
    "name": str,
    "willContinue": bool,
    "partialArgs": list,
    # Blob, FileData
    "data": str,
    "mimeType": str,
    "displayName": str,
    "fileUri": str,
}

#: ``finishReason`` -> the uniform word; a word not listed is ``unknown``.
#: ``STOP`` after a function call becomes ``tool_calls`` (:func:`map_finish_reason`):
#: Gemini has no finish word of its own for it.
FINISH_REASONS: dict[str, FinishReason] = {
    "STOP": FinishReason.STOP,
    "MAX_TOKENS": FinishReason.LENGTH,
    "SAFETY": FinishReason.CONTENT_FILTER,
    "RECITATION": FinishReason.CONTENT_FILTER,
    "BLOCKLIST": FinishReason.CONTENT_FILTER,
    "PROHIBITED_CONTENT": FinishReason.CONTENT_FILTER,
    "SPII": FinishReason.CONTENT_FILTER,
    "IMAGE_SAFETY": FinishReason.CONTENT_FILTER,
    "IMAGE_PROHIBITED_CONTENT": FinishReason.CONTENT_FILTER,
    "IMAGE_RECITATION": FinishReason.CONTENT_FILTER,
}

#: The ``finishReason`` written for a uniform reason of another wire (an answer
#: of this wire keeps its own word): the first word of :data:`FINISH_REASONS`
#: for it. A call ends with ``STOP`` (read back as ``tool_calls`` after a
#: function call); a refusal is Gemini's ``SAFETY``; a reason Gemini has no
#: word for is ``OTHER`` (read back as ``unknown``).
FINISH_WORDS: Mapping[FinishReason, str | None] = MappingProxyType({
    FinishReason.STOP: "STOP",
    FinishReason.LENGTH: "MAX_TOKENS",
    FinishReason.TOOL_CALLS: "STOP",
    FinishReason.CONTENT_FILTER: "SAFETY",
    FinishReason.REFUSAL: "SAFETY",
    FinishReason.PAUSE: "STOP",
    FinishReason.ERROR: "OTHER",
    FinishReason.INTERRUPTED: "OTHER",
    FinishReason.UNKNOWN: "OTHER",
})

#: The fields of a ``Candidate`` the reader keeps as response metadata
#: (google-genai ``types.Candidate``): written back on the candidate; any other
#: kept field is the chunk's.
CANDIDATE_FIELDS = frozenset({
    "safetyRatings", "groundingMetadata", "groundingAttributions", "urlContextMetadata",
    "avgLogprobs", "logprobsResult", "tokenCount", "finishMessage", "citationMetadata",
})

#: HTTP status -> the Google RPC ``status`` word of the error body
#: (cloud.google.com/apis/design/errors), the words of
#: :data:`~streamkit.providers.error_payloads.TYPE_STATUS` read backwards.
ERROR_TYPES: dict[int, str] = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ABORTED",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    501: "UNIMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}

#: ``usageMetadata`` fields. Output is ``candidatesTokenCount``: Gemini reports
#: thoughts apart (``thoughtsTokenCount``, our reasoning tokens; the total holds
#: both, and the tool-use prompt beside the prompt). Audio has no
#: field of its own: :func:`map_usage` sums it from the per-modality details.
#: ``promptTokenCount`` includes the cached tokens (``cachedContentTokenCount``
#: is a part of it), the default of the table.
USAGE_FIELDS = UsageFields(
    input_tokens=first("promptTokenCount"),
    output_tokens=first("candidatesTokenCount"),
    total_tokens=first("totalTokenCount"),
    cached_tokens=first("cachedContentTokenCount"),
    reasoning_tokens=first("thoughtsTokenCount"),
    output_includes_reasoning=False,
)

# The per-modality lists of ``usageMetadata`` (``[{"modality": "AUDIO", "tokenCount": 5}]``).
_MODALITY_DETAILS = ("promptTokensDetails", "candidatesTokensDetails")


def map_finish_reason(reason: str | None, tool_calls: bool = False) -> FinishReason | None:
    """The uniform finish reason for a Gemini ``finishReason`` (``None`` stays
    ``None``): ``STOP`` is ``tool_calls`` when the candidate called a function."""
    if reason is None:
        return None
    if reason == "STOP" and tool_calls:
        return FinishReason.TOOL_CALLS
    return FINISH_REASONS.get(reason, FinishReason.UNKNOWN)


def modality_tokens(usage: dict[str, Any], modality: str) -> int | None:
    """The sum of ``tokenCount`` for ``modality`` over the per-modality details
    of prompt and candidates (``None`` when neither mentions it)."""
    counts = [
        count
        for key in _MODALITY_DETAILS
        for item in as_list(usage.get(key)) or ()
        if type(item) is dict and item.get("modality") == modality
        and (count := as_int(item.get("tokenCount"))) is not None
    ]
    return sum(counts) if counts else None


def map_usage(usage: dict[str, Any]) -> ChatUsage:
    """``usageMetadata`` -> :class:`ChatUsage` by :data:`USAGE_FIELDS`, audio
    summed from the per-modality details; missing counts stay ``None``."""
    mapped = usage_from(USAGE_FIELDS, usage)
    mapped.audio_tokens = modality_tokens(usage, "AUDIO")
    return mapped


def decode_base64(text: str) -> bytes | None:
    """The bytes of an ``inlineData.data`` string, or ``None`` when it is not
    base64. Gemini sends standard padded base64; protobuf JSON also allows the
    URL-safe alphabet and missing padding, so both are accepted."""
    try:
        return binascii.a2b_base64(text, strict_mode=True)
    except (binascii.Error, ValueError):  # ValueError: a non-ASCII character
        pass
    padded = text + "=" * (-len(text) % 4)
    try:
        if "-" in text or "_" in text:
            return base64.urlsafe_b64decode(padded)
        return base64.b64decode(padded)
    except (binascii.Error, ValueError):
        return None


def is_audio(media_type: str) -> bool:
    """Whether an inline media type is audio (whose parts extend one block)."""
    return media_type[:6].lower() == "audio/"
