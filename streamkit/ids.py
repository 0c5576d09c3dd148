"""Ids streamkit makes up when a provider gives none (a block, a response).

By default they are random (``text_`` + 24 hex digits). :func:`id_factory`
swaps in another factory for a while, so tests and reproducible pipelines get
the same ids on every run instead of stripping them with regexes.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager

IdFactory = Callable[[str], str]


def random_id(prefix: str) -> str:
    """``prefix`` + ``_`` + 24 random hex digits."""
    return f"{prefix}_{uuid.uuid4().hex[:24]}"


_factory: IdFactory = random_id


def new_id(prefix: str) -> str:
    """A fresh id from the current factory."""
    return _factory(prefix)


def counting_ids() -> IdFactory:
    """A factory of ``prefix_000...001``, ``prefix_000...002``...: the same shape as
    the random ids (24 hex digits), counted per prefix, so the ids of a run do not
    depend on whether its blocks or its responses were made first (a pipeline fed
    one chunk and one fed payload by payload differ there)."""
    counts: dict[str, int] = {}

    def make(prefix: str) -> str:
        counts[prefix] = count = counts.get(prefix, 0) + 1
        return f"{prefix}_{count:024x}"

    return make


@contextmanager
def id_factory(factory: IdFactory) -> Iterator[None]:
    """Make ids with ``factory`` inside the ``with`` block (not thread-local:
    meant for tests and single-threaded replays)."""
    global _factory
    previous, _factory = _factory, factory
    try:
        yield
    finally:
        _factory = previous
