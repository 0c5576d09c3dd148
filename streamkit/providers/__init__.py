"""Provider stream parsers and the registry that maps names to them.

Each provider module is the only place that knows its wire field names; all of
them end at the uniform :mod:`streamkit.events` vocabulary. ``get_parser(name)``
builds a fresh parser; ``"auto"`` picks one from the first payload
(:mod:`streamkit.providers.detect`). OpenAI-compatible vendors (DeepSeek, Qwen,
GLM, Moonshot, OpenRouter, Groq, Mistral, vLLM...) are names for the OpenAI
Chat parser with that vendor's dialect.
"""

from __future__ import annotations

import importlib
from typing import Any

from .base import Framing, Parser, decode_json

# name -> (wire package or module, class, fixed keyword options)
_REGISTRY: dict[str, tuple[str, str, dict[str, Any]]] = {
    "openai": ("openai_chat", "OpenAIChatParser", {}),
    "openai-chat": ("openai_chat", "OpenAIChatParser", {}),
    "openai-responses": ("openai_responses", "OpenAIResponsesParser", {}),
    "anthropic": ("anthropic", "AnthropicParser", {}),
    "gemini": ("gemini", "GeminiParser", {}),
    "ollama": ("ollama", "OllamaParser", {}),
    "auto": ("detect", "AutoParser", {}),
}
OPENAI_COMPATIBLE = (
    "deepseek", "qwen", "dashscope", "glm", "zhipu", "moonshot", "kimi", "openrouter",
    "groq", "mistral", "vllm", "lmstudio", "together", "fireworks", "azure", "xai",
    "cerebras", "crusoe", "ollama-openai", "gemini-openai",
)
for _vendor in OPENAI_COMPATIBLE:
    _REGISTRY[_vendor] = ("openai_chat", "OpenAIChatParser", {"dialect": _vendor})


def wire_of(name: str) -> tuple[str, str | None]:
    """The wire format's package under ``streamkit.providers`` for a registry
    name, and the vendor dialect (``None`` for a wire format's own API)."""
    if name.lower() == "auto":
        raise ValueError("name the provider: requests cannot be auto-detected")
    package, _, fixed = _entry(name)
    dialect = fixed.get("dialect")
    return package, dialect if isinstance(dialect, str) else None


def provider_names() -> list[str]:
    """Every name :func:`get_parser` accepts."""
    return sorted(_REGISTRY)


def _entry(name: str) -> tuple[str, str, dict[str, Any]]:
    try:
        return _REGISTRY[name.lower()]
    except KeyError:
        raise ValueError(
            f"unknown provider {name!r}; known: {', '.join(provider_names())}"
        ) from None


def parser_class(name: str) -> type[Parser]:
    """The parser class registered under ``name``."""
    module_name, class_name, _ = _entry(name)
    module = importlib.import_module(f"{__name__}.{module_name}")
    cls: type[Parser] = getattr(module, class_name)
    return cls


def get_parser(name: str = "auto", **options: Any) -> Parser:
    """A fresh parser for ``name`` (see :func:`provider_names`); ``options``
    go to the parser (e.g. ``audio_media_type`` for OpenAI audio)."""
    fixed = _entry(name)[2]
    parser: Parser = parser_class(name)(**{**fixed, **options})
    return parser


__all__ = [
    "OPENAI_COMPATIBLE",
    "Framing",
    "Parser",
    "decode_json",
    "get_parser",
    "parser_class",
    "provider_names",
    "wire_of",
]
