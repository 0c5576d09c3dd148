"""Content parts of Chat Completions messages <-> streamkit blocks, both ways.

One function per part kind, each with its inverse:

==========================  ==================================================
streamkit block             wire part
==========================  ==================================================
TextBlock                   ``{"type": "text", "text"}``
DataBlock, image            ``{"type": "image_url", "image_url": {"url",
                            "detail"?}}``: a URL, or a ``data:`` URL of the bytes
DataBlock, audio            ``{"type": "input_audio", "input_audio": {"data",
                            "format"}}``: base64 wav or mp3 (PCM is sent as WAV)
DataBlock, any other file   ``{"type": "file", "file": {"file_data", "filename"?}}``
                            (a ``data:`` URL) or ``{"file": {"file_id"}}``
RawBlock ``openai-chat:*``  the part it holds, verbatim
==========================  ==================================================

A block's ``metadata`` holds the part's fields streamkit has no slot for, under
their own names, and is written back into the part (``detail`` goes inside
``image_url``, ``file_id`` inside ``file``). Reading a part checks that it
writes back exactly; one that would not (an unknown type, base64 that is not
canonical, a field in an odd place) becomes a :class:`~streamkit.blocks.RawBlock`
of kind ``openai-chat:<type>`` holding the part, sent back as it is. A RawBlock
of any other kind is another wire format's item: this wire has no place for it,
so it is dropped. Sans-IO: a URL is never fetched, so audio and files must be
inline (or a ``file_id``); a web URL is only possible for images.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, Final

from ...blocks import PCM_RATE_ASSUMED, Base64Source, DataBlock, RawBlock, TextBlock, URLSource
from ...messages import UserContent

__all__ = [
    "ANY_IMAGE",
    "RAW_KIND",
    "STREAMKIT_KEYS",
    "Wire",
    "data_part",
    "data_url",
    "read_data_url",
    "read_text_part",
    "read_user_part",
    "text_part",
    "user_part",
]

Wire = dict[str, Any]

#: The kind prefix of a RawBlock holding a part of this wire format.
RAW_KIND: Final = "openai-chat:"
#: The media type of an image known only by its URL.
ANY_IMAGE: Final = "image/*"

# input_audio formats (openai ``InputAudio.format``: wav, mp3) and their media types.
_AUDIO_FORMATS: Final = {"wav": "audio/wav", "mp3": "audio/mpeg"}
_FORMAT_OF: Final = {"audio/wav": "wav", "audio/x-wav": "wav", "audio/wave": "wav",
                     "audio/mpeg": "mp3", "audio/mp3": "mp3"}
# Block metadata streamkit itself writes: never a wire field.
# (the stream parser's: logprobs and Groq's channel on text, the audio fields).
STREAMKIT_KEYS: Final = frozenset({PCM_RATE_ASSUMED, "audio_id", "expires_at", "undecoded_data",
                                   "transcript", "logprobs", "channel"})
# Metadata keys that go inside the part's object rather than next to it.
_INNER_KEYS: Final = {"image_url": ("detail",), "file": ("file_id",)}


# ---------------------------------------------------------------- writing

def text_part(block: TextBlock) -> Wire:
    """``{"type": "text", "text"}`` with the block's wire extras."""
    return {"type": "text", "text": block.text, **_extras(block.metadata)}


def user_part(block: UserContent) -> Wire | None:
    """The part of one block of user (or tool-result) content; ``None`` for
    another wire format's item, which this wire has no place for."""
    if isinstance(block, TextBlock):
        return text_part(block)
    if isinstance(block, DataBlock):
        return data_part(block)
    if block.kind.startswith(RAW_KIND):
        return block.data
    return None


def data_part(block: DataBlock) -> Wire:
    """An image, audio or file part, by the block's media type (a file id in
    its metadata makes it a file part whatever the type)."""
    if "file_id" in block.metadata:
        return _file_part(block)
    kind = block.media_type.split("/", 1)[0].strip().lower()
    if kind == "audio":
        return _audio_part(block)
    if kind in ("image", "") or isinstance(block.source, URLSource):
        return _image_part(block)
    return _file_part(block)


def data_url(source: Base64Source) -> str:
    """The inline bytes as a ``data:`` URL."""
    return f"data:{source.media_type};base64,{source.data}"


def _image_part(block: DataBlock) -> Wire:
    source = block.source
    url = source.url if isinstance(source, URLSource) else data_url(source)
    if isinstance(source, URLSource) and block.media_type not in ("", ANY_IMAGE) \
            and not block.media_type.startswith("image/"):
        raise ValueError(f"data block {block.id!r} is a {block.media_type!r} URL: Chat "
                         f"Completions takes only images by URL (send files inline)")
    image: Wire = {"url": url}
    if "detail" in block.metadata:
        image["detail"] = block.metadata["detail"]
    return {"type": "image_url", "image_url": image, **_extras(block.metadata, "image_url")}


