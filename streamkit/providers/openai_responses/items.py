"""Output items and their parts: where an event's item is, and the blocks an item implies.

A Responses stream's ``output`` is a list of *items* addressed by position
(``output_index``); an item holds *parts* (a message's ``content_index``, a reasoning
item's ``summary_index``), and each part is one block. A part is named by a
:class:`PartKey` ``(position, kind, sub_index)``: by position first, because item ids can
be empty, repeated, or change between events for the same item. The stream parser keys
its :class:`~streamkit.providers.ledger.BlockLedger` by it.

:class:`Outputs` answers "which item does this event mean" (its own position, a reused
position's new item, its item id, else the latest item). :class:`ItemReader` turns an
item or part *as the wire sends it* (``output_item.added`` / ``.done``, a part's
``.added`` / ``.done``, the final ``response.output``, an input item of a request) into
complete blocks; the parser decides what to open and close with them. Everything here
reads the wire through :mod:`~streamkit.providers.coerce`, so a wrongly typed field is
treated as absent (and kept, see :class:`ItemReader`).

The blocks, by item and part:

- message ``output_text`` part -> :class:`~streamkit.model.blocks.TextBlock`
  (``metadata["item_id"]``); ``refusal`` part -> ``TextBlock(refusal=True)``;
- reasoning summary part -> :class:`~streamkit.model.blocks.ThinkingBlock` with metadata
  ``{"item_id", "summary_index", "kind": "summary"}``; raw ``reasoning_text`` part ->
  ``kind: "reasoning_text"`` with ``content_index``; a reasoning item with no visible
  part at all still gets one ThinkingBlock (``kind: "item"``) so the item can be sent
  back;
- ``function_call`` / ``custom_tool_call`` -> :class:`~streamkit.model.blocks.ToolCallBlock`
  (id = ``call_id``, name from ``output_item.added``; a custom tool's ``input`` is raw
  text, marked ``metadata["custom"] = True``);
- any other item (``web_search_call``, ``code_interpreter_call``, ``mcp_call``,
  ``image_generation_call``, ``computer_call``...) -> :class:`~streamkit.model.blocks.RawBlock`
  ``(kind=item type, data=item)``, updated from ``output_item.done`` (the RawBlock
  rule of :func:`~streamkit.model.merge.apply_snapshot`); an image generation's final
  ``result`` is one more block, the image :class:`~streamkit.model.blocks.DataBlock`,
  as is each of its partial images in a stream (:meth:`ItemReader.partial_image`).

Positions (:class:`Outputs`): an event without ``output_index`` finds its item by
``item_id``, else the latest item; an ``output_item.added`` that reuses the position of
a finished item (a vendor numbering every item 0) starts a new position that its later
events follow.
"""

from __future__ import annotations

import binascii
from collections.abc import Callable, Mapping
from typing import Any, Final, Literal, NamedTuple

from ...model.blocks import (
    Block,
    ContentBlock,
    DataBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)
from ...model.data_sources import Base64Source
from ...model.ids import StreamIds
from ...model.merge import apply_snapshot
from ..coerce import as_int, as_list, as_str, mapping
from ..ledger import OpenBlock
from ..lossless import unmodelled, unread
from .citations import read_citations
from .wire import NAME, USUAL_STATUS

# What kind of block a part is (the middle of a PartKey).
PartKind = Literal["text", "refusal", "summary", "reasoning_text", "item", "call", "raw", "part",
                   "image", "partial_image", "audio"]
TEXT: Final = "text"  # a message's output_text part: TextBlock
REFUSAL: Final = "refusal"  # a message's refusal part: TextBlock(refusal=True)
SUMMARY: Final = "summary"  # a reasoning summary part: ThinkingBlock
REASONING: Final = "reasoning_text"  # a raw reasoning_text part: ThinkingBlock
ITEM: Final = "item"  # a reasoning item with no visible part (encrypted content only)
CALL: Final = "call"  # a function_call / custom_tool_call item: ToolCallBlock
RAW: Final = "raw"  # any other item (a server-side tool call...): RawBlock
PART: Final = "part"  # a message part of a type streamkit does not model: RawBlock
IMAGE: Final = "image"  # an image generation's final result: DataBlock
PARTIAL_IMAGE: Final = "partial_image"  # one partial image of an image generation
AUDIO: Final = "audio"  # response.audio.*: one DataBlock that belongs to no item

