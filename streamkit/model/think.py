"""Split inline ``<think>...</think>`` reasoning out of a streamed text channel.

Models served through vLLM, Ollama's OpenAI-compatible endpoint, LM Studio and
similar put their reasoning inline in the ordinary text stream, wrapped in a tag
pair.  Chunks are cut at arbitrary places, so a tag may arrive split across
chunks (``'...<thi'`` + ``'nk>...'``); :class:`ThinkSplitter` holds back at most
``len(tag) - 1`` characters that could still become a tag and emits everything
else immediately, so reasoning and answer text can be shown live.

Decisions, all deliberate:

* Several think sections are supported: each open tag switches to thinking,
  each close tag back to text.  An open tag inside thinking and a close tag
  inside text are ordinary content and are emitted unchanged.
* ``start_in_thinking=True`` is for models whose chat template already opened
  the tag (DeepSeek-R1 distills, QwQ): the stream then contains only the
  closing tag.
* By default nothing but the tags is stripped: models commonly write
  newlines right after ``</think>`` (and after ``<think>``), and the text-level
  split keeps them, lossless.  ``strip_newlines_after_close=True`` drops the
  line breaks right after each closing tag, as the vendors' own chat UIs do
  (the answer then starts with its first character); the event-level
  ``think_tags`` option (:mod:`streamkit.model.think_blocks`) turns it on.
* Work is linear: each character is scanned a constant number of times and
  the accumulated text is never re-scanned.
"""

from __future__ import annotations

import re
from typing import Literal

__all__ = ["Kind", "Piece", "ThinkSplitter"]

Kind = Literal["text", "thinking"]
Piece = tuple[Kind, str]

_LINE_BREAKS = re.compile(r"[\r\n]*")


def _partial_suffix(buf: str, start: int, tag: str) -> int:
    """Length of the longest suffix of ``buf[start:]`` that is a proper prefix of ``tag``."""
    for k in range(min(len(tag) - 1, len(buf) - start), 0, -1):
        if buf.endswith(tag[:k]):
            return k
    return 0


