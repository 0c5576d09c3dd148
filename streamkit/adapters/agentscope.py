"""streamkit's :class:`~streamkit.ChatResponse` to and from agentscope 2.0.11's.

streamkit's model started as agentscope's (same block tags, same ``append_*``
signatures), so most fields have a twin. What agentscope's types cannot hold is
put where agentscope code leaves it alone, so that :func:`from_agentscope`
restores the exact original:

- on an agentscope ``ThinkingBlock`` (``extra="allow"``), as extra fields, under
  the names agentscope's own model classes use (``signature``,
  ``redacted_thinking_data``);
- on the usage, in agentscope's ``ChatUsage.metadata``;
- for everything else, in the response's ``metadata["streamkit"]`` (:data:`STASH`):
  per-block fields by position and id, whole blocks agentscope's response
  cannot hold, and response fields. ``to_agentscope(..., keep_extras=False)``
  leaves it out: then those fields are lost, as the table says.

=========================================  ===========================================
streamkit                                  agentscope 2.0.11
=========================================  ===========================================
``ChatResponse.id / created_at / is_last`` ``id / created_at / is_last``
``metadata``                               ``metadata`` (with :data:`STASH` added)
``finished_reason``                        ``finished_reason``: ``interrupted`` stays,
                                           any other word is ``completed`` (stash)
``model, stop_reason, terminated,          none (stash)
provider``
``TextBlock.id / text``                    ``TextBlock.id / text``
``TextBlock.citations / refusal /          none (stash)
metadata``
``ThinkingBlock.id / thinking``            ``ThinkingBlock.id / thinking``
``ThinkingBlock.signature``                extra ``signature`` (agentscope Anthropic's)
``ThinkingBlock.encrypted`` (redacted)     extra ``redacted_thinking_data``
                                           (agentscope Anthropic's)
``ThinkingBlock.encrypted`` (otherwise)    extra ``encrypted``
``ThinkingBlock.metadata``                 extra ``metadata``
``ToolCallBlock.id / name / input``        ``ToolCallBlock.id / name / input``
``ToolCallBlock.incomplete / metadata``    none (stash)
``DataBlock.id / name / source``           ``DataBlock.id / name / source`` (base64 text
                                           or URL; a URL pydantic's ``AnyUrl``
                                           rewrites is stashed as it was)
``DataBlock.transcript / metadata``        none (stash)
``ToolResultBlock``, ``RawBlock``          none: agentscope's response holds text,
                                           thinking, tool calls and data only (stash,
                                           whole, with their position)
``ChatUsage`` input / output / cache       ``input_tokens / output_tokens /
read / cache write                         cache_input_tokens /
                                           cache_creation_input_tokens`` (an unknown
                                           count is agentscope's ``0``; which were
                                           unknown is in ``usage.metadata``)
``total / reasoning / audio tokens,        ``usage.metadata["streamkit"]``
raw, accounting``, what the counts mean
=========================================  ===========================================

From agentscope, the fields streamkit has no twin for are kept in the block's
``metadata["agentscope"]`` (and written back by :func:`to_agentscope`):
``finished_at``, a tool call's ``state`` and ``suggested_rules``, and thinking
extras other than the ones above (``reasoning_item_id``, ``reasoning_item_raw``).
A usage's ``time`` (agentscope times the call; streamkit does not) is in
``usage.raw["time"]``, with the rest of agentscope's usage. Two things are not
kept: a block's ``created_at`` (the local time the block object was made, like
the response's ``created_at``, which streamkit's ``==`` ignores) and, for a
response that did not come from streamkit, why it finished beyond
``interrupted``: ``completed`` becomes ``finished_reason=None`` and
``terminated=is_last``.
"""

from __future__ import annotations

import copy
from typing import Any

from agentscope.message import Base64Source as AsBase64Source
from agentscope.message import DataBlock as AsDataBlock
from agentscope.message import TextBlock as AsTextBlock
from agentscope.message import ThinkingBlock as AsThinkingBlock
from agentscope.message import ToolCallBlock as AsToolCallBlock
from agentscope.message import URLSource as AsURLSource
from agentscope.model import ChatResponse as AsChatResponse
from agentscope.model import ChatUsage as AsChatUsage
from agentscope.model._model_response import FinishedReason
from pydantic import ValidationError

from ..model.blocks import (
    Citation,
    ContentBlock,
    DataBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    block_from_dict,
)
from ..model.data_sources import Base64Source, URLSource
from ..model.finish import FinishReason
from ..model.response import ChatResponse
from ..model.usage import ChatUsage

__all__ = ["AGENTSCOPE_KEY", "STASH", "from_agentscope", "to_agentscope"]

