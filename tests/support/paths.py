"""Where things are: the repository, its ``tests/`` folder and the recordings."""

from __future__ import annotations

from pathlib import Path

#: The repository's root (``pyproject.toml``, ``streamkit/``, ``docs/``, ``web/``...).
ROOT = Path(__file__).resolve().parent.parent.parent
#: ``tests/``: on ``sys.path`` for the tests (``support`` is imported from here).
TESTS = ROOT / "tests"
#: The recorded streams, bodies and conversations (never edited: see MANIFEST.md).
FIXTURES = TESTS / "fixtures"
