"""The gateway under attack: one real gateway process, many random requests, every log grepped.

Shared by ``tests/test_fuzz_campaign.py`` (seeded short runs) and
``bench/fuzz_gateway.py`` (10,000 requests of each kind). :class:`GatewayProcess`
runs ``python -m streamkit gateway`` (uvicorn on a real socket, its own
logging, exactly as deployed) on a config written for the run: one public
model per wire (``to-<wire>``), every upstream at one ``upstream_url`` with
:data:`UPSTREAM_KEY`, callers' key :data:`CALLER_KEY`; everything it writes
(stdout and stderr) goes to one file, read by :meth:`GatewayProcess.log`.

This module is the auth and isolation kind (:func:`fuzz_auth`); the faults and
slow callers are ``support.gateway_faults``. An auth case is a random method,
path (each wire's own, and odd ones), query, body and way of presenting a key
(none, a wrong one, the right one in a documented header form, in an odd form,
or cut / padded). The upstream is a :class:`~streamkit.testing.FakeProvider`
that records what it got. The contract, each breach an
:class:`~support.stream_fuzzing.Outcome` of kind ``violation``:

- ``ThroughWithoutKey``: a request that does not hold the right key, whole,
  reached the upstream or got a 2xx (``GET`` or ``HEAD /health`` excepted);
- ``KeyRefused``: the right key, alone in a documented form, on a wire's path
  with its body, was refused (401): the harness checks its own reach;
- ``CallerKeyUpstream``: a caller's key (right or wrong) in anything the
  upstream received; ``KeyInAnswer``: a key in what a caller got;
- ``KeyInLog``: a key (any caller's, or the upstream's) in a line the gateway
  wrote (:func:`keys_in_log`, checked once at the end of a run).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from streamkit import ChatResponse, TextBlock
from streamkit.conversation.messages import UserMessage
from streamkit.providers.codec import build_request
from streamkit.providers.wire_format import wire_format
from streamkit.testing import FakeProvider
from support.encode_matrix import TARGETS
from support.stream_fuzzing import Outcome

#: Every key of a run is ``sk-gw-<who>-<24 hex>``: one pattern finds them all in a log.
CALLER_KEY = "sk-gw-caller-" + "0123456789abcdef01234567"
UPSTREAM_KEY = "sk-gw-upstream-" + "89abcdef0123456789abcdef"
KEY_PATTERN = re.compile(r"sk-gw-[a-z]+-[0-9a-f]{24}")
#: A key's parts as they may leak cut short (a prefix long enough to be the key's own).
KEY_PREFIX_CHARS = 16


def wrong_key(rng: random.Random) -> str:
    return f"sk-gw-wrong-{rng.randrange(16**24):024x}"


def public_model(wire: str) -> str:
    return f"to-{wire}"


# ---------------------------------------------------------------- the gateway process


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def config_text(upstream_url: str, timeouts: dict[str, float] | None = None,
                per_client: int | None = None) -> str:
    """The run's TOML: a public model per wire, every provider at ``upstream_url``
    (``per_client``: the cap on one address's connections, when not the default)."""
    lines = ["[gateway]", f'keys = ["{CALLER_KEY}"]']
    if per_client is not None:
        lines.append(f"max_connections_per_client = {per_client}")
    lines.append("")
    if timeouts:
        lines += ["[timeouts]", *(f"{name} = {value}" for name, value in timeouts.items()), ""]
    for wire, provider in TARGETS.items():
        lines += [f"[models.{public_model(wire)}]", f'model = "{provider}:up-{wire}"', "",
                  f"[providers.{provider}]",
                  f'base_url = "{upstream_url}{wire_format(wire).served_base}"',
                  f'api_key = "{UPSTREAM_KEY}"', ""]
    return "\n".join(lines)


@dataclass
class GatewayProcess:
    """``with GatewayProcess(upstream_url) as gateway:`` the gateway command
    serving at ``gateway.url`` until the block ends."""

    upstream_url: str
    timeouts: dict[str, float] | None = None
    per_client: int | None = None
    url: str = ""
    process: subprocess.Popen[bytes] | None = None
    folder: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="gw-fuzz-")))

    def __enter__(self) -> GatewayProcess:
        config = self.folder / "gateway.toml"
        config.write_text(config_text(self.upstream_url, self.timeouts, self.per_client))
        port = _free_port()
        self.url = f"http://127.0.0.1:{port}"
        with (self.folder / "gateway.log").open("wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "streamkit", "gateway", "--config", str(config),
                 "--port", str(port)], stdout=log, stderr=subprocess.STDOUT,
                env={**os.environ, "PYTHONUNBUFFERED": "1"})
        deadline = time.monotonic() + 60
        while True:
            assert self.process.poll() is None, f"the gateway stopped:\n{self.log()}"
            assert time.monotonic() < deadline, "the gateway did not start in 60 s"
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(self.url + "/health", timeout=1).status_code == 200:
                    return self
            time.sleep(0.05)

    def __exit__(self, *exc: object) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def log(self) -> str:
        """Everything the gateway wrote so far."""
        return (self.folder / "gateway.log").read_bytes().decode("utf-8", "replace")

    def open_files(self) -> int:
        """How many file descriptors the gateway process holds (its sockets among them)."""
        assert self.process is not None
        return len(os.listdir(f"/proc/{self.process.pid}/fd"))


