"""The final (and live) response: :class:`ChatResponse`.

Its fields and ``append_*`` signatures follow agentscope's ``ChatResponse`` so
code written for it keeps working, with its defects fixed:

- ``block_id=None`` continues the *last* block when it has the right kind, and
  otherwise opens a new block: text after a tool call never merges into an
  earlier text block, and order is preserved;
- ids, names and signatures are set once or replaced, never concatenated;
- ``**extra`` fields are kept in ``metadata`` instead of raising;
- an id reused for another block kind or media type raises
  :class:`~streamkit.model.errors.BlockConflictError`;
- every append is amortised O(1): an id -> block dict, fragments joined on read,
  audio bytes in a bytearray (base64 only when ``source.data`` is read).
"""

from __future__ import annotations

import builtins
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal, Self, TypeVar

import msgspec

from .blocks import (
    Block,
    ContentBlock,
    DataBlock,
    ModelT,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    block_from_dict,
    new_block_id,
    python_dict,
)
from .data_sources import Base64Source
from .errors import BlockConflictError
from .events import (
    DataDelta,
    MetadataDelta,
    SignatureDelta,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
)
from .finish import FinishReason
from .ids import new_id
from .merge import apply_delta
from .timing import ResponseTiming
from .usage import ChatUsage, merge_usage

if TYPE_CHECKING:
    from .cost import Cost

BlockT = TypeVar("BlockT", bound=Block)


def _new_response_id() -> str:
    return new_id("resp")


def _timestamp() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _is_streamable(media_type: str) -> bool:
    return media_type.lower().startswith("audio/")


