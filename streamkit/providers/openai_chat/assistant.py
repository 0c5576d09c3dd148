"""An assistant turn, both ways: a :class:`~streamkit.ChatResponse` (or an
:class:`~streamkit.conversation.messages.AssistantMessage`) as one ``{"role": "assistant"}``
message, and such a message read back.

Each block of the target's own turn becomes :class:`_Item` s
(:func:`_own_items`), each block of another's turn too, by the shared policy
(:func:`_foreign_writers`); :func:`assistant_message` puts the items where the
wire wants them:

==============================  ==============================================
block                           wire
==============================  ==============================================
TextBlock                       ``content`` (a string; an array of text parts
                                when the turn needs one)
TextBlock(refusal=True)         ``refusal`` (another vendor's: text)
ThinkingBlock                   per the target's ``reasoning_echo``
                                (:mod:`.dialects`): ``reasoning_content`` /
                                ``reasoning``, OpenRouter ``reasoning_details``
                                (signature, encrypted data, ids), ``<think>``
                                text in ``content``, Mistral ``thinking`` chunks
ToolCallBlock                   ``tool_calls[]`` ``{"id", "type": "function",
                                "function": {"name", "arguments"}}`` (the legacy
                                ``function_call`` for a call that came as one)
DataBlock with ``audio_id``     ``audio: {"id"}`` (OpenAI's earlier spoken answer)
==============================  ==============================================

``content`` is ``null`` when the turn has calls, a refusal or audio and no
text, ``""`` when it has nothing at all.

Who wrote the turn decides what goes back (:func:`~.history.source_of`):

- the target itself (or nobody said: a turn built by hand): everything above,
  block metadata included (a Gemini ``extra_content`` thought signature on a
  call, OpenRouter detail ``format``), and the message's own ``metadata``
  written over the result; metadata another wire format's reader kept
  (:class:`~streamkit.model.extras.Extras` of another wire) is never written;
- another OpenAI-compatible vendor (same wire, other dialect): text and calls
  without their metadata; visible reasoning in the target's plain field
  (``reasoning_content``, ``reasoning``, think tags, Mistral chunks) or, for a
  target without one, as ``<think>`` text; signatures, encrypted reasoning,
  ``reasoning_details``, the audio id and raw parts are dropped (the target
  cannot verify another vendor's signature and would refuse it); a refusal is
  text;
- another wire format: text and calls (not the calls the other provider ran
  itself, which no tool message could answer); visible thinking as
  ``<think>...</think>`` text before the text it preceded, or dropped with
  ``foreign_thinking="drop"``; signatures, encrypted / redacted reasoning and
  provider items (RawBlocks, tool results) are dropped; spoken audio goes as
  its transcript. What each block kind of another's turn becomes is
  :mod:`streamkit.providers.turns`' table, for every wire.

A call's arguments go as the text the model wrote, also when it is no JSON (a
call cut off at the length limit, a malformed one): nothing made up in its
place (the policy of every wire: :mod:`streamkit.providers.function_tools`).

Reading a message back (:func:`read_assistant`) gives blocks in the order the
stream parser makes them for the same message (thinking, text, refusal, calls,
audio), then checks the message writes back exactly; every field that would not
is kept in the message's ``metadata`` (written over the rebuilt message), and
every field the rebuilt message has but the body had not is listed in
``metadata["absent"]``. Keys of this module's own, never sent: ``absent``,
``content_parts`` (the content was an array) and, on a thinking block,
``reasoning_form`` (the field it was read from, which it is written back to).
All of it is this wire's :class:`~streamkit.model.extras.Extras`, so no other wire's
builder ever writes it; the ids the reader makes up come from the body
(:attr:`.history.BuildContext.ids`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final, NamedTuple

from ...conversation.messages import AssistantMessage
from ...model.blocks import (
    ContentBlock,
    DataBlock,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)
from ...model.errors import warn_lossy
from ...model.extras import extras_for
from ...model.ids import StreamIds
from ..coerce import Wire
from ..function_tools import arguments_as_text
from ..lossless import ABSENT, unread, with_extras
from ..turns import ForeignWriters, foreign_parts, thinking_as_text
from .content import (
    RAW_KIND,
    STREAMKIT_KEYS,
    kept_exactly,
    own,
    own_extras,
    raw_block,
    read_text_part,
    text_part,
)
from .dialects import PLAIN_ECHOES, Dialect
from .history import BuildContext, Source, source_of
from .wire import NAME, json_text

__all__ = [
    "ABSENT",
    "CONTENT_PARTS",
    "DETAIL_TEXT",
    "REASONING_FORM",
    "RESERVED",
    "assistant_message",
    "detail_fields",
    "details_of",
    "patch",
    "read_assistant",
]

#: Assistant message metadata key: its content was an array of parts.
CONTENT_PARTS: Final = "content_parts"
#: Thinking block metadata key: the field or form it was read from.
REASONING_FORM: Final = "reasoning_form"
#: This module's own metadata keys: never written into a body.
RESERVED: Final = frozenset({ABSENT, CONTENT_PARTS, REASONING_FORM})

# What separates tagged thinking from the text it preceded in one content string.
_AFTER_THINKING: Final = "\n\n"

# Keys of a tool call block's metadata that are not entry fields (the stream
# parser's late ``call_id``, the ``legacy`` marker, a non-function ``type``).
_CALL_CONSUMED: Final = frozenset({"type", "legacy", "call_id", *STREAMKIT_KEYS, *RESERVED})
# Keys of an OpenRouter thinking block's metadata that are not detail fields.
_DETAIL_CONSUMED: Final = frozenset({"reasoning_type", "id", *STREAMKIT_KEYS, *RESERVED})
#: Each OpenRouter detail type with visible text, and the field holding it.
DETAIL_TEXT: Final = {"reasoning.text": "text", "reasoning.summary": "summary"}
_ASSISTANT_FIELDS: Final = frozenset({"role", "content", "refusal", "tool_calls", "function_call",
                                      "audio", "name", "reasoning_details",
                                      "reasoning_content", "reasoning"})


class _Item(NamedTuple):
    """One piece of the wire message a block becomes: ``kind`` says where it goes."""

    kind: str  # text | tagged | chunk | refusal | raw | field | detail | call | legacy | audio
    value: Any


# ================================================================ writing

def assistant_message(message: AssistantMessage, context: BuildContext) -> Wire:
    """The ``{"role": "assistant"}`` message of one turn (see the module docstring)."""
    source = source_of(message.provider, context.dialect)
    context.details_written = 0
    native = source is Source.NATIVE
    if native:
        items = [item for block in message.blocks for item in _own_items(block, context)]
    else:
        writers = _foreign_writers(source, context)
        items = [item for block in message.blocks
                 for item in foreign_parts(block, context.foreign_thinking, writers, NAME)]
    as_parts = any(item.kind in ("chunk", "raw") for item in items) or (
        native and bool(message.metadata.get(CONTENT_PARTS)))
    wire: Wire = {"role": "assistant", "content": _content(items, as_parts, native)}
    for item in items:
        if item.kind == "field":
            field, text = item.value
            wire[field] = wire.get(field, "") + text
    details = [detail for item in items if item.kind == "detail" for detail in item.value]
    if details:
        wire["reasoning_details"] = details
    calls = [item.value for item in items if item.kind == "call"]
    _placeholder_reasoning(wire, bool(calls), context)
    refusal = "".join(item.value for item in items if item.kind == "refusal")
    if refusal and not as_parts:
        wire["refusal"] = refusal
    if calls:
        wire["tool_calls"] = calls
    for item in items:
        if item.kind in ("legacy", "audio"):
            wire["function_call" if item.kind == "legacy" else "audio"] = item.value
    if message.name is not None:
        wire["name"] = message.name
    if native:
        with_extras(wire, message.metadata, NAME, RESERVED)
    return wire


def _own_items(block: ContentBlock, context: BuildContext) -> list[_Item]:
    """A block of the target's own turn, everything of it."""
    if isinstance(block, TextBlock):
        if block.refusal:
            return [_Item("refusal", block.text)]
        part = text_part(block)
        return [_Item("text", part)] if block.text or len(part) > 2 else []
    if isinstance(block, ThinkingBlock):
        form = extras_for(block.metadata, NAME).get(REASONING_FORM,
                                                         context.rules.reasoning_echo)
        if form == "reasoning_details":
            return [_Item("detail", _details(block, context))]
        if form is None and block.thinking:
            _not_sent(context)
        return _plain(block.thinking, form, block.metadata)
    if isinstance(block, ToolCallBlock):
        return [_tool_call(block, True, context)]
    if isinstance(block, DataBlock):
        return _data(block)
    if isinstance(block, RawBlock) and block.kind.startswith(RAW_KIND):
        return [_Item("raw", block.data)]  # a content part read from this wire, sent back whole
    return []  # another wire format's item: a Chat assistant message has no place for it


