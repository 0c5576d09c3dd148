"""Instructions per read of ``make bench``'s reading payloads through the
client's reading path with a key, counted by callgrind (the machine's load
does not change them): each payload and shape is run once to warm up, then
once between two callgrind client requests, the collector off.

    gcc -O1 -shared -fPIC -o /tmp/libcg.so bench/callgrind_requests.c
    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=/tmp/cg.%p \\
        .venv/bin/python bench/redaction_instructions.py KEYS_PY KIND /tmp/libcg.so
    # then, per dump: instructions / reads (the dump's name says the reads)

``KEYS_PY``: ``branch`` (this tree's Redactor and RedactingParser) or the path
of another tree's ``streamkit/client/keys.py`` (its Redactor alone, as main
reads); ``KIND``: ``sk`` or ``aiza``, the key's shape.
"""

from __future__ import annotations

import ctypes
import gc
import importlib.util
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from payloads import anthropic_text, openai_text, openai_tools, split_events, split_network

from streamkit.providers import Parser, get_parser
from streamkit.reading.pipeline import Pipeline

KEYS = {"sk": "sk-proj-" + "x7Q2" * 12, "aiza": "AIzaSy" + "Bx7Q2k" * 6}


def keys_module(where: str) -> Any:
    if where == "branch":
        from streamkit.client import keys
        return keys
    spec = importlib.util.spec_from_file_location("other_keys", where)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    where, kind, library = sys.argv[1:4]
    requests = ctypes.CDLL(library)
    key = keys_module(where).ApiKey(KEYS[kind], "OPENAI_API_KEY")

    def parser(provider: str) -> str | Parser:
        if where != "branch":
            return provider
        from streamkit.client.redacting import redacting
        return redacting(get_parser(provider), key)

    def run(provider: str, chunks: list[bytes]) -> None:
        pipeline, redactor = Pipeline(parser(provider)), key.redactor()
        for chunk in chunks:
            pipeline.feed(redactor.feed(chunk))
        pipeline.feed(redactor.flush())
        pipeline.finish()

    bodies = {"openai-text": ("openai", openai_text(4000)),
              "openai-tools": ("openai", openai_tools(64_000)),
              "anthropic-text": ("anthropic", anthropic_text(4000))}
    for name, (provider, body) in bodies.items():
        for shape, chunks in (("events", split_events(body)), ("net", split_network(body))):
            run(provider, chunks)
            gc.collect()
            gc.disable()
            requests.cg_start()
            run(provider, chunks)
            requests.cg_dump(f"{name}:{shape}:{len(chunks)}".encode())
            gc.enable()


if __name__ == "__main__":
    main()
