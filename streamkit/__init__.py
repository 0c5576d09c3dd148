"""streamkit: one typed, lossless model for the streaming output of LLM APIs.

What this package exports is what users call; everything else stays in its
module. From here:

- streams: :func:`stream`, :func:`replay` (and the :class:`Replayed` it returns),
  :class:`Stream`, :class:`SyncStream`;
- the client: :class:`Client`, :class:`SyncClient`, :data:`PROVIDERS`,
  :class:`Fallback`, :class:`Timeouts`, :class:`RetryPolicy`, :class:`Attempt`,
  :class:`ModelInfo`, :class:`ProviderEntry` (imported on first use: ``import streamkit`` loads
  neither httpx nor pydantic);
- tools from MCP servers: :class:`McpWorkbench` (imported on first use, with the ``mcp``
  extra);
- a request's input tokens: :class:`TokenCount` (``client.count_tokens()``'s
  answer) and :func:`estimate_tokens`, the estimate where an API cannot count;
- the answer: :class:`ChatResponse`, :class:`ChatUsage`, :class:`FinishReason`,
  the blocks (:class:`TextBlock`, :class:`ThinkingBlock`,
  :class:`ToolCallBlock`, :class:`DataBlock`, ...) and :class:`Accumulator`,
  which folds events into responses;
- the events a UI handles (:class:`ResponseStart`, :class:`BlockStart`,
  :class:`BlockDelta`, :class:`BlockEnd`, :class:`UsageUpdate`,
  :class:`ResponseEnd`, :class:`ErrorEvent`) and the deltas it checks
  (:class:`TextDelta`, :class:`ThinkingDelta`, :class:`ToolInputDelta`,
  :class:`DataDelta`, :class:`TranscriptDelta`, :class:`CitationDelta`);
- talking back: the messages, :func:`build_request`, :func:`parse_request`,
  :func:`parse_response`, :class:`Request`, ``ToolChoice``, ``JsonOutput``,
  :class:`JsonSchemaOutput`, :class:`CachePoint`, :func:`tool`, :class:`Tool`, :class:`Workbench`,
  :class:`StaticWorkbench` and :func:`run_calls` (a response's calls run by
  whatever tools the request was given);
- answering as a provider: :func:`encode_stream` (events or a response -> the
  provider's stream bytes), :func:`encode_response` (its non-streamed body)
  and :func:`encode_error` (its HTTP error answer);
- every error type, under :class:`StreamkitError`.

Internals are imported from their modules: the sans-IO
:class:`~streamkit.pipeline.Pipeline`, :func:`~streamkit.merge.apply_delta` /
:func:`~streamkit.merge.apply_snapshot`, :func:`~streamkit.usage.merge_usage`,
:func:`~streamkit.blocks.block_from_dict`, :func:`~streamkit.events.event_to_dict`
and the bookkeeping events (:class:`~streamkit.events.ResponseMetadata`,
:class:`~streamkit.events.SignatureDelta`, :class:`~streamkit.events.MetadataDelta`,
:class:`~streamkit.events.MetadataAppendDelta`).
"""

import importlib
import logging
from typing import TYPE_CHECKING, Any

