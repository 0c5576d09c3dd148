"""Ollama's chat messages <-> streamkit messages and blocks, both directions.

One wire message per streamkit message, ``content`` always a string
(Ollama's ``docs/api.md``, "Generate a chat completion", and ``api/types.go``
``Message`` / ``ToolCall``):

=====================================  =============================================
streamkit                              Ollama message
=====================================  =============================================
SystemMessage                          ``{"role": "system", "content"}``
UserMessage (text, images)             ``{"role": "user", "content", "images": [b64]}``
AssistantMessage / ChatResponse        ``{"role": "assistant", "content", "thinking",
                                       "tool_calls": [{"id", "function": {"index",
                                       "name", "arguments": {...}}}], "images"}``
FunctionExecutionResult                ``{"role": "tool", "content", "tool_name",
                                       "tool_call_id", "images"}`` (one per result)
=====================================  =============================================

The stream parser reads the same parts of a streamed message with
:func:`image_block` and :func:`call_metadata`, so a turn read from a stream
and one read from a request body hold the same blocks.

Images are base64 without a ``data:`` prefix and without a media type (Ollama
sniffs the bytes: :func:`media_type_of` does too); a ``data:`` URL is
unpacked, a web URL is refused (sans-IO: nothing is fetched here) and so is a
non-image file, with an :class:`~streamkit.model.errors.UnsupportedFeatureError`
naming the block. Tool call ``arguments`` go as a JSON object (Ollama refuses
the JSON text); ``{}`` for arguments cut off or no JSON object (the policy of
every wire: :mod:`streamkit.providers.function_tools`). A tool result's
``is_error`` has no field: the content says it (see
:meth:`streamkit.conversation.tools.Tool.run_json`). ``tool_name`` is filled from the call
it answers when the result does not name it.

Sending a turn back (same wire). Every block Ollama produced goes back:
thinking as ``thinking``, text as ``content``, tool calls with their ``id``
and ``index``, images. A call id the stream parser made up (Ollama before
0.12 sent none) is sent too: servers that do not know ids ignore it.

Cross-provider policy (:mod:`streamkit.providers.turns` decides it for every
wire; Ollama supplies its writers). An assistant turn from another wire
format: its signatures, encrypted / redacted reasoning, provider items
(``RawBlock``), tool-result blocks and block metadata are dropped (Ollama has
no field for any of them); visible thinking becomes text, ``<think> ...
</think>`` before the text it preceded (as the recorded Cerebras client does),
or is dropped with ``foreign_thinking="drop"``; text and tool calls (id, name,
arguments) go through, but for calls the other provider ran itself
(``metadata["server"]``: a web search, an MCP call), which no Ollama tool
result could answer; images go as images, other media (an OpenAI audio
answer) as its transcript. A turn without a ``provider`` (built by hand) is
treated as Ollama's own. A ``RawBlock`` in a user message or a tool result is
another wire's item: Ollama has no place for it, and it is left out with a
:class:`~streamkit.LossyTranslationWarning`.

Reading is lossless, with provenance. What the model has no place for is kept
as :class:`~streamkit.model.extras.Extras` of ``ollama``: a message's unknown fields
in its ``metadata`` (merged back into the wire message), a call's ``index``
and unknown keys in the block's. Three keys are this module's own records,
never sent (:data:`RECORDS`): a message's ``"absent"`` lists documented fields
the body left out (``content``, ``tool_name``, ``tool_call_id``), a tool
call's ``"generated_id"`` marks an id made up because the body had none (it
is not sent, nor is ``tool_call_id`` on the results that answer it), and an
image's ``"base64"`` keeps the body's own spelling of its bytes. A builder
writes back only extras of ``ollama`` or set by hand
(:func:`~streamkit.model.extras.extras_for`), so another wire's fields and records
never reach an Ollama body, nor these reach another wire's. Ids the body does
not give are derived from the body (:class:`~streamkit.model.ids.StreamIds`): two
reads of one body are equal. A tool message without ``tool_call_id`` answers
the next unanswered call of the assistant message before it (the one of its
``tool_name`` first), so a conversation read here can be sent to a wire
format that needs call ids.
"""

from __future__ import annotations

