"""``streamkit.errors``: the stable address of the error hierarchy.

They live in :mod:`streamkit.model.errors`; this name stays so that what users import
from it keeps importing (``tests/test_public_api.py``).
"""

from .model.errors import (
    BlockConflictError,
    IncompleteStreamError,
    InvalidBase64Error,
    InvalidBodyError,
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
    UnsupportedFeatureError,
    warn_lossy,
)

__all__ = [
    "BlockConflictError",
    "IncompleteStreamError",
    "InvalidBase64Error",
    "InvalidBodyError",
    "LimitExceeded",
    "LossyTranslationWarning",
    "MediaTypeError",
    "NoResponseError",
    "ProtocolError",
    "ProviderConfigError",
    "ProviderError",
    "StreamError",
    "StreamkitError",
    "StructuredOutputError",
    "ToolArgumentsError",
    "ToolDefinitionError",
    "UnsupportedFeatureError",
    "warn_lossy",
]
