"""OpenRouter's ``delta.reasoning_details[]``: one thinking block per detail ``index``.

A detail is ``reasoning.text`` (text and a signature), ``reasoning.summary`` or
``reasoning.encrypted`` (opaque ``data`` to send back). When a chunk's details
carry the reasoning text, the chunk's ``reasoning`` string is the same text and
is skipped (:meth:`ReasoningDetails.read` says whether they did). A detail that
arrives while reasoning streamed as plain strings describes that block instead
of opening a new one. Encrypted data that comes after a block opened reaches it
through its ``BlockEnd`` snapshot; a detail's other fields (``format``...) and
the type it started as (``reasoning_type``) are the block's metadata.
"""

from __future__ import annotations

from typing import Any, Final

from ...model.blocks import Block, ThinkingBlock
from ...model.events import BlockDelta, Event, MetadataDelta, SignatureDelta, ThinkingDelta
from ..coerce import as_int, as_str
from .choice_blocks import ChoiceBlocks

__all__ = ["ReasoningDetails"]

# Each detail type and the field its visible text is in (encrypted details have none).
_TEXT_FIELD: Final[dict[str, str | None]] = {
    "reasoning.text": "text",
    "reasoning.summary": "summary",
    "reasoning.encrypted": None,
}
_DETAIL_FIELDS: Final = frozenset({"type", "index", "id", "text", "summary", "signature",
                                   "data"})


class _Detail:
    """One detail ``index``: its block and what the block's end needs."""

    __slots__ = ("block", "block_id", "encrypted", "metadata", "visible")

    def __init__(self) -> None:
        self.block: int | None = None
        self.block_id = ""
        self.metadata: dict[str, Any] = {}  # as reported so far
        self.encrypted: list[str] = []  # encrypted data that arrived after the block opened
        self.visible = False  # some text was shown


class ReasoningDetails:
    """A choice's reasoning details by their ``index``."""

    __slots__ = ("by_index", "described")

    def __init__(self) -> None:
        self.by_index: dict[int, _Detail] = {}
        self.described: set[int] = set()  # the blocks some detail has

    def read(self, choice: ChoiceBlocks, details: Any, out: list[Event]) -> bool:
        """One chunk's details; whether any carried reasoning text."""
        if type(details) is not list:
            choice.keep("reasoning_details", details, out)
            return False
        any_text = False
        for detail in details:
            kind = detail.get("type") if type(detail) is dict else None
            if type(kind) is not str or kind not in _TEXT_FIELD:
                choice.keep("reasoning_details", detail, out)
                continue
            any_text = self._detail(choice, kind, detail, out) or any_text
        return any_text

    def _detail(self, choice: ChoiceBlocks, kind: str, detail: dict[str, Any],
                out: list[Event]) -> bool:
        position = as_int(detail.get("index")) or 0
        entry = self.by_index.get(position)
        if entry is None:
            entry = self.by_index[position] = _Detail()
        text_field = _TEXT_FIELD[kind]
        text = as_str(detail.get(text_field)) or None if text_field is not None else None
        signature = as_str(detail.get("signature")) or None
        data = as_str(detail.get("data")) or None if kind == "reasoning.encrypted" else None
        changed = {key: value for key, value in detail.items()
                   if key not in _DETAIL_FIELDS and value is not None
                   and entry.metadata.get(key) != value}
        if "reasoning_type" not in entry.metadata:
            changed["reasoning_type"] = kind  # set once: the type the detail started as
        detail_id = as_str(detail.get("id")) or None
        if detail_id is not None and not entry.block_id:
            entry.block_id = detail_id
            if entry.block is not None:  # the block opened under another id
                changed["id"] = detail_id
        entry.metadata.update(changed)
        if entry.block is None:
            if text is None and signature is None and data is None:
                return False  # nothing to show yet (the metadata waits for the block)
            if self._open(choice, entry, data, text, out):
                data = None  # the new block holds it
            changed = {}  # so does the block's metadata
        index = entry.block
        assert index is not None
        choice.continue_thinking(index)
        if changed:
            out.append(BlockDelta(index=index, delta=MetadataDelta(changed), choice=choice.index))
        if text is not None:
            entry.visible = True
            out.append(BlockDelta(index=index, delta=ThinkingDelta(text), choice=choice.index))
        if signature is not None:
            out.append(BlockDelta(index=index, delta=SignatureDelta(signature),
                                  choice=choice.index))
        if data is not None:
            entry.encrypted.append(data)
        return text is not None

    def _open(self, choice: ChoiceBlocks, entry: _Detail, data: str | None, text: str | None,
              out: list[Event]) -> bool:
        """The detail's block: the thinking block plain reasoning strings are
        writing, when no detail describes it yet (it gets the detail's metadata),
        else a new block holding ``data``; whether it is a new one."""
        current = choice.thinking_block()
        if current is not None and current not in self.described:
            self.described.add(current)
            entry.block = current
            metadata = dict(entry.metadata)
            if entry.block_id:
                metadata["id"] = entry.block_id
            out.append(BlockDelta(index=current, delta=MetadataDelta(metadata),
                                  choice=choice.index))
            return False
        block = ThinkingBlock(id=entry.block_id or choice.made_up_id("think"), encrypted=data,
                              redacted=data is not None and text is None,
                              metadata=dict(entry.metadata))
        entry.block_id = block.id
        entry.block = choice.open(block, out)
        self.described.add(entry.block)
        return True

    def snapshots(self, choice: ChoiceBlocks) -> dict[int, Block]:
        """The ``BlockEnd`` snapshots of details whose encrypted data came after
        their block opened."""
        return {
            entry.block: ThinkingBlock(id=entry.block_id or choice.made_up_id("think"),
                                       encrypted="".join(entry.encrypted),
                                       redacted=not entry.visible)
            for entry in self.by_index.values() if entry.encrypted and entry.block is not None
        }
