"""The hostile-input contract on mutated recordings and bodies, and growth
probes that keep every cost linear.

The mutation loops (``tests/support/stream_fuzzing.py``, ``tests/support/write_fuzzing.py``) are
seeded, so a failure repeats, and count their cases (``FUZZ_CASES``,
``WRITE_FUZZ_CASES``), so a slow machine runs the same ones; only a case that
hangs for ``HANG_SECONDS`` stops a loop early. The long runs, 100,000 cases
of each kind, are ``make fuzz`` (``bench/fuzz.py``). A breach
of the contract fails the test with the smallest input that showed it, unless
its signature is listed in
:data:`KNOWN_OPEN_BREACHES` (crashes inside ``streamkit/providers/`` that
their owners have not fixed yet: remove an entry once its parser is fixed).

The client under faults (``tests/support/client_fuzzing.py``, 2,000 calls under
``make fuzz``) runs for at most ``CLIENT_FUZZ_SECONDS``: every fault once,
then random ones.

The growth probes count work where it can be counted (bytes handed to a
parser, characters joined) and otherwise compare the CPU time of two sizes,
four times apart: linear work grows about 4x, quadratic 16x; the bound is
8x, the best of three runs.
"""

from __future__ import annotations

import collections
import itertools
import json
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import support.client_fuzzing as client_fuzzing
from support.client_fuzzing import describe
from support.growth import assert_linear
from support.recordings import fixture_id, recordings
from support.stream_fuzzing import (
    Case,
    Outcome,
    check,
    load_bodies,
    make_case,
    right_provider,
    run_replay,
)
from support.write_fuzzing import KINDS, WriteFuzzer

import streamkit
from streamkit import IncompleteStreamError, ProtocolError, ProviderError, ToolCallBlock, replay
from streamkit.model.partial_json import is_truncated
from streamkit.testing import load_recording

#: The seeded cases of each round the suite runs (``make fuzz`` runs 100,000),
#: and the time after which a round that has not finished them has hung.
FUZZ_CASES = 600
HANG_SECONDS = 120.0
CLIENT_FUZZ_SECONDS = 10.0
CLIENT_FUZZ_CASES = 400
SEED = 20_261_001

#: Breaches of the contract found by fuzzing and not fixed yet, as
#: ``(kind, exception type, "path:function" of the innermost streamkit frame)``.
#: Only crashes inside ``streamkit/providers/`` (owned by the parsers' authors)
#: may be listed; each entry says what reproduces it. Empty: none is open.
KNOWN_OPEN_BREACHES: dict[tuple[str, str, str], str] = {}


def _report(breaches: dict[tuple[str, str, str], tuple[Case, Outcome]]) -> str:
    lines = []
    for signature, (case, outcome) in sorted(breaches.items()):
        lines.append(f"{' '.join(signature)}: {outcome.detail}\n    {case.fixture} "
                     f"{case.mutations} {case.mode} provider={case.provider} {case.chunking} "
                     f"on_error={case.on_error}: {case.body[:300]!r}")
    return "\n".join(lines)


def test_mutated_recordings_end_typed_and_any_chunking_gives_the_same_result() -> None:
    bodies = load_bodies()
    rng = random.Random(SEED)
    breaches: dict[tuple[str, str, str], tuple[Case, Outcome]] = {}
    deadline = time.monotonic() + HANG_SECONDS
    ran = 0
    while ran < FUZZ_CASES and time.monotonic() < deadline:
        case = make_case(rng, bodies)
        outcome = check(case)
        ran += 1
        if outcome.kind in ("crash", "violation") and outcome.signature not in KNOWN_OPEN_BREACHES:
            kept = breaches.get(outcome.signature)
            if kept is None or len(case.body) < len(kept[0].body):
                breaches[outcome.signature] = (case, outcome)
    assert not breaches, f"{len(breaches)} breach(es) of the contract:\n{_report(breaches)}"
    assert ran == FUZZ_CASES, f"only {ran} cases ran in {HANG_SECONDS} s: a case hangs"


def test_the_client_under_faults_raises_only_typed_errors_keeps_partials_and_never_hangs(
) -> None:
    """A bounded run of ``tests/support/client_fuzzing.py`` (``make fuzz`` runs 2,000
    calls): every fault once, then random ones, for at most CLIENT_FUZZ_SECONDS."""
    counts, breaches, all_closed = client_fuzzing.fuzz(CLIENT_FUZZ_CASES, SEED,
                                                       seconds=CLIENT_FUZZ_SECONDS)
    report = "\n".join(f"{' '.join(signature)}: {outcome.detail}\n    {describe(case)}"
                       for signature, (case, outcome) in sorted(breaches.items()))
    assert not breaches, f"{len(breaches)} breach(es) of the contract:\n{report}"
    assert all_closed, "a connection was left open by the client"
    ran = sum(counts.values())
    assert ran >= len(client_fuzzing.FAULTS), f"only {ran} calls in {CLIENT_FUZZ_SECONDS} s"
    assert counts.get("ok", 0) and counts.get("error IncompleteStreamError", 0), counts


