"""Lossless reads: what a wire object holds beyond what was read, kept for its wire.

Every reader of a wire format (stream parsers, response readers, request
readers) reads the fields the model has a place for and keeps the rest, so
nothing a provider sent is lost. Two rules, one per direction of use:

- :func:`unmodelled` (streams and response bodies): the fields not read, and
  the fields read as ``None`` because they had the wrong type (kept under
  their own name); null fields say nothing and are dropped. What it keeps is
  shown to users (``metadata``) and never written anywhere.
- :func:`unread` (request bodies): every field not read, nulls included, as
  :class:`~streamkit.model.extras.Extras` of the wire, so writing the request back
  to the same wire gives the body exactly, and another wire never receives
  them (:func:`~streamkit.model.extras.extras_for`).

:func:`exactly` is the request readers' guard: a wire object becomes a
streamkit block only when writing the block gives the object back exactly;
otherwise it is kept whole as a :class:`~streamkit.model.blocks.RawBlock` of its wire
(:func:`kept`); :func:`read_part` reads a part by its ``type`` under that guard.
:func:`with_extras` is the builders' other half of :func:`unread`: what a
reader of the wire kept goes back over the object it was read from, and the
documented fields the body left out (:data:`ABSENT`) come off it. A part kept
whole goes back to its own wire only (:func:`raw_part`, :func:`write_user_part`). A request reader
takes the fields the model has a place for out of the body's rest when they
have its type (:func:`take`), and what an object field holds beside them
stays (:func:`put_back`); what is left becomes options, as it came.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any, TypeVar

from ..conversation.messages import UserContent
from ..model.blocks import Block, DataBlock, RawBlock, TextBlock, ToolResultBlock
from ..model.errors import (
    InvalidBodyError,
    StreamkitError,
    UnsupportedFeatureError,
    collecting_losses,
    warn_lossy,
)
from ..model.extras import Extras, extras_for, origin_of
from ..model.ids import StreamIds

__all__ = ["ABSENT", "exactly", "kept", "message_extras", "put_back", "raw_part",
           "raw_part_or_dropped", "read_part",
           "tagged", "take", "take_list", "typed_part", "unmodelled", "unread", "with_extras",
           "write_user_part"]

#: Metadata key of the documented fields a body left out, which a builder
#: would otherwise write (``content``, a message's ``role``...): a reader's
#: record, never a wire field.
ABSENT = "absent"


def unmodelled(obj: Mapping[str, Any], read: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of ``obj`` the model has no slot for: ``read`` maps each field
    that was read to the value it gave, ``None`` when the field had the wrong
    type (then it is kept too). Null fields are dropped."""
    return {key: value for key, value in obj.items()
            if value is not None and read.get(key) is None}


BlockT = TypeVar("BlockT", bound=Block)


def tagged(block: BlockT, wire: str) -> BlockT:
    """``block`` read as the stream reads it (a request's assistant block), with
    what its metadata keeps marked as ``wire``'s, its tool-result parts' too."""
    block.metadata = Extras(wire, block.metadata)
    if isinstance(block, ToolResultBlock):
        for part in block.content:
            tagged(part, wire)
    return block


def unread(obj: Mapping[str, Any], *read: str, wire: str) -> Extras:
    """Every field of ``obj`` but ``read``, nulls included, as ``wire``'s extras."""
    return Extras(wire, {key: value for key, value in obj.items() if key not in read})


def message_extras(message: Mapping[str, Any], wire: str) -> Extras:
    """A wire message's fields beside its ``role`` and its ``content``; a
    content that is neither text nor a list of parts is kept among them, as a
    field streamkit has no place for."""
    content = ("content",) if isinstance(message.get("content"), (str, list)) else ()
    return unread(message, "role", *content, wire=wire)


def exactly(block: Block, write: Callable[[Any], Any], obj: Mapping[str, Any], *,
            kind: str, wire: str, ids: StreamIds | None = None) -> Block:
    """``block`` when ``write(block)`` gives ``obj`` back exactly, else ``obj``
    kept whole as a ``kind`` :class:`RawBlock` of ``wire``: reading a request
    never loses a field or changes a form. ``ids`` makes the raw block's id
    (the reader's, so two reads of a body agree)."""
    try:
        with collecting_losses():  # a check, not a build: a loss keeps the part whole, unsaid
            if write(block) == obj:
                return block
    except (StreamkitError, ValueError, TypeError):
        pass
    return kept(kind, obj, wire, ids)


def kept(kind: str, obj: Mapping[str, Any], wire: str, ids: StreamIds | None) -> RawBlock:
    """``obj`` kept whole as a ``kind`` :class:`RawBlock` of ``wire``, its id made
    by the reader's ``ids`` (so two reads of a body agree); one whose ``type``
    is no string is refused (:func:`typed_part`)."""
    typed_part(obj, wire)
    return RawBlock(kind, dict(obj), id=ids.make("raw") if ids is not None else None,
                    metadata=Extras(wire))


