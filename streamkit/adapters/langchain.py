"""streamkit's :class:`~streamkit.ChatResponse` to and from LangChain's ``AIMessage``.

Messages use LangChain's standard content blocks (v1: ``response_metadata
["output_version"] == "v1"``, ``message.content_blocks`` is ``content``), each
block with its position as ``index`` (LangChain's streaming merge key):

=====================================  =============================================
streamkit                              LangChain (langchain-core >= 1.0)
=====================================  =============================================
``TextBlock``                          ``text`` (``annotations``: one ``citation``
                                       per citation, url / title / cited text /
                                       offsets read from the provider's object,
                                       which is kept whole in its
                                       ``extras["citation"]``)
``TextBlock(refusal=True)``            ``refusal`` (citations in ``extras``)
``ThinkingBlock``                      ``reasoning``; ``signature``, ``encrypted``,
                                       ``redacted`` in ``extras`` (where LangChain's
                                       Anthropic and Google translators put a
                                       signature)
``ToolCallBlock``                      ``tool_call`` with parsed ``args`` (also in
                                       ``message.tool_calls``); ``extras["input"]``
                                       holds the raw text when it is not
                                       ``json.dumps(args)``. LangChain drops
                                       ``index`` from a tool call when it completes
                                       one, and so does this module
``ToolCallBlock`` cut off or not JSON  ``invalid_tool_call`` (``args`` the raw text,
                                       also in ``message.invalid_tool_calls``);
                                       ``extras["incomplete"]``
``ToolCallBlock`` run by the provider  ``server_tool_call`` (``server_tool_call_chunk``
(``metadata["server"]``)               when its arguments are not a JSON object), so
                                       LangChain never runs it locally
``DataBlock``                          ``audio`` / ``image`` / ``video`` / ``file`` by
                                       media type: ``base64`` or ``url``,
                                       ``mime_type``; ``name`` and ``transcript`` in
                                       ``extras``
``ToolResultBlock``, ``RawBlock``      ``non_standard``, ``value["block"]`` = the
                                       block's ``to_dict()`` without its id
block ``metadata``                     the block's ``extras``, key by key
``usage``                              ``usage_metadata`` (see below)
``id``                                 ``message.id``
``model``, ``finished_reason``         ``response_metadata["model_name"]``,
                                       ``["finish_reason"]``
every other response field             ``response_metadata["streamkit"]``
=====================================  =============================================

Usage: LangChain's ``input_tokens`` is the whole prompt, cache included, so an
Anthropic response's cache reads and writes are added to it (see
:mod:`streamkit.adapters._usage`); ``input_token_details`` holds ``cache_read``
and ``cache_creation``, ``output_token_details`` holds ``reasoning``; a count
the provider did not give is LangChain's required ``0``, and ``total_tokens``
is their sum when the provider gave none. The exact usage (unknown counts,
audio tokens, ``raw``) is in ``response_metadata["streamkit"]["usage"]``, so
:func:`from_ai_message` gives back an equal response. Nothing is lost, except
that a block's metadata keys named like the extras above (``signature`` on a
thinking block, ``input`` / ``incomplete`` on a tool call, ``name`` /
``transcript`` on data) are read back as those fields.

Streaming: :class:`ChunkEncoder` turns streamkit events into ``AIMessageChunk``
s whose sum (LangChain's own ``+``) is :func:`to_ai_message` of the final
response. Each block's id and name are sent once, in its first chunk, and its
text, reasoning, arguments and audio (base64 in whole 3-byte groups) grow by
deltas; everything LangChain would concatenate if sent twice (extras,
signatures, citations, usage, response metadata) is sent once, when the block or
the response ends. So ids are never concatenated (``call_1call_1``) and
parallel tool calls never merge (each has its own ``index``). The differences
are LangChain's, for a tool call whose arguments are not a JSON object, where
:func:`to_ai_message` gives an ``invalid_tool_call`` with the raw text and the
reason: LangChain's sum reads the arguments with ``parse_partial_json``, so a
call cut off mid-JSON (``incomplete``) becomes a valid call with the arguments
seen so far, and free text (an OpenAI custom tool's input) stays a
``tool_call_chunk`` block, listed in ``invalid_tool_calls`` with no error.
"""

