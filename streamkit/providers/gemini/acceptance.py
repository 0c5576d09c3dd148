"""Gemini's acceptance rules kept on a built body (see
:mod:`streamkit.providers.acceptance`, whose table cites each rule's source).

Gemini answers 400 to a part that is an empty text ("Unable to submit
request because it has an empty text parameter") and to a content with no
parts ("contents.parts must not be empty"), which another wire's
conversation may hold (an OpenAI user turn with an empty text part, an empty
assistant message). :func:`honour_rules` drops the empty text parts (a part
with a ``thoughtSignature`` beside its empty text is the API's own and stays),
then the contents left with no part (the contents of one role on either side
are then joined into one, as the builder joins them), and a system
instruction left with no part; none of them said anything. A conversation
whose last user message has no content is refused
(:class:`~streamkit.UnsupportedFeatureError`): without it the model's last
turn would be the one to go on from.
"""

from __future__ import annotations

from ...model.errors import UnsupportedFeatureError
from ..acceptance import is_empty_gemini_text
from ..coerce import Wire
from .wire import NAME

# A system instruction's key, in both spellings a body may use.
_SYSTEM_KEYS = ("systemInstruction", "system_instruction")


def honour_rules(body: Wire) -> None:
    """``body`` (a built ``generateContent`` body) fitted to the rules, in place."""
    for key in _SYSTEM_KEYS:
        system = body.get(key)
        if isinstance(system, dict) and isinstance(system.get("parts"), list):
            parts = _without_empty(system["parts"])
            if parts:
                body[key] = {**system, "parts": parts}
            else:
                del body[key]
    contents: list[Wire] = []
    for content in body["contents"]:
        parts = content.get("parts")
        if isinstance(parts, list):
            parts = _without_empty(parts)
            if not parts:
                continue
            content = {**content, "parts": parts}
        if contents and content.get("role") == contents[-1].get("role") and isinstance(
                parts, list) and isinstance(contents[-1].get("parts"), list):
            # joined in place (the parts list is this walk's own copy): a run of one
            # role costs its parts, not the turn so far at each join
            contents[-1] = {**content, **contents[-1], "parts": contents[-1]["parts"]}
            contents[-1]["parts"].extend(parts)
        else:
            contents.append(content)
    if contents and body["contents"] and contents[-1].get("role") != body["contents"][-1].get(
            "role"):
        raise UnsupportedFeatureError(
            NAME, "a last user message with no content",
            "Gemini refuses a content with no parts (contents.parts must not be empty), and "
            "leaving it out would leave the model's last turn to go on from: give the last "
            "message content")
    body["contents"] = contents


def _without_empty(parts: list[object]) -> list[object]:
    return [part for part in parts if not is_empty_gemini_text(part)]
