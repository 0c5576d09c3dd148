"""``python -m streamkit demo``, ``replay FILE``, ``web``, and ``chat`` (in :mod:`.cli_chat`).

The demo starts a :class:`~streamkit.testing.ReplayServer` in-process, streams a
bundled recorded conversation over real HTTP (thinking, text, a tool call,
then spoken audio) and renders every block live as it arrives: with ``rich``
on a terminal, as plain lines otherwise. ``replay`` prints the normalised
events of any recorded stream and the final response.

Everything a stream says is untrusted: every piece of stream content the CLI
prints (text, reasoning, tool names and arguments, media types, error
messages) goes through :func:`terminal_safe`, so a stream cannot clear the
screen, retitle the window or write the clipboard (OSC 52) of whoever replays
it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any, TextIO

import anyio
import httpx

from ..__about__ import install_line
from ..model.blocks import Block, DataBlock, TextBlock, ThinkingBlock, ToolCallBlock
from ..model.errors import ProviderConfigError, StreamError
from ..model.events import BlockDelta, BlockEnd, BlockStart, Event, event_to_dict
from ..model.response import ChatResponse
from ..reading.pipeline import replay
from ..reading.stream import Stream, stream
from ..testing.recordings import load_recording
from ..testing.server import ReplayServer
from .terminal import terminal_safe

#: The commands that need one of the optional extras, and which one (pyproject.toml
#: says what each extra holds); the others run on the core install.
COMMAND_EXTRAS = {"web": "web", "gateway": "gateway"}

DEMO_TURNS = (
    ("thinking-signature.sse", "anthropic", "Claude thinks, then answers"),
    ("tool-use.sse", "anthropic", "Claude calls a tool"),
    ("openai-chat-audio.sse", "openai", "GPT speaks (24 kHz PCM audio)"),
)


# ---------------------------------------------------------------- rendering

_DESCRIPTION = (
    "streamkit's command line. 'demo' streams a recorded conversation over real HTTP and "
    "renders it live; 'chat' talks with a model; 'web' serves the demo page; 'replay FILE' "
    "prints the normalised events and the final response of a recorded stream (.sse, "
    ".ndjson, .chunks.jsonl or a raw body in .txt). Each command has its own --help."
)

def _block_line(block: Block, width: int = 100) -> tuple[str, str]:
    """(style, text) describing a block's current state in one line or more,
    safe for a terminal."""
    style, text = _describe(block)
    return style, terminal_safe(text)


def _describe(block: Block) -> tuple[str, str]:
    if isinstance(block, ThinkingBlock):
        body = block.thinking or ("[redacted]" if block.redacted else "")
        sig = " [signed]" if block.signature else ""
        return "dim italic", f"thinking{sig}: {body}"
    if isinstance(block, TextBlock):
        return ("red" if block.refusal else ""), block.text
    if isinstance(block, ToolCallBlock):
        return "cyan", f"tool call {block.name}({block.input})"
    if isinstance(block, DataBlock):
        seconds = block.duration
        got = f"{seconds:.2f} s of audio" if seconds is not None else f"{len(block.data)} bytes"
        transcript = f" — “{block.transcript}”" if block.transcript else ""
        return "magenta", f"audio {block.media_type}: {got} received{transcript}"
    return "yellow", f"{block.type} block"


def summarise(response: ChatResponse) -> list[str]:
    """A few lines about a final response: blocks, usage, finish reason."""
    lines = [f"blocks: {', '.join(b.type for b in response.content) or 'none'}"]
    usage = response.usage
    if usage is not None:
        known = {k: v for k, v in usage.to_dict().items()
                 if k.endswith("tokens") and v is not None}
        lines.append("usage: " + ", ".join(f"{k}={v}" for k, v in known.items()))
    stop_reason = terminal_safe(repr(response.stop_reason))
    lines.append(f"finish: {response.finished_reason} (provider said {stop_reason}"
                 f"{'' if response.terminated else ', no terminator seen'})")
    return lines


class PlainRenderer:
    """Line-oriented output for pipes and logs: no cursor movement, no colour."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self._audio_printed = 0

    def title(self, text: str) -> None:
        self.out.write(f"\n== {text} ==\n")

    def event(self, event: Event, block: Block | None) -> None:
        """Render one event; ``block`` is the stream's live block it belongs to."""
        if isinstance(event, BlockStart):
            name = getattr(event.block, "name", None)
            name = terminal_safe(name) if isinstance(name, str) else None
            self.out.write(f"[{event.block.type}{' ' + name if name else ''}] ")
        elif isinstance(event, BlockDelta):
            delta = event.delta
            text = getattr(delta, "text", None) or getattr(delta, "thinking", None) \
                or getattr(delta, "partial_json", None)
            if text and type(delta).__name__ != "TranscriptDelta":
                self.out.write(terminal_safe(text))
        elif isinstance(event, BlockEnd):
            if isinstance(block, DataBlock):
                self.out.write(_block_line(block)[1])
            self.out.write("\n")
        self.out.flush()

    def finish(self, response: ChatResponse, wav: Path | None) -> None:
        for line in summarise(response):
            self.out.write(f"  {line}\n")
        if wav is not None:
            self.out.write(f"  audio written to {wav}\n")


