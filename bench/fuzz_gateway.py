"""The gateway under attack, the encoders and FakeProvider scripts: hostile cases, outcomes counted.

Run: make fuzz   (after bench/fuzz.py), or
     .venv/bin/python bench/fuzz_gateway.py [-n 100000] [--gateway-n 10000] [--seed 1]
                                            [--kinds auth,faults,encoders,scripts]

Four kinds, each a module of ``tests/support/`` that says its contract:

- ``auth`` (``gateway_fuzzing.py``): ``--gateway-n`` random requests (methods,
  paths, queries, key forms: none, wrong, right, odd, cut) to one gateway
  process in front of a FakeProvider: nothing gets through without the key,
  no caller key reaches the upstream, no key in an answer or the gateway's log;
- ``faults`` (``gateway_faults.py``): ``--gateway-n`` callers per fault (an
  upstream that cuts, resets, hangs, trickles, answers another wire, a
  redirect, an empty 200, a stream with no content and no end, an error, its
  key; a caller that sends slowly, hangs up, never finishes): a real success
  or the caller's wire's error, never a success made of a failure, every
  body valid for the caller's SDK types, no connection or file left open;
- ``encoders`` (``encoder_fuzzing.py``): ``-n`` random answers with hostile
  text through every encoder, read back by streamkit and validated as the
  SDK types, one in ``--sdk-every`` read by the official SDK over a socket;
- ``scripts`` (``script_fuzzing.py``): ``-n`` random FakeProvider answers
  served over HTTP on every wire, read by the Client (and one in
  ``--sdk-every`` by the official SDK).

Prints each kind's outcomes and time, and for every breach its count and the
smallest case that showed it. Exit status 1 when any breach was found.
``--timeouts name=seconds,...`` writes a ``[timeouts]`` table into the
gateway's config (for a gateway that has one).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import logging
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from support import encoder_fuzzing, gateway_faults, gateway_fuzzing, script_fuzzing
from support.stream_fuzzing import Outcome

KINDS = ("auth", "faults", "encoders", "scripts")
PASSING = ("ok", "error", "timeout")
#: The issue's counts, each the breaches of these names (a crash is any exception not promised).
SUMS = {
    "requests through without the key": {"ThroughWithoutKey", "KeyRefused"},
    "secrets in a log, an answer or an upstream request": {"KeyInLog", "KeyInAnswer",
                                                           "CallerKeyUpstream"},
    "successes made of a failure": {"SuccessMadeOfFailure", "FailureAsSuccess",
                                    "RedirectPassedOn"},
    "invalid bodies for the SDK types (or their readers)": {
        "InvalidForSdk", "ErrorUnreadable", "Unreadable", "SdkFailed", "SdkMissedTheError"},
    "silent losses (or changes)": {"Changed", "AnswerLost", "SdkChanged", "Injected",
                                   "ReadFailed", "AnswerAsError", "WrongStatus", "WrongError",
                                   "FakeFailed", "ConnectionBroken"},
    "connections or files left open": {"UpstreamLeftOpen", "FilesLeaked", "HeldOpen"},
}


class Tally:
    """The outcomes of one kind: counts, and the smallest case of each breach."""

    def __init__(self, kind: str, total: int) -> None:
        self.kind = kind
        self.total = total
        self.counts: collections.Counter[str] = collections.Counter()
        self.breaches: dict[tuple[str, str, str], tuple[str, Outcome, int]] = {}
        self.started = time.perf_counter()
        self.done = 0

    def tell(self, case: Any, outcome: Outcome, label: str = "") -> None:
        self.done += 1
        self.counts[" ".join(part for part in (label, outcome.kind, outcome.name) if part)] += 1
        if outcome.kind in PASSING:
            if self.done % 10_000 == 0:
                print(f"  {self.kind}: {self.done:,} cases, "
                      f"{time.perf_counter() - self.started:.0f} s", file=sys.stderr)
            return
        said = case.describe() if case is not None else "(the run as a whole)"
        first, first_outcome, seen = self.breaches.get(outcome.signature, (said, outcome, 0))
        if len(said) < len(first):
            first, first_outcome = said, outcome
        self.breaches[outcome.signature] = (first, first_outcome, seen + 1)

    def report(self) -> int:
        print(f"\n{self.kind}: {self.total:,} cases in {time.perf_counter() - self.started:.0f} s")
        for name, number in sorted(self.counts.items()):
            print(f"  {number:>8,}  {name}")
        seen_by_name = collections.Counter()
        for (kind, name, _), (_, _, seen) in self.breaches.items():
            seen_by_name["crash" if kind == "crash" else name] += seen
        print(f"exceptions outside the promised types: {seen_by_name['crash']:,}")
        for said, names in SUMS.items():
            print(f"{said}: {sum(seen_by_name[name] for name in names):,}")
        print(f"breaches: {sum(seen for _, _, seen in self.breaches.values()):,}")
        for signature, (case, outcome, seen) in sorted(self.breaches.items()):
            print(f"\n{seen:,} x {' '.join(signature)}\n  {outcome.detail}\n  smallest: {case}")
        return 1 if self.breaches else 0


def run_auth(count: int, seed: int, **_: Any) -> int:
    tally = Tally("gateway auth and isolation", count)
    asyncio.run(gateway_fuzzing.fuzz_auth(count, seed, tally.tell))
    return tally.report()


def run_faults(count: int, seed: int, timeouts: dict[str, float] | None = None,
               **_: Any) -> int:
    tally = Tally("gateway faults and slow callers",
                  count * len(gateway_faults.FAULTS))

    def tell(case: Any, outcome: Outcome) -> None:
        tally.tell(case, outcome, case.fault if case is not None else "run")

    asyncio.run(gateway_faults.fuzz_faults(count, seed, tell, timeouts=timeouts))
    return tally.report()


def run_encoders(count: int, seed: int, sdk_every: int = 50, **_: Any) -> int:
    tally = Tally("encoders", count)
    rng = random.Random(seed)
    with encoder_fuzzing.sdk_readers() as (server, clients):
        for number in range(count):
            case = encoder_fuzzing.make_case(number, rng)
            outcome = encoder_fuzzing.check(case)
            label = f"{case.target} {case.form}"
            if outcome.kind == "ok" and number % sdk_every == 0:
                tally.tell(case, encoder_fuzzing.check_with_sdk(case, server, clients), "sdk")
            tally.tell(case, outcome, label)
    return tally.report()


def run_scripts(count: int, seed: int, sdk_every: int = 50, **_: Any) -> int:
    tally = Tally("FakeProvider scripts", count)
    logging.getLogger("streamkit.client").setLevel(logging.ERROR)

    async def main() -> None:
        import httpx

        from streamkit.testing import FakeProvider

        rng = random.Random(seed)
        holder: list[script_fuzzing.ScriptRun] = []
        with encoder_fuzzing.sdk_readers() as (server, clients):
            async with FakeProvider(script_fuzzing.ScriptRun.reply(holder)) as fake, \
                    httpx.AsyncClient() as http:
                run = script_fuzzing.ScriptRun(fake, http)
                holder.append(run)
                for number in range(count):
                    case = script_fuzzing.make_case(number, rng)
                    outcome = await run.check(case)
                    tally.tell(case, outcome, f"{case.target} "
                               f"{'stream' if case.streamed else 'create'}")
                    if outcome.kind == "ok" and case.streamed and number % sdk_every == 0:
                        written = await run.raw(case)
                        tally.tell(case, encoder_fuzzing.check_with_sdk(
                            script_fuzzing.sdk_case(case, written), server, clients), "sdk")

    asyncio.run(main())
    return tally.report()


RUNS: dict[str, Callable[..., int]] = {"auth": run_auth, "faults": run_faults,
                                       "encoders": run_encoders, "scripts": run_scripts}


def _timeouts(text: str) -> dict[str, float] | None:
    if not text:
        return None
    return {name: float(value) for name, value in
            (item.split("=", 1) for item in text.split(","))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=100_000,
                        help="encoder and FakeProvider cases (each)")
    parser.add_argument("--gateway-n", type=int, default=None,
                        help="gateway requests per kind and per fault (default: n / 10)")
    parser.add_argument("--seed", type=int, default=1, help="the random seed (runs repeat)")
    parser.add_argument("--kinds", default=",".join(KINDS), help="comma-separated: " +
                        ", ".join(KINDS))
    parser.add_argument("--sdk-every", type=int, default=50,
                        help="one case in this many also read by the official SDK")
    parser.add_argument("--timeouts", default="",
                        help="the gateway config's [timeouts], as name=seconds,...")
    args = parser.parse_args()
    gateway_n = args.gateway_n if args.gateway_n is not None else max(1, args.n // 10)
    statuses = []
    for kind in args.kinds.split(","):
        count = gateway_n if kind in ("auth", "faults") else args.n
        statuses.append(RUNS[kind](count, args.seed, sdk_every=args.sdk_every,
                                   timeouts=_timeouts(args.timeouts)))
    return max(statuses, default=0)


if __name__ == "__main__":
    raise SystemExit(main())
