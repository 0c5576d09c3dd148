"""OpenAI Responses:
the whole wire format, both directions side by side.

``stream.py`` reads its streaming output into streamkit events: the parser and
its lifecycle; ``deltas.py`` is the table of the streamed content kinds
(``*.delta`` / ``*.done``); ``items.py`` the output items, their positions and
the blocks they imply.

The other direction: ``request.py`` builds and reads request bodies
(:func:`streamkit.build_request` / :func:`streamkit.parse_request`),
``response.py`` reads a non-streamed answer (:func:`streamkit.parse_response`),
``content.py`` turns blocks into the wire's parts and back, ``http.py`` says
where the endpoint is.
"""

from .stream import OpenAIResponsesParser, map_usage

__all__ = ["OpenAIResponsesParser", "map_usage"]
