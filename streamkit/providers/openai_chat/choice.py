"""One choice of a Chat Completions stream: its ``choices[]`` entries -> block events.

A :class:`Choice` reads every field of an entry in one order
(:meth:`Choice.read`, :meth:`Choice.delta`) and writes through its blocks
(:class:`~.choice_blocks.ChoiceBlocks`: sequential kinds, Groq's channel, what
has no place), its lifecycle and open blocks being its
:class:`~streamkit.providers.ledger.BlockLedger` 's (one per choice, the ids
shared by the stream).

- ``content`` / ``text`` -> text, ``refusal`` -> a ``TextBlock(refusal=True)``,
  reasoning strings -> thinking, each a sequential kind; empty strings never
  open blocks. Mistral's list ``content`` holds typed ``thinking`` / ``text``
  chunks.
- ``reasoning_details`` (:mod:`.reasoning`), ``tool_calls`` and
  ``function_call`` (:mod:`.call_fragments`), ``audio`` (:mod:`.audio`).
- ``annotations`` -> citations (:func:`.content.read_citation`) and
  ``logprobs`` -> appended to ``metadata["logprobs"]``, of the latest text (or
  refusal) block.
- ``channel`` (Groq) labels the block the chunk wrote to.
- ``finish_reason`` is the ledger's ``stop_reason``, for the end; the entry's other keys
  (``native_finish_reason``, vLLM's ``stop_reason``...) are response metadata,
  reported when they change.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, NamedTuple

from ...model.blocks import DataBlock
from ...model.events import BlockDelta, CitationDelta, Event, MetadataAppendDelta
from ...model.finish import FinishReason
from ..coerce import as_str
from ..ledger import BlockLedger, OpenBlock
from .audio import Audio
from .call_fragments import ToolCalls
from .choice_blocks import EXTRAS_KEY, ChoiceBlocks, Kind
from .content import read_citation
from .dialects import REASONING_FIELDS
from .reasoning import ReasoningDetails

# EXTRAS_KEY is the encoder's too (where a kept field is found again).
__all__ = ["EXTRAS_KEY", "Choice", "ChoiceOptions"]

# Entry keys read before the others (which are read in wire order).
_READ_FIRST: Final = frozenset({"index", "delta"})
# Delta keys with a reader; anything else non-null is kept in extras.
_DELTA_FIELDS: Final = frozenset({
    "role", "content", "refusal", "tool_calls", "function_call", "audio",
    "reasoning_details", "channel", "text", "annotations", *REASONING_FIELDS,
})


# The block a ``logprobs`` list belongs to.
_LOGPROBS_KIND: Final = {"content": Kind.TEXT, "refusal": Kind.REFUSAL}


class ChoiceOptions(NamedTuple):
    """What the parser's dialect and options tell every choice."""

    reasoning_fields: tuple[str, ...]
    audio_media_type: str
    finish_reasons: Mapping[str, FinishReason]


