"""A seeded mutation fuzzer for the write side: request bodies, response bodies, tools.

Shared by ``tests/test_fuzz.py`` (a bounded run in the suite) and
``bench/fuzz.py`` (100,000 cases of each kind, counts by outcome), next to
the stream fuzzer of ``tests/support/stream_fuzzing.py``. A case starts from a real body of
``tests/fixtures`` (the conversations' ``turn*.json``, Ollama's documented
requests and responses) or a real tool call's arguments, with one to three
mutations: a field set to a hostile value (wrong types, lone surrogates,
deep nesting, integers past Python's digit limit, NaN), a key renamed or
dropped, a list item duplicated or dropped, the body as text with bytes
flipped, cut or made invalid UTF-8, the body nested deep, or made huge.

The kinds and their contract (each breach an :class:`~fuzzing.Outcome` of
kind ``crash``, with the innermost streamkit frame; ``guarded`` when the
promised error was made only by the codec's last line, the reader's own
exception kept as its cause: typed for the caller, but a class of defect
still open where it lives; ``violation`` for a missing partial or a case
slower than :data:`SLOW_SECONDS` plus :data:`SLOW_PER_MB` a megabyte and
:data:`SLOW_PER_VALUE` a value):

- ``request``: ``parse_request(provider, body)`` returns a ``Request`` or raises
  ``InvalidBodyError``; a parsed request then goes to ``build_request`` on its
  own wire, which returns a body or refuses with ``UnsupportedFeatureError``
  (an option the wire cannot take: a typed refusal, not a crash).
- ``response``: ``parse_response(provider, body)`` (a dict, or the JSON as
  bytes or text) returns a ``ChatResponse`` or raises ``InvalidBodyError``, or
  ``ProviderError`` with its partial for an error body; the response then
  reads as a user reads it (``to_dict``, ``to_json``, the blocks' views).
- ``tool``: ``Tool.run_json`` / ``run_json_sync`` of mutated arguments (JSON
  text or a dict) always returns a ``FunctionExecutionResult`` whose content
  serialises; the tools echo parts of their arguments back.
"""

from __future__ import annotations

import contextlib
import json
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import anyio

import streamkit
from streamkit import (
    ChatResponse,
    DataBlock,
    InvalidBodyError,
    ProviderError,
    StreamkitError,
    SystemMessage,
    ToolCallBlock,
    UnsupportedFeatureError,
)
from streamkit.conversation.messages import FunctionExecutionResult
from streamkit.framing.encoding import json_bytes
from streamkit.model.errors import MediaTypeError, ToolArgumentsError, collecting_losses
from streamkit.model.ids import counting_ids, id_factory
from support.paths import FIXTURES
from support.request_oracles import sdk_valid
from support.stream_fuzzing import Outcome, _hostile_json_text, _where
from support.translation_matrix import essence, losses

KINDS = ("request", "response", "tool")

#: The registry name that reads each folder of recorded bodies.
_FOLDER_PROVIDER = {"anthropic": "anthropic", "gemini": "gemini", "openai-chat": "openai",
                    "openai-compatible": "openai", "openai-responses": "openai-responses",
                    "ollama": "ollama"}
#: Every name the provider registry takes (names and aliases): a body is read,
#: and a request built, with any of them.
PROVIDER_NAMES = [name for name in streamkit.providers.provider_names() if name != "auto"]
#: The registry's names by the wire each speaks.
_NAMES_OF_WIRE: dict[str, list[str]] = {}
for _name in PROVIDER_NAMES:
    _NAMES_OF_WIRE.setdefault(streamkit.providers.wire_of(_name)[0], []).append(_name)


@dataclass
class Body:
    """One recorded body: its file, the registry name that reads it, the value."""

    fixture: str
    provider: str
    value: Any


def _provider_of(path: Path) -> str:
    for part in reversed(path.parts):
        if part in _FOLDER_PROVIDER:
            return _FOLDER_PROVIDER[part]
    raise ValueError(f"no wire for {path}")


def load_bodies(kind: str) -> list[Body]:
    """Every recorded request (``kind="request"``) or JSON response body."""
    suffix = f".{kind}.json"
    paths = sorted(p for p in (FIXTURES / "conversations").rglob(f"turn*{suffix}"))
    paths += sorted((FIXTURES / "ollama" / "conversations").rglob(f"turn*{suffix}"))
    paths += sorted((FIXTURES / "ollama" / f"{kind}s").glob("*.json"))
    return [Body(str(p.relative_to(FIXTURES)), _provider_of(p), json.loads(p.read_bytes()))
            for p in paths]


