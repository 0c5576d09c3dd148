"""Prompt-cache points (:class:`~streamkit.model.cache.CachePoint`) to and from
the wires that mark them in the body: the walks every such wire takes the same way.

A wire that marks a cacheable prefix in the body (Anthropic's ``cache_control``
on a block, a system block, a tool result or a tool; OpenRouter's, the same
markers in an OpenAI Chat body, messages too) gives its field name and two
functions of one value (:class:`Markers`); this module does the rest:

- :func:`read_points`, after a wire's reader: each marker it kept among a
  holder's extras becomes that holder's ``cache`` (a marker it cannot read as a
  point, such as a ``type`` other than ``ephemeral``, stays an extra and goes
  back to its own wire untouched);
- :func:`place_points`, before a wire's builder: each point becomes the
  marker in the holder's metadata, which the builder writes as it writes every
  extra; a point on a message the wire cannot mark goes on the message's last
  block that can carry one;
- :func:`written_points`, after the builder: the markers found in the body,
  in the prompt's order, each with where it is; a point placed but not written
  (a block this wire writes without its extras: another API's assistant turn)
  is said with a :class:`~streamkit.LossyTranslationWarning` naming it.

Copies are made of the holders that carry a point only: a request without any
costs one pass over its messages and blocks.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeAlias

from ..conversation.messages import (
    AssistantMessage,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    Message,
    SystemMessage,
    UserMessage,
)
from ..conversation.request import Request
from ..conversation.tools import Tool
from ..model.blocks import Block, TextBlock, ThinkingBlock
from ..model.cache import CACHE_TTLS, CachePoint
from ..model.errors import warn_lossy
from ..model.extras import Extras, origin_of
from ..model.response import ChatResponse

__all__ = [
    "Markers",
    "place_points",
    "read_ephemeral",
    "read_points",
    "with_automatic_points",
    "write_ephemeral",
    "written_points",
]

Turn: TypeAlias = SystemMessage | UserMessage | AssistantMessage | FunctionExecutionResultMessage
Holder: TypeAlias = "Turn | Block | FunctionExecutionResult | Tool"


@dataclass(frozen=True)
class Markers:
    """How one wire marks a cache point: its ``field`` on a holder, the value
    written for a point (``write``), the point a value stands for (``read``:
    ``None`` when the value is not one this model can hold), and whether a
    message itself carries a marker (``on_messages``; else its last block does).
    ``in_tool_metadata``: a tool's marker is one of its extras (Anthropic's);
    else the wire's tool module reads and writes it (an OpenAI Chat tool's
    extras go inside its ``function``, its marker beside it)."""

    wire: str
    field: str
    write: Callable[[CachePoint], dict[str, Any]]
    read: Callable[[Any], CachePoint | None]
    on_messages: bool = False
    in_tool_metadata: bool = True


def write_ephemeral(point: CachePoint) -> dict[str, Any]:
    """Anthropic's marker, ``{"type": "ephemeral"}`` and the point's ``ttl``
    (Anthropic's prompt-caching guide; OpenRouter and LiteLLM take the same
    marker in an OpenAI Chat body)."""
    marker: dict[str, Any] = {"type": "ephemeral"}
    if point.ttl is not None:
        marker["ttl"] = point.ttl
    return marker


def read_ephemeral(value: Any) -> CachePoint | None:
    """The point a marker :func:`write_ephemeral` writes stands for; ``None``
    for any other value (another ``type``, a TTL no API lists, more fields),
    which stays its wire's extra and goes back as it came."""
    if not isinstance(value, dict) or value.get("type") != "ephemeral" or (
            set(value) - {"type", "ttl"}):
        return None
    ttl = value.get("ttl", _NO_TTL)
    if ttl is _NO_TTL:
        return CachePoint()
    return CachePoint(ttl) if ttl in CACHE_TTLS else None


_NO_TTL = object()


class _Placed(dict[str, Any]):
    """A marker :func:`place_points` wrote, knowing the point it stands for
    (survives the builder's deep copy, so :func:`written_points` can find it)."""

    __slots__ = ("place",)

    def __init__(self, fields: dict[str, Any], place: str = "") -> None:
        super().__init__(fields)
        self.place = place

    def __reduce__(self) -> tuple[Any, ...]:
        return (_Placed, (dict(self), self.place))


# ---------------------------------------------------------------- reading


