"""streamkit's :class:`~streamkit.ChatResponse` to and from pydantic-ai's ``ModelResponse``.

====================================  ===============================================
streamkit                             pydantic-ai (``pydantic_ai.messages``)
====================================  ===============================================
``TextBlock``                         ``TextPart``; citations as ``Citation`` (a web
                                      or document source, the text range when the
                                      provider gave it) and whole in
                                      ``provider_details["citations"]``, as
                                      pydantic-ai's own models keep them
``ThinkingBlock``                     ``ThinkingPart``: ``signature`` is the
                                      signature, or the encrypted reasoning when
                                      there is none (pydantic-ai's one field for
                                      what is sent back: OpenAI's
                                      ``encrypted_content``, Anthropic's redacted
                                      data)
``ToolCallBlock``                     ``ToolCallPart`` (``tool_call_id`` = the id,
                                      ``args`` = the raw JSON text, unchanged)
``ToolCallBlock`` run by the          ``NativeToolCallPart`` (pydantic-ai's built-in
provider (``metadata["server"]``)     tool call)
``ToolResultBlock``                   ``NativeToolReturnPart`` (its content as block
                                      dicts; the tool's name from its call)
``DataBlock`` (bytes)                 ``FilePart`` of ``BinaryContent`` (bytes, media
                                      type with its parameters)
``DataBlock`` (URL), ``RawBlock``     no part fits: kept whole, with their position,
                                      in the response's ``provider_details``
block ``metadata``                    the part's ``provider_details``, key by key
``item_id`` in block metadata         also the part's ``id`` (the OpenAI Responses
                                      item pydantic-ai sends back)
``id``, ``model``, ``provider``       ``provider_response_id``, ``model_name``,
                                      ``provider_name`` (on every part too)
``created_at``                        ``timestamp``
``finished_reason``                   ``finish_reason`` (``tool_calls`` ->
                                      ``tool_call``, ``refusal`` ->
                                      ``content_filter``) and ``state``
                                      (``interrupted``, ``pause`` -> ``suspended``,
                                      not ``is_last`` -> ``incomplete``)
``usage``                             ``RequestUsage`` (below)
``metadata``                          ``provider_details``, key by key
====================================  ===============================================

Usage: pydantic-ai's ``input_tokens`` is the whole prompt, cache included (its
Anthropic model adds the cache counts), so an Anthropic response's cache reads
and writes are added (see :mod:`streamkit.adapters._usage`);
``cache_read_tokens``, ``cache_write_tokens``, ``output_reasoning_tokens`` come
from the cache and reasoning counts; an unknown count is pydantic-ai's ``0``, and
a response without usage has ``unmeasured_requests=1``, pydantic-ai's word for
it. Audio tokens are not split by direction in streamkit, so they have no
pydantic-ai field.

What pydantic-ai has no field for (a block's id, a refusal flag, an incomplete
tool call, a transcript, the exact usage, the stop reason, ``terminated``) is
kept in ``provider_details["streamkit"]`` of the part or the response, which
pydantic-ai stores and never sends to a model, so :func:`from_pydantic_ai`
gives back an equal response. Nothing is lost, except that a metadata key named
``streamkit`` (or ``citations`` on a text block) would be read back as the stash.
"""

from __future__ import annotations

import copy
import json
from datetime import datetime
from typing import Any, Literal, cast

from pydantic_ai.messages import (
    BinaryContent,
    Citation,
    ContentCitationAnchor,
    DocumentCitationSource,
    FilePart,
    ModelResponse,
    ModelResponsePart,
    NativeToolCallPart,
    NativeToolReturnPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    WebCitationSource,
)
from pydantic_ai.usage import RequestUsage

from ..model.blocks import (
    SERVER_CALL,
    ContentBlock,
    DataBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    block_from_dict,
    new_block_id,
)
from ..model.blocks import Citation as StreamkitCitation
from ..model.data_sources import Base64Source
from ..model.finish import FinishReason
from ..model.response import ChatResponse
from ..model.usage import ChatUsage, inclusive_input
from ._usage import input_includes_cache, provider_input

__all__ = ["STASH", "from_pydantic_ai", "to_pydantic_ai"]

STASH = "streamkit"
"""The ``provider_details`` key holding what pydantic-ai has no field for."""

PydanticFinish = Literal["stop", "length", "content_filter", "tool_call", "error"]
_FINISH: dict[FinishReason, PydanticFinish] = {
    FinishReason.STOP: "stop", FinishReason.LENGTH: "length",
    FinishReason.TOOL_CALLS: "tool_call", FinishReason.CONTENT_FILTER: "content_filter",
    FinishReason.REFUSAL: "content_filter", FinishReason.ERROR: "error"}
_FINISH_BACK: dict[str, FinishReason] = {
    "stop": FinishReason.STOP, "length": FinishReason.LENGTH,
    "tool_call": FinishReason.TOOL_CALLS, "content_filter": FinishReason.CONTENT_FILTER,
    "error": FinishReason.ERROR}
_STATE_BACK = {"interrupted": FinishReason.INTERRUPTED, "suspended": FinishReason.PAUSE}


