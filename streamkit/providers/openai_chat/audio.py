"""``delta.audio``: one ``DataBlock`` per choice.

The base64 ``data`` is decoded chunk by chunk into ``DataDelta`` bytes (a piece
cut off mid-quantum waits for the next chunk, never re-encoded), ``transcript``
becomes ``TranscriptDelta``; ``id`` is set once as ``metadata["audio_id"]`` and
``expires_at`` (or any other field) replaced when it changes, also after the
finish chunk: the block stays open until the stream ends. Data that is not
base64 is a :class:`~streamkit.model.errors.ProtocolError` naming the field; a
remainder still undecoded at the end is kept as ``metadata["undecoded_data"]``.
"""

from __future__ import annotations

import binascii
from typing import Any, Final

from ...model.errors import ProtocolError
from ...model.events import BlockDelta, DataDelta, Event, MetadataDelta, TranscriptDelta
from .choice_blocks import ChoiceBlocks

__all__ = ["Audio"]

_MISSING: Final = object()


class Audio:
    """A choice's audio block."""

    __slots__ = ("audio_id", "base64_rest", "block", "reported")

    def __init__(self, block: int) -> None:
        self.block = block
        self.audio_id: Any = None
        self.reported: dict[str, Any] = {}  # other fields as last reported
        self.base64_rest = ""  # the end of a chunk's base64 cut off mid-quantum

    def read(self, choice: ChoiceBlocks, audio: dict[str, Any], out: list[Event]) -> None:
        """One ``delta.audio`` object."""
        metadata: dict[str, Any] = {}
        for key, value in audio.items():
            if value is None:
                continue
            if key == "data":
                if type(value) is not str:
                    metadata["data"] = value
                elif value:
                    data = self._decode(value, choice.index)
                    if data:
                        out.append(BlockDelta(index=self.block, delta=DataDelta(data),
                                              choice=choice.index))
            elif key == "transcript":
                if type(value) is not str:
                    metadata["transcript"] = value
                elif value:
                    out.append(BlockDelta(index=self.block, delta=TranscriptDelta(value),
                                          choice=choice.index))
            elif key == "id":
                if self.audio_id is None:
                    self.audio_id = value
                    metadata["audio_id"] = value
            elif self.reported.get(key, _MISSING) != value:
                self.reported[key] = value
                metadata[key] = value
        if metadata:
            out.append(BlockDelta(index=self.block, delta=MetadataDelta(metadata),
                                  choice=choice.index))

    def _decode(self, text: str, choice: int) -> bytes:
        """Decode one chunk's base64, carrying a piece cut off mid-quantum over."""
        if self.base64_rest:
            text = self.base64_rest + text
            self.base64_rest = ""
        cut = len(text) % 4
        if cut:
            self.base64_rest = text[-cut:]
            text = text[:-cut]
        try:
            return binascii.a2b_base64(text)
        except (binascii.Error, ValueError) as exc:  # ValueError: not ASCII
            raise ProtocolError(
                f"invalid base64 in choices[{choice}].delta.audio.data: {exc}", raw=text[:200],
            ) from exc

    def close(self, choice: ChoiceBlocks, out: list[Event]) -> None:
        """At the end: base64 left over that never completed a quantum is kept."""
        if self.base64_rest:
            out.append(BlockDelta(index=self.block,
                                  delta=MetadataDelta({"undecoded_data": self.base64_rest}),
                                  choice=choice.index))