def _not_sent(context: BuildContext) -> None:
    """The vendor's own turn has visible reasoning and the vendor documents no
    way to take it back (``reasoning_echo`` ``None``: OpenAI refuses an unknown
    message field): not sent, as the vendor's own clients do, and said."""
    warn_lossy(NAME, f"the visible thinking of an assistant turn for {context.dialect.name}",
               "it documents no field to send reasoning back in (an unknown message field "
               "is refused), so its own clients send the turn without it; to send it anyway, "
               "put it in the turn as text")


def _foreign_writers(source: Source, context: BuildContext) -> ForeignWriters[_Item]:
    """How another vendor's or wire format's turn is written: text (a refusal
    too) and calls without their metadata; visible reasoning in the target's
    plain field when another vendor of this wire wrote it and the target has
    one, else as ``<think>`` text."""
    echo = context.rules.reasoning_echo
    plain = source is Source.SIBLING and echo in PLAIN_ECHOES
    return ForeignWriters(
        text=_text_item, call=lambda block: _tool_call(block, False, context),
        thinking=(lambda text: _plain(text, echo, {})[0]) if plain else _tagged_item)


def _text_item(text: str) -> _Item:
    return _Item("text", {"type": "text", "text": text})


def _tagged_item(thinking: str) -> _Item:
    return _Item("tagged", thinking)


