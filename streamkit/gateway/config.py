"""The gateway's configuration: which public models it serves, where each
goes, and who may call it, read from a TOML file.

::

    [gateway]
    keys_env = "STREAMKIT_GATEWAY_KEYS"   # or keys = ["..."]: the callers' keys
    forward_headers = ["x-trace-id"]      # caller headers passed on to a same-wire upstream

    [models.fast]                         # the name callers ask for
    model = "openai:gpt-4o-mini"          # the registry model it is served by
    fallbacks = ["anthropic:claude-haiku-4-5"]
    cache = "auto"                        # prompt-cache points where the caller put none

    [providers.openai]                    # an upstream: where, and with which key
    base_url = "http://127.0.0.1:9000/v1"
    api_key_env = "OPENAI_API_KEY"

Everything is checked when the file is read, so a gateway that starts serves
what the file says: an unknown provider, a model without a ``provider:``
prefix, a key variable that is not set, a table or key the reference does not
name is a :class:`GatewayConfigError` naming the place. A gateway with no
caller keys refuses to start unless ``open = true`` says it is meant to be
open (a gateway on a laptop). Keys are held as :class:`~streamkit.client.keys.ApiKey`,
so no repr of the configuration shows one.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..client.forwarding import NEVER_FORWARDED
from ..client.keys import ApiKey
from ..client.timeouts import Timeouts
from ..model.errors import ProviderConfigError
from ..model.vendors import did_you_mean, provider_entry

__all__ = ["CallerLimits", "GatewayConfig", "GatewayConfigError", "ModelRoute", "Upstream",
           "in_config_words", "load_config", "parse_config"]

#: The keys each table may hold: anything else is a mistake, said at once.
GATEWAY_KEYS = frozenset({"keys", "keys_env", "open", "max_body_bytes", "max_connections",
                          "max_connections_per_client", "forward_headers"})
MODEL_KEYS = frozenset({"model", "fallbacks", "cache"})
#: The words ``cache`` may say: ``"auto"``, prompt-cache points added where the
#: caller placed none (:func:`~streamkit.providers.cache_points.with_automatic_points`).
CACHE_MODES = frozenset({"auto"})
PROVIDER_KEYS = frozenset({"base_url", "api_key_env", "api_key", "headers"})
#: ``[timeouts]``: each a number of seconds, and the field it sets.
CALLER_TIMEOUTS = {"caller_headers": "headers", "caller_body": "body", "caller_idle": "idle",
                   "keep_alive": "keep_alive"}
UPSTREAM_TIMEOUTS = {"upstream_connect": "connect", "upstream_read": "read",
                     "upstream_total": "total"}

#: The largest request body the gateway reads (a conversation with images).
DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024


class GatewayConfigError(ProviderConfigError):
    """The gateway's configuration cannot be served as written; the message
    names the table and key."""


@dataclass(frozen=True)
class CallerLimits:
    """How long a caller may take to send its request, and how many
    connections one worker holds (:mod:`.limits` keeps to them). Before its
    request is read a caller is nobody (its key is in the headers): these
    bound what anybody can hold by connecting and sending slowly.

    ``headers``: seconds from the connection (or the end of the previous
    answer) to the request's last header; ``body``: from there to the body's
    last byte; ``idle``: without a byte while either is being read;
    ``keep_alive``: an idle connection between two requests. ``connections``:
    open connections at most (``None``: from the process's file limit, see
    :func:`.limits.default_connections`); ``per_client``: from one client
    address at most (0: no cap, for a gateway behind a proxy that is every
    caller's address)."""

    headers: float = 10.0
    body: float = 60.0
    idle: float = 10.0
    keep_alive: float = 5.0
    connections: int | None = None
    per_client: int = 256


#: The upstream's timeouts unless ``[timeouts]`` says otherwise: the client's
#: (10 s to connect, 600 s of silence: a reasoning model thinks), and an hour in all.
UPSTREAM_DEFAULTS = Timeouts(total=3600.0)


@dataclass(frozen=True)
class Upstream:
    """Where one provider is reached: its base URL (``None``: the registry's)
    and key (``None``: the registry's environment variables), and extra headers."""

    base_url: str | None = None
    api_key: ApiKey | None = None
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ModelRoute:
    """One public model: the registry model that serves it and its fallbacks;
    ``cache``: ``"auto"`` to add prompt-cache points to a request whose caller
    placed none (``docs/caching.md``), ``None`` to send requests as they came."""

    name: str
    model: str
    fallbacks: tuple[str, ...] = ()
    cache: str | None = None


@dataclass(frozen=True)
class GatewayConfig:
    """The whole configuration (see the module docstring)."""

    models: Mapping[str, ModelRoute]
    providers: Mapping[str, Upstream] = field(default_factory=dict)
    keys: tuple[ApiKey, ...] = ()
    open: bool = False
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    limits: CallerLimits = CallerLimits()
    upstream_timeouts: Timeouts = UPSTREAM_DEFAULTS
    forward_headers: frozenset[str] = frozenset()
    """Caller headers (lower case) passed on to an upstream of the caller's wire,
    beside the wire's own list (:mod:`streamkit.client.forwarding`)."""

    def upstream(self, model: str) -> Upstream:
        """The settings of the provider a ``provider:model`` string names."""
        return self.providers.get(provider_entry(_provider_of(model)).name, Upstream())


def load_config(path: str | os.PathLike[str], *,
                environ: Mapping[str, str] | None = None) -> GatewayConfig:
    """The configuration in the TOML file at ``path`` (keys named by ``*_env``
    read from ``environ``, the process environment by default)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise GatewayConfigError(f"cannot read the gateway config {path}: {error}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise GatewayConfigError(f"{path} is not TOML: {error}") from None
    return parse_config(data, environ=os.environ if environ is None else environ)


def parse_config(data: Mapping[str, Any], *,
                 environ: Mapping[str, str] | None = None) -> GatewayConfig:
    """The configuration a decoded TOML document says (see the module docstring)."""
    env = os.environ if environ is None else environ
    _only(data, frozenset({"gateway", "models", "providers", "timeouts"}), "the config")
    gateway = _table(data, "gateway")
    _only(gateway, GATEWAY_KEYS, "[gateway]")
    models = {name: _route(name, _table(_table(data, "models"), name))
              for name in _table(data, "models")}
    if not models:
        raise GatewayConfigError("the config serves no model: add a [models.<name>] table")
    providers = {vendor_name(name): _upstream(name, _table(_table(data, "providers"), name), env)
                 for name in _table(data, "providers")}
    keys, is_open = _caller_keys(gateway, env), _is_open(gateway)
    if not keys and not is_open:
        raise GatewayConfigError("[gateway] names no caller keys (keys = [...] or keys_env = "
                                 "\"VAR\"); set open = true to serve without keys")
    max_body = _count(gateway, "max_body_bytes", DEFAULT_MAX_BODY_BYTES)
    timeouts = _table(data, "timeouts")
    _only(timeouts, frozenset(CALLER_TIMEOUTS) | frozenset(UPSTREAM_TIMEOUTS), "[timeouts]")
    return GatewayConfig(models=models, providers=providers, keys=keys, open=is_open,
                         max_body_bytes=max_body, limits=_caller_limits(gateway, timeouts),
                         forward_headers=_forwarded(gateway),
                         upstream_timeouts=dataclasses.replace(
                             UPSTREAM_DEFAULTS, **_seconds(timeouts, UPSTREAM_TIMEOUTS)))


def _forwarded(gateway: Mapping[str, Any]) -> frozenset[str]:
    """``forward_headers``: header names, none of them a key's (a caller's
    credentials never reach an upstream, which the gateway's own key opens)."""
    names = gateway.get("forward_headers", [])
    if type(names) is not list or not all(type(name) is str and name for name in names):
        raise GatewayConfigError("[gateway] forward_headers must be a list of header names")
    refused = sorted({name.lower() for name in names} & NEVER_FORWARDED)
    if refused:
        raise GatewayConfigError(f"[gateway] forward_headers names {', '.join(refused)}, which "
                                 f"is never forwarded (a key, a credential or the request's "
                                 f"own framing); remove it")
    return frozenset(name.lower() for name in names)


def _is_open(gateway: Mapping[str, Any]) -> bool:
    """``open = true``, which may not come with keys: with both, which one was
    meant? Serving without keys by mistake is the one that cannot be undone."""
    is_open = gateway.get("open", False)
    if type(is_open) is not bool:
        raise GatewayConfigError("[gateway] open must be true or false")
    if is_open and ("keys" in gateway or "keys_env" in gateway):
        raise GatewayConfigError("[gateway] open = true serves without keys, but keys / "
                                 "keys_env names some: remove open, or the keys")
    return is_open


def _caller_limits(gateway: Mapping[str, Any], timeouts: Mapping[str, Any]) -> CallerLimits:
    """``[gateway]``'s connection caps and ``[timeouts]``' caller timeouts."""
    connections = gateway.get("max_connections")
    return CallerLimits(
        **_seconds(timeouts, CALLER_TIMEOUTS),
        connections=None if connections is None else _count(gateway, "max_connections", 0),
        per_client=_count(gateway, "max_connections_per_client", CallerLimits.per_client,
                          zero=True))


def _seconds(table: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, float]:
    """The timeouts ``table`` sets among ``names``, by field name."""
    chosen = {}
    for key, field_name in names.items():
        if key not in table:
            continue
        value = table[key]
        if type(value) not in (int, float) or not 0 < value < float("inf"):
            raise GatewayConfigError(f"[timeouts] {key} must be a positive number of seconds")
        chosen[field_name] = float(value)
    return chosen


def _count(gateway: Mapping[str, Any], key: str, default: int, *, zero: bool = False) -> int:
    """A whole number of ``[gateway]`` (``zero``: 0 allowed, meaning no cap)."""
    value = gateway.get(key, default)
    if type(value) is not int or value < (0 if zero else 1):
        raise GatewayConfigError(f"[gateway] {key} must be a "
                                 f"{'whole number (0: no cap)' if zero else 'positive integer'}")
    return value


#: What a provider's table sets in place of a client argument, and what is
#: missing without it.
_TABLE_KEYS = {"api_key": ("api_key_env (or api_key)", "no API key", " or "),
               "base_url": ("base_url", "no base URL", " and ")}


def in_config_words(error: ProviderConfigError, where: str) -> GatewayConfigError:
    """A client's ``error`` said as this file fixes it: a missing key or base
    URL names the environment variable(s) and the key of the provider's
    table to set (``[providers.anthropic] api_key_env``), not the client's
    Python argument (``api_key=``)."""
    if error.setting not in _TABLE_KEYS or error.provider is None:
        return GatewayConfigError(f"{where}: {error}", missing=error.missing)
    table_key, problem, joined = _TABLE_KEYS[error.setting]
    variables = (f"set {joined.join(error.missing)} in the environment, or "
                 if error.missing else "set ")
    return GatewayConfigError(
        f"{where}: {problem} for {provider_entry(error.provider).title}: {variables}"
        f"{table_key} in [providers.{error.provider}]",
        missing=error.missing, setting=error.setting, provider=error.provider)


def vendor_name(name: str, where: str | None = None) -> str:
    """The registry name a provider table (or a model string, said ``where``)
    is for; an alias is accepted, an unknown name is refused naming the
    closest known one."""
    try:
        return provider_entry(name).name
    except (ProviderConfigError, ValueError):
        raise GatewayConfigError(f"{where or f'[providers.{name}]'}: no provider is called "
                                 f"{name!r}{did_you_mean(name)}") from None


def _provider_of(model: str) -> str:
    provider, colon, _ = model.partition(":")
    if not colon or not provider:
        raise GatewayConfigError(f"model {model!r} must be written 'provider:model'")
    return provider


def _route(name: str, table: Mapping[str, Any]) -> ModelRoute:
    _only(table, MODEL_KEYS, f"[models.{name}]")
    model = table.get("model")
    if type(model) is not str:
        raise GatewayConfigError(f"[models.{name}] needs model = \"provider:model\"")
    fallbacks = table.get("fallbacks", [])
    if type(fallbacks) is not list or not all(type(item) is str for item in fallbacks):
        raise GatewayConfigError(f"[models.{name}] fallbacks must be a list of model strings")
    for each in (model, *fallbacks):
        vendor_name(_provider_of(each), f"[models.{name}] {each!r}")
    cache = table.get("cache")
    if cache is not None and cache not in CACHE_MODES:
        raise GatewayConfigError(f"[models.{name}] cache = {cache!r}: the one mode is "
                                 f"\"auto\" (leave it out to send requests as they came)")
    return ModelRoute(name, model, tuple(fallbacks), cache)


def _upstream(name: str, table: Mapping[str, Any], env: Mapping[str, str]) -> Upstream:
    where = f"[providers.{name}]"
    _only(table, PROVIDER_KEYS, where)
    base_url = table.get("base_url")
    if base_url is not None and type(base_url) is not str:
        raise GatewayConfigError(f"{where} base_url must be a string")
    headers = table.get("headers", {})
    if type(headers) is not dict or not all(type(value) is str for value in headers.values()):
        raise GatewayConfigError(f"{where} headers must be a table of strings")
    key = None
    if "api_key_env" in table:
        variable = table["api_key_env"]
        if type(variable) is not str or not env.get(variable, "").strip():
            raise GatewayConfigError(f"{where} api_key_env names {variable!r}, which is not set")
        key = ApiKey(env[variable], f"${variable}")
    elif "api_key" in table:
        if type(table["api_key"]) is not str:
            raise GatewayConfigError(f"{where} api_key must be a string")
        key = ApiKey(table["api_key"], f"{where} api_key")
    if key is not None:
        _sendable(key, f"{where} {'api_key_env' if 'api_key_env' in table else 'api_key'}")
    return Upstream(base_url=base_url, api_key=key, headers=dict(headers))


def _caller_keys(gateway: Mapping[str, Any], env: Mapping[str, str]) -> tuple[ApiKey, ...]:
    """The callers' keys, each one a caller can send (a blank one, or one
    with a space, matches nobody, or worse, an empty header)."""
    keys: list[ApiKey] = []
    listed = gateway.get("keys", [])
    if type(listed) is not list or not all(type(key) is str for key in listed):
        raise GatewayConfigError("[gateway] keys must be a list of strings")
    keys += [ApiKey(key, "[gateway] keys") for key in listed]
    if "keys_env" in gateway:
        variable = gateway["keys_env"]
        if type(variable) is not str or not env.get(variable, "").strip():
            raise GatewayConfigError(f"[gateway] keys_env names {variable!r}, which is not set")
        keys += [ApiKey(key, f"[gateway] keys_env ${variable}")
                 for key in env[variable].split(",")]
    for number, key in enumerate(keys):
        _sendable(key, f"{key.source} (key {number + 1})")
    return tuple(keys)


def _sendable(key: ApiKey, where: str) -> None:
    """Refuse a key no header can carry: blank, or with spaces or control
    characters (the message says where it is, never what it is)."""
    if not key.can_be_sent:
        raise GatewayConfigError(f"{where}: a key is blank or holds a space or a character "
                                 f"a header cannot carry; keys are printable ASCII without spaces")


def _table(data: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = data.get(name, {})
    if not isinstance(value, Mapping):
        raise GatewayConfigError(f"{name} must be a table")
    return value


def _only(table: Mapping[str, Any], allowed: frozenset[str], where: str) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise GatewayConfigError(f"{where}: unknown {', '.join(map(repr, unknown))}; "
                                 f"known: {', '.join(sorted(allowed))}")
