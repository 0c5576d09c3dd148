"""The stable address of a finished response told again as events, which live in
:mod:`streamkit.model.replay`."""

from .model.replay import *  # noqa: F403
from .model.replay import __all__ as __all__
