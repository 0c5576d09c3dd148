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

What the wire has no field for is left out: signatures and encrypted
reasoning (OpenAI Chat cannot send them back), media blocks, provider items of
another wire. Consecutive blocks of one kind become one block when read back
(a Chat answer names no block boundaries). Usage of another wire is counted
OpenAI's way: ``prompt_tokens`` with the cache reads and writes included.

:func:`encode_response` writes the non-streamed body from the same pieces.
"""

from __future__ import annotations

import time
from typing import Any, Final

from ...blocks import ContentBlock, TextBlock, ThinkingBlock, ToolCallBlock
from ...events import (
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
from ...finish import FinishReason
from ...response import ChatResponse
from ...usage import ChatUsage
from ..encoder import StreamEncoder, input_tokens_for, sse, wire_of_provider
from ..error_payloads import type_word
from .choice import EXTRAS_KEY
from .dialects import get_dialect
from .response import OTHER_CHOICES
from .wire import DONE_MARKERS, ERROR_TYPES, WIRE_NAME

__all__ = ["OpenAIChatStreamEncoder", "encode_error", "encode_response"]

Wire = dict[str, Any]

#: The ``finish_reason`` written for a uniform reason of another wire; a
#: refusal, a pause or an error ends OpenAI's answer with ``stop``.
FINISH_WORDS: Final[dict[FinishReason, str]] = {
    FinishReason.STOP: "stop",
    FinishReason.LENGTH: "length",
    FinishReason.TOOL_CALLS: "tool_calls",
    FinishReason.CONTENT_FILTER: "content_filter",
}

#: Response metadata the reader keeps for itself, never a chunk's field.
_BOOKKEEPING: Final = frozenset({EXTRAS_KEY, "unknown_events", "content_filters", OTHER_CHOICES,
                                 "created"})

_DONE: Final = b"data: " + DONE_MARKERS[1] + b"\n\n"


def finish_word(finish: FinishReason | None, stop_reason: str | None, *, own: bool) -> str | None:
    """The ``finish_reason`` to write: the vendor's own word for an answer of this
    wire, else OpenAI's word for the uniform reason (``None`` stays ``None``)."""
    if own and stop_reason is not None:
        return stop_reason
    if finish is None:
        return None
    return FINISH_WORDS.get(finish, "stop")


def usage_object(usage: ChatUsage, *, own: bool, source_wire: str | None) -> Wire:
    """The ``usage`` object: the vendor's own for this wire's answer, else the
    counts in OpenAI's fields."""
    if own and usage.raw:
        return dict(usage.raw)
    prompt = input_tokens_for(usage, source_wire, includes_cache=True)
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


class _Choice:
    """What one choice has written: the role chunk, each open block's kind (the
    field its deltas go to, a tool call's position) and its end."""

    __slots__ = ("blocks", "calls", "ended", "logprobs", "role_sent")

    def __init__(self) -> None:
        self.role_sent = False
        self.blocks: dict[int, str | int] = {}  # index -> delta field, or a call's position
        self.logprobs: dict[int, list[Any]] = {}  # index -> those a whole block came with
        self.calls = 0
        self.ended: bool | None = None  # None: not ended; else whether terminated


