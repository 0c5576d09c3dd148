"""The objects an OpenAI Responses answer is written as: the response's usage
and final status, its output items and their parts.

:mod:`.encode` decides *when* each event goes out; this module says *what* the
objects those events carry hold, as pure functions of what the encoder kept
(:class:`Item`, :class:`Part`) and whether the answer was read from this wire
(``own``: only then do the fields its reader kept go back).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Final

from ...model.blocks import ContentBlock, DataBlock, RawBlock
from ...model.finish import FinishReason
from ...model.usage import ChatUsage
from ..coerce import Wire
from ..encoder import input_tokens_for
from .wire import END_STATUSES, FINISH_WORDS, USUAL_STATUS, with_required_fields

__all__ = ["DELTA_EVENTS", "MESSAGE_PARTS", "NO_STATUS", "RESPONSE_BOOKKEEPING",
           "RESPONSE_DEFAULTS", "Item", "Part", "block_extras", "complete_usage", "count_parts",
           "empty_part", "end_status", "is_audio", "item_object", "part_object", "usage_object"]


#: The reader's own records in a block's metadata: where the block was on the
#: wire, never a field of an item or a part.
_BLOCK_BOOKKEEPING: Final = frozenset({"item_id", "summary_index", "content_index", "kind",
                                       "custom", "call_id", "progress", "partial",
                                       "partial_image_index"})
#: Item fields a reader puts on every block of the item.
_ITEM_FIELDS: Final = ("status", "role")
#: The reader's own records in a response's metadata.
RESPONSE_BOOKKEEPING: Final = frozenset({"unknown_events", "final_response_id", "status",
                                         "error"})

#: The fields every ``Response`` has, for an answer of another wire.
RESPONSE_DEFAULTS: Final[MappingProxyType[str, Any]] = MappingProxyType({
    "error": None, "incomplete_details": None, "instructions": None, "metadata": {},
    "parallel_tool_calls": True, "temperature": None, "tool_choice": "auto", "tools": [],
    "top_p": None})

#: The part kinds a ``message`` item's content holds.
MESSAGE_PARTS: Final = ("output_text", "refusal", "raw_part")

#: A part kind whose text streams -> its events' prefix and the field numbering it.
DELTA_EVENTS: Final = MappingProxyType({
    "output_text": ("response.output_text", "content_index"),
    "refusal": ("response.refusal", "content_index"),
    "summary_text": ("response.reasoning_summary_text", "summary_index"),
    "reasoning_text": ("response.reasoning_text", "content_index"),
})

_MISSING: Final = object()


# ---------------------------------------------------------------- the response


def usage_object(usage: ChatUsage | None, *, own: bool) -> Wire | None:
    """The ``usage`` object: the provider's own for this wire's answer, else the
    counts in Responses' fields (``null`` for a response that reported none)."""
    if usage is None:
        return None
    if own and usage.raw:
        return dict(usage.raw)
    input_tokens = input_tokens_for(usage, includes_cache=True)
    output_tokens = usage.output_tokens or 0
    input_details: Wire = {"cached_tokens": usage.cached_tokens or 0,
                           "cache_write_tokens": usage.cache_creation_tokens or 0}
    return {"input_tokens": input_tokens, "input_tokens_details": input_details,
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": usage.reasoning_tokens or 0},
            "total_tokens": input_tokens + output_tokens}


def complete_usage(usage: Wire) -> Wire:
    """A ``usage`` object with every count the ``Response`` model requires: an
    answer recorded before the API sent ``cache_write_tokens`` (or a vendor's
    that never did) gets 0 for what it left out."""
    tokens = {key: usage.get(key) if type(usage.get(key)) is int else 0
              for key in ("input_tokens", "output_tokens")}
    inputs = usage.get("input_tokens_details")
    outputs = usage.get("output_tokens_details")
    total = usage.get("total_tokens")
    return {**usage, **tokens,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0,
                                     **(inputs if type(inputs) is dict else {})},
            "output_tokens_details": {"reasoning_tokens": 0,
                                      **(outputs if type(outputs) is dict else {})},
            "total_tokens": total if type(total) is int else sum(tokens.values())}


