"""A seeded fault fuzzer for the client: a raw-socket server that breaks every phase of an answer.

Shared by ``tests/test_fuzz.py`` (a bounded run in the suite) and
``bench/fuzz.py --client N`` (``make fuzz``). One case is a recorded answer (a
stream for ``Client.stream`` / ``SyncClient.stream``, a JSON body for
``create()``) of one wire, sent by :class:`~fault_server.FaultServer` with one
fault from :data:`FAULTS` (nothing wrong; closed, reset or hanging before the
headers; cut or trickled inside the headers; cut, reset, hanging or trickled
inside the body; a chunked encoding cut or corrupt; a gzip body corrupt or cut;
an error status with its body whole, cut or trickled, or echoing the key; a
mutated body, see ``tests/support/stream_fuzzing.py``), framed one way (``content-length``,
chunked, or ended by closing), with zero or one retry (waits not slept).

The contract (what :func:`check` asserts; each breach an
:class:`~fuzzing.Outcome` of kind ``crash`` or ``violation``):

- nothing but a :class:`~streamkit.model.errors.StreamkitError` escapes a call, and
  a ``StreamError`` carries its partial (a ``ChatResponse``);
- no call outlives its total timeout (:data:`TOTAL`) by more than
  :data:`SLACK` seconds (trickled and hanging faults would take ten seconds
  or forever);
- what came is kept: when the fault only cut the answer short, the text of
  what the call gave (its answer, or its error's partial) is a prefix of the
  whole answer's; an answer sent whole and well comes back whole;
- a key the server echoes appears in no error, partial or header it gave.

Every case is served on its own path (``/c<number>``) by one server, and the
calls share one httpx client of each kind (an SSL context costs 0.1 s), made
as the clients make their own (the sync one with the deadline transport) but
without keep-alive, so that each call gets a connection of its own.
"""

from __future__ import annotations

import gzip
import json
import random
import re
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio
import httpx

import streamkit
from streamkit import ChatResponse, ProviderError, StreamError, StreamkitError
from streamkit.client import Client, SyncClient, Timeouts
from streamkit.client.retry import SyncTiming, Timing
from streamkit.client.sync_deadline import transport
from streamkit.conversation.messages import UserMessage
from streamkit.providers.codec import parse_response
from support.fault_server import Answer, FaultServer, chunked, head, trickle
from support.paths import FIXTURES
from support.stream_fuzzing import Outcome, load_bodies, mutate, right_provider

KEY = "sk-fuzz-0123456789abcdef0123456789"
TOTAL = 1.0
"""The total timeout of every call."""
SLACK = 5.0
"""How far past :data:`TOTAL` a call may end (the machine is shared and loaded)."""
KINDS = ["Client.create", "Client.stream", "SyncClient.create", "SyncClient.stream"]
FRAMINGS = ["length", "chunked", "close"]
CUTS = ("cut in body", "reset in body", "cut in chunked framing", "cut gzip")
"""Faults that only cut the answer short: what came is a prefix of the whole."""

FAULTS: dict[str, int] = {  # the fault and its weight
    "none": 4, "close before head": 1, "reset before head": 1, "hang before head": 1,
    "cut in head": 2, "trickle head": 1, "cut in body": 6, "reset in body": 3,
    "hang in body": 1, "trickle body": 1, "cut in chunked framing": 3, "bad chunk size": 2,
    "corrupt gzip": 2, "cut gzip": 2, "error status": 3, "error status cut": 2,
    "error status trickled": 1, "key echoed": 2, "mutated body": 6,
}
#: Where the JSON answers for ``create()`` are, and the provider of each folder.
ANSWER_FOLDERS = {"anthropic": "anthropic", "gemini": "gemini", "openai-chat": "openai",
                  "openai-compatible": "openai", "openai-responses": "openai-responses"}


# ---------------------------------------------------------------- the answers


@dataclass(frozen=True)
class Recorded:
    """One recorded answer of a provider, and the text of it whole."""

    name: str
    provider: str
    body: bytes
    streamed: bool
    text: str
    ends_in_error: bool = False
    """A recorded stream that ends in the provider's error (a ``ProviderError`` whole)."""


