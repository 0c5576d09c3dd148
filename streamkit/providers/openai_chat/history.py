"""What each OpenAI-compatible vendor wants back in a conversation's history, as data.

Vendors agree on the Chat Completions messages and disagree on what an
assistant turn carries when it is sent back: where its reasoning goes, which
output-budget field the body uses, which call ids they accept. Each rule below
is one field of :class:`HistoryRules`, looked up by dialect name
(:func:`history_rules`); the request builder reads the fields and has no
branch per vendor. Every value is taken from the vendor's own documentation or
from the error its API returns, cited in ``sources``.

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

The default rules (:data:`DEFAULT_RULES`) are OpenAI's minus the output-budget
field: no reasoning field (an unknown field is refused by a strict server and
at best ignored by a lenient one), ``max_tokens``.
"""

from __future__ import annotations

import hashlib
import re
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import Literal

from .. import wire_of
from .dialects import DIALECTS, Dialect

__all__ = [
    "DEFAULT_RULES",
    "PLAIN_ECHOES",
    "RULES",
    "BuildContext",
    "HistoryRules",
    "ReasoningEcho",
    "Source",
    "history_rules",
    "source_of",
]

ReasoningEcho = Literal["reasoning_content", "reasoning", "reasoning_details", "think_tags",
                        "thinking_chunks"]

#: The echoes that carry reasoning as plain text: the ones another provider's
#: visible reasoning may take (a ``reasoning_details`` entry without the
#: provider's signature would be refused by the model behind OpenRouter).
PLAIN_ECHOES: frozenset[str] = frozenset({"reasoning_content", "reasoning", "think_tags",
                                          "thinking_chunks"})


@dataclass(frozen=True)
class HistoryRules:
    """What one vendor wants in a request's history and options."""

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
    sources: tuple[str, ...] = field(default=(), compare=False)
    """Where each rule comes from."""


DEFAULT_RULES = HistoryRules()

_OPENAI_STRICT = (
    "OpenAI refuses unknown message fields: \"Additional properties are not allowed ('id' was "
    "unexpected) - 'messages.0'\" (github.com/transitive-bullshit/agentic/issues/531, "
    "openai/openai-node#1161)",
    "max_tokens is deprecated in favor of max_completion_tokens and not compatible with o-series "
    "models (platform.openai.com/docs/api-reference/chat/create, quoted in simonw/llm#724)",
)

RULES: Mapping[str, HistoryRules] = MappingProxyType({
    "openai": HistoryRules(max_tokens_field="max_completion_tokens", sources=_OPENAI_STRICT),
    "azure": HistoryRules(max_tokens_field="max_completion_tokens", sources=_OPENAI_STRICT),
    "deepseek": HistoryRules(
        reasoning_echo="reasoning_content", tool_call_reasoning="",
        sources=(
            "api-docs.deepseek.com/guides/thinking_mode: reasoning_content of a turn with tool "
            "calls must be passed back in all later requests, else 400; without tool calls it "
            "is ignored",
            "an empty reasoning_content satisfies the check on turns that had none "
            "(anomalyco/opencode#25058, PR #24150)",
        )),
    "glm": HistoryRules(
        reasoning_echo="reasoning_content",
        sources=(
            "docs.z.ai/guides/capabilities/thinking-mode: interleaved thinking with tools needs "
            "the reasoning returned with the tool results; preserved thinking "
            "(thinking.clear_thinking: false) needs the complete, unmodified reasoning_content",
        )),
    "moonshot": HistoryRules(
        reasoning_echo="reasoning_content", tool_call_reasoning="",
        sources=(
            "platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model: keep reasoning_content "
            "in the context for multi-step tool use",
            "\"thinking is enabled but reasoning_content is missing in assistant tool call "
            "message\" (mastra-ai/mastra#12592, continuedev/continue#11600)",
        )),
    "openrouter": HistoryRules(
        reasoning_echo="reasoning_details",
        sources=(
            "openrouter.ai/docs/guides/best-practices/reasoning-tokens#preserving-reasoning-"
            "blocks: pass reasoning_details back unmodified, signatures and encrypted data "
            "included",
        )),
    "mistral": HistoryRules(
        reasoning_echo="thinking_chunks", tool_call_id_length=9,
        sources=(
            "Mistral ThinkChunk {type: thinking, thinking: [text chunks], closed} in assistant "
            "content (Mistral OpenAPI, mistral-openapi-client ThinkChunk; vercel/ai#17991)",
            "\"Tool call id was call_0fypS1hVX but must be a-z, A-Z, 0-9, with a length of 9\" "
            "(karthink/gptel#1203, langchain-ai/langchain#24668)",
            "unknown fields are refused: \"Extra inputs are not permitted\" "
            "(partITech/php-mistral#76)",
        )),
    "vllm": HistoryRules(
        reasoning_echo="reasoning",
        sources=(
            "docs.vllm.ai/en/latest/features/reasoning_outputs: the field is reasoning "
            "(formerly reasoning_content)",
        )),
    "crusoe": HistoryRules(
        reasoning_echo="reasoning",
        sources=("a vLLM server (docs.vllm.ai reasoning_outputs); the recorded client sends "
                 "reasoning back (tests/fixtures/conversations/openai-compatible/"
                 "crusoe-reasoning-tool-call)",)),
    "ollama-openai": HistoryRules(
        reasoning_echo="reasoning",
        sources=("ollama/ollama openai/openai.go: Message.Reasoning (json reasoning) becomes "
                 "the native message's Thinking",)),
    "cerebras": HistoryRules(
        reasoning_echo="think_tags",
        sources=(
            "inference-docs.cerebras.ai/capabilities/reasoning, Reasoning Context Retention: "
            "include the reasoning text in the content field of the assistant message; GLM's "
            "raw format wraps it in <think>...</think>",
            "\"messages.2.assistant.reasoning_content: property ... is unsupported\" "
            "(Kilo-Org/kilocode#10375)",
        )),
    "qwen": HistoryRules(
        thinking_budget_field="thinking_budget",
        sources=("alibabacloud.com/help/en/model-studio/deep-thinking: enable_thinking and "
                 "thinking_budget are top-level body fields (extra_body in the SDK)",)),
})


