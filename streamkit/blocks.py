"""The stable address of the content blocks, which live in
:mod:`streamkit.model.blocks`."""

from .model.blocks import *  # noqa: F403
from .model.blocks import __all__ as __all__