def test_known_open_breaches_are_only_in_the_parsers() -> None:
    for (_, _, where), repro in KNOWN_OPEN_BREACHES.items():
        assert where.startswith("providers/") and repro, where


@pytest.mark.parametrize("path", recordings(), ids=fixture_id)
def test_unmutated_recordings_keep_the_contract_every_way(path: Path) -> None:
    raw = load_recording(path)[0]
    rng = random.Random(path.name)
    cuts = sorted(rng.sample(range(1, len(raw)), min(30, len(raw) - 1)))
    edges = [0, *cuts, len(raw)]
    ways = {"random": [raw[a:b] for a, b in itertools.pairwise(edges)],
            "bom split": [b"\xef", b"\xbb\xbf" + raw[:3], raw[3:]]}
    if len(raw) < 12_000:
        ways["1-byte"] = [raw[i:i + 1] for i in range(len(raw))]
    for provider in ("auto", right_provider(path)):
        for chunking, chunks in ways.items():
            body = b"\xef\xbb\xbf" + raw if chunking == "bom split" else raw
            for mode in ("replay", "sync", "async"):
                case = Case(fixture_id(path), [], body, chunking, chunks, provider, mode, "raise")
                outcome = check(case)
                assert outcome.kind in ("ok", "error"), (chunking, mode, provider, outcome)
                assert outcome.kind == "ok" or outcome.name == "ProviderError", outcome


@pytest.mark.parametrize("path", recordings()[::3], ids=fixture_id)
def test_a_transport_cut_anywhere_is_incomplete_with_a_prefix_of_the_answer(path: Path) -> None:
    raw = load_recording(path)[0]
    full = run_replay([raw], "auto")
    rng = random.Random(path.name)
    for cut in rng.sample(range(len(raw)), min(10, len(raw))):
        def source(cut: int = cut) -> Iterator[bytes]:
            yield raw[:cut]
            raise ConnectionResetError("cut")

        with pytest.raises(IncompleteStreamError) as info:
            streamkit.stream(source()).final()
        partial = info.value.partial
        assert partial is not None and partial.finished_reason == "interrupted"
        assert full.response is not None
        answer = "".join(b.get("text", "") for b in full.response["content"])
        assert answer.startswith(partial.text) or partial.text == ""


# ---------------------------------------------------------------- growth probes


def _chat_deltas(count: int) -> bytes:
    chunk = {"id": "c", "object": "chat.completion.chunk", "choices": [
        {"index": 0, "delta": {"content": "word "}, "finish_reason": None}]}
    return (b"data: " + json.dumps(chunk).encode() + b"\n\n") * count + b"data: [DONE]\n\n"


def _ollama_lines(count: int, bad_at: int | None = None) -> bytes:
    line = json.dumps({"model": "m", "created_at": "t", "done": False,
                       "message": {"role": "assistant", "content": "w "}}).encode() + b"\n"
    lines = [line] * count
    if bad_at is not None:
        lines.insert(bad_at, b'{"model": oops}\n')
    return b"".join(lines)


def _replaying(data: bytes, chunk: int = 0, expect: type[Exception] | None = None
               ) -> Callable[[], Any]:
    chunks = [data[i:i + chunk] for i in range(0, len(data), chunk)] if chunk else [data]

    def run() -> None:
        if expect is None:
            replay(chunks)
        else:
            with pytest.raises(expect):
                replay(chunks)

    return run


