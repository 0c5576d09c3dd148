"""OpenAI Responses:
the whole wire format, both directions side by side.

``stream.py`` reads its streaming output into streamkit events: the parser and
its lifecycle; ``deltas.py`` is the table of the streamed content kinds
(``*.delta`` / ``*.done``); ``items.py`` the output items, their positions and
the blocks they imply.
"""

from .stream import OpenAIResponsesParser, map_usage

__all__ = ["OpenAIResponsesParser", "map_usage"]
