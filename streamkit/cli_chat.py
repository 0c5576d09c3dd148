"""``python -m streamkit chat --model deepseek:deepseek-chat "prompt"``: one live answer.

The answer streams through the same renderers as the demo (rich on a terminal,
plain lines otherwise), every piece of it through
:func:`~streamkit.cli.terminal_safe`. The key comes from the provider's
environment variable only (a key on the command line would land in the shell
history): without it the command says which variable to set and exits with 2.
A provider or transport error prints one line and exits with 1; the key is in
neither.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import anyio

from .blocks import Block
from .errors import StreamError
from .events import BlockDelta, BlockEnd, BlockStart
from .messages import Message, SystemMessage, UserMessage
from .registry import ProviderConfigError
from .response import ChatResponse

_PROG = "python -m streamkit chat"


def add_chat_command(sub: Any) -> None:
    """Register ``chat`` on the CLI's subparsers (``sub.add_parser``)."""
    chat = sub.add_parser("chat", help="stream one answer from a provider, live (key from its "
                                       "environment variable)")
    chat.add_argument("--model", required=True,
                      help="provider:model, e.g. deepseek:deepseek-chat, "
                           "anthropic:claude-sonnet-4-5, ollama:llama3.2 "
                           "(providers: streamkit.PROVIDERS)")
    chat.add_argument("--base-url", default=None,
                      help="another base URL (any OpenAI-compatible server with a bare model name)")
    chat.add_argument("--system", default=None, help="a system prompt")
    chat.add_argument("--timeout", type=float, default=None,
                      help="seconds for the whole answer (default: no limit)")
    chat.add_argument("--max-retries", type=int, default=2)
    chat.add_argument("--plain", action="store_true", help="plain lines, no live rendering")
    chat.add_argument("prompt", nargs="+", help="what to ask")
    chat.set_defaults(run=run_chat_command)


def run_chat_command(args: argparse.Namespace) -> int:
    """0 when the answer came, 1 on a provider or transport error, 2 when the
    client cannot be made (an unknown provider, a missing key)."""
    from .client import Client, Timeouts

    try:
        client = Client(args.model, base_url=args.base_url, max_retries=args.max_retries,
                        timeout=Timeouts(total=args.timeout))
    except ProviderConfigError as error:
        reason = (f"no API key: set {' or '.join(error.missing)} in the environment"
                  if error.missing and "API key" in str(error) else str(error))
        print(f"{_PROG}: error: {reason}", file=sys.stderr)
        return 2
    messages: list[Message] = []
    if args.system:
        messages.append(SystemMessage(args.system))
    messages.append(UserMessage(" ".join(args.prompt)))
    try:
        anyio.run(lambda: _chat(client, messages, plain=args.plain))
    except StreamError as error:
        from .cli import terminal_safe

        print(f"{_PROG}: {type(error).__name__}: {terminal_safe(str(error))[:2000]}",
              file=sys.stderr)
        return 1
    except ValueError as error:  # an option the provider's wire format cannot express
        print(f"{_PROG}: error: {error}", file=sys.stderr)
        return 2
    return 0


async def _chat(client: Any, messages: list[Message], *, plain: bool) -> ChatResponse:
    """Stream the answer through the demo's renderer; the final response."""
    from .cli import _renderer, terminal_safe

    renderer = _renderer(plain)
    async with client:
        renderer.title(terminal_safe(f"{client.provider.title}: {client.model}"))
        async with client.stream(messages) as events:
            async for item in events:
                if isinstance(item, (BlockStart, BlockDelta, BlockEnd)):
                    block: Block | None = events.block(item)
                    renderer.event(item, block)
                elif not isinstance(item, ChatResponse):
                    renderer.event(item, None)
            final: ChatResponse = events.response
        renderer.finish(final, None)
    return final
