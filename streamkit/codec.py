"""The stable address of every wire format's codecs behind one door, which live in
:mod:`streamkit.providers.codec`."""

from .providers.codec import *  # noqa: F403
from .providers.codec import __all__ as __all__
