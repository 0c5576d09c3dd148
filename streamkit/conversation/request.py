"""The request you send, as a model: what every wire format's request body stands for.

A :class:`Request` is a conversation (:mod:`streamkit.conversation.messages`), tools
(:mod:`streamkit.conversation.tools`), structured output (:class:`JsonSchemaOutput`), a tool
choice and options. :mod:`streamkit.providers.codec` writes one into any wire format's
body (:func:`streamkit.build_request`) and reads a body back into one
(:func:`streamkit.parse_request`); this module is only the model, which every
wire package's request codec imports.

Options have uniform names where every wire format has the concept
(:data:`UNIFORM_OPTIONS`); any other option is passed through untouched under
the wire's own name (``top_k``, ``frequency_penalty``, ``metadata``...).

Sending a turn to the API that wrote it keeps everything: Anthropic thinking
signatures and redacted thinking, Gemini ``thoughtSignature`` s, OpenAI
Responses reasoning items with ``encrypted_content``, DeepSeek / GLM
``reasoning_content``, OpenRouter ``reasoning_details``, server tool blocks.
Sending it to another API follows one policy: signatures, encrypted reasoning
and provider items the target cannot read are dropped (it would refuse them);
visible thinking is kept as text in ``<think>`` tags, or dropped with
``foreign_thinking="drop"``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from .messages import Message, check_items
from .tools import Tool

if TYPE_CHECKING:  # pydantic is imported where a model is used, not by `import streamkit`
    from pydantic import BaseModel

#: Options every wire format encodes under its own name.
UNIFORM_OPTIONS = (
    "temperature",  # float
    "top_p",  # float
    "max_tokens",  # int: the output budget
    "stop",  # list[str]
    "seed",  # int
    "reasoning_effort",  # "minimal" | "low" | "medium" | "high" ...
    "thinking_budget",  # int tokens of reasoning (Anthropic, Gemini)
    "include_thoughts",  # bool: reasoning summaries in the answer (Gemini, Responses)
    "include_usage",  # bool: usage in the stream (OpenAI Chat stream_options)
    "audio",  # {"voice": ..., "format": ...}: spoken output (OpenAI Chat)
    "parallel_tool_calls",  # bool
    "foreign_thinking",  # "text" | "drop": thinking from another provider's turn
    "api_version",  # str: the API version the request is for (Anthropic's anthropic-version)
    "prompt_cache_key",  # str: OpenAI's routing hint for its prompt cache (see docs/caching.md)
    "prompt_cache_retention",  # "in_memory" | "24h": how long OpenAI keeps a cached prefix
)

#: What each uniform option holds (the comments above), as the word a reader of
#: a body checks it by (:func:`streamkit.providers.coerce.check_uniform_options`):
#: a body whose field for one holds anything else is refused where it is read,
#: so no builder, of that wire or another, is handed a value it cannot write.
UNIFORM_OPTION_KINDS: dict[str, str] = {
    "temperature": "number", "top_p": "number", "max_tokens": "integer", "stop": "strings",
    "seed": "integer", "reasoning_effort": "effort", "thinking_budget": "integer",
    "include_thoughts": "boolean", "include_usage": "boolean", "audio": "object",
    "parallel_tool_calls": "boolean", "foreign_thinking": "policy", "api_version": "string",
    "prompt_cache_key": "string", "prompt_cache_retention": "string",
}

#: The ``reasoning_effort`` words: every wire's own (OpenAI's, the widest list,
#: holds Anthropic's, Gemini's thinking levels and Ollama's think levels). A
#: body's word outside it is refused, or kept as the wire's own field where
#: the wire has words of its own (Gemini's upper-case levels).
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")

ForeignThinking = Literal["text", "drop"]
ToolChoice = Literal["auto", "required", "none"] | str
"""``auto`` / ``required`` / ``none``, or the name of the one tool to call."""


@dataclass
class JsonSchemaOutput:
    """Structured output: the model answers with JSON valid against ``schema``."""

    name: str
    schema: dict[str, Any]
    strict: bool | None = None
    description: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_model(cls, model: type[BaseModel], *, strict: bool | None = True) -> JsonSchemaOutput:
        """The schema of a pydantic model (OpenAI's strict rules applied when ``strict``)."""
        from .tools import strict_schema

        schema = model.model_json_schema()
        return cls(name=model.__name__, schema=strict_schema(schema) if strict else schema,
                   strict=strict, description=model.__doc__)


JsonOutput: TypeAlias = "bool | JsonSchemaOutput | type[BaseModel] | dict[str, Any]"


@dataclass
class Request:
    """A provider-independent request: what :func:`parse_request` reads and
    :func:`build_request` writes.

    ``tools`` holds :class:`~streamkit.conversation.tools.Tool` s and, as plain dicts, the
    wire format's own tool entries (server tools such as web search), sent as
    they are. ``stream`` is ``None`` where the body does not say (Gemini: the
    URL does). ``options`` holds the :data:`UNIFORM_OPTIONS` and, under their
    wire names, every other field of the body.
    """

    messages: list[Message]
    model: str | None = None
    tools: list[Tool | dict[str, Any]] | None = None
    tool_choice: ToolChoice | None = None
    json_output: bool | JsonSchemaOutput | None = None
    stream: bool | None = None
    options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_items(self.messages, Message, "messages", "a message")

