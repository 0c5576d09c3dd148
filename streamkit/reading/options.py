"""How a stream is read, as one value: :class:`ReadOptions`.

The options that say how a body becomes events (what to do on an error, the
memory bounds, the ``<think>`` filter, the parser's own settings, when the
request went out) are one frozen record, made once per stream and passed
whole: from :class:`~streamkit.Client` through its call core to
:func:`~streamkit.stream`, to the :class:`~streamkit.reading.pipeline.Pipeline`
and :func:`~streamkit.replay`. A caller still writes them as keywords
(``streamkit.stream(source, "openai", think_tags=True, on_error="return")``):
:class:`ReadKeywords` is the same fields as a ``TypedDict``, which those
functions take as ``**keywords: Unpack[ReadKeywords]``, so a type checker knows
each one and no signature spells them again. ``options=ReadOptions(...)``
passes a whole record; keywords given with it replace its fields.

Nothing here is read per chunk: the pipeline and the stream copy what their
hot path needs into attributes of their own when they are made.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

from ..model.limits import DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_TOTAL_BYTES
from ..model.timing import RequestTiming

__all__ = ["PARSER_OPTIONS", "OnError", "ReadKeywords", "ReadOptions", "read_options"]

OnError = Literal["raise", "return"]

#: The fields of :class:`ReadOptions` that go to the wire's parser, when set.
PARSER_OPTIONS = ("dialect", "audio_media_type", "fast_decode")


@dataclass(frozen=True, slots=True)
class ReadOptions:
    """How one stream is read (every field has the default a keyword left out has)."""

    on_error: OnError = "raise"
    """``"return"`` ends a broken stream with its partial response instead of
    raising (the error is the stream's ``error``)."""
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES
    """The largest SSE event or JSON line (a hostile stream cannot eat memory)."""
    max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES
    """The largest whole body."""
    think_tags: bool | tuple[str, str] | None = None
    """``True`` (or an ``(open, close)`` tag pair) turns inline ``<think>`` text
    into thinking blocks; ``None``: the provider's dialect decides."""
    start_in_thinking: bool = False
    """For a model whose chat template already opened the ``<think>`` tag."""
    request_timing: RequestTiming | None = None
    """When the request was sent and what the call tried before (the client
    gives it; see :mod:`streamkit.model.timing`)."""
    dialect: str | None = None
    """The OpenAI Chat dialect to read with (``None``: the provider's)."""
    audio_media_type: str | None = None
    """The media type of streamed audio bytes, which a stream never states
    (``None``: the parser's default, 24 kHz PCM)."""
    fast_decode: bool | None = None
    """``False`` sends every payload through the parser's general path
    (``None``: the parser's default, the fast one)."""

    def parser_options(self) -> dict[str, Any]:
        """The parser's settings that were set (a parser is given only those:
        Gemini's has no ``fast_decode``, for one)."""
        return {name: value for name in PARSER_OPTIONS
                if (value := getattr(self, name)) is not None}


class ReadKeywords(TypedDict, total=False):
    """:class:`ReadOptions`' fields as keywords (``**keywords: Unpack[ReadKeywords]``);
    each means what the field of the same name means."""

    on_error: OnError
    max_event_bytes: int
    max_total_bytes: int
    think_tags: bool | tuple[str, str] | None
    start_in_thinking: bool
    request_timing: RequestTiming | None
    dialect: str | None
    audio_media_type: str | None
    fast_decode: bool | None


_DEFAULT = ReadOptions()


def read_options(options: ReadOptions | None, keywords: ReadKeywords) -> ReadOptions:
    """``options`` (the defaults when ``None``) with ``keywords`` in place of
    its fields; the record itself when no keyword is given."""
    base = _DEFAULT if options is None else options
    return dataclasses.replace(base, **keywords) if keywords else base
