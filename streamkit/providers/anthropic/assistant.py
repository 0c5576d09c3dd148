"""Anthropic Messages assistant content <-> streamkit blocks, both directions.

What the model writes has its own module because it is read in three places
and written under a policy: :func:`content_block` reads one ``content_block``
object for the stream parser (and so for non-streamed responses, which go
through it); :func:`read_assistant_block` reads an assistant turn of a
request; :func:`assistant_blocks` writes a turn back. The kinds: ``text``,
``thinking``, ``redacted_thinking``, ``tool_use``, the server tools' blocks
(``server_tool_use``, ``mcp_tool_use``, their ``*_tool_result`` s,
``compaction``...). User content is in :mod:`.content`.

The API's documented types are not trusted: every field is read with
:mod:`~streamkit.providers.coerce`, and a field of the wrong type (an ``id``
that is a list, a ``text`` that is a number) is treated as absent and kept in
the block's ``metadata`` under its own name, so nothing is dropped and nothing
raises. Ids the wire does not give (text and thinking blocks have none) are
made up by the reader's :class:`~streamkit.model.ids.StreamIds`, from the stream or
the body, so two reads of the same bytes are equal.

Sending an assistant turn (the cross-provider policy)
-----------------------------------------------------
A turn written by the Anthropic wire (``provider`` is ``anthropic``, another
registry name of this wire, or ``None``: a turn built by hand or read from an
Anthropic request) goes back as it came: thinking with its ``signature``,
``redacted_thinking`` with its ``data``, server tool blocks and their results
verbatim, block metadata included (text ``citations`` and a tool call's
``caller`` too: the SDK's ``TextBlockParam`` and ``ToolUseBlockParam`` declare
them, though the recorded client drops them). Anthropic verifies thinking
blocks and answers 400 to a modified one (the SDK's ``ThinkingBlockParam``
docs; platform.claude.com/docs/en/build-with-claude/extended-thinking), so a
thinking block without a signature (a cut-off stream) is treated like a
foreign one, and so is a block another wire's reader kept fields for.

A turn from another wire format keeps only what Anthropic can take (the
policy of every wire, :data:`streamkit.providers.turns.FOREIGN_BLOCKS`; this
module supplies the writers):

- text (without the other wire's citations and metadata) and tool calls (as
  ``tool_use`` with the arguments object; server-side calls of the other API
  are dropped, since no result can follow them);
- visible thinking as a text block ``<think>\\n...\\n</think>`` (the form
  the recorded Cerebras GLM exchange replays), or nothing with
  ``foreign_thinking="drop"``;
- signatures, encrypted or redacted reasoning and provider items
  (:class:`RawBlock`, server tool results) are dropped: Anthropic cannot
  verify them and would refuse the request;
- media in an assistant turn (an OpenAI audio answer) is sent as its transcript,
  or dropped when it has none.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...conversation.request import ForeignThinking
from ...model.blocks import (
    SERVER_CALL,
    Block,
    ContentBlock,
    DataBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ...model.errors import UnsupportedFeatureError
from ...model.extras import Extras
from ...model.ids import StreamIds
from ...model.tool_arguments import arguments_text
from ..coerce import Wire, as_str
from ..function_tools import arguments_as_object
from ..lossless import exactly, tagged, typed_part, unmodelled
from ..turns import ForeignWriters, OwnWriter, turn_parts
from .citations import read_citations
from .content import own_extras, text_part, tool_id, user_part
from .wire import NAME, TOOL_CALL_TYPES

# Bookkeeping a server tool's blocks carry in metadata: whether a call runs on
# the provider's side, and the wire block type to write back.
BLOCK_TYPE = "block_type"


# ---------------------------------------------------------------- reading: one content_block


def content_block(block: dict[str, Any], ids: StreamIds) -> Block:
    """The streamkit block for one Anthropic ``content_block`` object."""
    kind = as_str(block.get("type"))
    if kind is None:
        return RawBlock("unknown", block, id=as_str(block.get("id")) or ids.make("raw"))
    build = _BUILDERS.get(kind)
    if build is not None:
        return build(kind, block, ids)
    if kind.endswith("_tool_result"):
        return _tool_result_block(kind, block, ids)
    return RawBlock(kind, block, id=as_str(block.get("id")) or ids.make("raw"))


def start_input(block: dict[str, Any]) -> str | None:
    """The complete ``input`` of a tool call's ``content_block``, as JSON text
    (server and MCP tools may send it there instead of as deltas; a complete
    message has it there); ``None`` when it is empty or absent."""
    tool_input = block.get("input")
    return arguments_text(tool_input) if tool_input else None


def _text_block(kind: str, block: dict[str, Any], ids: StreamIds) -> TextBlock:
    text = as_str(block.get("text"))
    citations = read_citations(block.get("citations"))
    return TextBlock(text or "", id=ids.make("text"), citations=citations, metadata=unmodelled(
        block, {"type": kind, "text": text, "citations": citations}))


def _thinking_block(kind: str, block: dict[str, Any], ids: StreamIds) -> ThinkingBlock:
    thinking = as_str(block.get("thinking"))
    signature = as_str(block.get("signature"))
    return ThinkingBlock(thinking or "", id=ids.make("think"), signature=signature or None,
                         metadata=unmodelled(block, {"type": kind, "thinking": thinking,
                                                     "signature": signature}))


def _redacted_thinking_block(kind: str, block: dict[str, Any], ids: StreamIds) -> ThinkingBlock:
    """Reasoning the API will not show: its opaque ``data`` goes back verbatim."""
    data = as_str(block.get("data"))
    return ThinkingBlock(id=ids.make("think"), encrypted=data, redacted=True,
                         metadata=unmodelled(block, {"type": kind, "data": data}))


def _tool_call_block(kind: str, block: dict[str, Any], ids: StreamIds) -> ToolCallBlock:
    """A tool call; its arguments come as deltas (or whole, see :func:`start_input`)."""
    call_id = as_str(block.get("id"))
    name = as_str(block.get("name"))
    metadata = unmodelled(block, {"type": kind, "id": call_id, "name": name, "input": True})
    if kind != "tool_use":
        metadata[SERVER_CALL] = True
        metadata[BLOCK_TYPE] = kind
    return ToolCallBlock(call_id or ids.make("call"), name or "", metadata=metadata)


def _tool_result_block(kind: str, block: dict[str, Any], ids: StreamIds
                       ) -> ToolResultBlock | RawBlock:
    """A server tool's result: a :class:`ToolResultBlock` when its content is
    text (MCP results), else the whole provider block as a :class:`RawBlock`
    (web search results, code execution output...), so it can be sent back."""
    call_id = as_str(block.get("tool_use_id"))
    parts = _text_parts(block.get("content"), ids)
    if call_id is None or parts is None:
        return RawBlock(kind, block, id=ids.make("raw"))  # its own id: tool_use_id is the call's
    metadata = unmodelled(block, {"type": kind, "tool_use_id": call_id, "content": parts,
                                  "is_error": True})
    metadata[BLOCK_TYPE] = kind
    return ToolResultBlock(call_id, list(parts), bool(block.get("is_error")), id=ids.make("result"),
                           metadata=metadata)


def _text_parts(content: Any, ids: StreamIds) -> list[TextBlock] | None:
    """A tool result's content as text blocks, or ``None`` when it holds anything
    but plain text (a string, or a list of ``{"type": "text", "text": ...}``)."""
    if type(content) is str:
        return [TextBlock(content, id=ids.make("text"))]
    if type(content) is not list:
        return None
    texts = [as_str(part.get("text")) if type(part) is dict and part.keys() <= {"type", "text"}
             and part.get("type") == "text" else None for part in content]
    if any(text is None for text in texts):
        return None
    return [TextBlock(text or "", id=ids.make("text")) for text in texts]


_BUILDERS: dict[str, Callable[[str, dict[str, Any], StreamIds], Block]] = {
    "text": _text_block,
    "thinking": _thinking_block,
    "redacted_thinking": _redacted_thinking_block,
    **dict.fromkeys(TOOL_CALL_TYPES, _tool_call_block),
}


# ---------------------------------------------------------------- reading: a request's turn


def read_assistant_block(wire: Any, ids: StreamIds) -> ContentBlock:
    """An assistant content block of a request, as a complete message's block
    (a tool call holds its whole ``input`` as compact JSON text, ``{}`` when it
    has none) with the nulls a response drops kept, its extras tagged as
    Anthropic's, so it is written back exactly; anything else is kept whole."""
    if type(wire) is not dict:
        return RawBlock("unknown", {"type": "unknown", "content_block": wire},
                        id=ids.make("raw"), metadata=Extras(NAME))
    typed_part(wire, NAME)
    block = _content(content_block(wire, ids))
    if isinstance(block, ToolCallBlock):
        block.input = start_input(wire) or "{}"
    tagged(block, NAME)
    if isinstance(block, RawBlock):
        return block
    block.metadata.update({key: None for key, value in wire.items() if value is None})
    return _content(exactly(block, _own_block, wire, kind=as_str(wire.get("type")) or "unknown",
                            wire=NAME, ids=ids))


