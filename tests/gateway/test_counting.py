"""The gateway's token count endpoints (Anthropic's ``/v1/messages/count_tokens``,
Gemini's ``:countTokens``, OpenAI's ``/v1/responses/input_tokens``), answered
by the upstream's own count across wires or estimated, and a caller's own
headers passed on to an upstream of its wire only.

One gateway under uvicorn for the module, in front of one FakeProvider that
speaks every wire; the callers are the official SDKs.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from support.asgi_server import serving

from streamkit import ChatResponse, TextBlock
from streamkit.gateway import GatewayConfigError, create_app
from streamkit.gateway.config import parse_config
from streamkit.testing import FakeProvider, FakeRequest

anthropic = pytest.importorskip("anthropic")
openai = pytest.importorskip("openai")
genai = pytest.importorskip("google.genai")

CALLER_KEY = "sk-gateway-caller-count-0123456789"
UPSTREAM_KEY = "sk-upstream-count-secret-0123456789"
QUESTION = "What is the weather in Paris today?"

#: Each public model: its upstream, and the path its count reaches there
#: (``None``: an API without a count endpoint, estimated by the gateway).
ROUTES: dict[str, tuple[str, str | None]] = {
    "claude": ("anthropic:claude-up", "/v1/messages/count_tokens"),
    "gem": ("gemini:gem-up", "/v1beta/models/gem-up:countTokens"),
    "resp": ("openai-responses:resp-up", "/v1/responses/input_tokens"),
    "gpt": ("openai:gpt-up", None),
}


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeProvider]:
    with FakeProvider.in_thread(lambda _: ChatResponse(content=[TextBlock("Sunny.")])) as server:
        yield server


def _config(fake: FakeProvider, **gateway: Any) -> Any:
    models = {name: {"model": model} for name, (model, _) in ROUTES.items()}
    providers = {name: {"base_url": fake.base_url(name), "api_key": UPSTREAM_KEY}
                 for name in ("anthropic", "gemini", "openai-responses", "openai")}
    return parse_config({"gateway": {"keys": [CALLER_KEY], **gateway}, "models": models,
                         "providers": providers})


@pytest.fixture(scope="module")
def gateway(fake: FakeProvider) -> Iterator[str]:
    with serving(create_app(_config(fake, forward_headers=["X-Trace-Id"]))) as url:
        yield url


def _sent(fake: FakeProvider, before: int) -> list[FakeRequest]:
    return fake.requests[before:]


@pytest.mark.parametrize("model", sorted(ROUTES))
def test_an_anthropic_callers_count_is_the_upstreams_own_in_anthropics_shape(
        fake: FakeProvider, gateway: str, model: str) -> None:
    caller = anthropic.Anthropic(base_url=gateway, api_key=CALLER_KEY, max_retries=0)
    before = len(fake.requests)
    raw = caller.messages.with_raw_response.count_tokens(
        model=model, system="Be brief.", messages=[{"role": "user", "content": QUESTION}],
        tools=[{"name": "get_weather", "description": "The weather in a city.",
                "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}])
    count = raw.parse()
    _, path = ROUTES[model]
    sent = _sent(fake, before)
    if path is None:  # the upstream's API cannot count: estimated, and the header says how
        assert sent == [] and raw.headers["x-streamkit-token-estimate"] == "characters/4"
        assert count.input_tokens > 0
        return
    assert [request.path for request in sent] == [path]
    assert "x-streamkit-token-estimate" not in raw.headers
    assert count.input_tokens == FakeProvider.count(sent[0].request)
    assert sent[0].raw.secret_headers and CALLER_KEY not in json.dumps(
        sent[0].raw.secret_headers)


def test_gemini_and_openai_callers_count_through_their_sdks(
        fake: FakeProvider, gateway: str) -> None:
    types = genai.types
    gemini = genai.Client(api_key=CALLER_KEY, http_options=types.HttpOptions(
        base_url=gateway, api_version="v1beta"))
    before = len(fake.requests)
    counted = gemini.models.count_tokens(model="claude", contents=QUESTION)
    assert [request.path for request in _sent(fake, before)] == ["/v1/messages/count_tokens"]
    assert counted.total_tokens == FakeProvider.count(fake.requests[-1].request)
    responses = openai.OpenAI(base_url=gateway + "/v1", api_key=CALLER_KEY, max_retries=0)
    before = len(fake.requests)
    answer = responses.responses.input_tokens.count(model="gem", input=QUESTION,
                                                    instructions="Be brief.")
    assert [request.path for request in _sent(fake, before)] == [ROUTES["gem"][1]]
    assert answer.object == "response.input_tokens"
    assert answer.input_tokens == FakeProvider.count(fake.requests[-1].request)


def test_a_count_is_refused_as_the_gateways_other_routes_are(gateway: str) -> None:
    stranger = anthropic.Anthropic(base_url=gateway, api_key="sk-not-a-caller", max_retries=0)
    with pytest.raises(anthropic.AuthenticationError):
        stranger.messages.count_tokens(model="claude", messages=[{"role": "user",
                                                                  "content": "hi"}])
    caller = anthropic.Anthropic(base_url=gateway, api_key=CALLER_KEY, max_retries=0)
    with pytest.raises(anthropic.NotFoundError, match="serves no model 'opus'"):
        caller.messages.count_tokens(model="opus", messages=[{"role": "user", "content": "hi"}])
    with pytest.raises(anthropic.BadRequestError):
        caller.messages.count_tokens(model="claude", messages=[{"role": "robot",
                                                                "content": "hi"}])


# ---------------------------------------------------------------- forwarded headers

HEADERS = {"anthropic-beta": "interleaved-thinking-2025-05-14", "x-trace-id": "trace-1",
           "x-not-listed": "stays"}


@pytest.mark.parametrize(("model", "forwarded"), [
    ("claude", {"anthropic-beta", "x-trace-id"}),  # the same wire: the allowed headers go
    ("gem", set()),  # another wire: none of them
])
def test_a_callers_allowed_headers_reach_a_same_wire_upstream_only(
        fake: FakeProvider, gateway: str, model: str, forwarded: set[str]) -> None:
    caller = anthropic.Anthropic(base_url=gateway, api_key=CALLER_KEY, max_retries=0,
                                 default_headers=HEADERS)
    before = len(fake.requests)
    caller.messages.create(model=model, max_tokens=50,
                           messages=[{"role": "user", "content": "hi"}])
    caller.messages.count_tokens(model=model, messages=[{"role": "user", "content": "hi"}])
    sent = _sent(fake, before)
    assert len(sent) == 2
    for request in sent:
        assert {name for name in HEADERS if name in request.headers} == forwarded
        assert all(request.headers[name] == HEADERS[name] for name in forwarded)
        keys = request.raw.secret_headers
        assert list(keys.values()) == [UPSTREAM_KEY]  # the gateway's key, never the caller's


def test_the_caller_s_anthropic_version_is_the_one_the_upstream_body_is_written_for(
        fake: FakeProvider, gateway: str) -> None:
    """A caller (Claude Code) sends anthropic-version 2023-06-01 with a
    temperature; the registry's version (2026-10-21) refuses one, the caller's takes it."""
    caller = anthropic.Anthropic(base_url=gateway, api_key=CALLER_KEY, max_retries=0,
                                 default_headers={"anthropic-version": "2023-06-01"})
    before = len(fake.requests)
    caller.messages.create(model="claude", max_tokens=50, extra_body={"temperature": 0.2},
                           messages=[{"role": "user", "content": "hi"}])
    (sent,) = _sent(fake, before)
    assert sent.headers["anthropic-version"] == "2023-06-01"
    assert json.loads(sent.raw.body)["temperature"] == 0.2


@pytest.mark.parametrize("name", ["X-Api-Key", "authorization", "Cookie"])
def test_the_config_cannot_forward_a_key(fake: FakeProvider, name: str) -> None:
    with pytest.raises(GatewayConfigError, match="never forwarded"):
        _config(fake, forward_headers=[name])
