"""Gemini ``Part`` s <-> streamkit blocks, both directions.

One small function per part kind, shared by the request builder and the
request parser (:mod:`.request`); the response side reads parts with the
stream parser (:mod:`.candidate`), and this module writes back exactly what
that reader makes:

=======================================  ===========================================
streamkit                                Gemini part
=======================================  ===========================================
:class:`TextBlock`                       ``{"text"}``
:class:`ThinkingBlock`                   ``{"text", "thought": true}``
:class:`ToolCallBlock`                   ``{"functionCall": {"id"?, "name", "args"}}``
:class:`DataBlock`, inline bytes         ``{"inlineData": {"mimeType", "data"}}``
:class:`DataBlock`, a URL                ``{"fileData": {"mimeType", "fileUri"}}``
:class:`FunctionExecutionResult`         ``{"functionResponse": {"id"?, "name",
                                         "response", "parts"?}}``
:class:`RawBlock` (the whole part)       ``executableCode``, ``codeExecutionResult``,
                                         ``toolCall`` / ``toolResponse`` (server
                                         tools), any part kind not listed
=======================================  ===========================================

``thoughtSignature`` stays on the part it came on: a :class:`ThinkingBlock` holds
it in ``signature``, every other block in ``metadata["signature"]`` (where
:mod:`streamkit.model.merge` puts a signature delta), a :class:`RawBlock` inside its
part. It is sent back as received (a response's standard base64; the API also
takes the URL-safe form the google-genai SDK re-encodes it in).

Block ``metadata`` holds the part's fields streamkit has no slot for, under
their own names; writing puts a Part field (:data:`PART_FIELDS`:
``videoMetadata``, ``mediaResolution``...) on the part and any other on the
object inside it (``functionCall``, ``inlineData``...), which is where the
stream parser found them. A few metadata keys are streamkit's own records,
never sent (:data:`RECORDS`): ``snake_case`` (the spelling, see
:mod:`.spelling`), ``absent`` (documented fields the body left out),
``generated_id``, ``response_object``, ``base64`` and the stream parser's
``signature`` / ``unreadable`` / ``unassembledPartialArgs``.

Provenance. Everything the request reader keeps in a block's, a message's or
a result's metadata is :class:`~streamkit.model.extras.Extras` of ``gemini``, the
records included, so they never reach another wire's body; the writers here
read metadata only through :func:`~streamkit.model.extras.extras_for`, so another
wire's extras (an Anthropic ``cache_control``, an OpenAI ``name``) never reach
a Gemini part either. The one fact read whatever its origin is
``generated_id``: a made-up id is never sent, whoever made it up.

Function call ids. AI Studio usually sends ``functionCall`` without ``id``;
:class:`ToolCallBlock` needs one, so the stream parser and the request parser
make one up, derived from the stream or the body
(:class:`~streamkit.model.ids.StreamIds`: two reads of the same bytes agree). A
made-up id is never written back (:func:`made_up_id`): the matching
``functionResponse`` then goes without ``id`` too, by ``name`` and position,
as Gemini matched them before it had ids, under its call's name (a result's
own other name, which an Ollama ``tool_name`` may be, is dropped with a
:class:`~streamkit.LossyTranslationWarning`: the pairing is kept).

Tool results. ``response`` is a JSON object; the API reference reads an
``output`` key as the function's output and an ``error`` key as its failure
(google-genai ``FunctionResponse.response``), so a result's text is written as
``{"output": text}`` or, when ``is_error``, ``{"error": text}``. A response of
another shape (``{"return_value": ...}``) is read as its compact JSON text with
``metadata["response_object"]`` set, and written back as that object. Images
and files of a result go in ``functionResponse.parts`` (Gemini 3's multimodal
function responses; earlier models refuse them).

Reading a request is lossless: a part becomes a block only when writing the
block gives the part back exactly (:func:`~streamkit.providers.lossless.exactly`),
otherwise it is kept whole as a :class:`RawBlock` and goes back verbatim.

Sending an assistant turn (the cross-provider policy)
-----------------------------------------------------
A turn written by Gemini (``provider`` ``gemini``, or ``None``: built by hand
or read from a Gemini request) goes back part for part as it came: thought
parts (``thought: true``, signed or not: the recorded client re-sends
unsigned thought summaries too), text, function calls, inline media (a
generated image), server tool parts (``toolCall`` / ``toolResponse``,
``executableCode``...) verbatim, every signature on its part, block metadata
included. The thought-signatures guide asks for exactly that: "pass it back
exactly as received"; on Gemini 3 a function call of the current turn without
its signature is a 400. A call whose arguments were cut off or are no JSON
object goes with ``args: {}`` (the policy of every wire:
:mod:`streamkit.providers.function_tools`).

A turn from another wire format keeps only what Gemini can take (the policy
of every wire, :data:`streamkit.providers.turns.FOREIGN_BLOCKS`; this module
supplies the writers):

- text (without the other wire's citations and metadata) and tool calls (a
  plain ``functionCall`` with its id, unless made up, and its arguments; the
  other API's server-side calls are dropped, no response could follow them).
  The first call carries :data:`FOREIGN_CALL_SIGNATURE`, the value the
  thought-signatures guide gives for history another model wrote, since
  Gemini 3 refuses an unsigned first call of a step;
- visible thinking as a text part ``<think>\\n...\\n</think>`` (the form the
  recorded Cerebras GLM exchange replays), or nothing with
  ``foreign_thinking="drop"``;
- signatures, encrypted or redacted reasoning, provider items
  (:class:`RawBlock`) and tool results are dropped: Gemini cannot verify or
  read them;
- media of the turn (an OpenAI audio answer) is sent as its transcript, or
  dropped when it has none.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import re
from collections.abc import Callable, Iterable, Mapping
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
from ...model.data_sources import Base64Source, URLSource
from ...model.errors import InvalidBodyError, UnsupportedFeatureError
from ...model.extras import Extras, extras_for, origin_of
from ...model.ids import StreamIds
from ...model.pcm import PCM_RATE_ASSUMED
from ...model.tool_arguments import arguments_text
from ..coerce import Wire, as_str
from ..function_tools import arguments_as_object
from ..lossless import ABSENT, exactly, raw_part, raw_part_or_dropped, unread, write_user_part
from ..media import is_placeholder, read_data_url, url_media_type
from ..tool_media import result_blocks
from ..turns import ForeignWriters, OwnWriter, turn_parts
from .spelling import SNAKE_CASE, Spelling, camel
from .wire import NAME, decode_base64

Metadata = Mapping[str, Any]

#: Metadata key of a non-thinking block's ``thoughtSignature`` (merge.py's place for it).
SIGNATURE = "signature"
#: Metadata key: the block's id (a call's, or the call id of a result) was made up
#: because the body had none; it is not written.
GENERATED_ID = "generated_id"
#: Metadata key of a result: its text is the whole ``response`` object, as JSON.
RESPONSE_OBJECT = "response_object"
#: Metadata key of a data block: ``"urlsafe"`` when the body wrote its bytes in
#: the URL-safe base64 alphabet (the google-genai SDK does).
BASE64 = "base64"

#: Metadata keys that are streamkit's records, never wire fields.
RECORDS = frozenset({
    SNAKE_CASE, SIGNATURE, GENERATED_ID, ABSENT, RESPONSE_OBJECT, BASE64, PCM_RATE_ASSUMED,
    "unreadable", "unassembledPartialArgs",  # the stream parser's diagnostics
})

#: The fields of a ``Part`` beside its content (REST ``Part``; google-genai
#: ``types.Part``): block metadata under these names goes on the part, any
#: other on the object inside it.
PART_FIELDS = frozenset({
    "thought", "thoughtSignature", "partMetadata", "videoMetadata", "mediaResolution",
    "audioTranscription", "mediaProcessing", "speechMetadata", "documentMetadata",
    "spreadsheetMetadata", "audioMetadata",
})

#: Thought signature for a function call of another API's turn. Gemini 3 answers
#: 400 when the first function call of a step in the current turn has no
#: signature; for history it did not produce (another model's turns) the
#: thought-signatures guide documents this value to skip the check
#: (ai.google.dev/gemini-api/docs/thought-signatures, FAQ).
FOREIGN_CALL_SIGNATURE = "skip_thought_signature_validator"

# streamkit's made-up call ids (streamkit.model.ids: prefix "call", 24 hex digits), for
# blocks whose reader did not mark them (see made_up_id).
_MADE_UP_ID = re.compile(r"call_[0-9a-f]{24}")
_SIGNATURE_FIELDS = frozenset({"thought", "thoughtSignature", "thought_signature"})


# ---------------------------------------------------------------- metadata


def _wire_fields(metadata: Metadata) -> tuple[Wire, Wire]:
    """Gemini's own extras of ``metadata`` as wire fields: (those of the part,
    those of the object in it); records and another wire's extras are not fields."""
    part: Wire = {}
    inner: Wire = {}
    for key, value in extras_for(metadata, NAME).items():
        if key not in RECORDS:
            (part if camel(key) in PART_FIELDS else inner)[key] = value
    return part, inner


