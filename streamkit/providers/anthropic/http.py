"""Where Anthropic's Messages API lives under a base URL: ``{base}/messages``.

The model and ``stream`` are body fields. (Bedrock's InvokeModel and Vertex's
rawPredict carry the same body under URLs that name the model; they are not in
the registry.)
"""

from __future__ import annotations

#: The Messages path under the base URL (``https://api.anthropic.com/v1``).
MESSAGES_PATH = "/messages"

#: The model goes in the body (``"model"``).
MODEL_IN_BODY = True

#: The path a server of this wire answers at (:mod:`~streamkit.providers.routes`).
SERVED_PATH = r"/(?:v1/)?messages"

#: The base URL path a server of this wire is reached at by a client of the wire's
#: own API: its endpoint appended to it gives a path of :data:`SERVED_PATH`.
SERVED_BASE = "/v1"

#: The header naming the API version a body is for (see :mod:`.versions`).
VERSION_HEADER = "anthropic-version"

#: The request headers of a caller of this wire a gateway passes on to an
#: upstream of the same wire: the betas it asked for (Claude Code sends
#: ``anthropic-beta: claude-code-20250219,interleaved-thinking-2025-05-14,...``)
#: and the API version its body is written for. Never a key (those are the
#: gateway's, see :data:`streamkit.client.forwarding.NEVER_FORWARDED`).
FORWARDED_HEADERS = frozenset({"anthropic-beta", VERSION_HEADER})


def endpoint(base_url: str, model: str, *, stream: bool, dialect: str | None = None) -> str:
    """The URL a Messages request is posted to."""
    return base_url.rstrip("/") + MESSAGES_PATH
