"""``McpWorkbench``: the tools of one MCP server as a workbench.

autogen's ``autogen_ext.tools.mcp.McpWorkbench`` is the model; the session is
the official SDK's ``mcp.Client`` (protocol negotiation, both eras of the
protocol, the transports). What this module adds:

- the tool list is asked for once and kept until the server says it changed
  (``notifications/tools/list_changed``; on a 2026-07-28 connection the
  workbench opens the ``subscriptions/listen`` stream that carries it), or
  until a call to a server whose list may change (``listChanged`` in its
  capabilities): the notice of a change the call made may come after its
  result (on HTTP it comes on another connection), so the next
  :meth:`McpWorkbench.list_tools` after a change always gives the new list;
- every request has a deadline (``timeout``): a server that does not answer,
  cannot be started or goes away mid-call is a
  :class:`~streamkit.model.errors.ToolServerError`, never a hang, and a call
  changes nothing of the caller's conversation;
- a tool's failure (the server's ``isError``, a JSON-RPC error such as an
  unknown tool or arguments it refused, a result that is not MCP's shape, a
  result over ``max_result_chars``) is an ``is_error`` result the model reads;
- the values of ``env`` and ``headers`` (keys, tokens) are in no repr, log
  line or error message: the server is named by its command, or by its URL
  without credentials or query.
"""

from __future__ import annotations

import contextlib
import logging
import math
import shlex
from collections.abc import Awaitable, Mapping
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import anyio
import httpx2
import mcp_types
import pydantic
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from ..conversation.messages import FunctionExecutionResult
from ..conversation.tools import Tool
from ..conversation.workbench import Workbench
from ..model.errors import ToolServerError
from ..model.limits import shorten
from .content import result_from_mcp, tool_from_mcp

__all__ = ["McpWorkbench"]

logger = logging.getLogger(__name__)

_T = TypeVar("_T")

#: What a transport raises when the server is gone (or never came).
_LOST: tuple[type[Exception], ...] = (OSError, httpx2.HTTPError, anyio.BrokenResourceError,
                                      anyio.ClosedResourceError, anyio.EndOfStream)

#: Pages of ``tools/list`` read at most (a server whose cursor never ends cannot hang a call).
MAX_TOOL_PAGES = 100


