"""Events -> the AI SDK UI message stream: a sans-IO encoder.

The Vercel AI SDK's browser clients (``useChat`` in React / Vue / Svelte, the
``ai`` package's ``Chat`` and ``readUIMessageStream``) read a server-sent event
stream of JSON chunks: ``start``, ``start-step``, ``text-start`` /
``text-delta`` / ``text-end``, ``reasoning-*``, ``tool-input-start`` /
``tool-input-delta`` / ``tool-input-available``, ``file``, ``source-url``,
``finish-step``, ``finish``, ``error``. :class:`UIMessageStreamEncoder` turns
each item of a streamkit stream (the events, then the final
:class:`~streamkit.model.response.ChatResponse`) into the bytes of those frames.

It is a :class:`~streamkit.providers.encoder.StreamEncoder` like the wires'
encoders: the core turns content a block starts with, and what an end snapshot
holds beyond the deltas, into the deltas that say it, and this module writes
the frames in its hooks. It emits deltas only: a text delta becomes one
``text-delta`` frame holding that delta, never the block so far. Audio and
image bytes are kept in the encoder's own buffer per block and sent once,
base64-encoded in a ``data:`` URL, when the block ends. It never reads or
changes anything an event holds beyond the event itself: events are values
shared with other consumers.

Content can never forge a frame: every frame is written by the one SSE frame
writer (:func:`~streamkit.framing.sse.sse_event`), so newlines, ``data:``,
``\\r`` stay escaped inside their JSON strings; U+2028 / U+2029 / U+0085 are
escaped too, and a lone surrogate (which UTF-8 cannot carry) is written as its
JSON escape, which the browser's ``JSON.parse`` reads back as the same string.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from ..conversation.messages import FunctionExecutionResult
from ..framing.sse import sse_event
from ..model.blocks import (
    Block,
    Citation,
    ContentBlock,
    DataBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)
from ..model.data_sources import Base64Source, URLSource
from ..model.events import (
    CitationDelta,
    DataDelta,
    Delta,
    ErrorEvent,
    Event,
    ResponseEnd,
    ResponseStart,
    SignatureDelta,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
    TranscriptDelta,
)
from ..model.response import ChatResponse
from ..providers.encoder import StreamEncoder

if TYPE_CHECKING:
    from .output import OutputParts

__all__ = ["DONE_FRAME", "UIMessageStreamEncoder", "encode_frame", "finish_reason_for_ui"]

#: The frame that ends the stream (the AI SDK's own servers send it; its
#: parser skips it).
DONE_FRAME = sse_event(b"[DONE]")

#: streamkit's finish words -> the AI SDK's ``finishReason`` enum.
_UI_FINISH = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool-calls",
    "content_filter": "content-filter",
    "refusal": "content-filter",
    "error": "error",
}

_PCM_TYPES = {"audio/pcm", "audio/l16", "audio/x-pcm", "audio/pcm16"}


def finish_reason_for_ui(reason: object) -> str:
    """The AI SDK word for a streamkit finish reason (a ``FinishReason`` or its
    string value); anything it has no word for (pause, interrupted, unknown) is
    ``other``, the raw word stays in the message metadata."""
    if reason is None:
        return "other"
    word = str(getattr(reason, "value", reason))
    return _UI_FINISH.get(word, "other")


def _frames(chunks: list[dict[str, Any]]) -> bytes:
    """The frames of several chunks, as one write."""
    return b"".join(encode_frame(chunk) for chunk in chunks)


def encode_frame(chunk: dict[str, Any]) -> bytes:
    """One SSE frame (``data: <json>\\n\\n``) for a chunk, by the one frame
    writer (:func:`~streamkit.framing.sse.sse_event`): the frame has no line
    break but its last two, whatever the chunk's strings hold."""
    return sse_event(chunk)


