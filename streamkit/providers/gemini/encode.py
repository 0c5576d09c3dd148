"""Gemini ``generateContent`` responses written: the stream (SSE or the JSON
array) and the non-streamed ``GenerateContentResponse`` body.

:class:`GeminiStreamEncoder` writes what ``:streamGenerateContent?alt=sse``
sends: every event is a whole ``GenerateContentResponse`` chunk::

    data: {"candidates": [{"content": {"parts": [...], "role": "model"}, "index": 0}],
           "usageMetadata": {...}, "modelVersion": ..., "responseId": ...}\\r\\n\\r\\n

(``\\r\\n\\r\\n`` ends each event, as the recordings have it).
:class:`GeminiArrayEncoder` (``encode_stream("gemini", source, array=True)``)
writes the same chunks as the one JSON array ``:streamGenerateContent`` answers
without ``alt=sse`` (``[{...}``, ``,\\r\\n{...}``... ``]``; served as
``application/json``); the official SDK always asks for SSE.

- Parts: text is ``{"text"}``, reasoning ``{"text", "thought": true}``, one
  part per delta (a Gemini answer names no blocks: consecutive parts of one
  kind are one block when read back). A function call is one
  ``{"functionCall": {"name", "args", "id"?}}`` part: Gemini does not stream
  arguments, so the call is held until its block ends and written whole. An
  image is one ``inlineData`` part, each piece of audio its own (Gemini's TTS
  streams audio that way), media by URL a ``fileData`` part.
- Ids: Gemini names no blocks, and the API usually sends no call ids. A call's
  ``id`` is written only for an answer of this wire whose id came from the
  API (one the reader made up is not: read back, the same id is made up
  again); ``responseId`` is the response's id unless it was made up.
- ``finishReason`` comes on a chunk of its own at a candidate's end, with the
  usage (``usageMetadata`` is on every chunk once known, as the API repeats
  it) and one empty text part as its ``content``, as the API's last chunks
  (a usage after the end: a chunk of that content too). Nothing marks
  the end of an SSE stream beyond ``finishReason``; a cut stream (its end not
  seen, ``terminated`` false) is written without it, and the array form
  without its closing ``]``.
- Errors: :func:`encode_error` is the HTTP error body ``{"error": {"code",
  "message", "status"}}`` (the RPC status word of the HTTP status: the SDK
  picks ``ClientError`` or ``ServerError`` by ``code``); an in-stream error is
  the same object as a ``data:`` event, which google-genai raises as its
  ``APIError`` and our reader ends the response with.

Provenance (see :mod:`streamkit.providers.encoder`): only an answer read from
this wire (or made by hand) gets its ``thoughtSignature`` s (on the part they
came on), its raw ``usageMetadata``, its own ``finishReason`` word, its call
ids, its kept fields (``safetyRatings``, ``createTime``, unknown part fields),
its citations, its provider parts (``executableCode``... kept as
:class:`~streamkit.model.blocks.RawBlock`) and, for a Vertex call whose arguments
were cut off or could not be assembled, the streamed ``partialArgs`` form that
reads back as the same incomplete call.

What a Gemini answer cannot hold, dropped when another wire's answer is
encoded: signatures and encrypted or redacted reasoning (Gemini cannot verify
another API's), citations, the ids of calls (written without ``id``; read
back, they get made-up ids), another API's server-side tool calls and its
provider items, refusal as its own kind (written as text), the incomplete
mark of a cut-off call (its arguments go as ``{}``), block boundaries between
blocks of one kind, and finish reasons Gemini has no word for (a refusal is
``SAFETY``, read back as ``content_filter``; a pause ``STOP``; an error or an
unknown reason ``OTHER``, read back as ``unknown``). Usage of another wire is
written in Gemini's fields: ``promptTokenCount`` with the prompt cache
included, ``candidatesTokenCount`` the output count as that wire counted it,
``thoughtsTokenCount`` its reasoning tokens.

:func:`encode_response` writes the non-streamed body from the same pieces,
one part per block.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from functools import partial
from typing import Any, Final

from ...framing.json_array import JSONArrayWriter
from ...framing.sse import SSEWriter
from ...model.blocks import (
    Block,
    ContentBlock,
    DataBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)
from ...model.data_sources import URLSource
from ...model.events import (
    CitationDelta,
    DataDelta,
    Delta,
    ErrorEvent,
    MetadataAppendDelta,
    MetadataDelta,
    ResponseEnd,
    ResponseMetadata,
    ResponseStart,
    SignatureDelta,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
    UsageUpdate,
)
from ...model.partial_json import PartialJSONError
from ...model.response import ChatResponse
from ...model.tool_arguments import decode_arguments
from ...model.usage import ChatUsage
from .. import encoder
from ..coerce import Wire
from ..encoder import StreamEncoder, input_tokens_for, wire_of_provider
from ..error_payloads import type_word
from ..function_tools import arguments_as_object
from .content import RECORDS, SIGNATURE, made_up_id
from .wire import CANDIDATE_FIELDS, ERROR_TYPES, FINISH_WORDS, NAME, is_audio

__all__ = ["GeminiArrayEncoder", "GeminiStreamEncoder", "encode_error", "encode_response",
           "stream_encoder"]


#: The ``finishReason`` to write: the API's own word for an answer of this wire,
#: else Gemini's for the uniform reason, ``OTHER`` where it has none.
finish_word = partial(encoder.finish_word, words=FINISH_WORDS)

#: The key a Vertex call keeps the ``partialArgs`` updates it could not place under.
UNASSEMBLED = "unassembledPartialArgs"

#: The separator between two items of the JSON array form.
_ARRAY_SEPARATOR: Final = b",\r\n"
# A response id streamkit made up (streamkit.model.ids: a prefix and 24 hex digits).
_MADE_UP_RESPONSE_ID = re.compile(r"resp_[0-9a-f]{24}")
# A JSONPath member name written without quotes (json_path.parse_json_path).
_PLAIN_NAME = re.compile(r"[^.\[\]'\"\\]+")


# ---------------------------------------------------------------- words and fields


def usage_object(usage: ChatUsage, *, own: bool) -> Wire:
    """``usageMetadata``: the API's own (raw) object for this wire's answer, else
    the counts in Gemini's fields (the prompt count with the cache in it)."""
    if own and usage.raw:
        return dict(usage.raw)
    prompt = input_tokens_for(usage, includes_cache=True)
    output = usage.output_tokens or 0
    out: Wire = {"promptTokenCount": prompt, "candidatesTokenCount": output,
                 "totalTokenCount": usage.total_tokens if usage.total_tokens is not None
                 else prompt + output}
    if usage.cached_tokens is not None:
        out["cachedContentTokenCount"] = usage.cached_tokens
    if usage.reasoning_tokens is not None:
        out["thoughtsTokenCount"] = usage.reasoning_tokens
    return out


