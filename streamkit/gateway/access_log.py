"""The gateway's access log: one JSON line per request, and no secret in it.

uvicorn's access log is off (:mod:`.serve`): it prints each request's query
string, where Gemini's callers put their key (``?key=``). :class:`AccessLog`
(ASGI middleware around the whole app) writes the line instead, on the
``streamkit.gateway`` logger: ``request_id`` (also the answer's
``x-request-id`` header), ``method``, ``path``, ``query`` (when there is
one, its secrets removed), ``client`` (the peer's address), ``status``,
``duration_ms``; a model call adds what it knows (the caller's wire, the
model, the upstream, tokens, ...: see :mod:`.app`'s ``CallLog``).

The query string's rule (:func:`redacted_query`): the value of a parameter
is written ``***`` when its name is one that carries credentials
(:data:`SECRET_PARAMETERS`: ``key``, ``api_key``, ``token``, ...,
whatever the case and ``-`` or ``_``), or when it holds any key the gateway
knows (a caller's or an upstream's); right keys and wrong keys alike. Then the
whole line is searched for every key the gateway knows, as written and as
JSON escapes it, and for what this request presented as a key (in a header
or the query, right or wrong) or in a secret parameter, so a key a caller
put anywhere else (the path, a model name) is not written either
(:class:`SecretScrubber`; a presented value shorter than
:data:`SHORTEST_PRESENTED` is not looked for).
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import time
from collections.abc import Iterable
from typing import Any
from urllib.parse import parse_qsl, quote

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..client.keys import SHORTEST_REDACTED_KEY
from .callers import KEY_HEADERS, caller_key

__all__ = ["ACCESS", "SECRET_PARAMETERS", "AccessLog", "AccessRecord", "SecretScrubber",
           "redacted_query"]

logger = logging.getLogger("streamkit.gateway")

#: The scope key a request's :class:`AccessRecord` is under.
ACCESS = "streamkit.access"

#: Query parameter names whose value is a credential (compared lower-cased,
#: ``-`` read as ``_``).
SECRET_PARAMETERS = frozenset({
    "key", "api_key", "apikey", "access_token", "token", "auth", "authorization",
    "password", "secret", "client_secret", "sig", "signature", "x_api_key", "x_goog_api_key",
})

#: What a secret is written as.
HIDDEN = "***"

#: A value a request presented as a key is looked for in its line when this
#: long (shorter, it would hide ordinary words of the line).
SHORTEST_PRESENTED = 8


class SecretScrubber:
    """Every key the gateway knows (its callers' and its upstreams'), found in
    a text as written, JSON-escaped or percent-encoded, and replaced. A key
    shorter than :data:`~streamkit.client.keys.SHORTEST_REDACTED_KEY` (a
    test's ``k``) is only found as a whole query value: replacing each of
    its occurrences would garble the line, as it would an answer."""

    def __init__(self, keys: Iterable[str]) -> None:
        self._whole = frozenset(keys)
        forms = {form for key in self._whole if len(key) >= SHORTEST_REDACTED_KEY
                 for form in (key, json.dumps(key)[1:-1], quote(key, safe=""))}
        self._pattern = re.compile("|".join(map(re.escape, sorted(forms, key=len, reverse=True)))) \
            if forms else None

    def holds_key(self, text: str) -> bool:
        """Whether ``text`` is a key, or holds one."""
        return text in self._whole or (
            self._pattern is not None and self._pattern.search(text) is not None)

    def scrub(self, text: str, presented: Iterable[str] = ()) -> str:
        """``text`` without the gateway's keys, nor the values in ``presented``."""
        text = text if self._pattern is None else self._pattern.sub(HIDDEN, text)
        for value in presented:
            for form in (value, json.dumps(value)[1:-1], quote(value, safe="")):
                text = text.replace(form, HIDDEN)
        return text


def redacted_query(query: str, scrubber: SecretScrubber) -> tuple[str, list[str]]:
    """``query`` with the value of each secret parameter written ``***`` (see
    the module docstring for the rule), and those values."""
    parts, hidden = [], []
    for name, value in parse_qsl(query, keep_blank_values=True):
        secret = (name.lower().replace("-", "_") in SECRET_PARAMETERS
                  or scrubber.holds_key(value) or scrubber.holds_key(name))
        parts.append(f"{quote(name, safe='')}={HIDDEN if secret else quote(value, safe='')}")
        if secret:
            hidden.append(value)
    return "&".join(parts), hidden


class AccessRecord:
    """What the edge knows of one request: written as its log line by
    :meth:`write`, once, by the endpoint that :meth:`claim` s it (with its own
    fields) or else by :class:`AccessLog` when the answer is done."""

    __slots__ = ("claimed", "client", "method", "path", "presented", "query", "request_id",
                 "scrubber", "started", "status", "written")

    def __init__(self, scope: Scope, scrubber: SecretScrubber) -> None:
        self.request_id = secrets.token_hex(8)
        self.method: str = scope["method"]
        self.path: str = scope["path"]
        query = scope.get("query_string", b"").decode("latin-1")
        self.query, hidden = redacted_query(query, scrubber)
        headers = {name.decode("latin-1"): value.decode("latin-1")
                   for name, value in scope.get("headers", ())
                   if name.decode("latin-1") in KEY_HEADERS}
        key = caller_key(headers, query)
        self.presented = sorted({value for value in (*hidden, key or "")
                                 if len(value) >= SHORTEST_PRESENTED}, key=len, reverse=True)
        client = scope.get("client")
        self.client = client[0] if client else None
        self.scrubber = scrubber
        self.started = time.monotonic()
        self.status: int | None = None
        self.claimed = self.written = False

    def claim(self) -> AccessRecord:
        """This request's line will be written by the caller (with its fields)."""
        self.claimed = True
        return self

    def write(self, fields: dict[str, Any]) -> None:
        """The one log line: the edge's fields, then ``fields`` (a model call's)."""
        if self.written:
            return
        self.written = True
        line: dict[str, Any] = {"request_id": self.request_id, "method": self.method,
                                "path": self.path}
        if self.query:
            line["query"] = self.query
        line["client"] = self.client
        line.update(fields)
        line.setdefault("status", self.status if self.status is not None else 500)
        line.setdefault("duration_ms", round((time.monotonic() - self.started) * 1000, 1))
        written = json.dumps(line)
        text = self.scrubber.scrub(written, self.presented)
        logger.info(text, extra={"gateway": line if text == written else json.loads(text)})


class AccessLog:
    """ASGI middleware: an :class:`AccessRecord` for each HTTP request (in the
    scope under :data:`ACCESS`), its id in the answer's ``x-request-id``
    header, and its line written when no endpoint claimed it."""

    def __init__(self, app: ASGIApp, keys: Iterable[str] = ()) -> None:
        self.app = app
        self.scrubber = SecretScrubber(keys)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        record = scope[ACCESS] = AccessRecord(scope, self.scrubber)

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                record.status = message["status"]
                message = {**message, "headers": [*message.get("headers", ()),
                                                  (b"x-request-id", record.request_id.encode())]}
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            if not record.claimed:
                record.write({})
