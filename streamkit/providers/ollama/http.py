"""Where Ollama's native chat API lives under a base URL: ``{base}/api/chat``.

The base URL is the server, as ``OLLAMA_HOST`` names it
(``http://localhost:11434``, or ``https://ollama.com`` for Ollama's cloud). The
model and ``stream`` (``true`` unless said otherwise) are body fields; the
streamed answer is NDJSON.
"""

from __future__ import annotations

#: The chat path under the server URL.
CHAT_PATH = "/api/chat"

#: The model goes in the body (``"model"``).
MODEL_IN_BODY = True

#: The path a server of this wire answers at (:mod:`~streamkit.providers.routes`).
SERVED_PATH = r"/api/chat"

#: The base URL path a server of this wire is reached at by a client of the wire's
#: own API: its endpoint appended to it gives a path of :data:`SERVED_PATH`.
SERVED_BASE = ""


def endpoint(base_url: str, model: str, *, stream: bool, dialect: str | None = None) -> str:
    """The URL a chat request is posted to."""
    return base_url.rstrip("/") + CHAT_PATH
