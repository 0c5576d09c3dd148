"""The cross-provider turn policy every wire format's request builder follows.

A conversation may carry assistant turns another API wrote (a fallback, a
hand-over between models). Each wire format keeps what it can verify of its
own turns (signatures, encrypted reasoning, item ids) and only the portable
part of another's: text, tool calls and, under ``foreign_thinking="text"``,
visible thinking as ``<think>`` text. The pieces of that policy that do not
depend on a wire's field names live here, so that the five builders cannot
drift apart on them.
"""

from __future__ import annotations

from typing import Any, cast

from ..request import ForeignThinking

#: The ``foreign_thinking`` words (see :mod:`streamkit.request`).
FOREIGN_THINKING_POLICIES: tuple[ForeignThinking, ...] = ("text", "drop")


def foreign_thinking_policy(value: Any) -> ForeignThinking:
    """``value`` as the ``foreign_thinking`` policy; any other word raises, so a
    typo does not silently send (or drop) another provider's reasoning."""
    if value not in FOREIGN_THINKING_POLICIES:
        raise ValueError(f"foreign_thinking must be 'text' or 'drop', not {value!r}")
    return cast(ForeignThinking, value)


def thinking_as_text(thinking: str) -> str:
    """Reasoning the target cannot verify, kept as text the model can read: in
    ``<think>`` tags, the form reasoning models themselves write inline."""
    return f"<think>\n{thinking}\n</think>"


def is_own_turn(provider: str | None, wire: str) -> bool:
    """Whether a turn written by ``provider`` (a registry name) belongs to the
    wire format ``wire`` (any vendor of it). ``None`` (built by hand, or read
    from a body of this wire) counts as its own; a name the registry does not
    know counts as another API's, whose signatures must not be sent."""
    if provider is None:
        return True
    spoken = _registered_wire(provider)
    return spoken is not None and spoken[0] == wire


def is_own_vendor_turn(provider: str | None, wire: str, dialect: str | None) -> bool:
    """Like :func:`is_own_turn`, but the vendor (``dialect``) must match too:
    for wire formats whose item ids and encrypted state are one server's."""
    if provider is None:
        return True
    return _registered_wire(provider) == (wire, dialect)


def _registered_wire(provider: str) -> tuple[str, str | None] | None:
    """The registry's ``(wire, dialect)`` of ``provider``; ``None`` when the
    registry does not know the name."""
    from . import wire_of  # the registry's vendors name the wire packages, which import this

    try:
        return wire_of(provider)
    except ValueError:
        return None
