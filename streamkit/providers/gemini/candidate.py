"""One Gemini candidate (one choice): what each of its parts means as blocks,
its fields as response metadata, its citations.

Gemini has no block structure on the wire: each chunk's ``parts`` are simply
appended, so a candidate has at most one open block, kept in its
:class:`~streamkit.providers.ledger.BlockLedger` (which also keeps the
lifecycle, the indexes and the made-up ids). This module is the table of what
a part does to it:

- consecutive text parts merge into one text block, consecutive ``thought: true``
  parts into one thinking block; a change of kind closes the open block;
- ``thoughtSignature`` stays on the block of the part it came on (thinking,
  text or tool call: a :class:`~streamkit.model.events.SignatureDelta`); a signature
  on an *empty* text part (Gemini's trailing marker) attaches to the preceding
  block; a text part bringing a second signature starts a new block so that no
  signature replaces another;
- ``functionCall`` with complete ``args`` is a complete tool call (Gemini sends
  no call id on the public API: one is made up from the stream); Vertex
  ``streamFunctionCallArguments`` (``willContinue`` + ``partialArgs`` updates,
  closed by an empty ``functionCall``) is streamed as argument JSON text through
  :class:`~streamkit.model.json_path.JSONPathBuilder`; an update it cannot place
  (out of order, a ``jsonPath`` that is not a string, an unknown value kind) is
  kept in the block's ``metadata["unassembledPartialArgs"]`` and the call marked
  incomplete at its end;
- ``inlineData`` audio parts of the same media type accumulate into one
  :class:`~streamkit.model.blocks.DataBlock` as raw bytes (TTS streams); other inline
  data (images) are complete blocks; ``fileData`` is a URL data block; anything
  else (``executableCode``, ``codeExecutionResult``, future part kinds) is a
  :class:`~streamkit.model.blocks.RawBlock` holding the whole part;
- ``citationMetadata.citations`` become typed
  :class:`~streamkit.model.blocks.Citation` s of the open text block (``uri`` ->
  ``url``, ``startIndex`` / ``endIndex`` -> ``start`` / ``end``, the object in
  ``raw``), or, with no text block open, the raw objects in the response's
  ``metadata["citations"]``.

Wrongly typed fields (see :data:`~streamkit.providers.gemini.wire.FIELD_TYPES`)
are treated as absent and kept: a part whose content cannot be read (``text``
not a string, ``inlineData.data`` not base64, ``functionCall`` not an
object...) becomes a ``RawBlock`` of the whole part with
``metadata["unreadable"]`` saying why, so the stream goes on and the bytes are
not lost; any other field is kept in the block's or the response's metadata
under its own name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from ...framing.encoding import json_bytes
from ...model.blocks import (
    Block,
    Citation,
    DataBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)
from ...model.data_sources import Base64Source, URLSource
from ...model.events import (
    BlockDelta,
    CitationDelta,
    DataDelta,
    Delta,
    Event,
    MetadataAppendDelta,
    MetadataDelta,
    ResponseMetadata,
    SignatureDelta,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
)
from ...model.finish import FinishReason
from ...model.json_path import JSONPathBuilder, JSONPathValue
from ...model.tool_arguments import arguments_text
from ..coerce import as_int, as_str
from ..ledger import BlockLedger, OpenBlock
from ..lossless import unmodelled
from .wire import FIELD_TYPES, NAME, decode_base64, is_audio

_ENCODE = json_bytes  # a lone surrogate in a citation is its escape, never an error

#: The ledger key of a candidate's one open block (Gemini parts have no ids).
_PART = "part"

# The fields each part or object reader reads (the rest is kept as metadata).
_CANDIDATE_READ = dict.fromkeys(("content", "index", "finishReason", "citationMetadata"), True)
_CONTENT_READ = frozenset({"parts", "role"})
_TEXT_READ = frozenset({"text", "thought", "thoughtSignature"})
_CALL_READ = frozenset({"name", "args", "id", "partialArgs", "willContinue"})
_CALL_PART_READ = frozenset({"functionCall", "thoughtSignature"})
_INLINE_READ = frozenset({"mimeType", "data", "displayName"})
_INLINE_PART_READ = frozenset({"inlineData", "thoughtSignature"})
_FILE_READ = frozenset({"mimeType", "fileUri", "displayName"})
_FILE_PART_READ = frozenset({"fileData", "thoughtSignature"})
_SIGNATURE_ONLY = frozenset({"thought", "thoughtSignature"})

# A Vertex partialArgs update's value field -> the types it may hold; an update
# with none of them must have ``nullValue`` (which holds ``"NULL_VALUE"``).
_ARGUMENT_VALUES: dict[str, tuple[type, ...]] = {
    "stringValue": (str,),
    "numberValue": (int, float),
    "boolValue": (bool,),
}


class TextKind(NamedTuple):
    """Text and thought parts differ only by these: the block class, its id
    prefix and its delta."""

    block: type[TextBlock] | type[ThinkingBlock]
    prefix: str
    delta: Callable[[str], Delta]


_TEXT_KINDS = {
    False: TextKind(TextBlock, "text", TextDelta),
    True: TextKind(ThinkingBlock, "think", ThinkingDelta),
}


def unread_fields(fields: dict[str, Any], read: frozenset[str]) -> dict[str, Any]:
    """The rule of :func:`~streamkit.providers.lossless.unmodelled` (null
    fields dropped; a field read as absent because its value has not its
    :data:`FIELD_TYPES` type kept under its own name), in one pass over the
    part: thought parts go through here once per token."""
    return {key: value for key, value in fields.items() if value is not None and (
        key not in read or type(value) is not FIELD_TYPES.get(key, type(value)))}


def read_citation(citation: Any) -> Citation:
    """A ``citationMetadata.citations`` item as a :class:`Citation` (the item
    kept whole in ``raw``; an item that is not an object as ``{"value": item}``)."""
    if type(citation) is not dict:
        return Citation(raw={"value": citation}, wire=NAME)
    return Citation(url=as_str(citation.get("uri")), title=as_str(citation.get("title")),
                    start=as_int(citation.get("startIndex")),
                    end=as_int(citation.get("endIndex")), raw=citation, wire=NAME)


class GeminiBlock(OpenBlock):
    """The ledger's record of a candidate's open block, with what the parts
    that may extend it must match."""

    __slots__ = ("builder", "call_id", "media_type", "signed", "unassembled")

    def __init__(self, index: int, kind: type[Block]) -> None:
        super().__init__(index, kind)
        self.media_type = ""  # of an audio block: a part of another type starts a new one
        self.signed = False  # a thought signature is already attached
        self.builder: JSONPathBuilder | None = None  # of a streamed call
        self.call_id = ""  # of a streamed call: the id its closing snapshot names
        self.unassembled = False  # the builder refused a partialArgs update


class Candidate:
    """One candidate's state: its ledger (lifecycle and open block) and what
    it reported."""

    __slots__ = ("blocks", "called", "choice", "citations_seen", "extras", "ledger")

    def __init__(self, ledger: BlockLedger[GeminiBlock]) -> None:
        self.ledger = ledger
        self.choice = ledger.choice
        self.blocks = ledger.blocks  # the open block is blocks.get(_PART): read per part
        self.called = False  # a function call was produced: STOP means tool_calls
        self.citations_seen: set[bytes] = set()  # each citation (as JSON) is reported once

    # ------------------------------------------------------------ candidate fields

    def read(self, data: dict[str, Any], out: list[Event]) -> None:
        """A chunk's candidate object, all but ``index`` and ``finishReason``
        (the parser's: usage goes before the end)."""
        content = data.get("content")
        if type(content) is dict:
            parts = content.get("parts")
            if type(parts) is list:
                self._parts(parts, out)
            if (type(parts) is not list or content.get("role", "model") != "model"
                    or not content.keys() <= _CONTENT_READ):
                self._content_extras(content, out)
        elif content is not None:
            self.extra("content", content, out)
        if not data.keys() <= _CANDIDATE_READ.keys():
            for key, value in unmodelled(data, _CANDIDATE_READ).items():
                self.extra(key, value, out)
        citations = data.get("citationMetadata")
        if citations is not None:
            self._citations(citations, out)

    def _content_extras(self, content: dict[str, Any], out: list[Event]) -> None:
        """What ``content`` holds beside a list of parts and the model's role."""
        for key, value in content.items():
            if (key, value) == ("role", "model") or (key == "parts" and type(value) is list):
                continue
            self.extra("content." + key, value, out)

    def extra(self, key: str, value: Any, out: list[Event]) -> None:
        """Candidate metadata, reported only when it changes (``safetyRatings``
        repeats on every chunk); per-chunk token logprobs are appended."""
        if key == "logprobsResult":
            out.append(ResponseMetadata(append={key: [value]}, choice=self.choice))
            return
        self.ledger.report(key, value, out)

    def _citations(self, metadata: Any, out: list[Event]) -> None:
        """Each citation once: on the open text block, else in response metadata."""
        citations = metadata.get("citations") if type(metadata) is dict else None
        if type(citations) is not list:
            self.extra("citationMetadata", metadata, out)
            return
        fresh = []
        for citation in citations:
            key = _ENCODE(citation)
            if key not in self.citations_seen:
                self.citations_seen.add(key)
                fresh.append(citation)
        if not fresh:
            return
        current = self.blocks.get(_PART)
        if current is not None and current.kind is TextBlock:
            for citation in fresh:
                out.append(BlockDelta(index=current.index,
                                      delta=CitationDelta(read_citation(citation)),
                                      choice=self.choice))
        else:
            out.append(ResponseMetadata(append={"citations": fresh}, choice=self.choice))

    # ------------------------------------------------------------ parts

    def _parts(self, parts: list[Any], out: list[Event]) -> None:
        """A chunk's parts, in order (most chunks: one bare text part)."""
        choice = self.choice
        blocks = self.blocks
        for part in parts:
            if type(part) is not dict:
                self._raw_part({"unknown": part}, out, "a part that is not an object")
                continue
            if len(part) == 1:  # the hot path: a bare text part continuing text
                text = part.get("text")
                current = blocks.get(_PART)
                if (type(text) is str and text and current is not None
                        and current.kind is TextBlock):
                    out.append(BlockDelta(index=current.index, delta=TextDelta(text),
                                          choice=choice))
                    continue
            self._part(part, out)

    def _part(self, part: dict[str, Any], out: list[Event]) -> None:
        """One part, by the field that says its kind."""
        if "text" in part:
            self._text_part(part, out)
        elif "functionCall" in part:
            self._function_call(part, out)
        elif "inlineData" in part:
            self._inline_data(part, out)
        elif "fileData" in part:
            self._file_data(part, out)
        elif part.keys() <= _SIGNATURE_ONLY:
            self._signature_only(part, out)
        else:
            self._raw_part(part, out)

    def _text_part(self, part: dict[str, Any], out: list[Event]) -> None:
        text = part["text"]
        if type(text) is not str:
            self._raw_part(part, out, "text is not a string")
            return
        if not text:  # an empty (trailing) text part: only its signature and extras matter
            self._signature_only(part, out)
            return
        kind = _TEXT_KINDS[part.get("thought") is True]
        signature = as_str(part.get("thoughtSignature"))
        current = self.blocks.get(_PART)
        if (current is None or current.kind is not kind.block
                or (signature is not None and current.signed)):
            current = self._text_block(kind, out)
        out.append(BlockDelta(index=current.index, delta=kind.delta(text), choice=self.choice))
        self._sign(current, signature, out)
        self._block_metadata(current, unread_fields(part, _TEXT_READ), out)

    def _text_block(self, kind: TextKind, out: list[Event]) -> GeminiBlock:
        return self._open(kind.block(id=self.ledger.made_up_id(kind.prefix)), out)

    def _signature_only(self, part: dict[str, Any], out: list[Event]) -> None:
        """A part with no content of its own: its signature and extras go to the
        preceding block (a new empty block only if there is none)."""
        signature = as_str(part.get("thoughtSignature"))
        extras = unread_fields(part, _TEXT_READ)
        if signature is None and not extras:
            return  # an empty text part: nothing to keep
        current = self.blocks.get(_PART)
        if current is None:
            current = self._text_block(_TEXT_KINDS[part.get("thought") is True], out)
        self._sign(current, signature, out)
        self._block_metadata(current, extras, out)

    def _function_call(self, part: dict[str, Any], out: list[Event]) -> None:
        call = part["functionCall"]
        if type(call) is not dict:
            self._raw_part(part, out, "functionCall is not an object")
            return
        self.called = True
        signature = as_str(part.get("thoughtSignature"))
        metadata = {**unread_fields(call, _CALL_READ), **unread_fields(part, _CALL_PART_READ)}
        current = self.blocks.get(_PART)
        if current is not None and current.builder is not None:  # a call streaming
            if "name" not in call:  # more arguments (or the end) of the call streaming
                self._partial_args(current, call, out)
                self._sign(current, signature, out)
                self._block_metadata(current, metadata, out)
                self._end_streamed_call(call, out)
                return
            self.close_block(out)  # a new call while one was streaming
        if not call:  # a stray terminator with no call streaming: nothing to close
            self._signature_only(part, out)
            return
        call_id = as_str(call.get("id")) or self.ledger.made_up_id("call")
        name = as_str(call.get("name")) or ""
        if call.get("willContinue") is True or "partialArgs" in call:  # Vertex streamed arguments
            current = self._open(ToolCallBlock(call_id, name, metadata=metadata), out)
            current.builder = JSONPathBuilder()
            current.call_id = call_id
            self._partial_args(current, call, out)
            self._sign(current, signature, out)
            self._end_streamed_call(call, out)
            return
        args = call.get("args")
        arguments = arguments_text(args if args is not None else {})
        current = self._open(ToolCallBlock(call_id, name, arguments, metadata=metadata), out)
        self._sign(current, signature, out)

    def _partial_args(self, current: GeminiBlock, call: dict[str, Any],
                      out: list[Event]) -> None:
        """Vertex ``partialArgs`` updates -> argument JSON text, via the builder."""
        builder = current.builder
        updates = call.get("partialArgs")
        if builder is None or type(updates) is not list:
            return
        fragments: list[str] = []
        for update in updates:
            fragment = _assemble(builder, update)
            if fragment is None:
                self._unassembled(current, update, out)
            else:
                fragments.append(fragment)
        text = "".join(fragments)
        if text:
            out.append(BlockDelta(index=current.index, delta=ToolInputDelta(text),
                                  choice=self.choice))

    def _end_streamed_call(self, call: dict[str, Any], out: list[Event]) -> None:
        """A streamed call ends with the first ``functionCall`` without ``willContinue``."""
        if call.get("willContinue") is not True:
            self.close_block(out)

    def _unassembled(self, current: GeminiBlock, update: Any, out: list[Event]) -> None:
        """An update the builder cannot place: kept in the block's metadata, and
        the call marked incomplete at its end."""
        current.unassembled = True
        out.append(BlockDelta(index=current.index,
                              delta=MetadataAppendDelta("unassembledPartialArgs", [update]),
                              choice=self.choice))

    def _inline_data(self, part: dict[str, Any], out: list[Event]) -> None:
        inline = part["inlineData"]
        if type(inline) is not dict:
            self._raw_part(part, out, "inlineData is not an object")
            return
        text = inline.get("data", "")
        raw = decode_base64(text) if type(text) is str else None
        if raw is None:
            self._raw_part(part, out, "inlineData.data is not base64 text")
            return
        media_type = as_str(inline.get("mimeType")) or ""
        name = as_str(inline.get("displayName"))
        signature = as_str(part.get("thoughtSignature"))
        extras = {**unread_fields(inline, _INLINE_READ), **unread_fields(part, _INLINE_PART_READ)}
        if not is_audio(media_type):  # an image: complete in one part
            image = self._open(DataBlock(
                self.ledger.made_up_id("data"), media_type, name,
                Base64Source(raw, media_type), metadata=extras), out)
            self._sign(image, signature, out)
            return
        current = self.blocks.get(_PART)
        if (current is None or current.kind is not DataBlock
                or current.media_type != media_type
                or (signature is not None and current.signed)):
            current = self._open(DataBlock(self.ledger.made_up_id("data"), media_type, name),
                                 out)
            current.media_type = media_type
        out.append(BlockDelta(index=current.index, delta=DataDelta(raw), choice=self.choice))
        self._block_metadata(current, extras, out)
        self._sign(current, signature, out)

    def _file_data(self, part: dict[str, Any], out: list[Event]) -> None:
        data = part["fileData"]
        uri = data.get("fileUri") if type(data) is dict else None
        if type(data) is not dict or type(uri) is not str:
            self._raw_part(part, out, "fileData.fileUri is not a string")
            return
        media_type = as_str(data.get("mimeType")) or ""
        current = self._open(DataBlock(
            self.ledger.made_up_id("data"), media_type, as_str(data.get("displayName")),
            URLSource(uri, media_type),
            metadata={**unread_fields(data, _FILE_READ), **unread_fields(part, _FILE_PART_READ)},
        ), out)
        self._sign(current, as_str(part.get("thoughtSignature")), out)

    def _raw_part(self, part: dict[str, Any], out: list[Event], unreadable: str = "") -> None:
        """``executableCode``, ``codeExecutionResult``, ``functionResponse``, part
        kinds this version does not know, and parts it cannot read (``unreadable``
        says why): the whole part, kept."""
        kind = next((k for k in part if k not in _SIGNATURE_ONLY), "unknown")
        metadata = {"unreadable": unreadable} if unreadable else None
        current = self._open(RawBlock(kind, dict(part), id=self.ledger.made_up_id("raw"),
                                      metadata=metadata), out)
        self._sign(current, as_str(part.get("thoughtSignature")), out)

    # ------------------------------------------------------------ blocks

    def _sign(self, current: GeminiBlock, signature: str | None, out: list[Event]) -> None:
        if signature is not None:
            current.signed = True
            out.append(BlockDelta(index=current.index, delta=SignatureDelta(signature),
                                  choice=self.choice))

    def _block_metadata(self, current: GeminiBlock, extras: dict[str, Any],
                        out: list[Event]) -> None:
        if extras:
            out.append(BlockDelta(index=current.index, delta=MetadataDelta(extras),
                                  choice=self.choice))

    def _open(self, block: Block, out: list[Event]) -> GeminiBlock:
        """Close the open block and open ``block`` after it."""
        self.close_block(out)
        return self.ledger.open(_PART, block, out)

    def close_block(self, out: list[Event], *, cut_off: bool = False) -> None:
        """End the open block; a streamed call gets its closing JSON text, and is
        marked incomplete when ``cut_off`` (MAX_TOKENS) or when updates were refused."""
        current = self.blocks.get(_PART)
        if current is None:
            return
        snapshot = None
        if current.builder is not None:
            tail = current.builder.close()
            if tail:
                out.append(BlockDelta(index=current.index, delta=ToolInputDelta(tail),
                                      choice=self.choice))
            if cut_off or current.unassembled:
                snapshot = ToolCallBlock(current.call_id, incomplete=True)
        self.ledger.close(_PART, out, snapshot)

    # ------------------------------------------------------------ the end

    def end(self, reason: FinishReason, stop_reason: str | None, out: list[Event]) -> None:
        """The provider ended the candidate (its ``finishReason``, or a blocked prompt)."""
        if self.ledger.ended:
            return
        self.close_block(out)
        self.ledger.stop_reason = stop_reason
        self.ledger.end(out, reason)

    def cut(self, out: list[Event]) -> None:
        """The input ended first: ``unknown`` (``error`` after an error), not terminated."""
        if self.ledger.ended:
            return
        self.close_block(out)
        self.ledger.finish(out)


def _assemble(builder: JSONPathBuilder, update: Any) -> str | None:
    """The argument JSON text one ``partialArgs`` update adds, or ``None`` when
    it cannot be placed: not an object, a ``jsonPath`` that is not a string, no
    value field or a value of the wrong type, an update out of document order."""
    if type(update) is not dict:
        return None
    json_path = update.get("jsonPath", "")
    if type(json_path) is not str:
        return None
    value: JSONPathValue = None
    for field, types in _ARGUMENT_VALUES.items():
        if field in update:
            value = update[field]
            if type(value) not in types:
                return None
            break
    else:
        if "nullValue" not in update:
            return None
    try:
        return builder.update(json_path, value, update.get("willContinue") is True)
    except (ValueError, TypeError):
        return None
