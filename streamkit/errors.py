"""The stable address of the error hierarchy, which live in
:mod:`streamkit.model.errors`."""

from .model.errors import *  # noqa: F403
from .model.errors import __all__ as __all__
