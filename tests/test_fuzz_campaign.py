"""The seeded short run of issue 31's campaign: the gateway under attack, the
encoders, FakeProvider scripts (``make fuzz`` runs the long one,
``bench/fuzz_gateway.py``: 10,000 gateway requests of each kind and fault,
100,000 encoder and script cases).

Each test runs the cases of one kind from one seed (``tests/support/``:
``gateway_fuzzing.py``, ``gateway_faults.py``, ``encoder_fuzzing.py``,
``script_fuzzing.py`` say each contract) and fails with the smallest case of
every breach. The gateway's run is one gateway process for a test, many
requests: every fault of ``gateway_faults.FAULTS``, keys in every place a
caller may put them, the query string included.
"""

from __future__ import annotations

import asyncio
import collections
import random
from typing import Any

import httpx
from support import encoder_fuzzing, gateway_faults, gateway_fuzzing, script_fuzzing
from support.stream_fuzzing import Outcome

from streamkit.testing import FakeProvider

SEED = 20_261_031
ENCODER_CASES = 60
SCRIPT_CASES = 60
AUTH_CASES = 120
FAULT_CASES = 2
"""Callers of each fault of ``gateway_faults.FAULTS``."""
SDK_EVERY = 30
PACE = gateway_faults.Pace(caller=1.5, upstream_read=0.75, hang=2.5, hold=1.5)
"""Short: a hanging upstream's three attempts outlast the caller here (counted
as the caller giving up); the full run's pace waits for the gateway's 502."""



class Breaches:
    """The smallest case of each breach, and the count of every outcome."""

    def __init__(self) -> None:
        self.first: dict[tuple[str, str, str], tuple[str, str]] = {}
        self.counts: collections.Counter[str] = collections.Counter()

    def tell(self, case: Any, outcome: Outcome) -> None:
        self.counts[f"{outcome.kind} {outcome.name}".strip()] += 1
        if outcome.kind in ("ok", "error", "timeout"):
            return
        said = case.describe() if case is not None else "(the run as a whole)"
        kept = self.first.get(outcome.signature)
        if kept is None or len(said) < len(kept[1]):
            self.first[outcome.signature] = (outcome.detail, said)

    def __str__(self) -> str:
        return "\n".join(f"{' '.join(signature)}: {detail}\n    {case}"
                         for signature, (detail, case) in sorted(self.first.items()))


def test_random_answers_with_hostile_text_through_every_encoder_read_back_the_same() -> None:
    found = Breaches()
    rng = random.Random(SEED)
    with encoder_fuzzing.sdk_readers() as (server, clients):
        for number in range(ENCODER_CASES):
            case = encoder_fuzzing.make_case(number, rng)
            outcome = encoder_fuzzing.check(case)
            found.tell(case, outcome)
            if outcome.kind == "ok" and number % SDK_EVERY == 0:
                found.tell(case, encoder_fuzzing.check_with_sdk(case, server, clients))
    assert not found.first, f"{len(found.first)} breach(es):\n{found}"
    assert found.counts["ok"] > ENCODER_CASES, found.counts  # the SDKs read some


def test_random_fake_provider_scripts_read_back_by_the_client_and_the_sdks() -> None:
    found = Breaches()

    async def run() -> None:
        rng = random.Random(SEED)
        holder: list[script_fuzzing.ScriptRun] = []
        with encoder_fuzzing.sdk_readers() as (server, clients):
            async with FakeProvider(script_fuzzing.ScriptRun.reply(holder)) as fake, \
                    httpx.AsyncClient() as http:
                holder.append(script_fuzzing.ScriptRun(fake, http))
                for number in range(SCRIPT_CASES):
                    case = script_fuzzing.make_case(number, rng)
                    outcome = await holder[0].check(case)
                    found.tell(case, outcome)
                    if outcome.kind == "ok" and case.streamed and number % SDK_EVERY < 2:
                        written = await holder[0].raw(case)
                        found.tell(case, encoder_fuzzing.check_with_sdk(
                            script_fuzzing.sdk_case(case, written), server, clients))

    asyncio.run(run())
    assert not found.first, f"{len(found.first)} breach(es):\n{found}"
    assert found.counts["ok"] and found.counts["error ProviderError"], found.counts


def test_nothing_reaches_the_upstream_without_the_key_and_no_key_is_logged() -> None:
    found = Breaches()
    asyncio.run(gateway_fuzzing.fuzz_auth(AUTH_CASES, SEED, found.tell))
    assert not found.first, f"{len(found.first)} breach(es):\n{found}"
    assert found.counts["ok 2xx"] and found.counts["error 4xx"], found.counts


def test_no_upstream_fault_or_slow_caller_makes_a_failure_look_like_an_answer() -> None:
    found = Breaches()
    asyncio.run(gateway_faults.fuzz_faults(FAULT_CASES, SEED, found.tell,
                                           pace=PACE))
    assert not found.first, f"{len(found.first)} breach(es):\n{found}"
    assert found.counts["ok"], found.counts
