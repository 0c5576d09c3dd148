"""An API key that never shows itself, and is taken out of whatever a response gives back.

:class:`ApiKey` holds the key a client sends. It prints as where it came from
(``<key from ANTHROPIC_API_KEY>``), refuses to be pickled, and reveals its
value only to the one place that writes the auth header, at the moment the
request is sent. A caller's plain string is wrapped as the first thing a
client does with it, so no frame of a call that fails holds it as a local
(error trackers such as Sentry, and rich tracebacks, record frame locals).

A server may echo the key it was sent ("invalid key sk-..."): in an error
message, a header, a debug field, even a streamed answer. Every response body
the client reads goes through a :class:`Redactor`, which replaces the key with
its printed form before any byte reaches the parser or the error reader, so
no message, ``raw`` payload, metadata or event built from the response holds
it, also when a chunk boundary splits it. :meth:`ApiKey.redact` does the same
for a single string (a response header). A key shorter than
:data:`SHORTEST_REDACTED_KEY` (a local server's placeholder) is not looked
for. Pure and synchronous: no I/O here.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["ApiKey", "Redactor"]

#: What a key may be made of: printable ASCII, no spaces (what an HTTP header
#: value carries unchanged).
_KEY_CHARACTERS = re.compile(r"[\x21-\x7e]+")

#: A body that ends (or breaks) inside this many characters of the key, or
#: more, has its end replaced too: it looks like the key, cut.
CUT_KEY_BYTES = 8

#: Keys shorter than this are not looked for in responses: a placeholder such
#: as ``EMPTY`` or ``k`` (a local server's) is no secret, and replacing every
#: occurrence of so short a string would change the answers themselves. Real
#: providers' keys are 35 characters and more.
SHORTEST_REDACTED_KEY = 12


class ApiKey:
    """A key that prints as where it came from (``source``), never as itself."""

    __slots__ = ("_value", "source")

    def __init__(self, value: str, source: str) -> None:
        self._value = value.strip()
        self.source = source

    @classmethod
    def of(cls, value: str | ApiKey | None, source: str) -> ApiKey | None:
        """``value`` held as a key: a plain string from ``source`` (the
        argument it was given as), a key as it is (it says its own source: a
        config file's table), ``None`` as none."""
        if value is None or isinstance(value, ApiKey):
            return value
        return cls(value, source)

    def reveal(self) -> str:
        """The key itself: only for the auth header, at the moment of sending."""
        return self._value

    @property
    def can_be_sent(self) -> bool:
        """Whether an HTTP header can carry the key unchanged (printable ASCII,
        no spaces, not empty)."""
        return _KEY_CHARACTERS.fullmatch(self._value) is not None

    def __repr__(self) -> str:
        return f"<key from {self.source}>"

    __str__ = __repr__

    def __reduce__(self) -> Any:
        raise TypeError("an API key is not pickled")

    @property
    def redacted(self) -> bool:
        """Whether the key is looked for in responses (see :data:`SHORTEST_REDACTED_KEY`)."""
        return len(self._value) >= SHORTEST_REDACTED_KEY

    def appears_in(self, text: str | bytes) -> bool:
        """Whether ``text`` holds the key (never, for a key too short to be :attr:`redacted`)."""
        if not self.redacted:
            return False
        if isinstance(text, str):
            return self._value in text
        return self._value.encode("ascii") in text

    def redact(self, text: str) -> str:
        """``text`` with the key replaced by its printed form."""
        return text.replace(self._value, repr(self)) if self.appears_in(text) else text

    def redactor(self) -> Redactor:
        """A fresh :class:`Redactor` for one response body."""
        return Redactor(self)


class Redactor:
    """The chunks of one body with a key replaced by its printed form.

    A key split across two chunks is caught too: the longest end of a chunk
    that could be the beginning of the key is held back and put in front of
    the next chunk (at most ``len(key) - 1`` bytes, and only when the chunk
    really ends like the key begins: a stream's chunks end in a line break, so
    nothing is held back in practice). :meth:`flush` gives what is held at the
    end of the body or where it broke. Each byte is looked at a bounded number
    of times.
    """

    __slots__ = ("_api_key", "_held", "_mask")

    def __init__(self, key: ApiKey) -> None:
        self._api_key = key  # the key's bytes are made per chunk: no attribute holds them
        self._mask = repr(key).encode("ascii")
        self._held = b""

    def feed(self, chunk: bytes) -> bytes:
        """What of ``chunk`` can be passed on now, the key replaced."""
        data = self._held + chunk if self._held else bytes(chunk)
        if not self._api_key.redacted:
            return data
        key = self._api_key.reveal().encode("ascii")
        if key in data:
            data = data.replace(key, self._mask)
        at = data.find(key[:1], max(0, len(data) - len(key) + 1))
        while at != -1:
            if key.startswith(data[at:]):
                self._held = data[at:]
                return data[:at]
            at = data.find(key[:1], at + 1)
        self._held = b""
        return data

    def flush(self) -> bytes:
        """What was held back, at the end of the body or where it broke: passed on
        when shorter than :data:`CUT_KEY_BYTES` (a word that merely ends as the key
        begins), else taken for a cut key and replaced too."""
        held, self._held = self._held, b""
        return self._mask if len(held) >= CUT_KEY_BYTES else held
