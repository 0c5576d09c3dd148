"""The demo page in headless Chromium: what the user types goes through the
demo's agent loop to a scripted upstream; the real AI SDK client renders the
streamed answer, the tool card with the result the server's tool returned, and
the usage summed over the message's steps.

Debian's ``chromium`` and ``chromium-driver`` (``/usr/bin/chromium``,
``/usr/bin/chromedriver``), driven by selenium. Without them the test skips
locally and FAILS in CI (``CI=true``) and under ``make test``: there it must
never pass silently. Set ``STREAMKIT_WEB_SCREENSHOT=docs/web-demo.png`` to
refresh the README picture.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.asgi_server import serving
from support.web_node import ROOT, build_bundle

from streamkit.model.blocks import TextBlock, ThinkingBlock
from streamkit.model.response import ChatResponse
from streamkit.web.demo import ScriptedUpstream, create_app, demo_finals, get_weather

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
def upstream() -> Iterator[ScriptedUpstream]:
    scripted = ScriptedUpstream(delay=DELAY)
    try:
        yield scripted
    finally:
        scripted.close()


@pytest.fixture(scope="module")
def server(upstream: ScriptedUpstream) -> Iterator[str]:
    """The demo app under uvicorn on a free loopback port, in a thread."""
    with serving(create_app(upstream=upstream)) as url:
        yield url


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
const last = [...document.querySelectorAll('.message.assistant')].at(-1);
const all = selector => last ? [...last.querySelectorAll(selector)] : [];
const audio = last ? last.querySelector('audio') : null;
const usage = last ? last.querySelector('.usage') : null;
return {
  texts: all('.text').map(n => n.textContent),
  thinking: all('.thinking-text').map(n => n.textContent),
  thinkingOpen: all('details.thinking').map(n => n.open),
  tools: all('.tool').map(n => ({
    title: n.querySelector('.tool-title').textContent,
    name: n.querySelector('.tool-name').textContent,
    label: n.querySelector('.tool-state').textContent,
    state: n.dataset.state,
    args: n.querySelector('.tool-args').textContent,
    output: n.querySelector('.tool-output')?.textContent ?? null,
  })),
  audio: audio ? {duration: audio.duration, readyState: audio.readyState} : null,
  audioCount: all('audio').length,
  transcript: all('.transcript').map(n => n.textContent),
  usage: usage ? {text: usage.textContent, input: Number(usage.dataset.input),
                  output: Number(usage.dataset.output), steps: Number(usage.dataset.steps)} : null,
  status: document.body.dataset.status,
  error: document.querySelector('#status').textContent,
  live: window.streamkitLiveAudioSeconds ?? 0,
  seenToolArgs: window.seenToolArgs,
  users: [...document.querySelectorAll('.message.user')].map(n => n.textContent),
  page: document.body.innerText,
};
"""


def summed(finals: list[ChatResponse]) -> tuple[int, int]:
    """Input and output tokens of a message's steps, added up."""
    return (sum(f.usage.input_tokens or 0 for f in finals if f.usage),
            sum(f.usage.output_tokens or 0 for f in finals if f.usage))


def _wait(driver: Any, script: str, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}: {driver.execute_script(_READ_PAGE)}")


def send(browser: Any, text: str, finished: int) -> dict[str, Any]:
    """Type a message, send it, wait for its answer to finish; what the page shows."""
    browser.find_element("id", "prompt").send_keys(text)
    browser.find_element("id", "send").click()
    _wait(browser, f"return document.body.dataset.finished === '{finished}'", 40,
          "the end of the stream")
    return browser.execute_script(_READ_PAGE)  # type: ignore[no-any-return]


def test_the_demo_page_sends_the_prompt_runs_the_tool_and_sums_usage(
        server: str, upstream: ScriptedUpstream, browser: Any, tmp_path: Path) -> None:
    build_bundle()
    (tool_step, audio_step), (thinking_step,) = demo_finals()
    browser.get(server + "/")
    _wait(browser, "return document.body.dataset.status === 'ready'", 20, "the page script")
    browser.execute_script(_WATCH_TOOL_ARGS)
    typed = "What's the weather in Paris? Say it out loud."
    page = send(browser, typed, 1)
    _wait(browser, "const a = document.querySelector('audio'); return a && a.readyState >= 1",
          20, "the audio metadata")
    page = browser.execute_script(_READ_PAGE)

    assert page["status"] == "ready" and page["error"] == "ready", page["error"]
    assert page["users"] == [typed]
    # the prompt went upstream; the tool's result went back with the next step
    first, second = (r.json() for r in upstream.requests[:2])
    assert first["messages"] == [{"role": "user", "content": typed}]
    assert [t["name"] for t in first["tools"]] == ["get_weather"]
    call, = tool_step.tool_calls
    result = get_weather(**call.arguments())
    assert second["messages"][-1] == {"role": "tool", "tool_call_id": call.id,
                                      "content": result}
    # the answer, the tool card with its result, the summed usage
    blocks = tool_step.content + audio_step.content
    assert page["texts"] == [visible_text(b.text) for b in blocks if isinstance(b, TextBlock)]
    tool, = page["tools"]
    assert (tool["title"], tool["name"], tool["label"], tool["state"]) == \
        ("Get weather", "get_weather", "Done", "output-available")
    assert json.loads(tool["args"]) == call.arguments() and tool["output"] == result
    growing = [s for s in page["seenToolArgs"] if s]
    assert len(growing) >= 2 and growing[-1] == tool["args"], growing
    assert "input-available" not in page["page"] and "output-available" not in page["page"]
    inputs, outputs = summed([tool_step, audio_step])
    assert (page["usage"]["input"], page["usage"]["output"], page["usage"]["steps"]) == \
        (inputs, outputs, 2)
    assert page["usage"]["text"].startswith(f"2 steps · {inputs:,} in / {outputs:,} out tokens")
    assert outputs > (audio_step.usage.output_tokens if audio_step.usage else 0)

    (audio,) = audio_step.data_blocks
    assert page["audioCount"] == 1
    assert audio.duration is not None
    assert page["audio"]["duration"] == pytest.approx(audio.duration, abs=1e-3)
    assert page["transcript"] == [audio.transcript]
    assert page["live"] == pytest.approx(audio.duration, abs=0.01), "audio played as it arrived"

    # a second message: Claude thinks (collapsed once done), then answers in markdown
    page = send(browser, "How do I cross the street safely?", 2)
    assert page["users"][-1] == "How do I cross the street safely?"
    assert page["thinking"] == [b.thinking for b in thinking_step.content
                                if isinstance(b, ThinkingBlock)]
    assert page["thinkingOpen"] == [False], "finished thinking is collapsed"
    assert page["texts"] == [visible_text(b.text) for b in thinking_step.content
                             if isinstance(b, TextBlock)]
    assert page["usage"]["steps"] == 1
    third = upstream.requests[2].json()["messages"]
    assert third[-1] == {"role": "user", "content": "How do I cross the street safely?"}
    assert third[0]["content"] == typed  # the conversation goes along

    browser.find_element("css selector", ".message.assistant:last-of-type details.thinking "
                                         "summary").click()
    _wait(browser, "return [...document.querySelectorAll('details.thinking')].at(-1).open", 5,
          "thinking to open")
    browser.execute_script("window.scrollTo(0, 0)")

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
