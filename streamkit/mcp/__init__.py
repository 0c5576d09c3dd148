"""Tools from MCP servers: :class:`McpWorkbench`, a
:class:`~streamkit.conversation.workbench.Workbench` over the official ``mcp``
SDK, for servers over stdio (a command streamkit starts) and over streamable
HTTP (a URL).

A floor of its own, between the client and the frameworks: it does I/O (it
starts processes and opens connections) but needs nothing of the client, which
takes any workbench through the protocol of :mod:`streamkit.conversation`. It
needs the ``mcp`` extra; without it, importing this package says how to
install it (``import streamkit`` never imports it: ``streamkit.McpWorkbench``
is loaded on first use).
"""

from __future__ import annotations

from ..__about__ import install_line

try:
    import mcp  # noqa: F401 (the SDK is what this package is made of)
except ModuleNotFoundError as missing:
    if missing.name != "mcp":
        raise
    raise ModuleNotFoundError(f"streamkit.McpWorkbench needs the mcp package, which is not "
                              f"installed: {install_line('mcp')}", name="mcp") from None

from .workbench import McpWorkbench

__all__ = ["McpWorkbench"]
