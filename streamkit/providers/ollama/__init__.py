"""Ollama native /api/chat and /api/generate:
the whole wire format, both directions side by side.

``stream.py`` reads its streaming output into streamkit events.

The other direction: ``request.py`` builds and reads request bodies
(:func:`streamkit.build_request` / :func:`streamkit.parse_request`),
``response.py`` reads a non-streamed answer (:func:`streamkit.parse_response`),
``http.py`` says where the endpoint is.
"""

from .stream import OllamaParser, map_done_reason, map_usage

__all__ = ["OllamaParser", "map_done_reason", "map_usage"]