STASH = "streamkit"
"""The key of agentscope's ``ChatResponse.metadata`` (and ``ChatUsage.metadata``)
holding what agentscope has no field for."""

AGENTSCOPE_KEY = "agentscope"
"""The key of a streamkit block's ``metadata`` holding agentscope fields
streamkit has no twin for."""

AsBlock = AsTextBlock | AsThinkingBlock | AsToolCallBlock | AsDataBlock

# Thinking extras that map onto streamkit fields (the rest go to metadata).
_SIGNATURE, _REDACTED_DATA, _ENCRYPTED, _REDACTED, _METADATA = (
    "signature", "redacted_thinking_data", "encrypted", "redacted", "metadata")
_THINKING_EXTRAS = {_SIGNATURE, _REDACTED_DATA, _ENCRYPTED, _REDACTED, _METADATA}
_COUNTS_AS_ZERO = ("input_tokens", "output_tokens", "cached_tokens", "cache_creation_tokens")
_USAGE_EXTRAS = ("total_tokens", "reasoning_tokens", "audio_tokens", "raw", "accounting",
                 "input_includes_cache", "output_includes_reasoning")
_DEFAULT_FIELDS: dict[str, Any] = {"finished_at": None, "state": "pending",
                                   "suggested_rules": []}


# ================================================================= streamkit -> agentscope


def to_agentscope(response: ChatResponse, *, keep_extras: bool = True) -> AsChatResponse:
    """agentscope's ``ChatResponse`` of ``response`` (a new object; nothing shared).

    With ``keep_extras`` (the default) what agentscope has no field for is kept
    in ``metadata["streamkit"]``, so :func:`from_agentscope` gives back an equal
    response; without it, the result is plain agentscope and those fields are lost
    (see the module's table).
    """
    stash: dict[str, Any] = {}
    content: list[AsBlock] = []
    block_extras: list[dict[str, Any]] = []
    foreign: list[dict[str, Any]] = []
    for position, block in enumerate(response.content):
        converted = _to_block(block)
        if converted is None:
            foreign.append({"index": position, "block": block.to_dict()})
            continue
        extras = _block_extras(block, converted)
        if extras:
            block_extras.append({"index": len(content), "id": block.id, **extras})
        content.append(converted)
    metadata = copy.deepcopy(response.metadata)
    if STASH in metadata:
        stash["metadata"] = metadata.pop(STASH)
    if block_extras:
        stash["blocks"] = block_extras
    if foreign:
        stash["foreign"] = foreign
    fields = _response_extras(response)
    if fields:
        stash["response"] = fields
    if keep_extras and stash:
        metadata[STASH] = stash
    finished = (FinishedReason.INTERRUPTED if response.finished_reason is FinishReason.INTERRUPTED
                else FinishedReason.COMPLETED)
    return AsChatResponse(
        content=content,
        is_last=response.is_last, id=response.id, created_at=response.created_at,
        usage=_to_usage(response.usage, keep_extras), finished_reason=finished,
        metadata=metadata)


def _response_extras(response: ChatResponse) -> dict[str, Any]:
    """The response fields agentscope has no place for (``interrupted`` it has)."""
    fields: dict[str, Any] = {"terminated": response.terminated}
    reason = response.finished_reason
    if reason is not FinishReason.INTERRUPTED:
        fields["finished_reason"] = None if reason is None else reason.value
    for name in ("model", "stop_reason", "provider"):
        value = getattr(response, name)
        if value is not None:
            fields[name] = value
    return fields


def _to_block(block: ContentBlock) -> AsBlock | None:
    """agentscope's twin of ``block``; ``None`` for a kind its response cannot hold."""
    own = _agentscope_fields(block)
    if isinstance(block, TextBlock):
        return AsTextBlock(text=block.text, id=block.id, **own)
    if isinstance(block, ThinkingBlock):
        return AsThinkingBlock(thinking=block.thinking, id=block.id,
                               **_thinking_extras(block), **own)
    if isinstance(block, ToolCallBlock):
        return AsToolCallBlock(id=block.id, name=block.name, input=block.input, **own)
    if isinstance(block, DataBlock):
        source = _to_source(block.source)
        if source is None:
            return None
        return AsDataBlock(id=block.id, source=source, name=block.name, **own)
    return None


def _agentscope_fields(block: ContentBlock) -> dict[str, Any]:
    """The agentscope fields a block brought from agentscope (``metadata["agentscope"]``)."""
    kept = block.metadata.get(AGENTSCOPE_KEY)
    return copy.deepcopy(kept) if isinstance(kept, dict) else {}


