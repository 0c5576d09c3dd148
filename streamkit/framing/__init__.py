"""Framing: the bytes of a stream <-> its payloads, in both directions.

- :mod:`.sse`: Server-Sent Events (WHATWG), incremental and sans-IO;
- :mod:`.ndjson`: newline-delimited JSON.

Pure and incremental: bytes in, ``(event, data)`` out; nothing here knows a
provider.
"""
