"""PCM audio: what its media type says (rate, channels), and a WAV file of it.

Speech streams as raw 16-bit little-endian samples whose rate and channels ride
in the media type's parameters (``audio/pcm;rate=24000``,
``audio/L16;codec=pcm;rate=24000;channels=2``). :func:`pcm_format` reads them
without trusting the wire's word to divide by, assuming
:data:`DEFAULT_PCM_RATE` where the type names no rate, and :func:`wav_file`
wraps the samples so any player takes them. :class:`~streamkit.model.blocks.DataBlock`
reads its duration and writes ``to_wav()`` with these; :mod:`streamkit.model.blocks`
re-exports the public names.
"""

from __future__ import annotations

import re
import struct
from typing import NamedTuple

__all__ = ["DEFAULT_PCM_RATE", "PCM_RATE_ASSUMED", "PCMFormat", "is_pcm", "pcm_format",
           "wav_file"]


_PCM_TYPES = {"audio/pcm", "audio/l16", "audio/x-pcm", "audio/pcm16"}
_PARAM = re.compile(r";\s*([a-zA-Z0-9_-]+)\s*=\s*([^;\s]+)")

#: The sample rate assumed for PCM audio whose media type names none
#: (``audio/pcm``): OpenAI's and Gemini's speech rate. A block that relies on
#: it says so in ``metadata[PCM_RATE_ASSUMED]``.
DEFAULT_PCM_RATE = 24000
PCM_RATE_ASSUMED = "pcm_rate_assumed"
_POSITIVE_INT = re.compile(r"[0-9]{1,9}")


class PCMFormat(NamedTuple):
    """What a PCM media type says about its samples (16-bit little-endian)."""

    rate: int
    channels: int
    rate_assumed: bool
    """No ``rate`` parameter: :data:`DEFAULT_PCM_RATE` is assumed."""


def pcm_format(media_type: str) -> PCMFormat | None:
    """The sample rate and channels of a PCM media type (``audio/pcm;rate=16000``,
    ``audio/L16;codec=pcm;rate=24000;channels=2``); ``None`` when the type is not
    PCM, or a ``rate`` / ``channels`` parameter is not a positive whole number
    that a WAV header can hold (the wire's word is never trusted to divide by)."""
    if not is_pcm(media_type):
        return None
    params = {key.lower(): value for key, value in _PARAM.findall(media_type)}
    rate_text = params.get("rate")
    channels_text = params.get("channels", "1")
    for text in (rate_text, channels_text):
        if text is not None and (not _POSITIVE_INT.fullmatch(text) or int(text) == 0):
            return None
    rate = DEFAULT_PCM_RATE if rate_text is None else int(rate_text)
    channels = int(channels_text)
    if channels * 2 > 0xFFFF or rate * channels * 2 > 0xFFFFFFFF:  # WAV's 16- and 32-bit fields
        return None
    return PCMFormat(rate, channels, rate_text is None)


def is_pcm(media_type: str) -> bool:
    """Whether a media type names raw 16-bit PCM samples (any parameters)."""
    return media_type.split(";", 1)[0].strip().lower() in _PCM_TYPES


def wav_file(pcm: bytes, audio: PCMFormat) -> bytes:
    """A WAV file of 16-bit little-endian PCM samples (as the providers send
    them) in ``audio``'s rate and channels: the 44-byte header, then ``pcm``."""
    rate, channels = audio.rate, audio.channels
    header = b"RIFF" + struct.pack("<I", 36 + len(pcm)) + b"WAVE"
    header += b"fmt " + struct.pack("<IHHIIHH", 16, 1, channels, rate, rate * channels * 2,
                                    channels * 2, 16)
    header += b"data" + struct.pack("<I", len(pcm))
    return header + pcm