class McpWorkbench(Workbench):
    """The tools of one MCP server. Make it with :meth:`stdio` (a command
    started here, spoken to over its stdin / stdout) or :meth:`http` (a
    streamable HTTP endpoint); use it as ``async with workbench:``, which
    starts the session and ends it (and the server process).

    ``timeout`` is the seconds one request may take (starting the session, a
    list, a call; ``None``: no limit); ``max_result_chars`` the largest result
    handed back (characters of text and bytes of data), past which the call's
    result is an ``is_error`` result saying so.
    """

    def __init__(self, *, stdio: StdioServerParameters | None = None, url: str | None = None,
                 headers: Mapping[str, str] | None = None, timeout: float | None = 60.0,
                 max_result_chars: int = 1_000_000) -> None:
        if (stdio is None) == (url is None):
            raise TypeError("an McpWorkbench is a stdio command or a URL: use McpWorkbench.stdio "
                            "or McpWorkbench.http")
        self._stdio = stdio
        self._url = url
        self._headers = dict(headers or {})
        self.timeout = timeout
        self.max_result_chars = max_result_chars
        self._client: Client | None = None
        self._stack: contextlib.AsyncExitStack | None = None
        self._tools: list[Tool] | None = None
        self._forgotten = 0  # how often the list kept was forgotten (a list read meanwhile is old)
        self._changing = False  # the server says its list may change (listChanged)

    @classmethod
    def stdio(cls, command: str, *args: str, env: Mapping[str, str] | None = None,
              cwd: str | None = None, timeout: float | None = 60.0,
              max_result_chars: int = 1_000_000) -> McpWorkbench:
        """A server started as ``command *args`` (``env``: variables added to the
        few the SDK passes on: ``PATH``, ``HOME``...; ``cwd``: its folder)."""
        params = StdioServerParameters(command=command, args=list(args),
                                       env=dict(env) if env is not None else None, cwd=cwd)
        return cls(stdio=params, timeout=timeout, max_result_chars=max_result_chars)

    @classmethod
    def http(cls, url: str, headers: Mapping[str, str] | None = None, *,
             timeout: float | None = 60.0, max_result_chars: int = 1_000_000) -> McpWorkbench:
        """A server at a streamable HTTP endpoint (``headers``: sent with every
        request, an ``Authorization`` for one)."""
        return cls(url=url, headers=headers, timeout=timeout, max_result_chars=max_result_chars)

    @property
    def server(self) -> str:
        """The server, named without secrets: ``stdio 'python server.py'`` or
        ``http://host:port/path`` (no credentials, query or fragment)."""
        if self._stdio is not None:
            return f"stdio {shlex.join([self._stdio.command, *self._stdio.args])!r}"
        parts = urlsplit(self._url or "")
        host = parts.netloc.rpartition("@")[2]  # user:password@ left out
        return urlunsplit((parts.scheme, host, parts.path, "", ""))

    def __repr__(self) -> str:
        if self._stdio is not None:
            words = ", ".join(repr(word) for word in [self._stdio.command, *self._stdio.args])
            hidden = _names(self._stdio.env, "env")
            return f"McpWorkbench.stdio({words}{hidden})"
        return f"McpWorkbench.http({self.server!r}{_names(self._headers, 'headers')})"

    # ------------------------------------------------------------- lifecycle

    async def start(self) -> None:
        """Start the server (stdio) or connect (HTTP), and open the session."""
        if self._client is not None:
            return
        stack = contextlib.AsyncExitStack()
        try:
            client = await self._open(stack)
        except BaseException:
            with anyio.CancelScope(shield=True), contextlib.suppress(Exception):
                await stack.aclose()  # what was started; its own teardown noise is not the error
            raise
        self._stack, self._client, self._tools = stack, client, None

    async def stop(self) -> None:
        """End the session (and the server process)."""
        stack, self._stack, self._client, self._tools = self._stack, None, None, None
        if stack is not None:
            with contextlib.suppress(Exception):  # a server already gone is stopped
                await stack.aclose()

    async def reset(self) -> None:
        """Forget the tool list kept: the next :meth:`list_tools` asks the server."""
        self._forget()

    async def _open(self, stack: contextlib.AsyncExitStack) -> Client:
        """The entered SDK client, listening for tool list changes."""
        if self._stdio is not None:
            server: Any = self._stdio
        else:
            http = await stack.enter_async_context(httpx2.AsyncClient(
                headers=self._headers, timeout=httpx2.Timeout(30.0, read=300.0)))
            server = streamable_http_client(self._url or "", http_client=http)
        try:
            client = await stack.enter_async_context(Client(
                server, message_handler=self._on_message, cache=None,
                read_timeout_seconds=self.timeout))
        except Exception as error:  # the SDK's task groups wrap it: one exception in groups
            cause = _leaf(error)
            if not (_is_lost(cause) or isinstance(cause, MCPError)):
                raise
            raise self._failed("starting the session", None, cause) from None
        await self._listen(client, stack)
        return client

    async def _listen(self, client: Client, stack: contextlib.AsyncExitStack) -> None:
        """On a 2026-07-28 connection, list changes reach a client only on a
        ``subscriptions/listen`` stream it opened: open one when the server
        says its list may change (the events reach :meth:`_on_message`)."""
        capabilities = client.server_capabilities.tools
        self._changing = capabilities is not None and bool(capabilities.list_changed)
        if client.protocol_version in MODERN_PROTOCOL_VERSIONS and self._changing:
            await stack.enter_async_context(client.listen(tools_list_changed=True))

    async def _on_message(self, message: Any) -> None:
        """The SDK's message handler: a tool list change forgets the list kept."""
        if isinstance(message, mcp_types.ToolListChangedNotification):
            self._forget()
        elif isinstance(message, Exception):  # its words may quote a URL: its kind alone
            logger.warning("the MCP server %s: a transport error (%s)", self.server,
                           type(message).__name__)

    def _forget(self) -> None:
        """Forget the list kept, and any list being read now (it may predate the change)."""
        self._tools = None
        self._forgotten += 1

    # ------------------------------------------------------------- tools

    async def list_tools(self) -> list[Tool]:
        """The server's tools, asked for once and kept until it says the list
        changed."""
        client = self._session("list_tools")
        if self._tools is not None:
            return list(self._tools)
        forgotten = self._forgotten
        tools = await self._within(self._list_all(client), "listing its tools", None)
        if forgotten == self._forgotten:  # no change was said while it was read
            self._tools = tools
        return list(tools)

    async def _list_all(self, client: Client) -> list[Tool]:
        tools: list[Tool] = []
        cursor: str | None = None
        for _ in range(MAX_TOOL_PAGES):
            page = await client.list_tools(cursor=cursor)
            tools += [tool_from_mcp(listed) for listed in page.tools]
            cursor = page.next_cursor
            if cursor is None:
                break
        return tools

    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None, *,
                        call_id: str = "") -> FunctionExecutionResult:
        """Call tool ``name`` on the server. Its failure is an ``is_error``
        result; a server that does not answer in time or goes away raises
        :class:`~streamkit.model.errors.ToolServerError`."""
        client = self._session("call_tool", name)
        try:
            result = await self._within(client.call_tool(name, dict(arguments or {})),
                                        f"running tool {name!r}", name)
        except MCPError as error:  # the server's JSON-RPC error: an unknown tool, bad arguments
            return FunctionExecutionResult(call_id, f"the MCP server refused the call of tool "
                                           f"{name!r}: {_said(error)}", is_error=True, name=name)
        except pydantic.ValidationError as error:
            return FunctionExecutionResult(call_id, f"the MCP server's result for tool {name!r} "
                                           f"is not an MCP tool result: {_first(error)}",
                                           is_error=True, name=name)
        finally:
            if self._changing:  # the call may have changed the list; its notice may come late
                self._forget()
        return result_from_mcp(result, call_id=call_id, name=name,
                               max_chars=self.max_result_chars)

    # ------------------------------------------------------------- failures

    def _session(self, what: str, tool: str | None = None) -> Client:
        if self._client is None:
            raise ToolServerError(f"{what} on the MCP server {self.server} before the session "
                                  f"started: use `async with workbench:` (or await "
                                  f"workbench.start())", server=self.server, tool=tool)
        return self._client

    async def _within(self, step: Awaitable[_T], doing: str, tool: str | None) -> _T:
        """``step`` within the timeout; a timeout or a lost server as a
        :class:`ToolServerError` (a JSON-RPC error of the server's own passes,
        unwrapped from the SDK's exception groups)."""
        try:
            with anyio.fail_after(self.timeout if self.timeout is not None else math.inf):
                return await step
        except Exception as error:
            cause = _leaf(error)
            if _is_lost(cause):
                raise self._failed(doing, tool, cause) from None
            if cause is error or not isinstance(cause, Exception):
                raise
            raise cause from None

    def _failed(self, doing: str, tool: str | None, error: BaseException) -> ToolServerError:
        """The error for a server that did not answer in time, or is gone."""
        if isinstance(error, TimeoutError) or (isinstance(error, MCPError)
                                               and error.code == mcp_types.REQUEST_TIMEOUT):
            return ToolServerError(f"the MCP server {self.server} gave no answer within "
                                   f"{self.timeout} s while {doing} (McpWorkbench's timeout)",
                                   server=self.server, tool=tool, timed_out=True)
        if self._client is None:
            return ToolServerError(f"the MCP server {self.server} could not be started or "
                                   f"reached: {_said(error)}", server=self.server)
        return ToolServerError(f"the MCP server {self.server} went away while {doing}: "
                               f"{_said(error)}", server=self.server, tool=tool)


