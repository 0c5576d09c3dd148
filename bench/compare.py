"""Side-by-side: streamkit against the official SDKs and the peer libraries.

Run: make bench   (or .venv-bench/bin/python bench/compare.py [--quick] [--only KEY])

Each scenario's bytes are generated once (bench/payloads.py); every contender
(bench/rivals.py) is then timed on those same bytes, runs alternating between
contenders, medians reported with the ratio contender / streamkit. Slow rivals
get fewer runs (a time budget per contender and scenario; the "runs" column
says how many). The FLOOR line is the same bytes through newline splitting +
msgspec + list append + join (bench/floor.py). A full run writes its report
to bench/RESULTS.latest.md (untracked, so the tree stays clean);
``--update`` (``make bench UPDATE=1``) writes the tracked bench/RESULTS.md
instead. ``--quick`` is a smoke run and ``--only KEY`` runs one main scenario:
they write nothing unless ``--output`` is given. Progress goes to stderr as it
goes: which step, how many are left.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import importlib
import importlib.metadata
import os
import platform
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network at import

import concurrency
import payloads as P
from _timing import fmt_seconds, table
from rivals import Contender, Scenario, contenders_for

import streamkit
from streamkit.testing import load_recording

ROOT = Path(__file__).resolve().parent.parent
SK = "**streamkit** `replay()`"
FLOOR = "FLOOR"


@dataclass
class Config:
    """Sizes and budgets; ``quick()`` shrinks everything for a smoke run."""

    text_chunks: int = 20_000
    tool_bytes: int = 50_000
    audio_chunks: int = 2_000
    text_growth: tuple[int, ...] = (1_000, 5_000, 20_000)
    tool_growth: tuple[int, ...] = (12_000, 50_000, 200_000)
    audio_growth: tuple[int, ...] = (500, 2_000)
    budget: float = 8.0  # seconds of repeated runs per contender and scenario
    max_run: float = 400.0  # never start a run projected to take longer than this
    plan: concurrency.Plan = field(default_factory=concurrency.Plan)

    @classmethod
    def quick(cls) -> Config:
        return cls(text_chunks=2_000, tool_bytes=8_000, audio_chunks=200,
                   text_growth=(500, 2_000), tool_growth=(3_000, 12_000),
                   audio_growth=(100, 400), budget=0.3, max_run=20.0,
                   plan=concurrency.Plan(streams=100, chunks=100, idle_chunks=50, pause=2.0))


@dataclass
class Result:
    """One contender's figures on one scenario."""

    contender: Contender
    median: float | None = None
    runs: int = 0
    note: str = ""


# ------------------------------------------------------------------ measuring


def _time_once(run: Callable[[], object]) -> tuple[float, object]:
    gc.collect()
    start = time.perf_counter()
    result = run()
    return time.perf_counter() - start, result


def _freeze_heap() -> None:
    """Move everything alive now (the rivals' imported modules, the scenario's data)
    out of the collector's sight: with the rivals loaded a full ``gc.collect()``
    costs ~0.3 s, which the per-run collection would otherwise pay every time."""
    gc.collect()
    gc.freeze()


def by_name(results: list[Result], name: str) -> Result:
    return next(r for r in results if r.contender.name == name)


def _missing(contender: Contender) -> str | None:
    """The first rival module that cannot be imported, if any."""
    for module in contender.requires:
        try:
            importlib.import_module(module)
        except Exception as exc:  # any import failure skips the rival, never the run
            return f"{module}: {type(exc).__name__}: {exc}"[:160]
    return None


def _check(sc: Scenario, got: tuple[int, int, int]) -> str:
    """Empty when the contender produced the whole output of the scenario's kind."""
    part = {"text": 0, "tools": 1, "audio": 2}[sc.kind]
    extra = got[part] - sc.expected[part]
    if extra == 0 or (sc.kind == "audio" and extra == 44):  # agentscope's WAV header
        return "+44-byte WAV header" if extra else ""
    return f"⚠ output differs: {got[part]} vs {sc.expected[part]} expected"


