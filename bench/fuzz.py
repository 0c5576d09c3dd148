"""Mutation fuzzing of the whole reading path: N mutated recordings, outcomes counted.

Run: make fuzz   (or .venv/bin/python bench/fuzz.py [-n 100000] [--seed 1])

Each input is a recording from ``tests/fixtures`` with one to three mutations,
run one way (``replay()``, a sync or async ``stream()``, ``on_error`` raise or
return; ``auto``, the right provider or a random one) with one chunking; the
contract is checked as ``tests/test_fuzz.py`` does (see ``tests/support/stream_fuzzing.py``):
a clean result or a ``StreamError`` with ``.partial``; the same result for
the whole body in one chunk; reading the result raises nothing undocumented.

Prints the count of each outcome (``ok``, ``error`` by type, ``crash`` and
``violation`` by signature) and, for every breach, the smallest input that
showed it, written to ``--out`` (default ``$TMPDIR/streamkit-fuzz``) so it can be
replayed: ``python -m streamkit replay FILE --provider P``. Exit status 1 when
any breach was found.

Then the write side, ``-n`` cases of each kind (see ``tests/support/write_fuzzing.py``):
``request`` (``parse_request``, then ``build_request`` of what it read),
``response`` (``parse_response`` of a dict, bytes or text) and ``tool``
(``Tool.run_json`` / ``run_json_sync``), over mutated recorded bodies and
tool arguments: only the promised errors (``InvalidBodyError``; an error
body's ``ProviderError``; a builder's ``UnsupportedFeatureError``; a tool
always returns a result). ``guarded`` counts errors made only by the codec's
last line (typed, but a defect still open in a reader). ``--kinds`` picks
the kinds (default: ``stream,request,response,tool``).

Then ``--client`` calls (default 2,000) of ``Client`` / ``SyncClient``
``create()`` and ``stream()`` against a raw-socket server that cuts, resets,
trickles, hangs and corrupts every phase of a recorded answer (see
``tests/support/client_fuzzing.py``): only typed errors, partials kept, no call past
its total timeout, every connection closed. ``--client 0`` skips them.
"""

from __future__ import annotations

import argparse
import collections
import logging
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from support.client_fuzzing import describe
from support.client_fuzzing import fuzz as fuzz_client
from support.stream_fuzzing import Case, Outcome, check, load_bodies, make_case
from support.write_fuzzing import KINDS, WriteCase, WriteFuzzer


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=100_000, help="how many mutated inputs")
    parser.add_argument("--seed", type=int, default=1, help="the random seed (runs repeat)")
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "streamkit-fuzz",
                        help="where to write the smallest input of each breach")
    parser.add_argument("--client", type=int, default=2_000,
                        help="how many client calls against a faulty server (0: none)")
    parser.add_argument("--kinds", default=",".join(("stream", *KINDS)),
                        help="which inputs: stream, request, response, tool (comma-separated)")
    args = parser.parse_args()
    kinds = args.kinds.split(",")
    statuses = [fuzz_streams(args)] if "stream" in kinds else []
    statuses += [fuzz_writing(kind, args.n, args.seed) for kind in KINDS if kind in kinds]
    return max([*statuses, fuzz_the_client(args.client, args.seed)])


def fuzz_writing(kind: str, count: int, seed: int) -> int:
    """``count`` mutated write-side inputs of ``kind``, their outcomes counted."""
    fuzzer = WriteFuzzer(kind, random.Random(seed), timed=True)
    counts: collections.Counter[str] = collections.Counter()
    breaches: dict[tuple[str, str, str], tuple[WriteCase, Outcome, int]] = {}
    started = time.perf_counter()
    for number in range(1, count + 1):
        case = fuzzer.make()
        outcome = fuzzer.check(case)
        counts[f"{outcome.kind} {outcome.name}".strip()] += 1
        if outcome.kind in ("crash", "violation", "guarded"):  # the first case, and how many
            first, first_outcome, seen = breaches.get(outcome.signature, (case, outcome, 0))
            breaches[outcome.signature] = (first, first_outcome, seen + 1)
        if number % 5_000 == 0:  # a tally so far, for a run stopped before its end
            tally = ", ".join(f"{name} {seen:,}" for name, seen in counts.most_common())
            print(f"  {kind}: {number:,} inputs, {time.perf_counter() - started:.0f} s: {tally}",
                  file=sys.stderr)
    print(f"\n{count:,} mutated {kind} inputs (seed {seed}) in "
          f"{time.perf_counter() - started:.0f} s")
    for name, number in counts.most_common():
        print(f"  {number:>8,}  {name}")
    untyped = sum(number for name, number in counts.items() if name.startswith("crash"))
    guarded = sum(number for name, number in counts.items() if name.startswith("guarded"))
    print(f"exceptions outside the promised types: {untyped}")
    print(f"promised errors made only by the codec's last line: {guarded}")
    for signature, (case, outcome, number) in sorted(breaches.items()):
        print(f"\n{number:,} x {' '.join(signature)}\n  {outcome.detail}\n  first: "
              f"{case.describe()}")
    return 1 if any(kind != "guarded" for kind, _, _ in breaches) else 0  # guarded: typed


