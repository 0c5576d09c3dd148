"""``streamkit.pipeline``: the stable address of the sans-IO pipeline.

They live in :mod:`streamkit.reading.pipeline`; this name stays so that what users import
from it keeps importing (``tests/test_public_api.py``).
"""

from .reading.pipeline import (
    DEFAULT_MAX_EVENT_BYTES,
    DEFAULT_MAX_TOTAL_BYTES,
    Pipeline,
    Replayed,
    replay,
)

__all__ = [
    "DEFAULT_MAX_EVENT_BYTES",
    "DEFAULT_MAX_TOTAL_BYTES",
    "Pipeline",
    "Replayed",
    "replay",
]
