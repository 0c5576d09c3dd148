"""Which provider a client talks to, and where: its model string read against
the vendor table (:mod:`streamkit.model.vendors`), the caller's overrides, the
base URL with its environment variables filled in. Pure: the environment is
passed in."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from ..model.errors import ProviderConfigError
from ..model.vendors import PROVIDERS, ProviderEntry, provider_entry

__all__ = ["environment", "fill_base_url", "resolve_model", "with_overrides"]

_PLACEHOLDER = re.compile(r"\{([A-Z][A-Z0-9_]*)\}")


def resolve_model(model: str, *, base_url: str | None = None) -> tuple[ProviderEntry, str]:
    """The entry and the model name of ``"provider:model"``. Only the first ``:``
    separates them (``ollama:llama3.2:3b``), and what is before it is always a
    provider: an unknown one is refused, naming the closest known name, even
    with a ``base_url`` (a typo, ``antropic:``, is not sent to some
    OpenAI-compatible server). A bare model name (no ``:``) is accepted with a
    ``base_url``: it goes to the ``openai-compatible`` entry, which a model
    name with a ``:`` names itself (``openai-compatible:llama3.2:3b``)."""
    name, sep, rest = model.partition(":")
    if sep:
        entry = provider_entry(name, model=model)  # an unknown one raises, naming the closest
        if not rest:
            raise ProviderConfigError(f"{model!r} names no model after the provider: "
                                      f"write '{name}:<model>'")
        return entry, rest
    if base_url is not None:
        return PROVIDERS["openai-compatible"], model
    raise ProviderConfigError(
        f"name the provider of {model!r}, e.g. 'openai:{model}', or pass base_url= for an "
        f"OpenAI-compatible server; providers: {', '.join(sorted(PROVIDERS))}")


def fill_base_url(template: str, environ: Mapping[str, str], *,
                  provider: str | None = None) -> str:
    """``template`` with each ``{NAME}`` replaced by that environment variable
    (trailing slashes of the value dropped); a missing one is a
    :class:`ProviderConfigError` naming every variable still needed (and
    ``provider``, the entry whose base URL it is)."""
    missing = tuple(dict.fromkeys(name for name in _PLACEHOLDER.findall(template)
                                  if not environ.get(name, "").strip()))
    if missing:
        raise ProviderConfigError(
            f"the base URL {template!r} needs {' and '.join(missing)} in the environment "
            f"(or pass base_url=)", missing=missing, setting="base_url", provider=provider)
    return _PLACEHOLDER.sub(lambda m: environ[m.group(1)].strip().rstrip("/"), template)


def environment(environ: Mapping[str, str] | None) -> Mapping[str, str]:
    """The environment a client reads (``os.environ`` unless given one)."""
    return os.environ if environ is None else environ


def with_overrides(entry: ProviderEntry, overrides: dict[str, Any]) -> ProviderEntry:
    """``entry`` with the caller's settings; ``headers`` / ``query`` are merged into
    the defaults (a ``None`` value removes one) rather than replacing them."""
    changes = dict(overrides)
    for key in ("headers", "query"):
        if key in changes:
            merged = {**getattr(entry, key), **changes[key]}
            changes[key] = {k: v for k, v in merged.items() if v is not None}
    return entry.replace(**changes) if changes else entry