from .__about__ import __version__
from .conversation.estimate import estimate_tokens
from .conversation.messages import (
    AssistantMessage,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    Message,
    SystemMessage,
    UserMessage,
)
from .conversation.request import JsonOutput, JsonSchemaOutput, Request, ToolChoice
from .conversation.strict import StrictSchemaError
from .conversation.tools import Tool, tool
from .conversation.workbench import StaticWorkbench, Workbench, run_calls
from .model.accumulate import Accumulator
from .model.blocks import (
    Block,
    Citation,
    ContentBlock,
    DataBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from .model.cache import CachePoint
from .model.data_sources import Base64Source, URLSource
from .model.errors import (
    BlockConflictError,
    IncompleteStreamError,
    InvalidBase64Error,
    InvalidBodyError,
    InvalidMessageError,
    LimitExceeded,
    LossyTranslationWarning,
    MediaTypeError,
    NoResponseError,
    ProtocolError,
    ProviderConfigError,
    ProviderError,
    StreamError,
    StreamkitError,
    StructuredOutputError,
    ToolArgumentsError,
    ToolDefinitionError,
    ToolServerError,
    UnsupportedFeatureError,
)
from .model.events import (
    BlockDelta,
    BlockEnd,
    BlockStart,
    CitationDelta,
    DataDelta,
    Delta,
    ErrorEvent,
    Event,
    ResponseEnd,
    ResponseStart,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
    TranscriptDelta,
    UsageUpdate,
)
from .model.finish import FinishReason
from .model.merge import DeltaMismatchError
from .model.partial_json import PartialJSONError
from .model.response import ChatResponse
from .model.token_count import TokenCount
from .model.usage import ChatUsage
from .providers.codec import (
    build_request,
    encode_error,
    encode_response,
    encode_stream,
    parse_request,
    parse_response,
)
from .reading.pipeline import Replayed, replay
from .reading.stream import Stream, SyncStream, stream

# A library's loggers stay silent until the application configures logging: without
# a handler, Python's last-resort handler would print every retry warning to stderr
# beside the error the caller reports (the client logs each failed attempt).
logging.getLogger("streamkit").addHandler(logging.NullHandler())

if TYPE_CHECKING:  # the client, imported when first used: it loads httpx
    from .client import Attempt, Client, Fallback, SyncClient, Timeouts
    from .client.retry import RetryPolicy
    from .mcp import McpWorkbench
    from .model.vendors import PROVIDERS, ModelInfo, ProviderEntry

#: Names imported on first use (``import streamkit`` stays free of httpx).
_LAZY = {
    "Attempt": ".client", "Client": ".client", "SyncClient": ".client", "Timeouts": ".client",
    "Fallback": ".client",
    "PROVIDERS": ".model.vendors", "ModelInfo": ".model.vendors",
    "ProviderEntry": ".model.vendors", "RetryPolicy": ".client.retry",
    "McpWorkbench": ".mcp",  # needs the mcp extra: streamkit/mcp/__init__.py says so if missing
}


def __getattr__(name: str) -> Any:
    """The client's names, imported when first asked for."""
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")



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
    "CachePoint",
    "ChatResponse",
    "ChatUsage",
    "Citation",
    "CitationDelta",
    "Client",
    "ContentBlock",
    "DataBlock",
    "DataDelta",
    "Delta",
    "DeltaMismatchError",
    "ErrorEvent",
    "Event",
    "Fallback",
    "FinishReason",
    "FunctionExecutionResult",
    "FunctionExecutionResultMessage",
    "IncompleteStreamError",
    "InvalidBase64Error",
    "InvalidBodyError",
    "InvalidMessageError",
    "JsonOutput",
    "JsonSchemaOutput",
    "LimitExceeded",
    "LossyTranslationWarning",
    "McpWorkbench",
    "MediaTypeError",
    "Message",
    "ModelInfo",
    "NoResponseError",
    "PartialJSONError",
    "ProtocolError",
    "ProviderConfigError",
    "ProviderEntry",
    "ProviderError",
    "RawBlock",
    "Replayed",
    "Request",
    "ResponseEnd",
    "ResponseStart",
    "RetryPolicy",
    "StaticWorkbench",
    "Stream",
    "StreamError",
    "StreamkitError",
    "StrictSchemaError",
    "StructuredOutputError",
    "SyncClient",
    "SyncStream",
    "SystemMessage",
    "TextBlock",
    "TextDelta",
    "ThinkingBlock",
    "ThinkingDelta",
    "Timeouts",
    "TokenCount",
    "Tool",
    "ToolArgumentsError",
    "ToolCallBlock",
    "ToolChoice",
    "ToolDefinitionError",
    "ToolInputDelta",
    "ToolResultBlock",
    "ToolServerError",
    "TranscriptDelta",
    "URLSource",
    "UnsupportedFeatureError",
    "UsageUpdate",
    "UserMessage",
    "Workbench",
    "__version__",
    "build_request",
    "encode_error",
    "encode_response",
    "encode_stream",
    "estimate_tokens",
    "parse_request",
    "parse_response",
    "replay",
    "run_calls",
    "stream",
    "tool",
]
