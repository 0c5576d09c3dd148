"""Anthropic Messages user content <-> streamkit blocks, both directions.

The parts a request sends for the user (and inside ``tool_result`` s, and as
the top-level ``system`` text): ``text``, ``image`` and ``document`` parts <->
:class:`TextBlock` and :class:`DataBlock`; ``tool_result`` parts <->
:class:`FunctionExecutionResult`. What the model writes (assistant turns, the
blocks of a stream or a response) is in :mod:`.assistant`.

Reading a request is lossless: a wire part becomes a streamkit block only when
writing that block gives the part back exactly
(:func:`~streamkit.providers.lossless.exactly`); otherwise it is kept whole as a
:class:`RawBlock` and goes back verbatim. Wire fields with no streamkit slot
live in the block's ``metadata`` (Anthropic's
:class:`~streamkit.model.extras.Extras`) under their own names (``cache_control``,
``citations: null``...) and are written back last, so they win; fields another
wire's reader kept are never written here
(:func:`~streamkit.model.extras.extras_for`). Every id the reader makes up comes
from the body (:class:`~streamkit.model.ids.StreamIds`), so two reads of a body are
equal.

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

from ...conversation.messages import FunctionExecutionResult, Message, UserContent
from ...model.blocks import Block, DataBlock, RawBlock, TextBlock
from ...model.data_sources import Base64Source, URLSource
from ...model.errors import UnsupportedFeatureError
from ...model.extras import extras_for
from ...model.ids import StreamIds
from ..coerce import Wire, as_str
from ..lossless import read_part, unread, write_user_part
from ..media import base_media_type
from ..tool_media import result_blocks
from .citations import read_citations, write_citations
from .wire import NAME

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
    digest = hashlib.sha256(call_id.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{_NOT_ID_CHARACTER.sub('_', call_id)}_{digest}"


def own_extras(holder: Block | FunctionExecutionResult | Message) -> dict[str, Any]:
    """The wire fields of a block, result or message this wire may write: its
    own, or a plain dict set by hand; never what another wire's reader kept."""
    return dict(extras_for(holder.metadata, NAME))


# ---------------------------------------------------------------- user parts: writing


def text_part(block: TextBlock) -> Wire:
    """``{"type": "text", "text": ...}`` with its Anthropic citations and extras."""
    out: Wire = {"type": "text", "text": block.text}
    citations = write_citations(block.citations)
    if citations:
        out["citations"] = citations
    out.update(own_extras(block))
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
        raise UnsupportedFeatureError(
            NAME, f"an inline {block.media_type!r} image (block {block.id!r})",
            f"Anthropic takes inline images as {', '.join(sorted(IMAGE_TYPES))}")
    return {"type": "image", "source": _source(block), **own_extras(block)}


def _document(block: DataBlock, source: Wire) -> Wire:
    """A ``document`` part; the block's ``name`` is the document's ``title``."""
    out: Wire = {"type": "document", "source": source}
    if block.name is not None:
        out["title"] = block.name
    out.update(own_extras(block))
    return out


def _pdf_part(block: DataBlock) -> Wire:
    return _document(block, _source(block))


def _plain_text_part(block: DataBlock) -> Wire:
    """A text document: Anthropic takes plain text inline only (``source.type: text``)."""
    if isinstance(block.source, URLSource):
        raise UnsupportedFeatureError(
            NAME, f"a plain-text document by URL (block {block.id!r}: {block.source.url!r})",
            "Anthropic takes plain-text documents inline only: fetch it and send its bytes")
    try:
        text = block.data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnsupportedFeatureError(
            NAME, f"text/plain block {block.id!r}, which is not UTF-8 ({exc})",
            "a text document goes inline as UTF-8 text: decode it first") from None
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
        raise UnsupportedFeatureError(
            NAME, f"block {block.id!r} of {block.media_type or 'no media type'!r}",
            "Anthropic takes images, PDF and plain-text documents")
    return write(block)


def user_part(block: UserContent) -> Wire:
    """One part of a user message."""
    return write_user_part(block, text_part, data_part, NAME)


