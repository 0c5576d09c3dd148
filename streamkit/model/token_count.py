"""A request's input token count, as a provider's count endpoint gives it or estimated.

Anthropic (``/v1/messages/count_tokens``), Gemini (``:countTokens``) and OpenAI
Responses (``/v1/responses/input_tokens``) count a request's input with the
model's own tokenizer before it is sent; the other APIs have no such endpoint,
and their count is an estimate, which :class:`TokenCount` says it is
(``estimated``, and ``method``: how it was made). A count is never shown as
more precise than it is.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["TokenCount"]


@dataclass(frozen=True)
class TokenCount:
    """The input tokens a request holds: ``input_tokens`` in all (the system
    prompt, the messages and the tools), ``cached_tokens`` of them the
    provider's cache holds when it says (Gemini's ``cachedContentTokenCount``),
    ``None`` when it does not."""

    input_tokens: int
    estimated: bool = False
    """``True``: counted here, not by the model's tokenizer (see ``method``)."""
    method: str | None = None
    """How an estimate was made (``"characters/4"``); ``None`` for a provider's own count."""
    cached_tokens: int | None = None
    provider: str | None = None
    """The registry name of the provider that counted (or whose request was estimated)."""
