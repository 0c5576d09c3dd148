"""What observability costs: per call with an in-memory tracer, per chunk with none.

Run: make bench-observability   (or python bench/observability.py [--quick])

1. The telemetry's own work per call, without I/O: observing a call that
   streamed 200 chunks (its span started and ended, its metrics recorded, the
   gaps of its chunks included) for a response already read; minimum of the
   rounds' means, so the machine's noise stays out.
2. Per call: the same ``SyncClient`` calls (a streamed answer of 200 text
   tokens read one SSE event at a time, and a non-streamed answer) over an
   in-memory httpx transport, with telemetry off (no provider set, opentelemetry
   imported: the checks a call pays), with an in-memory span exporter, with its
   metric reader too, and with message content captured. Calls alternate
   between the settings; the median per call is reported, with the extra time
   over "off".
3. Per chunk, tracing off: ``stream()`` over the live shape (one SSE event per
   read, 20,000 of them) as it is, and with its feed replaced by the one before
   the stream timed itself (one clock read per chunk is the difference), and
   ``replay()`` (the bench's floors are measured on it: it goes through the
   pipeline only, which timing does not touch). Alternating runs, medians and
   minimums.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).parent))
import payloads as P
from _timing import fmt_seconds, table
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import streamkit
from streamkit import SyncClient, UserMessage, observability
from streamkit.model.timing import AttemptLog
from streamkit.observability.telemetry import CallTelemetry
from streamkit.reading.stream import _Driver

ROOT = Path(__file__).resolve().parent.parent
ANSWER = (ROOT / "tests/fixtures/conversations/anthropic/tool-use-thinking-signature"
          / "turn1.response.json")


def transport(streamed: list[bytes], whole: bytes) -> httpx.MockTransport:
    """Answers a streamed request with ``streamed`` (one read each), any other with ``whole``."""
    def answer(request: httpx.Request) -> httpx.Response:
        if b'"stream":true' in request.content:
            return httpx.Response(200, headers={"content-type": "text/event-stream"},
                                  content=iter(streamed))
        return httpx.Response(200, headers={"content-type": "application/json"}, content=whole)
    return httpx.MockTransport(answer)


def settings() -> dict[str, Callable[[], Any]]:
    """Each telemetry setting: a function that applies it and returns what to clear."""
    def off() -> None:
        observability.configure()

    def traced(metered: bool = False, content: bool = False,
               chunk_metric: bool = True) -> Callable[[], Any]:
        def apply() -> Any:
            spans = InMemorySpanExporter()
            tracer = TracerProvider()
            tracer.add_span_processor(SimpleSpanProcessor(spans))
            meter = MeterProvider(metric_readers=[InMemoryMetricReader()]) if metered else None
            observability.configure(tracer_provider=tracer, meter_provider=meter,
                                    capture_content=content, chunk_metric=chunk_metric)
            return spans
        return apply

    return {"off (no provider set)": off, "in-memory tracer": traced(),
            "tracer + metric reader": traced(metered=True),
            "tracer + metrics, chunk_metric=False": traced(metered=True, chunk_metric=False),
            "tracer + metrics + message content": traced(metered=True, content=True)}


def own_work(iterations: int, rounds: int) -> str:
    reads = P.split_events(P.anthropic_text(200))
    response = streamkit.stream(iter(reads), "anthropic").final()
    messages = [UserMessage("Say something.")]
    body = streamkit.build_request("anthropic", messages, model="claude-sonnet-4-5",
                                   stream=True, max_tokens=1024)
    log = AttemptLog()
    log.sending(0.0)
    log.answered(0.25)
    gaps = [0.02] * (len(reads) - 1)

    def observe() -> None:
        observer = observability.observe_call(
            provider="anthropic", model="claude-sonnet-4-5",
            url="https://api.anthropic.com/v1/messages", body=body, stream=True)
        if isinstance(observer, CallTelemetry) and observer.instruments.time_per_output_chunk:
            observer.gaps = gaps
        observer.finish(response, log=log)

    rows = []
    base = None
    for setting, apply in settings().items():
        exporter = apply()
        means = []
        for _ in range(rounds):
            start = time.perf_counter()
            for _ in range(iterations):
                observe()
            means.append((time.perf_counter() - start) / iterations)
            if exporter is not None:
                exporter.clear()
        best = min(means)
        base = best if base is None else base
        rows.append((setting, fmt_seconds(best), "" if best is base else
                     f"+{fmt_seconds(best - base)}"))
    observability.configure()
    return table(f"The telemetry's own work per streamed call of {len(reads)} chunks "
                 f"({iterations} x {rounds} rounds, best mean)", rows,
                 ("telemetry", "per call", "over off"))


def per_call(calls: int, rounds: int) -> str:
    streamed = P.split_events(P.anthropic_text(200))
    client = SyncClient("anthropic:claude-sonnet-4-5", api_key="bench",
                        http_client=httpx.Client(transport=transport(streamed,
                                                                     ANSWER.read_bytes())))
    messages = [UserMessage("Say something.")]

    def stream_once() -> None:
        with client.stream(messages) as events:
            events.final()

    def create_once() -> None:
        client.create(messages)

    kinds = {"streamed (200 tokens, one event per read)": stream_once,
             "non-streamed": create_once}
    samples: dict[tuple[str, str], list[float]] = {}
    for _ in range(rounds):
        for setting, apply in settings().items():
            exporter = apply()
            for kind, call in kinds.items():
                call()  # warm: the first call of a setting makes its instruments
                gc.collect()
                start = time.perf_counter()
                for _ in range(calls):
                    call()
                samples.setdefault((kind, setting), []).append(
                    (time.perf_counter() - start) / calls)
            if exporter is not None:
                exporter.clear()
    observability.configure()
    rows = []
    for kind in kinds:
        base = statistics.median(samples[(kind, "off (no provider set)")])
        for setting in settings():
            median = statistics.median(samples[(kind, setting)])
            extra = "" if median is base else f"+{fmt_seconds(median - base)}"
            rows.append((kind, setting, fmt_seconds(median), extra))
    return table(f"Per call ({calls} calls x {rounds} rounds per setting, medians)", rows,
                 ("call", "telemetry", "per call", "over off"))


def _untimed_feed(self: _Driver, item: Any) -> list[Any]:
    """The stream's feed before it timed chunks (the baseline of the hot path)."""
    if isinstance(item, (bytes, bytearray, memoryview)):
        return self.pipeline.feed(bytes(item))
    return self._feed_sse_event(item)