def absent_fields(metadata: Metadata) -> frozenset[str]:
    """The documented fields a read object left out (:data:`ABSENT`)."""
    names = metadata.get(ABSENT)
    return frozenset(name for name in names or () if isinstance(name, str))


def _records(spelling: Spelling, absent: list[str]) -> Wire:
    """The records a reader keeps (only those that say something)."""
    out: Wire = {}
    if spelling.paths:
        out[SNAKE_CASE] = spelling.record()
    if absent:
        out[ABSENT] = absent
    return out


def made_up_id(block: ToolCallBlock) -> bool:
    """Whether the call's id was made up by streamkit (the provider sent none):
    ``metadata["generated_id"]`` says so when the reader marked it, whichever
    wire's reader it was; otherwise an id of streamkit's own shape (``call_``
    + 24 hex digits, what the stream parser makes up) is taken as made up."""
    marked = block.metadata.get(GENERATED_ID)
    if isinstance(marked, bool):
        return marked
    return _MADE_UP_ID.fullmatch(block.id) is not None


# ---------------------------------------------------------------- writing parts


def _sign(part: Wire, signature: str | None, spelling: Spelling) -> None:
    if signature is not None:
        part[spelling.key("thoughtSignature")] = signature


def text_part(block: TextBlock) -> Wire:
    """``{"text"}`` (+ its signature and extras); citations are the response's,
    not content (a ``Part`` has no field for them), and are not sent back."""
    own = extras_for(block.metadata, NAME)
    part_extras, inner_extras = _wire_fields(own)
    part: Wire = {"text": block.text}
    signature = as_str(own.get(SIGNATURE))
    if signature is not None:
        _sign(part, signature, Spelling.of(own))
    return {**part, **inner_extras, **part_extras}


