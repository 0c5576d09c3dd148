"""Anthropic Messages responses written: the stream (SSE) and the ``Message`` body.

:class:`AnthropicStreamEncoder` writes the event sequence the API sends::

    message_start -> (content_block_start, content_block_delta*, content_block_stop)*
                  -> message_delta -> message_stop

- ``message_start`` carries the message's id, model, an empty ``content`` and
  the usage known so far, so it is written when the first block (or the end)
  comes: the usage a reader reports right after the start belongs in it.
- Blocks: ``text`` (``text_delta``; an Anthropic citation as
  ``citations_delta``), ``thinking`` (``thinking_delta``, then its
  ``signature_delta``; it opens with ``"thinking": ""``, ``"signature": ""``
  as the API's does), ``redacted_thinking`` (its ``data`` whole in the start),
  ``tool_use`` (``input: {}`` in the start, the arguments as
  ``input_json_delta``; a server tool's call as the block type it was read
  from). A call read from another wire is held until its block ends: the
  arguments go as one ``input_json_delta`` when they are a JSON object, else
  as ``{}`` (cut off, not JSON, JSON of another kind: as
  :func:`~streamkit.providers.function_tools.arguments_as_object` writes
  them in a request), since the official SDK's stream helper parses the
  arguments as they come and raises a bare ``ValueError`` on text that is no
  JSON. Whether they parse is known only at the end (a valid prefix may go on
  invalid, or be cut off), and no ``input_json_delta`` can take back what an
  earlier one said, so no fragment of them is sent before (a stream that
  ends with the call open, at an error, writes them before its end). A call
  read from this wire streams its fragments as they come, valid or not (the
  API's fine-grained tool streaming sends such text itself). A media block, or a
  provider item of another wire, has no place in an Anthropic answer and is
  left out (the indexes stay contiguous).
- errors: :func:`encode_error` is the HTTP error body (``{"type": "error",
  "error": {"type", "message"}}``, the type word of the status, as the SDK
  picks its exception by status); an in-stream error is the same object as
  the ``error`` event.
- ``message_delta`` carries the stop reason, ``stop_sequence`` (and
  ``stop_details``) and the final usage (written when the input ends, as a
  usage may follow the response's end: Gemini's last chunk); ``message_stop`` ends the stream
  when the source's end was seen (``terminated``); an :class:`ErrorEvent`
  is the API's in-stream ``error`` event.

Provenance (see :mod:`streamkit.providers.encoder`): only an answer read from
this wire (or made by hand) gets its signatures, its raw usage object, its own
stop word and the fields the reader kept (message fields, a tool call's
``caller``) written back. Usage of another wire is counted the Anthropic way:
``input_tokens`` without the cache reads and writes, which are their own
fields. A response with no usage at all says 0 input and 0 output tokens,
since every ``Message`` has a usage. ``message_start`` says the input count
when it is known then (a finished response written as a stream: its input
counts, the output 0); a stream whose count comes at its end (OpenAI's,
Gemini's) starts with 0 and says the count in ``message_delta``, whose counts
are cumulative.

:func:`encode_response` writes the non-streamed ``Message`` from the same
pieces: what the stream's blocks add up to.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from ...framing.sse import sse_event
from ...model.blocks import (
    SERVER_CALL,
    Citation,
    ContentBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)
from ...model.errors import UnsupportedFeatureError
from ...model.events import (
    CitationDelta,
    Delta,
    ErrorEvent,
    ResponseEnd,
    ResponseMetadata,
    ResponseStart,
    SignatureDelta,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
)
from ...model.response import ChatResponse
from ...model.usage import ChatUsage
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
from ..error_payloads import type_word
from ..function_tools import arguments_as_object
from .assistant import BLOCK_TYPE, assistant_blocks
from .content import own_extras, tool_id
from .wire import ENDING_FIELDS, ERROR_TYPES, FINISH_WORDS, NAME

__all__ = ["AnthropicStreamEncoder", "encode_error", "encode_response"]


#: The form of a message id (``msg_...``): what another wire's id is written in.
ID_PREFIX = "msg_"

#: The ``stop_reason`` to write: the API's own word when the answer came from
#: this wire, else the word for the uniform reason, ``end_turn`` where it has none.
stop_word = partial(encoder.finish_word, words=FINISH_WORDS)


def usage_object(usage: ChatUsage | None, *, own: bool) -> Wire:
    """The ``usage`` object: the provider's own (raw) one for this wire's answer,
    else its counts in Anthropic's fields (the cache counted apart from the input)."""
    if usage is None:
        return {"input_tokens": 0, "output_tokens": 0}
    if own and usage.raw:
        return dict(usage.raw)
    cached, created = usage.cached_tokens, usage.cache_creation_tokens
    input_tokens = input_tokens_for(usage, includes_cache=False)
    out: Wire = {"input_tokens": input_tokens, "output_tokens": usage.output_tokens or 0}
    if cached is not None:
        out["cache_read_input_tokens"] = cached
    if created is not None:
        out["cache_creation_input_tokens"] = created
    return out


