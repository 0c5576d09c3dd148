"""The recorded exchanges of ``tests/fixtures/conversations``: turn 1's request
and response, turn 2's request, one folder each, by wire."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import Any, NamedTuple

from support.recordings import FIXTURES

CONVERSATIONS = FIXTURES / "conversations"


class Conversation(NamedTuple):
    """One recorded exchange: turn 1's request and response, turn 2's request."""

    path: Path
    turn1_request: dict[str, Any]
    turn1_response: bytes  # JSON, or the SSE body when ``streamed``
    streamed: bool
    turn2_request: dict[str, Any]

    @property
    def name(self) -> str:
        return f"{self.path.parent.name}/{self.path.name}"


def conversations(wire: str) -> list[Conversation]:
    """Every exchange recorded for ``wire`` (a folder of ``tests/fixtures/conversations``)."""
    out = []
    for folder in sorted((CONVERSATIONS / wire).iterdir()):
        streamed = (folder / "turn1.response.sse").exists()
        response = folder / ("turn1.response.sse" if streamed else "turn1.response.json")
        out.append(Conversation(
            folder,
            json.loads((folder / "turn1.request.json").read_bytes()),
            response.read_bytes(),
            streamed,
            json.loads((folder / "turn2.request.json").read_bytes()),
        ))
    return out


#: Conversation folder -> the dialect its endpoint (SOURCE.txt) speaks.
CHAT_DIALECTS = {
    "cerebras-glm-think-tags": "cerebras",
    "crusoe-reasoning-tool-call": "crusoe",
    "gemini-openai-compat-tool-call": "gemini-openai",
    "mistral-content-array-prefix": "mistral",
    "mistral-tool-call": "mistral",
    "ollama-cloud-reasoning": "ollama-openai",
    "openrouter-tool-call": "openrouter",
    "zai-reasoning-content-preserved": "glm",
}


def chat_conversations() -> list[tuple[Conversation, str | None]]:
    """Every Chat Completions exchange (OpenAI's and the OpenAI-compatible
    vendors'), each with the dialect it is in (``None``: OpenAI's own)."""
    return [(c, CHAT_DIALECTS.get(c.path.name))
            for wire in ("openai-chat", "openai-compatible") for c in conversations(wire)]


_SMART_CHARS = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
                              "\u2013": "-", "\u2014": "--", "\u2026": "..."})


def smart_chars(value: Any) -> Any:
    """The cassette serializer's ``normalize_smart_chars`` applied to every string
    of ``value`` (see the conversations MANIFEST): apply it to both sides."""
    if isinstance(value, str):
        return unicodedata.normalize("NFKC", value.translate(_SMART_CHARS))
    if isinstance(value, list):
        return [smart_chars(item) for item in value]
    if isinstance(value, dict):
        return {key: smart_chars(item) for key, item in value.items()}
    return value
