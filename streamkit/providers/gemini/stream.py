"""Google Gemini streams (``:streamGenerateContent?alt=sse``, Gemini API and Vertex AI).

Every SSE payload is a whole ``GenerateContentResponse`` chunk::

    {"candidates": [{"content": {"parts": [...], "role": "model"},
                     "finishReason": ..., "index": 0, "safetyRatings": [...], ...}],
     "usageMetadata": {...}, "modelVersion": ..., "responseId": ..., "promptFeedback": {...}}

This module reads the chunk level (the response's identity, usage, prompt
feedback, errors); each candidate (= choice) is a
:class:`~streamkit.providers.gemini.candidate.Candidate` with its own
:class:`~streamkit.providers.ledger.BlockLedger` (all sharing the stream's
made-up ids), which makes blocks out of its parts; the wire words (finish
reasons, usage fields) are tables in :mod:`~streamkit.providers.gemini.wire`.

The response starts (:class:`~streamkit.model.events.ResponseStart`) at the first
chunk, with the ``responseId`` and ``modelVersion`` it names (an id made up
from the stream when it names none); an id or model named only later is
reported then, and a differing later response id is kept in
``metadata["otherResponseIds"]`` (the first id stays the response's id). Call
ids Gemini does not send are made up from the stream too, so two parses of
the same bytes give the same response.

Terminator: Gemini has none beyond the chunk carrying ``finishReason``, so that
chunk ends its candidate (``ResponseEnd(terminated=True)``); a later usage-only
chunk is still applied. A clean end of input without a ``finishReason`` ends
with ``unknown`` and ``terminated=False``; a ``promptFeedback.blockReason``
(the prompt was blocked, no candidates) ends every candidate with
``content_filter``, terminated: the provider's own end.

Usage: ``usageMetadata`` is a cumulative snapshot repeated on every chunk. To
keep a text chunk to exactly one event, the latest snapshot is held (a
reference, not a copy) and reported once when a candidate finishes, on a
usage-only chunk, before an error, and at :meth:`GeminiParser.finish`.
Candidate extras (``safetyRatings``, ``groundingMetadata``...) and unknown
top-level keys likewise become :class:`~streamkit.model.events.ResponseMetadata` only
when their value changes; a known field of the wrong type (``candidates`` not
a list, ``index`` not an integer...) is treated as absent and kept the same
way, under its own name.

No per-token shortcut (:meth:`GeminiParser.fast_delta`): every chunk is a
whole response object repeating usage, identity and candidate fields that
must be read, so there is no payload that only continues a block.

Errors: ``{"error": {...}}`` (also inside a JSON-array body) goes through
:func:`~streamkit.providers.error_payloads.error_event`, like every parser's;
candidates the input leaves unfinished after it end as ``error``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ...model.events import Event, ResponseMetadata, UsageUpdate
from ...model.finish import FinishReason
from ...model.ids import StreamIds
from ..base import Framing, Payloads, StreamParser, decode_json, feed_each
from ..coerce import as_int, as_str
from ..error_payloads import error_event
from ..ledger import BlockLedger, Phase
from ..lossless import unmodelled
from ..unknown import unknown_payload
from .candidate import Candidate, GeminiBlock
from .wire import PROVIDER, map_finish_reason, map_usage

__all__ = ["GeminiParser"]

# The top-level fields the chunk reader reads; any other is kept in metadata.
_CHUNK_READ = dict.fromkeys(("candidates", "usageMetadata", "modelVersion", "responseId",
                             "promptFeedback", "createTime", "error"), True)
_IDENTITY = ("responseId", "modelVersion")


class GeminiParser(StreamParser):
    """Gemini ``alt=sse`` chunks -> streamkit events (see the module docstring).

    ``provider`` is the registry name reported as the responses' provider
    (``gemini``, or ``vertex`` for Vertex AI: the same wire)."""

    framing: ClassVar[Framing] = "sse"

    def __init__(self, *, provider: str = PROVIDER) -> None:
        self.name = provider
        self.ids = StreamIds()
        self._started = False
        self._errored = False
        self._candidates: dict[int, Candidate] = {}  # by choice, in order of appearance
        self._first = self._new_candidate(0)  # choice 0: its response starts at chunk one
        self._id: str | None = None
        self._id_made_up = False  # no chunk named the response yet
        self._model: str | None = None
        self._other_ids: set[str] = set()  # later response ids, each reported once
        self._usage: dict[str, Any] | None = None  # the latest snapshot not yet reported
        self._extras: dict[str, Any] = {}  # top-level metadata last reported, by key

    @property
    def done(self) -> bool:
        """Whether every candidate seen has its ``finishReason`` (or the prompt
        was blocked)."""
        return bool(self._candidates) and all(
            candidate.ledger.phase is Phase.ENDED for candidate in self._candidates.values())

    # ------------------------------------------------------------ driving

    def feed(self, data: bytes | str, event: str | None = None) -> list[Event]:
        """Events implied by one chunk."""
        out: list[Event] = []
        if not self._started:
            self.ids.seed(data)
        self._payload(decode_json(data, event), out)
        return out

    def feed_into(self, payloads: Payloads, out: list[Event]) -> None:
        """The events of one network chunk's payloads, appended to ``out``, each
        by :meth:`feed`. No per-token shortcut (``fast_delta``): every chunk
        repeats usage and candidate fields that :meth:`feed` must read."""
        feed_each(self, payloads, out)

    def finish(self) -> list[Event]:
        """Close open blocks and end candidates that got no ``finishReason``
        (choice 0 always ends: its response started with the first chunk)."""
        out: list[Event] = []
        self._flush_usage(out)
        self._candidate(0, out)
        for candidate in list(self._candidates.values()):
            candidate.cut(out)
        return out

    def _payload(self, payload: Any, out: list[Event]) -> None:
        """A chunk, a JSON array of chunks, or a payload that is neither (kept)."""
        if type(payload) is dict:
            self._chunk(payload, out)
        elif type(payload) is list:  # a JSON-array body replayed element-wise
            for item in payload:
                if type(item) is dict:
                    self._chunk(item, out)
                else:
                    out.append(unknown_payload(item))
        else:
            out.append(unknown_payload(payload))

    # ------------------------------------------------------------ chunks

    def _chunk(self, payload: dict[str, Any], out: list[Event]) -> None:
        """One ``GenerateContentResponse``: the identity, the usage (held), each
        candidate, keys kept as metadata, then prompt feedback and error."""
        if not self._started:
            self._start(payload, out)
        elif payload.get("responseId") != self._id or payload.get("modelVersion") != self._model:
            self._identity(payload, out)
        usage = payload.get("usageMetadata")
        if type(usage) is dict:
            self._usage = usage
        elif usage is not None:
            self._top_extra("usageMetadata", usage, out)
        candidates = payload.get("candidates")
        if type(candidates) is not list:  # absent, or of the wrong type (kept): no candidates
            if candidates is not None:
                self._top_extra("candidates", candidates, out)
            candidates = []
        for position, data in enumerate(candidates):
            if type(data) is dict:
                self._candidate_chunk(data, position, out)
            else:
                out.append(unknown_payload(data))
        if not payload.keys() <= _CHUNK_READ.keys():
            for key, value in unmodelled(payload, _CHUNK_READ).items():
                self._top_extra(key, value, out)
        if "promptFeedback" in payload:
            self._prompt_feedback(payload["promptFeedback"], out)
        if "error" in payload:
            self._error(payload, out)
        elif not candidates:
            self._flush_usage(out)  # a usage-only (or empty) chunk: report usage now

    def _start(self, payload: dict[str, Any], out: list[Event]) -> None:
        """ResponseStart for choice 0 at the first chunk, whatever it names."""
        self._started = True
        self._id = as_str(payload.get("responseId"))
        if self._id is None:
            self._id, self._id_made_up = self.ids.make("resp"), True
        self._model = as_str(payload.get("modelVersion"))
        metadata = {"createTime": payload["createTime"]} if "createTime" in payload else None
        self._first.ledger.start(out, id=self._id, model=self._model, metadata=metadata)
        self._keep_mistyped_identity(payload, out)

    def _identity(self, payload: dict[str, Any], out: list[Event]) -> None:
        """A chunk naming another id or model than the response's: a first id
        (replacing the made-up one) or a new model is reported; a differing id
        is kept in metadata."""
        self._keep_mistyped_identity(payload, out)
        response_id = as_str(payload.get("responseId"))
        model = as_str(payload.get("modelVersion"))
        if response_id is not None and response_id != self._id:
            if self._id_made_up:  # the first chunks named no response
                self._id, self._id_made_up = response_id, False
                for candidate in {0: self._first, **self._candidates}.values():
                    out.append(ResponseMetadata(id=response_id, choice=candidate.choice))
            elif response_id not in self._other_ids:
                self._other_ids.add(response_id)
                out.append(ResponseMetadata(append={"otherResponseIds": [response_id]}))
        if model is not None and model != self._model:
            self._model = model
            out.append(ResponseMetadata(model=model))

    def _keep_mistyped_identity(self, payload: dict[str, Any], out: list[Event]) -> None:
        """A ``responseId`` or ``modelVersion`` that is not a string is treated
        as absent and kept in metadata."""
        for key in _IDENTITY:
            value = payload.get(key)
            if value is not None and type(value) is not str:
                self._top_extra(key, value, out)

    def _new_candidate(self, choice: int) -> Candidate:
        ledger = BlockLedger(self.name, self.ids, choice=choice, slot=GeminiBlock)
        ledger.errored = self._errored
        return Candidate(ledger)

    def _candidate(self, choice: int, out: list[Event]) -> Candidate:
        """The candidate for ``choice``; a new one other than 0 starts its
        response (choice 0's started with the first chunk)."""
        candidate = self._candidates.get(choice)
        if candidate is None:
            if choice == 0:
                candidate = self._first
            else:  # created by a chunk, after the first
                candidate = self._new_candidate(choice)
                candidate.ledger.start(out, id=self._id, model=self._model)
            self._candidates[choice] = candidate
        return candidate

    def _candidate_chunk(self, data: dict[str, Any], position: int, out: list[Event]) -> None:
        """One candidate's part of a chunk; ``index`` (else its position) is the choice."""
        index = data.get("index")
        given = as_int(index)
        choice = position if given is None else given
        candidate = self._candidates.get(choice) or self._candidate(choice, out)
        if given is None and index is not None:  # not an integer: kept in metadata
            candidate.extra("index", index, out)
        candidate.read(data, out)
        reason = data.get("finishReason")
        if reason is not None:
            if type(reason) is not str:
                candidate.extra("finishReason", reason, out)
            self._finish_candidate(candidate, as_str(reason), out)

    def _finish_candidate(self, candidate: Candidate, reason: str | None,
                          out: list[Event]) -> None:
        """``finishReason`` ends the candidate (``None``: a reason that is not a
        string, kept in metadata, ends it as ``unknown``)."""
        candidate.close_block(out, cut_off=reason == "MAX_TOKENS")
        self._flush_usage(out)
        finish = map_finish_reason(reason, candidate.called) or FinishReason.UNKNOWN
        candidate.end(finish, reason, out)

    # ------------------------------------------------------------ response level

    def _top_extra(self, key: str, value: Any, out: list[Event]) -> None:
        """Top-level metadata, reported only when it changes."""
        if key in self._extras and self._extras[key] == value:
            return
        self._extras[key] = value
        out.append(ResponseMetadata(metadata={key: value}))

    def _prompt_feedback(self, feedback: Any, out: list[Event]) -> None:
        """``promptFeedback`` is kept; a ``blockReason`` means the prompt was
        blocked and no candidate follows: every choice ends as content_filter
        (the provider's end: terminated)."""
        self._top_extra("promptFeedback", feedback, out)
        reason = feedback.get("blockReason") if type(feedback) is dict else None
        if reason is None:
            return
        self._flush_usage(out)
        self._candidate(0, out)
        for candidate in list(self._candidates.values()):
            candidate.end(FinishReason.CONTENT_FILTER, as_str(reason), out)

    def _flush_usage(self, out: list[Event]) -> None:
        if self._usage is not None:
            out.append(UsageUpdate(usage=map_usage(self._usage)))
            self._usage = None

    def _error(self, payload: dict[str, Any], out: list[Event]) -> None:
        """``{"error": {"code": 429, "message": ..., "status": "RESOURCE_EXHAUSTED"}}``:
        reported once (as choice 0's); every candidate the input leaves
        unfinished ends as ``error``."""
        self._errored = True
        self._flush_usage(out)
        self._first.ledger.error(error_event(payload.get("error"), payload), out)
        for candidate in self._candidates.values():
            candidate.ledger.errored = True
