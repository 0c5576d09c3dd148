"""A seeded mutation fuzzer over the recorded streams, and the contract it checks.

Shared by ``tests/test_fuzz.py`` (a bounded run in the suite) and
``bench/fuzz.py`` (100,000 cases, counts by outcome). One case is a recording
from ``tests/fixtures`` with one to three mutations (byte flips, truncations,
duplicated / swapped / dropped events, invalid UTF-8, byte order marks, a JSON
field set to a hostile value: wrong types, deep nesting, huge numbers, bad
base64, terminal escapes), run one way (``replay()``, a sync or an async
``stream()``, ``on_error`` raise or return; ``auto``, the right provider or a
random one) with one chunking (whole, 1-byte, random cuts, one SSE event per read).

The contract (what :func:`check` asserts, each breach an :class:`Outcome` with
``kind="crash"`` or ``"violation"``):

- the run ends with a clean response, or a ``StreamError`` whose ``partial``
  is a ``ChatResponse`` (with ``on_error="return"``: no exception at all, and
  ``stream.error`` is that error);
- any chunking of the same bytes gives the same outcome: the same error type
  and the same (partial) response;
- a UI that builds its state from the events it was given agrees with the
  response: the events yielded (for ``replay()``, those returned or carried
  by its error) folded into a fresh ``Accumulator``, marked as the stream
  marks a partial, give the same response;
- reading the result never raises but the documented errors:
  ``ToolCallBlock.arguments()`` a ``ToolArgumentsError``, ``DataBlock.to_wav()``
  a ``MediaTypeError``, ``parse(Model, partial=True)`` a
  ``StructuredOutputError``; ``partial_arguments`` (a view for render loops),
  ``partial_error`` and ``ToolCallBlock.partial_output`` never raise; the CLI's
  summary of it holds no terminal escape.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import random
import re
import traceback
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import anyio
from pydantic import BaseModel

import streamkit
from streamkit import (
    Accumulator,
    ChatResponse,
    DataBlock,
    Event,
    FinishReason,
    ProviderError,
    StreamError,
    ToolCallBlock,
)
from streamkit.cli.commands import _block_line, summarise
from streamkit.model.errors import MediaTypeError, StructuredOutputError, ToolArgumentsError
from streamkit.model.ids import counting_ids, id_factory
from streamkit.testing import load_recording
from support.recordings import recordings

PROVIDERS = ["openai", "openai-responses", "anthropic", "gemini", "ollama", "deepseek"]
BOM = b"\xef\xbb\xbf"


def right_provider(path: Path) -> str:
    """The registry name of the API a fixture was recorded from."""
    name = f"{path.parent.name}/{path.name}"
    for prefix, provider in (("openai-responses", "openai-responses"),
                             ("openai-chat", "openai"), ("openai-compatible", "openai"),
                             ("anthropic", "anthropic"), ("gemini", "gemini"),
                             ("ollama", "ollama")):
        if name.startswith(prefix) or path.name.startswith(prefix):
            return provider
    return "auto"


# ---------------------------------------------------------------- mutations

_DEEP = "__streamkit_fuzz_raw__"


def _hostile_values(rng: random.Random) -> Any:
    """A value a field should never hold, or a raw JSON text (a tuple) that
    ``json.dumps`` cannot make: deep nesting, a huge integer, NaN."""
    depth = rng.choice([100, 127, 129, 300, 511, 513, 1500, 5000])
    return rng.choice([
        [], {}, None, "", 0, -1, 1.5, True, 2**64, ["a", "list"], {"type": []},
        "w", "\u00e9t\u00e9", "====", "x" * rng.randint(1000, 70000),
        "\x1b]52;c;SGVsbG8=\x07\x1b[2J", "\u202eevil", "\ud800",
        ("raw", "[" * depth + "]" * depth), ("raw", '{"a":' * depth + "1" + "}" * depth),
        ("raw", "1" * rng.choice([4301, 5000, 20000])), ("raw", "NaN"), ("raw", "-Infinity"),
        ("raw", "1e999"), ("raw", '"\\ud800\\u0041"'), ("raw", '"\\x"'),
    ])


def _hostile_json_text(rng: random.Random) -> str:
    """JSON *text* a string field carrying JSON (tool arguments) should never hold."""
    depth = rng.choice([127, 129, 600, 3000])
    return rng.choice([
        '{"n": ' + "9" * rng.choice([4301, 5000]) + "}", '{"n": ' + "9" * 5000,
        "[" * depth, "[" * depth + "]" * depth, '{"a": ' + "[" * depth,
        '{"a": NaN}', '{"a": 1e999}', '{"a": "\\ud800"}', "{", "", "null", "[1, 2",
        '{"a": "' + "x" * 5000, "\x1b]52;c;AAAA\x07",
    ])


#: Fields whose values are worth aiming at, by a word in their name, and what to put there.
_AIMED: list[tuple[tuple[str, ...], Callable[[random.Random], Any]]] = [
    (("argument", "partial_json", "args", "input"), _hostile_json_text),
    (("mime", "media", "format"), lambda rng: rng.choice([
        "audio/pcm;rate=0", "audio/L16;codec=pcm;rate=abc", "audio/pcm;channels=99999",
        "audio/pcm", "audio/pcm;rate=-1", "audio/pcm;rate=999999999;channels=999", "", 7])),
    (("data", "b64", "audio", "image"), lambda rng: rng.choice([
        "w", "\u00e9t\u00e9", "abcde", "====", "-_-_", "YQ", "YQ=", 12, ["YQ=="]])),
    (("index", "id", "type", "name", "role", "reason", "status"), _hostile_values),
]


def _leaves(value: Any, out: list[tuple[Any, Any]]) -> None:
    """Every (container, key) of ``value``, depth first."""
    if isinstance(value, dict):
        for key in value:
            out.append((value, key))
            _leaves(value[key], out)
    elif isinstance(value, list):
        for index in range(len(value)):
            out.append((value, index))
            _leaves(value[index], out)


def _mutate_json(text: str, rng: random.Random) -> str | None:
    """``text`` (one JSON payload) with one field set to a hostile value."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    slots: list[tuple[Any, Any]] = []
    _leaves(value, slots)
    if not slots:
        return None
    aimed = [(container, key, make) for container, key in slots if isinstance(key, str)
             for words, make in _AIMED if any(word in key.lower() for word in words)]
    if aimed and rng.random() < 0.5:
        container, key, make = rng.choice(aimed)
        hostile = make(rng)
    else:
        container, key = rng.choice(slots)
        if rng.random() < 0.15 and isinstance(container, dict):  # a field renamed away
            container[f"{key}_"] = container.pop(key)
            return json.dumps(value, separators=(",", ":"))
        hostile = _hostile_values(rng)
    raw = hostile[1] if isinstance(hostile, tuple) else None
    container[key] = _DEEP if raw is not None else hostile
    out = json.dumps(value, separators=(",", ":"), ensure_ascii=rng.random() < 0.5)
    return out.replace(f'"{_DEEP}"', raw) if raw is not None else out


