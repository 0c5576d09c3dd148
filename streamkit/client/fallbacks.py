"""Fallbacks across providers: when a model cannot be reached, the next one answers.

``Client("anthropic:claude-sonnet-4-5", fallbacks=["openai:gpt-4o",
"gemini:gemini-2.5-flash"])`` tries its own model first; when that call fails
before its answer began, after its retries, the same conversation goes to the
next model, and so on. Without I/O: :class:`Chain` says which model to try
next and with which body, and decides after each failure; the client's shells
perform the calls (:mod:`streamkit.client`).

When the next model is tried (:func:`falls_back`): the call's last attempt got
no response at all (refused, unresolved, timed out before its headers:
:class:`~streamkit.model.errors.NoResponseError`), or an error status a retry is made
for (408, 409, 429, any 5xx, Anthropic's 529 "overloaded", or whatever the
provider marks ``x-should-retry: true``). Never after a status below 400: the
answer's body had begun, and an error in it carries the partial response as
always (nothing is paid for or shown twice). Never after another 4xx (400,
401, 403, 404, 422...): the request or the key is wrong, and another provider
would hide that rather than fix it.

What the next model gets: the conversation the caller gave (messages, tools,
tool choice, structured output, options), built by that model's wire encoder
(:func:`streamkit.build_request`, ``model=`` the fallback's), only when it is
needed. What a translation drops issues the
:class:`~streamkit.LossyTranslationWarning` the builders issue; a conversation
the next wire cannot express at all (its
:class:`~streamkit.UnsupportedFeatureError`) counts as that model's failure,
and the chain goes on. A body built elsewhere (``create_body``,
``stream_body``) belongs to one wire and is never sent to a fallback.

Each fallback is a model string or a :class:`Fallback` (its own key, base URL
and registry overrides); its key comes from ``api_key=`` or its provider's
environment variables, as a client's does, and a missing one fails when the
client is made. The client's timeouts (``Timeouts.total`` bounds each model's
call), retry policy, ``on_attempt`` callback, httpx client and clock serve
every model; usage and costs add up in the client's totals.

What tells which model answered: each :class:`~streamkit.client.Attempt`
names its ``provider``, ``model`` and ``fallback`` (0 for the client's own
model); the ``streamkit.client`` logger says each fallback (WARNING) and the
model that answered after others failed (INFO); the answer's ``provider`` and
``model`` are the answering model's; its ``timing`` counts the attempts of
every model tried (``attempts``) and the time before the answering attempt
(``before_answer``). When every model fails, the last error is raised; the
earlier ones are its ``fallback_errors`` (in order), and each is named in its
``__notes__``.

A caller's headers a gateway forwards (:mod:`streamkit.client.forwarding`) go
to each model of the caller's wire, and to no model of another.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..model.errors import (
    NoResponseError,
    ProviderError,
    StreamError,
    StreamkitError,
    UnsupportedFeatureError,
)
from ..model.timing import RequestTiming
from ..model.vendors import ModelInfo
from .core import ClientCore
from .forwarding import ForwardedHeaders
from .keys import ApiKey
from .retry import RetryPolicy
from .steps import Call

__all__ = ["Chain", "Fallback", "Leg", "falls_back", "forwarded_to"]

logger = logging.getLogger("streamkit.client")


class Fallback:
    """A model a client falls back to, with settings of its own:
    ``Fallback("openai:gpt-4o", api_key=..., base_url=..., headers={...})``.
    ``model``, ``api_key`` and ``base_url`` mean what they mean for a client;
    ``model_info`` and the other keywords (registry overrides) are this
    model's. A plain ``"provider:model"`` string is ``Fallback(that)``."""

    __slots__ = ("api_key", "base_url", "model", "model_info", "overrides")

    def __init__(self, model: str, api_key: str | ApiKey | None = None,
                 base_url: str | None = None, *,
                 model_info: ModelInfo | None = None, **overrides: Any) -> None:
        self.api_key = ApiKey.of(api_key, f"api_key= of {model}")
        del api_key  # no frame holds the plain key
        self.model = model
        self.base_url = base_url
        self.model_info = model_info
        self.overrides = dict(overrides)

    @classmethod
    def of(cls, value: str | Fallback) -> Fallback:
        """``value`` as a :class:`Fallback`."""
        return value if isinstance(value, Fallback) else cls(value)

    def __repr__(self) -> str:
        key = "" if self.api_key is None else f", {self.api_key!r}"
        where = "" if self.base_url is None else f", base_url={self.base_url!r}"
        return f"Fallback({self.model!r}{key}{where})"