# ---------------------------------------------------------------- hostile values


def _nested(depth: int, rng: random.Random) -> Any:
    """A value nested ``depth`` levels, built without recursion."""
    value: Any = rng.choice([1, "x", None, []])
    for _ in range(depth):
        value = [value] if rng.random() < 0.5 else {"a": value}
    return value


def hostile_value(rng: random.Random) -> Any:
    """A value a field of a body should never hold (a JSON decoder can give all
    of them: ``json.loads`` gives NaN and lone surrogates, a decoder without a
    digit limit huge integers)."""
    roll = rng.random()
    if roll < 0.15:
        return _nested(rng.choice([100, 127, 129, 300, 999, 3000]), rng)
    if roll < 0.25:
        return rng.choice(["\ud800", "a\udfffb", "\ud83d", "x\ud800" * 50, "\udc80abc"])
    if roll < 0.3:
        return 10 ** rng.choice([4300, 4301, 6000]) * rng.choice([1, -1])
    return rng.choice([
        [], {}, None, "", 0, -1, 1.5, True, False, 2**64, -(2**63), math.nan, math.inf,
        ["a", "list"], {"type": []}, {"type": None}, {"content": None}, [0], [None], [[]],
        {"role": []}, {"text": 1}, "w", "user", "assistant", "tool", "function", "model",
        "text", "image", "====", "x" * rng.randint(1000, 70000), "\x1b]52;c;SGVsbG8=\x07",
        "\u202eevil", "data:image/png;base64,====", "{", '{"a": 1', "null",
    ])


#: Fields worth aiming at, by a word in their name, and what to put there.
_AIMED: list[tuple[tuple[str, ...], Callable[[random.Random], Any]]] = [
    (("argument", "args", "input", "partial_json"), lambda rng: (
        _hostile_json_text(rng) if rng.random() < 0.6 else hostile_value(rng))),
    (("mime", "media", "format"), lambda rng: rng.choice([
        "audio/pcm;rate=0", "audio/L16;codec=pcm;rate=abc", "image/\ud800", "", 7, None])),
    (("data", "b64", "audio", "image", "url", "uri", "signature"), lambda rng: rng.choice([
        "w", "\u00e9t\u00e9", "abcde", "====", "-_-_", "YQ", "\ud800", 12, ["YQ=="], None])),
    (("role", "type", "content", "parts", "tools", "messages", "contents", "input", "output",
      "choices", "candidates", "name", "id", "text"), hostile_value),
]


def _slots(value: Any) -> list[tuple[Any, Any]]:
    """Every (container, key) of ``value``, without recursion."""
    out: list[tuple[Any, Any]] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, item in node.items():
                out.append((node, key))
                stack.append(item)
        elif isinstance(node, list):
            for index, item in enumerate(node):
                out.append((node, index))
                stack.append(item)
    return out


def _copy(value: Any) -> Any:
    """A deep copy of a JSON value, without recursion (a mutated one may be deep)."""
    def fresh(node: Any) -> Any:
        return {} if isinstance(node, dict) else [] if isinstance(node, list) else node

    root = fresh(value)
    stack = [(value, root)] if root is not value else []
    while stack:
        source, target = stack.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in items:
            copied = fresh(item)
            if isinstance(target, dict):
                target[key] = copied
            else:
                target.append(copied)
            if copied is not item:
                stack.append((item, copied))
    return root


def _aimed_maker(key: Any) -> Callable[[random.Random], Any] | None:
    if isinstance(key, str):
        lowered = key.lower()
        for words, make in _AIMED:
            if any(word in lowered for word in words):
                return make
    return None


def _set_field(body: Any, rng: random.Random) -> Any:
    slots = _slots(body)
    if not slots:
        return hostile_value(rng)
    if rng.random() < 0.6:  # aim: the first of a few random fields whose name says what it is
        for container, key in rng.sample(slots, min(len(slots), 40)):
            make = _aimed_maker(key)
            if make is not None:
                container[key] = make(rng)
                return body
    container, key = rng.choice(slots)
    container[key] = hostile_value(rng)
    return body


def _rename_or_drop(body: Any, rng: random.Random) -> Any:
    dicts = [(container, key) for container, key in _slots(body) if isinstance(container, dict)]
    if dicts:
        container, key = rng.choice(dicts)
        item = container.pop(key)
        if rng.random() < 0.5:
            container[f"{key}_"] = item
    return body


