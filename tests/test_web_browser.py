"""The demo page in headless Chromium: the real AI SDK client renders the demo
conversation streamed by streamkit.web, and shows exactly the final responses.

Debian's ``chromium`` and ``chromium-driver`` (``/usr/bin/chromium``,
``/usr/bin/chromedriver``), driven by selenium. Without them the test skips
locally and FAILS in CI (``CI=true``): there it must never pass silently.
Set ``STREAMKIT_WEB_SCREENSHOT=docs/web-demo.png`` to refresh the README picture.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_node import ROOT, build_bundle

from streamkit.blocks import TextBlock, ThinkingBlock
from streamkit.web.demo import create_app, demo_finals

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1100,1500"]
DELAY = 0.015  # seconds between two recorded events: slow enough to see things grow


def _need_browser() -> None:
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    if not missing:
        return
    message = (f"{', '.join(missing)} missing: install Debian's chromium and chromium-driver "
               f"(apt-get install -y chromium chromium-driver; .ci/run does it)")
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """The demo app under uvicorn on a free loopback port, in a thread."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(create_app(delay=DELAY), log_level="warning", lifespan="off")
    instance = uvicorn.Server(config)
    thread = threading.Thread(target=instance.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not instance.started:
        assert time.monotonic() < deadline, "the demo server did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    instance.should_exit = True
    thread.join(10)
    sock.close()


@pytest.fixture()
def browser(tmp_path: Path) -> Iterator[Any]:
    _need_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in [*FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def visible_text(markdown: str) -> str:
    """What the page shows for a text (its markdown-ish rendering: bold and
    code markers hidden, "- " bullets as "• "), newlines kept."""
    text = re.sub(r"\*\*([^*\n]+)\*\*", r"\1", markdown)
    text = re.sub(r"`([^`\n]+)`", r"\1", text)
    return re.sub(r"(?m)^- ", "• ", text)


_WATCH_TOOL_ARGS = """
window.seenToolArgs = [];
window.watcher = setInterval(() => {
  const node = document.querySelector('.message.assistant .tool-args');
  const last = window.seenToolArgs[window.seenToolArgs.length - 1];
  if (node && node.textContent !== last) window.seenToolArgs.push(node.textContent);
}, 2);
"""

_READ_PAGE = """
const all = selector => [...document.querySelectorAll('.message.assistant ' + selector)];
const audio = document.querySelector('.message.assistant audio');
return {
  texts: all('.text').map(n => n.textContent),
  thinking: all('.thinking-text').map(n => n.textContent),
  thinkingOpen: all('details.thinking').map(n => n.open),
  tools: all('.tool').map(n => ({
    name: n.querySelector('.tool-name').textContent,
    state: n.dataset.state,
    args: n.querySelector('.tool-args').textContent,
  })),
  audio: audio ? {duration: audio.duration, readyState: audio.readyState} : null,
  audioCount: all('audio').length,
  transcript: all('.transcript').map(n => n.textContent),
  status: document.body.dataset.status,
  error: document.querySelector('#status').textContent,
  live: window.streamkitLiveAudioSeconds ?? 0,
  seenToolArgs: window.seenToolArgs,
  users: [...document.querySelectorAll('.message.user')].map(n => n.textContent),
};
"""


def _wait(driver: Any, script: str, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}: {driver.execute_script(_READ_PAGE)}")


def test_the_demo_page_renders_the_streamed_conversation(
        server: str, browser: Any, tmp_path: Path) -> None:
    build_bundle()
    finals = demo_finals()
    browser.get(server + "/")
    _wait(browser, "return document.body.dataset.status === 'ready'", 20, "the page script")
    browser.execute_script(_WATCH_TOOL_ARGS)
    browser.find_element("id", "prompt").send_keys("Cross the street, then Paris weather")
    browser.find_element("id", "send").click()
    _wait(browser, "return document.body.dataset.finished === '1'", 40, "the end of the stream")
    _wait(browser, "const a = document.querySelector('audio'); return a && a.readyState >= 1",
          20, "the audio metadata")
    page = browser.execute_script(_READ_PAGE)

    assert page["status"] == "ready" and page["error"] == "ready", page["error"]
    assert page["users"] and "Cross the street" in page["users"][0]
    blocks = [b for final in finals for b in final.content]
    assert page["texts"] == [visible_text(b.text) for b in blocks if isinstance(b, TextBlock)]
    assert page["thinking"] == [b.thinking for b in blocks if isinstance(b, ThinkingBlock)]
    assert page["thinkingOpen"] == [False], "finished thinking is collapsed"
    calls = [call for final in finals for call in final.tool_calls]
    assert [(t["name"], t["state"], json.loads(t["args"])) for t in page["tools"]] == \
        [(c.name, "input-available", c.arguments()) for c in calls]
    growing = [s for s in page["seenToolArgs"] if s]
    assert len(growing) >= 2 and growing[-1] == page["tools"][0]["args"], growing

    (audio,) = [b for final in finals for b in final.data_blocks]
    assert page["audioCount"] == 1
    assert audio.duration is not None
    assert page["audio"]["duration"] == pytest.approx(audio.duration, abs=1e-3)
    assert page["transcript"] == [audio.transcript]
    assert page["live"] == pytest.approx(audio.duration, abs=0.01), "audio played as it arrived"

    browser.find_element("css selector", "details.thinking summary").click()
    _wait(browser, "return document.querySelector('details.thinking').open", 5, "thinking to open")

    shot = tmp_path / "web-demo.png"
    assert browser.save_screenshot(str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    keep = os.environ.get("STREAMKIT_WEB_SCREENSHOT")
    if keep:
        shutil.copyfile(shot, ROOT / keep)


def test_a_missing_browser_fails_in_ci_and_skips_elsewhere(monkeypatch: pytest.MonkeyPatch,
                                                           tmp_path: Path) -> None:
    monkeypatch.setitem(globals(), "CHROMIUM", tmp_path / "no-chromium")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="chromium-driver"):
        _need_browser()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception):
        _need_browser()
