"""What each OpenAI-compatible vendor bends in the Chat Completions wire, both
ways: one :class:`Dialect` record per dialect, keyed by the dialect's name.

Which vendor speaks which dialect, under which names and aliases, is the
vendor registry's (:mod:`streamkit.model.vendors`: ``zai`` and ``bigmodel`` both
speak ``glm``, ``dashscope`` is an alias of the vendor ``qwen``); this table
only says what a dialect does, for reading and for writing.

Reading. Dozens of vendors speak ``chat.completion.chunk``, and each bends it a
little: reasoning in ``reasoning_content`` (DeepSeek, Qwen, GLM, Moonshot, xAI,
older vLLM, LM Studio) or ``reasoning`` (vLLM, Groq, OpenRouter, Together,
Ollama ``/v1``); OpenRouter's ``reasoning_details[]`` that repeat the
``reasoning`` text with signatures; Groq's per-chunk ``channel``; Mistral's
``content`` as a list of ``thinking`` / ``text`` chunks; DeepSeek's usage on the
finish chunk with ``prompt_cache_hit_tokens``; Qwen repeating ``"id": ""`` on
tool-call continuations; Azure's content-filter frames; errors inside a normal
chunk (OpenRouter) or as ``event: error`` (Groq).

The parser (:class:`~streamkit.providers.openai_chat.OpenAIChatParser`) handles
*every* one of these shapes whatever dialect it was given, because a proxy
(LiteLLM, OpenRouter, a gateway) can put any vendor behind any name. A dialect
therefore only tunes *defaults* where two readings are possible:

- ``reasoning_fields``: the order in which the reasoning string fields are read
  when a chunk carries several (vLLM sends ``reasoning`` and the deprecated
  ``reasoning_content`` with the same text; it is kept once);
- ``finish_reasons``: the vendor's own finish words mapped to a uniform
  :class:`~streamkit.model.finish.FinishReason`. Every dialect's words are
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

Writing. Vendors agree on the Chat Completions messages and disagree on what
an assistant turn carries when it is sent back: where its reasoning goes,
which output-budget field the body uses, which call ids they accept. Each rule
is one field of the dialect's :class:`HistoryRules` (``history``); the request
builder reads the fields and has no branch per vendor. Every value is taken
from the vendor's own documentation or from the error its API returns, cited
in ``sources``.

``reasoning_echo`` says how a turn's reasoning goes back (:data:`ReasoningEcho`):

- ``"reasoning_content"`` / ``"reasoning"``: a string field of the assistant
  message, next to ``content``;
- ``"reasoning_details"``: OpenRouter's array, each detail with its signature
  or encrypted data, sent back unmodified;
- ``"think_tags"``: inside ``content`` as ``<think>...</think>`` before the
  answer (the vendor refuses a reasoning field);
- ``"thinking_chunks"``: Mistral's ``{"type": "thinking"}`` chunks in a
  ``content`` array;
- ``None``: the vendor documents no way to send reasoning back (OpenAI and
  Azure refuse any unknown message field), so its own reasoning is not sent.

The default rules (:data:`DEFAULT_RULES`, a dialect's unless it says otherwise)
are OpenAI's minus the output-budget field: no reasoning field (an unknown
field is refused by a strict server and at best ignored by a lenient one),
``max_tokens``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from ...model.finish import FinishReason
from .wire import FINISH_REASONS

__all__ = [
    "DEFAULT",
    "DEFAULT_RULES",
    "DIALECTS",
    "PLAIN_ECHOES",
    "REASONING_FIELDS",
    "Dialect",
    "HistoryRules",
    "ReasoningEcho",
    "dialect_names",
    "get_dialect",
]

#: Every delta field known to carry reasoning text, in the default reading order.
REASONING_FIELDS: tuple[str, ...] = ("reasoning_content", "reasoning")

ReasoningEcho = Literal["reasoning_content", "reasoning", "reasoning_details", "think_tags",
                        "thinking_chunks"]

#: The echoes that carry reasoning as plain text: the ones another provider's
#: visible reasoning may take (a ``reasoning_details`` entry without the
#: provider's signature would be refused by the model behind OpenRouter).
PLAIN_ECHOES: frozenset[str] = frozenset({"reasoning_content", "reasoning", "think_tags",
                                          "thinking_chunks"})


def _frozen(mapping: dict[str, FinishReason] | None = None) -> Mapping[str, FinishReason]:
    return MappingProxyType(dict(mapping or {}))


@dataclass(frozen=True)
class HistoryRules:
    """What one dialect wants in a request's history and options."""

    reasoning_echo: ReasoningEcho | None = None
    """How an assistant turn's reasoning goes back (see the module docstring)."""
    max_tokens_field: str = "max_tokens"
    """The body field the uniform ``max_tokens`` option is written to."""
    thinking_budget_field: str | None = None
    """The body field of a reasoning budget in tokens; ``None``: no such field."""
    tool_call_reasoning: str | None = None
    """When set, an assistant turn with tool calls but no reasoning gets this
    value in its reasoning field: the vendor refuses a tool-call turn without
    one while thinking is on."""
    tool_call_id_length: int | None = None
    """When set, call ids must be exactly this many letters and digits; other
    ids are replaced by one derived from them (the same on the call and its
    result)."""
    cache_markers: bool = False
    """Whether the vendor takes Anthropic's ``cache_control`` markers on messages,
    content parts and tools (:mod:`.cache`); a vendor that does not caches
    prefixes by itself or refuses the field."""
    sources: tuple[str, ...] = field(default=(), compare=False)
    """Where each rule comes from."""


