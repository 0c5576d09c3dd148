"""Structured output read as a partial model after every fragment: streamkit vs
instructor's partial parsing and pydantic-ai's ``stream_output``.

Run: make bench-output   (creates .venv-bench-instructor and .venv-bench-pydantic-ai)

One generated structured answer (search results: a query and a list of
results with titles, URLs, snippets, scores, tags and a literal kind) of
~50 KB, cut into 20,000 random fragments. Every contender turns the fragments
into partial ``SearchResults`` values, one read after every fragment, and ends
with the validated whole:

- streamkit ``PartialOutputReader``: each fragment as the text delta event it
  arrives as, ``push`` then ``snapshot`` (the sans-IO path of
  ``events.partial_output``);
- streamkit ``events.partial_output(SearchResults)`` over the OpenAI Chat SSE
  body of the same answer, one SSE event per network read (bytes -> SSE ->
  parser -> accumulator -> partial values);
- instructor ``Partial[SearchResults].model_from_chunks(fragments)`` (jiter
  re-parses the accumulated text, its completeness tracker walks it, then the
  partial object is built) in ``.venv-bench-instructor``;
- pydantic-ai ``run_stream(...).stream_output(debounce_by=None)`` with a
  ``FunctionModel`` streaming the fragments as the arguments of its output tool
  (its default structured output) in ``.venv-bench-pydantic-ai``;
- for the design note: pydantic's ``experimental_allow_partial`` validation of
  the incremental parser's view after every fragment (what streamkit would do
  with pydantic's own partial validation: linear parsing, validation of the
  whole value per read).

Each contender runs in its own process (its own venv), the rounds alternate
between them, and the median is kept (of each process's best of three timed
runs for streamkit); the slow ones (the rivals and the
allow_partial variant, minutes where streamkit takes a fraction of a second) run
once. Times are the process's CPU time (``time.process_time``): the machine is
shared, and CPU time leaves out the time spent waiting for a core. Results are
ratios to streamkit's reader measured in the same run. Before its timed run,
each process warms its contender up on a small answer and freezes the heap out
of the cyclic collector (``gc.freeze()``), so no run pays for imports, schema
building or walking the libraries' objects. Then the growth of streamkit's time
from a 12 KB to a 200 KB answer in ~4-character fragments (linear = ~17x), and
the same for the worst shape, an answer that is one long string (each partial
value holds its own copy of it, so each read copies it: quadratic, at memcpy
speed).

Usage: ``python bench/partial_output.py`` (the driver, from the streamkit venv);
``python bench/partial_output.py --contender NAME --size N --count N`` runs one
contender once and prints its time (what the driver calls in each venv).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import itertools
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

ROOT = Path(__file__).parent.parent
VENVS = {
    "instructor": ROOT / ".venv-bench-instructor" / "bin" / "python",
    "pydantic-ai": ROOT / ".venv-bench-pydantic-ai" / "bin" / "python",
}


class Result(BaseModel):
    rank: int
    title: str
    url: str
    snippet: str
    score: float
    tags: list[str]
    kind: Literal["web", "news", "docs"]


class SearchResults(BaseModel):
    query: str
    total: int
    results: list[Result]


def make_answer(target: int, seed: int = 1) -> str:
    """The JSON text of a ``SearchResults`` of about ``target`` characters."""
    rnd = random.Random(seed)
    words = ["stream", "partial", "model", "json", "parser", "linear", "résumé", "naïve",
             "東京", "token", "validate", '"quoted"', "fast", "browser", "ui", "schema"]

    def sentence(n: int) -> str:
        return " ".join(rnd.choice(words) for _ in range(n))

    doc: dict[str, Any] = {"query": sentence(6), "total": 0, "results": []}
    while len(json.dumps(doc, ensure_ascii=False)) < target:
        rank = len(doc["results"]) + 1
        doc["results"].append({
            "rank": rank, "title": sentence(8),
            "url": f"https://example.com/{rank}/{sentence(2).replace(' ', '-')}",
            "snippet": sentence(rnd.randint(20, 90)), "score": round(rnd.random(), 6),
            "tags": [sentence(1) for _ in range(rnd.randint(1, 4))],
            "kind": rnd.choice(["web", "news", "docs"]),
        })
        doc["total"] = rank
    return json.dumps(doc, ensure_ascii=False)


class Essay(BaseModel):
    title: str
    body: str


def essay(target: int, seed: int = 1) -> str:
    """The JSON text of an ``Essay`` whose body is one string of ~``target`` characters."""
    rnd = random.Random(seed)
    words = ["stream", "partial", "model", "json", "résumé", "東京", "line\nbreak", '"quoted"']
    body = " ".join(rnd.choice(words) for _ in range(target // 7))
    return json.dumps({"title": "An essay", "body": body}, ensure_ascii=False)


def fragments(text: str, *, count: int | None = None, size: int | None = None) -> list[str]:
    """``text`` cut into ``count`` random pieces or pieces of ``size`` characters."""
    if count is not None:
        cuts = sorted(random.Random(2).sample(range(1, len(text)), count - 1))
    else:
        assert size is not None
        cuts = list(range(size, len(text), size))
    edges = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(edges)]


def _last(values: Any) -> Any:
    """The last of an iterator's values (every one read)."""
    last = None
    for last in values:  # noqa: B007
        pass
    return last