def read_points(request: Request, markers: Markers) -> None:
    """Move each marker a reader of ``markers.wire`` kept in ``request`` into
    its holder's ``cache`` (in place: ``request`` was just read)."""
    for holder, is_message in _holders(request, tools=markers.in_tool_metadata):
        if markers.on_messages or not is_message:
            _lift(holder, markers)


def _lift(holder: Holder, markers: Markers) -> None:
    metadata = holder.metadata
    if origin_of(metadata) != markers.wire or markers.field not in metadata:
        return
    point = markers.read(metadata[markers.field])
    if point is not None:
        del metadata[markers.field]
        holder.cache = point


def _holders(request: Request, *, tools: bool = True) -> Iterator[tuple[Holder, bool]]:
    """Every holder of a point (the tools too, unless not ``tools``), messages
    flagged ``True``, in the prompt's order."""
    for tool in request.tools or () if tools else ():
        if isinstance(tool, Tool):
            yield tool, False
    for message in request.messages:
        if isinstance(message, ChatResponse):
            continue  # a response's blocks came from a stream: no request marker
        yield message, True
        for item in _items(message):
            yield item, False
            if isinstance(item, FunctionExecutionResult):
                yield from ((part, False) for part in _blocks(item.content))


def _items(message: Message) -> list[Any]:
    if isinstance(message, FunctionExecutionResultMessage):
        return list(message.content)
    return _blocks(message.content)


def _blocks(content: Any) -> list[Any]:
    return [] if isinstance(content, str) else list(content)


# ---------------------------------------------------------------- writing


def place_points(request: Request, markers: Markers) -> Request:
    """``request`` with each point as ``markers``' field in its holder's
    metadata (copies of the holders that have one; ``request`` is untouched)."""
    if not any(holder.cache is not None for holder, _ in _holders(request)):
        return request
    tools = None if request.tools is None or not markers.in_tool_metadata else [
        _marked(tool, f"tools[{number}]", markers) if isinstance(tool, Tool) else tool
        for number, tool in enumerate(request.tools)]
    messages = [_placed_message(message, f"messages[{number}]", markers)
                for number, message in enumerate(request.messages)]
    return dataclasses.replace(request, tools=tools or request.tools, messages=messages)


def _placed_message(given: Message, place: str, markers: Markers) -> Message:
    if isinstance(given, ChatResponse):
        return given
    message: Turn = given
    cache = message.cache
    if cache is not None and (not markers.on_messages or isinstance(
            message, FunctionExecutionResultMessage)):  # written as one message per result
        message = _point_on_last(message, cache)
    changes: dict[str, Any] = {}
    if isinstance(message, FunctionExecutionResultMessage):
        changes["content"] = [_placed_result(result, f"{place}.content[{number}]", markers)
                              for number, result in enumerate(message.content)]
    elif not isinstance(message.content, str):
        changes["content"] = [_marked(block, f"{place}.content[{number}]", markers)
                              for number, block in enumerate(message.content)]
    if message.cache is not None:
        changes["metadata"] = _with_marker(message.metadata, message.cache, place, markers)
    return dataclasses.replace(message, **changes) if changes else message


def _placed_result(result: FunctionExecutionResult, place: str,
                   markers: Markers) -> FunctionExecutionResult:
    content = result.content if isinstance(result.content, str) else [
        _marked(block, f"{place}.content[{number}]", markers)
        for number, block in enumerate(result.content)]
    marked: FunctionExecutionResult = _marked(dataclasses.replace(result, content=content),
                                              place, markers)
    return marked


def _point_on_last(message: Turn, cache: CachePoint) -> Turn:
    """A message whose point its wire cannot hold, the point on its last block
    (its last tool result; a string content as one text block)."""
    if isinstance(message, FunctionExecutionResultMessage):
        content: list[Any] = list(message.content)
    else:
        content = [TextBlock(message.content)] if isinstance(message.content, str) else list(
            message.content)
    markable = [index for index, item in enumerate(content)
                if not isinstance(item, ThinkingBlock)]  # Anthropic: thinking takes none
    if markable and content[markable[-1]].cache is None:
        last = copy.copy(content[markable[-1]])
        last.cache = cache
        content[markable[-1]] = last
    return dataclasses.replace(message, content=content, cache=None)  # type: ignore[arg-type]  # one list for any turn