def _list_op(body: Any, rng: random.Random) -> Any:
    lists = [container for container, _ in _slots(body) if isinstance(container, list)]
    if lists:
        items = rng.choice(lists)
        index = rng.randrange(len(items))
        if rng.random() < 0.5:
            items.insert(rng.randrange(len(items) + 1), items[index])  # shared: fine
        else:
            del items[index]
    return body


def _wrap_deep(body: Any, rng: random.Random) -> Any:
    slots = _slots(body)
    if not slots:
        return body
    container, key = rng.choice(slots)
    inner = container[key]
    for _ in range(rng.choice([129, 1000, 5000])):
        inner = [inner]
    container[key] = inner
    return body


def _huge(body: Any, rng: random.Random) -> Any:
    """A list of the body repeated until it holds thousands of items (a 1-6 MB body)."""
    lists = [container for container, _ in _slots(body) if isinstance(container, list)]
    if lists:
        items = rng.choice(lists)
        if items:
            items.extend([items[-1]] * rng.choice([500, 3000]))  # shared: read only
    return body


DICT_MUTATIONS: dict[str, Callable[[Any, random.Random], Any]] = {
    "field": _set_field, "rename": _rename_or_drop, "list": _list_op, "deep": _wrap_deep,
    "huge": _huge,
}
_DICT_WEIGHTS = {"field": 12, "rename": 3, "list": 3, "deep": 1, "huge": 0.3}


def mutate_body(body: Any, rng: random.Random) -> tuple[Any, list[str]]:
    """A mutated deep copy of ``body`` and the mutations' names."""
    names = sorted(rng.choices(list(_DICT_WEIGHTS), weights=list(_DICT_WEIGHTS.values()),
                               k=rng.randint(1, 3)), key=lambda name: name == "huge")
    body = _copy(body)  # a huge list last: the other mutations need not walk it
    for name in names:
        body = DICT_MUTATIONS[name](body, rng)
    return body, names


def _as_text(body: Any, rng: random.Random) -> bytes | str | None:
    """The body as JSON bytes or text, perhaps damaged; ``None`` when JSON cannot
    say it (a huge integer, deep nesting past the encoder's limit)."""
    try:
        text = json.dumps(body, ensure_ascii=rng.random() < 0.5)
    except (ValueError, RecursionError):
        return None
    data = text.encode("utf-8", "surrogatepass")
    roll = rng.random()
    if roll < 0.2:
        flipped = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            flipped[rng.randrange(len(flipped))] = rng.randrange(256)
        data = bytes(flipped)
    elif roll < 0.35:
        data = data[: rng.randrange(len(data) + 1)]
    elif roll < 0.45:
        at = rng.randrange(len(data) + 1)
        data = data[:at] + rng.choice([b"\xff", b"\xed\xa0\x80", b"\xef\xbb\xbf"]) + data[at:]
    if rng.random() < 0.3:
        return data.decode("utf-8", "surrogateescape")  # text with lone surrogates, maybe
    return data


# ---------------------------------------------------------------- cases


@dataclass
class WriteCase:
    """One write-side input: its kind, where it came from, and what is fed."""

    kind: str
    fixture: str
    mutations: list[str]
    provider: str
    body: Any  # a dict (or anything) / bytes / str; for a tool: the arguments
    tool: str = ""
    sync: bool = False
    target: str = ""
    """For a request: the registry name the request read is also built for."""
    checking: float = 0.0
    """Seconds spent by the checks themselves (the SDK oracles, reading back),
    not counted as the case's cost."""

    def describe(self) -> str:
        shown = self.body if isinstance(self.body, (bytes, str)) else _short_repr(self.body)
        return (f"{self.kind} {self.fixture} {self.mutations} provider={self.provider} "
                f"target={self.target} tool={self.tool} sync={self.sync}: {shown[:300]!r}")


def _short_repr(value: Any) -> str:
    try:
        return json.dumps(value)[:300]
    except (ValueError, RecursionError):
        return repr(type(value))


def _provider(body: Body, rng: random.Random) -> str:
    """The name a body is read with: mostly one of its wire's (its own vendor, a
    dialect, an alias), now and then any name of the registry (another wire)."""
    roll = rng.random()
    if roll < 0.4:
        return body.provider
    if roll < 0.8:
        return rng.choice(_NAMES_OF_WIRE[streamkit.providers.wire_of(body.provider)[0]])
    return rng.choice(PROVIDER_NAMES)


