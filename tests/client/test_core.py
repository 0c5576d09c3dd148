"""The client's sans-IO core, driven by hand: no socket, no sleep, no clock.

:class:`~streamkit.client.core.ClientCore` runs a call as a generator of steps
(send, read a body, wait); these tests play the shell's part with in-memory
``httpx.Response`` values and say what each step gave, so every decision (the
retry, the wait, the deadline, the error, the report, the usage) is seen as the
step it produces. ``client/test_client.py`` runs the same core through the real
shells over real sockets.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import httpx
import pytest
from support.client_steps import Clock, error_response
from support.conversations import CONVERSATIONS

from streamkit.client.attempts import Attempt
from streamkit.client.core import ClientCore
from streamkit.client.steps import Progress, Read, Send, Step, Wait
from streamkit.client.timeouts import Timeouts
from streamkit.model.errors import NoResponseError, ProviderError
from streamkit.model.limits import MAX_ERROR_BODY_BYTES

SECRET = "sk-ant-test-0123456789-SECRET"


def core(attempts: list[Attempt], *, total: float | None = None,
         max_retries: int = 2) -> ClientCore:
    return ClientCore("anthropic:claude-test", None, "http://127.0.0.1:9/v1",
                      timeout=Timeouts(total=total), max_retries=max_retries, retry=None,
                      model_info=None, on_attempt=attempts.append,
                      environ={"ANTHROPIC_API_KEY": SECRET}, overrides={})


def read_body(step: Step) -> None:
    """The shell's part of a Read step: the whole in-memory body, fed to the sink."""
    assert isinstance(step, Read)
    step.body.read([step.response.content])


def test_a_429_then_a_200_is_send_read_wait_send() -> None:
    attempts: list[Attempt] = []
    clock = Clock()
    client = core(attempts, total=30)
    call = client.call({"messages": []}, stream=True, now=clock.at)
    steps = client.attempts(call, clock.timing())

    first = next(steps)
    assert isinstance(first, Send) and first.call is call
    assert first.timeout.read == 30  # the 600 s read timeout, bounded by the total
    refused = error_response(429, "slow down", **{"retry-after": "3", "request-id": "req_1"})
    read = steps.send(refused)
    assert isinstance(read, Read) and read.response is refused
    assert read.body.limit == MAX_ERROR_BODY_BYTES and read.deadline == 130
    read_body(read)
    assert steps.send(None) == Wait(3.0)
    clock.at = 103.0
    second = steps.send(None)
    assert isinstance(second, Send) and second.timeout.read == 27  # what is left
    answered = httpx.Response(200, headers={"content-type": "text/event-stream"})
    with pytest.raises(StopIteration) as done:
        steps.send(answered)
    assert done.value.value is answered

    assert [(a.number, a.status, a.retry_in, a.request_id) for a in attempts] == [
        (1, 429, 3.0, "req_1"), (2, 200, None, None)]
    error = attempts[0].error
    assert isinstance(error, ProviderError) and error.message == "slow down"
    assert dict(error.headers) == {"retry-after": "3", "request-id": "req_1"}


def test_a_wait_past_the_total_timeout_ends_the_call_with_the_error() -> None:
    attempts: list[Attempt] = []
    clock = Clock()
    client = core(attempts, total=10)
    steps = client.attempts(client.call({}, stream=False, now=clock.at), clock.timing())
    next(steps)
    read_body(steps.send(error_response(503, "busy", **{"retry-after": "30"})))
    with pytest.raises(ProviderError, match="busy") as caught:
        steps.send(None)
    assert caught.value.status == 503 and caught.value.retry_after == "30"
    assert [(a.status, a.retry_in) for a in attempts] == [(503, None)]


def test_no_response_is_retried_and_a_request_that_cannot_be_sent_is_not() -> None:
    attempts: list[Attempt] = []
    client = core(attempts)
    steps = client.attempts(client.call({}, stream=False, now=0.0), Clock().timing())
    next(steps)
    assert steps.send(httpx.ConnectError("refused")) == Wait(0.4375)
    next(steps)
    unsendable = httpx.UnsupportedProtocol("no such scheme")
    with pytest.raises(NoResponseError) as caught:
        steps.send(unsendable)
    assert caught.value.__cause__ is unsendable
    assert [(a.status, a.retry_in, type(a.error)) for a in attempts] == [
        (None, 0.4375, NoResponseError), (None, None, NoResponseError)]


def test_create_reads_the_whole_body_parses_it_and_counts_its_usage() -> None:
    answer = (CONVERSATIONS / "anthropic/tool-use-thinking-signature/turn1.response.json")
    client = core([])
    steps = client.create(client.call({}, stream=False, now=0.0), Clock().timing())
    next(steps)
    response = httpx.Response(200, headers={"content-type": "application/json"},
                              content=answer.read_bytes())
    read = steps.send(response)
    assert isinstance(read, Read) and read.response is response
    read_body(read)
    with pytest.raises(StopIteration) as done:
        steps.send(None)
    parsed = done.value.value
    assert parsed.tool_calls[0].name == "get_user_country"
    assert (client.usage.total.input_tokens, client.usage.total.output_tokens) == (398, 155)


def test_progress_performs_every_step_to_the_result() -> None:
    def steps() -> Generator[Step, Any, str]:
        told = yield Wait(1.0)
        told_again = yield Wait(2.0)
        return f"{told}, {told_again}"

    progress, performed = Progress(steps()), []
    while not progress.done:
        assert isinstance(progress.step, Wait)
        performed.append(progress.step.seconds)
        progress.tell(f"slept {progress.step.seconds}")
    assert performed == [1.0, 2.0] and progress.result() == "slept 1.0, slept 2.0"
