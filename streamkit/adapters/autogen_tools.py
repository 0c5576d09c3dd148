"""autogen's tools and workbenches and streamkit's, each usable as the other.

:func:`from_autogen_workbench` makes an autogen ``Workbench`` (its
``StaticWorkbench``, your own) a
:class:`streamkit.Workbench`, for a :class:`streamkit.Client`'s ``tools=`` and
its tool loop; :func:`to_autogen_workbench` makes a streamkit workbench
(:class:`~streamkit.conversation.workbench.StaticWorkbench`, an MCP one, your
own) an autogen ``Workbench``, for ``AssistantAgent(workbench=...)``. Start,
stop, reset and the state go through unchanged: the wrapper holds nothing of
its own. Tested against autogen-core and autogen-agentchat 0.7.5.

=======================================  =========================================
autogen_core.tools                       streamkit
=======================================  =========================================
``ToolSchema`` (name, description,       :class:`~streamkit.conversation.tools.Tool`
parameters, strict)                      (the same four; no parameters is an
                                         object with no properties)
``ToolResult.result``                    ``FunctionExecutionResult.content``: one
                                         text is a ``str``, anything else blocks
``TextResultContent``                    :class:`~streamkit.TextBlock`
``ImageResultContent`` (a PIL picture)   a PNG :class:`~streamkit.DataBlock` (as
                                         autogen writes an ``Image``); a
                                         streamkit image of another type or at a
                                         URL becomes PNG / a ``[image: URL]``
                                         text on the way back
(no place)                               another :class:`~streamkit.DataBlock`
                                         (a PDF, audio): a text naming it, with a
                                         :class:`~streamkit.model.errors.LossyTranslationWarning`
``ToolResult.is_error`` / ``name``       ``is_error`` / ``name``
``call_tool(..., call_id=)``             ``call_tool(..., call_id=)``, the result's
                                         ``call_id``
``CancellationToken``                    cancels the streamkit call under way
``is_error`` result of the failure       a workbench's own failure (a
                                         ``ToolServerError``), which streamkit
                                         raises
=======================================  =========================================

autogen's ``AssistantAgent`` sends a workbench's result back to its model as
``ToolResult.to_text()``: an image becomes ``[Image: <base64 PNG>]`` in the
text. :func:`result_content_of_text` finds those images again, so
:class:`~streamkit.adapters.autogen.StreamkitChatCompletionClient` sends the
provider the picture, not tens of thousands of characters of base64.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import io
import re
from collections.abc import Awaitable, Mapping
from typing import Any, Protocol, TypeVar, cast

from autogen_core import CancellationToken, Image
from autogen_core.tools import (
    ImageResultContent,
    ParametersSchema,
    TextResultContent,
    ToolResult,
    ToolSchema,
)
from autogen_core.tools import Tool as AutogenTool
from autogen_core.tools import Workbench as AutogenWorkbench
from PIL import Image as PILImage
from PIL import UnidentifiedImageError

from ..conversation.messages import FunctionExecutionResult
from ..conversation.tools import Tool
from ..conversation.workbench import Workbench
from ..model.blocks import DataBlock, TextBlock
from ..model.data_sources import Base64Source
from ..model.errors import StreamkitError, warn_lossy

__all__ = [
    "AutogenBackedWorkbench",
    "StreamkitBackedWorkbench",
    "from_autogen_workbench",
    "image_block",
    "picture_of",
    "result_content_of_text",
    "to_autogen_workbench",
    "to_function_result",
    "to_streamkit_tool",
    "to_tool_result",
]

_T = TypeVar("_T")

ResultContent = str | list[TextBlock | DataBlock]

#: A PNG file's first bytes: the images ``ToolResult.to_text`` writes.
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

#: An image part of ``ToolResult.to_text()``, with the newline that joined it.
_IMAGE_IN_TEXT = re.compile(r"\n?\[Image: ([A-Za-z0-9+/]+={0,2})\]\n?")


# ================================================================= tools and images


def to_streamkit_tool(tool: AutogenTool | ToolSchema) -> Tool:
    """An autogen tool (or its bare schema) as the streamkit :class:`Tool` that
    describes it to the model. It has no function: autogen's agent (or the
    workbench that listed it) runs it."""
    schema = schema_of(tool)
    parameters = schema.get("parameters")
    return Tool(name=schema["name"], description=schema.get("description") or "",
                parameters=(dict(parameters) if parameters is not None
                            else {"type": "object", "properties": {}}),
                strict=schema.get("strict"))


def schema_of(tool: AutogenTool | ToolSchema) -> Mapping[str, Any]:
    """The schema of an autogen tool, or the bare schema itself."""
    return tool if isinstance(tool, Mapping) else tool.schema


def _to_tool_schema(tool: Tool) -> ToolSchema:
    """A streamkit tool as the ``ToolSchema`` an autogen workbench lists;
    ``strict`` only when the tool says (absent is autogen's "not stated")."""
    schema = ToolSchema(name=tool.name, description=tool.description,
                        parameters=cast(ParametersSchema, tool.parameters))
    if tool.strict is not None:
        schema["strict"] = tool.strict
    return schema


def image_block(image: Image) -> DataBlock:
    """An autogen image as an inline PNG block: autogen holds a decoded picture
    (PIL), and sends it as PNG too (``Image.to_base64``)."""
    buffer = io.BytesIO()
    image.image.save(buffer, format="PNG")
    return DataBlock(source=Base64Source(buffer.getvalue(), "image/png"))


def picture_of(block: DataBlock) -> Image:
    """An inline image block as autogen's ``Image`` (PIL's ``UnidentifiedImageError``
    or ``OSError`` when its bytes are no picture)."""
    if not isinstance(block.source, Base64Source):
        raise ValueError(f"only an inline image is a picture, not one at {block.source.url}")
    picture = PILImage.open(io.BytesIO(block.source.raw))
    picture.load()
    return Image(picture)


# ================================================================= results


def to_function_result(result: ToolResult, call_id: str = "") -> FunctionExecutionResult:
    """An autogen workbench's ``ToolResult`` as the result streamkit sends back:
    one text as a string, anything else as text and PNG image blocks."""
    blocks: list[TextBlock | DataBlock] = [
        TextBlock(part.content) if isinstance(part, TextResultContent)
        else image_block(part.content) for part in result.result]
    content: ResultContent = blocks
    if not blocks:
        content = ""
    elif len(blocks) == 1 and isinstance(blocks[0], TextBlock):
        content = blocks[0].text
    return FunctionExecutionResult(call_id, content, is_error=result.is_error, name=result.name)


def to_tool_result(result: FunctionExecutionResult, name: str = "") -> ToolResult:
    """A streamkit result as autogen's ``ToolResult`` (``name``: the tool's, when
    the result does not say). autogen holds text and pictures only: see the
    module's table for what becomes of other data."""
    return ToolResult(name=result.name or name, is_error=result.is_error,
                      result=[_result_part(block) for block in result.blocks])


def _result_part(block: TextBlock | DataBlock) -> TextResultContent | ImageResultContent:
    """One block of a streamkit result as a part of autogen's ``ToolResult``."""
    if isinstance(block, TextBlock):
        return TextResultContent(content=block.text)
    if not block.media_type.startswith("image/"):
        return _described(block, "autogen's ToolResult holds text and images only")
    if not isinstance(block.source, Base64Source):
        return TextResultContent(content=f"[image: {block.source.url}]")
    try:
        return ImageResultContent(content=picture_of(block))
    except (UnidentifiedImageError, OSError) as error:
        return _described(block, f"its bytes are no picture PIL can read ({error})")


def _described(block: DataBlock, why: str) -> TextResultContent:
    """A text naming data autogen has no place for, and the warning that it was left out."""
    what = f"a tool result's {block.media_type or 'untyped'} data"
    warn_lossy("autogen", what, why)
    return TextResultContent(content=f"[{block.media_type or 'data'}"
                                     f"{f' {block.name}' if block.name else ''}: not shown]")


def result_content_of_text(text: str) -> ResultContent:
    """A result's text as autogen's ``AssistantAgent`` writes it
    (``ToolResult.to_text()``), with each ``[Image: <base64 PNG>]`` part an
    image block again and the newline that joined it dropped; a text with
    none (or whose "image" is no PNG) as it is."""
    blocks: list[TextBlock | DataBlock] = []
    start = 0
    for match in _IMAGE_IN_TEXT.finditer(text):
        picture = _png(match.group(1))
        if picture is None:
            continue
        if match.start() > start:
            blocks.append(TextBlock(text[start:match.start()]))
        blocks.append(DataBlock(source=Base64Source(picture, "image/png")))
        start = match.end()
    if not blocks:
        return text
    if start < len(text):
        blocks.append(TextBlock(text[start:]))
    return blocks


def _png(text: str) -> bytes | None:
    """The PNG bytes of base64 ``text``, or ``None`` when it is no PNG."""
    try:
        raw = base64.b64decode(text, validate=True)
    except binascii.Error:
        return None
    return raw if raw.startswith(_PNG_SIGNATURE) else None


# ================================================================= cancellation


async def cancellable(awaitable: Awaitable[_T], token: CancellationToken | None) -> _T:
    """Await ``awaitable`` as a future the token cancels, the way autogen's own
    clients and workbenches link their calls (autogen runs on asyncio)."""
    if token is None:
        return await awaitable
    future = asyncio.ensure_future(awaitable)
    token.link_future(future)
    return await future


# ================================================================= workbenches


class _Lifecycle(Protocol):
    """What both kinds of workbench have besides their tools."""

    async def start(self) -> None: ...
    async def stop(self) -> None: ...
    async def reset(self) -> None: ...
    async def save_state(self) -> Mapping[str, Any]: ...
    async def load_state(self, state: Mapping[str, Any]) -> None: ...


class _HandedOn:
    """Start, stop, reset and the state handed to the workbench wrapped: a
    wrapper holds nothing of its own. First among a wrapper's bases, so these
    stand for the abstract ones of either side."""

    workbench: _Lifecycle

    async def start(self) -> None:
        await self.workbench.start()

    async def stop(self) -> None:
        await self.workbench.stop()

    async def reset(self) -> None:
        await self.workbench.reset()

    async def save_state(self) -> Mapping[str, Any]:
        return await self.workbench.save_state()

    async def load_state(self, state: Mapping[str, Any]) -> None:
        await self.workbench.load_state(state)


class AutogenBackedWorkbench(_HandedOn, Workbench):
    """An autogen ``Workbench`` as a :class:`streamkit.Workbench`
    (:func:`from_autogen_workbench`). Every call goes to :attr:`workbench`."""

    workbench: AutogenWorkbench

    def __init__(self, workbench: AutogenWorkbench) -> None:
        self.workbench = workbench

    def __repr__(self) -> str:
        return f"from_autogen_workbench({self.workbench!r})"

    async def list_tools(self) -> list[Tool]:
        return [to_streamkit_tool(schema) for schema in await self.workbench.list_tools()]

    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None, *,
                        call_id: str = "") -> FunctionExecutionResult:
        result = await self.workbench.call_tool(name, arguments, call_id=call_id or None)
        return to_function_result(result, call_id)


