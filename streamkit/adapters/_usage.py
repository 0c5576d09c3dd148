"""What the framework adapters share about token counts.

LangChain's ``usage_metadata`` and pydantic-ai's ``RequestUsage`` define
``input_tokens`` as the whole prompt, cache included (their own Anthropic
integrations add the cache counts), so a count handed to them is the inclusive
one (:func:`streamkit.model.usage.inclusive_input`, by what the usage says it
means), and a count taken back is made the provider's own again, stamped with
that meaning: an Anthropic-wire response gets its exclusive count back. Getting
this wrong misprices every cached call.
"""

from __future__ import annotations

from ..model.usage import native_input
from ..providers import vendor, wire_format

__all__ = ["input_includes_cache", "provider_input"]


def input_includes_cache(provider: str | None) -> bool:
    """Whether ``provider`` (a registry name) reports input tokens with the
    cache reads and writes, as its wire's usage table says (a name the
    registry does not know, or none: the usual meaning, yes)."""
    if provider is None:
        return True
    try:
        wire = vendor(provider).wire
    except ValueError:
        return True
    return wire_format(wire).usage_fields.input_includes_cache


def provider_input(inclusive: int, cached: int | None, cache_creation: int | None,
                   provider: str | None) -> int:
    """A framework's whole-prompt count as ``provider`` counts its input."""
    return native_input(inclusive, cached, cache_creation,
                        includes_cache=input_includes_cache(provider))