def _plain(text: str, form: Any, metadata: Mapping[str, Any]) -> list[_Item]:
    """Visible reasoning in a plain form (``form`` ``None``: the vendor takes none back)."""
    if not text or form is None:
        return []
    if form == "think_tags":
        return [_tagged_item(text)]
    if form == "thinking_chunks":
        return [_Item("chunk", (text, own_extras(metadata, skip=RESERVED)))]
    return [_Item("field", (str(form), text))]


_MADE_UP_THINKING_ID: Final = re.compile(r"think_[0-9a-f]{24}")


def detail_fields(block: ThinkingBlock) -> tuple[str, Wire]:
    """A thinking block's OpenRouter detail type (the one it was read as, else
    ``reasoning.text``) and the fields each of its details repeats: its id (an
    id streamkit made up is not sent) and its other fields (``format``...)."""
    metadata = extras_for(block.metadata, NAME)
    kind = metadata.get("reasoning_type", "reasoning.text")
    detail_id = metadata.get("id")
    if detail_id is None and not _MADE_UP_THINKING_ID.fullmatch(block.id):
        detail_id = block.id
    common: Wire = {"id": detail_id} if detail_id is not None else {}
    common.update(own_extras(metadata, skip=_DETAIL_CONSUMED))
    return str(kind), common