import binascii
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from ...conversation.messages import (
    AssistantMessage,
    FunctionExecutionResult,
    Message,
    SystemMessage,
    UserContent,
    UserMessage,
)
from ...conversation.request import ForeignThinking
from ...model.blocks import ContentBlock, DataBlock, TextBlock, ThinkingBlock, ToolCallBlock
from ...model.data_sources import Base64Source, URLSource
from ...model.errors import InvalidBodyError, UnsupportedFeatureError
from ...model.extras import Extras, extras_for
from ...model.ids import StreamIds
from ...model.tool_arguments import arguments_text
from ..coerce import as_str
from ..function_tools import arguments_as_object
from ..lossless import ABSENT, raw_part_or_dropped, unread, with_extras
from ..media import base_media_type, read_data_url
from ..tool_media import result_blocks
from ..turns import (
    ForeignWriters,
    add_result,
    foreign_parts,
    is_own_turn,
    thinking_as_text,
    write_messages,
)
from .wire import NAME

__all__ = ["ABSENT", "BASE64", "GENERATED_ID", "RECORDS", "build_messages",
           "call_entry", "call_metadata", "image_block", "media_type_of", "parse_messages"]

#: Tool call metadata key: the id was made up (the body had none); never sent.
GENERATED_ID = "generated_id"
#: Image metadata key: the body's own base64 spelling of the bytes.
BASE64 = "base64"
#: This module's records in metadata, never written as wire fields.
RECORDS = frozenset({ABSENT, GENERATED_ID, BASE64})

#: The mark of a call another provider ran on its side (a web search, an MCP
#: call: every wire's reader sets it): no result of ours can answer it.
#: Tool call metadata keys that belong inside ``function`` (``ToolCallFunction.Index``).
_FUNCTION_FIELDS = frozenset({"index"})
_ROLES = frozenset({"system", "user", "assistant", "tool"})
# What separates tagged thinking from the text it preceded in one content string.
_AFTER_THINKING = "\n\n"

# Magic numbers of the image formats Ollama's image models return; Ollama
# sends the bytes without a media type.
_IMAGE_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF8", "image/gif"),
)


# ================================================================ parts, both readers

def media_type_of(data: bytes) -> str:
    """The image format of ``data`` by its magic number (Ollama names none)."""
    for magic, media_type in _IMAGE_MAGIC:
        if data.startswith(magic):
            return media_type
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return "application/octet-stream"


def image_block(image: Any, ids: StreamIds, metadata: dict[str, Any] | None = None
                ) -> DataBlock | None:
    """One ``images`` entry as a data block (its id the next of ``ids``);
    ``None`` for an entry that is not base64 text (one character, text that is
    not ASCII, a number...), which uses up no id."""
    if type(image) is not str:
        return None
    try:
        data = binascii.a2b_base64(image)
    except ValueError:  # binascii.Error, and text that is not ASCII
        return None
    media_type = media_type_of(data)
    return DataBlock(ids.make("data"), media_type=media_type,
                     source=Base64Source(data, media_type), metadata=metadata)


def call_metadata(call: Mapping[str, Any], function: Mapping[str, Any]) -> dict[str, Any]:
    """A ``tool_calls`` entry's keys beyond ``id`` and the function's ``name`` /
    ``arguments`` (``index``, any unknown key): the block's metadata."""
    metadata = {key: value for key, value in function.items() if key not in ("name", "arguments")}
    metadata.update({key: value for key, value in call.items() if key not in ("id", "function")})
    return metadata


# ================================================================ build

def build_messages(messages: Sequence[Message], *,
                   foreign_thinking: ForeignThinking = "text") -> list[dict[str, Any]]:
    """The ``messages`` array: one wire message per message, one per tool result."""
    calls = _Calls()
    return write_messages(
        messages, system=_system, user=_user,
        assistant=lambda message: [_assistant(message, foreign_thinking, calls)],
        results=lambda message: [_tool_result(result, calls) for result in message.content])