def thought_part(block: ThinkingBlock) -> Wire:
    """``{"text", "thought": true}`` with its signature, as it came."""
    own = extras_for(block.metadata, NAME)
    part_extras, inner_extras = _wire_fields(own)
    part: Wire = {} if "text" in absent_fields(own) else {"text": block.thinking}
    part["thought"] = True
    _sign(part, block.signature, Spelling.of(own))
    return {**part, **inner_extras, **part_extras}


def call_part(block: ToolCallBlock, *, write_id: bool) -> Wire:
    """``{"functionCall": {"id"?, "name", "args"}}`` (+ its signature)."""
    own = extras_for(block.metadata, NAME)
    spelling = Spelling.of(own)
    part_extras, call_extras = _wire_fields(own)
    call: Wire = {"id": block.id} if write_id else {}
    call["name"] = block.name
    if "args" not in absent_fields(own):
        call["args"] = arguments_as_object(block)  # an own turn's: unsaid (function_tools)
    part: Wire = {spelling.key("functionCall"): {**call, **call_extras}}
    _sign(part, as_str(own.get(SIGNATURE)), spelling)
    return {**part, **part_extras}


def data_part(block: DataBlock) -> Wire:
    """Inline bytes as ``inlineData`` (a ``data:`` URL too), a URL as ``fileData``
    (a Files API URI, a ``gs://`` or web URL: the API fetches it, not streamkit)."""
    own = extras_for(block.metadata, NAME)
    spelling = Spelling.of(own)
    part_extras, inner_extras = _wire_fields(own)
    source = block.source
    inline = read_data_url(source.url, decode_base64, percent=True) if isinstance(
        source, URLSource) else None
    media_type = inline.media_type if inline is not None else block.media_type
    if isinstance(source, URLSource) and inline is None:
        kind = "fileData"
        if origin_of(block.metadata) != NAME:  # Gemini's own block says what it said
            media_type = _file_media_type(block, source)
        inner: Wire = {spelling.key("mimeType", "fileData.mimeType"): media_type} if (
            media_type) else {}
        inner[spelling.key("fileUri", "fileData.fileUri")] = source.url
    else:
        kind = "inlineData"
        if not media_type:
            raise UnsupportedFeatureError(
                NAME, f"data block {block.id!r} without a media type",
                "inlineData needs a mimeType: set the block's media_type")
        raw = inline.raw if inline is not None else block.data
        urlsafe = own.get(BASE64) == "urlsafe"
        encoded = (base64.urlsafe_b64encode if urlsafe else base64.b64encode)(raw).decode()
        inner = {spelling.key("mimeType", "inlineData.mimeType"): media_type, "data": encoded}
    if block.name is not None:
        inner[spelling.key("displayName", f"{kind}.displayName")] = block.name
    return {spelling.key(kind): {**inner, **inner_extras}, **part_extras}


