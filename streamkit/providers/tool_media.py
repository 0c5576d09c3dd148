"""What a tool returned, in a wire's tool result: media the wire has no place
for there is left out with a :class:`~streamkit.LossyTranslationWarning`.

A user's own message with audio for a wire that takes none is refused
(:class:`~streamkit.model.errors.UnsupportedFeatureError`: the caller chose it).
A tool's result is not the caller's to choose (an MCP server's audio, a
chart by URL for Ollama, which takes image bytes only), and a refusal would
end the tool loop on the request after the call. So each wire's tool-result
writer passes the result's blocks through :func:`result_blocks`: a
:class:`~streamkit.model.blocks.DataBlock` its writer refuses becomes a text
note saying what was left out and why (the model learns there was more),
and the loss is warned once per block. Images reach every wire: inside the
result on Anthropic, Gemini, Responses and Ollama, in the user message after
the results on OpenAI Chat (a tool message takes text only).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..conversation.messages import FunctionExecutionResult
from ..model.blocks import DataBlock, TextBlock
from ..model.errors import UnsupportedFeatureError, warn_lossy

__all__ = ["result_blocks"]


def result_blocks(result: FunctionExecutionResult, writes: Callable[[DataBlock], Any],
                  wire: str) -> list[TextBlock | DataBlock]:
    """``result``'s blocks, each data block ``writes`` (the wire's writer of
    it) refuses replaced by a note, with a warning."""
    kept: list[TextBlock | DataBlock] = []
    for block in result.blocks:
        if isinstance(block, DataBlock):
            try:
                writes(block)
            except UnsupportedFeatureError as error:
                what = f"{block.media_type or 'untyped'} content"
                warn_lossy(wire, f"{what} in a tool result (block {block.id!r} of call "
                                 f"{result.call_id!r})", str(error))
                kept.append(TextBlock(f"[{what} left out: {error}]"))
                continue
        kept.append(block)
    return kept
