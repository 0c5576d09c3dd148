"""Google Gemini streams (``:streamGenerateContent?alt=sse``, Gemini API and Vertex AI).

Every SSE payload is a whole ``GenerateContentResponse`` chunk::

    {"candidates": [{"content": {"parts": [...], "role": "model"},
                     "finishReason": ..., "index": 0, "safetyRatings": [...], ...}],
     "usageMetadata": {...}, "modelVersion": ..., "responseId": ..., "promptFeedback": {...}}

Gemini has no block structure on the wire: each chunk's ``parts`` are simply
appended. This parser makes blocks out of them, per candidate (= choice):

- consecutive text parts merge into one text block, consecutive ``thought: true``
  parts into one thinking block; a change of kind closes the open block;
- ``thoughtSignature`` stays on the block of the part it came on (thinking,
  text or tool call: a :class:`~streamkit.events.SignatureDelta`); a signature
  on an *empty* text part (Gemini's trailing marker) attaches to the preceding
  block; a text part bringing a second signature starts a new block so that no
  signature replaces another;
- ``functionCall`` with complete ``args`` is a complete tool call (Gemini sends
  no call id on the public API: one is generated); Vertex
  ``streamFunctionCallArguments`` (``willContinue`` + ``partialArgs`` updates,
  closed by an empty ``functionCall``) is streamed as argument JSON text through
  :class:`~streamkit.partial_json.JSONPathBuilder`;
- ``inlineData`` audio parts of the same media type accumulate into one
  :class:`~streamkit.blocks.DataBlock` as raw bytes (TTS streams); other inline
  data (images) are complete blocks; ``fileData`` is a URL data block; anything
  else (``executableCode``, ``codeExecutionResult``, future part kinds) is a
  :class:`~streamkit.blocks.RawBlock` holding the whole part.

Terminator: Gemini has none beyond the chunk carrying ``finishReason``, so that
chunk ends its candidate (``ResponseEnd(terminated=True)``); a later usage-only
chunk is still applied. A clean end of input without a ``finishReason`` ends
with ``unknown`` and ``terminated=False``; a ``promptFeedback.blockReason``
(the prompt was blocked, no candidates) ends with ``content_filter``.

Usage: ``usageMetadata`` is a cumulative snapshot repeated on every chunk. To
keep a text chunk to exactly one event, the latest snapshot is held (a
reference, not a copy) and reported once when a candidate finishes, on a
usage-only chunk, before an error, and at :meth:`GeminiParser.finish`.
Candidate extras (``safetyRatings``, ``groundingMetadata``...) and unknown
top-level keys likewise become :class:`~streamkit.events.ResponseMetadata` only
when their value changes.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, ClassVar

import msgspec

from ...blocks import (
    Base64Source,
    Block,
    DataBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    URLSource,
    new_block_id,
)
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
    UsageUpdate,
)
from ...finish import FinishReason
from ...partial_json import JSONPathBuilder, JSONPathValue
from ...usage import ChatUsage
from ..base import Framing, decode_json

__all__ = ["GeminiParser", "map_finish_reason", "map_usage"]

_FILTERED = frozenset({
    "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY",
    "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION",
})
_TOP_LEVEL = frozenset({
    "candidates", "usageMetadata", "modelVersion", "responseId", "promptFeedback", "createTime",
    "error",
})
_CANDIDATE_HANDLED = frozenset({"content", "index", "finishReason", "citationMetadata"})
_ENCODE = msgspec.json.encode

# Kinds of the block a candidate has open.
_TEXT = 1
_THINKING = 2
_TOOL = 3  # a complete function call (kept open so a trailing signature can attach)
_CALL = 4  # a Vertex streamed function call, still receiving partialArgs
_AUDIO = 5  # inline audio that further parts of the same media type extend
_OTHER = 6  # a complete image, file or raw part


def map_finish_reason(reason: str | None, tool_calls: bool = False) -> str | None:
    """The uniform finish reason for a Gemini ``finishReason``: ``STOP`` is
    ``tool_calls`` when the candidate called a function; the safety family is
    ``content_filter``; reasons without a uniform word are ``unknown``."""
    if reason is None:
        return None
    if reason == "STOP":
        return "tool_calls" if tool_calls else "stop"
    if reason == "MAX_TOKENS":
        return "length"
    if reason in _FILTERED:
        return "content_filter"
    return "unknown"


def _count(value: Any) -> int | None:
    return value if type(value) is int else None


def _modality_tokens(usage: dict[str, Any], modality: str) -> int | None:
    """Sum of ``tokenCount`` for ``modality`` over the per-modality details."""
    total: int | None = None
    for key in ("promptTokensDetails", "candidatesTokensDetails"):
        details = usage.get(key)
        if type(details) is not list:
            continue
        for item in details:
            if type(item) is dict and item.get("modality") == modality:
                count = _count(item.get("tokenCount"))
                if count is not None:
                    total = (total or 0) + count
    return total


def map_usage(usage: dict[str, Any]) -> ChatUsage:
    """``usageMetadata`` -> :class:`ChatUsage`: output is ``candidatesTokenCount``
    (thoughts are reported apart as reasoning tokens, as Gemini does); audio is
    summed from the per-modality details; missing counts stay ``None``."""
    return ChatUsage(
        input_tokens=_count(usage.get("promptTokenCount")),
        output_tokens=_count(usage.get("candidatesTokenCount")),
        total_tokens=_count(usage.get("totalTokenCount")),
        cached_tokens=_count(usage.get("cachedContentTokenCount")),
        reasoning_tokens=_count(usage.get("thoughtsTokenCount")),
        audio_tokens=_modality_tokens(usage, "AUDIO"),
        raw=usage,
    )


def _b64decode(data: str) -> bytes:
    """Gemini sends standard base64; protobuf JSON also allows the URL-safe
    alphabet and missing padding, so both are accepted."""
    try:
        return binascii.a2b_base64(data, strict_mode=True)
    except (binascii.Error, ValueError):
        padded = data + "=" * (-len(data) % 4)
        if "-" in data or "_" in data:
            return base64.urlsafe_b64decode(padded)
        return base64.b64decode(padded)


def _is_audio(mime: str) -> bool:
    return mime[:6].lower() == "audio/"


class _Open:
    """The block a candidate has open: its kind, streamkit index and extras."""

    __slots__ = ("builder", "index", "kind", "mime", "signed", "unassembled")

    def __init__(self, kind: int, index: int, mime: str = "") -> None:
        self.kind = kind
        self.index = index
        self.mime = mime
        self.signed = False  # a thought signature is already attached
        self.builder: JSONPathBuilder | None = None  # for a streamed call
        self.unassembled = False  # partialArgs the builder refused arrived


class _Candidate:
    """Per-candidate (per-choice) state."""

    __slots__ = (
        "called", "choice", "citations", "ended", "extras", "next_index", "open", "terminated",
    )

    def __init__(self, choice: int) -> None:
        self.choice = choice
        self.open: _Open | None = None
        self.next_index = 0
        self.called = False  # a function call was produced
        self.ended = False
        self.terminated = False  # ended by its own finishReason (not by finish())
        self.extras: dict[str, Any] = {}  # candidate metadata last reported
        self.citations: list[Any] | None = None  # citations seen (to report each once)


class GeminiParser:
    """Gemini ``alt=sse`` chunks -> streamkit events (see the module docstring)."""

    name: ClassVar[str] = "gemini"
    framing: ClassVar[Framing] = "sse"

    def __init__(self) -> None:
        self._candidates: dict[int, _Candidate] = {}
        self._id: str | None = None
        self._model: str | None = None
        self._started = False
        self._usage: dict[str, Any] | None = None  # latest snapshot not yet reported
        self._extras: dict[str, Any] = {}  # top-level metadata last reported
        self._errored = False
        self._blocked = False
        self._logprobs: dict[int, list[Any]] = {}

    @property
    def done(self) -> bool:
        """Whether every candidate seen has its ``finishReason`` (or the prompt
        was blocked)."""
        if self._blocked:
            return True
        return bool(self._candidates) and all(c.terminated for c in self._candidates.values())

    # ------------------------------------------------------------ driving

    def feed(self, data: bytes | str, event: str | None = None) -> list[Event]:
        """Events implied by one chunk."""
        payload = decode_json(data, event)
        out: list[Event] = []
        if type(payload) is dict:
            self._chunk(payload, out)
        elif type(payload) is list:  # a JSON-array body replayed element-wise
            for item in payload:
                if type(item) is dict:
                    self._chunk(item, out)
                else:
                    self._top_extra("unknown_payloads", item, out)
        else:
            self._top_extra("unknown_payloads", payload, out)
        return out

    def finish(self) -> list[Event]:
        """Close open blocks and end candidates that got no ``finishReason``."""
        out: list[Event] = []
        self._flush_usage(out)
        candidates = self._candidates or {0: self._candidate(0, out)}
        for cand in candidates.values():
            if cand.ended:
                continue
            self._close(cand, out, None)
            cand.ended = True
            finish = FinishReason.parse("error" if self._errored else "unknown")
            out.append(ResponseEnd(finish_reason=finish,
                                   terminated=False, choice=cand.choice))
        return out

    # ------------------------------------------------------------ chunks

    def _chunk(self, payload: dict[str, Any], out: list[Event]) -> None:
        if (not self._started or payload.get("responseId") != self._id
                or payload.get("modelVersion") != self._model):
            self._identity(payload, out)
        usage = payload.get("usageMetadata")
        if type(usage) is dict:
            self._usage = usage
        candidates = payload.get("candidates")
        if type(candidates) is list:
            for position, cand in enumerate(candidates):
                if type(cand) is dict:
                    self._candidate_chunk(cand, position, out)
        for key in payload:
            if key not in _TOP_LEVEL:
                self._top_extra(key, payload[key], out)
        if "promptFeedback" in payload:
            self._prompt_feedback(payload["promptFeedback"], out)
        if "error" in payload:
            self._error(payload, out)
        elif not candidates:  # a usage-only (or empty) chunk: report usage now
            self._flush_usage(out)

    def _identity(self, payload: dict[str, Any], out: list[Event]) -> None:
        """ResponseStart at the first chunk naming the response; later a new
        model is reported, and a differing response id is kept in metadata
        (the first id stays the response's id)."""
        rid = payload.get("responseId")
        model = payload.get("modelVersion")
        if not self._started:
            if rid is None and model is None:
                return
            self._started = True
            self._id, self._model = rid, model
            metadata = {"createTime": payload["createTime"]} if "createTime" in payload else {}
            for choice in sorted(self._candidates) or [0]:
                out.append(ResponseStart(id=rid, model=model, metadata=metadata, choice=choice))
            return
        if rid is not None and self._id is None:  # the first chunks named no response
            self._id = rid
            out.append(ResponseMetadata(id=rid))
        if model is not None and model != self._model:
            self._model = model
            out.append(ResponseMetadata(model=model))
        if rid is not None and rid != self._id:
            seen = self._extras.get("otherResponseIds", [])
            if rid not in seen:
                self._extras["otherResponseIds"] = seen = [*seen, rid]
                out.append(ResponseMetadata(metadata={"otherResponseIds": seen}))

    def _candidate(self, choice: int, out: list[Event]) -> _Candidate:
        cand = self._candidates.get(choice)
        if cand is None:
            cand = self._candidates[choice] = _Candidate(choice)
            if self._started and choice != 0:
                out.append(ResponseStart(id=self._id, model=self._model, choice=choice))
        return cand

    def _candidate_chunk(self, data: dict[str, Any], position: int, out: list[Event]) -> None:
        choice = data.get("index", position)
        if type(choice) is not int:
            choice = position
        cand = self._candidates.get(choice) or self._candidate(choice, out)
        content = data.get("content")
        if type(content) is dict:
            parts = content.get("parts")
            if type(parts) is list:
                for part in parts:
                    if type(part) is not dict:
                        self._raw_part({"unknown": part}, cand, out)
                        continue
                    if len(part) == 1:  # the hot path: a bare text part continuing text
                        text = part.get("text")
                        current = cand.open
                        if (type(text) is str and text and current is not None
                                and current.kind == _TEXT):
                            out.append(BlockDelta(index=current.index, delta=TextDelta(text),
                                                  choice=choice))
                            continue
                    self._part(part, cand, out)
            for key, value in content.items():
                if key not in ("parts", "role") or (key == "role" and value != "model"):
                    self._candidate_extra(cand, "content." + key, value, out)
        for key in data:
            if key not in _CANDIDATE_HANDLED:
                self._candidate_extra(cand, key, data[key], out)
        citations = data.get("citationMetadata")
        if citations is not None:
            self._citations(cand, citations, out)
        reason = data.get("finishReason")
        if reason is not None:
            self._finish_candidate(cand, reason, out)

    # ------------------------------------------------------------ parts

    def _part(self, part: dict[str, Any], cand: _Candidate, out: list[Event]) -> None:
        if "text" in part:
            self._text_part(part, cand, out)
        elif "functionCall" in part:
            self._function_call(part, cand, out)
        elif "inlineData" in part:
            self._inline_data(part, cand, out)
        elif "fileData" in part:
            self._file_data(part, cand, out)
        elif set(part) <= {"thoughtSignature", "thought"}:
            self._signature_only(part, cand, out)
        else:
            self._raw_part(part, cand, out)

    def _text_part(self, part: dict[str, Any], cand: _Candidate, out: list[Event]) -> None:
        text = part.get("text")
        signature = part.get("thoughtSignature")
        if type(text) is not str or not text:
            # an empty (trailing) text part: only its signature and extras matter
            self._signature_only(part, cand, out)
            return
        kind = _THINKING if part.get("thought") is True else _TEXT
        current = cand.open
        if (current is None or current.kind != kind
                or (signature is not None and current.signed)):
            current = self._start(cand, kind, TextBlock() if kind == _TEXT else ThinkingBlock(),
                                  out)
        delta = TextDelta(text) if kind == _TEXT else ThinkingDelta(text)
        out.append(BlockDelta(index=current.index, delta=delta, choice=cand.choice))
        self._sign(cand, current, signature, out)
        extras = {k: v for k, v in part.items()
                  if k not in ("text", "thought", "thoughtSignature")}
        if extras:
            out.append(BlockDelta(index=current.index, delta=MetadataDelta(extras),
                                  choice=cand.choice))

    def _signature_only(self, part: dict[str, Any], cand: _Candidate, out: list[Event]) -> None:
        """A part with no content of its own: its signature and extras go to the
        preceding block (a new empty block only if there is none)."""
        signature = part.get("thoughtSignature")
        extras = {k: v for k, v in part.items()
                  if k not in ("text", "thought", "thoughtSignature")}
        if signature is None and not extras:
            return  # an empty text part: nothing to keep
        current = cand.open
        if current is None:
            thought = part.get("thought") is True
            current = self._start(cand, _THINKING if thought else _TEXT,
                                  ThinkingBlock() if thought else TextBlock(), out)
        self._sign(cand, current, signature, out)
        if extras:
            out.append(BlockDelta(index=current.index, delta=MetadataDelta(extras),
                                  choice=cand.choice))

    def _sign(self, cand: _Candidate, current: _Open, signature: Any, out: list[Event]) -> None:
        if type(signature) is str:
            current.signed = True
            out.append(BlockDelta(index=current.index, delta=SignatureDelta(signature),
                                  choice=cand.choice))

    def _function_call(self, part: dict[str, Any], cand: _Candidate, out: list[Event]) -> None:
        call = part.get("functionCall")
        if type(call) is not dict:
            self._raw_part(part, cand, out)
            return
        cand.called = True
        current = cand.open
        streaming = current is not None and current.kind == _CALL
        if streaming and "name" in call:  # a new call while one was streaming
            self._close(cand, out, None)
            current, streaming = None, False
        if current is not None and streaming:
            self._partial_args(cand, current, call, out)
            self._sign(cand, current, part.get("thoughtSignature"), out)
            if not call.get("willContinue"):
                self._close(cand, out, None)
            return
        if not call:  # a stray terminator with no call streaming: nothing to close
            self._signature_only(part, cand, out)
            return
        known = ("name", "args", "id", "partialArgs", "willContinue")
        metadata = {k: v for k, v in call.items() if k not in known}
        metadata.update({k: v for k, v in part.items()
                         if k not in ("functionCall", "thoughtSignature")})
        call_id = call.get("id")
        name = call.get("name")
        block = ToolCallBlock(call_id if type(call_id) is str and call_id else new_block_id("call"),
                              name if type(name) is str else "", metadata=metadata)
        if call.get("willContinue") or "partialArgs" in call:  # Vertex streamed arguments
            current = self._start(cand, _CALL, block, out)
            current.builder = JSONPathBuilder()
            self._partial_args(cand, current, call, out)
            self._sign(cand, current, part.get("thoughtSignature"), out)
            if not call.get("willContinue"):
                self._close(cand, out, None)
            return
        args = call.get("args")
        block.input = _ENCODE(args if args is not None else {}).decode()
        current = self._start(cand, _TOOL, block, out)
        self._sign(cand, current, part.get("thoughtSignature"), out)

    def _partial_args(self, cand: _Candidate, current: _Open, call: dict[str, Any],
                      out: list[Event]) -> None:
        """Vertex ``partialArgs`` -> argument JSON text, via JSONPathBuilder."""
        updates = call.get("partialArgs")
        if type(updates) is not list or current.builder is None:
            return
        fragments: list[str] = []
        for update in updates:
            if type(update) is not dict:
                self._unassembled(cand, current, update, out)
                continue
            value: JSONPathValue
            if "stringValue" in update:
                value = update["stringValue"]
            elif "numberValue" in update:
                value = update["numberValue"]
            elif "boolValue" in update:
                value = update["boolValue"]
            elif "nullValue" in update:
                value = None
            else:
                self._unassembled(cand, current, update, out)
                continue
            try:
                fragments.append(current.builder.update(
                    update.get("jsonPath", ""), value, bool(update.get("willContinue"))))
            except (ValueError, TypeError):
                self._unassembled(cand, current, update, out)
        text = "".join(fragments)
        if text:
            out.append(BlockDelta(index=current.index, delta=ToolInputDelta(text),
                                  choice=cand.choice))

    def _unassembled(self, cand: _Candidate, current: _Open, update: Any,
                     out: list[Event]) -> None:
        """An update the builder cannot place (out of order, unknown value kind):
        kept in the block's metadata and the call marked incomplete at its end."""
        current.unassembled = True
        out.append(BlockDelta(index=current.index,
                              delta=MetadataAppendDelta("unassembledPartialArgs", [update]),
                              choice=cand.choice))

    def _inline_data(self, part: dict[str, Any], cand: _Candidate, out: list[Event]) -> None:
        inline = part.get("inlineData")
        if type(inline) is not dict or type(inline.get("data", "")) is not str:
            self._raw_part(part, cand, out)
            return
        mime = inline.get("mimeType")
        mime = mime if type(mime) is str else ""
        raw = _b64decode(inline.get("data", ""))
        signature = part.get("thoughtSignature")
        extras = {k: v for k, v in inline.items() if k not in ("mimeType", "data", "displayName")}
        extras.update({k: v for k, v in part.items()
                       if k not in ("inlineData", "thoughtSignature")})
        current = cand.open
        if _is_audio(mime):
            if (current is None or current.kind != _AUDIO or current.mime != mime
                    or (signature is not None and current.signed)):
                name = inline.get("displayName")
                current = self._start(cand, _AUDIO, DataBlock(
                    media_type=mime, name=name if type(name) is str else None), out)
                current.mime = mime
            out.append(BlockDelta(index=current.index, delta=DataDelta(raw),
                                  choice=cand.choice))
            if extras:
                out.append(BlockDelta(index=current.index, delta=MetadataDelta(extras),
                                      choice=cand.choice))
        else:
            name = inline.get("displayName")
            current = self._start(cand, _OTHER, DataBlock(
                media_type=mime, name=name if type(name) is str else None,
                source=Base64Source(raw, mime), metadata=extras), out)
        self._sign(cand, current, signature, out)

    def _file_data(self, part: dict[str, Any], cand: _Candidate, out: list[Event]) -> None:
        data = part.get("fileData")
        if type(data) is not dict or type(data.get("fileUri")) is not str:
            self._raw_part(part, cand, out)
            return
        mime = data.get("mimeType")
        mime = mime if type(mime) is str else ""
        extras = {k: v for k, v in data.items() if k not in ("mimeType", "fileUri", "displayName")}
        extras.update({k: v for k, v in part.items() if k not in ("fileData", "thoughtSignature")})
        name = data.get("displayName")
        current = self._start(cand, _OTHER, DataBlock(
            media_type=mime, name=name if type(name) is str else None,
            source=URLSource(data["fileUri"], mime), metadata=extras), out)
        self._sign(cand, current, part.get("thoughtSignature"), out)

    def _raw_part(self, part: dict[str, Any], cand: _Candidate, out: list[Event]) -> None:
        """``executableCode``, ``codeExecutionResult``, ``functionResponse`` and
        part kinds this version does not know: the whole part, kept."""
        kind = next((k for k in part if k not in ("thought", "thoughtSignature")), "unknown")
        current = self._start(cand, _OTHER, RawBlock(kind, dict(part)), out)
        self._sign(cand, current, part.get("thoughtSignature"), out)

    # ------------------------------------------------------------ blocks

    def _start(self, cand: _Candidate, kind: int, block: Block, out: list[Event]) -> _Open:
        """Close the candidate's open block and open ``block`` after it."""
        if cand.open is not None:
            self._close(cand, out, None)
        current = _Open(kind, cand.next_index)
        cand.next_index += 1
        cand.open = current
        out.append(BlockStart(index=current.index, block=block, choice=cand.choice))
        return current

    def _close(self, cand: _Candidate, out: list[Event], reason: str | None) -> None:
        """End the open block; a streamed call gets its closing JSON text, and is
        marked incomplete when cut at MAX_TOKENS or when updates were refused."""
        current = cand.open
        if current is None:
            return
        cand.open = None
        snapshot = None
        if current.kind == _CALL and current.builder is not None:
            tail = current.builder.close()
            if tail:
                out.append(BlockDelta(index=current.index, delta=ToolInputDelta(tail),
                                      choice=cand.choice))
            if reason == "MAX_TOKENS" or current.unassembled:
                snapshot = ToolCallBlock(incomplete=True)
        out.append(BlockEnd(index=current.index, snapshot=snapshot, choice=cand.choice))

    # ------------------------------------------------------------ response level

    def _finish_candidate(self, cand: _Candidate, reason: Any, out: list[Event]) -> None:
        raw = reason if type(reason) is str else str(reason)
        self._close(cand, out, raw)
        self._flush_usage(out)
        cand.ended = cand.terminated = True
        finish = FinishReason.parse(map_finish_reason(raw, cand.called))
        out.append(ResponseEnd(finish_reason=finish,
                               stop_reason=raw, terminated=True, choice=cand.choice))

    def _citations(self, cand: _Candidate, metadata: Any, out: list[Event]) -> None:
        """Each citation once: on the open text block, else in response metadata."""
        citations = metadata.get("citations") if type(metadata) is dict else None
        if type(citations) is not list:
            self._candidate_extra(cand, "citationMetadata", metadata, out)
            return
        seen = cand.citations if cand.citations is not None else []
        fresh = [c for c in citations if c not in seen]
        if not fresh:
            return
        cand.citations = [*seen, *fresh]
        current = cand.open
        if current is not None and current.kind == _TEXT:
            for citation in fresh:
                item = citation if type(citation) is dict else {"value": citation}
                out.append(BlockDelta(index=current.index, delta=CitationDelta(item),
                                      choice=cand.choice))
        else:
            out.append(ResponseMetadata(metadata={"citations": cand.citations},
                                        choice=cand.choice))

    def _candidate_extra(self, cand: _Candidate, key: str, value: Any, out: list[Event]) -> None:
        """Candidate metadata, reported only when it changes (``safetyRatings``
        repeats on every chunk); per-chunk token logprobs are accumulated."""
        if key == "logprobsResult":
            chunks = self._logprobs.setdefault(cand.choice, [])
            chunks.append(value)
            out.append(ResponseMetadata(metadata={"logprobsResult": chunks}, choice=cand.choice))
            return
        if key in cand.extras and cand.extras[key] == value:
            return
        cand.extras[key] = value
        out.append(ResponseMetadata(metadata={key: value}, choice=cand.choice))

    def _top_extra(self, key: str, value: Any, out: list[Event]) -> None:
        if key in self._extras and self._extras[key] == value:
            return
        self._extras[key] = value
        out.append(ResponseMetadata(metadata={key: value}))

    def _prompt_feedback(self, feedback: Any, out: list[Event]) -> None:
        """``promptFeedback`` is kept; a ``blockReason`` means the prompt was
        blocked and no candidate follows: every choice ends as content_filter."""
        self._top_extra("promptFeedback", feedback, out)
        reason = feedback.get("blockReason") if type(feedback) is dict else None
        if reason is None:
            return
        self._blocked = True
        self._flush_usage(out)
        for cand in list(self._candidates.values()) or [self._candidate(0, out)]:
            if not cand.ended:
                self._close(cand, out, None)
                cand.ended = True
                finish = FinishReason.parse("content_filter")
                out.append(ResponseEnd(finish_reason=finish, stop_reason=str(reason),
                                       terminated=True, choice=cand.choice))

    def _flush_usage(self, out: list[Event]) -> None:
        if self._usage is not None:
            out.append(UsageUpdate(usage=map_usage(self._usage)))
            self._usage = None

    def _error(self, payload: dict[str, Any], out: list[Event]) -> None:
        """``{"error": {"code": 429, "message": ..., "status": "RESOURCE_EXHAUSTED"}}``."""
        self._errored = True
        self._flush_usage(out)
        error = payload.get("error")
        if type(error) is dict:
            code = error.get("code")
            status = error.get("status")
            message = error.get("message")
            out.append(ErrorEvent(
                message=str(message if message is not None else error),
                status=code if type(code) is int else None,
                code=str(code) if code is not None and type(code) is not int else None,
                error_type=status if type(status) is str else None,
                raw=payload,
            ))
        else:
            out.append(ErrorEvent(message=str(error), raw=payload))
