"""A fake LLM provider on a real local socket that answers in every wire format.

:class:`FakeProvider` serves scripted :class:`~streamkit.ChatResponse` s (one
per request, in order, or computed by a function of the parsed request) at
each wire's own path at once: ``/v1/chat/completions``, ``/v1/responses``,
``/v1/messages``, Gemini's ``/v1beta/models/{model}:generateContent`` and
``:streamGenerateContent``, Ollama's ``/api/chat``; and the token count
endpoints of the wires that have one (``/v1/messages/count_tokens``,
``/v1/responses/input_tokens``, Gemini's ``:countTokens``), answered with a
deterministic count (:meth:`FakeProvider.count`) without using a scripted
answer. The path says the wire
(:func:`~streamkit.providers.routes.served_call`), the body is read as that
wire's request (:func:`streamkit.parse_request`), and the answer is written by
that wire's encoders (:func:`streamkit.encode_stream`,
:func:`streamkit.encode_response`, :func:`streamkit.encode_error`), so the
official SDKs read it as they read the real API. Nothing here knows a wire
field: a wire gets its fake as soon as it has encoders.

It is a :class:`~streamkit.testing.ReplayServer` whose every path has one
responder (:meth:`~streamkit.testing.ReplayServer.add_responder`): the same
sockets, keep-alive, disconnect detection and thread form.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Self

import anyio.from_thread

from ..conversation.estimate import CHARS_PER_TOKEN, estimate_tokens
from ..conversation.messages import Message
from ..conversation.request import Request
from ..model.errors import (
    InvalidBodyError,
    ProviderConfigError,
    StreamkitError,
    UnsupportedFeatureError,
)
from ..model.events import BlockDelta, Delta, Event, TextDelta, ThinkingDelta, ToolInputDelta
from ..model.finish import FinishReason
from ..model.replay import events_of
from ..model.response import ChatResponse
from ..model.token_count import TokenCount
from ..model.vendors import provider_entry
from ..providers.codec import (
    encode_error,
    encode_response,
    encode_stream,
    encode_token_count,
    parse_count_request,
    parse_request,
)
from ..providers.routes import ServedCall, served_call
from ..providers.wire_format import WIRE_NAMES, wire_format
from .replies import RecordedRequest, Reply
from .server import ReplayServer

__all__ = ["CHARS_PER_TOKEN", "Answer", "FakeProvider", "FakeRequest", "Pacing", "Script"]

Answer = ChatResponse | StreamkitError
"""One scripted answer: a response, or an error answered as the provider's
HTTP error (a :class:`~streamkit.model.errors.ProviderError` keeps its ``status``;
another error is a 500)."""

Script = Sequence[Answer] | Callable[[Request], Answer]
"""The answers: one per request in order, or a function of the parsed request."""

_JSON = "application/json"


@dataclass(frozen=True)
class Pacing:
    """How a streamed answer is sent: each text, reasoning and tool-argument
    delta split into chunks of ``tokens_per_chunk`` tokens (a token is
    :data:`CHARS_PER_TOKEN` characters; the last chunk of a block may be
    shorter), each chunk's bytes written ``delay`` seconds after the previous
    write. Without pacing a block's content is one delta, all in one write."""

    tokens_per_chunk: int = 1
    delay: float = 0.0

    def __post_init__(self) -> None:
        if self.tokens_per_chunk < 1:
            raise ValueError(f"tokens_per_chunk must be >= 1, got {self.tokens_per_chunk}")
        if self.delay < 0:
            raise ValueError(f"delay must be >= 0 seconds, got {self.delay}")

    @property
    def chunk_chars(self) -> int:
        """The characters of one chunk."""
        return self.tokens_per_chunk * CHARS_PER_TOKEN


