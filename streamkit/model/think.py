"""Inline ``<think>...</think>`` reasoning: split out of text, and made real thinking blocks.

Two levels, one module: :class:`ThinkSplitter` splits a streamed text channel;
:class:`ThinkTagFilter` uses it on a stream's events.

Models served through vLLM, Ollama's OpenAI-compatible endpoint, LM Studio and
similar put their reasoning inline in the ordinary text stream, wrapped in a tag
pair.  Chunks are cut at arbitrary places, so a tag may arrive split across
chunks (``'...<thi'`` + ``'nk>...'``); :class:`ThinkSplitter` holds back at most
``len(tag) - 1`` characters that could still become a tag and emits everything
else immediately, so reasoning and answer text can be shown live.

Decisions, all deliberate:

* Several think sections are supported: each open tag switches to thinking,
  each close tag back to text.  An open tag inside thinking and a close tag
  inside text are ordinary content and are emitted unchanged.
* ``start_in_thinking=True`` is for models whose chat template already opened
  the tag (DeepSeek-R1 distills, QwQ): the stream then contains only the
  closing tag.
* By default nothing but the tags is stripped: models commonly write
  newlines right after ``</think>`` (and after ``<think>``), and the text-level
  split keeps them, lossless.  ``strip_newlines_after_close=True`` drops the
  line breaks right after each closing tag, as the vendors' own chat UIs do
  (the answer then starts with its first character); the event-level
  ``think_tags`` option (:class:`ThinkTagFilter`, below) turns it on.
* Work is linear: each character is scanned a constant number of times and
  the accumulated text is never re-scanned.

## The event level

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

import re
from typing import Any, Literal

import msgspec

from .blocks import TextBlock, ThinkingBlock
from .events import BlockDelta, BlockEnd, BlockStart, Event, TextDelta, ThinkingDelta
from .ids import StreamIds

__all__ = ["Kind", "Piece", "ThinkSplitter", "ThinkTagFilter"]

Kind = Literal["text", "thinking"]
Piece = tuple[Kind, str]

_LINE_BREAKS = re.compile(r"[\r\n]*")


def _partial_suffix(buf: str, start: int, tag: str) -> int:
    """Length of the longest suffix of ``buf[start:]`` that is a proper prefix of ``tag``."""
    for k in range(min(len(tag) - 1, len(buf) - start), 0, -1):
        if buf.endswith(tag[:k]):
            return k
    return 0


class ThinkSplitter:
    """Incrementally split a text stream into ``"text"`` and ``"thinking"`` pieces.

    ``feed(chunk)`` returns the pieces that can be emitted now -- adjacent pieces
    of the same kind within one call merged, never an empty piece -- and
    ``flush()`` at end of stream emits what was held back as a possible partial
    tag, as the current kind (a dangling ``'<thi'`` is just text).  The pieces
    of a stream are the same however it is chunked.

    ``ignore_in_code_fences=True`` treats tags inside Markdown fenced code
    blocks as content, for answers that *talk about* ``<think>`` in a code
    sample.  A fence is a line starting with at most three spaces and then
    three backticks; each such line toggles "inside a fence" (tildes, and the
    rule that a closing fence must be at least as long as the opening one, are
    not modelled).  The trade-off: fences are tracked in thinking mode too, so
    a model that opens a fence in its reasoning and never closes it will have
    its ``</think>`` treated as thinking content, and the whole answer after it
    stays classified as thinking.  That is why the option is off by default;
    with it on, tags must not start with a space or backtick nor contain a
    newline.

    ``strip_newlines_after_close=True`` drops the CR / LF characters right
    after each closing tag, however the chunks cut them.
    """

    __slots__ = (
        "_close",
        "_fences",
        "_head",
        "_held",
        "_in_fence",
        "_open",
        "_skip_breaks",
        "_spaces",
        "_strip_after_close",
        "_thinking",
        "_ticks",
    )

    def __init__(
        self,
        open_tag: str = "<think>",
        close_tag: str = "</think>",
        start_in_thinking: bool = False,
        *,
        ignore_in_code_fences: bool = False,
        strip_newlines_after_close: bool = False,
    ) -> None:
        if not open_tag or not close_tag:
            raise ValueError("tags must be non-empty")
        if ignore_in_code_fences:
            for tag in (open_tag, close_tag):
                if "\n" in tag or tag[0] in " `":
                    raise ValueError(
                        f"with ignore_in_code_fences, tag {tag!r} must not contain a "
                        "newline nor start with a space or backtick"
                    )
        self._open = open_tag
        self._close = close_tag
        self._thinking = start_in_thinking
        self._fences = ignore_in_code_fences
        self._held = ""  # a suffix that may be the start of a tag
        self._strip_after_close = strip_newlines_after_close
        self._skip_breaks = False  # right after a closing tag: line breaks to drop
        self._in_fence = False
        # Fence detection state for the current line: still in its head (only
        # up to three spaces and then backticks seen), and what was counted.
        self._head = True
        self._spaces = 0
        self._ticks = 0

    @property
    def in_thinking(self) -> bool:
        """True while the stream is inside a think section."""
        return self._thinking

    @property
    def in_code_fence(self) -> bool:
        """True while inside a fenced code block (only tracked with ``ignore_in_code_fences``)."""
        return self._in_fence

    def feed(self, text: str) -> list[Piece]:
        """Consume a chunk; return the pieces that are certain now."""
        out: list[tuple[Kind, list[str]]] = []
        if not text:
            return []
        if not self._held and not self._skip_breaks and (
            (self._in_fence or (self._close if self._thinking else self._open)[0] not in text)
            and (not self._fences or (not self._head and "\n" not in text))
        ):
            # Fast path for the common chunk: nothing held, no tag can start
            # in it, and (with fences) no line boundary to track.
            return [("thinking" if self._thinking else "text", text)]
        buf = self._held + text
        self._held = ""
        n = len(buf)
        end = n  # text after this index is held back
        start = 0  # start of the not yet emitted run of the current kind
        pos = 0
        fences = self._fences
        while pos < n:
            if self._skip_breaks:
                breaks = _LINE_BREAKS.match(buf, pos)  # always matches, maybe nothing
                breaks_end = breaks.end() if breaks is not None else pos
                if breaks_end > pos and fences:  # a line break: the next line's head
                    self._head = True
                    self._spaces = self._ticks = 0
                pos = start = breaks_end
                if pos == n:
                    break
                self._skip_breaks = False
            if fences and self._head:
                c = buf[pos]
                if c == "`":
                    self._ticks += 1
                    pos += 1
                    if self._ticks == 3:
                        self._in_fence = not self._in_fence
                        self._head = False
                    continue
                if c == " " and not self._ticks and self._spaces < 3:
                    self._spaces += 1
                    pos += 1
                    continue
                self._head = False
            tag = self._close if self._thinking else self._open
            if fences:
                nl = buf.find("\n", pos)
                line_end = n if nl < 0 else nl
                idx = -1 if self._in_fence else buf.find(tag, pos, line_end)
            else:
                nl = -1
                idx = buf.find(tag, pos)
            if idx >= 0:
                self._emit(out, buf[start:idx])
                self._thinking = not self._thinking
                pos = start = idx + len(tag)
                self._skip_breaks = self._strip_after_close and not self._thinking
                continue
            if nl >= 0:
                pos = nl + 1
                self._head = True
                self._spaces = self._ticks = 0
                continue
            if not self._in_fence:
                end = n - _partial_suffix(buf, pos, tag)
                self._held = buf[end:]
            break
        self._emit(out, buf[start:end])
        return [(kind, "".join(parts)) for kind, parts in out]

    def flush(self) -> list[Piece]:
        """End of stream: emit the held-back partial tag (if any) as the current kind."""
        held, self._held = self._held, ""
        if not held:
            return []
        return [("thinking" if self._thinking else "text", held)]

    def _emit(self, out: list[tuple[Kind, list[str]]], s: str) -> None:
        """Append ``s`` as the current kind, merging with a preceding piece of that kind.

        Parts are joined once at the end of :meth:`feed`, so merging stays linear.
        """
        if not s:
            return
        kind: Kind = "thinking" if self._thinking else "text"
        if out and out[-1][0] == kind:
            out[-1][1].append(s)
        else:
            out.append((kind, [s]))


# ---------------------------------------------------------------------- the event level


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
