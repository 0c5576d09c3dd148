"""OpenAI Chat Completions and every OpenAI-compatible dialect:
the whole wire format, both directions side by side.

``stream.py`` reads its streaming output into streamkit events (with
``choice.py``, ``tools.py``, ``reasoning.py``, ``audio.py`` for the parts of a
choice, ``fast.py`` for the per-token chunk); ``wire.py`` holds the usage field
table; ``dialects.py`` what each vendor bends.

The other direction: ``request.py`` builds and reads request bodies
(:func:`streamkit.build_request` / :func:`streamkit.parse_request`),
``response.py`` reads a non-streamed answer (:func:`streamkit.parse_response`),
``content.py`` turns blocks into the wire's parts and back, ``http.py`` says
where the endpoint is; ``assistant.py`` and ``history.py``
encode an earlier turn by the vendor rules table.
"""

from .stream import OpenAIChatParser
from .wire import map_usage

__all__ = ["OpenAIChatParser", "map_usage"]
