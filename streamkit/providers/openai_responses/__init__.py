"""OpenAI Responses:
the whole wire format, both directions side by side.

``stream.py`` reads its streaming output into streamkit events.
"""

from .stream import OpenAIResponsesParser

__all__ = ["OpenAIResponsesParser"]