def _file_media_type(block: DataBlock, source: URLSource) -> str:
    """``fileData.mimeType`` of media by URL: the caller's type, or the one the
    URL's path names; a placeholder (``image/*``, what OpenAI's and
    Anthropic's readers say of a URL image) is no type, and none is invented;
    no type at all is sent as none (a Files API URI has its own)."""
    media_type = url_media_type(source.url, source.media_type)
    if media_type is not None:
        return media_type
    if is_placeholder(source.media_type):
        family = source.media_type[:-2] or "media"
        raise UnsupportedFeatureError(
            NAME, f"an {family} URL with no media type (block {block.id!r}, "
            f"{source.url[:100]!r})",
            "fileData needs a mimeType and the URL's path names none: give the block's media "
            f"type (URLSource(url, '{family}/png')), or its bytes")
    return ""


def user_part(block: UserContent) -> Wire:
    """One part of a user's content."""
    return write_user_part(block, text_part, data_part, NAME)


def user_parts(blocks: Iterable[UserContent]) -> list[Wire]:
    """A user's content as parts. Another wire's raw items (an Anthropic
    document block, kept whole by its reader) are no Gemini part: left out,
    as another wire's provider items in an assistant turn are, with a
    :class:`~streamkit.LossyTranslationWarning`."""
    return [user_part(block) for block in blocks
            if not isinstance(block, RawBlock)
            or raw_part_or_dropped(block, NAME) is not None]


def result_part(result: FunctionExecutionResult, *, name: str, write_id: bool) -> Wire:
    """``{"functionResponse": {"id"?, "name", "response", "parts"?}}`` (see the
    module docstring for ``response``)."""
    if not isinstance(result.content, str):
        result = dataclasses.replace(result, content=result_blocks(result, data_part, NAME))
    own = extras_for(result.metadata, NAME)
    spelling = Spelling.of(own)
    part_extras, response_extras = _wire_fields(own)
    answer: Wire = {"id": result.call_id} if write_id else {}
    answer["name"] = name
    if "response" not in absent_fields(own):
        answer["response"] = _response(result, bool(own.get(RESPONSE_OBJECT)))
    media = [block for block in result.blocks if isinstance(block, DataBlock)]
    if media:
        answer[spelling.key("parts", "functionResponse.parts")] = [data_part(b) for b in media]
    return {spelling.key("functionResponse"): {**answer, **response_extras}, **part_extras}


