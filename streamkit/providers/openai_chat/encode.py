"""OpenAI Chat Completions responses written: the chunk stream (SSE) and the
``chat.completion`` body.

:class:`OpenAIChatStreamEncoder` writes what OpenAI streams: ``data:`` events
of ``chat.completion.chunk`` objects, each with the response's ``id``,
``created``, ``model`` (and the fields OpenAI repeats on every chunk, such as
``system_fingerprint``, for an answer read from this wire), then the usage
chunk (``choices: []``), then ``data: [DONE]``.

- Each choice (``choices[].index`` is the events' ``choice``) opens with the
  role chunk ``{"role": "assistant", "content": "", "refusal": null}``
  (``content: null`` when the answer starts with anything but text, as
  OpenAI's does); text is ``content``, a refusal ``refusal``, reasoning the
  dialect's reasoning field (``reasoning_content`` unless the dialect reads
  another first); a tool call is a ``tool_calls`` entry with its position among
  the choice's calls, ``id``, ``type: "function"``, name and ``arguments: ""``,
  then its argument fragments under the same position. OpenAI's ``logprobs``
  of an answer read from this wire go back on the choice, as they came.
- The finish chunk (``delta: {}``, ``finish_reason``) comes at each choice's
  end; the usage chunk and ``[DONE]`` at :meth:`~OpenAIChatStreamEncoder.close`,
  after every choice, as OpenAI sends them (``[DONE]`` only when the source's
  end was seen, ``terminated``). Response fields learnt mid-stream (gpt-5's
  ``moderation``) are a chunk of their own with ``choices: []``. An
  :class:`ErrorEvent` is ``{"error": {...}}``, the object :func:`encode_error`
  answers an HTTP error with (the SDK picks its exception by the status).

- Audio (the choice's first ``audio/*`` data block) is ``delta.audio`` as
  OpenAI streams it: ``{"id", "transcript": ""}`` first, then ``transcript``
  and base64 ``data`` pieces (cut on 3-byte boundaries, so the pieces join into
  one valid base64 string), ``expires_at`` when it is known (after the finish
  chunk, as OpenAI sends it); in the body, ``message.audio``.
- Dialects: reasoning goes in the dialect's first reasoning field
  (``reasoning_content``; ``reasoning`` for OpenRouter, Groq, vLLM...), or
  Mistral's ``content: [{"type": "thinking", ...}]`` chunks. What a
  vendor adds goes back to that vendor only (an answer read from the same
  dialect, or made by hand): Groq's ``channel`` on every delta of a block it
  labelled; OpenRouter's ``reasoning_details`` next to ``reasoning`` (each
  thinking block one detail ``index``: ``reasoning.text`` / ``.summary``
  pieces, the signature as a detail of its own, encrypted data as a
  ``reasoning.encrypted`` detail, at the block's start for reasoning that is
  only encrypted, else after its text); the fields a reader kept unread
  (``metadata["extras"]``: unknown delta fields, Mistral content parts) as the
  deltas that carried them; unknown SSE events; Azure's content-filter frames;
  payloads after ``[DONE]``; Groq's errors as ``event: error``.
- Another wire's signed reasoning (an Anthropic thinking block) goes to
  OpenRouter as plain ``reasoning`` text, without a ``reasoning_details``
  entry: OpenRouter asks for details back unmodified, and a signature is
  verified by the model that made it, so another provider's signature is
  never written (the request builder drops it the same way); an answer of
  another OpenAI-compatible vendor keeps its reasoning text only.

What the wire has no field for is left out: signatures and encrypted
reasoning (OpenAI Chat cannot send them back; OpenRouter can, for its own),
media blocks other than a choice's audio, provider items of another wire;
of the kept extras, a wrong-typed ``choices``, ``usage``, ``finish_reason``,
``delta``, ``logprobs`` or a second differing ``text`` copy. Consecutive
blocks of one kind become one block when read back (a Chat answer names no
block boundaries). Usage of another wire is counted OpenAI's way:
``prompt_tokens`` with the cache reads and writes included.

:func:`encode_response` writes the non-streamed body from the same pieces.
"""

from __future__ import annotations

import binascii
import time
from typing import Any, Final

