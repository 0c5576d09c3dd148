"""Anthropic Messages:
the whole wire format, both directions side by side.

``stream.py`` reads its streaming output into streamkit events; ``wire.py``
holds what its words and objects mean (finish words, usage fields, content
blocks), for every reader of the format.

The other direction: ``request.py`` builds and reads request bodies
(:func:`streamkit.build_request` / :func:`streamkit.parse_request`),
``response.py`` reads a non-streamed answer (:func:`streamkit.parse_response`),
``content.py`` turns blocks into the wire's parts and back, ``http.py`` says
where the endpoint is.
"""

from .stream import AnthropicParser, map_stop_reason

__all__ = ["AnthropicParser", "map_stop_reason"]
