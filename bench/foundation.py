"""Side-by-side: streamkit's ChatResponse against agentscope 2.0.11's.

Run: make bench-foundation   (or .venv-bench/bin/python bench/foundation.py)

Scenarios (each contender gets the same fragments):
- audio: 2,000 chunks of 4,800 bytes through ``append_data_block`` (agentscope
  re-decodes and re-encodes the whole base64 string per chunk: quadratic);
- growth: our audio appends at 500 vs 2,000 chunks (linear means ~4x);
- text: 100,000 text deltas through ``append_text``, reading ``.text`` after each;
- tool JSON: 20,000 argument fragments through ``append_tool_call``.
"""

from __future__ import annotations

import platform
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _timing import fmt_seconds, median_times, table

from streamkit import ChatResponse

AUDIO_CHUNK = bytes(range(256)) * 18 + bytes(192)  # 4,800 bytes


def ours_audio(n: int, base64: bool = True) -> Callable[[], object]:
    def run() -> object:
        r = ChatResponse()
        for _ in range(n):
            r.append_data_block("audio_1", AUDIO_CHUNK, "audio/pcm;rate=24000")
        block = r.data_blocks[0]
        return block.source.data if base64 else block.data  # once, at the end
    return run


def agentscope_audio(n: int) -> Callable[[], object]:
    from agentscope.model import ChatResponse as AgentScopeResponse

    def run() -> object:
        r = AgentScopeResponse(content=[], is_last=False)
        for _ in range(n):
            r.append_data_block("audio_1", AUDIO_CHUNK, "audio/pcm;rate=24000")
        return r.content[0].source.data
    return run


def ours_text(n: int) -> Callable[[], object]:
    def run() -> object:
        r = ChatResponse()
        total = 0
        for _ in range(n):
            r.append_text("tok ")
            total += len(r.text)  # a UI reads the text after every delta
        return total
    return run


def agentscope_text(n: int) -> Callable[[], object]:
    from agentscope.model import ChatResponse as AgentScopeResponse

    def run() -> object:
        r = AgentScopeResponse(content=[], is_last=False)
        total = 0
        for _ in range(n):
            r.append_text("tok ")
            total += len(r.content[0].text)
        return total
    return run


def ours_tool(n: int) -> Callable[[], object]:
    def run() -> object:
        r = ChatResponse()
        for i in range(n):
            r.append_tool_call("call_1", "search", '{"q":"' if i == 0 else "abc,")
        return r.tool_calls[0].input
    return run


def agentscope_tool(n: int) -> Callable[[], object]:
    from agentscope.model import ChatResponse as AgentScopeResponse

    def run() -> object:
        r = AgentScopeResponse(content=[], is_last=False)
        for i in range(n):
            r.append_tool_call("call_1", "search", '{"q":"' if i == 0 else "abc,")
        return r.content[0].input
    return run


def main() -> None:
    rows = []
    for label, ours, theirs, n, repeat in (
        ("audio, 2,000 x 4,800 B", ours_audio, agentscope_audio, 2000, 3),
        ("text, 100,000 deltas, read after each", ours_text, agentscope_text, 100_000, 3),
        ("tool JSON, 20,000 fragments", ours_tool, agentscope_tool, 20_000, 3),
    ):
        times = median_times({"streamkit": ours(n), "agentscope": theirs(n)}, repeat=repeat)
        rows.append((label, fmt_seconds(times["streamkit"]), fmt_seconds(times["agentscope"]),
                     f"{times['agentscope'] / times['streamkit']:.0f}x"))
    print(table("ChatResponse.append_* (median of alternating runs)", rows,
                ("scenario", "streamkit", "agentscope 2.0.11", "agentscope / streamkit")))
    growth = median_times({
        "500": ours_audio(500, base64=False), "2000": ours_audio(2000, base64=False),
        "500+b64": ours_audio(500), "2000+b64": ours_audio(2000),
    }, repeat=9)
    print(table("Linearity: streamkit audio appends, then one read of the bytes", [
        ("500 chunks", fmt_seconds(growth["500"]), fmt_seconds(growth["500+b64"])),
        ("2,000 chunks", fmt_seconds(growth["2000"]), fmt_seconds(growth["2000+b64"])),
        ("ratio (linear = 4x)", f"{growth['2000'] / growth['500']:.2f}x",
         f"{growth['2000+b64'] / growth['500+b64']:.2f}x"),
    ], ("chunks", "appends + raw bytes", "appends + one base64 encode")))
    print(f"\nPython {platform.python_version()} on {platform.machine()}")


if __name__ == "__main__":
    main()
