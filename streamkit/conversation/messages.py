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
Content given as a list may hold plain strings beside blocks, the way people
write it (``UserMessage(["Describe this:", image])``): each string is a
:class:`~streamkit.model.blocks.TextBlock` from the moment the message is made,
so every wire writes it as text. Anything else that is no block (bytes, a
wire format's own part as a dict) raises
:class:`~streamkit.model.errors.InvalidMessageError` naming the item and what to
give instead.

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
from typing import Any, ClassVar, Generic, TypeVar

from ..model.blocks import ContentBlock, DataBlock, RawBlock, TextBlock
from ..model.cache import CachePoint
from ..model.errors import InvalidMessageError
from ..model.response import ChatResponse

UserContent = TextBlock | DataBlock | RawBlock

_BlockT = TypeVar("_BlockT", bound=ContentBlock)


class _Blocks(Generic[_BlockT]):
    """What a user's and an assistant's turn share: content given as a string
    (one text block) or as blocks, strings among them being text blocks."""

    content: str | list[_BlockT]
    _block_types: ClassVar[Any]
    _block_words: ClassVar[str]

    def __post_init__(self) -> None:
        self.content = content_blocks(self.content, self._block_types,
                                      f"{type(self).__name__}.content", self._block_words)

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

    def __post_init__(self) -> None:
        self.content = content_blocks(self.content, TextBlock, "SystemMessage.content",
                                      "a TextBlock")

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
    _block_types: ClassVar[Any] = UserContent
    _block_words: ClassVar[str] = "a TextBlock, a DataBlock or a RawBlock"


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
    _block_types: ClassVar[Any] = ContentBlock
    _block_words: ClassVar[str] = "a content block"

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

    def __post_init__(self) -> None:
        self.content = content_blocks(self.content, TextBlock | DataBlock,
                                      "FunctionExecutionResult.content",
                                      "a TextBlock or a DataBlock")

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


def content_blocks(content: Any, expected: Any, where: str, what: str) -> Any:
    """A message's ``content`` as it is stored: a string as it is, a list whose
    plain strings are :class:`~streamkit.model.blocks.TextBlock` s (the list
    itself when it holds none, so a caller's list stays the message's). Any
    other item that is not ``expected`` (``what`` in words) raises
    :class:`~streamkit.model.errors.InvalidMessageError` naming it, as would
    content that is neither a string nor a list."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise InvalidMessageError(
            f"{where} holds a {type(content).__name__} object, where a string or a list "
            f"of blocks ({what}, or strings) belongs")
    if any(isinstance(item, str) for item in content):
        content = [TextBlock(item) if isinstance(item, str) else item for item in content]
    check_items(content, expected, where, f"{what} (or a string)")
    return content


def check_items(items: Iterable[object], expected: type | Any, where: str, what: str) -> None:
    """Refuse, naming its place, the first of ``items`` that is not ``expected``
    (a class or a union; ``what`` says it in words): a wire's builder would
    fail on it far from the mistake, or write it wrong."""
    for index, item in enumerate(items):
        if not isinstance(item, expected):
            raise _not_expected(item, f"{where}[{index}]", what)


# What to give instead of an item people plausibly put in a content list.
_ADVICE: dict[type, str] = {
    bytes: ": wrap bytes in a DataBlock (DataBlock(media_type=..., "
           "source=Base64Source(data, media_type)))",
    bytearray: ": wrap bytes in a DataBlock (DataBlock(media_type=..., "
               "source=Base64Source(bytes(data), media_type)))",
    dict: ": a wire format's own part is read by parse_request from a whole body; "
          "in a message give TextBlock(...) / DataBlock(...)",
}


def _not_expected(item: object, place: str, what: str) -> InvalidMessageError:
    """The error for ``item`` at ``place``, where ``what`` belongs; an
    awaitable is an async call not awaited (``tool.run_call(call)`` in sync
    code), said as such."""
    if not inspect.isawaitable(item):
        return InvalidMessageError(f"{place} holds a {type(item).__name__} object, "
                                   f"where {what} belongs{_ADVICE.get(type(item), '')}")
    name = getattr(item, "__qualname__", type(item).__name__)
    if inspect.iscoroutine(item):
        item.close()  # it never runs: no "never awaited" warning on top of this error
    twin = f"; in sync code call {name}_sync instead" if name.startswith("Tool.run_") else ""
    return InvalidMessageError(f"{place} holds {name}(...) not awaited, where {what} "
                               f"belongs: await it in async code{twin}")