class StreamkitBackedWorkbench(_HandedOn, AutogenWorkbench):
    """A :class:`streamkit.Workbench` as an autogen ``Workbench``
    (:func:`to_autogen_workbench`). Every call goes to :attr:`workbench`; a
    call's ``CancellationToken`` cancels it.

    The workbench's own failure (a :class:`~streamkit.model.errors.StreamkitError`
    such as a ``ToolServerError``: a server gone or too slow) is an ``is_error``
    result saying so, as autogen's own workbenches answer: autogen's agent has
    recorded the calls before running them, and an exception would leave them
    unanswered in its history. It is no autogen component: an agent holding it
    cannot be saved with ``dump_component()``."""

    workbench: Workbench

    def __init__(self, workbench: Workbench) -> None:
        self.workbench = workbench

    def __repr__(self) -> str:
        return f"to_autogen_workbench({self.workbench!r})"

    async def list_tools(self) -> list[ToolSchema]:
        return [_to_tool_schema(tool) for tool in await self.workbench.list_tools()]

    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None,
                        cancellation_token: CancellationToken | None = None,
                        call_id: str | None = None) -> ToolResult:
        try:
            result = await cancellable(
                self.workbench.call_tool(name, arguments, call_id=call_id or ""),
                cancellation_token)
        except StreamkitError as error:  # a ToolServerError: a server gone, or too slow
            return ToolResult(name=name, is_error=True,
                              result=[TextResultContent(content=str(error))])
        return to_tool_result(result, name)


def from_autogen_workbench(workbench: AutogenWorkbench) -> Workbench:
    """An autogen workbench as a streamkit one, for ``Client.stream(...,
    tools=[...])``; a workbench :func:`to_autogen_workbench` made is given
    back as it was."""
    if isinstance(workbench, StreamkitBackedWorkbench):
        return workbench.workbench
    return AutogenBackedWorkbench(workbench)


def to_autogen_workbench(workbench: Workbench) -> AutogenWorkbench:
    """A streamkit workbench as an autogen one, for
    ``AssistantAgent(workbench=...)``; a workbench :func:`from_autogen_workbench`
    made is given back as it was."""
    if isinstance(workbench, AutogenBackedWorkbench):
        return workbench.workbench
    return StreamkitBackedWorkbench(workbench)
