"""Streamed content as one table: every ``*.delta`` / ``*.done`` pair of the wire.

The Responses API streams eight kinds of content (message text, refusals, reasoning
summaries, raw reasoning text, function call arguments, custom tool input, audio bytes
and the audio transcript). They differ only by names: the event type, the field that
numbers the item's parts, the item type the events imply, the uniform delta each
``.delta`` becomes, and the field of the ``.done`` event that holds the whole content.
:data:`CONTENT_STREAMS` says those names once; the parser has one function for every
delta and one for every ``.done``.

A ``*.delta`` event is also the per-token case, so it has a typed shape,
:class:`DeltaEvent`: decoding straight into it (``forbid_unknown_fields``, fixed-depth
``logprobs``) is the parser's fast path, and :func:`delta_event` builds the same value from
a leniently decoded payload on the general path, so both paths feed one function.
"""

from __future__ import annotations

import binascii
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import msgspec

from ...model.errors import InvalidBase64Error
from ...model.events import (
    DataDelta,
    Delta,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
    TranscriptDelta,
)
from ..coerce import as_int, as_str
from .items import AUDIO, CALL, REASONING, REFUSAL, SUMMARY, TEXT, PartKind


class TopLogprob(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """One alternative token of a delta's logprobs."""

    token: str = ""
    logprob: float = 0.0
    bytes: list[int] | None = None


class Logprob(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """One token's logprob, as ``output_text.delta`` sends it with ``include`` logprobs."""

    token: str = ""
    logprob: float = 0.0
    bytes: list[int] | None = None
    top_logprobs: list[TopLogprob] | None = None


class DeltaEvent(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """Every ``*.delta`` event, with exactly its documented fields.

    The typed decode accepts only this shape: any other field (a vendor extra, an
    ``item``), a wrong type, or ``logprobs`` of another shape fails it, and the payload
    takes the lenient general path instead, so nothing is dropped or rejected. Every
    field has a fixed depth, so the typed decode never accepts nesting the general path's
    depth limit would refuse.
    """

    type: str
    delta: str
    output_index: int | None = None
    content_index: int | None = None
    summary_index: int | None = None
    item_id: str | None = None
    sequence_number: int | None = None
    logprobs: list[Logprob] | None = None
    obfuscation: str | None = None


# The fields of a delta event that say nothing worth keeping per chunk: any other field of
# a leniently decoded one becomes block metadata. Per-delta logprobs are not kept (the
# part's .done carries them all), nor the obfuscation padding or the sequence number.
DELTA_FIELDS: Final = frozenset(DeltaEvent.__struct_fields__)

decode_delta_event: Final = msgspec.json.Decoder(DeltaEvent).decode


def delta_event(payload: dict[str, Any], event_type: str) -> DeltaEvent | None:
    """The :class:`DeltaEvent` of a leniently decoded payload: wrongly typed fields are
    absent; ``None`` when the delta itself is not text (the payload is then kept whole)."""
    text = payload.get("delta")
    if type(text) is not str:
        return None
    return DeltaEvent(
        type=event_type,
        delta=text,
        output_index=as_int(payload.get("output_index")),
        content_index=as_int(payload.get("content_index")),
        summary_index=as_int(payload.get("summary_index")),
        item_id=as_str(payload.get("item_id")),
    )


def audio_delta(text: str) -> DataDelta:
    """The bytes of one ``response.audio.delta``. Base64 that does not decode is an
    :class:`~streamkit.model.errors.InvalidBase64Error` (a ``ProtocolError``): dropping or
    keeping aside a chunk of a PCM stream would silently shift every sample after it."""
    try:
        return DataDelta(binascii.a2b_base64(text))
    except ValueError as exc:  # binascii.Error, or a str that is not ASCII
        raise InvalidBase64Error(
            f"invalid base64 in the delta field of response.audio.delta: {exc}",
            event="response.audio.delta", raw=text[:200]) from None


@dataclass(frozen=True, slots=True)
class ContentStream:
    """One kind of streamed content: ``{prefix}.delta`` grows it, ``{prefix}.done`` states it.
    (Slots, not a NamedTuple: the hot path reads these fields per token, and slot reads
    cost half a tuple getter's.)"""

    prefix: str
    part: PartKind  # the kind of block it grows
    sub_index_field: str | None  # the event field numbering the item's parts (None: one part)
    item_type: str | None  # the item the events imply (None: audio belongs to no item)
    delta: Callable[[str], Delta]  # the uniform delta for one .delta event's text
    done_field: str | None  # the .done event's field with the whole content (None: an end mark)


CONTENT_STREAMS: Final = (
    ContentStream("response.output_text", TEXT, "content_index", "message", TextDelta, "text"),
    ContentStream("response.refusal", REFUSAL, "content_index", "message", TextDelta, "refusal"),
    ContentStream("response.reasoning_summary_text", SUMMARY, "summary_index", "reasoning",
                  ThinkingDelta, "text"),
    ContentStream("response.reasoning_text", REASONING, "content_index", "reasoning",
                  ThinkingDelta, "text"),
    ContentStream("response.function_call_arguments", CALL, None, "function_call",
                  ToolInputDelta, "arguments"),
    ContentStream("response.custom_tool_call_input", CALL, None, "custom_tool_call",
                  ToolInputDelta, "input"),
    ContentStream("response.audio", AUDIO, None, None, audio_delta, None),
    ContentStream("response.audio.transcript", AUDIO, None, None, TranscriptDelta, None),
)
DELTA_EVENTS: Final = {stream.prefix + ".delta": stream for stream in CONTENT_STREAMS}
DONE_EVENTS: Final = {stream.prefix + ".done": stream for stream in CONTENT_STREAMS}
# The two halves of the audio block: it closes once both are done.
AUDIO_STREAMS: Final = frozenset(stream.prefix for stream in CONTENT_STREAMS
                                 if stream.part == AUDIO)