class Bench:
    """Runs contenders, keeps every result (reused across tables), logs progress."""

    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.cache: dict[tuple[str, str], Result] = {}
        self.skipped: dict[str, str] = {}

    def measure(self, sc: Scenario, contenders: list[Contender]) -> list[Result]:
        """Warm-up run each (checked), then alternating rounds within the budget."""
        results, runs, samples = [], {}, {}
        for c in contenders:
            cached = self.cache.get((sc.key, c.name))
            if cached is not None:
                results.append(cached)
                continue
            result = self.cache[(sc.key, c.name)] = Result(c)
            results.append(result)
            run = self._prepare(sc, c, result)
            if run is not None:
                runs[c.name] = run
        _freeze_heap()
        for c in contenders:
            if c.name in runs:
                samples[c.name] = self._warm_up(sc, c, runs[c.name], by_name(results, c.name))
        self._rounds(runs, samples, results)
        return results

    def _prepare(self, sc: Scenario, c: Contender, result: Result) -> Callable[[], object] | None:
        missing = _missing(c)
        if missing:
            self.skipped.setdefault(c.name, missing)
            result.note = f"skipped ({missing})"
            return None
        try:
            return c.prepare(sc)
        except Exception as exc:
            result.note = f"failed to prepare: {type(exc).__name__}: {exc}"[:200]
            return None

    def _warm_up(self, sc: Scenario, c: Contender, run: Callable[[], object],
                 result: Result) -> list[float]:
        """First run: warms caches, checks the output, sets how many runs fit."""
        log(f"  {sc.key}: {c.name} ...")
        try:
            first, final = _time_once(run)
            result.note = _check(sc, c.digest(final))
        except Exception as exc:
            result.note = f"failed: {type(exc).__name__}: {exc}"[:200]
            return []
        wanted = min(c.max_runs, int(self.cfg.budget / first))
        result.runs = max(wanted, 1)
        return [] if wanted >= 1 else [first]  # too slow to repeat: the one run counts

    def _rounds(self, runs: dict[str, Callable[[], object]], samples: dict[str, list[float]],
                results: list[Result]) -> None:
        by_name = {r.contender.name: r for r in results}
        for round_ in range(max((r.runs for r in results), default=0)):
            for name, run in runs.items():
                if len(samples[name]) < by_name[name].runs and round_ < by_name[name].runs:
                    samples[name].append(_time_once(run)[0])
        for name, values in samples.items():
            if values:
                by_name[name].median = statistics.median(values)

    def project(self, sc_key: str, name: str, factor: float) -> float | None:
        """Projected time of ``name`` on a scenario ``factor`` times bigger (quadratic)."""
        result = self.cache.get((sc_key, name))
        if result is None or result.median is None:
            return None
        return result.median * factor * factor


_START = time.perf_counter()


def log(message: str) -> None:
    """Progress on stderr, with the elapsed time, so stdout stays Markdown."""
    print(f"[{time.perf_counter() - _START:6.1f} s] {message}", file=sys.stderr, flush=True)


class Progress:
    """Counts the run's steps (a scenario, a growth table, the fixtures, the
    concurrency run) so each log line says where the run is and what is left."""

    def __init__(self) -> None:
        self.total = 0
        self.done = 0

    def step(self, title: str) -> None:
        self.done += 1
        left = self.total - self.done
        log(f"[{self.done}/{self.total}] {title} ({left} step{'s' * (left != 1)} left after "
            f"this)")


PROGRESS = Progress()


# ------------------------------------------------------------------ scenarios


def make(key: str, provider: str, kind: str, body: bytes, units: int,
         live: bool = False) -> Scenario:
    """A scenario read in 4 KB network chunks, or ``live``: one SSE event per read."""
    if live:
        return Scenario(key + "-live", provider, kind, body, P.split_events(body), units, True)
    return Scenario(key, provider, kind, body, P.split_network(body), units)


