"""Token usage: the one rule for merging it, and the one for reading it inclusively.

Providers report usage in two ways. Most send a *cumulative* snapshot (Anthropic
``message_delta``, Gemini ``usageMetadata`` on every chunk, OpenAI's
include_usage chunk): a later report replaces an earlier one. Some producers
send *additive* increments that must be summed. Each :class:`ChatUsage` says
which it is (``accounting``), so merging never double-counts or loses tokens.

Every count is ``None`` when the provider did not say: a missing count is never
reported as a made-up ``0``.

streamkit keeps each provider's own meaning of its counts, and each usage says
which meaning it has (the parser that read it stamps it from its wire's usage
table): Anthropic's ``input_tokens`` leaves out the prompt-cache reads and
writes, every other API's includes them (``input_includes_cache``); Gemini
reports its thoughts apart from the answer's output (``thoughtsTokenCount``
beside ``candidatesTokenCount``) and the prompt of its own tools (the search
results Google Search grounding feeds back, ``toolUsePromptTokenCount``) apart
from the prompt, all inside its total; every other API counts reasoning inside
the output (``output_includes_reasoning``). The OpenTelemetry GenAI conventions
(``gen_ai.usage.input_tokens`` "SHOULD include all types of input tokens,
including cached tokens"; reasoning "SHOULD be included in
``gen_ai.usage.output_tokens``"), genai-prices (whose ``input_tokens`` and
``output_tokens`` are the totals that cache reads, cache writes and reasoning
are parts of) and the frameworks (LangChain's ``usage_metadata``, pydantic-ai's
``RequestUsage``) all want the inclusive totals: :func:`token_counts` gives
them, with the parts beside them, and :func:`inclusive_input` /
:func:`native_input` convert the input count both ways. Nothing here asks the
registry which provider means what: the usage says.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Literal, NamedTuple

__all__ = [
    "Accounting",
    "ChatUsage",
    "merge_usage",
]

Accounting = Literal["cumulative", "additive"]

_COUNTS = (
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "cached_tokens",
    "cache_creation_tokens",
    "reasoning_tokens",
    "audio_tokens",
)


@dataclass
class ChatUsage:
    """Token counts of one response; ``raw`` keeps the provider's usage object."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    cached_tokens: int | None = None
    """Input tokens read from the prompt cache."""
    cache_creation_tokens: int | None = None
    """Input tokens written to the prompt cache."""
    reasoning_tokens: int | None = None
    audio_tokens: int | None = None
    """Audio tokens (input and output together when the provider splits them
    only in ``raw``)."""
    raw: dict[str, Any] = field(default_factory=dict)
    accounting: Accounting = "cumulative"
    type: Literal["chat"] = "chat"
    input_includes_cache: bool | None = None
    """Whether ``input_tokens`` counts the prompt-cache reads and writes
    (``cached_tokens``, ``cache_creation_tokens``): every API's does but
    Anthropic's. The parser that read the usage says; ``None`` (a usage made by
    hand) is read by each reader's own convention: inclusive for prices and
    telemetry, the target wire's when an encoder writes it."""
    output_includes_reasoning: bool | None = None
    """Whether ``output_tokens`` counts the reasoning tokens: every API's does
    but Gemini's, which reports them beside the output (and its tools' prompt
    beside the prompt), all inside ``total_tokens``. ``None``: made by hand,
    read as including them."""

    def to_dict(self) -> dict[str, Any]:
        """A plain dict with every field (``None`` counts included)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ChatUsage:
        """Rebuild from :meth:`to_dict` output; unknown keys are ignored."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in known})

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        """pydantic validates a usage from its ``to_dict()`` shape and dumps it with
        ``to_dict()`` (see :mod:`streamkit.model.schema`, imported only now)."""
        from .schema import usage_schema

        return usage_schema(cls, handler)

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: Any, handler: Any) -> Any:
        """The JSON Schema of the ``to_dict()`` shape."""
        from .schema import json_schema

        return json_schema(schema, handler)