from ...conversation.request import Request
from ...framing.sse import sse_event
from ...model.blocks import (
    Block,
    Citation,
    ContentBlock,
    DataBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)
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
    TranscriptDelta,
)
from ...model.finish import FinishReason
from ...model.pcm import PCM_RATE_ASSUMED
from ...model.response import ChatResponse
from ...model.usage import ChatUsage
from ...model.vendors import wire_of
from .. import encoder
from ..coerce import Wire
from ..encoder import (
    StreamEncoder,
    arguments_json,
    input_tokens_for,
    recorded_error,
    response_id,
    wire_of_provider,
)
from ..error_payloads import openai_error_object
from .assistant import DETAIL_TEXT, detail_fields, details_of
from .choice import EXTRAS_KEY
from .dialects import Dialect, get_dialect
from .response import OTHER_CHOICES
from .wire import DONE_MARKERS, FINISH_REASONS, FINISH_WORDS, NAME

__all__ = ["OpenAIChatStreamEncoder", "answer_options", "encode_error", "encode_response"]


def finish_word(finish: FinishReason | None, stop_reason: str | None, *, own: bool,
                dialect: Dialect) -> str | None:
    """The ``finish_reason`` to write: the vendor's own word for an answer of
    this wire when the dialect written has it (OpenAI's words, the dialect's
    own), else OpenAI's for the uniform reason (:data:`.wire.FINISH_WORDS`):
    another vendor's word (OpenRouter's ``error`` to an OpenAI caller) is
    outside the words the caller's SDK types take. An unknown end is what
    came: this wire's own word, else none (never a ``stop`` made up)."""
    if own and finish is FinishReason.UNKNOWN:
        return stop_reason  # what came: a word of this wire unknown to streamkit, or none
    own = own and own_word(stop_reason, dialect)
    return encoder.finish_word(finish, stop_reason, own=own, words=FINISH_WORDS)


def own_word(stop_reason: str | None, dialect: Dialect) -> bool:
    """Whether ``stop_reason`` is a finish word of ``dialect`` (OpenAI's own included)."""
    return stop_reason in FINISH_REASONS or stop_reason in dialect.finish_reasons

#: Response metadata the reader keeps for itself, never a chunk's field.
_BOOKKEEPING: Final = frozenset({EXTRAS_KEY, "unknown_events", "content_filters", OTHER_CHOICES,
                                 "created", "error"})

_DONE: Final = sse_event(DONE_MARKERS[1])

#: The form of a completion id (``chatcmpl-...``): what another wire's id is written in.
ID_PREFIX: Final = "chatcmpl-"


def answer_options(request: Request) -> dict[str, Any]:
    """The stream encoder's options a request asks for: the usage chunk only
    when it said ``stream_options.include_usage`` (read as the uniform
    ``include_usage`` option), as OpenAI answers: a client that never asked
    may index ``choices[0]`` of every chunk, and the usage chunk has none."""
    return {"include_usage": request.options.get("include_usage") is True}


def usage_object(usage: ChatUsage, *, own: bool) -> Wire:
    """The ``usage`` object: the vendor's own for this wire's answer, else the
    counts in OpenAI's fields."""
    if own and usage.raw:
        return dict(usage.raw)
    prompt = input_tokens_for(usage, includes_cache=True)
    completion = usage.output_tokens or 0
    out: Wire = {"prompt_tokens": prompt, "completion_tokens": completion,
                 "total_tokens": prompt + completion}
    if usage.cached_tokens is not None:
        out["prompt_tokens_details"] = {"cached_tokens": usage.cached_tokens}
    if usage.reasoning_tokens is not None:
        out["completion_tokens_details"] = {"reasoning_tokens": usage.reasoning_tokens}
    return out


def response_fields(metadata: dict[str, Any]) -> Wire:
    """The chunk fields a reader of this wire kept in a response's metadata
    (``system_fingerprint``, ``service_tier``, ``moderation``...)."""
    return {key: value for key, value in metadata.items() if key not in _BOOKKEEPING}


def created_of(metadata: dict[str, Any]) -> int:
    """The ``created`` time: the one the answer was read with, else now."""
    created = metadata.get("created")
    return created if type(created) is int else int(time.time())


#: Audio block metadata that is the reader's, not a ``delta.audio`` field.
_AUDIO_BOOKKEEPING: Final = frozenset({"audio_id", "undecoded_data", PCM_RATE_ASSUMED})

#: Kept extras that no delta field carries back (see the module docstring).
_EXTRAS_NOT_WRITTEN: Final = frozenset({"choices", "usage", "finish_reason", "delta", "text"})


