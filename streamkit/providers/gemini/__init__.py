"""Gemini (AI Studio and Vertex) generateContent:
the whole wire format, both directions side by side.

``stream.py`` reads its streaming output into streamkit events (chunk level),
``candidate.py`` makes each candidate's parts into blocks, and ``rules.py``
holds the wire words as data (finish reasons, usage fields, inline bytes).
"""

from .rules import FINISH_REASONS, USAGE_FIELDS, map_finish_reason, map_usage
from .stream import GeminiParser

__all__ = ["FINISH_REASONS", "USAGE_FIELDS", "GeminiParser", "map_finish_reason", "map_usage"]