def load_answers() -> list[Recorded]:
    """Every recorded stream of a known wire, and every recorded JSON answer."""
    answers = []
    for path, body in load_bodies():
        provider = right_provider(path)
        if provider == "auto":
            continue
        try:
            whole, ends_in_error = streamkit.replay(body, provider)[1], False
        except ProviderError as error:
            assert error.partial is not None
            whole, ends_in_error = error.partial, True
        answers.append(Recorded(f"{path.parent.name}/{path.name}", provider, body, True,
                                whole.text, ends_in_error))
    conversations = FIXTURES / "conversations"
    for path in sorted(conversations.glob("*/*/turn1.response.json")):
        provider = ANSWER_FOLDERS.get(path.parent.parent.name)
        if provider is None or "bedrock" in path.parent.name:
            continue
        body = path.read_bytes()
        answers.append(Recorded(str(path.relative_to(conversations)), provider, body, False,
                                parse_response(provider, body).text))
    for path in sorted((FIXTURES / "ollama/responses").glob("docs-chat-*.json")):
        body = path.read_bytes()
        answers.append(Recorded(path.name, "ollama", body, False,
                                parse_response("ollama", body).text))
    return answers


# ---------------------------------------------------------------- the cases


@dataclass
class ClientCase:
    """One call against one misbehaving answer."""

    number: int
    answer: Recorded
    kind: str
    fault: str
    framing: str
    retries: int
    script: Answer
    prefix_of: str | None
    """The whole answer's text, when what comes back must be a prefix of it."""


def _content_type(recorded: Recorded) -> str:
    if not recorded.streamed:
        return "application/json"
    return "application/x-ndjson" if recorded.provider == "ollama" else "text/event-stream"


