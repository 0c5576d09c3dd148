"""A caller's own request headers passed on to a model of the caller's wire.

A gateway's caller speaks one wire and may say things in headers its body
cannot hold: Claude Code's ``anthropic-beta`` betas and ``anthropic-version``,
an OpenAI SDK's ``OpenAI-Beta``. An upstream of the same wire understands them;
another wire's API does not. :class:`ForwardedHeaders` holds the ones a caller
sent that may go (the wire's allow-list,
:attr:`~streamkit.providers.wire_format.WireFormat.forwarded_headers`, and any
a gateway's config adds) and gives them only to a model of that wire
(:meth:`ForwardedHeaders.for_wire`): a client's fallback of another wire gets
none. A key never goes, whatever a list says (:data:`NEVER_FORWARDED`): the
upstream is reached with the gateway's own key, and a caller's credentials
stay with the gateway; nor do the headers that describe the caller's HTTP
request rather than what it asks for.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from .auth import AUTH_HEADERS

__all__ = ["NEVER_FORWARDED", "ForwardedHeaders"]

#: Headers never passed on: every key header a provider takes
#: (:data:`~streamkit.client.auth.AUTH_HEADERS`), other credentials, and the
#: HTTP request's own description (its length, encoding, host, connection).
NEVER_FORWARDED = frozenset({
    *(style[0] for style in AUTH_HEADERS.values() if style is not None),
    "authorization", "proxy-authorization", "cookie", "x-api-key", "api-key", "x-goog-api-key",
    "openai-organization", "openai-project", "x-goog-user-project",
    "host", "content-length", "content-type", "content-encoding", "transfer-encoding",
    "connection", "keep-alive", "upgrade", "te", "trailer", "accept-encoding",
})


@dataclass(frozen=True)
class ForwardedHeaders:
    """The headers of a caller of ``wire`` to pass on to a model of that wire."""

    wire: str
    headers: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    @classmethod
    def chosen(cls, wire: str, sent: Iterable[tuple[str, str]],
               allowed: Collection[str]) -> ForwardedHeaders:
        """The headers of ``sent`` (a caller's, as name/value pairs) whose name
        is in ``allowed`` (any case) and not in :data:`NEVER_FORWARDED`;
        a header sent twice keeps its values joined by commas, as HTTP reads it."""
        names = {name.lower() for name in allowed} - NEVER_FORWARDED
        kept: dict[str, str] = {}
        for name, value in sent:
            lowered = name.lower()
            if lowered in names:
                kept[lowered] = f"{kept[lowered]}, {value}" if lowered in kept else value
        return cls(wire, MappingProxyType(kept))

    def for_wire(self, wire: str) -> Mapping[str, str]:
        """What goes to a model of ``wire``: the headers for a model of the
        caller's wire, nothing for another's."""
        return self.headers if wire == self.wire else MappingProxyType({})

    def __repr__(self) -> str:
        return f"ForwardedHeaders({self.wire!r}, {sorted(self.headers)})"