def same_dialect(provider: str | None, dialect: Dialect) -> bool:
    """Whether an answer of ``provider`` (a registry name; ``None``: made by
    hand) was read from ``dialect`` of this wire: only then do the vendor's
    own fields go back."""
    if provider is None:
        return True
    try:
        wire, name = wire_of(provider)
    except ValueError:
        return False
    return wire == NAME and (name or "openai") == dialect.name


def audio_fields(block: DataBlock, metadata: dict[str, Any], *, own: bool) -> Wire:
    """The ``audio`` fields of a block's metadata this wire has (``expires_at``...),
    for an answer read from this wire only."""
    if not own:
        return {}
    return {key: value for key, value in metadata.items() if key not in _AUDIO_BOOKKEEPING}


def is_audio(block: ContentBlock) -> bool:
    return type(block) is DataBlock and block.media_type.startswith("audio/")


class _Detail:
    """One thinking block written as OpenRouter reasoning details: its detail
    type, the fields every detail of it repeats, and encrypted data held for
    after its text."""

    __slots__ = ("common", "encrypted", "kind")

    def __init__(self, kind: str, common: Wire) -> None:
        self.kind = kind
        self.common = common
        self.encrypted: str | None = None


class _Choice:
    """What one choice has written: the role chunk, each open block's kind (the
    field its deltas go to, a tool call's position) and its end."""

    __slots__ = ("audio", "audio_rest", "blocks", "calls", "channels", "details", "ended",
                 "logprobs", "role_sent")

    def __init__(self) -> None:
        self.role_sent = False
        self.blocks: dict[int, str | int] = {}  # index -> delta field, or a call's position
        self.logprobs: dict[int, list[Any]] = {}  # index -> those a whole block came with
        self.calls = 0
        self.ended: bool | None = None  # None: not ended; else whether terminated
        self.channels: dict[int, Any] = {}  # index -> Groq channel label
        self.details: dict[int, _Detail] = {}  # index -> its OpenRouter details
        self.audio: int | None = None  # the audio block's index, once one opened
        self.audio_rest = b""  # audio bytes short of a base64 quantum


