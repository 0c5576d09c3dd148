"""What every wire's stream encoder shares: events in, the wire's bytes out.

A stream encoder is the parser run backwards, and sans-IO like it: a small
state machine fed one :mod:`streamkit.model.events` event at a time
(:meth:`StreamEncoder.feed`), returning the bytes to send for it at once (often
none: a wire may say a thing later than streamkit learns it, as Anthropic's
``message_start`` carries the usage that follows the response's start), and
:meth:`StreamEncoder.close` for what the wire sends at the end of the input.
Each wire package's ``encode.py`` subclasses it with its own frames; this
module keeps the rules that are the same on every wire:

- a :class:`~streamkit.model.events.BlockStart` that already holds content, and a
  :class:`~streamkit.model.events.BlockEnd` snapshot holding more than the deltas
  said, become the deltas that say it (:func:`~streamkit.model.replay.deltas_of`),
  so a wire writes content in one place;
- usage is merged as a reader merges it (:func:`~streamkit.model.usage.merge_usage`),
  and written where the wire puts it;
- provenance: whether the response was read from this very wire
  (:attr:`StreamEncoder.own`, from :attr:`ResponseStart.provider
  <streamkit.model.events.ResponseStart.provider>`; a response made by hand counts
  as the wire's own). Only then are the fields a reader kept without
  understanding them (response and block metadata, a provider's raw usage
  object, its own stop word) written back: they go back to the wire they came
  from only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import msgspec

from ..model.blocks import Block, ContentBlock, TextBlock, ThinkingBlock, ToolCallBlock
from ..model.errors import ProviderConfigError
from ..model.events import (
    TRUNCATED_PAYLOAD,
    BlockDelta,
    BlockEnd,
    BlockStart,
    Delta,
    ErrorEvent,
    Event,
    ResponseEnd,
    ResponseMetadata,
    ResponseStart,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
    UsageUpdate,
    without_cut_payload,
)
from ..model.finish import FinishReason
from ..model.replay import deltas_of, shell_of
from ..model.usage import ChatUsage, inclusive_input, merge_usage, native_input
from ..model.vendors import wire_of

__all__ = ["StreamEncoder", "arguments_json", "finish_word", "input_tokens_for",
           "recorded_error", "response_id", "wire_of_provider"]

#: An id's leading word and separator (``resp_``, ``chatcmpl-``): another wire's form.
_ID_WORD = re.compile(r"[a-z]+[_-](?=.)")


def wire_of_provider(provider: str | None) -> str | None:
    """The wire format a registry name speaks; ``None`` for no name or one the
    registry does not know (a response made by hand)."""
    if provider is None:
        return None
    try:
        return wire_of(provider)[0]
    except (ProviderConfigError, ValueError):
        return None


def finish_word(finish: FinishReason | None, stop_reason: str | None, *, own: bool,
                words: Mapping[FinishReason, str | None]) -> str | None:
    """The stop word a wire writes: the provider's own word for an answer read
    from this wire (provenance), else the wire's word for the uniform reason
    (``words``: the wire's ``FINISH_WORDS``, which has one for every reason).
    ``None`` stays ``None``: an answer with no end says none."""
    if own and stop_reason is not None:
        return stop_reason
    if finish is None:
        return None
    return words[finish]


def response_id(response_id: str, prefix: str, *, from_this_wire: bool) -> str:
    """A response id in the form of the wire it is written to (``msg_`` on
    Anthropic, ``chatcmpl-`` on OpenAI Chat, ``resp_`` on Responses): an id
    read from this very wire stays as it came, one already in the form too;
    another's (a made-up ``resp_...``, Gemini's bare ``responseId``) gets
    ``prefix`` in place of its own leading word, so the same id always gives
    the same one."""
    if from_this_wire or response_id.startswith(prefix):
        return response_id
    word = _ID_WORD.match(response_id)
    return prefix + (response_id[word.end():] if word else response_id)


def arguments_json(text: str) -> str:
    """Tool-call arguments (JSON text, or a piece of it) as a wire sends them
    in a string field: a lone surrogate in them (what
    :func:`~streamkit.model.blocks.arguments_text` keeps of an object holding
    one) as its JSON escape, which parses to the same value. The frame would
    carry the raw one, as its escape too; but an SDK that reads the arguments
    as UTF-8 bytes (anthropic's stream helper) cannot take it."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def input_tokens_for(usage: ChatUsage, *, includes_cache: bool) -> int:
    """``usage``'s input count as a wire counts it whose input count includes the
    prompt-cache reads and writes (``includes_cache``: every wire's but
    Anthropic's) or not, by what the usage says its own count means. A usage
    made by hand (its meaning unsaid) is taken to count as the wire it is
    written to."""
    count = usage.input_tokens or 0
    if usage.input_includes_cache in (None, includes_cache):
        return count
    whole = inclusive_input(usage) or 0
    return max(0, native_input(whole, usage.cached_tokens, usage.cache_creation_tokens,
                               includes_cache=includes_cache))


def recorded_error(error: Any) -> ErrorEvent | None:
    """The error a finished response records in ``metadata["error"]`` (an
    answer replayed as events says it there, not as an error event)."""
    if type(error) is not dict or type(error.get("message")) is not str:
        return None
    status = error.get("status")
    return ErrorEvent(message=error["message"], code=error.get("code"),
                      error_type=error.get("type"),
                      status=status if type(status) is int else None, raw=error.get("raw"))


def _sent_length(delta: Delta) -> int:
    """How much of a block's streamed content a delta carries, for the snapshot
    check at its end."""
    if type(delta) is TextDelta:
        return len(delta.text)
    if type(delta) is ThinkingDelta:
        return len(delta.thinking)
    if type(delta) is ToolInputDelta:
        return len(delta.partial_json)
    return 0


def _remainder(snapshot: Block, sent: int) -> list[Delta]:
    """The deltas a snapshot holds beyond the ``sent`` characters of content
    the block streamed (an OpenAI Responses ``.done`` text, an Anthropic tool
    call that got its whole input at its start)."""
    if type(snapshot) is TextBlock and len(snapshot.text) > sent:
        return [TextDelta(snapshot.text_since(sent))]
    if type(snapshot) is ThinkingBlock and len(snapshot.thinking) > sent:
        return [ThinkingDelta(snapshot.thinking_since(sent))]
    if type(snapshot) is ToolCallBlock and len(snapshot.input) > sent:
        return [ToolInputDelta(snapshot.input_since(sent))]
    return []


class StreamEncoder:
    """Events -> one wire's stream bytes (see the module docstring).

    Subclasses name their :attr:`wire` and write the frames in the ``on_*``
    hooks; :meth:`feed` has already turned content in starts and snapshots
    into deltas and kept the usage. ``dialect`` is the vendor dialect to write
    (only OpenAI Chat has any).
    """

    wire: ClassVar[str]
    content_type: ClassVar[str] = "text/event-stream"

    def __init__(self, dialect: str | None = None) -> None:
        self.dialect = dialect
        self.own = True
        """Whether the events were read from this wire (or made by hand)."""
        self.usage: ChatUsage | None = None
        """The usage so far, merged."""
        self.source_wire: str | None = None
        """The wire the events were read from (``None``: made by hand)."""
        self.foreseen_usage: ChatUsage | None = None
        """The usage of a finished response whose events are being written: known
        before the events say it (at their end), for a wire whose first frame
        carries the input count (Anthropic's ``message_start``)."""
        self._sent: dict[tuple[int, int], int] = {}  # (choice, index) -> content sent
        self._handlers: dict[type, Callable[[Any], bytes]] = {
            BlockDelta: self._feed_block_delta,
            BlockStart: self._feed_start,
            BlockEnd: self._feed_end,
            ResponseStart: self._feed_response_start,
            UsageUpdate: self._feed_usage,
            ResponseMetadata: self._feed_metadata,
            ResponseEnd: self.on_response_end,
            ErrorEvent: self.on_error,
        }
        """What :meth:`feed` does with each event type: the core's bookkeeping,
        or the wire's hook directly (as :class:`~streamkit.model.accumulate.Accumulator`
        dispatches)."""

    # ------------------------------------------------------------ driving

    def feed(self, event: Event) -> bytes:
        """The bytes to send for ``event`` (``b""`` when the wire says it later)."""
        if type(event) is BlockDelta:  # the per-token case: skip the lookup
            return self._feed_delta(event.choice, event.index, event.delta)
        handler = self._handlers.get(type(event))
        if handler is None:
            raise TypeError(f"not a streamkit event: {type(event).__name__}")
        return handler(event)

    def close(self) -> bytes:
        """What the wire sends once the events are over."""
        return b""

    def _feed_response_start(self, event: ResponseStart) -> bytes:
        self.source_wire = wire_of_provider(event.provider)
        self.own = self.source_wire in (None, self.wire)
        if TRUNCATED_PAYLOAD in event.metadata:
            event = msgspec.structs.replace(event, metadata=without_cut_payload(event.metadata))
        return self.on_response_start(event)

    def _feed_metadata(self, event: ResponseMetadata) -> bytes:
        if TRUNCATED_PAYLOAD not in event.metadata:
            return self.on_metadata(event)
        metadata = without_cut_payload(event.metadata)
        if not (metadata or event.append or event.id or event.model):
            return b""
        return self.on_metadata(msgspec.structs.replace(event, metadata=metadata))

    def _feed_usage(self, event: UsageUpdate) -> bytes:
        self.usage = merge_usage(self.usage, event.usage)
        return self.on_usage(event)

    def _feed_block_delta(self, event: BlockDelta) -> bytes:
        return self._feed_delta(event.choice, event.index, event.delta)

    def _feed_start(self, event: BlockStart) -> bytes:
        block: ContentBlock = event.block  # type: ignore[assignment]
        self._sent[event.choice, event.index] = 0
        out = self.on_block_start(event.choice, event.index, shell_of(block))
        deltas = deltas_of(block)
        if not deltas:
            return out
        return b"".join([out, *(self._feed_delta(event.choice, event.index, delta)
                                for delta in deltas)])  # joined once: n citations cost n

    def _feed_delta(self, choice: int, index: int, delta: Delta) -> bytes:
        key = (choice, index)
        self._sent[key] = self._sent.get(key, 0) + _sent_length(delta)
        return self.on_delta(choice, index, delta)

    def _feed_end(self, event: BlockEnd) -> bytes:
        out = b""
        if event.snapshot is not None:
            sent = self._sent.get((event.choice, event.index), 0)
            for delta in _remainder(event.snapshot, sent):  # one at most
                out += self.on_remainder(event.choice, event.index, delta)
            out += self.on_snapshot(event.choice, event.index, event.snapshot)
        self._sent.pop((event.choice, event.index), None)
        return out + self.on_block_end(event.choice, event.index)

    # ------------------------------------------------------------ the wire's frames

    def on_response_start(self, event: ResponseStart) -> bytes:
        return b""

    def on_block_start(self, choice: int, index: int, block: ContentBlock) -> bytes:
        return b""

    def on_delta(self, choice: int, index: int, delta: Delta) -> bytes:
        return b""

    def on_remainder(self, choice: int, index: int, delta: Delta) -> bytes:
        """What a block's end snapshot holds beyond its deltas, as a delta: by
        default written as any delta is."""
        return self.on_delta(choice, index, delta)

    def on_snapshot(self, choice: int, index: int, snapshot: Block) -> bytes:
        """A block's end snapshot, after the deltas it added: for what no delta
        carries (encrypted reasoning that came after the block opened)."""
        return b""

    def on_block_end(self, choice: int, index: int) -> bytes:
        return b""

    def on_usage(self, event: UsageUpdate) -> bytes:
        return b""

    def on_metadata(self, event: ResponseMetadata) -> bytes:
        return b""

    def on_response_end(self, event: ResponseEnd) -> bytes:
        return b""

    def on_error(self, event: ErrorEvent) -> bytes:
        return b""
