"""An ASGI app under uvicorn on a free loopback port, in a thread: what the
browser and Node tests talk to. The socket is bound before the server starts,
so parallel test workers never race for a port."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def serving(app: Any, *, lifespan: str = "off", **options: Any) -> Iterator[str]:
    """Serve ``app`` until the block ends; yields its base URL (``lifespan="on"``
    for an app that starts what it serves in its lifespan, as an MCP server does;
    ``options``: more of uvicorn's settings, the gateway's edge)."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(app, log_level="warning", lifespan=lifespan, **options)
    instance = uvicorn.Server(config)
    thread = threading.Thread(target=instance.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not instance.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        instance.should_exit = True
        thread.join(10)
        sock.close()