def _details(block: ThinkingBlock, context: BuildContext) -> list[Wire]:
    """OpenRouter ``reasoning_details`` of one thinking block, as the stream
    parser read them: the text or summary detail (with its signature), then
    the encrypted one; the detail's id (an id streamkit made up is not sent)
    and its other fields (``format``...) on each; ``index`` counts the turn's
    detail blocks."""
    kind, common = detail_fields(block)
    common["index"] = context.details_written
    context.details_written += 1
    out: list[Wire] = []
    text_field = DETAIL_TEXT.get(kind)
    if text_field is not None:
        detail: Wire = {"type": kind, text_field: block.thinking, **common}
        if block.signature is not None:
            detail["signature"] = block.signature
        out.append(detail)
    if block.encrypted is not None:
        out.append({"type": "reasoning.encrypted", "data": block.encrypted, **common})
    return out


def details_of(blocks: list[ThinkingBlock], dialect: Dialect) -> list[Wire]:
    """The OpenRouter ``reasoning_details`` of thinking blocks, numbered from 0
    (a message's, a non-streamed answer's)."""
    context = BuildContext(dialect)
    return [detail for block in blocks for detail in _details(block, context)]


def _tool_call(block: ToolCallBlock, native: bool, context: BuildContext) -> _Item:
    """One ``tool_calls[]`` entry (the target's own call keeps its metadata:
    Gemini's ``extra_content`` thought signature, a custom tool's type)."""
    metadata = extras_for(block.metadata, NAME) if native else {}
    arguments = arguments_as_text(block)
    if metadata.get("legacy") == "function_call":
        context.legacy_calls[block.id] = block.name
        return _Item("legacy", {"name": block.name, "arguments": arguments})
    kind = metadata.get("type", "function")
    entry: Wire = {"id": context.call_id(block.id), "type": kind}
    if kind == "custom":
        entry["custom"] = {"name": block.name, "input": block.input}
    else:
        entry["function"] = {"name": block.name, "arguments": arguments}
    entry.update(own_extras(metadata, skip=_CALL_CONSUMED))
    for key in metadata.get(ABSENT, ()):
        entry.pop(key, None)
    return _Item("call", entry)


def _data(block: DataBlock) -> list[_Item]:
    """OpenAI's spoken answer by its id (the audio itself is not sent back);
    without one, what it said."""
    audio_id = extras_for(block.metadata, NAME).get("audio_id")
    if isinstance(audio_id, str):
        return [_Item("audio", {"id": audio_id})]
    if block.transcript:
        return [_text_item(block.transcript)]
    return []  # an image or file answer: an assistant message has no place for it


def _content(items: list[_Item], as_parts: bool, native: bool) -> str | list[Wire] | None:
    """``content``: the text (think-tagged reasoning before the text it
    preceded) as a string, or as an array of parts; ``null`` when the turn
    says nothing but calls, a refusal or audio; ``""`` for an empty turn."""
    if as_parts:
        return [part for item in items for part in _part(item)]
    texts = [item.value["text"] if item.kind == "text" else _tagged(item.value)
             for item in items if item.kind in ("text", "tagged")]
    if texts:
        return "".join(texts)
    says_something = any(item.kind in ("call", "legacy", "refusal", "audio") for item in items)
    return None if says_something else ""


def _tagged(thinking: str) -> str:
    """Another turn's visible thinking as the text before what it preceded."""
    return thinking_as_text(thinking) + _AFTER_THINKING


def _part(item: _Item) -> list[Wire]:
    if item.kind == "text":
        return [item.value]
    if item.kind == "tagged":
        return [{"type": "text", "text": _tagged(item.value)}]
    if item.kind == "chunk":
        text, extras = item.value
        return [{"type": "thinking", "thinking": [{"type": "text", "text": text}], **extras}]
    if item.kind == "refusal":
        return [{"type": "refusal", "refusal": item.value}]
    if item.kind == "raw":
        return [item.value]
    return []