def _response_fields(metadata: dict[str, Any]) -> tuple[Wire, Wire]:
    """A response's kept fields, split into the message's own and those the
    stream sends at its end (``stop_sequence``, ``stop_details``)."""
    fields = own_fields(metadata)
    ending = {key: fields.pop(key) for key in ENDING_FIELDS if key in fields}
    return fields, ending


def own_fields(metadata: dict[str, Any]) -> Wire:
    """The fields a reader of this wire kept in a response's or a block's metadata."""
    return {key: value for key, value in metadata.items()
            if key not in (SERVER_CALL, BLOCK_TYPE, "error")}


class _Block:
    """One written block: its wire index, the kind its deltas must fit, and
    (for another wire's tool call) the argument fragments held until it ends."""

    __slots__ = ("held", "index", "kind")

    def __init__(self, index: int, kind: type[ContentBlock], *, hold: bool = False) -> None:
        self.index = index
        self.kind = kind
        self.held: list[str] | None = [] if hold else None


def block_start(block: ContentBlock, *, own: bool) -> list[Wire]:
    """The ``content_block`` objects a block's start writes: one for a block
    that streams (its content follows as deltas), the whole blocks of one sent
    whole (a server tool's result, a provider item of this wire), none for
    what an Anthropic answer cannot hold."""
    if type(block) is TextBlock:
        return [{"type": "text", "text": "", **(own_extras(block) if own else {})}]
    if type(block) is ThinkingBlock:
        if block.redacted and block.encrypted is not None:
            return [{"type": "redacted_thinking", "data": block.encrypted}]
        return [{"type": "thinking", "thinking": "", "signature": ""}]
    if type(block) is ToolCallBlock:
        extras = own_fields(own_extras(block)) if own else {}
        kind = block.metadata.get(BLOCK_TYPE, "tool_use") if own else "tool_use"
        if not own and block.server_side:
            return []  # another API ran it: no answer to it can follow here
        return [{"type": kind, "id": tool_id(block.id), "name": block.name, "input": {},
                 **extras}]
    if not own:
        return []
    return assistant_blocks([block], own=True, foreign_thinking="drop")