THINKING_KINDS: Final = frozenset({SUMMARY, REASONING, ITEM})
CLIENT_CALLS: Final = frozenset({"function_call", "custom_tool_call"})


class PartKey(NamedTuple):
    """One part of one output item: the block it maps to is found by this key."""

    position: int
    kind: PartKind
    sub_index: int


# Audio deltas carry no item: their one block has a position no output item has.
AUDIO_KEY: Final = PartKey(-1, AUDIO, 0)


class PartSnapshot(NamedTuple):
    """A part's complete content as one wire object states it."""

    key: PartKey
    block: ContentBlock


class Part(OpenBlock):
    """The stream parser's ledger record of one open part: besides its index, its
    key, the id its block opened with, and the latest part-level snapshot (a
    ``.done`` event's content; never deltas), which is the parser's own until the
    block closes with it. The parser also keeps every part it opened (closed ones
    too)."""

    __slots__ = ("block_id", "key", "pending")

    def __init__(self, index: int, kind: type[Block]) -> None:
        super().__init__(index, kind)
        self.key: PartKey = AUDIO_KEY  # set as the parser opens it
        self.block_id = ""
        self.pending: ContentBlock | None = None


class OutputItem:
    """What the parser knows of one output item: its type and id, the item as
    ``output_item.added`` sent it (a call's name and call_id), its parts in opening
    order, and whether ``output_item.done`` (or the end) closed it."""

    __slots__ = ("added", "done", "id", "parts", "type")

    def __init__(self, item_type: str | None, item_id: str | None,
                 added: dict[str, Any]) -> None:
        self.type = item_type
        self.id = item_id
        self.added = added
        self.parts: dict[PartKey, None] = {}  # in order; a dict: membership is O(1)
        self.done = False


class Outputs:
    """The response's output items by position, and how an event finds its item.

    ``aliases`` maps a wire ``output_index`` that a vendor reused for a new item (one
    that numbers every item 0) to the position the new item got; the events that follow
    use the alias. ``latest`` is the position of the item opened last, for events with
    neither an index nor a known item id.
    """

    def __init__(self) -> None:
        self.items: dict[int, OutputItem] = {}
        self.aliases: dict[int, int] = {}
        self._by_id: dict[str, int] = {}
        self._latest = 0

    def resolve(self, output_index: int | None, item_id: str | None) -> int:
        """The position of an event: its own index, else its item id's, else the
        latest item's (ids can be missing or change; positions rarely do)."""
        if output_index is not None:
            return self.aliases.get(output_index, output_index)
        if item_id is not None and item_id in self._by_id:
            return self._by_id[item_id]
        return self._latest

    def item(self, position: int, item_id: str | None = None,
             item_type: str | None = None) -> OutputItem:
        """The item at ``position``, created when events name it before (or without)
        its ``output_item.added``."""
        record = self.items.get(position)
        if record is None:
            record = self.items[position] = OutputItem(item_type, item_id, {})
            if item_id:
                self._by_id.setdefault(item_id, position)
            self._latest = position
        elif record.type is None:
            record.type = item_type
        return record

    def item_id(self, position: int, event_item_id: str | None) -> str | None:
        """The item's own id when known, else the one the event names."""
        record = self.items.get(position)
        if record is not None and record.id:
            return record.id
        return event_item_id or None

    def item_type(self, position: int) -> str | None:
        record = self.items.get(position)
        return record.type if record is not None else None

    def add(self, output_index: int | None, item: dict[str, Any]) -> int:
        """Record an ``output_item.added`` and return the item's position.

        An index that already holds a finished item (or an item of another type) is a
        vendor reusing it: the new item gets the next free position, and the index
        becomes an alias for it. Without an index the item is found by id, else it is
        a new one.
        """
        item_id = as_str(item.get("id")) or None
        item_type = as_str(item.get("type"))
        if output_index is None:
            known = self._by_id.get(item_id) if item_id else None
            position = known if known is not None else self._next_free()
        else:
            position = self.resolve(output_index, None)
        record = self.items.get(position)
        if record is not None and output_index is not None and (
                record.done or as_str(record.added.get("type")) not in (None, item_type)):
            position = self.aliases[output_index] = self._next_free()
            record = None
        if record is None:
            self.items[position] = OutputItem(item_type, item_id, item)
        else:  # events for this position came first; the item fills in what they lacked
            record.type = record.type or item_type
            record.id = record.id or item_id
            record.added = item
        if item_id:
            self._by_id.setdefault(item_id, position)
        self._latest = position
        return position

    def match(self, index: int, item: dict[str, Any], used: set[int]) -> int:
        """The position of the final ``response.output[index]``: by id, else by index
        when the item type agrees, else a new position (a vendor's index gaps)."""
        item_id = as_str(item.get("id"))
        if item_id and item_id in self._by_id and self._by_id[item_id] not in used:
            return self._by_id[item_id]
        record = self.items.get(index)
        if index not in used and (
                record is None or record.type in (None, as_str(item.get("type")))):
            return index
        return max([*self.items, *used], default=-1) + 1

    def _next_free(self) -> int:
        return max(self.items, default=-1) + 1