def merge_usage(old: ChatUsage | None, new: ChatUsage) -> ChatUsage:
    """Merge ``new`` into ``old`` by ``new.accounting``, returning a new object.

    cumulative: each count ``new`` states replaces the old one; counts it omits
    (``None``) keep their earlier value (Anthropic's ``message_delta`` repeats
    only the output count). additive: counts are summed where both are known;
    two usages that mean their counts differently (a client's total over an
    Anthropic call and an OpenAI one) are both made inclusive first, so the sum
    means one thing. ``raw`` is merged key by key the same way (later keys win).
    """
    if old is not None and new.accounting == "additive" and _meanings_differ(old, new):
        old, new = inclusive_usage(old), inclusive_usage(new)
    if old is None:
        return ChatUsage(**{name: getattr(new, name) for name in _COUNTS},
                         raw=dict(new.raw), accounting=new.accounting,
                         input_includes_cache=new.input_includes_cache,
                         output_includes_reasoning=new.output_includes_reasoning)
    merged = ChatUsage(raw={**old.raw, **new.raw}, accounting=old.accounting,
                       input_includes_cache=_stamp(new.input_includes_cache,
                                                   old.input_includes_cache),
                       output_includes_reasoning=_stamp(new.output_includes_reasoning,
                                                        old.output_includes_reasoning))
    additive = new.accounting == "additive"
    for name in _COUNTS:
        before, after = getattr(old, name), getattr(new, name)
        if after is None:
            value = before
        elif additive and before is not None:
            value = before + after
        else:
            value = after
        setattr(merged, name, value)
    return merged


def _stamp(new: bool | None, old: bool | None) -> bool | None:
    return old if new is None else new


def _meanings_differ(old: ChatUsage, new: ChatUsage) -> bool:
    """Whether one usage says its counts mean what the other says they do not."""
    return any(None not in (a, b) and a != b for a, b in (
        (old.input_includes_cache, new.input_includes_cache),
        (old.output_includes_reasoning, new.output_includes_reasoning)))


def inclusive_usage(usage: ChatUsage) -> ChatUsage:
    """``usage`` with its input and output counts made inclusive (see
    :func:`token_counts`), stamped so."""
    counts = token_counts(usage)
    return ChatUsage(**{**{name: getattr(usage, name) for name in _COUNTS},
                        "input_tokens": counts.input, "output_tokens": counts.output},
                     raw=dict(usage.raw), accounting=usage.accounting,
                     input_includes_cache=True, output_includes_reasoning=True)


# ---------------------------------------------------------------------- inclusive counts


class TokenCounts(NamedTuple):
    """Inclusive totals and their parts; ``None`` where the provider gave no count."""

    input: int | None
    """Every input token: uncached, read from the cache and written to it."""
    output: int | None
    """Every output token, reasoning included."""
    cache_read: int | None
    cache_write: int | None
    reasoning: int | None


def inclusive_input(usage: ChatUsage) -> int | None:
    """The whole prompt's token count (cache reads and writes included), or
    ``None`` when the provider gave no input count."""
    if usage.input_tokens is None or usage.input_includes_cache is not False:
        return usage.input_tokens
    return usage.input_tokens + (usage.cached_tokens or 0) + (usage.cache_creation_tokens or 0)


def native_input(inclusive: int, cached: int | None, cache_creation: int | None, *,
                 includes_cache: bool) -> int:
    """The reverse of :func:`inclusive_input`: the input count as a provider
    counts it whose input includes the cache (``includes_cache``) or not."""
    if includes_cache:
        return inclusive
    return inclusive - (cached or 0) - (cache_creation or 0)


def token_counts(usage: ChatUsage) -> TokenCounts:
    """``usage`` as inclusive totals, by what the usage says its counts mean."""
    output, prompt = usage.output_tokens, inclusive_input(usage)
    if usage.output_includes_reasoning is False:
        if output is not None and usage.reasoning_tokens:
            output += usage.reasoning_tokens
        if prompt is not None and output is not None and usage.total_tokens is not None:
            prompt = max(prompt, usage.total_tokens - output)
    return TokenCounts(prompt, output, usage.cached_tokens, usage.cache_creation_tokens,
                       usage.reasoning_tokens)
