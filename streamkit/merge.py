"""The stable address of block-level merging, which live in
:mod:`streamkit.model.merge`."""

from .model.merge import *  # noqa: F403
from .model.merge import __all__ as __all__
