"""Anthropic's prompt-cache breakpoints: ``cache_control`` to and from
:class:`~streamkit.model.cache.CachePoint` s, and the limit of four.

A breakpoint is ``"cache_control": {"type": "ephemeral"}`` (``"ttl": "5m"`` or
``"1h"`` beside it) on a tool definition, a system text block, a content block
of a message or a tool result (Anthropic's prompt-caching guide). A message has
no marker of its own: a point on a message goes on its last block (never a
thinking block, which takes none). A ``cache_control`` this model cannot hold
(another ``type``, a TTL Anthropic does not list) stays the block's extra and
goes back to Anthropic as it came.

The limit: "A maximum of 4 blocks with cache_control may be provided. Found 5."
is Anthropic's 400 (quoted in tghamm/Anthropic.SDK#50, continuedev/continue#6937).
When a request asks for more, the body keeps the **first** breakpoint in the
prompt's order (tools, then system, then messages: the prefix every
conversation of an application shares, read by all of them) and the **last
three** (the latest turns, the prefix the next request of this conversation
reads), and drops the others with a :class:`~streamkit.LossyTranslationWarning`
naming each by its place in the body. Breakpoints counted are every
``cache_control`` the body holds, the caller's own extras and server tools'
included.

Mixed lifetimes: Anthropic wants one-hour breakpoints before five-minute ones.
A shorter breakpoint before the request's last one-hour breakpoint is made an
hour long, with a warning (see :func:`_longer_first`).
"""

from __future__ import annotations

from typing import Any, Final

from ...conversation.request import Request
from ...model.errors import warn_lossy
from ..cache_points import Markers, read_ephemeral, write_ephemeral, written_points
from .wire import NAME

__all__ = ["CACHE_HINTS", "MARKERS", "MAX_BREAKPOINTS", "fit_breakpoints"]

#: OpenAI's prompt-cache options (``prompt_cache_key``, a routing hint;
#: ``prompt_cache_retention``): Anthropic's cache is keyed by the exact prefix
#: and lives as its breakpoints' ``ttl`` say, so they ask nothing of it and are
#: dropped without a word (a documented no-op, ``docs/caching.md``).
CACHE_HINTS: Final = ("prompt_cache_key", "prompt_cache_retention")

#: The most ``cache_control`` blocks one request may hold (see the module docstring).
MAX_BREAKPOINTS: Final = 4


#: Anthropic's markers (:mod:`streamkit.providers.cache_points`).
MARKERS: Final = Markers(NAME, "cache_control", write_ephemeral, read_ephemeral)


def fit_breakpoints(body: dict[str, Any], placed: Request) -> None:
    """``body`` within :data:`MAX_BREAKPOINTS` (the module docstring's rule),
    a point placed in ``placed`` but not written said."""
    found = written_points(_prompt_parts(body), placed, MARKERS)
    if len(found) > MAX_BREAKPOINTS:
        dropped = found[1:len(found) - MAX_BREAKPOINTS + 1]
        for holder, _ in dropped:
            del holder[MARKERS.field]
        warn_lossy(NAME, f"{len(found)} cache breakpoints: the ones at "
                   f"{', '.join(path for _, path in dropped)}",
                   f"Anthropic takes at most {MAX_BREAKPOINTS} a request; the first (the prefix "
                   f"every conversation shares) and the last three (the latest turns) are kept")
        found = [found[0], *found[len(found) - MAX_BREAKPOINTS + 1:]]
    _longer_first(found)


def _longer_first(found: list[tuple[dict[str, Any], str]]) -> None:
    """Breakpoints of one hour before those of five minutes, as Anthropic
    requires when a request mixes them ("1-hour entries must appear before
    5-minute entries", its prompt-caching guide, quoted in Portkey's docs):
    a shorter breakpoint before the last one-hour breakpoint lives an hour too,
    said with a warning (its cache write costs more)."""
    hours = [index for index, (holder, _) in enumerate(found)
             if _ttl(holder[MARKERS.field]) == "1h"]
    shorter = [(holder, path) for holder, path in found[:hours[-1]] if _ttl(
        holder[MARKERS.field]) != "1h"] if hours else []
    for holder, _ in shorter:
        holder[MARKERS.field] = {**holder[MARKERS.field], "ttl": "1h"}
    if shorter:
        warn_lossy(NAME, f"the 5-minute TTL of the cache breakpoint(s) at "
                   f"{', '.join(path for _, path in shorter)}",
                   "Anthropic needs 1-hour breakpoints before 5-minute ones, and a later one "
                   "asks for an hour: they live an hour too")


def _ttl(marker: Any) -> Any:
    return marker.get("ttl", "5m") if isinstance(marker, dict) else None


def _prompt_parts(body: dict[str, Any]) -> list[tuple[str, Any]]:
    """The parts of a body that can hold breakpoints, in the prompt's order."""
    parts: list[tuple[str, Any]] = []
    for key in ("tools", "system", "messages"):
        if isinstance(body.get(key), list):
            parts.append((key, body[key]))
    return parts