class Choice(ChoiceBlocks):
    """Parser state of one choice (``choices[].index``, the events' ``choice``):
    its blocks, and the readers of the delta fields that are items of their own."""

    __slots__ = ("audio", "calls", "options", "reasoning")

    def __init__(self, ledger: BlockLedger[OpenBlock], options: ChoiceOptions) -> None:
        super().__init__(ledger)
        self.options = options
        self.calls = ToolCalls()
        self.reasoning = ReasoningDetails()
        self.audio: Audio | None = None

    # ------------------------------------------------------------ reading an entry

    def read(self, entry: dict[str, Any], out: list[Event]) -> None:
        """One ``choices[]`` entry: its delta, then its finish reason, logprobs and
        other keys in wire order. A delta that is only text takes the one-event
        shortcut, unless a Groq channel is current: :meth:`delta` labels the
        block it writes."""
        delta = entry.get("delta")
        if delta:
            if type(delta) is not dict:
                self.keep("delta", delta, out)
            elif len(delta) == 1 and self.channel is None \
                    and type(content := delta.get("content")) is str:
                self.continue_text(content, out)
            else:
                self.delta(delta, out)
        for key, value in entry.items():
            if value is None or key in _READ_FIRST:
                continue
            if key == "finish_reason":
                if type(value) is str:
                    self.ledger.stop_reason = value
                else:
                    self.keep("finish_reason", value, out)
            elif key == "logprobs":
                self._logprobs(value, out)
            else:
                self.ledger.report(key, value, out)

    def delta(self, delta: dict[str, Any], out: list[Event]) -> None:
        """Every delta but a lone text fragment. Reasoning is read before content
        (it precedes the answer when a chunk carries both)."""
        self.written = None
        for key, value in delta.items():
            if value is not None and key not in _DELTA_FIELDS:
                self.keep(key, value, out)
        channel = delta.get("channel")
        if channel is not None:
            self.channel = channel
        role = delta.get("role")
        if role is not None and role != "assistant":  # the default says nothing
            self.ledger.report("role", role, out)
        details = delta.get("reasoning_details")
        if not details or not self.reasoning.read(self, details, out):
            self._reasoning_strings(delta, out)
        content = delta.get("content")
        if content is not None:
            self._chunks(content, Kind.TEXT, "content", None, out)
        text = delta.get("text")
        if text is not None:
            self._text_field(text, content, out)
        refusal = delta.get("refusal")
        if refusal is not None:
            if type(refusal) is not str:
                self.keep("refusal", refusal, out)
            elif refusal:
                self.write(Kind.REFUSAL, refusal, out)
        tool_calls = delta.get("tool_calls")
        if tool_calls:
            if type(tool_calls) is not list:
                self.keep("tool_calls", tool_calls, out)
            else:
                for fragment in tool_calls:
                    self.calls.fragment(self, fragment, out)
        function_call = delta.get("function_call")
        if function_call is not None:
            self.calls.function_call(self, function_call, out)
        audio = delta.get("audio")
        if audio is not None:
            self._audio(audio, out)
        annotations = delta.get("annotations")
        if annotations:
            self._annotations(annotations, out)
        if self.channel is not None and self.written is not None:
            self.label_channel(self.written, out)

    def _reasoning_strings(self, delta: dict[str, Any], out: list[Event]) -> None:
        """``reasoning_content`` / ``reasoning``, in the dialect's order: a vendor
        that sends both with the same text (vLLM during its rename) gets it once."""
        first: str | None = None
        for field in self.options.reasoning_fields:
            value = delta.get(field)
            if value is None:
                continue
            if type(value) is not str:
                self.keep(field, value, out)
            elif value and value != first:
                self.write(Kind.THINKING, value, out)
                first = first or value

    def _chunks(self, value: Any, kind: Kind, field: str, untyped: str | None,
                out: list[Event]) -> None:
        """``content`` (``kind`` text) or the ``thinking`` of a Mistral thinking
        chunk (``kind`` thinking): a string, or a list of typed chunks whose text
        chunks are written as ``kind`` (``untyped``: the type of a chunk that names
        none); a thinking chunk in content is read as reasoning, anything else is
        kept under ``field``. Mistral's ``{"type": "thinking", "thinking":
        [{"type": "text", "text": ...}]}``."""
        if type(value) is str:
            if value:
                self.write(kind, value, out)
            return
        for part in value if type(value) is list else [value]:
            part_type = part.get("type", untyped) if type(part) is dict else None
            text = as_str(part.get("text")) if part_type == "text" else None
            if text is not None:
                if text:
                    self.write(kind, text, out)
            elif part_type == "thinking" and kind is Kind.TEXT:
                self._chunks(part.get("thinking"), Kind.THINKING, "thinking", "text", out)
            else:
                self.keep(field, part, out)

    def _text_field(self, text: Any, content: Any, out: list[Event]) -> None:
        """``delta.text``: the text when ``content`` is empty; a copy of
        ``content`` counts once; a different one is kept."""
        if type(text) is not str:
            self.keep("text", text, out)
        elif not text:
            pass
        elif content is None or content == "":
            self.write(Kind.TEXT, text, out)
        elif text != content:
            self.keep("text", text, out)

    def _audio(self, audio: Any, out: list[Event]) -> None:
        """``delta.audio``: one data block per choice (see :mod:`.audio`)."""
        if type(audio) is not dict:
            self.keep("audio", audio, out)
            return
        if self.audio is None:
            block = DataBlock(as_str(audio.get("id")) or self.made_up_id("data"),
                              media_type=self.options.audio_media_type)
            self.audio = Audio(self.open(block, out))
            self.kind = None  # text after the audio is a new block, after it
        self.written = self.audio.block
        self.audio.read(self, audio, out)

    def _annotations(self, annotations: Any, out: list[Event]) -> None:
        """``delta.annotations`` (url citations): citations of the latest text block."""
        if type(annotations) is not list:
            self.keep("annotations", annotations, out)
            return
        index = self.latest_block(Kind.TEXT, out)
        for annotation in annotations:
            if type(annotation) is dict:
                out.append(BlockDelta(index=index, delta=CitationDelta(read_citation(annotation)),
                                      choice=self.index))
            else:
                self.keep("annotations", annotation, out)

    def _logprobs(self, logprobs: Any, out: list[Event]) -> None:
        """``logprobs.content`` / ``.refusal``: appended to ``metadata["logprobs"]``
        of the latest text / refusal block, O(entries) per chunk."""
        if type(logprobs) is not dict:
            self.keep("logprobs", logprobs, out)
            return
        for key, value in logprobs.items():
            if value is None or value == []:
                continue
            kind = _LOGPROBS_KIND.get(key)
            if kind is None or type(value) is not list:
                self.keep("logprobs." + key, value, out)
                continue
            index = self.latest_block(kind, out)
            out.append(BlockDelta(index=index, delta=MetadataAppendDelta("logprobs", value),
                                  choice=self.index))

    # ------------------------------------------------------------ the end

    def end(self, out: list[Event], *, terminated: bool, errored: bool) -> None:
        """End the choice (``terminated``: ``[DONE]`` came): open header-only tool
        calls, close every block with what deltas could not carry, report the
        finish reason (``error`` once the stream reported an error)."""
        self.calls.open_waiting(self, out)
        snapshots = {**self.calls.snapshots(self), **self.reasoning.snapshots(self)}
        if self.audio is not None:
            self.audio.close(self, out)
        reason = FinishReason.ERROR if errored else self._finish_reason()
        snapshot = (lambda slot: snapshots.get(slot.index)) if snapshots else None
        if terminated:
            self.ledger.end(out, reason, snapshot=snapshot)
        else:
            self.ledger.finish(out, reason, snapshot=snapshot)

    def _finish_reason(self) -> FinishReason:
        """The uniform reason of the stop word; a ``stop`` with nothing but
        refusal text is ``refusal``."""
        stop_reason = self.ledger.stop_reason
        if stop_reason is None:
            return FinishReason.UNKNOWN
        reason = self.options.finish_reasons.get(stop_reason, FinishReason.UNKNOWN)
        only_refused = (Kind.REFUSAL in self.latest and Kind.TEXT not in self.latest
                        and not self.calls.opened())
        return FinishReason.REFUSAL if reason is FinishReason.STOP and only_refused else reason