def openai_text(n: int, live: bool = False) -> Scenario:
    return make(f"openai-text-{n}", "openai", "text", P.openai_text(n), n, live)


def anthropic_text(n: int, live: bool = False) -> Scenario:
    return make(f"anthropic-text-{n}", "anthropic", "text", P.anthropic_text(n), n, live)


def openai_tools(size: int, calls: int = 4, live: bool = False) -> Scenario:
    body = P.openai_tools(size, calls)
    return make(f"openai-tools-{size}-{calls}", "openai", "tools", body,
                body.count(b"data: "), live)


def anthropic_tool(size: int, live: bool = False) -> Scenario:
    body = P.anthropic_tool(size)
    return make(f"anthropic-tool-{size}", "anthropic", "tools", body,
                body.count(b"event: "), live)


def audio(n: int) -> Scenario:
    return make(f"audio-{n}", "openai", "audio", P.openai_audio(n), n)


# ------------------------------------------------------------------ tables


def _ratio(t: float | None, base: float | None) -> str:
    if t is None or not base:
        return "-"
    return f"{t / base:,.1f}x" if t / base >= 10 else f"{t / base:.2f}x"


def scenario_table(title: str, sc: Scenario, results: list[Result], unit: str) -> str:
    base = next((r.median for r in results if r.contender.name == SK), None)
    rows = []
    for r in results:
        rate = f"{sc.units / r.median:,.0f}" if r.median else "-"
        median = fmt_seconds(r.median) if r.median else "-"
        includes = r.contender.includes
        if sc.live:  # the streamkit rows name the reads they were fed
            includes = includes.replace("4 KB reads", "one event per read")
        rows.append((r.contender.name, r.contender.path, median, str(r.runs or "-"), rate,
                     _ratio(r.median, base), includes + (f" — {r.note}" if r.note else "")))
    header = ("contender", "path", "median", "runs", f"{unit}/s", "x streamkit time",
              "what the timed path includes")
    shape = "one SSE event per read" if sc.live else "of 4 KB"
    intro = (f"{sc.units:,} {unit} · {len(sc.body) / 1e6:.2f} MB body · "
             f"{len(sc.chunks):,} network reads {shape}")
    return table(title, rows, header) + f"\n\n{intro}. {_floor_sentence(results)}"


def _floor_sentence(results: list[Result]) -> str:
    times = {r.contender.name: r.median for r in results}
    sk, floor = times.get(SK), times.get(FLOOR)
    if not sk or not floor:
        return ""
    return f"streamkit runs at **{floor / sk:.2f}x the floor's speed**."


# ------------------------------------------------------------------ the report


