"""OpenAI Chat Completions (``chat.completion.chunk``) and every vendor that copies it.

One parser serves OpenAI and the OpenAI-compatible vendors; their quirks are
listed in :mod:`streamkit.providers.openai_chat.dialects` and all of them are handled
whatever ``dialect`` says (a dialect only tunes defaults), because a proxy can
put any vendor behind any name.

How the wire maps to blocks, per choice (``choices[].index`` is the event's
``choice``):

- ``content`` -> text, ``refusal`` -> a separate ``TextBlock(refusal=True)``,
  reasoning strings (``reasoning_content`` / ``reasoning``) -> thinking. These
  are *sequential*: a fragment continues the current block when it is of the
  same kind and opens a new block otherwise, so reasoning that resumes after
  text (interleaved thinking) stays in order. Empty strings never open blocks.
- OpenRouter ``reasoning_details[]`` are keyed by their own ``index`` (one
  thinking block each) and carry signatures and encrypted reasoning; when a
  chunk's details hold the reasoning text, the duplicate ``reasoning`` string of
  the same chunk is skipped.
- Mistral's list ``content`` (``thinking`` / ``text`` chunks) -> thinking / text.
- ``tool_calls[]`` are keyed by ``index`` within the choice, never by id: id,
  type and name are set once, arguments appended; a fragment without an index
  continues the latest call unless it carries an id not seen before.
- ``audio`` -> one ``DataBlock`` per choice: base64 decoded per chunk into
  ``DataDelta`` bytes, ``transcript`` -> ``TranscriptDelta``, ``id`` and
  ``expires_at`` -> block metadata (``audio_id`` set once, ``expires_at``
  replaced, also after the finish chunk).
- ``logprobs.content`` / ``.refusal`` go into a list the parser owns, put once
  into the text (refusal) block's ``metadata["logprobs"]`` and extended in
  place: O(1) per chunk, and reachable from the block.
- Groq's ``channel`` -> ``metadata["channel"]`` of the block the chunk wrote to,
  replaced when it changes (never concatenated).

Terminator: only ``[DONE]``. The finish-reason chunk is *not* the end, because
OpenAI sends the audio ``expires_at``, the include_usage chunk and the gpt-5
moderation chunk after it. So every block stays open (addressable) until
``[DONE]``, where all blocks are closed and each choice gets its
``ResponseEnd`` with the finish reason seen earlier. Without ``[DONE]``,
:meth:`OpenAIChatParser.finish` does the same with ``terminated=False``.

Lossless by default: response-level extras (``system_fingerprint``,
``service_tier``, ``created``, ``x_groq``, OpenRouter's ``provider``,
``prompt_filter_results``, the moderation object, any unknown top-level key)
go into response metadata once and again only when they change; choice-level
extras (``native_finish_reason``, vLLM's ``stop_reason``, Azure's
``content_filter_results``) likewise per choice; unknown *delta* fields,
unrecognised content parts or reasoning details, post-``[DONE]`` payloads and
unknown event types are appended to ``metadata["extras"][field]`` (consecutive
repeats collapsed, so a constant per-chunk field never grows it). Dropped on
purpose: ``obfuscation`` padding, the defaults ``role: "assistant"`` and tool
``type: "function"``, and later differing ``id`` / ``created`` values (the first
real one wins; some vendors send a new id on every chunk).
"""

from __future__ import annotations

import binascii
from collections.abc import Sequence
from typing import Any, ClassVar, Final, Literal

import msgspec

from ...blocks import Block, DataBlock, TextBlock, ThinkingBlock, ToolCallBlock
from ...errors import ProtocolError
from ...events import (
    BlockDelta,
    BlockEnd,
    BlockStart,
    CitationDelta,
    DataDelta,
    ErrorEvent,
    Event,
    MetadataAppendDelta,
    MetadataDelta,
    ResponseEnd,
    ResponseMetadata,
    ResponseStart,
    SignatureDelta,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
    TranscriptDelta,
    UsageUpdate,
)
from ...finish import FinishReason
from ...usage import ChatUsage
from ..base import Framing, decode_json
from .dialects import REASONING_FIELDS, Dialect, get_dialect

__all__ = ["OpenAIChatParser", "map_usage"]

# Sequential block kinds (what the latest content/refusal/reasoning fragment wrote to).
_NONE: Final = 0
_TEXT: Final = 1
_THINKING: Final = 2
_REFUSAL: Final = 3

# Top-level keys handled elsewhere (or deliberately not compared per chunk).
_TOP_SKIP: Final = frozenset({"id", "model", "object", "created", "choices", "usage",
                              "obfuscation"})
# Choice keys read directly.
_CHOICE_SKIP: Final = frozenset({"index", "delta"})
# Delta keys with a handler; anything else non-null goes to ``extras``.
_DELTA_KNOWN: Final = frozenset({
    "role", "content", "refusal", "tool_calls", "function_call", "audio",
    "reasoning_details", "channel", "text", "annotations", *REASONING_FIELDS,
})
_TOOL_KNOWN: Final = frozenset({"index", "id", "type", "function", "custom"})
_DETAIL_TEXT: Final = {"reasoning.text": "text", "reasoning.summary": "summary"}
_DETAIL_KNOWN: Final = frozenset({"type", "index", "id", "text", "summary", "signature",
                                   "data"})
_LEGACY_CALL: Final = -1  # tool key of the legacy ``delta.function_call``
_DONE_MARKERS: Final = ("[DONE]", b"[DONE]")
_MISSING: Final = object()
_JSON_ENCODE = msgspec.json.encode


