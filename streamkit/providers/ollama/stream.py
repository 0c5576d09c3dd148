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

What each field becomes (the response's lifecycle and its blocks are kept by
the :class:`~streamkit.providers.ledger.BlockLedger`; this module is the table
of what Ollama's fields mean):

- the first line -> :class:`ResponseStart` with the model and its
  ``created_at``; Ollama gives no id, so the ledger makes one up, derived from
  that first line (:class:`~streamkit.model.ids.StreamIds`: its ``created_at`` and
  model tell two responses apart), as it does every block and call id: two
  parses of the same bytes are equal, and the events carry the ids;
- ``thinking`` / ``content`` / ``response`` -> thinking and text deltas
  (:data:`_THINKING`, :data:`_TEXT`: the ledger key of each kind's block); a
  change of kind closes the open block;
- each ``tool_calls`` entry -> a complete :class:`ToolCallBlock`, opened and
  closed at once (Ollama sends ``arguments`` as an object: its JSON text is
  the input; an id is made up unless one is given); each of ``images`` -> a
  complete data block (:mod:`.content` reads both parts, as the request
  reader does);
- ``logprobs`` -> appended to the response's ``metadata["logprobs"]``;
- the counters -> usage (:func:`~.wire.map_usage`), the whole set of counters
  and durations in ``raw``;
- ``error`` -> :func:`~streamkit.providers.error_payloads.error_event`;
- any other field -> response metadata under its name (``message.<name>`` for
  the message's fields), reported when its value changes.

Hostile input never raises anything but a
:class:`~streamkit.model.errors.ProtocolError` (a line that is not JSON, or nested too
deeply). A field of the wrong type is treated as absent and kept as metadata
under its name, like an unknown field; a line that is not an object, a tool
call without a ``function`` object and an image that is not valid base64 are
kept whole in ``metadata["unknown_events"]``
(:func:`~streamkit.providers.unknown.unknown_payload`).

Terminator: the ``done: true`` line (``ResponseEnd(terminated=True)``), its
reason read by :mod:`.wire` (``stop`` after tool calls is ``tool_calls``, the
raw word stays in ``stop_reason``; ``load`` / ``unload`` end as ``stop``).
Without a ``done`` line, :meth:`OllamaParser.finish` ends with ``unknown``
(``error`` after an error line) and ``terminated=False``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, NamedTuple

import msgspec

from ...model.blocks import Block, TextBlock, ThinkingBlock, ToolCallBlock
from ...model.events import (
    BlockDelta,
    Delta,
    Event,
    ResponseMetadata,
    TextDelta,
    ThinkingDelta,
    UsageUpdate,
)
from ...model.ids import StreamIds
from ...model.tool_arguments import arguments_text
from ..base import Framing, Payloads, StreamParser, decode_json, feed_each
from ..coerce import as_dict, as_str
from ..error_payloads import error_event
from ..ledger import BlockLedger, OpenBlock
from ..unknown import unknown_payload
from .content import call_metadata, image_block
from .wire import MODEL_LOADING, NAME, USAGE_COUNTERS, map_done_reason, map_usage

__all__ = ["OllamaParser"]

# Top-level fields read by name; any other is kept as response metadata.
_HANDLED = frozenset({
    "model", "created_at", "message", "response", "thinking", "done", "done_reason",
    "context", "error", "logprobs", *USAGE_COUNTERS,
})
_MESSAGE_HANDLED = frozenset({"role", "content", "thinking", "tool_calls", "images"})
_ENCODE = msgspec.json.encode


class _ContentKind(NamedTuple):
    """A kind of streamed content: the ledger key of its open block, the block
    it opens (and the prefix of its made-up id), the delta it grows by."""

    key: str
    block: Callable[..., TextBlock | ThinkingBlock]
    id_prefix: str
    delta: Callable[[str], Delta]


_TEXT = _ContentKind("text", TextBlock, "text", TextDelta)
_THINKING = _ContentKind("thinking", ThinkingBlock, "think", ThinkingDelta)
_TEXT_KEY = _TEXT.key  # a module constant: the hot path reads it per line

# Ledger keys of the blocks that arrive whole (opened and closed at once).
_CALL = "call"
_IMAGE = "image"


class OllamaParser(StreamParser):
    """Ollama NDJSON lines -> streamkit events (see the module docstring).
    ``provider`` is the registry name the responses report (``ollama``)."""

    framing: ClassVar[Framing] = "ndjson"

    def __init__(self, *, provider: str = NAME) -> None:
        self.name = provider
        self._ids = StreamIds()
        self._ledger: BlockLedger[OpenBlock] = BlockLedger(provider, self._ids)
        # The open block by content kind (at most one): the text hot path reads it.
        self._blocks = self._ledger.blocks
        self._model: str | None = None
        self._called = False  # a tool call came: "stop" means tool_calls

    def feed(self, data: bytes | str, event: str | None = None) -> list[Event]:
        """Events implied by one NDJSON line."""
        line = decode_json(data, event)
        if type(line) is not dict:
            return [unknown_payload(line, event)]
        message = line.get("message")
        text = self._blocks.get(_TEXT_KEY)
        if (text is not None and len(line) == 4 and line.get("done") is False
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
                return [BlockDelta(index=text.index, delta=TextDelta(content))]
        return self._line(line, message, data)

    def feed_into(self, payloads: Payloads, out: list[Event]) -> None:
        """The events of one network chunk's payloads, appended to ``out``, each
        by :meth:`feed`. No separate shortcut (``fast_delta``): JSON lines are
        not SSE reads, and :meth:`feed` already takes a text line in one strict
        decode."""
        feed_each(self, payloads, out)

    def finish(self) -> list[Event]:
        """End the response if no ``done`` line came (the ledger's one finish)."""
        out: list[Event] = []
        self._ledger.close_all(out)  # lines after the done line may have opened one
        self._ledger.finish(out)
        return out

    # ------------------------------------------------------------ lines

    def _line(self, line: dict[str, Any], message: Any, data: bytes | str) -> list[Event]:
        out: list[Event] = []
        self._ids.seed(data)  # the first line's: later calls change nothing
        self._start_or_model(line, out)
        if type(message) is dict:
            self._message(message, out)
        elif message is not None:
            self._ledger.report("message", message, out)
        self._content(line, "thinking", _THINKING, "", out)  # /api/generate
        self._content(line, "response", _TEXT, "", out)
        logprobs = line.get("logprobs")
        if type(logprobs) is list:
            if logprobs:
                out.append(ResponseMetadata(append={"logprobs": logprobs}))
        elif logprobs is not None:
            self._ledger.report("logprobs", logprobs, out)
        for key in line:
            if key not in _HANDLED:
                self._ledger.report(key, line[key], out)
        if "error" in line:
            self._ledger.error(error_event(line["error"], line), out)
        done = line.get("done")
        if done is True:
            self._done(line, out)
        elif done is not None and done is not False:
            self._ledger.report("done", done, out)
        return out

    def _start_or_model(self, line: dict[str, Any], out: list[Event]) -> None:
        """Start the response at the first line; later, report a new model."""
        model = line.get("model")
        name = as_str(model)
        if not self._ledger.started:
            self._model = name
            created = {"created_at": line["created_at"]} if "created_at" in line else None
            self._ledger.start(out, model=name, metadata=created)
        elif name is not None and name != self._model:
            self._model = name
            self._ledger.start(out, model=name)  # started: a ResponseMetadata
        if name is None and model is not None:
            self._ledger.report("model", model, out)

    def _message(self, message: dict[str, Any], out: list[Event]) -> None:
        self._content(message, "thinking", _THINKING, "message.", out)
        self._content(message, "content", _TEXT, "message.", out)
        for key, read in (("tool_calls", self._tool_call), ("images", self._image)):
            entries = message.get(key)
            if type(entries) is list:  # each entry a whole block
                for entry in entries:
                    read(entry, out)
            elif entries is not None:
                self._ledger.report("message." + key, entries, out)
        for key, value in message.items():
            if key not in _MESSAGE_HANDLED or (key == "role" and value != "assistant"):
                self._ledger.report("message." + key, value, out)

    def _content(self, source: dict[str, Any], key: str, kind: _ContentKind, prefix: str,
                 out: list[Event]) -> None:
        """``source[key]``: more text of ``kind`` (a wrong type is kept as metadata)."""
        text = source.get(key)
        if type(text) is not str:
            if text is not None:
                self._ledger.report(prefix + key, text, out)
            return
        if not text:
            return
        slot = self._blocks.get(kind.key)
        if slot is None:  # another kind was open, or none: the open one ends
            ledger = self._ledger
            ledger.close_all(out)
            slot = ledger.open(kind.key, kind.block(id=ledger.made_up_id(kind.id_prefix)), out)
        out.append(BlockDelta(index=slot.index, delta=kind.delta(text)))

    def _tool_call(self, call: Any, out: list[Event]) -> None:
        """One complete tool call (a ``function`` object is all it needs)."""
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
            text = arguments_text(arguments if arguments is not None else {})
        call_id = as_str(call_object.get("id"))
        name = as_str(function.get("name"))
        metadata = call_metadata(call_object, function)
        if name is None and function.get("name") is not None:  # the wrong type: kept
            metadata["name"] = function["name"]
        if call_id is None and call_object.get("id") is not None:
            metadata["id"] = call_object["id"]
        block = ToolCallBlock(call_id or self._ledger.made_up_id("call"), name or "", text,
                              metadata=metadata)
        self._whole(_CALL, block, out)

    def _image(self, image: Any, out: list[Event]) -> None:
        """One image the model made, as bytes (an entry that is not base64 is kept)."""
        block = image_block(image, self._ids)
        if block is None:
            out.append(unknown_payload(image, "message.images"))
        else:
            self._whole(_IMAGE, block, out)

    def _whole(self, key: str, block: Block, out: list[Event]) -> None:
        """A block that arrives whole: the open one ends, this one opens and ends."""
        ledger = self._ledger
        ledger.close_all(out)
        ledger.open(key, block, out)
        ledger.close(key, out)

    def _done(self, line: dict[str, Any], out: list[Event]) -> None:
        ledger = self._ledger
        ledger.close_all(out)
        given = line.get("done_reason")
        reason = as_str(given)
        metadata: dict[str, Any] = {}
        if reason in MODEL_LOADING or (reason is None and given is not None):
            metadata["done_reason"] = given  # load / unload, or a reason of the wrong type
        if "context" in line:
            metadata["context"] = line["context"]
        if metadata:
            out.append(ResponseMetadata(metadata=metadata))
        usage = map_usage(line)
        if usage is not None:
            out.append(UsageUpdate(usage=usage))
        ledger.stop_reason = reason
        ledger.end(out, map_done_reason(reason, self._called))