# ---------------------------------------------------------------- blocks of parts

#: How a reader keeps what it did not read of a wire object: ``keep(obj, read)``,
#: ``read`` mapping each field read to the value it gave (see :mod:`..lossless`).
Keep = Callable[[Mapping[str, Any], Mapping[str, Any]], dict[str, Any]]


def request_fields(obj: Mapping[str, Any], read: Mapping[str, Any]) -> dict[str, Any]:
    """The :data:`Keep` of a request reader: every field not read, nulls included,
    so that writing the blocks back gives the input item exactly."""
    return unread(obj, *read, wire=NAME)


def id_metadata(item_id: str | None) -> dict[str, Any]:
    return {"item_id": item_id} if item_id else {}


# The envelope of a server-side tool's progress event and of a partial image.
PROGRESS_FIELDS: Final = frozenset({"type", "item_id", "output_index", "sequence_number"})
_PARTIAL_IMAGE_FIELDS: Final = PROGRESS_FIELDS | {"partial_image_b64", "partial_image_index"}


def event_extras(payload: Mapping[str, Any], envelope: frozenset[str]) -> dict[str, Any]:
    """An event's fields beyond its ``envelope`` (where it goes, its sequence
    number, its content): a vendor's additions, kept on the block. The envelope
    is the parser's whatever its values, so it is never the block's metadata."""
    return unmodelled(payload, dict.fromkeys(envelope, True))


def with_content(block: ContentBlock, content: str) -> ContentBlock:
    """``block`` holding ``content`` as its text, thinking or tool input."""
    if isinstance(block, TextBlock):
        block.text = content
    elif isinstance(block, ThinkingBlock):
        block.thinking = content
    elif isinstance(block, ToolCallBlock):
        block.input = content
    return block


def merged(current: ContentBlock | None, other: ContentBlock | None) -> ContentBlock | None:
    """Two snapshots of one part (an item's text, a part's ``.done``) merged by the
    accumulator's own rule: the fuller content wins, fields only one has are kept.
    ``current`` is the parser's own, not yet emitted."""
    if current is None:
        return other
    if other is not None and type(other) is type(current):
        apply_snapshot(current, other)
    return current


def decode_base64(text: str) -> bytes | None:
    """The bytes of base64 ``text``, or ``None`` when it is not base64 (bad padding,
    non-ASCII characters)."""
    try:
        return binascii.a2b_base64(text)
    except ValueError:  # binascii.Error, or a str that is not ASCII
        return None


