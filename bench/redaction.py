"""What taking a client's key out of a stream costs when the key never appears
(the hot path): ``make bench``'s payloads read one SSE event per read and in
4 KB reads, by the plain pipeline and by the client's (each chunk through the
key's :class:`~streamkit.client.keys.Redactor`, the events through
:class:`~streamkit.client.redacting.RedactingParser`). Prints microseconds per
read and the overhead in percent.

    .venv/bin/python bench/redaction.py
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from payloads import anthropic_text, openai_text, openai_tools, split_events, split_network

from streamkit.client.keys import ApiKey
from streamkit.client.redacting import redacting
from streamkit.providers import get_parser
from streamkit.reading.pipeline import Pipeline

KEY = ApiKey("sk-proj-" + "x7Q2" * 12, "OPENAI_API_KEY")


def plain(provider: str, chunks: list[bytes]) -> None:
    pipeline = Pipeline(provider)
    for chunk in chunks:
        pipeline.feed(chunk)
    pipeline.finish()


def redacted(provider: str, chunks: list[bytes]) -> None:
    pipeline = Pipeline(redacting(get_parser(provider), KEY))
    redactor = KEY.redactor()
    for chunk in chunks:
        pipeline.feed(redactor.feed(chunk))
    pipeline.feed(redactor.flush())
    pipeline.finish()


def best(run: Callable[[str, list[bytes]], None], provider: str, chunks: list[bytes]) -> float:
    """The fastest of several runs, in microseconds per read."""
    times = []
    for _ in range(7):
        started = time.perf_counter()
        run(provider, chunks)
        times.append(time.perf_counter() - started)
    return min(times) / len(chunks) * 1e6


def main() -> None:
    bodies = {"openai text": ("openai", openai_text(4000)),
              "openai tools": ("openai", openai_tools(64_000)),
              "anthropic text": ("anthropic", anthropic_text(4000))}
    for name, (provider, body) in bodies.items():
        for shape, chunks in (("one event per read", split_events(body)),
                              ("4 KB reads", split_network(body))):
            before, after = best(plain, provider, chunks), best(redacted, provider, chunks)
            print(f"{name:15} {shape:19} plain {before:7.2f} us/read  with the key "
                  f"{after:7.2f} us/read  +{(after / before - 1) * 100:5.1f} %")


if __name__ == "__main__":
    main()