from __future__ import annotations

import base64
import copy
import json
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any, cast

from langchain_core.messages import AIMessage, AIMessageChunk

from ..model.accumulate import Accumulator
from ..model.blocks import (
    SERVER_CALL,
    Citation,
    ContentBlock,
    DataBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    block_from_dict,
    new_block_id,
)
from ..model.data_sources import Base64Source, URLSource
from ..model.errors import ToolArgumentsError
from ..model.events import BlockDelta, BlockEnd, BlockStart, DataDelta, Event
from ..model.finish import FinishReason
from ..model.merge import streamed_text
from ..model.response import ChatResponse
from ..model.usage import ChatUsage, inclusive_input
from ._usage import input_includes_cache, provider_input

__all__ = ["STASH", "ChunkEncoder", "aiter_ai_message_chunks", "from_ai_message",
           "iter_ai_message_chunks", "to_ai_message"]

STASH = "streamkit"
"""The key of ``response_metadata`` holding the response fields LangChain has none for."""

_V1 = {"output_version": "v1"}
_NOT_JSON = object()
_MEDIA_KINDS = {"audio": "audio", "image": "image", "video": "video"}
_RESERVED = {"reasoning": ("signature", "encrypted", "redacted"),
             "refusal": ("citations",),
             "tool": ("input", "incomplete"),
             "data": ("name", "transcript")}



# ================================================================= streamkit -> LangChain


def to_ai_message(response: ChatResponse) -> AIMessage:
    """LangChain's ``AIMessage`` of ``response`` (standard content blocks v1)."""
    content = [_block(block, position) for position, block in enumerate(response.content)]
    tool_calls = [{"type": "tool_call", "id": b["id"], "name": b["name"], "args": b["args"]}
                  for b in content if b["type"] == "tool_call"]
    invalid = [{"type": "invalid_tool_call", "id": b["id"], "name": b["name"],
                "args": b["args"], "error": b["error"]}
               for b in content if b["type"] == "invalid_tool_call"]
    return AIMessage(content=cast("list[str | dict[Any, Any]]", content), id=response.id,
                     tool_calls=tool_calls, invalid_tool_calls=invalid,
                     usage_metadata=_usage_metadata(response),
                     response_metadata=_response_metadata(response))


def _block(block: ContentBlock, position: int) -> dict[str, Any]:
    """The standard content block of ``block`` in a final message."""
    out = _head(block, position)
    out.update(_growing_final(block))
    out.update(_tail(block))
    if isinstance(block, ToolCallBlock):
        out.setdefault("name", block.name)
    if isinstance(block, ToolCallBlock) and not block.server_side:
        arguments = _arguments(block)
        if arguments is not _NOT_JSON and not block.incomplete:
            out.update(type="tool_call", args=arguments)
            del out["index"]  # LangChain's aggregate drops it from completed calls
        else:
            out.update(type="invalid_tool_call", error=_invalid_reason(block))
    elif isinstance(block, ToolCallBlock):
        arguments = _arguments(block)
        if arguments is not _NOT_JSON and not block.incomplete:
            out.update(type="server_tool_call", args=arguments)
    return out


def _arguments(block: ToolCallBlock) -> Any:
    """The parsed arguments when they are a JSON object, else ``_NOT_JSON``."""
    try:
        value = block.arguments()
    except ToolArgumentsError:
        return _NOT_JSON
    return value if isinstance(value, dict) else _NOT_JSON


def _invalid_reason(block: ToolCallBlock) -> str:
    if block.incomplete:
        return "the arguments were cut off before the JSON was complete"
    try:
        block.arguments()
    except ToolArgumentsError as error:
        return str(error)
    return "the arguments are not a JSON object"


def _stream_type(block: ContentBlock) -> str:
    """The block's standard type while it streams."""
    if isinstance(block, TextBlock):
        return "refusal" if block.refusal else "text"
    if isinstance(block, ThinkingBlock):
        return "reasoning"
    if isinstance(block, ToolCallBlock):
        return "server_tool_call_chunk" if block.server_side else "tool_call_chunk"
    if isinstance(block, DataBlock):
        return _MEDIA_KINDS.get(block.media_type.split("/", 1)[0].lower(), "file")
    return "non_standard"


