"""Chat Completions request bodies as each vendor's docs write them (OpenAI,
DeepSeek, OpenRouter, Mistral, Qwen, vLLM...), each with the dialect it is in:
what the recordings do not cover, read and rebuilt exactly by
``providers/openai_chat/test_request.py`` and ``test_provenance.py``."""

from __future__ import annotations

from typing import Any

DOCUMENTED_BODIES: list[tuple[str | None, dict[str, Any]]] = [
    # OpenAI: developer role (o-series), every user part, legacy max_tokens, audio output
    (None, {
        "model": "o3-mini", "max_tokens": 50, "reasoning_effort": "low", "seed": 7,
        "stop": ["\n\n"], "temperature": 0.2, "top_p": 0.9, "n": 1, "store": False,
        "metadata": {"run": "x"}, "user": "u-1", "logprobs": True, "top_logprobs": 2,
        "messages": [
            {"role": "developer", "content": "Be brief."},
            {"role": "system", "content": [{"type": "text", "text": "Answer in French."}],
             "name": "policy"},
            {"role": "user", "name": "ana", "content": [
                {"type": "text", "text": "Compare."},
                {"type": "image_url", "image_url": {"url": "https://example.com/a.png",
                                                    "detail": "low"}},
                {"type": "image_url", "image_url": {
                    "url": "data:image/png;base64,iVBORw0KGgo="}},
                {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
                {"type": "input_audio", "input_audio": {"data": "SUQz", "format": "mp3"}},
                {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBERi0=",
                                          "filename": "a.pdf"}},
                {"type": "file", "file": {"file_id": "file-abc123"}},
            ]},
        ],
    }),
    (None, {
        "model": "gpt-4o-audio-preview", "modalities": ["text", "audio"],
        "audio": {"voice": "alloy", "format": "wav"}, "stream": True,
        "stream_options": {"include_usage": True},
        "messages": [
            {"role": "user", "content": "Is a golden retriever a good family dog?"},
            {"role": "assistant", "audio": {"id": "audio_abc123"}},
            {"role": "user", "content": "Why do you say they are loyal?"},
        ],
    }),
    # tool loop: parallel calls, a refusal, text parts in a tool message, named choice,
    # strict structured output, parallel_tool_calls
    (None, {
        "model": "gpt-4.1", "max_completion_tokens": 300, "parallel_tool_calls": True,
        "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
        "response_format": {"type": "json_schema", "json_schema": {
            "name": "Answer", "strict": True, "description": "the answer",
            "schema": {"type": "object", "properties": {"a": {"type": "string"}},
                       "required": ["a"], "additionalProperties": False}}},
        "tools": [{"type": "function", "function": {
            "name": "get_weather", "description": "Weather in a city.", "strict": True,
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                           "required": ["city"], "additionalProperties": False}}}],
        "messages": [
            {"role": "user", "content": "Weather in Paris and Rome?"},
            {"role": "assistant", "content": None, "refusal": None, "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
                {"id": "call_2", "type": "function",
                 "function": {"name": "get_weather", "arguments": "{\"city\":\"Rome\"}"}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "18C"},
            {"role": "tool", "tool_call_id": "call_2",
             "content": [{"type": "text", "text": "21C"}]},
            {"role": "assistant", "content": None, "refusal": "I can't share that."},
            {"role": "assistant", "content": [{"type": "text", "text": "Sunny."},
                                              {"type": "refusal", "refusal": "No more."}]},
        ],
    }),
    # legacy function calling
    (None, {
        "model": "gpt-3.5-turbo", "functions": [{"name": "f", "parameters": {}}],
        "function_call": "auto", "response_format": {"type": "json_object"},
        "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": None,
             "function_call": {"name": "f", "arguments": "{}"}},
            {"role": "function", "name": "f", "content": "done"},
        ],
    }),
    # DeepSeek thinking-mode tool loop: reasoning_content on the tool-call turn
    ("deepseek", {
        "model": "deepseek-v4-pro", "max_tokens": 1000, "thinking": {"type": "enabled"},
        "reasoning_effort": "high",
        "messages": [
            {"role": "user", "content": "Weather tomorrow?"},
            {"role": "assistant", "content": "", "reasoning_content": "Need the date first.",
             "tool_calls": [{"id": "call_00", "type": "function",
                             "function": {"name": "get_date", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "call_00", "content": "2025-12-01"},
        ],
    }),
    # OpenRouter: reasoning_details (text + signature, summary + encrypted) sent back unmodified
    ("openrouter", {
        "model": "anthropic/claude-sonnet-4.5", "reasoning": {"max_tokens": 2000},
        "messages": [
            {"role": "user", "content": "2+2?"},
            {"role": "assistant", "content": "4", "reasoning_details": [
                {"type": "reasoning.text", "text": "Simple sum.", "signature": "EqQBCkgI",
                 "format": "anthropic-claude-v1", "index": 0}]},
            {"role": "user", "content": "And 3+3?"},
            {"role": "assistant", "content": "6", "reasoning_details": [
                {"type": "reasoning.summary", "summary": "Add.", "id": "rs_1",
                 "format": "openai-responses-v1", "index": 0},
                {"type": "reasoning.encrypted", "data": "gAAAAENC0", "id": "rs_1",
                 "format": "openai-responses-v1", "index": 0},
                {"type": "reasoning.encrypted", "data": "gAAAAENC1", "id": "rs_2",
                 "format": "openai-responses-v1", "index": 1}]},
            {"role": "user", "content": "Thanks"},
        ],
    }),
    # Mistral: thinking chunk, prefix continuation, 9-letter call ids
    ("mistral", {
        "model": "magistral-medium-latest", "max_tokens": 64,
        "messages": [
            {"role": "user", "content": "17*19?"},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": [{"type": "text", "text": "18^2-1"}]},
                {"type": "text", "text": "323"}]},
            {"role": "user", "content": "Weather?"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "D681PevKs", "type": "function",
                 "function": {"name": "w", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "D681PevKs", "name": "w", "content": "sun"},
            {"role": "assistant", "content": "It is", "prefix": True},
        ],
    }),
    # Qwen: thinking budget; vLLM: reasoning and its deprecated twin, template kwargs
    ("qwen", {"model": "qwen-plus", "enable_thinking": True, "thinking_budget": 50,
              "stream": True, "stream_options": {"include_usage": True},
              "messages": [{"role": "user", "content": "hi"}]}),
    ("vllm", {"model": "Qwen/Qwen3-8B", "chat_template_kwargs": {"enable_thinking": True},
              "messages": [{"role": "user", "content": "hi"},
                           {"role": "assistant", "content": "Hello.", "reasoning": "Greet.",
                            "reasoning_content": "Greet."},
                           {"role": "user", "content": "bye"}]}),
    # unknown fields everywhere stay where they were
    ("vllm", {"model": "m", "x_top": {"a": 1}, "stream": False,
              "stream_options": {"include_usage": False},
              "messages": [
                  {"role": "user", "content": [{"type": "text", "text": "hi", "x_part": 1},
                                               {"type": "video_url", "video_url": {"url": "v"}}],
                   "x_message": True},
                  {"role": "assistant", "content": "ok", "x_a": 2, "tool_calls": [
                      {"id": "c", "type": "function", "x_call": 3,
                       "function": {"name": "f", "arguments": "{}", "x_fn": 4}}]},
                  {"role": "tool", "tool_call_id": "c", "content": "r", "x_tool": 5},
                  {"role": "critic", "content": "a role the wire does not know"},
              ]}),
]