def keys_in_log(log: str) -> list[str]:
    """The lines of ``log`` that hold a key of the run, whole or its first
    :data:`KEY_PREFIX_CHARS` characters past the ``sk-gw-<who>-`` part."""
    prefix = re.compile(rf"sk-gw-(?:caller|wrong|upstream)-[0-9a-f]{{{KEY_PREFIX_CHARS}}}")
    return [line for line in log.splitlines() if KEY_PATTERN.search(line) or prefix.search(line)]


def log_outcome(gateway: GatewayProcess) -> tuple[int, Outcome | None]:
    """The lines of the gateway's log holding a key, and the breach (shortest line)."""
    lines = keys_in_log(gateway.log())
    if not lines:
        return 0, None
    return len(lines), Outcome("violation", "KeyInLog", "gateway log",
                               f"{len(lines)} line(s); the shortest: {min(lines, key=len)[:400]}")


# ---------------------------------------------------------------- auth and isolation

METHODS = ["POST"] * 6 + ["GET", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"]
ODD_PATHS = ["/", "/v1", "/v1/", "/v1/models", "/health", "/v1/chat/completions/",
             "//v1/chat/completions", "/V1/CHAT/COMPLETIONS", "/v1/chat%2Fcompletions",
             "/v1/messages/../chat/completions", "/v1/chat/completions;x", "/api/chat/",
             "/v1beta/models/to-gemini", "/v1beta/models/..%2F:generateContent",
             "/v1beta/models/to-gemini:generateContent/", "/%00", "/admin", "/metrics",
             "/v1/chat/completions%00", "/.env", "/v1/embeddings", "/api/generate"]


@dataclass
class AuthCase:
    """One request: how it presents a key, and whether that is the right key."""

    number: int
    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes
    holds_key: bool
    """The right key, whole, is somewhere in the request."""
    documented: bool
    """The right key alone, in a form the gateway documents, on a wire's path
    with that wire's body: it must get through."""
    keys: list[str]

    def describe(self) -> str:
        return (f"#{self.number} {self.method} {self.path}?{self.query} headers "
                f"{self.headers} body {self.body[:120]!r}")


def _documented(key: str, rng: random.Random) -> tuple[dict[str, str], str]:
    form = rng.randrange(4)
    if form == 0:
        return {"authorization": rng.choice(["Bearer ", "bearer ", "BEARER "]) + key}, ""
    if form == 1:
        return {"x-api-key": key}, ""
    if form == 2:
        return {"x-goog-api-key": key}, ""
    return {}, f"key={key}"


def _odd(key: str, rng: random.Random) -> tuple[dict[str, str], str, bool]:
    """The right key in a form no SDK sends, or cut, padded, or wrapped:
    the headers, the query and whether the key is still there whole."""
    forms: list[Callable[[], tuple[dict[str, str], str, bool]]] = [
        lambda: ({"authorization": "Basic " + key}, "", True),
        lambda: ({"authorization": "Token " + key}, "", True),
        lambda: ({"authorization": key}, "", True),
        lambda: ({"api-key": key}, "", True),
        lambda: ({"cookie": f"key={key}"}, "", True),
        lambda: ({}, f"api_key={key}", True),
        lambda: ({}, f"KEY={key}", True),
        lambda: ({}, f"key[]={key}", True),
        lambda: ({"x-api-key": key[:-1]}, "", False),
        lambda: ({"x-api-key": key.upper()}, "", False),
        lambda: ({"authorization": "Bearer " + key[: len(key) // 2]}, "", False),
        lambda: ({}, f"key={key[:-2]}", False),
        lambda: ({"x-goog-api-key": "x" + key}, "", False),
        lambda: ({"authorization": "Bearer"}, f"key={key}x", False),
        lambda: ({"x-api-key": ""}, "key=", False),
    ]
    return rng.choice(forms)()


def wire_call(wire: str, stream: bool, tag: str, rng: random.Random) -> tuple[str, str, bytes]:
    """A wire's own path, query and body for a call tagged ``tag``."""
    form = wire_format(wire)
    url = form.endpoint(form.served_base, public_model(wire), stream=stream, dialect=None)
    path, _, query = url.partition("?")
    body = build_request(TARGETS[wire], [UserMessage(tag)], model=public_model(wire),
                         stream=stream)
    return path, query, json.dumps(body).encode()


def make_auth_case(number: int, rng: random.Random, query_keys: bool = True) -> AuthCase:
    """A random request (module docstring); a quarter of them with the right
    key; no key in the query string unless ``query_keys``."""
    wire = rng.choice(list(TARGETS))
    path, query, body = wire_call(wire, rng.random() < 0.5, f"a{number}", rng)
    method, on_a_wire = "POST", True
    if rng.random() < 0.25:
        method, on_a_wire = rng.choice(METHODS), False
    if rng.random() < 0.2:
        path, on_a_wire = rng.choice(ODD_PATHS), False
    if rng.random() < 0.1:
        body, on_a_wire = rng.choice([b"", b"{", b"null", b"[]", b"\xff" * 8]), False
    wrong = wrong_key(rng)
    choice = rng.random()
    headers: dict[str, str] = {}
    extra = ""
    holds = documented = False
    if choice < 0.25:
        headers, extra = _documented(CALLER_KEY, rng)
        holds, documented = True, on_a_wire
    elif choice < 0.45:
        headers, extra, holds = _odd(CALLER_KEY, rng)
    elif choice < 0.8:
        headers, extra = _documented(wrong, rng)
    if rng.random() < 0.2:  # a second presentation beside the first
        more, more_query = _documented(rng.choice([wrong, CALLER_KEY]), rng)
        holds = holds or CALLER_KEY in str(more) + more_query
        documented = False
        headers = {**more, **headers}
        extra = "&".join(part for part in (extra, more_query) if part)
    if not query_keys and extra:  # drawn again, until the key is not in the query
        return make_auth_case(number, rng, query_keys)
    query = "&".join(part for part in (query, extra, rng.choice(["", "", "alt=sse", "x=1"]))
                     if part)
    return AuthCase(number, method, path, query, headers, body, holds, documented,
                    [CALLER_KEY, wrong])


async def send_auth(case: AuthCase, url: str, http: httpx.AsyncClient) -> httpx.Response:
    target = url + case.path + (f"?{case.query}" if case.query else "")
    return await http.request(case.method, target, headers=case.headers, content=case.body)


def judge_auth(case: AuthCase, answer: httpx.Response, reached: bool) -> Outcome:
    """The contract (module docstring) for one request's answer, and whether
    the upstream received it."""
    shown = answer.content.decode("utf-8", "replace") + str(answer.headers)
    leaked = [key for key in (*case.keys, UPSTREAM_KEY) if key in shown]
    if leaked:
        return Outcome("violation", "KeyInAnswer", str(answer.status_code), shown[:300])
    public = case.method in ("GET", "HEAD") and case.path == "/health"
    if not case.holds_key and (reached or (200 <= answer.status_code < 300 and not public)):
        return Outcome("violation", "ThroughWithoutKey", f"{case.method} {answer.status_code}",
                       f"reached the upstream: {reached}")
    if case.documented and answer.status_code == 401:
        return Outcome("violation", "KeyRefused", case.path, answer.text[:300])
    status = answer.status_code
    return Outcome("ok" if status < 400 else "error", f"{status // 100}xx")


def reply_to_everyone(request: Any) -> ChatResponse:
    """The auth run's upstream answer: short, whatever was asked."""
    return ChatResponse(content=[TextBlock("fine")])


def upstream_breaches(fake: FakeProvider, cases: dict[str, AuthCase],
                      untraced: int) -> Iterator[Outcome]:
    """What the upstream received that it must not have: a caller's key
    anywhere in a request; a request of a case without the key; more requests
    with no case's tag (a body read as another wire's) than the ``untraced``
    cases with the key that may have sent them (answered, their tag not seen)."""
    untagged = []
    for received in fake.requests:
        raw = received.raw
        seen = " ".join([raw.body.decode("utf-8", "replace")[:200], raw.path, raw.query,
                         str(raw.headers), str(raw.secret_headers)])
        for case_key in KEY_PATTERN.findall(seen):
            if case_key != UPSTREAM_KEY:
                yield Outcome("violation", "CallerKeyUpstream", raw.path, seen[:300])
        tag = re.search(r'"(a\d+)"', raw.body.decode("utf-8", "replace"))
        case = cases.get(tag.group(1)) if tag else None
        if case is None:
            untagged.append(seen)
        elif not case.holds_key:
            yield Outcome("violation", "ThroughWithoutKey", "upstream",
                          f"{seen[:300]} (case {case.describe()})")
    if len(untagged) > untraced:
        yield Outcome("violation", "ThroughWithoutKey", "upstream (no tag)",
                      f"{len(untagged)} requests without a case's tag, {untraced} cases with "
                      f"the key that may have sent them; the first: {untagged[0][:300]}")


async def fuzz_auth(count: int, seed: int, on_outcome: Callable[[Any, Outcome], None],
                    concurrency: int = 16, query_keys: bool = True) -> None:
    """``count`` auth cases against one gateway (one FakeProvider upstream),
    each outcome told; the upstream's records and the log checked at the end."""
    rng = random.Random(seed)
    async with FakeProvider(reply_to_everyone) as fake:
        with GatewayProcess(fake.url) as gateway:
            cases: dict[str, AuthCase] = {}
            untraced = [0]
            limits = httpx.Limits(max_connections=concurrency)
            async with httpx.AsyncClient(limits=limits, timeout=30) as http:
                gate = asyncio.Semaphore(concurrency)

                async def one(case: AuthCase) -> None:
                    async with gate:
                        before = len(fake.requests)
                        answer = await send_auth(case, gateway.url, http)
                        reached = any(f'"a{case.number}"' in r.raw.body.decode("utf-8", "replace")
                                      for r in fake.requests[before:])
                        if case.holds_key and not reached and (
                                answer.status_code < 300 or answer.status_code >= 500):
                            untraced[0] += 1
                        on_outcome(case, judge_auth(case, answer, reached))

                for number in range(count):
                    case = make_auth_case(number, rng, query_keys)
                    cases[f"a{number}"] = case
                await asyncio.gather(*(one(case) for case in cases.values()))
            await asyncio.sleep(0.2)
            for outcome in upstream_breaches(fake, cases, untraced[0]):
                on_outcome(None, outcome)
            _, logged = log_outcome(gateway)
            if logged is not None:
                on_outcome(None, logged)
