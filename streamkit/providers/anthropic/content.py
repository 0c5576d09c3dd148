"""Anthropic Messages content blocks <-> streamkit blocks, both directions.

One small function per wire item kind, shared by the request builder, the
request parser and (through :mod:`.wire`) the response reader:

- user side: ``text``, ``image`` and ``document`` parts <-> :class:`TextBlock`
  and :class:`DataBlock`; ``tool_result`` parts <-> :class:`FunctionExecutionResult`;
- assistant side: ``text``, ``thinking``, ``redacted_thinking``, ``tool_use``,
  the server tools' blocks (``server_tool_use``, ``mcp_tool_use``, their
  ``*_tool_result`` s, ``compaction``...) <-> the blocks
  :func:`~.wire.content_block` makes of them.

Reading a request is lossless: a wire block becomes a streamkit block only when
writing that block gives the wire block back exactly (:func:`_exactly`);
otherwise it is kept whole as a :class:`RawBlock` (user and assistant content)
and goes back verbatim. Wire fields with no streamkit slot live in the block's
``metadata`` under their own names (``cache_control``, ``citations: null``,
``caller``...) and are written back last, so they win.

Sending an assistant turn (the cross-provider policy)
-----------------------------------------------------
A turn written by the Anthropic wire (``provider`` is ``anthropic``, another
registry name of this wire, or ``None``: a turn built by hand or read from an
Anthropic request) goes back as it came: thinking with its ``signature``,
``redacted_thinking`` with its ``data``, server tool blocks and their results
verbatim, block metadata included (text ``citations`` and a tool call's
``caller`` too: the SDK's ``TextBlockParam`` and ``ToolUseBlockParam`` declare
them, though the recorded client drops them). Anthropic verifies thinking
blocks and answers 400 to a modified one (the SDK's ``ThinkingBlockParam``
docs; platform.claude.com/docs/en/build-with-claude/extended-thinking), so a
thinking block without a signature (a cut-off stream) is treated like a
foreign one.

A turn from another wire format keeps only what Anthropic can take:

- text (without the other wire's citations and metadata) and tool calls (as
  ``tool_use`` with the arguments object; server-side calls of the other API
  are dropped, since no result can follow them);
- visible thinking as a text block ``<think>\\n...\\n</think>`` (the form
  the recorded Cerebras GLM exchange replays), or nothing with
  ``foreign_thinking="drop"``;
- signatures, encrypted or redacted reasoning and provider items
  (:class:`RawBlock`, server tool results) are dropped: Anthropic cannot
  verify them and would refuse the request;
- media in an assistant turn (an OpenAI audio answer) is sent as its transcript,
  or dropped when it has none.

Tool call ids must match ``^[a-zA-Z0-9_-]+$`` (the API answers 400
"messages.N.content.M.tool_use.id: String should match pattern" otherwise, as
reported for ``functions.AskUserQuestion:1`` ids in
anthropics/claude-agent-sdk-python#856): :func:`tool_id` maps any other id,
the same way in ``tool_use`` and in the ``tool_result`` that answers it, so
the pair stays matched.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Callable
from typing import Any

from ...blocks import (
    Base64Source,
    Block,
    ContentBlock,
    DataBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    URLSource,
)
from ...errors import ToolArgumentsError
from ...messages import FunctionExecutionResult, UserContent
from ...request import ForeignThinking
from ..coerce import as_list, as_str
from ..turns import thinking_as_text
from .wire import content_block, start_input

Wire = dict[str, Any]

# The pattern the API checks tool_use ids (and tool_result tool_use_ids) against.
_TOOL_ID = re.compile(r"^[a-zA-Z0-9_-]+$")
_NOT_ID_CHARACTER = re.compile(r"[^a-zA-Z0-9_-]")

# Base64 image media types the API takes (Base64ImageSourceParam; the images guide
# lists the same four). A URL image carries no media type on the wire: streamkit
# calls it "image/*".
IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
ANY_IMAGE = "image/*"
PDF = "application/pdf"
PLAIN_TEXT = "text/plain"


def tool_id(call_id: str) -> str:
    """``call_id`` if Anthropic accepts it, else a stable id it accepts: the
    invalid characters become ``_`` and a short hash of the original keeps two
    ids that differ only there apart (``a:1`` and ``a.1``)."""
    if _TOOL_ID.match(call_id):
        return call_id
    digest = hashlib.sha256(call_id.encode()).hexdigest()[:8]
    return f"{_NOT_ID_CHARACTER.sub('_', call_id)}_{digest}"


def base_media_type(media_type: str) -> str:
    """``image/png`` of ``image/png; foo=bar`` (the wire wants no parameters)."""
    return media_type.split(";", 1)[0].strip().lower()


def _exactly(decoded: Block, encode: Callable[[Any], Wire], wire: Wire) -> Block:
    """``decoded`` when writing it gives ``wire`` back exactly, else the wire
    block kept whole: reading a request never loses a field or changes a form."""
    try:
        if encode(decoded) == wire:
            return decoded
    except (ValueError, TypeError, ToolArgumentsError):
        pass
    return RawBlock(as_str(wire.get("type")) or "unknown", wire)


def _rest(wire: Wire, *read: str) -> dict[str, Any]:
    """The fields of a wire block other than ``read``, nulls included: they go
    back under their own names."""
    return {key: value for key, value in wire.items() if key not in read}


# ---------------------------------------------------------------- user parts: writing


def text_part(block: TextBlock) -> Wire:
    """``{"type": "text", "text": ...}`` with its citations and wire extras."""
    out: Wire = {"type": "text", "text": block.text}
    if block.citations:
        out["citations"] = block.citations
    out.update(block.metadata)
    return out


def _source(block: DataBlock) -> Wire:
    """The ``source`` of an image or PDF: inline base64, or a URL."""
    source = block.source
    if isinstance(source, URLSource):
        return {"type": "url", "url": source.url}
    return {"type": "base64", "media_type": base_media_type(source.media_type),
            "data": source.data}


def _image_part(block: DataBlock) -> Wire:
    media_type = base_media_type(block.media_type)
    if isinstance(block.source, Base64Source) and media_type not in IMAGE_TYPES:
        raise ValueError(f"Anthropic takes inline images as {', '.join(sorted(IMAGE_TYPES))}; "
                         f"block {block.id!r} is {block.media_type!r}")
    return {"type": "image", "source": _source(block), **block.metadata}


def _document(block: DataBlock, source: Wire) -> Wire:
    """A ``document`` part; the block's ``name`` is the document's ``title``."""
    out: Wire = {"type": "document", "source": source}
    if block.name is not None:
        out["title"] = block.name
    out.update(block.metadata)
    return out


def _pdf_part(block: DataBlock) -> Wire:
    return _document(block, _source(block))


def _plain_text_part(block: DataBlock) -> Wire:
    """A text document: Anthropic takes plain text inline only (``source.type: text``)."""
    if isinstance(block.source, URLSource):
        raise ValueError(f"Anthropic takes plain-text documents inline only, not by URL "
                         f"(block {block.id!r}: {block.source.url!r})")
    try:
        text = block.data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"text/plain block {block.id!r} is not UTF-8: {exc}") from None
    return _document(block, {"type": "text", "media_type": PLAIN_TEXT, "data": text})


_DOCUMENTS: dict[str, Callable[[DataBlock], Wire]] = {
    PDF: _pdf_part,
    PLAIN_TEXT: _plain_text_part,
}


def data_part(block: DataBlock) -> Wire:
    """An image or document part; other media (audio, video...) Anthropic cannot take."""
    media_type = base_media_type(block.media_type)
    if media_type.startswith("image/"):
        return _image_part(block)
    write = _DOCUMENTS.get(media_type)
    if write is None:
        raise ValueError(f"Anthropic takes images, PDF and plain-text documents; block "
                         f"{block.id!r} is {block.media_type or 'of no media type'!r}")
    return write(block)


def raw_part(block: RawBlock) -> Wire:
    """A wire block streamkit does not model, as it came."""
    return block.data


_USER_PARTS: dict[type[Block], Callable[[Any], Wire]] = {
    TextBlock: text_part,
    DataBlock: data_part,
    RawBlock: raw_part,
}


def user_part(block: UserContent) -> Wire:
    """One part of a user message."""
    return _USER_PARTS[type(block)](block)


def tool_result(result: FunctionExecutionResult) -> Wire:
    """A ``tool_result`` part (it goes in a user message): the content as a
    string, or a list of text / image / document parts; ``is_error`` when set."""
    out: Wire = {"type": "tool_result", "tool_use_id": tool_id(result.call_id)}
    if isinstance(result.content, str):
        out["content"] = result.content
    elif result.content:
        out["content"] = [user_part(block) for block in result.content]
    if result.is_error:
        out["is_error"] = True
    out.update(result.metadata)
    return out


# ---------------------------------------------------------------- user parts: reading


def _read_text(wire: Wire) -> TextBlock:
    text = as_str(wire.get("text"))
    citations = as_list(wire.get("citations"))
    read = ["type"] + (["text"] if text is not None else []) + (
        ["citations"] if citations else [])
    return TextBlock(text or "", citations=citations or None, metadata=_rest(wire, *read))


def _read_image(wire: Wire) -> Block:
    source = wire.get("source")
    metadata = _rest(wire, "type", "source")
    if type(source) is dict and source.get("type") == "url" and type(source.get("url")) is str:
        return DataBlock(source=URLSource(source["url"], ANY_IMAGE), metadata=metadata)
    if type(source) is dict and source.get("type") == "base64":
        return DataBlock(source=_inline(source.get("data"), source.get("media_type")),
                         metadata=metadata)
    return RawBlock("image", wire)


def _inline(data: Any, media_type: Any) -> Base64Source:
    """The bytes of a base64 ``source`` (``ValueError`` if it is not base64)."""
    if type(data) is not str or type(media_type) is not str:
        raise ValueError("base64 source without string data and media type")
    try:
        return Base64Source(base64.b64decode(data, validate=True), media_type)
    except binascii.Error as exc:
        raise ValueError(f"source data is not base64: {exc}") from None


def _read_document(wire: Wire) -> Block:
    source = wire.get("source")
    title = as_str(wire.get("title"))
    metadata = _rest(wire, "type", "source", *(["title"] if title is not None else []))
    if type(source) is not dict:
        return RawBlock("document", wire)
    kind = source.get("type")
    data = source.get("data")
    if kind == "url" and type(source.get("url")) is str:
        block_source: Base64Source | URLSource = URLSource(source["url"], PDF)
    elif kind == "base64":
        block_source = _inline(data, source.get("media_type"))
    elif kind == "text" and type(data) is str:
        block_source = Base64Source(data.encode("utf-8"), PLAIN_TEXT)
    else:  # a content source, a Files API id...: kept whole
        return RawBlock("document", wire)
    return DataBlock(source=block_source, name=title, metadata=metadata)


_USER_READERS: dict[str, Callable[[Wire], Block]] = {
    "text": _read_text,
    "image": _read_image,
    "document": _read_document,
}


def read_user_part(wire: Any) -> UserContent:
    """A user message part as a block (exactly, or kept whole: :func:`_exactly`)."""
    if type(wire) is not dict:
        return RawBlock("unknown", {"part": wire})
    read = _USER_READERS.get(as_str(wire.get("type")) or "")
    if read is None:
        return RawBlock(as_str(wire.get("type")) or "unknown", wire)
    try:
        block = read(wire)
    except ValueError:
        return RawBlock(as_str(wire.get("type")) or "unknown", wire)
    exact = _exactly(block, user_part, wire)
    assert isinstance(exact, (TextBlock, DataBlock, RawBlock))
    return exact


def read_tool_result(wire: Wire) -> FunctionExecutionResult | None:
    """A ``tool_result`` part as a :class:`FunctionExecutionResult`, or ``None``
    when it cannot be one exactly (content streamkit does not model, such as a
    ``search_result``): the caller then keeps the part whole."""
    call_id = as_str(wire.get("tool_use_id"))
    if call_id is None:
        return None
    content = wire.get("content", [])
    parts: str | list[TextBlock | DataBlock]
    if type(content) is str:
        parts = content
    elif type(content) is list:
        read = [read_user_part(part) for part in content]
        if any(isinstance(part, RawBlock) for part in read):
            return None
        parts = [part for part in read if isinstance(part, (TextBlock, DataBlock))]
    else:
        return None
    is_error = wire.get("is_error") is True
    metadata = _rest(wire, "type", "tool_use_id", "content", *(["is_error"] if is_error else []))
    result = FunctionExecutionResult(call_id, parts, is_error, metadata=metadata)
    try:
        return result if tool_result(result) == wire else None
    except ValueError:
        return None


# ---------------------------------------------------------------- assistant blocks: writing


def _arguments(block: ToolCallBlock) -> dict[str, Any]:
    """The call's arguments object (``input`` must be a JSON object on this wire)."""
    arguments = block.arguments()
    if type(arguments) is not dict:
        raise ValueError(f"tool call {block.name!r} (id {block.id!r}) has arguments that are "
                         f"not a JSON object; Anthropic's tool_use input must be one")
    return arguments


