"""The content blocks of a response: text, thinking, tool calls, data, tool results.

Every block has an ``id``, a ``type`` tag (the same tags as agentscope:
``text``, ``thinking``, ``tool_call``, ``data``, ``tool_result``; plus ``raw``
for provider items streamkit does not model) and a ``metadata`` dict for
provider extras (a Gemini thought signature, an OpenAI item id, a Groq
channel), so nothing a provider sent is lost.

Growing fields keep their fragments in :mod:`streamkit.model.fragments` buffers:
appending is O(1) and the joined value is produced when read. Blocks convert
losslessly to and from plain dicts (``to_dict`` / ``from_dict``), data bytes
included (as base64).

The parts of a block with a job of their own live next door, and every public
name of theirs is re-exported here (this module's ``__all__`` is what
``streamkit.blocks`` offers): a data block's sources
(:mod:`streamkit.model.data_sources`), PCM audio's format and WAV file
(:mod:`streamkit.model.pcm`), and the JSON text of tool-call arguments
(:mod:`streamkit.model.tool_arguments`).
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, overload

import msgspec

from streamkit.model.json_values import copy_json

from .cache import CachePoint, cache_from_dict
from .data_sources import Base64Source, URLSource, source_from_dict
from .errors import MediaTypeError, ToolArgumentsError
from .extras import Extras, origin_of
from .fragments import TextBuffer
from .ids import new_id
from .limits import shorten
from .partial_json import PartialJSON, PartialJSONError
from .pcm import DEFAULT_PCM_RATE, PCM_RATE_ASSUMED, PCMFormat, is_pcm, pcm_format, wav_file
from .tool_arguments import arguments_text, decode_arguments

__all__ = [
    "DEFAULT_PCM_RATE",
    "PCM_RATE_ASSUMED",
    "SERVER_CALL",
    "Base64Source",
    "Block",
    "Citation",
    "ContentBlock",
    "DataBlock",
    "ModelT",
    "PCMFormat",
    "RawBlock",
    "TextBlock",
    "ThinkingBlock",
    "ToolCallBlock",
    "ToolResultBlock",
    "URLSource",
    "arguments_text",
    "block_from_dict",
    "decode_arguments",
    "new_block_id",
    "pcm_format",
]

if TYPE_CHECKING:  # pydantic is imported by whoever passes a model, not by `import streamkit`
    from pydantic import BaseModel

ModelT = TypeVar("ModelT", bound="BaseModel")


#: The metadata key marking a :class:`ToolCallBlock` the provider ran itself
#: (:attr:`ToolCallBlock.server_side`).
SERVER_CALL = "server"


def new_block_id(prefix: str = "blk") -> str:
    """A fresh unique id for blocks whose provider gave none (see :mod:`streamkit.model.ids`)."""
    return new_id(prefix)


class Block:
    """Common base of every content block: ``id``, ``type`` and ``metadata``."""

    __slots__ = ("_cache", "id", "metadata")
    type: ClassVar[str] = ""

    id: str
    metadata: dict[str, Any]

    @property
    def cache(self) -> CachePoint | None:
        """The prompt-cache point after this block (see :mod:`streamkit.model.cache`)."""
        return getattr(self, "_cache", None)

    @cache.setter
    def cache(self, point: CachePoint | None) -> None:
        self._cache = point

    def to_dict(self) -> dict[str, Any]:
        """A plain, JSON-ready dict of this block (lossless)."""
        raise NotImplementedError

    def copy(self) -> Block:
        """An independent copy (fragment buffers are not shared)."""
        return block_from_dict(self.to_dict())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Block):
            return NotImplemented
        return type(self) is type(other) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self.to_dict().items() if k != "type")
        return f"{type(self).__name__}({shorten(fields)})"

    def _base_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "id": self.id}
        if self.metadata:
            out["metadata"] = self.metadata
        if self.cache is not None:
            out["cache"] = self.cache.to_dict()
        origin = origin_of(self.metadata)
        if origin is not None:  # the wire the extras came from (see streamkit.model.extras)
            out["origin"] = origin
        return out

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        """pydantic validates a block (``Block``: any block) from its ``to_dict()``
        shape and dumps it with ``to_dict()`` (see :mod:`streamkit.model.schema`,
        imported only now)."""
        from .schema import block_schema

        return block_schema(cls, handler, block_from_dict, python_dict)

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: Any, handler: Any) -> Any:
        """The JSON Schema of the ``to_dict()`` shape."""
        from .schema import json_schema

        return json_schema(schema, handler)


class Citation(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A source a text block cites, whatever the wire called its parts.

    Every wire names the same few facts differently (Anthropic ``url`` and
    ``cited_text``, Gemini ``uri`` and ``startIndex``, OpenAI ``url_citation``
    annotations with ``start_index``...); the wire's reader fills these fields,
    so nothing above the providers reads a provider's keys. ``start`` / ``end``
    are offsets into the block's text when the wire gives them (characters,
    or the wire's own unit: Gemini counts bytes), ``document_index`` the
    document of the request it points into, ``title`` the page's or the
    document's title (a file's name when it has no other). ``raw`` is the provider's own
    object, written back verbatim to ``wire`` (the wire format it came from)
    and to no other.
    """

    url: str | None = None
    title: str | None = None
    cited_text: str | None = None
    start: int | None = None
    end: int | None = None
    document_index: int | None = None
    media_type: str | None = None
    """Of the cited document, when the wire says (a file citation)."""
    raw: dict[str, Any] = msgspec.field(default_factory=dict)
    wire: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The citation as a plain, JSON-ready dict (unset fields left out)."""
        return {field: value for field in self.__struct_fields__
                if (value := getattr(self, field)) is not None and value != {}}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Citation:
        """The citation :meth:`to_dict` gave."""
        return cls(**{key: copy_json(value) for key, value in d.items()
                      if key in cls.__struct_fields__})


class TextBlock(Block):
    """Text the model wrote. ``refusal=True`` marks a refusal (OpenAI's ``refusal``
    field, or a safety refusal), so it is never mistaken for an answer."""

    __slots__ = ("_text", "citations", "refusal")
    type: ClassVar[str] = "text"

    def __init__(
        self,
        text: str = "",
        *,
        id: str | None = None,
        citations: list[Citation] | None = None,
        refusal: bool = False,
        metadata: dict[str, Any] | None = None,
        cache: CachePoint | None = None,
    ) -> None:
        self.id = id or new_block_id("text")
        self.cache = cache
        self._text = TextBuffer(text)
        self.citations: list[Citation] = citations if citations is not None else []
        self.refusal = refusal
        self.metadata = metadata if metadata is not None else {}

    @property
    def text(self) -> str:
        """The whole text so far."""
        return self._text.read()

    @text.setter
    def text(self, value: str) -> None:
        self._text.replace(value)

    def text_since(self, offset: int) -> str:
        """The text from character ``offset`` on: what was added since a reader
        that has ``offset`` characters read last. Costs the characters returned,
        whoever holds the text read before (reading :attr:`text` after every
        delta copies the whole text when the previous value is still held)."""
        return self._text.read_from(offset)

    def to_dict(self) -> dict[str, Any]:
        out = self._base_dict()
        out["text"] = self.text
        if self.citations:
            out["citations"] = [citation.to_dict() for citation in self.citations]
        if self.refusal:
            out["refusal"] = True
        return out


class ThinkingBlock(Block):
    """The model's reasoning.

    ``signature`` is the provider's integrity token for the reasoning (Anthropic
    ``signature``, Gemini ``thoughtSignature``): it must be sent back verbatim.
    ``encrypted`` holds opaque reasoning the provider will not show (Anthropic
    ``redacted_thinking`` data, OpenAI ``encrypted_content``), also to be sent
    back verbatim; ``redacted=True`` says the visible text was withheld.
    """

    __slots__ = ("_thinking", "encrypted", "redacted", "signature")
    type: ClassVar[str] = "thinking"

    def __init__(
        self,
        thinking: str = "",
        *,
        id: str | None = None,
        signature: str | None = None,
        encrypted: str | None = None,
        redacted: bool = False,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        self.id = id or new_block_id("think")
        self._thinking = TextBuffer(thinking)
        self.signature = signature
        self.encrypted = encrypted
        self.redacted = redacted
        self.metadata = metadata if metadata is not None else {}

    @property
    def thinking(self) -> str:
        """The whole reasoning text so far."""
        return self._thinking.read()

    @thinking.setter
    def thinking(self, value: str) -> None:
        self._thinking.replace(value)

    def thinking_since(self, offset: int) -> str:
        """The reasoning from character ``offset`` on (see :meth:`TextBlock.text_since`)."""
        return self._thinking.read_from(offset)

    def to_dict(self) -> dict[str, Any]:
        out = self._base_dict()
        out["thinking"] = self.thinking
        if self.signature is not None:
            out["signature"] = self.signature
        if self.encrypted is not None:
            out["encrypted"] = self.encrypted
        if self.redacted:
            out["redacted"] = True
        return out


class ToolCallBlock(Block):
    """A call the model asks you to run.

    ``input`` is the raw JSON argument text exactly as streamed: it is the
    source of truth (a cut-off stream leaves it unparseable, and it is kept).
    :meth:`arguments` parses it; ``incomplete=True`` marks arguments that the
    stream cut off (e.g. at max_tokens).
    """

    __slots__ = ("_input", "_outputs", "_partial", "_partial_error", "_partial_fed", "incomplete",
                 "name")
    type: ClassVar[str] = "tool_call"

    def __init__(
        self,
        id: str | None = None,
        name: str = "",
        input: str = "",
        *,
        incomplete: bool = False,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        self.id = id or new_block_id("call")
        self.name = name
        self._input = TextBuffer(input)
        self._partial: PartialJSON | None = None
        self._partial_fed = 0
        self._partial_error: PartialJSONError | None = None
        self._outputs: dict[Any, Any] | None = None  # partial_output's state per model
        self.incomplete = incomplete
        self.metadata = metadata if metadata is not None else {}

    @property
    def input(self) -> str:
        """The raw JSON argument text so far."""
        return self._input.read()

    @input.setter
    def input(self, value: str) -> None:
        self._input.replace(value)
        self._partial = None  # the text was replaced, not extended: parse afresh
        self._partial_fed = 0
        self._partial_error = None

    def input_since(self, offset: int) -> str:
        """The argument text from character ``offset`` on (see
        :meth:`TextBlock.text_since`)."""
        return self._input.read_from(offset)

    @property
    def server_side(self) -> bool:
        """Whether the provider ran this call itself (a web search, code
        execution, an MCP tool): its result comes from the provider, never from
        you, and no other API can be asked to answer it
        (``metadata[SERVER_CALL]``, set by the reader of the wire that said so)."""
        return bool(self.metadata.get(SERVER_CALL))

    @property
    def partial_arguments(self) -> Any:
        """The best-known arguments so far, cheap to read after every delta; a
        view for UIs, so it never raises.

        An incremental parser consumes only the text added since the last read
        (:meth:`input_since`), so reading after every fragment costs O(total
        bytes) over a stream. Objects and arrays appear as they open, strings
        may be partial, numbers and literals appear only once complete, keys
        only once named (see :class:`~streamkit.model.partial_json.PartialJSON`).
        Once the block is complete the value equals ``json.loads(input)``.

        When the text stops being JSON (or breaks a limit), the value stays the
        last one the valid text gave, and :attr:`partial_error` says where and
        why; :meth:`arguments` raises :class:`~streamkit.model.errors.ToolArgumentsError`
        for that text. Do not mutate the returned object.
        """
        parser = self._partial
        if parser is None:
            parser = self._partial = PartialJSON()
        if self._partial_error is None:
            new = self._input.read_from(self._partial_fed)
            if new:
                self._partial_fed += len(new)
                try:
                    parser.feed(new)
                except PartialJSONError as error:
                    self._partial_error = error
        return parser.value

    @property
    def partial_error(self) -> PartialJSONError | None:
        """Why the argument text streamed so far is not JSON (the offset of the
        bad character, the reason), or ``None`` while it is valid (complete or
        not). A UI shows :attr:`partial_arguments`, the last good value, and
        says that the text went bad."""
        _ = self.partial_arguments
        return self._partial_error

    @property
    def partial_parser(self) -> PartialJSON:
        """The incremental parser behind :attr:`partial_arguments` (for
        ``is_complete(path)`` / ``open_path``), brought up to date (after a
        :attr:`partial_error` its ``feed`` raises that error again)."""
        _ = self.partial_arguments
        assert self._partial is not None
        return self._partial

    def partial_output(self, model: builtins.type[ModelT]) -> ModelT:
        """The arguments so far as a partial ``model``, for a tool card that
        fills in: every field optional (``None`` until known), strings as far
        as they came, numbers and literals once complete (see
        :mod:`streamkit.model.structured.partial`). Cheap to call after every delta: it
        reads only what the incremental parser of :attr:`partial_arguments`
        added, and returns the same object while nothing changed. Once the
        arguments are complete and valid it is the whole ``model``
        (``== arguments(model)``). It never raises for arguments that are cut
        off, broken or invalid: it shows what validates, and
        :meth:`arguments` says what is wrong."""
        from .structured.partial import block_partial_output

        return block_partial_output(self, model)

    @overload
    def arguments(self) -> Any: ...
    @overload
    def arguments(self, model: builtins.type[ModelT]) -> ModelT: ...

    def arguments(self, model: builtins.type[BaseModel] | None = None) -> Any:
        """The parsed arguments; ``arguments(Model)`` validates into a pydantic model.

        Empty input means no arguments (``{}``). Text that is not JSON, or that
        breaks a limit (nested deeper than
        :data:`~streamkit.model.limits.MAX_JSON_DEPTH`, an integer of more digits than
        Python converts), raises :class:`~streamkit.model.errors.ToolArgumentsError`
        naming the tool and offset; nothing else escapes but pydantic's
        ``ValidationError`` for ``arguments(Model)``.
        """
        text = self.input
        value = _decode_arguments(self, text) if text.strip() else {}
        if model is None:
            return value
        return model.model_validate(value)

    def to_dict(self) -> dict[str, Any]:
        out = self._base_dict()
        out["name"] = self.name
        out["input"] = self.input
        if self.incomplete:
            out["incomplete"] = True
        return out


class DataBlock(Block):
    """Binary content: audio, images, files; inline (:class:`Base64Source`) or a URL.

    ``transcript`` holds the text of streamed speech (OpenAI audio), empty otherwise.
    For PCM audio (``audio/pcm;rate=24000``, ``audio/L16;codec=pcm;rate=24000``)
    :attr:`duration` and :meth:`to_wav` work from the raw samples. A PCM media
    type without a ``rate`` is taken as :data:`DEFAULT_PCM_RATE` (24 kHz), and
    the block says so: ``metadata["pcm_rate_assumed"] = 24000``.
    """

    __slots__ = ("_transcript", "name", "source")
    type: ClassVar[str] = "data"

    def __init__(
        self,
        id: str | None = None,
        media_type: str = "",
        name: str | None = None,
        source: Base64Source | URLSource | None = None,
        *,
        transcript: str = "",
        metadata: dict[str, Any] | None = None,
        cache: CachePoint | None = None,
    ) -> None:
        self.id = id or new_block_id("data")
        self.cache = cache
        self.source: Base64Source | URLSource = (
            source if source is not None else Base64Source(b"", media_type)
        )
        if media_type and not self.source.media_type:
            self.source.media_type = media_type
        self.name = name
        self._transcript = TextBuffer(transcript)
        self.metadata = metadata if metadata is not None else {}
        audio = pcm_format(self.source.media_type)
        if audio is not None and audio.rate_assumed:
            self.metadata.setdefault(PCM_RATE_ASSUMED, audio.rate)

    @property
    def media_type(self) -> str:
        """The IANA media type, with parameters (``audio/pcm;rate=24000``)."""
        return self.source.media_type

    @property
    def data(self) -> bytes:
        """The raw bytes (no base64 round trip); empty for a URL source. A copy
        of every byte after an append (``bytes`` cannot grow): read
        :attr:`byte_length` for the size and :meth:`data_since` for what came
        since, when reading after every delta."""
        return self.source.raw if isinstance(self.source, Base64Source) else b""

    @property
    def byte_length(self) -> int:
        """How many bytes the block holds (0 for a URL source), without a copy."""
        return len(self.source) if isinstance(self.source, Base64Source) else 0

    def data_since(self, offset: int) -> bytes:
        """The bytes from ``offset`` on: what came since a reader (an audio
        player) that has ``offset`` bytes read last; costs the bytes returned."""
        if not isinstance(self.source, Base64Source):
            return b""
        return self.source.read_from(offset)

    @property
    def transcript(self) -> str:
        """The transcript of streamed speech so far."""
        return self._transcript.read()

    @transcript.setter
    def transcript(self, value: str) -> None:
        self._transcript.replace(value)

    def transcript_since(self, offset: int) -> str:
        """The transcript from character ``offset`` on (see :meth:`TextBlock.text_since`)."""
        return self._transcript.read_from(offset)

    def append_bytes(self, data: bytes) -> None:
        """Add raw bytes at the end (only for inline sources)."""
        if not isinstance(self.source, Base64Source):
            raise TypeError(f"data block {self.id!r} has a URL source; cannot append bytes")
        self.source.append(data)

    @property
    def is_pcm(self) -> bool:
        """Whether the media type names raw 16-bit PCM samples."""
        return is_pcm(self.media_type)

    @property
    def pcm_format(self) -> PCMFormat | None:
        """Rate, channels and whether the rate was assumed, for PCM audio with a
        usable format; ``None`` otherwise (see :func:`pcm_format`)."""
        return pcm_format(self.media_type)

    @property
    def duration(self) -> float | None:
        """Seconds of audio for PCM media types; ``None`` for other media and for
        a PCM type whose ``rate`` or ``channels`` is not a positive whole number."""
        audio = self.pcm_format
        if audio is None:
            return None
        return self.byte_length / (2 * audio.rate * audio.channels)

    def to_wav(self) -> bytes:
        """A WAV file of this PCM audio (16-bit little-endian samples, as the
        providers send them, Gemini's ``audio/L16`` included). Raises
        :class:`~streamkit.model.errors.MediaTypeError` naming the media type when the
        block is not PCM or its rate / channels are unusable."""
        audio = self.pcm_format
        if audio is None:
            what = "is not PCM audio" if not self.is_pcm else "has no usable rate / channels"
            raise MediaTypeError(
                f"to_wav() needs PCM audio with a positive whole rate and channels; block "
                f"{self.id!r} {what}: {shorten(self.media_type, 100)!r}")
        return wav_file(self.data, audio)

    def __repr__(self) -> str:  # never base64-encode a whole audio stream for a repr
        return (f"DataBlock(id={self.id!r}, source={self.source!r}, name={self.name!r}, "
                f"transcript={shorten(self.transcript, 80)!r})")

    def to_dict(self) -> dict[str, Any]:
        out = self._base_dict()
        out["source"] = self.source.to_dict()
        if self.name is not None:
            out["name"] = self.name
        transcript = self.transcript
        if transcript:
            out["transcript"] = transcript
        return out


class ToolResultBlock(Block):
    """The result of a tool call, for conversation history."""

    __slots__ = ("call_id", "content", "is_error")
    type: ClassVar[str] = "tool_result"

    def __init__(
        self,
        call_id: str,
        content: list[TextBlock | DataBlock] | None = None,
        is_error: bool = False,
        *,
        id: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        self.id = id or new_block_id("result")
        self.call_id = call_id
        self.content: list[TextBlock | DataBlock] = content if content is not None else []
        self.is_error = is_error
        self.metadata = metadata if metadata is not None else {}

    def to_dict(self) -> dict[str, Any]:
        out = self._base_dict()
        out["call_id"] = self.call_id
        out["content"] = [b.to_dict() for b in self.content]
        if self.is_error:
            out["is_error"] = True
        return out


class RawBlock(Block):
    """A provider item streamkit does not model (a web-search call, an MCP call,
    a code-interpreter run...), kept whole so a response can be sent back."""

    __slots__ = ("data", "kind")
    type: ClassVar[str] = "raw"

    def __init__(
        self,
        kind: str,
        data: dict[str, Any] | None = None,
        *,
        id: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        self.id = id or new_block_id("raw")
        self.kind = kind
        self.data: dict[str, Any] = data if data is not None else {}
        self.metadata = metadata if metadata is not None else {}

    def to_dict(self) -> dict[str, Any]:
        out = self._base_dict()
        out["kind"] = self.kind
        out["data"] = self.data
        return out


ContentBlock = TextBlock | ThinkingBlock | ToolCallBlock | DataBlock | ToolResultBlock | RawBlock


def _decode_arguments(call: ToolCallBlock, text: str) -> Any:
    """:func:`decode_arguments`; every failure is a
    :class:`~streamkit.model.errors.ToolArgumentsError` naming the call."""
    try:
        return decode_arguments(text)
    except PartialJSONError as error:
        raise _arguments_error(call, text, error.offset, error.message) from error


def _arguments_error(call: ToolCallBlock, text: str, offset: int,
                     reason: str) -> ToolArgumentsError:
    return ToolArgumentsError(
        f"tool call {shorten(call.name, 100)!r} (id {shorten(call.id, 100)!r}) has invalid "
        f"JSON arguments at offset {offset}: {shorten(reason, 300)}",
        tool=call.name, offset=offset, text=text)


def block_from_dict(d: dict[str, Any]) -> ContentBlock:
    """Rebuild a block from :meth:`Block.to_dict` output (the ``type`` tag decides)."""
    block = _block_from_dict(d)
    block.cache = cache_from_dict(d.get("cache"))
    return block


def _block_from_dict(d: dict[str, Any]) -> ContentBlock:
    kind = d.get("type")
    meta = copy_json(d.get("metadata", {}))
    origin = d.get("origin")
    if isinstance(origin, str):
        meta = Extras(origin, meta)
    if kind == "text":
        citations = [Citation.from_dict(c) for c in d.get("citations", [])]
        return TextBlock(d.get("text", ""), id=d["id"], citations=citations,
                         refusal=d.get("refusal", False), metadata=meta)
    if kind == "thinking":
        return ThinkingBlock(d.get("thinking", ""), id=d["id"], signature=d.get("signature"),
                             encrypted=d.get("encrypted"), redacted=d.get("redacted", False),
                             metadata=meta)
    if kind == "tool_call":
        return ToolCallBlock(d["id"], d.get("name", ""), d.get("input", ""),
                             incomplete=d.get("incomplete", False), metadata=meta)
    if kind == "data":
        return DataBlock(d["id"], name=d.get("name"), source=source_from_dict(d["source"]),
                         transcript=d.get("transcript", ""), metadata=meta)
    if kind == "tool_result":
        content = [block_from_dict(c) for c in d.get("content", [])]
        parts = [c for c in content if isinstance(c, (TextBlock, DataBlock))]
        return ToolResultBlock(d["call_id"], parts, d.get("is_error", False), id=d["id"],
                               metadata=meta)
    if kind == "raw":
        return RawBlock(d["kind"], copy_json(d.get("data", {})), id=d["id"], metadata=meta)
    raise ValueError(f"unknown block type {kind!r} in {sorted(d)}")


def python_dict(block: Block) -> dict[str, Any]:
    """``block.to_dict()`` with inline data as ``bytes`` (no base64 round trip):
    what pydantic dumps in Python mode."""
    out = block.to_dict()
    if isinstance(block, DataBlock) and isinstance(block.source, Base64Source):
        out["source"] = {**out["source"], "data": block.data}
    elif isinstance(block, ToolResultBlock):
        out["content"] = [python_dict(part) for part in block.content]
    return out