@dataclass(frozen=True)
class FakeRequest:
    """One request a :class:`FakeProvider` received: ``request`` as its wire's
    reader parsed it (``None`` when it could not be read, ``error`` says why),
    and ``raw`` as it came (path, query, headers with any key redacted, body)."""

    raw: RecordedRequest
    request: Request | None
    wire: str | None
    """The wire its path speaks (``None``: a path no wire serves)."""
    stream: bool = False
    """Whether the answer was a stream (the path's, body's or wire's word)."""
    error: StreamkitError | None = None

    @property
    def path(self) -> str:
        return self.raw.path

    @property
    def headers(self) -> dict[str, str]:
        return self.raw.headers

    @property
    def messages(self) -> list[Message]:
        """The conversation sent (empty when the body could not be read)."""
        return self.request.messages if self.request is not None else []


class FakeProvider:
    """A fake LLM API on 127.0.0.1 that speaks every wire at once.

    ``replies`` is a sequence of answers (:data:`Answer`), one per request in
    order, or a function of the parsed :class:`~streamkit.Request` returning
    one (it runs on the server's event loop). A response with no ``model`` is
    given the request's; one with no finish reason is ``tool_calls`` when it
    holds tool calls, else ``stop``; every scripted stream ends as complete.
    ``pacing`` splits and spaces a streamed answer's deltas (:class:`Pacing`).

    Use as ``async with FakeProvider([...]) as fake:`` or, from synchronous
    code, ``with FakeProvider.in_thread([...]) as fake:``. ``fake.url`` is the
    server; :meth:`base_url` is where a provider's API is under it, what
    :class:`~streamkit.Client` and OpenAI's SDK take as ``base_url``
    (Anthropic's and Google's SDKs add the version path themselves: they take
    ``fake.url``).

    Observed, for the test's asserts:

    * ``requests`` -- every request as a :class:`FakeRequest`; one its wire
      cannot read is answered with that wire's 400 error and kept too.
    * ``errors`` -- what went wrong on the fake's side: a request past the
      last scripted answer, a reply function that raised, an answer its wire
      cannot encode, any other exception while answering. Each is also
      answered as a 500 error in the wire's format naming it, so ``assert not
      fake.errors`` ends a test well.
    """

    def __init__(self, replies: Script, *, pacing: Pacing | None = None,
                 host: str = "127.0.0.1", port: int = 0) -> None:
        if callable(replies):
            self._function: Callable[[Request], Answer] | None = replies
            self._replies: list[Answer] = []
        else:
            self._function = None
            self._replies = list(replies)
            for index, answer in enumerate(self._replies):
                if not isinstance(answer, ChatResponse | StreamkitError):
                    raise TypeError(f"reply {index} must be a ChatResponse or a StreamkitError, "
                                    f"not {type(answer).__name__}")
        self.pacing = pacing
        self.server = ReplayServer(host=host, port=port)
        self.server.add_responder("*", self._respond)
        self.requests: list[FakeRequest] = []
        self.errors: list[Exception] = []
        self._answered = 0

    # --------------------------------------------------------------- lifecycle

    @property
    def url(self) -> str:
        """The server's base URL, e.g. ``http://127.0.0.1:54321`` (no trailing slash)."""
        return self.server.url

    async def __aenter__(self) -> Self:
        await self.server.__aenter__()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> bool | None:
        return await self.server.__aexit__(exc_type, exc, tb)

    def base_url(self, provider: str) -> str:
        """The base URL of ``provider``'s API on this fake (``fake.url`` plus
        its wire's version path: ``/v1``, ``/v1beta``, or none for Ollama), as
        ``Client(f"{provider}:model", base_url=fake.base_url(provider))``
        takes it. A provider whose requests go where no wire is served here
        (Azure's deployment paths) is refused, naming the path."""
        entry = provider_entry(provider)
        wire = wire_format(entry.wire)
        base = self.url + wire.served_base
        posted = wire.endpoint(base, "model", stream=True, dialect=entry.dialect)
        path = posted.removeprefix(self.url).partition("?")[0]
        if served_call(path) is None:
            raise ProviderConfigError(f"FakeProvider serves no wire at {path}, where {provider!r} "
                                 f"posts its requests; use a provider of the {entry.wire} "
                                 f"wire that posts to its own path")
        return base

    @classmethod
    @contextlib.contextmanager
    def in_thread(cls, replies: Script, *, pacing: Pacing | None = None,
                  backend: str = "asyncio") -> Iterator[FakeProvider]:
        """Run a fake on its own event loop in a background thread, for
        synchronous code (the sync clients, plain ``def`` tests); it listens
        as soon as the ``with`` body starts and stops when it ends."""
        fake = cls(replies, pacing=pacing)
        with (anyio.from_thread.start_blocking_portal(backend) as portal,
              portal.wrap_async_context_manager(fake)):
            yield fake

    # ----------------------------------------------------------------- answers

    def _respond(self, raw: RecordedRequest) -> Reply:
        """The reply to one request (:meth:`_reply`); any failure of the fake's
        own while making it is kept in :attr:`errors` and answered as the
        wire's 500 naming it, never left to the server under it (whose
        ``errors`` a test of the fake does not look at)."""
        try:
            return self._reply(raw)
        except Exception as error:
            self.errors.append(error)
            call = served_call(raw.path, raw.query)
            said = StreamkitError(f"the FakeProvider failed to answer {raw.method} {raw.path}: "
                                  f"{type(error).__name__}: {error}")
            if call is None:
                return _json_reply({"error": {"message": str(said)}}, 500)
            return self._error_reply(call, said, 500)

    def _reply(self, raw: RecordedRequest) -> Reply:
        """Read the request as its path's wire, find its answer, write the
        answer in that wire."""
        call = served_call(raw.path, raw.query)
        if call is None:
            error = StreamkitError(f"FakeProvider serves no wire at {raw.method} {raw.path}; "
                                   f"it serves {', '.join(_served_paths())} "
                                   f"(fake.base_url(provider) is a provider's base URL)")
            self.requests.append(FakeRequest(raw, None, None, error=error))
            return _json_reply({"error": {"message": str(error), "type": "not_found"}}, 404)
        if call.count:
            return self._count_reply(call, raw)
        try:
            request = parse_request(call.provider, raw.body)
        except InvalidBodyError as error:
            self.requests.append(FakeRequest(raw, None, call.wire, error=error))
            return self._error_reply(call, error, 400)
        stream = call.streams(request.stream)
        self.requests.append(FakeRequest(raw, request, call.wire, stream))
        answer = self._answer(request, len(self.requests), raw)
        if isinstance(answer, StreamkitError):
            return self._error_reply(call, answer)
        if answer is None:
            return self._error_reply(call, self.errors[-1], 500)
        response = _served(answer, request.model or call.model)
        try:
            return self._stream_reply(call, request, response) if stream else \
                _json_reply(encode_response(call.provider, response))
        except StreamkitError as error:  # the wire has no encoder, or cannot hold the answer
            self.errors.append(error)
            return self._error_reply(call, error, 500)

    @staticmethod
    def count(request: Request) -> int:
        """The token count the fake answers for ``request``: the estimate of
        :func:`streamkit.estimate_tokens` (its text's characters divided by
        :data:`CHARS_PER_TOKEN`, rounded up), the same for every model."""
        return estimate_tokens(request).input_tokens

    def _count_reply(self, call: ServedCall, raw: RecordedRequest) -> Reply:
        """A count request, read as its wire's count body and answered with
        :meth:`count` in the wire's count answer."""
        try:
            request = parse_count_request(call.provider, raw.body)
        except InvalidBodyError as error:
            self.requests.append(FakeRequest(raw, None, call.wire, error=error))
            return self._error_reply(call, error, 400)
        self.requests.append(FakeRequest(raw, request, call.wire))
        return _json_reply(encode_token_count(call.provider, TokenCount(self.count(request))))

    def _answer(self, request: Request, number: int, raw: RecordedRequest) -> Answer | None:
        """The next scripted answer, or ``None`` with the reason in :attr:`errors`."""
        if self._function is not None:
            try:
                answer = self._function(request)
            except Exception as exc:
                self.errors.append(exc)
                return None
            if not isinstance(answer, ChatResponse | StreamkitError):
                self.errors.append(StreamkitError(
                    f"the FakeProvider's reply function must return a ChatResponse or a "
                    f"StreamkitError, not {type(answer).__name__}"))
                return None
            return answer
        if self._answered >= len(self._replies):
            count = len(self._replies)
            self.errors.append(StreamkitError(
                f"FakeProvider's script is used up: it has {count} "
                f"{'reply' if count == 1 else 'replies'} and this is request {number} "
                f"({raw.method} {raw.path})"))
            return None
        self._answered += 1
        return self._replies[self._answered - 1]

    def _error_reply(self, call: ServedCall, error: Exception, status: int | None = None
                     ) -> Reply:
        """``error`` as the wire's HTTP error (a plain JSON error where the wire
        has no error encoder yet)."""
        said = error if isinstance(error, StreamkitError) else \
            f"the FakeProvider's reply function raised {type(error).__name__}: {error}"
        try:
            encoded = encode_error(call.provider, said, status=status)
        except UnsupportedFeatureError:
            return _json_reply({"error": {"message": str(said)}}, status or 500)
        return _json_reply(encoded.body, encoded.status, encoded.content_type)

    def _stream_reply(self, call: ServedCall, request: Request,
                      response: ChatResponse) -> Reply:
        """The answer as the wire's stream bytes, as the request asked (OpenAI
        Chat's usage chunk only when asked for); with pacing, each delta chunk
        starts a write of its own (``delay`` seconds after the one before)."""
        events = list(_paced(events_of(response), self.pacing))
        last: list[Event | None] = [None]

        def source() -> Iterator[Event]:
            for event in events:
                last[0] = event
                yield event

        encoded = encode_stream(call.provider, source(), request=request,
                                **({"array": True} if call.array else {}))
        body = bytearray()
        splits: list[int] = []
        for chunk in encoded:
            if self.pacing is not None and type(last[0]) is BlockDelta and body:
                splits.append(len(body))
            body += chunk
        return Reply(bytes(body), content_type=encoded.content_type, splits=splits,
                     delay=self.pacing.delay if self.pacing is not None else 0.0)


