"""Incremental JSON for streamed tool-call arguments, in linear time.

Tool-call arguments arrive as JSON text in tiny fragments (often 1-4 characters).
The usual approach -- append the fragment to a buffer and re-parse the whole
buffer with a lenient parser -- costs O(n) per fragment and O(n^2) per stream,
which is what makes live argument previews stutter on long documents.

:class:`PartialJSON` instead keeps its parse state between fragments and looks
at every character exactly once.  It builds the live Python containers in place
as tokens complete, so reading :attr:`PartialJSON.value` after a fragment costs
O(1) plus the characters the one string currently being streamed (the "tip")
gained since the last read: the string shown is extended by its new pieces,
in place where CPython can (the shown ``str`` is referenced by nothing else,
which is the case unless the caller keeps it), so reading after every fragment
of a long string stays linear instead of copying the whole string per read.

View semantics (what :attr:`PartialJSON.value` shows mid-stream):

* objects and arrays appear as soon as their ``{`` / ``[`` is read;
* a string value appears as soon as its opening quote is read, showing the
  characters decoded so far; an escape (``\\n``, ``\\u00e9``, a surrogate pair
  ``\\ud83d\\ude00``) appears only once complete;
* numbers, ``true``, ``false`` and ``null`` appear only once complete.  A number
  is complete only when a character that cannot continue it follows (``,``,
  ``]``, ``}``, whitespace) or :meth:`PartialJSON.finish` is called, so ``1.5``
  in ``{"a": 1.5`` is not shown yet (it may still become ``1.5e3``);
* an object key appears only once its name is complete *and* its value has
  started to be known: with ``{}`` / ``[]`` / ``""`` when the value is a
  container or string, or with the complete scalar.  So a key is never shown
  with a placeholder that later changes type; ``{"a": 1`` views as ``{}``;
* before anything is known the value is ``None`` (check :attr:`done` to tell a
  complete top-level ``null`` apart).

Consequently every view is a prefix-consistent approximation of the final value:
each scalar shown equals the final scalar at that path, each key shown is in the
final value, and each partial string is a prefix of its final string.  (The one
exception is an object with duplicate keys, where -- as in :func:`json.loads` --
the last value wins and may replace an earlier one.)

The returned containers are the parser's own, mutated in place as more text
arrives: the same ``dict`` / ``list`` objects are returned by every read.
Callers must treat them as read-only (copy them to keep a snapshot).

The grammar is RFC 8259 JSON: ``NaN`` / ``Infinity`` (which :func:`json.loads`
accepts as an extension) are rejected.  Error offsets follow
:class:`json.JSONDecodeError` positions where a bad character is the cause.

The reverse direction, Vertex ``partialArgs`` updates turned back into JSON
text, is :mod:`streamkit.model.json_path`.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from .errors import StreamkitError
from .limits import MAX_JSON_DEPTH

__all__ = ["PartialJSON", "PartialJSONError", "Path", "is_truncated"]

Path = tuple[str | int, ...]
"""A place in a JSON value: object keys and array indexes from the root."""


class PartialJSONError(StreamkitError, ValueError):
    """The text is not valid JSON (or ended too early, or nests too deeply).

    ``offset`` is the character offset in the whole text fed so far (not in the
    fragment), so a UI can point at the bad character of the full argument text.
    """

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(f"{message} (at offset {offset})")
        self.message = message
        self.offset = offset


# Parser states.  Integers compared with ``==`` are the cheapest dispatch in CPython.
_S_VALUE: Final = 0  # expecting a value (start, after ':' or after ',' in an array)
_S_ARR_FIRST: Final = 1  # after '[': a value or ']'
_S_OBJ_FIRST: Final = 2  # after '{': a key or '}'
_S_KEY: Final = 3  # after ',' in an object: a key
_S_COLON: Final = 4  # after a key: ':'
_S_AFTER: Final = 5  # after a value inside a container: ',' or the closing bracket
_S_STR: Final = 6  # inside a string (a key or a value)
_S_NUM: Final = 7  # inside a number
_S_LIT: Final = 8  # inside true / false / null
_S_DONE: Final = 9  # the top-level value is complete: only whitespace may follow

#: The state in which each closing bracket ends an empty container (``[]``, ``{}``).
_EMPTY_ENDED_BY: Final = {"]": _S_ARR_FIRST, "}": _S_OBJ_FIRST}

_WS: Final = frozenset(" \t\n\r")
_WS_RUN: Final = re.compile(r"[ \t\n\r]+")
# Plain string content: everything but the quote, the backslash and control characters.
_STR_RUN: Final = re.compile(r'[^"\\\x00-\x1f]+')
# Characters that may continue a number; validated as a whole when the run ends.
_NUM_RUN: Final = re.compile(r"[-+.eE0-9]+")
_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_NUM_START: Final = frozenset("-0123456789")
_HEX: Final = frozenset("0123456789abcdefABCDEF")
_ESCAPES: Final = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}
_LITERALS: Final[dict[str, tuple[str, bool | None]]] = {
    "t": ("true", True),
    "f": ("false", False),
    "n": ("null", None),
}
_STATE_NAMES: Final = {
    _S_VALUE: "a value",
    _S_ARR_FIRST: "a value or ']'",
    _S_OBJ_FIRST: "a string key or '}'",
    _S_KEY: "a string key",
    _S_COLON: "':'",
    _S_AFTER: "',' or a closing bracket",
    _S_STR: "the end of a string",
    _S_LIT: "the rest of a literal",
}


def _number(text: str, start: int) -> int | float:
    """Convert a complete run of number characters the way :func:`json.loads` does."""
    m = _NUMBER.match(text)
    if m is None or m.end() != len(text):
        raise PartialJSONError("invalid number", start + (m.end() if m else 0))
    if "." in text or "e" in text or "E" in text:
        return float(text)
    try:
        return int(text)
    except ValueError as exc:  # more digits than sys.get_int_max_str_digits()
        raise PartialJSONError(f"integer too long: {exc}", start) from None


class PartialJSON:
    """Parse one JSON text fed in fragments, exposing the best-known value so far.

    Every character is examined once (plain string runs by one regex match per
    run), the parser keeps an explicit stack instead of recursing, and nothing
    fed earlier is ever re-scanned -- total cost is O(len(text)) however the
    text is fragmented.  See the module docstring for what a mid-stream
    :attr:`value` contains.

    Usage::

        p = PartialJSON()
        for fragment in fragments:
            p.feed(fragment)
            render(p.value)          # cheap; same objects, mutated in place
        args = p.finish()            # == json.loads("".join(fragments))

    Errors are sticky: after a :class:`PartialJSONError` every later call raises
    it again, while :attr:`value` and :attr:`text` stay readable.
    """

    __slots__ = (
        "_chunks",
        "_dirty",
        "_error",
        "_esc",
        "_esc_at",
        "_finished",
        "_fragments",
        "_hex",
        "_high",
        "_holder",
        "_is_key",
        "_joined",
        "_key",
        "_lit",
        "_lit_pos",
        "_max_depth",
        "_num",
        "_pos",
        "_slots",
        "_stack",
        "_state",
        "_tip",
        "_tok_start",
        "_version",
        "_work",
    )

    def __init__(self, max_depth: int = MAX_JSON_DEPTH) -> None:
        if max_depth < 1:
            raise ValueError("max_depth must be at least 1")
        self._max_depth = max_depth
        # The root value lives in slot 0 of a one-element list so that the
        # root is assigned exactly like any object member or array element.
        self._holder: list[Any] = [None]
        self._stack: list[dict[str, Any] | list[Any]] = []  # open containers
        self._slots: list[str | int] = []  # key of each open container in its parent
        self._key = ""  # the completed key awaiting its value, innermost object
        self._state = _S_VALUE
        # decoded pieces of the current string not yet shown: a key's whole text, a
        # string value's tail (its head is already in the container, see ``_tip``)
        self._chunks: list[str] = []
        self._is_key = False  # the current string is an object key
        self._tip: tuple[Any, Any] | None = None  # (container, key) of a string value
        self._dirty = False  # the tip string changed since the last read
        self._esc = 0  # 0: none, 1: after a backslash, 2: reading \u hex digits
        self._esc_at = 0  # offset of the backslash of the escape being read
        self._hex = ""  # \u hex digits read so far
        self._high = 0  # a high surrogate waiting for its low half
        self._num: list[str] = []  # number characters read so far
        self._lit = ""  # the literal being matched ("true", "false", "null")
        self._lit_pos = 0  # how much of it has matched
        self._tok_start = 0  # offset where the current number / literal started
        self._pos = 0  # characters consumed before the current fragment
        self._fragments: list[str] = []
        self._error: PartialJSONError | None = None
        self._finished = False
        self._version = 0  # grows with every fragment that may change the view
        self._work = 0  # main-loop iterations, for linearity tests
        self._joined = 0  # characters joined to show a growing string, likewise

    # ------------------------------------------------------------------ reading

    @property
    def value(self) -> Any:
        """The best-known value so far (read-only; mutated in place by later feeds).

        Costs O(1), plus O(characters added) to the string currently being
        streamed if it grew since the last read.
        """
        if self._dirty:
            tip = self._tip
            if tip is not None and self._chunks:
                container, slot = tip
                container[slot] = self._extended(container, slot, self._chunks)
                self._chunks.clear()  # the same list: ``_run`` may hold it
            self._dirty = False
        return self._holder[0]

    def _extended(self, container: Any, slot: Any, pieces: list[str]) -> str:
        """The string shown at ``container[slot]`` with ``pieces`` appended.

        The container's reference is dropped first so that ``+=`` can grow the
        string in place (CPython does when nothing else references it): the cost
        is the new characters, not the whole string.
        """
        text: str = container[slot]
        container[slot] = None
        tail = pieces[0] if len(pieces) == 1 else "".join(pieces)
        self._joined += len(tail)
        text += tail
        return text

    @property
    def done(self) -> bool:
        """True once the top-level value is complete (only whitespace may follow)."""
        return self._state == _S_DONE

    @property
    def text(self) -> str:
        """All text fed so far, including a fragment that raised an error."""
        frags = self._fragments
        if len(frags) > 1:
            text = frags[0]
            frags[0] = ""  # so that ``text`` may grow in place
            text += "".join(frags[1:])
            frags[:] = [text]
        return frags[0] if frags else ""

    @property
    def open_path(self) -> Path | None:
        """Path of the innermost container or string value still being parsed.

        Every prefix of it is open too.  ``None`` when nothing in the view is
        open: before the first value, once the value is complete, or while a
        bare top-level number or literal is read.  A number or literal being
        read is not in the view yet, so it is not on this path either.
        """
        in_string = self._state == _S_STR and not self._is_key
        if not self._stack:
            return () if in_string else None
        path = tuple(self._slots[1:])
        if in_string and self._tip is not None:
            path = (*path, self._tip[1])
        return path

    @property
    def version(self) -> int:
        """A number that grows whenever :attr:`value` or :attr:`open_path` may
        have changed (every fragment but more characters of an object key), so
        a reader that does work per change can skip the reads that change nothing."""
        return self._version

    def open_chain(self) -> tuple[list[Any], list[str | int], tuple[Any, Any] | None]:
        """What :attr:`open_path` is made of, without building it: the open
        containers (root first), the key of each in its parent (the first
        entry, the root's, means nothing) and ``(container, key)`` of the string
        value being streamed, if any. For readers that walk the open part after
        every fragment (:class:`~streamkit.model.structured.partial.PartialValidator`).
        These are the parser's own lists, brought up to date like :attr:`value`:
        read-only, and changed by the next :meth:`feed`."""
        _ = self.value
        return self._stack, self._slots, self._tip

    def is_complete(self, path: Path = ()) -> bool:
        """Whether the value at ``path`` is present in the view and final.

        ``path`` is a tuple of object keys and array indexes, ``()`` for the root.
        A path is complete when it exists in :attr:`value` and is not on the
        :attr:`open_path` (a container still missing its closing bracket or a
        string still missing its closing quote).  Costs O(depth).
        """
        if self._state != _S_DONE:
            if not self._stack:
                return False  # nothing started, or a bare top-level scalar in progress
            open_path = self.open_path
            if open_path is not None and open_path[: len(path)] == path:
                return False
        node = self.value
        for part in path:
            if type(node) is dict:
                if type(part) is not str or part not in node:
                    return False
                node = node[part]
            elif type(node) is list:
                if type(part) is not int or not 0 <= part < len(node):
                    return False
                node = node[part]
            else:
                return False
        return True

    # ------------------------------------------------------------------ feeding

    def feed(self, fragment: str) -> None:
        """Consume the next fragment of JSON text; ``""`` is a no-op.

        Raises :class:`PartialJSONError` as soon as the text so far cannot be
        the start of a JSON text -- except that a malformed number (``01``,
        ``1.``) is only diagnosed when the number ends, as it may still grow.
        """
        if self._error is not None:
            raise self._error
        if self._finished:
            raise PartialJSONError("feed() after finish()", self._pos)
        n = len(fragment)
        if not n:
            return
        self._fragments.append(fragment)
        # Fast path: a fragment wholly inside a string with no quote/escape --
        # by far the most common case for argument text.
        if self._state == _S_STR and not self._esc and not self._high:
            m = _STR_RUN.match(fragment)
            if m is not None and m.end() == n:
                self._chunks.append(fragment)
                self._pos += n
                self._dirty = not self._is_key
                self._version += self._dirty
                self._work += 1
                return
        try:
            self._run(fragment)
        except PartialJSONError as exc:
            self._error = exc
            raise

    def finish(self) -> Any:
        """Declare the end of the text and return the final value.

        The result equals ``json.loads(self.text)``.  Raises
        :class:`PartialJSONError` if the text is empty or incomplete.
        Calling it again returns the same value.
        """
        if self._error is not None:
            raise self._error
        if self._finished:
            return self.value
        if self._state == _S_NUM and not self._stack:
            try:
                self._holder[0] = _number("".join(self._num), self._tok_start)
            except PartialJSONError as exc:
                self._error = exc
                raise
            self._state = _S_DONE
            self._version += 1
        if self._state != _S_DONE:
            state = self._state
            what = _STATE_NAMES[_S_AFTER if state == _S_NUM else state]
            self._error = PartialJSONError(f"unexpected end of input, expecting {what}", self._pos)
            raise self._error
        self._finished = True
        return self.value

    # ------------------------------------------------------------------ internals

    def _attach(self, v: Any, key: str) -> tuple[Any, Any]:
        """Put a new value into the innermost container (or the root); return its slot."""
        stack = self._stack
        if stack:
            top = stack[-1]
            if type(top) is dict:
                top[key] = v
                return top, key
            assert type(top) is list
            top.append(v)
            return top, len(top) - 1
        self._holder[0] = v
        return self._holder, 0

    def _run(self, s: str) -> None:
        """The state machine: everything but the all-string fast path of :meth:`feed`."""
        n = len(s)
        base = self._pos
        stack = self._stack
        slots = self._slots
        chunks = self._chunks
        state = self._state
        key = self._key
        esc = self._esc
        high = self._high
        is_key = self._is_key
        tip = self._tip
        work = 0
        str_run = _STR_RUN.match
        i = 0
        while i < n:
            work += 1
            if state == _S_STR:
                if esc == 0:
                    if high and s[i] != "\\":
                        chunks.append(chr(high))  # lone high surrogate, kept as json does
                        high = 0
                    m = str_run(s, i)
                    if m is not None:
                        j = m.end()
                        chunks.append(s[i:j])
                        i = j
                        if i == n:
                            break
                    c = s[i]
                    if c == '"':
                        i += 1
                        if is_key:
                            key = chunks[0] if len(chunks) == 1 else "".join(chunks)
                            state = _S_COLON
                        else:
                            assert tip is not None
                            tip[0][tip[1]] = self._extended(tip[0], tip[1], chunks)
                            tip = None
                            state = _S_AFTER if stack else _S_DONE
                        chunks = []
                    elif c == "\\":
                        esc = 1
                        self._esc_at = base + i
                        i += 1
                    else:
                        raise PartialJSONError("invalid control character in string", base + i)
                elif esc == 1:
                    c = s[i]
                    if c == "u":
                        esc = 2
                        self._hex = ""
                        i += 1
                    else:
                        r = _ESCAPES.get(c)
                        if r is None:
                            raise PartialJSONError("invalid escape", self._esc_at)
                        if high:
                            chunks.append(chr(high))
                            high = 0
                        chunks.append(r)
                        esc = 0
                        i += 1
                else:
                    hexd = self._hex
                    piece = s[i : i + 4 - len(hexd)]
                    for ch in piece:
                        if ch not in _HEX:
                            raise PartialJSONError("invalid \\uXXXX escape", self._esc_at + 1)
                    i += len(piece)
                    hexd += piece
                    self._hex = hexd
                    if len(hexd) == 4:
                        esc = 0
                        code = int(hexd, 16)
                        if high:
                            if 0xDC00 <= code <= 0xDFFF:
                                chunks.append(
                                    chr(0x10000 + ((high - 0xD800) << 10) + code - 0xDC00)
                                )
                                high = 0
                                continue
                            chunks.append(chr(high))
                            high = 0
                        if 0xD800 <= code <= 0xDBFF:
                            high = code  # hold until we know whether a low half follows
                        else:
                            chunks.append(chr(code))
            elif state == _S_NUM:
                m = _NUM_RUN.match(s, i)
                if m is not None:
                    self._num.append(s[i : m.end()])
                    i = m.end()
                    if i == n:
                        break
                # s[i] ends the number; it is handled by the next state.
                v = _number("".join(self._num), self._tok_start)
                self._num = []
                self._attach(v, key)
                state = _S_AFTER if stack else _S_DONE
            elif state == _S_LIT:
                lit = self._lit
                rest = lit[self._lit_pos :]
                piece = s[i : i + len(rest)]
                if not rest.startswith(piece):
                    raise PartialJSONError("expecting a value", self._tok_start)
                i += len(piece)
                self._lit_pos += len(piece)
                if self._lit_pos == len(lit):
                    self._attach(_LITERALS[lit[0]][1], key)
                    state = _S_AFTER if stack else _S_DONE
            else:
                c = s[i]
                if c in _WS:
                    m = _WS_RUN.match(s, i)
                    assert m is not None
                    i = m.end()
                    continue
                if state == _S_AFTER or state == _EMPTY_ENDED_BY.get(c):
                    top = stack[-1]
                    if c == ",":
                        state = _S_KEY if type(top) is dict else _S_VALUE
                    elif (c == "}" and type(top) is dict) or (c == "]" and type(top) is list):
                        stack.pop()  # a container ends, after a value or empty
                        slots.pop()
                        state = _S_AFTER if stack else _S_DONE
                    else:
                        closer = "}" if type(top) is dict else "]"
                        raise PartialJSONError(f"expecting ',' or '{closer}'", base + i)
                    i += 1
                elif state in (_S_VALUE, _S_ARR_FIRST):
                    if c == '"':
                        tip = self._attach("", key)
                        is_key = False
                        state = _S_STR
                        i += 1
                    elif c == "{" or c == "[":
                        if len(stack) >= self._max_depth:
                            raise PartialJSONError(
                                f"nesting deeper than max_depth={self._max_depth}", base + i
                            )
                        container: dict[str, Any] | list[Any] = {} if c == "{" else []
                        slots.append(self._attach(container, key)[1])
                        stack.append(container)
                        state = _S_OBJ_FIRST if c == "{" else _S_ARR_FIRST
                        i += 1
                    elif c in _NUM_START:
                        self._tok_start = base + i
                        state = _S_NUM
                    elif c in _LITERALS:
                        self._lit = _LITERALS[c][0]
                        self._lit_pos = 0
                        self._tok_start = base + i
                        state = _S_LIT
                    else:
                        raise PartialJSONError("expecting a value", base + i)
                elif state in (_S_OBJ_FIRST, _S_KEY):
                    if c == '"':
                        is_key = True
                        state = _S_STR
                        i += 1
                    else:
                        raise PartialJSONError(
                            "expecting a property name enclosed in double quotes", base + i
                        )
                elif state == _S_COLON:
                    if c != ":":
                        raise PartialJSONError("expecting ':'", base + i)
                    state = _S_VALUE
                    i += 1
                else:  # _S_DONE
                    raise PartialJSONError("extra data after the top-level value", base + i)
        self._pos = base + n
        self._version += 1
        self._work += work
        self._chunks = chunks
        self._state = state
        self._key = key
        self._esc = esc
        self._high = high
        self._is_key = is_key
        self._tip = tip
        self._dirty = state == _S_STR and not is_key


def is_truncated(text: str) -> bool:
    """Whether ``text`` is the beginning of a JSON value that was cut off.

    ``False`` for empty text (no arguments), complete JSON and JSON that is
    invalid before its end; ``True`` only when every character so far is valid
    and the value never closed (a tool call cut at max_tokens). The common case,
    complete JSON, costs one C-level ``json.loads``. Never raises: text that
    breaks a limit (an integer past Python's digit limit, nesting deeper than
    ``MAX_JSON_DEPTH``) is invalid, unless it was cut off before the number or
    bracket that breaks it.
    """
    if not text.strip():
        return False
    try:
        json.loads(text)
    except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
        parser = PartialJSON()
        try:
            parser.feed(text)
        except PartialJSONError:
            return False  # invalid, not merely cut off
        return not parser.done
    return False

