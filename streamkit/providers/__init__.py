"""The wire formats, and the stream parsers the vendor registry names.

Each wire format is one package here with the same verbs in the same files
(:mod:`.wire_format`); each is the only place that knows its field names, and
all of them end at the uniform :mod:`streamkit.model.events` vocabulary and
:class:`~streamkit.Request` model. Which wire a vendor speaks, with which
dialect, is one record in the vendor registry (:mod:`streamkit.model.vendors`):
every name and alias there is a name here, with the same meaning.

``get_parser(name)`` builds a fresh stream parser for a vendor; ``"auto"``
picks one from the first payload (:mod:`.detect`).
"""

from __future__ import annotations

import inspect
from typing import Any

from ..model.vendors import ALIASES, PROVIDERS, vendor, wire_of
from .base import Framing, Parser, decode_json
from .wire_format import WIRE_NAMES, WireFormat, wire_format

#: Every vendor whose wire is OpenAI Chat with a dialect of its own (DeepSeek,
#: Qwen, GLM...), by registry name.
OPENAI_COMPATIBLE: tuple[str, ...] = tuple(
    entry.name for entry in PROVIDERS.values()
    if entry.wire == "openai-chat" and entry.dialect is not None)


def provider_names() -> list[str]:
    """Every name :func:`get_parser` accepts: the registry's names and aliases, and ``auto``."""
    return sorted({*PROVIDERS, *ALIASES, "auto"})


def parser_class(name: str) -> type[Parser]:
    """The parser class that reads ``name``'s streams."""
    if name.lower() == "auto":
        from .detect import AutoParser

        return AutoParser
    cls: type[Parser] = wire_format(vendor(name).wire).parser  # type: ignore[assignment]
    return cls


def _named_parser(name: str, options: dict[str, Any]) -> Parser:
    """The parser for ``name`` with those ``options`` it accepts (an audio media
    type means nothing to Anthropic's parser, for instance): what the auto
    parser builds once it knows the provider."""
    accepted = inspect.signature(parser_class(name)).parameters
    return get_parser(name, **{k: v for k, v in options.items() if k in accepted})


def get_parser(name: str = "auto", **options: Any) -> Parser:
    """A fresh stream parser for the vendor ``name`` (see :func:`provider_names`):
    it reports the vendor's registry name as the responses' provider and reads
    with its dialect. ``options`` go to the parser (``audio_media_type`` for
    OpenAI audio, ``fast_decode``...)."""
    if name.lower() == "auto":
        from .detect import AutoParser

        return AutoParser(_named_parser, **options)
    entry = vendor(name)
    wire = wire_format(entry.wire)
    if wire.dialects:
        options.setdefault("dialect", entry.dialect)
    parser: Parser = wire.parser(provider=entry.name, **options)
    return parser


__all__ = [
    "OPENAI_COMPATIBLE",
    "WIRE_NAMES",
    "Framing",
    "Parser",
    "WireFormat",
    "decode_json",
    "get_parser",
    "parser_class",
    "provider_names",
    "vendor",
    "wire_format",
    "wire_of",
]
