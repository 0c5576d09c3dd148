"""Prompt-cache points in a Chat Completions body: the ``cache_control``
markers OpenRouter and LiteLLM take, Anthropic's, on a message, a content part
or a tool (:mod:`streamkit.providers.cache_points` does the walking).

Read from every body: a marker on a message, a part or a tool becomes that
holder's :class:`~streamkit.model.cache.CachePoint`, so a request an OpenAI
client sent to a gateway reaches an Anthropic upstream with its breakpoints.

Written only for a dialect whose vendor takes them
(:attr:`~.dialects.HistoryRules.cache_markers`: OpenRouter). OpenAI has no
marker: it caches every prompt's prefix of 1,024 tokens or more by itself
(platform.openai.com/docs/guides/prompt-caching), and refuses a field it does
not know in a message ("Invalid value for 'messages.0.cache_control'", quoted
in experientiallabs/experiential#612; Fireworks answers 400 too,
pollinations/pollinations#10696). So a point is a documented no-op there, not
a loss: the prefix it marks is cached all the same. What OpenAI does take is
``prompt_cache_key`` and ``prompt_cache_retention``, request options.
"""

from __future__ import annotations

from typing import Any, Final

from ...conversation.request import Request
from ...conversation.tools import Tool
from ...model.cache import CachePoint
from ..cache_points import Markers, place_points, read_ephemeral, write_ephemeral, written_points
from .dialects import HistoryRules
from .wire import NAME

__all__ = ["MARKERS", "check_markers", "read_tool_point", "with_markers"]

#: The markers as OpenRouter takes them: on messages too.
MARKERS: Final = Markers(NAME, "cache_control", write_ephemeral, read_ephemeral,
                         on_messages=True, in_tool_metadata=False)


def with_markers(request: Request, rules: HistoryRules) -> Request:
    """``request`` with its points as markers, for a dialect that takes them."""
    return place_points(request, MARKERS) if rules.cache_markers else request


def check_markers(body: dict[str, Any], placed: Request, rules: HistoryRules) -> None:
    """Say the points placed but not written (see
    :func:`~streamkit.providers.cache_points.written_points`)."""
    if rules.cache_markers:
        _mark_tools(body, placed)
        written_points([(key, body[key]) for key in ("tools", "messages") if key in body],
                       placed, MARKERS)


def _mark_tools(body: dict[str, Any], request: Request) -> None:
    """Each tool's point as a marker beside its ``function`` (LiteLLM's and
    OpenRouter's place for it), found by the function's name."""
    points = {tool.name: tool.cache for tool in request.tools or ()
              if isinstance(tool, Tool) and tool.cache is not None}
    for entry in body.get("tools", ()) if points else ():
        function = entry.get("function")
        name = function.get("name") if isinstance(function, dict) else None
        point = points.get(name) if isinstance(name, str) else None
        if point is not None:
            entry[MARKERS.field] = MARKERS.write(point)


def read_tool_point(entry: dict[str, Any]) -> tuple[dict[str, Any], CachePoint | None]:
    """A tool entry without its marker, and the point the marker stands for
    (the entry as it is, and ``None``, when it holds none this model reads)."""
    point = MARKERS.read(entry[MARKERS.field]) if MARKERS.field in entry else None
    if point is None:
        return entry, None
    return {key: value for key, value in entry.items() if key != MARKERS.field}, point
