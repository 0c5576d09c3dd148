"""Inline media as the wire formats write it: ``data:`` URLs and media types.

Every wire format sends bytes inline, and they meet ``data:`` URLs (RFC 2397)
both ways: OpenAI's two wires take images and files as ``data:`` URLs, and a
block's URL may be one a user gave, which Gemini and Ollama unpack because
their APIs fetch no ``data:`` URI. Media types go without their parameters
where a wire names the type alone. Read and written here once, so the five
wires agree on what a ``data:`` URL holds.

Media by URL: OpenAI's ``image_url`` and Anthropic's URL image name no media
type, so their readers say ``image/*`` (an image, type unknown). A wire that
needs a real type (Gemini's ``fileData.mimeType``) takes the caller's, or the
one the URL's path names (:func:`url_media_type`), and never the placeholder.
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
from collections.abc import Callable
from urllib.parse import unquote_to_bytes, urlsplit

from ..model.data_sources import Base64Source

__all__ = ["base_media_type", "data_url", "is_placeholder", "read_data_url", "url_media_type"]

# RFC 2397: a data URL without a media type is US-ASCII text.
_DEFAULT_TYPE = "text/plain;charset=US-ASCII"


# Python's own table of extensions (not the machine's mime.types: the same answer
# everywhere), with the image types the providers take that it lacks before 3.13.
_EXTENSIONS = mimetypes.MimeTypes()
_EXTENSIONS.add_type("image/webp", ".webp")


def is_placeholder(media_type: str) -> bool:
    """``image/*``: a family, no media type (what a reader says of an image
    known only by its URL)."""
    return media_type.endswith("/*")


def url_media_type(url: str, given: str) -> str | None:
    """The media type of what ``url`` points at: ``given`` when it is one,
    else the one the extension of the URL's path names (within ``given``'s
    family when that is a placeholder such as ``image/*``); ``None`` when
    neither says."""
    if given and not is_placeholder(given):
        return given
    guessed, _ = _EXTENSIONS.guess_type(urlsplit(url).path, strict=False)
    if guessed is None or (given and not guessed.startswith(given[:-1])):
        return None
    return guessed


def base_media_type(media_type: str) -> str:
    """``image/png`` of ``image/png; foo=bar``."""
    return media_type.split(";", 1)[0].strip().lower()


def data_url(source: Base64Source, *, parameters: bool = True) -> str:
    """Inline bytes as a base64 ``data:`` URL (its media type without
    parameters when ``parameters`` is false)."""
    media_type = source.media_type if parameters else base_media_type(source.media_type)
    return f"data:{media_type};base64,{source.data}"


def _strict_base64(text: str) -> bytes | None:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):  # ValueError: a non-ASCII character
        return None


def read_data_url(url: str, decode: Callable[[str], bytes | None] = _strict_base64, *,
                  percent: bool = False) -> Base64Source | None:
    """The bytes and media type (with its parameters) of a base64 ``data:`` URL
    (``decode`` reads the base64: strictly unless a wire says otherwise), and
    of a percent-encoded one when ``percent``; ``None`` for any other URL or
    data that does not decode (a wire that keeps a request exactly then keeps
    the URL as it is)."""
    if not url.startswith("data:"):
        return None
    head, comma, data = url[5:].partition(",")
    if not comma:
        return None
    if head.endswith(";base64"):
        raw = decode(data)
        return None if raw is None else Base64Source(raw, head.removesuffix(";base64"))
    return Base64Source(unquote_to_bytes(data), head or _DEFAULT_TYPE) if percent else None
