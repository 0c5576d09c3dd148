"""The event vocabulary: what every provider parser emits and every consumer reads.

A stream is a sequence of these events and ends with the final
:class:`~streamkit.model.response.ChatResponse`:

- :class:`ResponseStart` once per choice (id, model, provider metadata);
- per block: :class:`BlockStart`, any number of :class:`BlockDelta`, :class:`BlockEnd`;
- :class:`UsageUpdate`, :class:`ResponseMetadata` whenever the provider reports them;
- :class:`ResponseEnd` with the finish reason; :class:`ErrorEvent` when the
  provider reports an error mid-stream.

``index`` is the block's position within its choice's response; ``choice`` is
the choice index (``n > 1`` on OpenAI Chat), 0 otherwise.

Events are values: every event and delta is a frozen struct, and nothing that
applies one (an :class:`~streamkit.model.accumulate.Accumulator`, a UI's own copy, a
second accumulator over the same events) changes it or anything it holds.
The block of a :class:`BlockStart` and the ``snapshot`` of a :class:`BlockEnd`
are the provider's content at that moment; an accumulator copies them rather
than adopting them. To read the current state of a block while it streams, ask
the stream (``stream.block(event)``) or the accumulator
(``accumulator.block(index, choice)``): that is the stream's own live block, a
read-only view that grows as the stream goes on, never a per-delta copy.
"""

from __future__ import annotations

from typing import Any

import msgspec

from .blocks import Block, Citation
from .finish import FinishReason
from .usage import ChatUsage

__all__ = [
    "BlockDelta",
    "BlockEnd",
    "BlockStart",
    "CitationDelta",
    "DataDelta",
    "Delta",
    "ErrorEvent",
    "Event",
    "MetadataAppendDelta",
    "MetadataDelta",
    "ResponseEnd",
    "ResponseMetadata",
    "ResponseStart",
    "SignatureDelta",
    "TextDelta",
    "ThinkingDelta",
    "ToolInputDelta",
    "TranscriptDelta",
    "UsageUpdate",
    "event_to_dict",
]

# ---------------------------------------------------------------- deltas


class TextDelta(msgspec.Struct, tag="text", gc=False, frozen=True):
    """More text for a :class:`~streamkit.model.blocks.TextBlock`."""

    text: str


class ThinkingDelta(msgspec.Struct, tag="thinking", gc=False, frozen=True):
    """More reasoning for a :class:`~streamkit.model.blocks.ThinkingBlock`."""

    thinking: str


class SignatureDelta(msgspec.Struct, tag="signature", gc=False, frozen=True):
    """The block's signature; it *replaces* any earlier one, never appends.

    On a thinking block it sets ``signature``; on any other block (a Gemini
    thought signature on text or a tool call) it sets ``metadata["signature"]``.
    """

    signature: str


class ToolInputDelta(msgspec.Struct, tag="tool_input", gc=False, frozen=True):
    """More raw JSON argument text for a :class:`~streamkit.model.blocks.ToolCallBlock`."""

    partial_json: str


class DataDelta(msgspec.Struct, tag="data", gc=False, frozen=True):
    """More raw bytes for a :class:`~streamkit.model.blocks.DataBlock` (already decoded
    from base64: the bytes themselves)."""

    data: bytes


class TranscriptDelta(msgspec.Struct, tag="transcript", gc=False, frozen=True):
    """More transcript text for an audio :class:`~streamkit.model.blocks.DataBlock`."""

    text: str


class CitationDelta(msgspec.Struct, tag="citation", gc=False, frozen=True):
    """One more citation for a text block (the provider's object in its ``raw``)."""

    citation: Citation


class MetadataDelta(msgspec.Struct, tag="metadata", gc=False, frozen=True):
    """Provider extras for a block: each key replaces the block's earlier value."""

    metadata: dict[str, Any]


class MetadataAppendDelta(msgspec.Struct, tag="metadata_append", gc=False, frozen=True):
    """Items appended to the list at the block's ``metadata[key]`` (created when
    absent): for provider extras that grow with the stream (OpenAI Chat
    ``logprobs``, Vertex partial arguments it could not place), O(items) each."""

    key: str
    items: list[Any]


Delta = (
    TextDelta
    | ThinkingDelta
    | SignatureDelta
    | ToolInputDelta
    | DataDelta
    | TranscriptDelta
    | CitationDelta
    | MetadataDelta
    | MetadataAppendDelta
)

