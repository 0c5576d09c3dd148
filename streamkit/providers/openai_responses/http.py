"""Where the OpenAI Responses API lives under a base URL: ``{base}/responses``.

The model and whether to stream are body fields, so the URL is the same for
every call (OpenAI, and Responses-format vendors such as Perplexity's Agent
API, whose ``/v1/responses`` is an alias of ``/v1/agent``).
"""

from __future__ import annotations

#: The Responses path under the base URL.
RESPONSES_PATH = "/responses"

#: The model goes in the body (``"model"``).
MODEL_IN_BODY = True

#: The path a server of this wire answers at (:mod:`~streamkit.providers.routes`).
SERVED_PATH = r"/(?:v1/)?responses"

#: The base URL path a server of this wire is reached at by a client of the wire's
#: own API: its endpoint appended to it gives a path of :data:`SERVED_PATH`.
SERVED_BASE = "/v1"

#: The request headers of a caller of this wire a gateway passes on to an
#: upstream of the same wire: ``OpenAI-Beta``, the opt-in to a beta API
#: (openai-python sends ``OpenAI-Beta: assistants=v2``; Codex CLI
#: ``responses=experimental``). Never a key, an organization or a project
#: (those go with the gateway's own key).
FORWARDED_HEADERS = frozenset({"openai-beta"})


def endpoint(base_url: str, model: str, *, stream: bool, dialect: str | None = None) -> str:
    """The URL a Responses request is posted to."""
    return base_url.rstrip("/") + RESPONSES_PATH
