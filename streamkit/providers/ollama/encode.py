"""Ollama ``/api/chat`` answers written: the NDJSON stream and the non-streamed body.

:class:`OllamaStreamEncoder` writes what ``/api/chat`` streams
(``application/x-ndjson``): one JSON object a line, each with ``model``,
``created_at``, a ``message`` and ``"done": false``::

    {"model": "m", "created_at": "...", "message": {"role": "assistant",
     "content": "Hi"}, "done": false}

- text is ``message.content``, reasoning ``message.thinking`` (with
  ``"content": ""``, as the server sends it), one line per delta;
- a tool call arrives whole on the wire: it is held until its block ends (its
  arguments come as fragments before), then written as a line with one
  ``tool_calls`` entry ``{"id", "function": {"name", "arguments": {...}}}``:
  the arguments as an object, ``{}`` when they were cut off or are not a JSON
  object (:func:`~streamkit.providers.function_tools.arguments_as_object`:
  Ollama's server keeps arguments as a JSON object, never the text). The
  call's ``id`` is written, as the server sends it since it has ids (the
  ``ollama`` Python client's model has no ``id`` field: it drops it);
- the last line is ``"done": true`` with ``done_reason`` and the counters:
  ``prompt_eval_count`` (input tokens) and ``eval_count`` (output tokens);
  the durations (``total_duration``, ``eval_duration``...) only for an answer
  read from this wire, whose counters go back as they came. Nothing is made
  up: a count the usage does not have is not written. Ollama says ``stop``
  after tool calls as after text (its reader reports ``tool_calls`` then), and
  has no word for a refusal, a content filter or a pause: those stop. The
  done line is written only when the source's end was seen (``terminated``);
- an :class:`~streamkit.model.events.ErrorEvent` is the line ``{"error":
  "message"}`` (the HTTP status stays 200, as the server's does); the HTTP
  error body before any stream is the same object (:func:`encode_error`),
  which the ``ollama`` client raises as ``ResponseError`` with the status.
  A finished response that ended in an error (replayed as events: its
  ``metadata["error"]``, the accumulator's record) ends with that error line.

Only ``/api/chat`` is written: an answer read from ``/api/generate``
(``response`` / ``thinking`` at the top level, ``context``) is written in the
chat form, its ``context`` kept on the done line.

Provenance (:mod:`streamkit.providers.encoder`): an answer read from this wire
(or made by hand) gets back the fields its reader kept: the first line's
``created_at``, unknown line and message fields, ``logprobs``, ``context``,
its own ``done_reason`` word, a call's ``index``, the raw counters (but not
the payloads its reader could not read at all, ``unknown_events``). Another
wire's answer gets none of its fields, and the time it is written as
``created_at``.

What an Ollama answer cannot hold, dropped when another wire's answer is
written (the cross-wire losses):

- the response id (Ollama names none: a reader makes one up);
- signatures and encrypted or redacted reasoning (``thinking`` is text only);
- refusals as such (the refusal text is ``content``), citations, logprobs of
  another wire;
- media: images, audio and files in an answer. A message's ``images`` is a
  request field (the ``ollama`` client's answer model takes no base64 string
  there and fails to read a line holding one; image generation is
  ``/api/generate``'s ``image``), so no answer's media is written, Ollama's
  own included (its reader still reads ``images`` a server sends);
- calls another provider ran itself (a web search, an MCP call), tool
  results and provider items of another wire;
- usage beyond the two counts: cache reads and writes (counted in
  ``prompt_eval_count``), reasoning and audio tokens;
- finish words beyond ``stop`` / ``length`` (see above), and block
  boundaries: consecutive blocks of one kind read back as one, empty blocks
  are not written, and a body holds thinking, text and calls in that order
  (one ``message``);
- more than one choice (refused).

:func:`encode_response` writes the non-streamed body from the same pieces.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import partial
from typing import Any, Final

from ...framing.ndjson import ndjson_line
from ...model.blocks import ContentBlock, TextBlock, ThinkingBlock, ToolCallBlock
from ...model.errors import UnsupportedFeatureError
from ...model.events import (
    Delta,
    ErrorEvent,
    MetadataAppendDelta,
    ResponseEnd,
    ResponseMetadata,
    ResponseStart,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
)
from ...model.response import ChatResponse
from ...model.usage import ChatUsage
from .. import encoder
from ..coerce import Wire
from ..encoder import StreamEncoder, input_tokens_for, wire_of_provider
from .content import call_entry
from .wire import FINISH_WORDS, NAME

__all__ = ["OllamaStreamEncoder", "encode_error", "encode_response"]


#: The ``done_reason`` to write: the server's own word for an answer of this
#: wire, else the word for the uniform reason (:data:`.wire.FINISH_WORDS`).
done_word = partial(encoder.finish_word, words=FINISH_WORDS)

#: Kept response fields that belong on the done line.
_DONE_FIELDS: Final = frozenset({"context", "done_reason"})
#: The accumulator's record of an in-stream error in a finished response's
#: metadata (a response replayed as events): written as the error line at the end.
_ERROR: Final = "error"
#: Response metadata a reader keeps for itself, never a line's field (the
#: envelope's own fields, unknown payloads, the error record).
_BOOKKEEPING: Final = frozenset({"created_at", "model", "message", "done", "unknown_events",
                                 _ERROR})
_MESSAGE_PREFIX: Final = "message."


def counters(usage: ChatUsage | None, *, own: bool) -> Wire:
    """The done line's counters: this wire's own (with the durations) for its
    answer, else the two counts the usage has, and nothing made up."""
    if usage is None:
        return {}
    if own and usage.raw:
        return dict(usage.raw)
    out: Wire = {}
    if usage.input_tokens is not None:
        out["prompt_eval_count"] = input_tokens_for(usage, includes_cache=True)
    if usage.output_tokens is not None:
        out["eval_count"] = usage.output_tokens
    return out


def kept_fields(metadata: dict[str, Any]) -> tuple[Wire, Wire, Wire]:
    """A response's kept fields, split into the line's, the message's
    (``message.<name>``) and the done line's (``context``, ``done_reason``)."""
    line: Wire = {}
    message: Wire = {}
    done: Wire = {}
    for key, value in metadata.items():
        if key in _BOOKKEEPING:
            continue
        if key.startswith(_MESSAGE_PREFIX):
            message[key[len(_MESSAGE_PREFIX):]] = value
        elif key in _DONE_FIELDS:
            done[key] = value
        else:
            line[key] = value
    return line, message, done