def _split_events(body: bytes) -> tuple[list[bytes], bytes]:
    """The body's events (SSE: blank-line separated; JSON lines: lines) and the separator."""
    if body.lstrip(BOM + b" \r\n")[:1] in (b"{", b"["):
        return body.split(b"\n"), b"\n"
    separator = b"\r\n\r\n" if b"\r\n\r\n" in body else b"\n\n"
    return body.split(separator), separator


def _mutate_event_json(event: bytes, rng: random.Random) -> bytes:
    lines = event.split(b"\n")
    positions = [i for i, line in enumerate(lines)
                 if line.startswith(b"data:") or line.lstrip()[:1] in (b"{", b"[")]
    if not positions:
        return event
    index = rng.choice(positions)
    line = lines[index]
    prefix = b"data: " if line.startswith(b"data: ") else b"data:" if line.startswith(
        b"data:") else b""
    mutated = _mutate_json(line[len(prefix):].decode("utf-8", "replace"), rng)
    if mutated is None:
        return event
    lines[index] = prefix + mutated.encode("utf-8", "surrogatepass")
    return b"\n".join(lines)


def _flip_bytes(body: bytes, rng: random.Random) -> bytes:
    data = bytearray(body)
    for _ in range(rng.randint(1, 8)):
        if data:
            data[rng.randrange(len(data))] = rng.randrange(256)
    return bytes(data)


def _truncate(body: bytes, rng: random.Random) -> bytes:
    return body[: rng.randrange(len(body) + 1)]


