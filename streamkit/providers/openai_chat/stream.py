"""OpenAI Chat Completions (``chat.completion.chunk``) and every vendor that copies it.

One parser serves OpenAI and the OpenAI-compatible vendors; their quirks are
listed in :mod:`.dialects` and all of them are handled whatever ``dialect``
says (a dialect only tunes defaults), because a proxy can put any vendor behind
any name. ``provider`` is the vendor's registry name, which the responses
report. The package reads the stream in layers:

- this module: one payload at a time. ``[DONE]``, keep-alives, errors (a
  top-level ``error`` key, vLLM's ``{"object": "error"}``, Groq's ``event:
  error``), Azure's content-filter frames, the response's identity and
  metadata, usage (:data:`.wire.USAGE_FIELDS`, always choice 0: it covers the
  whole request);
- :mod:`.choice`: each ``choices[]`` entry (``choices[].index`` is the events'
  ``choice``) into block events (:mod:`.choice_blocks`), with
  :mod:`.call_fragments`, :mod:`.reasoning` and :mod:`.audio` for the fields
  that are items of their own; each choice's
  lifecycle and open blocks are a :class:`~streamkit.providers.ledger.BlockLedger`
  (choice 0's is the stream's: its phase is the parser's), and every id the
  stream does not give (a response, a block, a call) is made up from the first
  payload (:class:`~streamkit.model.ids.StreamIds`, one per stream), so two parses of
  the same bytes give the same ids;
- :mod:`.fast`: the strict decode of the per-token chunk (``fast_decode=True``,
  the default); every other payload, and every payload when
  ``fast_decode=False``, takes the general path, which gives the same events
  (tested over every recorded stream).

Terminator: only ``[DONE]``. The finish-reason chunk is *not* the end, because
OpenAI sends the audio ``expires_at``, the include_usage chunk and the gpt-5
moderation chunk after it. So every block stays open (addressable) until
``[DONE]``, where all blocks are closed and each choice gets its
``ResponseEnd`` with the finish reason seen earlier (the ledger's ``end``).
Without ``[DONE]``, :meth:`OpenAIChatParser.finish` does the same with
``terminated=False`` (the ledger's ``finish``).

Lossless by default: response-level extras (``system_fingerprint``,
``service_tier``, ``created``, ``x_groq``, OpenRouter's ``provider``,
``prompt_filter_results``, the moderation object, any unknown top-level key)
go into response metadata once and again only when they change; Azure's
per-choice filter results are appended to ``metadata["content_filters"]``;
payloads that are not chunks (an unknown named event, a non-object) are kept
whole in ``metadata["unknown_events"]``
(:func:`~streamkit.providers.unknown.unknown_payload`); unknown or mistyped
fields of a chunk, and payloads after ``[DONE]`` (``"after_done"``), are
appended to ``metadata["extras"]`` as ``{field: value}``
(:meth:`.choice_blocks.ChoiceBlocks.keep`). Dropped on purpose: ``obfuscation`` padding, the
defaults ``role: "assistant"`` and tool ``type: "function"``, and later
differing ``id`` / ``created`` values (the first real one wins; some vendors
send a new id on every chunk).

Hostile input never raises anything but a
:class:`~streamkit.model.errors.ProtocolError`: for a payload that is not JSON, is
nested too deeply, or holds audio data that is not base64. A field of the
wrong type is treated as absent and kept in ``metadata["extras"]``, as is a
``choices[]`` entry whose index is beyond :data:`.wire.MAX_CHOICES`. Costs stay
linear in the body: every kept thing costs O(its size) whatever came before,
and the per-choice metadata events are bounded by the number of choices.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

import msgspec

from ...model.errors import ProtocolError
from ...model.events import (
    BlockDelta,
    ErrorEvent,
    Event,
    ResponseMetadata,
    TextDelta,
    ToolInputDelta,
    UsageUpdate,
)
from ...model.ids import StreamIds
from ..base import Framing, StreamParser, decode_json
from ..coerce import as_dict, as_int, as_str
from ..error_payloads import error_event
from ..ledger import BlockLedger, OpenBlock, Phase
from ..unknown import unknown_payload
from .choice import Choice, ChoiceOptions
from .choice_blocks import Kind
from .dialects import Dialect, get_dialect
from .fast import decode_chunk
from .wire import DONE_MARKERS, MAX_CHOICES, map_usage

__all__ = ["OpenAIChatParser", "map_usage"]

_MISSING: Final = object()

# Top-level keys read by name (or deliberately not compared per chunk).
_TOP_LEVEL_READ: Final = frozenset({"id", "model", "object", "created", "choices", "usage",
                                    "obfuscation"})


#: The phase the general path's refresh of the fast path tests, and the block
#: kind the per-token path tests, as module globals: reading ``Kind.TEXT``
#: goes through the enum class, several times slower than reading a global.
_STREAMING: Final = Phase.STREAMING
_TEXT: Final = Kind.TEXT


class OpenAIChatParser(StreamParser):
    """Chat Completions chunks -> :mod:`streamkit.model.events` (see the module docstring).

    ``dialect`` names the dialect an OpenAI-compatible vendor speaks
    (:mod:`.dialects`); it only tunes defaults. ``provider`` is the vendor's
    registry name (:data:`streamkit.PROVIDERS`), reported as :attr:`name` and
    as every response's provider. ``audio_media_type`` is the media type of
    ``delta.audio`` data: the API does not say it in the stream, the request's
    ``audio.format`` does (``pcm16`` -> ``audio/pcm;rate=24000``, the default).
    ``fast_decode=False`` sends every payload through the general path.
    """

    name: str = "openai"
    framing: ClassVar[Framing] = "sse"

    def __init__(self, dialect: str | Dialect | None = None,
                 audio_media_type: str = "audio/pcm;rate=24000", *,
                 provider: str = "openai", fast_decode: bool = True) -> None:
        self.dialect = get_dialect(dialect)
        #: The vendor's registry name: the responses' provider.
        self.name = provider
        #: Whether the pipeline splits inline ``<think>`` tags by default.
        self.think_tags = self.dialect.think_tags
        self.audio_media_type = audio_media_type
        self._fast_decode = fast_decode
        self._options = ChoiceOptions(self.dialect.reasoning_fields, audio_media_type,
                                      self.dialect.finish_reason_map())
        self._ids = StreamIds()  # one per stream, shared by every choice's ledger
        #: Choice 0's ledger: the stream's lifecycle (the parser's phase) and
        #: errors (an error ends every choice as ``error``).
        self._ledger: BlockLedger[OpenBlock] = BlockLedger(provider, self._ids)
        self._choices: dict[int, Choice] = {}
        self._chunked = False  # a chunk came: later ones report only what changed
        self._metadata: dict[str, Any] = {}  # response-level metadata reported so far
        self._id: str | None = None
        self._model: str | None = None
        self._last_usage: Any = None
        # what fast_delta reads (see _refresh_fast_path)
        self._fast_ready = False
        self._fingerprint: Any = None
        self._service_tier: Any = None

    # ------------------------------------------------------------ driving (feed: StreamParser)

    def fast_delta(self, name: str, data: bytes | str) -> BlockDelta | None:
        """The hot path: a chunk that only continues the text, or one call's
        arguments, of a known choice, once the response's id, model and
        ``created`` are known and with its fingerprint and service tier
        unchanged, is one strict decode and one event (a later id or model is
        ignored, as the general path ignores it). ``None`` (nothing changed) for
        anything else, ``[DONE]`` included: the general path decides (a call's
        first fragment, another block kind, an empty fragment, a choice with a
        Groq ``channel``, which labels the blocks it writes...)."""
        if not self._fast_ready or name != "message":
            return None
        try:
            chunk = decode_chunk(data)
        except (msgspec.DecodeError, RecursionError, UnicodeEncodeError):
            return None  # another shape (or not JSON)
        fingerprint, tier = chunk.system_fingerprint, chunk.service_tier
        if len(chunk.choices) != 1 \
                or (fingerprint is not None and fingerprint != self._fingerprint) \
                or (tier is not None and tier != self._service_tier):
            return None
        entry = chunk.choices[0]
        choice = self._choices.get(entry.index)
        if choice is None or choice.channel is not None:
            return None
        content, calls = entry.delta.content, entry.delta.tool_calls
        if calls is None:
            if not content or choice.kind is not _TEXT:
                return None
            return BlockDelta(index=choice.kind_block, delta=TextDelta(content),
                              choice=entry.index)
        if content is not None or len(calls) != 1:
            return None
        call = choice.calls.by_index.get(calls[0].index)
        arguments = calls[0].function.arguments
        if call is None or call.block is None or not arguments:
            return None
        choice.written = call.block
        return BlockDelta(index=call.block, delta=ToolInputDelta(arguments), choice=entry.index)

    def _general(self, data: bytes | str, event: str | None) -> list[Event]:
        """The general path for one payload, then the fast path's view of what it changed."""
        try:
            return self._payload(data, event)
        finally:
            self._refresh_fast_path()

    def _refresh_fast_path(self) -> None:
        """After the general path: whether :meth:`fast_delta` may answer (fast
        decoding on, streaming, the response's id, model and ``created`` known),
        and the metadata a chunk must repeat to take it. Only the general path
        changes these, so the hot path reads three attributes, not the dict."""
        self._fast_ready = (self._fast_decode and self._ledger.phase is _STREAMING
                            and self._id is not None and self._model is not None
                            and "created" in self._metadata)
        self._fingerprint = self._metadata.get("system_fingerprint")
        self._service_tier = self._metadata.get("service_tier")

    def finish(self) -> list[Event]:
        """At a clean end of input: unless ``[DONE]`` already did, close every
        block and end each choice with ``terminated=False`` and the finish
        reason the stream gave (``unknown`` if none)."""
        if self._ledger.ended:
            return []
        self._fast_ready = False
        out: list[Event] = []
        self._end_all(out, terminated=False)
        return out

    # ------------------------------------------------------------ payloads

    def _payload(self, data: bytes | str, event: str | None) -> list[Event]:
        """The general path for one payload."""
        if self._ledger.phase is Phase.CUT_OFF:
            return []
        if data in DONE_MARKERS:
            return self._end_of_stream()
        try:
            payload = decode_json(data, event)
        except ProtocolError:
            text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
            if text.strip() == "[DONE]":
                return self._end_of_stream()
            if not text.strip():  # an empty keep-alive ``data:`` line
                return []
            raise
        self._ids.seed(data)  # the first JSON payload: what the made-up ids derive from
        if self._ledger.phase is Phase.ENDED:
            return self._after_done(payload, event)
        if type(payload) is not dict:
            return self._unknown(payload, event)
        if event is not None:
            return self._named_event(payload, event)
        kind = payload.get("object")
        if kind is None or (type(kind) is str and kind.startswith("chat.completion")):
            return self._chunk(payload)
        return self._other_object(payload, kind)

    def _chunk(self, payload: dict[str, Any]) -> list[Event]:
        """A ``chat.completion.chunk`` (also one without ``object``)."""
        out: list[Event] = []
        if not self._chunked:
            self._first_chunk(payload, out)
        else:
            if self._id is None or self._model is None or "created" not in self._metadata:
                self._fill_identity(payload, out)
            self._top_level(payload, out)
        choices = payload.get("choices")
        if choices:
            if type(choices) is not list:
                self._choice(0, out).keep("choices", choices, out)
            else:
                for entry in choices:
                    self._entry(entry, out)
        usage = payload.get("usage")
        if usage is not None:
            self._usage(usage, out)
        return out

    def _entry(self, entry: Any, out: list[Event]) -> None:
        """One ``choices[]`` entry, read by its choice."""
        choice = self._choice_of(entry, out)
        if choice is not None:
            choice.read(entry, out)

    def _choice_of(self, entry: Any, out: list[Event]) -> Choice | None:
        """The choice a ``choices[]`` entry belongs to (an ``index`` that is not an
        integer is choice 0); an entry that is not an object, or whose index is
        out of range (:data:`.wire.MAX_CHOICES`), is kept in extras instead."""
        index = as_int(entry.get("index")) or 0 if type(entry) is dict else -1
        if not 0 <= index < MAX_CHOICES:
            self._choice(0, out).keep("choices", entry, out)
            return None
        return self._choice(index, out)

    def _named_event(self, payload: dict[str, Any], event: str) -> list[Event]:
        """An SSE payload with an ``event:`` name: ``error`` (Groq) is an error;
        a named event carrying a chunk is parsed as one; anything else is kept."""
        if event == "error":
            return self._error(payload)
        if "choices" in payload or payload.get("object") == "chat.completion.chunk":
            return self._chunk(payload)
        return self._unknown(payload, event)

    def _other_object(self, payload: dict[str, Any], kind: Any) -> list[Event]:
        """A payload whose ``object`` is not a chunk: vLLM's ``{"object": "error"}``
        is an error; anything else (Azure's content-filter frames have ``""``)
        creates no blocks: its top-level keys go to metadata, its choices'
        filter results to ``metadata["content_filters"]`` of their choice, an
        ``object`` other than ``""`` to extras."""
        if kind == "error":
            return self._error(payload)
        out: list[Event] = []
        self._top_level(payload, out)
        choices = payload.get("choices")
        for entry in choices if type(choices) is list else ():
            choice = self._choice_of(entry, out)
            if choice is None:
                continue
            filters = {key: value for key, value in entry.items()
                       if key != "index" and value is not None}
            if filters:
                out.append(ResponseMetadata(append={"content_filters": [filters]},
                                            choice=choice.index))
        if kind != "":
            self._choice(0, out).keep("objects", kind, out)
        return out

    def _error(self, payload: dict[str, Any]) -> list[Event]:
        """An error payload (its ``error`` object, or the fields at the top)."""
        out: list[Event] = []
        self._choice(0, out)
        self._ledger.error(error_event(payload.get("error", payload), payload), out)
        return out

    def _after_done(self, payload: Any, event: str | None) -> list[Event]:
        """Something after ``[DONE]``: an error still counts, the rest is kept in
        extras as ``{"after_done": payload}``, not applied."""
        if type(payload) is dict and (event == "error" or payload.get("error") is not None):
            return self._error(payload)
        out: list[Event] = []
        self._choice(0, out).keep("after_done", payload, out)
        return out

    def _unknown(self, payload: Any, event: str | None) -> list[Event]:
        """A payload that is not a chunk (not an object, an unknown named event):
        kept whole in ``metadata["unknown_events"]``."""
        out: list[Event] = []
        self._choice(0, out)
        out.append(unknown_payload(payload, event))
        return out

    def _end_of_stream(self) -> list[Event]:
        """``[DONE]``: close every block, end every choice (``terminated=True``)."""
        if self._ledger.ended:
            return []
        out: list[Event] = []
        self._end_all(out, terminated=True)
        return out

    def _end_all(self, out: list[Event], *, terminated: bool) -> None:
        """End every choice, choice 0 (the stream's lifecycle) first."""
        self._choice(0, out)  # a stream without a chunk still has its one response
        errored = self._ledger.errored
        for index in sorted(self._choices):
            self._choices[index].end(out, terminated=terminated, errored=errored)

    # ------------------------------------------------------------ response level

    def _choice(self, index: int, out: list[Event]) -> Choice:
        """The state of choice ``index``; a new choice is announced with its
        ``ResponseStart`` (choice 0's comes first: it starts the stream)."""
        choice = self._choices.get(index)
        if choice is not None:
            return choice
        if index != 0 and 0 not in self._choices:
            self._choice(0, out)
        ledger = self._ledger if index == 0 else BlockLedger(self.name, self._ids, choice=index)
        choice = self._choices[index] = Choice(ledger, self._options)
        ledger.start(out, id=self._id, model=self._model, metadata=dict(self._metadata))
        return choice

    def _first_chunk(self, payload: dict[str, Any], out: list[Event]) -> None:
        """The first chunk: choice 0's ``ResponseStart`` with the chunk's top-level
        keys (``created`` included) as metadata, or, when an error or a
        content-filter frame already started the response, ``ResponseMetadata``."""
        self._chunked = True
        collected: dict[str, Any] = {}
        created = payload.get("created")
        if created:  # 0 is a placeholder (Azure frames, id-less first chunks)
            collected["created"] = created
        errors: list[ErrorEvent] = []
        for key, value in payload.items():
            if value is None or key in _TOP_LEVEL_READ:
                continue
            if key == "error":
                errors.append(error_event(value, payload))
            else:
                collected[key] = value
        self._metadata.update(collected)
        self._id = as_str(payload.get("id")) or self._id
        self._model = as_str(payload.get("model")) or self._model
        if 0 not in self._choices:
            self._choice(0, out)
        else:
            for choice in self._choices.values():
                choice.ledger.start(out, id=self._id, model=self._model,
                                    metadata=dict(collected))
        for error in errors:
            self._ledger.error(error, out)
        if "x_groq" in collected:
            self._x_groq_usage(collected["x_groq"], payload, out)

    def _fill_identity(self, payload: dict[str, Any], out: list[Event]) -> None:
        """An id, model or ``created`` that the first chunk lacked (later differing
        ones are ignored: some vendors send a new id on every chunk)."""
        new_id = None if self._id is not None else as_str(payload.get("id")) or None
        new_model = None if self._model is not None else as_str(payload.get("model")) or None
        created = payload.get("created")
        metadata = {"created": created} if created and "created" not in self._metadata else {}
        if new_id is None and new_model is None and not metadata:
            return
        self._id = self._id or new_id
        self._model = self._model or new_model
        self._metadata.update(metadata)
        for index in self._choices:
            out.append(ResponseMetadata(metadata=dict(metadata), id=new_id, model=new_model,
                                        choice=index))

    def _top_level(self, payload: dict[str, Any], out: list[Event]) -> None:
        """The top-level keys after the first chunk: an ``error`` is an error,
        others are reported to every choice when new or changed."""
        for key, value in payload.items():
            if value is None or key in _TOP_LEVEL_READ \
                    or self._metadata.get(key, _MISSING) == value:
                continue
            if key == "error":
                self._choice(0, out)
                self._ledger.error(error_event(value, payload), out)
                continue
            self._metadata[key] = value
            for index in self._choices:
                out.append(ResponseMetadata(metadata={key: value}, choice=index))
            if key == "x_groq":
                self._x_groq_usage(value, payload, out)

    def _x_groq_usage(self, groq: Any, payload: dict[str, Any], out: list[Event]) -> None:
        """Groq's older API put usage in ``x_groq.usage`` on the last chunk."""
        envelope = as_dict(groq)
        usage = envelope.get("usage") if envelope is not None else None
        if usage is not None and payload.get("usage") is None:
            self._usage(usage, out)

    def _usage(self, usage: Any, out: list[Event]) -> None:
        """A usage report (cumulative; identical repeats are skipped). Always choice 0:
        usage covers the whole request, not one choice."""
        if type(usage) is not dict:
            self._choice(0, out).keep("usage", usage, out)
            return
        if usage == self._last_usage:
            return
        self._last_usage = usage
        self._choice(0, out)
        out.append(UsageUpdate(usage=map_usage(usage)))