def response_id(response_id: str | None) -> str | None:
    """The ``responseId`` to write: none for an id streamkit made up."""
    if response_id is None or _MADE_UP_RESPONSE_ID.fullmatch(response_id):
        return None
    return response_id


def split_fields(metadata: dict[str, Any]) -> tuple[Wire, Wire, Wire]:
    """A response's kept fields as (the chunk's, the candidate's, the
    candidate ``content``'s), as the reader found them."""
    chunk: Wire = {}
    candidate: Wire = {}
    content: Wire = {}
    for key, value in metadata.items():
        if key in ("citations", "otherResponseIds"):
            continue  # the reader's lists of what came apart: written where they belong
        if key.startswith("content."):
            content[key[len("content."):]] = value
        elif key in CANDIDATE_FIELDS:
            candidate[key] = value[-1] if key == "logprobsResult" and type(value) is list and (
                value) else value
        else:
            chunk[key] = value
    return chunk, candidate, content


def part_fields(metadata: dict[str, Any]) -> Wire:
    """The part fields a reader kept in a block's metadata (its records and
    signature apart)."""
    return {key: value for key, value in metadata.items()
            if key not in RECORDS and key != UNASSEMBLED}


# ---------------------------------------------------------------- parts


def text_part(text: str, *, thought: bool, signature: str | None = None,
              extras: Wire | None = None) -> Wire:
    """A text or thought part, its signature and kept fields on it."""
    part: Wire = {"text": text}
    if thought:
        part["thought"] = True
    if signature is not None:
        part["thoughtSignature"] = signature
    return {**part, **(extras or {})}


