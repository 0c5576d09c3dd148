"""streamkit's gateway against LiteLLM's proxy, in front of the same fake upstream.

Every process is separate: the fake upstream (a ``streamkit.testing.ReplayServer``
serving generated OpenAI Chat SSE bodies), LiteLLM's proxy (from its own venv,
``.venv-bench-litellm-proxy``), streamkit's gateway (``python -m streamkit
gateway``), and this process, the client: one ``httpx.AsyncClient`` (over
aiohttp's connections, see :func:`make_client`) streaming the
raw SSE, the same code for the three targets (the upstream direct, LiteLLM,
streamkit), over loopback.

What is measured, each gateway with 1 and then 2 worker processes:

- overhead per streamed chunk: the median time to read a whole stream of N
  chunks through the gateway minus the median time direct from the upstream,
  divided by N (N = 200 and 2,000 text chunks; the runs alternate between the
  three targets so a noisy neighbour hits all of them alike);
- time to first byte added: the median time to the first body byte through the
  gateway minus the direct one;
- 1,000 concurrent streams: the upstream sends half of each body, pauses, then
  the rest, so the streams are open at once; the wall time until all 1,000 are
  read, how many came back complete (each stream's text is checked), the peak
  of streams open at once, and the gateway's memory per open stream: the RSS of
  its whole process tree (every worker, read from /proc every 50 ms) when the
  most streams were open, minus its idle RSS, divided by the streams open then.
  A gateway slower to open them than the pause never has all 1,000 open: the
  *peak open* column says so.

Every stream's text (the ``delta.content`` of its chunks) is checked against
the generated one; a mismatch is counted as incomplete, never timed as a win.
Floors (printed, never a test): streamkit's overhead per chunk <= 1/3 of
LiteLLM's; 1,000 concurrent streams through streamkit's gateway in under 10 s,
all complete.

    python bench/gateway.py [--only litellm|streamkit] [--quick] [--workers 1 2]
    make bench-gateway          # the whole run; UPDATE=1 rewrites bench/RESULTS-gateway.md
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx
import payloads
from _timing import fmt_seconds

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
GATEWAY_KEY = "sk-gw-bench-1"
UPSTREAM_KEY = "sk-upstream-bench"
LITELLM_DEFAULT = ROOT / ".venv-bench-litellm-proxy" / "bin" / "litellm"
STREAMS_ROUTE = "paced"


@dataclass
class Plan:
    """How big the run is (``--quick`` shrinks it)."""

    sizes: list[int] = field(default_factory=lambda: [200, 2000])  # chunks per stream
    repeats: int = 5  # sequential streams per target and size (median kept)
    streams: int = 1000  # concurrent streams
    paced_chunks: int = 20  # chunks per concurrent stream
    pause: float = 3.0  # seconds the upstream idles mid-body (all streams open at once)
    workers: list[int] = field(default_factory=lambda: [1, 2])
    only: str | None = None  # "litellm" or "streamkit": that gateway alone


# ------------------------------------------------------------------ the fake upstream


def upstream_routes(plan: Plan) -> dict[str, tuple[bytes, int | None, dict[int, float]]]:
    """route name -> (body, network write size, pauses): served at
    ``/<route>/v1/chat/completions``, so each gateway reaches a route through its
    own base URL."""
    routes: dict[str, tuple[bytes, int | None, dict[int, float]]] = {
        f"c{n}": (payloads.openai_text(n), payloads.NETWORK_CHUNK, {}) for n in plan.sizes}
    paced = payloads.openai_text(plan.paced_chunks)
    routes[STREAMS_ROUTE] = (paced, len(paced) // 2 + 1, {1: plan.pause})
    return routes


async def serve_upstream(plan: Plan) -> None:
    """Serve the routes; print the URL; stop when stdin closes."""
    import anyio

    from streamkit.testing import ReplayServer

    async with ReplayServer(backlog=4096) as server:
        for name, (body, size, pauses) in upstream_routes(plan).items():
            server.add(f"/{name}/v1/chat/completions", body, chunk_size=size, pauses=pauses)
        print(server.url, flush=True)
        await anyio.to_thread.run_sync(sys.stdin.read)
        server.requests.clear()


def expected_text(chunks: int) -> str:
    return "".join(payloads.text_tokens(chunks))


def route_chunks(plan: Plan, route: str) -> int:
    return plan.paced_chunks if route == STREAMS_ROUTE else int(route[1:])


# ------------------------------------------------------------------ processes


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def tree_pids(root: int) -> list[int]:
    """``root`` and every process descended from it (from /proc/<pid>/stat)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def tree_rss_kib(root: int) -> int:
    """The resident set size of a process tree (VmRSS summed), in KiB."""
    total = 0
    for pid in tree_pids(root):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total


