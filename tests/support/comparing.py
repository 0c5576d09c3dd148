"""Comparing two runs of the same bytes whole: a response without its local
clock (:func:`comparable`), and ids counted afresh for each run (:func:`fresh_ids`)."""

from __future__ import annotations

from typing import Any

from streamkit.model.ids import counting_ids, id_factory
from streamkit.model.response import ChatResponse


def comparable(response: ChatResponse) -> dict[str, Any]:
    """The response as a dict without its local ``created_at`` (ids are
    repeatable under the ``repeatable_ids`` fixture, which every test gets)."""
    out = response.to_dict()
    out.pop("created_at")
    return out


def fresh_ids() -> Any:
    """A fresh counter for one run (``with fresh_ids(): ...``), so two independent
    runs of the same bytes make up the same ids."""
    return id_factory(counting_ids())

def paired(text: str) -> str:
    """``text`` as JSON reads it back: a high and a low surrogate side by side
    are the one character they are the pair of."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