def end_status(finish: FinishReason | None, stop_reason: str | None, *,
               own: bool) -> tuple[str, str | None]:
    """The final ``status`` and, for ``incomplete``, its reason: this wire's own
    word for its answers, else the word for the uniform reason
    (:data:`.wire.FINISH_WORDS`: a status, or an incomplete response's reason)."""
    if own and stop_reason in END_STATUSES:
        return stop_reason, None
    word = FINISH_WORDS[finish] if finish is not None else "completed"
    if own and stop_reason is not None and stop_reason != "incomplete" and (
            word not in END_STATUSES or finish is FinishReason.UNKNOWN):
        return "incomplete", stop_reason  # the API's own reason word, as it came
    if word is None:
        return "incomplete", None  # an unknown end: no success word is made up
    if word in END_STATUSES:
        return word, None
    return "incomplete", word


# ---------------------------------------------------------------- items and parts


class Item:
    """One output item: its position, its type and id, its item object as
    ``output_item.added`` sent it, its parts (by block index, in order), how
    many of its blocks are open, how many parts of each kind it has and the
    parts whose ``.done`` events are not written yet (so that a new part costs
    the same whatever came before it: the encoder is linear in the parts)."""

    __slots__ = ("added", "blocks", "counts", "done", "encrypted", "extras", "id", "kind", "open",
                 "position", "status", "unsaid")

    def __init__(self, position: int, kind: str, item_id: str, added: Wire) -> None:
        self.position = position
        self.kind = kind
        self.id = item_id
        self.added = added
        self.blocks: list[Part] = []
        self.counts: dict[str, int] = {}  # part kind -> how many
        self.unsaid: list[Part] = []  # parts whose .done events may still be due
        self.open = 0
        self.done = False
        self.encrypted: str | None = None
        self.extras: list[Wire] = []  # each block's kept fields, to find the item's own
        self.status: str | None = None  # None: the type's usual word (USUAL_STATUS)


#: :attr:`Item.status` of an item whose reader kept ``None``: it came without one.
NO_STATUS: Final = ""


class Part:
    """One block written as a part (or as the item itself): its item, its kind
    (``output_text``, ``refusal``, ``summary_text``, ``reasoning_text``,
    ``call``, ``raw``, ``image``, ``none``), its index among its kind's parts
    and its content so far."""

    __slots__ = ("annotations", "appended", "block", "index", "item", "kind", "metadata",
                 "pieces", "said_done")

    def __init__(self, item: Item, kind: str, index: int, block: ContentBlock) -> None:
        self.item = item
        self.kind = kind
        self.index = index
        self.block = block
        self.metadata: Wire = dict(block.metadata)
        self.pieces: list[str] = []
        self.annotations: list[Wire] = []
        self.appended: set[str] = set()  # metadata keys whose list is this part's own copy
        self.said_done = False  # its .done events are written

    def append(self, key: str, items: list[Any]) -> None:
        """``items`` appended to the metadata list ``key``: the list the block
        came with (an event's value, never changed) is copied once, then grown
        in place, so n appends cost n, not n squared."""
        if key not in self.appended:
            kept = self.metadata.get(key)
            self.metadata[key] = list(kept) if type(kept) is list else []
            self.appended.add(key)
        self.metadata[key].extend(items)

    def update(self, metadata: dict[str, Any]) -> None:
        """Fields set by a delta or a snapshot: their lists are theirs again."""
        self.metadata.update(metadata)
        self.appended.difference_update(metadata)

    @property
    def content(self) -> str:
        return "".join(self.pieces)


def block_extras(metadata: dict[str, Any]) -> Wire:
    """The item and part fields a reader of this wire kept on a block."""
    return {key: value for key, value in metadata.items() if key not in _BLOCK_BOOKKEEPING}


def count_parts(item: Item, kinds: tuple[str, ...]) -> int:
    """How many of the item's parts are of ``kinds`` (the last one counted):
    from the item's counts, not by walking its parts."""
    return sum(item.counts.get(kind, 0) for kind in kinds)


