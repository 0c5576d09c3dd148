"""Sending a conversation back: who wrote each assistant turn, seen from the
dialect it goes to, and what building (or reading) one request's messages
carries from message to message.

What each dialect wants back (where reasoning goes, the budget field, call id
forms) is data on its :class:`~.dialects.Dialect` record (``history``); this
module holds the two things the builder needs besides the rules:

- :func:`source_of`: a turn is the target's own, another vendor's of this wire
  format, or another wire format's (the vendor registry says which wire and
  dialect a provider name speaks), which decides what of it may go back;
- :class:`BuildContext`: the target dialect, the cross-provider policy, the
  legacy ``function_call`` ids earlier messages used, and the ids a request
  reader makes up (derived from the body, so two reads of one body are ``==``).
"""

from __future__ import annotations

import hashlib
import re
import string
from dataclasses import dataclass, field
from enum import Enum

from ...conversation.request import ForeignThinking
from ...model.ids import StreamIds
from ...model.vendors import wire_of
from .dialects import Dialect, HistoryRules
from .wire import NAME

__all__ = ["BuildContext", "Source", "source_of"]


class Source(Enum):
    """Who wrote an assistant turn, seen from the dialect it is sent to."""

    NATIVE = "this vendor (or nobody said): everything goes back"
    SIBLING = "another vendor of this wire format: text, calls, plain reasoning"
    FOREIGN = "another wire format: text, calls, reasoning as text or dropped"


def source_of(provider: str | None, target: Dialect) -> Source:
    """Whether a turn written by ``provider`` (a registry name or alias) is
    ``target``'s own, another OpenAI-compatible vendor's, or another wire
    format's. A turn without a provider (built by hand) counts as the target's
    own; a name the registry does not know counts as foreign (its signatures
    are dropped). A vendor of this wire without a dialect speaks OpenAI's."""
    if provider is None:
        return Source.NATIVE
    try:
        wire, dialect = wire_of(provider)
    except ValueError:
        return Source.FOREIGN
    if wire != NAME:
        return Source.FOREIGN
    return Source.NATIVE if (dialect or "openai") == target.name else Source.SIBLING


_ID_ALPHABET = string.ascii_letters + string.digits


@dataclass
class BuildContext:
    """What building (or reading) one request's messages needs: the target
    dialect, what earlier messages said about later ones (legacy
    ``function_call`` ids) and, when reading, the ids made up for the body."""

    dialect: Dialect
    foreign_thinking: ForeignThinking = "text"
    legacy_calls: dict[str, str] = field(default_factory=dict)
    """Ids of calls sent as the legacy ``function_call``, and their names."""
    details_written: int = 0
    """OpenRouter reasoning details written so far (each turn's count from 0)."""
    ids: StreamIds = field(default_factory=StreamIds)
    """The ids a request reader makes up, seeded with the body."""

    @property
    def rules(self) -> HistoryRules:
        """The target dialect's writing rules."""
        return self.dialect.history

    def call_id(self, value: str) -> str:
        """``value`` as the target accepts call ids: unchanged, or (a vendor
        with a fixed id form) a stable id derived from it, the same every time."""
        length = self.rules.tool_call_id_length
        if length is None or re.fullmatch(f"[A-Za-z0-9]{{{length}}}", value):
            return value
        digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).digest()
        number = int.from_bytes(digest, "big")
        letters = []
        for _ in range(length):
            number, digit = divmod(number, len(_ID_ALPHABET))
            letters.append(_ID_ALPHABET[digit])
        return "".join(letters)