DEFAULT_RULES = HistoryRules()


@dataclass(frozen=True)
class Dialect:
    """One dialect's deviations from OpenAI's Chat Completions, both ways."""

    name: str
    reasoning_fields: tuple[str, ...] = REASONING_FIELDS
    """Reading: reasoning string fields in reading order (all known fields, reordered)."""
    finish_reasons: Mapping[str, FinishReason] = field(default_factory=_frozen)
    """Reading: vendor finish words -> uniform reasons."""
    quirks: tuple[str, ...] = ()
    """What the vendor bends, in words (documentation; the parser handles all)."""
    think_tags: bool = False
    """Reading: whether the server usually leaves reasoning inline as
    ``<think>`` tags (the pipeline's default for ``think_tags``)."""
    history: HistoryRules = DEFAULT_RULES
    """Writing: what the vendor wants in a request's history and options."""

    def finish_reason_map(self) -> dict[str, FinishReason]:
        """The complete word -> reason map this dialect parses with: OpenAI's
        words, then every dialect's words, then this dialect's own on top."""
        merged = dict(FINISH_REASONS)
        for other in _TABLE:
            merged.update(other.finish_reasons)
        merged.update(self.finish_reasons)
        return merged


_OPENAI_STRICT = (
    "OpenAI refuses unknown message fields: \"Additional properties are not allowed ('id' was "
    "unexpected) - 'messages.0'\" (github.com/transitive-bullshit/agentic/issues/531, "
    "openai/openai-node#1161)",
    "max_tokens is deprecated in favor of max_completion_tokens and not compatible with o-series "
    "models (platform.openai.com/docs/api-reference/chat/create, quoted in simonw/llm#724)",
)
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
        history=HistoryRules(max_tokens_field="max_completion_tokens", sources=_OPENAI_STRICT),
    ),
    Dialect(
        "azure",
        quirks=(
            "content-filter frames whose object is '' (asynchronous filter)",
            "prompt_filter_results on the first frame; content_filter_results per choice",
        ),
        history=HistoryRules(max_tokens_field="max_completion_tokens", sources=_OPENAI_STRICT),
    ),
    Dialect(
        "deepseek",
        finish_reasons=_frozen({"insufficient_system_resource": FinishReason.ERROR}),
        quirks=(
            "delta.reasoning_content, the other field explicitly null",
            "usage on the finish_reason chunk, not a separate chunk",
            "usage.prompt_cache_hit_tokens / prompt_cache_miss_tokens",
        ),
        history=HistoryRules(
            reasoning_echo="reasoning_content", tool_call_reasoning="",
            sources=(
                "api-docs.deepseek.com/guides/thinking_mode: reasoning_content of a turn with "
                "tool calls must be passed back in all later requests, else 400; without tool "
                "calls it is ignored",
                "an empty reasoning_content satisfies the check on turns that had none "
                "(anomalyco/opencode#25058, PR #24150)",
            )),
    ),
    Dialect(
        "qwen",
        quirks=(
            "delta.reasoning_content",
            "tool-call continuation fragments repeat \"id\": \"\" and \"type\": \"function\"",
            "an extra empty-arguments fragment without finish_reason",
        ),
        history=HistoryRules(
            thinking_budget_field="thinking_budget",
            sources=("alibabacloud.com/help/en/model-studio/deep-thinking: enable_thinking and "
                     "thinking_budget are top-level body fields (extra_body in the SDK)",)),
    ),
    Dialect(
        "glm",
        finish_reasons=_frozen({"sensitive": FinishReason.CONTENT_FILTER,
                                "network_error": FinishReason.ERROR}),
        quirks=("delta.reasoning_content", "finish_reason 'sensitive' / 'network_error'"),
        history=HistoryRules(
            reasoning_echo="reasoning_content",
            sources=(
                "docs.z.ai/guides/capabilities/thinking-mode: interleaved thinking with tools "
                "needs the reasoning returned with the tool results; preserved thinking "
                "(thinking.clear_thinking: false) needs the complete, unmodified "
                "reasoning_content",
            )),
    ),
    Dialect(
        "moonshot",
        quirks=("delta.reasoning_content", "usage.cached_tokens at the top of usage"),
        history=HistoryRules(
            reasoning_echo="reasoning_content", tool_call_reasoning="",
            sources=(
                "platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model: keep "
                "reasoning_content in the context for multi-step tool use",
                "\"thinking is enabled but reasoning_content is missing in assistant tool call "
                "message\" (mastra-ai/mastra#12592, continuedev/continue#11600)",
            )),
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
        history=HistoryRules(
            reasoning_echo="reasoning_details",
            cache_markers=True,
            sources=(
                "openrouter.ai/docs/client-sdks/typescript/models/anthropiccachecontroldirective: "
                "cache_control on a content block marks an explicit cache breakpoint",
                "openrouter.ai/docs/guides/best-practices/reasoning-tokens#preserving-reasoning-"
                "blocks: pass reasoning_details back unmodified, signatures and encrypted data "
                "included",
            )),
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
        history=HistoryRules(
            reasoning_echo="thinking_chunks", tool_call_id_length=9,
            sources=(
                "Mistral ThinkChunk {type: thinking, thinking: [text chunks], closed} in "
                "assistant content (Mistral OpenAPI, mistral-openapi-client ThinkChunk; "
                "vercel/ai#17991)",
                "\"Tool call id was call_0fypS1hVX but must be a-z, A-Z, 0-9, with a length of "
                "9\" (karthink/gptel#1203, langchain-ai/langchain#24668)",
                "unknown fields are refused: \"Extra inputs are not permitted\" "
                "(partITech/php-mistral#76)",
            )),
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
        history=HistoryRules(
            reasoning_echo="reasoning",
            sources=(
                "docs.vllm.ai/en/latest/features/reasoning_outputs: the field is reasoning "
                "(formerly reasoning_content)",
            )),
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
        history=HistoryRules(
            reasoning_echo="think_tags",
            sources=(
                "inference-docs.cerebras.ai/capabilities/reasoning, Reasoning Context Retention: "
                "include the reasoning text in the content field of the assistant message; "
                "GLM's raw format wraps it in <think>...</think>",
                "\"messages.2.assistant.reasoning_content: property ... is unsupported\" "
                "(Kilo-Org/kilocode#10375)",
            )),
    ),
    Dialect(
        "crusoe",
        reasoning_fields=_REASONING_FIRST,
        quirks=(
            "a vLLM server: message.reasoning, choices[].stop_reason as a token id",
            "null vLLM envelope fields (token_ids, routed_experts, kv_transfer_params, "
            "prompt_logprobs)",
        ),
        history=HistoryRules(
            reasoning_echo="reasoning",
            sources=("a vLLM server (docs.vllm.ai reasoning_outputs); the recorded client sends "
                     "reasoning back (tests/fixtures/conversations/openai-compatible/"
                     "crusoe-reasoning-tool-call)",)),
    ),
    Dialect(
        "ollama-openai",
        reasoning_fields=_REASONING_FIRST,
        quirks=(
            "Ollama's OpenAI-compatible /v1: message.reasoning carries the model's thinking",
            "system_fingerprint 'fp_ollama'",
        ),
        history=HistoryRules(
            reasoning_echo="reasoning",
            sources=("ollama/ollama openai/openai.go: Message.Reasoning (json reasoning) becomes "
                     "the native message's Thinking",)),
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

#: Dialects by name (a vendor's names and aliases are the registry's).
DIALECTS: Mapping[str, Dialect] = MappingProxyType({dialect.name: dialect for dialect in _TABLE})

DEFAULT: Dialect = DIALECTS["openai"]


def dialect_names() -> list[str]:
    """Every name :func:`get_dialect` accepts."""
    return sorted(DIALECTS)


def get_dialect(name: str | Dialect | None) -> Dialect:
    """The dialect called ``name`` (a dialect's name, as the vendor registry's
    entries give it; ``None`` is OpenAI's own); unknown names raise
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