class OpenAIChatStreamEncoder(StreamEncoder):
    """streamkit events -> an OpenAI Chat Completions chunk stream (see the
    module docstring); ``dialect`` names the vendor dialect whose reasoning
    field is written."""

    wire = NAME

    def __init__(self, dialect: str | None = None, *, include_usage: bool = True) -> None:
        super().__init__(dialect)
        self.include_usage = include_usage
        """Whether the usage chunk is sent: OpenAI sends it only to a request
        with ``stream_options.include_usage`` (see :func:`answer_options`)."""
        self._dialect = get_dialect(dialect)
        self._reasoning_field = self._dialect.reasoning_fields[0]
        self._envelope: Wire = {"id": "chatcmpl-streamkit", "object": "chat.completion.chunk",
                                "created": 0, "model": ""}
        self._choices: dict[int, _Choice] = {}
        self.own_dialect = True
        """Whether the events were read from this very dialect (or made by hand)."""
        self._errored = False
        self._pending_error: ErrorEvent | None = None  # a finished answer's error, for its end
        self._after_done: list[Any] = []

    def _chunk(self, choice: int, delta: Wire, **entry: Any) -> bytes:
        return sse_event({**self._envelope, "choices": [
            {"index": choice, "delta": delta, **entry,
             "finish_reason": entry.pop("finish_reason", None)}]})

    def _choice(self, choice: int) -> _Choice:
        state = self._choices.get(choice)
        if state is None:
            state = self._choices[choice] = _Choice()
        return state

    # ------------------------------------------------------------ the response

    def on_response_start(self, event: ResponseStart) -> bytes:
        self._choice(event.choice)
        if event.choice != 0:
            return b""
        self.own_dialect = self.own and same_dialect(event.provider, self._dialect)
        self._pending_error = recorded_error(event.metadata.get("error"))
        self._envelope = {
            "id": self._id(event.id or "chatcmpl-streamkit"), "object": "chat.completion.chunk",
            "created": created_of(event.metadata), "model": event.model or "",
            **(response_fields(event.metadata) if self.own else {})}
        return self._kept(event.choice, {key: value for key, value in event.metadata.items()
                                         if type(value) is list})

    def on_metadata(self, event: ResponseMetadata) -> bytes:
        if event.id is not None and event.choice == 0:
            self._envelope["id"] = self._id(event.id)
        if event.model is not None and event.choice == 0:
            self._envelope["model"] = event.model
        created = event.metadata.get("created")
        if type(created) is int and event.choice == 0:
            self._envelope["created"] = created
        fields = response_fields(event.metadata) if self.own else {}
        for key in fields.keys() & self._envelope.keys():
            self._envelope[key] = fields[key]  # a repeated field changed: later chunks say so
        out = sse_event({**self._envelope, "choices": [], **fields}) if fields else b""
        return out + self._kept(event.choice, event.append)

    def _id(self, given: str) -> str:
        """The response id in this wire's form (see :func:`.encoder.response_id`)."""
        return response_id(given, ID_PREFIX, from_this_wire=self.source_wire == NAME)

    def _kept(self, choice: int, lists: dict[str, Any]) -> bytes:
        """What a reader of this dialect kept without a place (``extras``,
        unknown events, content-filter frames), written back as it came."""
        if not self.own_dialect:
            return b""
        out: list[bytes] = []  # joined once: n kept payloads cost n
        for item in lists.get(EXTRAS_KEY, ()):
            if type(item) is dict and len(item) == 1:
                ((key, value),) = item.items()
                out.append(self._extra(choice, key, value))
        for item in lists.get("unknown_events", ()):
            if type(item) is dict and "data" in item:
                name = item.get("event")
                out.append(sse_event(item["data"], name if type(name) is str else None))
        for filters in lists.get("content_filters", ()):
            if type(filters) is dict:
                out.append(sse_event({"choices": [{**filters, "index": choice}], "created": 0,
                                      "id": "", "model": "", "object": ""}))
        return b"".join(out)

    def _extra(self, choice: int, key: str, value: Any) -> bytes:
        """One kept ``{key: value}`` as the delta field (or frame) that said it."""
        if key == "after_done":
            self._after_done.append(value)
            return b""
        if key == "objects":
            return sse_event({"object": value, "choices": []})
        if key in _EXTRAS_NOT_WRITTEN or key.startswith("logprobs."):
            return b""
        if key == "content":
            return self._chunk(choice, {"content": [value]})
        if key == "thinking":
            return self._chunk(choice, {"content": [{"type": "thinking", "thinking": [value]}]})
        if key == "reasoning_details":
            return self._chunk(choice, {"reasoning_details": [value]})
        return self._chunk(choice, {key: value})

    def on_response_end(self, event: ResponseEnd) -> bytes:
        state = self._choice(event.choice)
        out = self._role(event.choice, None)
        if self._pending_error is not None and not self._errored:
            out += self.on_error(self._pending_error)  # a finished answer's error, replayed
        state.ended = event.terminated
        word = finish_word(event.finish_reason, event.stop_reason, own=self.own,
                           dialect=self._dialect)
        if self._errored and event.finish_reason is FinishReason.ERROR \
                and not (self.own and own_word(event.stop_reason, self._dialect)):
            word = None  # the error event ended the answer; no finish word follows it
        if word is not None:
            out += self._chunk(event.choice, {}, finish_reason=word)
        return out

    def on_error(self, event: ErrorEvent) -> bytes:
        self._errored = True
        raw = event.raw
        name = "error" if self._dialect.name == "groq" else None  # Groq's own form
        if self.own and type(raw) is dict and type(raw.get("error")) is dict:
            return sse_event(raw, name)
        return sse_event(openai_error_object(event, event.status or 500), name)

    def close(self) -> bytes:
        """The usage chunk (unless the request did not ask for it), then
        ``[DONE]`` when every choice's end was seen."""
        out = b""
        if self.usage is not None and self.include_usage:
            out += sse_event({**self._envelope, "choices": [], "usage": usage_object(
                self.usage, own=self.own)})
        ends = [state.ended for state in self._choices.values()]
        if ends and all(ends):
            out = b"".join([out, _DONE, *map(sse_event, self._after_done)])
        return out

    # ------------------------------------------------------------ blocks

    def _role(self, choice: int, first: ContentBlock | None) -> bytes:
        """The choice's role chunk, once, before its first block (``content: ""``
        when that is text, as OpenAI's first chunk has it)."""
        state = self._choice(choice)
        if state.role_sent:
            return b""
        state.role_sent = True
        text_first = first is None or (type(first) is TextBlock and not first.refusal) \
            or self._dialect.history.reasoning_echo == "thinking_chunks"  # Mistral: always ""
        return self._chunk(choice, {"role": "assistant", "content": "" if text_first else None,
                                    "refusal": None})

    def on_block_start(self, choice: int, index: int, block: ContentBlock) -> bytes:
        state = self._choice(choice)
        if self.own_dialect and block.metadata.get("channel") is not None:
            state.channels[index] = block.metadata["channel"]
        if type(block) is ToolCallBlock and (self.own or not block.server_side):
            out = self._role(choice, block)
            position = state.blocks[index] = state.calls
            state.calls += 1
            return out + self._chunk(choice, self._labelled(state, index, {"tool_calls": [
                {"index": position, "id": block.id, "type": "function",
                 "function": {"name": block.name, "arguments": ""}}]}))
        if type(block) is TextBlock:
            state.blocks[index] = "refusal" if block.refusal else "content"
            logprobs = block.metadata.get("logprobs")
            if self.own and type(logprobs) is list and logprobs:
                state.logprobs[index] = logprobs  # after its text, as the wire has them
        elif type(block) is ThinkingBlock:
            state.blocks[index] = self._reasoning_field
            if self._writes_details():
                return self._role(choice, block) + self._detail_start(choice, index, block)
        elif type(block) is DataBlock and is_audio(block) and state.audio is None:
            return self._role(choice, block) + self._audio_start(choice, index, block)
        else:
            return b""  # media, tool results, provider items: no Chat delta holds them
        return self._role(choice, block)

    def _labelled(self, state: _Choice, index: int, delta: Wire) -> Wire:
        """``delta`` with the Groq channel of its block, when it has one."""
        label = state.channels.get(index)
        return delta if label is None else {**delta, "channel": label}

    def on_delta(self, choice: int, index: int, delta: Delta) -> bytes:
        state = self._choice(choice)
        target = state.blocks.get(index)
        kind = type(delta)
        if kind is MetadataDelta and self.own_dialect:
            assert isinstance(delta, MetadataDelta)
            if "channel" in delta.metadata:
                state.channels[index] = delta.metadata["channel"]
        if target is None:
            return b""
        if type(target) is int:
            if kind is not ToolInputDelta:
                return b""
            assert isinstance(delta, ToolInputDelta)
            return self._chunk(choice, self._labelled(state, index, {"tool_calls": [
                {"index": target, "function": {"arguments": arguments_json(delta.partial_json)}}]}))
        if target == "audio":
            return self._audio_delta(choice, delta)
        if kind is TextDelta and target in ("content", "refusal"):
            assert isinstance(delta, TextDelta)
            return self._chunk(choice, self._labelled(state, index, {str(target): delta.text}))
        if kind is CitationDelta and target == "content":
            assert isinstance(delta, CitationDelta)
            annotation = annotation_of(delta.citation)
            return b"" if annotation is None else self._chunk(choice, {"annotations": [annotation]})
        if target == self._reasoning_field and index in state.details:
            return self._detail_delta(choice, index, delta)
        if kind is ThinkingDelta and target == self._reasoning_field:
            assert isinstance(delta, ThinkingDelta)
            if self._dialect.history.reasoning_echo == "thinking_chunks":  # Mistral's form
                return self._chunk(choice, {"content": [{"type": "thinking", "thinking": [
                    {"type": "text", "text": delta.thinking}]}]})
            return self._chunk(choice, self._labelled(state, index,
                                                      {str(target): delta.thinking}))
        if kind is MetadataAppendDelta and self.own:
            assert isinstance(delta, MetadataAppendDelta)
            if delta.key == "logprobs" and target in ("content", "refusal"):
                return self._logprobs(choice, str(target), delta.items)
        return b""  # signatures, citations without a url, other metadata: no Chat field

    def _logprobs(self, choice: int, field: str, items: list[Any]) -> bytes:
        other = "refusal" if field == "content" else "content"
        return self._chunk(choice, {}, logprobs={field: items, other: None})

    def on_snapshot(self, choice: int, index: int, snapshot: Block) -> bytes:
        detail = self._choice(choice).details.get(index)
        if detail is not None and type(snapshot) is ThinkingBlock and snapshot.encrypted:
            detail.encrypted = snapshot.encrypted
        return b""

    def on_block_end(self, choice: int, index: int) -> bytes:
        state = self._choice(choice)
        target = state.blocks.pop(index, None)
        out = b""
        detail = state.details.get(index)
        if detail is not None and detail.encrypted is not None:
            out += self._encrypted(choice, index, detail.encrypted)
            detail.encrypted = None
        if target == "audio" and state.audio_rest:
            out += self._chunk(choice, {"audio": {"data": _base64(state.audio_rest)}})
            state.audio_rest = b""
        logprobs = state.logprobs.pop(index, None)
        if logprobs is None:
            return out
        return out + self._logprobs(choice, str(target), logprobs)

    # ------------------------------------------------------------ OpenRouter details

    def _writes_details(self) -> bool:
        """Whether thinking goes out as OpenRouter ``reasoning_details``: to
        OpenRouter, for its own answers (see the module docstring)."""
        return self.own_dialect and self._dialect.history.reasoning_echo == "reasoning_details"

    def _detail_start(self, choice: int, index: int, block: ThinkingBlock) -> bytes:
        state = self._choice(choice)
        kind, common = detail_fields(block)
        common["index"] = len(state.details)
        detail = state.details[index] = _Detail(kind, common)
        if block.encrypted is None:
            return b""
        if block.redacted:  # only encrypted: the detail opens the block
            return self._encrypted(choice, index, block.encrypted)
        detail.encrypted = block.encrypted  # after its text, as OpenRouter sends it
        return b""

    def _detail_delta(self, choice: int, index: int, delta: Delta) -> bytes:
        detail = self._choice(choice).details[index]
        text_field = DETAIL_TEXT.get(detail.kind)
        if type(delta) is ThinkingDelta:
            assert isinstance(delta, ThinkingDelta)
            wire: Wire = {self._reasoning_field: delta.thinking}
            if text_field is not None:
                wire["reasoning_details"] = [{"type": detail.kind, text_field: delta.thinking,
                                              **detail.common}]
            return self._chunk(choice, wire)
        if type(delta) is SignatureDelta:
            assert isinstance(delta, SignatureDelta)
            kind = detail.kind if text_field is not None else "reasoning.text"
            return self._chunk(choice, {"reasoning_details": [
                {"type": kind, "signature": delta.signature, **detail.common}]})
        return b""

    def _encrypted(self, choice: int, index: int, data: str) -> bytes:
        common = self._choice(choice).details[index].common
        return self._chunk(choice, {"reasoning_details": [
            {"type": "reasoning.encrypted", "data": data, **common}]})

    # ------------------------------------------------------------ audio

    def _audio_start(self, choice: int, index: int, block: DataBlock) -> bytes:
        """The audio's first chunk (its id), then what a whole block holds."""
        state = self._choice(choice)
        state.audio = index
        state.blocks[index] = "audio"
        audio_id = block.metadata.get("audio_id") if self.own else None
        out = self._chunk(choice, {"audio": {"id": audio_id or block.id, "transcript": ""}})
        if block.transcript:
            out += self._audio_delta(choice, TranscriptDelta(block.transcript))
        if block.data:
            out += self._audio_delta(choice, DataDelta(block.data))
        fields = audio_fields(block, block.metadata, own=self.own)
        if fields:
            out += self._chunk(choice, {"audio": fields})
        return out

    def _audio_delta(self, choice: int, delta: Delta) -> bytes:
        state = self._choice(choice)
        if type(delta) is TranscriptDelta:
            assert isinstance(delta, TranscriptDelta)
            return self._chunk(choice, {"audio": {"transcript": delta.text}})
        if type(delta) is DataDelta:
            assert isinstance(delta, DataDelta)
            data = state.audio_rest + delta.data
            cut = len(data) - len(data) % 3
            state.audio_rest = data[cut:]
            if not cut:
                return b""
            return self._chunk(choice, {"audio": {"data": _base64(data[:cut])}})
        if type(delta) is MetadataDelta:
            assert isinstance(delta, MetadataDelta)
            fields = {key: value for key, value in delta.metadata.items()
                      if key not in _AUDIO_BOOKKEEPING} if self.own else {}
            if fields:
                return self._chunk(choice, {"audio": fields})
        return b""