def _said(error: BaseException) -> str:
    """An error's own words, short (its type when it has none); an HTTP error
    by its kind and status alone, as its words quote the URL whole."""
    if isinstance(error, httpx2.HTTPStatusError):
        return f"HTTP {error.response.status_code}"
    if isinstance(error, httpx2.HTTPError):
        return type(error).__name__
    text = error.message if isinstance(error, MCPError) else str(error)
    return shorten(text, 500) if text.strip() else type(error).__name__


def _is_lost(error: BaseException) -> bool:
    """Whether ``error`` says the server did not answer in time or is gone."""
    if isinstance(error, MCPError):
        return error.code in (mcp_types.CONNECTION_CLOSED, mcp_types.REQUEST_TIMEOUT)
    return isinstance(error, (TimeoutError, *_LOST))


def _leaf(error: BaseException) -> BaseException:
    """The exception an exception group (of task groups within task groups) holds first."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def _first(error: pydantic.ValidationError) -> str:
    """The first of pydantic's complaints, on one line, and how many there are."""
    first = error.errors()[0]
    place = ".".join(str(part) for part in first["loc"])
    return shorten(f"{place}: {first['msg']} ({error.error_count()} problems)", 300)


def _names(values: Mapping[str, str] | None, label: str) -> str:
    """``, env=['KEY']``: the names of secret-bearing values, never the values."""
    return f", {label}={sorted(values)!r}" if values else ""

