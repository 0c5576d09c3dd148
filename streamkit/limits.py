"""The limits that keep hostile input bounded, in one place.

Each is documented in the README with what exceeding it does; every one of them
ends in a typed :class:`~streamkit.errors.StreamError` (never another exception)
with the partial response kept.
"""

from __future__ import annotations

#: The deepest JSON nesting a payload or tool-argument text may have. Real
#: payloads nest a few levels; a hostile one would otherwise hit Python's
#: recursion limit inside a decoder. Exceeding it raises ``ProtocolError``.
MAX_JSON_DEPTH = 512
