"""The MCP servers the McpWorkbench tests talk to: one stdio process and one
HTTP server per module (and per test worker), each test's session on them."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterator

import pytest
from support.asgi_server import serving
from support.mcp_loop import SDK_SERVER
from support.mcp_server import make_server

from streamkit import McpWorkbench


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """asyncio only: the SDK's transports are anyio's, and each backend would
    start the servers again."""
    return "asyncio"


@pytest.fixture(scope="module")
async def stdio_workbench() -> AsyncIterator[McpWorkbench]:
    """A session with the SDK server, started over stdio once for the module."""
    async with McpWorkbench.stdio(sys.executable, str(SDK_SERVER), timeout=20) as workbench:
        yield workbench


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    """The SDK server on streamable HTTP, on 127.0.0.1 (in this process)."""
    with serving(make_server().streamable_http_app(), lifespan="on") as base:
        yield base + "/mcp"


@pytest.fixture
async def http_workbench(http_url: str) -> AsyncIterator[McpWorkbench]:
    async with McpWorkbench.http(http_url, timeout=20) as workbench:
        yield workbench


@pytest.fixture(params=["stdio", "http"])
def workbench(request: pytest.FixtureRequest) -> McpWorkbench:
    """A session with the SDK server over each transport."""
    session: McpWorkbench = request.getfixturevalue(f"{request.param}_workbench")
    return session