class RichRenderer:
    """Live terminal rendering with rich: every block redrawn as it grows."""

    def __init__(self, console: Any = None) -> None:
        from rich.console import Console

        self.console = console if console is not None else Console()
        self._live: Any = None
        self._blocks: list[Block] = []

    def title(self, text: str) -> None:
        from rich.live import Live
        from rich.text import Text

        self._stop()
        self.console.rule(Text(text, style="bold"))
        self._blocks = []
        self._live = Live(self._render(), console=self.console, refresh_per_second=20,
                          transient=False)
        self._live.start()

    def _render(self) -> Any:
        from rich.console import Group
        from rich.text import Text

        return Group(*(Text(line, style=style)
                       for style, line in (_block_line(b) for b in self._blocks)))

    def event(self, event: Event, block: Block | None) -> None:
        """Redraw; a new block's live state (``block``) joins the drawn list."""
        if isinstance(event, BlockStart) and block is not None:
            self._blocks.append(block)
        if isinstance(event, (BlockStart, BlockDelta, BlockEnd)) and self._live is not None:
            self._live.update(self._render())

    def _stop(self) -> None:
        if self._live is not None:
            self._live.update(self._render(), refresh=True)
            self._live.stop()
            self._live = None

    def finish(self, response: ChatResponse, wav: Path | None) -> None:
        from rich.text import Text

        self._stop()
        for line in summarise(response):  # Text, never markup: provider words are not rich's
            self.console.print(Text(f"  {line}", style="green"))
        if wav is not None:
            self.console.print(Text(f"  audio written to {terminal_safe(str(wav))}",
                                    style="bold green"))


def _renderer(plain: bool) -> PlainRenderer | RichRenderer:
    if not plain and sys.stdout.isatty():
        try:
            return RichRenderer()
        except ImportError:
            pass
    return PlainRenderer(sys.stdout)


# ---------------------------------------------------------------- demo


