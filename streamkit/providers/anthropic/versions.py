"""What each Anthropic API version refuses, and a body fitted to the version it is for.

Anthropic versions the Messages API by a request header (``anthropic-version``),
not by a body field, so the same body can be valid under one version and a
400 under another. Two versions matter:

- ``2023-06-01`` takes ``temperature``, ``top_p`` and ``top_k``, documents in
  any message and citations on any text block;
- ``2026-10-21`` (:data:`API_VERSION`: what anthropic SDK 2.x sends, and the
  registry's ``anthropic`` entry with it) answers 400 to a request holding
  ``temperature``, ``top_p`` or ``top_k`` (even at their default values), a
  ``document`` block in an assistant message, or non-empty ``citations`` on a
  text block of a user message (the migration guide,
  platform.claude.com/docs/en/api/migration-2026-10-21). Later versions are
  taken to refuse the same.

The version a body is for is the uniform ``api_version`` option: the client
passes the header it sends (:attr:`~streamkit.providers.wire_format.WireFormat.version_header`);
``build_request`` without one means :data:`API_VERSION`. A Bedrock InvokeModel
or Vertex rawPredict body names its platform's version in the body instead
(``anthropic_version``: ``bedrock-2023-05-31``, ``vertex-2023-10-16``), whose
Messages rules are those of ``2023-06-01``.

Under a version that refuses them:

- the sampling options are refused (:class:`~streamkit.model.errors.UnsupportedFeatureError`)
  when the caller gave them (by hand, or read from an Anthropic body), with the
  way out (pin ``2023-06-01``); when another wire's reader read them, they were
  that API's settings, not this request's wish: dropped with a
  :class:`~streamkit.model.errors.LossyTranslationWarning`, so the conversation goes;
- documents in assistant messages and citations on user texts are left out
  with a warning: the conversation's text stays, only what the version cannot
  hold goes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ...model.errors import UnsupportedFeatureError, warn_lossy
from ..coerce import Wire
from .wire import NAME

#: The version the registry's ``anthropic`` entry sends (its ``anthropic-version``
#: header): the one a body built without ``api_version`` is for.
API_VERSION = "2026-10-21"

#: The version before it, which takes the sampling options.
LEGACY_VERSION = "2023-06-01"

#: The first version that refuses what :func:`fit_options` and
#: :func:`fit_messages` leave out.
STRICT_SINCE = "2026-10-21"

#: The sampling options :data:`STRICT_SINCE` refuses.
SAMPLING = ("temperature", "top_p", "top_k")

#: The body field that names a cloud platform's version (Bedrock, Vertex).
PLATFORM_VERSION = "anthropic_version"

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def version_of(options: dict[str, Any]) -> str:
    """The version a body is for, taken out of ``options`` (see the module
    docstring); an ``api_version`` that is no version date is refused."""
    version = options.pop("api_version", None)
    if version is None:
        return LEGACY_VERSION if PLATFORM_VERSION in options else API_VERSION
    if not isinstance(version, str) or not _DATE.match(version):
        raise UnsupportedFeatureError(
            NAME, f"api_version={version!r}",
            f"an anthropic-version is a date such as {LEGACY_VERSION!r} or {API_VERSION!r}")
    return version


def is_strict(version: str) -> bool:
    """Whether ``version`` refuses the sampling options and the content rules."""
    return version >= STRICT_SINCE  # ISO dates compare as strings


def fit_options(options: dict[str, Any], version: str, origin: str | None) -> None:
    """Take the sampling options out of ``options`` under a version that
    refuses them: refused when the caller gave them (``origin``: ``None`` or
    this wire), dropped with a warning when another wire's reader read them."""
    if not is_strict(version):
        return
    present = [name for name in SAMPLING if name in options]
    given = [name for name in present if options[name] is not None]
    if given and origin in (None, NAME):
        name = given[0]
        raise UnsupportedFeatureError(
            NAME, f"{name}={options[name]!r} under anthropic-version {version}",
            f"that version refuses {', '.join(SAMPLING)} (400, even at their defaults): "
            f"leave them out, or pin the older version: api_version={LEGACY_VERSION!r} "
            f"(on a Client: headers={{'anthropic-version': {LEGACY_VERSION!r}}})")
    for name in present:
        del options[name]
    if given:
        warn_lossy(NAME, f"{' and '.join(given)} read from {origin}",
                   f"anthropic-version {version} refuses the sampling options")


def fit_messages(messages: list[Wire], version: str) -> None:
    """Leave out of ``messages`` (a built body's own, changed in place) what
    ``version`` refuses in them: documents in assistant messages, citations
    on the text blocks of user messages (tool results' included)."""
    if not is_strict(version):
        return
    documents = cited = 0
    for message in messages:
        content = message.get("content")
        if not isinstance(content, list):
            continue
        if message.get("role") == "assistant":
            kept = [part for part in content if not _is_document(part)]
            documents += len(content) - len(kept)
            message["content"] = kept
        elif message.get("role") == "user":
            cited += _uncite(content)
    if documents:
        warn_lossy(NAME, f"{documents} document block(s) in assistant messages",
                   f"anthropic-version {version} refuses documents in assistant messages")
    if cited:
        warn_lossy(NAME, f"the citations of {cited} user text block(s)",
                   f"anthropic-version {version} refuses citations on user text blocks")


def _is_document(part: Any) -> bool:
    return isinstance(part, Mapping) and part.get("type") == "document"


def _uncite(parts: list[Any]) -> int:
    """Take non-empty ``citations`` off the text parts of ``parts`` and of the
    tool results among them; how many parts had some."""
    count = 0
    for number, part in enumerate(parts):
        if not isinstance(part, dict):
            continue
        if part.get("type") == "text" and part.get("citations"):
            parts[number] = {key: value for key, value in part.items() if key != "citations"}
            count += 1
        elif part.get("type") == "tool_result" and isinstance(part.get("content"), list):
            count += _uncite(part["content"])
    return count
