"""The blocks of one Chat Completions choice: which block a fragment writes to,
and what has no place. The delta readers (:mod:`.choice` for the entry's own
fields, :mod:`.call_fragments`, :mod:`.reasoning` and :mod:`.audio` for the
fields that are items of their own) all write through a :class:`ChoiceBlocks`.

- Text, refusals and reasoning strings are *sequential* (:class:`Kind`): a
  fragment continues the current block when it is of the same kind and opens a
  new block otherwise, so reasoning that resumes after text stays in order.
- The wire names none of a choice's parts with a key that ends them: every
  block stays open until the choice ends, so a block's ledger key is the index
  it opened at (the choice's
  :class:`~streamkit.providers.ledger.BlockLedger`, the ids shared by the
  stream).
- Groq's ``channel`` -> ``metadata["channel"]`` of the block the chunk wrote
  to, replaced when it changes (never concatenated), said before the text it
  labels.
- Whatever has no place (an unknown delta field, a field of the wrong type, an
  unrecognised content part) is kept in the response's ``metadata["extras"]``
  list as ``{field: value}`` (:meth:`ChoiceBlocks.keep`).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Any, Final, NamedTuple

from ...model.blocks import Block, TextBlock, ThinkingBlock
from ...model.events import (
    BlockDelta,
    Delta,
    Event,
    MetadataDelta,
    ResponseMetadata,
    TextDelta,
    ThinkingDelta,
)
from ..ledger import BlockLedger, OpenBlock

__all__ = ["EXTRAS_KEY", "ChoiceBlocks", "Kind"]

#: Where a choice keeps what it cannot place: ``metadata["extras"]``, a list of
#: ``{field: value}``.
EXTRAS_KEY: Final = "extras"

_MISSING: Final = object()


class Kind(Enum):
    """What a sequential fragment writes. Fragments of one kind in a row share a
    block; a fragment of another kind opens a new block after it."""

    TEXT = "text"
    THINKING = "thinking"
    REFUSAL = "refusal"


class _KindRule(NamedTuple):
    new_block: Callable[[str], Block]  # given its made-up id
    id_prefix: str
    delta: Callable[[str], Delta]


_KINDS: Final[dict[Kind, _KindRule]] = {
    Kind.TEXT: _KindRule(lambda id: TextBlock(id=id), "text", TextDelta),
    Kind.THINKING: _KindRule(lambda id: ThinkingBlock(id=id), "think", ThinkingDelta),
    Kind.REFUSAL: _KindRule(lambda id: TextBlock(id=id, refusal=True), "text", TextDelta),
}


class ChoiceBlocks:
    """The block state of one choice (``choices[].index``, the events'
    ``choice``) and how a fragment is written into it."""

    __slots__ = ("channel", "channel_labels", "index", "kept", "kind", "kind_block", "latest",
                 "ledger", "written")

    def __init__(self, ledger: BlockLedger[OpenBlock]) -> None:
        self.ledger = ledger
        self.index = ledger.choice
        self.kind: Kind | None = None  # the kind of the latest sequential fragment...
        self.kind_block = -1  # ...and the block it wrote to
        self.latest: dict[Kind, int] = {}  # the latest block of each kind
        self.written: int | None = None  # the block the current delta wrote to last
        self.channel: Any = None  # Groq's current channel label...
        self.channel_labels: dict[int, Any] = {}  # ...and the one each block was given
        self.kept: dict[str, Any] = {}  # the latest value kept in extras, by field

    # ------------------------------------------------------------ blocks

    def open(self, block: Block, out: list[Event]) -> int:
        """Start ``block`` at the next index (its ledger key: see the module docstring)."""
        ledger = self.ledger
        index = ledger.open(ledger.next_index, block, out).index
        self.written = index
        return index

    def made_up_id(self, prefix: str) -> str:
        """An id for a block the wire gave none, derived from the stream."""
        return self.ledger.made_up_id(prefix)

    def sequential(self, kind: Kind, out: list[Event]) -> int:
        """The block a fragment of ``kind`` goes to: the current one when it is of
        that kind, else a new one."""
        if self.kind is kind:
            self.written = self.kind_block
            return self.kind_block
        rule = _KINDS[kind]
        index = self.open(rule.new_block(self.made_up_id(rule.id_prefix)), out)
        self.continue_in(kind, index)
        return index

    def continue_in(self, kind: Kind, index: int) -> None:
        """Fragments of ``kind`` continue block ``index`` from now on."""
        self.kind = kind
        self.kind_block = index
        self.latest[kind] = index
        self.written = index

    def thinking_block(self) -> int | None:
        """The thinking block sequential reasoning is writing now, if any."""
        return self.kind_block if self.kind is Kind.THINKING else None

    def continue_thinking(self, index: int) -> None:
        """Reasoning continues block ``index`` (a reasoning detail's)."""
        self.continue_in(Kind.THINKING, index)

    def latest_block(self, kind: Kind, out: list[Event]) -> int:
        """The latest block of ``kind`` (citations and logprobs go there), opened
        when there is none."""
        index = self.latest.get(kind)
        return index if index is not None else self.sequential(kind, out)

    def write(self, kind: Kind, text: str, out: list[Event]) -> None:
        """A non-empty sequential fragment."""
        index = self.sequential(kind, out)
        if self.channel is not None:  # the label first: a writer can put it on this delta
            self.label_channel(index, out)
        out.append(BlockDelta(index=index, delta=_KINDS[kind].delta(text), choice=self.index))

    def continue_text(self, text: str, out: list[Event]) -> None:
        """A delta that is only ``content``: the per-token case, one event."""
        if not text:
            return
        if self.kind is Kind.TEXT:
            out.append(BlockDelta(index=self.kind_block, delta=TextDelta(text), choice=self.index))
        else:
            self.write(Kind.TEXT, text, out)

    # ------------------------------------------------------------ metadata

    def keep(self, key: str, value: Any, out: list[Event]) -> None:
        """Keep what has no place: ``{key: value}`` is appended to
        ``metadata["extras"]``, O(value) whatever came before. A value equal to
        the field's previous one is not repeated, so a constant per-chunk field
        is kept once."""
        if self.kept.get(key, _MISSING) == value:
            return
        self.kept[key] = value
        out.append(ResponseMetadata(append={EXTRAS_KEY: [{key: value}]}, choice=self.index))

    def label_channel(self, index: int, out: list[Event]) -> None:
        """Groq's ``channel``: the block's ``metadata["channel"]``, replaced on change."""
        if self.channel_labels.get(index, _MISSING) != self.channel:
            self.channel_labels[index] = self.channel
            out.append(BlockDelta(index=index, delta=MetadataDelta({"channel": self.channel}),
                                  choice=self.index))
