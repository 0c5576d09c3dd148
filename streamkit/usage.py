"""Token usage, and the one rule for merging it.

Providers report usage in two ways. Most send a *cumulative* snapshot (Anthropic
``message_delta``, Gemini ``usageMetadata`` on every chunk, OpenAI's
include_usage chunk): a later report replaces an earlier one. Some producers
send *additive* increments that must be summed. Each :class:`ChatUsage` says
which it is (``accounting``), so merging never double-counts or loses tokens.

Every count is ``None`` when the provider did not say: a missing count is never
reported as a made-up ``0``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Literal

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
        ``to_dict()`` (see :mod:`streamkit.pydantic_schema`, imported only now)."""
        from .pydantic_schema import usage_schema

        return usage_schema(cls, handler)

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: Any, handler: Any) -> Any:
        """The JSON Schema of the ``to_dict()`` shape."""
        from .pydantic_schema import json_schema

        return json_schema(schema, handler)


def merge_usage(old: ChatUsage | None, new: ChatUsage) -> ChatUsage:
    """Merge ``new`` into ``old`` by ``new.accounting``, returning a new object.

    cumulative: each count ``new`` states replaces the old one; counts it omits
    (``None``) keep their earlier value (Anthropic's ``message_delta`` repeats
    only the output count). additive: counts are summed where both are known.
    ``raw`` is merged key by key the same way (later keys win).
    """
    if old is None:
        return ChatUsage(**{name: getattr(new, name) for name in _COUNTS},
                         raw=dict(new.raw), accounting=new.accounting)
    merged = ChatUsage(raw={**old.raw, **new.raw}, accounting=old.accounting)
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