def make_request_case(rng: random.Random, bodies: list[Body]) -> WriteCase:
    """A mutated recorded request, the name it is read with, and the name it is
    then built for too (any of the registry's: a cross-wire build, mostly)."""
    body = rng.choice(bodies)
    mutated, names = mutate_body(body.value, rng)
    return WriteCase("request", body.fixture, names, _provider(body, rng), mutated,
                     target=rng.choice(PROVIDER_NAMES))


def make_response_case(rng: random.Random, bodies: list[Body]) -> WriteCase:
    body = rng.choice(bodies)
    mutated, names = mutate_body(body.value, rng)
    if rng.random() < 0.35:
        text = _as_text(mutated, rng)
        if text is not None:
            return WriteCase("response", body.fixture, [*names, "text"], _provider(body, rng),
                             text)
    return WriteCase("response", body.fixture, names, _provider(body, rng), mutated)


# ---------------------------------------------------------------- tools


def _echo(text: str, times: int = 1) -> str:
    """Say ``text`` back."""
    return text * max(0, min(times, 3))


def _anything(data: Any = None) -> Any:
    """Give the arguments back as they came."""
    return data


def _weather(city: str, unit: Literal["c", "f"] = "c", tags: list[str] | None = None
             ) -> dict[str, Any]:
    """The weather in a city."""
    return {"city": city, "unit": unit, "tags": tags or [], "temperature": 21.5}


async def _lookup(query: str, limit: int = 3, filters: dict[str, Any] | None = None
                  ) -> list[Any]:
    """Search, async."""
    if limit < 0:
        raise ValueError(f"negative limit for {query!r}")
    return [query, filters]


def _numbers(values: list[float], scale: float = 1.0) -> float:
    """Sum of ``values`` times ``scale``: float overflow and NaN welcome."""
    return sum(values) * scale


TOOLS = {made.name: made for made in (
    streamkit.tool(_echo, name="echo"), streamkit.tool(_anything, name="anything"),
    streamkit.tool(_weather, name="weather"), streamkit.tool(_lookup, name="lookup"),
    streamkit.tool(_numbers, name="numbers"))}

_TOOL_ARGUMENTS = {
    "echo": '{"text": "hello", "times": 2}',
    "anything": '{"data": {"a": [1, 2, {"b": "c"}], "d": null}}',
    "weather": '{"city": "Paris", "unit": "c", "tags": ["x"]}',
    "lookup": '{"query": "q", "limit": 2, "filters": {"lang": "fr"}}',
    "numbers": '{"values": [1.5, 2, 3e10], "scale": 2}',
}


def recorded_arguments() -> list[str]:
    """The argument texts of the tool calls in the recorded response bodies."""
    out = []
    for body in load_bodies("response"):
        for container, key in _slots(body.value):
            if key in ("arguments", "args", "input") and isinstance(container, dict):
                value = container[key]
                out.append(value if isinstance(value, str) else json.dumps(value))
    return out


def make_tool_case(rng: random.Random, recorded: list[str]) -> WriteCase:
    name = rng.choice(list(TOOLS))
    source = _TOOL_ARGUMENTS[name] if rng.random() < 0.7 else rng.choice(recorded)
    names: list[str] = []
    arguments: Any
    roll = rng.random()
    if roll < 0.15:
        arguments, names = _hostile_json_text(rng), ["json text"]
    else:
        value, names = mutate_body(json.loads(source), rng)
        if rng.random() < 0.5:
            try:
                arguments = json.dumps(value, ensure_ascii=rng.random() < 0.5)
            except (ValueError, RecursionError):
                arguments = value
            else:
                if rng.random() < 0.1:
                    arguments = arguments[: rng.randrange(len(arguments) + 1)]
                    names.append("cut")
        else:
            arguments = value
    return WriteCase("tool", "recorded" if source not in _TOOL_ARGUMENTS.values() else name,
                     names, "", arguments, tool=name, sync=rng.random() < 0.5)


# ---------------------------------------------------------------- running


def _crash(exc: BaseException, detail: str = "") -> Outcome:
    return Outcome("crash", type(exc).__name__, _where(exc), (detail + str(exc))[:300])


