"""Media a tool returned that a wire has no place for in a tool result (audio
on Anthropic, Responses and Ollama, a file by URL on OpenAI Chat, an image by
URL on Ollama, an image by a URL naming no media type on Gemini) is left out
with a LossyTranslationWarning and a note in its place, and the body stays
valid for the wire's SDK: the tool loop goes on. The same block in the user's
own message is still refused."""

from __future__ import annotations

import json

import pytest
from support.request_oracles import sdk_valid

import streamkit
from streamkit import (
    ChatResponse,
    DataBlock,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    TextBlock,
    ToolCallBlock,
    UserMessage,
)
from streamkit.conversation.messages import Message
from streamkit.model.data_sources import Base64Source, URLSource

WAV = DataBlock(source=Base64Source(b"RIFF0000WAVE", "audio/wav"))
CASES = {
    "anthropic": ("anthropic", WAV),
    "openai-responses": ("openai-responses", WAV),
    "ollama": ("ollama", DataBlock(source=URLSource("https://example.com/chart.png", "image/png"))),
    "openai-chat": ("openai", DataBlock(source=URLSource("https://example.com/r.pdf",
                                                         "application/pdf"))),
    "gemini": ("gemini", DataBlock(source=URLSource("https://example.com/chart", "image/*"))),
}


@pytest.mark.parametrize("wire", sorted(CASES))
def test_media_a_wire_cannot_take_in_a_tool_result_is_left_out_with_a_warning(wire: str) -> None:
    provider, block = CASES[wire]
    result = FunctionExecutionResult("call_1", [TextBlock("Here:"), block], name="fetch")
    call = ToolCallBlock("call_1", "fetch", "{}")
    messages: list[Message] = [UserMessage("go"), ChatResponse(content=[call]),
                               FunctionExecutionResultMessage([result])]
    with pytest.warns(streamkit.LossyTranslationWarning, match="in a tool result"):
        body = streamkit.build_request(provider, messages, model="m", max_tokens=10)
    assert f"{block.media_type} content left out" in json.dumps(body)
    sdk_valid(wire, body)
    with pytest.raises(streamkit.UnsupportedFeatureError):
        streamkit.build_request(provider, [UserMessage([block])], model="m", max_tokens=10)