# The hot path: a chunk that only continues the text, or one tool call's arguments,
# of one choice. Decoding into
# these strict Structs is about twice as fast as a dict decode and skips the
# lossless key-by-key walk; any other shape (a new key, a finish reason, usage,
# logprobs, a role) fails validation and takes the general path, so nothing is
# lost.
class _FastFunction(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    arguments: str


class _FastToolCall(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    index: int
    function: _FastFunction


class _FastDelta(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    content: str | None = None
    tool_calls: list[_FastToolCall] | None = None


class _FastChoice(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    delta: _FastDelta
    index: int = 0
    logprobs: None = None
    finish_reason: None = None


class _FastChunk(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    choices: list[_FastChoice]
    id: Any = None  # after the first chunk, id / model / created are not re-read
    object: Literal["chat.completion.chunk"] = "chat.completion.chunk"
    created: Any = None
    model: Any = None
    system_fingerprint: str | None = None
    service_tier: str | None = None
    obfuscation: Any = None  # padding, ignored
    usage: None = None


_FAST_DECODE = msgspec.json.Decoder(_FastChunk).decode


class _Tool:
    """One tool call of a choice, keyed by its ``index`` (or a synthetic key)."""

    __slots__ = ("block", "generated_id", "id", "late_name", "meta", "name", "type")

    def __init__(self) -> None:
        self.block: int | None = None  # block index once opened
        self.id = ""
        self.name = ""
        self.type: str | None = None
        self.meta: dict[str, Any] = {}
        self.generated_id = False  # the block was opened before the provider gave an id
        self.late_name = False  # the name arrived after the block opened


class _Reasoning:
    """One OpenRouter ``reasoning_details`` entry (keyed by its ``index``)."""

    __slots__ = ("block", "block_id", "encrypted", "meta", "visible")

    def __init__(self) -> None:
        self.block: int | None = None
        self.block_id = ""
        self.meta: dict[str, Any] = {}
        self.encrypted: list[str] = []  # encrypted data that arrived after the block opened
        self.visible = False


class _Choice:
    """Parser state of one choice: which provider item maps to which block index."""

    __slots__ = (
        "audio", "audio_id", "audio_meta", "b64_rest", "channel", "channels", "details",
        "ended", "extras", "filters", "finish_reason", "has_refusal", "has_text", "has_tool",
        "index", "last_tool", "meta", "next_index", "open", "refusal_block",
        "seq_index", "seq_kind", "synthetic", "text_block", "tool_ids", "tools", "touched",
    )

    def __init__(self, index: int) -> None:
        self.index = index
        self.next_index = 0
        self.open: list[int] = []  # open block indexes, in opening order
        self.seq_kind = _NONE
        self.seq_index = -1
        self.text_block: int | None = None  # latest normal text block
        self.refusal_block: int | None = None
        self.touched: int | None = None  # block the current chunk wrote to
        self.tools: dict[int, _Tool] = {}
        self.tool_ids: dict[str, _Tool] = {}
        self.last_tool: _Tool | None = None
        self.synthetic = 0
        self.details: dict[int, _Reasoning] = {}
        self.audio: int | None = None
        self.audio_id: str | None = None
        self.audio_meta: dict[str, Any] = {}
        self.b64_rest = ""
        self.channel: Any = None
        self.channels: dict[int, Any] = {}
        self.meta: dict[str, Any] = {}
        self.extras: dict[str, list[Any]] | None = None
        self.filters: list[Any] | None = None
        self.finish_reason: str | None = None
        self.has_text = False
        self.has_refusal = False
        self.has_tool = False
        self.ended = False


def _count(value: Any) -> int | None:
    """A token count, or ``None`` when absent or not a number (never a made-up 0)."""
    if type(value) is int:
        return value
    if type(value) is float and value.is_integer():
        return int(value)
    return None


def _dict(value: Any) -> dict[str, Any]:
    return value if type(value) is dict else {}


def map_usage(raw: dict[str, Any]) -> ChatUsage:
    """Map a Chat Completions usage object (any vendor's) to :class:`ChatUsage`.

    Cached input: ``prompt_tokens_details.cached_tokens``, else DeepSeek's
    ``prompt_cache_hit_tokens``, else Moonshot's top-level ``cached_tokens``.
    Audio: the sum of prompt and completion audio tokens when both are given.
    Everything (``cost``, cache misses, Groq timings) stays in ``raw``.
    """
    get = raw.get
    prompt = _dict(get("prompt_tokens_details") or get("input_tokens_details"))
    completion = _dict(get("completion_tokens_details") or get("output_tokens_details"))
    input_tokens = _count(get("prompt_tokens"))
    if input_tokens is None:
        input_tokens = _count(get("input_tokens"))
    output_tokens = _count(get("completion_tokens"))
    if output_tokens is None:
        output_tokens = _count(get("output_tokens"))
    cached = _count(prompt.get("cached_tokens"))
    if cached is None:
        cached = _count(get("prompt_cache_hit_tokens"))
    if cached is None:
        cached = _count(get("cached_tokens"))
    creation = _count(prompt.get("cache_write_tokens"))
    if creation is None:
        creation = _count(prompt.get("cache_creation_tokens"))
    if creation is None:
        creation = _count(get("cache_creation_input_tokens"))
    reasoning = _count(completion.get("reasoning_tokens"))
    if reasoning is None:
        reasoning = _count(get("reasoning_tokens"))
    audio_in = _count(prompt.get("audio_tokens"))
    audio_out = _count(completion.get("audio_tokens"))
    if audio_in is None or audio_out is None:
        audio = audio_out if audio_in is None else audio_in
    else:
        audio = audio_in + audio_out
    return ChatUsage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=_count(get("total_tokens")),
        cached_tokens=cached,
        cache_creation_tokens=creation,
        reasoning_tokens=reasoning,
        audio_tokens=audio,
        raw=raw,
    )


def _error_event(error: Any, raw: Any) -> ErrorEvent:
    """An :class:`ErrorEvent` from an OpenAI-style error object (or anything else).

    A numeric ``code`` (OpenRouter sends the HTTP status there) becomes the
    ``status`` too; ``code`` is always a string.
    """
    if not isinstance(error, dict):
        return ErrorEvent(message=str(error), raw=raw)
    message = error.get("message")
    code = error.get("code")
    status = error.get("status")
    if type(status) is not int:
        status = None
    if type(code) is int and status is None and 100 <= code <= 599:
        status = code
    error_type = error.get("type")
    if error_type is None and isinstance(error.get("status"), str):
        error_type = error["status"]
    return ErrorEvent(
        message=str(message) if message is not None else _JSON_ENCODE(error).decode(),
        code=str(code) if code is not None else None,
        error_type=str(error_type) if error_type is not None else None,
        status=status,
        raw=raw,
    )


class OpenAIChatParser:
    """Chat Completions chunks -> :mod:`streamkit.events` (see the module docstring).

    ``dialect`` names an OpenAI-compatible vendor (:mod:`.dialects`); it only
    tunes defaults. ``audio_media_type`` is the media type of ``delta.audio``
    data: the API does not say it in the stream, the request's
    ``audio.format`` does (``pcm16`` -> ``audio/pcm;rate=24000``, the default).
    """

    name: ClassVar[str] = "openai-chat"
    framing: ClassVar[Framing] = "sse"

    def __init__(
        self, dialect: str | Dialect | None = None, audio_media_type: str = "audio/pcm;rate=24000"
    ) -> None:
        self.dialect = get_dialect(dialect)
        self.audio_media_type = audio_media_type
        self._reasoning_fields = self.dialect.reasoning_fields
        self._reasons = self.dialect.finish_reason_map()
        self._choices: dict[int, _Choice] = {}
        self._meta: dict[str, Any] = {}  # response-level metadata reported so far
        self._id: str | None = None
        self._model: str | None = None
        self._started = False  # choice 0's ResponseStart was emitted
        self._seen_chunk = False
        self._last_usage: Any = None
        self._errored = False
        self._done = False
        self._finished = False

    @property
    def done(self) -> bool:
        """Whether ``[DONE]`` has been seen."""
        return self._done

    # ------------------------------------------------------------ entry points

    def feed(self, data: bytes | str, event: str | None = None) -> list[Event]:
        """Events implied by one SSE payload (``event`` is the SSE event name)."""
        out: list[Event] = []
        self.feed_into([(event or "message", data)], out)
        return out

    def feed_into(self, payloads: Sequence[tuple[str, bytes | str]], out: list[Event]) -> None:
        """Append the events of several ``(SSE event type, data)`` payloads to ``out``.

        The pipeline calls this once per network chunk, so the per-token case
        costs no call per payload; ``out`` keeps the events of the payloads
        before one that raises.
        """
        for name, data in payloads:
            if name == "message" and self._seen_chunk and not self._done \
                    and not self._finished and data not in _DONE_MARKERS:
                try:
                    fast = _FAST_DECODE(data)
                except msgspec.DecodeError:  # any other shape (or bad JSON): general path
                    pass
                else:
                    events = self._fast_text(fast)
                    if events is not None:
                        out += events
                        continue
            out += self._payload(data, None if name == "message" else name)

    def _payload(self, data: bytes | str, event: str | None) -> list[Event]:
        """The general path for one payload."""
        if data in _DONE_MARKERS:
            return self._on_done()
        if self._finished:
            return []
        try:
            payload = decode_json(data, event)
        except ProtocolError:
            text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
            stripped = text.strip()
            if stripped == "[DONE]":
                return self._on_done()
            if not stripped:  # an empty keep-alive ``data:`` line
                return []
            raise
        if self._done:
            return self._after_done(payload, event)
        if type(payload) is not dict:
            return self._unknown_payload("payloads", payload)
        if event is not None and event != "message":
            return self._named_event(payload, event)
        obj = payload.get("object")
        if obj is not None and obj != "chat.completion.chunk" and not (
            type(obj) is str and obj.startswith("chat.completion")
        ):
            return self._other_object(payload, obj)
        return self._chunk(payload)

    def _fast_text(self, chunk: _FastChunk) -> list[Event] | None:
        """The events of a chunk that only continues text or one call's arguments,
        or ``None`` when the general path must decide (identity not known yet,
        changed extras, another block kind, a call's first fragment)."""
        if len(chunk.choices) != 1 or self._id is None or self._model is None:
            return None
        meta = self._meta
        fingerprint, tier = chunk.system_fingerprint, chunk.service_tier
        if (fingerprint is not None and meta.get("system_fingerprint") != fingerprint) or (
                tier is not None and meta.get("service_tier") != tier) or "created" not in meta:
            return None
        choice = chunk.choices[0]
        st = self._choices.get(choice.index)
        if st is None:
            return None
        delta = choice.delta
        content, calls = delta.content, delta.tool_calls
        if calls is None:
            if content is None or st.seq_kind != _TEXT:
                return None
            if not content:
                return []
            return [BlockDelta(index=st.seq_index, delta=TextDelta(content),
                               choice=choice.index)]
        if content is not None or len(calls) != 1 or st.channel is not None:
            return None
        key = calls[0].index
        tool = st.tools.get(key) if key >= 0 else None  # negative keys are synthetic
        if tool is None or tool.block is None:
            return None
        st.touched = tool.block
        arguments = calls[0].function.arguments
        if not arguments:
            return []
        return [BlockDelta(index=tool.block, delta=ToolInputDelta(arguments),
                           choice=choice.index)]

    def finish(self) -> list[Event]:
        """At a clean end of input: close every open block and, unless ``[DONE]``
        already did, end each choice with ``terminated=False`` and the finish
        reason the stream gave (``unknown`` if none)."""
        if self._finished or self._done:
            self._finished = True
            return []
        self._finished = True
        out: list[Event] = []
        self._close_all(out, terminated=False)
        return out

    # ------------------------------------------------------------ payload kinds

    def _chunk(self, p: dict[str, Any]) -> list[Event]:
        """A ``chat.completion.chunk`` (also one without ``object``)."""
        out: list[Event] = []
        if not self._seen_chunk:
            self._first_chunk(p, out)
        else:
            if self._id is None or self._model is None or "created" not in self._meta:
                self._fill_identity(p, out)
            meta = self._meta
            for key in p:
                if key in _TOP_SKIP:
                    continue
                value = p[key]
                if value is None or meta.get(key, _MISSING) == value:
                    continue
                self._top_level(key, value, p, out)
        choices = p.get("choices")
        if choices:
            if type(choices) is not list:
                self._extra(self._choice(0, out), "choices", choices, out)
            else:
                for c in choices:
                    self._choice_chunk(c, out)
        usage = p.get("usage")
        if usage is not None:
            self._usage(usage, out)
        return out

    def _choice_chunk(self, c: Any, out: list[Event]) -> None:
        """One ``choices[]`` entry: its delta, then its finish reason, logprobs, extras."""
        if type(c) is not dict:
            self._extra(self._choice(0, out), "choices", c, out)
            return
        ci = c.get("index", 0)
        if type(ci) is not int:
            ci = 0
        st = self._choices.get(ci)
        if st is None:
            st = self._choice(ci, out)
        delta = c.get("delta")
        if delta:
            content = delta.get("content") if type(delta) is dict else None
            if type(content) is str and len(delta) == 1:
                # the hot path: one text fragment, one event
                if content:
                    if st.seq_kind == _TEXT:
                        out.append(BlockDelta(index=st.seq_index, delta=TextDelta(content),
                                              choice=ci))
                    else:
                        self._text(st, content, out)
            elif type(delta) is dict:
                self._delta(st, delta, out)
            else:
                self._extra(st, "delta", delta, out)
        for key in c:
            if key in _CHOICE_SKIP:
                continue
            value = c[key]
            if value is None:
                continue
            if key == "finish_reason":
                st.finish_reason = value if type(value) is str else str(value)
            elif key == "logprobs":
                self._logprobs(st, value, out)
            elif st.meta.get(key, _MISSING) != value:
                st.meta[key] = value
                out.append(ResponseMetadata(metadata={key: value}, choice=ci))

    def _named_event(self, p: dict[str, Any], event: str) -> list[Event]:
        """An SSE payload with an ``event:`` name: ``error`` (Groq) is an error;
        a named event carrying a chunk is parsed as one; anything else is kept."""
        if event == "error":
            self._errored = True
            out: list[Event] = []
            self._ensure_started(out)
            out.append(_error_event(p.get("error", p), p))
            return out
        if "choices" in p or p.get("object") == "chat.completion.chunk":
            return self._chunk(p)
        return self._unknown_payload("events", {"event": event, "data": p})

    def _other_object(self, p: dict[str, Any], obj: Any) -> list[Event]:
        """A payload whose ``object`` is not a chunk: vLLM's ``{"object": "error"}``
        is an error; anything else (Azure's content-filter frames have ``""``)
        creates no blocks: its extras go to metadata, its choices' filter
        results to ``metadata["content_filters"]`` of their choice."""
        out: list[Event] = []
        if obj == "error":
            self._errored = True
            self._ensure_started(out)
            out.append(_error_event(p.get("error", p), p))
            return out
        meta = self._meta
        for key in p:
            if key in _TOP_SKIP:
                continue
            value = p[key]
            if value is None or meta.get(key, _MISSING) == value:
                continue
            self._top_level(key, value, p, out)
        choices = p.get("choices")
        if type(choices) is list:
            for c in choices:
                if type(c) is not dict:
                    continue
                ci = c.get("index", 0)
                st = self._choice(ci if type(ci) is int else 0, out)
                entry = {k: v for k, v in c.items() if k != "index" and v is not None}
                if not entry:
                    continue
                if st.filters is None:
                    st.filters = [entry]
                    out.append(ResponseMetadata(metadata={"content_filters": st.filters},
                                                choice=st.index))
                else:
                    st.filters.append(entry)
        if obj != "":
            self._extra(self._choice(0, out), "objects", obj, out)
        return out

    def _on_done(self) -> list[Event]:
        """``[DONE]``: close every block, end every choice (``terminated=True``)."""
        if self._done or self._finished:
            return []
        self._done = True
        out: list[Event] = []
        self._close_all(out, terminated=True)
        return out

    def _after_done(self, payload: Any, event: str | None) -> list[Event]:
        """Something after ``[DONE]``: an error still counts, the rest is kept raw."""
        if isinstance(payload, dict) and (event == "error" or payload.get("error") is not None):
            self._errored = True
            return [_error_event(payload.get("error", payload), payload)]
        return self._unknown_payload("after_done", payload)

    def _unknown_payload(self, key: str, value: Any) -> list[Event]:
        out: list[Event] = []
        self._extra(self._choice(0, out), key, value, out)
        return out

    # ------------------------------------------------------------ response level

    def _first_chunk(self, p: dict[str, Any], out: list[Event]) -> None:
        """The first chunk: choice 0's ``ResponseStart`` with the chunk's extras
        (``created`` included), or, when a content-filter frame already started
        the response, the same as ``ResponseMetadata``."""
        self._seen_chunk = True
        collected: dict[str, Any] = {}
        created = p.get("created")
        if created:  # 0 is a placeholder (Azure frames, id-less first chunks)
            collected["created"] = created
        errors: list[Event] = []
        for key in p:
            if key in _TOP_SKIP:
                continue
            value = p[key]
            if value is None:
                continue
            if key == "error":
                self._errored = True
                errors.append(_error_event(value, p))
            else:
                collected[key] = value
        self._meta.update(collected)
        ident = p.get("id")
        model = p.get("model")
        self._id = ident if type(ident) is str and ident else self._id
        self._model = model if type(model) is str and model else self._model
        if not self._started:
            self._started = True
            self._choices.setdefault(0, _Choice(0))
            out.append(ResponseStart(id=self._id, model=self._model, metadata=dict(self._meta)))
        else:
            for ci in self._choices:
                out.append(ResponseMetadata(metadata=dict(collected), id=self._id,
                                            model=self._model, choice=ci))
        out += errors
        groq = collected.get("x_groq")
        if groq is not None:
            self._x_groq_usage(groq, p, out)

    def _ensure_started(self, out: list[Event]) -> None:
        if not self._started:
            self._started = True
            out.append(ResponseStart(metadata=dict(self._meta)))
            self._choices.setdefault(0, _Choice(0))

    def _choice(self, ci: int, out: list[Event]) -> _Choice:
        """The state of choice ``ci``, announcing it with a ``ResponseStart``."""
        st = self._choices.get(ci)
        if st is not None:
            return st
        if ci == 0 or not self._started:
            self._ensure_started(out)
            st = self._choices.get(ci)
            if st is not None:
                return st
        st = self._choices[ci] = _Choice(ci)
        out.append(ResponseStart(id=self._id, model=self._model, metadata=dict(self._meta),
                                 choice=ci))
        return st

    def _fill_identity(self, p: dict[str, Any], out: list[Event]) -> None:
        """An id, model or ``created`` that the first chunk lacked (later differing
        ones are ignored: some vendors send a new id on every chunk)."""
        ident = p.get("id")
        model = p.get("model")
        created = p.get("created")
        new_id = ident if self._id is None and type(ident) is str and ident else None
        new_model = model if self._model is None and type(model) is str and model else None
        meta = {"created": created} if created and "created" not in self._meta else {}
        if new_id is None and new_model is None and not meta:
            return
        self._id = self._id or new_id
        self._model = self._model or new_model
        self._meta.update(meta)
        for ci in self._choices:
            out.append(ResponseMetadata(metadata=dict(meta), id=new_id, model=new_model,
                                        choice=ci))

    def _top_level(self, key: str, value: Any, p: dict[str, Any], out: list[Event]) -> None:
        """A top-level key that is new or changed after the first chunk."""
        if key == "error":
            self._errored = True
            self._ensure_started(out)
            out.append(_error_event(value, p))
            return
        self._meta[key] = value
        for ci in self._choices:
            out.append(ResponseMetadata(metadata={key: value}, choice=ci))
        if key == "x_groq":
            self._x_groq_usage(value, p, out)

    def _x_groq_usage(self, groq: Any, p: dict[str, Any], out: list[Event]) -> None:
        """Groq's older API put usage in ``x_groq.usage`` on the last chunk."""
        if type(groq) is dict and p.get("usage") is None:
            usage = groq.get("usage")
            if usage is not None:
                self._usage(usage, out)

    def _usage(self, usage: Any, out: list[Event]) -> None:
        """A usage report (cumulative; identical repeats are skipped). Always choice 0:
        usage covers the whole request, not one choice."""
        if type(usage) is not dict:
            self._extra(self._choice(0, out), "usage", usage, out)
            return
        if usage == self._last_usage:
            return
        self._last_usage = usage
        self._ensure_started(out)
        out.append(UsageUpdate(usage=map_usage(usage)))

    # ------------------------------------------------------------ blocks

    def _open(self, st: _Choice, block: Block, out: list[Event]) -> int:
        index = st.next_index
        st.next_index = index + 1
        st.open.append(index)
        st.touched = index
        out.append(BlockStart(index=index, block=block, choice=st.index))
        return index

    def _sequential(self, st: _Choice, kind: int, out: list[Event]) -> int:
        """The block a text / thinking / refusal fragment goes to: the current one
        when it is of that kind, else a new one."""
        if st.seq_kind == kind:
            st.touched = st.seq_index
            return st.seq_index
        block: Block
        if kind == _TEXT:
            block = TextBlock()
        elif kind == _REFUSAL:
            block = TextBlock(refusal=True)
        else:
            block = ThinkingBlock()
        index = self._open(st, block, out)
        st.seq_kind = kind
        st.seq_index = index
        if kind == _TEXT:
            st.text_block = index
            st.has_text = True
        elif kind == _REFUSAL:
            st.refusal_block = index
        return index

    def _text(self, st: _Choice, text: str, out: list[Event]) -> None:
        index = self._sequential(st, _TEXT, out)
        st.has_text = True
        out.append(BlockDelta(index=index, delta=TextDelta(text), choice=st.index))

    def _thinking(self, st: _Choice, text: str, out: list[Event]) -> None:
        index = self._sequential(st, _THINKING, out)
        out.append(BlockDelta(index=index, delta=ThinkingDelta(text), choice=st.index))

    def _refusal(self, st: _Choice, text: str, out: list[Event]) -> None:
        index = self._sequential(st, _REFUSAL, out)
        st.has_refusal = True
        out.append(BlockDelta(index=index, delta=TextDelta(text), choice=st.index))

    def _extra(self, st: _Choice, key: str, value: Any, out: list[Event]) -> None:
        """Keep something unrecognised in ``metadata["extras"][key]`` (a dict the
        parser owns, reported once and grown in place; consecutive repeats of the
        same value are collapsed)."""
        extras = st.extras
        if extras is None:
            extras = st.extras = {key: [value]}
            out.append(ResponseMetadata(metadata={"extras": extras}, choice=st.index))
            return
        values = extras.get(key)
        if values is None:
            extras[key] = [value]
        elif values[-1] != value:
            values.append(value)

    # ------------------------------------------------------------ delta fields

    def _delta(self, st: _Choice, delta: dict[str, Any], out: list[Event]) -> None:
        """Every delta but a lone text fragment. Reasoning is read before content
        (it precedes the answer when a chunk carries both)."""
        st.touched = None
        for key in delta:
            if key not in _DELTA_KNOWN and delta[key] is not None:
                self._extra(st, key, delta[key], out)
        role = delta.get("role")
        if role is not None and role != "assistant" and st.meta.get("role") != role:
            st.meta["role"] = role
            out.append(ResponseMetadata(metadata={"role": role}, choice=st.index))
        details = delta.get("reasoning_details")
        detail_text = self._reasoning_details(st, details, out) if details else False
        if not detail_text:
            self._reasoning_strings(st, delta, out)
        content = delta.get("content")
        text = delta.get("text")
        if content is not None:
            self._content(st, content, out)
        if type(text) is str and text:
            if content is None or content == "":
                self._text(st, text, out)
            elif text != content:
                self._extra(st, "text", text, out)
        refusal = delta.get("refusal")
        if refusal is not None:
            if type(refusal) is str:
                if refusal:
                    self._refusal(st, refusal, out)
            else:
                self._extra(st, "refusal", refusal, out)
        tool_calls = delta.get("tool_calls")
        if tool_calls:
            if type(tool_calls) is list:
                for fragment in tool_calls:
                    self._tool_call(st, fragment, out)
            else:
                self._extra(st, "tool_calls", tool_calls, out)
        function_call = delta.get("function_call")
        if function_call is not None:
            self._legacy_function_call(st, function_call, out)
        audio = delta.get("audio")
        if audio is not None:
            self._audio(st, audio, out)
        annotations = delta.get("annotations")
        if annotations:
            self._annotations(st, annotations, out)
        channel = delta.get("channel")
        if channel is not None:
            st.channel = channel
        if st.channel is not None and st.touched is not None:
            self._channel(st, st.touched, out)

    def _reasoning_strings(self, st: _Choice, delta: dict[str, Any], out: list[Event]) -> None:
        """``reasoning_content`` / ``reasoning``: a vendor that sends both with the
        same text (vLLM during its rename) gets it once."""
        first: str | None = None
        for field in self._reasoning_fields:
            value = delta.get(field)
            if value is None:
                continue
            if type(value) is not str:
                self._extra(st, field, value, out)
            elif value and value != first:
                self._thinking(st, value, out)
                if first is None:
                    first = value

    def _content(self, st: _Choice, content: Any, out: list[Event]) -> None:
        """``content``: a string, or Mistral's list of typed chunks."""
        if type(content) is str:
            if content:
                self._text(st, content, out)
            return
        parts = content if type(content) is list else [content]
        for part in parts:
            kind = part.get("type") if type(part) is dict else None
            if kind == "text" and type(part.get("text")) is str:
                if part["text"]:
                    self._text(st, part["text"], out)
            elif kind == "thinking":
                self._mistral_thinking(st, part.get("thinking"), out)
            else:
                self._extra(st, "content", part, out)

    def _mistral_thinking(self, st: _Choice, thinking: Any, out: list[Event]) -> None:
        """Mistral ``{"type": "thinking", "thinking": [{"type": "text", "text": ...}]}``."""
        if type(thinking) is str:
            if thinking:
                self._thinking(st, thinking, out)
            return
        for item in thinking if type(thinking) is list else [thinking]:
            text = item.get("text") if type(item) is dict else None
            if type(text) is str and item.get("type", "text") == "text":
                if text:
                    self._thinking(st, text, out)
            else:
                self._extra(st, "thinking", item, out)

    def _reasoning_details(self, st: _Choice, details: Any, out: list[Event]) -> bool:
        """OpenRouter ``reasoning_details[]``; returns whether any carried text (the
        chunk's ``reasoning`` string is then the same text and is skipped)."""
        if type(details) is not list:
            self._extra(st, "reasoning_details", details, out)
            return False
        any_text = False
        for detail in details:
            kind = detail.get("type") if type(detail) is dict else None
            if kind not in ("reasoning.text", "reasoning.summary", "reasoning.encrypted"):
                self._extra(st, "reasoning_details", detail, out)
                continue
            any_text = self._reasoning_detail(st, kind, detail, out) or any_text
        return any_text

    def _reasoning_detail(self, st: _Choice, kind: str, d: dict[str, Any],
                          out: list[Event]) -> bool:
        key = d.get("index")
        if type(key) is not int:
            key = 0
        entry = st.details.get(key)
        if entry is None:
            entry = st.details[key] = _Reasoning()
        text_field = _DETAIL_TEXT.get(kind)
        text = d.get(text_field) if text_field is not None else None
        text = text if type(text) is str and text else None
        signature = d.get("signature")
        signature = signature if type(signature) is str and signature else None
        data = d.get("data") if kind == "reasoning.encrypted" else None
        data = data if type(data) is str and data else None
        changed = {k: v for k, v in d.items()
                   if k not in _DETAIL_KNOWN and v is not None and entry.meta.get(k) != v}
        if "reasoning_type" not in entry.meta:
            changed["reasoning_type"] = kind  # set once: the kind the detail started as
        detail_id = d.get("id")
        detail_id = detail_id if type(detail_id) is str and detail_id else None
        if detail_id is not None and not entry.block_id:
            entry.block_id = detail_id
            if entry.block is not None:  # the block opened under another id
                changed["id"] = detail_id
        entry.meta.update(changed)
        ci = st.index
        if entry.block is None:
            if text is None and signature is None and data is None:
                return False  # nothing to show yet (metadata waits for the block)
            if st.seq_kind == _THINKING and not any(
                e.block == st.seq_index for e in st.details.values()
            ):
                # reasoning streamed as plain strings so far: this detail describes it
                entry.block = st.seq_index
                meta = dict(entry.meta)
                if entry.block_id:
                    meta["id"] = entry.block_id
                out.append(BlockDelta(index=entry.block, delta=MetadataDelta(meta), choice=ci))
            else:
                block = ThinkingBlock(
                    id=entry.block_id or None, encrypted=data,
                    redacted=data is not None and text is None, metadata=dict(entry.meta),
                )
                entry.block_id = block.id
                entry.block = self._open(st, block, out)
                data = None  # already in the block
            changed = {}
        index = entry.block
        st.touched = index
        st.seq_kind = _THINKING
        st.seq_index = index
        if changed:
            out.append(BlockDelta(index=index, delta=MetadataDelta(changed), choice=ci))
        if text is not None:
            entry.visible = True
            out.append(BlockDelta(index=index, delta=ThinkingDelta(text), choice=ci))
        if signature is not None:
            out.append(BlockDelta(index=index, delta=SignatureDelta(signature), choice=ci))
        if data is not None:
            entry.encrypted.append(data)
        return text is not None

    def _tool_call(self, st: _Choice, fragment: Any, out: list[Event]) -> None:
        """One ``tool_calls[]`` fragment, keyed by ``index`` (position wins over ids)."""
        if type(fragment) is not dict:
            self._extra(st, "tool_calls", fragment, out)
            return
        key = fragment.get("index")
        call_id = fragment.get("id")
        call_id = call_id if type(call_id) is str and call_id else None
        if type(key) is int and key >= 0:
            tool = st.tools.get(key)
            if tool is None:
                tool = self._new_tool(st, key)
        elif call_id is not None and call_id in st.tool_ids:
            tool = st.tool_ids[call_id]
        elif st.last_tool is not None and (call_id is None or call_id == st.last_tool.id
                                           or not st.last_tool.id):
            # no index: continue the latest call (an id for a call that had none yet
            # is its late id, not a new call)
            tool = st.last_tool
        else:
            st.synthetic += 1
            tool = self._new_tool(st, -1 - st.synthetic)
        function = fragment.get("function")
        custom = fragment.get("custom")
        name: Any = None
        arguments: Any = None
        extras: dict[str, Any] = {}
        if type(function) is dict:
            name = function.get("name")
            arguments = function.get("arguments")
            for k, v in function.items():
                if k not in ("name", "arguments") and v is not None:
                    extras[k] = v
        elif function is not None:
            extras["function"] = function
        if type(custom) is dict:  # a custom (free-form input) tool
            name = name or custom.get("name")
            arguments = arguments if arguments is not None else custom.get("input")
        elif custom is not None:
            extras["custom"] = custom
        for k, v in fragment.items():
            if k not in _TOOL_KNOWN and v is not None:
                extras[k] = v
        kind = fragment.get("type")
        if type(kind) is str and kind and tool.type is None:
            tool.type = kind
            if kind != "function":
                extras["type"] = kind
        self._tool_fragment(st, tool, call_id, name, arguments, extras, out)

    def _new_tool(self, st: _Choice, key: int) -> _Tool:
        tool = st.tools[key] = _Tool()
        st.last_tool = tool
        return tool

    def _legacy_function_call(self, st: _Choice, call: Any, out: list[Event]) -> None:
        """The deprecated ``delta.function_call`` ({name, arguments}): one tool call."""
        if type(call) is not dict:
            self._extra(st, "function_call", call, out)
            return
        tool = st.tools.get(_LEGACY_CALL)
        extras: dict[str, Any] = {}
        if tool is None:
            tool = self._new_tool(st, _LEGACY_CALL)
            extras["legacy"] = "function_call"
        self._tool_fragment(st, tool, None, call.get("name"), call.get("arguments"), extras, out)

    def _tool_fragment(self, st: _Choice, tool: _Tool, call_id: str | None, name: Any,
                       arguments: Any, extras: dict[str, Any], out: list[Event]) -> None:
        """Apply one fragment: id / name set once, arguments appended."""
        ci = st.index
        if arguments is not None and type(arguments) is not str:
            arguments = _JSON_ENCODE(arguments).decode()  # a vendor sent parsed arguments
        if call_id is not None and call_id not in st.tool_ids:
            st.tool_ids[call_id] = tool
        if call_id is not None and not tool.id:
            tool.id = call_id
            if tool.block is not None:  # the block opened under a generated id
                extras["call_id"] = call_id
        if type(name) is str and name and not tool.name:
            tool.name = name
            tool.late_name = tool.block is not None
        if extras:
            extras = {k: v for k, v in extras.items() if tool.meta.get(k, _MISSING) != v}
            tool.meta.update(extras)
        if tool.block is None:
            if not tool.id and not arguments:
                return  # a name-only header: wait for the id or the arguments
            self._open_tool(st, tool, out)
        elif extras:
            out.append(BlockDelta(index=tool.block, delta=MetadataDelta(extras), choice=ci))
        assert tool.block is not None
        st.touched = tool.block
        if arguments:
            out.append(BlockDelta(index=tool.block, delta=ToolInputDelta(arguments), choice=ci))

    def _open_tool(self, st: _Choice, tool: _Tool, out: list[Event]) -> None:
        tool.generated_id = not tool.id
        block = ToolCallBlock(tool.id or None, tool.name, metadata=dict(tool.meta))
        tool.block = self._open(st, block, out)
        tool.late_name = False
        st.has_tool = True
        st.seq_kind = _NONE  # text after a new call is a new block, after it

    def _audio(self, st: _Choice, audio: Any, out: list[Event]) -> None:
        """``delta.audio``: one data block per choice; bytes, transcript, id, expiry."""
        if type(audio) is not dict:
            self._extra(st, "audio", audio, out)
            return
        ci = st.index
        index = st.audio
        if index is None:
            audio_id = audio.get("id")
            block = DataBlock(audio_id if type(audio_id) is str and audio_id else None,
                              media_type=self.audio_media_type)
            index = st.audio = self._open(st, block, out)
            st.seq_kind = _NONE
        st.touched = index
        meta: dict[str, Any] = {}
        for key, value in audio.items():
            if value is None:
                continue
            if key == "data":
                if type(value) is not str:
                    meta["data"] = value
                elif value:
                    data = self._b64(st, value)
                    if data:
                        out.append(BlockDelta(index=index, delta=DataDelta(data), choice=ci))
            elif key == "transcript":
                if type(value) is not str:
                    meta["transcript"] = value
                elif value:
                    out.append(BlockDelta(index=index, delta=TranscriptDelta(value), choice=ci))
            elif key == "id":
                if st.audio_id is None:
                    st.audio_id = value
                    meta["audio_id"] = value
            elif st.audio_meta.get(key, _MISSING) != value:
                st.audio_meta[key] = value
                meta[key] = value
        if meta:
            out.append(BlockDelta(index=index, delta=MetadataDelta(meta), choice=ci))

    @staticmethod
    def _b64(st: _Choice, text: str) -> bytes:
        """Decode one chunk's base64; a piece cut off mid-quantum is carried over."""
        if st.b64_rest:
            text = st.b64_rest + text
            st.b64_rest = ""
        cut = len(text) % 4
        if cut:
            st.b64_rest = text[-cut:]
            text = text[:-cut]
        try:
            return binascii.a2b_base64(text)
        except (binascii.Error, ValueError) as exc:
            raise ProtocolError(f"invalid base64 audio data in choice {st.index}: {exc}",
                                raw=text[:200]) from exc

    def _annotations(self, st: _Choice, annotations: Any, out: list[Event]) -> None:
        """``delta.annotations`` (url citations): citations of the current text block."""
        if type(annotations) is not list:
            self._extra(st, "annotations", annotations, out)
            return
        index = st.text_block if st.text_block is not None else self._sequential(st, _TEXT, out)
        for annotation in annotations:
            if type(annotation) is dict:
                out.append(BlockDelta(index=index, delta=CitationDelta(annotation),
                                      choice=st.index))
            else:
                self._extra(st, "annotations", annotation, out)

    def _channel(self, st: _Choice, index: int, out: list[Event]) -> None:
        """Groq's ``channel``: the block's ``metadata["channel"]``, replaced on change."""
        if st.channels.get(index, _MISSING) != st.channel:
            st.channels[index] = st.channel
            out.append(BlockDelta(index=index, delta=MetadataDelta({"channel": st.channel}),
                                  choice=st.index))

    def _logprobs(self, st: _Choice, logprobs: Any, out: list[Event]) -> None:
        """``logprobs.content`` / ``.refusal``: appended to a list the block holds."""
        if type(logprobs) is not dict:
            self._extra(st, "logprobs", logprobs, out)
            return
        for key, value in logprobs.items():
            if value is None or value == []:
                continue
            if key == "content" and type(value) is list:
                index = st.text_block
                if index is None:
                    index = self._sequential(st, _TEXT, out)
            elif key == "refusal" and type(value) is list:
                index = st.refusal_block
                if index is None:
                    index = self._sequential(st, _REFUSAL, out)
            else:
                self._extra(st, "logprobs." + key, value, out)
                continue
            out.append(BlockDelta(index=index, delta=MetadataAppendDelta("logprobs", value),
                                  choice=st.index))

    # ------------------------------------------------------------ the end

    def _close_all(self, out: list[Event], *, terminated: bool) -> None:
        if not self._choices:
            self._ensure_started(out)
        for ci in sorted(self._choices):
            self._close(self._choices[ci], out, terminated=terminated)

    def _close(self, st: _Choice, out: list[Event], *, terminated: bool) -> None:
        """End a choice: open header-only tool calls, close blocks, report the reason."""
        if st.ended:
            return
        st.ended = True
        for tool in st.tools.values():
            if tool.block is None:
                self._open_tool(st, tool, out)
        snapshots = self._snapshots(st)
        if st.b64_rest and st.audio is not None:
            out.append(BlockDelta(index=st.audio, delta=MetadataDelta(
                {"undecoded_data": st.b64_rest}), choice=st.index))
        for index in st.open:
            out.append(BlockEnd(index=index, choice=st.index, snapshot=snapshots.get(index)))
        st.open.clear()
        out.append(ResponseEnd(finish_reason=FinishReason.parse(self._finish_reason(st)),
                               stop_reason=st.finish_reason, terminated=terminated,
                               choice=st.index))

    @staticmethod
    def _snapshots(st: _Choice) -> dict[int, Block]:
        """What deltas cannot carry, for the ``BlockEnd`` snapshots: a tool name that
        arrived after its block opened, encrypted reasoning after visible text."""
        snapshots: dict[int, Block] = {}
        for tool in st.tools.values():
            if tool.late_name and tool.block is not None:
                snapshots[tool.block] = ToolCallBlock(tool.id or None, tool.name)
        for entry in st.details.values():
            if entry.encrypted and entry.block is not None:
                snapshots[entry.block] = ThinkingBlock(
                    id=entry.block_id or None, encrypted="".join(entry.encrypted),
                    redacted=not entry.visible,
                )
        return snapshots

    def _finish_reason(self, st: _Choice) -> str:
        """The uniform reason: ``error`` once the stream reported an error; a
        ``stop`` with nothing but refusal text is ``refusal``."""
        if self._errored:
            return "error"
        raw = st.finish_reason
        if raw is None:
            return "unknown"
        reason = self._reasons.get(raw, "unknown")
        if reason == "stop" and st.has_refusal and not st.has_text and not st.has_tool:
            return "refusal"
        return reason
