"""The OpenAI Chat Completions request oracle: a body checked with the official
``openai`` SDK's request types, OpenAI's and every OpenAI-compatible dialect's.

``pydantic.TypeAdapter`` over
``openai.types.chat.completion_create_params.CompletionCreateParams`` (the
streaming and non-streaming TypedDicts), every lazy ``Iterable`` consumed.
TypedDicts drop keys they do not declare instead of failing, so the validated
value is compared with the body key by key: a key the SDK does not know is a
failure unless it is one of the vendor's documented fields, named per dialect
in :data:`VENDOR_FIELDS` (DeepSeek / GLM ``reasoning_content``, vLLM / Ollama
``reasoning``, OpenRouter ``reasoning_details``, Mistral ``prefix``...). The
one thing the SDK types cannot express at all is Mistral's ``thinking`` content
chunk (its assistant content union is text | refusal): those chunks are
checked against Mistral's published ThinkChunk shape instead, by hand.
"""

from __future__ import annotations

import copy
from typing import Any

from openai.types.chat.completion_create_params import CompletionCreateParams
from pydantic import TypeAdapter

from support.request_oracles.typed_dicts import materialize, unknown_keys

_PARAMS: TypeAdapter[Any] = TypeAdapter(CompletionCreateParams)

#: Body fields each vendor documents beyond OpenAI's (paths with list indexes as ``[]``).
VENDOR_FIELDS: dict[str | None, frozenset[str]] = {
    None: frozenset(),
    "deepseek": frozenset({"messages[].reasoning_content", "thinking"}),
    "glm": frozenset({"messages[].reasoning_content", "thinking"}),
    "moonshot": frozenset({"messages[].reasoning_content", "thinking"}),
    # vLLM: reasoning, and reasoning_content still read during its rename (docs.vllm.ai)
    "vllm": frozenset({"messages[].reasoning", "messages[].reasoning_content",
                       "chat_template_kwargs"}),
    "crusoe": frozenset({"messages[].reasoning"}),
    "ollama-openai": frozenset({"messages[].reasoning"}),
    # and Anthropic's cache_control on a message, a content part or a tool (openrouter.ai/docs:
    # AnthropicCacheControlDirective, "set on an individual content block")
    "openrouter": frozenset({"messages[].reasoning_details", "reasoning", "provider",
                             "messages[].cache_control", "messages[].content[].cache_control",
                             "tools[].cache_control"}),
    # Mistral's AssistantMessage.prefix, ToolMessage.name, ToolCall.index (its OpenAPI)
    "mistral": frozenset({"messages[].prefix", "messages[].name",
                          "messages[].tool_calls[].index"}),
    "qwen": frozenset({"enable_thinking", "thinking_budget"}),
    "cerebras": frozenset(),
    "gemini-openai": frozenset({"messages[].tool_calls[].extra_content"}),
}
# Mistral ThinkChunk (Mistral OpenAPI: type "thinking", thinking: list of text chunks, closed?).
_THINK_CHUNK_KEYS = {"type", "thinking", "closed"}


def _as_mistral_documents(body: dict[str, Any]) -> dict[str, Any]:
    """A Mistral body in the SDK's terms: its thinking chunks checked by hand
    and taken out (see the module docstring), and each tool's ``type``, which
    Mistral's Tool schema defaults to ``"function"`` (the recorded Mistral
    client leaves it out), written in."""
    out = copy.deepcopy(body)
    for entry in out.get("tools", []):
        entry.setdefault("type", "function")
    for message in out["messages"]:
        content = message.get("content")
        if message.get("role") == "assistant" and isinstance(content, list):
            chunks = [part for part in content if part.get("type") == "thinking"]
            for chunk in chunks:
                assert set(chunk) <= _THINK_CHUNK_KEYS, chunk
                assert all(item.keys() == {"type", "text"} and item["type"] == "text"
                           for item in chunk["thinking"]), chunk
            message["content"] = [part for part in content if part not in chunks]
    return out


def check(body: dict[str, Any], dialect: str | None = None) -> None:
    """``body`` is a request the official SDK's types accept, key for key,
    but for the vendor's documented fields."""
    checked = _as_mistral_documents(body) if dialect == "mistral" else body
    validated = materialize(_PARAMS.validate_python(checked))
    # paths as VENDOR_FIELDS names them: no "$." and list items as "[]"
    found = unknown_keys(checked, validated, numbered=False)
    unknown = {path.removeprefix("$.") for path in found}
    allowed = VENDOR_FIELDS.get(dialect, frozenset())
    assert unknown <= allowed, sorted(unknown - allowed)