def _response(result: FunctionExecutionResult, whole_object: bool) -> Wire:
    text = result.text
    if whole_object:
        value = json.loads(text)
        if type(value) is not dict:
            raise ValueError(f"tool result for {result.call_id!r}: metadata['response_object'] "
                             "says its text is a JSON object, and it is not one")
        return {"error": value} if result.is_error else value
    return {"error": text} if result.is_error else {"output": text}


# ---------------------------------------------------------------- assistant turns


def _foreign_call(block: ToolCallBlock) -> Wire:
    """Another API's call as a plain ``functionCall`` (its id unless made up)."""
    call: Wire = {} if made_up_id(block) else {"id": block.id}
    return {"functionCall": {**call, "name": block.name,
                             "args": arguments_as_object(block, NAME)}}


_OWN_PARTS: dict[type[Block], OwnWriter[Wire]] = {
    TextBlock: lambda block: [text_part(block)],
    ThinkingBlock: lambda block: [thought_part(block)],
    ToolCallBlock: lambda block: [call_part(block, write_id=not made_up_id(block))],
    DataBlock: lambda block: [data_part(block)],
    RawBlock: lambda block: [raw_part(block, NAME)],
    ToolResultBlock: lambda block: None,  # Gemini's are user parts: as another API's (dropped)
}


def model_parts(blocks: list[ContentBlock], *, own: bool,
                foreign_thinking: ForeignThinking) -> list[Wire]:
    """An assistant turn's blocks as the parts of a ``model`` content. Another
    API's turn keeps text, tool calls and (as text) thinking; so does a block
    another wire's reader made in a turn of this wire. When the turn's first
    function call is another API's, it carries :data:`FOREIGN_CALL_SIGNATURE`."""
    foreign_calls: list[Wire] = []

    def foreign_call(block: ToolCallBlock) -> Wire:
        foreign_calls.append(_foreign_call(block))
        return foreign_calls[-1]

    parts = turn_parts(blocks, own=own, wire=NAME, policy=foreign_thinking,
                       own_writers=_OWN_PARTS,
                       writers=ForeignWriters(text=lambda text: {"text": text}, call=foreign_call))
    first_call = next((part for part in parts if "functionCall" in part), None)
    if first_call is not None and any(first_call is call for call in foreign_calls):
        first_call["thoughtSignature"] = FOREIGN_CALL_SIGNATURE
    return parts


def _model_part(block: Block) -> Wire:
    """The one part an own assistant block is (for the exactness check)."""
    written = _OWN_PARTS[type(block)](block)
    if written is None or len(written) != 1:
        raise ValueError("not exactly one part")
    return written[0]


# ---------------------------------------------------------------- reading parts


def _kind(part: Wire) -> str:
    """A raw part's kind: its first key that is not a signature field."""
    return next((key for key in part if key not in _SIGNATURE_FIELDS), "unknown")


def _kept(part: Wire, ids: StreamIds) -> RawBlock:
    """A part kept whole, as it came."""
    return RawBlock(_kind(part), part, id=ids.make("raw"), metadata=Extras(NAME))


def _exactly(block: Block, write: Callable[[Any], Wire], part: Wire, ids: StreamIds) -> Block:
    """``block`` when it writes back as ``part``, else the part kept whole."""
    return exactly(block, write, part, kind=_kind(part), wire=NAME, ids=ids)


def _part_dict(part: Any) -> Wire:
    if type(part) is not dict:
        raise InvalidBodyError(f"a Gemini part must be an object, not {str(part)[:200]}",
                               wire=NAME)
    return part


