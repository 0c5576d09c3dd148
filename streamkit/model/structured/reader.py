"""Structured output as it streams: a partial model after every change.

``events.partial_output(Recipe)`` yields the structured answer as it arrives,
validated as the partial twin of ``Recipe`` (:mod:`streamkit.model.structured.partial`:
every field optional, strings possibly cut, numbers and literals only once
complete), each time it changes; the last item is ``response.parse(Recipe)``.

:class:`PartialOutputReader` is the sans-IO piece behind it (and behind the
``output=`` of :mod:`streamkit.web`): it takes stream events, finds the answer
where ``response.parse`` would, feeds it to an incremental
:class:`~streamkit.model.partial_json.PartialJSON` (each character read once) and asks
a :class:`~streamkit.model.structured.partial.PartialValidator` for the partial value only
when one is wanted. The answer is:

- the answer text (``json_output=Model`` on every wire), refusals excluded, one
  opening Markdown code fence (```` ```json ````) skipped; text that only
  repeats blank space does not count;
- while there is no such text, the arguments of the response's one tool call
  (the forced tool some wires use for structured output, Anthropic's
  ``json_output``). A second tool call with no text makes it ambiguous, and
  text arriving after a tool call wins, as it does for ``parse``.

Text that is not JSON stops the partial values (the last one stays); the final
``parse`` raises the :class:`~streamkit.model.errors.StructuredOutputError` that says
why, with the last partial value in ``error.partial_output``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Final, Generic

from ..blocks import Block, ModelT, TextBlock, ToolCallBlock
from ..errors import StructuredOutputError
from ..events import BlockDelta, BlockEnd, BlockStart, TextDelta, ToolInputDelta
from ..partial_json import PartialJSON, PartialJSONError
from .parse import parse_structured
from .partial import PartialValidator

if TYPE_CHECKING:
    from ..response import ChatResponse

__all__ = ["PartialOutputPacer", "PartialOutputReader", "Throttle", "parse_partial"]

# What a block is to the reader.
_TEXT: Final = 1  # answer text
_TOOL: Final = 2  # a tool call
_OTHER: Final = 0  # thinking, a refusal, data: never the answer

# Where the answer is read from (besides a tool call's block index).
_NOWHERE: Final = "nowhere"  # nothing yet
_FROM_TEXT: Final = "text"
_AMBIGUOUS: Final = "ambiguous"  # several tool calls and no text
_FAILED: Final = "failed"  # the text is not JSON

# How far the answer text has been read: blank space and a fence's first line
# come before the JSON; whatever follows the JSON value is left to ``parse``.
_BEFORE: Final = 0
_IN_FENCE_LINE: Final = 1
_IN_JSON: Final = 2
_AFTER: Final = 3


def _kind(block: Block) -> int:
    if type(block) is TextBlock:
        return _OTHER if block.refusal else _TEXT
    return _TOOL if type(block) is ToolCallBlock else _OTHER


class PartialOutputReader(Generic[ModelT]):
    """The partial structured output of one choice, from its stream events.

    :meth:`push` each event (cheap: it only feeds the parser); :meth:`snapshot`
    returns a new partial value when it changed since the last one (the
    validation work happens there, so a caller that wants one value per frame
    pays per frame); :meth:`finish` is the final value (``response.parse``).
    """

    def __init__(self, model: type[ModelT], *, choice: int = 0) -> None:
        self.model = model
        self.choice = choice
        self.value: ModelT | None = None
        """The last partial value :meth:`snapshot` returned (``None`` before)."""
        self.error: PartialJSONError | None = None
        """Why the answer text stopped being read (it is not JSON), if it did."""
        self._validator = PartialValidator(model)
        self._parser = PartialJSON()
        self._source: int | str = _NOWHERE
        self._kinds: dict[int, int] = {}
        self._fed: dict[int, int] = {}  # characters of each block taken, read or not
        self._text_state = _BEFORE
        self._pending = False

    @property
    def pending(self) -> bool:
        """Whether the answer grew since the last :meth:`snapshot`."""
        return self._pending

    def empty(self) -> ModelT:
        """A partial value with nothing known yet (every field ``None``)."""
        return self._validator.empty()  # type: ignore[return-value]

    # ------------------------------------------------------------ taking events

    def push(self, item: object) -> bool:
        """Take one stream item; ``True`` when it added to the answer."""
        kind = type(item)
        if kind is BlockDelta:
            return self._delta(item)  # type: ignore[arg-type]
        if kind is BlockStart:
            start: BlockStart = item  # type: ignore[assignment]
            return start.choice == self.choice and self.read_block(start.index, start.block)
        if kind is BlockEnd:
            end: BlockEnd = item  # type: ignore[assignment]
            if end.choice != self.choice or end.snapshot is None:
                return False
            return self.read_block(end.index, end.snapshot)
        return False

    def _delta(self, event: BlockDelta) -> bool:
        if event.choice != self.choice:
            return False
        kind = self._kinds.get(event.index)
        delta = event.delta
        if kind == _TEXT and type(delta) is TextDelta:
            self._fed[event.index] += len(delta.text)
            return self._text(delta.text)
        if kind == _TOOL and type(delta) is ToolInputDelta:
            self._fed[event.index] += len(delta.partial_json)
            return self._tool(event.index, delta.partial_json)
        return False

    def read_block(self, index: int, block: Block) -> bool:
        """Take the content of block ``index`` beyond what was taken already:
        a block as it starts, the provider's final snapshot of it, or a live
        block read again (what :meth:`read_blocks` does)."""
        kind = self._kinds.get(index)
        if kind is None:
            kind = self._kinds[index] = _kind(block)
            self._fed[index] = 0
        if kind == _TEXT and type(block) is TextBlock:
            text = block.text
        elif kind == _TOOL and type(block) is ToolCallBlock:
            text = block.input
        else:
            return False
        taken = self._fed[index]
        if len(text) <= taken:
            return False  # a snapshot adds only what the deltas missed
        self._fed[index] = len(text)
        more = text[taken:]
        return self._text(more) if kind == _TEXT else self._tool(index, more)

    def read_blocks(self, blocks: Iterable[tuple[int, Block]]) -> bool:
        """Take every ``(index, block)`` (a response read so far)."""
        took = False
        for index, block in blocks:
            took = self.read_block(index, block) or took
        return took

    # ------------------------------------------------------------ the answer

    def _text(self, text: str) -> bool:
        source = self._source
        if source != _FROM_TEXT:
            if source == _FAILED or not text.strip():
                return False
            self._restart(_FROM_TEXT)
        return self._feed_text(text)

    def _tool(self, index: int, text: str) -> bool:
        source = self._source
        if source == _NOWHERE:
            self._restart(index)
        elif source != index:
            if type(source) is int:
                self._source = _AMBIGUOUS  # the last partial value stays
            return False
        return self._feed(text)

    def _restart(self, source: int | str) -> None:
        """Read the answer from ``source`` from now on, from its beginning."""
        if self._source != _NOWHERE:
            self._parser = PartialJSON()
            self._validator = PartialValidator(self.model)
            self._text_state = _BEFORE
        self._source = source

    def _feed_text(self, text: str) -> bool:
        """Answer text: blank space and a code fence's first line are skipped
        before the JSON; what comes after the JSON value is not read."""
        state = self._text_state
        if state == _AFTER:
            return False
        if state == _BEFORE:
            body = text.lstrip()
            if not body:
                return False
            if body[0] == "`":
                state = _IN_FENCE_LINE
                text = body
            else:
                state = _IN_JSON
        if state == _IN_FENCE_LINE:
            line_end = text.find("\n")
            if line_end < 0:
                self._text_state = state
                return False
            text = text[line_end + 1:]
            state = _IN_JSON
        self._text_state = state
        return self._feed(text)

    def _feed(self, text: str) -> bool:
        if not text:
            return False
        parser = self._parser
        try:
            parser.feed(text)
        except PartialJSONError as error:
            if parser.done:  # the value is whole: the rest is for ``parse`` to judge
                self._text_state = _AFTER
            else:
                self.error = error
                self._source = _FAILED
            return False
        self._pending = True
        if parser.done and self._source == _FROM_TEXT:
            self._text_state = _AFTER
        return True

    # ------------------------------------------------------------ values

    def snapshot(self) -> ModelT | None:
        """The partial value if it changed since the last call, else ``None``."""
        if not self._pending:
            return None
        self._pending = False
        validator = self._validator
        if not validator.read(self._parser):
            return None
        self.value = validator.value  # type: ignore[assignment]
        return self.value

    def current(self) -> ModelT:
        """The partial value now (every field ``None`` before anything is known)."""
        self.snapshot()
        value = self._validator.value
        return self.empty() if value is None else value  # type: ignore[return-value]

    def finish(self, response: ChatResponse) -> ModelT:
        """The final value: ``response.parse(model)``. Its
        :class:`~streamkit.model.errors.StructuredOutputError` carries the last
        partial value in ``partial_output``."""
        try:
            return parse_structured(response, self.model)
        except StructuredOutputError as error:
            error.partial_output = self.value
            raise

    @property
    def unreadable(self) -> bool:
        """Whether the answer cannot be read as it streams: text that is not
        JSON, or several tool calls and no text."""
        return self._source in (_FAILED, _AMBIGUOUS)


class Throttle:
    """At most one value per ``interval`` seconds (``None``: every change).

    Pure: the caller passes the time. A change that comes before the frame
    time waits for the next item after it (or the end)."""

    __slots__ = ("_last", "interval")

    def __init__(self, interval: float | None) -> None:
        if interval is not None and interval < 0:
            raise ValueError(f"interval must be >= 0 seconds or None, got {interval}")
        self.interval = interval
        self._last = -float("inf")

    def due(self, now: float) -> bool:
        return self.interval is None or now - self._last >= self.interval

    def mark(self, now: float) -> None:
        self._last = now


class PartialOutputPacer(Generic[ModelT]):
    """A reader's partial values, at most one per ``interval`` seconds: the one
    step per stream item that ``partial_output``'s async and sync loops
    (:mod:`streamkit.reading.structured`) and the UI stream's ``data-output`` parts
    (:mod:`streamkit.web.output`) take.

    Pure but for ``clock``, called only when the answer changed. ``show_empty=False``
    holds back a value with no field known yet (a UI step that shows none sends none)."""

    __slots__ = ("clock", "reader", "show_empty", "throttle")

    def __init__(self, reader: PartialOutputReader[ModelT], interval: float | None,
                 clock: Callable[[], float], *, show_empty: bool = True) -> None:
        self.reader = reader
        self.throttle = Throttle(interval)
        self.clock = clock
        self.show_empty = show_empty

    def take(self, item: object) -> ModelT | None:
        """The value to show after ``item``: when the answer changed, it is time,
        and the value is new; else ``None``."""
        reader = self.reader
        if not (reader.push(item) or reader.pending):
            return None
        now = self.clock()
        if not self.throttle.due(now):
            return None
        value = reader.snapshot()
        if value is None or not (self.show_empty or value.model_fields_set):
            return None
        self.throttle.mark(now)
        return value


# ---------------------------------------------------------------------- snapshots


def parse_partial(response: ChatResponse, model: type[ModelT]) -> ModelT:
    """``response.parse(model, partial=True)``: the whole ``model`` when the
    answer is complete and valid; else the partial value of what is there
    (every field ``None`` when nothing is). Raises
    :class:`~streamkit.model.errors.StructuredOutputError` only when there is no
    answer to show: a refusal, several tool calls and no text, text that is
    not JSON."""
    try:
        return parse_structured(response, model)
    except StructuredOutputError as error:
        reader = PartialOutputReader(model)
        reader.read_blocks(enumerate(response.content))
        if response.refusal is not None or reader.unreadable:
            error.partial_output = reader.current()
            raise
        return reader.current()
