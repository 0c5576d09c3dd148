"""Content parts of Chat Completions messages <-> streamkit blocks, both ways,
and a response's ``annotations`` -> :class:`~streamkit.model.blocks.Citation`.

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
their own names, as this wire's :class:`~streamkit.model.extras.Extras`, and is
written back into the part (``detail`` goes inside ``image_url``, ``file_id``
inside ``file``); another wire's extras are never written
(:func:`~streamkit.model.extras.extras_for`). Reading a part checks that it writes
back exactly; one that would not (an unknown type, base64 that is not
canonical, a field in an odd place) becomes a :class:`~streamkit.model.blocks.RawBlock`
of kind ``openai-chat:<type>`` holding the part, sent back as it is
(:func:`~streamkit.providers.lossless.exactly`). A RawBlock of any other kind is
another wire format's item: this wire has no place for it, so it is dropped.
Sans-IO: a URL is never fetched, so audio and files must be inline (or a
``file_id``); a web URL is only possible for images; anything else is an
:class:`~streamkit.model.errors.UnsupportedFeatureError`.

The ids a reader makes up come from the request's
:class:`~streamkit.model.ids.StreamIds` (seeded with the body), so two reads of the
same body are ``==``.

Citations: an annotation ``{"type": "url_citation", "url_citation": {"url",
"title", "start_index", "end_index"}}`` is a :class:`~streamkit.model.blocks.Citation`
with the annotation itself as ``raw`` (:func:`read_citation`).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Mapping
from typing import Any, Final, TypeVar

from ...conversation.messages import UserContent
from ...model.blocks import Block, Citation, DataBlock, RawBlock, TextBlock
from ...model.data_sources import Base64Source, URLSource
from ...model.errors import UnsupportedFeatureError
from ...model.extras import Extras, extras_for
from ...model.ids import StreamIds
from ...model.pcm import PCM_RATE_ASSUMED
from ..coerce import Wire, as_int, as_str
from ..lossless import exactly, kept, raw_part_or_dropped
from ..media import base_media_type, data_url, read_data_url
from .wire import NAME

__all__ = [
    "ANY_IMAGE",
    "RAW_KIND",
    "STREAMKIT_KEYS",
    "data_part",
    "kept_exactly",
    "own",
    "own_extras",
    "raw_block",
    "read_citation",
    "read_text_part",
    "read_user_part",
    "text_part",
    "user_part",
]


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
    return {"type": "text", "text": block.text, **own_extras(block.metadata)}


def user_part(block: UserContent) -> Wire | None:
    """The part of one block of user (or tool-result) content; ``None`` for
    another wire format's item, which this wire has no place for."""
    if isinstance(block, TextBlock):
        return text_part(block)
    if isinstance(block, DataBlock):
        return data_part(block)
    if block.kind.startswith(RAW_KIND):
        return block.data
    raw_part_or_dropped(block, NAME)  # another wire's part: left out, with a warning
    return None


def data_part(block: DataBlock) -> Wire:
    """An image, audio or file part, by the block's media type (a file id in
    its metadata makes it a file part whatever the type)."""
    if "file_id" in extras_for(block.metadata, NAME):
        return _file_part(block)
    kind = block.media_type.split("/", 1)[0].strip().lower()
    if kind == "audio":
        return _audio_part(block)
    if kind in ("image", "") or isinstance(block.source, URLSource):
        return _image_part(block)
    return _file_part(block)


def _image_part(block: DataBlock) -> Wire:
    source = block.source
    url = source.url if isinstance(source, URLSource) else data_url(source)
    if isinstance(source, URLSource) and block.media_type not in ("", ANY_IMAGE) \
            and not block.media_type.startswith("image/"):
        raise UnsupportedFeatureError(
            NAME, f"a {block.media_type!r} file by URL (data block {block.id!r})",
            "Chat Completions takes only images by URL (send files inline)")
    image: Wire = {"url": url}
    extras = extras_for(block.metadata, NAME)
    if "detail" in extras:
        image["detail"] = extras["detail"]
    return {"type": "image_url", "image_url": image, **own_extras(extras, "image_url")}


def _audio_part(block: DataBlock) -> Wire:
    """Base64 wav or mp3; PCM samples are wrapped as WAV first."""
    if not isinstance(block.source, Base64Source):
        raise UnsupportedFeatureError(
            NAME, f"audio by URL (data block {block.id!r})",
            "Chat Completions takes audio only inline (input_audio), and nothing is fetched here")
    data = block.source.data
    audio_format = _FORMAT_OF.get(base_media_type(block.media_type))
    if audio_format is None and block.is_pcm:
        data, audio_format = base64.b64encode(block.to_wav()).decode("ascii"), "wav"
    if audio_format is None:
        raise UnsupportedFeatureError(
            NAME, f"{block.media_type!r} audio (data block {block.id!r})",
            "Chat Completions takes wav or mp3 (input_audio.format)")
    return {"type": "input_audio", "input_audio": {"data": data, "format": audio_format},
            **own_extras(block.metadata)}


def _file_part(block: DataBlock) -> Wire:
    """``file_data`` (a ``data:`` URL) and ``filename``, or a ``file_id``."""
    file: Wire = {}
    extras = extras_for(block.metadata, NAME)
    if "file_id" in extras:
        file["file_id"] = extras["file_id"]
    elif isinstance(block.source, Base64Source):
        file["file_data"] = data_url(block.source)
    else:
        raise UnsupportedFeatureError(
            NAME, f"a {block.media_type!r} file by URL (data block {block.id!r})",
            "Chat Completions takes files inline (file_data) or by file_id")
    if block.name is not None:
        file["filename"] = block.name
    return {"type": "file", "file": file, **own_extras(extras, "file")}