def call_part(block: ToolCallBlock, *, own: bool, signature: str | None) -> Wire:
    """A whole ``functionCall`` part: its id only when the API gave it."""
    call: Wire = {"id": block.id} if own and not made_up_id(block) else {}
    call["name"] = block.name
    call["args"] = arguments_as_object(block)
    part: Wire = {"functionCall": call}
    if own and signature is not None:
        part["thoughtSignature"] = signature
    return part


def streamed_call_parts(block: ToolCallBlock, signature: str | None) -> list[Wire]:
    """A Vertex call whose arguments were cut off or not all placed, in the
    streamed form it was read from: its name, its arguments as ``partialArgs``
    (each value at its JSONPath, then the updates the reader could not place),
    and the closing empty call unless it was cut off (the ``MAX_TOKENS`` chunk
    ends it)."""
    head: Wire = {"functionCall": {"name": block.name, "willContinue": True}}
    if signature is not None:
        head["thoughtSignature"] = signature
    updates = list(_argument_updates(block.input))
    unassembled = block.metadata.get(UNASSEMBLED)
    updates += unassembled if type(unassembled) is list else []
    parts = [head]
    if updates:
        parts.append({"functionCall": {"partialArgs": updates, "willContinue": True}})
    if type(unassembled) is list and unassembled:
        parts.append({"functionCall": {}})
    return parts


def _argument_updates(text: str) -> list[Wire]:
    """The ``partialArgs`` updates that assemble ``text`` (as much of it as is
    JSON: a cut-off text is read as far as it goes)."""
    try:
        arguments = decode_arguments(text) if text.strip() else None
    except PartialJSONError:
        return []
    updates: list[Wire] = []
    _leaves(arguments, "$", updates)
    return updates


_VALUE_FIELDS: tuple[tuple[type, str], ...] = (
    (bool, "boolValue"), (str, "stringValue"), (int, "numberValue"), (float, "numberValue"))


def _leaves(value: Any, path: str, out: list[Wire]) -> None:
    if type(value) is dict:
        for key, item in value.items():
            _leaves(item, path + _member(key), out)
        return
    if type(value) is list:
        for position, item in enumerate(value):
            _leaves(item, f"{path}[{position}]", out)
        return
    if path == "$":
        return  # not an object of arguments: nothing a path can place
    if value is None:
        out.append({"jsonPath": path, "nullValue": "NULL_VALUE"})
        return
    for kind, field in _VALUE_FIELDS:
        if type(value) is kind:
            out.append({"jsonPath": path, field: value})
            return


def _member(key: str) -> str:
    """``.key``, or ``['key']`` quoted when the name needs it."""
    if _PLAIN_NAME.fullmatch(key):
        return "." + key
    return "['" + key.replace("\\", "\\\\").replace("'", "\\'") + "']"


def data_part(block: DataBlock, raw: bytes, *, own: bool) -> Wire | None:
    """``inlineData`` with ``raw``, or ``fileData`` for media by URL (none for a
    block with neither a media type nor a URL)."""
    extras = part_fields(block.metadata) if own else {}
    source = block.source
    if isinstance(source, URLSource):
        inner: Wire = {"mimeType": block.media_type} if block.media_type else {}
        inner["fileUri"] = source.url
        kind = "fileData"
    else:
        if not block.media_type:
            return None
        inner = {"mimeType": block.media_type, "data": base64.b64encode(raw).decode()}
        kind = "inlineData"
    if block.name is not None:
        inner["displayName"] = block.name
    part: Wire = {kind: inner, **extras}
    signature = block.metadata.get(SIGNATURE)
    if own and isinstance(signature, str):
        part["thoughtSignature"] = signature
    return part


# ---------------------------------------------------------------- the stream