def history_rules(dialect: Dialect) -> HistoryRules:
    """The rules of ``dialect`` (:data:`DEFAULT_RULES` for a vendor without any)."""
    return RULES.get(dialect.name, DEFAULT_RULES)


class Source(Enum):
    """Who wrote an assistant turn, seen from the dialect it is sent to."""

    NATIVE = "this vendor (or nobody said): everything goes back"
    SIBLING = "another vendor of this wire format: text, calls, plain reasoning"
    FOREIGN = "another wire format: text, calls, reasoning as text or dropped"


def source_of(provider: str | None, target: Dialect) -> Source:
    """Whether a turn written by ``provider`` is ``target``'s own, another
    OpenAI-compatible vendor's, or another wire format's. A turn without a
    provider (built by hand) counts as the target's own; a name no registry or
    dialect knows counts as foreign (its signatures are dropped)."""
    if provider is None:
        return Source.NATIVE
    try:
        package, dialect = wire_of(provider)
    except ValueError:
        known = DIALECTS.get(provider.lower())
        if known is None:
            return Source.FOREIGN
        package, dialect = "openai_chat", known.name
    if package != "openai_chat":
        return Source.FOREIGN
    name = DIALECTS[dialect.lower()].name if dialect is not None else "openai"
    return Source.NATIVE if name == target.name else Source.SIBLING


_ID_ALPHABET = string.ascii_letters + string.digits


@dataclass
class BuildContext:
    """What building one request's messages needs: the target's rules and what
    earlier messages said about later ones (legacy ``function_call`` ids)."""

    dialect: Dialect
    rules: HistoryRules
    foreign_thinking: str = "text"
    legacy_calls: dict[str, str] = field(default_factory=dict)
    """Ids of calls sent as the legacy ``function_call``, and their names."""
    details_written: int = 0
    """OpenRouter reasoning details written so far (each turn's count from 0)."""

    def call_id(self, value: str) -> str:
        """``value`` as the target accepts call ids: unchanged, or (a vendor
        with a fixed id form) a stable id derived from it, the same every time."""
        length = self.rules.tool_call_id_length
        if length is None or re.fullmatch(f"[A-Za-z0-9]{{{length}}}", value):
            return value
        number = int.from_bytes(hashlib.sha256(value.encode()).digest(), "big")
        letters = []
        for _ in range(length):
            number, digit = divmod(number, len(_ID_ALPHABET))
            letters.append(_ID_ALPHABET[digit])
        return "".join(letters)
