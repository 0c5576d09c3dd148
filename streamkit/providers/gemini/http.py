"""Where Gemini's ``generateContent`` lives under a base URL, and how the model is named.

Gemini names the model and the mode in the URL, not the body:
``{base}/models/{model}:streamGenerateContent?alt=sse`` for a stream (server-sent
events; without ``alt=sse`` the answer would be one JSON array), and
``{base}/models/{model}:generateContent`` for one JSON response. The same shape
serves the Gemini API (``https://generativelanguage.googleapis.com/v1beta``) and
Vertex AI (``https://{location}-aiplatform.googleapis.com/v1/projects/{project}/
locations/{location}/publishers/google``). A model already written as a
resource name (``models/...``, ``tunedModels/...``) is used as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from urllib.parse import quote

#: The method (and query) for each mode: ``stream`` -> the part after ``:``.
METHODS: Mapping[bool, str] = MappingProxyType({
    True: "streamGenerateContent?alt=sse",
    False: "generateContent",
})

#: Resource prefixes a model name may already carry.
RESOURCE_PREFIXES = ("models/", "tunedModels/")

#: The model goes in the URL; the body has no ``model`` field.
MODEL_IN_BODY = False

#: The path a server of this wire answers at, naming the model and the method
#: (:mod:`~streamkit.providers.routes`); ``alt=sse`` is in the query, apart.
SERVED_PATH = (r"/(?:v1beta|v1alpha|v1)/models/(?P<model>[^:/]+)"
               r":(?P<method>generateContent|streamGenerateContent)")

#: The base URL path a server of this wire is reached at by a client of the wire's
#: own API: its endpoint appended to it gives a path of :data:`SERVED_PATH`.
SERVED_BASE = "/v1beta"


def endpoint(base_url: str, model: str, *, stream: bool, dialect: str | None = None) -> str:
    """The URL a ``generateContent`` request for ``model`` is posted to."""
    resource = model if model.startswith(RESOURCE_PREFIXES) else f"models/{model}"
    return f"{base_url.rstrip('/')}/{quote(resource, safe='/')}:{METHODS[stream]}"
