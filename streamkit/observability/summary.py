"""One line about an answer, for a terminal: tokens, time to first token, speed, cost.

``python -m streamkit chat --stats`` prints it after each answer::

    14 in · 30 out tokens · first token 0.52 s · 137 tokens/s · $0.000335

Each part is left out when its figure is unknown (no usage, a response built by
hand, a model genai-prices does not price); the tokens are the inclusive totals
of :func:`streamkit.model.usage.token_counts`, with the cached and reasoning parts when the
provider gave them.
"""

from __future__ import annotations

from ..model.response import ChatResponse
from ..model.usage import token_counts

__all__ = ["summary_line"]

SEPARATOR = " · "


def _tokens(response: ChatResponse) -> str | None:
    if response.usage is None:
        return None
    counts = token_counts(response.usage)
    parts = []
    if counts.input is not None:
        cached = f" ({counts.cache_read:,} cached)" if counts.cache_read else ""
        parts.append(f"{counts.input:,} in{cached}")
    if counts.output is not None:
        reasoning = f" ({counts.reasoning:,} reasoning)" if counts.reasoning else ""
        parts.append(f"{counts.output:,} out{reasoning}")
    return SEPARATOR.join(parts) + " tokens" if parts else None


def summary_line(response: ChatResponse, *, cost: bool = True) -> str:
    """The answer's tokens, time to first token, output tokens per second and
    (``cost=True``, genai-prices installed) price, on one line."""
    parts = [_tokens(response)]
    timing = response.timing
    if timing is not None:
        first = timing.time_to_first_token
        parts.append(None if first is None else f"first token {first:.2f} s")
        speed = timing.output_tokens_per_second
        parts.append(None if speed is None else f"{speed:,.0f} tokens/s")
    if cost:
        priced = response.cost()
        parts.append(None if priced.amount is None else
                     f"${priced.amount:.6f}" if priced.currency == "USD"
                     else f"{priced.amount:.6f} {priced.currency}")
    return SEPARATOR.join(part for part in parts if part)
