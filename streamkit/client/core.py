"""One model's call, without I/O: what it sends, its attempts, its answer, its usage.

:class:`ClientCore` is one of a client's models (its own, or a fallback): the
registry entry with the caller's overrides, the key, the base URL, the retry
policy and the timeouts. It builds what a call sends (:meth:`ClientCore.body`,
:meth:`ClientCore.call`) and runs its parts as generators of steps
(:mod:`streamkit.client.steps`), which a shell performs:

- :meth:`ClientCore.attempts`: the retry loop, attempt after attempt until one
  gets a response whose status is below 300 (a redirect is no answer: it is
  not followed, and is a :class:`~streamkit.model.errors.ProtocolError`);
- :meth:`ClientCore.answer`: a non-streamed answer, its whole body read and parsed;
- :meth:`ClientCore.events`: a streamed answer's events, read by
  :func:`streamkit.stream` from the source the shell opened.

It decides whether an attempt worked, the error it stands for (a
:class:`~streamkit.model.errors.ProviderError` with the headers a caller needs,
or a :class:`~streamkit.model.errors.NoResponseError` when nothing came), whether
to try again and after how long (:mod:`streamkit.client.retry`, within the total
timeout), what each attempt is reported as (:mod:`streamkit.client.attempts`),
and counts usage and costs. The whole call across a client's models (the
fallbacks, telemetry) is :mod:`streamkit.client.orchestration`'s.

httpx appears here only as values (a response's status and headers, its
exception classes, ``httpx.Timeout``); every read, write and sleep is the
shell's.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Callable, Generator, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import httpx
import msgspec

from ..conversation.messages import Message
from ..conversation.request import JsonOutput, Request, ToolChoice
from ..conversation.tools import Tool
from ..conversation.workbench import ListedTool
from ..model.cost import CostTotals
from ..model.errors import LimitExceeded, ProviderConfigError, StreamError
from ..model.finish import FinishReason
from ..model.limits import DEFAULT_MAX_TOTAL_BYTES, MAX_ERROR_BODY_BYTES
from ..model.response import ChatResponse
from ..model.timing import RequestTiming, ResponseTiming
from ..model.usage import token_counts
from ..model.vendors import ModelInfo
from ..observability.calls import observe_call
from ..observability.observer import CallObserver
from ..providers import Parser, get_parser
from ..providers.codec import build_request
from ..providers.wire_format import WireFormat, wire_format
from ..reading.error_body import BoundedBody
from ..reading.options import ReadOptions
from ..reading.stream import Stream, SyncStream, stream
from .answers import (
    broken_body,
    kept_headers,
    partial_answer,
    provider_error,
    redirected,
    whole_answer,
)
from .attempts import RETRYABLE_TRANSPORT_ERRORS, Attempt, no_response, report
from .auth import key_auth, key_in, resolve_key
from .endpoint import environment, fill_base_url, resolve_model, with_overrides
from .keys import ApiKey
from .redacting import redact_blocks, redacting
from .retry import RetryPolicy, SyncTiming, Timing
from .steps import Call, Close, Read, Send, Step, Wait
from .timeouts import Timeouts, timeouts_of
from .totals import UsageTotals

__all__ = ["ClientCore", "Clock", "Tools", "body_bytes"]

_ENCODE = msgspec.json.encode

_NO_HEADERS: Mapping[str, str] = MappingProxyType({})

#: What a request body is built with: tools, functions and raw tool dicts
#: (a client's workbenches are listed first).
Tools = Sequence[ListedTool]

#: Where the core reads the time from (its ``sleep`` is the shell's to call).
Clock = Timing | SyncTiming


def body_bytes(body: dict[str, Any]) -> bytes:
    """A request body as the JSON bytes sent. msgspec writes UTF-8, which cannot
    carry a lone surrogate (a conversation read from a body that held
    ``"\\ud800"`` keeps it, see :func:`streamkit.parse_request`); such a body is
    written with the surrogate as the same escape, which is JSON, by Python's
    encoder (every non-ASCII character escaped: still the same text)."""
    try:
        return _ENCODE(body)
    except UnicodeEncodeError:
        return json.dumps(body, separators=(",", ":")).encode("ascii")


class ClientCore:
    """One of a client's models, without I/O: the entry, the key, the request
    to send, the attempts of a call (a generator of steps), the usage totals."""

    def __init__(self, model: str, api_key: ApiKey | None, base_url: str | None, *,
                 timeout: float | Timeouts | None, max_retries: int, retry: RetryPolicy | None,
                 model_info: ModelInfo | None, on_attempt: Callable[[Attempt], None] | None,
                 environ: Mapping[str, str] | None, overrides: dict[str, Any],
                 max_body_bytes: int = DEFAULT_MAX_TOTAL_BYTES, fallback: int = 0) -> None:
        entry, self.model = resolve_model(model, base_url=base_url)
        self.fallback = fallback
        """0 for a client's own model, n for its n-th fallback."""
        self.entry = with_overrides(entry, overrides)
        template = base_url if base_url is not None else self.entry.base_url
        if template is None:
            raise ProviderConfigError(f"{self.entry.title} has no default base URL: pass base_url=",
                                      setting="base_url", provider=self.entry.name)
        # the environment (every secret of the process) is held by no local of a frame that raises
        self.base_url = fill_base_url(template, environment(environ),
                                      provider=self.entry.name).rstrip("/")
        self.secret = resolve_key(self.entry, api_key,
                                  key_in(environment(environ), self.entry.env_keys))
        self._key_auth = key_auth(self.entry, self.secret)
        self.wire: WireFormat = wire_format(self.entry.wire)
        self.timeouts = timeouts_of(timeout)
        self.policy = retry if retry is not None else RetryPolicy(max_retries=max_retries)
        self.model_info = self.entry.model_info.merged(model_info)
        self.on_attempt = on_attempt
        self.max_body_bytes = max_body_bytes
        self.usage = UsageTotals()
        self.costs = CostTotals()

    def share_totals(self, other: ClientCore) -> None:
        """Count usage and costs into ``other``'s totals (a client's fallbacks
        add to the client's own)."""
        self.usage = other.usage
        self.costs = other.costs

    @property
    def name(self) -> str:
        """``provider:model``, as a client is given it."""
        return f"{self.entry.name}:{self.model}"

    def __repr__(self) -> str:
        key = "no key" if self.secret is None else f"key from {self.secret.source}"
        return f"{self.entry.name}:{self.model!r} at {self.base_url} ({key})"

    # ------------------------------------------------------------ building

    def url(self, *, stream: bool) -> str:
        """Where the wire package says the call goes, with the entry's query."""
        return self.with_query(self.wire.endpoint(self.base_url, self.model, stream=stream,
                                                  dialect=self.entry.dialect))

    def with_query(self, endpoint: str) -> str:
        """``endpoint`` with the entry's query (Azure's ``api-version``)."""
        if not self.entry.query:
            return endpoint
        return str(httpx.URL(endpoint).copy_merge_params(dict(self.entry.query)))

    def body(self, messages: Sequence[Message] | Request, *, stream: bool,
             tools: Tools | None, tool_choice: ToolChoice | Tool | None,
             json_output: JsonOutput | None, options: dict[str, Any],
             model: str | None = None, headers: Mapping[str, str] = _NO_HEADERS,
             ) -> dict[str, Any]:
        """The request body for the conversation, by the wire's encoder, for
        ``model`` (this client's when not given), fitting the API version the
        headers sent with it say (the entry's, then ``headers``)."""
        merged = {**self.entry.options, **options} if self.entry.options else dict(options)
        if stream and self.entry.stream_usage:
            merged.setdefault("include_usage", True)  # usage totals need it (OpenAI Chat)
        messages = self._for_version(messages, merged, headers)
        model = (model or self.model) if self.wire.model_in_body else None
        return build_request(self.entry.name, messages, model=model, tools=tools,
                             tool_choice=tool_choice, json_output=json_output, stream=stream,
                             **merged)

    def api_version(self, headers: Mapping[str, str] = _NO_HEADERS) -> str | None:
        """The API version the calls are for: the value of the wire's version
        header this client sends (Anthropic's ``anthropic-version``, from the
        registry or the client's ``headers=``, or a call's own ``headers``,
        which win); ``None`` where there is none."""
        header = self.wire.version_header
        if header is None:
            return None
        sent = {name.lower(): value for name, value in {**self.entry.headers, **headers}.items()}
        return sent.get(header.lower())

    def _for_version(self, messages: Sequence[Message] | Request, options: dict[str, Any],
                     headers: Mapping[str, str]) -> Sequence[Message] | Request:
        """Give the builder the version the header says (``api_version``, in
        ``options`` or in the request's own), so the body fits what is sent; a
        call asking for another version than the header is refused."""
        version = self.api_version(headers)
        if version is None:
            return messages
        held = messages.options if isinstance(messages, Request) else options
        asked = held.get("api_version")
        if asked is not None and asked != version:
            raise ProviderConfigError(
                f"api_version={asked!r}, but this client sends {self.wire.version_header}: "
                f"{version}; pass headers={{{self.wire.version_header!r}: {asked!r}}} "
                f"to the client for that version")
        if not isinstance(messages, Request):
            options["api_version"] = version
            return messages
        kept = copy.copy(messages.options)  # an Extras keeps its origin
        kept["api_version"] = version
        return dataclasses.replace(messages, options=kept)

    def call(self, body: dict[str, Any], *, stream: bool, now: float,
             headers: Mapping[str, str] = _NO_HEADERS, url: str | None = None) -> Call:
        """What every attempt of one call started ``now`` (monotonic) sends:
        the entry's headers, then the call's own (a caller's, forwarded by a
        gateway: :mod:`streamkit.client.forwarding`), to ``url`` (the wire's
        endpoint when not given)."""
        own = {name: value for name, value in self.entry.headers.items()
               if name.lower() not in headers}  # a call's header replaces the entry's
        sent = {"content-type": "application/json", **own, **headers}
        total = self.timeouts.total if self.timeouts is not None else None
        return Call(url or self.url(stream=stream), body_bytes(body), sent,
                    None if total is None else now + total, self._key_auth)

    def attempt_timeout(self, deadline: float | None, now: float) -> httpx.Timeout | Any:
        """httpx's timeouts for one attempt (the http client's own when none were set)."""
        if self.timeouts is None:
            return httpx.USE_CLIENT_DEFAULT
        return self.timeouts.for_attempt(None if deadline is None else max(deadline - now, 0.0))

    # ------------------------------------------------------------ a call

    def attempts(self, call: Call, clock: Clock) -> Generator[Step, Any, httpx.Response]:
        """The retry loop: attempt after attempt until one gets a response with a
        status below 300, returned with its body unread (a 3xx is
        :func:`~streamkit.client.answers.redirected`'s error, not retried). An error status's body
        is read for its message; a failure before any response is a
        :class:`~streamkit.model.errors.NoResponseError`. Whether to try again, and
        after how long, is :meth:`next_delay`'s; the last error is raised when
        there is no next attempt."""
        number = 0
        headers: Mapping[str, str]
        while True:
            number += 1
            sent = clock.monotonic()
            call.log.sending(sent)
            outcome = yield Send(call, self.attempt_timeout(call.deadline, sent))
            if isinstance(outcome, httpx.Response):
                call.log.answered(clock.monotonic())
            if isinstance(outcome, httpx.Response) and 300 <= outcome.status_code < 400:
                moved = redirected(self.entry.name, outcome, self.secret)
                self.report(number, call, outcome.status_code, moved, None,
                            kept_headers(outcome.headers, self.secret))
                call.log.failed(outcome.status_code, moved, None)
                yield Close(outcome)
                raise moved
            if isinstance(outcome, httpx.Response) and outcome.status_code < 400:
                self.report(number, call, outcome.status_code, None, None,
                            kept_headers(outcome.headers, self.secret))
                return outcome
            if isinstance(outcome, httpx.Response):
                body = BoundedBody(MAX_ERROR_BODY_BYTES)
                # cut short: read as far as it came
                failure = yield Read(outcome, body, call.deadline, self.secret)
                status, headers = outcome.status_code, kept_headers(outcome.headers, self.secret)
                error: StreamError = provider_error(self.entry.name, outcome, body, self.secret,
                                                    cut=failure is not None)
                delay = self.next_delay(number, status, headers, call.deadline, clock)
            else:
                status, headers = None, _NO_HEADERS
                error = no_response(self.entry.name, call.url, outcome)
                delay = self.next_delay(number, None, headers, call.deadline, clock) \
                    if isinstance(outcome, RETRYABLE_TRANSPORT_ERRORS) else None
            self.report(number, call, status, error, delay, headers)
            call.log.failed(status, error, delay)
            if delay is None:
                raise error
            yield Wait(delay)

    def create(self, call: Call, clock: Clock) -> Generator[Step, Any, ChatResponse]:
        """A non-streamed call to this model alone: :meth:`attempts`, then
        :meth:`answer`."""
        response = yield from self.attempts(call, clock)
        return (yield from self.answer(response, call, clock))

    def answer(self, response: httpx.Response, call: Call, clock: Clock,
               request_timing: RequestTiming | None = None,
               ) -> Generator[Step, Any, ChatResponse]:
        """The answer of a non-streamed call whose attempts gave ``response``: its
        whole body (up to ``max_body_bytes``, never further) parsed by the wire's
        decoder, timed from ``request_timing`` (the call's own log when not
        given; a fallback chain's adds the models tried before), its usage
        counted as an answer handed back whole. Every error carries what the
        body decoded to so far."""
        data = yield from self.whole_body(response, call)
        answer = whole_answer(self.entry.name, self.entry.wire, response, data, self.secret)
        if self.secret is not None:
            redact_blocks(answer, self.secret)
        usage = answer.usage
        output = None if usage is None else token_counts(usage).output
        if request_timing is None:
            request_timing = call.log.request_timing(clock.monotonic)
        answer.timing = ResponseTiming.whole_body(request_timing, clock.monotonic(), output)
        self.record(answer, whole=True)
        return answer

    def whole_body(self, response: httpx.Response, call: Call) -> Generator[Step, Any, bytes]:
        """``response``'s whole body, up to ``max_body_bytes`` and never further
        (past it, :class:`~streamkit.model.errors.LimitExceeded`); a body cut
        short is :func:`~streamkit.client.answers.broken_body`'s error. Each
        carries what the body decoded to."""
        body = BoundedBody(self.max_body_bytes)
        failure = yield Read(response, body, call.deadline, self.secret)
        if body.over_limit:
            raise LimitExceeded(f"the response body is larger than max_body_bytes={body.limit}",
                                limit="max_body_bytes", value=body.limit, observed=body.limit + 1,
                                partial=partial_answer(self.entry.name, body.data))
        if failure is not None:
            raise broken_body(self.entry.name, failure, body.data) from failure
        return body.data

    def events(self, source: Any, options: ReadOptions,
               request_timing: RequestTiming | None = None) -> Stream | SyncStream:
        """The events of a streamed answer, read from ``source`` (the response of
        :meth:`attempts`, as the shell opened it) by the wire's parser as
        ``options`` say, no further than ``max_body_bytes``, timed from
        ``request_timing``."""
        read = dataclasses.replace(options, max_total_bytes=self.max_body_bytes,
                                   request_timing=request_timing)
        parser: str | Parser = self.entry.name
        if self.secret is not None and self.secret.redacted:  # a key cut across deltas too
            parser = redacting(get_parser(self.entry.name, **read.parser_options()), self.secret)
        events: Stream | SyncStream = stream(source, parser, options=read)
        return events

    def observer(self, call: Call, body: dict[str, Any], *, stream: bool) -> CallObserver:
        """The telemetry of one call to this model (:mod:`streamkit.observability`;
        nothing when no tracer or meter provider is set)."""
        return observe_call(provider=self.entry.name, model=self.model, url=call.url,
                            body=body, stream=stream)

    # ------------------------------------------------------------ outcomes

    def next_delay(self, attempt: int, status: int | None, headers: Mapping[str, str],
                   deadline: float | None, clock: Clock) -> float | None:
        """The wait before another attempt, or ``None`` to give up (no attempts
        left, not worth it, or past the total timeout)."""
        delay = self.policy.delay(attempt, status, headers, now=clock.now(), rand=clock.random())
        if delay is not None and deadline is not None and clock.monotonic() + delay >= deadline:
            return None
        return delay

    def report(self, attempt: int, call: Call, status: int | None,
               error: StreamError | None, retry_in: float | None,
               headers: Mapping[str, str]) -> None:
        """Tell the ``on_attempt`` callback and the log what one attempt gave."""
        request_id = headers.get("x-request-id") or headers.get("request-id")
        report(Attempt(attempt, self.policy.max_retries + 1, "POST", call.url, status, error,
                       retry_in, request_id, self.entry.name, self.model, self.fallback),
               self.name, self.on_attempt)

    def record(self, response: ChatResponse | None, *, whole: bool) -> None:
        """Count one call's usage (``whole``: its answer was handed back complete)."""
        if response is not None:
            self.usage.add(response.usage, whole=whole)
            if whole:
                self.costs.add(response)

    def record_stream(self, events: Stream | SyncStream) -> None:
        """Count a streamed call's usage, whole when the stream ended normally."""
        response = events.response
        whole = events.error is None and response.is_last \
            and response.finished_reason is not FinishReason.INTERRUPTED
        self.record(response, whole=whole)