class ThinkSplitter:
    """Incrementally split a text stream into ``"text"`` and ``"thinking"`` pieces.

    ``feed(chunk)`` returns the pieces that can be emitted now -- adjacent pieces
    of the same kind within one call merged, never an empty piece -- and
    ``flush()`` at end of stream emits what was held back as a possible partial
    tag, as the current kind (a dangling ``'<thi'`` is just text).  The pieces
    of a stream are the same however it is chunked.

    ``ignore_in_code_fences=True`` treats tags inside Markdown fenced code
    blocks as content, for answers that *talk about* ``<think>`` in a code
    sample.  A fence is a line starting with at most three spaces and then
    three backticks; each such line toggles "inside a fence" (tildes, and the
    rule that a closing fence must be at least as long as the opening one, are
    not modelled).  The trade-off: fences are tracked in thinking mode too, so
    a model that opens a fence in its reasoning and never closes it will have
    its ``</think>`` treated as thinking content, and the whole answer after it
    stays classified as thinking.  That is why the option is off by default;
    with it on, tags must not start with a space or backtick nor contain a
    newline.

    ``strip_newlines_after_close=True`` drops the CR / LF characters right
    after each closing tag, however the chunks cut them.
    """

    __slots__ = (
        "_close",
        "_fences",
        "_head",
        "_held",
        "_in_fence",
        "_open",
        "_skip_breaks",
        "_spaces",
        "_strip_after_close",
        "_thinking",
        "_ticks",
    )

    def __init__(
        self,
        open_tag: str = "<think>",
        close_tag: str = "</think>",
        start_in_thinking: bool = False,
        *,
        ignore_in_code_fences: bool = False,
        strip_newlines_after_close: bool = False,
    ) -> None:
        if not open_tag or not close_tag:
            raise ValueError("tags must be non-empty")
        if ignore_in_code_fences:
            for tag in (open_tag, close_tag):
                if "\n" in tag or tag[0] in " `":
                    raise ValueError(
                        f"with ignore_in_code_fences, tag {tag!r} must not contain a "
                        "newline nor start with a space or backtick"
                    )
        self._open = open_tag
        self._close = close_tag
        self._thinking = start_in_thinking
        self._fences = ignore_in_code_fences
        self._held = ""  # a suffix that may be the start of a tag
        self._strip_after_close = strip_newlines_after_close
        self._skip_breaks = False  # right after a closing tag: line breaks to drop
        self._in_fence = False
        # Fence detection state for the current line: still in its head (only
        # up to three spaces and then backticks seen), and what was counted.
        self._head = True
        self._spaces = 0
        self._ticks = 0

    @property
    def in_thinking(self) -> bool:
        """True while the stream is inside a think section."""
        return self._thinking

    @property
    def in_code_fence(self) -> bool:
        """True while inside a fenced code block (only tracked with ``ignore_in_code_fences``)."""
        return self._in_fence

    def feed(self, text: str) -> list[Piece]:
        """Consume a chunk; return the pieces that are certain now."""
        out: list[tuple[Kind, list[str]]] = []
        if not text:
            return []
        if not self._held and not self._skip_breaks and (
            (self._in_fence or (self._close if self._thinking else self._open)[0] not in text)
            and (not self._fences or (not self._head and "\n" not in text))
        ):
            # Fast path for the common chunk: nothing held, no tag can start
            # in it, and (with fences) no line boundary to track.
            return [("thinking" if self._thinking else "text", text)]
        buf = self._held + text
        self._held = ""
        n = len(buf)
        end = n  # text after this index is held back
        start = 0  # start of the not yet emitted run of the current kind
        pos = 0
        fences = self._fences
        while pos < n:
            if self._skip_breaks:
                breaks = _LINE_BREAKS.match(buf, pos)  # always matches, maybe nothing
                breaks_end = breaks.end() if breaks is not None else pos
                if breaks_end > pos and fences:  # a line break: the next line's head
                    self._head = True
                    self._spaces = self._ticks = 0
                pos = start = breaks_end
                if pos == n:
                    break
                self._skip_breaks = False
            if fences and self._head:
                c = buf[pos]
                if c == "`":
                    self._ticks += 1
                    pos += 1
                    if self._ticks == 3:
                        self._in_fence = not self._in_fence
                        self._head = False
                    continue
                if c == " " and not self._ticks and self._spaces < 3:
                    self._spaces += 1
                    pos += 1
                    continue
                self._head = False
            tag = self._close if self._thinking else self._open
            if fences:
                nl = buf.find("\n", pos)
                line_end = n if nl < 0 else nl
                idx = -1 if self._in_fence else buf.find(tag, pos, line_end)
            else:
                nl = -1
                idx = buf.find(tag, pos)
            if idx >= 0:
                self._emit(out, buf[start:idx])
                self._thinking = not self._thinking
                pos = start = idx + len(tag)
                self._skip_breaks = self._strip_after_close and not self._thinking
                continue
            if nl >= 0:
                pos = nl + 1
                self._head = True
                self._spaces = self._ticks = 0
                continue
            if not self._in_fence:
                end = n - _partial_suffix(buf, pos, tag)
                self._held = buf[end:]
            break
        self._emit(out, buf[start:end])
        return [(kind, "".join(parts)) for kind, parts in out]

    def flush(self) -> list[Piece]:
        """End of stream: emit the held-back partial tag (if any) as the current kind."""
        held, self._held = self._held, ""
        if not held:
            return []
        return [("thinking" if self._thinking else "text", held)]

    def _emit(self, out: list[tuple[Kind, list[str]]], s: str) -> None:
        """Append ``s`` as the current kind, merging with a preceding piece of that kind.

        Parts are joined once at the end of :meth:`feed`, so merging stays linear.
        """
        if not s:
            return
        kind: Kind = "thinking" if self._thinking else "text"
        if out and out[-1][0] == kind:
            out[-1][1].append(s)
        else:
            out.append((kind, [s]))