def _content(block: Block) -> ContentBlock:
    if isinstance(block, (TextBlock, ThinkingBlock, ToolCallBlock, DataBlock, ToolResultBlock,
                          RawBlock)):
        return block
    raise TypeError(f"not a content block: {block!r}")


# ---------------------------------------------------------------- writing


def _tool_use(block: ToolCallBlock, said: str | None = None) -> Wire:
    """A plain ``tool_use`` (another API's call is written so, ``said``: its
    arguments Anthropic cannot hold are said)."""
    return {"type": "tool_use", "id": tool_id(block.id), "name": block.name,
            "input": arguments_as_object(block, said)}


def _own_tool_call(block: ToolCallBlock) -> list[Wire]:
    """``tool_use``, or the server call it was (``server_tool_use``, ``mcp_tool_use``)."""
    metadata = own_extras(block)
    metadata.pop(SERVER_CALL, None)
    return [{**_tool_use(block), "type": metadata.pop(BLOCK_TYPE, "tool_use"), **metadata}]


def _own_thinking(block: ThinkingBlock) -> list[Wire] | None:
    """``redacted_thinking`` (its opaque ``data``) or signed ``thinking``, verbatim;
    ``None`` (written as another API's) without a signature Anthropic could verify."""
    if block.redacted and block.encrypted is not None:
        return [{"type": "redacted_thinking", "data": block.encrypted, **own_extras(block)}]
    if block.signature is None:
        return None
    return [{"type": "thinking", "thinking": block.thinking, "signature": block.signature,
             **own_extras(block)}]


