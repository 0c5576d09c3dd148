"""Where a data block's bytes live: inline (:class:`Base64Source`) or at a URL (:class:`URLSource`).

A :class:`~streamkit.model.blocks.DataBlock` (audio, an image, a file) holds its
content in a source. Inline bytes stay raw in a growing buffer, so streamed
audio is appended without a copy and never re-encoded per chunk: base64 text is
made only when read (agentscope's ``data`` field) and kept until the next
append. A source is the block's part with a job of its own;
:mod:`streamkit.model.blocks` re-exports both classes.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, ClassVar

from .errors import InvalidBase64Error
from .fragments import BytesBuffer
from .limits import shorten

__all__ = ["Base64Source", "URLSource", "source_from_dict"]


class Base64Source:
    """Inline bytes of a :class:`DataBlock`.

    The bytes live in a ``bytearray``; ``data`` (base64 text, agentscope's
    field) is produced only when read and cached until the next append, so
    streaming audio never re-encodes per chunk. ``raw`` gives the bytes with no
    base64 round trip. Base64 text that does not decode raises
    :class:`~streamkit.model.errors.InvalidBase64Error` naming the media type.
    """

    __slots__ = ("_buf", "media_type")
    type: ClassVar[str] = "base64"

    def __init__(self, data: str | bytes = b"", media_type: str = "") -> None:
        raw = _decode_base64(data, media_type) if isinstance(data, str) else data
        self._buf = BytesBuffer(raw)
        self.media_type = media_type

    @property
    def data(self) -> str:
        """The bytes, base64-encoded."""
        return self._buf.read_base64()

    @property
    def raw(self) -> bytes:
        """The bytes themselves."""
        return self._buf.read()

    def append(self, data: bytes) -> None:
        """Add raw bytes at the end."""
        self._buf.append(data)

    def replace(self, data: bytes) -> None:
        """Set the whole content."""
        self._buf.replace(data)

    def read_from(self, offset: int) -> bytes:
        """The bytes from ``offset`` on; costs the bytes returned."""
        return self._buf.read_from(offset)

    def __len__(self) -> int:
        return len(self._buf)

    def to_dict(self) -> dict[str, Any]:
        return {"type": "base64", "data": self.data, "media_type": self.media_type}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Base64Source):
            return NotImplemented
        return self.media_type == other.media_type and self.raw == other.raw

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Base64Source(<{len(self)} bytes>, media_type={self.media_type!r})"


class URLSource:
    """A :class:`DataBlock` whose content lives at a URL."""

    __slots__ = ("media_type", "url")
    type: ClassVar[str] = "url"

    def __init__(self, url: str, media_type: str = "") -> None:
        self.url = url
        self.media_type = media_type

    def to_dict(self) -> dict[str, Any]:
        return {"type": "url", "url": self.url, "media_type": self.media_type}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, URLSource):
            return NotImplemented
        return (self.url, self.media_type) == (other.url, other.media_type)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"URLSource({self.url!r}, media_type={self.media_type!r})"


def _decode_base64(data: str, media_type: str) -> bytes:
    """Base64 text -> bytes; anything that does not decode is an
    :class:`~streamkit.model.errors.InvalidBase64Error` naming the media type."""
    try:
        return base64.b64decode(data)
    except (binascii.Error, ValueError) as exc:  # ValueError: non-ASCII text
        raise InvalidBase64Error(
            f"invalid base64 for {shorten(media_type, 100) or 'data'!r} "
            f"({len(data)} characters): {exc}", raw=data[:200]) from None


def source_from_dict(d: dict[str, Any]) -> Base64Source | URLSource:
    """The source a ``to_dict()`` gave."""
    if d.get("type") == "url":
        return URLSource(d["url"], d.get("media_type", ""))
    return Base64Source(d.get("data", ""), d.get("media_type", ""))
