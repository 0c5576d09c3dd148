"""A pydantic model's partial twin, and the incremental validation that fills it.

While a structured answer streams, its JSON is a prefix of the final text; a UI
wants it as the model it will become. :func:`partial_model` gives, for a model
``Recipe``, a subclass ``PartialRecipe`` whose every field is optional (``None``
until known): nested models, list items and dict values are partial in turn.
:class:`PartialValidator` turns the view of an incremental
:class:`~streamkit.model.partial_json.PartialJSON` into an instance of it after each
fragment, without revisiting what it validated before:

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
answer. Over a whole answer each character is validated once.

What a partial value holds, per type of the model:

* ``str`` (with its constraints, if any): the characters so far, as soon as
  they validate; a string that does not validate yet (a ``min_length``) is
  left out until it does;
* every other leaf (numbers, ``bool``, ``Literal``, enums, dates, UUIDs...):
  only once complete, validated by pydantic in JSON mode (``TypeAdapter``, as
  ``model_validate_json`` would);
* nested models, ``list[...]``, ``dict[str, ...]``, ``Any``: as soon as they
  open, filled as they stream; a list item or dict value that does not
  validate is left out, a field that does not validate stays ``None``;
* any other type (a union of several models, tuples, sets, dataclasses...):
  only once complete, validated as its own type.

Validators written for the whole model (``@field_validator``,
``@model_validator``) never see a partial value; pydantic runs them on the
final one (``response.parse(Model)``). Partial instances are assembled from
validated parts without calling ``__init__`` (as ``model_construct`` does).
"""

from __future__ import annotations

import itertools
import json
import types
import typing
import warnings
import weakref
from collections.abc import Mapping, MutableMapping, MutableSequence, Sequence
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    Final,
    ForwardRef,
    Optional,
    Union,
    get_args,
    get_origin,
)

import pydantic
from pydantic import BaseModel, TypeAdapter

if TYPE_CHECKING:
    from ..blocks import ModelT, ToolCallBlock
    from ..partial_json import PartialJSON

__all__ = ["MISSING", "PartialValidator", "block_partial_output", "partial_model"]


class _Missing:
    """The marker of a value not (yet) valid: left out of the partial value."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()

_set_attribute = object.__setattr__
_new = object.__new__


def _validate(adapter: TypeAdapter[Any], raw: Any) -> Any:
    """``raw`` (a JSON value) validated in JSON mode, or :data:`MISSING`."""
    try:
        return adapter.validate_json(json.dumps(raw))
    except ValueError:  # pydantic's ValidationError, or a validator's ValueError
        return MISSING


def _copy_json(raw: Any) -> Any:
    """A copy of a complete JSON value the parser built: its containers are
    the parser's own (shared with ``partial_arguments`` readers)."""
    if type(raw) is dict:
        return {key: _copy_json(value) for key, value in raw.items()}
    if type(raw) is list:
        return [_copy_json(value) for value in raw]
    return raw


# ---------------------------------------------------------------------- shapes


class _Shape:
    """How one part of the model's type reads JSON.

    ``complete(raw)`` validates a value the parser has finished (``MISSING``
    when it does not validate); ``streaming(text)`` a string still growing.
    Container shapes also ``accept`` an open container of the parser, name each
    child's :class:`_Slot` and ``build`` their value from validated children.
    """

    __slots__ = ()

    def complete(self, raw: Any) -> Any:
        raise NotImplementedError

    def streaming(self, text: str) -> Any:
        """A string not yet closed: shown only where a prefix is a value."""
        return MISSING

    def accepts(self, raw: Any) -> bool:
        """Whether an open container of the parser is read as it streams."""
        return False

    def child(self, key: str | int) -> _Slot | None:
        return None

    def build(self, done: Any, key: Any, value: Any) -> Any:
        raise NotImplementedError


class _Slot:
    """A place in a container: the shape of what goes there, the field name
    it is stored under (models only) and whether JSON ``null`` is valid."""

    __slots__ = ("name", "nullable", "shape")

    def __init__(self, shape: _Shape, nullable: bool, name: str | None = None) -> None:
        self.shape = shape
        self.nullable = nullable
        self.name = name

    def complete(self, raw: Any) -> Any:
        if raw is None:
            return None if self.nullable else MISSING
        return self.shape.complete(raw)