def typed_part(obj: Mapping[str, Any], wire: str) -> None:
    """Refuse a request's part or item whose ``type`` is there and no string
    (:class:`~streamkit.model.errors.InvalidBodyError`). ``type`` is what every
    reader and builder of a wire branches on; kept whole, such a part would
    reach a builder that looks it up (``{"type": []}`` in a set raises
    ``TypeError``), and no API takes it."""
    kind = obj.get("type")
    if kind is not None and type(kind) is not str:
        raise InvalidBodyError(f"a part's or item's 'type' must be a string, not "
                               f"{type(kind).__name__}: {str(dict(obj))[:200]}",
                               wire=wire, where="type")


def read_part(part: Any, readers: Mapping[str, Callable[[dict[str, Any], StreamIds], Any]],
              write: Callable[[Any], Any], *, wire: str, ids: StreamIds) -> Block:
    """A request's part as the block the reader of its ``type`` makes of it,
    when writing that block gives the part back exactly (:func:`exactly`); a
    part that is not an object, of a type with no reader, or one its reader
    declines (``None``, or a ``ValueError``) is kept whole."""
    if type(part) is not dict:
        return kept("unknown", {"part": part}, wire, ids)
    kind = part.get("type")
    kind = kind if isinstance(kind, str) and kind else "unknown"
    read = readers.get(kind)
    try:
        block = read(part, ids) if read is not None else None
    except ValueError:
        block = None
    if block is None:
        return kept(kind, part, wire, ids)
    return exactly(block, write, part, kind=kind, wire=wire, ids=ids)


def with_extras(obj: dict[str, Any], metadata: Mapping[str, Any], wire: str,
                records: Collection[str] = ()) -> dict[str, Any]:
    """``obj`` with the fields a reader of ``wire`` kept in ``metadata`` written
    over it (never another wire's, nor the reader's own ``records``), and
    without those the body did not have (:data:`ABSENT`)."""
    extras = extras_for(metadata, wire)
    obj.update((key, value) for key, value in extras.items()
               if key not in records and key != ABSENT)
    for key in extras.get(ABSENT, ()):
        obj.pop(key, None)
    return obj


def raw_part(block: RawBlock, wire: str) -> dict[str, Any]:
    """A part ``wire``'s reader kept whole (or one made by hand), as it came;
    another wire's is content only that wire reads: refused, since dropping it
    would change what the model sees."""
    origin = origin_of(block.metadata)
    if origin not in (None, wire):
        raise UnsupportedFeatureError(
            wire, f"a {origin} {block.kind!r} part (block {block.id!r})",
            "it is a part only that wire reads; give its content as text, an image or a file")
    return block.data


def raw_part_or_dropped(block: RawBlock, wire: str) -> dict[str, Any] | None:
    """A part kept whole, for the wires whose user turns leave out another
    wire's part (Gemini, OpenAI Chat, Ollama) rather than refuse it as
    :func:`raw_part` does: its own wire's part as it was, another wire's
    ``None``, said with a :class:`~streamkit.LossyTranslationWarning` (the model
    will not see what the user sent)."""
    origin = origin_of(block.metadata)
    if origin in (None, wire):
        return block.data
    warn_lossy(wire, f"a {origin} {block.kind!r} part of a user turn (block {block.id!r})",
               "it is a part only that wire reads; give its content as text, an image or a "
               "file")
    return None


def take(rest: dict[str, Any], key: str, kind: type, wire: str) -> Any:
    """``rest[key]`` taken out: a field the model has a place for (``model``,
    ``stream``), which must be a ``kind``. Absent or null, it is not said
    (``None``). Of another type, the body is refused
    (:class:`~streamkit.model.errors.InvalidBodyError` naming the field): kept
    as an option, it would be written beside the request's own value (a
    ``model`` given twice) or sent to another wire as it came."""
    value = rest.pop(key, None)
    if value is not None and not isinstance(value, kind):
        raise InvalidBodyError(f"{key!r} must be a {_KIND_WORDS.get(kind, kind.__name__)}, not "
                               f"{type(value).__name__}", wire=wire, where=key)
    return value


_KIND_WORDS = {str: "string", bool: "boolean"}


def take_list(rest: dict[str, Any], key: str, wire: str) -> list[Any]:
    """The list ``rest[key]`` taken out (``[]`` when absent): the messages of a
    body, which no reader can keep as an option when they are not a list."""
    value = rest.pop(key, [])
    if not isinstance(value, list):
        raise InvalidBodyError(f"{key!r} must be a list, not {type(value).__name__}",
                               wire=wire, where=key)
    return value


def write_user_part(block: UserContent, text: Callable[[TextBlock], dict[str, Any]],
                    data: Callable[[DataBlock], dict[str, Any]], wire: str) -> dict[str, Any]:
    """One part of user content by ``wire``'s writers of text and data; a part
    kept whole goes back to its own wire only (:func:`raw_part`)."""
    if isinstance(block, TextBlock):
        return text(block)
    if isinstance(block, DataBlock):
        return data(block)
    return raw_part(block, wire)


def put_back(rest: dict[str, Any], key: str, left: dict[str, Any], *,
             keep_empty: bool = False) -> None:
    """What of the object field ``key`` a reader did not take (``left``) stays
    in the body's ``rest``; the field goes when nothing is left of it, unless
    ``keep_empty`` (an empty object as given, or one nothing was taken from)."""
    if left or keep_empty:
        rest[key] = left
    else:
        del rest[key]
