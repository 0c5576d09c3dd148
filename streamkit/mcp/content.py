"""MCP's tools and results in streamkit's types, sans-IO.

- a tool (``mcp_types.Tool``) -> :class:`~streamkit.conversation.tools.Tool`:
  its name, description and input JSON schema exactly as the server gives it
  (``$ref`` / ``$defs``, unions and all: each wire's request builder writes a
  schema in its own form, as it does for :func:`streamkit.tool`'s); ``strict``
  unsaid, so each wire applies its own default (OpenAI Responses writes
  ``false``: a server's schema need not follow the strict rules);
- a result (``CallToolResult``) ->
  :class:`~streamkit.conversation.messages.FunctionExecutionResult`:
  text as text (one text part: a string), an image or audio as a
  :class:`~streamkit.model.blocks.DataBlock` of its base64 bytes and media
  type, an embedded resource's text as text and its blob as a ``DataBlock``,
  a resource link as a line of text naming it; the server's ``isError`` is
  ``is_error``; ``structuredContent`` is kept in the result's ``metadata``
  (and is the text, as JSON, when the server sent no content beside it).

A result larger than the workbench's limit is an ``is_error`` result saying
so (the model reads that; the loop goes on), never the whole of it.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types

from ..conversation.messages import FunctionExecutionResult
from ..conversation.tools import Tool
from ..model.blocks import DataBlock, TextBlock
from ..model.data_sources import Base64Source
from ..model.errors import InvalidBase64Error

__all__ = ["STRUCTURED_CONTENT", "result_from_mcp", "tool_from_mcp"]

#: The ``metadata`` key of a result's ``structuredContent`` (the server's JSON value).
STRUCTURED_CONTENT = "structured_content"


def tool_from_mcp(listed: mcp_types.Tool) -> Tool:
    """A tool a server lists, as the :class:`Tool` a request declares."""
    return Tool(name=listed.name, description=listed.description or "",
                parameters=dict(listed.input_schema))


def result_from_mcp(result: mcp_types.CallToolResult, *, call_id: str, name: str,
                    max_chars: int) -> FunctionExecutionResult:
    """A server's answer to a call as the result the conversation sends back."""
    try:
        blocks = [block for part in result.content for block in _blocks(part)]
    except InvalidBase64Error as error:
        return FunctionExecutionResult(call_id, f"the MCP server's result for tool {name!r} "
                                       f"holds data that is not base64: {error}",
                                       is_error=True, name=name)
    metadata: dict[str, Any] = {}
    if result.structured_content is not None:
        metadata[STRUCTURED_CONTENT] = result.structured_content
        if not blocks:
            blocks = [TextBlock(json.dumps(result.structured_content, ensure_ascii=False))]
    size = sum(len(block.text) if isinstance(block, TextBlock) else block.byte_length
               for block in blocks)
    if size > max_chars:
        return FunctionExecutionResult(call_id, f"the result of tool {name!r} holds {size:,} "
                                       f"characters of text and bytes of data, over this "
                                       f"workbench's limit of "
                                       f"{max_chars:,} (McpWorkbench's max_result_chars)",
                                       is_error=True, name=name)
    content: str | list[TextBlock | DataBlock] = blocks
    if len(blocks) == 1 and isinstance(blocks[0], TextBlock):
        content = blocks[0].text
    elif not blocks:
        content = ""
    return FunctionExecutionResult(call_id, content, is_error=result.is_error, name=name,
                                   metadata=metadata)


def _blocks(part: mcp_types.ContentBlock) -> list[TextBlock | DataBlock]:
    """One content part of a result as blocks (none for a part of no known kind)."""
    if isinstance(part, mcp_types.TextContent):
        return [TextBlock(part.text)]
    if isinstance(part, mcp_types.ImageContent | mcp_types.AudioContent):
        return [DataBlock(media_type=part.mime_type,
                          source=Base64Source(part.data, part.mime_type))]
    if isinstance(part, mcp_types.EmbeddedResource):
        resource = part.resource
        if isinstance(resource, mcp_types.TextResourceContents):
            return [TextBlock(resource.text)]
        media_type = resource.mime_type or "application/octet-stream"
        return [DataBlock(media_type=media_type, name=str(resource.uri),
                          source=Base64Source(resource.blob, media_type))]
    if isinstance(part, mcp_types.ResourceLink):
        return [TextBlock(f"[resource {part.name}: {part.uri}]")]
    return []
