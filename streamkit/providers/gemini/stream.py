"""Google Gemini streams (``:streamGenerateContent?alt=sse``, Gemini API and Vertex AI).

Every SSE payload is a whole ``GenerateContentResponse`` chunk::

    {"candidates": [{"content": {"parts": [...], "role": "model"},
                     "finishReason": ..., "index": 0, "safetyRatings": [...], ...}],
     "usageMetadata": {...}, "modelVersion": ..., "responseId": ..., "promptFeedback": {...}}

This module reads the chunk level (the response's identity, usage, prompt
feedback, errors); each candidate (= choice) is a
:class:`~streamkit.providers.gemini.candidate.Candidate`, which makes blocks
out of its parts; the wire words (finish reasons, usage fields) are tables in
:mod:`~streamkit.providers.gemini.rules`.

The response starts (:class:`~streamkit.events.ResponseStart`) at the first
chunk, with the ``responseId`` and ``modelVersion`` it names; an id or model
named only later is reported then, and a differing later response id is kept
in ``metadata["otherResponseIds"]`` (the first id stays the response's id).

Terminator: Gemini has none beyond the chunk carrying ``finishReason``, so that
chunk ends its candidate (``ResponseEnd(terminated=True)``); a later usage-only
chunk is still applied. A clean end of input without a ``finishReason`` ends
with ``unknown`` and ``terminated=False``; a ``promptFeedback.blockReason``
(the prompt was blocked, no candidates) ends with ``content_filter``.

Usage: ``usageMetadata`` is a cumulative snapshot repeated on every chunk. To
keep a text chunk to exactly one event, the latest snapshot is held (a
reference, not a copy) and reported once when a candidate finishes, on a
usage-only chunk, before an error, and at :meth:`GeminiParser.finish`.
Candidate extras (``safetyRatings``, ``groundingMetadata``...) and unknown
top-level keys likewise become :class:`~streamkit.events.ResponseMetadata` only
when their value changes; a known field of the wrong type (``candidates`` not
a list, ``index`` not an integer...) is treated as absent and kept the same
way, under its own name.

Errors: ``{"error": {...}}`` (also inside a JSON-array body) goes through
:func:`~streamkit.providers.error_payloads.error_event`, like every parser's.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, ClassVar

from ...events import BlockDelta, Event, ResponseMetadata, ResponseStart, UsageUpdate
from ...finish import FinishReason
from ..base import Framing, Payloads, decode_json
from ..coerce import as_int, as_str
from ..error_payloads import error_event
from ..unknown import unknown_payload
from .candidate import Candidate, Phase
from .rules import map_finish_reason, map_usage

__all__ = ["GeminiParser", "map_finish_reason", "map_usage"]

# The top-level fields the chunk reader reads; any other is kept in metadata.
_CHUNK_READ = frozenset({
    "candidates", "usageMetadata", "modelVersion", "responseId", "promptFeedback", "createTime",
    "error",
})


class _Response(Enum):
    """The response's lifecycle, apart from its candidates'."""

    WAITING = "waiting"  # no chunk yet
    STREAMING = "streaming"
    ERRORED = "errored"  # an error payload came: unfinished candidates end as error


_WAITING = _Response.WAITING  # read per chunk: an Enum member lookup costs ~0.2 µs on 3.11


class GeminiParser:
    """Gemini ``alt=sse`` chunks -> streamkit events (see the module docstring)."""

    name: ClassVar[str] = "gemini"
    framing: ClassVar[Framing] = "sse"

    def __init__(self) -> None:
        self._state = _Response.WAITING
        self._candidates: dict[int, Candidate] = {}
        self._id: str | None = None
        self._model: str | None = None
        self._other_ids: set[str] = set()  # later response ids, each reported once
        self._usage: dict[str, Any] | None = None  # the latest snapshot not yet reported
        self._extras: dict[str, Any] = {}  # top-level metadata last reported, by key

    @property
    def done(self) -> bool:
        """Whether every candidate seen has its ``finishReason`` (or the prompt
        was blocked)."""
        return bool(self._candidates) and all(
            candidate.phase in (Phase.FINISHED, Phase.BLOCKED)
            for candidate in self._candidates.values())

    # ------------------------------------------------------------ driving

    def feed(self, data: bytes | str, event: str | None = None) -> list[Event]:
        """Events implied by one chunk."""
        out: list[Event] = []
        self._payload(decode_json(data, event), out)
        return out

    def feed_into(self, payloads: Payloads, out: list[Event]) -> None:
        """The events of one network chunk's payloads, appended to ``out``."""
        for name, data in payloads:
            self._payload(decode_json(data, None if name == "message" else name), out)

    def fast_delta(self, name: str, data: bytes | str) -> BlockDelta | None:
        """No per-token shortcut: every chunk repeats usage and candidate fields
        that :meth:`feed` must read."""
        return None

    def finish(self) -> list[Event]:
        """Close open blocks and end candidates that got no ``finishReason``
        (choice 0 always ends: its response started with the first chunk)."""
        out: list[Event] = []
        self._flush_usage(out)
        finish = FinishReason.ERROR if self._state is _Response.ERRORED else FinishReason.UNKNOWN
        self._candidate(0, out)
        for candidate in list(self._candidates.values()):
            if not candidate.ended:
                candidate.end(Phase.CUT, finish, None, out)
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
        if self._state is _WAITING:
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
        if not payload.keys() <= _CHUNK_READ:
            for key, value in payload.items():
                if key not in _CHUNK_READ:
                    self._top_extra(key, value, out)
        if "promptFeedback" in payload:
            self._prompt_feedback(payload["promptFeedback"], out)
        if "error" in payload:
            self._error(payload, out)
        elif not candidates:
            self._flush_usage(out)  # a usage-only (or empty) chunk: report usage now

    def _start(self, payload: dict[str, Any], out: list[Event]) -> None:
        """ResponseStart for choice 0 at the first chunk, whatever it names."""
        self._state = _Response.STREAMING
        self._id = as_str(payload.get("responseId"))
        self._model = as_str(payload.get("modelVersion"))
        metadata = {"createTime": payload["createTime"]} if "createTime" in payload else {}
        out.append(ResponseStart(id=self._id, model=self._model, metadata=metadata,
                                 provider=self.name))
        self._keep_mistyped_identity(payload, out)

    def _identity(self, payload: dict[str, Any], out: list[Event]) -> None:
        """A chunk naming another id or model than the response's: a first id
        or a new model is reported; a differing id is kept in metadata."""
        self._keep_mistyped_identity(payload, out)
        response_id = as_str(payload.get("responseId"))
        model = as_str(payload.get("modelVersion"))
        if response_id is not None:
            if self._id is None:  # the first chunks named no response
                self._id = response_id
                out.append(ResponseMetadata(id=response_id))
            elif response_id != self._id and response_id not in self._other_ids:
                self._other_ids.add(response_id)
                out.append(ResponseMetadata(append={"otherResponseIds": [response_id]}))
        if model is not None and model != self._model:
            self._model = model
            out.append(ResponseMetadata(model=model))

    def _keep_mistyped_identity(self, payload: dict[str, Any], out: list[Event]) -> None:
        """A ``responseId`` or ``modelVersion`` that is not a string is treated
        as absent and kept in metadata."""
        for key in ("responseId", "modelVersion"):
            value = payload.get(key)
            if value is not None and type(value) is not str:
                self._top_extra(key, value, out)

    def _candidate(self, choice: int, out: list[Event]) -> Candidate:
        """The candidate for ``choice``; a new one other than 0 starts its
        response (choice 0's started with the first chunk)."""
        candidate = self._candidates.get(choice)
        if candidate is None:
            candidate = self._candidates[choice] = Candidate(choice)
            if choice != 0:  # created by a chunk, after the first
                out.append(ResponseStart(id=self._id, model=self._model, choice=choice,
                                         provider=self.name))
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
        candidate.end(Phase.FINISHED, finish, reason, out)

    # ------------------------------------------------------------ response level

    def _top_extra(self, key: str, value: Any, out: list[Event]) -> None:
        """Top-level metadata, reported only when it changes."""
        if key in self._extras and self._extras[key] == value:
            return
        self._extras[key] = value
        out.append(ResponseMetadata(metadata={key: value}))

    def _prompt_feedback(self, feedback: Any, out: list[Event]) -> None:
        """``promptFeedback`` is kept; a ``blockReason`` means the prompt was
        blocked and no candidate follows: every choice ends as content_filter."""
        self._top_extra("promptFeedback", feedback, out)
        reason = feedback.get("blockReason") if type(feedback) is dict else None
        if reason is None:
            return
        self._flush_usage(out)
        self._candidate(0, out)
        for candidate in list(self._candidates.values()):
            if not candidate.ended:
                candidate.end(Phase.BLOCKED, FinishReason.CONTENT_FILTER, as_str(reason), out)

    def _flush_usage(self, out: list[Event]) -> None:
        if self._usage is not None:
            out.append(UsageUpdate(usage=map_usage(self._usage)))
            self._usage = None

    def _error(self, payload: dict[str, Any], out: list[Event]) -> None:
        """``{"error": {"code": 429, "message": ..., "status": "RESOURCE_EXHAUSTED"}}``."""
        self._state = _Response.ERRORED
        self._flush_usage(out)
        out.append(error_event(payload.get("error"), payload))
