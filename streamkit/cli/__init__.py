"""The command line, ``python -m streamkit``: ``demo``, ``replay``, ``chat``, ``web``, ``gateway``.

- :mod:`.commands`: the parser and every command but ``chat``;
- :mod:`.chat`: ``chat``, a conversation with any provider, live;
- :mod:`.terminal`: what is printed of a stream, made safe for a terminal.
"""

from .commands import main

__all__ = ["main"]
