"""A pydantic model's partial twin, and how each part of its type reads JSON.

While a structured answer streams, its JSON is a prefix of the final text; a UI
wants it as the model it will become. :func:`partial_model` gives, for a model
``Recipe``, a subclass ``PartialRecipe`` whose every field is optional (``None``
until known): nested models, list items and dict values are partial in turn.
Making it compiles the model's type once into shapes (:class:`Shape`), one per
part of the type, which say how that part reads a JSON value: whole once
complete, or as it streams. The incremental validation that walks a parser's
view with them is :mod:`streamkit.model.structured.partial`.

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
    from ..blocks import ModelT

__all__ = ["MISSING", "ModelShape", "Shape", "Slot", "model_shape", "partial_model"]


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


class Shape:
    """How one part of the model's type reads JSON.

    ``complete(raw)`` validates a value the parser has finished (``MISSING``
    when it does not validate); ``streaming(text)`` a string still growing.
    Container shapes also ``accept`` an open container of the parser, name each
    child's :class:`Slot` and ``build`` their value from validated children.
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

    def child(self, key: str | int) -> Slot | None:
        return None

    def build(self, done: Any, key: Any, value: Any) -> Any:
        raise NotImplementedError


class Slot:
    """A place in a container: the shape of what goes there, the field name
    it is stored under (models only) and whether JSON ``null`` is valid."""

    __slots__ = ("name", "nullable", "shape")

    def __init__(self, shape: Shape, nullable: bool, name: str | None = None) -> None:
        self.shape = shape
        self.nullable = nullable
        self.name = name

    def complete(self, raw: Any) -> Any:
        if raw is None:
            return None if self.nullable else MISSING
        return self.shape.complete(raw)


class _Text(Shape):
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


class _Scalar(Shape):
    """A leaf shown only once complete; ``exact`` is the JSON type taken as it is."""

    __slots__ = ("adapter", "exact")

    def __init__(self, adapter: TypeAdapter[Any], exact: type | None) -> None:
        self.adapter = adapter
        self.exact = exact

    def complete(self, raw: Any) -> Any:
        if type(raw) is self.exact:
            return raw
        return _validate(self.adapter, raw)


class _Whole(Shape):
    """A type read only once complete (a union of models, a tuple...), as itself."""

    __slots__ = ("adapter",)

    def __init__(self, adapter: TypeAdapter[Any]) -> None:
        self.adapter = adapter

    def complete(self, raw: Any) -> Any:
        return _validate(self.adapter, raw)


class _Anything(Shape):
    """``Any``: the JSON as it streams, containers copied."""

    __slots__ = ()

    def complete(self, raw: Any) -> Any:
        return _copy_json(raw)

    def streaming(self, text: str) -> Any:
        return text

    def accepts(self, raw: Any) -> bool:
        return type(raw) is dict or type(raw) is list

    def child(self, key: str | int) -> Slot:
        return _ANY_SLOT

    def build(self, done: Any, key: Any, value: Any) -> Any:
        return _build(done, key, value)


_ANYTHING: Final = _Anything()
_ANY_SLOT: Final = Slot(_ANYTHING, nullable=True)


def _build(done: Any, key: Any, value: Any) -> Any:
    """An open container's value: a copy of the children validated so far
    (``done``) with ``value`` at ``key`` (the last child, still open), when it
    validated (not ``MISSING``)."""
    if type(done) is list:
        return [*done, value] if value is not MISSING else done.copy()
    out = done.copy()
    if value is not MISSING:
        out[key] = value
    return out


class _Collection(Shape):
    """``list[X]`` (or a ``Sequence``) and ``dict[str, X]`` (or a ``Mapping``):
    items as they stream, each read by the one slot of the item type."""

    __slots__ = ("item", "kind")

    def __init__(self, kind: type[list[Any]] | type[dict[str, Any]], item: Slot) -> None:
        self.kind = kind
        self.item = item

    def complete(self, raw: Any) -> Any:
        if type(raw) is not self.kind:
            return MISSING
        read = self.item.complete
        if isinstance(raw, list):
            return [value for value in map(read, raw) if value is not MISSING]
        return {key: value for key, item in raw.items() if (value := read(item)) is not MISSING}

    def accepts(self, raw: Any) -> bool:
        return type(raw) is self.kind

    def child(self, key: str | int) -> Slot:
        return self.item

    def build(self, done: Any, key: Any, value: Any) -> Any:
        return _build(done, key, value)


