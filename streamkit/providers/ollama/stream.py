"""Ollama's native streaming API (``/api/chat`` and ``/api/generate``), NDJSON.

Each line is one JSON object. ``/api/chat`` lines carry a ``message``::

    {"model": "llama3.2", "created_at": "...", "message": {"role": "assistant",
     "content": "Hi", "thinking": "...", "tool_calls": [{"function": {"name": ...,
     "arguments": {...}}}]}, "done": false}

``/api/generate`` lines carry ``response`` (and ``thinking``) at the top level
instead. The last line has ``"done": true`` with ``done_reason`` and the
counters (``prompt_eval_count``, ``eval_count``, durations in nanoseconds);
``/api/generate`` adds the ``context`` token array. A failure mid-stream is a
line ``{"error": "..."}`` while the HTTP status stays 200.

What each field becomes:

- the first line -> :class:`ResponseStart` with the model, its ``created_at``
  and an id made up by :mod:`streamkit.ids` (Ollama gives none; stating it in
  the event makes every accumulator of the events agree on it);
- ``thinking`` / ``content`` / ``response`` -> thinking and text deltas
  (:data:`_THINKING`, :data:`_TEXT`); a change of kind closes the open block;
- each ``tool_calls`` entry -> a complete :class:`ToolCallBlock` (Ollama sends
  ``arguments`` as an object: its JSON text is the input; an id is made up
  unless one is given); each of ``images`` -> a complete data block;
- ``logprobs`` -> appended to the response's ``metadata["logprobs"]``;
- the counters -> usage (:data:`USAGE_FIELDS`; ``total_tokens`` is the sum of
  prompt and output tokens when both are given: Ollama counts nothing else),
  the whole set of counters and durations in ``raw``;
- ``error`` -> :func:`~streamkit.providers.error_payloads.error_event`;
- any other field -> response metadata under its name (``message.<name>`` for
  the message's fields), reported when its value changes.

Hostile input never raises anything but a
:class:`~streamkit.errors.ProtocolError` (a line that is not JSON, or nested too
deeply). A field of the wrong type is treated as absent and kept as metadata
under its name, like an unknown field; a line that is not an object, a tool
call without a ``function`` object and an image that is not valid base64 are
kept whole in ``metadata["unknown_events"]``
(:func:`~streamkit.providers.unknown.unknown_payload`).

Terminator: the ``done: true`` line (``ResponseEnd(terminated=True)``). Ollama
reports ``done_reason: "stop"`` also when the model called tools; that is
reported as ``tool_calls`` (the raw reason stays in ``stop_reason``), as for
Gemini. ``load`` / ``unload`` (a request that only loaded or unloaded the model)
end as ``stop``. Without a ``done`` line, :meth:`OllamaParser.finish` ends with
``unknown`` (``error`` after an error line) and ``terminated=False``.
"""

from __future__ import annotations

import binascii
from collections.abc import Callable
from enum import Enum
from typing import Any, ClassVar, NamedTuple

import msgspec

from ...blocks import Base64Source, DataBlock, TextBlock, ThinkingBlock, ToolCallBlock, new_block_id
from ...events import (
    BlockDelta,
    BlockEnd,
    BlockStart,
    Delta,
    Event,
    ResponseEnd,
    ResponseMetadata,
    ResponseStart,
    TextDelta,
    ThinkingDelta,
    UsageUpdate,
)
from ...finish import FinishReason
from ...ids import new_id
from ...usage import ChatUsage
from ..base import Framing, Payloads, decode_json, feed_each
from ..coerce import as_dict, as_str
from ..error_payloads import error_event
from ..unknown import unknown_payload
from ..usage_fields import UsageFields, first, usage_from

__all__ = ["OllamaParser", "map_done_reason", "map_usage"]

FINISH_REASONS: dict[str, FinishReason] = {
    "stop": FinishReason.STOP,
    "length": FinishReason.LENGTH,
    "load": FinishReason.STOP,
    "unload": FinishReason.STOP,
}

