"""Every example runs and prints what it promises, so the examples never rot."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent
AUDIO_SHA256 = "4cd1edd3d9c943ae1156b41d4fe25dc1f56dd32b1296afcddf5a1e8d719b8cee"


def run(name: str, *args: str, cwd: Path = ROOT) -> str:
    done = subprocess.run([sys.executable, str(ROOT / "examples" / name), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_accumulate_by_hand() -> None:
    out = run("accumulate_by_hand.py")
    assert "arguments: {'city': 'Paris'}" in out
    assert "round trip equal: True" in out
    assert "signature='sig-abc'" in out


def test_consume_stream() -> None:
    out = run("consume_stream.py")
    assert "[tool_use starts]" not in out and "[tool_call starts]" in out
    assert "final: tool_calls" in out
    assert "run get_weather with {'location': 'Paris'}" in out


def test_collect_audio(tmp_path: Path) -> None:
    wav = tmp_path / "a.wav"
    out = run("collect_audio.py", str(wav))
    assert f"sha256 {AUDIO_SHA256}" in out
    assert "Hello from stream kit." in out
    data = wav.read_bytes()
    assert data[:4] == b"RIFF" and hashlib.sha256(data[44:]).hexdigest() == AUDIO_SHA256


def test_observability() -> None:
    out = run("observability.py")
    span_text, _, rest = out.partition("\n}\n")
    span = json.loads(span_text + "}")
    assert span["name"] == "chat claude-sonnet-4-0" and span["kind"] == "SpanKind.CLIENT"
    attributes = span["attributes"]
    assert attributes["gen_ai.provider.name"] == "anthropic"
    assert attributes["gen_ai.response.model"] == "claude-sonnet-4-20250514"
    assert attributes["gen_ai.usage.input_tokens"] == 377
    assert attributes["gen_ai.usage.output_tokens"] == 65
    assert attributes["gen_ai.response.time_to_first_chunk"] >= 0.3  # the server's pause
    lines = dict(line.split(": ", 1) for line in rest.splitlines()[:5])
    assert float(lines["time to first token"].removesuffix(" s")) >= 0.3
    assert lines["attempts"] == "1"
    assert lines["cost"].endswith(" USD") and lines["cost"] == lines["client total"]
    assert "377 in · 65 out tokens · first token 0." in rest
    metrics = json.loads(rest[rest.index("{"):])
    names = {metric["name"] for resource in metrics["resource_metrics"]
             for scope in resource["scope_metrics"] for metric in scope["metrics"]}
    assert names == {"gen_ai.client.operation.duration", "gen_ai.client.token.usage",
                     "gen_ai.client.operation.time_to_first_chunk",
                     "gen_ai.client.operation.time_per_output_chunk"}