class _Text(_Shape):
    """``str``, possibly constrained: shown while it streams, once it validates."""

    __slots__ = ("adapter",)

    def __init__(self, adapter: TypeAdapter[Any] | None) -> None:
        self.adapter = adapter

    def complete(self, raw: Any) -> Any:
        if self.adapter is None:
            return raw if type(raw) is str else _validate(_STR, raw)
        return _validate(self.adapter, raw)

    def streaming(self, text: str) -> Any:
        return self.complete(text)


_STR: Final[TypeAdapter[Any]] = TypeAdapter(str)


class _Scalar(_Shape):
    """A leaf shown only once complete; ``exact`` is the JSON type taken as it is."""

    __slots__ = ("adapter", "exact")

    def __init__(self, adapter: TypeAdapter[Any], exact: type | None) -> None:
        self.adapter = adapter
        self.exact = exact

    def complete(self, raw: Any) -> Any:
        if type(raw) is self.exact:
            return raw
        return _validate(self.adapter, raw)


class _Whole(_Shape):
    """A type read only once complete (a union of models, a tuple...), as itself."""

    __slots__ = ("adapter",)

    def __init__(self, adapter: TypeAdapter[Any]) -> None:
        self.adapter = adapter

    def complete(self, raw: Any) -> Any:
        return _validate(self.adapter, raw)


class _Anything(_Shape):
    """``Any``: the JSON as it streams, containers copied."""

    __slots__ = ()

    def complete(self, raw: Any) -> Any:
        return _copy_json(raw)

    def streaming(self, text: str) -> Any:
        return text

    def accepts(self, raw: Any) -> bool:
        return type(raw) is dict or type(raw) is list

    def child(self, key: str | int) -> _Slot:
        return _ANY_SLOT

    def build(self, done: Any, key: Any, value: Any) -> Any:
        return _build_list(done, value) if type(done) is list else _build_dict(done, key, value)


_ANYTHING: Final = _Anything()
_ANY_SLOT: Final = _Slot(_ANYTHING, nullable=True)


def _build_list(done: list[Any], value: Any) -> list[Any]:
    return [*done, value] if value is not MISSING else done.copy()


def _build_dict(done: dict[str, Any], key: Any, value: Any) -> dict[str, Any]:
    out = done.copy()
    if value is not MISSING:
        out[key] = value
    return out


class _List(_Shape):
    """``list[X]`` (or a ``Sequence``): items as they stream."""

    __slots__ = ("item",)

    def __init__(self, item: _Slot) -> None:
        self.item = item

    def complete(self, raw: Any) -> Any:
        if type(raw) is not list:
            return MISSING
        read = self.item.complete
        return [value for value in map(read, raw) if value is not MISSING]

    def accepts(self, raw: Any) -> bool:
        return type(raw) is list

    def child(self, key: str | int) -> _Slot:
        return self.item

    def build(self, done: Any, key: Any, value: Any) -> Any:
        return _build_list(done, value)


class _Dict(_Shape):
    """``dict[str, X]`` (or a ``Mapping``): values as they stream."""

    __slots__ = ("value",)

    def __init__(self, value: _Slot) -> None:
        self.value = value

    def complete(self, raw: Any) -> Any:
        if type(raw) is not dict:
            return MISSING
        out = {}
        read = self.value.complete
        for key, item in raw.items():
            value = read(item)
            if value is not MISSING:
                out[key] = value
        return out

    def accepts(self, raw: Any) -> bool:
        return type(raw) is dict

    def child(self, key: str | int) -> _Slot:
        return self.value

    def build(self, done: Any, key: Any, value: Any) -> Any:
        return _build_dict(done, key, value)


