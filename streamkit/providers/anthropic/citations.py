"""Anthropic's citation objects <-> :class:`~streamkit.model.blocks.Citation`.

A citation earns its own module because Anthropic has five kinds of them,
each naming its location its own way (the SDK's ``TextCitation`` union):

=============================  ==============================================
``char_location``              a plain-text document: ``start_char_index`` /
                               ``end_char_index``
``page_location``              a PDF: ``start_page_number`` / ``end_page_number``
``content_block_location``     a custom-content document: ``start_block_index``
                               / ``end_block_index``
``web_search_result_location`` a web search result: ``url``, ``title``
``search_result_location``     a ``search_result`` block: ``source``, ``title``,
                               block indexes
=============================  ==============================================

All of them carry ``cited_text``; the document ones ``document_index`` and
``document_title``. Reading fills :class:`Citation`'s uniform fields from the
kind's table (``start`` / ``end`` in the kind's own unit) and keeps the
object itself as ``raw``; writing sends ``raw`` back, for Anthropic's own
citations only: another wire's citation points into documents of another
request and has no Anthropic form.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ...model.blocks import Citation
from ..coerce import as_int, as_list, as_str
from .wire import NAME


class _Location(NamedTuple):
    """Where one citation kind keeps its span, its title and its link."""

    start: str | None = None
    end: str | None = None
    title: str = "document_title"
    url: str | None = None


_LOCATIONS: dict[str, _Location] = {
    "char_location": _Location("start_char_index", "end_char_index"),
    "page_location": _Location("start_page_number", "end_page_number"),
    "content_block_location": _Location("start_block_index", "end_block_index"),
    "web_search_result_location": _Location(title="title", url="url"),
    "search_result_location": _Location("start_block_index", "end_block_index", title="title",
                                        url="source"),
}
_UNKNOWN = _Location()


def read_citation(raw: dict[str, Any]) -> Citation:
    """The :class:`Citation` one Anthropic citation object stands for (a field
    of the wrong type is left unset; ``raw`` keeps everything)."""
    location = _LOCATIONS.get(as_str(raw.get("type")) or "", _UNKNOWN)
    return Citation(
        url=as_str(raw.get(location.url)) if location.url else None,
        title=as_str(raw.get(location.title)),
        cited_text=as_str(raw.get("cited_text")),
        start=as_int(raw.get(location.start)) if location.start else None,
        end=as_int(raw.get(location.end)) if location.end else None,
        document_index=as_int(raw.get("document_index")),
        raw=raw,
        wire=NAME,
    )


def read_citations(value: Any) -> list[Citation] | None:
    """A text block's ``citations`` list; ``None`` when it is not a list of
    objects (the caller keeps such a value as it came)."""
    items = as_list(value)
    if items is None or any(type(item) is not dict for item in items):
        return None
    return [read_citation(item) for item in items]


def write_citations(citations: list[Citation]) -> list[dict[str, Any]]:
    """The Anthropic citation objects among ``citations``, as they came."""
    return [citation.raw for citation in citations if citation.wire == NAME and citation.raw]
