"""Synthetic provider stream bodies for bench/, generated once per scenario.

The payloads copy the shape of real recordings (tests/fixtures): OpenAI Chat
``chat.completion.chunk`` objects with id/object/created/model/system_fingerprint
and ``choices[].delta``, a final usage chunk and ``[DONE]``; Anthropic
``event:``/``data:`` pairs from ``message_start`` to ``message_stop`` with a
``ping``. Every contender is timed on exactly these bytes, so the payload
overhead a real parser must wade through (ids, nulls, usage) is included.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

CHAT_ID = "chatcmpl-BENCH0000000000000000000001"
OPENAI_MODEL = "gpt-4o-2024-08-06"
ANTHROPIC_MODEL = "claude-sonnet-4-5-20250929"
CREATED = 1_764_547_200
WORDS = ("The", " stream", " of", " tokens", " arrives", " one", " small", " piece", " at",
         " a", " time", ",", " and", " every", " piece", " is", " a", " JSON", " object", ".")
NETWORK_CHUNK = 4096


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def sse_data(obj: Any) -> bytes:
    """One ``data:`` event."""
    return f"data: {_dumps(obj)}\n\n".encode()


def sse_event(name: str, obj: Any) -> bytes:
    """One named event, as Anthropic frames them."""
    return f"event: {name}\ndata: {_dumps(obj)}\n\n".encode()


def split_network(body: bytes, size: int = NETWORK_CHUNK) -> list[bytes]:
    """The body as the transport would deliver it: fixed-size reads that cut
    events (and lines) anywhere."""
    return [body[i:i + size] for i in range(0, len(body), size)]


def split_events(body: bytes) -> list[bytes]:
    """The body as a live stream usually arrives: one SSE event per network read."""
    events = body.split(b"\n\n")
    reads = [event + b"\n\n" for event in events[:-1]]
    return reads + ([events[-1]] if events[-1] else [])


def text_tokens(n: int) -> list[str]:
    """``n`` short word-like tokens (4-8 bytes each, like real text deltas)."""
    return [WORDS[i % len(WORDS)] for i in range(n)]


def tool_document(size: int) -> str:
    """A JSON argument document of about ``size`` bytes: a file write whose
    content is a list of records, the shape coding agents stream."""
    rows: list[dict[str, Any]] = []
    doc: dict[str, Any] = {"path": "src/generated/records.json", "overwrite": True, "rows": rows}
    i = 0
    while len(_dumps(doc)) < size:
        batch = [{"id": i + k, "name": f"item-{i + k}", "tags": ["alpha", "beta"], "score": 0.5}
                 for k in range(16)]
        rows.extend(batch)
        i += 16
    return _dumps(doc)


def fragments(text: str, width: int = 4) -> list[str]:
    """``text`` in ~``width``-character fragments, as models stream arguments."""
    return [text[i:i + width] for i in range(0, len(text), width)]


# ------------------------------------------------------------------ OpenAI Chat


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"id": CHAT_ID, "object": "chat.completion.chunk", "created": CREATED,
            "model": OPENAI_MODEL, "system_fingerprint": "fp_bench",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
            "usage": None}


def _openai_tail(finish: str, completion_tokens: int) -> Iterator[bytes]:
    yield sse_data(_chunk({}, finish))
    usage = {"prompt_tokens": 42, "completion_tokens": completion_tokens,
             "total_tokens": 42 + completion_tokens}
    yield sse_data({**_chunk({}), "choices": [], "usage": usage})
    yield b"data: [DONE]\n\n"


def openai_text(n: int) -> bytes:
    """``n`` content chunks after the role chunk, then finish, usage, [DONE]."""
    parts = [sse_data(_chunk({"role": "assistant", "content": "", "refusal": None}))]
    parts += [sse_data(_chunk({"content": token})) for token in text_tokens(n)]
    parts += _openai_tail("stop", n)
    return b"".join(parts)


def openai_tools(total: int, calls: int = 4, width: int = 4) -> bytes:
    """``calls`` parallel tool calls sharing ``total`` bytes of arguments, each
    streamed in ``width``-byte fragments (one call after the other, by index)."""
    parts = [sse_data(_chunk({"role": "assistant", "content": None, "refusal": None}))]
    for index in range(calls):
        head = {"index": index, "id": f"call_bench{index:04d}", "type": "function",
                "function": {"name": "write_file", "arguments": ""}}
        parts.append(sse_data(_chunk({"tool_calls": [head]})))
        for piece in fragments(tool_document(total // calls), width):
            tool = {"index": index, "function": {"arguments": piece}}
            parts.append(sse_data(_chunk({"tool_calls": [tool]})))
    parts += _openai_tail("tool_calls", len(parts))
    return b"".join(parts)


def openai_audio(n: int, size: int = 4800) -> bytes:
    """An audio reply: ``n`` ``delta.audio.data`` chunks of ``size`` PCM bytes
    (base64), a transcript delta after every tenth, like gpt-4o-audio."""
    pcm = bytes((i * 7) & 0xFF for i in range(size))
    data = base64.b64encode(pcm).decode()
    first = {"role": "assistant", "content": None, "refusal": None,
             "audio": {"id": "audio_bench0001", "transcript": "", "expires_at": CREATED + 3600}}
    parts = [sse_data(_chunk(first))]
    for i in range(n):
        parts.append(sse_data(_chunk({"audio": {"data": data}})))
        if i % 10 == 9:
            parts.append(sse_data(_chunk({"audio": {"transcript": " word"}})))
    parts += _openai_tail("stop", n)
    return b"".join(parts)


# ------------------------------------------------------------------ Anthropic


def _message_start() -> bytes:
    message = {"id": "msg_bench0000000000000001", "type": "message", "role": "assistant",
               "model": ANTHROPIC_MODEL, "content": [], "stop_reason": None,
               "stop_sequence": None,
               "usage": {"input_tokens": 42, "cache_creation_input_tokens": 0,
                         "cache_read_input_tokens": 0, "output_tokens": 1,
                         "service_tier": "standard"}}
    return sse_event("message_start", {"type": "message_start", "message": message})


def _anthropic_tail(stop: str, output_tokens: int) -> list[bytes]:
    delta = {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
             "usage": {"output_tokens": output_tokens}}
    return [sse_event("message_delta", delta),
            sse_event("message_stop", {"type": "message_stop"})]


def _block(index: int, block: dict[str, Any], deltas: list[dict[str, Any]]) -> list[bytes]:
    parts = [sse_event("content_block_start",
                       {"type": "content_block_start", "index": index, "content_block": block})]
    if index == 0:
        parts.append(sse_event("ping", {"type": "ping"}))
    parts += [sse_event("content_block_delta",
                        {"type": "content_block_delta", "index": index, "delta": delta})
              for delta in deltas]
    parts.append(sse_event("content_block_stop", {"type": "content_block_stop", "index": index}))
    return parts


def anthropic_text(n: int) -> bytes:
    """One text block of ``n`` ``text_delta`` events."""
    deltas = [{"type": "text_delta", "text": token} for token in text_tokens(n)]
    parts = [_message_start(), *_block(0, {"type": "text", "text": ""}, deltas)]
    parts += _anthropic_tail("end_turn", n)
    return b"".join(parts)


def anthropic_tool(total: int, width: int = 4) -> bytes:
    """A short text block, then one ``tool_use`` whose ``total``-byte input
    arrives as ``width``-byte ``input_json_delta`` fragments."""
    text = [{"type": "text_delta", "text": "I'll write that file."}]
    pieces = fragments(tool_document(total), width)
    json_deltas = [{"type": "input_json_delta", "partial_json": p} for p in ["", *pieces]]
    tool = {"type": "tool_use", "id": "toolu_bench0000000000000001", "name": "write_file",
            "input": {}}
    parts = [_message_start(), *_block(0, {"type": "text", "text": ""}, text),
             *_block(1, tool, json_deltas)]
    parts += _anthropic_tail("tool_use", len(pieces))
    return b"".join(parts)
