"""The gateway (streamkit.gateway): config, keys, errors, disconnects, logs.

The gateway runs under uvicorn on a real socket (``asgi_server.serving``); its
upstream is a :class:`~streamkit.testing.ReplayServer` serving real
recordings; its callers are the official SDKs, unchanged but for their base
URL and key. The every-client x every-upstream matrix is
``test_matrix.py``.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient
from support.asgi_server import serving
from support.gateway_command import gateway_command
from support.recordings import FIXTURES

from streamkit import UnsupportedFeatureError, encode_response, replay
from streamkit.client.keys import ApiKey
from streamkit.gateway import GatewayConfigError, create_app, load_config
from streamkit.gateway.callers import caller_key, is_allowed
from streamkit.gateway.config import parse_config
from streamkit.testing import ReplayServer, Reply, ThreadedReplayServer

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")

CALLER_KEY = "sk-gateway-caller-0123456789"
UPSTREAM_KEY = "sk-ant-upstream-secret-0123456789"


def _config(upstream_url: str, **gateway: Any) -> Any:
    return parse_config({
        "gateway": {"keys": [CALLER_KEY], **gateway},
        "models": {"fast": {"model": "anthropic:claude-upstream"}},
        "providers": {"anthropic": {"base_url": upstream_url + "/v1", "api_key": UPSTREAM_KEY}},
    })


@pytest.fixture
def upstream() -> Iterator[ThreadedReplayServer]:
    with ReplayServer().in_thread() as server:
        yield server


@pytest.fixture
def gateway(upstream: ThreadedReplayServer) -> Iterator[str]:
    with serving(create_app(_config(upstream.url))) as url:
        yield url


def _openai(url: str, key: str = CALLER_KEY) -> Any:
    return openai.OpenAI(base_url=url + "/v1", api_key=key, max_retries=0)


def _ask(url: str, **options: Any) -> Any:
    return _openai(url).chat.completions.create(
        model="fast", messages=[{"role": "user", "content": "hi"}], **options)


# ---------------------------------------------------------------- config


def test_a_config_file_is_read_with_keys_from_the_environment(tmp_path: Path) -> None:
    path = tmp_path / "gateway.toml"
    path.write_text('[gateway]\nkeys_env = "GW_KEYS"\n'
                    '[models.fast]\nmodel = "openai:gpt-4o-mini"\n'
                    'fallbacks = ["anthropic:claude-haiku-4-5"]\n'
                    '[providers.claude]\nbase_url = "http://127.0.0.1:1/v1"\n'
                    'api_key_env = "UP_KEY"\n')
    config = load_config(path, environ={"GW_KEYS": "a-key, b-key", "UP_KEY": "up-secret"})
    assert [key.reveal() for key in config.keys] == ["a-key", "b-key"]
    assert config.models["fast"].fallbacks == ("anthropic:claude-haiku-4-5",)
    upstream = config.upstream("anthropic:claude-haiku-4-5")  # "claude" is an alias
    assert upstream.base_url == "http://127.0.0.1:1/v1"
    assert upstream.api_key is not None and upstream.api_key.reveal() == "up-secret"
    assert "up-secret" not in repr(config) and "a-key" not in repr(config)


@pytest.mark.parametrize(("data", "named"), [
    ({"models": {"m": {"model": "openai:x"}}}, "no caller keys"),
    ({"gateway": {"keys": ["k"]}}, "serves no model"),
    ({"gateway": {"keys": ["k"]}, "models": {"m": {"model": "gpt-4o"}}}, "'provider:model'"),
    ({"gateway": {"keys": ["k"]}, "models": {"m": {"model": "nope:x"}}}, "nope"),
    ({"gateway": {"keys": ["k"]},
      "models": {"m": {"model": "openai:x", "fallbacks": ["antropic:y"]}}},
     r"\[models\.m\] 'antropic:y': no provider is called 'antropic' "
     r"\(did you mean 'anthropic'\?\)"),
    ({"gateway": {"keys": ["k"], "port": 1}, "models": {"m": {"model": "openai:x"}}}, "'port'"),
    ({"gateway": {"keys_env": "UNSET_VAR"}, "models": {"m": {"model": "openai:x"}}},
     "UNSET_VAR"),
    ({"gateway": {"keys": ["k"]}, "models": {"m": {"model": "openai:x"}},
      "providers": {"openai": {"api_key_env": "UNSET_VAR"}}}, "UNSET_VAR"),
])
def test_a_config_mistake_is_refused_naming_it(data: dict[str, Any], named: str) -> None:
    with pytest.raises(GatewayConfigError, match=named):
        parse_config(data, environ={})


def test_an_open_gateway_needs_no_keys() -> None:
    config = parse_config({"gateway": {"open": True}, "models": {"m": {"model": "openai:x"}}})
    assert config.open and config.keys == ()


# ---------------------------------------------------------------- callers' keys


@pytest.mark.parametrize(("headers", "query"), [
    ({"authorization": f"Bearer {CALLER_KEY}"}, ""),
    ({"x-api-key": CALLER_KEY}, ""),
    ({"x-goog-api-key": CALLER_KEY}, ""),
    ({}, f"alt=sse&key={CALLER_KEY}"),
])
def test_the_key_is_found_wherever_an_sdk_sends_it(headers: dict[str, str], query: str) -> None:
    presented = caller_key(headers, query)
    assert presented == CALLER_KEY
    assert is_allowed(presented, [ApiKey("other", "x"), ApiKey(CALLER_KEY, "y")])
    assert not is_allowed(presented + "x", [ApiKey(CALLER_KEY, "y")])
    assert not is_allowed(None, [ApiKey(CALLER_KEY, "y")])


def test_a_wrong_key_is_the_callers_own_401(gateway: str, upstream: Any) -> None:
    with pytest.raises(openai.AuthenticationError):
        _openai(gateway, key="wrong").chat.completions.create(
            model="fast", messages=[{"role": "user", "content": "hi"}])
    client = anthropic.Anthropic(base_url=gateway, api_key="wrong", max_retries=0)
    with pytest.raises(anthropic.AuthenticationError):
        client.messages.create(model="fast", max_tokens=5,
                               messages=[{"role": "user", "content": "hi"}])
    assert upstream.requests == []  # refused before any upstream call


# ---------------------------------------------------------------- answers


def test_an_openai_caller_streams_from_an_anthropic_upstream(gateway: str, upstream: Any) -> None:
    upstream.add_file("/v1/messages", FIXTURES / "anthropic" / "tool-use.sse")
    with _openai(gateway).chat.completions.stream(
            model="fast", messages=[{"role": "user", "content": "weather?"}],
            stream_options={"include_usage": True}) as stream:
        final = stream.get_final_completion()
    message = final.choices[0].message
    assert message.content == "I'll check the current weather in Paris for you."
    assert [(call.id, call.function.name, json.loads(call.function.arguments))
            for call in message.tool_calls] == \
        [("toolu_01NRLabsLyVHZPKxbKvkfSMn", "get_weather", {"location": "Paris"})]
    assert final.choices[0].finish_reason == "tool_calls"
    assert (final.usage.prompt_tokens, final.usage.completion_tokens) == (377, 65)
    sent = upstream.requests[-1]
    assert sent.json()["model"] == "claude-upstream" and sent.json()["stream"] is True
    assert sent.headers["x-api-key"] != CALLER_KEY  # the upstream gets its own key


def test_a_non_streamed_call_is_the_callers_body(gateway: str, upstream: Any) -> None:
    _, answer = replay((FIXTURES / "anthropic" / "text-basic.sse").read_bytes(), "anthropic")
    upstream.add("/v1/messages", json.dumps(encode_response("anthropic", answer)).encode(),
                 content_type="application/json")
    completion = _ask(gateway)
    assert completion.object == "chat.completion"
    assert completion.choices[0].message.content == answer.text
    assert not upstream.requests[-1].json().get("stream", False)


def test_the_models_and_health_endpoints(gateway: str) -> None:
    assert [model.id for model in _openai(gateway).models.list()] == ["fast"]
    assert httpx.get(gateway + "/health").json() == {"status": "ok", "models": 1}


def test_an_unknown_model_or_path_is_a_404_naming_it(gateway: str) -> None:
    with pytest.raises(openai.NotFoundError, match="serves no model 'slow'"):
        _openai(gateway).chat.completions.create(
            model="slow", messages=[{"role": "user", "content": "hi"}])
    answer = httpx.post(gateway + "/v1/embeddings", json={},
                        headers={"authorization": f"Bearer {CALLER_KEY}"})
    assert answer.status_code == 404 and "/v1/embeddings" in answer.json()["error"]["message"]


def test_a_body_that_is_not_the_callers_wire_is_its_400(gateway: str) -> None:
    answer = httpx.post(gateway + "/v1/messages", content=b"{not json",
                        headers={"x-api-key": CALLER_KEY})
    assert answer.status_code == 400
    assert answer.json()["type"] == "error"
    assert answer.json()["error"]["type"] == "invalid_request_error"


def test_a_body_over_the_limit_is_refused(upstream: Any) -> None:
    with (serving(create_app(_config(upstream.url, max_body_bytes=1000))) as url,
          pytest.raises(openai.APIStatusError) as error):
        _openai(url).chat.completions.create(
            model="fast", messages=[{"role": "user", "content": "x" * 2000}])
    assert error.value.status_code == 413
    assert upstream.requests == []


# ---------------------------------------------------------------- upstream failures


def test_an_upstream_error_before_the_stream_is_the_callers_error_with_its_status(
        gateway: str, upstream: Any) -> None:
    body = {"type": "error", "error": {"type": "overloaded_error",
                                       "message": f"Overloaded (key {UPSTREAM_KEY})"}}
    upstream.add("/v1/messages", json.dumps(body).encode(), status=529,
                 content_type="application/json")
    with pytest.raises(openai.InternalServerError) as error:
        _ask(gateway, stream=True)
    assert error.value.status_code == 529
    assert "Overloaded" in str(error.value.body)
    assert UPSTREAM_KEY not in error.value.response.text  # echoed upstream, never passed on


def test_an_upstream_that_never_answers_is_a_502(upstream: Any) -> None:
    config = parse_config({
        "gateway": {"keys": [CALLER_KEY]},
        "models": {"fast": {"model": "anthropic:claude-upstream"}},
        "providers": {"anthropic": {"base_url": "http://127.0.0.1:9/v1", "api_key": "k"}},
    })
    with serving(create_app(config)) as url, pytest.raises(openai.APIStatusError) as error:
        _ask(url)
    assert error.value.status_code == 502


def test_an_upstream_error_mid_stream_ends_the_callers_stream_with_its_error_event(
        gateway: str, upstream: Any) -> None:
    upstream.add_file("/v1/messages", FIXTURES / "edge" / "anthropic-overloaded-midstream.sse")
    received: list[str] = []
    with pytest.raises(openai.APIError, match="Overloaded"):
        for chunk in _ask(gateway, stream=True):
            received += [choice.delta.content or "" for choice in chunk.choices]
    assert "".join(received)  # the partial came first


def test_the_caller_going_away_closes_the_upstream_stream(gateway: str, upstream: Any) -> None:
    events = b"".join(
        b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
        b'"delta":{"type":"text_delta","text":"word "}}\n\n' for _ in range(200))
    recording = (FIXTURES / "anthropic" / "text-basic.sse").read_bytes()
    start = recording.split(b"event: content_block_delta")[0]
    upstream.add("/v1/messages", start + events, chunk_size=90, delay=0.05)
    with httpx.stream("POST", gateway + "/v1/chat/completions",
                      json={"model": "fast", "stream": True,
                            "messages": [{"role": "user", "content": "hi"}]},
                      headers={"authorization": f"Bearer {CALLER_KEY}"}) as answer:
        lines = answer.iter_lines()
        assert next(lines).startswith("data: ")
    began = time.monotonic()
    assert upstream.wait_disconnect(timeout=5)
    assert time.monotonic() - began < 5


def test_create_app_without_its_lifespan_leaves_no_upstream_connection_open(
        upstream: Any) -> None:
    """The gateway page's usage (``httpx.ASGITransport`` runs no lifespan), and
    ``TestClient`` without ``with`` (each call in a new event loop): every call
    answers, and nothing is left for the garbage collector to warn about."""
    _, answer = replay((FIXTURES / "anthropic" / "text-basic.sse").read_bytes(), "anthropic")
    streamed = Reply.file(FIXTURES / "anthropic" / "tool-use.sse")
    upstream.add_sequence("/v1/messages", [
        streamed, Reply(json.dumps(encode_response("anthropic", answer)).encode(),
                        content_type="application/json"), streamed, streamed])
    headers = {"authorization": f"Bearer {CALLER_KEY}"}
    body = {"model": "fast", "messages": [{"role": "user", "content": "hi"}]}

    async def through_asgi_transport() -> list[int]:
        app = create_app(_config(upstream.url))
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app),
                                     base_url="http://gateway") as http:
            return [(await http.post("/v1/chat/completions", json={**body, "stream": stream},
                                     headers=headers)).status_code for stream in (True, False)]

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        statuses = asyncio.run(through_asgi_transport())
        test_client = TestClient(create_app(_config(upstream.url)))
        statuses += [test_client.post("/v1/chat/completions", json={**body, "stream": True},
                                      headers=headers).status_code for _ in range(2)]
        del test_client
        gc.collect()
    assert statuses == [200, 200, 200, 200]
    assert [str(warning.message) for warning in caught] == []


# ---------------------------------------------------------------- the log line


def _log_line(caplog: pytest.LogCaptureFixture) -> dict[str, Any]:
    """The one request's log line, once the gateway's thread has written it
    (after the last byte, so a moment after the client has read it)."""
    deadline = time.monotonic() + 5
    while True:
        lines = [r for r in caplog.records if r.name == "streamkit.gateway"]
        if lines:
            (record,) = lines
            line: dict[str, Any] = json.loads(record.getMessage())
            return line
        assert time.monotonic() < deadline, "no log line"
        time.sleep(0.02)


def test_one_log_line_per_request_says_what_happened(
        gateway: str, upstream: Any, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="streamkit.gateway")
    upstream.add_file("/v1/messages", FIXTURES / "anthropic" / "tool-use.sse")
    with _openai(gateway).chat.completions.stream(
            model="fast", messages=[{"role": "user", "content": "hi"}]) as stream:
        stream.get_final_completion()
    line = _log_line(caplog)
    assert line["wire"] == "openai-chat" and line["model"] == "fast"
    assert line["upstream"] == "anthropic:claude-sonnet-4-20250514"
    assert (line["status"], line["input_tokens"], line["output_tokens"]) == (200, 377, 65)
    assert 0 <= line["ttfb_ms"] <= line["duration_ms"]
    assert UPSTREAM_KEY not in caplog.text and CALLER_KEY not in caplog.text


def test_what_a_translation_drops_is_a_field_of_the_log_line_not_a_warning(
        gateway: str, upstream: Any, caplog: pytest.LogCaptureFixture) -> None:
    """Python's warnings are process-wide, multi-line text, shown once per
    place: the gateway keeps each call's losses for that call's JSON line."""
    caplog.set_level(logging.INFO, logger="streamkit.gateway")
    upstream.add_file("/v1/messages", FIXTURES / "anthropic" / "tool-use.sse")
    with warnings.catch_warnings(record=True) as issued:
        warnings.simplefilter("always")
        with _openai(gateway).chat.completions.stream(
                model="fast", messages=[{"role": "user", "content": "hi"}],
                presence_penalty=0.5) as stream:  # Anthropic has no presence penalty
            stream.get_final_completion()
        line = _log_line(caplog)
    assert line["status"] == 200
    assert line["warnings"] == ["anthropic cannot hold openai-chat's option(s) presence_penalty: "
                                "they are openai-chat's own fields; dropped"]
    assert [str(warning.message) for warning in issued] == []


def test_a_missing_upstream_key_names_the_setting_of_the_config_file(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Not the client's Python argument (``api_key=``): the file's key or the variable."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    config = parse_config({"gateway": {"open": True},
                           "models": {"fast": {"model": "openai:gpt-4o-mini",
                                               "fallbacks": ["anthropic:claude-haiku-4-5"]}},
                           "providers": {"openai": {"api_key": "sk-upstream-0123456789"}}})
    with pytest.raises(GatewayConfigError) as raised:
        create_app(config)
    assert str(raised.value) == (
        "[models.fast]: no API key for Anthropic: set ANTHROPIC_API_KEY in the environment, "
        "or api_key_env (or api_key) in [providers.anthropic]")


# ---------------------------------------------------------------- the command


def test_the_command_refuses_a_bad_config_naming_the_mistake(tmp_path: Path) -> None:
    path = tmp_path / "gateway.toml"
    path.write_text('[gateway]\nkeys = ["k"]\n[models.m]\nmodel = "gpt-4o"\n')
    done = subprocess.run([sys.executable, "-m", "streamkit", "gateway", "--config", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "'provider:model'" in done.stderr


def test_the_command_serves_the_config_with_two_workers(
        tmp_path: Path, upstream: Any) -> None:
    upstream.add_file("/v1/messages", FIXTURES / "anthropic" / "text-basic.sse")
    path = tmp_path / "gateway.toml"
    path.write_text(f'[gateway]\nkeys = ["{CALLER_KEY}"]\n'
                    '[models.fast]\nmodel = "anthropic:claude-upstream"\n'
                    f'[providers.anthropic]\nbase_url = "{upstream.url}/v1"\napi_key = "k"\n')
    with gateway_command(path, "--workers", "2") as running:
        assert "".join(choice.delta.content or "" for chunk in _ask(running.url, stream=True)
                       for choice in chunk.choices)
    output = running.output
    assert output.count("Started server process") == 2
    assert '"status": 200' in output  # the request's log line


def test_an_answer_the_callers_wire_cannot_say_is_its_error(
        upstream: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two choices from an OpenAI upstream to an Anthropic caller: the stream
    ends with Anthropic's error event naming the refusal; a body the caller's
    wire refuses is its 502."""
    config = parse_config({
        "gateway": {"keys": [CALLER_KEY]},
        "models": {"two": {"model": "openai:gpt-upstream"}},
        "providers": {"openai": {"base_url": upstream.url + "/v1", "api_key": UPSTREAM_KEY}},
    })
    recording = FIXTURES / "edge" / "openai-chat-n2-choices.sse"
    upstream.add_file("/v1/chat/completions", recording)
    with serving(create_app(config)) as url:
        client = anthropic.Anthropic(base_url=url, api_key=CALLER_KEY, max_retries=0)
        with pytest.raises(anthropic.APIStatusError, match="choice 1"), client.messages.stream(
                model="two", max_tokens=64, messages=[{"role": "user", "content": "hi"}]) as s:
            s.get_final_message()
        _, answer = replay(recording.read_bytes(), "openai")
        upstream.add("/v1/chat/completions",
                     json.dumps(encode_response("openai", answer)).encode(),
                     content_type="application/json")

        def refuse(provider: str, response: Any) -> Any:
            raise UnsupportedFeatureError(provider, "this answer", "a test's refusal")

        monkeypatch.setattr("streamkit.gateway.app.encode_response", refuse)
        with pytest.raises(anthropic.APIStatusError, match="this answer") as error:
            client.messages.create(model="two", max_tokens=64,
                                   messages=[{"role": "user", "content": "hi"}])
    assert error.value.status_code == 502