def _head(block: ContentBlock, position: int) -> dict[str, Any]:
    """What a block's first chunk says: its type, index, id (and a tool's name)."""
    out: dict[str, Any] = {"type": _stream_type(block), "index": position, "id": block.id}
    if isinstance(block, ToolCallBlock) and block.name:
        out["name"] = block.name
    return out


def _growing_name(block: ContentBlock) -> str | None:
    """The field of a block's standard form that grows by deltas."""
    if isinstance(block, TextBlock):
        return "refusal" if block.refusal else "text"
    if isinstance(block, ThinkingBlock):
        return "reasoning"
    if isinstance(block, ToolCallBlock):
        return "args"
    if isinstance(block, DataBlock) and isinstance(block.source, Base64Source):
        return "base64"
    return None


def _growing_final(block: ContentBlock) -> dict[str, Any]:
    name = _growing_name(block)
    if name is None:
        return {}
    if isinstance(block, DataBlock):
        return {name: block.source.data}  # type: ignore[union-attr]
    return {name: streamed_text(block)}


def _tail(block: ContentBlock) -> dict[str, Any]:
    """What is sent once, when the block ends: everything set once."""
    out: dict[str, Any] = {}
    extras = copy.deepcopy(block.metadata)
    if isinstance(block, TextBlock):
        if block.refusal and block.citations:
            extras["citations"] = [citation.to_dict() for citation in block.citations]
        elif block.citations:
            out["annotations"] = [_annotation(c) for c in block.citations]
    elif isinstance(block, ThinkingBlock):
        for name in _RESERVED["reasoning"]:
            value = getattr(block, name)
            if value not in (None, False):
                extras[name] = value
    elif isinstance(block, ToolCallBlock):
        if block.incomplete:
            extras["incomplete"] = True
        arguments = _arguments(block)
        if arguments is not _NOT_JSON and block.input != json.dumps(arguments,
                                                                    ensure_ascii=False):
            extras["input"] = block.input
    elif isinstance(block, DataBlock):
        if block.media_type:
            out["mime_type"] = block.media_type
        if isinstance(block.source, URLSource):
            out["url"] = block.source.url
        if block.name is not None:
            extras["name"] = block.name
        if block.transcript:
            extras["transcript"] = block.transcript
    else:  # nested: LangChain's `+` drops a `type` key at the top of a value
        value = block.to_dict()
        del value["id"]
        return {"value": {"block": value}}
    if extras:
        out["extras"] = extras
    return out


def _annotation(citation: Citation) -> dict[str, Any]:
    """A LangChain ``citation`` of a streamkit citation (kept whole in extras)."""
    out: dict[str, Any] = {"type": "citation"}
    for name, value in (("url", citation.url), ("title", citation.title),
                        ("cited_text", citation.cited_text), ("start_index", citation.start),
                        ("end_index", citation.end)):
        if value is not None:
            out[name] = value
    out["extras"] = {"citation": citation.to_dict()}
    return out


def _usage_metadata(response: ChatResponse) -> dict[str, Any] | None:
    usage = response.usage
    if usage is None:
        return None
    input_tokens = inclusive_input(usage) or 0
    output_tokens = usage.output_tokens or 0
    total = usage.total_tokens if usage.total_tokens is not None else input_tokens + output_tokens
    out: dict[str, Any] = {"input_tokens": input_tokens, "output_tokens": output_tokens,
                           "total_tokens": total}
    inputs = {name: value for name, value in (("cache_read", usage.cached_tokens),
                                              ("cache_creation", usage.cache_creation_tokens))
              if value is not None}
    if inputs:
        out["input_token_details"] = inputs
    if usage.reasoning_tokens is not None:
        out["output_token_details"] = {"reasoning": usage.reasoning_tokens}
    return out


def _response_metadata(response: ChatResponse) -> dict[str, Any]:
    out: dict[str, Any] = dict(_V1)
    if response.model is not None:
        out["model_name"] = response.model
    if response.finished_reason is not None:
        out["finish_reason"] = response.finished_reason.value
    fields = response.to_dict()
    for name in ("type", "id", "content", "model", "finished_reason"):
        del fields[name]
    out[STASH] = fields
    return out


