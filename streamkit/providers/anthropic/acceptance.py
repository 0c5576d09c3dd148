"""The Messages API's acceptance rules kept on a built body (see
:mod:`streamkit.providers.acceptance`, whose table cites each rule's source).

A conversation from another wire, or built by hand, may hold what the
Messages API answers 400 to and other APIs take: an empty text block ("text
content blocks must be non-empty"), a message with no content ("all messages
must have non-empty content except for the optional final assistant
message"), a final assistant turn (a prefill) ending in whitespace ("final
assistant content cannot end with trailing whitespace"). :func:`honour_rules`
drops them, each saying nothing: the empty blocks, then the messages left
empty (the messages of one role on either side are then joined into one, its
``tool_result`` parts first, as the builder joins them), then the prefill's
trailing whitespace. A conversation whose last user message has no content is
refused (:class:`~streamkit.UnsupportedFeatureError`): leaving it out would
turn the assistant's turn before it into a prefill. A cache point on a
dropped empty block is said with a :class:`~streamkit.LossyTranslationWarning`.
"""

from __future__ import annotations

from typing import Any

from ...model.errors import UnsupportedFeatureError, warn_lossy
from ..coerce import Wire
from .wire import NAME

# The roles whose consecutive messages are one turn (a mid-conversation
# system message stands alone).
_TURN_ROLES = frozenset({"user", "assistant"})


def honour_rules(body: Wire) -> None:
    """``body`` (a built Messages body) fitted to the rules, in place."""
    system = body.get("system")
    if system == "" or (isinstance(system, list) and not _without_empty(system, "system")):
        del body["system"]
    elif isinstance(system, list):
        body["system"] = _without_empty(system, "system")
    turns: list[list[Wire]] = []  # runs of one role, joined once each: linear in the messages
    for number, message in enumerate(body["messages"]):
        kept = _with_content(message, number)
        if kept is None:
            continue
        if turns and kept["role"] == turns[-1][0]["role"] and kept["role"] in _TURN_ROLES:
            turns[-1].append(kept)
        else:
            turns.append([kept])
    messages = [turn[0] if len(turn) == 1 else _joined(turn) for turn in turns]
    ended_with = body["messages"][-1]["role"] if body["messages"] else None
    if messages and messages[-1]["role"] == "assistant":
        if ended_with != "assistant":
            raise _no_last_words()
        last = _without_trailing_space(messages[-1])
        messages[-1:] = [] if last is None else [last]
    body["messages"] = messages


def _no_last_words() -> UnsupportedFeatureError:
    """The error for a conversation whose last user turn has no content: the
    API refuses it, and without it the request would ask the model to go on
    with its own last turn (a prefill), which nobody asked."""
    return UnsupportedFeatureError(
        NAME, "a last user message with no content",
        "Anthropic refuses a message with no content (all messages must have non-empty "
        "content except for the optional final assistant message), and leaving it out "
        "would make the assistant's last turn a prefill: give the last message content")


def _with_content(message: Wire, number: int) -> Wire | None:
    """The message without its empty text blocks (those of its tool results
    too); ``None`` when nothing is left."""
    content = message.get("content")
    if isinstance(content, list):
        content = [_result_without_empty(part, number) for part in
                   _without_empty(content, f"messages[{number}]")]
        message = {**message, "content": content}
    return None if content in ("", []) else message


def _without_empty(parts: list[Any], where: str) -> list[Any]:
    """``parts`` without their empty text blocks; one that held a cache point
    is said."""
    kept = []
    for part in parts:
        if not _is_empty_text(part):
            kept.append(part)
        elif "cache_control" in part:
            warn_lossy(NAME, f"a cache point on an empty text block in {where}",
                       "Anthropic refuses empty text blocks (text content blocks must be "
                       "non-empty); put the cache point on a block that has text")
    return kept


def _result_without_empty(part: Any, number: int) -> Any:
    """A ``tool_result`` part whose content list holds no empty text block."""
    if not isinstance(part, dict) or part.get("type") != "tool_result" or not isinstance(
            part.get("content"), list):
        return part
    return {**part, "content": _without_empty(part["content"], f"messages[{number}]")}


def _is_empty_text(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") == "text" and part.get("text") == ""


def _joined(turn: list[Wire]) -> Wire:
    """Messages of one role, once apart, as one: the contents in order,
    ``tool_result`` parts first (the API requires them first in their turn),
    the first message's other fields kept."""
    content = [part for message in turn for part in _as_list(message["content"])]
    content.sort(key=lambda part: not (isinstance(part, dict)
                                       and part.get("type") == "tool_result"))
    joined: Wire = {}
    for message in reversed(turn):
        joined.update(message)
    return {**joined, "content": content}


def _as_list(content: Any) -> list[Any]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def _without_trailing_space(message: Wire) -> Wire | None:
    """A final assistant message (a prefill) whose last text ends in no
    whitespace (a last text block of whitespace alone goes, and the one before
    it is looked at); ``None`` when it held nothing else."""
    content = message["content"]
    if isinstance(content, str):
        text = content.rstrip()
        return {**message, "content": text} if text else None
    parts = list(content)
    while parts and _is_text(parts[-1]) and parts[-1]["text"] != parts[-1]["text"].rstrip():
        text = parts.pop()["text"].rstrip()
        if text:
            parts.append({**content[len(parts)], "text": text})
            break
    if len(parts) == len(content) and parts == content:
        return message
    return {**message, "content": parts} if parts else None


def _is_text(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") == "text" and isinstance(
        part.get("text"), str)
