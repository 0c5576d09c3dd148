"""``python -m streamkit chat``: a live answer over real sockets, the missing key
named (exit 2), provider errors in one line (exit 1), the key never printed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES

from streamkit.cli import main
from streamkit.testing import ReplayServer

SECRET = "sk-cli-test-0123456789-SECRET"
ROOT = Path(__file__).parent.parent


def test_without_a_key_it_names_the_variable_to_set(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    assert main(["chat", "--model", "deepseek:deepseek-chat", "hello"]) == 2
    err = capsys.readouterr().err
    assert "set DEEPSEEK_API_KEY" in err


def test_an_unknown_provider_lists_the_known_ones(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["chat", "--model", "nope:some-model", "hello"]) == 2
    assert "unknown provider 'nope'; known: anthropic" in capsys.readouterr().err


def test_the_answer_streams_with_the_demo_renderer(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    with ReplayServer.in_thread() as server:
        server.add_file("/v1/messages", FIXTURES / "anthropic/text-basic.sse", chunk_size=17)
        code = main(["chat", "--model", "anthropic:claude-test", "--base-url",
                     server.url + "/v1", "--system", "Be brief.", "Say", "hello"])
        request, = server.requests
    out = capsys.readouterr().out
    assert code == 0
    assert "== Anthropic: claude-test ==" in out
    assert "Hello there!" in out and "usage: input_tokens=11, output_tokens=6" in out
    assert request.secret_headers["x-api-key"] == SECRET and SECRET not in out
    sent = request.json()
    assert sent["system"] == "Be brief." and sent["stream"] is True
    assert json.dumps(sent["messages"]).count("Say hello") == 1


def test_a_provider_error_is_one_line_without_the_key(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    body = json.dumps({"type": "error", "error": {"type": "authentication_error",
                                                  "message": "invalid x-api-key"}}).encode()
    with ReplayServer.in_thread() as server:
        server.add("/v1/messages", body, status=401, content_type="application/json")
        code = main(["chat", "--model", "anthropic:claude-test", "--base-url",
                     server.url + "/v1", "hello"])
        assert len(server.requests) == 1  # 401 is not retried
    captured = capsys.readouterr()
    assert code == 1
    assert "ProviderError: invalid x-api-key (status=401, type=authentication_error)" \
        in captured.err
    assert SECRET not in captured.err + captured.out


def test_python_dash_m_without_a_key_exits_2() -> None:
    done = subprocess.run([sys.executable, "-m", "streamkit", "chat", "--model",
                           "moonshot:kimi-k2", "hi"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=False, env={"PATH": "", "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2
    assert "set MOONSHOT_API_KEY" in done.stderr