# ================================================================= streamkit -> pydantic-ai


def to_pydantic_ai(response: ChatResponse) -> ModelResponse:
    """pydantic-ai's ``ModelResponse`` of ``response`` (a new object; nothing shared)."""
    parts: list[ModelResponsePart] = []
    foreign: list[dict[str, Any]] = []
    names = {b.id: b.name for b in response.tool_calls}
    for position, block in enumerate(response.content):
        part = _part(block, response.provider, names)
        if part is None:
            foreign.append({"index": position, "block": block.to_dict()})
        else:
            parts.append(part)
    fields = response.to_dict()
    for name in ("type", "content", "id", "model", "provider", "metadata"):
        del fields[name]
    if foreign:
        fields["foreign"] = foreign
    details = {**copy.deepcopy(response.metadata), STASH: fields}
    return ModelResponse(
        parts=parts, usage=_usage(response), model_name=response.model,
        timestamp=datetime.fromisoformat(response.created_at),
        provider_name=response.provider, provider_details=details,
        provider_response_id=response.id, finish_reason=_finish(response.finished_reason),
        state=_state(response))


def _finish(reason: FinishReason | None) -> PydanticFinish | None:
    return None if reason is None else _FINISH.get(reason)


def _state(response: ChatResponse) -> Literal["complete", "incomplete", "suspended",
                                             "interrupted"]:
    if response.finished_reason is FinishReason.INTERRUPTED:
        return "interrupted"
    if response.finished_reason is FinishReason.PAUSE:
        return "suspended"
    return "complete" if response.is_last else "incomplete"


def _details(block: ContentBlock, **fields: Any) -> dict[str, Any]:
    """A part's provider_details: the block's metadata and the stash."""
    stash = {"id": block.id, **{k: v for k, v in fields.items() if v not in (None, False, "")}}
    return {**copy.deepcopy(block.metadata), STASH: stash}


def _part_id(block: ContentBlock) -> str | None:
    item = block.metadata.get("item_id")
    return item if isinstance(item, str) else None


def _part(block: ContentBlock, provider: str | None,
          names: dict[str, str]) -> ModelResponsePart | None:
    """pydantic-ai's part of ``block``; ``None`` when no part fits."""
    if isinstance(block, TextBlock):
        details = _details(block, refusal=block.refusal)
        if block.citations:
            details["citations"] = [citation.to_dict() for citation in block.citations]
        citations = [c for c in (_citation(c, block.text) for c in block.citations) if c]
        return TextPart(block.text, id=_part_id(block), provider_name=provider,
                        provider_details=details, citations=citations or None)
    if isinstance(block, ThinkingBlock):
        both = block.signature is not None and block.encrypted is not None
        return ThinkingPart(
            block.thinking, id=_part_id(block), provider_name=provider,
            signature=block.signature if block.signature is not None else block.encrypted,
            provider_details=_details(
                block, redacted=block.redacted, encrypted=block.encrypted if both else None,
                signature_is_encrypted=block.signature is None and block.encrypted is not None))
    if isinstance(block, ToolCallBlock):
        kind = NativeToolCallPart if block.server_side else ToolCallPart
        return kind(block.name, block.input, block.id, id=_part_id(block), provider_name=provider,
                    provider_details=_details(block, incomplete=block.incomplete))
    if isinstance(block, DataBlock) and isinstance(block.source, Base64Source):
        return FilePart(BinaryContent(block.data, media_type=block.media_type),
                        id=_part_id(block), provider_name=provider,
                        provider_details=_details(block, name=block.name,
                                                  transcript=block.transcript))
    if isinstance(block, ToolResultBlock):
        content = [b.to_dict() for b in block.content]
        return NativeToolReturnPart(names.get(block.call_id, ""), content, block.call_id,
                                    provider_name=provider, outcome="failed"
                                    if block.is_error else "success",
                                    provider_details=_details(block))
    return None


def _citation(citation: StreamkitCitation, text: str) -> Citation | None:
    """pydantic-ai's typed citation of a streamkit citation, when it names a source."""
    excerpts = [citation.cited_text] if citation.cited_text is not None else []
    source: WebCitationSource | DocumentCitationSource
    if citation.url is not None:
        source = WebCitationSource(citation.url, title=citation.title, excerpts=excerpts)
    elif citation.title is not None or excerpts:
        source = DocumentCitationSource(title=citation.title, excerpts=excerpts)
    else:
        return None
    start, end = citation.start, citation.end
    anchor = None
    if start is not None and end is not None and 0 <= start <= end <= len(text):
        anchor = ContentCitationAnchor(start=start, end=end)
    return Citation([source], anchor=anchor)


def _usage(response: ChatResponse) -> RequestUsage:
    usage = response.usage
    if usage is None:
        return RequestUsage(unmeasured_requests=1)
    return RequestUsage(
        input_tokens=inclusive_input(usage) or 0,
        output_tokens=usage.output_tokens or 0, cache_read_tokens=usage.cached_tokens or 0,
        cache_write_tokens=usage.cache_creation_tokens or 0,
        output_reasoning_tokens=usage.reasoning_tokens or 0)


