"""OpenAI Chat Completions and every OpenAI-compatible dialect:
the whole wire format, both directions side by side.

``stream.py`` reads its streaming output into streamkit events (with
``choice.py``, ``tools.py``, ``reasoning.py``, ``audio.py`` for the parts of a
choice, ``fast.py`` for the per-token chunk); ``wire.py`` holds the usage field
table; ``dialects.py`` what each vendor bends.
"""

from .stream import OpenAIChatParser
from .wire import map_usage

__all__ = ["OpenAIChatParser", "map_usage"]
