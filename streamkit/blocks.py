"""``streamkit.blocks``: the stable address of the content blocks.

They live in :mod:`streamkit.model.blocks`; this name stays so that what users import
from it keeps importing (``tests/test_public_api.py``).
"""

from .model.blocks import (
    DEFAULT_PCM_RATE,
    PCM_RATE_ASSUMED,
    SERVER_CALL,
    Base64Source,
    Block,
    Citation,
    ContentBlock,
    DataBlock,
    ModelT,
    PCMFormat,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    URLSource,
    arguments_text,
    block_from_dict,
    decode_arguments,
    new_block_id,
    pcm_format,
)

__all__ = [
    "DEFAULT_PCM_RATE",
    "PCM_RATE_ASSUMED",
    "SERVER_CALL",
    "Base64Source",
    "Block",
    "Citation",
    "ContentBlock",
    "DataBlock",
    "ModelT",
    "PCMFormat",
    "RawBlock",
    "TextBlock",
    "ThinkingBlock",
    "ToolCallBlock",
    "ToolResultBlock",
    "URLSource",
    "arguments_text",
    "block_from_dict",
    "decode_arguments",
    "new_block_id",
    "pcm_format",
]
