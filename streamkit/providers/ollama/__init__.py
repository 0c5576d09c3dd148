"""Ollama native /api/chat and /api/generate:
the whole wire format, both directions side by side.

``stream.py`` reads its streaming output into streamkit events.
"""

from .stream import OllamaParser, map_done_reason, map_usage

__all__ = ["OllamaParser", "map_done_reason", "map_usage"]
