"""streamkit against itself: the floor ratios of ``make bench``, before and after a change.

Run: make bench-before-after BEFORE=<git revision>   (or
.venv-bench/bin/python bench/before_after.py --before /path/to/an/older/checkout)

A restructuring or an optimisation must say what it did to the hot path in the
terms ``make bench`` reports: streamkit's speed as a fraction of the floor's
(bench/floor.py) on each of its nine main scenarios, 4 KB reads and one event
per read. Two streamkit trees cannot be imported into one process, so each
measurement runs in a child process whose ``PYTHONPATH`` puts one tree first;
the payloads, the floor and the timing code are this checkout's for both
trees, so only streamkit differs. Rounds alternate the trees (before, after,
before, after...) so that a noisy stretch of the machine hits both; each round
measures ``replay()`` and the floor interleaved in the same process, and the
report gives, per scenario and tree, the median over the rounds of
``floor time / streamkit time``, then the change.

``--output`` writes the Markdown table (bench/before-after.latest.md by default
from the make target, untracked).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

#: What a child process runs: one scenario, ``replay()`` and the floor
#: interleaved, medians printed as JSON. ``sys.argv``: key, runs.
CHILD = """
import gc, json, statistics, sys, time
sys.path.insert(0, {bench!r})
import compare, rivals
import streamkit
key, runs = sys.argv[1], int(sys.argv[2])
specs = {{spec[0]: spec[2] for spec in compare.main_specs(compare.Config())}}
scenario = specs[key]
contenders = {{"streamkit": rivals.streamkit_replay(scenario), "floor": rivals.floor_run(scenario)}}
samples = {{name: [] for name in contenders}}
for run in contenders.values():
    run()  # warm up
gc.collect()
gc.freeze()
for _ in range(runs):
    for name, run in contenders.items():
        gc.collect()
        start = time.perf_counter()
        run()
        samples[name].append(time.perf_counter() - start)
print(json.dumps({{"streamkit": statistics.median(samples["streamkit"]),
                  "floor": statistics.median(samples["floor"]),
                  "where": streamkit.__file__}}))
"""

#: ``make bench``'s main scenarios, in its order.
SCENARIOS = ("openai-text", "openai-tools", "anthropic-text", "anthropic-tool", "audio",
             "openai-text-live", "openai-tools-live", "anthropic-text-live",
             "anthropic-tool-live")


def measure(tree: Path, key: str, runs: int) -> tuple[float, float]:
    """(streamkit's median, the floor's median) for one scenario, ``tree`` first on the path."""
    env = {**os.environ, "PYTHONPATH": str(tree), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run([sys.executable, "-c", CHILD.format(bench=str(HERE)), key, str(runs)],
                          capture_output=True, text=True, env=env, check=False, cwd=tree)
    if done.returncode != 0:
        raise SystemExit(f"{key} under {tree} failed:\n{done.stderr}")
    result = json.loads(done.stdout)
    if not result["where"].startswith(str(tree)):
        raise SystemExit(f"{key}: imported streamkit from {result['where']}, not from {tree}")
    return result["streamkit"], result["floor"]


def compare_trees(before: Path, after: Path, rounds: int, runs: int,
                  keys: tuple[str, ...]) -> dict[str, dict[str, list[float]]]:
    """Floor ratios (floor / streamkit) per scenario and tree, one per round."""
    ratios: dict[str, dict[str, list[float]]] = {key: {"before": [], "after": []}
                                                 for key in keys}
    for round_ in range(rounds):
        for key in keys:
            for name, tree in (("before", before), ("after", after)):
                streamkit_time, floor_time = measure(tree, key, runs)
                ratios[key][name].append(floor_time / streamkit_time)
                print(f"[round {round_ + 1}/{rounds}] {key} {name}: "
                      f"{floor_time / streamkit_time:.3f}x the floor", file=sys.stderr,
                      flush=True)
    return ratios


def report(ratios: dict[str, dict[str, list[float]]], before: str, after: str) -> str:
    lines = ["| scenario | before: x the floor's speed | after | change |", "|---|---|---|---|"]
    for key, by_tree in ratios.items():
        old, new = (statistics.median(by_tree[name]) for name in ("before", "after"))
        lines.append(f"| {key} | {old:.3f}x | {new:.3f}x | {100 * (new / old - 1):+.1f}% |")
    head = (f"streamkit `replay()` as a fraction of the floor's speed (higher is faster), "
            f"median of {len(next(iter(ratios.values()))['before'])} alternating rounds; "
            f"before: {before}, after: {after}.\n\n")
    return head + "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True,
                        help="a checkout of the older streamkit (its root folder)")
    parser.add_argument("--after", type=Path, default=ROOT,
                        help="the newer one (default: this checkout)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=5, help="timed runs per child process")
    parser.add_argument("--only", action="append", choices=SCENARIOS, metavar="KEY")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    keys = tuple(args.only or SCENARIOS)
    ratios = compare_trees(args.before.resolve(), args.after.resolve(), args.rounds, args.runs,
                           keys)
    text = report(ratios, str(args.before), str(args.after))
    print(text)
    if args.output:
        args.output.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