def created_at(metadata: dict[str, Any], *, own: bool) -> str:
    """The ``created_at`` time: the one the answer was read with, else now
    (Go's RFC 3339 with microseconds, as the server writes it)."""
    kept = metadata.get("created_at") if own else None
    if type(kept) is str:
        return kept
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _recorded_error(record: dict[str, Any]) -> ErrorEvent:
    """The error event an accumulator's error record stands for."""
    message = record.get("message")
    status = record.get("status")
    return ErrorEvent(message=message if type(message) is str else "error",
                      status=status if type(status) is int else None, raw=record.get("raw"))


class _Call:
    """A tool call held until its block ends: the block and its argument text."""

    __slots__ = ("block", "parts")

    def __init__(self, block: ToolCallBlock) -> None:
        self.block = block
        self.parts: list[str] = []


class OllamaStreamEncoder(StreamEncoder):
    """streamkit events -> an Ollama ``/api/chat`` NDJSON stream (see the
    module docstring)."""

    wire = NAME
    content_type = "application/x-ndjson"

    def __init__(self, dialect: str | None = None) -> None:
        super().__init__(dialect)
        self._model = ""
        self._created_at = ""
        self._blocks: dict[int, str | _Call] = {}  # index -> "content" / "thinking", or a call
        self._done: Wire = {}  # kept fields of the done line
        self._error: ErrorEvent | None = None  # an error a replayed response ended with

    def _line(self, message: Wire, **fields: Any) -> bytes:
        return ndjson_line({"model": self._model, "created_at": self._created_at,
                        "message": {"role": "assistant", "content": "", **message},
                        "done": False, **fields})

    def _fields_line(self, metadata: dict[str, Any]) -> bytes:
        """A line of its own for kept fields learnt now (none for another wire's)."""
        record = metadata.get(_ERROR)
        if type(record) is dict:
            self._error = _recorded_error(record)
        if not self.own:
            return b""
        line, message, done = kept_fields(metadata)
        self._done.update(done)
        return self._line(message, **line) if line or message else b""

    # ------------------------------------------------------------ the response

    def on_response_start(self, event: ResponseStart) -> bytes:
        if event.choice != 0:
            raise UnsupportedFeatureError(NAME, f"choice {event.choice}",
                                          "an Ollama answer is one message: encode choice 0")
        self._model = event.model or ""
        self._created_at = created_at(event.metadata, own=self.own)
        return self._fields_line(event.metadata)

    def on_metadata(self, event: ResponseMetadata) -> bytes:
        if event.choice != 0:
            return b""
        if event.model:
            self._model = event.model
        out = self._fields_line(event.metadata)
        logprobs = event.append.get("logprobs")
        if self.own and logprobs:
            out += self._line({}, logprobs=logprobs)
        return out

    def on_response_end(self, event: ResponseEnd) -> bytes:
        if event.choice != 0:
            return b""
        out = b"".join([self.on_block_end(0, index) for index in list(self._blocks)])
        if self._error is not None:
            return out + self.on_error(self._error)  # the error line ends the stream
        if not event.terminated:
            return out  # a cut stream ends without the done line
        line: Wire = {"model": self._model, "created_at": self._created_at,
                      "message": {"role": "assistant", "content": ""}, "done": True,
                      **self._done}
        word = done_word(event.finish_reason, event.stop_reason, own=self.own)
        if word is not None:
            line["done_reason"] = word
        line.update(counters(self.usage, own=self.own))
        return out + ndjson_line(line)

    def on_error(self, event: ErrorEvent) -> bytes:
        self._error = None  # said now
        raw = event.raw
        if self.own and type(raw) is dict and "error" in raw:
            return ndjson_line(raw)
        return ndjson_line(encode_error(event, event.status or 500))

    # ------------------------------------------------------------ blocks

    def on_block_start(self, choice: int, index: int, block: ContentBlock) -> bytes:
        if choice != 0:
            return b""
        kind = type(block)
        if kind is TextBlock:
            self._blocks[index] = "content"
        elif kind is ThinkingBlock:
            self._blocks[index] = "thinking"
        elif kind is ToolCallBlock:
            assert isinstance(block, ToolCallBlock)
            if self.own or not block.server_side:
                self._blocks[index] = _Call(block)
        return b""  # media, tool results, provider items: no field of an answer holds them

    def on_delta(self, choice: int, index: int, delta: Delta) -> bytes:
        target = self._blocks.get(index) if choice == 0 else None
        if target is None:
            return b""
        kind = type(delta)
        if type(target) is _Call:
            if kind is ToolInputDelta:
                assert isinstance(delta, ToolInputDelta)
                target.parts.append(delta.partial_json)
            return b""
        if kind is TextDelta and target == "content":
            assert isinstance(delta, TextDelta)
            return self._line({"content": delta.text}) if delta.text else b""
        if kind is ThinkingDelta and target == "thinking":
            assert isinstance(delta, ThinkingDelta)
            return self._line({"thinking": delta.thinking}) if delta.thinking else b""
        if kind is MetadataAppendDelta and self.own:
            assert isinstance(delta, MetadataAppendDelta)
            if delta.key == "logprobs" and delta.items:
                return self._line({}, logprobs=delta.items)
        return b""  # signatures, citations: no Ollama field says them

    def on_block_end(self, choice: int, index: int) -> bytes:
        target = self._blocks.pop(index, None) if choice == 0 else None
        if type(target) is not _Call:
            return b""
        shell = target.block
        call = ToolCallBlock(shell.id, shell.name, "".join(target.parts),
                             metadata=shell.metadata)
        return self._line({"tool_calls": [call_entry(call, own=self.own)]})


