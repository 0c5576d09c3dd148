"""Every recorded stream, encoded by streamkit.web, read by the real AI SDK client.

``web_cases.write_cases`` writes each recording's UI message stream and what
its final response holds; ``web/test/ui-message-stream.test.mjs`` (``node
--test``) reads every stream with the ``ai`` package's own
``parseJsonEventStream`` + ``uiMessageChunkSchema`` + ``readUIMessageStream``
and checks the assembled message.
"""

from __future__ import annotations

from pathlib import Path

from support.web_cases import write_cases
from support.web_node import WEB, ensure_packages, run, tool


def test_every_recording_round_trips_through_the_ai_client(tmp_path: Path) -> None:
    node = tool("node")
    ensure_packages()
    names = write_cases(tmp_path)
    assert len(names) > 50
    done = run([node, "--test", "--test-reporter=tap", str(WEB / "test")], timeout=120,
               env={"STREAMKIT_UI_CASES": str(tmp_path)})
    assert f"# pass {len(names) + 1}" in done.stdout, done.stdout[-3000:]
    assert "# fail 0" in done.stdout