class OpenAIChatStreamEncoder(StreamEncoder):
    """streamkit events -> an OpenAI Chat Completions chunk stream (see the
    module docstring); ``dialect`` names the vendor dialect whose reasoning
    field is written."""

    wire = WIRE_NAME

    def __init__(self, dialect: str | None = None) -> None:
        super().__init__(dialect)
        self._reasoning_field = get_dialect(dialect).reasoning_fields[0]
        self._envelope: Wire = {"id": "chatcmpl-streamkit", "object": "chat.completion.chunk",
                                "created": 0, "model": ""}
        self._choices: dict[int, _Choice] = {}

    def _chunk(self, choice: int, delta: Wire, **entry: Any) -> bytes:
        return sse({**self._envelope, "choices": [
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
        if event.choice == 0:
            self._envelope = {
                "id": event.id or "chatcmpl-streamkit", "object": "chat.completion.chunk",
                "created": created_of(event.metadata), "model": event.model or "",
                **(response_fields(event.metadata) if self.own else {})}
        return b""

    def on_metadata(self, event: ResponseMetadata) -> bytes:
        fields = response_fields(event.metadata) if self.own else {}
        if not fields:
            return b""
        return sse({**self._envelope, "choices": [], **fields})

    def on_response_end(self, event: ResponseEnd) -> bytes:
        state = self._choice(event.choice)
        out = self._role(event.choice, None)
        state.ended = event.terminated
        word = finish_word(event.finish_reason, event.stop_reason, own=self.own)
        if word is not None:
            out += self._chunk(event.choice, {}, finish_reason=word)
        return out

    def on_error(self, event: ErrorEvent) -> bytes:
        raw = event.raw
        if self.own and type(raw) is dict and type(raw.get("error")) is dict:
            return sse(raw)
        return sse(error_object(event, event.status or 500))

    def close(self) -> bytes:
        """The usage chunk, then ``[DONE]`` when every choice's end was seen."""
        out = b""
        if self.usage is not None:
            out += sse({**self._envelope, "choices": [], "usage": usage_object(
                self.usage, own=self.own, source_wire=self.source_wire)})
        ends = [state.ended for state in self._choices.values()]
        if ends and all(ends):
            out += _DONE
        return out

    # ------------------------------------------------------------ blocks

    def _role(self, choice: int, first: ContentBlock | None) -> bytes:
        """The choice's role chunk, once, before its first block (``content: ""``
        when that is text, as OpenAI's first chunk has it)."""
        state = self._choice(choice)
        if state.role_sent:
            return b""
        state.role_sent = True
        text_first = first is None or (type(first) is TextBlock and not first.refusal)
        return self._chunk(choice, {"role": "assistant", "content": "" if text_first else None,
                                    "refusal": None})

    def on_block_start(self, choice: int, index: int, block: ContentBlock) -> bytes:
        state = self._choice(choice)
        if type(block) is ToolCallBlock and (self.own or not block.server_side):
            out = self._role(choice, block)
            position = state.blocks[index] = state.calls
            state.calls += 1
            return out + self._chunk(choice, {"tool_calls": [
                {"index": position, "id": block.id, "type": "function",
                 "function": {"name": block.name, "arguments": ""}}]})
        if type(block) is TextBlock:
            state.blocks[index] = "refusal" if block.refusal else "content"
            logprobs = block.metadata.get("logprobs")
            if self.own and type(logprobs) is list and logprobs:
                state.logprobs[index] = logprobs  # after its text, as the wire has them
        elif type(block) is ThinkingBlock:
            state.blocks[index] = self._reasoning_field
        else:
            return b""  # media, tool results, provider items: no Chat delta holds them
        return self._role(choice, block)

    def on_delta(self, choice: int, index: int, delta: Delta) -> bytes:
        target = self._choice(choice).blocks.get(index)
        if target is None:
            return b""
        kind = type(delta)
        if type(target) is int:
            if kind is not ToolInputDelta:
                return b""
            assert isinstance(delta, ToolInputDelta)
            return self._chunk(choice, {"tool_calls": [
                {"index": target, "function": {"arguments": delta.partial_json}}]})
        if kind is TextDelta and target in ("content", "refusal"):
            assert isinstance(delta, TextDelta)
            return self._chunk(choice, {str(target): delta.text})
        if kind is ThinkingDelta and target == self._reasoning_field:
            assert isinstance(delta, ThinkingDelta)
            return self._chunk(choice, {str(target): delta.thinking})
        if kind is MetadataAppendDelta and self.own:
            assert isinstance(delta, MetadataAppendDelta)
            if delta.key == "logprobs" and target in ("content", "refusal"):
                return self._logprobs(choice, str(target), delta.items)
        return b""  # signatures, citations, other metadata: no Chat field says them

    def _logprobs(self, choice: int, field: str, items: list[Any]) -> bytes:
        other = "refusal" if field == "content" else "content"
        return self._chunk(choice, {}, logprobs={field: items, other: None})

    def on_block_end(self, choice: int, index: int) -> bytes:
        state = self._choice(choice)
        target = state.blocks.pop(index, None)
        logprobs = state.logprobs.pop(index, None)
        if logprobs is None:
            return b""
        return self._logprobs(choice, str(target), logprobs)


# ---------------------------------------------------------------- the non-streamed body


def encode_response(response: ChatResponse, dialect: str | None = None) -> Wire:
    """The non-streamed ``chat.completion`` body of ``response`` (one choice;
    see the module docstring for what each block becomes)."""
    source_wire = wire_of_provider(response.provider)
    own = source_wire in (None, WIRE_NAME)
    message: Wire = {"role": "assistant", "content": _joined(response, refusal=False),
                     "refusal": _joined(response, refusal=True)}
    if response.thinking:
        message[get_dialect(dialect).reasoning_fields[0]] = response.thinking
    calls = [call for call in response.tool_calls if own or not call.server_side]
    if calls:
        message["tool_calls"] = [{"id": call.id, "type": "function", "function": {
            "name": call.name, "arguments": call.input}} for call in calls]
    choice: Wire = {"index": 0, "message": message, "logprobs": _logprobs(response, own),
                    "finish_reason": finish_word(response.finished_reason,
                                                 response.stop_reason, own=own)}
    body: Wire = {"id": response.id, "object": "chat.completion",
                  "created": created_of(response.metadata), "model": response.model or "",
                  "choices": [choice], **(response_fields(response.metadata) if own else {})}
    if response.usage is not None:
        body["usage"] = usage_object(response.usage, own=own, source_wire=source_wire)
    return body


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
            found[key] = [*found.get(key, []), *items]
    return {"content": found.get("content"), "refusal": found.get("refusal")} if found else None


def error_object(event: ErrorEvent, status: int) -> dict[str, Any]:
    """OpenAI's error object (an HTTP error's body, an in-stream error's data):
    ``message``, the ``type`` word of the status, ``param`` and ``code``."""
    word = type_word(status, event.error_type, ERROR_TYPES,
                     client_error="invalid_request_error", server_error="server_error")
    return {"error": {"message": event.message, "type": word, "param": None,
                      "code": event.code}}


def encode_error(event: ErrorEvent, status: int, dialect: str | None = None) -> dict[str, Any]:
    """The body of OpenAI's HTTP error answer with ``status``."""
    return error_object(event, status)
