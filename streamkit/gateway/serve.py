"""``python -m streamkit gateway --config gateway.toml``: the gateway under uvicorn.

The configuration is read and its clients made once in the command itself,
so a mistake (in the file, or an upstream key not set) stops it before any
worker starts; each worker process then reads the
same file (its path passed in :data:`CONFIG_ENV`) and builds its own app:
workers share nothing, so ``--workers N`` is N gateways behind uvicorn's
socket, as any load balancer would spread them. The one log line per request
goes to stderr with uvicorn's own (a translation's losses are a field of it),
and so do Python's other warnings.
"""

from __future__ import annotations

import copy
import logging
import os
from pathlib import Path
from typing import Any

from starlette.applications import Starlette

from .app import create_app
from .config import load_config

__all__ = ["CONFIG_ENV", "app_from_env", "serve"]

#: The variable a worker process reads the configuration's path from.
CONFIG_ENV = "STREAMKIT_GATEWAY_CONFIG"


def app_from_env() -> Starlette:
    """A worker's app: the configuration named by :data:`CONFIG_ENV`. Python
    warnings go to the log (what a translation could not carry is in each
    request's line already)."""
    logging.captureWarnings(True)
    return create_app(load_config(os.environ[CONFIG_ENV]))


def serve(config_path: str | os.PathLike[str], *, host: str = "127.0.0.1", port: int = 8787,
          workers: int = 1, log_level: str = "info") -> None:
    """Serve the gateway until interrupted."""
    import uvicorn

    create_app(load_config(config_path))  # a mistake is said here, once, before any worker
    os.environ[CONFIG_ENV] = str(Path(config_path).resolve())
    uvicorn.run("streamkit.gateway.serve:app_from_env", factory=True, host=host, port=port,
                workers=workers, log_level=log_level, log_config=_log_config())


def _log_config() -> dict[str, Any]:
    """uvicorn's logging, with the gateway's request lines beside its own."""
    from uvicorn.config import LOGGING_CONFIG

    config: dict[str, Any] = copy.deepcopy(LOGGING_CONFIG)
    for name, level in (("streamkit.gateway", "INFO"), ("py.warnings", "WARNING")):
        config["loggers"][name] = {"handlers": ["default"], "level": level, "propagate": False}
    return config
