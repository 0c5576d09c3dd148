"""``python -m streamkit``: the demo and the replay tool (see :mod:`streamkit.cli`)."""

from .cli import main

raise SystemExit(main())