def annotation_of(citation: Citation) -> Wire | None:
    """A citation as a ``delta`` / ``message`` ``annotations`` entry: this wire's
    own annotation as it came (OpenRouter's web search ``url_citation``), else a
    ``url_citation`` for a citation that names what one requires (url and the
    cited span; the title ``""`` when it has none); ``None`` for any other
    (a document's citation has no url to write)."""
    if citation.wire == NAME and citation.raw:
        return dict(citation.raw)
    if citation.url is None or citation.start is None or citation.end is None:
        return None
    return {"type": "url_citation", "url_citation": {
        "url": citation.url, "title": citation.title or "", "start_index": citation.start,
        "end_index": citation.end}}


def _annotations(response: ChatResponse) -> list[Wire]:
    """Every text block's citations as ``message.annotations`` (see :func:`annotation_of`)."""
    return [annotation for block in response.content
            if type(block) is TextBlock and not block.refusal
            for annotation in map(annotation_of, block.citations) if annotation is not None]


def _base64(data: bytes) -> str:
    return binascii.b2a_base64(data, newline=False).decode("ascii")


# ---------------------------------------------------------------- the non-streamed body


def encode_response(response: ChatResponse, dialect: str | None = None) -> Wire:
    """The non-streamed ``chat.completion`` body of ``response`` (one choice;
    see the module docstring for what each block becomes)."""
    source_wire = wire_of_provider(response.provider)
    own = source_wire in (None, NAME)
    target = get_dialect(dialect)
    message: Wire = {"role": "assistant", "content": _joined(response, refusal=False),
                     "refusal": _joined(response, refusal=True)}
    if response.thinking:
        message[target.reasoning_fields[0]] = response.thinking
    annotations = _annotations(response)
    if annotations:
        message["annotations"] = annotations
    if own and target.history.reasoning_echo == "reasoning_details" \
            and same_dialect(response.provider, target):
        thinking = [block for block in response.content if type(block) is ThinkingBlock]
        if thinking:
            message["reasoning_details"] = details_of(thinking, target)
    audio = next((block for block in response.content
                  if type(block) is DataBlock and is_audio(block)), None)
    if audio is not None:
        message["audio"] = _audio_object(audio, own)
    calls = [call for call in response.tool_calls if own or not call.server_side]
    if calls:
        message["tool_calls"] = [{"id": call.id, "type": "function", "function": {
            "name": call.name, "arguments": arguments_json(call.input)}} for call in calls]
    word = finish_word(response.finished_reason, response.stop_reason, own=own, dialect=target)
    choice: Wire = {"index": 0, "message": message, "logprobs": _logprobs(response, own),
                    "finish_reason": word or FINISH_WORDS[FinishReason.STOP]}  # required here
    body: Wire = {"id": response_id(response.id, ID_PREFIX, from_this_wire=source_wire == NAME),
                  "object": "chat.completion",
                  "created": created_of(response.metadata), "model": response.model or "",
                  "choices": [choice], **(response_fields(response.metadata) if own else {})}
    if response.usage is not None:
        body["usage"] = usage_object(response.usage, own=own)
    return body


