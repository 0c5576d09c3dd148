"""Usage objects as data: where each wire format puts each token count, and what it means.

Every wire format names its counts differently (``prompt_tokens``,
``input_tokens``, ``promptTokenCount``, ``prompt_eval_count``...) and some
vendors add their own (DeepSeek's ``prompt_cache_hit_tokens``). A wire format
declares a :class:`UsageFields` table; :func:`usage_from` reads any usage
object with it. A count the provider did not give (or gave with the wrong
type) stays ``None``; the whole object is kept in ``raw``; and every usage read
is stamped with what its wire's counts mean (whether the input includes the
prompt cache, the output the reasoning), so no reader has to ask which
provider sent it.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..model.usage import Accounting, ChatUsage
from .coerce import as_int, path

Path = tuple[str, ...]


class First(NamedTuple):
    """The first of these paths that holds an integer."""

    paths: tuple[Path, ...]


class Sum(NamedTuple):
    """The sum of these paths' integers (``None`` when none is given): audio
    tokens that a provider splits into input and output."""

    paths: tuple[Path, ...]


Rule = First | Sum


def first(*paths: str) -> First:
    """``first("a.b", "c")``: dotted paths, tried in order."""
    return First(tuple(tuple(p.split(".")) for p in paths))


def total(*paths: str) -> Sum:
    """``total("a.audio", "b.audio")``: dotted paths, summed."""
    return Sum(tuple(tuple(p.split(".")) for p in paths))


NONE = First(())


class UsageFields(NamedTuple):
    """Where one wire format reports each count of :class:`ChatUsage`."""

    input_tokens: Rule = NONE
    output_tokens: Rule = NONE
    total_tokens: Rule = NONE
    cached_tokens: Rule = NONE
    cache_creation_tokens: Rule = NONE
    reasoning_tokens: Rule = NONE
    audio_tokens: Rule = NONE
    accounting: Accounting = "cumulative"
    input_includes_cache: bool = True
    """Whether the wire's input count includes the tokens read from and written
    to the prompt cache (every wire's does but Anthropic's): what a framework
    that wants the whole prompt's count must add back."""
    output_includes_reasoning: bool = True
    """Whether the wire's output count includes the reasoning tokens (every
    wire's does but Gemini's, which reports them beside it)."""


def _read(rule: Rule, usage: dict[str, Any]) -> int | None:
    counts = (as_int(path(usage, *p)) for p in rule.paths)
    if type(rule) is First:
        return next((n for n in counts if n is not None), None)
    known = [n for n in counts if n is not None]
    return sum(known) if known else None


def usage_from(fields: UsageFields, usage: dict[str, Any]) -> ChatUsage:
    """Read a provider's usage object with its wire format's table."""
    return ChatUsage(
        input_tokens=_read(fields.input_tokens, usage),
        output_tokens=_read(fields.output_tokens, usage),
        total_tokens=_read(fields.total_tokens, usage),
        cached_tokens=_read(fields.cached_tokens, usage),
        cache_creation_tokens=_read(fields.cache_creation_tokens, usage),
        reasoning_tokens=_read(fields.reasoning_tokens, usage),
        audio_tokens=_read(fields.audio_tokens, usage),
        raw=usage,
        accounting=fields.accounting,
        input_includes_cache=fields.input_includes_cache,
        output_includes_reasoning=fields.output_includes_reasoning,
    )