def tool_result(result: FunctionExecutionResult) -> Wire:
    """A ``tool_result`` part (it goes in a user message): the content as a
    string, or a list of text / image / document parts; ``is_error`` when set."""
    out: Wire = {"type": "tool_result", "tool_use_id": tool_id(result.call_id)}
    if isinstance(result.content, str):
        out["content"] = result.content
    elif result.content:
        out["content"] = [user_part(block) for block in result_blocks(result, data_part, NAME)]
    if result.is_error:
        out["is_error"] = True
    out.update(own_extras(result))
    return out


# ---------------------------------------------------------------- user parts: reading


def _read_text(wire: Wire, ids: StreamIds) -> TextBlock:
    text = as_str(wire.get("text"))
    citations = read_citations(wire.get("citations"))
    read = ["type"] + (["text"] if text is not None else []) + (
        ["citations"] if citations else [])
    return TextBlock(text or "", id=ids.make("text"), citations=citations or None,
                     metadata=unread(wire, *read, wire=NAME))


def _read_image(wire: Wire, ids: StreamIds) -> Block | None:
    source = wire.get("source")
    metadata = unread(wire, "type", "source", wire=NAME)
    if type(source) is dict and source.get("type") == "url" and type(source.get("url")) is str:
        return DataBlock(ids.make("data"), source=URLSource(source["url"], ANY_IMAGE),
                         metadata=metadata)
    if type(source) is dict and source.get("type") == "base64":
        return DataBlock(ids.make("data"), source=_inline(source.get("data"),
                                                          source.get("media_type")),
                         metadata=metadata)
    return None  # another source: kept whole


def _inline(data: Any, media_type: Any) -> Base64Source:
    """The bytes of a base64 ``source`` (``ValueError`` if it is not base64:
    the part is then kept whole)."""
    if type(data) is not str or type(media_type) is not str:
        raise ValueError("base64 source without string data and media type")
    try:
        return Base64Source(base64.b64decode(data, validate=True), media_type)
    except binascii.Error as exc:
        raise ValueError(f"source data is not base64: {exc}") from None


def _read_document(wire: Wire, ids: StreamIds) -> Block | None:
    source = wire.get("source")
    title = as_str(wire.get("title"))
    metadata = unread(wire, "type", "source", *(["title"] if title is not None else []),
                      wire=NAME)
    if type(source) is not dict:
        return None
    kind = source.get("type")
    data = source.get("data")
    if kind == "url" and type(source.get("url")) is str:
        block_source: Base64Source | URLSource = URLSource(source["url"], PDF)
    elif kind == "base64":
        block_source = _inline(data, source.get("media_type"))
    elif kind == "text" and type(data) is str:
        block_source = Base64Source(data.encode("utf-8"), PLAIN_TEXT)
    else:  # a content source, a Files API id...: kept whole
        return None
    return DataBlock(ids.make("data"), source=block_source, name=title, metadata=metadata)


_USER_READERS: dict[str, Callable[[Wire, StreamIds], Block | None]] = {
    "text": _read_text,
    "image": _read_image,
    "document": _read_document,
}


def read_user_part(wire: Any, ids: StreamIds) -> UserContent:
    """A user message part as a block (exactly, or kept whole)."""
    block = read_part(wire, _USER_READERS, user_part, wire=NAME, ids=ids)
    assert isinstance(block, (TextBlock, DataBlock, RawBlock))
    return block


def read_tool_result(wire: Wire, ids: StreamIds) -> FunctionExecutionResult | None:
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
        read = [read_user_part(part, ids) for part in content]
        if any(isinstance(part, RawBlock) for part in read):
            return None
        parts = [part for part in read if isinstance(part, (TextBlock, DataBlock))]
    else:
        return None
    is_error = wire.get("is_error") is True
    metadata = unread(wire, "type", "tool_use_id", "content",
                      *(["is_error"] if is_error else []), wire=NAME)
    result = FunctionExecutionResult(call_id, parts, is_error, metadata=metadata)
    try:
        return result if tool_result(result) == wire else None
    except ValueError:
        return None