class AnthropicStreamEncoder(StreamEncoder):
    """streamkit events -> an Anthropic Messages SSE stream (see the module docstring)."""

    wire = NAME

    def __init__(self, dialect: str | None = None) -> None:
        super().__init__(dialect)
        self._response_start: ResponseStart | None = None  # until message_start is written
        self._began = False
        self._blocks: dict[int, _Block] = {}  # streamkit index -> the block written for it
        self._next_index = 0
        self._ending: Wire = {}  # stop_sequence, stop_details...
        self._late: Wire = {}  # other fields learnt after the start
        self._errored = False
        self._pending_error: ErrorEvent | None = None  # a finished answer's, for its end
        self._end: ResponseEnd | None = None  # its message_delta waits for a later usage

    # ------------------------------------------------------------ the message

    def on_response_start(self, event: ResponseStart) -> bytes:
        if event.choice != 0:
            raise UnsupportedFeatureError(NAME, f"choice {event.choice}",
                                          "an Anthropic message is one answer: encode choice 0")
        self._response_start = event
        self._pending_error = recorded_error(event.metadata.get("error"))
        return b""

    def _begin(self) -> bytes:
        """``message_start``, once: with the usage known by now."""
        if self._began:
            return b""
        self._began = True
        start = self._response_start or ResponseStart()
        fields, ending = _response_fields(start.metadata) if self.own else ({}, {})
        self._ending.update(ending)
        message: Wire = {
            "id": response_id(start.id or "msg_streamkit", ID_PREFIX,
                              from_this_wire=self.source_wire == NAME),
            "type": "message", "role": "assistant",
            "model": start.model or "", "content": [], "stop_reason": None,
            "stop_sequence": None,
            "usage": self._start_usage(),
            **fields}
        return sse_event({"type": "message_start", "message": message}, "message_start")

    def _start_usage(self) -> Wire:
        """``message_start``'s usage: the usage known by now; else, for a
        finished response written as a stream, its input counts (the API's
        own ``message_start`` carries the input count, known before the
        answer: tests/fixtures/anthropic), the output counted in
        ``message_delta``; else 0, the count of a stream that says it only at
        its end (OpenAI's, Gemini's) going in ``message_delta``, whose counts
        are cumulative and which the SDK takes."""
        if self.usage is not None or self.foreseen_usage is None:
            return usage_object(self.usage, own=self.own)
        return {**usage_object(self.foreseen_usage, own=self.own), "output_tokens": 0}

    def on_metadata(self, event: ResponseMetadata) -> bytes:
        if self.own and event.choice == 0:
            fields, ending = _response_fields(event.metadata)
            self._ending.update(ending)
            self._late.update(fields)
        return b""

    def on_response_end(self, event: ResponseEnd) -> bytes:
        if event.choice != 0:
            return b""
        out = self._begin()
        if self._pending_error is not None and not self._errored:
            out += self.on_error(self._pending_error)  # a finished answer's error, replayed
        if self._errored:
            return out  # the error event ended the stream, as Anthropic ends one
        out = b"".join([out, *(self.on_block_end(0, index) for index in list(self._blocks))])
        self._end = event  # a usage may still come (Gemini's last chunk): written at close
        return out

    def _message_end(self, event: ResponseEnd) -> bytes:
        """``message_delta`` with the final usage, then ``message_stop`` when the
        source's end was seen."""
        self._end = None
        delta: Wire = {"stop_reason": stop_word(event.finish_reason, event.stop_reason,
                                                own=self.own),
                       "stop_sequence": None, **self._ending}
        out = sse_event({"type": "message_delta", "delta": delta, **self._late,
                   "usage": usage_object(self.usage, own=self.own)}, "message_delta")
        if event.terminated:
            out += sse_event({"type": "message_stop"}, "message_stop")
        return out

    def on_error(self, event: ErrorEvent) -> bytes:
        self._errored = True
        out = self._begin() + self._release_held()
        out += self._message_end(self._end) if self._end is not None else b""
        raw = event.raw
        if self.own and type(raw) is dict and raw.get("type") == "error":
            return out + sse_event(raw, "error")
        return out + sse_event(error_object(event, event.status or 500), "error")

    def close(self) -> bytes:
        out = self._begin() if self._response_start is not None else b""
        out += self._release_held()
        return out + (self._message_end(self._end) if self._end is not None else b"")

    # ------------------------------------------------------------ blocks

    def on_block_start(self, choice: int, index: int, block: ContentBlock) -> bytes:
        if choice != 0:
            return b""
        out = self._begin()
        written = block_start(block, own=self.own)
        for position, content_block in enumerate(written):
            wire_index = self._next_index
            self._next_index += 1
            out += sse_event({"type": "content_block_start", "index": wire_index,
                        "content_block": content_block}, "content_block_start")
            if position < len(written) - 1:  # blocks sent whole end at once
                out += sse_event({"type": "content_block_stop", "index": wire_index},
                           "content_block_stop")
            else:
                hold = type(block) is ToolCallBlock and not self.own
                self._blocks[index] = _Block(wire_index, type(block), hold=hold)
        return out

    def on_delta(self, choice: int, index: int, delta: Delta) -> bytes:
        block = self._blocks.get(index) if choice == 0 else None
        if block is None:
            return b""
        if block.held is not None:
            if type(delta) is ToolInputDelta:
                assert isinstance(delta, ToolInputDelta)
                block.held.append(delta.partial_json)
            return b""
        wire = self._delta(block, delta)
        if wire is None:
            return b""
        return _block_delta(block, wire)

    def _delta(self, block: _Block, delta: Delta) -> Wire | None:
        kind = type(delta)
        if kind is TextDelta and block.kind is TextBlock:
            assert isinstance(delta, TextDelta)
            return {"type": "text_delta", "text": delta.text}
        if kind is ToolInputDelta and block.kind is ToolCallBlock:
            assert isinstance(delta, ToolInputDelta)
            return {"type": "input_json_delta", "partial_json": arguments_json(delta.partial_json)}
        if kind is ThinkingDelta and block.kind is ThinkingBlock:
            assert isinstance(delta, ThinkingDelta)
            return {"type": "thinking_delta", "thinking": delta.thinking}
        if kind is SignatureDelta and block.kind is ThinkingBlock and self.own:
            assert isinstance(delta, SignatureDelta)
            return {"type": "signature_delta", "signature": delta.signature}
        if kind is CitationDelta and block.kind is TextBlock:
            assert isinstance(delta, CitationDelta)
            raw = _own_citation(delta.citation)
            return None if raw is None else {"type": "citations_delta", "citation": raw}
        return None  # another wire's signature, metadata, media: no Anthropic delta says it

    def on_block_end(self, choice: int, index: int) -> bytes:
        block = self._blocks.pop(index, None) if choice == 0 else None
        if block is None:
            return b""
        out = _held_arguments(block)
        return out + sse_event({"type": "content_block_stop", "index": block.index},
                         "content_block_stop")

    def _release_held(self) -> bytes:
        """The held arguments of the calls still open, for a stream that ends
        without closing them (an error, the input's end): what was received is
        not lost."""
        return b"".join(_held_arguments(block) for block in self._blocks.values())


