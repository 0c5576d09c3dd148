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
it, also when a chunk boundary splits it, and however JSON writes it: each of
its characters itself or escaped (``\\/``, ``\\u0073`` in either case), behind
up to :data:`MOST_ESCAPE_BACKSLASHES` backslashes (a tool call's arguments are
a JSON text inside a JSON string: their escapes are escaped). A key cut across
two deltas is two JSON strings, which no byte pattern sees whole: each block's
decoded deltas go through a :class:`TextRedactor`
(:mod:`streamkit.client.redacting`). :meth:`ApiKey.redact` does the same for a
single string (a response header). A key shorter than
:data:`SHORTEST_REDACTED_KEY` (a local server's placeholder) is not looked
for. The patterns that find the key are made once per key and held by it
alone (its printed form never shows them). Pure and synchronous: no I/O here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, AnyStr, Generic

__all__ = ["ApiKey", "Redactor", "TextRedactor"]

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

    __slots__ = ("_value", "_writings", "source")

    def __init__(self, value: str, source: str) -> None:
        self._value = value.strip()
        self.source = source
        self._writings: _KeyWritings | None = None

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
        """Whether ``text`` holds the key, written any way JSON allows (never,
        for a key too short to be :attr:`redacted`)."""
        if not self.redacted:
            return False
        if isinstance(text, str):
            return self._written.as_text.find.search(text) is not None
        return self._written.as_bytes.find.search(text) is not None

    def redact(self, text: str) -> str:
        """``text`` with the key, written any way JSON allows, replaced by its printed form."""
        if not self.redacted:
            return text
        written = self._written.as_text
        if written.whole not in text and not ("\\" in text and written.escaped(text)):
            return text  # memchr-fast: neither the key nor an escape of its characters
        return written.find.sub(repr(self).replace("\\", "\\\\"), text)

    def redactor(self) -> Redactor:
        """A fresh :class:`Redactor` for one response body."""
        return Redactor(self)

    def text_redactor(self) -> TextRedactor:
        """A fresh :class:`TextRedactor` for one block's decoded text."""
        return TextRedactor(self)

    @property
    def _written(self) -> _KeyWritings:
        """The patterns of every way the key can be written, made once per key."""
        if self._writings is None:
            self._writings = _KeyWritings(self._value)
        return self._writings


# ---------------------------------------------------------------- the ways a key is written


#: The most backslashes looked for before an escaped character of the key:
#: JSON's one (``\\u0073``), three for a JSON text inside a JSON string (a tool
#: call's arguments hold ``\\\\u0073``), seven one level deeper.
MOST_ESCAPE_BACKSLASHES = 7

#: The characters JSON writes as a backslash and themselves (``\\/``): the
#: others a key may hold are written as themselves or as ``\\uXXXX``.
_SHORT_ESCAPES = '/"\\'

_BACKSLASHES = rf"\\{{1,{MOST_ESCAPE_BACKSLASHES}}}"

#: Every JSON escape of a character, at any depth (to count a held text's characters).
_ANY_ESCAPE = re.compile(rf"{_BACKSLASHES}(?:u[0-9a-fA-F]{{4}}|[{re.escape(_SHORT_ESCAPES)}])")


def _either_case(digits: str) -> str:
    return "".join(f"[{d.lower()}{d.upper()}]" if d.isalpha() else d for d in digits)


def _written_char(char: str) -> str:
    """A pattern for ``char`` as itself or JSON-escaped, at any depth."""
    ways = [re.escape(char), f"{_BACKSLASHES}u{_either_case(f'{ord(char):04x}')}"]
    if char in _SHORT_ESCAPES:
        ways.append(_BACKSLASHES + re.escape(char))
    return "(?:" + "|".join(ways) + ")"


def _begun_char(char: str) -> str:
    """A pattern for the beginning of an escape of ``char`` that the text
    ended in (``\\``, ``\\u``, ``\\u0``, ``\\u00``, ``\\u007``)."""
    digits = [_either_case(digit) for digit in f"{ord(char):04x}"[:3]]
    opened = "".join(f"(?:{digit}" for digit in digits) + ")?" * len(digits)
    return f"{_BACKSLASHES}(?:u{opened})?"


def _beginning(key: str) -> str:
    """A pattern for a proper beginning of the key, written any way: some of its
    characters whole, maybe the next one's escape begun."""
    pattern = _begun_char(key[-1])
    for char in reversed(key[:-1]):
        pattern = f"(?:{_begun_char(char)}|{_written_char(char)}(?:{pattern})?)"
    return pattern


@dataclass(frozen=True, slots=True)
class _Patterns(Generic[AnyStr]):
    """The key written any way, for one kind of text (``str`` or ``bytes``)."""

    find: re.Pattern[AnyStr]
    """The key whole."""
    tail: re.Pattern[AnyStr]
    """A proper beginning of the key that ends the text."""
    whole: AnyStr
    """The key as itself."""
    backslash: AnyStr
    escapes: tuple[AnyStr, ...]
    """What a text holds when an escaped key could be in it (``\\/`` for a key
    with a ``/``...), after ``\\u00`` (checked first: one look at the text)."""
    coded: tuple[AnyStr, ...]
    """``\\u00`` and the hex of each of the key's characters, in either case:
    an ordinary escape (``\\u00e9``, ``\\n``, ``\\"``) has a text searched
    no more than one without. With the key itself, checked before any search."""
    unwritten: AnyStr
    """Every character a writing of the key may hold (its own, a backslash,
    ``u``, hex digits): only a text's last run of them, no longer than
    :attr:`longest`, is searched for the key's beginning (a stream's chunk,
    which ends in a line break, not at all)."""
    escape: re.Pattern[AnyStr]
    """Any escape of a character (to count the characters a held end writes)."""
    longest: int
    """The longest a beginning of the key can be written: each character the longest escape."""

    def escaped(self, text: AnyStr) -> bool:
        """Whether ``text`` holds an escape that may write a character of the key."""
        return (any(escape in text for escape in self.escapes)
                or (self.coded[0][:-2] in text and any(code in text for code in self.coded)))

    def escaped_extra(self, text: AnyStr) -> int:
        """How many more characters ``text``'s escapes take than what they write."""
        return sum(len(found[0]) - 1 for found in self.escape.finditer(text))


class _KeyWritings:
    """The key as a JSON text may write it, for ``str`` and for ``bytes``: its
    every character itself or escaped (``\\/``, ``\\u0073`` in either case,
    behind up to :data:`MOST_ESCAPE_BACKSLASHES` backslashes). Made once per
    key, held by the key alone (whose printed form never shows them)."""

    __slots__ = ("as_bytes", "as_text")

    def __init__(self, key: str) -> None:
        found = "".join(_written_char(char) for char in key)
        tail = f"(?:{_beginning(key)})\\Z"
        escapes = tuple(f"\\{char}" for char in _SHORT_ESCAPES if char in key)
        coded = tuple(sorted({f"\\u00{ord(char):02x}" for char in key}
                             | {f"\\u00{ord(char):02X}" for char in key}))
        longest = len(key) * (MOST_ESCAPE_BACKSLASHES + 5)
        unwritten = "".join(sorted(set(key) | set("\\u0123456789abcdefABCDEF")))
        self.as_text = _Patterns(re.compile(found), re.compile(tail), key, "\\", escapes,
                                 coded, unwritten, _ANY_ESCAPE, longest)
        self.as_bytes = _Patterns(re.compile(found.encode("ascii")),
                                  re.compile(tail.encode("ascii")), key.encode("ascii"), b"\\",
                                  tuple(escape.encode("ascii") for escape in escapes),
                                  tuple(code.encode("ascii") for code in coded),
                                  unwritten.encode("ascii"),
                                  re.compile(_ANY_ESCAPE.pattern.encode("ascii")), longest)


#: The shortest beginning of the key a :class:`TextRedactor` holds back at the
#: end of a delta: a shorter one (``s``, ``sk-``, ``AIz``: at most the key's
#: first three characters, the public prefix of its kind) is passed on, and
#: the text that continues it is masked from where the key began. A delta that
#: ends in a word's last letter costs nothing then: holding every ``s`` back
#: for an ``sk-`` key made a new event of a third of a stream's deltas.
SHORTEST_HELD_BEGINNING = 4


class _Redaction(Generic[AnyStr]):
    """The parts of one text (a body's chunks, a block's deltas) with the key
    replaced by its printed form, however it is written.

    A key split across two parts is caught too: the longest end of a part
    that could be the beginning of the key, written any way, is held back and
    put in front of the next part (only when the part really ends like the key
    begins; a part that ends in a character no writing of the key holds, as
    a stream's chunk ends in a line break, holds nothing and costs a look at
    its last character). A beginning shorter than ``shortest_held`` and with
    no backslash is passed on instead; the caller gives it back with the next
    part (``shown``), and when that part completes the key, what it passes on
    begins with the mask. :meth:`flush` gives what is held, at the end or
    where the text broke. Each character is looked at a bounded number of
    times: the patterns try at most the key's longest writing from each
    place, and only the last such stretch of a part is looked at for a
    beginning.
    """

    __slots__ = ("_held", "_mask", "_patterns", "_shortest_held", "_shown", "passed_end")

    def __init__(self, mask: AnyStr, patterns: _Patterns[AnyStr] | None,
                 shortest_held: int) -> None:
        self._mask: AnyStr = mask
        self._patterns: _Patterns[AnyStr] | None = patterns
        self._held: AnyStr = mask[:0]
        self._shown = 0  # how many of the held characters were passed on already
        self._shortest_held = shortest_held
        self.passed_end: AnyStr = mask[:0]
        """The last characters passed on, when nothing is held (at most the
        longest beginning passed on): what the next part's ``shown`` is."""

    @property
    def holding(self) -> bool:
        """Whether an end that could begin the key is held back."""
        return bool(self._held)

    def feed(self, part: AnyStr, shown: AnyStr | None = None) -> AnyStr:
        """What of ``part`` can be passed on now, the key replaced; ``shown`` is
        the end of what was passed on before it (ignored while holding)."""
        skip = self._shown
        if self._held:
            data = self._held + part
        elif shown:
            data, skip = shown + part, len(shown)
        else:
            data = part
        patterns = self._patterns
        if patterns is None:  # a key too short to look for
            return data
        if patterns.whole in data or (patterns.backslash in data and patterns.escaped(data)):
            first = patterns.find.search(data)
            if first is not None:
                skip = min(skip, first.start())  # a shown beginning: masked from there on
                data = patterns.find.sub(self._mask, data)
        at = self._beginning(data, patterns)
        if len(data) - at >= self._shortest_held or patterns.backslash in data[at:]:
            self._held, self._shown = data[at:], max(0, skip - at)
            return data[skip:at]
        self._held, self._shown = data[:0], 0
        self.passed_end = data[-self._shortest_held + 1:] if self._shortest_held > 1 else data[:0]
        return data[skip:]

    @staticmethod
    def _beginning(data: AnyStr, patterns: _Patterns[AnyStr]) -> int:
        """Where the end of ``data`` that could begin the key starts (its length: none)."""
        if data[-1:] not in patterns.unwritten:  # a stream's chunk ends in a line break
            return len(data)
        window = data[-patterns.longest:]
        run = len(window) - len(window.rstrip(patterns.unwritten))
        begun = patterns.tail.search(data, len(data) - run) if run else None
        return len(data) if begun is None else begun.start()

    def flush(self) -> AnyStr:
        """What was held back, at the end or where the text broke: passed on
        when it writes fewer than :data:`CUT_KEY_BYTES` of the key's characters
        (a word that merely ends as the key begins), else taken for a cut key
        and replaced too."""
        held, shown = self._held, self._shown
        self._held, self._shown = held[:0], 0
        if self._patterns is None:
            return held
        written = len(held) - self._patterns.escaped_extra(held)
        return self._mask if written >= CUT_KEY_BYTES else held[shown:]


class Redactor(_Redaction[bytes]):
    """The chunks of one response body with the key replaced by its printed
    form, written any way JSON allows (see :class:`_Redaction`): what every
    body the client reads goes through, before any parser."""

    __slots__ = ()

    def __init__(self, key: ApiKey) -> None:
        super().__init__(repr(key).encode("ascii"),
                         key._written.as_bytes if key.redacted else None, 1)


class TextRedactor(_Redaction[str]):
    """The decoded deltas of one block (text, reasoning, a tool call's
    arguments) with the key replaced, also when the deltas cut it: each delta
    is its own JSON string, so a key cut across two never shows in the bytes."""

    __slots__ = ()

    def __init__(self, key: ApiKey) -> None:
        super().__init__(repr(key), key._written.as_text if key.redacted else None,
                         SHORTEST_HELD_BEGINNING)
