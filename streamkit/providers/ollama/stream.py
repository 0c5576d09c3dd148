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

Mapping: ``content`` / ``response`` -> text, ``thinking`` -> thinking (a change
of kind closes the open block), each ``tool_calls`` entry -> a complete
:class:`~streamkit.blocks.ToolCallBlock` (Ollama sends ``arguments`` as an
object: its JSON text is the input; an id is generated unless one is given),
``images`` -> complete data blocks. Counters -> usage (``total_tokens`` is their
sum: Ollama counts prompt and output tokens separately and nothing else), the
whole set of counters and durations in ``raw``. Per-token ``logprobs`` are
accumulated in response metadata.

Terminator: the ``done: true`` line (``ResponseEnd(terminated=True)``). Ollama
reports ``done_reason: "stop"`` also when the model called tools; that is
reported as ``tool_calls`` (the raw reason stays in ``stop_reason``), as for
Gemini. ``load`` / ``unload`` (a request that only loaded or unloaded the model)
end as ``stop``. Without a ``done`` line, :meth:`OllamaParser.finish` ends with
``unknown`` and ``terminated=False``.
"""

from __future__ import annotations

import binascii
from typing import Any, ClassVar

import msgspec

from ...blocks import Base64Source, DataBlock, TextBlock, ThinkingBlock, ToolCallBlock, new_block_id
from ...events import (
    BlockDelta,
    BlockEnd,
    BlockStart,
    ErrorEvent,
    Event,
    ResponseEnd,
    ResponseMetadata,
    ResponseStart,
    TextDelta,
    ThinkingDelta,
    UsageUpdate,
)
from ...finish import FinishReason
from ...usage import ChatUsage
from ..base import Framing, decode_json

__all__ = ["OllamaParser", "map_done_reason", "map_usage"]

_FINISH = {"stop": "stop", "length": "length", "load": "stop", "unload": "stop"}
_COUNTERS = (
    "total_duration", "load_duration", "prompt_eval_count", "prompt_eval_duration",
    "eval_count", "eval_duration",
)
# Top-level keys handled by name; any other key is kept as response metadata.
_HANDLED = frozenset({
    "model", "created_at", "message", "response", "thinking", "done", "done_reason",
    "context", "error", "logprobs", *_COUNTERS,
})
_MESSAGE_HANDLED = frozenset({"role", "content", "thinking", "tool_calls", "images"})
_ENCODE = msgspec.json.encode

_TEXT = 1
_THINKING = 2

# Magic numbers of the image formats Ollama's image models return; Ollama
# sends the bytes without a media type.
_IMAGE_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF8", "image/gif"),
)


def map_done_reason(reason: str | None, tool_calls: bool = False) -> str:
    """The uniform finish reason for Ollama's ``done_reason``."""
    if reason is None:
        return "unknown"
    finish = _FINISH.get(reason, "unknown")
    return "tool_calls" if finish == "stop" and tool_calls and reason == "stop" else finish


def map_usage(line: dict[str, Any]) -> ChatUsage | None:
    """The counters of a ``done`` line -> :class:`ChatUsage` (``None`` if none)."""
    raw = {k: line[k] for k in _COUNTERS if k in line}
    if not raw:
        return None
    prompt = raw.get("prompt_eval_count")
    output = raw.get("eval_count")
    prompt = prompt if type(prompt) is int else None
    output = output if type(output) is int else None
    total = prompt + output if prompt is not None and output is not None else None
    return ChatUsage(input_tokens=prompt, output_tokens=output, total_tokens=total, raw=raw)


