"""What each target API refuses with a 400 in a conversation's shape, as data.

Every rule here is one the provider states, in its documentation or in the
error it answers with (:attr:`Rule.says`, :attr:`Rule.source`), and that a
conversation from another wire, or built by hand, could break: another API
took the same turns without a word (OpenAI takes an empty text part, Gemini
a trailing space in the last model turn). :func:`Rule.broken` says whether
a built body breaks the rule: the tests assert no builder writes such a body,
and ``bench/translation.py`` judges another library's bodies by the same
predicates.

The builder of each wire keeps its own rules (``anthropic/acceptance.py``,
``gemini/acceptance.py``) on the body it built from a conversation that was
not read from a body of its own wire: a body read from its own wire goes back
as it came (the API decides about its own body, and ``parse_request`` ->
``build_request`` stays exact). Honouring a rule drops only what says
nothing: an empty text block, a message left with no content (its neighbours
of one role then joined, as the API would join them), trailing whitespace at
the end of a final assistant turn (a prefill). Dropping a block that carried
something else (a cache point on an empty text block) is said with a
:class:`~streamkit.LossyTranslationWarning`.

Rules the builders honoured before this table are kept where they were:
consecutive turns of one role joined for Anthropic and Gemini, ``tool_result``
parts first in their user turn (:mod:`.anthropic.request`), a tool result
that answers no call refused with the reason (:func:`.turns.refuse_orphan_results`),
thinking turned off for a tool turn without its signed thinking, versions'
refusals (:mod:`.anthropic.versions`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..conversation.messages import AssistantMessage, FunctionExecutionResultMessage, as_assistant
from ..conversation.request import Request
from ..model.blocks import ToolCallBlock
from ..model.errors import warn_lossy
from ..model.extras import origin_of
from ..model.response import ChatResponse
from .coerce import Wire
from .turns import is_own_turn


@dataclass(frozen=True)
class Rule:
    """One shape a target API answers 400 to."""

    wire: str
    """The wire format whose API states it."""
    name: str
    """A short name (the test's id)."""
    says: str
    """The API's own error message for a body that breaks it."""
    source: str
    """Where the rule or its error is stated (the provider's docs, an issue
    thread quoting the API's answer)."""
    broken: Callable[[Wire], bool]
    """Whether a request body breaks the rule."""
    kept_by: str
    """The module that keeps the rule when building."""


# ---------------------------------------------------------------- Anthropic


def _anthropic_parts(body: Wire) -> Iterator[Any]:
    """Every content part of a Messages body: the system's, each message's and
    each ``tool_result``'s own."""
    system = body.get("system")
    if isinstance(system, list):
        yield from system
    for message in _list(body.get("messages")):
        for part in _list(message.get("content") if isinstance(message, dict) else None):
            yield part
            if isinstance(part, dict) and part.get("type") == "tool_result":
                yield from _list(part.get("content"))


def _anthropic_empty_text(body: Wire) -> bool:
    return any(isinstance(part, dict) and part.get("type") == "text" and part.get("text") == ""
               for part in _anthropic_parts(body))


def _anthropic_empty_message(body: Wire) -> bool:
    messages = _list(body.get("messages"))
    return any(isinstance(m, dict) and m.get("content") in ("", [])
               for m in messages[:-1] + [m for m in messages[-1:] if m.get("role") != "assistant"])


def _anthropic_trailing_space(body: Wire) -> bool:
    last = (_list(body.get("messages")) or [None])[-1]
    if not isinstance(last, dict) or last.get("role") != "assistant":
        return False
    text = final_text(last.get("content"), "type")
    return text is not None and text != text.rstrip()


# ---------------------------------------------------------------- Gemini


def _gemini_parts(body: Wire) -> Iterator[Any]:
    for key in ("systemInstruction", "system_instruction"):
        system = body.get(key)
        if isinstance(system, dict):
            yield from _list(system.get("parts"))
    for content in _list(body.get("contents")):
        if isinstance(content, dict):
            yield from _list(content.get("parts"))


def _gemini_empty_text(body: Wire) -> bool:
    return any(is_empty_gemini_text(part) for part in _gemini_parts(body))


def _gemini_empty_content(body: Wire) -> bool:
    return any(isinstance(content, dict) and not content.get("parts")
               for content in _list(body.get("contents")))


def is_empty_gemini_text(part: Any) -> bool:
    """A Gemini part that is an empty text and nothing else (a part with a
    ``thoughtSignature`` beside its empty text is the API's own, kept)."""
    return (isinstance(part, dict) and part.get("text") == ""
            and set(part) <= {"text", "thought"})


# ---------------------------------------------------------------- helpers


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def final_text(content: Any, type_key: str | None) -> str | None:
    """The text a turn's content ends with: the string, or its last part's
    text when that part is a text part (``type_key``: the key naming a part's
    type, ``None`` where a text part is known by its ``text`` alone)."""
    if isinstance(content, str):
        return content
    last = content[-1] if isinstance(content, list) and content else None
    if not isinstance(last, dict) or not isinstance(last.get("text"), str):
        return None
    if type_key is not None and last.get(type_key) != "text":
        return None
    text: str = last["text"]
    return text


#: Every rule, by wire (see the module docstring).
RULES: tuple[Rule, ...] = (
    Rule("anthropic", "non-empty text", "messages: text content blocks must be non-empty",
         "maximhq/bifrost#1215, BiFangKNT/mtga#68 (the API's 400 quoted)",
         _anthropic_empty_text, "streamkit.providers.anthropic.acceptance"),
    Rule("anthropic", "non-empty messages",
         "messages.N: all messages must have non-empty content except for the optional final "
         "assistant message",
         "anthropics/claude-code#6774, BerriAI/litellm#2549 (the API's 400 quoted)",
         _anthropic_empty_message, "streamkit.providers.anthropic.acceptance"),
    Rule("anthropic", "no trailing whitespace in a prefill",
         "messages: final assistant content cannot end with trailing whitespace",
         "tailcallhq/forgecode#1872 (the API's 400 quoted); prefill: "
         "https://platform.claude.com/docs/en/build-with-claude/working-with-messages",
         _anthropic_trailing_space, "streamkit.providers.anthropic.acceptance"),
    Rule("gemini", "non-empty text",
         "Unable to submit request because it has an empty text parameter. Add a value to the "
         "parameter and try again.",
         "zuisong/gemini-openai-proxy#83, router-for-me/CLIProxyAPI#1292 (the API's 400 "
         "quoted); https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/gemini",
         _gemini_empty_text, "streamkit.providers.gemini.acceptance"),
    Rule("gemini", "non-empty parts",
         "* GenerateContentRequest.contents[N].parts: contents.parts must not be empty.",
         "vercel/ai#3775, egoist/chatwise-releases#250 (the API's 400 quoted)",
         _gemini_empty_content, "streamkit.providers.gemini.acceptance"),
)


# ---------------------------------------------------------------- calls no result answers

#: The wires whose API refuses a tool call that no result answers before the
#: model's next turn, with the error it answers (quoted in the threads named).
ANSWERED_CALLS: Mapping[str, str] = {
    "openai-chat": "An assistant message with 'tool_calls' must be followed by tool messages "
                   "responding to each 'tool_call_id' (smallmain/vscode-unify-chat-provider#248)",
    "openai-responses": "No tool output found for function call call_... "
                        "(openai/openai-agents-python#673)",
    "anthropic": "`tool_use` ids were found without `tool_result` blocks immediately after "
                 "(anthropics/claude-code#2697)",
    "gemini": "Please ensure that the number of function response parts is equal to the number "
              "of function call parts of the function call turn (google-gemini/gemini-cli#5443)",
}


def answered_calls_only(request: Request, wire: str) -> Request:
    """``request`` without the tool calls no result answers before the model's
    next turn (or the conversation's end, a turn after it), for a ``wire``
    whose API refuses them (:data:`ANSWERED_CALLS`): Gemini and Ollama take a
    call left unanswered (the user moved on), the others answer 400. Only
    another API's turns are looked at (a turn of ``wire``'s own API, or one
    made by hand, is written as it is, as :func:`.turns.refuse_orphan_results`
    writes their results); each dropped call is said with a
    :class:`~streamkit.LossyTranslationWarning`; a request read from ``wire``'s
    own body goes as it came. Linear: one walk
    from the end, the results seen since the next assistant turn in a set."""
    if wire not in ANSWERED_CALLS or origin_of(request.options) == wire:
        return request
    messages = list(request.messages)
    answered: set[str] = set()
    changed = False
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, FunctionExecutionResultMessage):
            answered.update(result.call_id for result in message.content)
        elif isinstance(message, AssistantMessage | ChatResponse):
            turn = as_assistant(message)
            if index < len(messages) - 1 and not is_own_turn(turn.provider, wire):
                kept = _answered_turn(turn, answered, wire)
                changed |= kept is not None
                messages[index] = message if kept is None else kept
            answered = set()
    return dataclasses.replace(request, messages=messages) if changed else request


def _answered_turn(turn: AssistantMessage, answered: set[str],
                   wire: str) -> AssistantMessage | None:
    """``turn`` without its unanswered client calls (``None``: it has none)."""
    if isinstance(turn.content, str):
        return None
    unanswered = [block for block in turn.content if isinstance(block, ToolCallBlock)
                  and not block.server_side and block.id not in answered]
    for call in unanswered:
        warn_lossy(wire, f"the tool call {call.name!r} ({call.id}), which no tool result "
                   "answers", f"the API refuses a call without its result: {ANSWERED_CALLS[wire]}")
    if not unanswered:
        return None
    dropped = {id(block) for block in unanswered}  # by identity: block == compares whole dicts
    content = [block for block in turn.content if id(block) not in dropped]
    return dataclasses.replace(turn, content=content)
