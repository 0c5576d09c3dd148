"""pytest-benchmark micro-benchmarks of the pipeline's hot paths, stage by stage.

Run: make bench-micro (not part of make test).

Each stage is timed alone on 20,000 OpenAI Chat text chunks (and Anthropic
events for the parser), so a regression in bench/compare.py's end-to-end
figure can be pinned on one stage: SSE framing, payload decode + parse, event
apply, final join, and the whole chain for reference. The stages that need a
provider parser skip cleanly while that parser does not exist yet.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import payloads

from streamkit import Accumulator, ChatResponse
from streamkit.framing.sse import SSEDecoder, SSEEvent

N = 20_000
ROUNDS = 15
EXPECTED_TEXT = len("".join(payloads.text_tokens(N)))
BODIES = {"openai": payloads.openai_text(N), "anthropic": payloads.anthropic_text(N)}
MODULES = {"openai": "openai_chat", "anthropic": "anthropic"}


def _parser(provider: str) -> Any:
    """A fresh parser, or skip the test if its module is not written yet."""
    if importlib.util.find_spec(f"streamkit.providers.{MODULES[provider]}") is None:
        pytest.skip(f"streamkit.providers.{MODULES[provider]} does not exist yet")
    from streamkit.providers import get_parser

    return get_parser(provider)


def _framed(provider: str) -> list[SSEEvent]:
    decoder = SSEDecoder()
    return [e for chunk in payloads.split_network(BODIES[provider])
            for e in decoder.feed(chunk)] + decoder.flush()


def _events(provider: str) -> list[Any]:
    """Fresh events for one round (the Accumulator adopts the blocks they carry)."""
    parser, out = _parser(provider), []
    for sse in _framed(provider):
        out += parser.feed(sse.data, None if sse.event == "message" else sse.event)
    return out + parser.finish()


def test_sse_framing_20k(benchmark: Any) -> None:
    """Bytes in 4 KB reads -> SSEEvent objects."""
    chunks = payloads.split_network(BODIES["openai"])

    def run() -> int:
        decoder = SSEDecoder()
        count = sum(len(decoder.feed(chunk)) for chunk in chunks)
        return count + len(decoder.flush())

    assert benchmark(run) == N + 4


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_decode_and_parse_20k(benchmark: Any, provider: str) -> None:
    """Pre-framed payloads -> msgspec decode -> provider parser -> events."""
    _parser(provider)
    framed = [(e.data, None if e.event == "message" else e.event) for e in _framed(provider)]

    def run() -> int:
        parser, count = _parser(provider), 0
        for data, name in framed:
            count += len(parser.feed(data, name))
        return count + len(parser.finish())

    assert benchmark(run) >= N


def test_event_apply_20k(benchmark: Any) -> None:
    """Parsed events -> Accumulator (one dict lookup + merge per event)."""
    _parser("openai")

    def run(events: list[Any]) -> ChatResponse:
        accumulator = Accumulator()
        accumulator.apply_all(events)
        return accumulator.response

    response = benchmark.pedantic(run, setup=lambda: ((_events("openai"),), {}),
                                  rounds=ROUNDS)
    assert len(response.text) == EXPECTED_TEXT


def test_final_join_20k(benchmark: Any) -> None:
    """The one join at the end: 20,000 fragments -> ``response.text``."""
    _parser("openai")

    def setup() -> tuple[tuple[ChatResponse], dict[str, Any]]:
        accumulator = Accumulator()
        accumulator.apply_all(_events("openai"))
        return (accumulator.response,), {}

    text = benchmark.pedantic(lambda response: response.text, setup=setup, rounds=ROUNDS)
    assert len(text) == EXPECTED_TEXT


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_end_to_end_20k(benchmark: Any, provider: str) -> None:
    """Everything at once, as bench/compare.py times it: bytes -> final text."""
    _parser(provider)
    import streamkit

    chunks = payloads.split_network(BODIES[provider])
    text = benchmark(lambda: streamkit.replay(chunks, provider)[1].text)
    assert len(text) == EXPECTED_TEXT
