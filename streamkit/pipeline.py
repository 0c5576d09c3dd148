"""The stable address of the sans-IO pipeline, which live in
:mod:`streamkit.reading.pipeline`."""

from .reading.pipeline import *  # noqa: F403
from .reading.pipeline import __all__ as __all__