def _block_delta(block: _Block, wire: Wire) -> bytes:
    return sse_event({"type": "content_block_delta", "index": block.index, "delta": wire},
               "content_block_delta")


def _held_arguments(block: _Block) -> bytes:
    """The one ``input_json_delta`` of another wire's call whose fragments were
    held: their text when it is a JSON object, else ``{}``."""
    if block.held is None:
        return b""
    text = "".join(block.held)
    block.held = None  # said once
    partial = text if arguments_as_object(ToolCallBlock("", "", text)) else "{}"
    return _block_delta(block, {"type": "input_json_delta",
                                "partial_json": arguments_json(partial)})


def error_object(event: ErrorEvent, status: int) -> Wire:
    """The API's error object (its HTTP error body and its in-stream ``error``
    event's data) for ``event``, with the type word of ``status``."""
    word = type_word(status, event.error_type, ERROR_TYPES,
                     client_error="invalid_request_error", server_error="api_error")
    return {"type": "error", "error": {"type": word, "message": event.message}}


def encode_error(event: ErrorEvent, status: int, dialect: str | None = None) -> Wire:
    """The body of the API's HTTP error answer with ``status``."""
    return error_object(event, status)


def _own_citation(citation: Citation) -> Wire | None:
    return citation.raw if citation.wire == NAME and citation.raw else None


# ---------------------------------------------------------------- the non-streamed body


def encode_response(response: ChatResponse, dialect: str | None = None) -> Wire:
    """The non-streamed ``Message`` body of ``response`` (see the module docstring)."""
    source_wire = wire_of_provider(response.provider)
    own = source_wire in (None, NAME)
    fields, ending = _response_fields(response.metadata) if own else ({}, {})
    content: list[Wire] = []
    for block in response.content:
        written = block_start(block, own=own)
        if written:
            written[-1] = _whole(written[-1], block, own=own)
        content += written
    return {
        "id": response_id(response.id, ID_PREFIX, from_this_wire=source_wire == NAME),
        "type": "message", "role": "assistant", "model": response.model or "",
        "content": content,
        "stop_reason": stop_word(response.finished_reason, response.stop_reason, own=own),
        "stop_sequence": None, **ending,
        "usage": usage_object(response.usage, own=own), **fields,
    }


def _whole(start: Wire, block: ContentBlock, *, own: bool) -> Wire:
    """A block's start filled with what its deltas would have said."""
    if type(block) is TextBlock:
        citations = [raw for raw in map(_own_citation, block.citations) if raw is not None]
        return {**start, "text": block.text, **({"citations": citations} if citations else {})}
    if type(block) is ThinkingBlock and start["type"] == "thinking":
        signature = block.signature if own and block.signature is not None else ""
        return {**start, "thinking": block.thinking, "signature": signature}
    if type(block) is ToolCallBlock:
        return {**start, "input": arguments_as_object(block)}
    return start