# ---------------------------------------------------------------------- contenders
# Each returns a callable that does the timed work and returns the final value.


def streamkit_reader(frags: list[str], model: type[BaseModel] = SearchResults
                     ) -> Callable[[], Any]:
    from streamkit.model.blocks import TextBlock
    from streamkit.model.events import BlockDelta, BlockStart, TextDelta
    from streamkit.model.response import ChatResponse
    from streamkit.model.structured.reader import PartialOutputReader

    events = [BlockDelta(index=0, delta=TextDelta(fragment)) for fragment in frags]
    final = ChatResponse()
    final.append_text("".join(frags))

    def run() -> Any:
        reader = PartialOutputReader(model)
        reader.push(BlockStart(index=0, block=TextBlock()))
        for event in events:
            reader.push(event)
            reader.snapshot()
        return reader.finish(final)
    return run


def openai_chat_body(frags: list[str]) -> list[bytes]:
    """The OpenAI Chat SSE events of an answer streamed in these fragments."""
    head = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
            "model": "gpt-4.1"}
    chunks = [{**head, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                    "finish_reason": None}]}]
    chunks += [{**head, "choices": [{"index": 0, "delta": {"content": fragment},
                                     "finish_reason": None}]} for fragment in frags]
    chunks.append({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    events = [f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode() for chunk in chunks]
    return [*events, b"data: [DONE]\n\n"]


def streamkit_stream(frags: list[str]) -> Callable[[], Any]:
    import streamkit

    reads = openai_chat_body(frags)

    def run() -> Any:
        with streamkit.stream(iter(reads), "openai") as events:
            values = events.partial_output(SearchResults)
            return _last(values)
    return run


def pydantic_allow_partial(frags: list[str]) -> Callable[[], Any]:
    from pydantic import TypeAdapter

    from streamkit.model.partial_json import PartialJSON
    from streamkit.model.structured.partial import partial_model

    adapter = TypeAdapter(partial_model(SearchResults))

    def run() -> Any:
        parser = PartialJSON()
        value = None
        for fragment in frags:
            parser.feed(fragment)
            with contextlib.suppress(ValueError):
                value = adapter.validate_python(parser.value, experimental_allow_partial=True)
        return SearchResults.model_validate(parser.finish()) if value is not None else None
    return run


def instructor_partial(frags: list[str]) -> Callable[[], Any]:
    from instructor.dsl.partial import Partial

    partial = Partial[SearchResults]  # type: ignore[misc]

    def run() -> Any:
        return _last(partial.model_from_chunks(iter(frags)))
    return run


def pydantic_ai_stream_output(frags: list[str]) -> Callable[[], Any]:
    from pydantic_ai import Agent
    from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

    async def stream(messages: Any, info: AgentInfo) -> Any:
        tool = info.output_tools[0].name
        yield {0: DeltaToolCall(name=tool, json_args=frags[0], tool_call_id="call_1")}
        for fragment in frags[1:]:
            yield {0: DeltaToolCall(json_args=fragment)}

    agent = Agent(FunctionModel(stream_function=stream), output_type=SearchResults)

    async def main() -> Any:
        last = None
        async with agent.run_stream("search") as result:
            async for value in result.stream_output(debounce_by=None):
                last = value
        return last

    return lambda: asyncio.run(main())


def streamkit_reader_essay(frags: list[str]) -> Callable[[], Any]:
    return streamkit_reader(frags, Essay)


CONTENDERS: dict[str, Callable[[list[str]], Callable[[], Any]]] = {
    "streamkit-reader": streamkit_reader,
    "streamkit-reader-essay": streamkit_reader_essay,
    "streamkit-stream": streamkit_stream,
    "pydantic-allow-partial": pydantic_allow_partial,
    "instructor": instructor_partial,
    "pydantic-ai": pydantic_ai_stream_output,
}


def run_once(name: str, size: int, count: int | None, piece: int | None,
             repeat: int = 1) -> float:
    """The best of ``repeat`` timed runs of one contender (in this process);
    checks its final value."""
    make = essay if name.endswith("-essay") else make_answer
    warm_up = make(2_000, seed=7)  # imports, schemas and caches made, for everyone
    CONTENDERS[name](fragments(warm_up, count=200))()
    text = make(size, seed=size)
    frags = fragments(text, count=count, size=piece)
    run = CONTENDERS[name](frags)
    gc.collect()
    gc.freeze()  # the interpreter's and the libraries' objects: no collection walks them
    elapsed = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        final = run()
        elapsed = min(elapsed, time.process_time() - start)
    expected = (Essay if name.endswith("-essay") else SearchResults).model_validate_json(text)
    got = final.model_dump() if isinstance(final, BaseModel) else final
    if got != expected.model_dump():
        raise SystemExit(f"{name}: the final value differs from the answer")
    return elapsed


# ---------------------------------------------------------------------- driver


def python_for(name: str) -> str:
    return str(VENVS.get(name, Path(sys.executable)))


def measure(name: str, size: int, *, count: int | None = None, piece: int | None = None) -> float:
    """One run of ``name`` in its own process and venv."""
    args = [python_for(name), __file__, "--contender", name, "--size", str(size),
            "--repeat", "1" if name in SLOW else "3"]
    args += ["--count", str(count)] if count is not None else ["--piece", str(piece)]
    done = subprocess.run(args, capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    if done.returncode != 0:
        raise SystemExit(f"{name} failed:\n{done.stdout}\n{done.stderr[-3000:]}")
    return float(done.stdout.strip().splitlines()[-1])


SLOW = frozenset({"instructor", "pydantic-ai", "pydantic-allow-partial"})


def medians(names: list[str], rounds: int, size: int, **cut: int) -> dict[str, float]:
    """Median time per contender, the rounds alternating between them (the
    slow contenders run in the first round only)."""
    samples: dict[str, list[float]] = {name: [] for name in names}
    for round_ in range(rounds):
        for name in names:
            if round_ == 0 or name not in SLOW:
                samples[name].append(measure(name, size, **cut))
    return {name: statistics.median(values) for name, values in samples.items()}


def fmt(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def versions() -> str:
    out = []
    for name in ("instructor", "pydantic-ai"):
        package = "pydantic-ai-slim" if name == "pydantic-ai" else name
        code = (f"import importlib.metadata as m; print(m.version({package!r}), "
                "m.version('pydantic'))")
        done = subprocess.run([python_for(name), "-c", code], capture_output=True, text=True,
                              check=True)
        version, pydantic_version = done.stdout.split()
        out.append(f"{package} {version} (pydantic {pydantic_version})")
    import pydantic

    out.insert(0, f"streamkit (pydantic {pydantic.VERSION})")
    return ", ".join(out)


def main() -> None:
    rounds = int(os.environ.get("ROUNDS", "5"))
    print(f"- date: {time.strftime('%Y-%m-%dT%H:%M:%S%z')}")
    print(f"- machine: {os.cpu_count()} CPUs, Python {platform.python_version()}")
    print(f"- packages: {versions()}")
    print("- command: `make bench-output`")
    answer = make_answer(50_000, seed=50_000)
    names = [name for name in CONTENDERS if not name.endswith("-essay")]
    times = medians(names, rounds, 50_000, count=20_000)
    base = times["streamkit-reader"]
    labels = {
        "streamkit-reader": "**streamkit** `PartialOutputReader` (text delta events)",
        "streamkit-stream": "**streamkit** `events.partial_output` (SSE bytes, one event a read)",
        "pydantic-allow-partial":
            "pydantic `experimental_allow_partial` on streamkit's parser view",
        "instructor": "instructor `Partial[...].model_from_chunks`",
        "pydantic-ai": "pydantic-ai `stream_output(debounce_by=None)`",
    }
    print(f"\n### {len(answer):,} characters of structured answer in 20,000 fragments, "
          f"a partial model read after each\n")
    print("| contender | CPU time (median) | processes | x streamkit reader time |")
    print("|---|---|---|---|")
    for name in names:
        runs = 1 if name in SLOW else rounds
        print(f"| {labels[name]} | {fmt(times[name])} | {runs} | {times[name] / base:.2f}x |")
    fastest = min(times["instructor"], times["pydantic-ai"])
    print(f"\nfastest rival / streamkit reader: {fastest / base:.1f}x; "
          f"/ streamkit stream: {fastest / times['streamkit-stream']:.1f}x (floor: 10x)")
    growth: dict[str, dict[int, float]] = {"streamkit-reader": {}, "streamkit-stream": {}}
    print("\n### Growth: 12 KB -> 200 KB in 4-character fragments (linear = ~17x)\n")
    print("| answer | streamkit reader | streamkit stream |")
    print("|---|---|---|")
    for size in (12_000, 200_000):
        got = medians(list(growth), rounds, size, piece=4)
        for name in growth:
            growth[name][size] = got[name]
        chars = len(make_answer(size, seed=size))
        print(f"| {chars / 1000:.0f} KB, {chars // 4:,} fragments | "
              f"{fmt(got['streamkit-reader'])} | {fmt(got['streamkit-stream'])} |")
    ratios = [growth[name][200_000] / growth[name][12_000] for name in growth]
    print(f"| growth | {ratios[0]:.1f}x | {ratios[1]:.1f}x |")
    print("\n### Growth of the worst shape: one string of 12 KB -> 200 KB "
          "(each value holds its own copy of it)\n")
    print("| answer | streamkit reader |")
    print("|---|---|")
    one: dict[int, float] = {}
    for size in (12_000, 200_000):
        one[size] = medians(["streamkit-reader-essay"], rounds, size, piece=4)[
            "streamkit-reader-essay"]
        chars = len(essay(size))
        print(f"| {chars / 1000:.0f} KB, {chars // 4:,} fragments | {fmt(one[size])} |")
    print(f"| growth | {one[200_000] / one[12_000]:.1f}x |")


if __name__ == "__main__":
    options = argparse.ArgumentParser()
    options.add_argument("--contender")
    options.add_argument("--size", type=int)
    options.add_argument("--count", type=int)
    options.add_argument("--piece", type=int)
    options.add_argument("--repeat", type=int, default=1)
    given = options.parse_args()
    if given.contender:
        print(run_once(given.contender, given.size, given.count, given.piece, given.repeat))
    else:
        main()
