"""Writing :class:`~streamkit.request.Request` options into a wire body, the
steps every wire format's request builder takes the same way.

Each wire package keeps its own tables (which uniform option is which field,
which ones it has no form for, which ones need nothing); this module holds the
loops over those tables, so that "given as ``None`` is not given", "a field
written twice with different values is an error" and "the built body shares
no object with the request" mean the same on every wire.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any

from ..errors import UnsupportedFeatureError
from ..extras import origin_of
from ..request import UNIFORM_OPTIONS, ForeignThinking, Request
from .turns import foreign_thinking_policy

_UNIFORM = frozenset(UNIFORM_OPTIONS)

EMPTY: Mapping[str, str] = MappingProxyType({})

#: How a field is set on a body or a nested wire object.
FieldWriter = Callable[[dict[str, Any], str, Any], None]


def given_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``options`` without the uniform options given as ``None``: a
    keyword's default means "not given", not "send null"."""
    return {name: value for name, value in options.items()
            if value is not None or name not in _UNIFORM}


def own_options(options: Mapping[str, Any], wire: str) -> dict[str, Any]:
    """The options a builder of ``wire`` may write: all of them when they were
    given by hand or read from a body of ``wire``; only the uniform ones when
    another wire's reader kept them (its other fields are that wire's words)."""
    if origin_of(options) in (None, wire):
        return dict(options)
    return {name: value for name, value in options.items() if name in _UNIFORM}


def prepared_options(request: Request, wire: str, unsupported: Mapping[str, str] = EMPTY,
                     implied: Iterable[str] = (), *, nulls: bool = False,
                     versioned: bool = False) -> tuple[dict[str, Any], ForeignThinking]:
    """The first steps of every builder: the options of the request ``wire``
    may write (:func:`own_options`) and actually given (``nulls``: a uniform
    option given as ``None`` too, for the wires whose bodies carry a null a
    request was read with, as a recorded Mistral body sends ``stop: null``),
    the ``foreign_thinking`` policy taken out of them, a refusal for an option
    the wire has no form for, the options it needs nothing for removed.
    ``api_version`` (the API version the request is for) is bookkeeping for
    the wires whose API has versions (``versioned``: the builder reads it);
    on the others it says nothing and is removed."""
    options = own_options(request.options, wire)
    options = options if nulls else given_options(options)
    if not versioned:
        options.pop("api_version", None)
    foreign_thinking = foreign_thinking_policy(options.pop("foreign_thinking", "text"))
    reject_unsupported(options, unsupported, wire)
    drop_implied(options, implied)
    return options, foreign_thinking


def reject_unsupported(options: Mapping[str, Any], reasons: Mapping[str, str],
                       wire: str) -> None:
    """Raise :class:`~streamkit.errors.UnsupportedFeatureError` for the first
    option ``wire`` has no form for (``reasons``: option -> why): the API would
    refuse the unknown field, so say why before sending."""
    for name, reason in reasons.items():
        if options.get(name) is not None:
            raise UnsupportedFeatureError(wire, f"{name}={options[name]!r}", reason)


def drop_implied(options: dict[str, Any], names: Iterable[str]) -> None:
    """Remove the options the wire needs nothing for (it always does what they ask)."""
    for name in names:
        options.pop(name, None)


def put_field(body: dict[str, Any], key: str, value: Any) -> None:
    """Set a body field; two options writing different values to it is an error."""
    if key in body and body[key] != value:
        raise ValueError(f"{key!r} is given twice, as {body[key]!r} and as {value!r}")
    body[key] = value


def set_field(body: dict[str, Any], key: str, value: Any) -> None:
    """Set a field over any value already there: for a wire object the caller
    gave whole, whose fields the uniform options override."""
    body[key] = value


def write_renamed(body: dict[str, Any], options: dict[str, Any], renames: Mapping[str, str],
                  put: FieldWriter = put_field) -> None:
    """Move the options of ``renames`` (option -> wire field) from ``options``
    into ``body``; a ``stop`` string becomes the one-item list the wires take."""
    for name, field in renames.items():
        if name in options:
            value = options.pop(name)
            if name == "stop" and isinstance(value, str):
                value = [value]
            put(body, field, value)


def finished_body(body: dict[str, Any], options: Mapping[str, Any],
                  put: FieldWriter = put_field) -> dict[str, Any]:
    """``body`` with every option no table claimed, under its own name, as a
    deep copy: the body shares no object with the messages or options, so a
    caller editing one cannot change the other."""
    for key, value in options.items():
        put(body, key, value)
    return copy.deepcopy(body)
