"""Inline ``<think>`` tags as real thinking blocks, at the event level.

:class:`ThinkTagFilter` sits between a provider parser and the accumulator. It
runs every (non-refusal) text block of the stream through a
:class:`~streamkit.model.think.ThinkSplitter` and turns the pieces into alternating
:class:`~streamkit.model.blocks.ThinkingBlock` / :class:`~streamkit.model.blocks.TextBlock`
blocks, renumbering block indexes so the result is an ordinary event stream:
every consumer sees thinking as thinking, whatever server put it inline.
Enabled per dialect (a parser's ``think_tags``) or by the caller
(``streamkit.stream(..., think_tags=True)``).

The line breaks a model writes right after ``</think>`` are dropped, as the
vendors' own chat UIs do: the answer's text block starts with its first
character (``"<think>plan</think>\n\nHello"`` gives the thinking ``"plan"``
and the text ``"Hello"``), and a text part that was only those line breaks
opens no block at all.
"""

from __future__ import annotations

from typing import Any

import msgspec

from .blocks import TextBlock, ThinkingBlock
from .events import BlockDelta, BlockEnd, BlockStart, Event, TextDelta, ThinkingDelta
from .ids import StreamIds
from .think import Kind, ThinkSplitter


class _TextState:
    """A provider text block being split: its splitter, the block now open, and
    the ids of the blocks it splits into (derived from the provider block's id,
    so two parses of the same stream agree)."""

    __slots__ = ("id_used", "ids", "kind", "out", "splitter", "template")

    def __init__(self, splitter: ThinkSplitter, template: TextBlock) -> None:
        self.splitter = splitter
        self.template = template
        self.kind: Kind | None = None
        self.out: int | None = None
        self.id_used = False
        self.ids = StreamIds()
        self.ids.seed(template.id)


class _ChoiceState:
    __slots__ = ("index_map", "next_index", "texts")

    def __init__(self) -> None:
        self.next_index = 0
        self.index_map: dict[int, int] = {}
        self.texts: dict[int, _TextState] = {}


class ThinkTagFilter:
    """Rewrites a parser's events so inline think tags become thinking blocks."""

    def __init__(self, open_tag: str = "<think>", close_tag: str = "</think>",
                 start_in_thinking: bool = False) -> None:
        self.open_tag = open_tag
        self.close_tag = close_tag
        self.start_in_thinking = start_in_thinking
        self._choices: dict[int, _ChoiceState] = {}

    def _state(self, choice: int) -> _ChoiceState:
        state = self._choices.get(choice)
        if state is None:
            state = self._choices[choice] = _ChoiceState()
        return state

    def process(self, events: list[Event]) -> list[Event]:
        """The rewritten events for a batch of parser events."""
        out: list[Event] = []
        for event in events:
            kind = type(event)
            if kind is BlockDelta:
                self._delta(event, out)  # type: ignore[arg-type]
            elif kind is BlockStart:
                self._start(event, out)  # type: ignore[arg-type]
            elif kind is BlockEnd:
                self._end(event, out)  # type: ignore[arg-type]
            else:
                out.append(event)
        return out

    def _start(self, event: BlockStart, out: list[Event]) -> None:
        state = self._state(event.choice)
        block: Any = event.block
        if type(block) is TextBlock and not block.refusal:
            text = block.text
            template = TextBlock(id=block.id, citations=list(block.citations),
                                 metadata=dict(block.metadata))
            splitter = ThinkSplitter(self.open_tag, self.close_tag, self.start_in_thinking,
                                     strip_newlines_after_close=True)
            state.texts[event.index] = _TextState(splitter, template)
            if text:
                self._pieces(state, event.index, event.choice, splitter.feed(text), out)
            return
        state.index_map[event.index] = state.next_index
        state.next_index += 1
        out.append(BlockStart(index=state.index_map[event.index], block=event.block,
                              choice=event.choice))

    def _delta(self, event: BlockDelta, out: list[Event]) -> None:
        state = self._state(event.choice)
        text_state = state.texts.get(event.index)
        if text_state is None:
            index = state.index_map.get(event.index, event.index)
            if index != event.index:  # a new event: the parser's one stays as it was
                event = msgspec.structs.replace(event, index=index)
            out.append(event)
            return
        if type(event.delta) is TextDelta:
            pieces = text_state.splitter.feed(event.delta.text)
            self._pieces(state, event.index, event.choice, pieces, out)
            return
        if text_state.out is None:  # a citation or metadata before any text
            self._open(state, text_state, "text", event.choice, out)
        assert text_state.out is not None
        out.append(BlockDelta(index=text_state.out, delta=event.delta, choice=event.choice))

    def _end(self, event: BlockEnd, out: list[Event]) -> None:
        state = self._state(event.choice)
        text_state = state.texts.pop(event.index, None)
        if text_state is None:
            out.append(BlockEnd(index=state.index_map.get(event.index, event.index),
                                choice=event.choice, snapshot=event.snapshot))
            return
        splitter = text_state.splitter
        if text_state.out is None and isinstance(event.snapshot, TextBlock):
            # the text came only in the authoritative snapshot: split it now
            self._pieces_for(state, text_state, event.choice,
                             splitter.feed(event.snapshot.text), out)
        self._pieces_for(state, text_state, event.choice, splitter.flush(), out)
        if text_state.out is not None:
            out.append(BlockEnd(index=text_state.out, choice=event.choice))

    def _pieces(self, state: _ChoiceState, index: int, choice: int,
                pieces: list[tuple[Kind, str]], out: list[Event]) -> None:
        self._pieces_for(state, state.texts[index], choice, pieces, out)

    def _pieces_for(self, state: _ChoiceState, text_state: _TextState, choice: int,
                    pieces: list[tuple[Kind, str]], out: list[Event]) -> None:
        for kind, piece in pieces:
            if kind != text_state.kind:
                if text_state.out is not None:
                    out.append(BlockEnd(index=text_state.out, choice=choice))
                self._open(state, text_state, kind, choice, out)
            assert text_state.out is not None
            delta = ThinkingDelta(piece) if kind == "thinking" else TextDelta(piece)
            out.append(BlockDelta(index=text_state.out, delta=delta, choice=choice))

    def _open(self, state: _ChoiceState, text_state: _TextState, kind: Kind, choice: int,
              out: list[Event]) -> None:
        template = text_state.template
        block: Any
        if kind == "thinking":
            block = ThinkingBlock(id=text_state.ids.make("think"),
                                  metadata={**template.metadata, "source": "think_tags"})
        elif not text_state.id_used:  # the first text part keeps the provider's id
            block = TextBlock(id=template.id, citations=template.citations,
                              metadata=dict(template.metadata))
            text_state.id_used = True
        else:
            block = TextBlock(id=text_state.ids.make("text"), metadata=dict(template.metadata))
        text_state.kind = kind
        text_state.out = state.next_index
        state.next_index += 1
        out.append(BlockStart(index=text_state.out, block=block, choice=choice))