# ================================================================= events -> chunks


class ChunkEncoder:
    """streamkit events -> LangChain ``AIMessageChunk`` s (sans-IO), choice 0.

    ``encode(item)`` takes each item of a stream (events, then the final
    :class:`~streamkit.ChatResponse`) and returns the chunks it completes; their
    sum is :func:`to_ai_message` of the final response (see the module's notes).
    """

    def __init__(self) -> None:
        self._accumulator = Accumulator()
        self._sent: dict[int, int] = {}  # index -> characters (or bytes) of the growing field
        self._carry: dict[int, bytes] = {}  # index -> audio bytes not yet in a 3-byte group
        self._named: set[int] = set()  # tool calls whose first chunk had the name
        self._done = False

    def encode(self, item: Event | ChatResponse) -> list[AIMessageChunk]:
        """The chunks one stream item completes (often none)."""
        if isinstance(item, ChatResponse):
            return [] if self._done else [self._last(item)]
        if getattr(item, "choice", 0) != 0:
            return []
        self._accumulator.apply(item)
        if isinstance(item, BlockStart):
            return self._start(item.index)
        if isinstance(item, BlockDelta):
            return self._delta(item)
        if isinstance(item, BlockEnd):
            return self._end(item.index)
        return []

    def _block(self, index: int) -> ContentBlock:
        return self._accumulator.block(index)

    def _start(self, index: int) -> list[AIMessageChunk]:
        block = self._block(index)
        element = _head(block, index)
        self._sent[index] = 0
        if "name" in element:
            self._named.add(index)
        tool_chunk: dict[str, Any] | None = None
        if isinstance(block, ToolCallBlock) and not block.server_side:
            tool_chunk = {"name": block.name or None, "args": "", "id": block.id,
                          "index": index}
        if isinstance(block, DataBlock):
            self._carry[index] = b""
            element["base64"] = "" if isinstance(block.source, Base64Source) else None
            if element["base64"] is None:
                del element["base64"]
            if isinstance(block.source, Base64Source) and len(block.source):
                self._carry[index] = block.data
                element["base64"] = self._take_audio(index, final=False)
        else:
            name = _growing_name(block)
            if name is not None:
                text = streamed_text(block)
                element[name] = text
                self._sent[index] = len(text)
                if tool_chunk is not None:
                    tool_chunk["args"] = text
        return [_chunk([element], [tool_chunk] if tool_chunk is not None else [])]

    def _delta(self, event: BlockDelta) -> list[AIMessageChunk]:
        index, block = event.index, self._block(event.index)
        if isinstance(block, DataBlock):
            if not isinstance(event.delta, DataDelta):
                return []
            self._carry[index] += event.delta.data
            grown = self._take_audio(index, final=False)
            return [self._growth(block, index, "base64", grown)] if grown else []
        name = _growing_name(block)
        if name is None:
            return []
        text = streamed_text(block)
        grown = text[self._sent[index]:]
        self._sent[index] = len(text)
        return [self._growth(block, index, name, grown)] if grown else []

    def _take_audio(self, index: int, *, final: bool) -> str:
        """Base64 of the carried bytes in whole 3-byte groups (all of them at the end),
        so the concatenated text is the base64 of the whole."""
        carry = self._carry[index]
        cut = len(carry) if final else len(carry) - len(carry) % 3
        self._carry[index] = carry[cut:]
        self._sent[index] += cut
        return base64.b64encode(carry[:cut]).decode("ascii")

    def _growth(self, block: ContentBlock, index: int, name: str, grown: str) -> AIMessageChunk:
        element = {"type": _stream_type(block), "index": index, name: grown}
        tools = []
        if isinstance(block, ToolCallBlock) and not block.server_side:
            tools = [{"name": None, "args": grown, "id": None, "index": index}]
        return _chunk([element], tools)

    def _end(self, index: int) -> list[AIMessageChunk]:
        block = self._block(index)
        element: dict[str, Any] = {"type": _stream_type(block), "index": index}
        tools = []
        if isinstance(block, ToolCallBlock) and index not in self._named:
            element["name"] = block.name  # it came after the first chunk
            if not block.server_side:
                tools = [{"name": block.name, "args": None, "id": None, "index": index}]
        if isinstance(block, DataBlock) and isinstance(block.source, Base64Source):
            # a snapshot may have filled in more than the deltas gave
            self._carry[index] = block.data[self._sent[index]:]
            rest = self._take_audio(index, final=True)
            if rest:
                element["base64"] = rest
        else:
            name = _growing_name(block)
            if name is not None:
                rest = streamed_text(block)[self._sent[index]:]
                if rest:
                    element[name] = rest
                    if isinstance(block, ToolCallBlock) and not block.server_side:
                        tools = [{"name": element.get("name"), "args": rest, "id": None,
                                  "index": index}]
        element.update(_tail(block))
        if len(element) == 2 and not tools:
            return []
        return [_chunk([element], tools)]

    def _last(self, response: ChatResponse) -> AIMessageChunk:
        self._done = True
        return AIMessageChunk(content=[], id=response.id, chunk_position="last",
                              usage_metadata=_usage_metadata(response),  # type: ignore[arg-type]
                              response_metadata=_response_metadata(response))


