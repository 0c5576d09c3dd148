"""The stable address of token usage and its rules, which live in
:mod:`streamkit.model.usage`."""

from .model.usage import *  # noqa: F403
from .model.usage import __all__ as __all__
