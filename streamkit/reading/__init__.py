"""Reading a stream: bytes from any source to events and the final response.

- :mod:`.pipeline`: the sans-IO chain, bytes -> framing -> the wire's parser ->
  the accumulator (:func:`~streamkit.replay`);
- :mod:`.stream`: :func:`~streamkit.stream`, the thin async / sync I/O layer over
  the pipeline: pull, feed, yield, close;
- :mod:`.error_body`: an HTTP error response read as a typed error;
- :mod:`.aiohttp_source`: an aiohttp response as a source;
- :mod:`.coalesce`: frame-rate coalescing for UIs.
"""
