"""OpenAI Responses answers written: the ``response.*`` event stream (SSE) and
the non-streamed ``Response`` body.

:class:`OpenAIResponsesStreamEncoder` writes what ``POST /v1/responses`` streams,
each event with its ``type``, a ``sequence_number`` counting from 0 and the
``event: <type>`` line OpenAI sends::

    response.created -> response.in_progress
      -> per output item: response.output_item.added
           -> its parts' events -> response.output_item.done
      -> response.completed | response.incomplete | response.failed

- Output items, by position (``output_index``): consecutive blocks of one item
  share it (an answer read from this wire: the blocks' ``item_id``; another
  wire's: consecutive text blocks are one ``message``, consecutive reasoning
  one ``reasoning`` item). An item's ``output_item.done`` is written when the
  next item starts or the response ends (a later block may still be one of its
  parts); one whose blocks are still open then (interleaved tool calls) is done
  when its last block ends.
- ``message`` parts: ``content_part.added`` (``output_text`` with
  ``annotations: []``, or ``refusal``), ``output_text.delta`` (with
  ``logprobs: []``) / ``refusal.delta``, citations as
  ``output_text.annotation.added``, then ``output_text.done`` /
  ``refusal.done`` and ``content_part.done`` with the whole part.
- ``reasoning`` parts: a summary part (``reasoning_summary_part.added``,
  ``reasoning_summary_text.delta`` / ``.done``, ``reasoning_summary_part.done``);
  raw reasoning (an answer read from this wire that streamed it:
  ``content_part.added`` of ``reasoning_text``, ``reasoning_text.delta`` /
  ``.done``). ``encrypted_content`` goes on the item for this wire's answers
  only.
- ``function_call`` items: ``output_item.added`` with ``call_id`` (the block's
  id), ``name``, ``arguments: ""`` and an item id of its own (``id``, the
  block's ``item_id`` for this wire's answers), then
  ``function_call_arguments.delta`` / ``.done``; a custom tool's call
  (``custom_tool_call``) uses ``custom_tool_call_input.delta`` / ``.done``.
- Server tool items of this wire (web search, code interpreter, MCP, image
  generation...) are written back whole (``output_item.added`` /
  ``.done``), with their progress events (``response.<tool>.<status>``) and
  partial images, and with what the SDK's types require that a vendor's
  item left out (:func:`.wire.with_required_fields`: xAI's
  ``web_search_call`` has no ``action``); unknown events a reader kept go
  back as they came.
- the end: ``response.completed``; ``response.incomplete`` with
  ``incomplete_details.reason`` (``max_output_tokens`` for
  ``length``, ``content_filter``); ``response.failed`` (``error``) for a
  response that ended in an error. Each carries the whole response: its
  output items and its ``usage`` (``input_tokens`` with the prompt cache
  included, ``input_tokens_details.cached_tokens``, ``output_tokens``,
  ``output_tokens_details.reasoning_tokens``, ``total_tokens``). A stream cut
  before its end (no :class:`~streamkit.model.events.ResponseEnd`, or one with
  ``terminated=False``) gets no final event, as a cut stream has none.
- an in-stream error (:class:`~streamkit.model.events.ErrorEvent`) is the ``error``
  event in the shape the API sends for a failing stream (a recorded one:
  ``{"type": "error", "sequence_number", "error": {"type", "code", "message",
  "param"}}``, then ``response.failed`` carrying the same error). The official
  SDK raises :class:`openai.APIError` with the message on exactly that event
  (an ``error`` object in the data); the flat form its types also describe
  (``code`` / ``message`` at the top) and ``response.failed`` are only yielded
  as events, and the stream helper then fails with a ``RuntimeError`` that
  names no error. :func:`encode_error` is the HTTP error body, the same
  ``{"error": {"message", "type", "param", "code"}}`` as OpenAI Chat's.

What the wire cannot hold, dropped when another wire's answer is written:
reasoning signatures and encrypted or redacted reasoning of another wire (a
redacted block with no text is left out: a reasoning item without its
encrypted content says nothing), another wire's citations (only this wire's
annotations, or a hand-made citation with a URL, a title and both ends),
another wire's server tool calls and provider items, media blocks (the
Responses output holds images only as an image generation's result) and the
fields another wire's reader kept. Usage of another wire is counted OpenAI's
way (``input_tokens`` with the cache reads and writes; the writes also as
``input_tokens_details.cache_write_tokens``). Only choice 0 exists here: a
response of another choice is refused. Events a reader of this wire kept
whole go back with the sequence numbers they came with. A function call's
delta a vendor sent inside a message item is written as the
``function_call`` item it is, so it reads back as a call to run.

:func:`encode_response` writes the non-streamed ``Response``: the very object
the stream's final event carries, with what the SDK's model requires and a
vendor's answer may lack (``tools``, ``tool_choice``, ``parallel_tool_calls``,
the usage counts) filled in with the API's defaults.
"""

