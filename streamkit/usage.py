"""``streamkit.usage``: the stable address of token usage and its merge rule.

They live in :mod:`streamkit.model.usage`; this name stays so that what users import
from it keeps importing (``tests/test_public_api.py``).
"""

from .model.usage import (
    Accounting,
    ChatUsage,
    merge_usage,
)

__all__ = [
    "Accounting",
    "ChatUsage",
    "merge_usage",
]
