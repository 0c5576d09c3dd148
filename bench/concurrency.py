"""1,000 concurrent streams from a ReplayServer, in one client event loop.

Server and client run in separate processes (``--serve`` / ``--client``), both
started by :func:`run`, so that the client's resident memory is the client's
alone, measured in a fresh interpreter whose allocator has not been warmed up
by the other benchmarks, and so the server gets its own core.

Two phases, one ``httpx.AsyncClient`` (``max_connections=1000``), then the same
two in a fresh client process with one ``aiohttp.ClientSession``
(``TCPConnector(limit=1000)``, each response read through
``streamkit.adapters.aiohttp``) when aiohttp is installed; ``run()`` returns the
httpx figures as before and the aiohttp ones under ``"aiohttp"``:

- throughput: 1,000 streams (half OpenAI Chat, half Anthropic) fetched at
  once, each through ``streamkit.stream(response)``; every final response is
  checked against the expected text, so a lost or truncated stream shows up;
- memory: 1,000 streams whose server sends half the body and then pauses.
  Once every stream has produced its first events and sits idle, VmRSS is read
  from /proc/self/status; the growth over the baseline, divided by 1,000, is
  the client's cost of one open stream (httpx connection + task + streamkit
  pipeline with half a response).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
import payloads

import streamkit
from streamkit.testing import ReplayServer

HERE = Path(__file__).parent


@dataclass
class Plan:
    """How big the run is (``--quick`` shrinks it)."""

    streams: int = 1000
    chunks: int = 500  # content chunks per stream (throughput phase)
    idle_chunks: int = 30  # content chunks per stream (memory phase): an ~8 KB body
    pause: float = 8.0  # seconds the server idles mid-body (memory phase)
    passes: int = 1  # throughput passes of each kind (each ~20 s at 1,000 streams)
    transport: str = "httpx"  # the client process's HTTP client: "httpx" or "aiohttp"


# ------------------------------------------------------------------ server side


def _bodies(plan: Plan) -> dict[str, tuple[bytes, int | None, float]]:
    """path -> (body, network write size, pause between writes)."""
    idle = payloads.openai_text(plan.idle_chunks)
    return {
        "/fast/openai": (payloads.openai_text(plan.chunks), 4096, 0.0),
        "/fast/anthropic": (payloads.anthropic_text(plan.chunks), 4096, 0.0),
        "/idle/openai": (idle, len(idle) // 2 + 1, plan.pause),
    }


async def serve(plan: Plan) -> None:
    """Serve the bodies; print the URL; stop when stdin closes."""
    async with ReplayServer(backlog=4096) as server:
        for path, (body, size, pause) in _bodies(plan).items():
            server.add(path, body, chunk_size=size, delay=pause)
        print(server.url, flush=True)
        await anyio.to_thread.run_sync(sys.stdin.read)


# ------------------------------------------------------------------ client side


def rss_kib() -> int:
    """This process's resident set size, from /proc/self/status."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def _one(client: httpx.AsyncClient, path: str, ready: list[int] | None,
               everyone: asyncio.Event | None, total: int) -> streamkit.ChatResponse:
    """One stream to its final response; ``ready`` counts streams that have
    produced events (the memory phase waits for all of them)."""
    provider = path.rsplit("/", 1)[1]
    async with client.stream("POST", path, json={}) as response, \
            streamkit.stream(response, provider) as events:
        seen = False
        async for _ in events:
            if not seen and ready is not None and everyone is not None:
                seen = True
                ready[0] += 1
                if ready[0] == total:
                    everyone.set()
        return events.response


async def _raw(client: httpx.AsyncClient, path: str) -> int:
    """The same request read with httpx alone: the transport's share of the time."""
    async with client.stream("POST", path, json={}) as response:
        return sum([len(chunk) async for chunk in response.aiter_bytes()])


async def _timed(calls: list[Any]) -> tuple[list[Any], float, float]:
    cpu, start = time.process_time(), time.perf_counter()
    results = await asyncio.gather(*calls, return_exceptions=True)
    return results, time.perf_counter() - start, time.process_time() - cpu


def _client(url: str, plan: Plan) -> httpx.AsyncClient:
    limits = httpx.Limits(max_connections=plan.streams, max_keepalive_connections=plan.streams)
    return httpx.AsyncClient(base_url=url, limits=limits,
                             timeout=httpx.Timeout(plan.pause * 4 + 60))


async def _pass(url: str, plan: Plan, paths: list[str], parse: bool) -> tuple[list[Any], float,
                                                                              float]:
    """All streams at once on a fresh client (an empty pool: httpcore scans every idle
    pooled connection per request, so a pool left full by a previous pass would
    slow the next burst for reasons that have nothing to do with parsing)."""
    async with _client(url, plan) as client:
        calls = [_one(client, p, None, None, 0) if parse else _raw(client, p) for p in paths]
        return await _timed(calls)