def _thinking_extras(block: ThinkingBlock) -> dict[str, Any]:
    """A thinking block's streamkit fields as extras of agentscope's ThinkingBlock."""
    extras: dict[str, Any] = {}
    if block.signature is not None:
        extras[_SIGNATURE] = block.signature
    if block.encrypted is not None:
        extras[_REDACTED_DATA if block.redacted else _ENCRYPTED] = block.encrypted
    elif block.redacted:
        extras[_REDACTED] = True
    metadata = _own_metadata(block)
    if metadata:
        extras[_METADATA] = metadata
    return extras


def _own_metadata(block: ContentBlock) -> dict[str, Any]:
    """A block's metadata without the agentscope fields written back as fields."""
    return {k: copy.deepcopy(v) for k, v in block.metadata.items() if k != AGENTSCOPE_KEY}


def _to_source(source: Base64Source | URLSource) -> AsBase64Source | AsURLSource | None:
    if isinstance(source, Base64Source):
        return AsBase64Source(data=source.data, media_type=source.media_type)
    try:
        return AsURLSource(url=source.url, media_type=source.media_type)  # type: ignore[arg-type]
    except ValidationError:  # not a URL pydantic accepts: kept whole in the stash
        return None


def _block_extras(block: ContentBlock, converted: AsBlock) -> dict[str, Any]:
    """The fields of ``block`` its agentscope twin cannot hold."""
    extras: dict[str, Any] = {}
    if not isinstance(block, ThinkingBlock):  # thinking keeps its metadata as an extra
        metadata = _own_metadata(block)
        if metadata:
            extras["metadata"] = metadata
    if isinstance(block, TextBlock):
        if block.citations:
            extras["citations"] = [citation.to_dict() for citation in block.citations]
        if block.refusal:
            extras["refusal"] = True
    elif isinstance(block, ToolCallBlock) and block.incomplete:
        extras["incomplete"] = True
    elif isinstance(block, DataBlock):
        if block.transcript:
            extras["transcript"] = block.transcript
        if (isinstance(block.source, URLSource) and isinstance(converted, AsDataBlock)
                and isinstance(converted.source, AsURLSource)
                and str(converted.source.url) != block.source.url):
            extras["url"] = block.source.url
    return extras


def _to_usage(usage: ChatUsage | None, keep_extras: bool) -> AsChatUsage | None:
    if usage is None:
        return None
    unknown = [name for name in _COUNTS_AS_ZERO if getattr(usage, name) is None]
    time = usage.raw.get("time")
    extras = {name: copy.deepcopy(getattr(usage, name)) for name in _USAGE_EXTRAS}
    if unknown:
        extras["unknown"] = unknown
    return AsChatUsage(
        input_tokens=usage.input_tokens or 0, output_tokens=usage.output_tokens or 0,
        time=float(time) if isinstance(time, (int, float)) else 0.0,
        cache_creation_input_tokens=usage.cache_creation_tokens or 0,
        cache_input_tokens=usage.cached_tokens or 0,
        metadata={STASH: extras} if keep_extras else None)


# ================================================================= agentscope -> streamkit


def from_agentscope(response: AsChatResponse) -> ChatResponse:
    """streamkit's ``ChatResponse`` of agentscope's (a new object; nothing shared).

    Undoes :func:`to_agentscope` exactly when ``metadata["streamkit"]`` is there;
    agentscope fields streamkit has no twin for go to each block's
    ``metadata["agentscope"]`` (see the module's table).
    """
    metadata: dict[str, Any] = copy.deepcopy(dict(response.metadata or {}))
    stash = metadata.pop(STASH, None)
    stash = stash if isinstance(stash, dict) else {}
    if "metadata" in stash:
        metadata[STASH] = stash["metadata"]
    content: list[ContentBlock] = [_from_block(block) for block in response.content]
    for extras in stash.get("blocks", []):
        _restore_block(content, extras)
    for kept in stash.get("foreign", []):
        content.insert(min(kept["index"], len(content)), block_from_dict(kept["block"]))
    fields = stash.get("response", {})
    interrupted = response.finished_reason == FinishedReason.INTERRUPTED
    if "finished_reason" in fields:
        finished = FinishReason.parse(fields["finished_reason"])
    else:
        finished = FinishReason.INTERRUPTED if interrupted else None
    return ChatResponse(
        content=content, is_last=response.is_last, id=response.id,
        created_at=response.created_at, usage=_from_usage(response.usage),
        finished_reason=finished, metadata=metadata, model=fields.get("model"),
        stop_reason=fields.get("stop_reason"),
        terminated=fields.get("terminated", response.is_last and not interrupted),
        provider=fields.get("provider"))