@dataclass
class Target:
    """Where the client sends a stream of a route: the upstream itself or a gateway."""

    name: str
    base_url: str
    process: subprocess.Popen[bytes] | None = None
    workers: int = 0
    log: Path | None = None
    per_route_models: bool = False  # LiteLLM: a model per route; streamkit: one route

    def path(self, route: str) -> str:
        return f"/{route}/v1/chat/completions" if self.process is None else "/v1/chat/completions"

    def model(self, route: str) -> str:
        return f"bench-{route}" if self.per_route_models else "bench"

    def headers(self) -> dict[str, str]:
        key = UPSTREAM_KEY if self.process is None else GATEWAY_KEY
        return {"Authorization": f"Bearer {key}"}


def litellm_config(upstream: str, plan: Plan) -> str:
    """LiteLLM's proxy config: one model per upstream route, ``openai/bench`` at
    the route's base URL; callers present the master key."""
    lines = ["model_list:"]
    for route in upstream_routes(plan):
        lines += [f"  - model_name: bench-{route}",
                  "    litellm_params:",
                  "      model: openai/bench",
                  f"      api_base: {upstream}/{route}/v1",
                  f"      api_key: {UPSTREAM_KEY}"]
    lines += ["general_settings:", f"  master_key: {GATEWAY_KEY}"]
    return "\n".join(lines) + "\n"


def streamkit_config(upstream: str, route: str) -> str:
    """streamkit's gateway config: the public model ``bench`` is ``openai:bench``
    at one upstream route (a provider has one base URL, so the harness starts a
    gateway per route; it starts in about a second)."""
    return "\n".join([
        "[gateway]", f'keys = ["{GATEWAY_KEY}"]', "",
        "[models.bench]", 'model = "openai:bench"', "",
        "[providers.openai]", f'base_url = "{upstream}/{route}/v1"',
        'api_key_env = "BENCH_UPSTREAM_KEY"', ""])


def start_gateway(kind: str, upstream: str, plan: Plan, workers: int, work: Path,
                  litellm: Path, route: str = "") -> Target:
    """LiteLLM's proxy serving every route (a model each), or streamkit's
    gateway serving ``route``."""
    port = free_port()
    log = work / f"{kind}-{workers}-{route}.log"
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "BENCH_UPSTREAM_KEY": UPSTREAM_KEY}
    if kind == "litellm":
        config = work / "litellm.yaml"
        config.write_text(litellm_config(upstream, plan))
        argv = [str(litellm), "--config", str(config), "--host", "127.0.0.1",
                "--port", str(port), "--num_workers", str(workers)]
        env.update(LITELLM_LOG="ERROR", LITELLM_TELEMETRY="False",
                   DISABLE_SCHEMA_UPDATE="true")
    else:
        config = work / f"gateway-{route}.toml"
        config.write_text(streamkit_config(upstream, route))
        argv = [sys.executable, "-m", "streamkit", "gateway", "--config", str(config),
                "--host", "127.0.0.1", "--port", str(port), "--workers", str(workers)]
    with log.open("wb") as out:
        process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env,
                                   cwd=work, start_new_session=True)
    target = Target(kind, f"http://127.0.0.1:{port}", process, workers, log,
                    per_route_models=kind == "litellm")
    wait_ready(target)
    return target


def wait_ready(target: Target, timeout: float = 400.0) -> None:
    """Until the gateway lists its models to a caller with the gateway key (the
    warm-up streams of :func:`sequential` reach every worker before timing).
    LiteLLM's proxy with 2 workers took over 120 s to answer on a loaded
    2-core machine (each worker imports LiteLLM anew), hence the long wait."""
    assert target.process is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if target.process.poll() is not None:
            raise RuntimeError(f"{target.name} exited: {tail(target)}")
        with contextlib.suppress(httpx.HTTPError):
            response = httpx.get(target.base_url + "/v1/models", headers=target.headers(),
                                 timeout=2)
            if response.status_code == 200:
                return
        time.sleep(0.5)
    raise RuntimeError(f"{target.name} did not start in {timeout:.0f} s: {tail(target)}")


