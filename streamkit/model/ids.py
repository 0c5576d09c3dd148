"""Ids streamkit makes up when a provider gives none (a block, a response, a call).

Two kinds, for two needs:

- :func:`new_id` for objects made by hand (``TextBlock("hi")``,
  ``ChatResponse()``): ``text_`` + 24 random hex digits, unique.
- :class:`StreamIds` for what a stream or a response body makes up: derived
  from the stream itself (its first payload) and a count per prefix, so two
  parses of the same bytes give the same ids and re-applying a stream's
  events gives the response it gave. The ids travel in the events
  (``ResponseStart.id``, a ``BlockStart``'s block), so every consumer agrees.

:func:`id_factory` swaps in one factory for both kinds for a while, so tests and
reproducible pipelines get ids like ``text_000...001`` instead of stripping
them with regexes.
"""

from __future__ import annotations

import hashlib
import itertools
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import msgspec

IdFactory = Callable[[str], str]

#: How much of the first payload seeds a stream's ids: enough to tell two
#: responses apart (ids, timestamps, the first words), bounded so seeding is O(1).
SEED_BYTES = 4096


def random_id(prefix: str) -> str:
    """``prefix`` + ``_`` + 24 random hex digits."""
    return f"{prefix}_{uuid.uuid4().hex[:24]}"


_factory: IdFactory | None = None  # set by id_factory(); None: the defaults above


def new_id(prefix: str) -> str:
    """A fresh id for an object made by hand (random unless a factory is set)."""
    return (_factory or random_id)(prefix)


class StreamIds:
    """The ids one stream (or one response body) makes up, in the order it
    makes them: ``prefix_`` + 24 hex digits of a hash of the stream's seed, the
    prefix and how many ids of that prefix came before. Seed it with the first
    payload (:meth:`seed`; later calls change nothing) before the first id."""

    __slots__ = ("_counts", "_hashed_seed", "_seed")

    def __init__(self) -> None:
        self._seed: bytes | None = None
        self._counts: dict[str, int] = {}
        self._hashed_seed: Any = None  # the seed's hash state, copied for each id

    @property
    def seeded(self) -> bool:
        return self._seed is not None

    @classmethod
    def of_body(cls, body: Any) -> StreamIds:
        """The ids a read of one whole body makes up (a request, a non-streamed
        response), seeded with the body as JSON, or its :func:`outline` when it
        holds something JSON cannot say or UTF-8 cannot carry (a lone surrogate,
        an integer past Python's digit limit, nesting deeper than the encoder
        goes, an object of a dict built by hand): seeding never fails."""
        ids = cls()
        try:
            ids.seed(msgspec.json.encode(body))
        except Exception:  # a lone surrogate, a huge integer, deep nesting, a set...
            ids.seed(outline(body))
        return ids

    def seed(self, data: bytes | str) -> None:
        """Derive this stream's ids from ``data`` (its first payload) unless already
        seeded; the same payload as text or as UTF-8 bytes seeds the same ids."""
        if self._seed is None:
            if isinstance(data, str):  # SEED_BYTES characters encode to SEED_BYTES bytes or more
                data = data[:SEED_BYTES].encode("utf-8", "replace")
            self._seed = bytes(data[:SEED_BYTES])
            self._hashed_seed = None

    def make(self, prefix: str) -> str:
        """The next made-up id with ``prefix`` (the installed factory's, if any)."""
        if _factory is not None:
            return _factory(prefix)
        count = self._counts[prefix] = self._counts.get(prefix, 0) + 1
        if self._hashed_seed is None:  # the seed (4 KB) is hashed once, not once an id
            self._hashed_seed = hashlib.blake2b(self._seed or b"", digest_size=12)
        digest = self._hashed_seed.copy()
        digest.update(b"\0%s\0%d" % (prefix.encode("utf-8", "replace"), count))
        return f"{prefix}_{digest.hexdigest()}"


_END = object()


def outline(value: Any, limit: int = SEED_BYTES) -> str:
    """The first ``limit`` characters of a flat text of ``value``'s keys and
    scalars in order, enough to seed ids: it never raises and never recurses,
    and it stops once it has ``limit`` characters, so a deep or huge value
    costs O(limit). (``repr`` fails on deep nesting and on integers past
    Python's digit limit, and reads the whole value.)"""
    pieces: list[str] = []
    size = 0
    stack: list[tuple[Iterator[Any], str]] = [(iter((value,)), "")]
    while stack and size < limit:
        items, closer = stack[-1]
        item = next(items, _END)
        if item is _END:
            stack.pop()
            piece = closer
        elif isinstance(item, dict):
            stack.append((itertools.chain.from_iterable(item.items()), "}"))
            piece = "{"
        elif isinstance(item, (list, tuple)):
            stack.append((iter(item), "]"))
            piece = "["
        elif isinstance(item, str):
            piece = item[:limit] + "\x00"
        elif isinstance(item, int) and not isinstance(item, bool):
            piece = f"{item:x}\x00"  # hexadecimal has no digit limit
        elif item is None or isinstance(item, (bool, float)):
            piece = f"{item}\x00"
        else:
            piece = f"<{type(item).__name__}>"
        pieces.append(piece)
        size += len(piece)
    return "".join(pieces)[:limit]


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
def id_factory(factory: IdFactory | None) -> Iterator[None]:
    """Make every id with ``factory`` inside the ``with`` block (``None``: the
    defaults, random by hand and derived in streams). Not thread-local: meant
    for tests and single-threaded replays."""
    global _factory
    previous, _factory = _factory, factory
    try:
        yield
    finally:
        _factory = previous
