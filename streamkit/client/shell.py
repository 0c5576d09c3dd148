"""What :class:`~streamkit.Client` and :class:`~streamkit.SyncClient` share
above the core: their arguments (one :class:`~streamkit.client.core.ClientCore`
per model, the httpx client and the timing of their own kind), the chain a call
goes along, and what they tell about themselves (the model, the usage and cost
totals)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, TypeVar

import httpx

from ..conversation.messages import Message
from ..conversation.request import JsonOutput, Request, ToolChoice
from ..conversation.tools import Tool
from ..model.cost import Cost
from ..model.limits import DEFAULT_MAX_TOTAL_BYTES
from ..model.usage import ChatUsage
from ..model.vendors import ModelInfo, ProviderEntry
from .attempts import Attempt
from .core import ClientCore, Tools
from .counting import Counting, count_steps
from .fallbacks import Chain, Fallback, forwarded_to
from .forwarding import ForwardedHeaders
from .keys import ApiKey
from .retry import RetryPolicy, SyncTiming, Timing
from .timeouts import UNSET, Timeouts

__all__ = ["Shell"]

HttpClient = TypeVar("HttpClient", httpx.AsyncClient, httpx.Client)
TimingT = TypeVar("TimingT", Timing, SyncTiming)


class Shell(Generic[HttpClient, TimingT]):
    """What both clients share above the core: their arguments (the httpx client
    and the timing of their own kind) and what they tell about themselves."""

    _http_class: type[HttpClient]
    _timing_class: type[TimingT]

    def __init__(self, model: str, api_key: str | ApiKey | None = None,
                 base_url: str | None = None, *,
                 timeout: float | Timeouts | None = UNSET, max_retries: int = 2,
                 http_client: HttpClient | None = None, retry: RetryPolicy | None = None,
                 model_info: ModelInfo | None = None,
                 on_attempt: Callable[[Attempt], None] | None = None,
                 timing: TimingT | None = None, environ: Mapping[str, str] | None = None,
                 max_body_bytes: int = DEFAULT_MAX_TOTAL_BYTES,
                 fallbacks: Sequence[str | Fallback] = (), **overrides: Any) -> None:
        key = ApiKey.of(api_key, "api_key=")
        del api_key  # from here on no frame of the client holds the plain key
        if timeout is UNSET and http_client is None:
            timeout = Timeouts()
        self._core = ClientCore(model, key, base_url, timeout=timeout,
                                max_retries=max_retries, retry=retry, model_info=model_info,
                                on_attempt=on_attempt, environ=environ, overrides=overrides,
                                max_body_bytes=max_body_bytes)
        self._cores = [self._core]
        for number, value in enumerate(map(Fallback.of, fallbacks), 1):
            core = ClientCore(value.model, value.api_key, value.base_url, timeout=timeout,
                              max_retries=max_retries, retry=retry, model_info=value.model_info,
                              on_attempt=on_attempt, environ=environ,
                              overrides=dict(value.overrides), max_body_bytes=max_body_bytes,
                              fallback=number)
            core.share_totals(self._core)
            self._cores.append(core)
        self._http: HttpClient = http_client if http_client is not None else self._own_http()
        self._owns_http = http_client is None
        self._timing: TimingT = timing if timing is not None else self._timing_class()

    def __repr__(self) -> str:
        fallbacks = "".join(f", then {core!r}" for core in self._cores[1:])
        return f"{type(self).__name__}({self._core!r}{fallbacks})"

    def _chain(self, messages: Sequence[Message] | Request, *, stream: bool,
               tools: Tools | None, tool_choice: ToolChoice | Tool | None,
               json_output: JsonOutput | None, options: dict[str, Any],
               forwarded: ForwardedHeaders | None = None) -> Chain:
        """One call of the conversation, across this client's models (a
        caller's ``forwarded`` headers to those of its wire)."""
        def build(core: ClientCore) -> dict[str, Any]:
            return core.body(messages, stream=stream, tools=tools, tool_choice=tool_choice,
                             json_output=json_output, options=options,
                             headers=forwarded_to(core, forwarded))

        return Chain(self._cores, build, stream=stream, forwarded=forwarded)

    def _only(self, body: dict[str, Any], *, stream: bool) -> Chain:
        """One call of a body built elsewhere: for this client's own model only."""
        return Chain([self._core], lambda core: body, stream=stream)

    def _count(self, messages: Sequence[Message] | Request, *, tools: Tools | None,
               tool_choice: ToolChoice | Tool | None, model: str | None,
               options: dict[str, Any], forwarded: ForwardedHeaders | None) -> Counting:
        """A count of the conversation's input tokens for this client's own
        model (or ``model`` of its provider): :mod:`streamkit.client.counting`."""
        core = self._core
        headers = forwarded_to(core, forwarded)
        body = core.body(messages, stream=False, tools=tools, tool_choice=tool_choice,
                         json_output=None, options=options, model=model, headers=headers)
        return count_steps(core, body, model or core.model, headers, self._timing)

    def _own_http(self) -> HttpClient:
        """The httpx client made when none is given."""
        return self._http_class()

    @property
    def provider(self) -> ProviderEntry:
        """The registry entry in use, with this client's overrides."""
        return self._core.entry

    @property
    def model(self) -> str:
        """The model name sent to the provider."""
        return self._core.model

    @property
    def base_url(self) -> str:
        """The base URL in use."""
        return self._core.base_url

    @property
    def fallbacks(self) -> tuple[str, ...]:
        """The models tried, in order, when this client's own cannot be reached
        (``provider:model``; see :mod:`streamkit.client.fallbacks`)."""
        return tuple(core.name for core in self._cores[1:])

    @property
    def model_info(self) -> ModelInfo:
        """The model's capabilities as far as known (registry, then ``model_info=``)."""
        return self._core.model_info

    def url(self, *, stream: bool = True) -> str:
        """The URL a call is posted to (with its query; never a key, which goes in a header)."""
        return self._core.url(stream=stream)

    @property
    def total_usage(self) -> ChatUsage:
        """The usage of every answer handed back whole, summed."""
        return self._core.usage.total

    @property
    def actual_usage(self) -> ChatUsage:
        """:attr:`total_usage` plus what calls that broke or were closed early spent."""
        return self._core.usage.actual

    @property
    def total_cost(self) -> Cost:
        """What the answers of :attr:`total_usage` cost (genai-prices, the ``prices``
        extra): ``amount`` in ``currency``, or ``None`` with a ``reason`` when a
        call could not be priced (see :mod:`streamkit.model.cost`)."""
        return self._core.costs.total