USAGE_FIELDS = UsageFields(input_tokens=first("prompt_eval_count"),
                           output_tokens=first("eval_count"))

# The counters and durations of a done line: usage's raw object.
_COUNTERS = (
    "total_duration", "load_duration", "prompt_eval_count", "prompt_eval_duration",
    "eval_count", "eval_duration",
)
# Top-level fields read by name; any other is kept as response metadata.
_HANDLED = frozenset({
    "model", "created_at", "message", "response", "thinking", "done", "done_reason",
    "context", "error", "logprobs", *_COUNTERS,
})
_MESSAGE_HANDLED = frozenset({"role", "content", "thinking", "tool_calls", "images"})
_ENCODE = msgspec.json.encode

# Magic numbers of the image formats Ollama's image models return; Ollama
# sends the bytes without a media type.
_IMAGE_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF8", "image/gif"),
)


class _ContentKind(NamedTuple):
    """A kind of streamed content: the block it opens and the delta it grows by."""

    block: Callable[[], TextBlock | ThinkingBlock]
    delta: Callable[[str], Delta]


_TEXT = _ContentKind(TextBlock, TextDelta)
_THINKING = _ContentKind(ThinkingBlock, ThinkingDelta)


class _Phase(Enum):
    """Where the stream is in its one lifecycle."""

    BEFORE_FIRST_LINE = "no line yet"
    STREAMING = "the response has started"
    DONE = "the done line came: the response ended, terminated"
    CUT_OFF = "finish() ended the response without a done line"


_ENDED = frozenset({_Phase.DONE, _Phase.CUT_OFF})


def map_done_reason(reason: str | None, tool_calls: bool = False) -> FinishReason:
    """The uniform finish reason for Ollama's ``done_reason``: ``stop`` after
    tool calls is ``tool_calls``; a missing or unknown reason is ``unknown``."""
    if reason is None:
        return FinishReason.UNKNOWN
    if reason == "stop" and tool_calls:
        return FinishReason.TOOL_CALLS
    return FINISH_REASONS.get(reason, FinishReason.UNKNOWN)


def map_usage(line: dict[str, Any]) -> ChatUsage | None:
    """The counters of a ``done`` line -> :class:`ChatUsage` (``None`` if none)."""
    counters = {key: line[key] for key in _COUNTERS if key in line}
    if not counters:
        return None
    usage = usage_from(USAGE_FIELDS, counters)
    if usage.input_tokens is not None and usage.output_tokens is not None:
        usage.total_tokens = usage.input_tokens + usage.output_tokens
    return usage


def _media_type(data: bytes) -> str:
    """The image format of ``data`` by its magic number (Ollama names none)."""
    for magic, media_type in _IMAGE_MAGIC:
        if data.startswith(magic):
            return media_type
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return "application/octet-stream"