def is_audio(block: ContentBlock) -> bool:
    return isinstance(block, DataBlock) and block.source.media_type.startswith("audio/")


def empty_part(kind: str) -> Wire:
    """A message part as ``content_part.added`` announces it."""
    if kind == "refusal":
        return {"type": "refusal", "refusal": ""}
    return {"type": "output_text", "text": "", "annotations": [], "logprobs": []}


def part_object(part: Part, *, own: bool) -> Wire:
    """The whole part as the item's content holds it."""
    extras = block_extras(part.metadata) if own else {}
    for field in _ITEM_FIELDS:
        extras.pop(field, None)
    if part.kind == "refusal":
        return {"type": "refusal", "refusal": part.content, **extras}
    if part.kind == "output_text":
        return {"type": "output_text", "text": part.content, "annotations": part.annotations,
                "logprobs": extras.pop("logprobs", []), **extras}
    if part.kind == "raw_part":
        assert isinstance(part.block, RawBlock)
        return dict(part.block.data)
    return {"type": part.kind, "text": part.content, **extras}


def item_object(item: Item, *, own: bool) -> Wire:
    """The item as ``output_item.done`` and the final output hold it."""
    shared = _shared_extras(item, own=own)
    if item.kind == "message":
        content = [part_object(part, own=own) for part in item.blocks
                   if part.kind in MESSAGE_PARTS]
        for part in content:
            for key in shared:
                part.pop(key, None)
        return {"id": item.id, "type": "message", "status": item.status or "completed",
                "role": "assistant", **shared, "content": content}  # the SDK requires one
    if item.kind == "reasoning":
        return _reasoning_object(item, shared, own=own)
    first = item.blocks[0] if item.blocks else None
    if item.kind in ("function_call", "custom_tool_call") and first is not None:
        field = "input" if item.kind == "custom_tool_call" else "arguments"
        return _with_status({**item.added, field: first.content, **shared}, item)
    if first is not None and isinstance(first.block, RawBlock):
        return with_required_fields({"type": first.block.kind, **first.block.data}, done=True)
    return dict(item.added)


def _reasoning_object(item: Item, shared: Wire, *, own: bool) -> Wire:
    """A ``reasoning`` item: its summary parts, its raw reasoning, the
    encrypted content this wire's answer came with."""
    summary = [_without(part_object(part, own=own), shared)
               for part in item.blocks if part.kind == "summary_text"]
    reasoning = [_without(part_object(part, own=own), shared)
                 for part in item.blocks if part.kind == "reasoning_text"]
    out: Wire = {"id": item.id, "type": "reasoning", "summary": summary, **shared}
    if reasoning:
        out["content"] = reasoning
    if item.encrypted is not None:
        out["encrypted_content"] = item.encrypted
    return _with_status(out, item)


def _with_status(out: Wire, item: Item) -> Wire:
    """``out`` with the item's final ``status``: the one its reader kept, else
    its type's usual word (:data:`USUAL_STATUS`), else none (an
    ``in_progress`` from ``output_item.added`` taken off)."""
    status = item.status if item.status is not None else USUAL_STATUS.get(item.kind)
    if status:
        out["status"] = status
    else:
        out.pop("status", None)
    return out


def _shared_extras(item: Item, *, own: bool) -> Wire:
    """The kept fields every block of the item has: the item's own (its
    ``status`` is taken as the item's)."""
    if not own or not item.blocks:
        return {}
    extras = [block_extras(part.metadata) for part in item.blocks if part.kind != "raw"]
    if not extras:
        return {}
    shared = {key: value for key, value in extras[0].items()
              if all(other.get(key, _MISSING) == value for other in extras[1:])}
    if item.kind in ("message", "reasoning"):
        shared.pop("logprobs", None)
    status = shared.pop("status", _MISSING)
    if type(status) is str:
        item.status = status
    elif status is None:
        item.status = NO_STATUS
    shared.pop("role", None)
    return shared


def _without(part: Wire, shared: Wire) -> Wire:
    return {key: value for key, value in part.items() if key not in shared}
