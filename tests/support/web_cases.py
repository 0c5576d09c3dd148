"""Writes, for every recorded stream, the UI message stream streamkit.web sends
for it and what the AI SDK client must assemble from it.

``python tests/support/web_cases.py OUT_DIR`` (or :func:`write_cases`) writes
``<case>.sse`` (the bytes of ``ui_message_stream`` over the recording, fed in
small network chunks through a real :class:`~streamkit.reading.stream.Stream`) and
``<case>.json`` (the expectation). ``web/test/ui-message-stream.test.mjs``
reads them with the ``ai`` package's own parser and message assembler. The
``structured__*`` cases are scripted structured answers (``structured_streams``)
encoded with ``output=Recipe``: their expectation also holds the final
``data-output`` part (``output``), from ``response.parse`` alone.

The expectation is computed from the stream's final ``ChatResponse`` with the
model's own API only (``text``, ``thinking``, ``arguments()``, ``to_wav()``),
never with the encoder, so a wrong encoder cannot agree with itself.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # as a script: tests/, for support

from streamkit import stream
from streamkit.model.blocks import (
    Base64Source,
    ContentBlock,
    DataBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)
from streamkit.model.errors import StructuredOutputError, ToolArgumentsError
from streamkit.model.response import ChatResponse
from streamkit.testing import load_recording
from streamkit.web import ui_message_stream
from support.recordings import fixture_id, recordings
from support.structured_streams import ANSWERS, WIRES, Recipe, fragments

CHUNK = 61  # network chunk size: splits payloads and UTF-8 sequences anywhere


def case_name(path: Path) -> str:
    """A file name for a recording: its path below tests/fixtures, flattened."""
    return fixture_id(path).replace("/", "__")


async def _chunks(body: bytes) -> AsyncIterator[bytes]:
    for start in range(0, len(body), CHUNK):
        yield body[start:start + CHUNK]


async def encode_recording(path: Path) -> tuple[bytes, ChatResponse, str | None]:
    """The UI message stream of a recording, its final (or partial) response and
    the error the stream raised, if any."""
    body, _ = load_recording(path)
    events = stream(_chunks(body))
    out = bytearray()
    async for frame in ui_message_stream(events):
        out += frame
    error = events.error
    return bytes(out), events.response, None if error is None else error.message


def _tool(block: ToolCallBlock) -> dict[str, Any]:
    try:
        return {"type": "tool", "name": block.name, "valid": True, "input": block.arguments()}
    except ToolArgumentsError:
        return {"type": "tool", "name": block.name, "valid": False, "rawInput": block.input}


def _file(block: DataBlock) -> dict[str, Any]:
    if not isinstance(block.source, Base64Source):
        return {"type": "file", "mediaType": block.media_type, "url": block.source.url}
    payload = block.to_wav() if block.is_pcm else block.data
    return {"type": "file", "mediaType": "audio/wav" if block.is_pcm else block.media_type,
            "sha256": hashlib.sha256(payload).hexdigest(), "bytes": len(payload),
            "transcript": block.transcript or None}


def expected_part(block: ContentBlock) -> dict[str, Any]:
    """What the assembled UI message must hold for one block."""
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text, "refusal": block.refusal}
    if isinstance(block, ThinkingBlock):
        return {"type": "reasoning", "text": block.thinking, "signature": block.signature,
                "encrypted": block.encrypted, "redacted": block.redacted}
    if isinstance(block, ToolCallBlock):
        return _tool(block)
    if isinstance(block, DataBlock):
        return _file(block)
    return {"type": "raw", "kind": getattr(block, "kind", block.type)}


def expectation(name: str, final: ChatResponse, error: str | None) -> dict[str, Any]:
    """The expected final UI message of a case."""
    usage = final.usage
    return {
        "name": name,
        "parts": [expected_part(block) for block in final.content],
        "sources": sum(len(b.citations) for b in final.content if isinstance(b, TextBlock)),
        "error": error,
        "finishReason": None if final.finished_reason is None else final.finished_reason.value,
        "outputTokens": None if usage is None else usage.output_tokens,
    }


async def encode_structured(raw: bytes) -> tuple[bytes, ChatResponse]:
    """The UI message stream of a scripted structured answer, with ``output=Recipe``
    (a ``data-output`` chunk after every change), and its final response."""
    events = stream(_chunks(raw))
    out = bytearray()
    async for frame in ui_message_stream(events, output=Recipe, output_interval=None):
        out += frame
    return bytes(out), events.response


def expected_output(final: ChatResponse) -> dict[str, Any]:
    """What the ``data-output`` part must hold at the end, from ``parse`` alone."""
    try:
        return {"state": "done", "object": final.parse(Recipe).model_dump(mode="json")}
    except StructuredOutputError as error:
        return {"state": "error", "errorText": str(error)}


def structured_cases() -> dict[str, bytes]:
    """Every scripted wire carrying the recipe, and one whose last step is invalid."""
    cases = {f"structured__{wire}": build(fragments(ANSWERS["compact"], "3"))
             for wire, build in WIRES.items()}
    invalid = json.loads(ANSWERS["compact"])
    invalid["servings"] = "four"
    cases["structured__invalid-servings"] = WIRES["openai-chat"](
        fragments(json.dumps(invalid), "3"))
    return cases


async def _write_all(out_dir: Path) -> list[str]:
    names = []
    for path in recordings():
        name = case_name(path)
        sse, final, error = await encode_recording(path)
        (out_dir / f"{name}.sse").write_bytes(sse)
        expected = expectation(fixture_id(path), final, error)
        (out_dir / f"{name}.json").write_text(json.dumps(expected, ensure_ascii=False))
        names.append(name)
    for name, raw in structured_cases().items():
        sse, final = await encode_structured(raw)
        (out_dir / f"{name}.sse").write_bytes(sse)
        expected = {**expectation(name, final, None), "output": expected_output(final)}
        (out_dir / f"{name}.json").write_text(json.dumps(expected, ensure_ascii=False))
        names.append(name)
    return names


def write_cases(out_dir: Path) -> list[str]:
    """Write every case into ``out_dir``; returns the case names."""
    out_dir.mkdir(parents=True, exist_ok=True)
    return anyio.run(_write_all, out_dir)


if __name__ == "__main__":
    written = write_cases(Path(sys.argv[1]))
    print(f"{len(written)} cases written to {sys.argv[1]}")
