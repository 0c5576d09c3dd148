"""Reading wire values whose type the provider does not guarantee.

Every parser reads decoded JSON it does not control: a field documented as an
integer can arrive as a list, a string as an object. These helpers have one
contract: they return the value when it has the expected type and ``None``
(or an empty mapping, for :func:`mapping`) otherwise. They never raise, so a
wrongly typed field is treated as absent, and the payload itself stays in the
event's raw or metadata.

A request body is another matter: what its reader takes into the
:class:`~streamkit.conversation.request.Request` a builder (of its wire or
another) writes again, so a wrongly typed field there is refused where it is
read (:func:`check_uniform_options`), not carried to a builder that cannot
write it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from ..conversation.request import REASONING_EFFORTS, UNIFORM_OPTION_KINDS
from ..model.errors import InvalidBodyError

Wire = dict[str, Any]
"""A wire object: a JSON object as a provider's API sends or takes it (a payload,
a part, a body), decoded."""


def as_int(value: Any) -> int | None:
    """An integer (``bool`` is not one), else ``None``."""
    return value if type(value) is int else None


def as_str(value: Any) -> str | None:
    """A string, else ``None``."""
    return value if type(value) is str else None


def as_list(value: Any) -> list[Any] | None:
    """A list, else ``None``."""
    return value if type(value) is list else None


def as_dict(value: Any) -> dict[str, Any] | None:
    """An object, else ``None``."""
    return value if type(value) is dict else None


def mapping(value: Any) -> dict[str, Any]:
    """An object, else an empty one: for chained ``.get`` on optional objects."""
    return value if type(value) is dict else {}


def path(value: Any, *keys: str) -> Any:
    """``value[k1][k2]...`` through nested objects, ``None`` where one is missing
    or not an object."""
    for key in keys:
        if type(value) is not dict:
            return None
        value = value.get(key)
    return value


def _is_number(value: Any) -> bool:
    return type(value) is int or (type(value) is float and math.isfinite(value))


def _is_strings(value: Any) -> bool:
    return type(value) is str or (type(value) is list and all(type(v) is str for v in value))


#: Each kind of :data:`~streamkit.conversation.request.UNIFORM_OPTION_KINDS`: its
#: words in a refusal, and its test (``bool`` is no number).
_KINDS: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "number": ("a finite number", _is_number),
    "integer": ("an integer", lambda value: type(value) is int),
    "string": ("a string", lambda value: type(value) is str),
    "strings": ("a string or a list of strings", _is_strings),
    "boolean": ("true or false", lambda value: type(value) is bool),
    "object": ("an object", lambda value: type(value) is dict),
    "policy": ('"text" or "drop"', lambda value: value in ("text", "drop")),
    "effort": (f"one of {', '.join(REASONING_EFFORTS)}",
               lambda value: type(value) is str and value in REASONING_EFFORTS),
}


def check_uniform_options(options: Mapping[str, Any], wire: str,
                          fields: Mapping[str, str] | None = None) -> None:
    """Refuse a request body whose field for a uniform option holds a value of
    another kind (a ``temperature`` of ``"w"``, a ``stop`` of ``[1]``): the
    :class:`~streamkit.model.errors.InvalidBodyError` names the field
    (``fields``: option -> the wire's path of it, when not the option's own
    name). Null is "not given", on every wire."""
    for name, value in options.items():
        kind = UNIFORM_OPTION_KINDS.get(name)
        if kind is None or value is None:
            continue
        words, test = _KINDS[kind]
        if not test(value):
            where = (fields or {}).get(name, name)
            raise InvalidBodyError(f"{where!r} must be {words}, not {type(value).__name__}",
                                   wire=wire, where=where)
