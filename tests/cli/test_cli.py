"""python -m streamkit demo / replay, and a command run without its extra."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.recordings import FIXTURES

from streamkit.cli import main

AUDIO_SHA256 = "4cd1edd3d9c943ae1156b41d4fe25dc1f56dd32b1296afcddf5a1e8d719b8cee"


def test_demo_streams_every_turn_and_writes_the_audio(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", "--plain", "--delay", "0", "--wav-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "[thinking] " in out and "[text] " in out
    assert '[tool_call get_weather] {"location": "Paris"}' in out
    assert "6.72 s of audio received" in out
    assert "finish: tool_calls (provider said 'tool_use')" in out
    wav = (tmp_path / "demo-audio.wav").read_bytes()
    assert hashlib.sha256(wav[44:]).hexdigest() == AUDIO_SHA256


def test_replay_json_lines(capsys: pytest.CaptureFixture[str]) -> None:
    main(["replay", str(FIXTURES / "anthropic/text-basic.sse"), "--json"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    kinds = [line["type"] for line in lines]
    assert kinds[0] == "response_start" and kinds[-1] == "chat_response"
    texts = [line["delta"]["text"] for line in lines if line["type"] == "block_delta"]
    assert texts == ["Hello", " there", "!"]
    assert lines[-1]["content"][0]["text"] == "Hello there!"


def test_replay_human_readable_with_explicit_provider() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "streamkit", "replay",
         str(FIXTURES / "openai-chat/tool-calls-parallel.sse"), "--provider", "openai"],
        capture_output=True, text=True, timeout=60, check=True)
    assert "final response:" in done.stdout
    assert done.stdout.count("tool call ") == 2
    assert "finish: tool_calls" in done.stdout


@pytest.mark.parametrize(("argv", "extra"), [(["web"], "web"),
                                             (["gateway", "--config", "gateway.toml"], "gateway")],
                         ids=["web", "gateway"])
def test_a_command_without_its_extra_says_which_extra_in_one_line(
        argv: list[str], extra: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """uvicorn (in both extras) is made unimportable as a missing package is:
    the command says which extra and how to install it, exit status 2, no
    traceback."""
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # import uvicorn: ModuleNotFoundError
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        f"python -m streamkit {argv[0]} needs the '{extra}' extra (uvicorn is not installed): "
        f"pip install 'streamkit-llm[{extra}]'\n")