def _own_tool_call(block: ToolCallBlock, policy: ForeignThinking) -> list[Wire]:
    """``tool_use``, or the server call it was (``server_tool_use``, ``mcp_tool_use``)."""
    metadata = dict(block.metadata)
    metadata.pop("server", None)
    kind = metadata.pop("block_type", "tool_use")
    return [{"type": kind, "id": tool_id(block.id), "name": block.name,
             "input": _arguments(block), **metadata}]


def _foreign_tool_call(block: ToolCallBlock, policy: ForeignThinking) -> list[Wire]:
    """Another API's call as a plain ``tool_use``; its server-side calls are
    dropped (no ``tool_result`` could answer them here)."""
    if block.metadata.get("server"):
        return []
    return [{"type": "tool_use", "id": tool_id(block.id), "name": block.name,
             "input": _arguments(block)}]


def _thinking_as_text(block: ThinkingBlock, policy: ForeignThinking) -> list[Wire]:
    """Reasoning Anthropic cannot verify: visible text in ``<think>`` tags, or nothing."""
    if policy == "drop" or not block.thinking:
        return []
    return [{"type": "text", "text": thinking_as_text(block.thinking)}]


def _own_thinking(block: ThinkingBlock, policy: ForeignThinking) -> list[Wire]:
    """``redacted_thinking`` (its opaque ``data``) or signed ``thinking``, verbatim."""
    if block.redacted and block.encrypted is not None:
        return [{"type": "redacted_thinking", "data": block.encrypted, **block.metadata}]
    if block.signature is None:
        return _thinking_as_text(block, policy)
    return [{"type": "thinking", "thinking": block.thinking, "signature": block.signature,
             **block.metadata}]


