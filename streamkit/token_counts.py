"""One answer's token counts in the shape price lists and telemetry read.

streamkit keeps each provider's own meaning of its counts (:class:`~streamkit.usage.ChatUsage`):
Anthropic's ``input_tokens`` leaves out the prompt-cache reads and writes, every
other API's includes them; Gemini reports its thoughts apart from the answer's
output (``thoughtsTokenCount`` beside ``candidatesTokenCount``) and the prompt
of its own tools (the search results Google Search grounding feeds back,
``toolUsePromptTokenCount``) apart from the prompt, all inside its total; every
other API counts reasoning inside the output. The OpenTelemetry GenAI conventions
(``gen_ai.usage.input_tokens`` "SHOULD include all types of input tokens,
including cached tokens"; reasoning "SHOULD be included in
``gen_ai.usage.output_tokens``") and genai-prices (whose ``input_tokens`` and
``output_tokens`` are the totals that cache reads, cache writes and reasoning
are parts of) both want the inclusive totals: :func:`token_counts` gives them,
the parts beside them.
"""

from __future__ import annotations

from typing import NamedTuple

from .adapters._usage import inclusive_input
from .usage import ChatUsage

__all__ = ["REASONING_APART_WIRES", "TokenCounts", "token_counts"]

#: Wire formats that report parts beside their counts, inside the total: the
#: output leaves the reasoning out (Gemini's ``candidatesTokenCount`` beside
#: ``thoughtsTokenCount``, which Google bills as output), and the input leaves out
#: the tool-use prompt, billed as input: so the input is the total less the
#: output and the reasoning. A property of the wire's usage table, kept here as
#: data until the wire records carry it.
REASONING_APART_WIRES: frozenset[str] = frozenset({"gemini"})


class TokenCounts(NamedTuple):
    """Inclusive totals and their parts; ``None`` where the provider gave no count."""

    input: int | None
    """Every input token: uncached, read from the cache and written to it."""
    output: int | None
    """Every output token, reasoning included."""
    cache_read: int | None
    cache_write: int | None
    reasoning: int | None


def _reasoning_apart(provider: str | None) -> bool:
    if provider is None:
        return False
    from .providers import vendor

    try:
        return vendor(provider).wire in REASONING_APART_WIRES
    except ValueError:  # a name the registry does not know: the usual meaning
        return False


def token_counts(usage: ChatUsage, provider: str | None) -> TokenCounts:
    """``usage`` (as ``provider``, a registry name, reported it) as inclusive totals."""
    output, prompt = usage.output_tokens, inclusive_input(usage, provider)
    if _reasoning_apart(provider):
        if output is not None and usage.reasoning_tokens:
            output += usage.reasoning_tokens
        if prompt is not None and output is not None and usage.total_tokens is not None:
            prompt = max(prompt, usage.total_tokens - output)
    return TokenCounts(prompt, output, usage.cached_tokens, usage.cache_creation_tokens,
                       usage.reasoning_tokens)