class _Model(_Shape):
    """A pydantic model: its partial class, and the slot of each JSON key."""

    __slots__ = ("cls", "defaults", "extra", "fast", "fields", "model", "ref")

    def __init__(self, model: type[BaseModel], ref: str) -> None:
        self.model = model
        self.ref = ref  # the name other partial classes use for it while it is built
        self.cls: type[BaseModel] | None = None
        self.fields: dict[str, _Slot] = {}
        self.defaults: dict[str, Any] = {}
        self.fast = False
        self.extra = False

    def complete(self, raw: Any) -> Any:
        if type(raw) is not dict:
            return MISSING
        values: dict[str, Any] = {}
        fields = self.fields
        for key, item in raw.items():
            slot = fields.get(key)
            if slot is not None:
                value = slot.complete(item)
                if value is not MISSING:
                    values[slot.name or key] = value
        return self.make(values)

    def accepts(self, raw: Any) -> bool:
        return type(raw) is dict

    def child(self, key: str | int) -> _Slot | None:
        return self.fields.get(key) if type(key) is str else None

    def build(self, done: Any, key: Any, value: Any) -> Any:
        if value is MISSING:
            return self.make(done)
        values = done.copy()
        values[self.fields[key].name] = value
        return self.make(values)

    def make(self, values: dict[str, Any]) -> BaseModel:
        """An instance of the partial class holding ``values`` (validated
        already): what ``model_construct`` does, without its per-field work."""
        cls = self.cls
        assert cls is not None
        if not self.fast:
            return cls.model_construct(_fields_set=set(values), **values)
        instance = _new(cls)
        state = self.defaults.copy()
        state.update(values)
        _set_attribute(instance, "__dict__", state)
        _set_attribute(instance, "__pydantic_fields_set__", set(values))
        _set_attribute(instance, "__pydantic_extra__", {} if self.extra else None)
        _set_attribute(instance, "__pydantic_private__", None)
        return instance


# ---------------------------------------------------------------------- building

_SHAPES: weakref.WeakKeyDictionary[type[BaseModel], _Model] = weakref.WeakKeyDictionary()
_LISTS = frozenset({list, Sequence, MutableSequence, typing.List})  # noqa: UP006
_DICTS = frozenset({dict, Mapping, MutableMapping, typing.Dict})  # noqa: UP006
_EXACT = {int: int, float: float, bool: bool}
_UNIONS = (Union, types.UnionType)


def partial_model(model: type[ModelT]) -> type[ModelT]:
    """The partial twin of ``model``: a subclass whose every field is optional
    (default ``None``), nested models, list items and dict values partial in
    turn (see the module docstring). Made once per model and kept."""
    return _model_shape(model).cls  # type: ignore[return-value]


def _model_shape(model: type[BaseModel]) -> _Model:
    """The shape of ``model`` (its partial class made), from the cache or built."""
    shape = _SHAPES.get(model)
    if shape is not None:
        return shape
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise TypeError(f"a partial output needs a pydantic model class, not {model!r}")
    building: list[_Model] = []
    shape = _compile_model(model, building)
    # classes that named a class still being built (recursive models) resolve now
    namespace = {built.ref: built.cls for built in building}
    for _ in building:
        pending = [built.cls for built in building
                   if built.cls is not None and not built.cls.__pydantic_complete__]
        if not pending:
            break
        for cls in pending:
            cls.model_rebuild(_types_namespace=namespace, raise_errors=False)
    for built in building:
        _SHAPES[built.model] = built
    return shape


def _compile_model(model: type[BaseModel], building: list[_Model]) -> _Model:
    for shape in building:
        if shape.model is model:
            return shape
    cached = _SHAPES.get(model)
    if cached is not None:
        return cached
    shape = _Model(model, f"_streamkit_partial_{len(building)}_{model.__name__}")
    building.append(shape)
    by_name = model.model_config.get("validate_by_name") or model.model_config.get(
        "populate_by_name")
    definitions: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        item, annotation = _compile(info.annotation, tuple(info.metadata), building)
        item.name = name
        for key in _json_keys(name, info, bool(by_name)):
            shape.fields.setdefault(key, item)
        field = pydantic.Field(default=None, alias=info.alias,
                               validation_alias=info.validation_alias,
                               serialization_alias=info.serialization_alias,
                               title=info.title, description=info.description,
                               exclude=info.exclude)
        definitions[name] = (Optional[annotation], field)  # noqa: UP045
    with warnings.catch_warnings():  # the model's own warnings (shadowed names) were shown
        warnings.simplefilter("ignore")
        cls = pydantic.create_model(f"Partial{model.__name__}", __base__=model,
                                    __module__=model.__module__, **definitions)
    shape.cls = cls
    shape.defaults = dict.fromkeys(model.model_fields)
    shape.fast = not cls.__pydantic_post_init__ and not cls.__pydantic_root_model__
    shape.extra = cls.model_config.get("extra") == "allow"
    return shape