def _unread(wire: Wire, *keys: str | None) -> Extras:
    """:func:`~streamkit.providers.lossless.unread`, with the keys a reader did
    not find (``None``) left out."""
    return unread(wire, *(key for key in keys if key is not None), wire=NAME)


def _signature(part: Wire, spelling: Spelling) -> tuple[str | None, str | None]:
    """The part's signature and the key it is under."""
    key = spelling.find(part, "thoughtSignature")
    return (as_str(part[key]), key) if key is not None else (None, None)


def _read_text(part: Wire, ids: StreamIds) -> Block:
    spelling = Spelling()
    signature, signature_key = _signature(part, spelling)
    text = part.get("text")
    if part.get("thought") is True:
        absent = [] if "text" in part else ["text"]
        metadata = _unread(part, "text", "thought", signature_key)
        metadata.update(_records(spelling, absent))
        return ThinkingBlock(text if isinstance(text, str) else "", id=ids.make("think"),
                             signature=signature, metadata=metadata)
    metadata = _unread(part, "text", signature_key)
    if signature is not None:
        metadata[SIGNATURE] = signature
    metadata.update(_records(spelling, []))
    return TextBlock(text if isinstance(text, str) else "", id=ids.make("text"),
                     metadata=metadata)


def _read_call(part: Wire, key: str, spelling: Spelling, ids: StreamIds) -> Block:
    call = part[key]
    if type(call) is not dict:
        raise ValueError("functionCall is not an object")
    signature, signature_key = _signature(part, spelling)
    call_id = as_str(call.get("id"))
    args = call.get("args")
    metadata = _unread(call, "id", "name", "args")
    metadata.update(_unread(part, key, signature_key))
    if signature is not None:
        metadata[SIGNATURE] = signature
    if call_id is None:
        metadata[GENERATED_ID] = True
    metadata.update(_records(spelling, [] if "args" in call else ["args"]))
    return ToolCallBlock(call_id or ids.make("call"), as_str(call.get("name")) or "",
                         arguments_text(args if args is not None else {}), metadata=metadata)


def _read_data(part: Wire, key: str, spelling: Spelling, ids: StreamIds) -> Block:
    kind = camel(key)
    inner = part[key]
    if type(inner) is not dict:
        raise ValueError(f"{kind} is not an object")
    signature, signature_key = _signature(part, spelling)
    mime_key = spelling.find(inner, "mimeType", f"{kind}.mimeType")
    name_key = spelling.find(inner, "displayName", f"{kind}.displayName")
    media_type = as_str(inner.get(mime_key)) if mime_key else None
    name = as_str(inner.get(name_key)) if name_key else None
    metadata = Extras(NAME)
    source: Base64Source | URLSource
    if kind == "inlineData":
        data = inner.get("data")
        raw = decode_base64(data) if isinstance(data, str) else None
        if raw is None:
            raise ValueError("inlineData.data is not base64")
        if isinstance(data, str) and ("-" in data or "_" in data):
            metadata[BASE64] = "urlsafe"
        source = Base64Source(raw, media_type or "")
        read_inner: tuple[str | None, ...] = (mime_key, name_key, "data")
    else:
        uri_key = spelling.find(inner, "fileUri", "fileData.fileUri")
        uri = as_str(inner.get(uri_key)) if uri_key else None
        if uri is None:
            raise ValueError("fileData.fileUri is not a string")
        source = URLSource(uri, media_type or "")
        read_inner = (mime_key, name_key, uri_key)
    metadata.update(_unread(inner, *read_inner))
    metadata.update(_unread(part, key, signature_key))
    if signature is not None:
        metadata[SIGNATURE] = signature
    metadata.update(_records(spelling, []))
    return DataBlock(ids.make("data"), name=name, source=source, metadata=metadata)


def _read_content_part(part: Wire, ids: StreamIds) -> Block:
    """A part as the block the stream parser would make of it (a raw part for
    any kind it keeps whole)."""
    if "text" in part:
        return _read_text(part, ids)
    spelling = Spelling()
    for kind, reader in _PART_READERS.items():
        key = spelling.find(part, kind)
        if key is not None:
            return reader(part, key, spelling, ids)
    return _kept(part, ids)


