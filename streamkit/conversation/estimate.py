"""A request's input tokens estimated here, for an API with no count endpoint.

OpenAI Chat Completions (and every vendor of its wire) and Ollama cannot count
a request's tokens before it is sent, and no tokenizer is a dependency of
streamkit (each model has its own). :func:`estimate_tokens` uses the usual
rule of thumb instead, one token per :data:`CHARS_PER_TOKEN` characters of
English text (OpenAI's "a token is about 4 characters"), over the text a
request carries: the system prompt, every turn's text and visible thinking,
tool calls' names and arguments, tool results' text, and the tools' names,
descriptions and parameter schemas. Media (images, audio, files) is not
counted: its tokens depend on the model, not on its bytes. The count says it
is an estimate and how it was made; it is never shown as a provider's count.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ..model.blocks import ToolCallBlock, ToolResultBlock
from ..model.merge import streamed_text
from ..model.response import ChatResponse
from ..model.token_count import TokenCount
from .messages import FunctionExecutionResultMessage, Message, SystemMessage, as_assistant
from .request import Request
from .tools import Tool

__all__ = ["CHARS_PER_TOKEN", "ESTIMATE_METHOD", "estimate_tokens"]

#: Characters per token of the estimate (English text's rule of thumb).
CHARS_PER_TOKEN = 4

#: How :func:`estimate_tokens` counts, as :attr:`TokenCount.method` says it.
ESTIMATE_METHOD = f"characters/{CHARS_PER_TOKEN}"


def estimate_tokens(request: Request, *, provider: str | None = None) -> TokenCount:
    """The estimated input tokens of ``request``: its text's characters divided
    by :data:`CHARS_PER_TOKEN`, rounded up (see the module docstring)."""
    characters = sum(map(len, _texts(request)))
    return TokenCount(-(-characters // CHARS_PER_TOKEN), estimated=True, method=ESTIMATE_METHOD,
                      provider=provider)


def _texts(request: Request) -> Iterator[str]:
    """Every text of ``request`` that reaches the model's input."""
    for message in request.messages:
        yield from _message_texts(message)
    for tool in request.tools or ():
        yield from _tool_texts(tool)


def _message_texts(message: Message) -> Iterator[str]:
    if isinstance(message, SystemMessage):
        yield message.text
    elif isinstance(message, FunctionExecutionResultMessage):
        for result in message.content:
            yield result.text
    else:
        turn = as_assistant(message) if isinstance(message, ChatResponse) else message
        for block in turn.blocks:
            yield from _block_texts(block)


def _block_texts(block: Any) -> Iterator[str]:
    """A block's text: what its deltas grow (a text, visible thinking, a call's
    arguments; nothing for media and raw items), a call's name, a result's parts."""
    if isinstance(block, str):  # a plain string in a content list is text
        yield block
    elif isinstance(block, ToolResultBlock):
        for part in block.content:
            yield from _block_texts(part)
    else:
        if isinstance(block, ToolCallBlock):
            yield block.name
        yield streamed_text(block)


def _tool_texts(tool: Tool | dict[str, Any]) -> Iterator[str]:
    if isinstance(tool, Tool):
        yield tool.name
        yield tool.description
        yield json.dumps(tool.parameters, separators=(",", ":"))
    else:  # a wire's own tool declaration, counted as its JSON
        yield json.dumps(tool, separators=(",", ":"))