def test_a_model_falls_back_to_the_next_upstream_before_the_first_byte(
        upstream: Any, caplog: pytest.LogCaptureFixture) -> None:
    """Anthropic overloaded (529): the public model's fallback, an OpenAI
    model, answers, and the log line names the upstream that did."""
    caplog.set_level(logging.INFO, logger="streamkit.gateway")
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    upstream.add("/v1/messages", json.dumps(overloaded).encode(), status=529,
                 content_type="application/json")
    upstream.add_file("/v1/chat/completions",
                      FIXTURES / "openai-chat" / "text-with-usage-chunk.sse")
    config = parse_config({
        "gateway": {"keys": [CALLER_KEY]},
        "models": {"fast": {"model": "anthropic:claude-upstream",
                            "fallbacks": ["openai:gpt-fallback"]}},
        "providers": {"anthropic": {"base_url": upstream.url + "/v1", "api_key": UPSTREAM_KEY},
                      "openai": {"base_url": upstream.url + "/v1", "api_key": "sk-openai-up"}},
    })
    with serving(create_app(config)) as url:
        client = anthropic.Anthropic(base_url=url, api_key=CALLER_KEY, max_retries=0)
        with client.messages.stream(model="fast", max_tokens=64,
                                    messages=[{"role": "user", "content": "hi"}]) as stream:
            final = stream.get_final_message()
    assert "".join(block.text for block in final.content if block.type == "text")
    paths = [request.path for request in upstream.requests]
    assert paths[0] == "/v1/messages" and paths[-1] == "/v1/chat/completions"
    assert upstream.requests[-1].json()["model"] == "gpt-fallback"
    line = _log_line(caplog)
    assert line["upstream"].startswith("openai:") and line["status"] == 200


