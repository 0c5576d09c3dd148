"""The gateway before a faulty upstream, and slow callers: no failure may look like an answer.

Shared by ``tests/test_fuzz_campaign.py`` and ``bench/fuzz_gateway.py``. One
gateway process (``support.gateway_fuzzing.GatewayProcess``) in front of one
:class:`~support.fault_server.FaultServer`; a case is a caller of one wire
(streamed or not, Gemini's array form too) asking a public model whose
upstream is another (or the same) wire, and one fault (:data:`FAULTS`): the
upstream sends a recorded answer of its wire whole, cut, reset, trickled, or
hangs, answers another wire's body, a redirect, an empty 200, a stream with
no content and no end, an error, an error echoing its key; or the caller
sends its body slowly, hangs up mid-stream, or never finishes its request.
The upstream finds the case by the tag the caller's message holds.

The contract (:func:`judge`; each breach an
:class:`~support.stream_fuzzing.Outcome` of kind ``violation``):

- ``SuccessMadeOfFailure``: a failed upstream read by streamkit's own reader
  from what the caller got as a complete answer (a 200 body, or a stream with
  no error and its end);
- ``AnswerLost`` / ``Changed``: a whole answer not given, or not the same text;
- ``InvalidForSdk``: a frame or body of a 200 that is not the caller's SDK
  type; ``ErrorUnreadable``: an error answer its wire's reader does not read
  as the provider's error; ``RedirectPassedOn``: a 3xx given to a caller;
- ``KeyInAnswer``: the upstream's key in what the caller got;
- ``HeldOpen``: a request never finished, still open after :attr:`Pace.hold`;
- at the end of a run (:func:`settle`): ``UpstreamLeftOpen`` (an upstream
  connection the gateway did not close), ``FilesLeaked`` (the gateway holds
  more files than before the run), ``KeyInLog``, ``CallerKeyUpstream``.

A caller that gives up after :attr:`Pace.caller` is counted (``timeout
CallerGaveUp``), not a breach: the run's ``timeouts`` (the config's
``[timeouts]``) say how long the gateway waits, and the full run's pace lets
the gateway answer a hanging upstream (its three attempts: 6.3 s with a 1.5 s
read on a quiet machine, 14 s allowed at 2 s) before its caller gives up.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import socket
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from functools import cache

import httpx

from streamkit import StreamkitError, parse_response, replay
from streamkit.model.errors import ProviderError
from support.client_fuzzing import Recorded, load_answers
from support.encode_matrix import TARGETS
from support.encoder_fuzzing import invalid_for_sdk, sdk_types
from support.fault_server import Answer, FaultServer, head, trickle
from support.gateway_fuzzing import (
    CALLER_KEY,
    UPSTREAM_KEY,
    GatewayProcess,
    log_outcome,
    wire_call,
)
from support.stream_fuzzing import Outcome

#: Upstream faults, then caller faults: a run gives each the same number of cases.
UPSTREAM_FAULTS = ["none", "cut in body", "reset in body", "close before head",
                   "hang before head", "hang in body", "trickle body", "wrong-wire body",
                   "redirect", "empty 200", "no content no end", "error status", "key echoed"]
CALLER_FAULTS = ["caller sends slowly", "caller hangs up", "caller never finishes"]
FAULTS = UPSTREAM_FAULTS + CALLER_FAULTS
#: Faults after which the caller must get the whole answer (unless the
#: recorded answer is itself an error), and faults that cut it somewhere.
WHOLE = {"none", "trickle body", "caller sends slowly", "caller hangs up"}
CUTS = {"cut in body", "reset in body", "hang in body"}
#: Faults whose callers mostly wait (run apart, many at once).
SLOW = {"hang before head", "hang in body", "caller never finishes"}


@dataclass(frozen=True)
class Pace:
    """How long a run waits (the suite's short run waits less)."""

    caller: float = 14.0
    """Seconds a caller waits for its whole answer before it gives up: longer
    than the gateway takes to give up on a silent upstream (three attempts of
    :attr:`upstream_read` each, its default retries, and at most 1.5 s of
    backoff), so a hanging upstream is judged by the gateway's answer."""
    upstream_read: float = 2.0
    """Seconds the gateway waits for an upstream's next bytes (a trickling one
    pauses; at 1.5 s a loaded machine made 29 of 10,000 trickles a 502)."""
    hang: float = 8.0
    """Seconds a hanging upstream holds its connection before it closes it."""
    hold: float = 8.0
    """Seconds an unfinished request is held open before the gateway must have
    closed it; the gateway's clocks for a caller's request are half of it. At
    2 s, a caller process stalled that long on a loaded machine (the harness
    judges answers between sends) had its whole request arrive late: 463 of
    160,000 callers got the gateway's 408 or a connection closed under them."""

    def gateway_timeouts(self) -> dict[str, float]:
        """The gateway's ``[timeouts]`` for this pace: it gives up on a silent
        upstream before the caller does (:attr:`caller`), and on a caller that
        never finishes its request in half the time the request is held, so
        each is judged by the gateway's own answer (a 502, a closed socket),
        not by the caller giving up."""
        return {"upstream_read": self.upstream_read, "caller_headers": self.hold / 2,
                "caller_body": self.hold / 2, "caller_idle": self.hold / 2}


PACE = Pace()


@cache
def answers() -> dict[tuple[str, bool], list[Recorded]]:
    """The recorded answers of each wire, streamed and whole; but those not
    valid for their own SDK's types (synthetic edge cases: the gateway keeps
    an upstream's own fields for a caller of the same wire, so such an
    upstream would make the caller's answer invalid by itself), and those of
    more than one choice (a caller of a one-choice wire is refused them, as
    documented)."""
    by_wire: dict[tuple[str, bool], list[Recorded]] = {}
    wires = {provider: wire for wire, provider in TARGETS.items()}
    for recorded in load_answers():
        wire = wires.get(recorded.provider)
        form = "stream" if recorded.streamed else "body"
        if wire is not None and not invalid_for_sdk(wire, form, recorded.body) \
                and not _more_than_one_choice(recorded):
            by_wire.setdefault((wire, recorded.streamed), []).append(recorded)
    return by_wire


def _more_than_one_choice(recorded: Recorded) -> bool:
    if not recorded.streamed:
        return b'"index": 1' in recorded.body or b'"index":1' in recorded.body
    events = replay(recorded.body, recorded.provider, on_error="return")[0]
    return any(getattr(event, "choice", 0) for event in events)


@dataclass
class FaultCase:
    """One caller, one upstream, one fault."""

    number: int
    fault: str
    caller: str
    upstream: str
    streamed: bool
    array: bool
    answer: Recorded
    script: Answer
    path: str
    query: str
    body: bytes

    whole_text: str | None = None
    """The text of what the upstream sent when streamkit reads it as a whole
    answer (a cut after the stream's end cuts nothing), else ``None``."""

    @property
    def must_fail(self) -> bool:
        return self.whole_text is None

    def describe(self) -> str:
        return (f"#{self.number} {self.fault}: {self.caller} caller "
                f"{'stream' if self.streamed else 'create'}{' array' if self.array else ''} "
                f"of a {self.upstream} upstream answering {self.answer.name}")


def _content_type(wire: str, streamed: bool) -> str:
    if not streamed:
        return "application/json"
    return "application/x-ndjson" if wire == "ollama" else "text/event-stream"


def _script(fault: str, upstream: str, streamed: bool, answer: Recorded,
            rng: random.Random, pace: Pace) -> Answer:
    """What the upstream sends for ``fault``."""
    kind = [("content-type", _content_type(upstream, streamed))]
    body = answer.body
    if fault == "wrong-wire body":
        other = rng.choice([wire for wire in TARGETS if wire != upstream])
        body = rng.choice(answers()[(other, streamed)]).body
        kind = [("content-type", _content_type(other, streamed))]
    top = head(200, [*kind, ("content-length", str(len(body)))])
    closing = head(200, [*kind, ("connection", "close")])
    if fault in ("none", "wrong-wire body", "caller sends slowly", "caller never finishes"):
        return Answer([top + body])
    if fault == "cut in body":
        return Answer([closing + body[:rng.randrange(len(body))]])
    if fault == "reset in body":
        return Answer([closing + body[:rng.randrange(len(body))]], then="reset")
    if fault == "close before head":
        return Answer([])
    if fault == "hang before head":
        return Answer([b"", b""], pause=pace.hang)
    if fault == "hang in body":
        return Answer([closing + body[:rng.randrange(len(body))], b""], pause=pace.hang)
    if fault == "trickle body":
        return Answer([top + body[:40], *trickle(body[40:60]), body[60:]], pause=0.02)
    if fault == "caller hangs up":
        return Answer([top + body[:60], *trickle(body[60:200]), body[200:]], pause=0.01)
    if fault == "redirect":
        return Answer([head(rng.choice([301, 302, 303, 307, 308]),
                            [("location", "http://127.0.0.1:9/elsewhere"),
                             ("content-length", "0")])])
    if fault == "empty 200":
        return Answer([head(200, [*kind, ("content-length", "0")])])
    if fault == "no content no end":
        keep_alive = b": ping\n\n" if upstream != "ollama" and streamed else b"\n"
        return Answer([closing + keep_alive * rng.randint(0, 3)])
    status = rng.choice([400, 401, 403, 404, 429, 500, 502, 503, 529])
    message = f"invalid key {UPSTREAM_KEY}" if fault == "key echoed" else "overloaded"
    error = json.dumps({"error": {"message": message, "type": "error"}}).encode()
    fields = [("content-type", "application/json"), ("content-length", str(len(error)))]
    if fault == "key echoed":
        fields.append(("x-request-id", f"req-{UPSTREAM_KEY}"))
    return Answer([head(status, fields) + error])


def make_case(number: int, fault: str, rng: random.Random, pace: Pace = PACE) -> FaultCase:
    caller = rng.choice(list(TARGETS))
    upstream = rng.choice(list(TARGETS))
    streamed = fault == "caller hangs up" or rng.random() < 0.6
    answer = rng.choice(answers()[(upstream, streamed)])
    path, query, body = wire_call(caller, streamed, f"f{number}", rng)
    path = path.replace("/to-" + caller, "/to-" + upstream)
    body = body.replace(b'"to-' + caller.encode() + b'"', b'"to-' + upstream.encode() + b'"')
    array = caller == "gemini" and streamed and rng.random() < 0.3
    if array:
        query = ""
    script = _script(fault, upstream, streamed, answer, rng, pace)
    return FaultCase(number, fault, caller, upstream, streamed, array, answer, script, path,
                     query, body, _whole_text(fault, upstream, streamed, script))


def _whole_text(fault: str, upstream: str, streamed: bool, script: Answer) -> str | None:
    """The text streamkit reads from what the upstream sends, when it reads a
    whole answer from it (no error, the stream's end there); else ``None``."""
    if fault not in WHOLE and fault not in CUTS:
        return None
    sent = b"".join(script.pieces)
    body = sent.partition(b"\r\n\r\n")[2]
    try:
        if streamed:
            read = replay(body, TARGETS[upstream])[1]
            return read.text + (read.refusal or "") if read.terminated else None
        whole = parse_response(TARGETS[upstream], body)
        return whole.text + (whole.refusal or "")
    except StreamkitError:
        return None


# ---------------------------------------------------------------- calling the gateway


async def _slowly(body: bytes) -> AsyncIterator[bytes]:
    for start in range(0, len(body), max(1, len(body) // 10)):
        await asyncio.sleep(0.03)
        yield body[start:start + max(1, len(body) // 10)]


async def call(case: FaultCase, url: str, http: httpx.AsyncClient, pace: Pace = PACE) -> Outcome:
    """One caller's request and what it got, judged."""
    target = url + case.path + (f"?{case.query}" if case.query else "")
    headers = {"x-api-key": CALLER_KEY, "content-type": "application/json"}
    content = _slowly(case.body) if case.fault == "caller sends slowly" else case.body
    try:
        async with asyncio.timeout(pace.caller):
            async with http.stream("POST", target, headers=headers, content=content) as answer:
                if case.fault == "caller hangs up":
                    async for _ in answer.aiter_raw():
                        break
                    return Outcome("ok", "CallerLeft")
                body = await answer.aread()
    except TimeoutError:
        return Outcome("timeout", "CallerGaveUp")
    except httpx.HTTPError as error:
        return Outcome("violation", "ConnectionBroken", case.fault,
                       f"{type(error).__name__}: {error}")
    return judge(case, answer.status_code, answer.headers, body)


def judge(case: FaultCase, status: int, headers: httpx.Headers, body: bytes) -> Outcome:
    """The contract (module docstring) for what one caller got."""
    if UPSTREAM_KEY in body.decode("utf-8", "replace") + str(headers):
        return Outcome("violation", "KeyInAnswer", case.fault,
                       body[:300].decode("utf-8", "replace"))
    provider = TARGETS[case.caller]
    if 300 <= status < 400:
        return Outcome("violation", "RedirectPassedOn", case.fault, f"{status} {headers}")
    if status >= 400:
        return _judge_error(case, provider, status, body)
    form = "stream" if case.streamed else "body"
    invalid = invalid_for_sdk(case.caller, form, body, array=case.array)
    if invalid:
        return Outcome("violation", "InvalidForSdk", f"{case.caller} {form} ({case.fault})",
                       invalid)
    try:
        read = replay(body, provider)[1] if case.streamed else parse_response(provider, body)
    except StreamkitError as error:
        if case.must_fail:
            return Outcome("error", f"in-stream {type(error).__name__}")
        return Outcome("violation", "AnswerLost", case.fault,
                       f"{type(error).__name__}: {str(error)[:300]}")
    if case.must_fail:
        return Outcome("violation", "SuccessMadeOfFailure", f"{case.fault} {form}",
                       f"200, read as {read.finished_reason} with text {read.text[:200]!r}")
    if read.text + (read.refusal or "") != case.whole_text:
        return Outcome("violation", "Changed", f"{case.upstream}->{case.caller}",
                       f"{read.text[:150]!r} for {case.whole_text!r}"[:300])
    return Outcome("ok", "")


def _judge_error(case: FaultCase, provider: str, status: int, body: bytes) -> Outcome:
    if not case.must_fail:
        return Outcome("violation", "AnswerLost", case.fault, f"{status} {body[:300]!r}")
    try:
        parse_response(provider, body)
    except ProviderError:
        return Outcome("error", f"{status}")
    except StreamkitError as error:
        return Outcome("violation", "ErrorUnreadable", case.caller,
                       f"{status} {type(error).__name__}: {body[:200]!r}")
    return Outcome("violation", "ErrorUnreadable", case.caller,
                   f"{status} read as an answer: {body[:200]!r}")


def never_finish(case: FaultCase, url: str) -> socket.socket:
    """A connection that sends part of the request (its head cut, or the head
    and part of its body) and then nothing."""
    host, port = url.removeprefix("http://").split(":")
    request = (f"POST {case.path}{'?' + case.query if case.query else ''} HTTP/1.1\r\n"
               f"host: {host}\r\nx-api-key: {CALLER_KEY}\r\n"
               f"content-type: application/json\r\ncontent-length: {len(case.body)}\r\n\r\n"
               ).encode() + case.body
    cut = case.number % max(1, len(request) - 1) + 1
    sock = socket.create_connection((host, int(port)))
    sock.sendall(request[:cut])
    sock.setblocking(False)
    return sock


def closed_by_gateway(sock: socket.socket) -> bool:
    """Whether the gateway closed the connection: what it wrote first (its 408)
    read, then the end of the stream."""
    try:
        while sock.recv(65536):
            pass
    except BlockingIOError:
        return False
    except OSError:
        return True
    return True


# ---------------------------------------------------------------- a run


def upstream_script(cases: dict[int, FaultCase]) -> Callable[[bytes], Answer]:
    def script(request: bytes) -> Answer:
        found = re.search(rb'"f(\d+)"', request)
        return cases[int(found.group(1))].script if found else Answer([])
    return script


async def fuzz_faults(count: int, seed: int, on_outcome: Callable[[FaultCase | None, Outcome],
                                                                 None],
                      faults: list[str] | None = None, timeouts: dict[str, float] | None = None,
                      concurrency: int = 32, pace: Pace = PACE) -> None:
    """``count`` cases of each fault in ``faults`` (default: all) against one
    gateway in front of one fault server; each outcome told, then the leaks."""
    rng = random.Random(seed)
    timeouts = pace.gateway_timeouts() if timeouts is None else timeouts
    sdk_types()  # imported before any caller's clock runs (seconds on a loaded machine)
    cases: dict[int, FaultCase] = {}
    for fault in faults or FAULTS:
        for _ in range(count):
            cases[len(cases)] = make_case(len(cases), fault, rng, pace)
    waiting_at_once = concurrency * 8
    # every caller comes from 127.0.0.1: the cap on one address's connections
    # well above the callers at once, or a caller's connection, made as the one
    # of a caller who gave up closes, meets the cap before the gateway saw that
    # close (the close and the connect cross): refused by design, the cap's
    # behaviour (tests/gateway/test_edge_limits.py), not an upstream's fault
    with FaultServer(upstream_script(cases)) as upstream, \
            GatewayProcess(upstream.url, timeouts, per_client=4 * waiting_at_once) as gateway:
        files = gateway.open_files()
        limits = httpx.Limits(max_connections=concurrency * 8, max_keepalive_connections=0)
        async with httpx.AsyncClient(limits=limits, timeout=None) as http:
            async def one(case: FaultCase, gate: asyncio.Semaphore) -> None:
                async with gate:
                    on_outcome(case, await call(case, gateway.url, http, pace))

            quick = asyncio.Semaphore(concurrency)
            await asyncio.gather(*(one(case, quick) for case in cases.values()
                                   if case.fault not in SLOW))
            waiting = asyncio.Semaphore(waiting_at_once)  # callers that wait, many at once
            await asyncio.gather(*(one(case, waiting) for case in cases.values()
                                   if case.fault in SLOW - {"caller never finishes"}))
        held = [case for case in cases.values() if case.fault == "caller never finishes"]
        await _hold(held, gateway.url, on_outcome, pace)
        settle(upstream, gateway, files, on_outcome, pace)


async def _hold(cases: list[FaultCase], url: str,
                on_outcome: Callable[[FaultCase | None, Outcome], None], pace: Pace,
                batch: int = 200) -> None:
    """The unfinished requests, ``batch`` at a time, each held ``pace.hold`` seconds."""
    for start in range(0, len(cases), batch):
        opened = [(case, never_finish(case, url)) for case in cases[start:start + batch]]
        await asyncio.sleep(pace.hold)
        for case, sock in opened:
            closed = closed_by_gateway(sock)
            sock.close()
            on_outcome(case, Outcome("ok", "ClosedByGateway") if closed else Outcome(
                "violation", "HeldOpen", case.fault, f"open after {pace.hold} s"))


def settle(upstream: FaultServer, gateway: GatewayProcess, files: int,
           on_outcome: Callable[[FaultCase | None, Outcome], None], pace: Pace) -> None:
    """The leaks, once every caller is done: upstream connections, files, the
    log, the caller's key in what the upstream received."""
    carried = [c.request for c in upstream.connections if CALLER_KEY.encode() in c.request]
    if carried:
        on_outcome(None, Outcome("violation", "CallerKeyUpstream", "upstream",
                                 f"{len(carried)} request(s); the first: {carried[0][:300]!r}"))
    deadline = time.monotonic() + pace.hang + 5
    while time.monotonic() < deadline and not upstream.wait_all_closed(0.5):
        pass
    still = [c for c in upstream.connections if c.closed is None]
    if still:
        on_outcome(None, Outcome("violation", "UpstreamLeftOpen", "upstream",
                                 f"{len(still)} connection(s) open {pace.hang + 5:.0f} s after the "
                                 f"last caller; first request {still[0].request[:200]!r}"))
    time.sleep(0.5)
    now = gateway.open_files()
    if now > files + 8:
        on_outcome(None, Outcome("violation", "FilesLeaked", "gateway",
                                 f"{files} files after starting, {now} at the end"))
    _, logged = log_outcome(gateway)
    if logged is not None:
        on_outcome(None, logged)

