"""Random FakeProvider scripts served over HTTP on every wire, read by the Client and the SDKs.

Shared by ``tests/test_fuzz_campaign.py`` (a seeded short run) and
``bench/fuzz_gateway.py --kinds scripts`` (100,000 cases). One
:class:`ScriptCase` is one scripted answer of a
:class:`~streamkit.testing.FakeProvider` (a random answer of
``support.encoder_fuzzing``: text, reasoning, tool calls, hostile text, cut by
its length limit; or the provider's error with a random status and a hostile
message), asked for by :class:`~streamkit.Client` on one wire, streamed or
not. Every case asks ``c<number>`` (its message), of one fake for a
whole run. The contract (:func:`check`):

- nothing but a ``StreamkitError`` escapes the client (``crash``);
- a scripted error is the client's ``ProviderError`` with its status, never
  an answer (``FailureAsSuccess``) and never another error (``WrongError``);
- a scripted answer reads back to the same portable summary, its wire's own
  losses applied (``Changed``);
- the fake itself records no error.

One case in ``sdk_every`` is also fetched raw from the fake and read by the
wire's official SDK (``support.sdk_stream_readers``), as
:func:`~support.encoder_fuzzing.check_with_sdk` reads an encoder's stream.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import httpx

from streamkit import ChatResponse, FinishReason, ProviderError, StreamkitError
from streamkit.client import Client
from streamkit.conversation.messages import UserMessage
from streamkit.conversation.request import Request
from streamkit.model.replay import events_of
from streamkit.providers.codec import build_request
from streamkit.testing import FakeProvider
from support.encode_matrix import TARGETS, portable_summary
from support.encoder_fuzzing import (
    EncoderCase,
    compare,
    expected_summary,
    hostile_text,
    random_response,
    where,
)
from support.stream_fuzzing import Outcome

KEY = "sk-script-fuzz-0123456789abcdef"
#: The share of scripted answers that are the provider's error.
ERRORS = 0.15
ERROR_STATUSES = [400, 401, 403, 404, 408, 413, 422, 429, 500, 502, 503, 504, 529]


@dataclass
class ScriptCase:
    """One scripted answer, asked for on one wire."""

    number: int
    target: str
    streamed: bool
    answer: ChatResponse | ProviderError

    @property
    def said(self) -> str:
        """What the case's request says: the fake's script finds its answer by it."""
        return f"c{self.number}"

    def describe(self) -> str:
        answer = self.answer if isinstance(self.answer, ProviderError) else [
            (type(block).__name__, getattr(block, "text", None)
             or getattr(block, "thinking", None) or getattr(block, "input", ""))
            for block in self.answer.content]
        return (f"#{self.number} {self.target} {'stream' if self.streamed else 'create'}: "
                f"{answer!r}"[:600])


def make_case(number: int, rng: random.Random) -> ScriptCase:
    target = list(TARGETS)[number % len(TARGETS)]
    streamed = number // len(TARGETS) % 2 == 0
    answer: ChatResponse | ProviderError
    if rng.random() < ERRORS:
        answer = ProviderError("scripted: " + hostile_text(rng, 4),
                               status=rng.choice(ERROR_STATUSES))
    else:
        answer = random_response(rng)
        if rng.random() < 0.1:  # cut by its length limit
            answer.finished_reason = FinishReason.LENGTH
    return ScriptCase(number, target, streamed, answer)


class ScriptRun:
    """One fake serving every case of a run (its script a function of the
    message a case sends), one client per wire."""

    def __init__(self, fake: FakeProvider, http: httpx.AsyncClient) -> None:
        self.fake = fake
        self.http = http
        self.cases: dict[str, ScriptCase] = {}
        self.clients = {target: Client(f"{TARGETS[target]}:m", api_key=KEY, max_retries=0,
                                       base_url=fake.base_url(TARGETS[target]), http_client=http)
                        for target in TARGETS}

    @staticmethod
    def reply(run: list[ScriptRun]) -> Any:
        """The fake's reply function, for the run made after the fake."""
        def answer(request: Request) -> ChatResponse | StreamkitError:
            content = request.messages[-1].content
            said = content if isinstance(content, str) else \
                "".join(getattr(block, "text", "") for block in content)
            return run[0].cases[said].answer
        return answer

    async def check(self, case: ScriptCase) -> Outcome:
        """The contract (module docstring) for one case."""
        self.cases[case.said] = case
        errors = len(self.fake.errors)
        client = self.clients[case.target]
        got: ChatResponse | None = None
        try:
            if case.streamed:
                async with client.stream([UserMessage(case.said)]) as stream:
                    events = [event async for event in stream]
                    got = stream.response
            else:
                events, got = [], await client.create([UserMessage(case.said)])
        except StreamkitError as error:
            return _judge_error(case, error)
        except Exception as error:
            return Outcome("crash", type(error).__name__, where(error), str(error)[:300])
        finally:
            del self.cases[case.said]
        if len(self.fake.errors) > errors:
            return Outcome("violation", "FakeFailed", case.target, repr(self.fake.errors[-1]))
        if isinstance(case.answer, ProviderError):
            return Outcome("violation", "FailureAsSuccess", case.target,
                           f"a scripted {case.answer.status} read as {got!r}"[:400])
        assert got is not None
        return _judge_answer(case, case.answer, events, got)

    async def raw(self, case: ScriptCase) -> bytes:
        """The bytes the fake sends for ``case`` (streamed), as a raw POST."""
        provider = TARGETS[case.target]
        body = build_request(provider, [UserMessage(case.said)], model="m", stream=True)
        url = self.clients[case.target].url(stream=True)
        self.cases[case.said] = case
        try:
            answer = await self.http.post(url, json=body)
        finally:
            del self.cases[case.said]
        return answer.content


def _judge_error(case: ScriptCase, error: StreamkitError) -> Outcome:
    if not isinstance(case.answer, ProviderError):
        return Outcome("violation", "AnswerAsError", case.target,
                       f"{type(error).__name__}: {str(error)[:300]}")
    if type(error) is not ProviderError and not isinstance(error, ProviderError):
        return Outcome("violation", "WrongError", case.target, f"{type(error).__name__}")
    if error.status != case.answer.status:
        return Outcome("violation", "WrongStatus", case.target,
                       f"scripted {case.answer.status}, read {error.status}")
    return Outcome("error", "ProviderError")


def _judge_answer(case: ScriptCase, answer: ChatResponse, events: list[Any],
                  got: ChatResponse) -> Outcome:
    form = "stream" if case.streamed else "body"
    served = ChatResponse(content=answer.content, id=got.id, model=got.model,
                          finished_reason=answer.finished_reason, terminated=True, is_last=True)
    want = expected_summary(served, list(events_of(served)), case.target, form)
    read = portable_summary(got, events, counted_as=case.target, wire=case.target)
    return compare(want, read, f"{case.target} {form}")


def sdk_case(case: ScriptCase, written: bytes) -> EncoderCase:
    """A script case's raw stream, as the encoder fuzzer's SDK check reads one."""
    assert isinstance(case.answer, ChatResponse)
    return EncoderCase(case.number, case.answer, list(events_of(case.answer)), case.target,
                       "stream", written=written)

