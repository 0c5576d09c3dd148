"""streamkit: one typed, lossless model for the streaming output of LLM APIs.

Feed provider stream events to an :class:`Accumulator` (or build a
:class:`ChatResponse` by hand with its ``append_*`` methods) and read typed
blocks: :class:`TextBlock`, :class:`ThinkingBlock`, :class:`ToolCallBlock`,
:class:`DataBlock`.
"""

import importlib
import logging
from typing import TYPE_CHECKING, Any

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
    InvalidBase64Error,
    LimitExceeded,
    MediaTypeError,
    ProtocolError,
    ProviderError,
    StreamError,
    StructuredOutputError,
    ToolArgumentsError,
    ToolDefinitionError,
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
from .messages import (
    AssistantMessage,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    Message,
    SystemMessage,
    UserMessage,
)
from .pipeline import Pipeline, Replayed, replay
from .request import JsonSchemaOutput, Request, build_request, parse_request, parse_response
from .response import ChatResponse
from .stream import Stream, SyncStream, stream
from .tools import Tool, tool
from .usage import ChatUsage, merge_usage

# A library's loggers stay silent until the application configures logging: without
# a handler, Python's last-resort handler would print every retry warning to stderr
# beside the error the caller reports (the client logs each failed attempt).
logging.getLogger("streamkit").addHandler(logging.NullHandler())

if TYPE_CHECKING:  # the client (issue 12), imported when first used: it loads httpx
    from .client import Attempt, Client, SyncClient, Timeouts
    from .registry import PROVIDERS, ModelInfo, ProviderConfigError, ProviderEntry
    from .retry import RetryPolicy

#: Names imported on first use (``import streamkit`` stays free of httpx).
_LAZY = {
    "Attempt": ".client", "Client": ".client", "SyncClient": ".client", "Timeouts": ".client",
    "PROVIDERS": ".registry", "ModelInfo": ".registry", "ProviderConfigError": ".registry",
    "ProviderEntry": ".registry", "RetryPolicy": ".retry",
}


def __getattr__(name: str) -> Any:
    """The client's names, imported when first asked for."""
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__version__ = "0.1.0"

__all__ = [
    "PROVIDERS",
    "Accumulator",
    "AssistantMessage",
    "Attempt",
    "Base64Source",
    "Block",
    "BlockConflictError",
    "BlockDelta",
    "BlockEnd",
    "BlockStart",
    "ChatResponse",
    "ChatUsage",
    "CitationDelta",
    "Client",
    "ContentBlock",
    "DataBlock",
    "DataDelta",
    "Delta",
    "DeltaMismatchError",
    "ErrorEvent",
    "Event",
    "FinishReason",
    "FunctionExecutionResult",
    "FunctionExecutionResultMessage",
    "IncompleteStreamError",
    "InvalidBase64Error",
    "JsonSchemaOutput",
    "LimitExceeded",
    "MediaTypeError",
    "Message",
    "MetadataAppendDelta",
    "MetadataDelta",
    "ModelInfo",
    "Pipeline",
    "ProtocolError",
    "ProviderConfigError",
    "ProviderEntry",
    "ProviderError",
    "RawBlock",
    "Replayed",
    "Request",
    "ResponseEnd",
    "ResponseMetadata",
    "ResponseStart",
    "RetryPolicy",
    "SignatureDelta",
    "Stream",
    "StreamError",
    "StructuredOutputError",
    "SyncClient",
    "SyncStream",
    "SystemMessage",
    "TextBlock",
    "TextDelta",
    "ThinkingBlock",
    "ThinkingDelta",
    "Timeouts",
    "Tool",
    "ToolArgumentsError",
    "ToolCallBlock",
    "ToolDefinitionError",
    "ToolInputDelta",
    "ToolResultBlock",
    "TranscriptDelta",
    "URLSource",
    "UsageUpdate",
    "UserMessage",
    "__version__",
    "apply_delta",
    "apply_snapshot",
    "block_from_dict",
    "build_request",
    "event_to_dict",
    "merge_usage",
    "parse_request",
    "parse_response",
    "replay",
    "stream",
    "tool",
]