# ================================================================= pydantic-ai -> streamkit


def from_pydantic_ai(response: ModelResponse) -> ChatResponse:
    """streamkit's response of pydantic-ai's; undoes :func:`to_pydantic_ai` exactly."""
    details = copy.deepcopy(response.provider_details or {})
    stash = details.pop(STASH, None)
    content = [_block(part) for part in response.parts]
    if isinstance(stash, dict):
        for kept in stash.pop("foreign", []):
            content.insert(min(kept["index"], len(content)), block_from_dict(kept["block"]))
        rebuilt = ChatResponse.from_dict({**stash, "id": response.provider_response_id,
                                          "model": response.model_name,
                                          "provider": response.provider_name,
                                          "metadata": details, "content": []})
        for block in content:
            rebuilt.add_block(block)
        return rebuilt
    reason = (_STATE_BACK.get(response.state) or
              (_FINISH_BACK.get(response.finish_reason) if response.finish_reason else None))
    out = ChatResponse(
        content=content, is_last=response.state != "incomplete",
        created_at=response.timestamp.isoformat(timespec="milliseconds"),
        usage=_from_usage(response.usage, response.provider_name), finished_reason=reason,
        metadata=details, model=response.model_name, terminated=response.state == "complete",
        provider=response.provider_name)
    if response.provider_response_id:
        out.id = response.provider_response_id
    return out


def _split(part: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the stash, the rest of the part's provider_details: the block's metadata)."""
    details = copy.deepcopy(part.provider_details or {})
    stash = details.pop(STASH, None)
    return (stash if isinstance(stash, dict) else {}), details


def _block(part: ModelResponsePart) -> ContentBlock:
    stash, metadata = _split(part)
    block_id = stash.get("id")
    if isinstance(part, TextPart):
        stashed = metadata.pop("citations", None)
        citations = ([StreamkitCitation.from_dict(c) for c in stashed if isinstance(c, dict)]
                     if isinstance(stashed, list)
                     else [_from_citation(c) for c in part.citations or []])
        return TextBlock(part.content, id=block_id or part.id or new_block_id("text"),
                         citations=citations, refusal=bool(stash.get("refusal")),
                         metadata=metadata)
    if isinstance(part, ThinkingPart):
        as_encrypted = bool(stash.get("signature_is_encrypted"))
        return ThinkingBlock(part.content, id=block_id or part.id or new_block_id("think"),
                             signature=None if as_encrypted else part.signature,
                             encrypted=part.signature if as_encrypted else stash.get("encrypted"),
                             redacted=bool(stash.get("redacted")), metadata=metadata)
    if isinstance(part, (ToolCallPart, NativeToolCallPart)):
        if isinstance(part, NativeToolCallPart):
            metadata.setdefault(SERVER_CALL, True)
        args = part.args if isinstance(part.args, str) else (
            "" if part.args is None else json.dumps(part.args, ensure_ascii=False))
        return ToolCallBlock(block_id or part.tool_call_id, part.tool_name, args,
                             incomplete=bool(stash.get("incomplete")), metadata=metadata)
    if isinstance(part, FilePart):
        file = part.content
        return DataBlock(block_id or part.id or new_block_id("data"), name=stash.get("name"),
                         source=Base64Source(file.data, file.media_type),
                         transcript=stash.get("transcript", ""), metadata=metadata)
    if isinstance(part, NativeToolReturnPart):
        items = part.content if isinstance(part.content, list) else [
            {"type": "text", "id": new_block_id("text"), "text": str(part.content)}]
        blocks = [block_from_dict(cast("dict[str, Any]", item)) for item in items]
        return ToolResultBlock(part.tool_call_id, [b for b in blocks
                                                   if isinstance(b, (TextBlock, DataBlock))],
                               part.outcome == "failed", id=block_id or new_block_id("result"),
                               metadata=metadata)
    raise TypeError(f"from_pydantic_ai() has no block for a {type(part).__name__}")


def _from_citation(citation: Citation) -> StreamkitCitation:
    """A pydantic-ai citation as streamkit's (its first source)."""
    source = citation.sources[0]
    anchor = citation.anchor
    return StreamkitCitation(
        url=source.url if isinstance(source, WebCitationSource) else None, title=source.title,
        cited_text=source.excerpts[0] if source.excerpts else None,
        start=anchor.start if anchor is not None else None,
        end=anchor.end if anchor is not None else None)


def _from_usage(usage: RequestUsage, provider: str | None) -> ChatUsage | None:
    if usage.unmeasured_requests:
        return None
    return ChatUsage(
        input_tokens=provider_input(usage.input_tokens, usage.cache_read_tokens,
                                    usage.cache_write_tokens, provider),
        input_includes_cache=input_includes_cache(provider),
        output_tokens=usage.output_tokens, cached_tokens=usage.cache_read_tokens,
        cache_creation_tokens=usage.cache_write_tokens,
        reasoning_tokens=usage.output_reasoning_tokens,
        total_tokens=usage.input_tokens + usage.output_tokens)
