"""Gemini (AI Studio and Vertex) generateContent:
the whole wire format, both directions side by side.

``stream.py`` reads its streaming output into streamkit events.
"""

from .stream import GeminiParser, map_finish_reason, map_usage

__all__ = ["GeminiParser", "map_finish_reason", "map_usage"]
