"""The cross-provider turn policy every wire format's request builder follows.

A conversation may carry assistant turns another API wrote (a fallback, a
hand-over between models). Each wire format keeps what it can verify of its
own turns (signatures, encrypted reasoning, item ids) and only the portable
part of another's. What that part is, block kind by block kind, is decided
here once (:data:`FOREIGN_BLOCKS`), so that the five builders cannot drift
apart on it; a wire supplies only how it writes a text and a plain tool call
(:class:`ForeignWriters`):

- text: the text alone (the other API's citations and extras mean nothing to
  the target; an empty text block is left out, as Anthropic refuses one);
- visible thinking: under ``foreign_thinking="text"`` text in ``<think>``
  tags (the form the recorded Cerebras GLM exchange replays), nothing under
  ``"drop"``; signatures, encrypted and redacted reasoning are dropped: the
  target cannot verify them and would refuse the request;
- tool calls: the call plainly (id, name, arguments); a call the other
  provider ran itself (:attr:`~streamkit.model.blocks.ToolCallBlock.server_side`) is
  dropped, since no tool result could answer it on another API;
- media (an OpenAI audio answer): what the wire can hold of it in an assistant
  turn (Ollama: images), else its transcript, else nothing;
- every other kind, provider items (:class:`~streamkit.model.blocks.RawBlock`) and
  server tools' results among them: dropped, no other API can read them. The
  table lists what passes; a block kind it does not name never crosses.

Content dropped this way (a server tool's call or result, a provider item) is
said with a :class:`~streamkit.LossyTranslationWarning` (:func:`dropped_content`);
bookkeeping (signatures, encrypted reasoning, ids) goes without a word.

A block of a wire's own turn that another wire's reader made (its metadata is
that wire's :class:`~streamkit.model.extras.Extras`) is written as another API's
(:func:`turn_parts`).

Reading, two wires (Anthropic, Gemini) put tool results among a user turn's
parts, where streamkit has messages of their own for them: :func:`user_turns`
splits such a turn, and marks the messages it made of one wire message
(:data:`SAME_TURN`) so that building writes them back into one
(:func:`joins_previous`, which also joins consecutive turns of one role that
came from elsewhere, as those two wires need alternating turns); the other
three send each result as a message of its own, and consecutive ones answer
one turn (:func:`add_result`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from ..conversation.messages import (
    AssistantMessage,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    Message,
    SystemMessage,
    UserContent,
    UserMessage,
    as_assistant,
)
from ..conversation.request import ForeignThinking
from ..model.blocks import (
    Block,
    DataBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ..model.errors import UnsupportedFeatureError, warn_lossy
from ..model.extras import Extras, origin_of
from ..model.response import ChatResponse

Part = TypeVar("Part")

#: Metadata key of a message read from the same wire message as the one before it.
SAME_TURN = "same_turn"

#: The ``foreign_thinking`` words (see :mod:`streamkit.conversation.request`).
FOREIGN_THINKING_POLICIES: tuple[ForeignThinking, ...] = ("text", "drop")


def foreign_thinking_policy(value: Any) -> ForeignThinking:
    """``value`` as the ``foreign_thinking`` policy; any other word raises, so a
    typo does not silently send (or drop) another provider's reasoning."""
    if value not in FOREIGN_THINKING_POLICIES:
        raise ValueError(f"foreign_thinking must be 'text' or 'drop', not {value!r}")
    return cast(ForeignThinking, value)


def thinking_as_text(thinking: str) -> str:
    """Reasoning the target cannot verify, kept as text the model can read: in
    ``<think>`` tags, the form reasoning models themselves write inline."""
    return f"<think>\n{thinking}\n</think>"


def is_own_turn(provider: str | None, wire: str) -> bool:
    """Whether a turn written by ``provider`` (a registry name) belongs to the
    wire format ``wire`` (any vendor of it). ``None`` (built by hand, or read
    from a body of this wire) counts as its own; a name the registry does not
    know counts as another API's, whose signatures must not be sent."""
    if provider is None:
        return True
    spoken = _registered_wire(provider)
    return spoken is not None and spoken[0] == wire


def is_own_vendor_turn(provider: str | None, wire: str, dialect: str | None) -> bool:
    """Like :func:`is_own_turn`, but the vendor (``dialect``) must match too:
    for wire formats whose item ids and encrypted state are one server's."""
    if provider is None:
        return True
    return _registered_wire(provider) == (wire, dialect)


def _registered_wire(provider: str) -> tuple[str, str | None] | None:
    """The registry's ``(wire, dialect)`` of ``provider``; ``None`` when the
    registry does not know the name."""
    from . import wire_of  # the registry's vendors name the wire packages, which import this

    try:
        return wire_of(provider)
    except ValueError:
        return None