async def _throughput(url: str, plan: Plan) -> dict[str, Any]:
    """Alternating passes, httpx alone then with streamkit; medians of each."""
    paths = ["/fast/openai", "/fast/anthropic"] * (plan.streams // 2)
    expected = len("".join(payloads.text_tokens(plan.chunks)))
    raw: list[tuple[float, float]] = []
    parsed: list[tuple[float, float]] = []
    results: list[Any] = []
    for _ in range(plan.passes):
        _, wall, cpu = await _pass(url, plan, paths, parse=False)
        raw.append((wall, cpu))
        results, wall, cpu = await _pass(url, plan, paths, parse=True)
        parsed.append((wall, cpu))
        if any(not isinstance(r, streamkit.ChatResponse) or len(r.text) != expected
               for r in results):
            break  # a lost stream: report this pass
    complete = sum(1 for r in results
                   if isinstance(r, streamkit.ChatResponse) and len(r.text) == expected)
    errors = [repr(r)[:200] for r in results if isinstance(r, BaseException)][:3]
    bodies = _bodies(plan)
    return {"streams": len(paths), "complete": complete, "lost": len(paths) - complete,
            "errors": errors, "passes": len(parsed),
            "wall": statistics.median(w for w, _ in parsed),
            "cpu": statistics.median(c for _, c in parsed),
            "raw_wall": statistics.median(w for w, _ in raw),
            "raw_cpu": statistics.median(c for _, c in raw), "chunks": plan.chunks * len(paths),
            "bytes": sum(len(bodies[p][0]) for p in paths)}


async def _memory(client: httpx.AsyncClient, plan: Plan) -> dict[str, Any]:
    ready, everyone = [0], asyncio.Event()
    before = rss_kib()
    tasks = [asyncio.ensure_future(_one(client, "/idle/openai", ready, everyone, plan.streams))
             for _ in range(plan.streams)]
    start = time.perf_counter()
    with contextlib.suppress(TimeoutError):  # report how many opened in time
        await asyncio.wait_for(everyone.wait(), timeout=plan.pause)
    opened, during, took = ready[0], rss_kib(), time.perf_counter() - start
    results = await asyncio.gather(*tasks, return_exceptions=True)
    complete = sum(1 for r in results if isinstance(r, streamkit.ChatResponse)
                   and len(r.text) == len("".join(payloads.text_tokens(plan.idle_chunks))))
    return {"open_idle": opened, "rss_before_kib": before, "rss_open_kib": during,
            "per_stream_kib": (during - before) / max(opened, 1), "open_seconds": took,
            "complete": complete, "lost": plan.streams - complete,
            "write_bytes": _bodies(plan)["/idle/openai"][1]}


# ------------------------------------------------------------------ aiohttp client side


class AiohttpClient:
    """The three calls the phases make, over one ``aiohttp.ClientSession``."""

    def __init__(self, url: str, plan: Plan) -> None:
        import aiohttp

        from streamkit.adapters.aiohttp import stream as aiohttp_stream

        self._stream = aiohttp_stream
        self.session = aiohttp.ClientSession(
            base_url=url, connector=aiohttp.TCPConnector(limit=plan.streams),
            timeout=aiohttp.ClientTimeout(total=plan.pause * 4 + 60))

    async def __aenter__(self) -> AiohttpClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.session.close()

    async def one(self, path: str, ready: list[int] | None, everyone: asyncio.Event | None,
                  total: int) -> streamkit.ChatResponse:
        provider = path.rsplit("/", 1)[1]
        async with self.session.post(path, json={}) as response, \
                self._stream(response, provider) as events:
            seen = False
            async for _ in events:
                if not seen and ready is not None and everyone is not None:
                    seen = True
                    ready[0] += 1
                    if ready[0] == total:
                        everyone.set()
            return events.response

    async def raw(self, path: str) -> int:
        async with self.session.post(path, json={}) as response:
            return sum([len(chunk) async for chunk in response.content.iter_any()])


class HttpxClient:
    """The same three calls over one ``httpx.AsyncClient`` (the functions above)."""

    def __init__(self, url: str, plan: Plan) -> None:
        self.client = _client(url, plan)

    async def __aenter__(self) -> HttpxClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.client.aclose()

    async def one(self, path: str, ready: list[int] | None, everyone: asyncio.Event | None,
                  total: int) -> streamkit.ChatResponse:
        return await _one(self.client, path, ready, everyone, total)

    async def raw(self, path: str) -> int:
        return await _raw(self.client, path)


def _transport(url: str, plan: Plan) -> HttpxClient | AiohttpClient:
    return AiohttpClient(url, plan) if plan.transport == "aiohttp" else HttpxClient(url, plan)


async def client_main(url: str, plan: Plan) -> dict[str, Any]:
    """Both phases; returns the figures as a dict (printed as JSON)."""
    if plan.transport != "httpx":
        return await _client_main_any(url, plan)
    async with _client(url, plan) as client:
        await _one(client, "/fast/openai", None, None, 0)  # warm imports
        memory = await _memory(client, plan)
    return {"throughput": await _throughput(url, plan), "memory": memory}


async def _client_main_any(url: str, plan: Plan) -> dict[str, Any]:
    """Both phases over ``plan.transport`` (the httpx path above is kept as it was)."""
    async with _transport(url, plan) as client:
        await client.one("/fast/openai", None, None, 0)  # warm imports
        ready, everyone = [0], asyncio.Event()
        before = rss_kib()
        tasks = [asyncio.ensure_future(client.one("/idle/openai", ready, everyone, plan.streams))
                 for _ in range(plan.streams)]
        start = time.perf_counter()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(everyone.wait(), timeout=plan.pause)
        opened, during, took = ready[0], rss_kib(), time.perf_counter() - start
        results = await asyncio.gather(*tasks, return_exceptions=True)
    idle_text = len("".join(payloads.text_tokens(plan.idle_chunks)))
    complete = sum(1 for r in results
                   if isinstance(r, streamkit.ChatResponse) and len(r.text) == idle_text)
    memory = {"open_idle": opened, "rss_before_kib": before, "rss_open_kib": during,
              "per_stream_kib": (during - before) / max(opened, 1), "open_seconds": took,
              "complete": complete, "lost": plan.streams - complete,
              "write_bytes": _bodies(plan)["/idle/openai"][1]}
    paths = ["/fast/openai", "/fast/anthropic"] * (plan.streams // 2)
    expected = len("".join(payloads.text_tokens(plan.chunks)))
    raw: list[tuple[float, float]] = []
    parsed: list[tuple[float, float]] = []
    for _ in range(plan.passes):
        async with _transport(url, plan) as fresh:  # an empty pool per pass, as above
            _, wall, cpu = await _timed([fresh.raw(p) for p in paths])
        raw.append((wall, cpu))
        async with _transport(url, plan) as fresh:
            results, wall, cpu = await _timed([fresh.one(p, None, None, 0) for p in paths])
        parsed.append((wall, cpu))
    done = sum(1 for r in results
               if isinstance(r, streamkit.ChatResponse) and len(r.text) == expected)
    errors = [repr(r)[:200] for r in results if isinstance(r, BaseException)][:3]
    bodies = _bodies(plan)
    throughput = {"streams": len(paths), "complete": done, "lost": len(paths) - done,
                  "errors": errors, "passes": len(parsed),
                  "wall": statistics.median(w for w, _ in parsed),
                  "cpu": statistics.median(c for _, c in parsed),
                  "raw_wall": statistics.median(w for w, _ in raw),
                  "raw_cpu": statistics.median(c for _, c in raw),
                  "chunks": plan.chunks * len(paths),
                  "bytes": sum(len(bodies[p][0]) for p in paths)}
    return {"throughput": throughput, "memory": memory}


# ------------------------------------------------------------------ orchestration


def _has_aiohttp() -> bool:
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        return False
    return True


def run(plan: Plan) -> dict[str, Any]:
    """Start the server process, run the client process (httpx, then aiohttp in a
    fresh process when it is installed), return the figures."""
    argv = [sys.executable, str(Path(__file__).resolve())]
    server = subprocess.Popen([*argv, "--serve", json.dumps(asdict(plan))],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def client(transport: str) -> dict[str, Any]:
        plan_json = json.dumps({**asdict(plan), "transport": transport})
        done = subprocess.run([*argv, "--client", url, plan_json], capture_output=True,
                              text=True, timeout=600, check=False)
        if done.returncode:
            raise RuntimeError(f"{transport} client failed: {done.stderr[-2000:]}")
        figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        return figures

    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        result = client("httpx")
        if _has_aiohttp():
            result["aiohttp"] = client("aiohttp")
        return result
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", metavar="PLAN")
    parser.add_argument("--client", nargs=2, metavar=("URL", "PLAN"))
    args = parser.parse_args()
    if args.serve:
        anyio.run(serve, Plan(**json.loads(args.serve)))
    elif args.client:
        url, plan_json = args.client
        print(json.dumps(asyncio.run(client_main(url, Plan(**json.loads(plan_json))))))
    else:
        print(json.dumps(run(Plan()), indent=2))


if __name__ == "__main__":
    main()
