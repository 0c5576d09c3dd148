"""What the framework adapters share about token counts.

streamkit keeps each provider's own meaning of ``input_tokens``: Anthropic's
excludes the tokens read from and written to the prompt cache, every other API's
includes them (each wire's usage table says which: ``input_includes_cache``).
LangChain's ``usage_metadata`` and pydantic-ai's ``RequestUsage``
define ``input_tokens`` as the whole prompt, cache included (their own Anthropic
integrations add the cache counts), so a count handed to them must be the
inclusive one, and a count taken back must be made exclusive again for an
Anthropic-wire response. Getting this wrong misprices every cached call.
"""

from __future__ import annotations

from ..usage import ChatUsage


def input_excludes_cache(provider: str | None) -> bool:
    """Whether ``provider`` (a registry name) reports input tokens without the
    cache reads and writes, as its wire's usage table says."""
    if provider is None:
        return False
    from ..providers import vendor, wire_format

    try:
        wire = vendor(provider).wire
    except ValueError:  # a name the registry does not know: the usual meaning
        return False
    return not wire_format(wire).usage_fields.input_includes_cache


def inclusive_input(usage: ChatUsage, provider: str | None) -> int | None:
    """The whole prompt's token count (cache reads and writes included), or
    ``None`` when the provider gave no input count."""
    if usage.input_tokens is None or not input_excludes_cache(provider):
        return usage.input_tokens
    return usage.input_tokens + (usage.cached_tokens or 0) + (usage.cache_creation_tokens or 0)


def native_input(inclusive: int, cached: int | None, cache_creation: int | None,
                 provider: str | None) -> int:
    """The reverse of :func:`inclusive_input`: the provider's own input count."""
    if not input_excludes_cache(provider):
        return inclusive
    return inclusive - (cached or 0) - (cache_creation or 0)