def _media_type(data: bytes) -> str:
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
        self._kind = 0  # kind of the open block (0: none)
        self._index = -1  # its streamkit index
        self._next_index = 0
        self._started = False
        self._model: str | None = None
        self._ended = False
        self._terminated = False  # the done line was seen
        self._errored = False
        self._called = False
        self._extras: dict[str, Any] = {}  # metadata last reported, by key
        self._logprobs: list[Any] | None = None

    @property
    def done(self) -> bool:
        """Whether the ``done: true`` line has been seen."""
        return self._terminated

    def feed(self, data: bytes | str, event: str | None = None) -> list[Event]:
        """Events implied by one NDJSON line."""
        line = decode_json(data, event)
        if type(line) is not dict:
            out: list[Event] = []
            self._extra("unknown_lines", [*self._extras.get("unknown_lines", []), line], out)
            return out
        message = line.get("message")
        if (self._kind == _TEXT and len(line) == 4 and line.get("done") is False
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
                return [BlockDelta(index=self._index, delta=TextDelta(content))]
        return self._line(line, message)

    def finish(self) -> list[Event]:
        """Close the open block; end the response if no ``done`` line came."""
        out: list[Event] = []
        self._close(out)
        if not self._ended:
            self._ended = True
            finish = FinishReason.parse("error" if self._errored else "unknown")
            out.append(ResponseEnd(finish_reason=finish,
                                   terminated=False))
        return out

    # ------------------------------------------------------------ lines

    def _line(self, line: dict[str, Any], message: Any) -> list[Event]:
        out: list[Event] = []
        model = line.get("model")
        if not self._started:
            if "error" not in line or len(line) > 1:
                self._started = True
                self._model = model if type(model) is str else None
                metadata = {"created_at": line["created_at"]} if "created_at" in line else {}
                out.append(ResponseStart(model=self._model, metadata=metadata))
        elif type(model) is str and model != self._model:
            self._model = model
            out.append(ResponseMetadata(model=model))
        if type(message) is dict:
            self._message(message, out)
        elif message is not None:
            self._extra("message", message, out)
        self._content(line.get("thinking"), _THINKING, out)  # /api/generate
        self._content(line.get("response"), _TEXT, out)
        logprobs = line.get("logprobs")
        if type(logprobs) is list and logprobs:
            # one growing list, shared with the response's metadata: O(1) per line
            if self._logprobs is None:
                self._logprobs = []
            self._logprobs.extend(logprobs)
            out.append(ResponseMetadata(metadata={"logprobs": self._logprobs}))
        for key in line:
            if key not in _HANDLED:
                self._extra(key, line[key], out)
        if "error" in line:
            self._error(line["error"], line, out)
        if line.get("done") is True:
            self._done(line, out)
        return out

    def _message(self, message: dict[str, Any], out: list[Event]) -> None:
        self._content(message.get("thinking"), _THINKING, out)
        self._content(message.get("content"), _TEXT, out)
        calls = message.get("tool_calls")
        if type(calls) is list:
            for call in calls:
                self._tool_call(call, out)
        elif calls is not None:
            self._extra("message.tool_calls", calls, out)
        images = message.get("images")
        if type(images) is list:
            for image in images:
                self._image(image, out)
        for key, value in message.items():
            if key not in _MESSAGE_HANDLED or (key == "role" and value != "assistant"):
                self._extra("message." + key, value, out)

    def _content(self, text: Any, kind: int, out: list[Event]) -> None:
        if type(text) is not str or not text:
            return
        if self._kind != kind:
            self._open(kind, TextBlock() if kind == _TEXT else ThinkingBlock(), out)
        delta = TextDelta(text) if kind == _TEXT else ThinkingDelta(text)
        out.append(BlockDelta(index=self._index, delta=delta))

    def _tool_call(self, call: Any, out: list[Event]) -> None:
        """One complete tool call: BlockStart with the whole call, then BlockEnd."""
        function = call.get("function") if type(call) is dict else None
        if type(function) is not dict:
            self._extra("message.tool_calls", call, out)
            return
        self._called = True
        arguments = function.get("arguments")
        if type(arguments) is str:  # some models' templates emit the JSON text itself
            text = arguments
        else:
            text = _ENCODE(arguments if arguments is not None else {}).decode()
        call_id = call.get("id")
        name = function.get("name")
        metadata = {k: v for k, v in function.items() if k not in ("name", "arguments")}
        metadata.update({k: v for k, v in call.items() if k not in ("id", "function")})
        block = ToolCallBlock(call_id if type(call_id) is str and call_id else new_block_id("call"),
                              name if type(name) is str else "", text, metadata=metadata)
        self._close(out)
        index = self._next_index
        self._next_index += 1
        out.append(BlockStart(index=index, block=block))
        out.append(BlockEnd(index=index))

    def _image(self, image: Any, out: list[Event]) -> None:
        if type(image) is not str:
            self._extra("message.images", image, out)
            return
        try:
            data = binascii.a2b_base64(image)
        except binascii.Error:
            self._extra("message.images", image, out)
            return
        self._close(out)
        index = self._next_index
        self._next_index += 1
        media_type = _media_type(data)
        out.append(BlockStart(index=index, block=DataBlock(
            media_type=media_type, source=Base64Source(data, media_type))))
        out.append(BlockEnd(index=index))

    def _done(self, line: dict[str, Any], out: list[Event]) -> None:
        self._close(out)
        reason = line.get("done_reason")
        reason = reason if type(reason) is str else None
        metadata: dict[str, Any] = {}
        if reason in ("load", "unload"):
            metadata["done_reason"] = reason
        if "context" in line:
            metadata["context"] = line["context"]
        if metadata:
            out.append(ResponseMetadata(metadata=metadata))
        usage = map_usage(line)
        if usage is not None:
            out.append(UsageUpdate(usage=usage))
        self._terminated = True
        if not self._ended:
            self._ended = True
            finish = FinishReason.parse(map_done_reason(reason, self._called))
            out.append(ResponseEnd(finish_reason=finish,
                                   stop_reason=reason, terminated=True))

    def _error(self, error: Any, line: dict[str, Any], out: list[Event]) -> None:
        self._errored = True
        if type(error) is dict:
            message = error.get("message", error)
            code = error.get("code")
            out.append(ErrorEvent(message=str(message), raw=line,
                                  code=str(code) if code is not None else None))
        else:
            out.append(ErrorEvent(message=str(error), raw=line))

    # ------------------------------------------------------------ blocks

    def _open(self, kind: int, block: TextBlock | ThinkingBlock, out: list[Event]) -> None:
        self._close(out)
        self._kind = kind
        self._index = self._next_index
        self._next_index += 1
        out.append(BlockStart(index=self._index, block=block))

    def _close(self, out: list[Event]) -> None:
        if self._kind:
            out.append(BlockEnd(index=self._index))
            self._kind = 0

    def _extra(self, key: str, value: Any, out: list[Event]) -> None:
        """Metadata the parser does not model, reported only when it changes."""
        if key in self._extras and self._extras[key] == value:
            return
        self._extras[key] = value
        out.append(ResponseMetadata(metadata={key: value}))
