"""``provider="auto"``: pick the parser from the first payload.

Each API announces itself in its first payload: a ``chat.completion.chunk``,
a ``response.*`` event, an Anthropic ``message_start``, a Gemini chunk with
``candidates`` / ``usageMetadata``, an Ollama line with ``message`` / ``done``.
A leading ``{"error": ...}`` payload says nothing about the provider; it is
reported as an error event and detection waits for the next payload.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from ..model.errors import ProtocolError
from ..model.events import BlockDelta, ErrorEvent, Event
from .base import Framing, Parser, decode_json
from .error_payloads import error_event

_ANTHROPIC_EVENTS = frozenset({
    "message_start", "message_delta", "message_stop", "content_block_start",
    "content_block_delta", "content_block_stop", "ping",
})


def detect_provider(payload: Any, event: str | None = None) -> str | None:
    """The registry name of the API that produced ``payload``, or ``None``."""
    if event and event.startswith("response."):
        return "openai-responses"
    if event in _ANTHROPIC_EVENTS:
        return "anthropic"
    if not isinstance(payload, dict):
        return None
    kind = payload.get("type")
    if isinstance(kind, str):
        if kind.startswith("response."):
            return "openai-responses"
        if kind in _ANTHROPIC_EVENTS:
            return "anthropic"
    if payload.get("object") == "chat.completion.chunk" or "choices" in payload:
        return "openai-chat"
    if "candidates" in payload or "usageMetadata" in payload or "promptFeedback" in payload:
        return "gemini"
    if "done" in payload and ("message" in payload or "response" in payload or "model" in payload):
        return "ollama"
    return None


def _error_event(payload: Any) -> ErrorEvent | None:
    if isinstance(payload, list) and len(payload) == 1:
        payload = payload[0]  # Gemini wraps the error of a non-SSE call in an array
    if not isinstance(payload, dict) or "error" not in payload:
        return None
    return error_event(payload["error"], payload)


class AutoParser:
    """Delegates to the parser that :func:`detect_provider` picks at the first
    payload; ``framing`` is SSE until an NDJSON provider is known. ``build``
    makes the parser for a name with the options it accepts (the registry's
    :func:`~streamkit.providers.get_parser` passes its own)."""

    name: ClassVar[str] = "auto"
    framing: ClassVar[Framing] = "sse"

    def __init__(self, build: Callable[[str, dict[str, Any]], Parser], **options: Any) -> None:
        self._build = build
        self._options = options
        self.parser: Parser | None = None

    @property
    def provider(self) -> str | None:
        """The detected provider's name, once known."""
        return self.parser.name if self.parser is not None else None

    @property
    def done(self) -> bool:
        """Whether the detected provider's terminator has been seen."""
        return self.parser.done if self.parser is not None else False

    def feed(self, data: bytes | str, event: str | None = None) -> list[Event]:
        """Detect on the first recognisable payload, then delegate."""
        if self.parser is not None:
            return self.parser.feed(data, event)
        if data in ("[DONE]", b"[DONE]"):
            return []
        payload = decode_json(data, event)
        name = detect_provider(payload, event)
        if name is None:
            error = _error_event(payload)
            if error is not None:
                return [error]
            raise ProtocolError(
                f"cannot tell which provider sent the first payload (event {event!r}); "
                "pass provider=... explicitly",
                event=event,
                raw=data,
            )
        self.parser = self._build(name, self._options)
        return self.parser.feed(data, event)

    def feed_into(self, payloads: Sequence[tuple[str, bytes | str]], out: list[Event]) -> None:
        """Detect on the first payloads, then hand the rest to the detected parser."""
        for position, (name, data) in enumerate(payloads):
            if self.parser is not None:
                self.parser.feed_into(payloads[position:], out)
                return
            out += self.feed(data, None if name == "message" else name)

    def fast_delta(self, name: str, data: bytes | str) -> BlockDelta | None:
        """The detected parser's per-token case (``None`` before detection)."""
        return self.parser.fast_delta(name, data) if self.parser is not None else None

    def finish(self) -> list[Event]:
        """Flush the detected parser (nothing to flush before detection)."""
        return self.parser.finish() if self.parser is not None else []
