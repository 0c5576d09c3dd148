"""The FLOOR line: the least work that turns a provider stream into its final content.

Split the network chunks on newlines (carrying the partial line over), skip
everything that is not a ``data:`` line, msgspec-decode each payload into a
typed Struct, append the content pieces to lists, join once at the end. No
event objects, no snapshots, no usage, ids, limits or error handling: this is
what a hand-written loop costs, so the distance between it and streamkit is
the price of streamkit's features.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import msgspec


class OAFunction(msgspec.Struct):
    name: str | None = None
    arguments: str | None = None


class OAToolCall(msgspec.Struct):
    index: int = 0
    id: str | None = None
    type: str | None = None
    function: OAFunction | None = None


class OAAudio(msgspec.Struct):
    id: str | None = None
    data: str | None = None
    transcript: str | None = None
    expires_at: int | None = None


class OADelta(msgspec.Struct):
    role: str | None = None
    content: str | None = None
    refusal: str | None = None
    tool_calls: list[OAToolCall] | None = None
    audio: OAAudio | None = None


class OAChoice(msgspec.Struct):
    delta: OADelta
    index: int = 0
    logprobs: Any = None
    finish_reason: str | None = None


class OAUsage(msgspec.Struct):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0


class OAChunk(msgspec.Struct):
    """The whole chunk, typed: what streamkit keeps (ids, usage) is decoded too."""

    id: str = ""
    object: str = ""
    created: int = 0
    model: str = ""
    system_fingerprint: str | None = None
    choices: list[OAChoice] = []
    usage: OAUsage | None = None


class ANDelta(msgspec.Struct):
    type: str = ""
    text: str | None = None
    partial_json: str | None = None
    stop_reason: str | None = None
    stop_sequence: str | None = None


class ANEvent(msgspec.Struct):
    type: str
    index: int = 0
    delta: ANDelta | None = None
    message: dict[str, Any] | None = None
    content_block: dict[str, Any] | None = None
    usage: dict[str, Any] | None = None


def _lines(chunks: list[bytes]) -> list[bytes]:
    """Complete lines of the body, the trailing partial line carried over."""
    out: list[bytes] = []
    tail = b""
    for chunk in chunks:
        lines = (tail + chunk).split(b"\n")
        tail = lines.pop()
        out += lines
    if tail:
        out.append(tail)
    return out


def openai_floor(chunks: list[bytes]) -> tuple[str, dict[int, str], bytes]:
    """OpenAI Chat bytes -> (text, arguments by tool index, audio PCM)."""
    decode = msgspec.json.Decoder(OAChunk).decode
    text: list[str] = []
    args: dict[int, list[str]] = {}
    audio: list[str] = []
    for line in _lines(chunks):
        if not line.startswith(b"data: {"):
            continue
        for choice in decode(line[6:]).choices:
            delta = choice.delta
            if delta.content:
                text.append(delta.content)
            for call in delta.tool_calls or ():
                if call.function is not None and call.function.arguments:
                    args.setdefault(call.index, []).append(call.function.arguments)
            if delta.audio is not None and delta.audio.data:
                audio.append(delta.audio.data)
    pcm = base64.b64decode("".join(audio)) if audio else b""
    return "".join(text), {i: "".join(parts) for i, parts in args.items()}, pcm


def anthropic_floor(chunks: list[bytes]) -> tuple[str, dict[int, str], bytes]:
    """Anthropic bytes -> (text, tool input JSON by block index, no audio)."""
    decode = msgspec.json.Decoder(ANEvent).decode
    text: list[str] = []
    args: dict[int, list[str]] = {}
    for line in _lines(chunks):
        if not line.startswith(b"data: "):
            continue
        event = decode(line[6:])
        delta = event.delta
        if event.type != "content_block_delta" or delta is None:
            continue
        if delta.text is not None:
            text.append(delta.text)
        elif delta.partial_json is not None:
            args.setdefault(event.index, []).append(delta.partial_json)
    return "".join(text), {i: "".join(parts) for i, parts in args.items()}, b""


FLOORS: dict[str, Callable[[list[bytes]], tuple[str, dict[int, str], bytes]]] = {
    "openai": openai_floor,
    "anthropic": anthropic_floor,
}
