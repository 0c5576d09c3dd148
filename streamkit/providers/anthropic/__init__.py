"""Anthropic Messages:
the whole wire format, both directions side by side.

``stream.py`` reads its streaming output into streamkit events; ``wire.py``
holds what its words and objects mean (finish words, usage fields, content
blocks), for every reader of the format.
"""

from .stream import AnthropicParser, map_stop_reason

__all__ = ["AnthropicParser", "map_stop_reason"]
