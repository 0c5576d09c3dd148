"""``streamkit.codec``: the stable address of every wire format's codecs behind one door.

They live in :mod:`streamkit.providers.codec`; this name stays so that what users import
from it keeps importing (``tests/test_public_api.py``).
"""

from .providers.codec import (
    EncodedError,
    EncodedStream,
    build_request,
    encode_error,
    encode_response,
    encode_stream,
    parse_request,
    parse_response,
)

__all__ = [
    "EncodedError",
    "EncodedStream",
    "build_request",
    "encode_error",
    "encode_response",
    "encode_stream",
    "parse_request",
    "parse_response",
]
