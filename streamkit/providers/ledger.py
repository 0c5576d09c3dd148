"""The block ledger: one response's lifecycle and open blocks, for every stream parser.

Every wire format streams the same story: the response starts, blocks open,
grow and close, the provider ends the response (or the input simply stops).
What differs is only how a wire names its parts: Anthropic numbers its content
blocks, OpenAI Chat names a choice's fragment kinds and tool-call indexes, the
Responses API has output items and content parts, Gemini extends the last
part, Ollama sends kinds of text and whole calls. A parser keeps its wire's
table of what each event means; the ledger keeps the rest, once:

- the lifecycle, one :class:`Phase` with one set of names;
- ``vendor key -> open block``: the streamkit index each of the wire's parts
  writes to, in opening order (``0, 1, 2...`` per choice, the event contract);
- the ids streamkit makes up (:class:`~streamkit.model.ids.StreamIds`), derived from
  the stream so that two parses of the same bytes agree and the events carry
  them;
- metadata a wire keeps repeating (a field on every chunk), reported only
  when it is new or changed (:meth:`BlockLedger.report`);
- the events that follow from it: one :class:`ResponseStart` (with the
  provider, and an id even when the wire gives none) before any block,
  :class:`BlockStart` / :class:`BlockEnd`, and one :class:`ResponseEnd` after
  the last block, whether the provider ended the response (``terminated``)
  or :meth:`BlockLedger.finish` did at a clean end of input.

The role model is pydantic-ai's parts manager (vendor part id -> part index)
with h11's explicit states. The ledger does no parsing and keeps no content.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from enum import Enum
from typing import Any, Generic, TypeVar

from ..model.blocks import Block
from ..model.events import (
    BlockEnd,
    BlockStart,
    ErrorEvent,
    Event,
    ResponseEnd,
    ResponseMetadata,
    ResponseStart,
)
from ..model.finish import FinishReason
from ..model.ids import StreamIds

__all__ = ["ENDED", "BlockLedger", "OpenBlock", "Phase"]


class Phase(Enum):
    """Where one response is in its lifecycle."""

    WAITING = "nothing yet: the response has not started"
    STREAMING = "the response has started"
    ENDED = "the provider's own end came: the response ended, terminated"
    CUT_OFF = "the input ended first: finish() ended the response, not terminated"


#: The phases after the response's end.
ENDED = frozenset({Phase.ENDED, Phase.CUT_OFF})

_WAITING = Phase.WAITING  # module constants: an Enum member lookup is slower to read
_UNSEEN = object()


class OpenBlock:
    """What the ledger keeps of one open block: its streamkit ``index`` and its
    block class (``kind``). A wire that must remember more about a part (an
    Anthropic tool call's start input, a Gemini call's JSON builder) subclasses
    it and passes the subclass as the ledger's ``slot``."""

    __slots__ = ("index", "kind")

    def __init__(self, index: int, kind: type[Block]) -> None:
        self.index = index
        self.kind = kind

    def __repr__(self) -> str:
        return f"{type(self).__name__}(index={self.index}, kind={self.kind.__name__})"


SlotT = TypeVar("SlotT", bound=OpenBlock)
Snapshot = Callable[[Any], Block | None]