def image_media_type(output_format: Any) -> str:
    """``png`` -> ``image/png`` (the image tool's default format)."""
    image_format = as_str(output_format) or "png"
    return image_format if "/" in image_format else f"image/{image_format}"


class ItemReader:
    """Output items and parts -> complete blocks, for one stream or one request body.

    ``ids`` makes the ids the wire does not give (a text part has none), derived
    from the stream or body so that two readings of the same bytes agree.
    ``keep`` says what becomes of the fields the model has no place for: a
    stream keeps them as they say something (:func:`~..lossless.unmodelled`:
    nulls dropped, a wrongly typed field kept under its own name), a request
    reader keeps every one (:func:`request_fields`). The fields that make an
    item what it is (its ``type`` and ``id``, a message's ``content``, a
    reasoning item's ``summary``) count as read whatever their type: kept in
    ``metadata`` they would replace what an own turn writes back.
    """

    __slots__ = ("ids", "keep")

    def __init__(self, ids: StreamIds, keep: Keep = unmodelled) -> None:
        self.ids = ids
        self.keep = keep

    # ------------------------------------------------------------ empty blocks

    def thinking_block(self, key: PartKey, item_id: str | None) -> ThinkingBlock:
        """An empty thinking block for a summary (``summary_index``) or reasoning_text
        (``content_index``) part."""
        metadata = id_metadata(item_id)
        metadata["summary_index" if key.kind == SUMMARY else "content_index"] = key.sub_index
        metadata["kind"] = key.kind
        return ThinkingBlock(id=self.ids.make("think"), metadata=metadata)

    def part_block(self, key: PartKey, item_id: str | None, added: dict[str, Any],
                   custom: bool = False) -> ContentBlock:
        """The empty block a streamed part opens with: its identity, no content yet.
        A call takes its id and name from the item's ``output_item.added``."""
        if key.kind in (SUMMARY, REASONING):
            return self.thinking_block(key, item_id)
        if key.kind == CALL:
            metadata = id_metadata(item_id)
            if custom or added.get("type") == "custom_tool_call":
                metadata["custom"] = True
            return ToolCallBlock(as_str(added.get("call_id")) or self.ids.make("call"),
                                 as_str(added.get("name")) or "", metadata=metadata)
        return TextBlock(id=self.ids.make("text"), refusal=key.kind == REFUSAL,
                         metadata=id_metadata(item_id))

    def empty_like(self, block: ContentBlock) -> ContentBlock:
        """The block to open for a part whose content will stream (or arrive in a
        snapshot): identity and metadata, no content. Raw items and images are complete
        when they open (a copy: the snapshot itself may still be filled in later)."""
        # An item's status is in progress when it opens; the done snapshot brings the final one.
        metadata = {key: value for key, value in block.metadata.items() if key != "status"}
        if isinstance(block, TextBlock):
            return TextBlock(id=self.ids.make("text"), refusal=block.refusal, metadata=metadata)
        if isinstance(block, ThinkingBlock):
            return ThinkingBlock(id=self.ids.make("think"), metadata=metadata)
        if isinstance(block, ToolCallBlock):
            return ToolCallBlock(block.id, block.name, metadata=metadata)
        copied: ContentBlock = block.copy()  # type: ignore[assignment]
        return copied

    # ------------------------------------------------------------ parts

    def content_part(self, position: int, content_index: int, part: dict[str, Any],
                     item_id: str | None, item_type: str | None) -> PartSnapshot:
        """One content part of a message (or a reasoning item's ``reasoning_text``)."""
        part_type = part.get("type")
        if part_type == "reasoning_text" or (item_type == "reasoning" and part_type is None):
            key = PartKey(position, REASONING, content_index)
            thinking = self.thinking_block(key, item_id)
            text = as_str(part.get("text"))
            thinking.thinking = text or ""
            thinking.metadata.update(self.keep(part, {"type": part_type, "text": text}))
            return PartSnapshot(key, thinking)
        if part_type == "refusal":
            refusal = TextBlock(id=self.ids.make("text"), refusal=True,
                                metadata=id_metadata(item_id))
            said = as_str(part.get("refusal"))
            refusal.text = said or as_str(part.get("text")) or ""
            refusal.metadata.update(self.keep(part, {"type": part_type, "refusal": said}))
            return PartSnapshot(PartKey(position, REFUSAL, content_index), refusal)
        if part_type in ("output_text", "text", None):
            block = TextBlock(id=self.ids.make("text"), metadata=id_metadata(item_id))
            text = as_str(part.get("text"))
            block.text = text or ""
            annotations = as_list(part.get("annotations"))
            block.citations = read_citations(annotations or ())
            logprobs = part.get("logprobs")
            if logprobs:
                block.metadata["logprobs"] = logprobs
            block.metadata.update(self.keep(part, {"type": part_type, "text": text,
                                                   "annotations": annotations,
                                                   "logprobs": logprobs}))
            return PartSnapshot(PartKey(position, TEXT, content_index), block)
        raw = RawBlock(as_str(part_type) or "unknown", dict(part), id=self.ids.make("raw"),
                       metadata=id_metadata(item_id))
        return PartSnapshot(PartKey(position, PART, content_index), raw)

    def summary_part(self, position: int, summary_index: int, part: dict[str, Any],
                     item_id: str | None) -> PartSnapshot:
        """One reasoning summary part."""
        key = PartKey(position, SUMMARY, summary_index)
        block = self.thinking_block(key, item_id)
        text = as_str(part.get("text"))
        block.thinking = text or ""
        block.metadata.update(self.keep(part, {"type": part.get("type"), "text": text}))
        return PartSnapshot(key, block)

    # ------------------------------------------------------------ items

    def partial_image(self, position: int, image: bytes, event: dict[str, Any],
                      item: OutputItem, item_id: str | None) -> PartSnapshot:
        """One ``image_generation_call.partial_image`` event's image (decoded), a
        complete block of its own, numbered by the event or else by the item's
        partials so far."""
        number = as_int(event.get("partial_image_index"))
        if number is None:
            number = sum(key.kind == PARTIAL_IMAGE for key in item.parts)
        metadata = id_metadata(item_id)
        metadata.update(partial=True, partial_image_index=number)
        metadata.update(event_extras(event, _PARTIAL_IMAGE_FIELDS))
        image_format = event.get("output_format") or item.added.get("output_format")
        block = DataBlock(id=self.ids.make("data"),
                          source=Base64Source(image, image_media_type(image_format)),
                          metadata=metadata)
        return PartSnapshot(PartKey(position, PARTIAL_IMAGE, number), block)

    def item(self, position: int, item: dict[str, Any], item_id: str | None, *,
             has_parts: bool, call_block_id: str | None) -> list[PartSnapshot]:
        """Every block an output item implies, complete.

        ``item_id`` is the item's known id; ``has_parts`` whether blocks were already
        opened for it (a reasoning item then needs no bare block); ``call_block_id`` the
        id its call's block opened with, kept when the item's ``call_id`` differs.
        """
        item_type = as_str(item.get("type"))
        if item_type == "message":
            return self._message(position, item, item_id)
        if item_type == "reasoning":
            return self._reasoning(position, item, item_id, has_parts)
        if item_type in CLIENT_CALLS:
            return [self._call(position, item, item_id, call_block_id)]
        return self._raw(position, item, item_type or "unknown")

    def _item_metadata(self, item: dict[str, Any], read: dict[str, Any]) -> dict[str, Any]:
        """What the item's blocks keep of its fields: the unread ones, and its
        ``status`` unless it is the usual word of its type (:data:`USUAL_STATUS`,
        which says nothing); a call that has none keeps ``None``, so it is
        written back without one. A message without one is written with
        ``completed``, which the SDK's type requires."""
        status = item.get("status")
        metadata = self.keep(item, {"type": item.get("type"), "id": item.get("id"),
                                    "status": status, **read})
        usual = USUAL_STATUS.get(as_str(item.get("type")) or "")
        if status is not None and status != usual:
            metadata["status"] = status
        elif status is None and "status" not in item and usual is not None \
                and item.get("type") != "message":
            metadata["status"] = None
        return metadata

    def _message(self, position: int, item: dict[str, Any],
                 item_id: str | None) -> list[PartSnapshot]:
        content = item.get("content")
        metadata = self._item_metadata(item, {"role": item.get("role"), "content": content})
        if item.get("role") not in (None, "assistant"):
            metadata["role"] = item["role"]
        parts = [self.content_part(position, content_index, mapping(part), item_id, "message")
                 for content_index, part in enumerate(as_list(content) or ())]
        return _with_item_metadata(parts, metadata)

    def _reasoning(self, position: int, item: dict[str, Any], item_id: str | None,
                   has_parts: bool) -> list[PartSnapshot]:
        summary, content = item.get("summary"), item.get("content")
        metadata = self._item_metadata(item, {
            "summary": summary, "content": content,
            "encrypted_content": as_str(item.get("encrypted_content"))})
        parts = [self.summary_part(position, summary_index, mapping(part), item_id)
                 for summary_index, part in enumerate(as_list(summary) or ())]
        parts += [self.content_part(position, content_index, mapping(part), item_id, "reasoning")
                  for content_index, part in enumerate(as_list(content) or ())]
        if not parts and not has_parts:
            # Nothing visible: one block still carries the item (id, encrypted content)
            # so a conversation can send it back.
            bare = ThinkingBlock(id=self.ids.make("think"),
                                 metadata={**id_metadata(item_id), "kind": ITEM})
            parts.append(PartSnapshot(PartKey(position, ITEM, 0), bare))
        return _with_item_metadata(parts, metadata)

    def _call(self, position: int, item: dict[str, Any], item_id: str | None,
              block_id: str | None) -> PartSnapshot:
        custom = item.get("type") == "custom_tool_call"
        input_field = "input" if custom else "arguments"
        call_id = as_str(item.get("call_id")) or None
        block_id = block_id or call_id
        metadata = id_metadata(item_id)
        if custom:
            metadata["custom"] = True
        if call_id and call_id != block_id:
            metadata["call_id"] = call_id
        name, given = as_str(item.get("name")), as_str(item.get(input_field))
        metadata.update(self._item_metadata(
            item, {"call_id": call_id, "name": name, input_field: given}))
        call = ToolCallBlock(block_id or self.ids.make("call"), name or "", given or "",
                             incomplete=item.get("status") == "incomplete", metadata=metadata)
        return PartSnapshot(PartKey(position, CALL, 0), call)

    def _raw(self, position: int, item: dict[str, Any], item_type: str) -> list[PartSnapshot]:
        """A server-side item, kept whole; an image generation's final ``result`` is one
        more block, the image itself (unless its base64 does not decode: then only the raw
        item holds it)."""
        item_id = as_str(item.get("id")) or None
        raw = RawBlock(item_type, dict(item), id=item_id or self.ids.make("raw"))
        out = [PartSnapshot(PartKey(position, RAW, 0), raw)]
        result = as_str(item.get("result"))
        image = decode_base64(result) if item_type == "image_generation_call" and result else None
        if image is not None:
            source = Base64Source(image, image_media_type(item.get("output_format")))
            out.append(PartSnapshot(PartKey(position, IMAGE, 0),
                                    DataBlock(id=self.ids.make("data"), source=source,
                                              metadata=id_metadata(item_id))))
        return out


def _with_item_metadata(snapshots: list[PartSnapshot],
                        metadata: dict[str, Any]) -> list[PartSnapshot]:
    for snapshot in snapshots:
        for key, value in metadata.items():
            snapshot.block.metadata.setdefault(key, value)
    return snapshots
