"""pydantic schemas for streamkit's model, so it is a first-class pydantic type.

:class:`~streamkit.ChatResponse`, every block and :class:`~streamkit.ChatUsage`
stay plain classes; their ``__get_pydantic_core_schema__`` /
``__get_pydantic_json_schema__`` hooks call into this module, which pydantic
alone imports (``import streamkit`` does not import it). What that gives:

- validation from the ``to_dict()`` shape: ``TypeAdapter(ChatResponse).validate_python
  (d)`` is ``ChatResponse.from_dict(d)``, an instance passes through unchanged;
  JSON input is first checked against the shape below, so a wrong type is a
  ``ValidationError`` naming the field, never a half-built object;
- serialisation by ``to_dict()``: in JSON mode data bytes are base64 text (as in
  ``to_json()``), in Python mode they are ``bytes`` (as pydantic dumps a
  ``bytes`` field), which validates back to the same response;
- a JSON Schema of the real ``to_dict()`` shape: the content blocks are a union
  discriminated by ``type``, data sources by theirs; it is the same in
  validation and serialization mode, so FastAPI shows one ``ChatResponse`` in
  ``/openapi.json``.

The TypedDicts below *are* that shape, named like the classes they describe so
the schema's definitions read ``TextBlock``, ``ChatUsage``, ``ChatResponse``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal, NotRequired

from pydantic import Discriminator, Field, GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, core_schema
from typing_extensions import TypedDict  # pydantic needs it on Python < 3.12

from .errors import StreamError
from .finish import FinishReason

__all__ = ["block_schema", "json_schema", "response_schema", "usage_schema"]

Metadata = dict[str, Any]
Base64Text = Annotated[str, Field(json_schema_extra={"contentEncoding": "base64"})]


class Base64Source(TypedDict):
    """Inline bytes, base64-encoded."""

    type: Literal["base64"]
    data: Base64Text
    media_type: str


class URLSource(TypedDict):
    """Content at a URL."""

    type: Literal["url"]
    url: str
    media_type: str


class TextBlock(TypedDict):
    """Text the model wrote (``refusal``: a refusal)."""

    type: Literal["text"]
    id: str
    metadata: NotRequired[Metadata]
    text: str
    citations: NotRequired[list[Metadata]]
    refusal: NotRequired[bool]


class ThinkingBlock(TypedDict):
    """The model's reasoning, its signature and encrypted form."""

    type: Literal["thinking"]
    id: str
    metadata: NotRequired[Metadata]
    thinking: str
    signature: NotRequired[str]
    encrypted: NotRequired[str]
    redacted: NotRequired[bool]


class ToolCallBlock(TypedDict):
    """A tool call: ``input`` is the raw JSON argument text."""

    type: Literal["tool_call"]
    id: str
    metadata: NotRequired[Metadata]
    name: str
    input: str
    incomplete: NotRequired[bool]


class DataBlock(TypedDict):
    """Audio, images, files: inline (base64) or at a URL."""

    type: Literal["data"]
    id: str
    metadata: NotRequired[Metadata]
    source: Annotated[Base64Source | URLSource, Discriminator("type")]
    name: NotRequired[str]
    transcript: NotRequired[str]


class ToolResultBlock(TypedDict):
    """The result of a tool call."""

    type: Literal["tool_result"]
    id: str
    metadata: NotRequired[Metadata]
    call_id: str
    content: list[Annotated[TextBlock | DataBlock, Discriminator("type")]]
    is_error: NotRequired[bool]


class RawBlock(TypedDict):
    """A provider item streamkit does not model, kept whole."""

    type: Literal["raw"]
    id: str
    metadata: NotRequired[Metadata]
    kind: str
    data: Metadata


ContentBlock = Annotated[
    TextBlock | ThinkingBlock | ToolCallBlock | DataBlock | ToolResultBlock | RawBlock,
    Discriminator("type"),
]


class ChatUsage(TypedDict):
    """Token counts; ``null`` when the provider did not say."""

    input_tokens: int | None
    output_tokens: int | None
    total_tokens: int | None
    cached_tokens: int | None
    cache_creation_tokens: int | None
    reasoning_tokens: int | None
    audio_tokens: int | None
    raw: Metadata
    accounting: Literal["cumulative", "additive"]
    type: Literal["chat"]
    input_includes_cache: NotRequired[bool | None]
    output_includes_reasoning: NotRequired[bool | None]


class ChatResponse(TypedDict):
    """A model's response: ordered content blocks, usage, why it finished."""

    type: Literal["chat_response"]
    id: str
    created_at: str
    content: list[ContentBlock]
    is_last: bool
    usage: ChatUsage | None
    finished_reason: FinishReason | None
    metadata: Metadata
    model: str | None
    stop_reason: str | None
    terminated: bool
    provider: str | None