class _Held:
    """A block written at its end (a function call, an image) or whose part
    fields wait for its first part (text, reasoning)."""

    __slots__ = ("block", "extras", "incomplete", "input", "raw", "signature", "thought")

    def __init__(self, block: ContentBlock, *, own: bool) -> None:
        self.block = block
        self.incomplete = type(block) is ToolCallBlock and block.incomplete
        self.thought = type(block) is ThinkingBlock
        metadata = block.metadata if own else {}
        signature = metadata.get(SIGNATURE)
        self.signature: str | None = signature if isinstance(signature, str) else None
        self.extras: Wire = part_fields(metadata)
        self.input: list[str] = []
        self.raw = bytearray()


class GeminiStreamEncoder(StreamEncoder):
    """streamkit events -> ``streamGenerateContent?alt=sse`` chunks (see the
    module docstring)."""

    wire = NAME

    def __init__(self, dialect: str | None = None) -> None:
        super().__init__(dialect)
        self._envelope: Wire = {}  # modelVersion, responseId and the chunk's kept fields
        self._blocks: dict[int, dict[int, _Held]] = {}  # choice -> index -> its open block
        self._ended: dict[int, bool] = {}  # choice -> terminated
        self._usage_written: ChatUsage | None = None
        self._pending: dict[int, Wire] = {}  # candidate fields the start named, by choice
        self._pending_content: dict[int, Wire] = {}  # and the fields of its content

    # ------------------------------------------------------------ framing

    #: One chunk as the wire sends it: an SSE event, each line ended by CRLF as
    #: Gemini's servers end them.
    frame: Callable[[Wire], bytes] = staticmethod(SSEWriter(b"\r\n").event)

    def _chunk(self, choice: int | None, candidate: Wire | None = None) -> bytes:
        """A chunk: the candidate of ``choice`` (``None``: no candidate), the
        usage known so far, the response's identity and kept fields."""
        chunk: Wire = {}
        if choice is not None:
            written = {**self._pending.pop(choice, {}), **(candidate or {})}
            if candidate and "content" in candidate and choice in self._pending_content:
                written["content"] = {**self._pending_content.pop(choice), **candidate["content"]}
            chunk["candidates"] = [{**written, "index": choice}]
        if self.usage is not None:
            chunk["usageMetadata"] = usage_object(self.usage, own=self.own)
            self._usage_written = self.usage
        return self.frame({**chunk, **self._envelope})

    def _parts(self, choice: int, *parts: Wire) -> bytes:
        return self._chunk(choice, {"content": {"parts": list(parts), "role": "model"}})

    # ------------------------------------------------------------ the response

    def on_response_start(self, event: ResponseStart) -> bytes:
        if self.own:
            _, candidate, content = split_fields(event.metadata)
            if content:
                candidate["content"] = {"role": "model", **content}
                self._pending_content[event.choice] = candidate["content"]
            if candidate:
                self._pending[event.choice] = candidate
        if event.choice != 0:
            return b""
        envelope: Wire = {}
        if event.model:
            envelope["modelVersion"] = event.model
        written_id = response_id(event.id)
        if written_id is not None:
            envelope["responseId"] = written_id
        if self.own:
            envelope.update(split_fields(event.metadata)[0])
        self._envelope = envelope
        return b""

    def on_metadata(self, event: ResponseMetadata) -> bytes:
        if event.model is not None and event.choice == 0:
            self._envelope["modelVersion"] = event.model
        if event.id is not None and event.choice == 0 and response_id(event.id) is not None:
            self._envelope["responseId"] = event.id
        if not self.own:
            return b""
        chunk_fields, candidate, content = split_fields(event.metadata)
        for key, items in event.append.items():
            if key == "logprobsResult" and items:
                candidate[key] = items[-1]
            elif key == "citations":
                candidate["citationMetadata"] = {"citations": list(items)}
        out = b""
        if chunk_fields:
            self._envelope.update(chunk_fields)
            out += self._chunk(None)
        if candidate or content:
            if content:
                candidate["content"] = {"role": "model", **content}
            out += self._chunk(event.choice, candidate)
        return out

    def on_usage(self, event: UsageUpdate) -> bytes:
        if self._ended.get(0) is not None and self.usage is not None:
            return self._usage_chunk()  # after the end
        return b""

    def _usage_chunk(self) -> bytes:
        """A usage learnt after the end: a chunk with the first candidate's empty
        content, as Gemini's last chunks have one (never a chunk without
        candidates, which google-genai's ``chunk.candidates[0]`` cannot index)."""
        return self._chunk(min(self._ended, default=0), {"content": last_content()})

    def on_response_end(self, event: ResponseEnd) -> bytes:
        self._ended[event.choice] = event.terminated
        choice = event.choice  # its own blocks only: n choices cost n
        out = b"".join([self.on_block_end(choice, index)
                        for index in list(self._blocks.get(choice, ()))])
        if not event.terminated:
            return out
        candidate: Wire = {"content": last_content()}
        word = finish_word(event.finish_reason, event.stop_reason, own=self.own)
        if word is not None:
            candidate["finishReason"] = word
        return out + self._chunk(event.choice, candidate)

    def on_error(self, event: ErrorEvent) -> bytes:
        raw = event.raw
        if self.own and type(raw) is dict and type(raw.get("error")) is dict:
            return self.frame(raw)
        return self.frame(error_object(event, event.status or 500))

    def close(self) -> bytes:
        if self.usage is not None and self.usage is not self._usage_written:
            return self._usage_chunk()
        return b""

    # ------------------------------------------------------------ blocks

    def on_block_start(self, choice: int, index: int, block: ContentBlock) -> bytes:
        kind = type(block)
        if kind is RawBlock:
            assert isinstance(block, RawBlock)
            return self._parts(choice, dict(block.data)) if self.own and block.data else b""
        if kind is ThinkingBlock:
            assert isinstance(block, ThinkingBlock)
            if block.redacted:
                return b""  # reasoning Gemini cannot read (another wire's
                # encrypted data is not written; its visible text is, delta by delta)
        elif kind is ToolCallBlock:
            assert isinstance(block, ToolCallBlock)
            if block.server_side and not self.own:
                return b""  # another API ran it: no answer to it can follow here
        elif kind is DataBlock:
            assert isinstance(block, DataBlock)
            held = self._blocks.setdefault(choice, {})[index] = _Held(block, own=self.own)
            held.raw += block.data
            if isinstance(block.source, URLSource) or block.data:
                return self._end_data(choice, index)  # complete at its start
            return b""
        elif kind is not TextBlock:
            return b""  # tool results and what else no Gemini part holds
        self._blocks.setdefault(choice, {})[index] = _Held(block, own=self.own)
        return b""

    def on_delta(self, choice: int, index: int, delta: Delta) -> bytes:
        held = self._held(choice, index)
        if held is None:
            return b""
        kind = type(delta)
        if kind is TextDelta or kind is ThinkingDelta:
            text = delta.text if isinstance(delta, TextDelta) else getattr(delta, "thinking", "")
            if not text or type(held.block) not in (TextBlock, ThinkingBlock):
                return b""
            return self._text(choice, held, text)
        if kind is ToolInputDelta:
            assert isinstance(delta, ToolInputDelta)
            held.input.append(delta.partial_json)
        elif kind is DataDelta and type(held.block) is DataBlock:
            assert isinstance(delta, DataDelta)
            if is_audio(held.block.media_type):  # each piece of audio is a part
                part = data_part(held.block, delta.data, own=self.own)
                return self._parts(choice, part) if part is not None else b""
            held.raw += delta.data
        elif not self.own:
            return b""  # another wire's signatures, fields and citations
        elif kind is SignatureDelta:
            assert isinstance(delta, SignatureDelta)
            held.signature = delta.signature
            return self._flush_fields(choice, held)
        elif kind is MetadataDelta:
            assert isinstance(delta, MetadataDelta)
            held.extras.update(part_fields(delta.metadata))
            if UNASSEMBLED in delta.metadata:
                held.block.metadata[UNASSEMBLED] = delta.metadata[UNASSEMBLED]
            return self._flush_fields(choice, held)
        elif kind is MetadataAppendDelta:
            assert isinstance(delta, MetadataAppendDelta)
            if delta.key == UNASSEMBLED:
                kept = held.block.metadata.setdefault(UNASSEMBLED, [])
                kept.extend(delta.items)
        elif kind is CitationDelta:
            assert isinstance(delta, CitationDelta)
            citation = delta.citation
            if citation.wire == NAME and citation.raw:
                return self._chunk(choice, {"citationMetadata": {"citations": [citation.raw]}})
        return b""

    def _held(self, choice: int, index: int) -> _Held | None:
        """The open block ``index`` of ``choice`` (``None``: none open)."""
        blocks = self._blocks.get(choice)
        return None if blocks is None else blocks.get(index)

    def _text(self, choice: int, held: _Held, text: str) -> bytes:
        """A text or thought part, with the fields waiting for it."""
        part = text_part(text, thought=held.thought, signature=held.signature,
                         extras=held.extras)
        held.signature = None
        held.extras = {}
        return self._parts(choice, part)

    def _flush_fields(self, choice: int, held: _Held) -> bytes:
        """A signature or part fields of a text block that has begun: an empty
        part carries them (the reader puts them on the block before it); a call
        or media keeps them for its one part."""
        if type(held.block) not in (TextBlock, ThinkingBlock):
            return b""
        return self._text(choice, held, "")

    def on_snapshot(self, choice: int, index: int, snapshot: Block) -> bytes:
        """A call whose end says its arguments were cut off is written as it
        came, for an answer of this wire."""
        held = self._held(choice, index)
        if held is not None and type(snapshot) is ToolCallBlock and snapshot.incomplete:
            held.incomplete = True
        return b""

    def on_block_end(self, choice: int, index: int) -> bytes:
        held = self._held(choice, index)
        if held is None:
            return b""
        block = held.block
        if type(block) is ToolCallBlock:
            del self._blocks[choice][index]
            return self._end_call(choice, held)
        if type(block) is DataBlock:
            return self._end_data(choice, index)
        del self._blocks[choice][index]
        if held.signature is not None or held.extras:
            return self._text(choice, held, "")  # fields of a block that said nothing
        return b""

    def _end_call(self, choice: int, held: _Held) -> bytes:
        shell = held.block
        assert isinstance(shell, ToolCallBlock)
        call = ToolCallBlock(shell.id, shell.name, "".join(held.input) or shell.input,
                             metadata=shell.metadata, incomplete=held.incomplete)
        if self.own and (held.incomplete or UNASSEMBLED in shell.metadata):
            return self._parts(choice, *streamed_call_parts(call, held.signature))
        return self._parts(choice, call_part(call, own=self.own, signature=held.signature))

    def _end_data(self, choice: int, index: int) -> bytes:
        held = self._blocks[choice].pop(index)
        block = held.block
        assert isinstance(block, DataBlock)
        if is_audio(block.media_type) and not held.raw and not isinstance(block.source,
                                                                            URLSource):
            return b""  # its pieces went out as they came
        part = data_part(block, bytes(held.raw), own=self.own)
        return self._parts(choice, part) if part is not None else b""