# ---------------------------------------------------------------- the non-streamed body


def encode_response(response: ChatResponse, dialect: str | None = None) -> Wire:
    """The non-streamed ``/api/chat`` body of ``response``: the done line
    carrying the whole message, its thinking, text and calls each joined in
    one field (see the module docstring)."""
    source_wire = wire_of_provider(response.provider)
    own = source_wire in (None, NAME)
    line, kept_message, done = kept_fields(response.metadata) if own else ({}, {}, {})
    message: Wire = {"role": "assistant", "content": ""}
    texts: list[str] = []
    thinking: list[str] = []
    calls: list[Wire] = []
    for block in response.content:
        if type(block) is TextBlock:
            texts.append(block.text)
        elif type(block) is ThinkingBlock:
            thinking.append(block.thinking)
        elif type(block) is ToolCallBlock and (own or not block.server_side):
            calls.append(call_entry(block, own=own))
    message["content"] = "".join(texts)
    if any(thinking):
        message["thinking"] = "".join(thinking)
    if calls:
        message["tool_calls"] = calls
    message.update(kept_message)
    body: Wire = {"model": response.model or "",
                  "created_at": created_at(response.metadata, own=own),
                  "message": message, "done": True, **line, **done}
    word = done_word(response.finished_reason, response.stop_reason, own=own)
    if word is not None:
        body["done_reason"] = word
    body.update(counters(response.usage, own=own))
    return body


def encode_error(event: ErrorEvent, status: int, dialect: str | None = None) -> Wire:
    """The body of Ollama's HTTP error answer (any status): ``{"error": message}``."""
    return {"error": event.message}
