"""The gateway's edge settings (streamkit.gateway.config): mistakes refused at
start, timeouts in the file; and a caller's option that is the gateway's to
set refused as the caller's own 400."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from support.asgi_server import serving

from streamkit.gateway import GatewayConfigError, create_app
from streamkit.gateway.config import CallerLimits, parse_config
from streamkit.testing import ReplayServer

MODELS = {"m": {"model": "openai:x"}}


@pytest.mark.parametrize(("gateway", "environ", "named"), [
    ({"open": True, "keys": ["sk-a-key-0123"]}, {}, r"open = true .* keys / keys_env"),
    ({"open": True, "keys_env": "GW"}, {"GW": "sk-a-key-0123"}, r"open = true .* keys / keys_env"),
    ({"keys": ["  "]}, {}, r"\[gateway\] keys \(key 1\): a key is blank"),
    ({"keys": ["ok-key", ""]}, {}, r"\[gateway\] keys \(key 2\): a key is blank"),
    ({"keys": ["has a space"]}, {}, "holds a space"),
    ({"keys_env": "GW"}, {"GW": "a-key,,b-key"}, r"keys_env \$GW \(key 2\): a key is blank"),
    ({"keys_env": "GW"}, {"GW": "   "}, "'GW', which is not set"),
    ({"keys": ["k"], "max_connections": 0}, {}, "max_connections must be a positive integer"),
    ({"keys": ["k"], "max_connections_per_client": -1}, {}, "max_connections_per_client"),
])
def test_an_edge_mistake_is_refused_at_start_naming_the_settings(
        gateway: dict[str, Any], environ: dict[str, str], named: str) -> None:
    with pytest.raises(GatewayConfigError, match=named) as raised:
        parse_config({"gateway": gateway, "models": MODELS}, environ=environ)
    assert "sk-a-key-0123" not in str(raised.value)


def test_a_blank_upstream_key_is_refused_naming_its_table() -> None:
    for table, environ in (({"api_key": " "}, {}), ({"api_key_env": "UP"}, {"UP": "  "})):
        with pytest.raises(GatewayConfigError, match=r"\[providers\.openai\] api_key"):
            parse_config({"gateway": {"keys": ["k"]}, "models": MODELS,
                          "providers": {"openai": table}}, environ=environ)


def test_timeouts_and_caps_are_read_from_the_file_with_safe_defaults() -> None:
    default = parse_config({"gateway": {"keys": ["k"]}, "models": MODELS})
    assert default.limits == CallerLimits()
    assert (default.upstream_timeouts.connect, default.upstream_timeouts.read,
            default.upstream_timeouts.total) == (10.0, 600.0, 3600.0)
    config = parse_config({
        "gateway": {"keys": ["k"], "max_connections": 100, "max_connections_per_client": 0},
        "timeouts": {"caller_headers": 2, "caller_body": 30, "caller_idle": 1.5,
                     "keep_alive": 3, "upstream_connect": 1, "upstream_read": 20,
                     "upstream_total": 60},
        "models": MODELS})
    assert config.limits == CallerLimits(headers=2, body=30, idle=1.5, keep_alive=3,
                                         connections=100, per_client=0)
    assert (config.upstream_timeouts.connect, config.upstream_timeouts.read,
            config.upstream_timeouts.total) == (1.0, 20.0, 60.0)
    for bad in ({"caller_body": 0}, {"upstream_read": "10"}, {"caller_idle": True},
                {"upstream_write": 5}):
        with pytest.raises(GatewayConfigError, match=r"\[timeouts\]"):
            parse_config({"gateway": {"keys": ["k"]}, "timeouts": bad, "models": MODELS})


def test_an_upstream_that_stays_silent_past_the_files_read_timeout_is_a_502() -> None:
    with ReplayServer().in_thread() as upstream:
        upstream.add("/v1/chat/completions", b"data: {}\n\n", delay=3)  # silent for 3 s
        config = parse_config({
            "gateway": {"keys": ["sk-edge-caller-0123"]},
            "timeouts": {"upstream_read": 0.3},
            "models": {"fast": {"model": "openai:gpt-upstream"}},
            "providers": {"openai": {"base_url": upstream.url + "/v1", "api_key": "k"}}})
        with serving(create_app(config)) as url:
            answer = httpx.post(url + "/v1/chat/completions", timeout=10, json={
                "model": "fast", "messages": [{"role": "user", "content": "hi"}]},
                headers={"authorization": "Bearer sk-edge-caller-0123"})
    assert answer.status_code == 502


@pytest.fixture(scope="module")
def versioned_gateway() -> Iterator[tuple[str, Any]]:
    """A gateway whose Anthropic upstream's version header is its settings'."""
    with ReplayServer().in_thread() as upstream:
        config = parse_config({
            "gateway": {"keys": ["sk-edge-caller-0123"]},
            "models": {"fast": {"model": "anthropic:claude-upstream"}},
            "providers": {"anthropic": {"base_url": upstream.url + "/v1", "api_key": "k",
                                        "headers": {"anthropic-version": "2023-06-01"}}}})
        with serving(create_app(config)) as url:
            yield url, upstream


@pytest.mark.parametrize(("path", "headers", "body"), [
    ("/v1/chat/completions", {"authorization": "Bearer sk-edge-caller-0123"},
     {"model": "fast", "messages": [{"role": "user", "content": "hi"}]}),
    ("/v1/messages", {"x-api-key": "sk-edge-caller-0123"},
     {"model": "fast", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}),
    ("/api/chat", {"authorization": "Bearer sk-edge-caller-0123"},
     {"model": "fast", "stream": False, "messages": [{"role": "user", "content": "hi"}]}),
])
def test_a_callers_api_version_is_its_own_400_naming_it_not_the_gateways_settings(
        versioned_gateway: tuple[str, Any], path: str, headers: dict[str, str],
        body: dict[str, Any]) -> None:
    """Through an Anthropic upstream whose version header the gateway sets, a
    caller's ``api_version`` was a 502 quoting that header and its value."""
    url, upstream = versioned_gateway
    answer = httpx.post(url + path, json={**body, "api_version": "2020-01-01"}, headers=headers)
    assert upstream.requests == []
    assert answer.status_code == 400
    assert "api_version" in answer.text
    assert "anthropic-version" not in answer.text and "2023-06-01" not in answer.text