@dataclass(frozen=True)
class ForeignWriters(Generic[Part]):
    """How one wire writes the portable pieces of another API's turn."""

    text: Callable[[str], Part]
    """A text of the turn (its text, a medium's transcript) as a wire part."""
    call: Callable[[ToolCallBlock], Part]
    """A client tool call as a plain wire call: no signature, no metadata."""
    thinking: Callable[[str], Part] | None = None
    """Visible thinking (the text itself); ``None``: :meth:`text` of it in
    ``<think>`` tags (:func:`thinking_as_text`)."""
    media: Callable[[DataBlock], Part | None] | None = None
    """A medium the wire's assistant turns can hold (``None``: none can)."""


#: How a wire writes a block of its own turn (``None``: as another API's block).
OwnWriter = Callable[[Any], list[Part] | None]

_Policy = Callable[[Any, ForeignThinking, ForeignWriters[Any]], list[Any]]


def _text(block: TextBlock, policy: ForeignThinking, writers: ForeignWriters[Part]) -> list[Part]:
    return [writers.text(block.text)] if block.text else []


def _thinking(block: ThinkingBlock, policy: ForeignThinking,
              writers: ForeignWriters[Part]) -> list[Part]:
    if policy == "drop" or not block.thinking:
        return []
    if writers.thinking is not None:
        return [writers.thinking(block.thinking)]
    return [writers.text(thinking_as_text(block.thinking))]


def _call(block: ToolCallBlock, policy: ForeignThinking,
          writers: ForeignWriters[Part]) -> list[Part]:
    return [] if block.server_side else [writers.call(block)]


def dropped_content(block: Block) -> str | None:
    """What a :class:`~streamkit.LossyTranslationWarning` names when ``block``
    of another API's turn is dropped, ``None`` when dropping it loses nothing
    the conversation said (an empty text, thinking under ``"drop"``, a
    signature: bookkeeping)."""
    if isinstance(block, ToolCallBlock) and block.server_side:
        return f"the server-side {block.name!r} call of another API"
    if isinstance(block, ToolResultBlock):
        return "the result of another API's server-side tool"
    if isinstance(block, RawBlock):
        return f"another API's {block.kind!r} item"
    return None


def _media(block: DataBlock, policy: ForeignThinking,
           writers: ForeignWriters[Part]) -> list[Part]:
    held = writers.media(block) if writers.media is not None else None
    if held is not None:
        return [held]
    return [writers.text(block.transcript)] if block.transcript else []


#: What each block kind of another API's turn becomes; any other kind is
#: dropped (see the module docstring).
FOREIGN_BLOCKS: Mapping[type[Block], _Policy] = {
    TextBlock: _text,
    ThinkingBlock: _thinking,
    ToolCallBlock: _call,
    DataBlock: _media,
}


def foreign_parts(block: Block, policy: ForeignThinking, writers: ForeignWriters[Part],
                  wire: str) -> list[Part]:
    """What ``wire`` writes for ``block`` of another API's turn; content it
    drops (a server tool's call and result, a provider item) is said with a
    :class:`~streamkit.LossyTranslationWarning`."""
    kept = FOREIGN_BLOCKS.get(type(block))
    parts = [] if kept is None else kept(block, policy, writers)
    dropped = None if parts else dropped_content(block)
    if dropped is not None:
        warn_lossy(wire, dropped, "no other API can run or read it")
    return parts


def is_own_block(block: Block, wire: str) -> bool:
    """Whether ``block`` may be written as ``wire``'s own: made by its reader,
    by hand or by a stream (no origin); never another wire's reader's."""
    return origin_of(block.metadata) in (None, wire)


def turn_parts(blocks: Iterable[Block], *, own: bool, wire: str, policy: ForeignThinking,
               own_writers: Mapping[type[Block], OwnWriter[Part]],
               writers: ForeignWriters[Part]) -> list[Part]:
    """An assistant turn's blocks as ``wire``'s parts: in a turn of the wire
    (``own``), each block of its own by its kind's own writer; every other
    block, and one its writer declines (``None``: a thinking block without
    the signature the wire would verify), by :data:`FOREIGN_BLOCKS`."""
    out: list[Part] = []
    for block in blocks:
        written = own_writers[type(block)](block) if own and is_own_block(block, wire) else None
        out += foreign_parts(block, policy, writers, wire) if written is None else written
    return out