def _marked(holder: Any, place: str, markers: Markers) -> Any:
    if holder.cache is None:
        return holder
    marked = copy.copy(holder)
    marked.metadata = _with_marker(holder.metadata, holder.cache, place, markers)
    return marked


def _with_marker(metadata: dict[str, Any], cache: CachePoint, place: str,
                 markers: Markers) -> dict[str, Any]:
    """``metadata`` with the marker: another wire's extras, which the builder
    would not write, give way to a plain dict of the marker alone."""
    marker = _Placed(markers.write(cache), place)
    origin = origin_of(metadata)
    if origin is None:
        return {**metadata, markers.field: marker}
    if origin == markers.wire:
        return Extras(origin, {**metadata, markers.field: marker})
    return {markers.field: marker}


# ---------------------------------------------------------------- after building


def written_points(parts: list[tuple[str, Any]], placed: Request,
                   markers: Markers) -> list[tuple[dict[str, Any], str]]:
    """The markers in ``parts`` of a built body (``(path, value)`` in the
    prompt's order), each as the object holding it and its path; a point
    :func:`place_points` placed in ``placed`` that is not among them is said
    with a :class:`~streamkit.LossyTranslationWarning`. The placed markers
    become plain dicts again."""
    found: list[tuple[dict[str, Any], str]] = []
    seen: set[str] = set()
    for path, value in parts:
        for holder, where in _marker_holders(value, path, markers.field):
            marker = holder[markers.field]
            if isinstance(marker, _Placed):
                seen.add(marker.place)
                holder[markers.field] = dict(marker)
            found.append((holder, where))
    missing = [place for place in _placed_places(placed, markers) if place not in seen]
    if missing:
        warn_lossy(markers.wire, f"the cache point(s) at {', '.join(missing)}",
                   "this wire writes those blocks without their extras (another API's "
                   "assistant turn): mark a block of a user turn or the system prompt instead")
    return found


def _marker_holders(value: Any, path: str, field: str) -> Iterator[tuple[dict[str, Any], str]]:
    """The dicts under ``value`` (itself included) holding ``field``, depth first."""
    if isinstance(value, dict):
        if field in value:
            yield value, path
        for key in ("content",):  # blocks nest in a message's or a tool result's content
            yield from _marker_holders(value.get(key), f"{path}.{key}", field)
    elif isinstance(value, list):
        for number, item in enumerate(value):
            yield from _marker_holders(item, f"{path}[{number}]", field)


def _placed_places(request: Request, markers: Markers) -> list[str]:
    places: list[str] = []
    for holder, _ in _holders(request):
        marker = holder.metadata.get(markers.field) if isinstance(holder.metadata, dict) \
            else None
        if isinstance(marker, _Placed):
            places.append(marker.place)
    return places


# ---------------------------------------------------------------- automatic points


def with_automatic_points(request: Request) -> Request:
    """``request`` with the points a gateway adds for a model configured
    ``cache = "auto"``: on the last tool (every definition cached), on the
    system prompt (its last leading system message) and on the last user
    turn (the conversation's last user message or tool results), at most three,
    within Anthropic's four. A request with a point of its own is returned as
    it is: its caller placed them (Claude Code does), and knows better."""
    if any(holder.cache is not None for holder, _ in _holders(request)):
        return request
    point = CachePoint()
    tools = request.tools
    numbered = [number for number, tool in enumerate(tools or ()) if isinstance(tool, Tool)]
    if tools is not None and numbered:
        tools = list(tools)
        tools[numbered[-1]] = _with_point(tools[numbered[-1]], point)
    messages = list(request.messages)
    for number in (_system_end(messages), _last_user_turn(messages)):
        if number is not None:
            messages[number] = _with_point(messages[number], point)
    return dataclasses.replace(request, tools=tools, messages=messages)


def _with_point(holder: Any, point: CachePoint) -> Any:
    marked = copy.copy(holder)  # not dataclasses.replace: a Tool's binding is no init field
    marked.cache = point
    return marked


def _system_end(messages: list[Message]) -> int | None:
    count = 0
    while count < len(messages) and isinstance(messages[count], SystemMessage):
        count += 1
    return count - 1 if count else None


def _last_user_turn(messages: list[Message]) -> int | None:
    return next((number for number in range(len(messages) - 1, -1, -1)
                 if isinstance(messages[number], (UserMessage,
                                                  FunctionExecutionResultMessage))), None)
