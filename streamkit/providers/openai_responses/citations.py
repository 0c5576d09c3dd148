"""An ``output_text`` part's ``annotations`` <-> typed :class:`~streamkit.model.blocks.Citation` s.

The Responses API cites in four kinds of annotation (the SDK's
``ResponseOutputText.Annotation``), the same whether they come in a part's
``annotations`` or one by one in ``response.output_text.annotation.added``:

- ``url_citation``: ``url``, ``title``, ``start_index`` / ``end_index``
  (characters of the part's text);
- ``file_citation``: ``file_id``, ``filename``, ``index`` (the point in the
  text where the citation goes: a span of no length);
- ``container_file_citation``: ``container_id``, ``file_id``, ``filename``,
  ``start_index`` / ``end_index``;
- ``file_path``: ``file_id``, ``index`` (of the file in the list of files,
  not a place in the text).

A file's name is the citation's ``title``; ids stay in ``raw``, the annotation
itself, which is what an own turn writes back: only a citation of this wire has
one this API can take. A citation made by hand (no wire) goes back as a
``url_citation`` when it names everything that one requires.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ...model.blocks import Citation
from ..coerce import as_int, as_str
from .wire import NAME

# Annotation kinds whose ``index`` is a place in the text.
_POINT_IN_TEXT = frozenset({"file_citation"})


def read_citation(annotation: dict[str, Any]) -> Citation:
    """One annotation as a :class:`Citation` (a field of the wrong type is absent;
    the annotation is kept whole in ``raw``)."""
    start, end = as_int(annotation.get("start_index")), as_int(annotation.get("end_index"))
    if as_str(annotation.get("type")) in _POINT_IN_TEXT and start is None and end is None:
        start = end = as_int(annotation.get("index"))
    return Citation(url=as_str(annotation.get("url")),
                    title=as_str(annotation.get("title")) or as_str(annotation.get("filename")),
                    start=start, end=end, raw=dict(annotation), wire=NAME)


def read_citations(annotations: Iterable[Any]) -> list[Citation]:
    """A part's ``annotations`` (entries that are not objects say nothing)."""
    return [read_citation(annotation) for annotation in annotations if type(annotation) is dict]


def annotation_of(citation: Citation) -> dict[str, Any] | None:
    """The annotation to write for ``citation``: its own object when it came from
    this wire; a ``url_citation`` for one made by hand that has a URL, a title
    and both ends; ``None`` (no annotation) for another wire's."""
    if citation.wire == NAME and citation.raw:
        return citation.raw
    if citation.wire is None and citation.url is not None and citation.title is not None \
            and citation.start is not None and citation.end is not None:
        return {"type": "url_citation", "url": citation.url, "title": citation.title,
                "start_index": citation.start, "end_index": citation.end}
    return None


def annotations_of(citations: Iterable[Citation]) -> list[dict[str, Any]]:
    """An ``output_text`` part's ``annotations`` (required there, ``[]`` for none)."""
    return [written for citation in citations if (written := annotation_of(citation)) is not None]
