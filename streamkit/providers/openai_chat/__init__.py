"""OpenAI Chat Completions and every OpenAI-compatible dialect:
the whole wire format, both directions side by side.

``stream.py`` reads its streaming output into streamkit events.
"""

from .stream import OpenAIChatParser, map_usage

__all__ = ["OpenAIChatParser", "map_usage"]
