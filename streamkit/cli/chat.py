"""``python -m streamkit chat --model deepseek:deepseek-chat``: a conversation, live.

Where the prompts come from:

- ``chat --model M "a question"``: that one question, answered, then exit;
- ``chat --model M`` on a terminal: a conversation, one prompt at a time
  (``/reset`` forgets it, ``/model provider:model`` goes on with another
  model, ``/exit`` or Ctrl-D ends it);
- ``chat --model M`` with stdin a pipe or a file (or the prompt ``-``): one
  prompt per line, all in one conversation; ``--whole`` sends the whole input
  as one prompt. Commands work there too, a line each.

``--system`` sets a system prompt; ``--tool module:function`` (repeatable)
gives the model a Python function as a tool: its calls run here, their
results go back, until the model answers (the tool loop). ``--mcp`` (repeatable)
gives it the tools of an MCP server (the ``mcp`` extra): ``--mcp "command args"``
starts one over stdio for the conversation, ``--mcp URL`` (``http://`` or
``https://``) talks to one over streamable HTTP. ``--stats`` says
after each answer of the model (each round of the tool loop is one) what it
used, how fast it came and what it cost, on one line
(:func:`~streamkit.observability.summary.summary_line`): dimmed under the answer on a
terminal, on stderr when piped, so stdout stays the answers alone.

On a terminal the answer is drawn live with ``rich``: markdown, thinking
dimmed, one line per tool call and per result. Piped, the output is plain
text: the answer as it streams, each tool call and result on a line of its
own. Whatever a provider sends is text and never markup: every piece goes
through :func:`~streamkit.cli.terminal.terminal_safe` (no escape sequence reaches the
terminal) and is handed to rich as text or markdown, never as console markup,
with links shown as their address.

The key comes from the provider's environment variable only (a key on the
command line would land in the shell history). Each error is one line on
stderr, the key in none. Exit codes (:data:`EXIT_CODES`): 0 every prompt was
answered; 1 a provider or transport error (piped input stops there, a
terminal conversation goes on and still ends 0 unless the last turn failed);
2 the command cannot run as asked (a missing key, an unknown provider or
model string, a ``--tool`` that does not import, an ``--mcp`` server that
does not start, an option the provider cannot take); 130 interrupted (Ctrl-C).
A tool server that fails mid-conversation (no answer in time, gone) is an
error like a provider's (1), and the conversation is kept as it was.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import shlex
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Protocol, TextIO

import anyio

from ..conversation.messages import (
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    Message,
    SystemMessage,
    UserMessage,
)
from ..conversation.tools import Tool, tool
from ..conversation.workbench import Workbench
from ..model.blocks import Block, TextBlock, ThinkingBlock, ToolCallBlock
from ..model.errors import StreamError, ToolDefinitionError, ToolServerError
from ..model.events import BlockDelta, BlockEnd, BlockStart, TextDelta
from ..model.response import ChatResponse
from ..model.vendors import ProviderConfigError
from ..observability.summary import summary_line
from .terminal import terminal_safe

__all__ = ["EXIT_CODES", "ChatSession", "add_chat_command", "load_mcp", "load_tool",
           "run_chat_command"]

_PROG = "python -m streamkit chat"

#: What the command's exit status means.
EXIT_CODES = {
    0: "every prompt was answered",
    1: "a provider or transport error (the error is one line on stderr)",
    2: "the command cannot run as asked: a missing key, an unknown provider, a --tool that "
       "does not import, an --mcp server that does not start, an option the provider cannot "
       "take",
    130: "interrupted (Ctrl-C)",
}

#: Rounds of tool calls one prompt may take before the command gives up on it.
MAX_TOOL_ROUNDS = 8

_HELP = "commands: /reset (forget the conversation), /model provider:model, /exit"


class UsageError(Exception):
    """The command cannot run as asked (exit status 2)."""


def add_chat_command(sub: Any) -> None:
    """Register ``chat`` on the CLI's subparsers (``sub.add_parser``)."""
    epilog = "exit status: " + "; ".join(f"{code} {meaning}"
                                         for code, meaning in EXIT_CODES.items())
    chat = sub.add_parser(
        "chat", help="a conversation with a model, live (key from its environment variable)",
        description="A conversation with a model: one prompt from the command line, a prompt "
                    "per line of stdin when it is not a terminal (--whole: all of it as one), "
                    "or one at a time on a terminal. " + _HELP + ".",
        epilog=epilog)
    chat.add_argument("--model", required=True,
                      help="provider:model, e.g. deepseek:deepseek-chat, "
                           "anthropic:claude-sonnet-4-5, ollama:llama3.2 "
                           "(providers: streamkit.PROVIDERS)")
    chat.add_argument("--base-url", default=None,
                      help="another base URL (any OpenAI-compatible server with a bare model name)")
    chat.add_argument("--system", default=None, help="a system prompt")
    chat.add_argument("--tool", action="append", default=[], metavar="MODULE:FUNCTION",
                      help="a Python function the model may call (repeatable); the module is "
                           "imported from the current directory or the installed packages")
    chat.add_argument("--mcp", action="append", default=[], metavar="COMMAND_OR_URL",
                      help="the tools of an MCP server (repeatable; the mcp extra): a command "
                           "line started over stdio (quoted: \"npx -y some-server\"), or the "
                           "http:// or https:// URL of a streamable HTTP server")
    chat.add_argument("--whole", action="store_true",
                      help="send the whole of stdin as one prompt instead of one per line")
    chat.add_argument("--timeout", type=float, default=None,
                      help="seconds for each answer (default: no limit)")
    chat.add_argument("--max-retries", type=int, default=2)
    chat.add_argument("--plain", action="store_true",
                      help="plain text even on a terminal (the default when piped)")
    chat.add_argument("--stats", action="store_true",
                      help="after each answer, one line: tokens, time to first token, tokens "
                           "per second and cost (with the prices extra); on stderr when piped")
    chat.add_argument("prompt", nargs="*",
                      help="what to ask; none (or -): read prompts from stdin")
    chat.set_defaults(run=run_chat_command)