class ModelShape(Shape):
    """A pydantic model: its partial class, and the slot of each JSON key."""

    __slots__ = ("cls", "defaults", "extra", "fast", "fields", "model", "ref")

    def __init__(self, model: type[BaseModel], ref: str) -> None:
        self.model = model
        self.ref = ref  # the name other partial classes use for it while it is built
        self.cls: type[BaseModel] | None = None
        self.fields: dict[str, Slot] = {}
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

    def child(self, key: str | int) -> Slot | None:
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

_SHAPES: weakref.WeakKeyDictionary[type[BaseModel], ModelShape] = weakref.WeakKeyDictionary()
_LISTS = frozenset({list, Sequence, MutableSequence, typing.List})  # noqa: UP006
_DICTS = frozenset({dict, Mapping, MutableMapping, typing.Dict})  # noqa: UP006
_EXACT = {int: int, float: float, bool: bool}
_UNIONS = (Union, types.UnionType)


def partial_model(model: type[ModelT]) -> type[ModelT]:
    """The partial twin of ``model``: a subclass whose every field is optional
    (default ``None``), nested models, list items and dict values partial in
    turn (see the module docstring). Made once per model and kept."""
    return model_shape(model).cls  # type: ignore[return-value]


def model_shape(model: type[BaseModel]) -> ModelShape:
    """The shape of ``model`` (its partial class made), from the cache or built."""
    shape = _SHAPES.get(model)
    if shape is not None:
        return shape
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise TypeError(f"a partial output needs a pydantic model class, not {model!r}")
    building: list[ModelShape] = []
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


def _compile_model(model: type[BaseModel], building: list[ModelShape]) -> ModelShape:
    for shape in building:
        if shape.model is model:
            return shape
    cached = _SHAPES.get(model)
    if cached is not None:
        return cached
    shape = ModelShape(model, f"_streamkit_partial_{len(building)}_{model.__name__}")
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
             building: list[ModelShape]) -> tuple[Slot, Any]:
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
        return Slot(_ANYTHING, nullable=True), Any
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if annotation.__pydantic_root_model__:
            return _whole(annotation, metadata)
        shape = _compile_model(annotation, building)
        return Slot(shape, False), shape.cls if shape.cls is not None else ForwardRef(shape.ref)
    if origin in _LISTS or annotation in _LISTS:
        item_type = (get_args(annotation) or (Any,))[0]
        item, partial = _compile(item_type, (), building)
        return Slot(_Collection(list, item), False), list[partial]  # type: ignore[valid-type]
    if origin in _DICTS or annotation in _DICTS:
        key_type, value_type = get_args(annotation) or (str, Any)
        if key_type is str or key_type is Any:
            value, partial = _compile(value_type, (), building)
            return Slot(_Collection(dict, value), False), dict[str, partial]  # type: ignore[valid-type]
        return _whole(annotation, metadata)
    if annotation is str:
        adapter = TypeAdapter(_annotated(str, metadata)) if metadata else None
        return Slot(_Text(adapter), False), _annotated(str, metadata)
    if origin is None and not isinstance(annotation, type):  # a TypeVar, a NewType...
        return _whole(annotation, metadata)
    full = _annotated(annotation, metadata)
    exact = None if metadata else _EXACT.get(annotation)
    return Slot(_Scalar(TypeAdapter(full), exact), False), full


def _annotated(annotation: Any, metadata: tuple[Any, ...]) -> Any:
    return Annotated[(annotation, *metadata)] if metadata else annotation


def _whole(annotation: Any, metadata: tuple[Any, ...]) -> tuple[Slot, Any]:
    full = _annotated(annotation, metadata)
    return Slot(_Whole(TypeAdapter(full)), False), full
