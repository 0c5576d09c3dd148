"""``streamkit.adapters.aiohttp``: the aiohttp source under its first name.

The source itself is :mod:`streamkit.reading.aiohttp_source`, beside the stream that
reads it; :func:`streamkit.stream` takes an ``aiohttp.ClientResponse`` as it
is. This module keeps the names it always had:

>>> async with session.post(url, json=body, headers=headers) as response:
...     async with streamkit.adapters.aiohttp.stream(response) as events:
...         async for item in events: ...
"""

from __future__ import annotations

from typing import Unpack

import aiohttp

from ..reading.aiohttp_source import aiohttp_chunks
from ..reading.options import ReadKeywords, ReadOptions
from ..reading.stream import Stream
from ..reading.stream import stream as _stream

__all__ = ["aiohttp_chunks", "stream"]


def stream(response: aiohttp.ClientResponse, provider: str = "auto", *,
           options: ReadOptions | None = None, **keywords: Unpack[ReadKeywords]) -> Stream:
    """``streamkit.stream(aiohttp_chunks(response), provider, ...)``, read as
    ``options`` and ``keywords`` say."""
    return _stream(aiohttp_chunks(response), provider, options=options, **keywords)
