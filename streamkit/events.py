"""The stable address of the event vocabulary, which live in
:mod:`streamkit.model.events`."""

from .model.events import *  # noqa: F403
from .model.events import __all__ as __all__