# ---------------------------------------------------------------- tools


def load_tool(spec: str) -> Tool:
    """``module:function`` -> a :class:`~streamkit.conversation.tools.Tool` (the current
    directory is importable). A spec that does not name a function is a
    :class:`UsageError` saying why."""
    module_name, sep, name = spec.partition(":")
    if not sep or not module_name or not name:
        raise UsageError(f"--tool {spec!r}: expected MODULE:FUNCTION, e.g. weather:get_weather")
    if "" not in sys.path:
        sys.path.insert(0, "")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # its own import error, a syntax error: one line, no traceback
        raise UsageError(f"--tool {spec!r}: cannot import {module_name!r}: "
                         f"{type(exc).__name__}: {exc}") from None
    func = getattr(module, name, None)
    if not callable(func):
        raise UsageError(f"--tool {spec!r}: {module_name!r} has no function {name!r}")
    try:
        return tool(func)
    except ToolDefinitionError as exc:
        raise UsageError(f"--tool {spec!r}: {exc}") from None


def load_mcp(spec: str) -> Workbench:
    """``--mcp`` -> an :class:`~streamkit.McpWorkbench`: an ``http://`` or
    ``https://`` URL is a streamable HTTP server, anything else a command line
    (split as a shell would) started over stdio. Without the ``mcp`` extra, a
    :class:`UsageError` saying how to install it."""
    try:
        from ..mcp import McpWorkbench
    except ModuleNotFoundError as missing:  # its message names the extra to install
        raise UsageError(f"--mcp: {missing}") from None
    if spec.startswith(("http://", "https://")):
        return McpWorkbench.http(spec)
    try:
        words = shlex.split(spec)
    except ValueError as error:
        raise UsageError(f"--mcp {spec!r}: {error}") from None
    if not words:
        raise UsageError("--mcp '': expected a command line or an http(s) URL")
    return McpWorkbench.stdio(*words)


async def run_calls(calls: Sequence[ToolCallBlock], tools: Sequence[Tool],
                    servers: Mapping[str, Workbench] | None = None
                    ) -> list[FunctionExecutionResult]:
    """Each call run by its tool, in order (``servers``: the workbench that has
    each of the other tools); a call to no known tool is an ``is_error``
    result the model can read (a tool's own failure is one too)."""
    by_name = {t.name: t for t in tools}
    results = []
    for call in calls:
        chosen = by_name.get(call.name)
        server = (servers or {}).get(call.name)
        if chosen is None and server is not None:
            results.append(await server.run_call(call))
        elif chosen is None:
            results.append(FunctionExecutionResult(call.id, f"no tool named {call.name!r}",
                                                   is_error=True, name=call.name))
        else:
            results.append(await chosen.run_call(call))
    return results


