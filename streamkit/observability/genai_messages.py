"""The conversation and the answer as the OpenTelemetry GenAI conventions write
them: ``gen_ai.input.messages``, ``gen_ai.output.messages`` and
``gen_ai.system_instructions`` (recorded only when the application opts in to
message content: see :mod:`streamkit.observability`).

Each message is ``{"role", "parts"}`` (an output message also has its
``finish_reason``); a part is ``text``, ``reasoning``, ``tool_call`` (its
arguments parsed when they are JSON), ``tool_call_response``, ``blob`` (inline
bytes, base64) or ``uri``; a provider item streamkit keeps whole (a
:class:`~streamkit.model.blocks.RawBlock`) is a part whose ``type`` is its kind. The
span holds them as JSON text (OpenTelemetry attributes cannot nest).
"""

from __future__ import annotations

import base64
import json
from typing import Any

from ..conversation.messages import (
    AssistantMessage,
    FunctionExecutionResultMessage,
    Message,
    SystemMessage,
    UserMessage,
    as_assistant,
)
from ..model.blocks import (
    ContentBlock,
    DataBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ..model.data_sources import Base64Source
from ..model.finish import FinishReason
from ..model.response import ChatResponse

__all__ = ["input_messages", "output_messages", "system_instructions", "to_json"]

#: The conventions' finish reasons, where streamkit's word differs or has none
#: (they name ``stop``, ``length``, ``content_filter``, ``tool_call``, ``error``).
_FINISH_REASONS = {FinishReason.TOOL_CALLS: "tool_call"}

#: The conventions' modalities by the first part of a media type.
_MODALITIES = {"image": "image", "audio": "audio", "video": "video"}


def _modality(media_type: str) -> str:
    return _MODALITIES.get(media_type.split("/", 1)[0].lower(), "document")


def _arguments(call: ToolCallBlock) -> Any:
    try:
        return json.loads(call.input) if call.input else {}
    except ValueError:  # cut off or not JSON: as it came
        return call.input


def _data_part(block: DataBlock) -> dict[str, Any]:
    media_type = block.source.media_type
    if isinstance(block.source, Base64Source):
        return {"type": "blob", "modality": _modality(media_type), "mime_type": media_type,
                "content": base64.b64encode(block.data).decode("ascii")}
    return {"type": "uri", "modality": _modality(media_type), "mime_type": media_type,
            "uri": block.source.url}


def _part(block: ContentBlock) -> dict[str, Any] | None:
    """One block as a part (``None``: nothing to show, as a redacted thought)."""
    if isinstance(block, TextBlock):
        return {"type": "text", "content": block.text}
    if isinstance(block, ThinkingBlock):
        return {"type": "reasoning", "content": block.thinking} if block.thinking else None
    if isinstance(block, ToolCallBlock):
        return {"type": "tool_call", "id": block.id, "name": block.name,
                "arguments": _arguments(block)}
    if isinstance(block, DataBlock):
        return _data_part(block)
    if isinstance(block, ToolResultBlock):
        return {"type": "tool_call_response", "id": block.call_id,
                "response": "".join(b.text for b in block.content if isinstance(b, TextBlock))}
    if isinstance(block, RawBlock):
        return {"type": block.kind, **block.data}
    return None


def _parts(blocks: list[Any]) -> list[dict[str, Any]]:
    return [part for part in map(_part, blocks) if part is not None]


def _message(message: Message) -> dict[str, Any] | None:
    if isinstance(message, SystemMessage):
        return None  # the system instructions are their own attribute
    if isinstance(message, UserMessage):
        return {"role": "user", "parts": _parts(message.blocks)}
    if isinstance(message, FunctionExecutionResultMessage):
        return {"role": "tool", "parts": [
            {"type": "tool_call_response", "id": result.call_id, "response": result.text}
            for result in message.content]}
    if isinstance(message, (AssistantMessage, ChatResponse)):
        return {"role": "assistant", "parts": _parts(as_assistant(message).blocks)}
    return None


def input_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """The chat history sent, in order, the system instructions left out."""
    return [out for out in map(_message, messages) if out is not None]


def system_instructions(messages: list[Message]) -> list[dict[str, Any]]:
    """The system instructions as text parts (empty when there are none)."""
    return [{"type": "text", "content": message.text} for message in messages
            if isinstance(message, SystemMessage)]


def output_messages(choices: list[ChatResponse]) -> list[dict[str, Any]]:
    """One message per choice, with its finish reason."""
    out = []
    for choice in choices:
        reason = choice.finished_reason
        word = _FINISH_REASONS.get(reason, reason.value) if reason is not None else "unknown"
        out.append({"role": "assistant", "parts": _parts(choice.content), "finish_reason": word})
    return out


def to_json(value: Any) -> str:
    """JSON text for a span attribute (anything JSON cannot hold as its text)."""
    return json.dumps(value, ensure_ascii=False, default=str)