GROWTH_PROBES: dict[str, tuple[Callable[[int], Callable[[], Any]], int]] = {
    "SSE text deltas in one chunk": (lambda n: _replaying(_chat_deltas(n)), 2_000),
    "SSE text deltas in 64-byte chunks": (lambda n: _replaying(_chat_deltas(n), 64), 1_000),
    "one SSE event of many data lines": (
        lambda n: _replaying(b"data: " + b"\ndata: ".join([b"x"] * n) + b"\n\n", 0, ProtocolError),
        20_000),
    "JSON lines": (lambda n: _replaying(_ollama_lines(n)), 2_000),
    "JSON lines, then a bad one": (
        lambda n: _replaying(_ollama_lines(n, bad_at=n), 0, ProtocolError), 2_000),
    "a bad JSON line, then many (each was joined to it and retried)": (
        lambda n: _replaying(_ollama_lines(n, bad_at=1), 4096, ProtocolError), 2_000),
    "a JSON document over many lines": (
        lambda n: _replaying(json.dumps({"error": {"message": "m", "list": list(range(n))}},
                                        indent=1).encode(), 97, ProviderError), 5_000),
    "blank space before the first payload, 1-byte chunks": (
        lambda n: _replaying(b"\n" * n + _chat_deltas(1), 1), 5_000),
    "a cut-off last event at a clean end": (
        lambda n: _replaying(b'data: {"id": "c", "choices": [{"delta": {"content": "'
                             + b"x" * n, expect=IncompleteStreamError), 50_000),  # no answer
}


@pytest.mark.parametrize("probe", list(GROWTH_PROBES))
def test_growth_is_linear(probe: str) -> None:
    make, size = GROWTH_PROBES[probe]
    assert_linear(make, size)


def test_growth_of_partial_arguments_read_after_every_delta() -> None:
    def make(fragments: int) -> Callable[[], Any]:
        def run() -> None:
            call = ToolCallBlock("c", "write")
            call._input.append('{"text": "')
            for _ in range(fragments):
                call._input.append("abcd")
                _ = call.partial_arguments
        return run

    assert_linear(make, 20_000)


def test_growth_of_the_cut_off_check_on_huge_numbers() -> None:
    assert_linear(lambda n: lambda: is_truncated('{"n": ' + "9" * n), 50_000)


def test_growth_of_partial_output_read_after_every_fragment() -> None:
    """A structured answer (a list of records) read as a partial model after
    every 4-character fragment: each read rebuilds only the open part."""
    from pydantic import BaseModel

    from streamkit.model.blocks import TextBlock
    from streamkit.model.events import BlockDelta, BlockStart, TextDelta
    from streamkit.model.structured.reader import PartialOutputReader

    class Record(BaseModel):
        name: str
        score: float
        tags: list[str]

    class Records(BaseModel):
        records: list[Record]

    def make(count: int) -> Callable[[], Any]:
        text = json.dumps({"records": [{"name": f"record number {i} " * 3, "score": i / 7,
                                        "tags": ["alpha", "beta"]} for i in range(count)]})
        events = [BlockDelta(index=0, delta=TextDelta(text[i:i + 4]))
                  for i in range(0, len(text), 4)]

        def run() -> None:
            reader = PartialOutputReader(Records)
            reader.push(BlockStart(index=0, block=TextBlock()))
            for event in events:
                reader.push(event)
                reader.snapshot()
            assert len(reader.current().records) == count
        return run

    assert_linear(make, 60)


# ---------------------------------------------------------------- the write side

WRITE_FUZZ_CASES = {"request": 400, "response": 400, "tool": 1_000}
"""Cases of each kind: a request case also builds for a random provider and
validates the body with its SDK's types (about three times a response case)."""


@pytest.mark.parametrize("kind", KINDS)
def test_mutated_bodies_and_tool_arguments_end_in_the_promised_types(kind: str) -> None:
    """``parse_request`` / ``parse_response`` raise ``InvalidBodyError`` (or an
    error body's ``ProviderError``), ``build_request`` of what was read returns
    a body or refuses with ``UnsupportedFeatureError``, ``run_json`` returns a
    result; and no class of malformed body reaches the codec's last line
    (``guarded``): each is refused where it lives. ``bench/fuzz.py`` runs
    100,000 of each kind."""
    fuzzer = WriteFuzzer(kind, random.Random(SEED))
    breaches: dict[tuple[str, str, str], tuple[str, str]] = {}
    outcomes: collections.Counter[str] = collections.Counter()
    deadline = time.monotonic() + HANG_SECONDS
    ran = 0
    while ran < WRITE_FUZZ_CASES[kind] and time.monotonic() < deadline:
        case = fuzzer.make()
        outcome = fuzzer.check(case)
        outcomes[outcome.kind] += 1
        ran += 1
        if outcome.kind in ("crash", "violation", "guarded"):
            breaches.setdefault(outcome.signature, (outcome.detail, case.describe()))
    assert not breaches, "\n".join(f"{' '.join(signature)}: {detail}\n    {case}"
                                   for signature, (detail, case) in sorted(breaches.items()))
    assert ran == WRITE_FUZZ_CASES[kind], f"only {ran} cases ran in {HANG_SECONDS} s: a case hangs"
    assert outcomes["ok"] and outcomes["error"], outcomes  # both kinds of ending were reached