def fuzz_the_client(count: int, seed: int) -> int:
    """The client under faults: ``count`` calls, their outcomes counted."""
    if count <= 0:
        return 0
    logging.getLogger("streamkit.client").setLevel(logging.ERROR)  # every failed attempt
    started = time.perf_counter()
    done = [0]

    def progress(*_: object) -> None:
        done[0] += 1
        if done[0] % 500 == 0:
            print(f"  {done[0]:,} calls, {time.perf_counter() - started:.0f} s", file=sys.stderr)

    counts, breaches, all_closed = fuzz_client(count, seed, on_outcome=progress)
    print(f"\n{count:,} client calls under faults (seed {seed}) in "
          f"{time.perf_counter() - started:.0f} s")
    for name, number in sorted(counts.items(), key=lambda item: -item[1]):
        print(f"  {number:>8,}  {name}")
    untyped = sum(number for name, number in counts.items() if name.startswith("crash"))
    print(f"exceptions that are not a StreamkitError: {untyped}")
    print(f"every connection closed by the end: {all_closed}")
    for signature, (case, outcome) in sorted(breaches.items()):
        print(f"\n{' '.join(signature)}\n  {outcome.detail}\n  first: {describe(case)}")
    return 1 if breaches or not all_closed else 0


def fuzz_streams(args: argparse.Namespace) -> int:
    """The mutated recordings through every reading path."""
    bodies = load_bodies()
    rng = random.Random(args.seed)
    counts: collections.Counter[str] = collections.Counter()
    breaches: dict[tuple[str, str, str], tuple[Case, Outcome, int]] = {}
    started = time.perf_counter()
    for number in range(1, args.n + 1):
        case = make_case(rng, bodies)
        outcome = check(case)
        counts[f"{outcome.kind} {outcome.name}".strip()] += 1
        if outcome.kind in ("crash", "violation"):
            seen = breaches.get(outcome.signature)
            count = 1 if seen is None else seen[2] + 1
            smallest = seen is None or len(case.body) < len(seen[0].body)
            breaches[outcome.signature] = (case if smallest else seen[0],  # type: ignore[index]
                                           outcome if smallest else seen[1],  # type: ignore[index]
                                           count)
        if number % 10_000 == 0:
            print(f"  {number:,} inputs, {time.perf_counter() - started:.0f} s", file=sys.stderr)
    elapsed = time.perf_counter() - started
    print(f"{args.n:,} mutated inputs (seed {args.seed}) in {elapsed:.0f} s")
    for name, count in counts.most_common():
        print(f"  {count:>8,}  {name}")
    not_stream_errors = sum(count for name, count in counts.items() if name.startswith("crash"))
    print(f"exceptions that are not a StreamError: {not_stream_errors}")
    if breaches:
        args.out.mkdir(parents=True, exist_ok=True)
    for index, (signature, (case, outcome, count)) in enumerate(sorted(breaches.items())):
        path = args.out / f"{index:02d}-{outcome.name}.txt"
        path.write_bytes(case.body)
        print(f"\n{count:,} x {' '.join(signature)}\n  {outcome.detail}\n  smallest: "
              f"{case.fixture} {case.mutations}, {case.mode}, provider={case.provider}, "
              f"{case.chunking}, on_error={case.on_error}, {len(case.body)} bytes -> {path}")
    return 1 if breaches else 0


if __name__ == "__main__":
    raise SystemExit(main())