async def run_demo(*, plain: bool = False, delay: float = 0.004, chunk_size: int = 64,
                   wav_dir: Path | None = None) -> list[ChatResponse]:
    """Stream the bundled conversation over real HTTP and render it live."""
    renderer = _renderer(plain)
    data = resources.files("streamkit") / "demo_data"
    finals: list[ChatResponse] = []
    async with ReplayServer() as server, httpx.AsyncClient(base_url=server.url) as client:
        for number, (name, provider, title) in enumerate(DEMO_TURNS, 1):
            body, content_type = load_recording(Path(str(data / name)))
            size = chunk_size if "audio" not in name else chunk_size * 64
            server.add(f"/turn/{number}", body, content_type=content_type, chunk_size=size,
                       delay=delay)
            renderer.title(f"turn {number}: {title} ({provider}, {len(body):,} bytes)")
            async with client.stream("POST", f"/turn/{number}", json={"turn": number}) as http:
                events = stream(http, provider)
                assert isinstance(events, Stream)  # an async client's response
                async with events:
                    async for item in events:
                        if isinstance(item, (BlockStart, BlockDelta, BlockEnd)):
                            renderer.event(item, events.block(item))
                        elif not isinstance(item, ChatResponse):
                            renderer.event(item, None)
                    final = events.response
            wav = _write_audio(final, wav_dir or Path.cwd())
            renderer.finish(final, wav)
            finals.append(final)
    return finals


def _write_audio(response: ChatResponse, directory: Path) -> Path | None:
    for block in response.data_blocks:
        if block.is_pcm and block.data:
            path = directory / "demo-audio.wav"
            path.write_bytes(block.to_wav())
            return path
    return None


# ---------------------------------------------------------------- replay


def run_replay(path: Path, provider: str, as_json: bool, out: TextIO) -> ChatResponse:
    """Print the normalised events of a recorded stream, then the final response.

    JSON is written ASCII-only (``json.dumps``' default), so no stream content
    reaches the terminal raw; a stream that fails (a provider's in-stream error
    included) prints its events and the partial response, and the
    :class:`~streamkit.model.errors.StreamError` is raised on."""
    body, _ = load_recording(path) if path.suffix != ".txt" else (path.read_bytes(), "")
    try:
        events, final = replay(body, provider)
    except StreamError as error:
        _print_events(error.events, as_json, out)
        if error.partial is not None:
            _print_response(error.partial, as_json, out, "partial response")
        raise
    _print_events(events, as_json, out)
    _print_response(final, as_json, out, "final response")
    return final


def _print_events(events: Sequence[Event], as_json: bool, out: TextIO) -> None:
    for event in events:
        if as_json:
            out.write(json.dumps(event_to_dict(event), default=str) + "\n")
        else:
            out.write(_event_line(event) + "\n")


def _print_response(response: ChatResponse, as_json: bool, out: TextIO, title: str) -> None:
    if as_json:
        out.write(json.dumps(response.to_dict(), default=str) + "\n")
        return
    out.write(f"{title}:\n")
    for line in summarise(response):
        out.write(f"  {line}\n")
    for block in response.content:
        out.write(f"  - {_block_line(block)[1][:300]}\n")


def _event_line(event: Event) -> str:
    fields = event_to_dict(event)
    kind = fields.pop("type")
    fields.pop("block", None)
    text = json.dumps(fields, default=str)
    return f"{kind:<18} {text[:200]}"


