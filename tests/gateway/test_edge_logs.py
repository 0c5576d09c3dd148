"""The gateway's access log (streamkit.gateway.access_log) under the real
command: one JSON line per request, uvicorn's own access log off, and no key
in anything the process writes, at its most talkative level."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from support.gateway_command import gateway_command
from support.recordings import FIXTURES

from streamkit.testing import ReplayServer

CALLER_KEY = "sk-gw-secret-0001-caller-key"
WRONG_KEY = "sk-gw-wrong-0002-not-a-key"
UPSTREAM_KEY = "sk-ant-upstream-0003-secret"
KEYS = (CALLER_KEY, WRONG_KEY, UPSTREAM_KEY)


def _requests(url: str) -> list[tuple[int, str]]:
    """Every place a key is accepted, with the right key and a wrong one; a
    key in a path and in other query parameters too. (status, request id)."""
    chat = {"model": "fast", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    gemini = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    sent = []
    for key in (CALLER_KEY, WRONG_KEY):
        for path, headers, body in (
                ("/v1/chat/completions", {"authorization": f"Bearer {key}"}, chat),
                ("/v1/messages", {"x-api-key": key}, {**chat, "max_tokens": 5}),
                ("/v1beta/models/fast:streamGenerateContent?alt=sse", {"x-goog-api-key": key},
                 gemini),
                (f"/v1beta/models/fast:streamGenerateContent?alt=sse&key={key}", {}, gemini),
                (f"/v1beta/models/fast:streamGenerateContent?key={key}&token={key}", {}, gemini),
                (f"/v1beta/models/{key}:generateContent?api-key={key}", {}, gemini)):
            answer = httpx.post(url + path, json=body, headers=headers, timeout=30)
            sent.append((answer.status_code, answer.headers["x-request-id"]))
    answer = httpx.get(f"{url}/v1/models?key={CALLER_KEY}", timeout=30)
    sent.append((answer.status_code, answer.headers["x-request-id"]))
    return sent


def test_no_key_in_any_line_the_command_writes_and_one_access_line_per_request(
        tmp_path: Path) -> None:
    with ReplayServer().in_thread() as upstream:
        upstream.add_file("/v1/messages", FIXTURES / "anthropic" / "text-basic.sse")
        path = tmp_path / "gateway.toml"
        path.write_text(f'[gateway]\nkeys = ["{CALLER_KEY}"]\n'
                        '[models.fast]\nmodel = "anthropic:claude-upstream"\n'
                        f'[providers.anthropic]\nbase_url = "{upstream.url}/v1"\n'
                        f'api_key = "{UPSTREAM_KEY}"\n')
        with gateway_command(path, "--log-level", "debug") as running:
            sent = _requests(running.url)
    output = running.output
    assert [status for status, _ in sent] == [200] * 5 + [401] * 7 + [200]
    for key in KEYS:
        assert key not in output, key
    lines = {line["request_id"]: line for line in map(json.loads, (
        text[text.index("{"):] for text in output.splitlines() if '"request_id"' in text))}
    assert {request_id for _, request_id in sent} <= set(lines)  # one line each
    first = lines[sent[3][1]]  # Gemini's ?key=, the right key
    assert first["query"] == "alt=sse&key=***" and first["method"] == "POST"
    assert first["client"] == "127.0.0.1" and first["status"] == 200
    assert lines[sent[4][1]]["query"] == "key=***&token=***"
    assert lines[sent[5][1]]["path"] == "/v1beta/models/***:generateContent"
    assert lines[sent[5][1]]["query"] == "api-key=***"
    assert lines[sent[-1][1]]["query"] == "key=***" and lines[sent[-1][1]]["status"] == 200
    assert '"POST /v1' not in output  # uvicorn's access log is off