def _own_text(block: TextBlock, policy: ForeignThinking) -> list[Wire]:
    return [text_part(block)]


def _foreign_text(block: TextBlock, policy: ForeignThinking) -> list[Wire]:
    """The text alone: the other API's citations and extras mean nothing here,
    and an empty text block is refused."""
    return [{"type": "text", "text": block.text}] if block.text else []


def _own_tool_result(block: ToolResultBlock, policy: ForeignThinking) -> list[Wire]:
    """A server tool's result read as a :class:`ToolResultBlock` (an MCP result)."""
    metadata = dict(block.metadata)
    kind = metadata.pop("block_type", None)
    if type(kind) is not str:
        raise ValueError(f"tool result {block.id!r} in an assistant turn names no wire block "
                         f"type (metadata['block_type'], e.g. 'mcp_tool_result')")
    return [{"type": kind, "tool_use_id": tool_id(block.call_id),
             "content": [user_part(part) for part in block.content],
             "is_error": block.is_error, **metadata}]


def _dropped(block: Block, policy: ForeignThinking) -> list[Wire]:
    return []


def _raw(block: RawBlock, policy: ForeignThinking) -> list[Wire]:
    return [block.data]


def _spoken(block: DataBlock, policy: ForeignThinking) -> list[Wire]:
    """Media an assistant turn cannot hold here: its transcript, if any."""
    return [{"type": "text", "text": block.transcript}] if block.transcript else []