# ---------------------------------------------------------------- rendering


class ChatRenderer(Protocol):
    """What the session tells the screen."""

    def start(self) -> None: ...
    def event(self, item: Any, block: Block | None) -> None: ...
    def end(self, response: ChatResponse | None) -> None: ...
    def stats(self, text: str) -> None: ...
    def tool_result(self, result: FunctionExecutionResult) -> None: ...
    def info(self, text: str) -> None: ...
    def ask(self) -> None: ...


def _call_line(block: ToolCallBlock) -> str:
    """One line for a tool call: its name and arguments, JSON on one line."""
    try:
        arguments = json.dumps(json.loads(block.input or "{}"), ensure_ascii=False)
    except ValueError:
        arguments = block.input
    return f"[tool call] {block.name}({arguments})"


def _result_line(result: FunctionExecutionResult) -> str:
    kind = "tool error" if result.is_error else "tool result"
    text = " ".join(result.text.split())  # one line, whatever the tool returned
    return f"[{kind}] {result.name or 'tool'}: {text}"


class PlainChatRenderer:
    """Plain text for pipes and files: the answer as it streams, a line per tool
    call and per result; reasoning is left out (it is not the answer). The
    ``--stats`` line goes to ``err``, so ``out`` holds only the conversation."""

    def __init__(self, out: TextIO, err: TextIO | None = None) -> None:
        self.out = out
        self.err = err if err is not None else sys.stderr
        self._column = 0  # characters on the current line, so lines never glue

    def _write(self, text: str) -> None:
        if text:
            text = terminal_safe(text)
            self.out.write(text)
            newline = text.rfind("\n")
            self._column = len(text) - newline - 1 if newline >= 0 else self._column + len(text)
            self.out.flush()

    def _line(self, text: str) -> None:
        if self._column:
            self._write("\n")
        self._write(text + "\n")

    def start(self) -> None:
        self._column = 0

    def event(self, item: Any, block: Block | None) -> None:
        if isinstance(item, BlockDelta) and isinstance(item.delta, TextDelta) \
                and isinstance(block, TextBlock):
            self._write(item.delta.text)
        elif isinstance(item, BlockEnd) and isinstance(block, ToolCallBlock):
            self._line(_call_line(block))

    def end(self, response: ChatResponse | None) -> None:
        if self._column:
            self._write("\n")

    def stats(self, text: str) -> None:
        self.err.write(terminal_safe(text) + "\n")
        self.err.flush()

    def tool_result(self, result: FunctionExecutionResult) -> None:
        self._line(_result_line(result))

    def info(self, text: str) -> None:
        self._line(text)

    def ask(self) -> None:
        pass


