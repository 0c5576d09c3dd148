"""The one JSON-encoding rule of every frame streamkit writes.

Every framing's writer (:func:`~streamkit.framing.sse.sse_event`,
:func:`~streamkit.framing.ndjson.ndjson_line`,
:class:`~streamkit.framing.json_array.JSONArrayWriter`) encodes its payloads
with :func:`json_bytes`, so a frame means the same on every wire:

- msgspec encodes (in C, compact, UTF-8): the fast path;
- a lone surrogate (a ``str`` may hold one, UTF-8 cannot: a provider's JSON
  escape of half an emoji reads as one) never fails the frame: it is written as
  its ``\\uXXXX`` escape, which is valid JSON and reads back as the same
  string (lossless);
- U+2028, U+2029 and U+0085 are written as ``\\u2028``, ``\\u2029``,
  ``\\u0085``: line readers split on them (Python's ``str.splitlines``, which
  ollama-python's NDJSON reader goes through; JavaScript before ES2019), and
  real Ollama escapes them. In compact JSON these characters can only occur
  inside strings, so escaping them in the encoded bytes changes no value.

The common case costs one ``isascii`` over msgspec's output (an all-ASCII
payload holds none of the three), other text a few single-byte searches.
"""

from __future__ import annotations

import json
import math
from typing import Any

import msgspec

__all__ = ["encode", "escape_line_separators", "json_bytes", "with_lone_surrogates"]

#: msgspec's encoder: the fast path. The SSE and NDJSON writers, on the hot
#: path of every wire and the browser, spell :func:`json_bytes` out
#: (``encode``, then ``isascii``, then the two helpers below): one Python call
#: less per frame.
encode = msgspec.json.encode


def json_bytes(value: Any) -> bytes:
    """``value`` as compact JSON bytes, by the rule in the module docstring.
    A value JSON cannot say (an object msgspec does not know) raises
    msgspec's ``TypeError``, as before."""
    try:
        body = encode(value)
    except UnicodeEncodeError:
        body = with_lone_surrogates(value)
    if body.isascii():
        return body
    return escape_line_separators(body)


def escape_line_separators(body: bytes) -> bytes:
    """``body`` (not all ASCII) with U+2028, U+2029 and U+0085 as JSON escapes:
    the bytes themselves when it holds none, which single-byte searches
    (``memchr``) tell for most text at once. U+2028 / U+2029 are E2 80 A8 /
    A9: no lead byte E2 (CJK, accented Latin), or no A8 and no A9 (curly
    quotes, dashes), means neither; U+0085 is C2 85."""
    if body.find(0xE2) != -1 and (body.find(0xA8) != -1 or body.find(0xA9) != -1):
        body = body.replace(b"\xe2\x80\xa8", b"\\u2028").replace(b"\xe2\x80\xa9", b"\\u2029")
    if body.find(0xC2) != -1 and body.find(0x85) != -1:
        body = body.replace(b"\xc2\x85", b"\\u0085")
    return body


def with_lone_surrogates(value: Any) -> bytes:
    """The cold path of a value holding a lone surrogate: the standard library
    writes it raw into a ``str``, and UTF-8 encoding with ``backslashreplace``
    turns exactly those code points into their ``\\uXXXX`` escapes (a
    surrogate is never outside a JSON string). :func:`msgspec.to_builtins`
    first, so every other value is said as msgspec says it (bytes as base64,
    structs as objects, a NaN as ``null``)."""
    text = json.dumps(_finite(msgspec.to_builtins(value)), ensure_ascii=False,
                      separators=(",", ":"), allow_nan=False)
    return text.encode("utf-8", "backslashreplace")


def _finite(value: Any) -> Any:
    """``value`` with NaN and the infinities as ``None`` (msgspec writes them as
    ``null``; the standard library would write JavaScript's words)."""
    if type(value) is float:
        return value if math.isfinite(value) else None
    if type(value) is dict:
        return {key: _finite(item) for key, item in value.items()}
    if type(value) is list or type(value) is tuple:
        return [_finite(item) for item in value]
    return value