def _audio_object(block: DataBlock, own: bool) -> Wire:
    """``message.audio``: the whole audio of the answer, as OpenAI answers it."""
    audio_id = block.metadata.get("audio_id") if own else None
    return {"id": audio_id or block.id, "data": _base64(block.data),
            "transcript": block.transcript, **audio_fields(block, block.metadata, own=own)}


def _joined(response: ChatResponse, *, refusal: bool) -> str | None:
    parts = [block.text for block in response.content
             if type(block) is TextBlock and block.refusal is refusal]
    return "".join(parts) if parts else None


def _logprobs(response: ChatResponse, own: bool) -> Wire | None:
    """OpenAI's ``logprobs`` of an answer read from this wire, as they came."""
    if not own:
        return None
    found: Wire = {}
    for block in response.content:
        if not isinstance(block, TextBlock):
            continue
        items = block.metadata.get("logprobs")
        if type(items) is list:
            key = "refusal" if block.refusal else "content"
            found.setdefault(key, []).extend(items)  # n blocks' logprobs cost n
    return {"content": found.get("content"), "refusal": found.get("refusal")} if found else None


def encode_error(event: ErrorEvent, status: int, dialect: str | None = None) -> dict[str, Any]:
    """The body of OpenAI's HTTP error answer with ``status``."""
    return openai_error_object(event, status)