class BlockLedger(Generic[SlotT]):
    """One response's (one choice's) lifecycle and open blocks, keyed by the
    wire's own part keys (any hashable value).

    ``provider`` is the registry name the response is from, ``ids`` the
    stream's made-up ids (shared by every choice of a stream), ``slot`` the
    class of what is kept per open block.
    """

    __slots__ = ("_slot", "blocks", "choice", "errored", "ids", "next_index", "phase",
                 "provider", "reported", "stop_reason")

    def __init__(self, provider: str, ids: StreamIds, *, choice: int = 0,
                 slot: Callable[[int, type[Block]], SlotT] = OpenBlock) -> None:  # type: ignore[assignment]
        self.provider = provider
        self.ids = ids
        self.choice = choice
        self._slot = slot
        self.phase = Phase.WAITING
        #: The open blocks by the wire's part key, in opening order.
        self.blocks: dict[Hashable, SlotT] = {}
        self.next_index = 0
        #: The provider's own stop word, when it gave one (``end_turn``, ``stop``...).
        self.stop_reason: str | None = None
        #: Whether the provider reported an error: the response ends as ``error``.
        self.errored = False
        #: Metadata reported so far by :meth:`report`, by key.
        self.reported: dict[str, Any] = {}

    @property
    def started(self) -> bool:
        return self.phase is not _WAITING

    @property
    def ended(self) -> bool:
        return self.phase in ENDED

    # ------------------------------------------------------------ the response

    def start(self, out: list[Event], *, id: str | None = None, model: str | None = None,
              metadata: dict[str, Any] | None = None) -> None:
        """The response's :class:`ResponseStart` (an id made up when the wire
        gives none); once started, what the wire says later (a late start
        event, a repeated one) is :class:`ResponseMetadata` instead, and only
        when it says something."""
        if self.phase is _WAITING:
            self.phase = Phase.STREAMING
            out.append(ResponseStart(id=id or self.ids.make("resp"), model=model,
                                     metadata=metadata or {}, provider=self.provider,
                                     choice=self.choice))
        elif id or model or metadata:
            out.append(ResponseMetadata(metadata=metadata or {}, id=id, model=model,
                                        choice=self.choice))

    def report(self, key: str, value: Any, out: list[Event]) -> None:
        """Metadata the wire keeps sending (a field repeated on every chunk), as
        :class:`ResponseMetadata` only when it is new or changed."""
        if self.reported.get(key, _UNSEEN) != value:
            self.reported[key] = value
            out.append(ResponseMetadata(metadata={key: value}, choice=self.choice))

    def error(self, event: ErrorEvent, out: list[Event]) -> None:
        """The provider's in-stream error: the response (started now if it had not
        been, so the partial knows its provider) ends as ``error``."""
        self.start(out)
        self.errored = True
        out.append(event)

    def end(self, out: list[Event], reason: FinishReason | None, *,
            terminated: bool = True, snapshot: Snapshot | None = None) -> None:
        """Close every open block and end the response with ``reason`` (``error``
        when the wire gives none after an error; :attr:`stop_reason` is sent
        along); ``terminated`` says the provider's own end came. Nothing happens
        once the response has ended."""
        if self.phase in ENDED:
            return
        self.start(out)  # a response that ends before it starts still starts first
        self.close_all(out, snapshot)
        self.phase = Phase.ENDED if terminated else Phase.CUT_OFF
        if reason is None and self.errored:
            reason = FinishReason.ERROR
        out.append(ResponseEnd(finish_reason=reason, stop_reason=self.stop_reason,
                               terminated=terminated, choice=self.choice))

    def finish(self, out: list[Event], reason: FinishReason | None = None, *,
               snapshot: Snapshot | None = None) -> None:
        """At a clean end of input, unless the provider's end already came: close
        every block and end with ``terminated=False`` and ``reason`` (``error``
        after an error, ``unknown`` when the wire never said why it stopped)."""
        if self.errored:
            reason = FinishReason.ERROR
        self.end(out, reason or FinishReason.UNKNOWN, terminated=False, snapshot=snapshot)

    # ------------------------------------------------------------ blocks

    def open(self, key: Hashable, block: Block, out: list[Event]) -> SlotT:
        """Start ``block`` at the next index for the wire's part ``key`` (starting
        the response first if no start event came). A block still open under
        ``key`` is ended first: a vendor reusing a part key opens a new block."""
        if self.phase is _WAITING:
            self.start(out)
        if key in self.blocks:
            self.close(key, out)
        index = self.next_index
        self.next_index = index + 1
        slot = self.blocks[key] = self._slot(index, type(block))
        out.append(BlockStart(index=index, block=block, choice=self.choice))
        return slot

    def close(self, key: Hashable, out: list[Event], snapshot: Block | None = None) -> SlotT | None:
        """End the block open under ``key`` (with ``snapshot``, what the
        wire's closing event says the block finally is); ``None`` when no block
        is open there (a stop for a part never started closes nothing)."""
        slot = self.blocks.pop(key, None)
        if slot is not None:
            out.append(BlockEnd(index=slot.index, snapshot=snapshot, choice=self.choice))
        return slot

    def close_all(self, out: list[Event], snapshot: Snapshot | None = None) -> None:
        """End every open block in index order; ``snapshot(slot)`` gives each
        block's closing snapshot (or ``None``)."""
        if not self.blocks:
            return
        for key, slot in sorted(self.blocks.items(), key=lambda item: item[1].index):
            self.close(key, out, snapshot(slot) if snapshot is not None else None)

    def made_up_id(self, prefix: str) -> str:
        """An id for something the wire gave none (``text``, ``call``...)."""
        return self.ids.make(prefix)
