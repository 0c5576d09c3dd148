"""``python -m streamkit gateway --config gateway.toml``: the gateway under uvicorn.

The configuration is read and its clients made once in the command itself,
so a mistake (in the file, or an upstream key not set) stops it before any
worker starts; each worker process then reads the
same file (its path passed in :data:`CONFIG_ENV`) and builds its own app:
workers share nothing, so ``--workers N`` is N gateways behind uvicorn's
socket, as any load balancer would spread them.

What uvicorn is told (:func:`server_options`): its access log off (it prints
the query string, where a Gemini caller's key is; the gateway's own line
replaces it, :mod:`.access_log`), its h11 protocol with the edge's timeouts
and connection caps (:mod:`.limits`, made in each worker by
:func:`worker_protocol`), and the keep-alive of ``[timeouts]``. The log
lines go to stderr with uvicorn's own, and so do Python's warnings. uvicorn's
``trace`` level is not offered: it prints every request's ASGI scope, the
query string included.
"""

from __future__ import annotations

import copy
import functools
import logging
import math
import os
from pathlib import Path
from typing import Any

from starlette.applications import Starlette

from .app import create_app
from .config import CallerLimits, GatewayConfigError, load_config
from .limits import GuardedProtocol, guarded_protocol

__all__ = ["CONFIG_ENV", "LOG_LEVELS", "app_from_env", "serve", "server_options",
           "worker_protocol"]

#: The variable a worker process reads the configuration's path from.
CONFIG_ENV = "STREAMKIT_GATEWAY_CONFIG"

#: The log levels the command offers (uvicorn's, but ``trace``).
LOG_LEVELS = ("critical", "error", "warning", "info", "debug")


def app_from_env() -> Starlette:
    """A worker's app: the configuration named by :data:`CONFIG_ENV`. Python
    warnings go to the log (what a translation could not carry is in each
    request's line already)."""
    logging.captureWarnings(True)
    return create_app(load_config(os.environ[CONFIG_ENV]))


@functools.cache
def _worker_protocol_class() -> type[GuardedProtocol]:
    return guarded_protocol(load_config(os.environ[CONFIG_ENV]).limits)


def worker_protocol(**arguments: Any) -> GuardedProtocol:
    """A worker's connection protocol (uvicorn's ``http=`` names this
    function, so each worker makes its own, with the limits of the file
    named by :data:`CONFIG_ENV` and connections counted in that worker)."""
    return _worker_protocol_class()(**arguments)


def server_options(limits: CallerLimits, http: Any) -> dict[str, Any]:
    """uvicorn's settings for the gateway's edge (see the module docstring;
    no WebSocket: the gateway serves none, and an upgraded connection would
    leave the protocol that keeps the time); ``http``: the protocol, a class
    or its import path."""
    return {"http": http, "ws": "none", "access_log": False,
            "timeout_keep_alive": max(1, math.ceil(limits.keep_alive))}


def serve(config_path: str | os.PathLike[str], *, host: str = "127.0.0.1", port: int = 8787,
          workers: int = 1, log_level: str = "info") -> None:
    """Serve the gateway until interrupted."""
    import uvicorn

    if log_level not in LOG_LEVELS:
        raise GatewayConfigError(f"log level {log_level!r}: use one of {', '.join(LOG_LEVELS)}")
    config = load_config(config_path)
    create_app(config)  # a mistake is said here, once, before any worker
    os.environ[CONFIG_ENV] = str(Path(config_path).resolve())
    uvicorn.run("streamkit.gateway.serve:app_from_env", factory=True, host=host, port=port,
                workers=workers, log_level=log_level, log_config=_log_config(log_level),
                **server_options(config.limits, "streamkit.gateway.serve:worker_protocol"))


def _log_config(level: str) -> dict[str, Any]:
    """uvicorn's logging, with the gateway's request lines beside its own."""
    from uvicorn.config import LOGGING_CONFIG

    config: dict[str, Any] = copy.deepcopy(LOGGING_CONFIG)
    for name, each in (("streamkit", level.upper()), ("py.warnings", "WARNING")):
        config["loggers"][name] = {"handlers": ["default"], "level": each, "propagate": False}
    return config
