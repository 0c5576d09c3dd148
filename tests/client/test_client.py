"""streamkit.Client / SyncClient over real sockets (``ReplayServer`` on 127.0.0.1):
retries and their waits (through an injected sleep: no test waits for real),
errors with the headers a caller needs, a stream cut after its first bytes, usage
totals across calls, ``create()`` on every recorded JSON answer, the key kept out
of every repr, log line and error, cancellation and the total timeout, and the
tool loop of ``examples/tool_loop.py``.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import socket
import traceback
from email.utils import formatdate
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx
import pytest
from support.comparing import fresh_ids
from support.conversations import CONVERSATIONS
from support.paths import ROOT
from support.recordings import FIXTURES

from streamkit import (
    BlockDelta,
    FinishReason,
    IncompleteStreamError,
    NoResponseError,
    ProviderError,
    StreamError,
)
from streamkit.client import Attempt, Client, SyncClient, Timeouts
from streamkit.client.retry import RetryPolicy, SyncTiming, Timing, retry_after_seconds
from streamkit.conversation.messages import UserMessage
from streamkit.conversation.tools import tool
from streamkit.model.vendors import ProviderConfigError
from streamkit.providers.codec import parse_request, parse_response
from streamkit.testing import ReplayServer, Reply, ThreadedReplayServer, load_recording

SECRET = "sk-ant-test-0123456789-SECRET"
NOW = 1_800_000_000.0
ANTHROPIC_TEXT = FIXTURES / "anthropic/text-basic.sse"  # "Hello there!", 11 in / 6 out
PATH = "/v1/messages"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def error_body(message: str, kind: str = "rate_limit_error") -> bytes:
    return json.dumps({"type": "error", "error": {"type": kind, "message": message}}).encode()


class Clock:
    """Injected time: sleeps are recorded, never waited for."""

    def __init__(self) -> None:
        self.sleeps: list[float] = []

    def _slept(self, seconds: float) -> None:
        self.sleeps.append(seconds)

    async def sleep(self, seconds: float) -> None:
        self._slept(seconds)

    def timing(self) -> Timing:
        return Timing(sleep=self.sleep, monotonic=lambda: 100.0, now=lambda: NOW,
                      random=lambda: 0.5)

    def sync_timing(self) -> SyncTiming:
        return SyncTiming(sleep=self._slept, monotonic=lambda: 100.0, now=lambda: NOW,
                          random=lambda: 0.5)


def anthropic(server: ReplayServer | ThreadedReplayServer, **options: Any) -> Client:
    return Client("anthropic:claude-test", base_url=server.url + "/v1",
                  environ={"ANTHROPIC_API_KEY": SECRET}, **options)


def no_secret_in(*texts: str) -> bool:
    return all(SECRET not in text for text in texts)


def error_texts(error: BaseException) -> list[str]:
    return [str(error), repr(error), "".join(traceback.format_exception(error))]


# ---------------------------------------------------------------- the rules


def test_retry_after_forms() -> None:
    assert retry_after_seconds({"Retry-After": "3"}, NOW) == 3.0
    assert retry_after_seconds({"retry-after-ms": "1500", "retry-after": "9"}, NOW) == 1.5
    assert retry_after_seconds({"retry-after": formatdate(NOW + 7, usegmt=True)}, NOW) == 7.0
    assert retry_after_seconds({"retry-after": "soon"}, NOW) is None
    assert retry_after_seconds({}, NOW) is None


def test_backoff_is_exponential_with_jitter_and_capped() -> None:
    policy = RetryPolicy(max_retries=10)
    assert [policy.backoff(n, 0.0) for n in (1, 2, 3, 4, 5, 6)] == [0.5, 1, 2, 4, 8, 8]
    assert policy.backoff(2, 1.0) == 0.75  # at most a quarter taken off
    statuses = {status: policy.should_retry(status, {}) for status in (400, 401, 404, 408, 409,
                                                                      422, 429, 500, 503, 529)}
    assert [s for s, retried in statuses.items() if retried] == [408, 409, 429, 500, 503, 529]
    assert policy.should_retry(None, {})  # no response at all
    assert not policy.should_retry(503, {"x-should-retry": "false"})
    assert policy.should_retry(400, {"X-Should-Retry": "true"})


# ---------------------------------------------------------------- retries over sockets


@pytest.mark.anyio
async def test_429_with_retry_after_then_200_retries_once_and_waits_as_asked(
        caplog: pytest.LogCaptureFixture) -> None:
    attempts: list[Attempt] = []
    async with ReplayServer() as server:
        server.add_sequence(PATH, [
            Reply(error_body("slow down"), status=429, content_type="application/json",
                  headers={"Retry-After": "3", "request-id": "req_1"}),
            ANTHROPIC_TEXT])
        clock = Clock()
        caplog.set_level(logging.DEBUG)
        async with anthropic(server, timing=clock.timing(), on_attempt=attempts.append) as client, \
                client.stream([UserMessage("hi")]) as events:
            final = await events.final()
        assert len(server.requests) == 2
        assert server.requests[0].body == server.requests[1].body
    assert clock.sleeps == [3.0]
    assert final.text == "Hello there!"
    assert [(a.number, a.status, a.retry_in, a.request_id) for a in attempts] == [
        (1, 429, 3.0, "req_1"), (2, 200, None, None)]
    assert isinstance(attempts[0].error, ProviderError) and attempts[1].error is None
    mine = [r for r in caplog.records if r.name == "streamkit.client"]
    assert [r.levelname for r in mine] == ["WARNING", "DEBUG"]
    assert "HTTP 429, request id req_1" in mine[0].getMessage()
    assert "retrying in 3.000 s" in mine[0].getMessage()
    assert no_secret_in(*(r.getMessage() for r in caplog.records))


@pytest.mark.anyio
@pytest.mark.parametrize(("headers", "waited"), [
    ({"retry-after-ms": "1500"}, 1.5),
    ({"Retry-After": formatdate(NOW + 7, usegmt=True)}, 7.0),
    ({"Retry-After": "120"}, 0.4375),  # longer than max_retry_after: the backoff applies
    ({}, 0.4375),  # 0.5 s minus a quarter of it times random() = 0.5
])
async def test_the_wait_before_a_retry(headers: dict[str, str], waited: float) -> None:
    async with ReplayServer() as server:
        server.add_sequence(PATH, [
            Reply(error_body("busy", "overloaded_error"), status=529,
                  content_type="application/json", headers=headers),
            ANTHROPIC_TEXT])
        clock = Clock()
        async with anthropic(server, timing=clock.timing()) as client, \
                client.stream([UserMessage("hi")]) as events:
            await events.final()
        assert len(server.requests) == 2
    assert clock.sleeps == [waited]


@pytest.mark.anyio
async def test_500_three_times_gives_up_with_the_last_error() -> None:
    async with ReplayServer() as server:
        server.add_sequence(PATH, [
            Reply(error_body(f"failure {n}", "api_error"), status=500,
                  content_type="application/json", headers={"x-request-id": f"r{n}"})
            for n in (1, 2, 3)])
        clock = Clock()
        attempts: list[Attempt] = []
        async with anthropic(server, timing=clock.timing(), on_attempt=attempts.append) as client:
            with pytest.raises(ProviderError) as caught:
                async with client.stream([UserMessage("hi")]):
                    pytest.fail("no stream is opened for an error")
        assert len(server.requests) == 3
    error = caught.value
    assert error.status == 500 and error.message == "failure 3"
    assert error.request_id == "r3" and dict(error.headers) == {"x-request-id": "r3"}
    assert error.partial is not None and error.partial.content == []
    assert clock.sleeps == [0.4375, 0.875]
    assert [(a.status, a.retry_in) for a in attempts] == [(500, 0.4375), (500, 0.875),
                                                          (500, None)]
    assert all(no_secret_in(text) for text in error_texts(error))


@pytest.mark.anyio
@pytest.mark.parametrize(("status", "headers", "requests"), [
    (400, {}, 1),
    (401, {}, 1),
    (503, {"x-should-retry": "false"}, 1),
    (400, {"x-should-retry": "true"}, 3),
    (408, {}, 3),
    (409, {}, 3),
])
async def test_which_statuses_are_retried(status: int, headers: dict[str, str],
                                          requests: int) -> None:
    async with ReplayServer() as server:
        server.add(PATH, error_body("no", "invalid_request_error"), status=status,
                   content_type="application/json", headers=headers)
        async with anthropic(server, timing=Clock().timing()) as client:
            with pytest.raises(ProviderError) as caught:
                await client.create([UserMessage("hi")])
        assert len(server.requests) == requests
    assert caught.value.status == status


@pytest.mark.anyio
async def test_a_retry_after_longer_than_the_total_timeout_is_not_waited_for() -> None:
    async with ReplayServer() as server:
        server.add(PATH, error_body("later"), status=429, content_type="application/json",
                   headers={"Retry-After": "30"})
        clock = Clock()
        async with anthropic(server, timing=clock.timing(), timeout=Timeouts(total=10)) as client:
            with pytest.raises(ProviderError, match="later") as caught:
                await client.create([UserMessage("hi")])
        assert len(server.requests) == 1
    assert clock.sleeps == [] and caught.value.retry_after == "30"


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.anyio
async def test_a_connection_that_fails_is_retried_then_reported_without_the_key() -> None:
    clock, attempts = Clock(), list[Attempt]()
    client = Client("anthropic:claude-test", base_url=f"http://127.0.0.1:{closed_port()}/v1",
                    environ={"ANTHROPIC_API_KEY": SECRET}, timing=clock.timing(),
                    on_attempt=attempts.append)
    async with client:
        with pytest.raises(IncompleteStreamError, match=r"no response from http://127\.0\.0\.1") \
                as caught:
            async with client.stream([UserMessage("hi")]):
                pass
    assert [a.status for a in attempts] == [None, None, None] and len(clock.sleeps) == 2
    error = caught.value
    assert error.partial is not None and error.partial.finished_reason is FinishReason.INTERRUPTED
    assert isinstance(error.__cause__, httpx.ConnectError)
    # httpx's own exception keeps the request: the key was taken out of it once sent
    assert all(SECRET not in value for value in error.__cause__.request.headers.values())
    assert all(no_secret_in(text) for text in error_texts(error))


def call_through(kind: str, base_url: str, **options: Any) -> BaseException:
    """The error of one call made as ``kind`` says (``Client`` or ``SyncClient``,
    ``create`` or ``stream``) to ``base_url``, waits recorded, never slept."""
    settings = {"base_url": base_url, "environ": {"ANTHROPIC_API_KEY": SECRET}, **options}
    if kind.startswith("SyncClient"):
        with SyncClient("anthropic:claude-test", timing=Clock().sync_timing(),
                        **settings) as sync, pytest.raises(StreamError) as caught:
            if kind.endswith("create"):
                sync.create([UserMessage("hi")])
            else:
                with sync.stream([UserMessage("hi")]) as events:
                    events.final()
        return caught.value

    async def main() -> BaseException:
        async with Client("anthropic:claude-test", timing=Clock().timing(),
                          **settings) as client:
            with pytest.raises(StreamError) as caught:
                if kind.endswith("create"):
                    await client.create([UserMessage("hi")])
                else:
                    async with client.stream([UserMessage("hi")]) as events:
                        await events.final()
            return caught.value

    return anyio.run(main)


CALL_KINDS = ["Client.create", "Client.stream", "SyncClient.create", "SyncClient.stream"]


@pytest.mark.parametrize("kind", CALL_KINDS)
def test_a_refused_connection_is_a_no_response_error_once_the_attempts_are_spent(
        kind: str) -> None:
    attempts: list[Attempt] = []
    error = call_through(kind, f"http://127.0.0.1:{closed_port()}/v1", on_attempt=attempts.append)
    assert type(error) is NoResponseError and isinstance(error, IncompleteStreamError)
    assert str(error).startswith("no response from http://127.0.0.1:")
    assert isinstance(error.__cause__, httpx.ConnectError)
    assert [(a.status, type(a.error)) for a in attempts] == [(None, NoResponseError)] * 3
    assert error.partial is not None and error.partial.content == []
    assert all(no_secret_in(text) for text in error_texts(error))


@pytest.mark.parametrize("kind", CALL_KINDS)
def test_no_headers_before_the_read_timeout_is_a_no_response_error(kind: str) -> None:
    with socket.socket() as listener:  # accepts connections (the kernel does), never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        port = listener.getsockname()[1]
        error = call_through(kind, f"http://127.0.0.1:{port}/v1", max_retries=1,
                             timeout=Timeouts(connect=5, read=0.2, write=5, pool=5))
    assert type(error) is NoResponseError
    assert isinstance(error.__cause__, httpx.ReadTimeout)


@pytest.mark.parametrize("kind", ["Client.create", "SyncClient.stream"])
def test_a_tls_handshake_that_fails_is_a_no_response_error(kind: str) -> None:
    with ReplayServer.in_thread() as server:  # plain HTTP where the client speaks TLS
        server.add(PATH, b"{}", content_type="application/json")
        error = call_through(kind, server.url.replace("http://", "https://") + "/v1",
                             max_retries=0)
    assert type(error) is NoResponseError
    assert isinstance(error.__cause__, httpx.ConnectError) and "SSL" in str(error.__cause__)


@pytest.mark.parametrize("kind", ["Client.create", "SyncClient.create"])
def test_an_answer_whose_body_breaks_is_incomplete_not_no_response(kind: str) -> None:
    answer = (CONVERSATIONS / "anthropic/tool-use-thinking-signature/turn1.response.json")
    with ReplayServer.in_thread() as server:
        server.add(PATH, answer.read_bytes(), content_type="application/json", cut_after=100)
        error = call_through(kind, server.url + "/v1")
        assert len(server.requests) == 1  # a body already coming is never asked for again
    assert type(error) is IncompleteStreamError
    assert str(error).startswith("the response broke after 100 bytes")


# ---------------------------------------------------------------- after the first byte


@pytest.mark.anyio
async def test_a_stream_cut_after_its_first_bytes_is_not_retried_and_keeps_the_partial() -> None:
    body, _ = load_recording(ANTHROPIC_TEXT)
    cut = body.index(b" there")  # "Hello" arrived, then the connection drops
    async with ReplayServer() as server:
        server.add(PATH, body, cut_after=cut, chunk_size=40)
        clock = Clock()
        async with anthropic(server, timing=clock.timing()) as client:
            with pytest.raises(IncompleteStreamError) as caught:
                async with client.stream([UserMessage("hi")]) as events:
                    await events.final()
            assert len(server.requests) == 1 and clock.sleeps == []
            partial = caught.value.partial
            assert partial is not None and partial.text == "Hello"
            assert partial.finished_reason is FinishReason.INTERRUPTED
            # what the broken call reported is spent, not delivered
            assert client.actual_usage.input_tokens == 11
            assert client.total_usage.input_tokens is None


# ---------------------------------------------------------------- usage


@pytest.mark.anyio
async def test_usage_totals_add_each_calls_final_usage_once() -> None:
    conversation = CONVERSATIONS / "anthropic/tool-use-thinking-signature"  # 398 in / 155 out
    async with ReplayServer() as server, anthropic(server, timing=Clock().timing()) as client:
        server.add_file(PATH, conversation / "turn1.response.json")
        await client.create([UserMessage("hi")])
        server.add_file(PATH, ANTHROPIC_TEXT)  # cumulative in-stream usage: 11 in, 6 out
        async with client.stream([UserMessage("hi")]) as events:
            await events.final()
        server.add_file(PATH, ANTHROPIC_TEXT, chunk_size=40)  # usage 11 / 1 comes first
        async with client.stream([UserMessage("hi")]) as events:
            async for item in events:
                if isinstance(item, BlockDelta):
                    break  # closed early: spent, not delivered whole
        server.add_file(PATH, conversation / "turn1.response.json")
        await client.create([UserMessage("hi")])
        total, actual = client.total_usage, client.actual_usage
    assert (total.input_tokens, total.output_tokens) == (398 + 11 + 398, 155 + 6 + 155)
    assert (actual.input_tokens, actual.output_tokens) == (398 + 11 + 11 + 398, 155 + 6 + 1 + 155)
    assert total.accounting == "additive" and total.raw == {}
    assert total.total_tokens is None  # never reported: never made up


# ---------------------------------------------------------------- create() on recordings


#: The registry entry a recorded endpoint's host stands for.
HOSTS = {"api.anthropic.com": "anthropic", "generativelanguage.googleapis.com": "gemini",
         "aiplatform.googleapis.com": "vertex", "api.cerebras.ai": "cerebras",
         "api.mistral.ai": "mistral", "openrouter.ai": "openrouter", "api.z.ai": "zai",
         "ollama.com": "ollama-v1", "api.openai.com": "openai"}
#: The part of a recorded URL path after the base URL, per wire package.
SUFFIXES = {"anthropic": "/messages", "openai_chat": "/chat/completions",
            "openai_responses": "/responses"}
WIRE_OF_FOLDER = {"anthropic": "anthropic", "gemini": "gemini", "openai-chat": "openai",
                  "openai-responses": "openai-responses", "openai-compatible": "openai"}


def recorded_json_answers() -> list[Path]:
    return sorted(p.parent for p in CONVERSATIONS.glob("*/*/turn1.response.json")
                  if "bedrock-invoke" not in p.parent.name)  # InvokeModel: not a registry URL


def recorded_endpoint(folder: Path) -> str:
    for line in (folder / "SOURCE.txt").read_text().splitlines():
        if line.startswith("endpoint: POST "):
            return line.removeprefix("endpoint: POST ").strip()
    raise AssertionError(f"no endpoint in {folder}")


def client_for_recording(folder: Path, server_url: str) -> tuple[Client, str]:
    """A client that posts where the recording was posted (on the test server)."""
    wire = WIRE_OF_FOLDER[folder.parent.name]
    url = urlsplit(recorded_endpoint(folder))
    request = json.loads((folder / "turn1.request.json").read_bytes())
    if wire == "gemini":
        base, _, method = url.path.partition("/models/")
        model = method.partition(":")[0]
        name = HOSTS.get(url.hostname or "", "gemini")
    else:
        wire = "openai-responses" if url.path.endswith("/responses") else wire
        suffix = SUFFIXES["openai_responses" if wire == "openai-responses" else
                          "anthropic" if wire == "anthropic" else "openai_chat"]
        base, model = url.path.removesuffix(suffix), request["model"]
        name = "openai-responses" if wire == "openai-responses" else \
            HOSTS.get(url.hostname or "", "openai-compatible")
        if url.path.startswith("/v1beta/openai"):
            name = "openai-compatible"  # Gemini's OpenAI-compatible endpoint
    spec = f"{name}:{model}" if name != "openai-compatible" else model
    client = Client(spec, api_key=SECRET, base_url=server_url + base, timing=Clock().timing())
    return client, url.path


@pytest.mark.anyio
@pytest.mark.parametrize("folder", recorded_json_answers(),
                         ids=lambda p: f"{p.parent.name}/{p.name}")
async def test_create_on_every_recorded_json_answer(folder: Path) -> None:
    request = json.loads((folder / "turn1.request.json").read_bytes())
    answer = (folder / "turn1.response.json").read_bytes()
    async with ReplayServer() as server:
        client, path = client_for_recording(folder, server.url)
        assert urlsplit(client.url(stream=False)).path == path  # the recorded URL's path
        server.add(path, answer, content_type="application/json")
        recorded = parse_request(client.provider.name, request)
        async with client:
            with fresh_ids():
                got = await client.create(recorded)
            usage = client.total_usage
        sent, = server.requests
    assert sent.json() == request  # the recorded request, sent as it was
    with fresh_ids():
        expected = parse_response(client.provider.name, answer)
    assert got.to_dict() | {"created_at": None} == expected.to_dict() | {"created_at": None}
    assert got.is_last or got.content is not None
    if expected.usage is not None:
        assert usage.input_tokens == expected.usage.input_tokens
        assert usage.output_tokens == expected.usage.output_tokens


@pytest.mark.anyio
@pytest.mark.parametrize("name", ["docs-tool-history", "image-structured-output"])
async def test_create_on_recorded_ollama_answers(name: str) -> None:
    folder = FIXTURES / "ollama/conversations" / name
    request = json.loads((folder / "turn1.request.json").read_bytes())
    answer = (folder / "turn1.response.json").read_bytes()
    recorded = parse_request("ollama", request)
    async with ReplayServer() as server:
        server.add("/api/chat", answer, content_type="application/json")
        async with Client(f"ollama:{request['model']}", base_url=server.url, environ={}) as client:
            with fresh_ids():
                got = await client.create(recorded)
        sent, = server.requests
    assert sent.json() == request and "authorization" not in sent.headers
    with fresh_ids():
        expected = parse_response("ollama", answer)
    assert got.to_dict() | {"created_at": None} == expected.to_dict() | {"created_at": None}


@pytest.mark.anyio
async def test_create_sends_a_non_streamed_request_and_gemini_names_the_model_in_the_url() -> None:
    folder = CONVERSATIONS / "gemini/thought-parts-then-user"
    async with ReplayServer() as server:
        server.default(b'{"error": {"message": "wrong URL"}}', status=404,
                       content_type="application/json")
        server.add("/v1beta/models/gemini-2.5-pro:generateContent",
                   (folder / "turn1.response.json").read_bytes(), content_type="application/json")
        async with Client("gemini:gemini-2.5-pro", base_url=server.url + "/v1beta",
                          environ={"GEMINI_API_KEY": SECRET}) as client:
            answer = await client.create([UserMessage("How many r's in strawberry?")])
        sent, = server.requests
    assert sent.query == "" and "model" not in sent.json()
    assert sent.secret_headers["x-goog-api-key"] == SECRET
    assert answer.thinking and answer.text


# ---------------------------------------------------------------- the key


def test_the_key_is_in_no_repr() -> None:
    client = Client("anthropic:claude", environ={"ANTHROPIC_API_KEY": SECRET})
    sync = SyncClient("anthropic:claude", api_key=SECRET)
    for text in (repr(client), str(client), repr(sync), repr(client.provider),
                 repr(vars(client)), repr(vars(client._core))):
        assert SECRET not in text
    assert "key from ANTHROPIC_API_KEY" in repr(client) and "key from api_key=" in repr(sync)


@pytest.mark.parametrize("bad", [SECRET + "\n" + SECRET, "sk-with space", "sk-é-accent", "  "])
def test_a_key_a_header_cannot_carry_is_refused_without_showing_it(bad: str) -> None:
    with pytest.raises(ProviderConfigError) as caught:
        Client("deepseek:deepseek-chat", environ={"DEEPSEEK_API_KEY": bad})
    assert all(SECRET not in text and "é" not in text for text in error_texts(caught.value))
    assert "DEEPSEEK_API_KEY" in str(caught.value)


def test_surrounding_whitespace_of_a_key_is_dropped() -> None:
    with ReplayServer.in_thread() as server:
        server.add_file(PATH, ANTHROPIC_TEXT)
        for settings in ({"environ": {"ANTHROPIC_API_KEY": f" {SECRET}\n"}},
                         {"api_key": f"\t{SECRET} ", "environ": {}}):
            with SyncClient("anthropic:claude-test", base_url=server.url + "/v1",
                            **settings) as client, client.stream([UserMessage("hi")]) as events:
                events.final()
        assert [request.secret_headers["x-api-key"] for request in server.requests] == [SECRET] * 2


@pytest.mark.anyio
async def test_a_missing_key_fails_before_any_request() -> None:
    async with ReplayServer() as server:
        with pytest.raises(ProviderConfigError, match="set ANTHROPIC_API_KEY"):
            Client("anthropic:claude", base_url=server.url + "/v1", environ={})
        assert server.requests == []


@pytest.mark.anyio
async def test_no_log_line_holds_the_key(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)  # httpx and httpcore too
    async with ReplayServer() as server:
        server.add_sequence(PATH, [
            Reply(error_body("again"), status=503, content_type="application/json"),
            ANTHROPIC_TEXT])
        clock = Clock()
        async with anthropic(server, timing=clock.timing()) as client, \
                client.stream([UserMessage("hi")]) as events:
            await events.final()
    assert caplog.records
    for record in caplog.records:
        assert no_secret_in(record.getMessage(), repr(record.args), repr(record.__dict__))


# ---------------------------------------------------------------- cancellation, timeouts


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_cancellation_closes_the_connection(anyio_backend: str) -> None:
    async with ReplayServer() as server:
        server.add_file(PATH, ANTHROPIC_TEXT, chunk_size=20, delay=0.05)
        async with anthropic(server) as client:
            with anyio.CancelScope() as scope:
                async with client.stream([UserMessage("hi")]) as events:
                    async for item in events:
                        if isinstance(item, BlockDelta):
                            scope.cancel()
            assert scope.cancelled_caught
            assert await server.wait_disconnect()
            assert events.response.finished_reason is FinishReason.INTERRUPTED


@pytest.mark.anyio
async def test_the_total_timeout_ends_a_stream_with_its_partial() -> None:
    body, _ = load_recording(ANTHROPIC_TEXT)
    async with ReplayServer() as server:
        server.add(PATH, body, chunk_size=body.index(b" there"), delay=60)  # stalls after "Hello"
        async with anthropic(server, timeout=Timeouts(total=0.5)) as client:
            with pytest.raises(IncompleteStreamError, match="total timeout") as caught:
                async with client.stream([UserMessage("hi")]) as events:
                    await events.final()
            assert await server.wait_disconnect()
    assert caught.value.partial is not None and caught.value.partial.text == "Hello"


@pytest.mark.anyio
async def test_connect_and_read_timeouts_reach_httpx() -> None:
    seen: list[dict[str, Any]] = []

    async def remember(request: httpx.Request) -> None:
        seen.append(dict(request.extensions["timeout"]))

    async with ReplayServer() as server, \
            httpx.AsyncClient(event_hooks={"request": [remember]}) as http:
        server.add_file(PATH, ANTHROPIC_TEXT)
        timeouts = Timeouts(connect=3, read=40, write=5, pool=1)
        async with anthropic(server, timeout=timeouts, http_client=http) as client, \
                client.stream([UserMessage("hi")]) as events:
            await events.final()
        assert not http.is_closed  # a client passed in is not closed
    assert seen == [{"connect": 3, "read": 40, "write": 5, "pool": 1}]


# ---------------------------------------------------------------- the sync twin


def test_sync_client_streams_creates_retries_and_counts() -> None:
    conversation = CONVERSATIONS / "anthropic/tool-use-thinking-signature"
    with ReplayServer.in_thread() as server:
        server.add_sequence(PATH, [
            Reply(error_body("slow"), status=429, content_type="application/json",
                  headers={"retry-after": "2"}),
            ANTHROPIC_TEXT, conversation / "turn1.response.json"])
        clock = Clock()
        with SyncClient("anthropic:claude-test", base_url=server.url + "/v1",
                        environ={"ANTHROPIC_API_KEY": SECRET},
                        timing=clock.sync_timing()) as client:
            with client.stream([UserMessage("hi")]) as events:
                final = events.final()
            answer = client.create([UserMessage("hi")])
            usage = client.total_usage
        assert len(server.requests) == 3
        assert server.requests[0].secret_headers["x-api-key"] == SECRET
    assert clock.sleeps == [2.0] and final.text == "Hello there!"
    assert answer.tool_calls[0].name == "get_user_country"
    assert (usage.input_tokens, usage.output_tokens) == (11 + 398, 6 + 155)


def test_sync_total_timeout_ends_a_stream_with_its_partial() -> None:
    body, _ = load_recording(ANTHROPIC_TEXT)
    with ReplayServer.in_thread() as server:
        server.add(PATH, body, chunk_size=body.index(b" there"), delay=60)  # stalls after "Hello"
        with SyncClient("anthropic:claude-test", base_url=server.url + "/v1",
                        environ={"ANTHROPIC_API_KEY": SECRET},
                        timeout=Timeouts(total=0.5)) as client:
            with pytest.raises(IncompleteStreamError) as caught, \
                    client.stream([UserMessage("hi")]) as events:
                events.final()
            assert server.wait_disconnect()
    assert caught.value.partial is not None and caught.value.partial.text == "Hello"


def test_sync_client_connection_failure_keeps_the_key_out() -> None:
    clock = Clock()
    with SyncClient("deepseek:deepseek-chat", base_url=f"http://127.0.0.1:{closed_port()}",
                    environ={"DEEPSEEK_API_KEY": SECRET}, timing=clock.sync_timing()) as client, \
            pytest.raises(IncompleteStreamError, match="no response from") as caught:
        client.create([UserMessage("hi")])
    assert len(clock.sleeps) == 2
    assert isinstance(caught.value.__cause__, httpx.ConnectError)
    assert all(SECRET not in value for value in caught.value.__cause__.request.headers.values())
    assert all(no_secret_in(text) for text in error_texts(caught.value))


def test_sync_client_errors_and_cut_streams() -> None:
    body, _ = load_recording(ANTHROPIC_TEXT)
    with ReplayServer.in_thread() as server:
        server.add(PATH, body, cut_after=body.index(b" there"))
        with SyncClient("anthropic:claude-test", base_url=server.url + "/v1",
                        environ={"ANTHROPIC_API_KEY": SECRET},
                        timing=Clock().sync_timing()) as client:
            with pytest.raises(IncompleteStreamError) as caught, \
                    client.stream([UserMessage("hi")]) as events:
                events.final()
            assert caught.value.partial is not None and caught.value.partial.text == "Hello"
            server.add(PATH, error_body("bad"), status=400, content_type="application/json")
            with pytest.raises(ProviderError, match="bad"):
                client.create([UserMessage("hi")])
            assert client.actual_usage.input_tokens == 11
        assert len(server.requests) == 2


# ---------------------------------------------------------------- examples/tool_loop.py


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tool_loop_example",
                                                  ROOT / "examples" / "tool_loop.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.anyio
async def test_tool_loop_streams_runs_the_tool_and_sends_the_result_back() -> None:
    example = load_example()
    async with ReplayServer() as server:
        server.add_sequence(PATH, [FIXTURES / "anthropic/tool-use.sse", ANTHROPIC_TEXT])
        async with anthropic(server) as client:
            final = await example.tool_loop(client, "What's the weather in Paris?")
        first, second = (r.json() for r in server.requests)
    assert final.text == "Hello there!" and final.finished_reason is FinishReason.STOP
    assert [t["name"] for t in first["tools"]] == ["get_weather", "get_user_country"]
    assert first["messages"] == [{"role": "user", "content": "What's the weather in Paris?"}]
    assistant, results = second["messages"][1:]
    assert assistant["role"] == "assistant"
    call = next(part for part in assistant["content"] if part["type"] == "tool_use")
    assert call["id"] == "toolu_01NRLabsLyVHZPKxbKvkfSMn" and call["input"] == {"location": "Paris"}
    assert results == {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01NRLabsLyVHZPKxbKvkfSMn",
         "content": "Sunny, 21 °C in Paris"}]}


@pytest.mark.anyio
async def test_tool_loop_keeps_anthropic_thinking_signatures() -> None:
    """Turn 2 as the recorded client really sent it: the thinking block with its
    signature, the text and the tool call verbatim, then the tool result."""
    example = load_example()
    folder = CONVERSATIONS / "anthropic/tool-use-thinking-signature"
    recorded = json.loads((folder / "turn2.request.json").read_bytes())
    async with ReplayServer() as server:
        server.add_sequence(PATH, [
            folder / "turn1.response.json",
            CONVERSATIONS / "anthropic/thinking-signature-then-user/turn1.response.json"])
        async with anthropic(server) as client:
            final = await example.tool_loop(client, recorded["messages"][0]["content"][0]["text"],
                                            stream=False, thinking_budget=3000)
        second = server.requests[1].json()
    assistant, results = second["messages"][1:]
    assert assistant == recorded["messages"][1]  # thinking + signature, text, tool_use: verbatim
    result, = results["content"]
    expected, = recorded["messages"][2]["content"]
    assert result.pop("is_error", False) is expected.pop("is_error")  # the recorder wrote false
    assert result == expected  # the tool ran: "Mexico", for the call's id
    assert second["thinking"] == recorded["thinking"]
    assert final.text and not final.tool_calls


@pytest.mark.anyio
async def test_tool_loop_on_an_openai_compatible_wire() -> None:
    example = load_example()

    def get_weather_args(city: str, country: str, units: str = "c") -> str:
        """The weather in a city."""
        return f"Rain in {city}, {country} ({units})"

    tools = [tool(get_weather_args, name="GetWeatherArgs")]
    path = "/chat/completions"
    async with ReplayServer() as server:
        server.add_sequence(path, [FIXTURES / "openai-chat/tool-call-single.sse",
                                   FIXTURES / "openai-chat/text-with-usage-chunk.sse"])
        async with Client("deepseek:deepseek-chat", base_url=server.url,
                          environ={"DEEPSEEK_API_KEY": SECRET}) as client:
            final = await example.tool_loop(client, "Weather?", tools)
            usage = client.total_usage
        first, second = (r.json() for r in server.requests)
    assert first["stream"] is True and first["stream_options"] == {"include_usage": True}
    assistant, result = second["messages"][1:]
    call_id = "call_c91SqDXlYFuETYv8mUHzz6pp"
    assert assistant["tool_calls"][0]["id"] == call_id
    assert assistant["tool_calls"][0]["function"]["name"] == "GetWeatherArgs"
    assert result["role"] == "tool" and result["tool_call_id"] == call_id
    assert result["content"].startswith("Rain in Edinburgh")
    assert final.text and (usage.input_tokens, usage.output_tokens) == (76 + 14, 24 + 30)


def test_the_example_tells_what_is_missing_without_a_key() -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, str(ROOT / "examples" / "tool_loop.py"),
                           "--model", "deepseek:deepseek-chat", "hi"],
                          capture_output=True, text=True, timeout=120, check=False,
                          env={"PATH": "", "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2
    assert done.stderr == ("tool_loop.py: no API key for DeepSeek: set DEEPSEEK_API_KEY "
                           "(or pass api_key=)\n")  # one line, no traceback
    assert done.stdout == ""


def test_the_example_says_a_provider_error_in_one_line() -> None:
    import subprocess
    import sys

    body = error_body("invalid x-api-key", "authentication_error")
    with ReplayServer.in_thread() as server:
        server.add(PATH, body, status=401, content_type="application/json")
        done = subprocess.run([sys.executable, str(ROOT / "examples" / "tool_loop.py"),
                               "--model", "anthropic:claude-test", "--base-url",
                               server.url + "/v1", "hi"],
                              capture_output=True, text=True, timeout=120, check=False,
                              env={"PATH": "", "PYTHONPATH": str(ROOT),
                                   "ANTHROPIC_API_KEY": SECRET})
    assert done.returncode == 1
    assert done.stderr.strip() == ("tool_loop.py: ProviderError: invalid x-api-key "
                                   "(status=401, type=authentication_error)")
    assert SECRET not in done.stdout + done.stderr