def own_extras(metadata: Mapping[str, Any], inner: str | None = None,
               skip: frozenset[str] = frozenset()) -> Wire:
    """A block's wire extras: its metadata when it is this wire's own (or set
    by hand; another wire's is never written), without streamkit's own keys,
    the keys that go inside the part's object and ``skip``."""
    left_out = STREAMKIT_KEYS | skip | frozenset(_INNER_KEYS.get(inner, ()) if inner else ())
    return {key: value for key, value in extras_for(metadata, NAME).items()
            if key not in left_out}


# ---------------------------------------------------------------- reading

def own(fields: Mapping[str, Any] | None = None) -> Extras:
    """``fields`` (none: an empty record) as this wire's extras: what a reader keeps."""
    return Extras(NAME, fields or {})


BlockT = TypeVar("BlockT", bound=Block)


def raw_block(part: Any, ids: StreamIds) -> RawBlock:
    """A part kept whole, sent back as it is: a RawBlock of kind
    ``openai-chat:<type>`` (``unknown`` when it has none; a part that is not an
    object is kept as ``{"part": part}``)."""
    kind = part.get("type") if isinstance(part, dict) else None
    return kept(RAW_KIND + (kind if isinstance(kind, str) else "unknown"),
                part if isinstance(part, dict) else {"part": part}, NAME, ids)


def kept_exactly(block: BlockT | None, write: Callable[[BlockT], Any], part: Any,
                 ids: StreamIds) -> BlockT | RawBlock:
    """``block`` when writing it gives ``part`` back exactly, else the part kept
    whole (:func:`~streamkit.providers.lossless.exactly`), as a part no block
    stands for is (:func:`raw_block`)."""
    if block is None or not isinstance(part, dict):
        return raw_block(part, ids)
    kind = part.get("type")
    kept = exactly(block, write, part, wire=NAME, ids=ids,
                   kind=RAW_KIND + (kind if isinstance(kind, str) else "unknown"))
    assert kept is block or isinstance(kept, RawBlock)
    return kept


def read_text_part(part: Wire, ids: StreamIds) -> TextBlock:
    """A text part (its other fields are the block's metadata)."""
    return TextBlock(part["text"], id=ids.make("text"),
                     metadata=own({k: v for k, v in part.items() if k not in ("type", "text")}))


def read_user_part(part: Any, ids: StreamIds) -> UserContent:
    """One part of user content as a block; a part that would not write back
    exactly is kept whole as a RawBlock (see the module docstring)."""
    block = _read_part(part, ids) if isinstance(part, dict) else None
    return kept_exactly(block, user_part, part, ids)


def _read_part(part: Wire, ids: StreamIds) -> TextBlock | DataBlock | None:
    kind = part.get("type")
    if kind == "text" and isinstance(part.get("text"), str):
        return read_text_part(part, ids)
    if kind == "image_url" and isinstance(part.get("image_url"), dict):
        return _read_image(part, ids)
    if kind == "input_audio" and isinstance(part.get("input_audio"), dict):
        return _read_audio(part, ids)
    if kind == "file" and isinstance(part.get("file"), dict):
        return _read_file(part, ids)
    return None


def _outer(part: Wire, inner: str) -> Extras:
    return own({key: value for key, value in part.items() if key not in ("type", inner)})


def _read_image(part: Wire, ids: StreamIds) -> DataBlock | None:
    image = part["image_url"]
    url = image.get("url")
    if not isinstance(url, str):
        return None
    metadata = _outer(part, "image_url")
    if "detail" in image:
        metadata["detail"] = image["detail"]
    inline = read_data_url(url)
    source = inline if inline is not None else URLSource(url, ANY_IMAGE)
    return DataBlock(ids.make("data"), source=source, metadata=metadata)


def _read_audio(part: Wire, ids: StreamIds) -> DataBlock | None:
    audio = part["input_audio"]
    data, audio_format = audio.get("data"), audio.get("format")
    media_type = _AUDIO_FORMATS.get(audio_format) if isinstance(audio_format, str) else None
    if not isinstance(data, str) or media_type is None:
        return None
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None
    return DataBlock(ids.make("data"), source=Base64Source(raw, media_type),
                     metadata=_outer(part, "input_audio"))


def _read_file(part: Wire, ids: StreamIds) -> DataBlock | None:
    file = part["file"]
    metadata = _outer(part, "file")
    name = file.get("filename")
    if name is not None and not isinstance(name, str):
        return None
    if "file_id" in file:
        metadata["file_id"] = file["file_id"]
        return DataBlock(ids.make("data"), name=name, metadata=metadata)
    file_data = file.get("file_data")
    inline = read_data_url(file_data) if isinstance(file_data, str) else None
    if inline is None:
        return None
    return DataBlock(ids.make("data"), name=name, source=inline, metadata=metadata)


# ---------------------------------------------------------------- citations

def read_citation(annotation: dict[str, Any]) -> Citation:
    """A response annotation as a :class:`~streamkit.model.blocks.Citation`: a
    ``url_citation`` keeps its facts under its type's name (a vendor that puts
    them next to ``type`` is read the same way); the annotation itself is
    ``raw``, for this wire only."""
    kind = annotation.get("type")
    inner = annotation.get(kind) if isinstance(kind, str) else None
    facts = inner if type(inner) is dict else annotation
    return Citation(url=as_str(facts.get("url")), title=as_str(facts.get("title")),
                    start=as_int(facts.get("start_index")), end=as_int(facts.get("end_index")),
                    raw=annotation, wire=NAME)