def _insert(body: bytes, rng: random.Random, piece: bytes) -> bytes:
    at = rng.randrange(len(body) + 1)
    return body[:at] + piece + body[at:]


def _event_op(body: bytes, rng: random.Random, op: str) -> bytes:
    events, separator = _split_events(body)
    if len(events) < 2:
        return body
    i, j = rng.randrange(len(events)), rng.randrange(len(events))
    if op == "duplicate":
        events.insert(j, events[i])
    elif op == "swap":
        events[i], events[j] = events[j], events[i]
    elif op == "drop":
        del events[i]
    elif op == "json":
        for _ in range(3):  # find an event with JSON in it
            mutated = _mutate_event_json(events[i], rng)
            if mutated != events[i]:
                events[i] = mutated
                break
            i = rng.randrange(len(events))
    return separator.join(events)


MUTATIONS: dict[str, Callable[[bytes, random.Random], bytes]] = {
    "flip": _flip_bytes,
    "truncate": _truncate,
    "duplicate": lambda body, rng: _event_op(body, rng, "duplicate"),
    "swap": lambda body, rng: _event_op(body, rng, "swap"),
    "drop": lambda body, rng: _event_op(body, rng, "drop"),
    "json": lambda body, rng: _event_op(body, rng, "json"),
    "utf8": lambda body, rng: _insert(body, rng, rng.choice(
        [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82"])),
    "bom": lambda body, rng: BOM + body if rng.random() < 0.7 else _insert(body, rng, BOM),
    "noise": lambda body, rng: _insert(body, rng, rng.choice(
        [b"\n", b"\r", b"\n\n", b"data: \n\n", b": ping\n\n", b"data: [DONE]\n\n",
         b"event: error\ndata: {\"error\": {\"message\": \"x\"}}\n\n", b"\x00", b"retry: 9" * 3,
         b"data: " + b"{" * 3000 + b"\n\n", b"{}\n", b"[]\n"])),
}
_WEIGHTS = {"flip": 3, "truncate": 3, "duplicate": 2, "swap": 2, "drop": 2, "json": 8,
            "utf8": 2, "bom": 1, "noise": 2}


def mutate(body: bytes, rng: random.Random) -> tuple[bytes, list[str]]:
    """``body`` with one to three mutations, and their names."""
    names = rng.choices(list(_WEIGHTS), weights=list(_WEIGHTS.values()), k=rng.randint(1, 3))
    for name in names:
        body = MUTATIONS[name](body, rng)
    return body, names


def chunkings(body: bytes, rng: random.Random) -> tuple[str, list[bytes]]:
    """One way to cut ``body`` into network chunks, and its name."""
    choice = rng.choice(["bytes", "random", "random", "bom", "events"] if len(body) < 12_000
                        else ["random", "random", "bom", "events"])
    if choice == "bytes":
        return "1-byte", [body[i:i + 1] for i in range(len(body))]
    if choice == "events":  # the live shape, which the pipeline takes a shortcut for
        events = body.split(b"\n\n")
        reads = [event + b"\n\n" for event in events[:-1]]
        return "one event per read", reads + ([events[-1]] if events[-1] else [])
    if choice == "bom" and len(body) > 2:
        at = rng.randint(1, 2)
        return f"cut at {at}", [body[:at], body[at:]]
    cuts = sorted({rng.randrange(len(body) + 1) for _ in range(rng.randint(1, 40))})
    edges = [0, *cuts, len(body)]
    return "random", [body[a:b] for a, b in itertools.pairwise(edges) if b > a]


# ---------------------------------------------------------------- running


@dataclass
class Case:
    """One fuzz input: the mutated body, how it is chunked, and how it is run."""

    fixture: str
    mutations: list[str]
    body: bytes
    chunking: str
    chunks: list[bytes]
    provider: str
    mode: str  # "replay", "sync", "async"
    on_error: str  # "raise", "return"


@dataclass
class Outcome:
    """How a case ended: ``ok``, ``error`` (a StreamError, by ``name``), or a
    breach of the contract: ``crash`` (another exception, at ``where``) or
    ``violation`` (a StreamError without its partial, or a chunking that
    changed the result)."""

    kind: str
    name: str = ""
    where: str = ""
    detail: str = ""
    response: dict[str, Any] | None = field(default=None, repr=False)
    shown: dict[str, Any] | None = field(default=None, repr=False)
    """What a UI built from the events the caller was given shows (see :func:`shown`)."""

    @property
    def signature(self) -> tuple[str, str, str]:
        return self.kind, self.name, self.where


def make_case(rng: random.Random, bodies: list[tuple[Path, bytes]]) -> Case:
    """A random case from the recordings ``bodies``."""
    path, body = rng.choice(bodies)
    mutated, names = mutate(body, rng)
    chunking, chunks = chunkings(mutated, rng)
    provider = rng.choices(["auto", right_provider(path), rng.choice(PROVIDERS)],
                           weights=[5, 3, 2])[0]
    mode = rng.choices(["replay", "sync", "async"], weights=[6, 2, 2])[0]
    return Case(f"{path.parent.name}/{path.name}", names, mutated, chunking, chunks, provider,
                mode, rng.choice(["raise", "return"]))


def _where(exc: BaseException) -> str:
    """The innermost streamkit frame of a traceback: ``path:function``."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/streamkit/" in f.filename]
    if not frames:
        return "?"
    frame = frames[-1]
    return f"{frame.filename.split('/streamkit/', 1)[1]}:{frame.name}"


_MADE_UP_ID = re.compile(r"[a-z]+_[0-9a-f]{24}")


def _comparable(response: ChatResponse) -> dict[str, Any]:
    """The response as a dict, without its local time, and with the ids
    streamkit made up numbered by first appearance: counting ids are handed
    out in the order blocks and responses are created, which the chunking
    may change (a response is created when its first event is applied)."""
    out = response.to_dict()
    out.pop("created_at")
    out.pop("is_last")  # a stream marks every choice last at its end, replay() only ended ones
    names: dict[str, str] = {}

    def rename(value: Any) -> Any:
        if isinstance(value, str) and _MADE_UP_ID.fullmatch(value):
            return names.setdefault(value, f"<id {len(names)}>")
        if isinstance(value, dict):
            return {key: rename(item) for key, item in value.items()}
        if isinstance(value, list):
            return [rename(item) for item in value]
        return value

    renamed: dict[str, Any] = rename(out)
    return renamed


def shown(events: list[Event], error: BaseException | None) -> dict[str, Any]:
    """What a UI that builds its state from ``events`` shows once the stream
    ended with ``error``: the events folded into a fresh accumulator, marked as
    a stream marks its partial (``error`` for a provider's error, otherwise an
    unfinished response ``interrupted``)."""
    accumulator = Accumulator()
    accumulator.apply_all(events)
    if isinstance(error, ProviderError):
        for response in accumulator.responses:
            response.finished_reason = response.finished_reason or FinishReason.ERROR
    elif error is not None:
        accumulator.interrupt()
    return _comparable(accumulator.response)


def _stream_outcome(stream: Any, error: BaseException | None, on_error: str,
                    events: list[Event]) -> Outcome:
    if error is None:
        if on_error == "return" and stream.error is not None:
            return _error_outcome(stream.error, events)
        return Outcome("ok", response=_comparable(stream.response), shown=shown(events, None))
    if on_error == "return":
        return Outcome("violation", type(error).__name__, _where(error),
                       'on_error="return" raised')
    return _error_outcome(error, events)


def _error_outcome(error: BaseException, events: list[Event]) -> Outcome:
    if not isinstance(error, StreamError):
        return Outcome("crash", type(error).__name__, _where(error), str(error)[:300])
    if not isinstance(error.partial, ChatResponse):
        return Outcome("violation", type(error).__name__, _where(error), "partial is not set")
    name = type(error).__name__
    response = _comparable(error.partial)
    if name == "ProviderError" and error.partial.finished_reason == "error":
        # the provider's own error, in the stream or its body: the response it ended with
        return Outcome("ok", response=response, shown=shown(events, error))
    return Outcome("error", name, response=response, shown=shown(events, error))


def run_replay(chunks: list[bytes], provider: str) -> Outcome:
    with id_factory(counting_ids()):
        try:
            events, response = streamkit.replay(chunks, provider)
        except Exception as exc:
            return _error_outcome(exc, list(getattr(exc, "events", ())))
        return Outcome("ok", response=_comparable(response), shown=shown(events, None))


def _yielded(items: list[Any]) -> list[Event]:
    return [item for item in items if not isinstance(item, ChatResponse)]


def run_sync(chunks: list[bytes], provider: str, on_error: str) -> Outcome:
    def source() -> Iterator[bytes]:
        yield from chunks

    with id_factory(counting_ids()):
        stream: Any = None
        items: list[Any] = []
        try:
            stream = streamkit.stream(source(), provider, on_error=on_error)  # type: ignore[arg-type]
            items.extend(stream)
        except Exception as exc:
            if stream is None:
                return Outcome("crash", type(exc).__name__, _where(exc), str(exc)[:300])
            return _stream_outcome(stream, exc, on_error, _yielded(items))
        return _stream_outcome(stream, None, on_error, _yielded(items))


def run_async(chunks: list[bytes], provider: str, on_error: str) -> Outcome:
    async def source() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    async def main() -> Outcome:
        stream: Any = streamkit.stream(source(), provider, on_error=on_error)  # type: ignore[arg-type]
        items: list[Any] = []
        try:
            async with stream:
                async for item in stream:
                    items.append(item)
        except Exception as exc:
            return _stream_outcome(stream, exc, on_error, _yielded(items))
        return _stream_outcome(stream, None, on_error, _yielded(items))

    with id_factory(counting_ids()):
        try:
            return anyio.run(main)
        except Exception as exc:
            return Outcome("crash", type(exc).__name__, _where(exc), str(exc)[:300])


def run(case: Case) -> Outcome:
    """Run one case the way it says."""
    if case.mode == "sync":
        return run_sync(case.chunks, case.provider, case.on_error)
    if case.mode == "async":
        return run_async(case.chunks, case.provider, case.on_error)
    return run_replay(case.chunks, case.provider)


class Probe(BaseModel):
    """A model to read any structured answer as: every kind of field."""

    city: str = ""
    location: str | None = None
    days: int = 0
    flags: list[bool | None] = []
    query: dict[str, Any] = {}
    kind: Literal["a", "b"] = "a"
    nested: Probe | None = None


def read_everything(response: dict[str, Any]) -> Outcome | None:
    """Read a result the ways a user does; a crash if anything but the
    documented errors comes out."""
    try:
        final = ChatResponse.from_dict(response)
        _ = final.text, final.thinking, final.refusal, final.to_json(), repr(final.content)
        with contextlib.suppress(StructuredOutputError):
            final.parse(Probe, partial=True).model_dump()
        for block in final.content:
            block.copy()
            if isinstance(block, ToolCallBlock):
                with contextlib.suppress(ToolArgumentsError):
                    block.arguments()
                _ = block.partial_arguments, block.partial_error  # a view: never raises
                block.partial_output(Probe).model_dump()
            elif isinstance(block, DataBlock):
                _ = block.duration, block.is_pcm, block.pcm_format
                if block.is_pcm:
                    with contextlib.suppress(MediaTypeError):
                        block.to_wav()
        shown = "\n".join(summarise(final) + [_block_line(b)[1] for b in final.content])
        if "\x1b" in shown or "\x9b" in shown:
            return Outcome("violation", "TerminalEscape", "cli", "an escape reached the summary")
    except Exception as exc:
        return Outcome("crash", type(exc).__name__, _where(exc), f"reading: {exc}"[:300])
    return None


def check(case: Case) -> Outcome:
    """Run ``case`` and check the contract: a breach is returned as a ``crash``
    or ``violation`` outcome, anything else as ``ok`` / ``error``."""
    outcome = run(case)
    if outcome.kind in ("crash", "violation"):
        return outcome
    if outcome.shown != outcome.response:
        return Outcome("violation", "EventsDisagreeWithPartial", case.mode,
                       f"{outcome.kind} {outcome.name}: the events given to the caller do not "
                       f"add up to the response", outcome.response)
    reference = run_replay([case.body], case.provider)  # the same bytes in one chunk
    if reference.kind in ("crash", "violation"):
        return reference
    if (reference.kind, reference.name, reference.response) != (
            outcome.kind, outcome.name, outcome.response):
        return Outcome("violation", "ChunkingChangedResult", case.chunking,
                       f"whole body: {reference.kind} {reference.name}; "
                       f"{case.chunking} in {case.mode}: {outcome.kind} {outcome.name}",
                       outcome.response)
    assert outcome.response is not None
    return read_everything(outcome.response) or outcome


def load_bodies() -> list[tuple[Path, bytes]]:
    """Every recording's body."""
    return [(path, load_recording(path)[0]) for path in recordings()]