def _placeholder_reasoning(wire: Wire, has_calls: bool, context: BuildContext) -> None:
    """A vendor that refuses a tool-call turn without reasoning (thinking on)
    gets its placeholder in the reasoning field."""
    placeholder = context.rules.tool_call_reasoning
    field = context.rules.reasoning_echo
    if has_calls and placeholder is not None and field is not None and field not in wire:
        wire[field] = placeholder


def patch(metadata: dict[str, Any], wire: Wire, built: Wire) -> None:
    """Make a message read from ``wire`` write back as ``wire``: each field
    the rebuilt message (``built``) has differently goes to ``metadata``, each
    field it has that ``wire`` had not is listed under :data:`ABSENT`."""
    for key, value in wire.items():
        if key not in built or built[key] != value:
            metadata[key] = value
    absent = [key for key in built if key not in wire]
    if absent:
        metadata[ABSENT] = [*metadata.get(ABSENT, ()), *absent]


# ================================================================ reading

def read_assistant(wire: Wire, context: BuildContext, provider: str) -> AssistantMessage:
    """An assistant message of a request body as the turn it stands for,
    attributed to ``provider`` (see the module docstring)."""
    ids = context.ids
    blocks: list[ContentBlock] = []
    metadata = unread(wire, *_ASSISTANT_FIELDS, wire=NAME)
    details = wire.get("reasoning_details")
    if isinstance(details, list) and all(isinstance(detail, dict) for detail in details):
        blocks += _read_details(details, ids)
    if not any(block.thinking for block in blocks if isinstance(block, ThinkingBlock)):
        blocks += _read_reasoning_fields(wire, context)
    content = wire.get("content")
    if isinstance(content, str) and content:
        blocks.append(TextBlock(content, id=ids.make("text"), metadata=own()))
    elif isinstance(content, list):
        metadata[CONTENT_PARTS] = True
        blocks += [_read_content_part(part, ids) for part in content]
    refusal = wire.get("refusal")
    if isinstance(refusal, str) and refusal:
        blocks.append(TextBlock(refusal, id=ids.make("text"), refusal=True, metadata=own()))
    calls = wire.get("tool_calls")
    if isinstance(calls, list):
        blocks += [call for call in (_read_tool_call(entry, ids) for entry in calls)
                   if call is not None]
    blocks += _read_legacy_call(wire.get("function_call"), ids)
    audio = wire.get("audio")
    if isinstance(audio, dict) and isinstance(audio.get("id"), str):
        blocks.append(DataBlock(ids.make("data"), metadata=own({"audio_id": audio["id"]})))
    name = wire.get("name")
    message = AssistantMessage(blocks, provider=provider,
                               name=name if isinstance(name, str) else None, metadata=metadata)
    check = BuildContext(context.dialect)
    patch(message.metadata, wire, assistant_message(message, check))
    return message


def _read_reasoning_fields(wire: Wire, context: BuildContext) -> list[ThinkingBlock]:
    """``reasoning_content`` / ``reasoning`` in the dialect's reading order; a
    second field repeating the first's text (vLLM) is not a second block."""
    out: list[ThinkingBlock] = []
    for field in context.dialect.reasoning_fields:
        value = wire.get(field)
        if isinstance(value, str) and value and all(value != block.thinking for block in out):
            out.append(ThinkingBlock(value, id=context.ids.make("think"),
                                     metadata=own({REASONING_FORM: field})))
    return out