def forwarded_to(core: ClientCore, forwarded: ForwardedHeaders | None) -> Mapping[str, str]:
    """The caller's headers that go to ``core``'s model: those of its wire only."""
    return {} if forwarded is None else forwarded.for_wire(core.wire.name)


def falls_back(error: StreamkitError, policy: RetryPolicy) -> bool:
    """Whether the next model is tried after a call's attempts ended in
    ``error``: no response at all, any 5xx, or a status ``policy`` retries."""
    if isinstance(error, NoResponseError):
        return True
    if isinstance(error, ProviderError) and error.status is not None:
        return error.status >= 500 or policy.should_retry(error.status, error.headers)
    return False


@dataclass(frozen=True)
class Leg:
    """One model's call within a chain: the model, the body built for its
    wire, and the call that sends it."""

    core: ClientCore
    body: dict[str, Any]
    call: Call


class Chain:
    """One call across a client's models, in order: :meth:`next` gives the next
    model's :class:`Leg` (building its body only then), :meth:`failed` decides
    after a leg's attempts failed, :meth:`request_timing` times the answering
    leg from the first model's first attempt. The loop that runs it is
    :mod:`streamkit.client.orchestration`'s::

        while True:
            leg = chain.next(now)          # raises the last error when none is left
            try:
                response = yield from leg.core.attempts(leg.call, clock)
            except StreamError as error:
                chain.failed(leg, error)   # raises unless the next model is tried
                continue
            chain.answered(leg)
            ...                            # the answer, timed by chain.request_timing(leg)
    """

    def __init__(self, cores: Sequence[ClientCore], build: Callable[[ClientCore], dict[str, Any]],
                 *, stream: bool, forwarded: ForwardedHeaders | None = None) -> None:
        self._cores = cores
        self._build = build
        self._forwarded = forwarded
        self._stream = stream
        self._tried = 0
        self._errors: list[tuple[str, StreamkitError]] = []
        self._calls: list[Call] = []

    def next(self, now: float) -> Leg:
        """The next model's leg, its call starting ``now`` (monotonic). The
        client's own model's body is built as the caller's (a refusal is raised
        as it is); a fallback that cannot take the conversation is passed
        over. With no model left, the last error is raised, carrying the
        earlier ones."""
        while self._tried < len(self._cores):
            core = self._cores[self._tried]
            self._tried += 1
            if self._tried == 1:
                body = self._build(core)
            else:
                logger.warning("trying fallback %d of %d: %s", self._tried - 1,
                               len(self._cores) - 1, core.name)
                try:
                    body = self._build(core)
                except UnsupportedFeatureError as refused:
                    logger.warning("fallback %s cannot take this conversation: %s",
                                   core.name, refused)
                    self._errors.append((core.name, refused))
                    continue
            call = core.call(body, stream=self._stream, now=now,
                             headers=forwarded_to(core, self._forwarded))
            self._calls.append(call)
            return Leg(core, body, call)
        raise self._last()

    def failed(self, leg: Leg, error: StreamError) -> None:
        """``leg``'s attempts ended in ``error``: raise it (carrying the earlier
        errors) when it is not one to fall back on or no model is left, else
        note it for the next :meth:`next`."""
        self._errors.append((leg.core.name, error))
        if self._tried >= len(self._cores) or not falls_back(error, leg.core.policy):
            raise self._last()
        logger.warning("%s failed before its answer (%s: %s); falling back", leg.core.name,
                       type(error).__name__, error)

    def answered(self, leg: Leg) -> None:
        """``leg``'s model answers (its response's status was below 400)."""
        if self._errors:
            logger.info("%s answers, after %s", leg.core.name,
                        ", ".join(f"{name} failed" for name, _ in self._errors))

    def request_timing(self, leg: Leg, monotonic: Callable[[], float]) -> RequestTiming:
        """The answering leg's request timing, preceded by the attempts of the
        models tried before it and the time since the first one's first send."""
        own = leg.call.log.request_timing(monotonic)
        earlier = [call.log for call in self._calls if call is not leg.call]
        if not earlier:
            return own
        started = next((log.first_sent for log in earlier if log.first_sent is not None),
                       own.request_sent)
        first_own = leg.call.log.first_sent
        mine = own.request_sent if first_own is None else first_own
        return own.preceded_by(sum(log.attempts for log in earlier), mine - started)

    def _last(self) -> StreamkitError:
        """The last error, the earlier ones in its ``fallback_errors`` and notes."""
        _, error = self._errors[-1]
        earlier = self._errors[:-1]
        if earlier:
            error.fallback_errors = tuple(before for _, before in earlier)
            for name, before in earlier:
                error.add_note(f"{name} failed before: {type(before).__name__}: {before}")
        return error