def _json_keys(name: str, info: Any, by_name: bool) -> list[str]:
    """The JSON keys a field is read from: its validation alias(es) or alias,
    and its name when the model validates by name too (or has no alias)."""
    keys: list[str] = []
    alias = info.validation_alias
    if isinstance(alias, str):
        keys.append(alias)
    elif isinstance(alias, pydantic.AliasChoices):
        keys += [choice for choice in alias.choices if isinstance(choice, str)]
    elif info.alias is not None:
        keys.append(info.alias)
    if by_name or not keys:
        keys.append(name)
    return keys


def _compile(annotation: Any, metadata: tuple[Any, ...],
             building: list[_Model]) -> tuple[_Slot, Any]:
    """The slot of a type and the annotation of its partial form."""
    origin = get_origin(annotation)
    if origin is Annotated:
        inner, *extra = get_args(annotation)
        return _compile(inner, (*metadata, *extra), building)
    if origin in _UNIONS:
        members = get_args(annotation)
        present = [member for member in members if member is not type(None)]
        if len(present) == 1:
            slot, partial = _compile(present[0], metadata, building)
            slot.nullable = True
            return slot, Optional[partial]  # noqa: UP045  # a ForwardRef has no `|`
        return _whole(annotation, metadata)
    if annotation is Any or annotation is object:
        return _Slot(_ANYTHING, nullable=True), Any
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if annotation.__pydantic_root_model__:
            return _whole(annotation, metadata)
        shape = _compile_model(annotation, building)
        return _Slot(shape, False), shape.cls if shape.cls is not None else ForwardRef(shape.ref)
    if origin in _LISTS or annotation in _LISTS:
        item_type = (get_args(annotation) or (Any,))[0]
        item, partial = _compile(item_type, (), building)
        return _Slot(_List(item), False), list[partial]  # type: ignore[valid-type]
    if origin in _DICTS or annotation in _DICTS:
        key_type, value_type = get_args(annotation) or (str, Any)
        if key_type is str or key_type is Any:
            value, partial = _compile(value_type, (), building)
            return _Slot(_Dict(value), False), dict[str, partial]  # type: ignore[valid-type]
        return _whole(annotation, metadata)
    if annotation is str:
        adapter = TypeAdapter(_annotated(str, metadata)) if metadata else None
        return _Slot(_Text(adapter), False), _annotated(str, metadata)
    if origin is None and not isinstance(annotation, type):  # a TypeVar, a NewType...
        return _whole(annotation, metadata)
    full = _annotated(annotation, metadata)
    exact = None if metadata else _EXACT.get(annotation)
    return _Slot(_Scalar(TypeAdapter(full), exact), False), full


def _annotated(annotation: Any, metadata: tuple[Any, ...]) -> Any:
    return Annotated[(annotation, *metadata)] if metadata else annotation


def _whole(annotation: Any, metadata: tuple[Any, ...]) -> tuple[_Slot, Any]:
    full = _annotated(annotation, metadata)
    return _Slot(_Whole(TypeAdapter(full)), False), full


# ---------------------------------------------------------------------- reading

#: ``(raw, value)`` of the container that closed since the last read: none.
_NOTHING_CLOSED: Final = (MISSING, MISSING)


class _Frame:
    """An open container on the parser's open chain: the values of its
    complete children (validated once) and what it showed last."""

    __slots__ = ("count", "done", "open_key", "open_value", "raw", "shape", "value")

    def __init__(self, shape: _Shape, raw: Any) -> None:
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
        self.shape = _model_shape(model)
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
                shape: _Shape | None = self.shape
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