class Report:
    """Markdown pieces (printed as they come) and the floor verdicts."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.verdicts: list[tuple[str, str, str]] = []

    def add(self, text: str) -> None:
        self.parts.append(text)
        print(text, flush=True)

    def verdict(self, floor: str, measured: float | None, ok: Callable[[float], bool],
                fmt: str = "{:.1f}x") -> None:
        if measured is None:
            self.verdicts.append((floor, "not measured", "-"))
        else:
            self.verdicts.append((floor, fmt.format(measured),
                                  "met" if ok(measured) else "**MISSED**"))


def ratio_of(results: list[Result], name: str, base: str = SK) -> float | None:
    times = {r.contender.name: r.median for r in results}
    top, bottom = times.get(name), times.get(base)
    return top / bottom if top and bottom else None


def main_specs(cfg: Config) -> list[tuple[str, str, Scenario, str]]:
    """The main scenarios: (key, title, scenario, unit)."""
    return [
        ("openai-text", f"OpenAI Chat text, {cfg.text_chunks:,} chunks",
         openai_text(cfg.text_chunks), "chunks"),
        ("openai-tools", f"OpenAI Chat, 4 parallel tool calls, {cfg.tool_bytes // 1000} KB of "
         "arguments in ~4-byte fragments", openai_tools(cfg.tool_bytes), "chunks"),
        ("anthropic-text", f"Anthropic text, {cfg.text_chunks:,} events",
         anthropic_text(cfg.text_chunks), "events"),
        ("anthropic-tool", f"Anthropic tool_use, {cfg.tool_bytes // 1000} KB of input in "
         "~4-byte fragments", anthropic_tool(cfg.tool_bytes), "events"),
        ("audio", f"OpenAI Chat audio, {cfg.audio_chunks:,} chunks of 4,800 PCM bytes",
         audio(cfg.audio_chunks), "chunks"),
        ("openai-text-live", f"Live shape: OpenAI Chat text, {cfg.text_chunks:,} chunks, "
         "one event per read", openai_text(cfg.text_chunks, live=True), "chunks"),
        ("openai-tools-live", "Live shape: OpenAI Chat, 4 parallel tool calls, "
         f"{cfg.tool_bytes // 1000} KB, one event per read",
         openai_tools(cfg.tool_bytes, live=True), "chunks"),
        ("anthropic-text-live", f"Live shape: Anthropic text, {cfg.text_chunks:,} events, "
         "one event per read", anthropic_text(cfg.text_chunks, live=True), "events"),
        ("anthropic-tool-live", f"Live shape: Anthropic tool_use, {cfg.tool_bytes // 1000} KB, "
         "one event per read", anthropic_tool(cfg.tool_bytes, live=True), "events"),
    ]


def main_scenarios(bench: Bench, report: Report,
                   specs: list[tuple[str, str, Scenario, str]]) -> dict[str, list[Result]]:
    out = {}
    for key, title, sc, unit in specs:
        PROGRESS.step(f"scenario {key}: {title}")
        out[key] = bench.measure(sc, contenders_for(sc))
        report.add(scenario_table(title, sc, out[key], unit))
    return out


def record_verdicts(report: Report, main: dict[str, list[Result]]) -> None:
    def at_least(x: float) -> Callable[[float], bool]:
        return lambda v: v >= x
    openai, anthropic = "openai `chat.completions.stream()`", "anthropic `messages.stream()`"
    # (scenario, rival, floor): the 4 KB floors of issue 6, the live ones of issue 9
    floors = [
        ("openai-text", openai, 50), ("anthropic-text", anthropic, 20),
        ("openai-tools", openai, 50), ("anthropic-tool", anthropic, 50),
        ("openai-text-live", openai, 50), ("anthropic-text-live", anthropic, 20),
        ("openai-tools-live", openai, 50), ("anthropic-tool-live", anthropic, 20),
    ]
    for key, rival, floor in floors:
        report.verdict(f"{key}: ≥ {floor}x {rival}", ratio_of(main[key], rival),
                       at_least(floor))
    for key in ("openai-text", "openai-tools", "anthropic-text", "anthropic-tool", "audio",
                "openai-text-live", "openai-tools-live", "anthropic-text-live",
                "anthropic-tool-live"):
        report.verdict(f"{key}: ≥ 0.5x the floor's speed", ratio_of(main[key], FLOOR),
                       at_least(0.5), "{:.2f}x")
    report.verdict("audio: ≥ 300x agentscope `append_data_block` (2,000 chunks)",
                   ratio_of(main["audio"], "agentscope `ChatResponse.append_*`"),
                   at_least(300))


# ------------------------------------------------------------------ growth


def growth_table(bench: Bench, title: str, sizes: tuple[int, ...], label: Callable[[int], str],
                 lines: list[tuple[str, str, Callable[[int], Scenario]]]) -> tuple[str, dict]:
    """One row per (contender, scenario family); columns are sizes and ratios."""
    grown: dict[str, list[float | None]] = {}
    rows = []
    for row_name, contender_name, build in lines:
        times: list[float | None] = []
        for i, size in enumerate(sizes):
            times.append(_grow_one(bench, build, sizes, i, size, contender_name))
        grown[row_name] = times
        cells = [fmt_seconds(t) if t else "-" for t in times]
        ratios = [f"{t / times[0]:.1f}x" if t and times[0] else "-" for t in times[1:]]
        rows.append((row_name, *cells, *ratios))
    header = ("contender", *map(label, sizes),
              *(f"{label(s)} / {label(sizes[0])}" for s in sizes[1:]))
    ideal = ", ".join(f"{s / sizes[0]:.1f}x" for s in sizes[1:])
    return table(title, rows, header) + f"\n\nLinear growth would be {ideal}.", grown


def _grow_one(bench: Bench, build: Callable[[int], Scenario], sizes: tuple[int, ...], i: int,
              size: int, name: str) -> float | None:
    sc = build(size)
    if i:
        previous = build(sizes[i - 1]).key
        projected = bench.project(previous, name, size / sizes[i - 1])
        if projected is not None and projected > bench.cfg.max_run:
            log(f"  {sc.key}: {name} not run, projected {projected:.0f} s")
            return None
    line_up = [c for c in contenders_for(sc) if c.name == name]
    results = bench.measure(sc, line_up)
    return results[0].median if results else None


def growth(bench: Bench, report: Report) -> None:
    cfg = bench.cfg
    PROGRESS.step("growth series: text chunks")
    text_lines = [
        ("streamkit (OpenAI)", SK, openai_text),
        ("openai `chat.completions.stream()`", "openai `chat.completions.stream()`",
         openai_text),
        ("streamkit (Anthropic)", SK, anthropic_text),
        ("anthropic `messages.stream()`", "anthropic `messages.stream()`", anthropic_text),
        ("FLOOR (OpenAI)", FLOOR, openai_text),
    ]
    text, _ = growth_table(bench, "Growth: text chunks (bytes → final)", cfg.text_growth,
                           lambda n: f"{n // 1000}k" if n >= 1000 else str(n), text_lines)
    report.add(text)
    PROGRESS.step("growth series: tool documents")

    def single(size: int) -> Scenario:
        return openai_tools(size, calls=1)
    tool_lines = [
        ("streamkit (OpenAI)", SK, single),
        ("openai `chat.completions.stream()`", "openai `chat.completions.stream()`", single),
        ("openai `ChatCompletionStreamState`", "openai `ChatCompletionStreamState`", single),
        ("streamkit (Anthropic)", SK, anthropic_tool),
        ("anthropic `messages.stream()`", "anthropic `messages.stream()`", anthropic_tool),
        ("anthropic `accumulate_event`", "anthropic `accumulate_event`", anthropic_tool),
    ]
    tools, grown = growth_table(bench, "Growth: one tool document in ~4-byte fragments "
                                "(bytes → final; accumulators pre-decoded)", cfg.tool_growth,
                                lambda n: f"{n // 1000} KB", tool_lines)
    report.add(tools)
    for row in ("streamkit (OpenAI)", "streamkit (Anthropic)"):
        times = grown[row]
        value = times[-1] / times[0] if times[-1] and times[0] else None
        report.verdict(f"tool documents {cfg.tool_growth[0] // 1000} → "
                       f"{cfg.tool_growth[-1] // 1000} KB: {row} grows ≤ ~24x",
                       value, lambda v: v <= 24)
    PROGRESS.step("growth series: audio chunks")
    audio_lines = [
        ("streamkit", SK, audio),
        ("agentscope `ChatResponse.append_*`", "agentscope `ChatResponse.append_*`", audio),
        ("openai `chat.completions.stream()`", "openai `chat.completions.stream()`", audio),
    ]
    audio_md, audio_grown = growth_table(bench, "Growth: audio chunks of 4,800 bytes",
                                         cfg.audio_growth, str, audio_lines)
    report.add(audio_md)
    times = audio_grown["streamkit"]
    linear = cfg.audio_growth[-1] / cfg.audio_growth[0]
    report.verdict(f"audio: linear growth (≤ 1.5 x {linear:.0f}x)",
                   times[-1] / times[0] if times[-1] and times[0] else None,
                   lambda v: v <= 1.5 * linear)


# ------------------------------------------------------------------ fixtures


_FIXTURE_PROVIDERS = {"openai-chat": "openai", "anthropic": "anthropic", "gemini": "gemini",
                      "ollama": "ollama", "openai-responses": "openai-responses"}


def fixture_provider(path: Path) -> str:
    """The registry name for a recording, from its folder (or name for mixed folders)."""
    folder, name = path.parent.name, path.name
    if folder in _FIXTURE_PROVIDERS:
        return _FIXTURE_PROVIDERS[folder]
    for prefix in ("openai-responses", "openai-chat", "gemini", "deepseek", "qwen",
                   "openrouter", "anthropic"):
        if name.startswith(prefix):
            return "openai" if prefix == "openai-chat" else prefix
    return "auto"


def fixtures_table(report: Report, quick: bool) -> None:
    PROGRESS.step("every recorded fixture")
    rows = []
    files = sorted(p for p in (ROOT / "tests" / "fixtures").rglob("*")
                   if p.suffix in (".sse", ".ndjson", ".jsonl") and p.is_file())
    for path in files:
        rows.append(_fixture_row(path, 0.02 if quick else 0.2))
    report.add(table("Every recorded fixture replayed (streamkit only, bytes → final, 4 KB "
                     "reads)", rows, ("fixture", "provider", "bytes", "events", "time",
                                      "MB/s")))


def _fixture_row(path: Path, budget: float) -> tuple[str, ...]:
    body, _ = load_recording(path)
    provider = fixture_provider(path)
    chunks = P.split_network(body)
    name = str(path.relative_to(ROOT / "tests" / "fixtures"))
    try:
        events, _ = streamkit.replay(chunks, provider)
    except Exception as exc:
        return name, provider, f"{len(body):,}", "-", f"error: {type(exc).__name__}", "-"
    first, _ = _time_once(lambda: streamkit.replay(chunks, provider))
    loops = max(1, int(budget / max(first, 1e-6) / 5))
    samples = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(loops):
            streamkit.replay(chunks, provider)
        samples.append((time.perf_counter() - start) / loops)
    t = statistics.median(samples)
    return name, provider, f"{len(body):,}", str(len(events)), fmt_seconds(t), \
        f"{len(body) / t / 1e6:.1f}"


# ------------------------------------------------------------------ concurrency


def concurrency_table(report: Report, plan: concurrency.Plan) -> None:
    PROGRESS.step(f"{plan.streams} concurrent streams from a ReplayServer")
    try:
        figures = concurrency.run(plan)
    except Exception as exc:
        report.add(f"\n### Concurrent streams\n\nfailed: {type(exc).__name__}: {exc}")
        report.verdict(f"{plan.streams} concurrent streams complete, none lost", None, bool)
        return
    t, m = figures["throughput"], figures["memory"]
    rows = [
        ("streams (half OpenAI, half Anthropic)", f"{t['streams']:,}"),
        ("completed with the full text / lost", f"{t['complete']:,} / {t['lost']}"),
        ("wall time, all at once, each read by `streamkit.stream()`", fmt_seconds(t["wall"])),
        ("client CPU time", fmt_seconds(t["cpu"])),
        ("same requests read by httpx alone (`aiter_bytes`, no parsing)",
         f"{fmt_seconds(t['raw_wall'])} wall, {fmt_seconds(t['raw_cpu'])} CPU"),
        ("content chunks/s, all streams", f"{t['chunks'] / t['wall']:,.0f}"),
        ("MB/s of body, all streams", f"{t['bytes'] / t['wall'] / 1e6:.1f}"),
        ("idle streams open at once (server paused mid-body)", f"{m['open_idle']:,}"),
        ("client VmRSS before → with them open",
         f"{m['rss_before_kib'] / 1024:.1f} → {m['rss_open_kib'] / 1024:.1f} MiB"),
        ("**resident memory per open stream**", f"{m['per_stream_kib']:.1f} KiB"),
        ("idle streams completed / lost after the pause", f"{m['complete']:,} / {m['lost']}"),
    ]
    note = ("\n\nServer (`streamkit.testing.ReplayServer`) and client run in separate "
            "processes; the client is one asyncio loop with one `httpx.AsyncClient` "
            f"(`max_connections={plan.streams}`) per pass, each stream read by "
            "`streamkit.stream(response)`. The wall time of a burst is dominated by httpcore's "
            "connection pool, which scans every connection for every queued request "
            "(`AsyncConnectionPool._assign_requests_to_connections` → `is_idle()`, O(requests x "
            "connections)): compare the httpx-alone line, whose difference is streamkit's "
            "share. Per-stream memory covers the httpx connection, "
            "the task and streamkit's pipeline holding half a response: the server wrote "
            f"the first {m['write_bytes']:,} bytes ({plan.idle_chunks // 2} text chunks) and "
            f"paused {plan.pause:.0f} s. Errors: {t['errors'] or 'none'}.")
    report.add(table(f"{plan.streams:,} concurrent streams over loopback HTTP", rows,
                     ("", "value")) + note)
    report.verdict(f"{plan.streams} concurrent streams complete, none lost",
                   float(t["lost"] + m["lost"]), lambda v: v == 0, "{:.0f} lost")
    if "aiohttp" in figures:
        report.add(transport_table(plan, figures))


def transport_table(plan: concurrency.Plan, figures: dict[str, Any]) -> str:
    """httpx against aiohttp on the same server and streams: what a gateway should pick."""
    clients = {"httpx": figures, "aiohttp": figures["aiohttp"]}

    def row(label: str, value: Callable[[dict[str, Any], dict[str, Any]], str]) -> tuple[str, ...]:
        return (label, *(value(f["throughput"], f["memory"]) for f in clients.values()))

    rows = [
        row("completed / lost", lambda t, m: f"{t['complete']:,} / {t['lost'] + m['lost']}"),
        row("wall time, all at once, read by `streamkit.stream()`",
            lambda t, m: fmt_seconds(t["wall"])),
        row("client CPU time", lambda t, m: fmt_seconds(t["cpu"])),
        row("same requests without parsing (wall)", lambda t, m: fmt_seconds(t["raw_wall"])),
        row("resident memory per open stream", lambda t, m: f"{m['per_stream_kib']:.1f} KiB"),
    ]
    ratio = figures["throughput"]["wall"] / figures["aiohttp"]["throughput"]["wall"]
    return (table(f"{plan.streams:,} concurrent streams: httpx against aiohttp", rows,
                  ("", "httpx", "aiohttp")) +
            f"\n\nThe same server process; each client in a fresh process. aiohttp's burst "
            f"is {ratio:.1f}x faster (httpcore's pool scan is what httpx spends its time on).")


# ------------------------------------------------------------------ environment


def environment(argv: list[str]) -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in
                Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    packages = ["streamkit-llm", "msgspec", "httpx", "httpx2", "openai", "anthropic", "agentscope",
                "langchain-core", "pydantic-ai-slim", "litellm", "jiter", "partial-json-parser"]
    versions = []
    for name in packages:
        try:
            versions.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            versions.append(f"{name} (not installed)")
    return "\n".join([
        f"- date: {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}",
        f"- machine: {os.cpu_count()} CPUs (`nproc`), {cpu}, {platform.system()} "
        f"{platform.release()}",
        f"- Python {platform.python_version()} ({platform.python_implementation()})",
        f"- packages: {', '.join(versions)}",
        f"- command: `{' '.join(argv)}`",
    ])


LEGEND = """
**How to read the tables.** *bytes → final*: the contender gets the raw body (4 KB network
chunks for streamkit and the floor; an in-memory `httpx`/`httpx2` response for the SDK paths,
read by the SDK's own SSE decoder) and ends with its final message object. *pre-decoded →
final*: the payloads were JSON-decoded (and turned into the library's chunk objects where it
has them) before the clock started, which flatters that contender. "x streamkit time" is the
contender's median time divided by streamkit `replay()`'s in the same run: above 1 means
streamkit is faster by that factor. Slow rivals get fewer runs (a budget of ~8 s of repeats
per contender and scenario; a single run is used as is). Every contender's final output is
checked against the generated content; a mismatch is flagged in the table. Before the runs the
live heap (the rivals' modules, the scenario's data) is frozen out of the cyclic collector
(`gc.freeze()`), so no contender pays for collecting another's objects; this helps the rivals
that allocate the most (in one trial without it, anthropic's 200 KB tool stream took
~150 s instead of ~31 s).
The httpx row of streamkit gets the body from `MockTransport` as one chunk, hence sometimes
faster than `replay()` over 4 KB reads.
"""


#: Where a full run writes its report unless told otherwise: untracked.
LATEST = Path(__file__).parent / "RESULTS.latest.md"
#: The tracked report the README quotes, written only with ``--update``.
TRACKED = Path(__file__).parent / "RESULTS.md"
#: Steps after the main scenarios: three growth tables, the fixtures, concurrency.
LATER_STEPS = 5


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, a smoke run")
    parser.add_argument("--only", action="append", metavar="KEY",
                        help="run only this main scenario (repeatable), e.g. openai-text")
    parser.add_argument("--update", action="store_true",
                        help="write the tracked bench/RESULTS.md (a full run only)")
    parser.add_argument("--output", type=Path, help="where to write the Markdown report "
                        "(default: bench/RESULTS.latest.md for a full run, nothing with "
                        "--quick or --only)")
    args = parser.parse_args(argv)
    cfg = Config.quick() if args.quick else Config()
    specs = main_specs(cfg)
    if args.only:
        unknown = sorted(set(args.only) - {key for key, *_ in specs})
        if unknown:
            parser.error(f"unknown scenario {', '.join(unknown)}; scenarios: "
                         f"{', '.join(key for key, *_ in specs)}")
        specs = [spec for spec in specs if spec[0] in args.only]
    if args.update and (args.quick or args.only or args.output):
        parser.error("--update writes bench/RESULTS.md from a full run: not with --quick, "
                     "--only or --output")
    warnings.filterwarnings("ignore")
    PROGRESS.total = len(specs) + (0 if args.only else LATER_STEPS)
    bench, report = Bench(cfg), Report()
    started = time.perf_counter()
    command = "make bench" if not (args.quick or args.only) else \
        "python bench/compare.py " + " ".join(argv if argv is not None else sys.argv[1:])
    report.add("# streamkit vs the SDKs and peer libraries\n\n" + environment([command])
               + "\n" + LEGEND)
    main = main_scenarios(bench, report, specs)
    if not args.only:
        record_verdicts(report, main)
        growth(bench, report)
        fixtures_table(report, args.quick)
        concurrency_table(report, cfg.plan)
    finish(report, bench, args, time.perf_counter() - started)


def finish(report: Report, bench: Bench, args: Any, elapsed: float) -> None:
    rows = [(floor, value, verdict) for floor, value, verdict in report.verdicts]
    if rows:
        report.add(table("Floors of issues 6 and 9", rows, ("floor", "measured", "verdict")))
    if bench.skipped:
        report.add("\nSkipped rivals: " + "; ".join(f"{k} ({v})" for k, v in
                                                    bench.skipped.items()))
    report.add(f"\nTotal run time: {elapsed:.0f} s.")
    output = args.output
    if output is None and not (args.quick or args.only):
        output = TRACKED if args.update else LATEST
    if output is not None:
        output.write_text("\n".join(report.parts).lstrip() + "\n")
        log(f"wrote {output}" + ("" if args.update or output != LATEST else
                                 " (untracked; make bench UPDATE=1 writes bench/RESULTS.md)"))


if __name__ == "__main__":
    main()