@dataclass(eq=False)
class ChatResponse:
    """A model's response: ordered content blocks plus usage and finish reason.

    During a stream this object is the live snapshot (``is_last=False``); the
    stream's final item is the completed one (``is_last=True``).
    ``stop_reason`` keeps the provider's own word for why it stopped, and
    ``terminated`` says whether the provider's end-of-stream marker was seen.

    ``==`` compares everything :meth:`to_dict` holds but ``created_at``, the
    local time the object was made: two parses of the same bytes are equal
    when their made-up ids are (make them repeatable with
    :func:`streamkit.model.ids.id_factory`, e.g. ``id_factory(counting_ids())``).
    """

    content: list[ContentBlock] = field(default_factory=list)
    is_last: bool = False
    id: str = field(default_factory=_new_response_id)
    created_at: str = field(default_factory=_timestamp)
    type: Literal["chat_response"] = "chat_response"
    usage: ChatUsage | None = None
    finished_reason: FinishReason | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    model: str | None = None
    stop_reason: str | None = None
    terminated: bool = False
    provider: str | None = None
    """The registry name of the API that produced it (``anthropic``, ``gemini``,
    ``deepseek``...): what decides whether its signatures can be sent back."""
    _by_id: dict[str, ContentBlock] = field(default_factory=dict, init=False, repr=False)
    timing: ResponseTiming | None = field(default=None, repr=False)
    """When each part of the answer arrived, as the stream (or the client, for a
    non-streamed answer) measured it; ``None`` for a response built by hand. A
    local measurement, like ``created_at``: not in :meth:`to_dict` nor ``==``."""

    def __post_init__(self) -> None:
        for block in self.content:
            self._by_id.setdefault(block.id, block)

    # ------------------------------------------------------------ reading

    @property
    def text(self) -> str:
        """All answer text (refusals excluded), blocks joined in order."""
        return "".join(b.text for b in self.content if type(b) is TextBlock and not b.refusal)

    @property
    def refusal(self) -> str | None:
        """The refusal text, or ``None`` when the model did not refuse."""
        parts = [b.text for b in self.content if type(b) is TextBlock and b.refusal]
        return "".join(parts) if parts else None

    @property
    def thinking(self) -> str:
        """All visible reasoning, blocks joined in order."""
        return "".join(b.thinking for b in self.content if type(b) is ThinkingBlock)

    @property
    def tool_calls(self) -> list[ToolCallBlock]:
        """The tool call blocks, in order."""
        return [b for b in self.content if type(b) is ToolCallBlock]

    @property
    def data_blocks(self) -> list[DataBlock]:
        """The data (audio, image, file) blocks, in order."""
        return [b for b in self.content if type(b) is DataBlock]

    def cost(self) -> Cost:
        """What this answer cost, priced by genai-prices (the ``prices`` extra)
        from its usage, model and provider; ``amount`` is ``None`` with a
        ``reason`` when it cannot be priced (see :mod:`streamkit.model.cost`)."""
        from .cost import response_cost

        return response_cost(self)

    def get_block(self, block_id: str) -> ContentBlock | None:
        """The block with this id, or ``None``."""
        return self._by_id.get(block_id)

    # ------------------------------------------------------------ building

    def add_block(self, block: ContentBlock) -> ContentBlock:
        """Append a complete or empty block at the end of ``content``.

        ``TypeError`` for anything but a block with a string id: a programming
        error (the parsers make every block they emit with a string id, so no
        bytes on the wire reach this)."""
        if not isinstance(block, Block) or type(block.id) is not str:
            what = type(block).__name__ if not isinstance(block, Block) else (
                f"{type(block).__name__} with a {type(block.id).__name__} id")
            raise TypeError(f"add_block() takes a content block with a str id, not a {what}")
        self.content.append(block)
        self._by_id.setdefault(block.id, block)
        return block

    def _target(
        self, cls: builtins.type[BlockT], block_id: str | None, **kwargs: Any
    ) -> BlockT:
        """The block an ``append_*`` call continues, or a new one of kind ``cls``."""
        factory: Any = cls
        if block_id is None:
            last: Any = self.content[-1] if self.content else None
            if type(last) is cls and not getattr(last, "refusal", False):
                return last
            block: BlockT = factory(id=new_block_id(cls.type), **kwargs)
            self.add_block(block)  # type: ignore[arg-type]
            return block
        existing = self._by_id.get(block_id)
        if existing is None:
            block = factory(id=block_id, **kwargs)
            self.add_block(block)  # type: ignore[arg-type]
            return block
        if type(existing) is not cls:
            raise BlockConflictError(
                f"block id {block_id!r} is a {existing.type} block; "
                f"cannot append {cls.type} content to it"
            )
        return existing

    def append_text(self, text: str, block_id: str | None = None) -> Self:
        """Append text to the block ``block_id`` (or the last text block)."""
        apply_delta(self._target(TextBlock, block_id), TextDelta(text))
        return self

    def append_thinking(self, thinking: str, block_id: str | None = None, **extra: Any) -> Self:
        """Append reasoning; ``signature`` in ``extra`` replaces the block's
        signature, ``encrypted`` / ``redacted`` set those fields, and any other
        non-``None`` extra is kept in ``metadata``."""
        block = self._target(ThinkingBlock, block_id)
        apply_delta(block, ThinkingDelta(thinking))
        for key, value in extra.items():
            if value is None:
                continue
            if key == "signature":
                apply_delta(block, SignatureDelta(value))
            elif key == "encrypted":
                block.encrypted = value
            elif key == "redacted":
                block.redacted = bool(value)
            else:
                apply_delta(block, MetadataDelta({key: value}))
        return self

    def append_tool_call(self, block_id: str, name: str, input: str, **extra: Any) -> Self:
        """Append argument JSON to the tool call ``block_id``; the name is set
        once (a later, different name is ignored), and non-``None`` extras
        (``call_id``, ``item_id``...) are kept in ``metadata``."""
        block = self._target(ToolCallBlock, block_id, name=name)
        if not block.name:
            block.name = name
        apply_delta(block, ToolInputDelta(input))
        extras = {k: v for k, v in extra.items() if v is not None}
        if extras:
            apply_delta(block, MetadataDelta(extras))
        return self

    def append_data_block(
        self, block_id: str, data: bytes, media_type: str, name: str | None = None
    ) -> Self:
        """Append raw bytes to the data block ``block_id``.

        A new id opens a block of ``media_type``; an existing id must have the
        same media type, else :class:`~streamkit.model.errors.BlockConflictError`.
        """
        existing = self._by_id.get(block_id)
        if existing is not None and (
            type(existing) is not DataBlock or existing.media_type != media_type
        ):
            what = existing.media_type if type(existing) is DataBlock else existing.type
            raise BlockConflictError(
                f"block id {block_id!r} holds {what!r}; cannot append {media_type!r} data to it"
            )
        block = self._target(DataBlock, block_id, media_type=media_type, name=name)
        apply_delta(block, DataDelta(data))
        return self

    def append_chat_response(self, delta: ChatResponse) -> Self:
        """Merge a delta response into this one.

        Blocks are merged by id in order (several blocks with the same id in
        ``delta`` all merge); new ids are appended as copies. Audio data appends,
        other media are complete assets and the latest wins. Usage merges by the
        delta's declared accounting; metadata, finish reason, stop reason,
        model and ``is_last`` are kept.
        """
        for block in delta.content:
            existing = self._by_id.get(block.id)
            if existing is None:
                self.add_block(block.copy())  # type: ignore[arg-type]
            else:
                self._merge_block(existing, block)
        if delta.usage is not None:
            self.usage = merge_usage(self.usage, delta.usage)
        self.metadata.update(delta.metadata)
        if delta.finished_reason is not None:
            self.finished_reason = delta.finished_reason
        if delta.stop_reason is not None:
            self.stop_reason = delta.stop_reason
        if delta.model is not None:
            self.model = delta.model
        self.terminated = self.terminated or delta.terminated
        self.is_last = self.is_last or delta.is_last
        return self

    def _merge_block(self, existing: ContentBlock, block: ContentBlock) -> None:
        if type(existing) is not type(block):
            raise BlockConflictError(
                f"block id {block.id!r} is a {existing.type} block here but a "
                f"{block.type} block in the delta"
            )
        if isinstance(existing, TextBlock) and isinstance(block, TextBlock):
            apply_delta(existing, TextDelta(block.text))
            existing.citations.extend(block.citations)
        elif isinstance(existing, ThinkingBlock) and isinstance(block, ThinkingBlock):
            self.append_thinking(block.thinking, existing.id, signature=block.signature,
                                 encrypted=block.encrypted, redacted=block.redacted or None)
        elif isinstance(existing, ToolCallBlock) and isinstance(block, ToolCallBlock):
            self.append_tool_call(existing.id, block.name, block.input)
            existing.incomplete = block.incomplete
        elif isinstance(existing, DataBlock) and isinstance(block, DataBlock):
            self._merge_data(existing, block)
        else:  # tool results and raw items are complete: the latest wins
            self._replace_block(existing, block.copy())  # type: ignore[arg-type]
            return
        if block.metadata:
            apply_delta(existing, MetadataDelta(block.metadata))

    def _replace_block(self, old: ContentBlock, new: ContentBlock) -> None:
        position = next(i for i, b in enumerate(self.content) if b is old)
        self.content[position] = new
        self._by_id[new.id] = new

    @staticmethod
    def _merge_data(existing: DataBlock, block: DataBlock) -> None:
        if existing.media_type != block.media_type or not isinstance(block.source, Base64Source):
            if existing.media_type != block.media_type and existing.media_type and block.media_type:
                raise BlockConflictError(
                    f"data block {block.id!r} holds {existing.media_type!r}; "
                    f"the delta has {block.media_type!r}"
                )
            existing.source = block.copy().source  # type: ignore[attr-defined]
            return
        if isinstance(existing.source, Base64Source) and _is_streamable(existing.media_type):
            existing.source.append(block.data)
        elif isinstance(existing.source, Base64Source):
            existing.source.replace(block.data)
        else:
            existing.source = Base64Source(block.data, block.media_type)
        existing._transcript.append(block.transcript)

    # ------------------------------------------------------------ serialising

    def to_dict(self) -> dict[str, Any]:
        """A plain, JSON-ready dict (lossless: data bytes as base64)."""
        return {
            "type": self.type,
            "id": self.id,
            "created_at": self.created_at,
            "content": [b.to_dict() for b in self.content],
            "is_last": self.is_last,
            "usage": self.usage.to_dict() if self.usage is not None else None,
            "finished_reason": self.finished_reason.value if self.finished_reason else None,
            "metadata": self.metadata,
            "model": self.model,
            "stop_reason": self.stop_reason,
            "terminated": self.terminated,
            "provider": self.provider,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ChatResponse:
        """Rebuild from :meth:`to_dict` output."""
        usage = d.get("usage")
        return cls(
            content=[block_from_dict(b) for b in d.get("content", [])],
            is_last=d.get("is_last", False),
            id=d.get("id") or _new_response_id(),
            created_at=d.get("created_at") or _timestamp(),
            usage=ChatUsage.from_dict(usage) if usage is not None else None,
            finished_reason=FinishReason.parse(d.get("finished_reason")),
            metadata=dict(d.get("metadata") or {}),
            model=d.get("model"),
            stop_reason=d.get("stop_reason"),
            terminated=d.get("terminated", False),
            provider=d.get("provider"),
        )

    def to_json(self) -> bytes:
        """JSON bytes of :meth:`to_dict`; a lone surrogate the response holds
        (a provider's escape of half an emoji reads as one) as its escape."""
        try:
            return msgspec.json.encode(self.to_dict())
        except UnicodeEncodeError:
            plain = msgspec.to_builtins(self.to_dict())
            return json.dumps(plain, separators=(",", ":")).encode()  # non-ASCII as escapes

    @classmethod
    def from_json(cls, data: bytes | str) -> ChatResponse:
        """Rebuild from :meth:`to_json` output."""
        try:
            return cls.from_dict(msgspec.json.decode(data))
        except msgspec.DecodeError:  # a lone surrogate's escape, which msgspec refuses
            return cls.from_dict(json.loads(data))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ChatResponse):
            return NotImplemented
        mine, theirs = self.to_dict(), other.to_dict()
        del mine["created_at"], theirs["created_at"]  # local time, not content
        return mine == theirs

    __hash__ = None  # type: ignore[assignment]

    def parse(self, model: builtins.type[ModelT], *, partial: bool = False) -> ModelT:
        """The structured output as a ``model`` instance: the answer text, or the
        arguments of the one tool call when there is no text (see
        :func:`streamkit.model.structured.parse.parse_structured`); raises
        :class:`~streamkit.model.errors.StructuredOutputError`.

        ``partial=True`` is a snapshot for a response still streaming (or cut
        off): the whole ``model`` when the answer is complete and valid, else
        its partial twin holding what validates so far (see
        :mod:`streamkit.model.structured.partial`; every field ``None`` before anything
        arrived). It raises only when there is no answer to show: a refusal,
        several tool calls and no text, text that is not JSON."""
        if partial:
            from .structured.reader import parse_partial

            return parse_partial(self, model)
        from .structured.parse import parse_structured

        return parse_structured(self, model)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        """pydantic validates a response from its ``to_dict()`` shape and dumps it with
        ``to_dict()`` (see :mod:`streamkit.model.schema`, imported only now)."""
        from .schema import response_schema

        return response_schema(cls, handler, python_dict)

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: Any, handler: Any) -> Any:
        """The JSON Schema of the ``to_dict()`` shape."""
        from .schema import json_schema

        return json_schema(schema, handler)
