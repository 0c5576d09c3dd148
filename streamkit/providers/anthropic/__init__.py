"""Anthropic Messages:
the whole wire format, both directions side by side.

``stream.py`` reads its streaming output into streamkit events.
"""

from .stream import AnthropicParser, map_stop_reason

__all__ = ["AnthropicParser", "map_stop_reason"]