class _LiveView:
    """The blocks of the answer being drawn, rendered when rich refreshes (at
    most 10 times a second), not per delta: a long answer stays linear."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []

    def __rich_console__(self, console: Any, options: Any) -> Iterator[Any]:
        from rich.markdown import Markdown
        from rich.text import Text

        for block in self.blocks:
            if isinstance(block, ThinkingBlock):
                body = block.thinking or ("(redacted)" if block.redacted else "")
                yield Text(terminal_safe(body), style="dim italic")
            elif isinstance(block, TextBlock):
                text = terminal_safe(block.text)
                yield Text(text, style="red") if block.refusal else \
                    Markdown(text, hyperlinks=False)
            elif isinstance(block, ToolCallBlock):
                yield Text(terminal_safe(_call_line(block)), style="cyan")


class RichChatRenderer:
    """Live markdown on a terminal (rich); provider text is never markup."""

    def __init__(self, console: Any = None) -> None:
        from rich.console import Console

        self.console = console if console is not None else Console(highlight=False)
        self._live: Any = None
        self._view = _LiveView()

    def _print(self, text: str, style: str) -> None:
        from rich.text import Text

        self.console.print(Text(terminal_safe(text), style=style))

    def start(self) -> None:
        from rich.live import Live

        self._view = _LiveView()
        self._live = Live(self._view, console=self.console, refresh_per_second=10,
                          transient=False)
        self._live.start()

    def event(self, item: Any, block: Block | None) -> None:
        if isinstance(item, BlockStart) and block is not None:
            self._view.blocks.append(block)

    def end(self, response: ChatResponse | None) -> None:
        if self._live is not None:
            self._live.refresh()
            self._live.stop()
            self._live = None
        if response is None:  # it failed: the error is said once, on stderr
            return
        usage = response.usage
        tokens = "" if usage is None else \
            f" · {usage.input_tokens or 0} in / {usage.output_tokens or 0} out tokens"
        self._print(f"{response.finished_reason}{tokens}", "dim")

    def stats(self, text: str) -> None:
        self._print(text, "dim")

    def tool_result(self, result: FunctionExecutionResult) -> None:
        self._print(_result_line(result), "red" if result.is_error else "green")

    def info(self, text: str) -> None:
        self._print(text, "yellow")

    def ask(self) -> None:
        from rich.text import Text

        self.console.print(Text("you> ", style="bold blue"), end="")


def _renderer(plain: bool) -> ChatRenderer:
    if not plain and sys.stdout.isatty():
        try:
            return RichChatRenderer()
        except ImportError:  # the cli extra is not installed: plain text still works
            pass
    return PlainChatRenderer(sys.stdout, sys.stderr)


# ---------------------------------------------------------------- the conversation


class ChatSession:
    """One conversation: the history, the client, the tools. :meth:`ask` runs
    one prompt through the tool loop; commands change the session."""

    def __init__(self, model: str, *, make_client: Callable[[str], Any], system: str | None,
                 tools: Sequence[Tool], renderer: ChatRenderer, stats: bool = False,
                 workbenches: Sequence[Workbench] = ()) -> None:
        self.make_client = make_client
        self.stats = stats  # a summary line after each answer
        self.client = make_client(model)
        self.system = system
        self.tools = list(tools)
        self.workbenches = list(workbenches)  # started by the conversation (_converse)
        self._servers: dict[str, Workbench] = {}  # which workbench has each tool offered
        self.renderer = renderer
        self.messages: list[Message] = []
        self.reset()

    def reset(self) -> None:
        """Forget the conversation (the system prompt stays)."""
        self.messages = [SystemMessage(self.system)] if self.system else []

    async def switch(self, model: str) -> None:
        """Go on with another model; the conversation goes along (each turn is
        sent in the new provider's format)."""
        client = self.make_client(model)
        await self.client.close()
        self.client = client

    async def close(self) -> None:
        await self.client.close()

    async def command(self, line: str) -> bool:
        """Run ``/reset``, ``/model [provider:model]``, ``/help``; ``False`` for
        ``/exit``. An unknown command says which there are."""
        name, _, rest = line.strip().partition(" ")
        rest = rest.strip()
        if name in ("/exit", "/quit"):
            return False
        if name == "/reset":
            self.reset()
            self.renderer.info("(conversation forgotten)")
        elif name == "/model" and rest:
            await self.switch(rest)
            self.renderer.info(f"(now {self.client.provider.title}: {self.client.model})")
        elif name == "/model":
            self.renderer.info(f"({self.client.provider.title}: {self.client.model})")
        else:
            self.renderer.info(f"unknown command {name!r}; {_HELP}")
        return True

    async def ask(self, prompt: str) -> ChatResponse:
        """One prompt: stream the answer, run the tools it calls, send their
        results back, until it answers without a call. On an error the
        conversation is left as it was before the prompt."""
        kept = len(self.messages)
        self.messages.append(UserMessage(prompt))
        try:
            for _ in range(MAX_TOOL_ROUNDS):
                response = await self._turn()
                self.messages.append(response)
                if not response.tool_calls:
                    return response
                results = await run_calls(response.tool_calls, self.tools, self._servers)
                for result in results:
                    self.renderer.tool_result(result)
                self.messages.append(FunctionExecutionResultMessage(results))
            raise StreamError(f"no answer after {MAX_TOOL_ROUNDS} rounds of tool calls",
                              partial=response)
        except BaseException:
            del self.messages[kept:]
            raise

    async def _offered(self) -> list[Tool]:
        """The ``--tool`` functions and each workbench's tools of this moment
        (an MCP server's list may change after a call)."""
        offered, self._servers = list(self.tools), {}
        for workbench in self.workbenches:
            for listed in await workbench.list_tools():
                offered.append(listed)
                self._servers[listed.name] = workbench
        return offered

    async def _turn(self) -> ChatResponse:
        tools = await self._offered()
        renderer = self.renderer
        renderer.start()
        final: ChatResponse | None = None
        try:
            async with self.client.stream(self.messages, tools=tools or None) as events:
                async for item in events:
                    if isinstance(item, BlockStart | BlockDelta | BlockEnd):
                        renderer.event(item, events.block(item))
                final = events.response
        finally:
            renderer.end(final)
        line = summary_line(final) if self.stats else ""
        if line:  # empty when nothing is known: no usage, timing or price
            renderer.stats(line)
        return final


# ---------------------------------------------------------------- prompts


def _stdin_prompts(whole: bool) -> Iterator[str]:
    """Prompts from stdin: each non-blank line, or all of it as one."""
    if whole:
        text = sys.stdin.read()
        if text.strip():
            yield text.strip()
        return
    for line in sys.stdin:
        if line.strip():
            yield line.rstrip("\r\n")


def _terminal_prompts(renderer: ChatRenderer) -> Iterator[str]:
    """Prompts typed on a terminal, one a line, until end of input."""
    while True:
        renderer.ask()
        line = sys.stdin.readline()
        if not line:
            return
        if line.strip():
            yield line.rstrip("\r\n")


async def _converse(session: ChatSession, prompts: Iterator[str], *, interactive: bool) -> int:
    """Every prompt in turn, the MCP servers started for them; the exit status."""
    try:
        async with contextlib.AsyncExitStack() as servers:
            try:
                for workbench in session.workbenches:
                    await servers.enter_async_context(workbench)
            except ToolServerError as error:
                _error(f"error: {terminal_safe(str(error))[:2000]}")
                return 2
            return await _each_prompt(session, prompts, interactive=interactive)
    finally:
        await session.close()


async def _each_prompt(session: ChatSession, prompts: Iterator[str], *,
                       interactive: bool) -> int:
    """Every prompt in turn; the exit status."""
    status = 0
    for prompt in prompts:
        if prompt.startswith("/"):
            try:
                if not await session.command(prompt):
                    break
            except ProviderConfigError as error:
                _error(f"error: {_config_reason(error)}")
                if not interactive:
                    return 2
            continue
        try:
            await session.ask(prompt)
            status = 0
        except (StreamError, ToolServerError) as error:
            _error(f"{type(error).__name__}: {terminal_safe(str(error))[:2000]}")
            status = 1
            if not interactive:
                return 1
        except ValueError as error:  # an option or tool the wire format cannot express
            _error(f"error: {terminal_safe(str(error))[:2000]}")
            status = 2
            if not interactive:
                return 2
    return status


def _error(text: str) -> None:
    print(f"{_PROG}: {text}", file=sys.stderr, flush=True)


def _config_reason(error: ProviderConfigError) -> str:
    if error.missing and "API key" in str(error):
        return f"no API key: set {' or '.join(error.missing)} in the environment"
    return str(error)


def run_chat_command(args: argparse.Namespace) -> int:
    """The ``chat`` command; its exit status (see :data:`EXIT_CODES`)."""
    from ..client.client import Client
    from ..client.timeouts import Timeouts

    def make_client(model: str) -> Client:
        return Client(model, base_url=args.base_url, max_retries=args.max_retries,
                      timeout=Timeouts(total=args.timeout))

    try:
        tools = [load_tool(spec) for spec in args.tool]
        workbenches = [load_mcp(spec) for spec in args.mcp]
        renderer = _renderer(args.plain)
        session = ChatSession(args.model, make_client=make_client, system=args.system,
                              tools=tools, renderer=renderer, stats=args.stats,
                              workbenches=workbenches)
    except UsageError as error:
        _error(f"error: {error}")
        return 2
    except ProviderConfigError as error:
        _error(f"error: {_config_reason(error)}")
        return 2
    given = " ".join(args.prompt)
    interactive = not given and not args.whole and sys.stdin.isatty()
    if given and given != "-":
        prompts: Iterator[str] = iter([given])
    elif interactive:
        prompts = _terminal_prompts(renderer)
    else:
        prompts = _stdin_prompts(args.whole)
    try:
        return anyio.run(lambda: _converse(session, prompts, interactive=interactive))
    except KeyboardInterrupt:
        _error("interrupted")
        return 130
