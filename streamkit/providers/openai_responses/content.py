"""OpenAI Responses input items and content parts <-> streamkit blocks, both directions.

One small function per wire kind, shared by the request builder and the request
parser:

- user side: ``input_text``, ``input_image`` and ``input_file`` parts <->
  :class:`TextBlock` and :class:`DataBlock`; ``function_call_output`` /
  ``custom_tool_call_output`` items <-> :class:`FunctionExecutionResult`;
- assistant side: ``message`` (its ``output_text`` / ``refusal`` parts),
  ``reasoning``, ``function_call`` / ``custom_tool_call`` items <-> the blocks the
  stream parser makes of them (:meth:`~.items.ItemReader.item`, the one reading of
  an output item both use), and every other item (``web_search_call``,
  ``mcp_call``, ``mcp_list_tools``, ``code_interpreter_call``, ``computer_call``,
  ``item_reference``...) <-> a :class:`RawBlock` holding it whole.

Where each block's wire fields live (the stream parser's layout, :mod:`.items`):
``metadata["item_id"]`` is the item's ``id``; ``status`` its status when not
``completed``; a thinking block's ``kind`` says which list of its reasoning item
it belongs to (``summary``, ``reasoning_text``, or ``item`` for a reasoning item
with nothing visible) and the item's ``encrypted_content`` is on its first
thinking block; a call's ``custom`` marks a custom tool call; any other key is
one of the item's own fields (``phase``...) and is written back as one.
Consecutive blocks with the same ``item_id`` are parts of one item again.

Reading a request is lossless: an item or part becomes blocks only when writing
those blocks gives it back exactly; otherwise it is kept whole (a
:class:`RawBlock`, or the original field in ``metadata``, which is written last
and wins). What a block, a tool output or a message keeps of the wire is
:class:`~streamkit.model.extras.Extras` of this wire, and the writers here write a
block's metadata only when it is this wire's or has no origin
(:func:`~streamkit.model.extras.extras_for`): another wire's fields never reach a
Responses body, whichever message carries them. Ids the body does not give (a
text part has none) are made up from the body itself, so two readings agree.

A field the stream parser leaves out because it says nothing (``status:
"completed"``) is put back into ``metadata`` when a request had it; ``None``
there means "not on the wire" for a field the writer would otherwise fill in (a
message's ``status``, an image's ``detail``, a file's ``filename``).

Sending an assistant turn (the cross-provider policy)
-----------------------------------------------------
A turn of this wire format and vendor (``provider`` ``openai-responses`` with
the same dialect, or ``None``: built by hand or read from a Responses request)
goes back as it came, the way OpenAI's conversation-state guide asks for
stateless requests ("keep all items of the output array": reasoning items with
their ``id``, ``summary`` and ``encrypted_content``, message ``id`` / ``status``
/ ``phase``, ``function_call`` ids; developers.openai.com/api/docs/guides/
conversation-state), with two repairs the API otherwise answers with a 400:

- a reasoning item with nothing after it in its turn (a response cut off while
  reasoning, a user message between it and its answer) cannot go as an item:
  "Item 'rs_...' of type 'reasoning' was provided without its required
  following item" (continuedev/continue#8933, vercel/ai#7099); its thinking
  is written as another API's (below: its text as ``<think>`` text, its
  encrypted content dropped);
- thinking that cannot be a reasoning item (no item id: built by hand, or cut
  off) is treated like another API's thinking, and then the turn's function
  calls go without their item ids, which would otherwise demand it: "Item
  'fc_...' of type 'function_call' was provided without its required
  'reasoning' item" (cline/cline#12242, TanStack/ai#1212).

A turn of another wire format, or of another vendor of this one (its item ids
and encrypted reasoning were issued by that server and mean nothing to this
one), keeps only what any Responses server takes (the policy of every wire,
:data:`streamkit.providers.turns.FOREIGN_BLOCKS`; :class:`TurnWriter` supplies
the writers):

- text as ``{"role": "assistant", "content": text}`` (the other API's
  citations and metadata dropped; a refusal as its text); media as its
  transcript, or nothing;
- tool calls as ``function_call`` items without item id (the arguments text as
  it came, cut off or not JSON, ``{}`` when empty: the policy of every wire,
  :mod:`streamkit.providers.function_tools`); the other API's server-side calls (blocks marked
  ``metadata["server"]``) are dropped, since no output could follow them;
- visible thinking as an assistant message ``<think>\\n...\\n</think>``, or
  nothing with ``foreign_thinking="drop"``;
- signatures, encrypted or redacted reasoning, tool results inside an
  assistant turn and provider items (:class:`RawBlock`) are dropped; so is a
  provider item of another wire in a turn of this one (read from another
  wire's request).

In a user, system or tool message, another wire's :class:`RawBlock` (a part
that wire's reader kept whole) is content this API cannot read: building
raises :class:`~streamkit.model.errors.UnsupportedFeatureError` rather than drop it.

Audio and video have no input part on this wire (the SDK's
``ResponseInputContentParam`` is text, image or file; Mirascope answers
``FeatureNotSupportedError`` for audio on Responses, Mirascope/mirascope#1460),
so building one raises :class:`~streamkit.model.errors.UnsupportedFeatureError`; a
recorded ``input_audio`` part is kept whole.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ...conversation.messages import FunctionExecutionResult, UserContent
from ...conversation.request import ForeignThinking
from ...model.blocks import (
    Block,
    ContentBlock,
    DataBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ...model.data_sources import URLSource
from ...model.errors import InvalidBodyError, UnsupportedFeatureError
from ...model.extras import Extras, extras_for, origin_of
from ...model.ids import StreamIds
from ..coerce import Wire, as_list, as_str
from ..function_tools import arguments_as_text
from ..lossless import read_part, tagged, unread, write_user_part
from ..media import base_media_type, data_url, read_data_url
from ..tool_media import result_blocks
from ..turns import ForeignWriters, foreign_parts
from .citations import annotations_of
from .items import CLIENT_CALLS, ItemReader
from .wire import NAME, with_required_fields

# The stream parser's metadata keys (:mod:`.items`) that are not item fields.
ITEM_ID = "item_id"
KIND = "kind"
STATUS = "status"
CUSTOM = "custom"
CALL_ID = "call_id"
LOGPROBS = "logprobs"
ROLE = "role"
_THINKING_KEYS = frozenset({ITEM_ID, KIND, STATUS, "summary_index", "content_index"})
# How a reasoning item's visible parts are listed, by the thinking block's kind.
_REASONING_LISTS = {"summary": ("summary", "summary_text"),
                    "reasoning_text": ("content", "reasoning_text")}
# Those lists' names: the reader handles them, so in a block's metadata they are
# a part's own fields, never its item's (they would replace the lists parts go into).
_REASONING_FIELDS = frozenset(name for name, _ in _REASONING_LISTS.values())
# Another wire format marks its server-side tool calls so (Anthropic, Gemini).
# A message item's status when the block does not say (ResponseOutputMessageParam
# requires one; the stream parser drops "completed" as saying nothing).
_COMPLETED = "completed"
# An image's detail when the block does not say: the API's default.
_AUTO = "auto"


@dataclass
class Calls:
    """What one request's assistant turns said about their calls, for the results
    that answer them: the wire ``call_id`` of a block id (they differ when the
    stream kept a call's first id) and which calls are custom tool calls."""

    call_ids: dict[str, str] = field(default_factory=dict)
    custom: set[str] = field(default_factory=set)


def own(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """What of a block's, message's or output's ``metadata`` this wire writes: a
    copy of it when it is this wire's or has no origin, else nothing."""
    return dict(extras_for(metadata, NAME))


def _given(metadata: dict[str, Any], key: str, default: Any) -> Any:
    """``metadata[key]`` popped, else ``default`` (``None``: leave the field out)."""
    return metadata.pop(key) if key in metadata else default


# ---------------------------------------------------------------- user parts: writing


def text_part(block: TextBlock) -> Wire:
    """``{"type": "input_text", "text": ...}`` with the block's wire extras."""
    return {"type": "input_text", "text": block.text, **own(block.metadata)}


def _image_part(block: DataBlock) -> Wire:
    """``input_image``: a URL or a ``data:`` URL, and its ``detail`` (``auto``
    unless the block says; the SDK's ``ResponseInputImageParam`` requires one)."""
    metadata = own(block.metadata)
    source = block.source
    url = source.url if isinstance(source, URLSource) else data_url(source, parameters=False)
    out: Wire = {"type": "input_image", "image_url": url}
    detail = _given(metadata, "detail", _AUTO)
    if detail is not None:
        out["detail"] = detail
    out.update(metadata)
    return out


def _default_filename(media_type: str) -> str:
    """A name for inline file data that has none (the file-inputs guide always
    sends one with ``file_data``): ``file`` and the media type's extension."""
    return "file" + (mimetypes.guess_extension(base_media_type(media_type)) or "")


def _file_part(block: DataBlock) -> Wire:
    """``input_file``: ``file_url``, or ``file_data`` as a ``data:`` URL with a
    ``filename`` (the block's ``name``)."""
    metadata = own(block.metadata)
    source = block.source
    out: Wire = {"type": "input_file"}
    if isinstance(source, URLSource):
        out["file_url"] = source.url
        filename = block.name
    else:
        out["file_data"] = data_url(source, parameters=False)
        filename = block.name if block.name is not None else _given(
            metadata, "filename", _default_filename(source.media_type))
    if filename is not None:
        out["filename"] = filename
    out.update(metadata)
    return out


def data_part(block: DataBlock) -> Wire:
    """An image or a file part; audio and video have no input part on this wire."""
    media_type = base_media_type(block.media_type)
    if media_type.startswith(("audio/", "video/")):
        raise UnsupportedFeatureError(
            NAME, f"{media_type} input (block {block.id!r})",
            "the OpenAI Responses API takes text, images and files as input; send audio "
            "through OpenAI Chat Completions")
    if media_type.startswith("image/"):
        return _image_part(block)
    return _file_part(block)


def user_part(block: UserContent) -> Wire:
    """One part of a user (or system) message, or of a tool output."""
    return write_user_part(block, text_part, data_part, NAME)


def tool_output(result: FunctionExecutionResult, calls: Calls) -> Wire:
    """A ``function_call_output`` (``custom_tool_call_output`` when it answers a
    custom tool call): a string, or a list of text / image / file parts.

    ``is_error`` has no field on this wire: the content says it (as
    :meth:`streamkit.conversation.tools.Tool.run_json` writes it). ``name`` is not sent either:
    the output is matched by ``call_id`` and no recorded request carries one.
    """
    metadata = own(result.metadata)
    custom = metadata.pop(CUSTOM, False) or result.call_id in calls.custom
    output: Any = result.content if isinstance(result.content, str) else [
        user_part(block) for block in result_blocks(result, data_part, NAME)]
    out: Wire = {"type": "custom_tool_call_output" if custom else "function_call_output",
                 "call_id": calls.call_ids.get(result.call_id, result.call_id),
                 "output": output}
    out.update(metadata)
    return out


# ---------------------------------------------------------------- user parts: reading


def _read_text(wire: Wire, ids: StreamIds) -> Block | None:
    text = wire.get("text")
    if type(text) is not str:
        return None
    return TextBlock(text, id=ids.make("text"),
                     metadata=unread(wire, "type", "text", wire=NAME))


def _read_image(wire: Wire, ids: StreamIds) -> Block | None:
    url = wire.get("image_url")
    metadata = unread(wire, "type", "image_url", "detail", wire=NAME)
    if wire.get("detail") != _AUTO:  # the default needs no note; None: the wire has none
        metadata["detail"] = wire.get("detail")
    if type(url) is not str:
        return None
    inline = read_data_url(url)
    source = inline if inline is not None else URLSource(url, "image/*")
    return DataBlock(id=ids.make("data"), source=source, metadata=metadata)


def _read_file(wire: Wire, ids: StreamIds) -> Block | None:
    data, url, filename = wire.get("file_data"), wire.get("file_url"), wire.get("filename")
    name = filename if type(filename) is str else None
    metadata = unread(wire, "type", "file_data", "file_url", "filename", wire=NAME)
    if filename is None:
        metadata["filename"] = None  # no default name: the wire had none
    elif name is None:
        metadata["filename"] = filename
    if type(data) is str and url is None:
        inline = read_data_url(data)
        if inline is not None:
            return DataBlock(id=ids.make("data"), source=inline, name=name,
                             metadata=metadata)
    elif type(url) is str and data is None:
        metadata.pop("filename", None)
        media_type = mimetypes.guess_type(url)[0] or "application/octet-stream"
        return DataBlock(id=ids.make("data"), source=URLSource(url, media_type),
                         name=name, metadata=metadata)
    return None  # a file_id, or a form streamkit cannot hold: kept whole


_USER_READERS: dict[str, Callable[[Wire, StreamIds], Block | None]] = {
    "input_text": _read_text,
    "input_image": _read_image,
    "input_file": _read_file,
}


def read_user_part(wire: Any, reader: ItemReader) -> UserContent:
    """A content part as a block (exactly, or kept whole)."""
    block = read_part(wire, _USER_READERS, user_part, wire=NAME, ids=reader.ids)
    assert isinstance(block, (TextBlock, DataBlock, RawBlock))
    return block


def read_tool_output(wire: Wire, reader: ItemReader) -> FunctionExecutionResult:
    """A ``function_call_output`` / ``custom_tool_call_output`` item. An output
    list with parts streamkit cannot hold stays whole in ``metadata["output"]``
    (written last, so it wins)."""
    call_id = wire.get("call_id")
    if type(call_id) is not str:
        raise InvalidBodyError(f"a {wire.get('type')} item without a call_id: {str(wire)[:200]}",
                               wire=NAME)
    metadata = unread(wire, "type", "call_id", "output", wire=NAME)
    if wire.get("type") == "custom_tool_call_output":
        metadata[CUSTOM] = True
    output = wire.get("output")
    result = FunctionExecutionResult(call_id, "", metadata=metadata)
    if type(output) is str:
        result.content = output
    elif type(output) is list:
        parts = [read_user_part(part, reader) for part in output]
        result.content = [part for part in parts if isinstance(part, (TextBlock, DataBlock))]
    if tool_output(result, Calls()) != wire:  # a form streamkit's blocks do not hold
        result = FunctionExecutionResult(call_id, "",
                                         metadata=Extras(NAME, {**metadata, "output": output}))
    return result


# ---------------------------------------------------------------- assistant items: writing


@dataclass
class TurnWriter:
    """One assistant turn's items, written block by block.

    Consecutive blocks of one item (a message's parts, a reasoning item's summary
    parts) go back into that item. ``own`` says whether the turn is this wire's and
    vendor's (see the module docstring for what another turn keeps).
    """

    own: bool
    foreign_thinking: ForeignThinking
    calls: Calls
    items: list[Wire] = field(default_factory=list)
    # (item type, item id) of the last item, while more parts of it may follow
    open_item: tuple[str, str] | None = field(default=None, init=False)
    # thinking of this turn that could not be a reasoning item (see the module docstring)
    lost_reasoning: bool = field(default=False, init=False)
    # the thinking blocks written into each reasoning item, by the item's id()
    reasoning_blocks: dict[int, list[ThinkingBlock]] = field(default_factory=dict, init=False)

    def write(self, blocks: list[ContentBlock]) -> list[Wire]:
        """Every block of the turn, then the repairs of the module docstring."""
        self.write_blocks(blocks)
        trailing: list[ThinkingBlock] = []
        while self.items and self.items[-1].get("type") == "reasoning":
            # nothing follows it: the API refuses it alone; its thinking cannot be an item
            trailing[:0] = self.reasoning_blocks.pop(id(self.items.pop()), [])
        for block in trailing:
            self._write_foreign(block)
        if self.lost_reasoning:
            for item in self.items:
                if item.get("type") in CLIENT_CALLS:
                    item.pop("id", None)
        return self.items

    def write_blocks(self, blocks: list[ContentBlock]) -> None:
        """Each block by its own writer in a turn of this wire, else (or when
        that declines) as another API's (:data:`~streamkit.providers.turns.FOREIGN_BLOCKS`)."""
        for block in blocks:
            if not (self.own and _OWN_WRITERS[type(block)](self, block)):
                self._write_foreign(block)

    def _write_foreign(self, block: ContentBlock) -> None:
        writers = ForeignWriters(text=_easy_text, call=self._foreign_call)
        for item in foreign_parts(block, self.foreign_thinking, writers, NAME):
            self._add(item)

    def _add(self, item: Wire, key: tuple[str, str] | None = None) -> None:
        self.items.append(item)
        self.open_item = key

    def _continues(self, item_type: str, item_id: str) -> Wire | None:
        """The last item, when ``(item_type, item_id)`` names it."""
        return self.items[-1] if self.open_item == (item_type, item_id) else None

    def _message(self, item_id: str, metadata: dict[str, Any]) -> Wire:
        """The message item ``item_id`` this part belongs to: the last item, or a new
        one with the item fields ``metadata`` holds (its status ``completed`` unless
        it says otherwise: ResponseOutputMessageParam requires one). A ``content``
        there is no field of the message, whose reader handles its own: it is a
        part's own field (``{"content": null}`` as a part), and would replace the
        list the parts go into; the item, written without it, then differs from
        the one read, which the reader keeps whole instead."""
        message = self._continues("message", item_id)
        if message is not None:
            return message
        item: Wire = {"type": "message", "role": _given(metadata, ROLE, "assistant"),
                      "id": item_id, "content": []}
        status = _given(metadata, STATUS, _COMPLETED)
        if status is not None:
            item["status"] = status
        metadata.pop("content", None)
        item.update(metadata)
        self._add(item, ("message", item_id))
        return item

    # ------------------------------------------------------------ own turns

    def own_text(self, block: TextBlock) -> bool:
        """A message part: the item with its id, or an easy message without one."""
        metadata = own(block.metadata)
        item_id = metadata.pop(ITEM_ID, None)
        if not isinstance(item_id, str):
            self._add(_easy_message(block.text, metadata))
            return True
        part = _output_part(block, metadata)
        self._message(item_id, metadata)["content"].append(part)
        return True

    def own_raw(self, block: RawBlock) -> bool:
        """A message part streamkit does not model (it names its message), or a
        whole item; another wire's item is written as another API's: dropped."""
        if origin_of(block.metadata) not in (None, NAME):
            return False
        metadata = own(block.metadata)  # a part's: its message's id and fields
        item_id = metadata.pop(ITEM_ID, None)
        if isinstance(item_id, str):
            self._message(item_id, metadata)["content"].append(block.data)
        else:
            self._add(with_required_fields({"type": block.kind, **block.data}, done=True))
        return True

    def own_thinking(self, block: ThinkingBlock) -> bool:
        """A reasoning item's part (or the bare item), with its encrypted content;
        thinking with no item id is written as another API's (see the module docstring)."""
        written = own(block.metadata)
        item_id = written.get(ITEM_ID)
        if not isinstance(item_id, str):
            self.lost_reasoning = True
            return False
        item = self._continues("reasoning", item_id)
        if item is None:
            metadata = {k: v for k, v in written.items()
                        if k not in _THINKING_KEYS and k not in _REASONING_FIELDS}
            item = {"type": "reasoning", "id": item_id, "summary": []}
            status = written.get(STATUS)
            if status is not None:
                item["status"] = status
            item.update(metadata)
            self._add(item, ("reasoning", item_id))
        kind = written.get(KIND)
        list_name, part_type = _REASONING_LISTS.get(
            kind if isinstance(kind, str) else "", ("summary", "summary_text"))
        if kind != "item" and (kind in _REASONING_LISTS or block.thinking):
            item.setdefault(list_name, []).append({"type": part_type, "text": block.thinking})
        if block.encrypted is not None:
            item["encrypted_content"] = block.encrypted
        self.reasoning_blocks.setdefault(id(item), []).append(block)
        return True

    def own_call(self, block: ToolCallBlock) -> bool:
        """``function_call`` (``custom_tool_call`` for a custom tool) with its item id."""
        metadata = own(block.metadata)
        custom = bool(metadata.pop(CUSTOM, False))
        item_id = metadata.pop(ITEM_ID, None)
        call_id = metadata.pop(CALL_ID, block.id)
        item: Wire = {"type": "custom_tool_call" if custom else "function_call",
                      "call_id": call_id, "name": block.name}
        if custom:  # free text, not JSON
            item["input"] = block.input
        else:
            item["arguments"] = arguments_as_text(block)
        if isinstance(item_id, str):
            item["id"] = item_id
        if metadata.get(STATUS, ...) is None:  # it came without one (:mod:`.items`)
            del metadata[STATUS]
        item.update(metadata)
        self._remember_call(block.id, call_id, custom)
        self._add(item)
        return True

    def own_data(self, block: DataBlock) -> bool:
        """An image of an image generation is in its item's ``result`` already;
        other media (spoken answers) are written as another API's: their transcript."""
        return ITEM_ID in own(block.metadata)

    def _foreign_call(self, block: ToolCallBlock) -> Wire:
        """Another API's call: a ``function_call`` without item id."""
        self._remember_call(block.id, block.id, False)
        return {"type": "function_call", "call_id": block.id, "name": block.name,
                "arguments": arguments_as_text(block)}

    def _remember_call(self, block_id: str, call_id: str, custom: bool) -> None:
        self.calls.call_ids[block_id] = call_id
        if custom:
            self.calls.custom.add(block_id)


def _easy_text(text: str) -> Wire:
    return _easy_message(text, {})


def _easy_message(text: str, metadata: dict[str, Any]) -> Wire:
    """``{"role": "assistant", "content": text}`` and the wire extras a request had."""
    return {"role": "assistant", "content": text, **metadata}


def _output_part(block: TextBlock, metadata: dict[str, Any]) -> Wire:
    """An ``output_text`` part (``annotations`` are required: this wire's citations)
    or a ``refusal``; the part's ``logprobs`` leave ``metadata``."""
    logprobs = metadata.pop(LOGPROBS, None)
    if block.refusal:
        return {"type": "refusal", "refusal": block.text}
    part: Wire = {"type": "output_text", "text": block.text,
                  "annotations": annotations_of(block.citations)}
    if logprobs is not None:
        part["logprobs"] = logprobs
    return part


_OWN_WRITERS: dict[type[Block], Callable[[TurnWriter, Any], bool]] = {
    TextBlock: TurnWriter.own_text,
    ThinkingBlock: TurnWriter.own_thinking,
    ToolCallBlock: TurnWriter.own_call,
    DataBlock: TurnWriter.own_data,
    RawBlock: TurnWriter.own_raw,
    ToolResultBlock: lambda writer, block: False,  # no place in a turn: dropped
}


def assistant_items(blocks: list[ContentBlock], *, own: bool,
                    foreign_thinking: ForeignThinking, calls: Calls) -> list[Wire]:
    """An assistant turn's blocks as input items (see the module docstring)."""
    return TurnWriter(own, foreign_thinking, calls).write(blocks)


def _own_items(blocks: list[ContentBlock]) -> list[Wire]:
    """What an own turn of just these blocks writes, without the repairs (for
    :func:`read_assistant_item`: a recorded item is kept as it was)."""
    writer = TurnWriter(True, "text", Calls())
    writer.write_blocks(blocks)
    return writer.items


# ---------------------------------------------------------------- assistant items: reading


def _restored(blocks: list[ContentBlock], item: Wire) -> list[ContentBlock]:
    """The fields a request states that the stream's reading leaves out: a
    reasoning or call item's ``completed`` status, an explicit
    ``encrypted_content`` (null included); and a message without a status."""
    if not blocks:
        return blocks
    first = blocks[0]
    status = item.get("status", ...)
    is_message = item.get("type") == "message"
    if (status is ... and is_message) or (status == _COMPLETED and not is_message):
        for block in blocks:  # a message is "completed" unless it says otherwise
            block.metadata[STATUS] = None if is_message else _COMPLETED
    elif status is ...:  # a request's call without one is the usual request item
        for block in blocks:
            if STATUS in block.metadata and block.metadata[STATUS] is None:
                del block.metadata[STATUS]
    encrypted = item.get("encrypted_content", ...)
    if isinstance(encrypted, str):
        thinking = next((b for b in blocks if isinstance(b, ThinkingBlock)), None)
        if thinking is not None:
            thinking.encrypted = encrypted
    elif encrypted is not ...:
        first.metadata["encrypted_content"] = encrypted
    return blocks


def _as_streamed(item: Wire, position: int, reader: ItemReader) -> list[ContentBlock] | None:
    """The blocks the stream parser makes of this output item (and what it leaves
    out, put back), when they write it back exactly; else ``None``."""
    item_id = as_str(item.get("id")) or None
    snapshots = reader.item(position, item, item_id, has_parts=False, call_block_id=None)
    blocks = _restored([snapshot.block for snapshot in snapshots], item)
    return blocks if blocks and _own_items(blocks) == [item] else None


def _easy_assistant(item: Wire, reader: ItemReader) -> ContentBlock:
    """An assistant message as one text block whose metadata holds every field of
    the item but its role: written back as ``{"role": "assistant", "content":
    <text>, **metadata}``, which is the item again (its original ``content``
    included, which wins); another wire format gets the text."""
    content = item.get("content")
    metadata = unread(item, "role", "content", wire=NAME)
    if type(content) is str:
        return TextBlock(content, id=reader.ids.make("text"), metadata=metadata)
    texts = [as_str(part.get("text")) or as_str(part.get("refusal")) or ""
             for part in as_list(content) or () if type(part) is dict]
    metadata["content"] = content
    return TextBlock("".join(texts), id=reader.ids.make("text"), metadata=metadata)


def read_assistant_item(item: Wire, position: int, reader: ItemReader) -> list[ContentBlock]:
    """An assistant-side input item as the blocks the stream parser makes of the
    same output item, when they write it back exactly; an assistant message in
    another form as one text block holding the item (:func:`_easy_assistant`);
    anything else as a :class:`RawBlock`. Every block's metadata is this wire's."""
    item_type = as_str(item.get("type"))
    if item_type in ("message", "reasoning", *CLIENT_CALLS) and (
            item_type != "message" or "id" in item):
        blocks = _as_streamed(item, position, reader)
        if blocks is not None:
            return [tagged(block, NAME) for block in blocks]
    if item_type in ("message", None) and item.get("role") == "assistant":
        easy = _easy_assistant(item, reader)
        if _own_items([easy]) == [item]:
            return [easy]
    raw = RawBlock(item_type or "unknown", item,
                   id=as_str(item.get("id")) or reader.ids.make("raw"), metadata=Extras(NAME))
    return [raw]

