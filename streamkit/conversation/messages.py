"""The conversation you send: one message model for every provider.

A conversation is a list of messages, encoded for any wire format by
:func:`streamkit.build_request` and read back from any recorded request by
:func:`streamkit.parse_request`. The names follow autogen's
(``autogen_core.models``) where they fit:

=====================================  =========================================
streamkit                              autogen_core.models
=====================================  =========================================
:class:`SystemMessage`                 ``SystemMessage`` (``content: str``)
:class:`UserMessage`                   ``UserMessage`` (``content``: text and
                                       images; here also audio and files, as
                                       :class:`~streamkit.model.blocks.DataBlock` s)
:class:`AssistantMessage`, or a        ``AssistantMessage`` (``content``: text
:class:`~streamkit.ChatResponse` as    or ``FunctionCall`` s, ``thought``); here
it came back                           every block, with signatures kept
:class:`FunctionExecutionResult`       ``FunctionExecutionResult`` (``call_id``,
                                       ``content``, ``is_error``, ``name``)
:class:`FunctionExecutionResultMessage` ``FunctionExecutionResultMessage``
=====================================  =========================================

``cache`` on every message (and on a block, a tool result, a tool) is a
:class:`~streamkit.model.cache.CachePoint`: the prompt up to there is worth
caching, written in each wire's own mechanism (``docs/caching.md``).

``metadata`` on every message holds what a wire format says about a message
that this model has no field for (an OpenAI ``name``, an Anthropic
``cache_control``, a Gemini role spelling), so a request read by
``parse_request`` is rebuilt by ``build_request`` exactly. Blocks keep their own
wire extras in their own ``metadata``; provider items the model cannot express
(server tool calls and results, MCP, compaction, documents) are
:class:`~streamkit.model.blocks.RawBlock` s that go back verbatim to the wire format
they came from.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from ..model.blocks import ContentBlock, DataBlock, RawBlock, TextBlock
from ..model.cache import CachePoint
from ..model.errors import InvalidMessageError
from ..model.response import ChatResponse

UserContent = TextBlock | DataBlock | RawBlock

_BlockT = TypeVar("_BlockT", bound=ContentBlock)


class _Blocks(Generic[_BlockT]):
    """What a user's and an assistant's turn share: content given as a string
    (one text block) or as blocks."""

    content: str | list[_BlockT]

    @property
    def blocks(self) -> list[_BlockT]:
        """The content as blocks (a string is one text block)."""
        if isinstance(self.content, str):
            return [TextBlock(self.content)]  # type: ignore[list-item]  # text is every kind's
        return list(self.content)


@dataclass
class SystemMessage:
    """Instructions for the model (a ``system`` / ``developer`` message, Anthropic's
    and Gemini's top-level system prompt)."""

    content: str | list[TextBlock]
    metadata: dict[str, Any] = field(default_factory=dict)
    cache: CachePoint | None = None
    """A prompt-cache point after the whole message (:mod:`streamkit.model.cache`)."""

    @property
    def text(self) -> str:
        """The instructions as one string."""
        if isinstance(self.content, str):
            return self.content
        return "".join(block.text for block in self.content)


@dataclass
class UserMessage(_Blocks[UserContent]):
    """What the user says: text, and images, audio or files as
    :class:`~streamkit.model.blocks.DataBlock` s (inline bytes or a URL)."""

    content: str | list[UserContent]
    name: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    cache: CachePoint | None = None
    """A prompt-cache point after the whole message (:mod:`streamkit.model.cache`)."""


@dataclass
class AssistantMessage(_Blocks[ContentBlock]):
    """A model's earlier turn: its blocks as they came back, thinking with its
    signature and encrypted reasoning included.

    ``provider`` is the registry name of the API that wrote it: signatures and
    encrypted reasoning only go back to the wire format that issued them (see
    :mod:`streamkit.conversation.request`). A :class:`~streamkit.ChatResponse` in a message
    list is the same as ``AssistantMessage.from_response(response)``.
    """

    content: str | list[ContentBlock]
    provider: str | None = None
    name: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    cache: CachePoint | None = None
    """A prompt-cache point after the whole message (:mod:`streamkit.model.cache`)."""

    @classmethod
    def from_response(cls, response: ChatResponse) -> AssistantMessage:
        """The turn a response stands for (its blocks, not copies: nothing is re-encoded)."""
        return cls(content=list(response.content), provider=response.provider)


@dataclass
class FunctionExecutionResult:
    """The result of one tool call: text, or text and images / files."""

    call_id: str
    content: str | list[TextBlock | DataBlock]
    is_error: bool = False
    name: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    cache: CachePoint | None = None
    """A prompt-cache point after the whole message (:mod:`streamkit.model.cache`)."""

    @property
    def blocks(self) -> list[TextBlock | DataBlock]:
        """The content as blocks (a string is one text block)."""
        if isinstance(self.content, str):
            return [TextBlock(self.content)]
        return list(self.content)

    @property
    def text(self) -> str:
        """The text parts joined (what a wire that takes only text receives)."""
        if isinstance(self.content, str):
            return self.content
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))


@dataclass
class FunctionExecutionResultMessage:
    """The results of one assistant turn's tool calls, sent back together."""

    content: list[FunctionExecutionResult]
    metadata: dict[str, Any] = field(default_factory=dict)
    cache: CachePoint | None = None
    """A prompt-cache point after the whole message (:mod:`streamkit.model.cache`)."""

    def __post_init__(self) -> None:
        check_items(self.content, FunctionExecutionResult, "FunctionExecutionResultMessage.content",
                    "a FunctionExecutionResult")


Message = (
    SystemMessage
    | UserMessage
    | AssistantMessage
    | FunctionExecutionResultMessage
    | ChatResponse
)


def as_assistant(message: AssistantMessage | ChatResponse) -> AssistantMessage:
    """A :class:`~streamkit.ChatResponse` in a message list as the turn it stands for."""
    if isinstance(message, ChatResponse):
        return AssistantMessage.from_response(message)
    return message


def check_items(items: Iterable[object], expected: type | Any, where: str, what: str) -> None:
    """Refuse, naming its place, the first of ``items`` that is not ``expected``
    (a class or a union; ``what`` says it in words): a wire's builder would
    fail on it far from the mistake, or write it wrong."""
    for index, item in enumerate(items):
        if not isinstance(item, expected):
            raise _not_expected(item, f"{where}[{index}]", what)


def _not_expected(item: object, place: str, what: str) -> InvalidMessageError:
    """The error for ``item`` at ``place``, where ``what`` belongs; an
    awaitable is an async call not awaited (``tool.run_call(call)`` in sync
    code), said as such."""
    if not inspect.isawaitable(item):
        return InvalidMessageError(f"{place} holds a {type(item).__name__} object, "
                                   f"where {what} belongs")
    name = getattr(item, "__qualname__", type(item).__name__)
    if inspect.iscoroutine(item):
        item.close()  # it never runs: no "never awaited" warning on top of this error
    twin = f"; in sync code call {name}_sync instead" if name.startswith("Tool.run_") else ""
    return InvalidMessageError(f"{place} holds {name}(...) not awaited, where {what} "
                               f"belongs: await it in async code{twin}")