def _own_tool_result(block: ToolResultBlock) -> list[Wire]:
    """A server tool's result read as a :class:`ToolResultBlock` (an MCP result)."""
    metadata = own_extras(block)
    kind = metadata.pop(BLOCK_TYPE, None)
    if type(kind) is not str:
        raise UnsupportedFeatureError(
            NAME, f"tool result {block.id!r} in an assistant turn with no wire block type",
            "a server tool's result names its block in metadata['block_type'] "
            "(e.g. 'mcp_tool_result'); a client tool's result goes in a "
            "FunctionExecutionResultMessage")
    return [{"type": kind, "tool_use_id": tool_id(block.call_id),
             "content": [user_part(part) for part in block.content],
             "is_error": block.is_error, **metadata}]


_OWN_BLOCKS: dict[type[Block], OwnWriter[Wire]] = {
    TextBlock: lambda block: [text_part(block)],
    ThinkingBlock: _own_thinking,
    ToolCallBlock: _own_tool_call,
    ToolResultBlock: _own_tool_result,
    DataBlock: lambda block: None,  # no media in an assistant turn: as another API's
    RawBlock: lambda block: [block.data],
}

_FOREIGN = ForeignWriters[Wire](text=lambda text: {"type": "text", "text": text},
                                call=lambda block: _tool_use(block, NAME))


def assistant_blocks(blocks: list[ContentBlock], *, own: bool,
                     foreign_thinking: ForeignThinking) -> list[Wire]:
    """An assistant turn's content blocks for the wire (see the module
    docstring for what a turn of another wire format keeps). In a turn of
    this wire, a block another wire's reader made is written as a foreign one."""
    return turn_parts(blocks, own=own, wire=NAME, policy=foreign_thinking,
                      own_writers=_OWN_BLOCKS, writers=_FOREIGN)


def _own_block(block: Block) -> Wire:
    """The one wire block an own assistant block is (for
    :func:`~streamkit.providers.lossless.exactly`)."""
    written = _OWN_BLOCKS[type(block)](block)
    if written is None or len(written) != 1:
        raise ValueError("not exactly one wire block")
    return written[0]
