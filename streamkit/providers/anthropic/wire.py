"""What the Anthropic Messages wire's words and objects mean, as data.

Everything here is about the wire format, not about streaming, so the stream
parser and the readers still to come (the non-streamed response, the request
parser) share it:

- :data:`FINISH_REASONS`: ``stop_reason`` words -> :class:`FinishReason`;
- :data:`USAGE_FIELDS`: where a ``usage`` object keeps each count;
- :func:`content_block`: one ``content_block`` object -> a streamkit block.

The API's documented types are not trusted: every field is read with
:mod:`~streamkit.providers.coerce`, and a field of the wrong type (an ``id``
that is a list, a ``text`` that is a number) is treated as absent and kept in
the block's ``metadata`` under its own name, so nothing is dropped and nothing
raises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from ...blocks import Block, RawBlock, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock
from ...finish import FinishReason
from ..coerce import as_list, as_str
from ..usage_fields import UsageFields, first

FINISH_REASONS: dict[str, FinishReason] = {
    "end_turn": FinishReason.STOP,
    "stop_sequence": FinishReason.STOP,
    "max_tokens": FinishReason.LENGTH,
    "model_context_window_exceeded": FinishReason.LENGTH,
    "tool_use": FinishReason.TOOL_CALLS,
    "pause_turn": FinishReason.PAUSE,
    "refusal": FinishReason.REFUSAL,
}

# Anthropic reports no total, so none is invented; a message_delta usually
# repeats only output_tokens, and cumulative merging keeps the rest.
USAGE_FIELDS = UsageFields(
    input_tokens=first("input_tokens"),
    output_tokens=first("output_tokens"),
    cached_tokens=first("cache_read_input_tokens"),
    cache_creation_tokens=first("cache_creation_input_tokens"),
    reasoning_tokens=first("output_tokens_details.thinking_tokens"),
)

# Tool-use block types: the model's own tool calls and the server-side ones
# (web search, code execution, MCP...) that the API runs itself.
TOOL_CALL_TYPES = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})

_ENCODE = msgspec.json.encode


def map_stop_reason(stop_reason: str | None) -> FinishReason | None:
    """The uniform finish reason for an Anthropic ``stop_reason`` (``None`` stays
    ``None``; a word this version does not know is ``unknown``)."""
    if stop_reason is None:
        return None
    return FINISH_REASONS.get(stop_reason, FinishReason.UNKNOWN)


def extras(wire: dict[str, Any], read: dict[str, Any]) -> dict[str, Any]:
    """The fields of a wire object that streamkit has no slot for, kept as metadata.

    ``read`` maps each field streamkit did read to the value it got, ``None``
    when the field had the wrong type: such a field is kept too, under its own
    name. Null fields say nothing and are dropped.
    """
    return {key: value for key, value in wire.items()
            if value is not None and read.get(key) is None}


def content_block(block: dict[str, Any]) -> Block:
    """The streamkit block for one Anthropic ``content_block`` object."""
    kind = as_str(block.get("type"))
    if kind is None:
        return RawBlock("unknown", block, id=as_str(block.get("id")) or None)
    build = _BUILDERS.get(kind)
    if build is not None:
        return build(kind, block)
    if kind.endswith("_tool_result"):
        return _tool_result_block(kind, block)
    return RawBlock(kind, block, id=as_str(block.get("id")) or None)


def start_input(block: dict[str, Any]) -> str | None:
    """The complete ``input`` of a tool call's ``content_block``, as JSON text
    (server and MCP tools may send it there instead of as deltas); ``None``
    when it is empty or absent."""
    tool_input = block.get("input")
    return _ENCODE(tool_input).decode() if tool_input else None


# ---------------------------------------------------------------- builders


def _text_block(kind: str, block: dict[str, Any]) -> TextBlock:
    text = as_str(block.get("text"))
    citations = as_list(block.get("citations"))
    return TextBlock(text or "", citations=list(citations) if citations is not None else None,
                     metadata=extras(block, {"type": kind, "text": text, "citations": citations}))


def _thinking_block(kind: str, block: dict[str, Any]) -> ThinkingBlock:
    thinking = as_str(block.get("thinking"))
    signature = as_str(block.get("signature"))
    return ThinkingBlock(thinking or "", signature=signature or None, metadata=extras(
        block, {"type": kind, "thinking": thinking, "signature": signature}))


def _redacted_thinking_block(kind: str, block: dict[str, Any]) -> ThinkingBlock:
    """Reasoning the API will not show: its opaque ``data`` goes back verbatim."""
    data = as_str(block.get("data"))
    return ThinkingBlock(encrypted=data, redacted=True,
                         metadata=extras(block, {"type": kind, "data": data}))


def _tool_call_block(kind: str, block: dict[str, Any]) -> ToolCallBlock:
    """A tool call; its arguments come as deltas (or whole, see :func:`start_input`)."""
    call_id = as_str(block.get("id"))
    name = as_str(block.get("name"))
    metadata = extras(block, {"type": kind, "id": call_id, "name": name, "input": True})
    if kind != "tool_use":
        metadata["server"] = True
        metadata["block_type"] = kind
    return ToolCallBlock(call_id or None, name or "", metadata=metadata)


def _tool_result_block(kind: str, block: dict[str, Any]) -> ToolResultBlock | RawBlock:
    """A server tool's result: a :class:`ToolResultBlock` when its content is
    text (MCP results), else the whole provider block as a :class:`RawBlock`
    (web search results, code execution output...), so it can be sent back."""
    call_id = as_str(block.get("tool_use_id"))
    parts = _text_parts(block.get("content"))
    if call_id is None or parts is None:
        return RawBlock(kind, block)  # its own id: tool_use_id is the call's
    metadata = extras(block, {"type": kind, "tool_use_id": call_id, "content": parts,
                              "is_error": True})
    metadata["block_type"] = kind
    return ToolResultBlock(call_id, list(parts), bool(block.get("is_error")), metadata=metadata)


def _text_parts(content: Any) -> list[TextBlock] | None:
    """A tool result's content as text blocks, or ``None`` when it holds anything
    but plain text (a string, or a list of ``{"type": "text", "text": ...}``)."""
    if type(content) is str:
        return [TextBlock(content)]
    if type(content) is not list:
        return None
    texts = [as_str(part.get("text")) if type(part) is dict and part.keys() <= {"type", "text"}
             and part.get("type") == "text" else None for part in content]
    if any(text is None for text in texts):
        return None
    return [TextBlock(text or "") for text in texts]


_BUILDERS: dict[str, Callable[[str, dict[str, Any]], Block]] = {
    "text": _text_block,
    "thinking": _thinking_block,
    "redacted_thinking": _redacted_thinking_block,
    **dict.fromkeys(TOOL_CALL_TYPES, _tool_call_block),
}
