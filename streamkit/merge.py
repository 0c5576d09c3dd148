"""``streamkit.merge``: the stable address of block-level merging.

They live in :mod:`streamkit.model.merge`; this name stays so that what users import
from it keeps importing (``tests/test_public_api.py``).
"""

from .model.merge import (
    DELTA_APPLIERS,
    DeltaMismatchError,
    apply_delta,
    apply_snapshot,
    streamed_text,
)

__all__ = [
    "DELTA_APPLIERS",
    "DeltaMismatchError",
    "apply_delta",
    "apply_snapshot",
    "streamed_text",
]