def _chunk(content: list[dict[str, Any]], tools: list[dict[str, Any]]) -> AIMessageChunk:
    return AIMessageChunk(content=cast("list[str | dict[Any, Any]]", content),
                          tool_call_chunks=tools,  # type: ignore[arg-type]
                          response_metadata=dict(_V1))


def iter_ai_message_chunks(items: Iterable[Event | ChatResponse]) -> Iterator[AIMessageChunk]:
    """The ``AIMessageChunk`` s of a stream's items (a ``SyncStream``, or
    ``streamkit.replay(...)[0]`` followed by the response)."""
    encoder = ChunkEncoder()
    for item in items:
        yield from encoder.encode(item)


async def aiter_ai_message_chunks(
        items: AsyncIterable[Event | ChatResponse]) -> AsyncIterator[AIMessageChunk]:
    """The ``AIMessageChunk`` s of an async stream (``streamkit.stream(response)``)."""
    encoder = ChunkEncoder()
    async for item in items:
        for chunk in encoder.encode(item):
            yield chunk


# ================================================================= LangChain -> streamkit


def from_ai_message(message: AIMessage) -> ChatResponse:
    """streamkit's response of a LangChain ``AIMessage`` / ``AIMessageChunk``
    (through ``message.content_blocks``, LangChain's own standard view of any
    provider's content); undoes :func:`to_ai_message` exactly."""
    metadata = copy.deepcopy(dict(message.response_metadata))
    kept = metadata.pop(STASH, None)
    provider = metadata.get("model_provider")
    provider = provider if isinstance(provider, str) else None
    content = [_from_block(cast("dict[str, Any]", block)) for block in message.content_blocks]
    if isinstance(kept, dict):
        rebuilt = {**kept, "id": message.id, "content": [],
                   "model": metadata.get("model_name"),
                   "finished_reason": metadata.get("finish_reason")}
        response = ChatResponse.from_dict(rebuilt)
        for block in content:
            response.add_block(block)
        return response
    for name in ("output_version", "model_provider"):
        metadata.pop(name, None)
    model = metadata.pop("model_name", None)
    reason = metadata.pop("finish_reason", None)
    response = ChatResponse(content=content, model=model if isinstance(model, str) else None,
                            finished_reason=FinishReason.parse(reason)
                            if isinstance(reason, str) else None,
                            stop_reason=reason if isinstance(reason, str) else None,
                            metadata=metadata, usage=_from_usage(message, provider),
                            is_last=True, terminated=reason is not None)
    if message.id:
        response.id = message.id
    return response


def _from_usage(message: AIMessage, provider: str | None) -> ChatUsage | None:
    usage = message.usage_metadata
    if usage is None:
        return None
    inputs = cast("dict[str, Any]", usage.get("input_token_details") or {})
    outputs = cast("dict[str, Any]", usage.get("output_token_details") or {})
    cached, creation = inputs.get("cache_read"), inputs.get("cache_creation")
    return ChatUsage(
        input_tokens=provider_input(usage["input_tokens"], cached, creation, provider),
        input_includes_cache=input_includes_cache(provider),
        output_tokens=usage["output_tokens"], total_tokens=usage["total_tokens"],
        cached_tokens=cached, cache_creation_tokens=creation,
        reasoning_tokens=outputs.get("reasoning"), raw=copy.deepcopy(dict(usage)))