class GeminiArrayEncoder(GeminiStreamEncoder):
    """The same chunks as the JSON array ``streamGenerateContent`` answers
    without ``alt=sse``: ``[`` before the first, ``,\\r\\n`` between two, ``]``
    once the answer's end was seen."""

    content_type = "application/json"

    def __init__(self, dialect: str | None = None) -> None:
        super().__init__(dialect)
        self._array = JSONArrayWriter(_ARRAY_SEPARATOR)
        self._closed = False

    def frame(self, chunk: Wire) -> bytes:
        return b"" if self._closed else self._array.item(chunk)

    def on_error(self, event: ErrorEvent) -> bytes:
        """The error item, then the array's end at once, as Gemini ends an array
        that fails mid-way (``{"error": {...}}`` its last item): the error ends
        the stream, and nothing comes after it (a source that raises is never
        closed), so a caller reads valid JSON whose last item is the error."""
        return super().on_error(event) + self._end()

    def close(self) -> bytes:
        out = super().close()
        ends = list(self._ended.values())
        if self._array.started and ends and all(ends):
            out += self._end()
        return out

    def _end(self) -> bytes:
        if self._closed:
            return b""
        self._closed = True
        return self._array.end()


def stream_encoder(dialect: str | None = None, *, array: bool = False) -> GeminiStreamEncoder:
    """The stream encoder of the form asked for: SSE, or the JSON array (``array``)."""
    return GeminiArrayEncoder(dialect) if array else GeminiStreamEncoder(dialect)


