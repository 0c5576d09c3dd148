"""Framing: the bytes of a stream <-> its payloads, in both directions.

- :mod:`.sse`: Server-Sent Events (WHATWG), incremental and sans-IO, and the
  SSE frame writer;
- :mod:`.ndjson`: newline-delimited JSON, the splitter and the line writer;
- :mod:`.json_array`: the JSON-array form of a stream (written only);
- :mod:`.encoding`: the one JSON-encoding rule every writer uses (a lone
  surrogate as its escape, U+2028 / U+2029 / U+0085 escaped).

Pure and incremental: bytes in, ``(event, data)`` out, and payloads in, frame
bytes out; nothing here knows a provider.
"""