def per_chunk(chunks: int, rounds: int) -> str:
    timed = _Driver.feed
    cases = {"OpenAI Chat": ("openai", P.split_events(P.openai_text(chunks))),
             "Anthropic": ("anthropic", P.split_events(P.anthropic_text(chunks)))}
    runs: dict[tuple[str, str], tuple[Any, Callable[[], object]]] = {}
    for name, (provider, reads) in cases.items():
        def streamed(p: str = provider, r: list[bytes] = reads) -> object:
            return streamkit.stream(iter(r), p).final().text

        def replayed(p: str = provider, r: list[bytes] = reads) -> object:
            return streamkit.replay(r, p)[1].text

        runs[(name, "stream(), timed (as shipped)")] = (timed, streamed)
        runs[(name, "stream(), untimed feed")] = (_untimed_feed, streamed)
        runs[(name, "replay() (the floors' path)")] = (timed, replayed)
    samples: dict[tuple[str, str], list[float]] = {key: [] for key in runs}
    for feed, run in runs.values():
        _Driver.feed = feed  # type: ignore[method-assign]
        run()
    gc.collect()
    gc.freeze()
    for _ in range(rounds):
        for key, (feed, run) in runs.items():
            _Driver.feed = feed  # type: ignore[method-assign]
            gc.collect()
            start = time.perf_counter()
            run()
            samples[key].append(time.perf_counter() - start)
    _Driver.feed = timed  # type: ignore[method-assign]
    rows = []
    for name in cases:
        untimed = samples[(name, "stream(), untimed feed")]
        for (case, path), values in samples.items():
            if case != name:
                continue
            median, low = statistics.median(values), min(values)
            rows.append((name, path, fmt_seconds(median), fmt_seconds(low),
                         f"{median / chunks * 1e9:,.0f} ns",
                         f"{(median - statistics.median(untimed)) / chunks * 1e9:+,.0f} ns",
                         f"{(low - min(untimed)) / chunks * 1e9:+,.0f} ns"))
    clock = min(_clock_reads(200_000) for _ in range(5))
    return table(f"Per chunk, tracing off ({chunks:,} reads, {rounds} alternating runs)", rows,
                 ("stream", "path", "median", "min", "per read", "vs untimed (median)",
                  "vs untimed (min)")) + (
        f"\n\nOne `time.monotonic()` read costs {clock * 1e9:,.0f} ns on this machine.")


def _clock_reads(n: int) -> float:
    monotonic = time.monotonic
    start = time.perf_counter()
    for _ in range(n):
        monotonic()
    return (time.perf_counter() - start) / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, a smoke run")
    args = parser.parse_args()
    own, own_rounds = (50, 2) if args.quick else (500, 7)
    calls, call_rounds = (20, 2) if args.quick else (100, 7)
    chunks, chunk_rounds = (2_000, 3) if args.quick else (20_000, 9)
    print(f"# Observability overhead ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})")
    print(own_work(own, own_rounds))
    print(per_call(calls, call_rounds))
    print(per_chunk(chunks, chunk_rounds))


if __name__ == "__main__":
    main()