class _Calls:
    """What later tool results need to know about earlier tool calls: the tool
    each id called, and which ids were made up (never sent)."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.made_up: set[str] = set()


def _system(message: SystemMessage) -> dict[str, Any]:
    return with_extras({"role": "system", "content": message.text}, message.metadata, NAME, RECORDS)


def _user(message: UserMessage) -> dict[str, Any]:
    texts: list[str] = []
    images: list[str] = []
    for block in message.blocks:
        if isinstance(block, TextBlock):
            texts.append(block.text)
        elif isinstance(block, DataBlock):
            images.append(image_text(block))
        else:  # another wire's part: left out, with a warning
            raw_part_or_dropped(block, NAME)
    wire: dict[str, Any] = {"role": "user", "content": "\n".join(texts)}
    if images:
        wire["images"] = images
    return with_extras(wire, message.metadata, NAME, RECORDS)


def _assistant(message: AssistantMessage, foreign_thinking: ForeignThinking,
               calls: _Calls) -> dict[str, Any]:
    """An assistant message; each block a ``(field, value)`` piece of it."""
    if is_own_turn(message.provider, NAME):
        pieces = [piece for block in message.blocks for piece in _own_pieces(block, calls)]
    else:
        writers = ForeignWriters(
            text=lambda text: ("content", text),
            call=lambda block: ("tool_calls", _tool_call(block, False, calls, NAME)),
            thinking=lambda text: ("content", thinking_as_text(text) + _AFTER_THINKING),
            media=_image)
        pieces = [piece for block in message.blocks
                  for piece in foreign_parts(block, foreign_thinking, writers, NAME)]
    fields: dict[str, list[Any]] = {"content": [], "thinking": [], "tool_calls": [], "images": []}
    for field, value in pieces:
        fields[field].append(value)
    wire: dict[str, Any] = {"role": "assistant", "content": "".join(fields["content"])}
    if fields["thinking"]:
        wire["thinking"] = "".join(fields["thinking"])
    wire.update((key, fields[key]) for key in ("tool_calls", "images") if fields[key])
    return with_extras(wire, message.metadata, NAME, RECORDS)


def _own_pieces(block: ContentBlock, calls: _Calls) -> list[tuple[str, Any]]:
    """Ollama's own block: text, thinking, a call, an image; RawBlocks and
    tool-result blocks are provider items Ollama cannot take."""
    if isinstance(block, TextBlock):
        return [("content", block.text)]
    if isinstance(block, ThinkingBlock):  # redacted / encrypted only: nothing Ollama can read
        return [("thinking", block.thinking)] if block.thinking else []
    if isinstance(block, ToolCallBlock):
        return [] if block.server_side else [("tool_calls", _tool_call(block, True, calls, None))]
    image = _image(block) if isinstance(block, DataBlock) else None
    return [image] if image is not None else []


def _tool_call(block: ToolCallBlock, native: bool, calls: _Calls,
               said: str | None) -> dict[str, Any]:
    """One ``tool_calls`` entry; only Ollama's own blocks bring their metadata.
    ``said``: the wire that says arguments it cannot hold, for another API's
    call crossing to Ollama (an own turn's call goes by the policy of
    :mod:`~streamkit.providers.function_tools` unsaid, as an answer's encoder)."""
    calls.names[block.id] = block.name
    metadata = extras_for(block.metadata, NAME) if native else {}
    wire: dict[str, Any] = {}
    if metadata.get(GENERATED_ID):
        calls.made_up.add(block.id)
    else:
        wire["id"] = block.id
    function: dict[str, Any] = {}
    for key, value in metadata.items():
        if key in _FUNCTION_FIELDS:
            function[key] = value
        elif key not in RECORDS:
            wire[key] = value
    function["name"] = block.name
    function["arguments"] = arguments_as_object(block, said)
    wire["function"] = function
    return wire


def call_entry(block: ToolCallBlock, *, own: bool) -> dict[str, Any]:
    """One ``tool_calls`` entry of an answer (the response encoder's): the
    request builder's, so a call reads the same in a turn sent back and in
    the answer that made it; ``own``: the block's kept fields go with it."""
    return _tool_call(block, own, _Calls(), said=None)


def _tool_result(result: FunctionExecutionResult, calls: _Calls) -> dict[str, Any]:
    blocks = result_blocks(result, image_text, NAME)
    texts = [block.text for block in blocks if isinstance(block, TextBlock)]
    images = [image_text(block) for block in blocks if isinstance(block, DataBlock)]
    wire: dict[str, Any] = {"role": "tool", "content": "\n".join(texts)}
    if images:
        wire["images"] = images
    name = result.name or calls.names.get(result.call_id)
    if name:
        wire["tool_name"] = name
    if result.call_id and result.call_id not in calls.made_up:
        wire["tool_call_id"] = result.call_id
    return with_extras(wire, result.metadata, NAME, RECORDS)


def image_text(block: DataBlock) -> str:
    """An image as Ollama takes it: base64 of the bytes, no ``data:`` prefix.
    Anything else is refused: Ollama's messages take image bytes only."""
    media_type = base_media_type(block.media_type)
    if media_type and not media_type.startswith("image/") and (
            media_type != "application/octet-stream"):
        raise UnsupportedFeatureError(NAME, f"{block.media_type!r} content (block {block.id!r})",
                                      "its messages take images only")
    source = block.source
    if isinstance(source, URLSource):
        inline = read_data_url(source.url, percent=True)
        if inline is None:
            raise UnsupportedFeatureError(
                NAME, f"an image URL (block {block.id!r})",
                f"it takes image bytes only: fetch {source.url!r} and send the bytes")
        return inline.data
    original = extras_for(block.metadata, NAME).get(BASE64)
    if isinstance(original, str) and _decodes_to(original, source):
        return original  # the body's own spelling of these bytes
    return source.data


def _image(block: DataBlock) -> tuple[str, str] | None:
    """An assistant turn's image, or ``None`` for what Ollama cannot take back."""
    try:
        return "images", image_text(block)
    except UnsupportedFeatureError:
        return None


def _decodes_to(text: str, source: Base64Source) -> bool:
    try:
        return binascii.a2b_base64(text) == source.raw
    except binascii.Error:
        return False


# ================================================================ parse

def parse_messages(items: list[Any], ids: StreamIds) -> list[Message]:
    """The ``messages`` array as streamkit messages (consecutive tool messages
    are one :class:`~streamkit.conversation.messages.FunctionExecutionResultMessage`);
    ``ids`` makes up the ids the body does not give."""
    out: list[Message] = []
    unanswered: list[ToolCallBlock] = []  # calls of the last assistant message
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise InvalidBodyError(f"message {index} is not an object: {item!r}", wire=NAME,
                                   where=f"messages[{index}]")
        role = item.get("role")
        if role == "tool":
            add_result(out, _parse_tool_result(item, unanswered, ids), NAME)
        elif role == "assistant":
            message = _parse_assistant(item, ids)
            unanswered = [block for block in message.blocks if isinstance(block, ToolCallBlock)]
            out.append(message)
        elif role == "system":
            metadata = _extras(item)
            out.append(SystemMessage(content=_text(item, metadata), metadata=metadata))
        else:  # "user", or a role Ollama does not know (kept in metadata)
            out.append(_parse_user(item, ids))
    return out


def _extras(item: dict[str, Any], *handled: str) -> Extras:
    """The wire message's fields the model has no place for: the metadata (a
    role Ollama does not know is one: it replaces ``user`` when built)."""
    role = ("role",) if as_str(item.get("role")) in _ROLES else ()
    metadata = unread(item, "content", *handled, *role, wire=NAME)
    if "role" not in item:
        _absent(metadata, "role")
    return metadata


def _absent(metadata: dict[str, Any], key: str) -> None:
    metadata.setdefault(ABSENT, []).append(key)


def _text(item: dict[str, Any], metadata: dict[str, Any]) -> str:
    """The ``content`` string ("" when absent or not a string: then noted)."""
    if "content" not in item:
        _absent(metadata, "content")
        return ""
    content = item["content"]
    if isinstance(content, str):
        return content
    metadata["content"] = content
    return ""


BlockT = TypeVar("BlockT", DataBlock, ToolCallBlock)


def _parse_entries(item: dict[str, Any], key: str, metadata: dict[str, Any], ids: StreamIds,
                   parse: Callable[[Any, StreamIds], BlockT | None]) -> list[BlockT]:
    """The list ``item[key]`` (``images``, ``tool_calls``) as blocks, one per
    entry; kept whole in ``metadata`` instead (empty, null, not a list) unless
    every entry reads as a block."""
    entries = item.get(key)
    if entries is None and key not in item:
        return []
    blocks = [parse(entry, ids) for entry in entries] if isinstance(entries, list) else []
    if entries and all(block is not None for block in blocks):
        return [block for block in blocks if block is not None]
    metadata[key] = entries
    return []


def _parse_images(item: dict[str, Any], metadata: dict[str, Any],
                  ids: StreamIds) -> list[DataBlock]:
    return _parse_entries(item, "images", metadata, ids, _parse_image)


def _parse_image(image: Any, ids: StreamIds) -> DataBlock | None:
    block = image_block(image, ids, Extras(NAME))
    if block is not None and isinstance(block.source, Base64Source) and (
            block.source.data != image):  # not the canonical spelling: keep the body's
        block.metadata[BASE64] = image
    return block


def _parse_user(item: dict[str, Any], ids: StreamIds) -> UserMessage:
    metadata = _extras(item, "images")
    text = _text(item, metadata)
    images = _parse_images(item, metadata, ids)
    if not images:
        return UserMessage(content=text, metadata=metadata)
    content: list[UserContent] = [_text_block(text, ids)] if text else []
    content.extend(images)
    return UserMessage(content=content, metadata=metadata)


def _text_block(text: str, ids: StreamIds) -> TextBlock:
    return TextBlock(text, id=ids.make("text"), metadata=Extras(NAME))


def _parse_assistant(item: dict[str, Any], ids: StreamIds) -> AssistantMessage:
    metadata = _extras(item, "thinking", "tool_calls", "images")
    blocks: list[Any] = []
    thinking = item.get("thinking")
    if isinstance(thinking, str) and thinking:
        blocks.append(ThinkingBlock(thinking, id=ids.make("think"), metadata=Extras(NAME)))
    elif "thinking" in item:
        metadata["thinking"] = thinking
    text = _text(item, metadata)
    if text:
        blocks.append(_text_block(text, ids))
    blocks.extend(_parse_entries(item, "tool_calls", metadata, ids, _parse_tool_call))
    blocks.extend(_parse_images(item, metadata, ids))
    return AssistantMessage(content=blocks, provider=NAME, metadata=metadata)


def _parse_tool_call(call: Any, ids: StreamIds) -> ToolCallBlock | None:
    """One entry: ``{"id"?, "function": {"index"?, "name", "arguments": {...}}}``,
    only when building it back gives it exactly; metadata holds ``index`` and
    any other key, as the stream parser reads them."""
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict):
        return None
    name = function.get("name")
    arguments = function.get("arguments")
    call_id = call.get("id")
    if (not isinstance(name, str) or not isinstance(arguments, dict)
            or not set(function) - {"name", "arguments"} <= _FUNCTION_FIELDS
            or ("id" in call and not (isinstance(call_id, str) and call_id))):
        return None
    metadata = Extras(NAME, call_metadata(call, function))
    if call_id is None:
        call_id = ids.make("call")
        metadata[GENERATED_ID] = True
    return ToolCallBlock(call_id, name, arguments_text(arguments), metadata=metadata)


def _parse_tool_result(item: dict[str, Any], unanswered: list[ToolCallBlock],
                       ids: StreamIds) -> FunctionExecutionResult:
    metadata = _extras(item, "images", "tool_name", "tool_call_id")
    text = _text(item, metadata)
    images = _parse_images(item, metadata, ids)
    name = item.get("tool_name")
    if "tool_name" not in item:
        _absent(metadata, "tool_name")
    elif not isinstance(name, str):
        metadata["tool_name"] = name
        name = None
    call_id = item.get("tool_call_id")
    if isinstance(call_id, str) and call_id:
        answered = next((call for call in unanswered if call.id == call_id), None)
    else:
        if "tool_call_id" in item:
            metadata["tool_call_id"] = call_id
        else:
            _absent(metadata, "tool_call_id")
        answered = next((call for call in unanswered if call.name == name),
                        unanswered[0] if unanswered else None)
        call_id = answered.id if answered is not None else ids.make("call")
    if answered is not None:
        unanswered.remove(answered)
    content: str | list[TextBlock | DataBlock] = text
    if images:
        content = [_text_block(text, ids), *images] if text else list(images)
    return FunctionExecutionResult(call_id=call_id, content=content, name=name,
                                   metadata=metadata)
