"""What each OpenAI-compatible vendor bends in the Chat Completions stream.

Dozens of vendors speak ``chat.completion.chunk``, and each bends it a little:
reasoning in ``reasoning_content`` (DeepSeek, Qwen, GLM, Moonshot, xAI, older
vLLM, LM Studio) or ``reasoning`` (vLLM, Groq, OpenRouter, Together, Ollama
``/v1``); OpenRouter's ``reasoning_details[]`` that repeat the ``reasoning``
text with signatures; Groq's per-chunk ``channel``; Mistral's ``content`` as a
list of ``thinking`` / ``text`` chunks; DeepSeek's usage on the finish chunk with
``prompt_cache_hit_tokens``; Qwen repeating ``"id": ""`` on tool-call
continuations; Azure's content-filter frames; errors inside a normal chunk
(OpenRouter) or as ``event: error`` (Groq).

The parser (:class:`~streamkit.providers.openai_chat.OpenAIChatParser`) handles
*every* one of these shapes whatever dialect it was given, because a proxy
(LiteLLM, OpenRouter, a gateway) can put any vendor behind any name. A dialect
therefore only tunes *defaults* where two readings are possible:

- ``reasoning_fields``: the order in which the reasoning string fields are read
  when a chunk carries several (vLLM sends ``reasoning`` and the deprecated
  ``reasoning_content`` with the same text; it is kept once);
- ``finish_reasons``: the vendor's own finish words mapped to a uniform
  :class:`~streamkit.finish.FinishReason`. Every dialect's words are
  also known to the default dialect (they never clash), so a vendor behind a
  generic proxy still maps correctly; a dialect only takes precedence for its
  own words.
- ``think_tags``: whether the vendor's server, as usually run, leaves a
  reasoning model's thinking inline in ``content`` as ``<think>...</think>``.
  The pipeline then splits it into thinking blocks unless the caller passes
  ``think_tags=False``; a server that separates the reasoning sends no tags, and
  the text passes through unchanged.

``quirks`` records, for people, what the vendor does differently; tests use it
to tie each quirk to the fixture that shows it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from ...finish import FinishReason

__all__ = [
    "DEFAULT",
    "DIALECTS",
    "OPENAI_FINISH_REASONS",
    "REASONING_FIELDS",
    "Dialect",
    "dialect_names",
    "get_dialect",
]

#: Every delta field known to carry reasoning text, in the default reading order.
REASONING_FIELDS: tuple[str, ...] = ("reasoning_content", "reasoning")

#: OpenAI's own finish reasons (``function_call`` is the legacy tool-call word).
OPENAI_FINISH_REASONS: Mapping[str, FinishReason] = MappingProxyType({
    "stop": FinishReason.STOP,
    "length": FinishReason.LENGTH,
    "tool_calls": FinishReason.TOOL_CALLS,
    "function_call": FinishReason.TOOL_CALLS,
    "content_filter": FinishReason.CONTENT_FILTER,
})


def _frozen(mapping: dict[str, FinishReason] | None = None) -> Mapping[str, FinishReason]:
    return MappingProxyType(dict(mapping or {}))


@dataclass(frozen=True)
class Dialect:
    """One vendor's deviations from OpenAI's Chat Completions stream."""

    name: str
    reasoning_fields: tuple[str, ...] = REASONING_FIELDS
    """Reasoning string fields in reading order (all known fields, reordered)."""
    finish_reasons: Mapping[str, FinishReason] = field(default_factory=_frozen)
    """Vendor finish words -> uniform reasons."""
    quirks: tuple[str, ...] = ()
    """What the vendor bends, in words (documentation; the parser handles all)."""
    aliases: tuple[str, ...] = ()
    think_tags: bool = False
    """Whether the server usually leaves reasoning inline as ``<think>`` tags
    (the pipeline's default for ``think_tags``)."""

    def finish_reason_map(self) -> dict[str, FinishReason]:
        """The complete word -> reason map this dialect parses with: OpenAI's
        words, then every dialect's words, then this dialect's own on top."""
        merged = dict(OPENAI_FINISH_REASONS)
        for other in _TABLE:
            merged.update(other.finish_reasons)
        merged.update(self.finish_reasons)
        return merged


_REASONING_FIRST = ("reasoning", "reasoning_content")

_TABLE: tuple[Dialect, ...] = (
    Dialect(
        "openai",
        quirks=(
            "include_usage chunk with choices: [] after the finish chunk",
            "gpt-5: obfuscation padding on every chunk, usage: null, then a moderation "
            "chunk after the usage chunk",
            "audio: delta.audio id/data/transcript, expires_at may follow the finish chunk",
        ),
    ),
    Dialect(
        "azure",
        quirks=(
            "content-filter frames whose object is '' (asynchronous filter)",
            "prompt_filter_results on the first frame; content_filter_results per choice",
        ),
    ),
    Dialect(
        "deepseek",
        finish_reasons=_frozen({"insufficient_system_resource": FinishReason.ERROR}),
        quirks=(
            "delta.reasoning_content, the other field explicitly null",
            "usage on the finish_reason chunk, not a separate chunk",
            "usage.prompt_cache_hit_tokens / prompt_cache_miss_tokens",
        ),
    ),
    Dialect(
        "qwen",
        aliases=("dashscope",),
        quirks=(
            "delta.reasoning_content",
            "tool-call continuation fragments repeat \"id\": \"\" and \"type\": \"function\"",
            "an extra empty-arguments fragment without finish_reason",
        ),
    ),
    Dialect(
        "glm",
        aliases=("zhipu",),
        finish_reasons=_frozen({"sensitive": FinishReason.CONTENT_FILTER,
                                "network_error": FinishReason.ERROR}),
        quirks=("delta.reasoning_content", "finish_reason 'sensitive' / 'network_error'"),
    ),
    Dialect(
        "moonshot",
        aliases=("kimi",),
        quirks=("delta.reasoning_content", "usage.cached_tokens at the top of usage"),
    ),
    Dialect(
        "openrouter",
        reasoning_fields=_REASONING_FIRST,
        finish_reasons=_frozen({"error": FinishReason.ERROR}),
        quirks=(
            "': OPENROUTER PROCESSING' SSE comments",
            "delta.reasoning duplicated in delta.reasoning_details[] (reasoning.text with "
            "signature, reasoning.summary, reasoning.encrypted), keyed by detail index",
            "native_finish_reason next to finish_reason; usage.cost and cost_details",
            "a mid-stream error as an 'error' key inside a normal chunk, finish_reason 'error'",
        ),
    ),
    Dialect(
        "groq",
        reasoning_fields=_REASONING_FIRST,
        quirks=(
            "delta.reasoning",
            "per-chunk delta.channel (not text to concatenate)",
            "x_groq envelope (request id; usage on the last chunk)",
            "errors as 'event: error'",
        ),
    ),
    Dialect(
        "mistral",
        finish_reasons=_frozen({"model_length": FinishReason.LENGTH, "error": FinishReason.ERROR}),
        quirks=(
            "delta.content as a list of {type: thinking, thinking: [{type: text}]} and "
            "{type: text} chunks",
            "finish_reason 'model_length'",
        ),
    ),
    Dialect(
        "vllm",
        reasoning_fields=_REASONING_FIRST,
        finish_reasons=_frozen({"abort": FinishReason.ERROR}),
        quirks=(
            "delta.reasoning, older versions delta.reasoning_content (some send both)",
            "reasoning inline as <think>...</think> in content unless the server runs with "
            "--reasoning-parser",
            "choices[].stop_reason (the matched stop string or token)",
            "errors as {object: 'error', message, type, code}",
        ),
        think_tags=True,
    ),
    Dialect(
        "lmstudio",
        quirks=(
            "delta.reasoning_content (newer builds: reasoning)",
            "reasoning inline as <think>...</think> in content unless the developer setting "
            "separates reasoning_content",
        ),
        think_tags=True,
    ),
    Dialect("together", reasoning_fields=_REASONING_FIRST, quirks=("delta.reasoning",)),
    Dialect("fireworks", quirks=("delta.reasoning_content",)),
    Dialect("xai", quirks=("delta.reasoning_content",)),
    Dialect(
        "cerebras",
        reasoning_fields=_REASONING_FIRST,
        quirks=(
            "message.reasoning (reasoning_format 'parsed', the GLM / GPT-OSS default); "
            "'raw' puts <think>...</think> in content instead",
            "time_info envelope (queue, prompt, completion times)",
            "refuses reasoning_content on input messages: earlier reasoning goes back "
            "inside the assistant content",
        ),
    ),
    Dialect(
        "crusoe",
        reasoning_fields=_REASONING_FIRST,
        quirks=(
            "a vLLM server: message.reasoning, choices[].stop_reason as a token id",
            "null vLLM envelope fields (token_ids, routed_experts, kv_transfer_params, "
            "prompt_logprobs)",
        ),
    ),
    Dialect(
        "ollama-openai",
        reasoning_fields=_REASONING_FIRST,
        quirks=(
            "Ollama's OpenAI-compatible /v1: message.reasoning carries the model's thinking",
            "system_fingerprint 'fp_ollama'",
        ),
    ),
    Dialect(
        "gemini-openai",
        quirks=(
            "Gemini's OpenAI-compatible endpoint: tool call id \"\" when the model gave none",
            "thought signatures in extra_content.google.thought_signature (on the message "
            "or on each tool call)",
        ),
    ),
)

#: Dialects by name and alias.
DIALECTS: Mapping[str, Dialect] = MappingProxyType({
    name: dialect for dialect in _TABLE for name in (dialect.name, *dialect.aliases)
})

DEFAULT: Dialect = DIALECTS["openai"]


def dialect_names() -> list[str]:
    """Every name (and alias) :func:`get_dialect` accepts."""
    return sorted(DIALECTS)


def get_dialect(name: str | Dialect | None) -> Dialect:
    """The dialect called ``name`` (``None`` is OpenAI's own); unknown names raise
    ``ValueError`` rather than silently parsing with the wrong defaults."""
    if name is None:
        return DEFAULT
    if isinstance(name, Dialect):
        return name
    try:
        return DIALECTS[name.lower()]
    except KeyError:
        raise ValueError(
            f"unknown OpenAI-compatible dialect {name!r}; known: {', '.join(dialect_names())}"
        ) from None
