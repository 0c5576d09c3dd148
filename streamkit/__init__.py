"""streamkit: one typed, lossless model for the streaming output of LLM APIs.

Feed provider stream events to an :class:`Accumulator` (or build a
:class:`ChatResponse` by hand with its ``append_*`` methods) and read typed
blocks: :class:`TextBlock`, :class:`ThinkingBlock`, :class:`ToolCallBlock`,
:class:`DataBlock`.
"""

from .accumulate import Accumulator
from .blocks import (
    Base64Source,
    Block,
    ContentBlock,
    DataBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    URLSource,
    block_from_dict,
)
from .errors import (
    BlockConflictError,
    IncompleteStreamError,
    LimitExceeded,
    ProtocolError,
    ProviderError,
    StreamError,
    ToolArgumentsError,
)
from .events import (
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
from .finish import FinishReason
from .merge import DeltaMismatchError, apply_delta, apply_snapshot
from .pipeline import Pipeline, replay
from .response import ChatResponse
from .stream import Stream, SyncStream, stream
from .usage import ChatUsage, merge_usage

__version__ = "0.1.0"

__all__ = [
    "Accumulator",
    "Base64Source",
    "Block",
    "BlockConflictError",
    "BlockDelta",
    "BlockEnd",
    "BlockStart",
    "ChatResponse",
    "ChatUsage",
    "CitationDelta",
    "ContentBlock",
    "DataBlock",
    "DataDelta",
    "Delta",
    "DeltaMismatchError",
    "ErrorEvent",
    "Event",
    "FinishReason",
    "IncompleteStreamError",
    "LimitExceeded",
    "MetadataAppendDelta",
    "MetadataDelta",
    "Pipeline",
    "ProtocolError",
    "ProviderError",
    "RawBlock",
    "ResponseEnd",
    "ResponseMetadata",
    "ResponseStart",
    "SignatureDelta",
    "Stream",
    "StreamError",
    "SyncStream",
    "TextBlock",
    "TextDelta",
    "ThinkingBlock",
    "ThinkingDelta",
    "ToolArgumentsError",
    "ToolCallBlock",
    "ToolInputDelta",
    "ToolResultBlock",
    "TranscriptDelta",
    "URLSource",
    "UsageUpdate",
    "__version__",
    "apply_delta",
    "apply_snapshot",
    "block_from_dict",
    "event_to_dict",
    "merge_usage",
    "replay",
    "stream",
]
