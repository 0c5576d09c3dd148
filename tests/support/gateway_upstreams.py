"""One gateway model per upstream wire, all served by one fake provider: the
configuration the gateway's cross-wire tests (the SDK matrix, the coding
agents) share."""

from __future__ import annotations

from typing import Any

#: Each upstream wire, as the registry model the gateway calls and the base URL
#: under the fake provider's address.
UPSTREAMS = {
    "openai-chat": ("openai:upstream-model", "/v1"),
    "openai-responses": ("openai-responses:upstream-model", "/v1"),
    "anthropic": ("anthropic:upstream-model", "/v1"),
    "gemini": ("gemini:upstream-model", "/v1beta"),
    "ollama": ("ollama:upstream-model", ""),
}


def via_every_wire(fake_url: str, key: str) -> dict[str, Any]:
    """A gateway config whose model ``via-<wire>`` calls the fake provider at
    ``fake_url`` in that wire; callers use ``key``."""
    return {
        "gateway": {"keys": [key]},
        "models": {f"via-{wire}": {"model": model} for wire, (model, _) in UPSTREAMS.items()},
        "providers": {model.split(":")[0]: {"base_url": fake_url + path, "api_key": "sk-up-1"}
                      for model, path in UPSTREAMS.values()},
    }
