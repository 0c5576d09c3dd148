"""How a client's key goes on the wire, and comes back off it.

The vendor table says which auth style a provider takes
(:data:`~streamkit.model.vendors.AuthStyle`); :data:`AUTH_HEADERS` says the
header and the text before the key of each. The key itself is an
:class:`~streamkit.client.keys.ApiKey`, found here (``api_key=`` or the
provider's environment variables), put in its header by :class:`KeyAuth` as
httpx sends each request and nowhere before, and taken out again: of the
request once it is sent (:func:`scrub_request`), of a response's headers and
reason phrase as soon as they come (:func:`scrub_response`). Pure: the
environment is passed in, and httpx appears only as values.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from types import MappingProxyType

import httpx

from ..model.errors import ProviderConfigError
from ..model.vendors import ProviderEntry
from .keys import ApiKey

__all__ = ["AUTH_HEADERS", "KeyAuth", "key_auth", "key_in", "resolve_key", "scrub_request",
           "scrub_response"]

#: How each auth style puts the key on the wire: the header and the text
#: before the key. ``none`` sends no key at all (local servers).
AUTH_HEADERS: Mapping[str, tuple[str, str] | None] = MappingProxyType({
    "bearer": ("authorization", "Bearer "),
    "x-api-key": ("x-api-key", ""),
    "api-key": ("api-key", ""),
    "x-goog-api-key": ("x-goog-api-key", ""),
    "none": None,
})


def key_in(environ: Mapping[str, str], names: Sequence[str]) -> ApiKey | None:
    """The first of the environment variables ``names`` that is set, as an
    :class:`ApiKey` (never raises: the environment is in no failing frame)."""
    found = next((name for name in names if environ.get(name, "").strip()), None)
    return None if found is None else ApiKey(environ[found], found)


def resolve_key(entry: ProviderEntry, api_key: ApiKey | None,
                from_environ: ApiKey | None) -> ApiKey | None:
    """The key to send, ``api_key`` or the one from the entry's environment
    variables (:func:`key_in`: the environment, every secret of the process, is
    held by no frame that raises); a missing required key is a
    :class:`ProviderConfigError` naming them, as is one that cannot be sent (not
    shown)."""
    if AUTH_HEADERS[entry.auth] is None:
        return None
    key = api_key if api_key is not None else from_environ
    if key is None:
        if not entry.key_required:
            return None
        names = " or ".join(entry.env_keys)
        hint = f"set {names} (or pass api_key=)" if names else "pass api_key="
        raise ProviderConfigError(f"no API key for {entry.title}: {hint}",
                                  missing=entry.env_keys, setting="api_key",
                                  provider=entry.name)
    if not key.can_be_sent:
        raise ProviderConfigError(
            f"the API key from {key.source} is empty or holds characters an HTTP header "
            f"cannot carry (spaces, line breaks, non-ASCII); it is not shown here")
    return key


class KeyAuth(httpx.Auth):
    """Puts the key in its one header as httpx sends the request, and nowhere
    before: no frame of the client holds the header's value (a repr shows
    where the key came from)."""

    def __init__(self, key: ApiKey, header: str, prefix: str) -> None:
        self.key = key
        self.header = header
        self.prefix = prefix

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers[self.header] = self.prefix + self.key.reveal()
        yield request

    def __repr__(self) -> str:
        return f"<{self.header} header with the {self.key!r}>"


def key_auth(entry: ProviderEntry, key: ApiKey | None) -> KeyAuth | None:
    """What sends ``key`` the entry's way (``None``: no key is sent)."""
    style = AUTH_HEADERS[entry.auth]
    return None if style is None or key is None else KeyAuth(key, *style)


def scrub_request(auth: KeyAuth | None, request: httpx.Request) -> None:
    """Remove the key from a request that has been sent: httpx's exceptions and
    ``response.request`` keep the request object."""
    if auth is not None and auth.header in request.headers:
        del request.headers[auth.header]


def scrub_response(secret: ApiKey | None, response: httpx.Response) -> None:
    """Take the key out of a response's headers and reason phrase as soon as
    they come (a server may echo it), before anything reads or keeps them."""
    if secret is None:
        return
    echoed = [(name, value) for name, value in response.headers.items()
              if secret.appears_in(value)]
    for name, value in echoed:
        response.headers[name] = secret.redact(value)
    reason = response.extensions.get("reason_phrase")
    if isinstance(reason, bytes) and secret.appears_in(reason):
        response.extensions["reason_phrase"] = secret.redact(reason.decode()).encode()
