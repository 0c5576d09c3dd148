"""The incremental validation that fills a pydantic model's partial twin as its JSON streams.

:class:`PartialValidator` turns the view of an incremental
:class:`~streamkit.model.partial_json.PartialJSON` into an instance of the
model's partial twin (:func:`~streamkit.model.structured.shapes.partial_model`,
which is also importable from here) after each fragment, without revisiting
what it validated before:

* the parser knows which part of its view is still open: one chain of
  containers from the root down to at most one string being streamed (its
  ``open_path``); everything off that chain is complete and never changes;
* a value is validated once, when it completes, and kept; the containers on
  the open chain are rebuilt from the kept values and the one open child;
* a read that changes nothing visible says so (:meth:`PartialValidator.read`
  returns ``False``), so a stream yields only changes.

A read therefore costs the depth of the open chain, plus the children of each
container on it (a new list is a new list of the items kept) and the length of
the string being streamed (each value is its own ``str``): never the whole
answer. Over a whole answer each character is validated once. What a partial
value holds, per type of the model, is :mod:`streamkit.model.structured.shapes`'s
to say.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any, Final

from .shapes import MISSING, Shape, model_shape, partial_model

if TYPE_CHECKING:
    from pydantic import BaseModel

    from ..blocks import ModelT, ToolCallBlock
    from ..partial_json import PartialJSON

__all__ = ["PartialValidator", "block_partial_output", "partial_model"]


#: ``(raw, value)`` of the container that closed since the last read: none.
_NOTHING_CLOSED: Final = (MISSING, MISSING)


class _Frame:
    """An open container on the parser's open chain: the values of its
    complete children (validated once) and what it showed last."""

    __slots__ = ("count", "done", "open_key", "open_value", "raw", "shape", "value")

    def __init__(self, shape: Shape, raw: Any) -> None:
        self.shape = shape
        self.raw = raw
        self.done: Any = {} if type(raw) is dict else []
        self.count = 0  # children of ``raw`` validated into ``done``
        self.value: Any = MISSING  # the value built last
        self.open_key: Any = None  # the open child it was built with
        self.open_value: Any = MISSING

    def absorb(self, has_open: bool, closed: tuple[Any, Any]) -> tuple[bool, bool]:
        """Validate the children completed since the last read (all but an
        open last one). Returns whether one of them adds something not shown
        before, and whether the child shown open before is among them (its
        shown value is kept when the complete one is equal, so unchanged
        values stay the same objects)."""
        raw = self.raw
        end = len(raw) - has_open
        if end <= self.count:
            return False, False
        if type(raw) is list:
            keys: Any = range(self.count, end)
        else:  # the newest keys are the last ones: walk back from the end
            keys = list(itertools.islice(reversed(raw), has_open, has_open + end - self.count))
            keys.reverse()
        fresh = shown_closed = False
        shape = self.shape
        done = self.done
        closed_raw, closed_value = closed
        for key in keys:
            slot = shape.child(key)
            if slot is None:
                continue
            item = raw[key]
            value = closed_value if item is closed_raw else slot.complete(item)
            if key == self.open_key and self.open_value is not MISSING:
                shown_closed = True
                if value is self.open_value or value == self.open_value:
                    value = self.open_value
                else:
                    fresh = True
            elif value is not MISSING and not (value is None and slot.name is not None):
                fresh = True  # (a model field's null shows as the None it showed already)
            if value is MISSING:
                continue
            if type(done) is list:
                done.append(value)
            else:
                done[slot.name if slot.name is not None else key] = value
        self.count = end
        return fresh, shown_closed

    def update(self, has_open: bool, key: Any, value: Any, closed: tuple[Any, Any]) -> bool:
        """Take in what completed and the open child's value; rebuild the
        value when something visible changed. Returns whether it did."""
        old_key, old_value = self.open_key, self.open_value
        fresh = False
        if len(self.raw) - has_open > self.count:
            fresh, shown_closed = self.absorb(has_open, closed)
            if shown_closed:
                old_key, old_value = None, MISSING
        self.open_key, self.open_value = key, value
        if not fresh and value is old_value and (value is MISSING or key == old_key) and (
                self.value is not MISSING):
            return False
        self.value = self.shape.build(self.done, key, value)
        return True


class PartialValidator:
    """The partial value of ``model`` read from a :class:`PartialJSON` view.

    Call :meth:`read` after feeding the parser (as often as you like; each
    call costs what changed, see the module docstring); :attr:`value` is the
    latest partial instance (``None`` until the JSON object has opened). The
    parser must only ever be fed (a new parser needs a new validator).
    """

    __slots__ = ("_closed_root", "_frames", "_tip", "_tip_value", "_version", "shape", "value")

    def __init__(self, model: type[BaseModel]) -> None:
        self.shape = model_shape(model)
        self.value: BaseModel | None = None
        self._frames: list[_Frame] = []
        self._tip: tuple[Any, Any, str] | None = None  # (container, key, text) shown
        self._tip_value: Any = MISSING
        self._closed_root: Any = None
        self._version = -1  # the parser's version at the last read

    @property
    def partial_class(self) -> type[BaseModel]:
        """The class of every partial value (see :func:`partial_model`)."""
        assert self.shape.cls is not None
        return self.shape.cls

    def empty(self) -> BaseModel:
        """A partial value with nothing known yet (every field ``None``)."""
        return self.shape.make({})

    def read(self, parser: PartialJSON) -> bool:
        """Bring :attr:`value` up to date with ``parser``; ``True`` when it changed."""
        version = parser.version
        if version == self._version:
            return False
        self._version = version
        chain, keys, tip = parser.open_chain()
        root = parser.value
        if type(root) is not dict:
            return False  # nothing yet, or not a JSON object (the final parse says so)
        frames = self._frames
        if frames and len(frames) == len(chain) and frames[-1].raw is chain[-1]:
            closed = _NOTHING_CLOSED  # the same open chain (a container has one place)
        else:
            closed = self._sync(chain)
            if not chain:  # the object is complete
                return self._read_closed(root, closed)
            self._open(chain, keys)
        depth = len(frames)
        innermost = len(chain) - 1
        value: Any = MISSING
        if depth == len(chain) and tip is not None:
            container, key = tip
            text = container[key]
            cached = self._tip
            if cached is not None and cached[2] is text and cached[0] is container and (
                    cached[1] == key):
                value = self._tip_value
            else:
                value = self._tip_read(frames[-1], key, text)
        changed = False
        for index in range(depth - 1, -1, -1):
            if index < innermost:
                has_open, key = True, keys[index + 1]
            elif tip is not None:
                has_open, key = True, tip[1]
            else:
                has_open, key = False, None
            frame = frames[index]
            changed = frame.update(has_open, key, value, closed)
            value = frame.value
        if changed:
            self.value = value
        return changed

    def _read_closed(self, root: dict[str, Any], closed: tuple[Any, Any]) -> bool:
        """The value of the complete object: its frame's, or validated whole
        when it came in one piece."""
        if root is self._closed_root:
            return False
        self._closed_root = root
        value = closed[1] if closed[0] is root else self.shape.complete(root)
        if value is self.value:
            return False
        self.value = value
        return True

    def _sync(self, chain: list[Any]) -> tuple[Any, Any]:
        """Close the frames no longer on the open chain (innermost first); the
        outermost of them (a child of the deepest frame still open) is
        returned as ``(raw, value)`` for its parent to take."""
        frames = self._frames
        depth = 0
        limit = min(len(frames), len(chain))
        while depth < limit and frames[depth].raw is chain[depth]:
            depth += 1
        closed: tuple[Any, Any] = _NOTHING_CLOSED
        while len(frames) > depth:
            frame = frames.pop()
            frame.update(False, None, MISSING, closed)
            closed = (frame.raw, frame.value)
        return closed

    def _open(self, chain: list[Any], keys: list[Any]) -> None:
        """A frame for each newly opened container of the chain that is read as
        it streams (those below a value shown only once complete are not)."""
        frames = self._frames
        while len(frames) < len(chain):
            depth = len(frames)
            if depth == 0:
                shape: Shape | None = self.shape
            else:
                slot = frames[-1].shape.child(keys[depth])
                shape = None if slot is None else slot.shape
            if shape is None or not shape.accepts(chain[depth]):
                return
            frames.append(_Frame(shape, chain[depth]))

    def _tip_read(self, frame: _Frame, key: Any, text: str) -> Any:
        """The value of the string being streamed, validated (and kept)."""
        slot = frame.shape.child(key)
        value = MISSING if slot is None else slot.shape.streaming(text)
        self._tip = (frame.raw, key, text)
        self._tip_value = value
        return value


# ---------------------------------------------------------------------- a tool call's arguments


class _BlockOutput:
    """What a tool call remembers of one model's partial arguments."""

    __slots__ = ("checked", "final", "parser", "validator")

    def __init__(self, parser: PartialJSON, model: type[Any]) -> None:
        self.parser = parser
        self.validator = PartialValidator(model)
        self.final: Any = None  # the whole model, once complete and valid
        self.checked = False  # the complete arguments were validated (once)


def block_partial_output(block: ToolCallBlock, model: type[ModelT]) -> ModelT:
    """What :meth:`~streamkit.model.blocks.ToolCallBlock.partial_output` returns."""
    parser = block.partial_parser  # after bad text: the view up to the bad character
    cache = block._outputs
    if cache is None:
        cache = block._outputs = {}
    state = cache.get(model)
    if state is None or state.parser is not parser:
        state = cache[model] = _BlockOutput(parser, model)
    if state.final is not None:
        return state.final  # type: ignore[no-any-return]
    if parser.done and not block.incomplete and not state.checked:
        state.checked = True
        try:
            final = state.final = block.arguments(model)
            return final
        except ValueError:  # pydantic's ValidationError: the partial value shows what validates
            pass
    validator = state.validator
    validator.read(parser)
    value = validator.value
    return validator.empty() if value is None else value  # type: ignore[return-value]
