"""Which SSE decoder is the default: streamkit's bytes-level one vs httpx-sse's.

Run: make bench-sse   (or .venv-bench/bin/python bench/sse_decoders.py)

httpx-sse decodes as its ``EventSource.iter_sse`` does: an incremental UTF-8
decoder, its line splitter, then its ``SSEDecoder``. streamkit's
``SSEDecoder`` splits bytes and decodes each completed field once. Both get
the same bytes in the same network chunks.
"""

from __future__ import annotations

import codecs
import json
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _timing import fmt_seconds, median_times, table

from streamkit.framing.sse import SSEDecoder

N = 20_000


def openai_body(n: int) -> bytes:
    """``n`` chat.completion.chunk events, data-only framing."""
    chunk = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
             "model": "gpt-4o", "choices": [{"index": 0, "delta": {"content": "tok"},
                                             "finish_reason": None}]}
    line = b"data: " + json.dumps(chunk).encode() + b"\n\n"
    return line * n + b"data: [DONE]\n\n"


def anthropic_body(n: int) -> bytes:
    """``n`` content_block_delta events with ``event:`` lines."""
    delta = {"type": "content_block_delta", "index": 0,
             "delta": {"type": "text_delta", "text": "tok"}}
    return (b"event: content_block_delta\ndata: " + json.dumps(delta).encode() + b"\n\n") * n


def split(body: bytes, size: int) -> list[bytes]:
    return [body[i:i + size] for i in range(0, len(body), size)]


def streamkit_decoder(chunks: list[bytes]) -> Callable[[], object]:
    def run() -> object:
        decoder = SSEDecoder()
        count = 0
        for chunk in chunks:
            count += len(decoder.feed(chunk))
        return count + len(decoder.flush())
    return run


def httpx_sse_decoder(chunks: list[bytes]) -> Callable[[], object]:
    from httpx_sse._decoders import SSEDecoder as HttpxSSEDecoder
    from httpx_sse._decoders import SSELineDecoder

    def run() -> object:
        text = codecs.getincrementaldecoder("utf-8")(errors="replace")
        lines = SSELineDecoder()
        decoder = HttpxSSEDecoder()
        count = 0
        for chunk in chunks:
            for line in lines.decode(text.decode(chunk)):
                if decoder.decode(line) is not None:
                    count += 1
        for line in lines.flush():
            if decoder.decode(line) is not None:
                count += 1
        return count
    return run


def main() -> None:
    rows = []
    for name, body in (("OpenAI data-only", openai_body(N)),
                       ("Anthropic event+data", anthropic_body(N))):
        for size in (4096, 64):
            chunks = split(body, size)
            ours, theirs = streamkit_decoder(chunks), httpx_sse_decoder(chunks)
            assert ours() == theirs()  # the same events
            t = median_times({"streamkit": ours, "httpx-sse": theirs}, repeat=5)
            rows.append((f"{name}, {N:,} events, {size} B chunks", fmt_seconds(t["streamkit"]),
                         fmt_seconds(t["httpx-sse"]), f"{t['httpx-sse'] / t['streamkit']:.1f}x"))
    print(table("SSE decoding, bytes -> events", rows,
                ("stream", "streamkit", "httpx-sse", "httpx-sse / streamkit")))


if __name__ == "__main__":
    main()