_SHAPES: dict[str, Any] = {
    "text": TextBlock, "thinking": ThinkingBlock, "tool_call": ToolCallBlock,
    "data": DataBlock, "tool_result": ToolResultBlock, "raw": RawBlock, "": ContentBlock}


# ---------------------------------------------------------------- Python mode: bytes

Dump = Callable[[Any], dict[str, Any]]
"""A block's ``to_dict()`` with inline data as ``bytes`` (its module's ``python_dict``)."""


def _block_dumper(python_block: Dump) -> Callable[[Any, core_schema.SerializationInfo],
                                                    dict[str, Any]]:
    def dump(block: Any, info: core_schema.SerializationInfo) -> dict[str, Any]:
        return block.to_dict() if info.mode_is_json() else python_block(block)

    return dump


def _response_dumper(python_block: Dump) -> Callable[[Any, core_schema.SerializationInfo],
                                                       dict[str, Any]]:
    def dump(response: Any, info: core_schema.SerializationInfo) -> dict[str, Any]:
        out: dict[str, Any] = response.to_dict()
        if not info.mode_is_json():
            out["content"] = [python_block(block) for block in response.content]
        return out

    return dump


def _dump_usage(usage: Any) -> dict[str, Any]:
    return usage.to_dict()  # type: ignore[no-any-return]


# ---------------------------------------------------------------- validation


def _rebuild(cls: type[Any], build: Any, value: Any) -> Any:
    """``cls`` from its ``to_dict()`` shape by ``build``; an instance passes through.
    Anything that does not rebuild is a ``ValueError``, which pydantic reports
    as a ``ValidationError``."""
    if isinstance(value, cls):
        return value
    if not isinstance(value, dict):
        raise ValueError(f"expected a {cls.__name__} or its to_dict() dict, "
                         f"not {type(value).__name__}")
    try:
        built = build(value)
        built.to_dict()  # every field readable: no half-built object escapes
    except (KeyError, TypeError, ValueError, AttributeError, StreamError) as exc:
        raise ValueError(f"not a {cls.__name__} dict: {type(exc).__name__}: {exc}") from None
    if not isinstance(built, cls):
        raise ValueError(f"expected a {cls.__name__} dict, got a {type(built).__name__} one")
    return built


def _schema(cls: type[Any], build: Any, shape: Any, handler: GetCoreSchemaHandler,
            serialization: core_schema.SerSchema) -> CoreSchema:
    """JSON input checked against ``shape`` and then built; Python input built directly
    (bytes data allowed); the JSON Schema is ``shape``'s."""
    shape_schema = handler.generate_schema(shape)

    def rebuild(value: Any) -> Any:
        return _rebuild(cls, build, value)

    from_shape = core_schema.chain_schema([
        shape_schema, core_schema.no_info_plain_validator_function(rebuild)])
    return core_schema.json_or_python_schema(
        json_schema=from_shape,
        python_schema=core_schema.no_info_plain_validator_function(
            rebuild, json_schema_input_schema=shape_schema),
        serialization=serialization,
        metadata={"streamkit_shape": shape_schema},
    )


def response_schema(cls: type[Any], handler: GetCoreSchemaHandler,
                    python_block: Dump) -> CoreSchema:
    """The core schema of :class:`~streamkit.ChatResponse` (``python_block``: each
    block's Python-mode dump)."""
    return _schema(cls, cls.from_dict, ChatResponse, handler,
                   core_schema.plain_serializer_function_ser_schema(
                       _response_dumper(python_block), info_arg=True))


def block_schema(cls: type[Any], handler: GetCoreSchemaHandler,
                 build: Callable[[dict[str, Any]], Any], python_block: Dump) -> CoreSchema:
    """The core schema of a block class (``Block`` itself: any block, by its
    ``type``), rebuilt by ``build`` (``block_from_dict``)."""
    return _schema(cls, build, _SHAPES[cls.type], handler,
                   core_schema.plain_serializer_function_ser_schema(
                       _block_dumper(python_block), info_arg=True))


def usage_schema(cls: type[Any], handler: GetCoreSchemaHandler) -> CoreSchema:
    """The core schema of :class:`~streamkit.ChatUsage`."""
    return _schema(cls, cls.from_dict, ChatUsage, handler,
                   core_schema.plain_serializer_function_ser_schema(_dump_usage))


def json_schema(schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
    """The JSON Schema of the ``to_dict()`` shape, in validation and serialization mode."""
    shape = (schema.get("metadata") or {}).get("streamkit_shape")
    return handler(shape if shape is not None else schema)
