"""Which wire a request to a server is in, from its path: the served side of ``http.py``.

A server that speaks every wire (a fake provider in :mod:`streamkit.testing`,
the :mod:`streamkit.gateway`) takes requests at each wire's own path
(:attr:`~streamkit.providers.wire_format.WireFormat.served_path`):
``/v1/chat/completions``, ``/v1/responses``, ``/v1/messages``,
``/v1beta/models/{model}:generateContent`` / ``:streamGenerateContent``,
``/api/chat``; and the count endpoints of the wires whose API has one
(:attr:`~streamkit.providers.wire_format.WireFormat.count_tokens`):
``/v1/messages/count_tokens``, ``/v1/responses/input_tokens``, Gemini's
``:countTokens``. :func:`served_call` says which wire a path is, whether it
is a token count, the model when
the path names it, and whether the path alone asks for a stream (Gemini's
method; elsewhere the body's ``stream`` field says, see
:attr:`~streamkit.Request.stream`) and in which form (Gemini without
``alt=sse``: one JSON array). Sans-IO: strings in, a record out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from urllib.parse import parse_qs, unquote

from .wire_format import WIRE_NAMES, wire_format

__all__ = ["ServedCall", "served_call"]

#: The registry name of each wire's own API: what a request read from the wire is parsed as.
OWN_PROVIDER = {
    "openai-chat": "openai",
    "openai-responses": "openai-responses",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "ollama": "ollama",
}

#: Gemini's stream method: the path alone asks for a stream.
STREAM_METHOD = "streamGenerateContent"


@dataclass(frozen=True)
class ServedCall:
    """What a request's path says: its wire, the provider name to read it as,
    the model named in the path, and the stream it asks for."""

    wire: str
    provider: str
    model: str | None = None
    """The model the path names (Gemini), else ``None`` (the body names it)."""
    stream: bool | None = None
    """``True`` / ``False`` when the path says (Gemini's method), else ``None``."""
    array: bool = False
    """A stream asked for as one JSON array (Gemini without ``alt=sse``)."""
    count: bool = False
    """A token count (the wire's count endpoint), not a model call."""

    def streams(self, said: bool | None) -> bool:
        """Whether the answer is a stream, given what the body said
        (:attr:`~streamkit.Request.stream`, ``None`` when silent): the path
        decides where it says, then the body, then the wire's default."""
        if self.stream is not None:
            return self.stream
        return said if said is not None else wire_format(self.wire).streams_unless_said


@cache
def _patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((name, re.compile(wire_format(name).served_path)) for name in WIRE_NAMES)


@cache
def _count_patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    counts = ((name, wire_format(name).count_tokens) for name in WIRE_NAMES)
    return tuple((name, re.compile(count.served_path)) for name, count in counts
                 if count is not None)


def _served_count(path: str) -> ServedCall | None:
    """The count endpoint ``path`` is, if any."""
    for wire, pattern in _count_patterns():
        match = pattern.fullmatch(path)
        if match is not None:
            model = match.groupdict().get("model")
            return ServedCall(wire, OWN_PROVIDER[wire], model=None if model is None
                              else unquote(model), stream=False, count=True)
    return None


def served_call(path: str, query: str = "") -> ServedCall | None:
    """The call a request to ``path`` (with its ``query`` string) is, or
    ``None`` for a path no wire serves."""
    counted = _served_count(path)
    if counted is not None:
        return counted
    for wire, pattern in _patterns():
        match = pattern.fullmatch(path)
        if match is None:
            continue
        groups = match.groupdict()
        if "method" not in groups:
            return ServedCall(wire, OWN_PROVIDER[wire])
        stream = groups["method"] == STREAM_METHOD
        alt = parse_qs(query).get("alt", [""])[-1]
        return ServedCall(wire, OWN_PROVIDER[wire], model=unquote(groups["model"]),
                          stream=stream, array=stream and alt != "sse")
    return None

