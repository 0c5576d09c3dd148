"""Structured output in the UI message stream: ``data-output`` parts.

With ``output=Model`` the encoder also sends the structured answer as it
streams (:mod:`streamkit.model.structured.reader`), as one AI SDK data part per step that
the client updates in place: every ``data-output`` chunk of a step carries the
same ``id``, and the ``ai`` client's ``readUIMessageStream`` (``useChat``)
replaces the part's ``data`` with the newest one. ``data`` is::

    {"state": "streaming" | "done" | "error", "object": {...}, "errorText": "..."}

``object`` is the partial value (only the fields known so far) while
``streaming``; the whole validated value once ``done``; the last partial value
with ``errorText`` (the :class:`~streamkit.model.errors.StructuredOutputError`) when
the final answer does not validate. Each chunk holds the whole object so far,
so chunks are sent at most once per ``interval`` seconds (the last one always);
a step that never showed any field (a tool-calling step of an agent loop)
sends none.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..model.errors import StructuredOutputError
from ..model.response import ChatResponse
from ..model.structured.reader import PartialOutputPacer, PartialOutputReader

__all__ = ["OutputParts"]

#: The data part type (the AI SDK's ``data-<name>`` convention).
OUTPUT_PART = "data-output"


class OutputParts:
    """The ``data-output`` chunks of one step."""

    def __init__(self, model: type[Any], *, part_id: str, choice: int,
                 interval: float | None, clock: Callable[[], float]) -> None:
        self.part_id = part_id
        self.reader: PartialOutputReader[Any] = PartialOutputReader(model, choice=choice)
        self.pacer = PartialOutputPacer(self.reader, interval, clock, show_empty=False)
        self.sent = False

    def take(self, item: object) -> list[dict[str, Any]]:
        """The chunk for a stream item, when the answer changed and it is time."""
        value = self.pacer.take(item)
        if value is None:
            return []
        return [self._chunk("streaming", value.model_dump(mode="json", exclude_unset=True))]

    def finish(self, response: ChatResponse | None) -> list[dict[str, Any]]:
        """The step's last chunk: the whole value, or the last partial value and
        why the answer does not validate (nothing for a step that showed none)."""
        try:
            if response is None:
                raise StructuredOutputError("the step ended without its final response",
                                            model=self.reader.model, text=None,
                                            response=ChatResponse())
            value = self.reader.finish(response)
        except StructuredOutputError as error:
            partial = self.reader.current()
            if not (self.sent or partial.model_fields_set):
                return []
            return [self._chunk("error", partial.model_dump(mode="json", exclude_unset=True),
                                errorText=str(error))]
        return [self._chunk("done", value.model_dump(mode="json"))]

    def _chunk(self, state: str, value: dict[str, Any], **extra: str) -> dict[str, Any]:
        self.sent = True
        return {"type": OUTPUT_PART, "id": self.part_id,
                "data": {"state": state, "object": value, **extra}}