def _split_extras(block: dict[str, Any], reserved: tuple[str, ...]) -> tuple[dict[str, Any],
                                                                             dict[str, Any]]:
    """(the block's extras named in ``reserved``, the rest: its metadata)."""
    extras = copy.deepcopy(block.get("extras") or {})
    fields = {name: extras.pop(name) for name in reserved if name in extras}
    return fields, extras


def _from_block(block: dict[str, Any]) -> ContentBlock:
    kind = block.get("type")
    block_id = block.get("id") or new_block_id("blk")
    if kind in ("text", "refusal"):
        return _from_text(block, block_id)
    if kind == "reasoning":
        fields, metadata = _split_extras(block, _RESERVED["reasoning"])
        return ThinkingBlock(block.get("reasoning") or "", id=block_id,
                             signature=fields.get("signature"), encrypted=fields.get("encrypted"),
                             redacted=bool(fields.get("redacted", False)), metadata=metadata)
    if kind in ("tool_call", "invalid_tool_call", "tool_call_chunk", "server_tool_call",
                "server_tool_call_chunk"):
        return _from_tool_call(block, block_id)
    if kind in ("image", "audio", "video", "file") and ("base64" in block or "url" in block):
        fields, metadata = _split_extras(block, _RESERVED["data"])
        media_type = block.get("mime_type") or ""
        source: Base64Source | URLSource = (
            URLSource(block["url"], media_type) if "url" in block and "base64" not in block
            else Base64Source(block.get("base64") or "", media_type))
        return DataBlock(block_id, name=fields.get("name"), source=source,
                         transcript=fields.get("transcript", ""), metadata=metadata)
    if kind == "non_standard":
        value = block.get("value") or {}
        ours = value.get("block")
        if isinstance(ours, dict) and ours.get("type") in (RawBlock.type, ToolResultBlock.type):
            return block_from_dict({**ours, "id": block_id})
        return RawBlock("non_standard", copy.deepcopy(value), id=block_id)
    data = {k: copy.deepcopy(v) for k, v in block.items() if k != "id"}
    return RawBlock(str(kind), data, id=block_id)


def _from_text(block: dict[str, Any], block_id: str) -> TextBlock:
    refusal = block.get("type") == "refusal"
    fields, metadata = _split_extras(block, _RESERVED["refusal"] if refusal else ())
    citations = [Citation.from_dict(c) for c in fields.get("citations", [])
                 if isinstance(c, dict)]
    for annotation in block.get("annotations") or []:
        extras = annotation.get("extras") or {}
        original = extras.get("citation")
        citations.append(Citation.from_dict(original) if isinstance(original, dict)
                         else _citation(annotation))
    text = block.get("refusal" if refusal else "text") or ""
    return TextBlock(text, id=block_id, citations=citations, refusal=refusal, metadata=metadata)


def _citation(annotation: dict[str, Any]) -> Citation:
    """A LangChain ``citation`` annotation made elsewhere, as streamkit's."""
    def text(key: str) -> str | None:
        value = annotation.get(key)
        return value if isinstance(value, str) else None

    def index(key: str) -> int | None:
        value = annotation.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    return Citation(url=text("url"), title=text("title"), cited_text=text("cited_text"),
                    start=index("start_index"), end=index("end_index"))


def _from_tool_call(block: dict[str, Any], block_id: str) -> ToolCallBlock:
    fields, metadata = _split_extras(block, _RESERVED["tool"])
    args = block.get("args")
    if isinstance(args, dict):
        text = fields.get("input", json.dumps(args, ensure_ascii=False))
    else:
        text = args or ""
    if block.get("type", "").startswith("server_"):
        metadata.setdefault(SERVER_CALL, True)
    return ToolCallBlock(block_id, block.get("name") or "", text,
                         incomplete=bool(fields.get("incomplete", False)), metadata=metadata)
