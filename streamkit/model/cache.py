"""Prompt-cache points: where a prompt's cacheable prefix ends, whatever the wire.

A :class:`CachePoint` on a system message, a message, a content block, a tool
result or a tool says "the prompt up to and including this is worth caching".
Each wire writes it in its own mechanism, or says in its docs why it needs
none (``docs/caching.md``): Anthropic's ``cache_control`` breakpoints (at most
four a request); OpenRouter's, which are Anthropic's in an OpenAI Chat body;
OpenAI, Gemini and Ollama cache every prompt's prefix by themselves, so a point
asks nothing more of them. Readers read each wire's marker back into the same
point, so a marker crosses wires with its place and its time to live.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from .errors import InvalidMessageError

__all__ = ["CACHE_TTLS", "CachePoint", "cache_from_dict"]

#: The times to live a point may ask for: Anthropic's two (``ttl`` of its
#: ``cache_control``: "5m", the default, and "1h").
CACHE_TTLS: Final = ("5m", "1h")


@dataclass(frozen=True)
class CachePoint:
    """The end of a cacheable prompt prefix (an Anthropic breakpoint).

    ``ttl`` is how long the cached prefix should live: ``"5m"`` or ``"1h"``;
    ``None`` (the default) leaves it to the provider (five minutes on
    Anthropic), and writes no ``ttl``.
    """

    ttl: str | None = None

    def __post_init__(self) -> None:
        if self.ttl is not None and self.ttl not in CACHE_TTLS:
            raise InvalidMessageError(f"CachePoint(ttl={self.ttl!r}): a cache point lives "
                                      f"{' or '.join(CACHE_TTLS)}, or None for the default")

    def to_dict(self) -> dict[str, Any]:
        """The plain dict a block's ``to_dict()`` holds it as."""
        return {} if self.ttl is None else {"ttl": self.ttl}


def cache_from_dict(value: Any) -> CachePoint | None:
    """The point :meth:`CachePoint.to_dict` wrote (``None``: no point)."""
    if not isinstance(value, dict):
        return None
    return CachePoint(value.get("ttl"))
