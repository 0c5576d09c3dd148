"""Upstream bodies that echo the client's key back, written every way a wire may
write it: JSON-escaped (``\\/``, ``\\u0073`` in either case, some characters
only, and escaped twice, as a JSON text inside a JSON string is), split across
the deltas of a block, in an error body, an in-stream error, a tool call's
arguments and a field no wire defines; and the test's look for the key in what
a caller is shown, with those escapes undone.

The bodies are the wires' own encoders' (:func:`streamkit.encode_stream`,
:func:`streamkit.encode_response`, :func:`streamkit.encode_error`), rewritten
byte for byte where the key is: nothing here knows a wire field.
"""

from __future__ import annotations

import json
import re
from typing import Any

from streamkit import encode_error, encode_response, encode_stream
from streamkit.model.blocks import TextBlock, ToolCallBlock
from streamkit.model.errors import ProviderError
from streamkit.model.events import (
    BlockDelta,
    BlockEnd,
    BlockStart,
    ErrorEvent,
    Event,
    ResponseEnd,
    ResponseStart,
    TextDelta,
    ToolInputDelta,
)
from streamkit.model.finish import FinishReason
from streamkit.model.replay import events_of
from streamkit.model.response import ChatResponse
from streamkit.model.vendors import provider_entry
from streamkit.providers.wire_format import wire_format

#: The echoed key: a ``/`` for JSON's ``\\/``, letters of both cases.
SECRET = "sk-echo/0123456789abcdefKEYQ"
#: What the client shows in its place (a key given as ``api_key=``).
MASK = "<key from api_key=>"
#: One provider of each wire (both OpenAI wires).
PROVIDERS = ["openai", "openai-responses", "anthropic", "gemini", "ollama"]
#: How the echo is written inside a JSON string.
ESCAPES = ["literal", "solidus", "lower", "upper", "some", "twice"]
#: The key cut into two and into three deltas.
SPLITS = [("sk-echo/0123456", "789abcdefKEYQ"), ("sk-echo/01", "23456789ab", "cdefKEYQ"),
          ("sk", "-", "ech", "o/0123456789abcdefKEYQ")]  # tokens shorter than a held beginning
#: The most of the key's first characters a stream may show before its mask
#: (:data:`streamkit.client.keys.SHORTEST_HELD_BEGINNING` less one: ``sk-``).
SHOWN = 3

_TEXT_BEFORE, _TEXT_AFTER = "the key is ", " as sent"


def escaped(text: str, how: str) -> str:
    """``text`` as a JSON string's bytes hold it, written ``how``."""
    if how == "literal":
        return text
    if how == "solidus":
        return text.replace("/", "\\/")
    if how == "twice":  # a JSON text (arguments) inside a JSON string: its escape escaped
        return "".join(f"\\\\u{ord(char):04x}" for char in text)
    shapes = {"lower": "\\u{:04x}", "upper": "\\u{:04X}"}
    if how in shapes:
        return "".join(shapes[how].format(ord(char)) for char in text)
    return "".join(f"\\u{ord(char):04x}" if index % 3 == 1 else char
                   for index, char in enumerate(text))  # "some"


def rewritten(body: bytes, how: str, pieces: tuple[str, ...] = ()) -> bytes:
    """``body`` with the key, and each of ``pieces`` (the deltas it was cut
    into), written ``how`` wherever they are."""
    for part in (SECRET, *pieces):
        body = body.replace(part.encode(), escaped(part, how).encode())
    return body


def with_unknown_field(body: bytes, how: str) -> bytes:
    """``body`` whose first JSON object has a field no wire defines, holding the key."""
    at = body.index(b"{") + 1
    return body[:at] + f'"x_echo":"{escaped(SECRET, how)}",'.encode() + body[at:]


def base_url(url: str, provider: str) -> str:
    """Where ``provider``'s API is on a server at ``url``."""
    return url + wire_format(provider_entry(provider).wire).served_base