def _framed(body: bytes, framing: str, rng: random.Random,
            extra: list[tuple[str, str]]) -> tuple[bytes, list[bytes]]:
    """The head and the body pieces of a 200 carrying ``body`` as ``framing`` says."""
    fields = [*extra]
    if framing == "length":
        fields.append(("content-length", str(len(body))))
        pieces = [body[i:i + 97] for i in range(0, len(body), 97)] or [b""]
    elif framing == "chunked":
        fields.append(("transfer-encoding", "chunked"))
        sizes = [7, 64, 4096] if len(body) > 4096 else [1, 7, 64, 4096]
        # at most ~1,000 chunks: h11 reads each as an event, and a big body in tiny
        # chunks would take longer than the total timeout on a loaded machine
        pieces = chunked(body, max(rng.choice(sizes), len(body) // 1000))
    else:
        fields.append(("connection", "close"))
        pieces = [body[i:i + 97] for i in range(0, len(body), 97)] or [b""]
    return head(200, fields), pieces


def _cut(pieces: list[bytes], rng: random.Random) -> list[bytes]:
    """``pieces`` joined and cut at a random byte (never the whole)."""
    whole = b"".join(pieces)
    return [whole[:rng.randrange(len(whole))]] if whole else []


def _error_body(rng: random.Random, key: str | None = None) -> tuple[bytes, str]:
    message = f"invalid key {key}" if key is not None else rng.choice(
        ["rate limited", "overloaded", "x" * 5000, "\x1b[2Jcleared", ""])
    return rng.choice([
        (json.dumps({"error": {"message": message, "type": "error", "code": key}}).encode(),
         "application/json"),
        (f"<html><body>{message}</body></html>".encode(), "text/html"),
        (b"\xff\xfe" + message.encode(), "text/plain"),
    ])


def make_case(number: int, rng: random.Random, answers: list[Recorded],
              fault: str | None = None) -> ClientCase:
    """A random case: an answer, a way to call for it, a fault (``fault`` when
    given), a framing."""
    kind = rng.choice(KINDS)
    streamed = kind.endswith("stream")
    answer = rng.choice([a for a in answers if a.streamed == streamed])
    if fault is None:
        fault = rng.choices(list(FAULTS), weights=list(FAULTS.values()))[0]
    framing = rng.choice(FRAMINGS)
    if fault in ("cut in chunked framing", "bad chunk size"):
        framing = "chunked"
    content_type = [("content-type", _content_type(answer))]
    body = answer.body
    if fault == "mutated body":
        body, _ = mutate(body, rng)
    if fault in ("corrupt gzip", "cut gzip"):
        packed = bytearray(gzip.compress(body))
        if fault == "corrupt gzip":
            for _ in range(rng.randint(1, 6)):
                packed[rng.randrange(10, len(packed))] = rng.randrange(256)
        else:
            packed = packed[:rng.randrange(10, len(packed))]
        body = bytes(packed)
        content_type.append(("content-encoding", "gzip"))
    top, pieces = _framed(body, framing, rng, content_type)
    script = _script(fault, top, pieces, rng)
    # A stream cut short keeps a prefix; a cut JSON body read leniently may not
    # know yet that a text was (Gemini's) thought, which a later key says.
    prefix_of = answer.text if fault == "none" or (fault in CUTS and streamed) else None
    return ClientCase(number, answer, kind, fault, framing, rng.choice([0, 0, 1]), script,
                      prefix_of)


def _script(fault: str, top: bytes, pieces: list[bytes], rng: random.Random) -> Answer:
    """What the server sends for ``fault``."""
    slow = TOTAL * 4  # a trickle or a hang that would outlast the total timeout many times
    if fault == "close before head":
        return Answer([])
    if fault == "reset before head":
        return Answer([], then="reset")
    if fault == "hang before head":
        return Answer([], then="hang")
    if fault == "cut in head":
        return Answer([top[:rng.randrange(len(top))]], then=rng.choice(["close", "reset"]))
    if fault == "trickle head":
        padded = top[:-2] + b"x-padding: " + b"p" * 60 + b"\r\n\r\n"
        return Answer(trickle(padded) + pieces, pause=slow / 20)
    if fault in ("cut in body", "cut in chunked framing", "cut gzip"):
        return Answer([top, *_cut(pieces, rng)])
    if fault == "reset in body":
        return Answer([top, *_cut(pieces, rng)], then="reset")
    if fault == "hang in body":
        return Answer([top, *_cut(pieces, rng)], then="hang")
    if fault == "trickle body":
        whole = b"".join(pieces)
        return Answer([top, whole[:50], *trickle(whole[50:120]), whole[120:]], pause=slow / 20)
    if fault == "bad chunk size":
        bad = list(pieces)
        at = rng.randrange(len(bad))
        bad[at] = rng.choice([b"zz\r\n", b"-1\r\n", b"ffffffffffffffffff\r\n", b"\r\n"]) + \
            bad[at].partition(b"\r\n")[2]
        return Answer([top, b"".join(bad)])
    if fault.startswith("error status") or fault == "key echoed":
        body, content_type = _error_body(rng, KEY if fault == "key echoed" else None)
        status = rng.choice([400, 401, 403, 404, 429, 500, 502, 503, 529])
        fields = [("content-type", content_type), ("content-length", str(len(body)))]
        if fault == "key echoed":
            fields.append(("x-request-id", f"req-{KEY}"))
        error_head = head(status, fields)
        if fault == "error status cut":
            return Answer([error_head, body[:rng.randrange(len(body) + 1)]])
        if fault == "error status trickled":
            return Answer([error_head, *trickle(body[:60]), body[60:]], pause=slow / 20)
        return Answer([error_head, body])
    # none, bad encodings, a mutated body: all of it, in one write (the server is a
    # thread of this process: a write per piece would be a wait for the GIL per piece)
    return Answer([top, b"".join(pieces)])


# ---------------------------------------------------------------- running


def _settings(case: ClientCase, url: str) -> dict[str, Any]:
    return {"api_key": KEY, "base_url": f"{url}/c{case.number}", "max_retries": case.retries,
            "timeout": Timeouts(connect=TOTAL * 4, read=TOTAL * 4, write=TOTAL * 4,
                                pool=TOTAL * 4, total=TOTAL)}


async def _no_wait(seconds: float) -> None:
    return None


async def _call_async(case: ClientCase, url: str, http: httpx.AsyncClient) -> ChatResponse:
    async with Client(f"{case.answer.provider}:m", http_client=http,
                      timing=Timing(sleep=_no_wait), **_settings(case, url)) as client:
        if case.kind.endswith("create"):
            return await client.create([UserMessage("hi")])
        async with client.stream([UserMessage("hi")]) as events:
            return await events.final()


def _call_sync(case: ClientCase, url: str, http: httpx.Client) -> ChatResponse:
    with SyncClient(f"{case.answer.provider}:m", http_client=http,
                    timing=SyncTiming(sleep=lambda seconds: None),
                    **_settings(case, url)) as client:
        if case.kind.endswith("create"):
            return client.create([UserMessage("hi")])
        with client.stream([UserMessage("hi")]) as events:
            return events.final()


def _where(exc: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/streamkit/" in f.filename]
    if not frames:
        return "?"
    return f"{frames[-1].filename.split('/streamkit/', 1)[1]}:{frames[-1].name}"


def _judge(case: ClientCase, got: ChatResponse | None, error: BaseException | None,
           took: float) -> Outcome:
    """The contract, for what one call gave."""
    if error is not None and not isinstance(error, StreamkitError):
        return Outcome("crash", type(error).__name__, _where(error), str(error)[:300])
    if isinstance(error, StreamError) and not isinstance(error.partial, ChatResponse):
        return Outcome("violation", "NoPartial", type(error).__name__, str(error)[:300])
    if took > TOTAL + SLACK:
        return Outcome("violation", "PastTheTimeout", case.fault,
                       f"{took:.1f} s with a total timeout of {TOTAL} s")
    response = got if error is None else getattr(error, "partial", None)
    if case.prefix_of is not None and response is not None \
            and not case.prefix_of.startswith(response.text):
        return Outcome("violation", "PartialNotAPrefix", case.fault,
                       f"{response.text[-80:]!r} is not where {case.prefix_of[:80]!r}... goes")
    expected = ProviderError if case.answer.ends_in_error else type(None)
    if case.fault == "none" and (type(error) is not expected or response is None
                                 or response.text != case.prefix_of):
        return Outcome("violation", "WholeAnswerChanged", case.kind, repr(error)[:300])
    if error is not None and KEY in _everything_shown(error):
        return Outcome("violation", "KeyShown", case.fault, str(error)[:300])
    name = "" if error is None else type(error).__name__
    return Outcome("ok" if error is None else "error", name)


def _everything_shown(error: BaseException) -> str:
    partial = getattr(error, "partial", None)
    return " ".join([str(error), repr(error), repr(getattr(error, "raw", None)),
                     repr(dict(getattr(error, "headers", {}))),
                     "" if partial is None else partial.to_json().decode()])


def run_cases(cases: list[ClientCase], on_outcome: Callable[[ClientCase, Outcome], None],
              stop: Callable[[], bool] = lambda: False) -> bool:
    """Serve and call every case (one server, one event loop) until ``stop()``;
    tell each outcome. ``True`` when the client closed every connection."""
    scripts = {case.number: case.script for case in cases}

    def script(request: bytes) -> Answer:
        found = re.match(rb"[A-Z]+ /c(\d+)/", request)
        return scripts[int(found.group(1))] if found else Answer([])

    limits = httpx.Limits(max_keepalive_connections=0)
    with FaultServer(script) as server:
        async def main() -> None:
            async with httpx.AsyncClient(limits=limits) as async_http:
                with httpx.Client(transport=transport(), limits=limits) as sync_http:
                    for case in cases:
                        if stop():
                            break
                        started = time.monotonic()
                        got: ChatResponse | None = None
                        error: BaseException | None = None
                        try:
                            if case.kind.startswith("Client"):
                                got = await _call_async(case, server.url, async_http)
                            else:
                                got = _call_sync(case, server.url, sync_http)
                        except Exception as exc:
                            error = exc
                        on_outcome(case, _judge(case, got, error, time.monotonic() - started))

        anyio.run(main)
        return server.wait_all_closed(timeout=10.0)



def fuzz(count: int, seed: int, seconds: float | None = None,
         on_outcome: Callable[[ClientCase, Outcome], None] | None = None
         ) -> tuple[dict[str, int], dict[tuple[str, str, str], tuple[ClientCase, Outcome]], bool]:
    """``count`` cases from ``seed`` (at most ``seconds`` of them, when given),
    the first ones each fault of :data:`FAULTS` in turn: the count of each
    outcome, the first case of each breach, and whether every connection was
    closed."""
    rng = random.Random(seed)
    answers = load_answers()
    counts: dict[str, int] = {}
    breaches: dict[tuple[str, str, str], tuple[ClientCase, Outcome]] = {}
    deadline = None if seconds is None else time.monotonic() + seconds
    all_left = True
    batch = 200
    made = 0
    while made < count and (deadline is None or time.monotonic() < deadline):
        faults = list(FAULTS)
        cases = [make_case(number, rng, answers,
                           faults[number] if number < len(faults) else None)
                 for number in range(made, made + min(batch, count - made))]
        made += len(cases)

        def tell(case: ClientCase, outcome: Outcome) -> None:
            label = f"{outcome.kind} {outcome.name}".strip()
            counts[label] = counts.get(label, 0) + 1
            if outcome.kind in ("crash", "violation"):
                breaches.setdefault(outcome.signature, (case, outcome))
            if on_outcome is not None:
                on_outcome(case, outcome)

        all_left = run_cases(cases, tell, lambda: deadline is not None
                             and time.monotonic() > deadline) and all_left
    return counts, breaches, all_left


def describe(case: ClientCase) -> str:
    return (f"{case.kind} of {case.answer.name} ({case.answer.provider}), fault {case.fault!r}, "
            f"framing {case.framing}, retries {case.retries}")

