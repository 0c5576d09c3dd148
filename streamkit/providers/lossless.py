"""Lossless reads: what a wire object holds beyond what was read, kept for its wire.

Every reader of a wire format (stream parsers, response readers, request
readers) reads the fields the model has a place for and keeps the rest, so
nothing a provider sent is lost. Two rules, one per direction of use:

- :func:`unmodelled` (streams and response bodies): the fields not read, and
  the fields read as ``None`` because they had the wrong type (kept under
  their own name); null fields say nothing and are dropped. What it keeps is
  shown to users (``metadata``) and never written anywhere.
- :func:`unread` (request bodies): every field not read, nulls included, as
  :class:`~streamkit.extras.Extras` of the wire, so writing the request back
  to the same wire gives the body exactly, and another wire never receives
  them (:func:`~streamkit.extras.extras_for`).

:func:`exactly` is the request readers' guard: a wire object becomes a
streamkit block only when writing the block gives the object back exactly;
otherwise it is kept whole as a :class:`~streamkit.blocks.RawBlock` of its wire.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..blocks import Block, RawBlock
from ..errors import StreamkitError
from ..extras import Extras
from ..ids import StreamIds

__all__ = ["exactly", "unmodelled", "unread"]


def unmodelled(obj: Mapping[str, Any], read: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of ``obj`` the model has no slot for: ``read`` maps each field
    that was read to the value it gave, ``None`` when the field had the wrong
    type (then it is kept too). Null fields are dropped."""
    return {key: value for key, value in obj.items()
            if value is not None and read.get(key) is None}


def unread(obj: Mapping[str, Any], *read: str, wire: str) -> Extras:
    """Every field of ``obj`` but ``read``, nulls included, as ``wire``'s extras."""
    return Extras(wire, {key: value for key, value in obj.items() if key not in read})


def exactly(block: Block, write: Callable[[Any], Any], obj: Mapping[str, Any], *,
            kind: str, wire: str, ids: StreamIds | None = None) -> Block:
    """``block`` when ``write(block)`` gives ``obj`` back exactly, else ``obj``
    kept whole as a ``kind`` :class:`RawBlock` of ``wire``: reading a request
    never loses a field or changes a form. ``ids`` makes the raw block's id
    (the reader's, so two reads of a body agree)."""
    try:
        if write(block) == obj:
            return block
    except (StreamkitError, ValueError, TypeError):
        pass
    return RawBlock(kind, dict(obj), id=ids.make("raw") if ids is not None else None,
                    metadata=Extras(wire))
