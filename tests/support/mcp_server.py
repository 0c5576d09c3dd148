"""An MCP server written with the official SDK (``mcp.server.MCPServer``), the
one the McpWorkbench tests talk to: run as a script, it serves stdio
(``python tests/support/mcp_server.py``); imported, :func:`make_server` gives
a fresh one whose ``streamable_http_app()`` a test serves on 127.0.0.1.

Its tools: ``weather`` and ``add`` (text, and structured content), ``unlock``
/ ``lock`` (add or remove ``chart`` and say the list changed, in both eras of
the protocol), ``chart`` (text and a PNG image), ``documents`` (embedded
resources: text and a blob), ``plan`` (a schema with ``$defs`` / ``$ref`` and
unions), and the hostile ones: ``slow`` (sleeps), ``huge`` (a result of any
size), ``fail`` (raises: the server's ``isError``).
"""

from __future__ import annotations

import base64
from typing import Literal

import anyio
import pydantic
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import (
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    TextContent,
    TextResourceContents,
)

#: A 1x1 PNG, the image ``chart`` returns.
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwAD"
                       "hgGAWjR9awAAAABJRU5ErkJggg==")


class Circle(pydantic.BaseModel):
    kind: Literal["circle"] = "circle"
    radius: float


class Square(pydantic.BaseModel):
    kind: Literal["square"] = "square"
    side: float


def make_server() -> MCPServer:
    """A fresh server with every tool (``chart`` only after ``unlock``)."""
    server = MCPServer("streamkit-tests", log_level="WARNING")

    def chart(title: str) -> CallToolResult:
        """A chart of the weather, as an image."""
        return CallToolResult(content=[
            TextContent(text=f"chart: {title}"),
            ImageContent(data=base64.b64encode(PNG).decode(), mime_type="image/png")])

    async def changed(ctx: Context) -> None:
        """Say the tool list changed, in both eras: on the listen stream (2026-07-28)
        and as a plain notification (earlier versions)."""
        await ctx.notify_tools_changed()
        await ctx.session.send_tool_list_changed()

    @server.tool()
    def weather(city: str) -> str:
        """The weather in a city."""
        return f"Sunny, 21 °C in {city}"

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @server.tool()
    async def unlock(ctx: Context) -> str:
        """Make the chart tool available."""
        if "chart" not in {tool.name for tool in await server.list_tools()}:
            server.add_tool(chart)
        await changed(ctx)
        return "chart unlocked"

    @server.tool()
    async def lock(ctx: Context) -> str:
        """Take the chart tool away."""
        if "chart" in {tool.name for tool in await server.list_tools()}:
            server.remove_tool("chart")
        await changed(ctx)
        return "chart locked"

    @server.tool()
    def documents() -> CallToolResult:
        """Two embedded resources: a text and a blob."""
        return CallToolResult(content=[
            EmbeddedResource(resource=TextResourceContents(
                uri="file:///notes.txt", text="the notes", mime_type="text/plain")),
            EmbeddedResource(resource=BlobResourceContents(
                uri="file:///raw.bin", blob=base64.b64encode(b"\x00\x01").decode(),
                mime_type="application/octet-stream"))])

    @server.tool()
    def plan(shape: Circle | Square, shapes: list[Circle | Square] | None = None,
             label: str | int = "a") -> str:
        """A schema with $defs, $ref and unions."""
        return f"{shape.kind} and {len(shapes or [])} more, {label}"

    @server.tool()
    async def slow(seconds: float) -> str:
        """Answer after ``seconds``."""
        await anyio.sleep(seconds)
        return "slept"

    @server.tool()
    def huge(size: int) -> str:
        """A result of ``size`` characters."""
        return "x" * size

    @server.tool()
    def fail(reason: str) -> str:
        """Fail: the server answers ``isError``."""
        raise ToolError(reason)

    return server


if __name__ == "__main__":
    make_server().run()
