"""A hostile MCP server over stdio, JSON-RPC written by hand (no SDK: it starts in
milliseconds, and it can say what no SDK server would): it speaks the
2025-11-25 handshake (``server/discover`` is an unknown method, so a client
falls back to ``initialize``), and its tools misbehave:

- ``crash``: the process exits in the middle of the call;
- ``malformed``: a result that is not MCP's shape (an image without data);
- ``grow``: says ``notifications/tools/list_changed`` before its result, and
  lists ``grown`` from then on (the pre-2026 way a list changes);
- ``secret``: echoes its environment's ``MCP_TOKEN`` length (the value is the
  test's secret; it is never printed).
"""

from __future__ import annotations

import json
import os
import sys

TOOLS = [{"name": name, "description": f"the {name} tool",
          "inputSchema": {"type": "object", "properties": {}}}
         for name in ("crash", "malformed", "grow", "secret")]


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def call(name: str) -> dict[str, object]:
    """The result of tool ``name`` (``crash`` never returns)."""
    if name == "crash":
        os._exit(3)
    if name == "malformed":
        return {"content": [{"type": "image", "mimeType": "image/png"}]}
    if name == "grow":
        TOOLS.append({"name": "grown", "inputSchema": {"type": "object"}})
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        return {"content": [{"type": "text", "text": "grown"}]}
    token = os.environ.get("MCP_TOKEN", "")
    return {"content": [{"type": "text", "text": f"a token of {len(token)} characters"}]}


def answer(request: dict[str, object]) -> dict[str, object]:
    method, params = request["method"], request.get("params") or {}
    assert isinstance(params, dict)
    if method == "initialize":
        return {"result": {"protocolVersion": "2025-11-25",
                           "capabilities": {"tools": {"listChanged": True}},
                           "serverInfo": {"name": "raw", "version": "1"}}}
    if method == "tools/list":
        return {"result": {"tools": TOOLS}}
    if method == "tools/call":
        return {"result": call(str(params["name"]))}
    return {"error": {"code": -32601, "message": f"no method {method}"}}


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        if "id" in request and "method" in request:
            send({"jsonrpc": "2.0", "id": request["id"], **answer(request)})


if __name__ == "__main__":
    main()
