"""Fallbacks across providers, over real sockets (``ReplayServer`` on 127.0.0.1):
a real Anthropic history (thinking signatures, a tool call and its result) with
a real user image goes from Anthropic (overloaded) to OpenAI (500) to Gemini
(a recorded answer), each body valid for its SDK's types; what does not fall
back (a 400, an error after the answer began, a body built elsewhere); the
last error carrying the earlier ones; a fallback that cannot take the
conversation passed over; timing, ``on_attempt``, logs, keys and usage across
the models.
"""

from __future__ import annotations

import json
import logging
import socket
import warnings
from typing import Any

import pytest
from support.recordings import FIXTURES
from support.request_oracles import sdk_valid
from support.translation_matrix import CONVERSATIONS, essence

from streamkit import (
    Base64Source,
    DataBlock,
    IncompleteStreamError,
    LossyTranslationWarning,
    NoResponseError,
    ProviderError,
    Request,
    TextBlock,
    UnsupportedFeatureError,
    UserMessage,
    parse_request,
)
from streamkit.client import Client, SyncClient
from streamkit.client.fallbacks import Fallback, falls_back
from streamkit.client.retry import RetryPolicy, SyncTiming, Timing
from streamkit.model.vendors import ProviderConfigError
from streamkit.testing import ReplayServer, ThreadedReplayServer, load_recording

ANTHROPIC_HISTORY = CONVERSATIONS / "anthropic/tool-use-thinking-signature/turn2.request.json"
IMAGE_TURN = CONVERSATIONS / "openai-chat/tool-result-then-user-image/turn2.request.json"
WEB_FETCH_HISTORY = CONVERSATIONS / "anthropic/web-fetch-server-tool/turn2.request.json"
OPENAI_ANSWER = CONVERSATIONS / "openai-chat/tool-call-json/turn1.response.json"
GEMINI_STREAM = FIXTURES / "gemini/text.sse"  # gemini-2.0-flash-exp: "The capital of France..."
ANTHROPIC_PATH = "/v1/messages"
OPENAI_PATH = "/v1/chat/completions"
GEMINI_STREAM_PATH = "/v1beta/models/gemini-2.5-flash:streamGenerateContent"
KEYS = {"ANTHROPIC_API_KEY": "sk-ant-fallback-test-0123456789",
        "OPENAI_API_KEY": "sk-openai-fallback-test-0123456789",
        "GEMINI_API_KEY": "gemini-fallback-test-0123456789"}
