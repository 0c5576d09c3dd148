"""Request oracles: a request body checked with its wire's official SDK.

:func:`sdk_valid` is the one door; each wire's oracle is a module here
(``anthropic``, ``gemini``, ``ollama``, ``openai_chat``, ``openai_responses``)
whose ``check(body, **variant)`` raises (an ``AssertionError`` or the SDK's
``ValidationError``) when the SDK's request types refuse the body or would drop
a key of it. What varies by wire is a keyword: OpenAI Chat's ``dialect`` (the
vendor fields it documents), Gemini's ``vertex`` (the Vertex AI converter).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from support.request_oracles import anthropic, gemini, ollama, openai_chat, openai_responses

#: Each wire's oracle, by wire name.
ORACLES: dict[str, Callable[..., None]] = {
    "openai-chat": openai_chat.check,
    "openai-responses": openai_responses.check,
    "anthropic": anthropic.check,
    "gemini": gemini.check,
    "ollama": ollama.check,
}


def sdk_valid(wire: str, body: dict[str, Any], **variant: Any) -> None:
    """``body`` is a request of ``wire`` that its official SDK's types accept,
    key for key (``variant``: ``dialect=`` for OpenAI Chat, ``vertex=`` for Gemini)."""
    ORACLES[wire](body, **variant)
