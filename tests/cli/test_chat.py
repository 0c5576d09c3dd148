"""``python -m streamkit chat``: a conversation over real sockets, driven as a
person would, through a pipe and through a pseudo-terminal.

The upstream is a :class:`~streamkit.testing.ReplayServer` answering each
request with the next reply of a sequence; what the CLI sent is read back from
``server.requests`` (the history of each turn, the tool results). A tool is a
plain function of ``tests/support/cli_tools.py`` given with ``--tool``.
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from support.asgi_server import serving
from support.mcp_loop import RAW_SERVER
from support.mcp_server import make_server
from support.paths import ROOT, TESTS
from support.recordings import FIXTURES, sse_body

from streamkit import ChatResponse, TextBlock, Tool, ToolCallBlock
from streamkit.cli import main
from streamkit.cli.chat import EXIT_CODES
from streamkit.testing import FakeProvider, ReplayServer, Reply, ThreadedReplayServer

SECRET = "sk-cli-test-0123456789-SECRET"
TOOL_USE = FIXTURES / "anthropic/tool-use.sse"  # text, then get_weather({"location": "Paris"})
HELLO = FIXTURES / "anthropic/text-basic.sse"  # "Hello there!"
MARKDOWN = FIXTURES / "anthropic/thinking-signature.sse"  # thinking, then markdown with **bold**
PATH = "/v1/messages"
UNAUTHORIZED = json.dumps({"type": "error", "error": {"type": "authentication_error",
                                                      "message": "invalid x-api-key"}}).encode()

#: Hostile text: rich markup, an OSC 8 hyperlink in markup, a clipboard write
#: (OSC 52), and a stop reason that is a closing markup tag.
HOSTILE = sse_body([
    ("message_start", json.dumps({"type": "message_start", "message": {
        "id": "msg_x", "type": "message", "role": "assistant", "content": [],
        "model": "claude-test", "usage": {"input_tokens": 3, "output_tokens": 1}}})),
    ("content_block_start", json.dumps({"type": "content_block_start", "index": 0,
                                        "content_block": {"type": "text", "text": ""}})),
    ("content_block_delta", json.dumps({"type": "content_block_delta", "index": 0, "delta": {
        "type": "text_delta",
        "text": "[link=https://evil]x[/link] [bold]b[/bold] \x1b]52;c;aGk=\x07 [/bold]"}})),
    ("content_block_stop", json.dumps({"type": "content_block_stop", "index": 0})),
    ("message_delta", json.dumps({"type": "message_delta", "delta": {"stop_reason": "[/bold]"},
                                  "usage": {"output_tokens": 9}})),
    ("message_stop", json.dumps({"type": "message_stop"})),
])


def chat_args(server: ThreadedReplayServer, *extra: str) -> list[str]:
    return ["chat", "--model", "anthropic:claude-test", "--base-url", server.url + "/v1",
            *extra]


def environment(**extra: str) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": f"{ROOT}{os.pathsep}{TESTS}",
            "ANTHROPIC_API_KEY": SECRET, "HOME": str(TESTS), **extra}


def run_piped(server: ThreadedReplayServer, stdin: str, *extra: str,
              env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "streamkit", *chat_args(server, *extra)],
                          input=stdin, capture_output=True, text=True, timeout=120, check=False,
                          cwd=TESTS, env=env or environment())


def messages_of(server: ThreadedReplayServer) -> list[list[dict[str, Any]]]:
    return [request.json()["messages"] for request in server.requests]


# ---------------------------------------------------------------- set-up errors


def test_without_a_key_it_names_the_variable_to_set(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    assert main(["chat", "--model", "deepseek:deepseek-chat", "hello"]) == 2
    err = capsys.readouterr().err
    assert err == ("python -m streamkit chat: error: no API key: set DEEPSEEK_API_KEY in the "
                   "environment\n")


def test_an_unknown_provider_lists_the_known_ones(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["chat", "--model", "nope:some-model", "hello"]) == 2
    assert "unknown provider 'nope'; known: anthropic" in capsys.readouterr().err


@pytest.mark.parametrize(("spec", "said"), [
    ("support.cli_tools", "expected MODULE:FUNCTION"),
    ("no_such_module_here:f", "cannot import 'no_such_module_here': ModuleNotFoundError"),
    ("support.cli_tools:nothing", "'support.cli_tools' has no function 'nothing'"),
])
def test_a_tool_that_cannot_be_loaded_is_one_line(spec: str, said: str,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    monkeypatch.syspath_prepend(str(TESTS))
    assert main(["chat", "--model", "anthropic:claude-test", "--tool", spec, "hi"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err, err


def test_python_dash_m_without_a_key_exits_2() -> None:
    done = subprocess.run([sys.executable, "-m", "streamkit", "chat", "--model",
                           "moonshot:kimi-k2", "hi"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=False, env={"PATH": "", "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2
    assert done.stderr == ("python -m streamkit chat: error: no API key: set MOONSHOT_API_KEY "
                           "in the environment\n")


def test_the_exit_codes_are_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["chat", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for code, meaning in EXIT_CODES.items():
        assert f"{code} {' '.join(meaning.split())}" in out


# ---------------------------------------------------------------- one prompt, a pipe


def test_one_prompt_from_the_command_line(monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    with ReplayServer.in_thread() as server:
        server.add_file(PATH, HELLO, chunk_size=17)
        code = main([*chat_args(server, "--system", "Be brief."), "Say", "hello"])
        request, = server.requests
    out = capsys.readouterr().out
    assert code == 0
    assert out == "Hello there!\n"  # piped: the answer, nothing else
    assert request.secret_headers["x-api-key"] == SECRET and SECRET not in out
    sent = request.json()
    assert sent["system"] == "Be brief." and sent["stream"] is True
    assert sent["messages"] == [{"role": "user", "content": "Say hello"}]


def test_a_two_turn_conversation_with_a_tool_through_a_pipe() -> None:
    with ReplayServer.in_thread() as server:
        server.add_sequence(PATH, [TOOL_USE, HELLO, MARKDOWN])
        done = run_piped(server, "Weather in Paris?\n\nAnd then?\n", "--tool",
                         "support.cli_tools:get_weather")
        sent = messages_of(server)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert lines[0] == "I'll check the current weather in Paris for you."
    assert lines[1] == '[tool call] get_weather({"location": "Paris"})'
    assert lines[2] == "[tool result] get_weather: Sunny, 21 °C in Paris"
    assert lines[3] == "Hello there!"
    assert lines[4] == "Here are the basic steps for safely crossing the street:"
    assert "**" in done.stdout  # piped, markdown stays as the model wrote it
    # what went upstream: the tool loop, then the second prompt with the whole history
    assert len(sent) == 3
    assert sent[0] == [{"role": "user", "content": "Weather in Paris?"}]
    assistant, results = sent[1][1:]
    call = next(part for part in assistant["content"] if part["type"] == "tool_use")
    assert call["input"] == {"location": "Paris"}
    assert results["content"][0]["tool_use_id"] == call["id"]
    assert results["content"][0]["content"] == "Sunny, 21 °C in Paris"
    assert sent[2][:3] == sent[1] and sent[2][3]["role"] == "assistant"
    assert sent[2][4] == {"role": "user", "content": "And then?"}


def test_parallel_tool_calls_are_one_line_each_and_a_failing_tool_answers_an_error() -> None:
    with ReplayServer.in_thread() as server:
        server.add_sequence("/v1/chat/completions", [
            FIXTURES / "openai-chat/tool-calls-parallel.sse",
            FIXTURES / "openai-chat/text-with-usage-chunk.sse"])
        done = subprocess.run(
            [sys.executable, "-m", "streamkit", "chat", "--model", "openai:gpt-test",
             "--base-url", server.url + "/v1", "--tool", "support.cli_tools:GetWeatherArgs",
             "--tool", "support.cli_tools:get_stock_price", "-"],
            input="Weather and AAPL?\n", capture_output=True, text=True, timeout=120,
            check=False, cwd=TESTS, env=environment(OPENAI_API_KEY=SECRET))
        results = server.requests[1].json()["messages"][2:]
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("[tool")]
    assert lines == [
        '[tool call] GetWeatherArgs({"city": "Edinburgh", "country": "GB", "units": "c"})',
        '[tool call] get_stock_price({"ticker": "AAPL", "exchange": "NASDAQ"})',
        "[tool result] GetWeatherArgs: Rain in Edinburgh, GB (c)",
        f"[tool error] get_stock_price: {results[1]['content']}",
    ], done.stdout
    assert "NASDAQ is closed" in results[1]["content"]
    assert [r["role"] for r in results] == ["tool", "tool"]


def test_mcp_servers_over_http_and_stdio_answer_the_models_calls(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    fake_replies = [ChatResponse(content=[ToolCallBlock("call_1", "weather", '{"city": "Paris"}'),
                                          ToolCallBlock("call_2", "secret", "{}")]),
                    ChatResponse(content=[TextBlock("Sunny.")])]
    stdio = shlex.join([sys.executable, str(RAW_SERVER)])
    with (serving(make_server().streamable_http_app(), lifespan="on") as mcp_url,
          FakeProvider.in_thread(fake_replies) as fake):
        code = main(["chat", "--model", "anthropic:claude-test", "--base-url",
                     fake.base_url("anthropic"), "--mcp", mcp_url + "/mcp", "--mcp", stdio,
                     "Weather in Paris?"])
        offered = [[tool.name for tool in request.request.tools or []
                    if isinstance(tool, Tool)] for request in fake.requests]
    out = capsys.readouterr().out
    assert code == 0 and not fake.errors
    assert {"weather", "unlock", "secret", "crash"} <= set(offered[0]) and offered[0] == offered[1]
    assert out.splitlines() == ['[tool call] weather({"city": "Paris"})', "[tool call] secret({})",
                                "[tool result] weather: Sunny, 21 °C in Paris",
                                "[tool result] secret: a token of 0 characters", "Sunny."]


def test_an_mcp_server_that_does_not_start_is_one_line_and_exit_2(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    assert main(["chat", "--model", "anthropic:claude-test", "--mcp",
                 "/no/such/mcp-server --flag", "hi"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'/no/such/mcp-server --flag' could not be started" in err


def test_an_mcp_server_that_dies_mid_call_is_one_line_and_exit_1(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    crash = [ChatResponse(content=[ToolCallBlock("call_1", "crash", "{}")])]
    with FakeProvider.in_thread(crash) as fake:
        code = main(["chat", "--model", "anthropic:claude-test", "--base-url",
                     fake.base_url("anthropic"), "--mcp",
                     shlex.join([sys.executable, str(RAW_SERVER)]), "Crash."])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1
    assert "ToolServerError: the MCP server stdio" in err and "went away" in err


def test_whole_sends_all_of_stdin_as_one_prompt() -> None:
    with ReplayServer.in_thread() as server:
        server.add_file(PATH, HELLO)
        done = run_piped(server, "first line\nsecond line\n", "--whole")
        sent = messages_of(server)
    assert done.returncode == 0 and done.stdout == "Hello there!\n"
    assert sent == [[{"role": "user", "content": "first line\nsecond line"}]]


def _stats_line(fixture: Path, tokens: str) -> str:
    """The --stats line of one answer of ``fixture`` as a pattern: its tokens,
    a time to first token, the speed only when the answer took measurable time
    after its first token, and the cost of the recorded usage, priced apart
    from the CLI."""
    import streamkit

    cost = streamkit.replay(fixture.read_bytes(), "anthropic").response.cost()
    assert cost.amount is not None and cost.currency == "USD", cost
    return (re.escape(tokens) + r" · first token \d+\.\d\d s( · [\d,]+ tokens/s)? · "
            + re.escape(f"${cost.amount:.6f}"))


def test_stats_says_tokens_time_and_cost_after_the_answer_on_stderr(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    with ReplayServer.in_thread() as server:
        server.add_file(PATH, HELLO, chunk_size=40, delay=0.01)
        code = main([*chat_args(server, "--stats"), "Say", "hello"])
    captured = capsys.readouterr()
    assert code == 0
    assert captured.out == "Hello there!\n"  # stdout is still the answer alone
    assert re.fullmatch(_stats_line(HELLO, "11 in · 6 out tokens") + "\n", captured.err), \
        captured.err


def test_stats_is_one_line_per_answer_of_a_tool_loop_and_none_without_the_flag() -> None:
    with ReplayServer.in_thread() as server:
        server.add_sequence(PATH, [TOOL_USE, HELLO, TOOL_USE, HELLO])
        done = run_piped(server, "Weather in Paris?\n", "--stats", "--tool",
                         "support.cli_tools:get_weather")
        quiet = run_piped(server, "Weather in Paris?\n", "--tool",
                          "support.cli_tools:get_weather")
    assert done.returncode == 0 and quiet.returncode == 0, done.stderr + quiet.stderr
    assert done.stdout == quiet.stdout  # the conversation is the same
    first, second = done.stderr.splitlines()
    # the tool call's round, then the answer: each its own response
    assert re.fullmatch(_stats_line(TOOL_USE, "377 in · 65 out tokens"), first), first
    assert re.fullmatch(_stats_line(HELLO, "11 in · 6 out tokens"), second), second
    assert quiet.stderr == ""


def test_a_provider_error_is_one_line_and_stops_the_pipe() -> None:
    with ReplayServer.in_thread() as server:
        server.add_sequence(PATH, [HELLO, Reply(UNAUTHORIZED, status=401,
                                                content_type="application/json")])
        done = run_piped(server, "one\ntwo\nthree\n")
        assert len(server.requests) == 2  # 401 is not retried; "three" is never sent
    assert done.returncode == 1
    assert done.stdout == "Hello there!\n"
    assert done.stderr == ("python -m streamkit chat: ProviderError: invalid x-api-key "
                           "(status=401, type=authentication_error)\n")
    assert SECRET not in done.stdout + done.stderr


def test_commands_in_a_pipe_switch_the_model_and_reset() -> None:
    with ReplayServer.in_thread() as server:
        server.add_sequence(PATH, [HELLO, HELLO, HELLO])
        done = run_piped(server, "one\n/model anthropic:claude-other\ntwo\n/reset\nthree\n"
                                 "/nope\n/exit\nnever\n")
        sent = [request.json() for request in server.requests]
    assert done.returncode == 0, done.stderr
    assert "(now Anthropic: claude-other)" in done.stdout
    assert "(conversation forgotten)" in done.stdout and "unknown command '/nope'" in done.stdout
    assert [s["model"] for s in sent] == ["claude-test", "claude-other", "claude-other"]
    assert [len(s["messages"]) for s in sent] == [1, 3, 1]
    assert sent[2]["messages"] == [{"role": "user", "content": "three"}]


# ---------------------------------------------------------------- a terminal


def drive_terminal(args: list[str], typed: list[str], env: dict[str, str],
                   timeout: float = 60) -> tuple[int, str, str]:
    """Run the CLI with a pseudo-terminal as stdin and stdout, typing each line
    once the CLI asks for it (its prompt shows); returns the exit status, what
    the terminal showed and stderr."""
    master, slave = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "streamkit", *args], stdin=slave,
                               stdout=slave, stderr=subprocess.PIPE, cwd=TESTS, env=env,
                               close_fds=True)
    os.close(slave)
    shown = bytearray()
    pending = list(typed)
    deadline = time.monotonic() + timeout
    asked = 0
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # the CLI exited and closed the terminal
                    break
                if not data:
                    break
                shown += data
            if pending and shown.count(b"you> ") > asked:
                asked += 1
                os.write(master, pending.pop(0).encode())
            if process.poll() is not None and not ready:
                break
        process.wait(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(master)
    stderr = process.stderr.read().decode() if process.stderr else ""
    return process.returncode, shown.decode("utf-8", "replace"), stderr


def test_a_conversation_on_a_terminal_renders_live_and_keeps_provider_text_literal() -> None:
    with ReplayServer.in_thread() as server:
        server.add_sequence(PATH, [TOOL_USE, HELLO, Reply(HOSTILE), MARKDOWN,
                                   Reply(UNAUTHORIZED, status=401,
                                         content_type="application/json")])
        code, shown, stderr = drive_terminal(
            chat_args(server, "--tool", "support.cli_tools:get_weather"),
            ["Weather in Paris?\n", "/model anthropic:claude-other\n", "Show me a link\n",
             "/reset\n", "Fresh start\n", "Fails\n", "\x04"],
            environment(TERM="xterm-256color", COLUMNS="100", LINES="40"))
        sent = [request.json() for request in server.requests]
    assert code == 1, (shown, stderr)  # the last turn failed
    assert stderr == ("python -m streamkit chat: ProviderError: invalid x-api-key "
                      "(status=401, type=authentication_error)\n")
    assert "\x1b[" in shown  # rich drew it: colours and cursor moves
    assert '[tool call] get_weather({"location": "Paris"})' in shown
    assert "[tool result] get_weather: Sunny, 21 °C in Paris" in shown
    assert "Hello there!" in shown and "(now Anthropic: claude-other)" in shown
    # provider text is text: the markup shows as typed, no hyperlink, no clipboard write
    assert "[link=https://evil]x[/link] [bold]b[/bold]" in shown
    assert "\x1b]8;" not in shown and "\x1b]52" not in shown and "\\x1b]52;c;aGk=" in shown
    # markdown is rendered: the bold of the last answer is drawn bold, without its stars
    assert "**" not in shown.split("Fresh start")[-1]
    # upstream: the tool loop, the history carried to the other model, then a reset
    assert [s["model"] for s in sent] == ["claude-test"] * 2 + ["claude-other"] * 3
    assert [len(s["messages"]) for s in sent] == [1, 3, 5, 1, 3]
    assert sent[3]["messages"] == [{"role": "user", "content": "Fresh start"}]
    assert SECRET not in shown + stderr


def test_the_demo_and_chat_renderers_never_read_provider_text_as_markup() -> None:
    """Issue 21's repro: a stop reason of ``[/bold]`` raised MarkupError and
    ``[link=https://evil]x[/link]`` made an OSC 8 hyperlink."""
    import io

    from rich.console import Console

    import streamkit
    from streamkit.cli.chat import RichChatRenderer
    from streamkit.cli.commands import RichRenderer

    final = streamkit.replay(HOSTILE).response
    assert final.stop_reason == "[/bold]"
    for make in (RichRenderer, RichChatRenderer):
        out = io.StringIO()
        console = Console(file=out, force_terminal=True, width=100, color_system="truecolor")
        renderer: Any = make(console)
        if isinstance(renderer, RichRenderer):
            renderer.title("[bold]title[/bold]")
        else:
            renderer.start()
        for event in streamkit.replay(HOSTILE).events:
            if isinstance(event, streamkit.BlockStart):
                renderer.event(event, final.content[event.index])
        if isinstance(renderer, RichRenderer):
            renderer.finish(final, None)
        else:
            renderer.end(final)
        shown = out.getvalue()
        assert "[link=https://evil]x[/link]" in shown, make
        assert "\x1b]8;" not in shown and "\x1b]52" not in shown, make