def write_messages(messages: Iterable[Message], *, system: Callable[[SystemMessage], Part],
                   user: Callable[[UserMessage], Part],
                   assistant: Callable[[AssistantMessage], Iterable[Part]],
                   results: Callable[[FunctionExecutionResultMessage], Iterable[Part]],
                   ) -> list[Part]:
    """The wire messages of a conversation on a wire that sends it as one list
    (OpenAI Chat, OpenAI Responses, Ollama), each message written by its kind's
    writer: one wire message for a system or user message, any number for an
    assistant turn (a response's too) or a message of tool results."""
    out: list[Part] = []
    for message in messages:
        if isinstance(message, SystemMessage):
            out.append(system(message))
        elif isinstance(message, UserMessage):
            out.append(user(message))
        elif isinstance(message, AssistantMessage | ChatResponse):
            out += assistant(as_assistant(message))
        elif isinstance(message, FunctionExecutionResultMessage):
            out += results(message)
        else:
            raise TypeError(f"not a message: {type(message).__name__}")
    return out


def user_turns(parts: Iterable[Any], read_result: Callable[[Any], FunctionExecutionResult | None],
               read_part: Callable[[Any], UserContent], metadata: Extras,
               content: Callable[[list[UserContent]], Any] = list) -> list[Message]:
    """A wire's user turn whose parts mix tool results (``read_result`` gives
    one, else ``None``) with user content (``read_part``): each run of results
    a :class:`FunctionExecutionResultMessage`, each other run a
    :class:`UserMessage` of ``content(blocks)``; the first message carries the
    turn's ``metadata``, each later one :data:`SAME_TURN` (of the same wire)."""
    runs: list[tuple[bool, list[Any]]] = []
    for part in parts:
        result = read_result(part)
        if not runs or runs[-1][0] != (result is not None):
            runs.append((result is not None, []))
        runs[-1][1].append(result if result is not None else read_part(part))
    messages: list[Message] = []
    for results, run in runs or [(False, [])]:
        extras = metadata if not messages else Extras(metadata.wire, {SAME_TURN: True})
        messages.append(FunctionExecutionResultMessage(run, metadata=extras) if results
                        else UserMessage(content(run), metadata=extras))
    return messages


def joins_previous(message: Message, wire: str) -> bool:
    """Whether a builder of a wire that needs alternating turns (Anthropic,
    Gemini) writes ``message`` into the wire message before it when both have
    one role: a message its reader made of the same wire message as the one
    before it (:data:`SAME_TURN`), and every message that was not read from a
    body of ``wire`` (built by hand, or another wire's: a tool result then the
    user's image are one user turn there). A message read as a wire message of
    its own stays one, so the body it was read from is written back exactly."""
    if origin_of(message.metadata) == wire:
        return bool(message.metadata.get(SAME_TURN))
    return True


def refuse_orphan_results(messages: Iterable[Message], wire: str) -> None:
    """Refuse a conversation holding a tool result, read from another wire's
    body, that answers no call of it.

    Such a result comes from a chained request (OpenAI Responses'
    ``previous_response_id`` or ``conversation``: the calls live in the
    history OpenAI's server keeps, and the request carries only what is new).
    No other API can read that history, and every one refuses a result
    without its call (Chat Completions: a ``tool`` message "must be a response
    to a preceding message with 'tool_calls'"; Anthropic: "unexpected
    ``tool_use_id``"), so it is refused here, before sending, with what to do.
    A result of the wire's own body, or one made by hand, is written as it is:
    its API knows its own history (Bedrock answers a call by an id it
    rewrote), and a body read from a wire builds back exactly."""
    called: set[str] = set()
    for message in messages:
        if isinstance(message, FunctionExecutionResultMessage):
            orphan = next((result for result in message.content
                           if result.call_id not in called
                           and _foreign_result(result, message, wire)), None)
            if orphan is not None:
                raise UnsupportedFeatureError(
                    wire, f"tool result {orphan.call_id!r}, which answers no call of this "
                    "conversation",
                    "a chained request (previous_response_id / conversation) keeps its "
                    "history on OpenAI's server, which no other API can read: send the whole "
                    "conversation, or answer each call in the turn that made it")
        elif not isinstance(message, UserMessage):
            content = getattr(message, "content", None)
            if isinstance(content, list):
                called.update(block.id for block in content if isinstance(block, ToolCallBlock))


def _foreign_result(result: FunctionExecutionResult, message: FunctionExecutionResultMessage,
                    wire: str) -> bool:
    """Whether ``result`` was read from another wire's body."""
    return (origin_of(result.metadata) or origin_of(message.metadata)) not in (None, wire)


def add_result(messages: list[Message], result: FunctionExecutionResult, wire: str) -> None:
    """A tool result read from a message (or item) of its own: consecutive ones
    are one :class:`FunctionExecutionResultMessage`, as they answer one turn."""
    last = messages[-1] if messages else None
    if isinstance(last, FunctionExecutionResultMessage):
        last.content.append(result)
    else:
        messages.append(FunctionExecutionResultMessage([result], metadata=Extras(wire)))
