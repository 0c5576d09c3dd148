"""Block-level merging: the single definition of what each delta does to a block.

Both the :class:`~streamkit.model.accumulate.Accumulator` (events from the provider
parsers) and the ``ChatResponse.append_*`` methods call :func:`apply_delta`, so
there is exactly one place where fragments are merged. Every function here is
O(size of the delta).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from streamkit.model.json_values import copy_json

from .blocks import Block, DataBlock, RawBlock, TextBlock, ThinkingBlock, ToolCallBlock
from .data_sources import Base64Source
from .errors import StreamkitError
from .events import (
    CitationDelta,
    DataDelta,
    Delta,
    MetadataAppendDelta,
    MetadataDelta,
    SignatureDelta,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
    TranscriptDelta,
)

__all__ = [
    "DELTA_APPLIERS",
    "DeltaMismatchError",
    "apply_delta",
    "apply_snapshot",
    "streamed_text",
]


class DeltaMismatchError(StreamkitError, TypeError):
    """A delta was applied to a block of the wrong kind (a parser bug or a
    provider that changed an item's kind mid-stream)."""


def _mismatch(block: Block, delta: Any) -> DeltaMismatchError:
    return DeltaMismatchError(
        f"cannot apply {type(delta).__name__} to {block.type} block {block.id!r}"
    )


def _text(block: Block, delta: TextDelta) -> None:
    if type(block) is not TextBlock:
        raise _mismatch(block, delta)
    block._text.append(delta.text)


def _thinking(block: Block, delta: ThinkingDelta) -> None:
    if type(block) is not ThinkingBlock:
        raise _mismatch(block, delta)
    block._thinking.append(delta.thinking)


def _signature(block: Block, delta: SignatureDelta) -> None:
    if type(block) is ThinkingBlock:
        block.signature = delta.signature
    else:
        block.metadata["signature"] = delta.signature


def _tool_input(block: Block, delta: ToolInputDelta) -> None:
    if type(block) is not ToolCallBlock:
        raise _mismatch(block, delta)
    block._input.append(delta.partial_json)


def _data(block: Block, delta: DataDelta) -> None:
    if type(block) is not DataBlock or not isinstance(block.source, Base64Source):
        raise _mismatch(block, delta)
    block.source.append(delta.data)


def _transcript(block: Block, delta: TranscriptDelta) -> None:
    if type(block) is not DataBlock:
        raise _mismatch(block, delta)
    block._transcript.append(delta.text)


def _citation(block: Block, delta: CitationDelta) -> None:
    if type(block) is not TextBlock:
        raise _mismatch(block, delta)
    block.citations.append(delta.citation)  # frozen: shared with the event, never changed


def _metadata(block: Block, delta: MetadataDelta) -> None:
    block.metadata.update(copy_json(delta.metadata))  # the event keeps its own values


def _metadata_append(block: Block, delta: MetadataAppendDelta) -> None:
    items = block.metadata.setdefault(delta.key, [])
    if type(items) is not list:  # a scalar the provider sent earlier under that key
        items = block.metadata[delta.key] = [items]
    items.extend(copy_json(delta.items))  # the event keeps its own items


DELTA_APPLIERS: dict[type, Callable[[Any, Any], None]] = {
    TextDelta: _text,
    ThinkingDelta: _thinking,
    SignatureDelta: _signature,
    ToolInputDelta: _tool_input,
    DataDelta: _data,
    TranscriptDelta: _transcript,
    CitationDelta: _citation,
    MetadataDelta: _metadata,
    MetadataAppendDelta: _metadata_append,
}


def apply_delta(block: Block, delta: Delta) -> None:
    """Merge one delta into ``block`` in place (amortised O(1) per fragment)."""
    DELTA_APPLIERS[type(delta)](block, delta)


def streamed_text(block: Block) -> str:
    """The text a block's deltas grow: a text's text, a thinking's thinking, a
    call's arguments; ``""`` for blocks that grow none (raw items, media)."""
    if isinstance(block, TextBlock):
        return block.text
    if isinstance(block, ThinkingBlock):
        return block.thinking
    if isinstance(block, ToolCallBlock):
        return block.input
    return ""


def apply_snapshot(block: Block, snapshot: Block) -> None:
    """Fill ``block`` from the provider's authoritative final ``snapshot``.

    Providers that skip deltas send the content only in a ``.done`` event; where
    the deltas already gave everything, nothing changes. Grown fields are
    replaced only when the snapshot holds more, so a snapshot can never erase
    streamed content. Set-once fields (name, signature, opaque data) are filled
    when still empty; metadata keys the block lacks are added. A raw item's
    ``data`` takes the snapshot's values key by key (it has no deltas).
    """
    for key, value in snapshot.metadata.items():
        block.metadata.setdefault(key, value)
    if isinstance(block, TextBlock) and isinstance(snapshot, TextBlock):
        if len(snapshot.text) > len(block.text):
            block.text = snapshot.text
        if not block.citations and snapshot.citations:
            block.citations = list(snapshot.citations)
    elif isinstance(block, ThinkingBlock) and isinstance(snapshot, ThinkingBlock):
        if len(snapshot.thinking) > len(block.thinking):
            block.thinking = snapshot.thinking
        block.signature = block.signature or snapshot.signature
        block.encrypted = block.encrypted or snapshot.encrypted
        block.redacted = block.redacted or snapshot.redacted
    elif isinstance(block, ToolCallBlock) and isinstance(snapshot, ToolCallBlock):
        if len(snapshot.input) > len(block.input):
            block.input = snapshot.input
        block.name = block.name or snapshot.name
        block.incomplete = block.incomplete or snapshot.incomplete
    elif isinstance(block, DataBlock) and isinstance(snapshot, DataBlock):
        if len(snapshot.data) > len(block.data) and isinstance(block.source, Base64Source):
            block.source.replace(snapshot.data)
        if len(snapshot.transcript) > len(block.transcript):
            block.transcript = snapshot.transcript
    elif isinstance(block, RawBlock) and isinstance(snapshot, RawBlock):
        # A raw provider item never gets deltas: its final state (an OpenAI Responses
        # web search's status, action and sources) arrives whole in the snapshot and
        # updates the item key by key; keys only the block has stay.
        block.data.update(snapshot.data)
