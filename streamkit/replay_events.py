"""``streamkit.replay_events``: the stable address of a finished response told again as events.

They live in :mod:`streamkit.model.replay`; this name stays so that what users import
from it keeps importing (``tests/test_public_api.py``).
"""

from .model.replay import (
    deltas_of,
    events_of,
    shell_of,
)

__all__ = [
    "deltas_of",
    "events_of",
    "shell_of",
]