AssistantWriter = Callable[[Any, ForeignThinking], list[Wire]]

_OWN_BLOCKS: dict[type[Block], AssistantWriter] = {
    TextBlock: _own_text,
    ThinkingBlock: _own_thinking,
    ToolCallBlock: _own_tool_call,
    ToolResultBlock: _own_tool_result,
    DataBlock: _spoken,
    RawBlock: _raw,
}

_FOREIGN_BLOCKS: dict[type[Block], AssistantWriter] = {
    TextBlock: _foreign_text,
    ThinkingBlock: _thinking_as_text,
    ToolCallBlock: _foreign_tool_call,
    ToolResultBlock: _dropped,
    DataBlock: _spoken,
    RawBlock: _dropped,
}


def assistant_blocks(blocks: list[ContentBlock], *, own: bool,
                     foreign_thinking: ForeignThinking) -> list[Wire]:
    """An assistant turn's content blocks for the wire (see the module
    docstring for what a turn of another wire format keeps)."""
    writers = _OWN_BLOCKS if own else _FOREIGN_BLOCKS
    out: list[Wire] = []
    for block in blocks:
        out += writers[type(block)](block, foreign_thinking)
    return out


def _own_block(block: Block) -> Wire:
    """The one wire block an own assistant block is (for :func:`_exactly`)."""
    written = _OWN_BLOCKS[type(block)](block, "drop")
    if len(written) != 1:
        raise ValueError("not exactly one wire block")
    return written[0]


# ---------------------------------------------------------------- assistant blocks: reading


def response_block(wire: Any) -> ContentBlock:
    """A content block of a complete message, as the stream parser ends it
    (:func:`~.wire.content_block`; a tool call holds its whole ``input`` as
    compact JSON text, ``{}`` when it has none)."""
    if type(wire) is not dict:
        return RawBlock("unknown", {"type": "unknown", "content_block": wire})
    block = content_block(wire)
    if isinstance(block, ToolCallBlock):
        block.input = start_input(wire) or "{}"
    return _content(block)


def _content(block: Block) -> ContentBlock:
    if isinstance(block, (TextBlock, ThinkingBlock, ToolCallBlock, DataBlock, ToolResultBlock,
                          RawBlock)):
        return block
    raise TypeError(f"not a content block: {block!r}")


def read_assistant_block(wire: Any) -> ContentBlock:
    """An assistant content block of a request, as the response reader makes
    it (:func:`response_block`) with the nulls it drops kept in metadata, so it
    is written back exactly; anything else is kept whole."""
    block = response_block(wire)
    if type(wire) is not dict or isinstance(block, RawBlock):
        return block
    block.metadata.update({key: None for key, value in wire.items() if value is None})
    return _content(_exactly(block, _own_block, wire))