@pytest.mark.parametrize(("body", "says"), [
    (b"[" * 100_000, "nests 100000 levels deep"),
    (b'{"model": "fast", "messages": ' + b"[" * 500 + b"]" * 500 + b"}", "nests 501 levels deep"),
    (b'{"model": "fast", "messages": [', "not JSON"),
    (b'"a string"', "a JSON object"),
])
def test_a_hostile_body_is_the_callers_400_naming_what_is_wrong(
        gateway: str, upstream: Any, body: bytes, says: str) -> None:
    for path, headers in [("/v1/chat/completions", {"authorization": f"Bearer {CALLER_KEY}"}),
                          ("/v1/messages", {"x-api-key": CALLER_KEY}),
                          ("/api/chat", {"authorization": f"Bearer {CALLER_KEY}"})]:
        answer = httpx.post(gateway + path, content=body, headers=headers)
        assert answer.status_code == 400 and says in answer.text, path
    assert upstream.requests == []


def test_a_lone_surrogate_in_a_message_reaches_the_upstream_as_its_escape(
        gateway: str, upstream: Any) -> None:
    upstream.add_file("/v1/messages", FIXTURES / "anthropic" / "text-basic.sse")
    body = (b'{"model": "fast", "stream": true, "messages": '
            b'[{"role": "user", "content": "half a pair: \\ud800"}]}')
    answer = httpx.post(gateway + "/v1/chat/completions", content=body,
                        headers={"authorization": f"Bearer {CALLER_KEY}"})
    assert answer.status_code == 200 and "data: [DONE]" in answer.text
    sent = upstream.requests[-1].body
    assert b"half a pair: \\ud800" in sent
    assert upstream.requests[-1].json()["messages"][0]["content"] == "half a pair: \ud800"
