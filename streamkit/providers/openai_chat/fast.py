"""The shape of the per-token chunk, for the parser's fast path.

Almost every chunk of a stream only continues the text, or one tool call's
arguments, of one choice. Decoding such a chunk into these strict Structs is
faster than a dict decode (``make bench-micro`` times the parser on such
chunks) and skips the lossless key-by-key walk.
Any other shape (an unknown key, a finish reason, usage, logprobs, a role, a
value of another type) fails validation and takes the general path, so nothing
is lost. Every field is a scalar or one of these Structs, so the decode never
nests deeper than a few levels whatever the payload holds.
"""

from __future__ import annotations

from typing import Literal

import msgspec

__all__ = ["FastChunk", "decode_chunk"]


class FastFunction(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    arguments: str


class FastToolCall(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    index: int
    function: FastFunction


class FastDelta(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    content: str | None = None
    tool_calls: list[FastToolCall] | None = None


class FastChoice(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    delta: FastDelta
    index: int = 0
    logprobs: None = None
    finish_reason: None = None


class FastChunk(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    choices: list[FastChoice]
    # after the first chunk, id / model / created are not read again (the first real ones win)
    id: str | None = None
    object: Literal["chat.completion.chunk"] = "chat.completion.chunk"
    created: int | float | None = None
    model: str | None = None
    system_fingerprint: str | None = None
    service_tier: str | None = None
    obfuscation: str | None = None  # padding, ignored
    usage: None = None


decode_chunk = msgspec.json.Decoder(FastChunk).decode
