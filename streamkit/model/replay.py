"""A finished :class:`~streamkit.ChatResponse` told again as the events of a stream.

The stream encoders (``encode.py`` of each wire package) speak events, so a
response that is already whole (a non-streamed answer, a scripted one in a
test, a stream's final item) is replayed through them as the stream that would
have carried it: :func:`events_of`. One block is told as a shell
(:func:`shell_of`: its kind, id, name and metadata, nothing that streams)
followed by its content as deltas (:func:`deltas_of`), the order every wire
sends it in, so an encoder has one path for live and replayed blocks. The same
two functions let an encoder treat a :class:`~streamkit.model.events.BlockStart`
that already holds content (an Anthropic redacted thinking block, a Gemini
function call) as a shell and its deltas.

Applying the events of :func:`events_of` to an
:class:`~streamkit.model.accumulate.Accumulator` gives the response back (tested).
"""

from __future__ import annotations

from collections.abc import Iterator

from streamkit.model.json_values import copy_json

from .blocks import ContentBlock, TextBlock, ThinkingBlock, ToolCallBlock
from .events import (
    BlockDelta,
    BlockEnd,
    BlockStart,
    CitationDelta,
    Delta,
    Event,
    ResponseEnd,
    ResponseStart,
    SignatureDelta,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
    UsageUpdate,
)
from .response import ChatResponse

__all__ = ["deltas_of", "events_of", "shell_of"]


def shell_of(block: ContentBlock) -> ContentBlock:
    """``block`` without what a stream sends as deltas: a text block without its
    text and citations, reasoning without its text and signature (encrypted or
    redacted reasoning stays: no wire streams it), a tool call without its
    arguments (whether they were cut off stays: a wire may say it first).
    Other blocks (media, tool results, raw provider items) are sent
    whole, so their shell is a copy of them."""
    metadata = copy_json(block.metadata)
    if type(block) is TextBlock:
        return TextBlock(id=block.id, refusal=block.refusal, metadata=metadata)
    if type(block) is ThinkingBlock:
        return ThinkingBlock(id=block.id, encrypted=block.encrypted, redacted=block.redacted,
                             metadata=metadata)
    if type(block) is ToolCallBlock:
        return ToolCallBlock(block.id, block.name, metadata=metadata,
                             incomplete=block.incomplete)
    whole: ContentBlock = block.copy()  # type: ignore[assignment]
    return whole


def deltas_of(block: ContentBlock) -> list[Delta]:
    """What :func:`shell_of` left out of ``block``, as the deltas that add it back."""
    out: list[Delta] = []
    if type(block) is TextBlock:
        if block.text:
            out.append(TextDelta(block.text))
        out += [CitationDelta(citation) for citation in block.citations]
    elif type(block) is ThinkingBlock:
        if block.thinking:
            out.append(ThinkingDelta(block.thinking))
        if block.signature is not None:
            out.append(SignatureDelta(block.signature))
    elif type(block) is ToolCallBlock and block.input:
        out.append(ToolInputDelta(block.input))
    return out


def events_of(response: ChatResponse, choice: int = 0) -> Iterator[Event]:
    """The events of a stream that ends in ``response`` (as choice ``choice``):
    its start (id, model, metadata, provider), each block as a shell, its
    deltas and its end, the usage, the end with the finish reason, the
    provider's stop word and whether the stream was terminated."""
    yield ResponseStart(id=response.id, model=response.model, choice=choice,
                        metadata=copy_json(response.metadata), provider=response.provider)
    for index, block in enumerate(response.content):
        yield BlockStart(index=index, block=shell_of(block), choice=choice)
        for delta in deltas_of(block):
            yield BlockDelta(index=index, delta=delta, choice=choice)
        yield BlockEnd(index=index, choice=choice)
    if response.usage is not None:
        yield UsageUpdate(usage=copy_json(response.usage), choice=choice)
    yield ResponseEnd(finish_reason=response.finished_reason, stop_reason=response.stop_reason,
                      terminated=response.terminated, choice=choice)
