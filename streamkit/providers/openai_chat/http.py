"""Where OpenAI Chat Completions lives under a base URL, and how the model is named.

Pure data and one function, read by :mod:`streamkit.client`: OpenAI and every
OpenAI-compatible vendor post to ``{base}/chat/completions`` with the model in
the body; Azure OpenAI's deployments API names the model (the deployment) in the
path, ``{base}/deployments/{model}/chat/completions`` (its ``api-version`` query
parameter is registry data, overridable per client). Whether to stream is a
body field (``stream``), so the URL is the same both ways.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from urllib.parse import quote

#: The chat path under the base URL for each dialect whose path is not OpenAI's.
CHAT_PATHS: Mapping[str | None, str] = MappingProxyType({
    None: "/chat/completions",
    "azure": "/deployments/{model}/chat/completions",
})

#: The model goes in the body (``"model"``), also for Azure, which ignores it there.
MODEL_IN_BODY = True

#: The path an OpenAI-compatible server answers chat at (``/v1`` optional: servers
#: mount it either way), for a server of this wire (:mod:`~streamkit.providers.routes`).
SERVED_PATH = r"/(?:v1/)?chat/completions"

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
    """The URL a chat request for ``model`` is posted to (``stream`` changes nothing here)."""
    path = CHAT_PATHS.get(dialect, CHAT_PATHS[None])
    return base_url.rstrip("/") + path.format(model=quote(model, safe=""))