# ---------------------------------------------------------------- events


class ResponseStart(msgspec.Struct, tag="response_start", kw_only=True, frozen=True):
    """A response (one per choice) has begun."""

    id: str | None = None
    model: str | None = None
    metadata: dict[str, Any] = {}
    choice: int = 0
    provider: str | None = None
    """The registry name of the API (the parser's name): whose signatures these are."""


class BlockStart(msgspec.Struct, tag="block_start", kw_only=True, frozen=True):
    """A block opens at ``index``; ``block`` may already hold content (a complete
    Anthropic redacted-thinking block, a Gemini function call, an image)."""

    index: int
    block: Block
    choice: int = 0


class BlockDelta(msgspec.Struct, tag="block_delta", kw_only=True, gc=False, frozen=True):
    """An increment for the block at ``index``."""

    index: int
    delta: Delta
    choice: int = 0


class BlockEnd(msgspec.Struct, tag="block_end", kw_only=True, frozen=True):
    """The block at ``index`` is complete.

    ``snapshot`` is the provider's authoritative final content when it sent one
    (an OpenAI Responses ``.done`` event, ``output_item.done``): the
    accumulator fills in whatever the deltas missed.
    """

    index: int
    choice: int = 0
    snapshot: Block | None = None


class UsageUpdate(msgspec.Struct, tag="usage", kw_only=True, frozen=True):
    """Token usage; merged by ``usage.accounting`` (cumulative replaces)."""

    usage: ChatUsage
    choice: int = 0


#: Key of ``ResponseMetadata.metadata`` (and so of ``response.metadata``) that
#: keeps a reader's last payload cut off by the end of input: the raw text of
#: an event that never came whole, kept so nothing received is lost, which no
#: encoder writes back as a field of its wire (it never was one).
TRUNCATED_PAYLOAD = "truncated_payload"


def without_cut_payload(metadata: dict[str, Any]) -> dict[str, Any]:
    """``metadata`` without a cut event's raw text a reader kept
    (:data:`~streamkit.model.events.TRUNCATED_PAYLOAD`): written back it would
    be a field no SDK's type has (extra fields forbidden), and a cut event is
    no frame of any wire; the error that ends such a stream says it was cut."""
    return {key: value for key, value in metadata.items() if key != TRUNCATED_PAYLOAD}


class ResponseMetadata(msgspec.Struct, tag="response_metadata", kw_only=True, frozen=True):
    """Response-level extras (a moderation result, a system fingerprint, a new
    model name): each key of ``metadata`` replaces the earlier value, each list
    of ``append`` extends the list at its key (payloads a parser keeps without
    understanding them); ``id`` / ``model`` when set."""

    metadata: dict[str, Any] = {}
    append: dict[str, list[Any]] = {}
    id: str | None = None
    model: str | None = None
    choice: int = 0


class ResponseEnd(msgspec.Struct, tag="response_end", kw_only=True, frozen=True):
    """The response for ``choice`` is finished.

    ``finish_reason`` is the uniform reason, ``stop_reason`` the
    provider's raw one, ``terminated`` whether the provider's own end marker
    (``[DONE]``, ``message_stop``, a finish reason) was seen; a clean end of
    input without one still ends the response, with ``terminated=False``.
    """

    finish_reason: FinishReason | None = None
    stop_reason: str | None = None
    terminated: bool = True
    choice: int = 0


class ErrorEvent(msgspec.Struct, tag="error", kw_only=True, frozen=True):
    """The provider reported an error in the stream; the stream layer raises
    :class:`~streamkit.model.errors.ProviderError` carrying the partial response."""

    message: str
    code: str | None = None
    error_type: str | None = None
    status: int | None = None
    raw: Any = None
    choice: int = 0


Event = (
    ResponseStart
    | BlockStart
    | BlockDelta
    | BlockEnd
    | UsageUpdate
    | ResponseMetadata
    | ResponseEnd
    | ErrorEvent
)


def _enc_hook(obj: Any) -> Any:
    if isinstance(obj, Block):
        return obj.to_dict()
    if isinstance(obj, ChatUsage):
        return obj.to_dict()
    raise NotImplementedError(f"cannot serialise {type(obj).__name__}")


def event_to_dict(event: Event) -> dict[str, Any]:
    """A JSON-ready dict of an event (blocks as dicts, bytes as base64)."""
    out = msgspec.to_builtins(event, enc_hook=_enc_hook)
    assert isinstance(out, dict)
    return out