from __future__ import annotations

import time
from typing import Any

from ...framing.sse import sse_event
from ...model.blocks import (
    Block,
    ContentBlock,
    DataBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)
from ...model.data_sources import Base64Source
from ...model.errors import UnsupportedFeatureError
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
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
    TranscriptDelta,
)
from ...model.replay import events_of
from ...model.response import ChatResponse
from ..coerce import Wire
from ..encoder import StreamEncoder, arguments_json, response_id
from ..error_payloads import openai_error_object
from .citations import annotation_of
from .encode_objects import (
    DELTA_EVENTS,
    MESSAGE_PARTS,
    RESPONSE_BOOKKEEPING,
    RESPONSE_DEFAULTS,
    Item,
    Part,
    block_extras,
    complete_usage,
    count_parts,
    empty_part,
    end_status,
    is_audio,
    item_object,
    part_object,
    usage_object,
)
from .wire import FAILED_CODE, FAILED_CODES, NAME, TOOL_PROGRESS, with_required_fields

__all__ = ["OpenAIResponsesStreamEncoder", "encode_error", "encode_response"]


def failed_error(code: Any, message: str) -> dict[str, Any]:
    """A failed response's ``error`` for an error of another wire: its code
    when Responses has it (:data:`.wire.FAILED_CODES`, the only ones the SDK's
    types take), else ``server_error`` with the code said in the message (an
    OpenRouter ``502``, an Anthropic error type): nothing said is lost, the
    answer stays valid. (An answer of this wire keeps the code it came with.)"""
    if code in FAILED_CODES:
        return {"code": code, "message": message}
    said = f" (code {code})" if code is not None and str(code) not in message else ""
    return {"code": FAILED_CODE, "message": message + said}