def build_parser() -> argparse.ArgumentParser:
    """The command line's parser: every command and its options."""
    parser = argparse.ArgumentParser(prog="python -m streamkit", description=_DESCRIPTION)
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="stream a recorded conversation over real HTTP, live")
    demo.add_argument("--plain", action="store_true", help="plain lines, no live rendering")
    demo.add_argument("--delay", type=float, default=0.004, help="seconds between chunks")
    demo.add_argument("--wav-dir", type=Path, default=None, help="where to write the audio")
    web = sub.add_parser("web", help="the demo page: the AI SDK chat in a browser "
                         f"(needs {install_line(COMMAND_EXTRAS['web'])})")
    web.add_argument("--host", default="127.0.0.1")
    web.add_argument("--port", type=int, default=8000)
    gateway = sub.add_parser("gateway", help="serve every provider's API from any other "
                             f"(needs {install_line(COMMAND_EXTRAS['gateway'])}; "
                             "see docs/gateway.md)")
    gateway.add_argument("--config", type=Path, required=True, help="the gateway's TOML file")
    gateway.add_argument("--host", default="127.0.0.1")
    gateway.add_argument("--port", type=int, default=8787)
    gateway.add_argument("--workers", type=int, default=1, help="worker processes")
    gateway.add_argument("--log-level", default="info",
                         choices=("critical", "error", "warning", "info", "debug"),
                         help="uvicorn's and the gateway's (one JSON line per request at info)")
    rep = sub.add_parser("replay", help="print the normalised events of a recorded stream")
    rep.add_argument("file", type=Path, help="a recorded stream: .sse, .ndjson, .chunks.jsonl "
                     "(one network chunk a line) or .txt (the raw body)")
    rep.add_argument("--provider", default="auto",
                     help="which API produced it: auto (default: detected from the first "
                          "payload), openai, openai-responses, anthropic, gemini, ollama, or an "
                          "OpenAI-compatible vendor (deepseek, qwen, groq, ...)")
    rep.add_argument("--json", action="store_true", help="JSON lines")
    from .chat import add_chat_command  # `chat`: its own module

    add_chat_command(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m streamkit``."""
    args = build_parser().parse_args(argv)
    try:
        return _run(args)
    except ModuleNotFoundError as error:
        extra = COMMAND_EXTRAS.get(args.command)
        if extra is None or (error.name or "streamkit").partition(".")[0] == "streamkit":
            raise  # not a missing extra: a bug, and its traceback is what helps
        print(_missing_extra_line(args.command, extra, error.name or ""), file=sys.stderr)
        return 2


def _missing_extra_line(command: str, extra: str, module: str) -> str:
    """One line for a command run without its extra: which extra, and how to
    install it (instead of a traceback ending in ``ModuleNotFoundError``)."""
    return (f"python -m streamkit {command} needs the {extra!r} extra ({module} is not "
            f"installed): {install_line(extra)}")


def _run(args: argparse.Namespace) -> int:
    """Run the command ``args`` names; its exit status."""
    if args.command == "chat":
        return int(args.run(args))
    if args.command == "demo":
        started = time.perf_counter()
        anyio.run(lambda: run_demo(plain=args.plain, delay=args.delay, wav_dir=args.wav_dir))
        print(f"\ndemo finished in {time.perf_counter() - started:.1f} s")
        return 0
    if args.command == "web":
        from ..web.demo import serve

        serve(args.host, args.port)
        return 0
    if args.command == "gateway":
        return _gateway_command(args.config, args.host, args.port, args.workers, args.log_level)
    return _replay_command(args.file, args.provider, args.json)


def _gateway_command(config: Path, host: str, port: int, workers: int,
                     log_level: str = "info") -> int:
    """``gateway``: serve until interrupted; 2 when the configuration is unusable
    (the message says where)."""
    from ..gateway.serve import serve

    try:
        serve(config, host=host, port=port, workers=workers, log_level=log_level)
    except ProviderConfigError as error:
        print(f"python -m streamkit gateway: error: {error}", file=sys.stderr)
        return 2
    return 0


def _replay_command(path: Path, provider: str, as_json: bool) -> int:
    """``replay``: 0 when the stream parses, 1 when it fails (the partial and
    a one-line error are printed), 2 when the file or provider is unusable."""
    try:
        run_replay(path, provider, as_json, sys.stdout)
    except OSError as error:
        reason = error.strerror or type(error).__name__
        print(f"python -m streamkit replay: error: cannot read {terminal_safe(str(path))!r}: "
              f"{reason}", file=sys.stderr)
        return 2
    except StreamError as error:
        print(f"python -m streamkit replay: {type(error).__name__}: "
              f"{terminal_safe(str(error))[:2000]}", file=sys.stderr)
        return 1
    except ValueError as error:  # an unknown provider name, a recording it cannot load
        print(f"python -m streamkit replay: error: {terminal_safe(str(error))}", file=sys.stderr)
        return 2
    return 0
