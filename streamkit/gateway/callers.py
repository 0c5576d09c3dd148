"""Who may call the gateway: the key a caller presents, wherever its SDK puts it.

Each official SDK sends its key its own way, and a caller of the gateway keeps
its SDK as it is, only its base URL and key changed: OpenAI's and Ollama's
clients ``Authorization: Bearer <key>``, Anthropic's ``x-api-key``,
google-genai ``x-goog-api-key`` (or ``?key=`` in the URL, as Gemini's REST
examples do). Any of them is accepted on any path: a key is a key. Keys are
compared in constant time (:func:`hmac.compare_digest`), so how long a wrong
key took to refuse says nothing of the right one.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING
from urllib.parse import parse_qs

from ..client.keys import ApiKey
from ..conversation.request import Request

if TYPE_CHECKING:
    from .config import GatewayConfig

__all__ = ["GATEWAY_OPTIONS", "KEY_HEADERS", "caller_key", "config_keys", "gateway_option",
           "is_allowed"]

#: The headers an SDK sends its key in, and the scheme word before the key.
KEY_HEADERS: Mapping[str, str] = {
    "authorization": "bearer ",
    "x-api-key": "",
    "x-goog-api-key": "",
}

#: The query parameter Gemini's REST examples put the key in.
KEY_QUERY = "key"


def caller_key(headers: Mapping[str, str], query: str) -> str | None:
    """The key a request presents (the first header that holds one, else the
    ``key`` query parameter), or ``None``."""
    for name, scheme in KEY_HEADERS.items():
        value = headers.get(name)
        if value is None:
            continue
        if value[:len(scheme)].lower() == scheme and len(value) > len(scheme):
            return value[len(scheme):].strip()
    keys = parse_qs(query).get(KEY_QUERY)
    return keys[-1] if keys else None


def is_allowed(presented: str | None, keys: Sequence[ApiKey]) -> bool:
    """Whether ``presented`` is one of the gateway's ``keys`` (every key is
    compared, so the time taken does not say which one came close)."""
    if presented is None:
        return False
    given = presented.encode()
    allowed = False
    for key in keys:
        allowed |= hmac.compare_digest(given, key.reveal().encode())
    return allowed


def config_keys(config: GatewayConfig) -> Iterator[str]:
    """Every key the configuration holds, the callers' and the upstreams':
    what no log line may show (:mod:`.access_log`)."""
    yield from (key.reveal() for key in config.keys)
    yield from (upstream.api_key.reveal() for upstream in config.providers.values()
                if upstream.api_key is not None)


#: The request options that are the gateway's to choose, not a caller's, and
#: why: the API version of an upstream call is the version the gateway's
#: upstream settings send (Anthropic's ``anthropic-version`` header), whatever
#: wire the caller speaks.
GATEWAY_OPTIONS: Mapping[str, str] = {
    "api_version": "the API version of the upstream call is the gateway's to choose; "
                   "leave api_version out",
}


def gateway_option(request: Request) -> str | None:
    """Why the caller's ``request`` may not be served as it is (an option
    only the gateway sets), or ``None``: said as the caller's 400, naming the
    option and never the gateway's settings (a client would otherwise refuse
    it in its own words, the configured header's value included, as if the
    gateway were at fault)."""
    for option, reason in GATEWAY_OPTIONS.items():
        if option in request.options:
            return f"the request's option {option} cannot be set by a caller: {reason}"
    return None