def split_answer(pieces: tuple[str, ...], *, error: bool = False) -> list[Event]:
    """A text and a tool call, each with the key cut into ``pieces`` as its
    deltas; ``error``: the stream ends with an error that names the key instead."""
    first, *rest = pieces
    arguments = [f'{{"q": "{first}', *rest[:-1], f'{rest[-1]}"}}']
    texts = [_TEXT_BEFORE + first, *rest[:-1], rest[-1] + _TEXT_AFTER]
    events: list[Event] = [ResponseStart(id="resp_echo", model="m"),
                           BlockStart(index=0, block=TextBlock()),
                           *(BlockDelta(index=0, delta=TextDelta(text)) for text in texts)]
    if error:
        return [*events, ErrorEvent(message=f"upstream failed for key {SECRET}",
                                    error_type="server_error", status=500)]
    return [*events, BlockEnd(index=0),
            BlockStart(index=1, block=ToolCallBlock(id="call_echo", name="lookup")),
            *(BlockDelta(index=1, delta=ToolInputDelta(text)) for text in arguments),
            BlockEnd(index=1), ResponseEnd(finish_reason=FinishReason.TOOL_CALLS)]


def stream_body(provider: str, events: list[Event], how: str,
                pieces: tuple[str, ...] = ()) -> tuple[bytes, str]:
    """The wire's stream of ``events``, the key written ``how``; its content type."""
    encoded = encode_stream(provider, events)
    return rewritten(b"".join(encoded), how, pieces), encoded.content_type


def echo_answer() -> ChatResponse:
    """A whole answer with the key in its text and in its tool call's arguments."""
    return ChatResponse(content=[TextBlock(_TEXT_BEFORE + SECRET),
                                 ToolCallBlock(id="call_echo", name="lookup",
                                               input=json.dumps({"q": SECRET}))],
                        model="m", finished_reason=FinishReason.TOOL_CALLS)


def whole_stream_body(provider: str, how: str) -> tuple[bytes, str]:
    """:func:`echo_answer` streamed, the key written ``how``."""
    return stream_body(provider, list(events_of(echo_answer())), how)


def answer_body(provider: str, how: str) -> bytes:
    """:func:`echo_answer` as the wire's non-streamed body, the key written ``how``."""
    return rewritten(json.dumps(encode_response(provider, echo_answer())).encode(), how)


def parts_answer_body(provider: str, pieces: tuple[str, ...]) -> bytes:
    """A whole answer whose text is the key cut into ``pieces``, one text part
    each (Gemini's decoder joins a candidate's parts into one block)."""
    texts = [_TEXT_BEFORE + pieces[0], *pieces[1:-1], pieces[-1] + _TEXT_AFTER]
    answer = ChatResponse(content=[TextBlock(text) for text in texts], model="m",
                          finished_reason=FinishReason.STOP)
    return json.dumps(encode_response(provider, answer)).encode()


def error_body(provider: str, how: str) -> tuple[int, bytes]:
    """The wire's 401 naming the key, written ``how``."""
    encoded = encode_error(provider, ProviderError(f"invalid api key {SECRET}", status=401),
                           status=401)
    return encoded.status, rewritten(json.dumps(encoded.body).encode(), how)


_ESCAPE = re.compile(r"\\+u([0-9a-fA-F]{4})|\\+(/)")


def undone(text: str) -> str:
    """``text`` with every JSON escape of a character undone, however deep."""
    return _ESCAPE.sub(lambda found: found[2] or chr(int(found[1], 16)), text)


def reveals_key(*shown: Any) -> bool:
    """Whether any of ``shown`` (values, printed as the caller would see them)
    holds the key, in plain text or written with escapes."""
    text = " ".join(value if isinstance(value, str) else
                    value.decode("utf-8", "replace") if isinstance(value, bytes) else
                    json.dumps(value, default=repr) if isinstance(value, dict | list) else
                    repr(value) for value in shown)
    secret = SECRET[SHOWN:]  # the key after the public beginning a stream may show
    return secret in text or secret in undone(text)


def without_shown(text: str) -> str:
    """``text`` without the key's first characters a stream showed before a mask."""
    return re.sub("(?:" + "|".join(re.escape(SECRET[:n]) for n in range(SHOWN, 0, -1))
                  + ")" + re.escape(MASK), MASK, text)