@dataclass(slots=True)
class _Part:
    """What the encoder keeps for one open block: just enough to emit deltas
    and the block's closing chunk without ever reading the stream's own block."""

    kind: str  # "text", "reasoning", "tool", "file", "raw"
    id: str
    snapshot: Block | None = None  # the block's end snapshot, for its closing chunks
    meta: dict[str, Any] = field(default_factory=dict)  # our providerMetadata fields
    meta_sent: dict[str, Any] = field(default_factory=dict)  # as sent with the start chunk
    name: str = ""
    fragments: list[str] = field(default_factory=list)  # tool input text
    data: bytearray = field(default_factory=bytearray)
    media_type: str = ""
    url: str | None = None
    transcript: list[str] = field(default_factory=list)
    citations: int = 0
    raw: dict[str, Any] = field(default_factory=dict)


class UIMessageStreamEncoder(StreamEncoder):
    """Encodes one assistant message of the AI SDK UI message stream protocol.

    Call :meth:`encode` with every item of a streamkit stream, in order, and
    send the bytes it returns (often empty: usage updates, metadata and the
    like wait for the final ``finish``). The final
    :class:`~streamkit.model.response.ChatResponse` closes the step: whatever is still
    open is closed (a cut-off tool call becomes ``tool-input-error``), then
    ``finish-step`` and, after the last step, ``finish`` with the usage and
    finish reason in ``messageMetadata``, then ``data: [DONE]``.

    - ``choice``: the choice rendered (``n > 1`` responses have several; one
      UI message shows one).
    - ``steps``: how many responses (model calls) the message is made of; each
      final response ends a step. ``None``: call :meth:`finish` yourself (an
      agent loop that does not know its length in advance).
    - ``metadata_key``: the ``providerMetadata`` namespace of what streamkit
      adds (thinking signatures, encrypted reasoning, a refusal flag, a
      transcript, the original citation).
    - ``pcm_as_wav``: raw PCM audio (what OpenAI and Gemini stream) is sent as
      a WAV file, the form a browser's ``<audio>`` plays.
    - ``stream_audio``: also send each audio delta at once as a transient
      ``data-audio`` chunk (``{"mediaType", "base64"}``), for pages that play
      audio while it arrives; the ``file`` part still comes at the end.
    - ``error_text``: maps an error message to the text the browser sees
      (mask provider details here if your users must not see them).
    - ``message_id``: the UI message id; by default the provider's response id.
    - ``output``: a pydantic model: the structured answer of each step also goes
      out as it streams, as a ``data-output`` part updated in place (see
      :mod:`streamkit.web.output`), at most once per ``output_interval``
      seconds (``None``: every change) by ``clock``.
    """

    wire: ClassVar[str] = "ui-message-stream"

    def __init__(
        self,
        *,
        choice: int = 0,
        steps: int | None = 1,
        metadata_key: str = "streamkit",
        pcm_as_wav: bool = True,
        stream_audio: bool = False,
        error_text: Callable[[str], str] | None = None,
        message_id: str | None = None,
        output: type[Any] | None = None,
        output_interval: float | None = 0.05,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self.choice = choice
        self.steps = steps
        self.metadata_key = metadata_key
        self.pcm_as_wav = pcm_as_wav
        self.stream_audio = stream_audio
        self.error_text = error_text
        self.message_id = message_id
        self._started = False
        self._in_step = False
        self._steps_done = 0
        self._finished = False
        self._parts: dict[int, _Part] = {}
        self._used_ids: set[str] = set()
        self._tool_parts: dict[str, str] = {}  # a call's id -> its part's toolCallId
        self._error: str | None = None
        self._error_sent = False
        self._step_metadata: list[dict[str, Any]] = []
        self._end_reason: tuple[object, str | None] | None = None
        self.output = output
        self.output_interval = output_interval
        self.clock = clock
        self._output: OutputParts | None = None

    # ------------------------------------------------------------ public

    @property
    def finished(self) -> bool:
        """Whether ``finish`` has been sent (nothing more may be encoded)."""
        return self._finished

    def encode(self, item: Event | ChatResponse) -> bytes:
        """The frames for one stream item (possibly none)."""
        if self._finished:
            raise RuntimeError("the UI message is finished; use a new encoder for the next one")
        if isinstance(item, ChatResponse):
            last = self.steps is not None and self._steps_done + 1 >= self.steps
            return self._end_step(item, last=last)
        if isinstance(item, ErrorEvent):
            self._remember_error(item.message)
            return b""
        if getattr(item, "choice", 0) != self.choice:
            return b""
        out = _frames(self._begin(item)) + self.feed(item)
        if self._output is not None:
            out += _frames(self._output.take(item))
        return out

    def encode_error(self, error: BaseException | str) -> bytes:
        """End the message after a failure the stream raised (a
        :class:`~streamkit.model.errors.StreamError`): every open part is closed with
        what was received, then ``error``, ``finish-step`` and ``finish`` (with
        the partial response's metadata when the error carries it). A provider
        error already reported by an :class:`~streamkit.model.events.ErrorEvent` is
        not reported twice."""
        if self._finished:
            return b""
        message = getattr(error, "message", None) or str(error) or type(error).__name__
        self._remember_error(str(message))
        partial = getattr(error, "partial", None)
        return self._end_step(partial if isinstance(partial, ChatResponse) else None, last=True)

    def encode_tool_result(self, result: FunctionExecutionResult) -> bytes:
        """The result of a tool call the server ran (an agent loop):
        ``tool-output-available`` with its text, or ``tool-output-error`` for
        an ``is_error`` result, for the call's part (found by the call's id).
        Send it after the call's step, before the next one."""
        if self._finished:
            raise RuntimeError("the UI message is finished; use a new encoder for the next one")
        part_id = self._tool_parts.get(result.call_id, result.call_id)
        if result.is_error:
            text = self.error_text(result.text) if self.error_text is not None else result.text
            return encode_frame({"type": "tool-output-error", "toolCallId": part_id,
                                 "errorText": text or "error"})
        return encode_frame({"type": "tool-output-available", "toolCallId": part_id,
                             "output": result.text})

    def end_step(self, response: ChatResponse | None = None) -> bytes:
        """End the current step without (or with) its final response: for
        sources that yield events only. With ``steps=None`` the message goes on."""
        if self._finished or not self._in_step:
            return b""
        last = self.steps is not None and self._steps_done + 1 >= self.steps
        return self._end_step(response, last=last)

    def finish(self, response: ChatResponse | None = None) -> bytes:
        """End the message now: a step still open is closed (with ``response``,
        its final response, when given), then ``finish`` and ``[DONE]``. For
        ``steps=None``, or a stream that stopped early."""
        if self._finished:
            return b""
        if self._in_step:
            return self._end_step(response, last=True)
        if response is not None:
            self._step_metadata.append(self._step_info(response))
        return _frames(self._begin(None, step=False)) + self._finish_frames()

    # ------------------------------------------------------------ message and steps

    def _begin(self, item: Event | None, *, step: bool = True) -> list[dict[str, Any]]:
        """``start`` before the first chunk of the message, ``start-step`` before
        the first chunk of each step."""
        chunks: list[dict[str, Any]] = []
        if not self._started:
            self._started = True
            start: dict[str, Any] = {"type": "start"}
            message_id = self.message_id
            if message_id is None and isinstance(item, ResponseStart):
                message_id = item.id
            if message_id:
                start["messageId"] = message_id
            chunks.append(start)
        if step and not self._in_step:
            self._in_step = True
            chunks.append({"type": "start-step"})
            if self.output is not None:  # pydantic is imported by whoever passes a model
                from .output import OutputParts

                self._output = OutputParts(self.output, part_id=self._unique_id("output", -1),
                                           choice=self.choice, interval=self.output_interval,
                                           clock=self.clock)
        return chunks

    def _end_step(self, response: ChatResponse | None, *, last: bool) -> bytes:
        """Close every open part, report a pending error, ``finish-step``; after
        the last step also ``finish``. A step with no content still opens and
        closes, so the message is well formed."""
        chunks = self._begin(None)
        for index in sorted(self._parts):
            chunks += self._close(self._parts.pop(index), None)
        if self._output is not None:
            chunks += self._output.finish(response)
            self._output = None
        out = _frames(chunks) + self._flush_error() + encode_frame({"type": "finish-step"})
        self._in_step = False
        self._steps_done += 1
        self._step_metadata.append(self._step_info(response))
        self._end_reason = None
        if last:
            out += self._finish_frames()
        return out

    def _finish_frames(self) -> bytes:
        """``finish`` with the last step's metadata, then ``[DONE]``."""
        self._finished = True
        finish: dict[str, Any] = {"type": "finish"}
        if self._step_metadata:
            metadata = dict(self._step_metadata[-1])
            if len(self._step_metadata) > 1:
                metadata["steps"] = self._step_metadata
            finish["finishReason"] = finish_reason_for_ui(metadata.get("finishReason"))
            finish["messageMetadata"] = metadata
        return encode_frame(finish) + DONE_FRAME

    def _step_info(self, response: ChatResponse | None) -> dict[str, Any]:
        """What the page may want to know about a finished step: the final
        response's finish reason, usage, model and ids (without a response: the
        ``ResponseEnd`` seen, or ``error`` after an error)."""
        reason: object = None
        stop: str | None = None
        if response is not None:
            reason, stop = response.finished_reason, response.stop_reason
        elif self._end_reason is not None:
            reason, stop = self._end_reason
        if reason is None and self._error is not None:
            reason = "error"
        info: dict[str, Any] = {
            "finishReason": None if reason is None else str(getattr(reason, "value", reason)),
            "stopReason": stop,
        }
        if response is not None:
            info.update({
                "terminated": response.terminated,
                "model": response.model,
                "responseId": response.id,
                "provider": response.provider,
                "usage": None if response.usage is None else response.usage.to_dict(),
            })
        return info

    # ------------------------------------------------------------ errors

    def _remember_error(self, message: str) -> None:
        """Keep the first error of the message; it is sent once the parts
        received before it are closed, so a ``Chat`` (which stops reading at an
        error) still shows all of them."""
        if self._error is None:
            text = self.error_text(message) if self.error_text is not None else message
            self._error = text or "error"

    def _flush_error(self) -> bytes:
        """The pending ``error`` chunk, once."""
        if self._error is None or self._error_sent:
            return b""
        self._error_sent = True
        return encode_frame({"type": "error", "errorText": self._error})

    # ------------------------------------------------------------ ids and metadata

    def _unique_id(self, wanted: str, index: int) -> str:
        """The block's own id when no other part of the message used it (the
        client finds parts by id), else the id with the block's index."""
        candidate = wanted or f"part-{index}"
        if candidate in self._used_ids:
            candidate = f"{candidate}-{self._steps_done}-{index}"
            while candidate in self._used_ids:
                candidate += "'"
        self._used_ids.add(candidate)
        return candidate

    def _provider_metadata(self, meta: dict[str, Any]) -> dict[str, Any]:
        """``{"providerMetadata": {key: meta}}``, or nothing when ``meta`` is empty."""
        return {"providerMetadata": {self.metadata_key: dict(meta)}} if meta else {}

    # ------------------------------------------------------------ the core's hooks

    def on_block_start(self, choice: int, index: int, block: ContentBlock) -> bytes:
        return _frames(self._block_start(index, block))

    def on_delta(self, choice: int, index: int, delta: Delta) -> bytes:
        return _frames(self._block_delta(index, delta))

    def on_remainder(self, choice: int, index: int, delta: Delta) -> bytes:
        """A snapshot's input beyond a call's deltas is kept, not sent: its
        ``tool-input-available`` (next) carries the whole input."""
        part = self._parts.get(index)
        if part is not None and part.kind == "tool" and type(delta) is ToolInputDelta:
            part.fragments.append(delta.partial_json)
            return b""
        return self.on_delta(choice, index, delta)

    def on_snapshot(self, choice: int, index: int, snapshot: Block) -> bytes:
        part = self._parts.get(index)
        if part is not None:
            part.snapshot = snapshot  # the core has sent the content it adds
        return b""

    def on_block_end(self, choice: int, index: int) -> bytes:
        """The block's closing chunks (none for a block never seen open)."""
        part = self._parts.pop(index, None)
        return b"" if part is None else _frames(self._close(part, part.snapshot))

    def on_response_end(self, event: ResponseEnd) -> bytes:
        self._end_reason = (event.finish_reason, event.stop_reason)
        return b""

    # ------------------------------------------------------------ blocks

    def _block_start(self, index: int, block: ContentBlock) -> list[dict[str, Any]]:
        """Open a part for the block (the core sends the content a block
        starts with as the deltas that follow). The block itself is only read."""
        old = self._parts.pop(index, None)
        chunks = self._close(old, None) if old is not None else []
        part = _Part(kind=_kind(block), id=self._unique_id(block.id, index))
        self._parts[index] = part
        if isinstance(block, TextBlock):
            chunks += self._open_text(part, block)
        elif isinstance(block, ThinkingBlock):
            chunks += self._open_reasoning(part, block)
        elif isinstance(block, ToolCallBlock):
            chunks += self._open_tool(part, block)
        elif isinstance(block, DataBlock):
            self._open_data(part, block)
        else:  # sent now, so it takes its place in order; a snapshot updates it in place
            part.raw = _raw_payload(block)
            chunks.append({"type": "data-raw", "id": part.id, "data": part.raw})
        return chunks

    def _open_text(self, part: _Part, block: TextBlock) -> list[dict[str, Any]]:
        """``text-start`` with the refusal flag and a Gemini signature the block
        starts with (the page must never show a refusal as an answer)."""
        if block.refusal:
            part.meta["refusal"] = True
        if "signature" in block.metadata:
            part.meta["signature"] = block.metadata["signature"]
        part.meta_sent = dict(part.meta)
        chunks = [{"type": "text-start", "id": part.id, **self._provider_metadata(part.meta)}]
        chunks += self._text(part, block.text)
        for citation in block.citations:
            chunks.append(self._source(part, citation))
        return chunks

    def _open_reasoning(self, part: _Part, block: ThinkingBlock) -> list[dict[str, Any]]:
        """``reasoning-start`` carrying what must be sent back verbatim later
        (signature, encrypted reasoning) and whether the text was withheld."""
        for key in ("signature", "encrypted"):
            value = getattr(block, key)
            if value is not None:
                part.meta[key] = value
        if block.redacted:
            part.meta["redacted"] = True
        part.meta_sent = dict(part.meta)
        chunks = [{"type": "reasoning-start", "id": part.id,
                   **self._provider_metadata(part.meta)}]
        return chunks + self._text(part, block.thinking)

    def _open_tool(self, part: _Part, block: ToolCallBlock) -> list[dict[str, Any]]:
        """``tool-input-start``: the page can show the call before its arguments."""
        part.name = block.name
        self._tool_parts[block.id] = part.id
        if "signature" in block.metadata:
            part.meta["signature"] = block.metadata["signature"]
        chunks: list[dict[str, Any]] = [
            {"type": "tool-input-start", "toolCallId": part.id, "toolName": part.name}
        ]
        return chunks + self._tool_input(part, block.input)

    @staticmethod
    def _open_data(part: _Part, block: DataBlock) -> None:
        """Nothing is sent yet (a ``file`` part is whole): the bytes so far are kept."""
        part.media_type = block.media_type
        if isinstance(block.source, URLSource):
            part.url = block.source.url
        else:
            part.data += block.data
        if block.transcript:
            part.transcript.append(block.transcript)

    def _block_delta(self, index: int, delta: Delta) -> list[dict[str, Any]]:
        """One delta -> at most a frame or two holding that delta only."""
        part = self._parts.get(index)
        if part is None:  # a delta for a block we never saw open: nothing to attach it to
            return []
        if type(delta) is TextDelta:
            return self._text(part, delta.text) if part.kind == "text" else []
        if type(delta) is ThinkingDelta:
            return self._text(part, delta.thinking) if part.kind == "reasoning" else []
        if type(delta) is ToolInputDelta:
            return self._tool_input(part, delta.partial_json) if part.kind == "tool" else []
        if type(delta) is DataDelta:
            return self._data(part, delta.data) if part.kind == "file" else []
        if type(delta) is TranscriptDelta:
            part.transcript.append(delta.text)
        elif type(delta) is SignatureDelta:
            part.meta["signature"] = delta.signature
        elif type(delta) is CitationDelta and part.kind == "text":
            return [self._source(part, delta.citation)]
        return []

    def _text(self, part: _Part, text: str) -> list[dict[str, Any]]:
        """A text or reasoning delta."""
        if not text:
            return []
        kind = "text-delta" if part.kind == "text" else "reasoning-delta"
        return [{"type": kind, "id": part.id, "delta": text}]

    @staticmethod
    def _tool_input(part: _Part, text: str) -> list[dict[str, Any]]:
        """A fragment of argument JSON, kept to be parsed once at the end."""
        if not text:
            return []
        part.fragments.append(text)
        return [{"type": "tool-input-delta", "toolCallId": part.id, "inputTextDelta": text}]

    def _data(self, part: _Part, data: bytes) -> list[dict[str, Any]]:
        """Bytes into the part's own buffer; with ``stream_audio`` an audio delta
        also goes out at once (that delta only) as a transient chunk."""
        if part.url is not None or not data:
            return []
        part.data += data
        if not (self.stream_audio and part.media_type.lower().startswith("audio/")):
            return []
        return [{"type": "data-audio", "id": part.id, "transient": True,
                 "data": {"mediaType": part.media_type,
                          "base64": base64.b64encode(data).decode("ascii")}}]

    def _source(self, part: _Part, citation: Citation) -> dict[str, Any]:
        """A citation -> ``source-url`` when it names a URL, else
        ``source-document``; the provider's object rides along in the metadata."""
        part.citations += 1
        source_id = f"{part.id}-source-{part.citations}"
        meta = {"providerMetadata": {self.metadata_key: {"citation": citation.raw}}}
        if citation.url:
            chunk: dict[str, Any] = {"type": "source-url", "sourceId": source_id,
                                     "url": citation.url}
            if citation.title:
                chunk["title"] = citation.title
            return {**chunk, **meta}
        chunk = {"type": "source-document", "sourceId": source_id,
                 "mediaType": citation.media_type or "text/plain",
                 "title": citation.title or "document"}
        return {**chunk, **meta}

    # ------------------------------------------------------------ closing

    def _close(self, part: _Part, snapshot: Block | None) -> list[dict[str, Any]]:
        """The part's closing chunks; ``snapshot`` (the provider's final content,
        when it sent one) fills in what the deltas missed (its content beyond
        them came as deltas already), as the accumulator does: set-once fields
        only when still empty."""
        if part.kind in ("text", "reasoning"):
            return self._close_text(part, snapshot)
        if part.kind == "tool":
            return self._close_tool(part, snapshot)
        if part.kind == "file":
            return self._close_file(part, snapshot)
        if snapshot is None:
            return []
        if isinstance(snapshot, RawBlock):  # its final state, key by key (no deltas)
            data = {**part.raw.get("data", {}), **snapshot.data}
            final = {"kind": snapshot.kind, "data": data}
        else:
            final = _raw_payload(snapshot)
        if final == part.raw:
            return []
        part.raw = final  # the same id: the client replaces the part's data in place
        return [{"type": "data-raw", "id": part.id, "data": final}]

    def _close_text(self, part: _Part, snapshot: Block | None) -> list[dict[str, Any]]:
        """``text-end`` / ``reasoning-end``, after the sources a snapshot adds;
        metadata only when it changed since the start (the client replaces it)."""
        chunks: list[dict[str, Any]] = []
        if isinstance(snapshot, TextBlock) and part.kind == "text":
            if part.citations == 0:
                chunks += [self._source(part, c) for c in snapshot.citations]
        elif isinstance(snapshot, ThinkingBlock) and part.kind == "reasoning":
            for key in ("signature", "encrypted"):
                value = getattr(snapshot, key)
                if value is not None:
                    part.meta.setdefault(key, value)
            if snapshot.redacted:
                part.meta["redacted"] = True
        end: dict[str, Any] = {"type": "text-end" if part.kind == "text" else "reasoning-end",
                               "id": part.id}
        if part.meta != part.meta_sent:  # else the part keeps what its start carried
            end.update(self._provider_metadata(part.meta))
        return [*chunks, end]

    def _close_tool(self, part: _Part, snapshot: Block | None) -> list[dict[str, Any]]:
        """``tool-input-available`` with the parsed input, or
        ``tool-input-error`` with the raw text when it is not JSON (a call cut
        off at max_tokens): the page sees why, and the raw input is kept."""
        raw = "".join(part.fragments)  # a snapshot's longer input came as a delta
        if isinstance(snapshot, ToolCallBlock):
            part.name = part.name or snapshot.name
        common = {"toolCallId": part.id, "toolName": part.name,
                  **self._provider_metadata(part.meta)}
        try:
            value = json.loads(raw) if raw.strip() else {}
            encode_frame({"input": value})  # deep or odd values fail here, not mid-send
        except (ValueError, RecursionError, TypeError, OverflowError) as exc:
            return [{"type": "tool-input-error", **common, "input": raw,
                     "errorText": f"tool call {part.name!r} has invalid JSON arguments: {exc}"}]
        return [{"type": "tool-input-available", **common, "input": value}]

    def _close_file(self, part: _Part, snapshot: Block | None) -> list[dict[str, Any]]:
        """One ``file`` part: a URL source as its URL, bytes as a base64
        ``data:`` URL (PCM audio wrapped as WAV so browsers play it)."""
        if isinstance(snapshot, DataBlock):
            if len(snapshot.data) > len(part.data) and part.url is None:
                part.data = bytearray(snapshot.data)
            if len(snapshot.transcript) > sum(len(t) for t in part.transcript):
                part.transcript = [snapshot.transcript]
        meta: dict[str, Any] = {}
        transcript = "".join(part.transcript)
        if transcript:
            meta["transcript"] = transcript
        media_type = part.media_type or "application/octet-stream"
        if part.url is not None:
            url = part.url
        else:
            payload = bytes(part.data)
            pcm = DataBlock(media_type=media_type, source=Base64Source(payload, media_type))
            if self.pcm_as_wav and _is_pcm(media_type) and pcm.pcm_format is not None:
                meta["mediaType"] = media_type  # a rate the wire got wrong stays raw PCM
                payload = pcm.to_wav()
                media_type = "audio/wav"
            url = f"data:{media_type};base64,{base64.b64encode(payload).decode('ascii')}"
        return [{"type": "file", "url": url, "mediaType": media_type,
                 **self._provider_metadata(meta)}]


def _kind(block: Block) -> str:
    """The UI part kind a block becomes."""
    if isinstance(block, TextBlock):
        return "text"
    if isinstance(block, ThinkingBlock):
        return "reasoning"
    if isinstance(block, ToolCallBlock):
        return "tool"
    if isinstance(block, DataBlock):
        return "file"
    return "raw"


def _raw_payload(block: Block) -> dict[str, Any]:
    """What a ``data-raw`` part carries for a block the UI protocol has no part
    for (a server-side tool run, a tool result): its kind and its content."""
    if isinstance(block, RawBlock):
        return {"kind": block.kind, "data": block.data}
    content = block.to_dict()
    return {"kind": content.pop("type", block.type), "data": content}


def _is_pcm(media_type: str) -> bool:
    """Raw 16-bit samples, which no browser plays without a WAV header."""
    return media_type.split(";", 1)[0].strip().lower() in _PCM_TYPES