class OpenAIResponsesStreamEncoder(StreamEncoder):
    """streamkit events -> an OpenAI Responses event stream (see the module docstring)."""

    wire = NAME

    def __init__(self, dialect: str | None = None) -> None:
        super().__init__(dialect)
        self._sequence = 0
        self._started = False
        self._response: Wire = {}  # the response object's fields besides output and usage
        self._items: list[Item] = []
        self._item_ids: dict[str, Item] = {}  # an item's id -> the latest item with it
        self._parts: dict[int, Part] = {}  # streamkit index -> its open part
        self._snapshot: Block | None = None  # the end snapshot of the block being ended
        self._error: Wire | None = None  # the last error, for response.failed
        self._kept_error: Any = None  # the error a reader of this wire recorded
        self._kept_events: Any = None  # the events it kept whole, of a response told again
        self.final: Wire | None = None
        """The response object of the final event (:func:`encode_response`)."""

    def _event(self, event_type: str, fields: Wire) -> bytes:
        payload = {"type": event_type, "sequence_number": self._sequence, **fields}
        self._sequence += 1
        return sse_event(payload, event_type)

    # ------------------------------------------------------------ the response

    def on_response_start(self, event: ResponseStart) -> bytes:
        if event.choice != 0:
            raise UnsupportedFeatureError(NAME, f"choice {event.choice}",
                                          "a Responses answer is one output: encode choice 0")
        if self._started:
            return b""
        kept = event.metadata if self.source_wire == NAME else {}
        self._kept_error = kept.get("error")
        self._kept_events = kept.get("unknown_events")
        fields = {key: value for key, value in kept.items() if key not in RESPONSE_BOOKKEEPING}
        if self.source_wire != NAME:
            fields = {**RESPONSE_DEFAULTS, **fields}
        created = fields.pop("created_at", None)
        given = event.id or "resp_streamkit"
        written_id = response_id(given, "resp_", from_this_wire=self.source_wire == NAME)
        self._response = {"id": written_id,
                          "object": "response",
                          "created_at": created if isinstance(created, int | float)
                          else int(time.time()),
                          "model": event.model or "", **fields}
        return self._begin()

    def _begin(self) -> bytes:
        if self._started:
            return b""
        self._started = True
        if not self._response:
            self._response = {"id": "resp_streamkit", "object": "response",
                              "created_at": int(time.time()), "model": "",
                              **RESPONSE_DEFAULTS}
        out = b""
        for event_type in ("response.created", "response.in_progress"):
            out += self._event(event_type, {"response": self._object("in_progress", [])})
        return out + self._kept(self._kept_events)

    @staticmethod
    def _kept(events: Any) -> bytes:
        """The events a reader of this wire kept whole (a type it did not know),
        written back as they came."""
        return b"".join(
            sse_event(kept["data"], name if type(name := kept.get("event")) is str else None)
            for kept in (events if type(events) is list else ())
            if type(kept) is dict and type(kept.get("data")) is dict)

    def _object(self, status: str, output: list[Wire], usage: Wire | None = None) -> Wire:
        head = {key: self._response[key] for key in ("id", "object", "created_at")}
        rest = {key: value for key, value in self._response.items() if key not in head}
        return {**head, "status": status, **rest, "output": output, "usage": usage}

    def on_metadata(self, event: ResponseMetadata) -> bytes:
        if not self.own or event.choice != 0:
            return b""
        for key, value in event.metadata.items():
            if key not in RESPONSE_BOOKKEEPING and key != "created_at":
                self._response[key] = value
        return self._kept(event.append.get("unknown_events"))

    def on_response_end(self, event: ResponseEnd) -> bytes:
        if event.choice != 0:
            return b""
        out = b"".join([self._begin(),
                        *(self.on_block_end(0, index) for index in list(self._parts)),
                        *(self._item_done(item) for item in self._items if not item.done)])
        status, reason = end_status(event.finish_reason, event.stop_reason, own=self.own)
        if status != "incomplete":
            self._response.pop("incomplete_details", None)
        if reason is not None:
            self._response["incomplete_details"] = {"reason": reason}
        if status == "failed" and self._error is None:
            out += self._kept_error_event()
        if status == "failed":
            self._response["error"] = self._error or {"code": "server_error",
                                                      "message": "the response failed"}
        output = [item_object(item, own=self.own) for item in self._items]
        self.final = self._object(status if event.terminated else "in_progress", output,
                                  usage_object(self.usage, own=self.own))
        if not event.terminated:
            return out
        return out + self._event(f"response.{status}", {"response": self.final})

    def on_error(self, event: ErrorEvent) -> bytes:
        out = self._begin()
        raw = event.raw
        if self.own and type(raw) is dict and raw.get("type") == "error":
            error = raw.get("error")
            fields = {key: value for key, value in raw.items()
                      if key not in ("type", "sequence_number")}
            # its own code, as OpenAI sent it (``insufficient_quota`` too, which
            # the SDK's literal set lacks): the answer written back as it came
            self._error = {"code": (error if type(error) is dict else raw).get("code"),
                           "message": event.message}
            return out + self._event("error", fields)
        status = event.status or 500
        body = openai_error_object(event, status)["error"]
        self._error = failed_error(body["code"] or body["type"], event.message)
        return out + self._event("error", {"error": body})

    def _kept_error_event(self) -> bytes:
        """The ``error`` event of a failed answer of this wire told again from
        its final response (whose metadata keeps the error it ended with)."""
        kept = self._kept_error
        if type(kept) is not dict or type(kept.get("message")) is not str:
            return b""
        status = kept.get("status")
        return self.on_error(ErrorEvent(
            message=kept["message"], code=kept.get("code"), error_type=kept.get("type"),
            status=status if type(status) is int else None, raw=kept.get("raw")))

    # ------------------------------------------------------------ items

    def _item_for(self, block: ContentBlock, kind: str) -> Item | None:
        """The item a block belongs to: the latest one when it is its part,
        else a new one (``None``: a block this item kind cannot join)."""
        item_id = block.metadata.get("item_id") if self.own else None
        latest = self._items[-1] if self._items else None
        if latest is not None and not latest.done and latest.kind == kind and kind in (
                "message", "reasoning") and (not self.own or latest.id == item_id
                                             or item_id is None):
            return latest
        return None

    def _open_item(self, kind: str, item_id: str, added: Wire) -> tuple[Item, bytes]:
        """A new item, after the ``output_item.done`` of the one before when
        its blocks are over. Only the latest item can be waiting so: an
        item's last block ending makes it done at once unless it is the
        latest (:meth:`on_block_end`), and each item gets its first block as
        it opens. So a new item looks at one item, never at all of them."""
        latest = self._items[-1] if self._items else None
        out = self._item_done(latest) if latest is not None and not latest.done \
            and latest.open == 0 else b""
        item = Item(len(self._items), kind, item_id, added)
        self._items.append(item)
        self._item_ids[item_id] = item
        out += self._event("response.output_item.added",
                           {"output_index": item.position, "item": added})
        return item, out

    def _made_id(self, prefix: str) -> str:
        return f"{prefix}_{self._response.get('id', 'streamkit')}_{len(self._items)}"

    def on_block_start(self, choice: int, index: int, block: ContentBlock) -> bytes:
        if choice != 0:
            return b""
        out = self._begin()
        kind = type(block)
        if kind is TextBlock:
            assert isinstance(block, TextBlock)
            return out + self._message_part(index, block)
        if kind is ThinkingBlock:
            assert isinstance(block, ThinkingBlock)
            return out + self._reasoning_part(index, block)
        if kind is ToolCallBlock:
            assert isinstance(block, ToolCallBlock)
            if block.server_side and not self.own:
                return out  # another API ran it: this one has no item for it
            return out + self._call(index, block)
        if kind is DataBlock and is_audio(block):
            assert isinstance(block, DataBlock)
            return out + self._audio(index, block)
        if not self.own:
            return out  # media, provider items of another wire
        if kind is RawBlock:
            assert isinstance(block, RawBlock)
            return out + self._raw(index, block)
        if kind is DataBlock:
            assert isinstance(block, DataBlock)
            return out + self._partial_image(block)
        return out

    def _message_part(self, index: int, block: TextBlock) -> bytes:
        item = self._item_for(block, "message")
        out = b""
        if item is None:
            item_id = block.metadata.get("item_id") if self.own else None
            item_id = item_id if type(item_id) is str else self._made_id("msg")
            item, out = self._open_item("message", item_id, {
                "id": item_id, "type": "message", "status": "in_progress", "role": "assistant",
                "content": []})
        kind = "refusal" if block.refusal else "output_text"
        out += self._finish_parts(item)
        part = self._add_part(item, index, kind, block)
        part.index = count_parts(item, MESSAGE_PARTS) - 1
        return out + self._event("response.content_part.added", {
            "item_id": item.id, "output_index": item.position, "content_index": part.index,
            "part": empty_part(kind)})

    def _reasoning_part(self, index: int, block: ThinkingBlock) -> bytes:
        own_kind = block.metadata.get("kind") if self.own else None
        if not self.own and block.redacted:
            return b""  # another wire's redacted reasoning: nothing this wire can say
        item = self._item_for(block, "reasoning")
        out = b""
        if item is None:
            item_id = block.metadata.get("item_id") if self.own else None
            item_id = item_id if type(item_id) is str else self._made_id("rs")
            added: Wire = {"id": item_id, "type": "reasoning", "summary": []}
            if self.own and block.encrypted is not None:
                added["encrypted_content"] = block.encrypted
            item, out = self._open_item("reasoning", item_id, added)
        if self.own and block.encrypted is not None:
            item.encrypted = block.encrypted
        if own_kind == "item":
            self._add_part(item, index, "none", block)
            return out
        kind = "reasoning_text" if own_kind == "reasoning_text" else "summary_text"
        out += self._finish_parts(item)
        part = self._add_part(item, index, kind, block)
        part.index = count_parts(item, (kind,)) - 1
        if kind == "summary_text":
            return out + self._event("response.reasoning_summary_part.added", {
                "item_id": item.id, "output_index": item.position, "summary_index": part.index,
                "part": {"type": "summary_text", "text": ""}})
        return out + self._event("response.content_part.added", {
            "item_id": item.id, "output_index": item.position, "content_index": part.index,
            "part": {"type": "reasoning_text", "text": ""}})

    def _call(self, index: int, block: ToolCallBlock) -> bytes:
        custom = self.own and block.metadata.get("custom") is True
        kind = "custom_tool_call" if custom else "function_call"
        item_id = block.metadata.get("item_id") if self.own else None
        item_id = item_id if type(item_id) is str else f"fc_{block.id}"
        call_id = block.metadata.get("call_id") if self.own else None
        added: Wire = {"id": item_id, "type": kind, "status": "in_progress",
                       "call_id": call_id if type(call_id) is str else block.id,
                       "name": block.name, ("input" if custom else "arguments"): ""}
        item, out = self._open_item(kind, item_id, added)
        self._add_part(item, index, "call", block)
        return out

    def _raw(self, index: int, block: RawBlock) -> bytes:
        latest = self._items[-1] if self._items else None
        item_id = block.metadata.get("item_id")
        if latest is not None and latest.kind == "message" and not latest.done and \
                item_id is not None and item_id == latest.id:
            # a message part streamkit does not model: in the item's final content only
            part = self._add_part(latest, index, "raw_part", block)
            part.index = count_parts(latest, MESSAGE_PARTS) - 1
            return b""
        data = with_required_fields({"type": block.kind, **block.data}, done=False)
        item, out = self._open_item(block.kind, str(data.get("id") or block.id), data)
        part = self._add_part(item, index, "raw", block)
        return out + self._progress(part, block.metadata.get("progress"))

    def _audio(self, index: int, block: DataBlock) -> bytes:
        """A spoken answer: ``response.audio.delta`` (base64) and
        ``response.audio.transcript.delta``, which belong to no output item."""
        item = Item(-1, "audio", "", {})
        item.done = True
        part = Part(item, "audio", 0, block)
        self._parts[index] = part
        out = b""
        if type(block.source) is Base64Source and block.source.raw:
            out += self._event("response.audio.delta", {"delta": block.source.data})
        if block.transcript:
            out += self._event("response.audio.transcript.delta", {"delta": block.transcript})
        return out

    def _partial_image(self, block: DataBlock) -> bytes:
        """A partial image of an image generation of this wire; the final image
        is the item's ``result``, written with the item."""
        if block.metadata.get("partial") is not True or type(block.source) is not Base64Source:
            return b""
        item_id = block.metadata.get("item_id")
        item = self._item_ids.get(item_id) if type(item_id) is str else None
        if item is None:
            return b""
        extras = block_extras(block.metadata)
        return self._event("response.image_generation_call.partial_image", {
            "item_id": item.id, "output_index": item.position,
            "partial_image_index": block.metadata.get("partial_image_index", 0),
            "partial_image_b64": block.source.data, **extras})

    def _add_part(self, item: Item, index: int, kind: str, block: ContentBlock) -> Part:
        """A new part of ``item``. (The item's earlier parts are over on the
        wire by now: their ``.done`` events, written before its first event, are
        what :meth:`_finish_parts` returns.)"""
        part = Part(item, kind, 0, block)
        item.blocks.append(part)
        item.unsaid.append(part)
        item.counts[kind] = item.counts.get(kind, 0) + 1
        item.open += 1
        self._parts[index] = part
        return part

    # ------------------------------------------------------------ deltas

    def on_delta(self, choice: int, index: int, delta: Delta) -> bytes:
        part = self._parts.get(index) if choice == 0 else None
        if part is None:
            return b""
        kind = type(delta)
        if part.kind == "audio":
            if kind is DataDelta:
                assert isinstance(delta, DataDelta)
                return self._event("response.audio.delta",
                                   {"delta": Base64Source(delta.data).data})
            if kind is TranscriptDelta:
                assert isinstance(delta, TranscriptDelta)
                return self._event("response.audio.transcript.delta", {"delta": delta.text})
            return b""
        if kind is TextDelta and part.kind in ("output_text", "refusal"):
            assert isinstance(delta, TextDelta)
            return self._content_delta(part, delta.text)
        if kind is ThinkingDelta and part.kind in ("summary_text", "reasoning_text"):
            assert isinstance(delta, ThinkingDelta)
            return self._content_delta(part, delta.thinking)
        if kind is ToolInputDelta and part.kind == "call":
            assert isinstance(delta, ToolInputDelta)
            piece = delta.partial_json if part.item.kind == "custom_tool_call" \
                else arguments_json(delta.partial_json)  # a custom tool's input is free text
            part.pieces.append(piece)
            name = part.item.kind.replace("function_call", "function_call_arguments")
            name = name.replace("custom_tool_call", "custom_tool_call_input")
            return self._event(f"response.{name}.delta", {
                "item_id": part.item.id, "output_index": part.item.position,
                "delta": piece})
        if kind is CitationDelta and part.kind == "output_text":
            assert isinstance(delta, CitationDelta)
            return self._annotation(part, delta)
        if not self.own:
            return b""  # signatures and metadata of another wire
        if kind is MetadataDelta:
            assert isinstance(delta, MetadataDelta)
            part.update(delta.metadata)
            return self._progress(part, delta.metadata.get("progress"))
        if kind is MetadataAppendDelta:
            assert isinstance(delta, MetadataAppendDelta)
            part.append(delta.key, delta.items)
        return b""

    def _content_delta(self, part: Part, text: str) -> bytes:
        part.pieces.append(text)
        prefix, number = DELTA_EVENTS[part.kind]
        fields: Wire = {"item_id": part.item.id, "output_index": part.item.position,
                        number: part.index, "delta": text}
        if part.kind == "output_text":
            fields["logprobs"] = []
        return self._event(prefix + ".delta", fields)

    def _annotation(self, part: Part, delta: CitationDelta) -> bytes:
        annotation = annotation_of(delta.citation)
        if annotation is None:
            return b""
        part.annotations.append(annotation)
        return self._event("response.output_text.annotation.added", {
            "item_id": part.item.id, "output_index": part.item.position,
            "content_index": part.index, "annotation_index": len(part.annotations) - 1,
            "annotation": annotation})

    def _progress(self, part: Part, status: Any) -> bytes:
        """A server tool's progress event (``response.web_search_call.searching``)."""
        if part.kind != "raw" or status not in TOOL_PROGRESS.get(part.item.kind, ()):
            return b""
        return self._event(f"response.{part.item.kind}.{status}", {
            "item_id": part.item.id, "output_index": part.item.position})

    # ------------------------------------------------------------ ends

    def on_snapshot(self, choice: int, index: int, snapshot: Block) -> bytes:
        self._snapshot = snapshot  # for the block's end, which comes next
        return b""

    def on_block_end(self, choice: int, index: int) -> bytes:
        snapshot, self._snapshot = self._snapshot, None
        part = self._parts.pop(index, None) if choice == 0 else None
        if part is None:
            return b""
        if self.own and snapshot is not None:
            part.update(snapshot.metadata)
            if type(snapshot) is RawBlock:
                part.block = snapshot
            if type(snapshot) is ThinkingBlock and snapshot.encrypted is not None:
                part.item.encrypted = snapshot.encrypted
            if type(snapshot) is ToolCallBlock and snapshot.incomplete:
                part.item.status = "incomplete"
        item = part.item
        if part.kind == "audio":
            return self._event("response.audio.done", {}) + self._event(
                "response.audio.transcript.done", {})
        item.open -= 1
        out = self._part_done(part)
        if item.open == 0 and not item.done and item is not self._items[-1]:
            out += self._item_done(item)
        return out

    def _finish_parts(self, item: Item) -> bytes:
        """The ``.done`` events of the item's parts still open: a part is over on
        the wire once the next one starts (a reasoning block of this wire stays
        open until its item is done, where its encrypted content comes). Only
        the parts not said done since the last call are looked at."""
        unsaid, item.unsaid = item.unsaid, []
        return b"".join([self._part_done(part) for part in unsaid])

    def _part_done(self, part: Part) -> bytes:
        if part.said_done:
            return b""
        part.said_done = True
        item = part.item
        where = {"item_id": item.id, "output_index": item.position}
        if part.kind == "call":
            field = "input" if item.kind == "custom_tool_call" else "arguments"
            name = "custom_tool_call_input" if field == "input" else "function_call_arguments"
            return self._event(f"response.{name}.done", {**where, field: part.content})
        if part.kind not in DELTA_EVENTS:
            return b""
        prefix, number = DELTA_EVENTS[part.kind]
        where[number] = part.index
        whole = part_object(part, own=self.own)
        field = "refusal" if part.kind == "refusal" else "text"
        done: Wire = {**where, field: part.content}
        if part.kind == "output_text":
            done["logprobs"] = whole.get("logprobs", [])
        out = self._event(prefix + ".done", done)
        if part.kind == "summary_text":
            return out + self._event("response.reasoning_summary_part.done",
                                     {**where, "part": whole})
        return out + self._event("response.content_part.done", {**where, "part": whole})

    def _item_done(self, item: Item) -> bytes:
        item.done = True
        return self._event("response.output_item.done", {
            "output_index": item.position, "item": item_object(item, own=self.own)})


# ---------------------------------------------------------------- the non-streamed body


def encode_response(response: ChatResponse, dialect: str | None = None) -> Wire:
    """The non-streamed ``Response`` body of ``response``: the object the final
    event of its stream carries (see the module docstring)."""
    encoder = OpenAIResponsesStreamEncoder(dialect)
    for event in events_of(response):
        encoder.feed(event)
    encoder.close()
    assert encoder.final is not None  # events_of always ends the response
    body = {**RESPONSE_DEFAULTS, **encoder.final}  # a vendor's may lack what the model requires
    if type(body.get("usage")) is dict:
        body["usage"] = complete_usage(body["usage"])
    return body


# ---------------------------------------------------------------- errors


def encode_error(event: ErrorEvent, status: int, dialect: str | None = None) -> Wire:
    """The body of OpenAI's HTTP error answer with ``status`` (the SDK picks its
    exception class by the status)."""
    return openai_error_object(event, status)
