"""Reading wire values whose type the provider does not guarantee.

Every parser reads decoded JSON it does not control: a field documented as an
integer can arrive as a list, a string as an object. These helpers have one
contract: they return the value when it has the expected type and ``None``
(or an empty mapping, for :func:`mapping`) otherwise. They never raise, so a
wrongly typed field is treated as absent, and the payload itself stays in the
event's raw or metadata.
"""

from __future__ import annotations

from typing import Any

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