def tail(target: Target) -> str:
    return target.log.read_text(errors="replace")[-3000:] if target.log else ""


def stop(process: subprocess.Popen[bytes]) -> None:
    """End the process group this harness started (the gateway and its workers)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, 15)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, 9)
        process.wait(timeout=10)


@contextlib.contextmanager
def upstream_process(plan: Plan) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    argv = [sys.executable, str(Path(__file__).resolve()), "--serve-upstream",
            json.dumps(asdict(plan))]
    server = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        if not url:
            raise RuntimeError("the fake upstream did not start")
        yield url, server
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=30)


# ------------------------------------------------------------------ the client


@dataclass
class Read:
    """One stream as the client saw it."""

    ttfb: float
    total: float
    text_ok: bool
    chunks: int  # SSE data events with content


def sse_text(body: bytes) -> tuple[str, int, bool]:
    """The joined ``delta.content`` of an OpenAI Chat SSE body, the number of
    chunks carrying content, and whether it ended with ``[DONE]``."""
    parts: list[str] = []
    done = False
    for line in body.split(b"\n"):
        if not line.startswith(b"data:"):
            continue
        data = line[5:].strip()
        if data == b"[DONE]":
            done = True
            continue
        with contextlib.suppress(ValueError, KeyError, IndexError, TypeError):
            content = json.loads(data)["choices"][0]["delta"].get("content")
            if content:
                parts.append(content)
    return "".join(parts), len(parts), done


def request_body(target: Target, route: str) -> dict[str, Any]:
    return {"model": target.model(route), "stream": True,
            "messages": [{"role": "user", "content": "Say something."}]}


async def read_stream(client: httpx.AsyncClient, target: Target, route: str, expected: str,
                      opened: list[int] | None = None) -> Read:
    """POST one streaming request; time the first body byte and the last."""
    received: list[bytes] = []
    start = time.perf_counter()
    ttfb = 0.0
    async with client.stream("POST", target.base_url + target.path(route),
                             json=request_body(target, route),
                             headers=target.headers()) as response:
        async for piece in response.aiter_raw():
            if not received:
                ttfb = time.perf_counter() - start
                if opened is not None:
                    opened[0] += 1
                    opened[1] = max(opened[1], opened[0])
            received.append(piece)
        total = time.perf_counter() - start
        status = response.status_code
    if opened is not None and received:
        opened[0] -= 1
    text, chunks, done = sse_text(b"".join(received))
    return Read(ttfb, total, status == 200 and done and text == expected, chunks)


def make_client(connections: int, timeout: float) -> httpx.AsyncClient:
    """httpx's interface over aiohttp's connections: httpcore's own pool scans its
    connections on every request, so at 1,000 concurrent streams the client
    itself would take most of the time (26.5 s for the upstream direct in a run
    of this bench with plain httpx); the same client reads every target."""
    from httpx_aiohttp import AiohttpTransport

    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    return httpx.AsyncClient(transport=AiohttpTransport(limits=limits),
                             timeout=httpx.Timeout(timeout))


async def sequential(targets: list[Target], n: int, repeats: int) -> dict[str, dict[str, Any]]:
    """``repeats`` streams of ``n`` chunks per target, one at a time, the
    targets alternating, after a warm-up stream each; medians."""
    route, expected = f"c{n}", expected_text(n)
    reads: dict[str, list[Read]] = {t.name: [] for t in targets}
    async with make_client(4, 600) as client:
        for target in targets:  # warm-up (imports, connection, caches)
            await read_stream(client, target, route, expected)
        for _ in range(repeats):
            for target in targets:
                reads[target.name].append(await read_stream(client, target, route, expected))
    return {name: {"total": statistics.median(r.total for r in runs),
                   "ttfb": statistics.median(r.ttfb for r in runs),
                   "ok": sum(r.text_ok for r in runs), "runs": len(runs),
                   "chunks_out": statistics.median(r.chunks for r in runs)}
            for name, runs in reads.items()}


async def warm_up(target: Target, plan: Plan) -> None:
    """A few concurrent streams of the paced route, so every worker has served
    one before its idle RSS is read."""
    expected = expected_text(plan.paced_chunks)
    async with make_client(16, plan.pause * 4 + 600) as client:
        await asyncio.gather(*[read_stream(client, target, STREAMS_ROUTE, expected)
                               for _ in range(4 * max(target.workers, 1))])


async def concurrent(target: Target, plan: Plan) -> dict[str, Any]:
    """``plan.streams`` streams at once on the paced route. The RSS of the
    gateway's process tree is read idle and then every 50 ms while they run; the
    reading taken when the most streams were open gives the memory per stream."""
    expected = expected_text(plan.paced_chunks)
    root = target.process.pid if target.process is not None else None
    idle = tree_rss_kib(root) if root else 0
    opened = [0, 0]  # open now, most open at once
    rss_at_peak, open_at_peak = 0, 0
    async with make_client(plan.streams + 10, plan.pause * 4 + 600) as client:
        start = time.perf_counter()
        tasks = [asyncio.ensure_future(read_stream(client, target, STREAMS_ROUTE, expected,
                                                   opened))
                 for _ in range(plan.streams)]
        while not all(task.done() for task in tasks):
            await asyncio.sleep(0.05)
            if root and opened[0] > open_at_peak:
                open_at_peak, rss_at_peak = opened[0], tree_rss_kib(root)
        wall = time.perf_counter() - start
        results = await asyncio.gather(*tasks, return_exceptions=True)
    complete = sum(1 for r in results if isinstance(r, Read) and r.text_ok)
    errors = [repr(r)[:160] for r in results if isinstance(r, BaseException)][:3]
    per_stream = (rss_at_peak - idle) / open_at_peak if open_at_peak else None
    return {"streams": plan.streams, "wall": wall, "complete": complete,
            "peak_open": opened[1], "errors": errors, "idle_rss_kib": idle,
            "open_rss_kib": rss_at_peak, "open_at_rss": open_at_peak,
            "per_stream_kib": per_stream}


# ------------------------------------------------------------------ the run


def run(plan: Plan, litellm: Path) -> dict[str, Any]:
    """Per worker count: LiteLLM's proxy up for the whole round, streamkit's
    gateway started per route; the sequential sizes, then the concurrent streams."""
    rounds: list[dict[str, Any]] = []
    with upstream_process(plan) as (upstream, _), \
            tempfile.TemporaryDirectory(prefix="bench-gateway-") as tmp:
        direct = Target("direct", upstream)

        def gateways(workers: int, route: str) -> contextlib.ExitStack:
            return _gateways(plan, upstream, workers, Path(tmp), litellm, route, shared)

        for workers in plan.workers:
            shared: dict[str, Target] = {}
            round_: dict[str, Any] = {"workers": workers, "sequential": {}, "concurrent": {}}
            try:
                for n in plan.sizes:
                    with gateways(workers, f"c{n}") as started:
                        say(f"{workers} worker(s): {plan.repeats} streams of {n} chunks each")
                        for name, cell in asyncio.run(sequential(
                                [direct, *started.targets], n, plan.repeats)).items():
                            round_["sequential"].setdefault(name, {})[f"c{n}"] = cell
                with gateways(workers, STREAMS_ROUTE) as started:
                    for target in [direct, *started.targets]:
                        say(f"{workers} worker(s): {plan.streams} streams via {target.name}")
                        asyncio.run(warm_up(target, plan))
                        round_["concurrent"][target.name] = asyncio.run(concurrent(target,
                                                                                   plan))
            finally:
                for target in shared.values():
                    assert target.process is not None
                    stop(target.process)
            rounds.append(round_)
            say(f"{workers} worker(s) done: {json.dumps(round_)}")
    return {"plan": asdict(plan), "rounds": rounds, "versions": versions(litellm)}


class _Started(contextlib.ExitStack):
    targets: list[Target]


def _gateways(plan: Plan, upstream: str, workers: int, work: Path, litellm: Path, route: str,
              shared: dict[str, Target]) -> _Started:
    """The gateways for one route: LiteLLM's (kept in ``shared`` for the round)
    and a fresh streamkit one, stopped when the block ends."""
    stack = _Started()
    stack.targets = []
    kinds = [plan.only] if plan.only else ["litellm", "streamkit"]
    for kind in kinds:
        if kind == "litellm":
            if "litellm" not in shared:
                say(f"starting LiteLLM's proxy with {workers} worker(s)")
                shared["litellm"] = start_gateway(kind, upstream, plan, workers, work, litellm)
            stack.targets.append(shared["litellm"])
        else:
            say(f"starting streamkit's gateway with {workers} worker(s) for {route}")
            target = start_gateway(kind, upstream, plan, workers, work, litellm, route)
            assert target.process is not None
            stack.callback(stop, target.process)
            stack.targets.append(target)
    return stack


def say(message: str) -> None:
    print(f"[bench-gateway] {message}", file=sys.stderr, flush=True)


def versions(litellm: Path) -> dict[str, str]:
    found = {"python": platform.python_version()}
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        python = litellm.parent / "python"
        out = subprocess.run([str(python), "-c", "import importlib.metadata as m;"
                              "print(m.version('litellm'))"], capture_output=True, text=True,
                             timeout=60, check=False)
        found["litellm"] = out.stdout.strip()
    from importlib import metadata
    for name in ("streamkit", "httpx", "starlette", "uvicorn"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            found[name] = metadata.version(name)
    return found


# ------------------------------------------------------------------ the report


def overhead_rows(result: dict[str, Any]) -> list[tuple[str, ...]]:
    rows = []
    for round_ in result["rounds"]:
        seq = round_["sequential"]
        for route, direct in seq["direct"].items():
            n = int(route[1:])
            for name, per_route in seq.items():
                cell = per_route[route]
                per_chunk = (cell["total"] - direct["total"]) / n
                ttfb = cell["ttfb"] - direct["ttfb"]
                rows.append((name, str(round_["workers"]) if name != "direct" else "-",
                             f"{n:,}", fmt_seconds(cell["total"]),
                             "-" if name == "direct" else f"{per_chunk * 1e6:.1f} µs",
                             fmt_seconds(cell["ttfb"]),
                             "-" if name == "direct" else fmt_seconds(ttfb),
                             f"{cell['ok']}/{cell['runs']}", f"{cell['chunks_out']:.0f}"))
    return rows


def per_chunk(result: dict[str, Any], name: str, workers: int, route: str) -> float | None:
    for round_ in result["rounds"]:
        seq = round_["sequential"]
        if round_["workers"] == workers and name in seq:
            n = int(route[1:])
            return float((seq[name][route]["total"] - seq["direct"][route]["total"]) / n)
    return None


def concurrency_rows(result: dict[str, Any]) -> list[tuple[str, ...]]:
    rows = []
    for round_ in result["rounds"]:
        for name, cell in round_["concurrent"].items():
            kib = cell["per_stream_kib"]
            grown = (f"+{(cell['open_rss_kib'] - cell['idle_rss_kib']) / 1024:.1f} MiB "
                     f"with {cell['open_at_rss']:,} open" if kib is not None else "-")
            rows.append((name, str(round_["workers"]) if name != "direct" else "-",
                         fmt_seconds(cell["wall"]), f"{cell['complete']:,}/{cell['streams']:,}",
                         f"{cell['peak_open']:,}",
                         f"{cell['idle_rss_kib'] / 1024:.0f} MiB" if cell["idle_rss_kib"] else "-",
                         grown, f"{kib:.1f} KiB" if kib is not None else "-"))
    return rows


def verdicts(result: dict[str, Any]) -> list[tuple[str, ...]]:
    rows = []
    size = f"c{max(result['plan']['sizes'])}"
    for round_ in result["rounds"]:
        workers = round_["workers"]
        ours, theirs = (per_chunk(result, "streamkit", workers, size),
                        per_chunk(result, "litellm", workers, size))
        if ours is not None and theirs is not None:
            ratio = ours / theirs if theirs > 0 else float("inf")
            rows.append((f"streamkit overhead per chunk <= 1/3 of LiteLLM's ({workers} "
                         f"worker(s), {size[1:]} chunks)",
                         f"{ours * 1e6:.1f} µs vs {theirs * 1e6:.1f} µs = {ratio:.2f}x",
                         "PASS" if ratio <= 1 / 3 else "FAIL"))
        cell = round_["concurrent"].get("streamkit")
        if cell is not None:
            ok = cell["wall"] < 10 and cell["complete"] == cell["streams"]
            rows.append((f"{cell['streams']:,} concurrent streams through streamkit < 10 s, "
                         f"all complete ({workers} worker(s))",
                         f"{cell['wall']:.2f} s, {cell['complete']:,} complete",
                         "PASS" if ok else "FAIL"))
    return rows


def report(result: dict[str, Any], command: str) -> str:
    plan = result["plan"]
    packages = ", ".join(f"{k} {v}" for k, v in result["versions"].items())
    cpu = next((line.split(":", 1)[1].strip() for line in
                Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    head = [
        "# streamkit's gateway vs LiteLLM's proxy, same fake upstream",
        "",
        f"- date: {datetime.datetime.now(datetime.UTC).isoformat(timespec='seconds')}",
        f"- machine: {os.cpu_count()} CPUs, {cpu}, {platform.system()} {platform.release()}",
        f"- packages: {packages}",
        f"- command: `{command}`",
        "",
        "Each gateway runs in its own process tree in front of one fake upstream (a "
        "`streamkit.testing.ReplayServer` process serving generated OpenAI Chat SSE, 4 KB "
        "writes); the client is one `httpx.AsyncClient` over aiohttp's connections reading "
        "the raw SSE, the same code for the upstream direct and both gateways. "
        "*overhead / chunk*: (median time for the whole stream through the gateway - "
        "median direct) / chunks; *TTFB added*: median "
        "time to the first body byte through the gateway - direct; medians of "
        f"{plan['repeats']} runs per target, alternating. Every stream's text is checked "
        "(*text ok*); *chunks out*: content chunks the client received.",
    ]
    parts = ["\n".join(head)]
    parts.append(_table("Overhead per streamed chunk and time to first byte", overhead_rows(result),
                        ("target", "workers", "chunks", "median stream", "overhead / chunk",
                         "median TTFB", "TTFB added", "text ok", "chunks out")))
    parts.append(_table(
        f"{plan['streams']:,} concurrent streams ({plan['paced_chunks']} chunks each, the "
        f"upstream pausing {plan['pause']:g} s mid-body)", concurrency_rows(result),
        ("target", "workers", "wall time", "complete", "peak open", "idle RSS (tree)",
         "RSS growth", "RSS / open stream")))
    parts.append(_table("Floors (issue 20)", verdicts(result), ("floor", "measured", "verdict")))
    return "\n".join(parts) + "\n"


def _table(title: str, rows: list[tuple[str, ...]], header: tuple[str, ...]) -> str:
    lines = [f"\n### {title}\n", "| " + " | ".join(header) + " |",
             "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve-upstream", metavar="PLAN", help=argparse.SUPPRESS)
    parser.add_argument("--only", choices=["litellm", "streamkit"])
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 2000],
                        help="chunks per stream of the sequential runs")
    parser.add_argument("--litellm", type=Path, default=LITELLM_DEFAULT,
                        help="LiteLLM's proxy CLI (in its own venv)")
    parser.add_argument("--out", type=Path, default=HERE / "gateway.latest.md")
    parser.add_argument("--update", action="store_true",
                        help="write the tracked bench/RESULTS-gateway.md")
    args = parser.parse_args()
    if args.serve_upstream:
        asyncio.run(serve_upstream(Plan(**json.loads(args.serve_upstream))))
        return
    plan = Plan(workers=args.workers, streams=args.streams, only=args.only, sizes=args.sizes)
    if args.quick:
        plan.repeats = 3
    if not shutil.which(str(args.litellm)) and plan.only != "streamkit":
        sys.exit(f"LiteLLM's proxy is not at {args.litellm} (make bench-gateway installs it)")
    result = run(plan, args.litellm.absolute())  # the proxy starts in a scratch folder
    command = "python bench/gateway.py " + " ".join(sys.argv[1:])
    text = report(result, command.strip())
    print(text)
    out = HERE / "RESULTS-gateway.md" if args.update else args.out
    out.write_text(text)


if __name__ == "__main__":
    main()