def _audio_part(block: DataBlock) -> Wire:
    """Base64 wav or mp3; PCM samples are wrapped as WAV first."""
    if not isinstance(block.source, Base64Source):
        raise ValueError(f"data block {block.id!r} is audio by URL: Chat Completions takes "
                         f"audio only inline (input_audio), and nothing is fetched here")
    data = block.source.data
    audio_format = _FORMAT_OF.get(block.media_type.split(";", 1)[0].strip().lower())
    if audio_format is None and block.is_pcm:
        data, audio_format = base64.b64encode(block.to_wav()).decode("ascii"), "wav"
    if audio_format is None:
        raise ValueError(f"data block {block.id!r} is {block.media_type!r} audio: Chat "
                         f"Completions takes wav or mp3 (input_audio.format)")
    return {"type": "input_audio", "input_audio": {"data": data, "format": audio_format},
            **_extras(block.metadata)}


def _file_part(block: DataBlock) -> Wire:
    """``file_data`` (a ``data:`` URL) and ``filename``, or a ``file_id``."""
    file: Wire = {}
    if "file_id" in block.metadata:
        file["file_id"] = block.metadata["file_id"]
    elif isinstance(block.source, Base64Source):
        file["file_data"] = data_url(block.source)
    else:
        raise ValueError(f"data block {block.id!r} is a {block.media_type!r} file by URL: "
                         f"Chat Completions takes files inline (file_data) or by file_id")
    if block.name is not None:
        file["filename"] = block.name
    return {"type": "file", "file": file, **_extras(block.metadata, "file")}


def _extras(metadata: dict[str, Any], inner: str | None = None) -> Wire:
    """A block's wire extras: its metadata without streamkit's own keys and
    without the keys that go inside the part's object."""
    skip = _INNER_KEYS.get(inner, ()) if inner is not None else ()
    return {key: value for key, value in metadata.items()
            if key not in STREAMKIT_KEYS and key not in skip}


# ---------------------------------------------------------------- reading

def read_text_part(part: Wire) -> TextBlock:
    """A text part (its other fields are the block's metadata)."""
    return TextBlock(part["text"], metadata={k: v for k, v in part.items()
                                             if k not in ("type", "text")})


def read_user_part(part: Any) -> UserContent:
    """One part of user content as a block; a part that would not write back
    exactly is kept whole as a RawBlock (see the module docstring)."""
    block = _read_part(part) if isinstance(part, dict) else None
    if block is not None:
        try:
            if user_part(block) == part:
                return block
        except ValueError:
            pass
    kind = part.get("type") if isinstance(part, dict) else None
    return RawBlock(RAW_KIND + (kind if isinstance(kind, str) else "unknown"),
                    part if isinstance(part, dict) else {"part": part})


def _read_part(part: Wire) -> TextBlock | DataBlock | None:
    kind = part.get("type")
    if kind == "text" and isinstance(part.get("text"), str):
        return read_text_part(part)
    if kind == "image_url" and isinstance(part.get("image_url"), dict):
        return _read_image(part)
    if kind == "input_audio" and isinstance(part.get("input_audio"), dict):
        return _read_audio(part)
    if kind == "file" and isinstance(part.get("file"), dict):
        return _read_file(part)
    return None


def _outer(part: Wire, inner: str) -> Wire:
    return {key: value for key, value in part.items() if key not in ("type", inner)}


def read_data_url(url: str) -> tuple[str, bytes] | None:
    """The media type and bytes of a base64 ``data:`` URL; ``None`` for any
    other URL (or base64 that does not decode)."""
    if not url.startswith("data:"):
        return None
    header, comma, payload = url[5:].partition(",")
    if not comma or not header.endswith(";base64"):
        return None
    try:
        return header[: -len(";base64")], base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        return None


def _read_image(part: Wire) -> DataBlock | None:
    image = part["image_url"]
    url = image.get("url")
    if not isinstance(url, str):
        return None
    metadata = _outer(part, "image_url")
    if "detail" in image:
        metadata["detail"] = image["detail"]
    inline = read_data_url(url)
    if inline is None:
        return DataBlock(source=URLSource(url, ANY_IMAGE), metadata=metadata)
    media_type, data = inline
    return DataBlock(source=Base64Source(data, media_type), metadata=metadata)


def _read_audio(part: Wire) -> DataBlock | None:
    audio = part["input_audio"]
    data, audio_format = audio.get("data"), audio.get("format")
    media_type = _AUDIO_FORMATS.get(audio_format) if isinstance(audio_format, str) else None
    if not isinstance(data, str) or media_type is None:
        return None
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None
    return DataBlock(source=Base64Source(raw, media_type), metadata=_outer(part, "input_audio"))


def _read_file(part: Wire) -> DataBlock | None:
    file = part["file"]
    metadata = _outer(part, "file")
    name = file.get("filename")
    if name is not None and not isinstance(name, str):
        return None
    if "file_id" in file:
        metadata["file_id"] = file["file_id"]
        return DataBlock(name=name, metadata=metadata)
    file_data = file.get("file_data")
    inline = read_data_url(file_data) if isinstance(file_data, str) else None
    if inline is None:
        return None
    media_type, data = inline
    return DataBlock(name=name, source=Base64Source(data, media_type), metadata=metadata)
