"""client.count_tokens(): each provider's own count endpoint, with the client's
usual steps (key, retries, typed errors), and an estimate said as one where the
API has no endpoint. Over one FakeProvider (every wire) and a ReplayServer for
the answers a real API could give that the fake never does."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from streamkit import (
    Client,
    ProtocolError,
    ProviderError,
    SyncClient,
    SystemMessage,
    TokenCount,
    UserMessage,
    tool,
)
from streamkit.client.retry import Timing
from streamkit.testing import FakeProvider, ReplayServer, Reply, ThreadedReplayServer

pytestmark = pytest.mark.anyio


async def _no_wait(seconds: float) -> None:
    """A retry's backoff, taking no time."""

KEY = "sk-count-secret-0123456789"


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return "sunny"


CONVERSATION = [SystemMessage("Be brief."), UserMessage("What is the weather in Paris today?")]

#: Each provider: the path its count goes to (``None``: no endpoint, estimated).
COUNT_PATHS: dict[str, str | None] = {
    "anthropic": "/v1/messages/count_tokens",
    "gemini": "/v1beta/models/m1:countTokens",
    "vertex": "/v1beta/models/m1:countTokens",
    "openai-responses": "/v1/responses/input_tokens",
    "openai": None,
    "ollama": None,
}

#: Fields only generation takes, which no count body may hold.
GENERATION_ONLY = ("max_tokens", "max_output_tokens", "stream", "temperature")


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeProvider]:
    with FakeProvider.in_thread([]) as server:
        yield server


@pytest.fixture(scope="module")
def answers() -> Iterator[ThreadedReplayServer]:
    with ReplayServer().in_thread() as server:
        yield server


def _client(fake: FakeProvider, provider: str, cls: Any = Client, **options: Any) -> Any:
    environ = {"GOOGLE_CLOUD_LOCATION": "here", "GOOGLE_CLOUD_PROJECT": "p"}
    return cls(f"{provider}:m1", api_key=KEY, base_url=fake.base_url(provider),
               environ=environ, **options)


@pytest.mark.parametrize("provider", sorted(COUNT_PATHS))
async def test_each_wire_counts_at_its_endpoint_or_says_it_estimates(
        fake: FakeProvider, provider: str) -> None:
    before = len(fake.requests)
    async with _client(fake, provider) as client:
        count = await client.count_tokens(CONVERSATION, tools=[get_weather], max_tokens=100)
    path = COUNT_PATHS[provider]
    sent = fake.requests[before:]
    if path is None:  # no request: an estimate, said as one
        assert sent == []
        assert count == TokenCount(count.input_tokens, estimated=True, method="characters/4",
                                   provider=provider)
        assert count.input_tokens > 0
        return
    assert [request.path for request in sent] == [path]
    assert sent[0].error is None and sent[0].request is not None
    assert sent[0].raw.secret_headers  # the client's key went with it
    body = json.loads(sent[0].raw.body)
    wrapped = body.get("generateContentRequest", body)
    assert not set(GENERATION_ONLY) & set(wrapped), wrapped
    assert count == TokenCount(FakeProvider.count(sent[0].request), provider=provider)
    assert [tool.name for tool in sent[0].request.tools or []] == ["get_weather"]


def test_the_sync_client_counts_too_and_for_another_model(fake: FakeProvider) -> None:
    before = len(fake.requests)
    with _client(fake, "gemini", SyncClient) as client:
        count = client.count_tokens(CONVERSATION, model="gemini-other")
    assert [request.path for request in fake.requests[before:]] == [
        "/v1beta/models/gemini-other:countTokens"]
    assert count.input_tokens == FakeProvider.count(fake.requests[-1].request)
    assert not count.estimated


@pytest.mark.parametrize(("answer", "said"), [
    (b'{"tokens": 3}', "input_tokens"),
    (b'{"input_tokens": -1}', "non-negative"),
    (b'{"input_tokens": "3"}', "'3'"),
    (b"<html>busy</html>", "not JSON"),
])
async def test_an_answer_without_a_count_is_a_protocol_error_naming_it(
        answers: ThreadedReplayServer, answer: bytes, said: str) -> None:
    answers.add("/v1/messages/count_tokens", answer, content_type="application/json")
    async with Client("anthropic:m1", api_key=KEY, base_url=answers.url + "/v1") as client:
        with pytest.raises(ProtocolError, match=said) as raised:
            await client.count_tokens(CONVERSATION)
    assert KEY not in str(raised.value)


async def test_a_count_is_retried_as_any_call_and_its_errors_are_the_providers(
        answers: ThreadedReplayServer) -> None:
    overloaded = Reply(b'{"type":"error","error":{"type":"overloaded_error","message":"busy"}}',
                       status=529, content_type="application/json")
    answers.add_sequence("/v1/messages/count_tokens", [
        overloaded, Reply(b'{"input_tokens": 7}', content_type="application/json"),
        Reply(b'{"type":"error","error":{"type":"authentication_error","message":"bad key"}}',
              status=401, content_type="application/json")])
    async with Client("anthropic:m1", api_key=KEY, base_url=answers.url + "/v1",
                      max_retries=1, timing=Timing(sleep=_no_wait)) as client:
        assert await client.count_tokens(CONVERSATION) == TokenCount(7, provider="anthropic")
        with pytest.raises(ProviderError, match="bad key") as raised:
            await client.count_tokens(CONVERSATION)
    assert raised.value.status == 401
