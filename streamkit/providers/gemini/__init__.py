"""Gemini (AI Studio and Vertex) generateContent:
the whole wire format, both directions side by side.

``stream.py`` reads its streaming output into streamkit events (chunk level),
``candidate.py`` makes each candidate's parts into blocks, and ``rules.py``
holds the wire words as data (finish reasons, usage fields, inline bytes).

The other direction: ``request.py`` builds and reads request bodies
(:func:`streamkit.build_request` / :func:`streamkit.parse_request`),
``response.py`` reads a non-streamed answer (:func:`streamkit.parse_response`),
``content.py`` turns blocks into the wire's parts and back, ``http.py`` says
where the endpoint is; ``spelling.py`` keeps a body's
camelCase / snake_case spelling.
"""

from .rules import FINISH_REASONS, USAGE_FIELDS, map_finish_reason, map_usage
from .stream import GeminiParser

__all__ = ["FINISH_REASONS", "USAGE_FIELDS", "GeminiParser", "map_finish_reason", "map_usage"]