def _from_block(block: Any) -> ContentBlock:
    own = _kept_fields(block)
    metadata = {AGENTSCOPE_KEY: own} if own else {}
    if isinstance(block, AsTextBlock):
        return TextBlock(block.text, id=block.id, metadata=metadata)
    if isinstance(block, AsThinkingBlock):
        return _from_thinking(block, metadata)
    if isinstance(block, AsToolCallBlock):
        return ToolCallBlock(block.id, block.name, block.input, metadata=metadata)
    if isinstance(block, AsDataBlock):
        return DataBlock(block.id, name=block.name, source=_from_source(block.source),
                         metadata=metadata)
    raise TypeError(f"from_agentscope() takes a response of text, thinking, tool call and data "
                    f"blocks; got a {type(block).__name__}")


def _kept_fields(block: Any) -> dict[str, Any]:
    """agentscope fields streamkit has no twin for, when not at their defaults
    (``created_at`` is a local clock reading and is not kept)."""
    kept: dict[str, Any] = {}
    for name, default in _DEFAULT_FIELDS.items():
        if name in type(block).model_fields:
            value = block.model_dump(mode="json", include={name})[name]
            if value != default:
                kept[name] = value
    return kept


def _from_thinking(block: AsThinkingBlock, metadata: dict[str, Any]) -> ThinkingBlock:
    extras = dict(block.model_extra or {})
    encrypted = extras.get(_REDACTED_DATA, extras.get(_ENCRYPTED))
    own = extras.get(_METADATA)
    if isinstance(own, dict):
        metadata.update(copy.deepcopy(own))
    other = {k: v for k, v in extras.items() if k not in _THINKING_EXTRAS and v is not None}
    if other:
        metadata.setdefault(AGENTSCOPE_KEY, {}).update(copy.deepcopy(other))
    return ThinkingBlock(block.thinking, id=block.id, signature=extras.get(_SIGNATURE),
                         encrypted=encrypted,
                         redacted=_REDACTED_DATA in extras or bool(extras.get(_REDACTED)),
                         metadata=metadata)


def _from_source(source: AsBase64Source | AsURLSource) -> Base64Source | URLSource:
    if isinstance(source, AsBase64Source):
        return Base64Source(source.data, source.media_type)
    return URLSource(str(source.url), source.media_type)


def _restore_block(content: list[ContentBlock], extras: dict[str, Any]) -> None:
    """Put back the stashed fields of one block, if it is still where it was."""
    position = extras.get("index")
    if not isinstance(position, int) or not 0 <= position < len(content):
        return
    block = content[position]
    if block.id != extras.get("id"):
        return  # the agentscope side was edited: these fields belong to no block now
    block.metadata.update(copy.deepcopy(extras.get("metadata", {})))
    if isinstance(block, TextBlock):
        block.citations = [Citation.from_dict(c) for c in extras.get("citations", [])
                           if isinstance(c, dict)]
        block.refusal = bool(extras.get("refusal", False))
    elif isinstance(block, ToolCallBlock):
        block.incomplete = bool(extras.get("incomplete", False))
    elif isinstance(block, DataBlock):
        block.transcript = extras.get("transcript", "")
        if "url" in extras and isinstance(block.source, URLSource):
            block.source.url = extras["url"]


def _from_usage(usage: AsChatUsage | None) -> ChatUsage | None:
    if usage is None:
        return None
    kept = (usage.get("metadata") or {}).get(STASH)
    if not isinstance(kept, dict):  # agentscope's own usage: it is the raw object
        return ChatUsage(input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
                         cached_tokens=usage.cache_input_tokens,
                         cache_creation_tokens=usage.cache_creation_input_tokens,
                         raw=copy.deepcopy(dict(usage)))
    unknown = set(kept.get("unknown", []))

    def count(name: str, value: int) -> int | None:
        return None if name in unknown else value

    return ChatUsage(
        input_tokens=count("input_tokens", usage.input_tokens),
        output_tokens=count("output_tokens", usage.output_tokens),
        cached_tokens=count("cached_tokens", usage.cache_input_tokens),
        cache_creation_tokens=count("cache_creation_tokens", usage.cache_creation_input_tokens),
        total_tokens=kept.get("total_tokens"), reasoning_tokens=kept.get("reasoning_tokens"),
        audio_tokens=kept.get("audio_tokens"), raw=copy.deepcopy(kept.get("raw", {})),
        accounting=kept.get("accounting", "cumulative"),
        input_includes_cache=kept.get("input_includes_cache"),
        output_includes_reasoning=kept.get("output_includes_reasoning"))
