"""The gateway and the prompt cache: a model configured ``cache = "auto"``
gets breakpoints where its caller placed none, a caller's own breakpoints
(Claude Code's) reach an Anthropic upstream untouched, and the log line counts
the cache's reads and writes. One upstream and one gateway for the module."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from typing import Any

import pytest
from support.asgi_server import serving
from support.recordings import FIXTURES

from streamkit.gateway import GatewayConfigError, create_app
from streamkit.gateway.config import parse_config
from streamkit.testing import ReplayServer, ThreadedReplayServer

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")

KEY = "sk-gateway-caller-cache-0123"
EPHEMERAL = {"type": "ephemeral"}


@pytest.fixture(scope="module")
def upstream() -> Iterator[ThreadedReplayServer]:
    with ReplayServer().in_thread() as server:
        # usage: 120 in, 900 read from the cache, 30 written to it
        server.add_file("/v1/messages",
                        FIXTURES / "edge" / "anthropic-interleaved-tools-unknown.sse")
        yield server


@pytest.fixture(scope="module")
def gateway(upstream: ThreadedReplayServer) -> Iterator[str]:
    config = parse_config({
        "gateway": {"keys": [KEY]},
        "models": {"cached": {"model": "anthropic:claude-upstream", "cache": "auto"},
                   "plain": {"model": "anthropic:claude-upstream"}},
        "providers": {"anthropic": {"base_url": upstream.url + "/v1", "api_key": "sk-ant-x"}},
    })
    with serving(create_app(config)) as url:
        yield url


def _sent(upstream: ThreadedReplayServer) -> dict[str, Any]:
    body: dict[str, Any] = upstream.requests[-1].json()
    return body


def _marked(body: dict[str, Any]) -> list[str]:
    places = [f"tools[{n}]" for n, tool in enumerate(body.get("tools", []))
              if "cache_control" in tool]
    system = body.get("system")
    places += [f"system[{n}]" for n, part in enumerate(system if isinstance(system, list) else [])
               if "cache_control" in part]
    for number, message in enumerate(body["messages"]):
        content = message["content"]
        places += [f"messages[{number}].content[{n}]"
                   for n, part in enumerate(content if isinstance(content, list) else [])
                   if "cache_control" in part]
    return places


def test_auto_marks_the_tools_the_system_prompt_and_the_last_user_turn(
        gateway: str, upstream: ThreadedReplayServer) -> None:
    client = openai.OpenAI(base_url=gateway + "/v1", api_key=KEY, max_retries=0)
    messages: list[Any] = [{"role": "system", "content": "Long rules."},
                           {"role": "user", "content": "first"},
                           {"role": "assistant", "content": "ok"},
                           {"role": "user", "content": "second"}]
    tools: list[Any] = [{"type": "function", "function": {"name": name, "parameters": {
        "type": "object", "properties": {}}}} for name in ("a", "b")]
    list(client.chat.completions.create(model="cached", messages=messages, tools=tools,
                                        stream=True))
    assert _marked(_sent(upstream)) == ["tools[1]", "system[0]", "messages[2].content[0]"]
    list(client.chat.completions.create(model="plain", messages=messages, tools=tools,
                                        stream=True))
    assert _marked(_sent(upstream)) == []  # a model without cache = "auto": as it came


def test_a_callers_own_breakpoints_pass_through_untouched(
        gateway: str, upstream: ThreadedReplayServer) -> None:
    """Claude Code marks its system prompt and its latest turns, one with an hour's TTL."""
    client = anthropic.Anthropic(base_url=gateway, api_key=KEY, max_retries=0)
    system: Any = [{"type": "text", "text": "You are Claude Code.",
                    "cache_control": {"type": "ephemeral", "ttl": "1h"}}]
    messages: Any = [{"role": "user", "content": [
        {"type": "text", "text": "the repo", "cache_control": EPHEMERAL},
        {"type": "text", "text": "fix the bug"}]}]
    list(client.messages.create(model="cached", max_tokens=64, system=system, messages=messages,
                                stream=True))
    sent = _sent(upstream)
    assert (sent["system"], sent["messages"]) == (system, messages)


def test_the_log_line_counts_the_caches_reads_and_writes(
        gateway: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="streamkit.gateway")
    client = openai.OpenAI(base_url=gateway + "/v1", api_key=KEY, max_retries=0)
    list(client.chat.completions.create(model="plain", stream=True,
                                        messages=[{"role": "user", "content": "hi"}]))
    deadline = time.monotonic() + 5
    while not (lines := [r for r in caplog.records if r.name == "streamkit.gateway"]):
        assert time.monotonic() < deadline, "no log line"
        time.sleep(0.02)
    line = json.loads(lines[-1].getMessage())
    assert (line["input_tokens"], line["cache_read_tokens"], line["cache_write_tokens"]) == (
        120, 900, 30)


def test_a_cache_mode_the_gateway_does_not_know_is_refused() -> None:
    with pytest.raises(GatewayConfigError, match=r"\[models\.m\] cache = 'always'"):
        parse_config({"gateway": {"open": True},
                      "models": {"m": {"model": "anthropic:x", "cache": "always"}}})