_PART_READERS: dict[str, Callable[[Wire, str, Spelling, StreamIds], Block]] = {
    "functionCall": _read_call,
    "inlineData": _read_data,
    "fileData": _read_data,
}


def read_model_part(part: Any, ids: StreamIds) -> ContentBlock:
    """A part of a ``model`` content of a request, as the block a response's
    part becomes, when it writes back exactly."""
    wire = _part_dict(part)
    try:
        block = _read_content_part(wire, ids)
    except ValueError:
        return _kept(wire, ids)
    if isinstance(block, RawBlock):
        return block
    exact = _exactly(block, _model_part, wire, ids)
    assert isinstance(exact, (TextBlock, ThinkingBlock, ToolCallBlock, DataBlock, RawBlock))
    return exact


def read_user_part(part: Any, ids: StreamIds) -> UserContent:
    """A part of a ``user`` content (text, inline bytes, a file URI), or the
    part kept whole."""
    wire = _part_dict(part)
    try:
        block = _read_content_part(wire, ids)
    except ValueError:
        return _kept(wire, ids)
    if not isinstance(block, (TextBlock, DataBlock)):
        return block if isinstance(block, RawBlock) else _kept(wire, ids)
    exact = _exactly(block, user_part, wire, ids)
    assert isinstance(exact, (TextBlock, DataBlock, RawBlock))
    return exact


def read_result(part: Any, call_id_for: Callable[[str], str],
                ids: StreamIds) -> FunctionExecutionResult | None:
    """A ``functionResponse`` part as a :class:`FunctionExecutionResult`, or
    ``None`` when it is not one that writes back exactly (the caller keeps the
    part whole). A response without ``id`` answers the call
    ``call_id_for(name)`` names (``generated_id`` marks the result)."""
    wire = _part_dict(part)
    spelling = Spelling()
    key = spelling.find(wire, "functionResponse")
    answer = wire.get(key) if key is not None else None
    if type(answer) is not dict or not isinstance(answer.get("name"), str):
        return None
    name: str = answer["name"]
    parts_key = spelling.find(answer, "parts", "functionResponse.parts")
    media = [read_user_part(item, ids) for item in answer[parts_key]] if (
        parts_key is not None and type(answer[parts_key]) is list) else []
    if parts_key is not None and (type(answer[parts_key]) is not list or not all(
            isinstance(block, DataBlock) for block in media)):
        return None
    text, is_error, metadata = _read_response(answer)
    call_id = as_str(answer.get("id"))
    if call_id is None:
        metadata[GENERATED_ID] = True
    metadata.update(_unread(answer, "id", "name", "response", parts_key))
    metadata.update(_unread(wire, key))
    metadata.update(_records(spelling, [] if "response" in answer else ["response"]))
    content: str | list[TextBlock | DataBlock] = (
        [TextBlock(text, id=ids.make("text")),
         *(block for block in media if isinstance(block, DataBlock))] if media else text)
    result = FunctionExecutionResult(call_id if call_id is not None else call_id_for(name),
                                     content, is_error, name=name, metadata=metadata)
    try:
        written = result_part(result, name=name, write_id=call_id is not None)
    except (ValueError, TypeError):
        return None
    return result if written == wire else None


def _read_response(answer: Wire) -> tuple[str, bool, Extras]:
    """A ``response`` object as (text, is_error, metadata)."""
    response = answer.get("response")
    if type(response) is dict and len(response) == 1:
        ((key, value),) = response.items()
        if key in ("output", "error") and isinstance(value, str):
            return value, key == "error", Extras(NAME)
    if type(response) is dict:
        text = json.dumps(response, ensure_ascii=False, separators=(",", ":"))
        return text, False, Extras(NAME, {RESPONSE_OBJECT: True})
    return "", False, Extras(NAME)