def _read_response(response: ChatResponse) -> Outcome | None:
    """Read a parsed response as a user does: nothing but the documented errors."""
    try:
        _ = response.text, response.thinking, response.to_json(), repr(response)
        ChatResponse.from_dict(response.to_dict())
        for block in response.content:
            if isinstance(block, ToolCallBlock):
                with contextlib.suppress(ToolArgumentsError):
                    block.arguments()
                _ = block.partial_arguments
            elif isinstance(block, DataBlock) and block.is_pcm:
                with contextlib.suppress(MediaTypeError):
                    block.to_wav()
    except Exception as exc:
        return _crash(exc, "reading: ")
    return None


def _refused(exc: InvalidBodyError) -> Outcome:
    """An ``error`` outcome; ``guarded`` when only the codec's last line caught it
    (a reader raised something else, kept as the cause): typed, but a class of
    defect still open where it lives."""
    cause = exc.__cause__
    if cause is not None and not isinstance(cause, StreamkitError):
        return Outcome("guarded", type(cause).__name__, _where(cause), str(cause)[:300])
    return Outcome("error", type(exc).__name__)


def run_request(case: WriteCase) -> Outcome:
    with id_factory(counting_ids()):
        try:
            request = streamkit.parse_request(case.provider, case.body)
        except InvalidBodyError as exc:
            return _refused(exc)
        except Exception as exc:
            return _crash(exc)
        with collecting_losses():
            try:
                streamkit.build_request(case.provider, request)
            except UnsupportedFeatureError:
                return Outcome("error", "build: UnsupportedFeatureError")
            except Exception as exc:
                return _crash(exc, "build_request(parse_request(x)): ")
        if not case.target:
            return Outcome("ok")
        return _built_elsewhere(request, streamkit.providers.wire_of(case.provider)[0], case)


def _built_elsewhere(request: streamkit.Request, source_wire: str, case: WriteCase) -> Outcome:
    """``request`` (read from ``source_wire``) built for the case's target: a
    body or a typed refusal, which keeps the conversation or says what it
    dropped (a :class:`~streamkit.LossyTranslationWarning`), as the translation
    matrix checks recorded requests (:mod:`support.translation_matrix`); for
    another wire, a body its SDK's types accept (:mod:`support.request_oracles`).
    A body of the same wire may hold the caller's own unknown fields (they go
    back as they came), so only another wire's is held to its SDK's types. A
    body left with no turn at all (every message dropped, with a warning) is no
    request any API answers (Gemini's SDK refuses it before sending, the others
    answer 400): it is not held to the SDK's client-side checks."""
    target = case.target
    model = None if request.model is not None else "model-1"
    with collecting_losses() as warned:
        try:
            body = streamkit.build_request(target, request, model=model)
        except UnsupportedFeatureError:
            return Outcome("error", "build elsewhere: UnsupportedFeatureError")
        except Exception as exc:
            return _crash(exc, f"build_request({target!r}, parse_request(x)): ")
    started = time.process_time()
    try:
        return _sdk_valid_and_kept(request, source_wire, target, body, warned)
    finally:
        case.checking = time.process_time() - started


def _sdk_valid_and_kept(request: streamkit.Request, source_wire: str, target: str,
                        body: dict[str, Any], warned: list[str]) -> Outcome:
    """``ok`` when the body, read back by ``target``'s reader, keeps the
    conversation's essence or the build said what it dropped, and (another
    wire's) its SDK's types take it; a ``violation`` otherwise."""
    entry = streamkit.providers.vendor(target)
    try:
        after = streamkit.parse_request(target, body)
    except Exception as exc:
        return _crash(exc, f"reading back the {target} body: ")
    if source_wire != entry.wire and _has_turns(after):
        try:
            sdk_valid(entry.wire, body, **_oracle_variant(entry))
        except Exception as exc:
            return Outcome("violation", "InvalidForTheSdk", entry.wire,
                           f"{type(exc).__name__}: {exc}"[:300])
    lost = losses(essence(request), essence(after))
    if lost and not warned:
        return Outcome("violation", "SilentLoss", target, "; ".join(lost))
    return Outcome("ok")


def _oracle_variant(entry: Any) -> dict[str, Any]:
    """The keyword of the target wire's oracle (its dialect, Vertex or not)."""
    if entry.wire == "openai-chat":
        return {"dialect": entry.dialect}
    return {"vertex": entry.name == "vertex"} if entry.wire == "gemini" else {}


def _has_turns(request: streamkit.Request) -> bool:
    """Whether the request has a message besides system prompts."""
    return any(not isinstance(message, SystemMessage) for message in request.messages)


