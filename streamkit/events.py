"""``streamkit.events``: the stable address of the event vocabulary.

They live in :mod:`streamkit.model.events`; this name stays so that what users import
from it keeps importing (``tests/test_public_api.py``).
"""

from .model.events import (
    BlockDelta,
    BlockEnd,
    BlockStart,
    CitationDelta,
    DataDelta,
    Delta,
    ErrorEvent,
    Event,
    MetadataAppendDelta,
    MetadataDelta,
    ResponseEnd,
    ResponseMetadata,
    ResponseStart,
    SignatureDelta,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
    TranscriptDelta,
    UsageUpdate,
    event_to_dict,
)

__all__ = [
    "BlockDelta",
    "BlockEnd",
    "BlockStart",
    "CitationDelta",
    "DataDelta",
    "Delta",
    "ErrorEvent",
    "Event",
    "MetadataAppendDelta",
    "MetadataDelta",
    "ResponseEnd",
    "ResponseMetadata",
    "ResponseStart",
    "SignatureDelta",
    "TextDelta",
    "ThinkingDelta",
    "ToolInputDelta",
    "TranscriptDelta",
    "UsageUpdate",
    "event_to_dict",
]
