"""Fields a wire format sent that the model has no place for, and the wire they came from.

streamkit reads every request and response losslessly: what a body holds
beyond the model (an Anthropic ``cache_control``, an OpenAI message ``name:
null``, a Gemini field spelled in snake_case, a reader's own bookkeeping such
as "this id was made up") is kept in the ``metadata`` of the message, block,
tool or request that held it, so that writing it back to the same wire gives
the body back exactly.

Those fields belong to one wire. Written into another they would be noise at
best and, more often, a 400 (``is_error`` in a Gemini part, ``cache_control``
in an OpenAI message). So a reader keeps them as :class:`Extras`: a ``dict``
that also knows the wire it was read from (``.wire``), and a request builder
writes back only the extras of its own wire (:func:`extras_for`). Metadata you
set yourself, a plain ``dict``, has no origin and is written as you gave it:
you wrote it for the wire you send to.

Where the origin travels: parsed requests tag every message's, block's, tool's
and option's extras (``streamkit.parse_request``); a streamed or non-streamed
response needs no tag, since :attr:`~streamkit.ChatResponse.provider` names
the wire of everything it holds, and assistant turns are written by that rule
(see :mod:`streamkit.providers.turns`). A block's ``to_dict()`` records the
origin of its extras (``"origin"``), and ``block_from_dict`` restores it.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["Extras", "extras_for", "origin_of"]


class Extras(dict[str, Any]):
    """A ``dict`` of wire fields that remembers the wire format it was read
    from (``wire``: ``anthropic``, ``openai-chat``, ``openai-responses``,
    ``gemini`` or ``ollama``). Equal to a plain dict with the same items."""

    __slots__ = ("wire",)

    def __init__(self, wire: str, fields: Mapping[str, Any] | Iterable[tuple[str, Any]] = (),
                 /) -> None:
        super().__init__(fields)
        self.wire = wire

    def __repr__(self) -> str:
        return f"Extras({self.wire!r}, {dict.__repr__(self)})"

    def copy(self) -> Extras:
        """A shallow copy that keeps the origin (``dict.copy`` would drop it)."""
        return Extras(self.wire, self)

    def __copy__(self) -> Extras:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, Any]) -> Extras:
        return Extras(self.wire, {key: copy.deepcopy(value, memo) for key, value in self.items()})

    def __reduce__(self) -> tuple[Any, ...]:
        return (Extras, (self.wire, dict(self)))


def origin_of(metadata: Mapping[str, Any]) -> str | None:
    """The wire format ``metadata`` was read from; ``None`` for a plain dict
    (metadata set by hand, or by a stream: see the module docstring)."""
    return metadata.wire if type(metadata) is Extras else None


def extras_for(metadata: Mapping[str, Any], wire: str) -> Mapping[str, Any]:
    """What of ``metadata`` a builder of ``wire`` writes: all of it when it came
    from ``wire`` or has no origin, nothing when another wire's reader kept it."""
    origin = origin_of(metadata)
    return metadata if origin is None or origin == wire else {}
