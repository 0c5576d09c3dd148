"""A gateway that serves every provider's API from any other: ``streamkit.gateway``.

Callers keep their SDK (OpenAI Chat or Responses, Anthropic Messages, Gemini,
Ollama) and point its base URL at the gateway; the gateway reads their wire,
calls the upstream the configuration names for the model they ask for (with
its fallbacks) in the upstream's wire, and answers in the caller's wire, the
stream re-encoded live event by event. Run it with ``python -m streamkit
gateway --config gateway.toml`` (:mod:`.serve`); embed it with
:func:`create_app`. The configuration is :mod:`.config`; callers' keys
:mod:`.callers`; a request's way through :mod:`.app`. Needs the ``gateway``
extra (Starlette and uvicorn).
"""

from __future__ import annotations

from .app import Gateway, create_app
from .config import GatewayConfig, GatewayConfigError, ModelRoute, Upstream, load_config

__all__ = ["Gateway", "GatewayConfig", "GatewayConfigError", "ModelRoute", "Upstream",
           "create_app", "load_config"]