def _read_details(details: list[Wire], ids: StreamIds) -> list[ThinkingBlock]:
    """OpenRouter details as the stream parser groups them: one thinking block
    per detail ``index`` (an encrypted detail joins the text detail of its index)."""
    blocks: dict[Any, ThinkingBlock] = {}
    for position, detail in enumerate(details):
        kind = detail.get("type")
        key = detail.get("index", f"position {position}")
        block = blocks.get(key)
        if block is None:
            detail_id = detail.get("id")
            block = blocks[key] = ThinkingBlock(
                id=detail_id if isinstance(detail_id, str) and detail_id else ids.make("think"),
                metadata=own({REASONING_FORM: "reasoning_details", "reasoning_type": kind}))
            block.metadata.update((k, v) for k, v in detail.items()
                                  if k not in ("type", "index", "id", "text", "summary",
                                               "signature", "data"))
        text_field = DETAIL_TEXT.get(kind) if isinstance(kind, str) else None
        text = detail.get(text_field) if text_field is not None else None
        if isinstance(text, str):
            block.thinking += text
        signature = detail.get("signature")
        if isinstance(signature, str):
            block.signature = signature
        data = detail.get("data")
        if kind == "reasoning.encrypted" and isinstance(data, str):
            block.encrypted = data
            block.redacted = not block.thinking
    return list(blocks.values())


def _read_content_part(part: Any, ids: StreamIds) -> ContentBlock:
    """One part of an assistant content array; a part that would not write
    back exactly stays whole as a RawBlock."""
    kind = part.get("type") if isinstance(part, dict) else None
    if kind == "text" and isinstance(part.get("text"), str):
        return kept_exactly(read_text_part(part, ids), text_part, part, ids)
    if kind == "refusal" and isinstance(part.get("refusal"), str) and len(part) == 2:
        return TextBlock(part["refusal"], id=ids.make("text"), refusal=True, metadata=own())
    if kind == "thinking":
        chunk = _read_thinking_chunk(part, ids)
        if chunk is not None:
            return chunk
    return raw_block(part, ids)


def _read_thinking_chunk(part: Wire, ids: StreamIds) -> ThinkingBlock | None:
    """Mistral ``{"type": "thinking", "thinking": [{"type": "text", "text"}]}``."""
    items = part.get("thinking")
    if not (isinstance(items, list) and len(items) == 1 and isinstance(items[0], dict)
            and items[0].get("type") == "text" and isinstance(items[0].get("text"), str)
            and len(items[0]) == 2):
        return None
    extras = unread(part, "type", "thinking", wire=NAME)
    extras[REASONING_FORM] = "thinking_chunks"
    return ThinkingBlock(items[0]["text"], id=ids.make("think"), metadata=extras)


def _read_tool_call(entry: Any, ids: StreamIds) -> ToolCallBlock | None:
    """One ``tool_calls[]`` entry, with the metadata the stream parser gives
    the same call (extra fields; a ``type`` other than ``function``)."""
    if not isinstance(entry, dict):
        return None
    kind = entry.get("type")
    inner = entry.get("custom") if kind == "custom" else entry.get("function")
    if not isinstance(inner, dict) or not isinstance(inner.get("name"), str):
        return None
    arguments = inner.get("input") if kind == "custom" else inner.get("arguments")
    text = arguments if isinstance(arguments, str) else (
        json_text(arguments) if arguments is not None else "")
    metadata = unread(entry, "id", "type", "function", "custom", wire=NAME)
    if "type" not in entry:
        metadata[ABSENT] = ["type"]
    elif kind != "function":
        metadata["type"] = kind
    call_id = entry.get("id")
    return ToolCallBlock(call_id if isinstance(call_id, str) and call_id else ids.make("call"),
                         inner["name"], text, metadata=metadata)


def _read_legacy_call(function_call: Any, ids: StreamIds) -> list[ToolCallBlock]:
    """The deprecated ``function_call`` ({name, arguments}): one call, marked
    as the stream parser marks it."""
    if not isinstance(function_call, dict) or not isinstance(function_call.get("name"), str):
        return []
    arguments = function_call.get("arguments")
    return [ToolCallBlock(ids.make("call"), function_call["name"],
                          arguments if isinstance(arguments, str) else "",
                          metadata=own({"legacy": "function_call"}))]