# ---------------------------------------------------------------- errors


def error_object(event: ErrorEvent, status: int) -> Wire:
    """Google's error object (the HTTP error body and the in-stream error) for
    ``event``, with the RPC status word of ``status``."""
    word = type_word(status, event.error_type, ERROR_TYPES,
                     client_error="INVALID_ARGUMENT", server_error="INTERNAL")
    return {"error": {"code": status, "message": event.message, "status": word}}


def encode_error(event: ErrorEvent, status: int, dialect: str | None = None) -> Wire:
    """The body of the API's HTTP error answer with ``status``."""
    return error_object(event, status)


# ---------------------------------------------------------------- the non-streamed body


def block_parts(block: ContentBlock, *, own: bool) -> list[Wire]:
    """The parts one whole block is written as (none for what Gemini cannot hold)."""
    metadata = block.metadata if own else {}
    signature = metadata.get(SIGNATURE)
    signed = signature if isinstance(signature, str) else None
    if type(block) is TextBlock:
        return [text_part(block.text, thought=False, signature=signed,
                          extras=part_fields(metadata))]
    if type(block) is ThinkingBlock:
        if block.redacted or (block.encrypted is not None and not own and not block.thinking):
            return []  # the visible text of another wire's encrypted reasoning crosses
        return [text_part(block.thinking, thought=True,
                          signature=block.signature if own else None,
                          extras=part_fields(metadata))]
    if type(block) is ToolCallBlock:
        if block.server_side and not own:
            return []
        if own and (block.incomplete or UNASSEMBLED in block.metadata):
            return streamed_call_parts(block, signed)
        return [call_part(block, own=own, signature=signed)]
    if type(block) is DataBlock:
        part = data_part(block, block.data, own=own)
        return [part] if part is not None else []
    if type(block) is RawBlock and own and block.data:
        return [dict(block.data)]
    return []