def run_response(case: WriteCase) -> Outcome:
    with id_factory(counting_ids()):
        try:
            response = streamkit.parse_response(case.provider, case.body)
        except InvalidBodyError as exc:
            return _refused(exc)
        except ProviderError as exc:
            if not isinstance(exc.partial, ChatResponse):
                return Outcome("violation", "ProviderError", _where(exc), "partial is not set")
            return _read_response(exc.partial) or Outcome("error", "ProviderError")
        except Exception as exc:
            return _crash(exc)
        return _read_response(response) or Outcome("ok")


def run_tool(case: WriteCase) -> Outcome:
    made = TOOLS[case.tool]
    try:
        if case.sync:
            result = made.run_json_sync(case.body, call_id="call_1")
        else:
            async def main() -> FunctionExecutionResult:
                return await made.run_json(case.body, call_id="call_1")

            result = anyio.run(main)
    except Exception as exc:
        return _crash(exc)
    if not isinstance(result, FunctionExecutionResult):
        return Outcome("violation", type(result).__name__, "tools.py", "not a result")
    try:
        content = result.content
        text = content if isinstance(content, str) else "".join(
            block.text for block in content if hasattr(block, "text"))
        text.encode("utf-8")  # a result goes on the wire as JSON text: it must encode
    except Exception as exc:
        return _crash(exc, "the result: ")
    return Outcome("error" if result.is_error else "ok", "is_error" if result.is_error else "")


RUNNERS: dict[str, Callable[[WriteCase], Outcome]] = {
    "request": run_request, "response": run_response, "tool": run_tool}


#: A case taking more CPU time than this (plus :data:`SLOW_PER_MB` per megabyte of its body
#: and :data:`SLOW_PER_VALUE` per JSON value in it; CPU, not wall time: a loaded machine
#: must not make a case slow) is a ``violation``: costs stay linear, and a real body
#: reads at several MB a second.
SLOW_SECONDS = 1.0
SLOW_PER_MB = 0.5
#: A reader's work is per value as much as per byte: a megabyte of 270,000 nested
#: empty objects (an unknown field made huge) or of 30,000 one-word Gemini parts
#: costs more than a megabyte of text, and most of it in CPython's own allocator
#: and cyclic GC (a 1.1 MB body of 267k containers: 0.59 s with the GC off, 2.2 s
#: with it on). Linear still; a cost growing faster than the values is still caught.
SLOW_PER_VALUE = 10e-6


def _values(value: Any) -> int:
    """How many JSON values (containers and scalars) the body holds, shared ones
    counted each time they are written; a text is counted as read (none when it
    is no JSON)."""
    if isinstance(value, (bytes, str)):
        try:
            value = json.loads(value)
        except ValueError:
            return 0
    count, stack = 0, [value]
    while stack:
        item = stack.pop()
        count += 1
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return count


def _megabytes(value: Any) -> float:
    """The body's size as JSON (a lone surrogate as its escape: msgspec alone
    refused it, and a 112 MB body holding one counted as 0 MB, its 2 s 'Slow')."""
    try:
        return len(json_bytes(value)) / 1e6
    except Exception:  # a value JSON cannot say: its text was never read
        return 0.0


class WriteFuzzer:
    """Cases of one kind from the recordings, checked one by one. With
    ``timed`` (the bench; never a unit test, which must not hang on wall time),
    a case that runs longer than :data:`SLOW_SECONDS` plus :data:`SLOW_PER_MB`
    per megabyte and :data:`SLOW_PER_VALUE` per value is a ``violation``."""

    def __init__(self, kind: str, rng: random.Random, *, timed: bool = False) -> None:
        self.kind = kind
        self.rng = rng
        self.timed = timed
        if kind == "tool":
            self._recorded = recorded_arguments()
        else:
            self._bodies = load_bodies(kind)

    def make(self) -> WriteCase:
        if self.kind == "request":
            return make_request_case(self.rng, self._bodies)
        if self.kind == "response":
            return make_response_case(self.rng, self._bodies)
        return make_tool_case(self.rng, self._recorded)

    def check(self, case: WriteCase) -> Outcome:
        started = time.process_time()
        outcome = RUNNERS[case.kind](case)
        spent = time.process_time() - started - case.checking
        if self.timed and spent > SLOW_SECONDS and outcome.kind not in ("crash", "violation"):
            size, values = _megabytes(case.body), _values(case.body)
            if spent > SLOW_SECONDS + SLOW_PER_MB * size + SLOW_PER_VALUE * values:
                return Outcome("violation", "Slow", case.kind,
                               f"{spent:.1f} s for {size:.1f} MB, {values:,} values")
        return outcome