class OllamaParser:
    """Ollama NDJSON lines -> streamkit events (see the module docstring)."""

    name: ClassVar[str] = "ollama"
    framing: ClassVar[Framing] = "ndjson"

    def __init__(self) -> None:
        self._phase = _Phase.BEFORE_FIRST_LINE
        self._model: str | None = None
        self._open_kind: _ContentKind | None = None  # the open text or thinking block
        self._open_index = -1  # its streamkit index
        self._next_index = 0
        self._errored = False  # an error line came: the finish reason is error
        self._called = False  # a tool call came: "stop" means tool_calls
        self._kept: dict[str, Any] = {}  # metadata last reported, by key

    @property
    def done(self) -> bool:
        """Whether the ``done: true`` line has been seen."""
        return self._phase is _Phase.DONE

    def feed(self, data: bytes | str, event: str | None = None) -> list[Event]:
        """Events implied by one NDJSON line."""
        line = decode_json(data, event)
        if type(line) is not dict:
            return [unknown_payload(line, event)]
        message = line.get("message")
        if (self._open_kind is _TEXT and len(line) == 4 and line.get("done") is False
                and "created_at" in line and line.get("model") == self._model):
            # the hot path: {"model", "created_at", "message": {"role", "content"}, "done"}
            # or {"model", "created_at", "response", "done"}: one text fragment, one event
            if message is None:
                content = line.get("response")
            elif type(message) is dict and len(message) == 2 and (
                    message.get("role") == "assistant"):
                content = message.get("content")
            else:
                content = None
            if type(content) is str and content:
                return [BlockDelta(index=self._open_index, delta=TextDelta(content))]
        return self._line(line, message)

    def feed_into(self, payloads: Payloads, out: list[Event]) -> None:
        """The events of one network chunk's payloads, appended to ``out``."""
        feed_each(self, payloads, out)

    def fast_delta(self, name: str, data: bytes | str) -> BlockDelta | None:
        """No separate shortcut: JSON lines are not SSE reads, and :meth:`feed`
        already takes a text line in one strict decode."""
        return None

    def finish(self) -> list[Event]:
        """Close the open block; end the response if no ``done`` line came."""
        out: list[Event] = []
        self._close(out)
        if self._phase not in _ENDED:
            self._phase = _Phase.CUT_OFF
            reason = FinishReason.ERROR if self._errored else FinishReason.UNKNOWN
            out.append(ResponseEnd(finish_reason=reason, terminated=False))
        return out

    # ------------------------------------------------------------ lines

    def _line(self, line: dict[str, Any], message: Any) -> list[Event]:
        out: list[Event] = []
        self._start_or_model(line, out)
        if type(message) is dict:
            self._message(message, out)
        elif message is not None:
            self._keep("message", message, out)
        self._content(line, "thinking", _THINKING, "", out)  # /api/generate
        self._content(line, "response", _TEXT, "", out)
        logprobs = line.get("logprobs")
        if type(logprobs) is list:
            if logprobs:
                out.append(ResponseMetadata(append={"logprobs": logprobs}))
        elif logprobs is not None:
            self._keep("logprobs", logprobs, out)
        for key in line:
            if key not in _HANDLED:
                self._keep(key, line[key], out)
        if "error" in line:
            self._errored = True
            out.append(error_event(line["error"], line))
        done = line.get("done")
        if done is True:
            self._done(line, out)
        elif done is not None and done is not False:
            self._keep("done", done, out)
        return out

    def _start_or_model(self, line: dict[str, Any], out: list[Event]) -> None:
        """Start the response at the first line; later, report a new model."""
        model = line.get("model")
        name = as_str(model)
        if self._phase is _Phase.BEFORE_FIRST_LINE:
            self._phase = _Phase.STREAMING
            self._model = name
            metadata = {"created_at": line["created_at"]} if "created_at" in line else {}
            out.append(ResponseStart(id=new_id("resp"), model=name, metadata=metadata,
                                     provider=self.name))
        elif name is not None and name != self._model:
            self._model = name
            out.append(ResponseMetadata(model=name))
        if name is None and model is not None:
            self._keep("model", model, out)

    def _message(self, message: dict[str, Any], out: list[Event]) -> None:
        self._content(message, "thinking", _THINKING, "message.", out)
        self._content(message, "content", _TEXT, "message.", out)
        calls = message.get("tool_calls")
        if type(calls) is list:
            for call in calls:
                self._tool_call(call, out)
        elif calls is not None:
            self._keep("message.tool_calls", calls, out)
        images = message.get("images")
        if type(images) is list:
            for image in images:
                self._image(image, out)
        elif images is not None:
            self._keep("message.images", images, out)
        for key, value in message.items():
            if key not in _MESSAGE_HANDLED or (key == "role" and value != "assistant"):
                self._keep("message." + key, value, out)

    def _content(self, source: dict[str, Any], key: str, kind: _ContentKind, prefix: str,
                 out: list[Event]) -> None:
        """``source[key]``: more text of ``kind`` (a wrong type is kept as metadata)."""
        text = source.get(key)
        if type(text) is not str:
            if text is not None:
                self._keep(prefix + key, text, out)
            return
        if not text:
            return
        if self._open_kind is not kind:
            self._close(out)
            self._open_kind = kind
            self._open_index = self._take_index()
            out.append(BlockStart(index=self._open_index, block=kind.block()))
        out.append(BlockDelta(index=self._open_index, delta=kind.delta(text)))

    def _tool_call(self, call: Any, out: list[Event]) -> None:
        """One complete tool call: BlockStart with the whole call, then BlockEnd."""
        call_object = as_dict(call)
        function = as_dict(call_object.get("function")) if call_object is not None else None
        if call_object is None or function is None:
            out.append(unknown_payload(call, "message.tool_calls"))
            return
        self._called = True
        arguments = function.get("arguments")
        if type(arguments) is str:  # some models' templates emit the JSON text itself
            text = arguments
        else:
            text = _ENCODE(arguments if arguments is not None else {}).decode()
        call_id = as_str(call_object.get("id"))
        name = as_str(function.get("name"))
        metadata = {k: v for k, v in function.items() if k not in ("name", "arguments")}
        metadata.update({k: v for k, v in call_object.items() if k not in ("id", "function")})
        if name is None and function.get("name") is not None:  # the wrong type: kept
            metadata["name"] = function["name"]
        if call_id is None and call_object.get("id") is not None:
            metadata["id"] = call_object["id"]
        block = ToolCallBlock(call_id or new_block_id("call"), name or "", text, metadata=metadata)
        self._complete_block(block, out)

    def _image(self, image: Any, out: list[Event]) -> None:
        """One image the model made, as bytes (an entry that is not base64 is kept)."""
        try:
            data = binascii.a2b_base64(image) if type(image) is str else None
        except ValueError:  # binascii.Error, and text that is not ASCII
            data = None
        if data is None:
            out.append(unknown_payload(image, "message.images"))
            return
        media_type = _media_type(data)
        self._complete_block(DataBlock(media_type=media_type,
                                       source=Base64Source(data, media_type)), out)

    def _done(self, line: dict[str, Any], out: list[Event]) -> None:
        self._close(out)
        given = line.get("done_reason")
        reason = as_str(given)
        metadata: dict[str, Any] = {}
        if reason in ("load", "unload") or (reason is None and given is not None):
            metadata["done_reason"] = given  # load / unload, or a reason of the wrong type
        if "context" in line:
            metadata["context"] = line["context"]
        if metadata:
            out.append(ResponseMetadata(metadata=metadata))
        usage = map_usage(line)
        if usage is not None:
            out.append(UsageUpdate(usage=usage))
        if self._phase not in _ENDED:
            out.append(ResponseEnd(finish_reason=map_done_reason(reason, self._called),
                                   stop_reason=reason, terminated=True))
        self._phase = _Phase.DONE

    # ------------------------------------------------------------ blocks

    def _take_index(self) -> int:
        index = self._next_index
        self._next_index += 1
        return index

    def _complete_block(self, block: ToolCallBlock | DataBlock, out: list[Event]) -> None:
        """A block that arrives whole: the open one is closed, this one opened and ended."""
        self._close(out)
        index = self._take_index()
        out.append(BlockStart(index=index, block=block))
        out.append(BlockEnd(index=index))

    def _close(self, out: list[Event]) -> None:
        if self._open_kind is not None:
            out.append(BlockEnd(index=self._open_index))
            self._open_kind = None

    def _keep(self, key: str, value: Any, out: list[Event]) -> None:
        """Metadata the parser does not model, reported only when it changes."""
        if key in self._kept and self._kept[key] == value:
            return
        self._kept[key] = value
        out.append(ResponseMetadata(metadata={key: value}))