def last_content() -> Wire:
    """The ``content`` of a candidate's last chunk when nothing is left to say:
    one empty text part, as Gemini's own last chunks carry (its recordings), so
    google-genai's ``chunk.candidates[0].content.parts`` reads every chunk."""
    return {"parts": [{"text": ""}], "role": "model"}


def encode_response(response: ChatResponse, dialect: str | None = None) -> Wire:
    """The non-streamed ``GenerateContentResponse`` of ``response`` (see the
    module docstring)."""
    source_wire = wire_of_provider(response.provider)
    own = source_wire in (None, NAME)
    chunk_fields, candidate_fields, content_fields = (
        split_fields(response.metadata) if own else ({}, {}, {}))
    parts = [part for block in response.content for part in block_parts(block, own=own)]
    candidate: Wire = {"content": {"parts": parts, "role": "model", **content_fields}}
    citations = [citation.raw for block in response.content if type(block) is TextBlock
                 for citation in block.citations if citation.wire == NAME and citation.raw]
    if own and citations:
        candidate["citationMetadata"] = {"citations": citations}
    word = finish_word(response.finished_reason, response.stop_reason, own=own)
    if word is not None:
        candidate["finishReason"] = word
    body: Wire = {"candidates": [{**candidate, **candidate_fields, "index": 0}]}
    if response.usage is not None:
        body["usageMetadata"] = usage_object(response.usage, own=own)
    if response.model:
        body["modelVersion"] = response.model
    written_id = response_id(response.id)
    if written_id is not None:
        body["responseId"] = written_id
    return {**body, **chunk_fields}