def _served_paths() -> list[str]:
    """Where each wire is served, as its own client posts (a model named MODEL)."""
    wires = (wire_format(name) for name in WIRE_NAMES)
    return [wire.endpoint(wire.served_base, "MODEL", stream=False) for wire in wires]


def _json_reply(body: Any, status: int = 200, content_type: str = _JSON) -> Reply:
    return Reply(json.dumps(body).encode(), status=status, content_type=content_type)


def _served(answer: ChatResponse, model: str | None) -> ChatResponse:
    """A scripted response as it is served: finished, with a model and a
    finish reason (the script's own object is left as it was)."""
    reason = answer.finished_reason or (FinishReason.TOOL_CALLS if answer.tool_calls
                                        else FinishReason.STOP)
    return dataclasses.replace(answer, model=answer.model or model, finished_reason=reason,
                               is_last=True, terminated=True)


def _paced(events: Iterator[Event], pacing: Pacing | None) -> Iterator[Event]:
    """``events`` with each text, reasoning and tool-argument delta split into
    chunks of ``pacing``'s size."""
    for event in events:
        pieces = _split(event.delta, pacing.chunk_chars) \
            if pacing is not None and type(event) is BlockDelta else None
        if pieces is None or type(event) is not BlockDelta:
            yield event
            continue
        for piece in pieces:
            yield BlockDelta(index=event.index, choice=event.choice, delta=piece)


def _split(delta: Delta, size: int) -> list[Delta] | None:
    """A text, reasoning or tool-argument delta as deltas of ``size``
    characters (the last shorter); ``None`` for a delta pacing leaves whole."""
    if type(delta) is TextDelta:
        return [TextDelta(piece) for piece in _pieces(delta.text, size)]
    if type(delta) is ThinkingDelta:
        return [ThinkingDelta(piece) for piece in _pieces(delta.thinking, size)]
    if type(delta) is ToolInputDelta:
        return [ToolInputDelta(piece) for piece in _pieces(delta.partial_json, size)]
    return None


def _pieces(text: str, size: int) -> list[str]:
    return [text[start:start + size] for start in range(0, len(text), size)]