CHAIN = ["openai:gpt-4o", "gemini:gemini-2.5-flash"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Clock:
    """Injected time that moves only by the client's waits (never waited for)."""

    def __init__(self) -> None:
        self.at = 100.0
        self.sleeps: list[float] = []

    def _slept(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.at += seconds

    async def sleep(self, seconds: float) -> None:
        self._slept(seconds)

    def timing(self) -> Timing:
        return Timing(sleep=self.sleep, monotonic=lambda: self.at, random=lambda: 0.5)

    def sync_timing(self) -> SyncTiming:
        return SyncTiming(sleep=self._slept, monotonic=lambda: self.at, random=lambda: 0.5)


def error_body(kind: str, message: str) -> bytes:
    return json.dumps({"type": "error", "error": {"type": kind, "message": message}}).encode()


def openai_error(message: str) -> bytes:
    return json.dumps({"error": {"message": message, "type": "server_error",
                                 "param": None, "code": None}}).encode()


def history(options: str = "max_tokens") -> Request:
    """The recorded Anthropic turn 2 (a signed thinking block, text and a
    tool_use, its tool_result), then the recorded user turn with an image (a
    real OpenAI Chat request's), as one conversation; with ``max_tokens`` only,
    or with ``all`` the recorded request's options (its thinking budget too)."""
    recorded = parse_request("anthropic", json.loads(ANTHROPIC_HISTORY.read_text()))
    image_turn = parse_request("openai", json.loads(IMAGE_TURN.read_text())).messages[-1]
    kept = recorded.options if options == "all" else {"max_tokens": 4096}
    return Request(messages=[*recorded.messages, image_turn], tools=recorded.tools,
                   tool_choice=recorded.tool_choice, options=dict(kept))


def signature() -> str:
    thinking = json.loads(ANTHROPIC_HISTORY.read_text())["messages"][1]["content"][0]
    assert thinking["type"] == "thinking"
    return str(thinking["signature"])


def image_url() -> str:
    part = json.loads(IMAGE_TURN.read_text())["messages"][-1]["content"][1]
    return str(part["image_url"]["url"])


def unused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def client(server: ReplayServer, *fallbacks: str | Fallback, **options: Any) -> Client:
    """Anthropic first, each fallback on the same server (its own base URL)."""
    bases = {"openai": "/v1", "gemini": "/v1beta", "anthropic": "/v1"}
    chain = [value if isinstance(value, Fallback)
             else Fallback(value, base_url=server.url + bases[value.partition(":")[0]])
             for value in fallbacks]
    return Client("anthropic:claude-sonnet-4-5", base_url=server.url + "/v1", environ=KEYS,
                  fallbacks=chain, **options)


def sent_to(server: ReplayServer | ThreadedReplayServer, path: str) -> list[dict[str, Any]]:
    return [request.json() for request in server.requests if request.path.startswith(path)]


# ---------------------------------------------------------------- the chain


@pytest.mark.anyio
@pytest.mark.parametrize("options", ["max_tokens", "all"])
async def test_a_real_history_falls_back_from_anthropic_to_openai_to_gemini(
        options: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "streamkit.client")
    clock, attempts = Clock(), []
    async with ReplayServer() as server:
        server.add(ANTHROPIC_PATH, error_body("overloaded_error", "Overloaded"), status=529,
                   content_type="application/json")
        server.add(OPENAI_PATH, openai_error("The server had an error"), status=500,
                   content_type="application/json")
        server.add_file(GEMINI_STREAM_PATH, GEMINI_STREAM, chunk_size=23)
        async with client(server, *CHAIN, max_retries=1, timing=clock.timing(),
                          on_attempt=attempts.append) as chained:
            assert chained.fallbacks == ("openai:gpt-4o", "gemini:gemini-2.5-flash")
            async with chained.stream(history(options)) as events:
                answer = await events.final()
        requests = list(server.requests)

    # the Gemini answer arrived, and says who wrote it
    assert answer.text == "The capital of France is Paris.\n"
    assert (answer.provider, answer.model) == ("gemini", "gemini-2.0-flash-exp")  # its own
    # each model tried after its retries, in order, each body sent twice but the last
    assert [(r.path, r.query) for r in requests] == [
        (ANTHROPIC_PATH, ""), (ANTHROPIC_PATH, ""), (OPENAI_PATH, ""), (OPENAI_PATH, ""),
        (GEMINI_STREAM_PATH, "alt=sse")]
    assert [(a.provider, a.model, a.fallback, a.number, a.status) for a in attempts] == [
        ("anthropic", "claude-sonnet-4-5", 0, 1, 529),
        ("anthropic", "claude-sonnet-4-5", 0, 2, 529),
        ("openai", "gpt-4o", 1, 1, 500), ("openai", "gpt-4o", 1, 2, 500),
        ("gemini", "gemini-2.5-flash", 2, 1, 200)]
    assert attempts[-1].error is None and all(a.error for a in attempts[:-1])
    # each model got its own key in its own header, and no other's
    assert [r.secret_headers.get("x-api-key") for r in requests[:2]] == \
        [KEYS["ANTHROPIC_API_KEY"]] * 2
    assert [r.secret_headers.get("authorization") for r in requests[2:4]] == \
        [f"Bearer {KEYS['OPENAI_API_KEY']}"] * 2
    assert requests[4].secret_headers.get("x-goog-api-key") == KEYS["GEMINI_API_KEY"]
    own = {ANTHROPIC_PATH: "ANTHROPIC_API_KEY", OPENAI_PATH: "OPENAI_API_KEY",
           GEMINI_STREAM_PATH: "GEMINI_API_KEY"}
    for request in requests:
        others = [key for name, key in KEYS.items() if name != own[request.path]]
        sent = f"{request.headers}{request.secret_headers}{request.body!r}"
        assert not any(key in sent for key in others)
    # timing: every attempt of every model, and the waits before the answering one
    assert answer.timing is not None
    assert answer.timing.attempts == 5
    assert answer.timing.before_answer == pytest.approx(sum(clock.sleeps)) and clock.sleeps
    # the logs say each fallback and who answered
    messages = [record.getMessage() for record in caplog.records]
    assert any("trying fallback 1 of 2: openai:gpt-4o" in m for m in messages)
    assert any("trying fallback 2 of 2: gemini:gemini-2.5-flash" in m for m in messages)
    assert any(m.startswith("gemini:gemini-2.5-flash answers, after anthropic:claude-sonnet-4-5 "
                            "failed, openai:gpt-4o failed") for m in messages)

    # each body is valid for its SDK's types and keeps the conversation
    bodies = {"anthropic": requests[0].json(), "openai-chat": requests[2].json(),
              "gemini": requests[4].json()}
    assert requests[1].body == requests[0].body and requests[3].body == requests[2].body
    for wire, body in bodies.items():
        sdk_valid(wire, body)
    assert bodies["anthropic"]["model"] == "claude-sonnet-4-5"
    assert bodies["openai-chat"]["model"] == "gpt-4o"
    assert "model" not in bodies["gemini"]  # in the URL
    if options == "all":  # the thinking budget, in each wire's form
        assert bodies["anthropic"]["thinking"] == {"type": "enabled", "budget_tokens": 3000}
        assert "reasoning_effort" in bodies["openai-chat"]
        assert bodies["gemini"]["generationConfig"]["thinkingConfig"]["thinkingBudget"] == 3000
    source = essence(history(options))
    for wire, vendor in (("anthropic", "anthropic"), ("openai-chat", "openai"),
                         ("gemini", "gemini")):
        kept = essence(parse_request(vendor, bodies[wire]))
        assert kept.calls == source.calls == [("get_user_country", "{}")], wire
        assert kept.results == ["Mexico"] and kept.unpaired_calls == 0, wire
        assert kept.images == 1 and kept.user_texts == source.user_texts, wire
    # the signature stays on its own wire only
    assert signature().encode() in requests[0].body
    assert signature().encode() not in requests[2].body
    assert signature().encode() not in requests[4].body
    # the image reached Gemini by its URL
    parts = [part for content in bodies["gemini"]["contents"] for part in content["parts"]]
    files = [part["fileData"] for part in parts if "fileData" in part]
    assert [file["fileUri"] for file in files] == [image_url()]
    assert all(file["mimeType"].startswith("image/") for file in files)


def test_create_falls_back_after_no_response_and_counts_the_answer() -> None:
    """The sync client's create(): a model that cannot be reached at all, then
    a recorded OpenAI answer; its usage in the client's totals."""
    clock, attempts = Clock(), []
    recorded = json.loads(OPENAI_ANSWER.read_text())
    with ReplayServer.in_thread() as server:
        server.add(OPENAI_PATH, OPENAI_ANSWER.read_bytes(), content_type="application/json")
        with SyncClient("anthropic:claude-sonnet-4-5",
                        base_url=f"http://127.0.0.1:{unused_port()}/v1", environ=KEYS,
                        max_retries=2, timing=clock.sync_timing(), on_attempt=attempts.append,
                        fallbacks=[Fallback("openai:gpt-4o", base_url=server.url + "/v1")],
                        ) as chained:
            answer = chained.create([UserMessage("What is the weather in Paris?")])
            usage = chained.total_usage
        requests = list(server.requests)
    assert [(a.provider, a.status) for a in attempts] == [
        ("anthropic", None), ("anthropic", None), ("anthropic", None), ("openai", 200)]
    assert all(isinstance(a.error, NoResponseError) for a in attempts[:3])
    assert (answer.provider, answer.model) == ("openai", recorded["model"])
    assert answer.timing is not None and answer.timing.attempts == 4
    assert answer.timing.before_answer == pytest.approx(sum(clock.sleeps))
    assert len(clock.sleeps) == 2  # anthropic's two retries; none between the models
    assert usage.input_tokens == recorded["usage"]["prompt_tokens"]
    assert len(requests) == 1 and requests[0].json()["model"] == "gpt-4o"


def test_the_sync_stream_falls_back() -> None:
    with ReplayServer.in_thread() as server:
        server.add(ANTHROPIC_PATH, error_body("api_error", "Internal server error"), status=500,
                   content_type="application/json")
        server.add_file(GEMINI_STREAM_PATH, GEMINI_STREAM)
        with SyncClient("anthropic:claude-sonnet-4-5", base_url=server.url + "/v1",
                        environ=KEYS, max_retries=0, fallbacks=[Fallback(
                            "gemini:gemini-2.5-flash", base_url=server.url + "/v1beta")],
                        ) as chained, chained.stream(history()) as events:
            answer = events.final()
        paths = [request.path for request in server.requests]
    assert paths == [ANTHROPIC_PATH, GEMINI_STREAM_PATH]
    assert answer.provider == "gemini" and answer.text == "The capital of France is Paris.\n"
    assert answer.timing is not None and answer.timing.attempts == 2


# ---------------------------------------------------------------- what does not fall back


@pytest.mark.anyio
@pytest.mark.parametrize("status", [400, 401])
async def test_a_request_or_key_error_does_not_fall_back(status: int) -> None:
    async with ReplayServer() as server:
        server.add(ANTHROPIC_PATH, error_body("invalid_request_error", "bad"), status=status,
                   content_type="application/json")
        server.add(OPENAI_PATH, OPENAI_ANSWER.read_bytes(), content_type="application/json")
        async with client(server, "openai:gpt-4o", max_retries=3) as chained:
            with pytest.raises(ProviderError) as caught:
                await chained.create(history())
        paths = [request.path for request in server.requests]
    assert paths == [ANTHROPIC_PATH]
    assert caught.value.status == status and caught.value.fallback_errors == ()
    assert not getattr(caught.value, "__notes__", [])


@pytest.mark.anyio
async def test_an_error_after_the_answer_began_does_not_fall_back() -> None:
    body, _ = load_recording(FIXTURES / "anthropic/text-basic.sse")
    async with ReplayServer() as server:
        server.add(ANTHROPIC_PATH, body, cut_after=body.index(b" there"))
        server.add(OPENAI_PATH, OPENAI_ANSWER.read_bytes(), content_type="application/json")
        async with client(server, "openai:gpt-4o") as chained:
            with pytest.raises(IncompleteStreamError) as caught:
                async with chained.stream(history()) as events:
                    await events.final()
        paths = [request.path for request in server.requests]
    assert paths == [ANTHROPIC_PATH]
    assert caught.value.partial is not None and caught.value.partial.text == "Hello"
    assert caught.value.fallback_errors == ()


@pytest.mark.anyio
async def test_a_body_built_elsewhere_goes_to_the_clients_own_model_only() -> None:
    async with ReplayServer() as server:
        server.add(ANTHROPIC_PATH, error_body("overloaded_error", "Overloaded"), status=529,
                   content_type="application/json")
        server.add(OPENAI_PATH, OPENAI_ANSWER.read_bytes(), content_type="application/json")
        async with client(server, "openai:gpt-4o", max_retries=0) as chained:
            with pytest.raises(ProviderError) as caught:
                await chained.create_body(json.loads(ANTHROPIC_HISTORY.read_text()))
        paths = [request.path for request in server.requests]
    assert paths == [ANTHROPIC_PATH] and caught.value.status == 529


def test_which_errors_fall_back() -> None:
    policy = RetryPolicy(retry_statuses=frozenset({429}))  # a caller's own table

    def status(code: int, **headers: str) -> ProviderError:
        error = ProviderError("x", status=code)
        error.headers = headers
        return error

    assert falls_back(NoResponseError("refused"), policy)
    assert [code for code in (400, 401, 403, 404, 408, 422, 429, 500, 503, 529)
            if falls_back(status(code), policy)] == [429, 500, 503, 529]
    assert falls_back(status(503, **{"x-should-retry": "false"}), policy)  # this one is down
    assert falls_back(status(409, **{"x-should-retry": "true"}), policy)
    assert not falls_back(ProviderError("in the stream", status=None), policy)
    assert not falls_back(IncompleteStreamError("cut"), policy)


# ---------------------------------------------------------------- when every model fails


@pytest.mark.anyio
async def test_when_every_model_fails_the_last_error_carries_the_earlier_ones() -> None:
    async with ReplayServer() as server:
        server.add(ANTHROPIC_PATH, error_body("overloaded_error", "Overloaded"), status=529,
                   content_type="application/json")
        server.add(OPENAI_PATH, openai_error("The server had an error"), status=500,
                   content_type="application/json")
        server.add(GEMINI_STREAM_PATH, json.dumps({"error": {
            "code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}).encode(),
            status=503, content_type="application/json")
        async with client(server, *CHAIN, max_retries=0) as chained:
            with pytest.raises(ProviderError) as caught:
                async with chained.stream(history()):
                    pass
    error = caught.value
    assert error.status == 503 and "overloaded" in error.message
    assert [type(e).__name__ for e in error.fallback_errors] == ["ProviderError"] * 2
    assert [e.status for e in error.fallback_errors] == [529, 500]  # type: ignore[attr-defined]
    notes = error.__notes__
    assert len(notes) == 2
    assert notes[0].startswith(
        "anthropic:claude-sonnet-4-5 failed before: ProviderError: Overloaded")
    assert notes[1].startswith(
        "openai:gpt-4o failed before: ProviderError: The server had an error")


# ---------------------------------------------------------------- translation on the way


def audio_question() -> list[UserMessage]:
    wav = b"RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00@\x1f\x00\x00" \
          b"\x80>\x00\x00\x02\x00\x10\x00data\x00\x00\x00\x00"
    return [UserMessage([TextBlock(text="What is said here?"),
                         DataBlock(source=Base64Source(wav, media_type="audio/wav"))])]


@pytest.mark.anyio
async def test_a_fallback_that_cannot_take_the_conversation_is_passed_over(
        caplog: pytest.LogCaptureFixture) -> None:
    """Gemini is down; Anthropic takes no audio (refused when its body is built,
    nothing sent); OpenAI answers."""
    caplog.set_level(logging.WARNING, "streamkit.client")
    async with ReplayServer() as server:
        server.add("/v1beta/models/gemini-2.5-flash:generateContent", b"{}", status=503,
                   content_type="application/json")
        server.add(OPENAI_PATH, OPENAI_ANSWER.read_bytes(), content_type="application/json")
        async with Client("gemini:gemini-2.5-flash", base_url=server.url + "/v1beta",
                          environ=KEYS, max_retries=0, fallbacks=[
                              Fallback("anthropic:claude-sonnet-4-5", base_url=server.url + "/v1"),
                              Fallback("openai:gpt-4o", base_url=server.url + "/v1")],
                          ) as chained:
            answer = await chained.create(audio_question())
        paths = [request.path for request in server.requests]
    assert paths == ["/v1beta/models/gemini-2.5-flash:generateContent", OPENAI_PATH]
    assert answer.provider == "openai"
    assert any("fallback anthropic:claude-sonnet-4-5 cannot take this conversation" in
               record.getMessage() for record in caplog.records)


@pytest.mark.anyio
async def test_the_last_refusal_is_raised_with_the_failures_before_it() -> None:
    async with ReplayServer() as server:
        server.add("/v1beta/models/gemini-2.5-flash:generateContent", b"{}", status=503,
                   content_type="application/json")
        async with Client("gemini:gemini-2.5-flash", base_url=server.url + "/v1beta",
                          environ=KEYS, max_retries=0, fallbacks=[
                              Fallback("anthropic:claude-sonnet-4-5", base_url=server.url + "/v1")],
                          ) as chained:
            with pytest.raises(UnsupportedFeatureError) as caught:
                await chained.create(audio_question())
    assert caught.value.wire == "anthropic"
    assert [getattr(e, "status", None) for e in caught.value.fallback_errors] == [503]


@pytest.mark.anyio
async def test_the_clients_own_model_refusing_is_the_callers_error() -> None:
    async with ReplayServer() as server:
        async with Client("anthropic:claude-sonnet-4-5", base_url=server.url + "/v1",
                          environ=KEYS, fallbacks=[
                              Fallback("openai:gpt-4o", base_url=server.url + "/v1")],
                          ) as chained:
            with pytest.raises(UnsupportedFeatureError):
                await chained.create(audio_question())
        assert server.requests == []


@pytest.mark.anyio
async def test_a_lossy_translation_on_a_fallback_warns() -> None:
    """A recorded Anthropic history with a server-side web_fetch call and its
    result: OpenAI Chat cannot hold them, and says so when it is the fallback."""
    recorded = parse_request("anthropic", json.loads(WEB_FETCH_HISTORY.read_text()))
    conversation = Request(messages=recorded.messages, options={"max_tokens": 1024})
    async with ReplayServer() as server:
        server.add(ANTHROPIC_PATH, error_body("overloaded_error", "Overloaded"), status=529,
                   content_type="application/json")
        server.add(OPENAI_PATH, OPENAI_ANSWER.read_bytes(), content_type="application/json")
        async with client(server, "openai:gpt-4o", max_retries=0) as chained:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                answer = await chained.create(conversation)
        body = sent_to(server, OPENAI_PATH)[0]
    assert answer.provider == "openai"
    lossy = [str(w.message) for w in caught if issubclass(w.category, LossyTranslationWarning)]
    assert lossy and all(message.startswith("openai-chat cannot hold") for message in lossy)
    sdk_valid("openai-chat", body)


# ---------------------------------------------------------------- keys


def test_each_fallback_needs_its_key_when_the_client_is_made() -> None:
    with pytest.raises(ProviderConfigError, match="OPENAI_API_KEY"):
        Client("anthropic:claude-sonnet-4-5", environ={"ANTHROPIC_API_KEY": "sk-ant-x"},
               fallbacks=["openai:gpt-4o"])


def test_a_fallbacks_own_key_is_sent_and_never_shown() -> None:
    secret = "sk-own-fallback-key-0123456789"
    with ReplayServer.in_thread() as server:
        server.add(ANTHROPIC_PATH, error_body("api_error", "down"), status=500,
                   content_type="application/json")
        server.add(OPENAI_PATH, OPENAI_ANSWER.read_bytes(), content_type="application/json")
        fallback = Fallback("openai:gpt-4o", api_key=secret, base_url=server.url + "/v1")
        with SyncClient("anthropic:claude-sonnet-4-5", base_url=server.url + "/v1",
                        environ={"ANTHROPIC_API_KEY": KEYS["ANTHROPIC_API_KEY"]},
                        max_retries=0, fallbacks=[fallback]) as chained:
            chained.create([UserMessage("hi")])
            shown = [repr(fallback), repr(chained)]
        requests = list(server.requests)
    assert requests[1].secret_headers["authorization"] == f"Bearer {secret}"
    assert all(secret not in text for text in shown)
    assert "key from api_key= of openai:gpt-4o" in shown[1]


# ---------------------------------------------------------------- telemetry


@pytest.mark.anyio
async def test_each_model_tried_is_a_span_of_its_own() -> None:
    """The model that failed ends its span with the error; the one that answered
    says its response model and the time the call spent before it."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
    from opentelemetry.trace import StatusCode

    from streamkit.observability import observer as observability
    from streamkit.observability.telemetry import ATTEMPTS, TIME_BEFORE_ANSWER

    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    observability.configure(tracer_provider=provider)
    clock = Clock()
    try:
        async with ReplayServer() as server:
            server.add(ANTHROPIC_PATH, error_body("overloaded_error", "Overloaded"), status=529,
                       content_type="application/json")
            server.add(OPENAI_PATH, OPENAI_ANSWER.read_bytes(), content_type="application/json")
            async with client(server, "openai:gpt-4o", max_retries=1,
                              timing=clock.timing()) as chained:
                answer = await chained.create([UserMessage("What is the weather in Paris?")])
    finally:
        observability.configure()
    failed, answered = spans.get_finished_spans()
    assert (failed.name, answered.name) == ("chat claude-sonnet-4-5", "chat gpt-4o")
    assert failed.status.status_code is StatusCode.ERROR
    assert dict(failed.attributes or {})[ATTEMPTS] == 2
    assert answered.status.status_code is not StatusCode.ERROR
    attributes = dict(answered.attributes or {})
    assert attributes[gen_ai.GEN_AI_PROVIDER_NAME] == "openai"
    assert attributes[gen_ai.GEN_AI_RESPONSE_MODEL] == answer.model
    assert answer.timing is not None and answer.timing.attempts == 3
    assert attributes[TIME_BEFORE_ANSWER] == answer.timing.before_answer == sum(clock.sleeps)
