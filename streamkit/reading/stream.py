"""The thin I/O layer: ``streamkit.stream(source)`` -> events, then the final response.

A :class:`Stream` (async sources) or :class:`SyncStream` (sync sources) pulls
one network chunk at a time from its source, feeds the sans-IO
:class:`~streamkit.reading.pipeline.Pipeline`, and yields the events that chunk
completed; the last item is the final :class:`~streamkit.model.response.ChatResponse`.
Nothing is read ahead.

Sources: an ``httpx`` (or ``httpx2``) response opened with ``client.stream(...)``;
the official OpenAI and Anthropic SDKs' streaming response (``async with
client....with_streaming_response.create(..., stream=True) as response``) or
their ``Stream`` / ``AsyncStream`` (``create(..., stream=True)``), read through
the HTTP response inside them; any (async) iterator of ``bytes``; or an
iterator of httpx-sse ``ServerSentEvent`` s. Anything else is a ``TypeError``
at once, naming what is accepted.

An HTTP error (an error status, or JSON / HTML where a stream was expected) is
read up to :data:`~streamkit.model.limits.MAX_ERROR_BODY_BYTES` (1 MiB), never
further, and becomes a :class:`~streamkit.model.errors.ProviderError` by the same
rule as an error inside a stream (:mod:`streamkit.reading.error_body`, which the client
and the aiohttp source read error bodies with too): the provider's message (at
most 4,096 characters), code and type, also from a JSON body cut at the limit.

Failures never lose what was received: every error is a
:class:`~streamkit.model.errors.StreamError` whose ``partial`` is the response so
far. A transport that breaks mid-stream is an
:class:`~streamkit.model.errors.IncompleteStreamError` and the partial is marked
``interrupted`` (the last event whose data came whole, its line end not, is
read first, as a clean end reads it); closing the stream early (``aclose()``,
leaving ``async with``, cancellation) closes the HTTP response at once and marks it the same way.
With ``on_error="return"`` the stream ends with the partial response instead of
raising, and :attr:`Stream.error` holds the error.
"""

from __future__ import annotations

import inspect
import math
import time
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Generic, TypeVar, Unpack, overload

import anyio

from ..model.accumulate import Accumulator
from ..model.blocks import ContentBlock, ModelT, TextBlock, ThinkingBlock, ToolCallBlock
from ..model.errors import IncompleteStreamError, ProtocolError, ProviderError, StreamError
from ..model.events import (
    BlockDelta,
    BlockEnd,
    BlockStart,
    Event,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
)
from ..model.limits import MAX_ERROR_BODY_BYTES
from ..model.response import ChatResponse
from ..model.timing import ResponseTiming
from ..model.usage import token_counts
from ..providers import Parser
from .error_body import BoundedBody, error_from_body, must_read_body
from .options import ReadKeywords, ReadOptions, read_options
from .pipeline import Pipeline

if TYPE_CHECKING:
    import httpx

StreamItem = Event | ChatResponse

_ACCEPTED = ("an httpx / httpx2 response opened with client.stream(...), an official SDK's "
             "streaming response or Stream, an (async) iterator of bytes chunks, or an iterator "
             "of httpx-sse events")


def _is_transport_error(exc: BaseException) -> bool:
    """A broken connection, from httpx, httpx2, anyio or the OS."""
    if isinstance(exc, (OSError, anyio.BrokenResourceError, anyio.EndOfStream)):
        return True
    return any(
        cls.__name__ in ("TransportError", "StreamError")
        and cls.__module__.split(".")[0] in ("httpx", "httpx2", "httpcore", "httpcore2")
        for cls in type(exc).__mro__
    )


def _is_decoding_error(exc: BaseException) -> bool:
    """A body whose content encoding (gzip, brotli...) does not decode, from httpx
    or httpx2: the bytes that came are not what the server said they were."""
    return any(cls.__name__ == "DecodingError"
               and cls.__module__.split(".")[0] in ("httpx", "httpx2")
               for cls in type(exc).__mro__)


def _is_response(source: Any) -> bool:
    return hasattr(source, "status_code") and hasattr(source, "headers") and (
        hasattr(source, "aiter_bytes") or hasattr(source, "iter_bytes")
    )


def _is_async_response(source: Any) -> bool:
    stream = getattr(source, "stream", None)
    return stream is not None and hasattr(stream, "__aiter__") and not hasattr(stream, "__iter__")


def _unwrap(source: Any) -> Any:
    """The HTTP response inside an official SDK's object: ``http_response`` of a
    streaming / raw response (``with_streaming_response``), ``response`` of a
    ``Stream`` / ``AsyncStream``; the body chunks of an aiohttp response.
    Anything else is returned as it is."""
    for attribute in ("http_response", "response"):
        inner = getattr(source, attribute, None)
        if inner is not None and _is_response(inner) and inner is not source:
            return inner
    if type(source).__module__.startswith("aiohttp."):  # a ClientResponse (the aiohttp extra)
        from .aiohttp_source import aiohttp_chunks

        return aiohttp_chunks(source)
    return source


def _check_source(source: Any) -> None:
    """``TypeError`` naming what is accepted, for a source that cannot be one."""
    kind = type(source).__name__
    if inspect.iscoroutine(source):
        source.close()  # never awaited, by design: no warning about it
    if isinstance(source, (bytes, bytearray, memoryview, str)):
        raise TypeError(f"stream() takes a source of chunks, not one {kind}: pass "
                        f"iter([body]), or use streamkit.replay(body); accepted: {_ACCEPTED}")
    if inspect.isawaitable(source):
        raise TypeError(f"stream() got an awaitable {kind}: await it first (and open a "
                        f"streamed response); accepted: {_ACCEPTED}")
    if _is_response(source):
        if getattr(source, "is_stream_consumed", False) and not getattr(source, "is_closed", True):
            raise TypeError("stream() got an HTTP response whose body is already being read "
                            "(an SDK Stream iterated before?); pass a fresh response")
        return
    if hasattr(source, "__aiter__") or hasattr(source, "__iter__"):
        return
    if hasattr(source, "__aenter__") or hasattr(source, "__enter__"):
        opener = "async with" if hasattr(source, "__aenter__") else "with"
        raise TypeError(f"stream() got a context manager ({kind}): open it first, "
                        f"`{opener} ... as response:` then stream(response); accepted: {_ACCEPTED}")
    raise TypeError(f"stream() cannot read a {kind}; accepted: {_ACCEPTED}")


def _carries_content(events: list[Event]) -> bool:
    """Whether a chunk's events hold the answer's first content: text, thinking,
    tool-call arguments or a tool call (its name is generated output)."""
    for event in events:
        if type(event) is BlockDelta:
            delta = event.delta
            if (type(delta) is TextDelta and delta.text) \
                    or (type(delta) is ThinkingDelta and delta.thinking) \
                    or (type(delta) is ToolInputDelta and delta.partial_json):
                return True
        elif type(event) is BlockStart:
            block = event.block
            if (type(block) is TextBlock and block.text) or type(block) is ToolCallBlock \
                    or (type(block) is ThinkingBlock and (block.thinking or block.redacted)):
                return True
    return False


class _Driver:
    """What both stream flavours share: the pipeline, the end, the errors, and
    the clock (read once per chunk: see :mod:`streamkit.model.timing`)."""

    def __init__(self, pipeline: Pipeline, opened: float | None = None) -> None:
        self.pipeline = pipeline
        self.options = options = pipeline.options
        self.error: StreamError | None = None
        self.finished = False
        self.request_timing = request_timing = options.request_timing
        self.clock = time.monotonic if request_timing is None else request_timing.clock
        self.opened = self.clock() if opened is None else opened
        self.first_byte: float | None = None
        self.first_token: float | None = None
        self.last_byte = -math.inf  # the first chunk's gap is infinite: see feed()
        self.longest_gap = 0.0
        self.gaps: list[float] | None = None

    def must_read_body(self, source: Any) -> bool:
        """Whether the source is an HTTP response to read whole as an error body."""
        return _is_response(source) and must_read_body(
            int(source.status_code), source.headers.get("content-type", ""))

    def error_body(self) -> BoundedBody:
        """Where an error body is read: up to its limit, or the stream's if smaller."""
        return BoundedBody(min(MAX_ERROR_BODY_BYTES, self.pipeline.max_total_bytes))

    def body_error(self, response: Any, body: BoundedBody) -> StreamError:
        """The error an HTTP error response (its body read) stands for."""
        return error_from_body(int(response.status_code),
                               response.headers.get("content-type", ""), body)

    def feed(self, item: Any) -> list[Event]:
        """Events of one source item: a network chunk, or an httpx-sse event.

        The item's arrival is timed with one clock read: a gap longer than any
        before (the first chunk's, from nowhere, is infinite) is rare, so a
        chunk costs a subtraction and a comparison, plus a look at its events
        until the first content has come."""
        now = self.clock()
        gap = now - self.last_byte
        self.last_byte = now
        if gap > self.longest_gap:
            self._longer_gap(now, gap)
        if isinstance(item, (bytes, bytearray, memoryview)):
            events = self.pipeline.feed(bytes(item))
        else:
            events = self._feed_sse_event(item)
        if self.first_token is None and events and _carries_content(events):
            self.first_token = now
        return events

    def feed_keeping_gaps(self, item: Any) -> list[Event]:
        """:meth:`feed`, keeping every gap between two chunks in :attr:`gaps`."""
        before = self.last_byte
        events = _Driver.feed(self, item)
        if before != -math.inf:
            self.gaps.append(self.last_byte - before)  # type: ignore[union-attr]
        return events

    def keep_gaps(self) -> list[float]:
        """From now on keep the gap before every chunk but the first (what a
        telemetry histogram of time per chunk records); the list they go to."""
        self.gaps = []
        self.feed = self.feed_keeping_gaps  # type: ignore[method-assign]
        return self.gaps

    def _longer_gap(self, now: float, gap: float) -> None:
        if self.first_byte is None:
            self.first_byte = now
        else:
            self.longest_gap = gap

    def timing(self) -> ResponseTiming:
        """What the clock said so far, with what the caller said came before."""
        before = self.request_timing
        response = self.pipeline.response
        usage = response.usage
        received = self.first_byte is not None
        return ResponseTiming(
            opened=self.opened,
            request_sent=None if before is None else before.request_sent,
            headers_received=None if before is None else before.headers_received,
            first_byte=self.first_byte, first_token=self.first_token,
            last_byte=self.last_byte if received else None,
            longest_gap=self.longest_gap if received else None,
            output_tokens=None if usage is None else token_counts(usage).output,
            attempts=1 if before is None else before.attempts,
            before_answer=0.0 if before is None else before.before_answer)

    def stamp(self) -> None:
        """Give every response the timing so far (at its end, or as a partial)."""
        timing = self.timing()
        for response in self.pipeline.responses:
            response.timing = timing

    def _feed_sse_event(self, item: Any) -> list[Event]:
        """Events of an httpx-sse event (anything with ``.event`` and ``.data``)."""
        data = getattr(item, "data", None)
        if not isinstance(data, (str, bytes)):
            raise TypeError(f"a stream source must yield bytes (network chunks) or SSE events "
                            f"(with .event and .data), not {type(item).__name__}")
        return self.pipeline.feed_payload(data, getattr(item, "event", None) or None)

    def end(self) -> list[Event]:
        """Flush at a clean end of input; the first in-stream provider error
        (if any) is raised now that everything it came with is applied."""
        events = self.pipeline.finish()
        self.finished = True
        for response in self.pipeline.responses:
            response.is_last = True
        self.stamp()
        if self.pipeline.errors:
            error = ProviderError.from_event(self.pipeline.errors[0])
            error.events = tuple(events)  # the end's events reach the caller before it
            raise error
        return events

    def unseen(self, exc: Exception) -> tuple[Event, ...] | list[Event]:
        """The events applied before ``exc`` that the caller has not seen, taken
        from the error (which then carries none): the stream yields them
        before it raises, so that a UI built from events agrees with the partial.
        A broken transport's are those of the last payload the framing held
        (:meth:`~streamkit.reading.pipeline.Pipeline.broken`)."""
        if not isinstance(exc, StreamError):
            return self.pipeline.broken() if _is_transport_error(exc) else ()
        events, exc.events = exc.events, ()
        return events

    def stop(self) -> None:
        """Closed early, cancelled or failed: an unfinished response becomes
        interrupted, and the stream is over."""
        if not self.finished:
            self.pipeline.accumulator.interrupt()
            self.finished = True
            self.stamp()

    def handle(self, exc: Exception) -> None:
        """End the stream on ``exc`` from its source or the pipeline: its
        :class:`StreamError` is raised (kept, with ``on_error="return"``); an
        exception that is neither a stream error, a broken transport nor a body
        that does not decode is not the stream's, and goes on as it is."""
        if not isinstance(exc, StreamError) and not _is_transport_error(exc) \
                and not _is_decoding_error(exc):
            raise exc
        error = self.fail(exc)
        if self.options.on_error == "raise":
            raise error from (exc if error is not exc else None)

    def fail(self, exc: BaseException) -> StreamError:
        """The error to surface for ``exc``, with the partial response attached
        (see :meth:`~streamkit.reading.pipeline.Pipeline.fail`). A content encoding that
        does not decode is a :class:`ProtocolError` (the connection did not
        break: the bytes broke the format), a broken transport an
        :class:`IncompleteStreamError`."""
        error: StreamError
        if isinstance(exc, StreamError):
            error = exc
        elif _is_decoding_error(exc):
            error = ProtocolError(f"the body's content encoding does not decode after "
                                  f"{self.pipeline.bytes_received} bytes: {exc}")
            error.__cause__ = exc
        else:
            error = IncompleteStreamError(
                f"the stream broke after {self.pipeline.bytes_received} bytes: "
                f"{type(exc).__name__}: {exc}"
            )
            error.__cause__ = exc
        self.stamp()
        if self.finished and not isinstance(error, ProviderError):
            error.partial = self.pipeline.response  # ended already: nothing to mark
        else:
            self.pipeline.fail(error)
        self.finished = True
        self.error = error
        return error


def _is_answer_text(item: StreamItem, accumulator: Accumulator) -> bool:
    """A text delta of choice 0 that is not a refusal."""
    return (type(item) is BlockDelta and item.choice == 0 and type(item.delta) is TextDelta
            and not getattr(accumulator.block(item.index), "refusal", False))


_Items = TypeVar("_Items", AsyncIterator[StreamItem], Iterator[StreamItem])


class _BaseStream(Generic[_Items]):
    """Attributes both stream flavours expose."""

    _iterator: _Items | None = None

    def __init__(self, source: Any, driver: _Driver) -> None:
        self._source = source
        self._driver = driver

    def _items(self) -> _Items:
        """The one iterator of the stream's items, made when first asked for: a
        stream is read once, however many loops pull from it."""
        if self._iterator is None:
            self._iterator = self._iterate()
        return self._iterator

    def _iterate(self) -> _Items:
        raise NotImplementedError

    @property
    def response(self) -> ChatResponse:
        """The live response (choice 0) at this moment; final once the stream ends."""
        return self._driver.pipeline.response

    @property
    def choices(self) -> list[ChatResponse]:
        """Every choice's response (``n > 1`` on OpenAI Chat)."""
        return self._driver.pipeline.responses

    @property
    def error(self) -> StreamError | None:
        """The error that ended the stream, if any (with ``on_error="return"``)."""
        return self._driver.error

    @property
    def options(self) -> ReadOptions:
        """How this stream reads (given whole, or made of the keywords given)."""
        return self._driver.options

    @property
    def provider(self) -> str | None:
        """The provider's name (detected with ``provider="auto"``)."""
        return self._driver.pipeline.provider

    @property
    def timing(self) -> ResponseTiming:
        """When each part of the answer arrived so far (the final value is the
        response's ``timing`` once the stream ends, fails or is closed)."""
        return self._driver.timing()

    def block(self, event: BlockStart | BlockDelta | BlockEnd) -> ContentBlock:
        """The current state of the block an event belongs to: the stream's own live
        block, read-only for the caller (it keeps growing as the stream goes on;
        ``.copy()`` it to keep a snapshot). No copy is made, so a UI can call this
        after every delta at O(1) cost."""
        return self._driver.pipeline.accumulator.block(event.index, event.choice)


class Stream(_BaseStream[AsyncIterator[StreamItem]]):
    """An async stream of events ending in the final :class:`ChatResponse`."""

    def __aiter__(self) -> AsyncIterator[StreamItem]:
        return self._items()

    async def __anext__(self) -> StreamItem:
        return await self._items().__anext__()

    async def __aenter__(self) -> Stream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Stop now: close the HTTP response; unfinished responses become interrupted."""
        iterator = self._iterator
        if iterator is not None and hasattr(iterator, "aclose"):
            await iterator.aclose()
        self._driver.stop()
        await aclose_source(self._source)

    async def final(self) -> ChatResponse:
        """Drain the stream and return the final response."""
        async for _ in self:
            pass
        return self.response

    @property
    def text_stream(self) -> AsyncIterator[str]:
        """Only the text deltas of choice 0 (refusals excluded), like the SDKs' helper."""
        return self._texts()

    def partial_output(self, model: type[ModelT], *,
                       interval: float | None = None) -> AsyncIterator[ModelT]:
        """The structured answer as it streams, as partial ``model`` values.

        Each item is the best-known value so far, validated as the partial
        twin of ``model`` (every field optional, nested models, lists and dicts
        too; strings as far as they came; numbers and literals once complete:
        see :mod:`streamkit.model.structured.partial`), yielded only when it changed. The
        answer is the JSON text (``json_output=model``) or, with no text, the
        arguments of the one tool call (a forced tool); see
        :mod:`streamkit.model.structured.reader`. The last item is the whole ``model``
        (``response.parse(model)``), or the
        :class:`~streamkit.model.errors.StructuredOutputError` naming what is wrong,
        the last partial value in its ``partial_output``. ``interval``
        (seconds) yields at most one partial value per interval, checked as
        items arrive. Reads the stream itself: iterate one or the other.
        """
        from .structured import iterate_async

        return iterate_async(self, model, interval)

    async def _texts(self) -> AsyncIterator[str]:
        async for item in self:
            if _is_answer_text(item, self._driver.pipeline.accumulator):
                yield item.delta.text  # type: ignore[union-attr]

    async def _chunks(self) -> AsyncIterator[Any]:
        source, driver = self._source, self._driver
        if driver.must_read_body(source):  # an error body, read up to its limit
            raise driver.body_error(source, await driver.error_body().aread(source.aiter_bytes()))
        async for chunk in source.aiter_bytes() if _is_response(source) else source:
            yield chunk

    async def _iterate(self) -> AsyncIterator[StreamItem]:
        driver = self._driver
        try:
            try:
                async for chunk in self._chunks():
                    for event in driver.feed(chunk):
                        yield event
                for event in driver.end():
                    yield event
            except Exception as exc:
                for event in driver.unseen(exc):
                    yield event
                driver.handle(exc)
            yield driver.pipeline.response
        finally:  # drained, failed, closed early or cancelled: release the response now
            driver.stop()
            with anyio.CancelScope(shield=True):
                await aclose_source(self._source)


async def aclose_source(source: Any) -> None:
    """Close a stream (and its HTTP response) or an async generator, if it can be
    (``aclose`` may be a coroutine or a plain call)."""
    close = getattr(source, "aclose", None)
    if close is not None:
        result = close()
        if inspect.isawaitable(result):
            await result


class SyncStream(_BaseStream[Iterator[StreamItem]]):
    """The synchronous twin of :class:`Stream`, for sync sources."""

    def __iter__(self) -> Iterator[StreamItem]:
        return self._items()

    def __next__(self) -> StreamItem:
        return next(self._items())

    def __enter__(self) -> SyncStream:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop now: close the HTTP response; unfinished responses become interrupted."""
        iterator = self._iterator
        if iterator is not None and hasattr(iterator, "close"):
            iterator.close()
        self._driver.stop()
        _close_source(self._source)

    def final(self) -> ChatResponse:
        """Drain the stream and return the final response."""
        for _ in self:
            pass
        return self.response

    @property
    def text_stream(self) -> Iterator[str]:
        """Only the text deltas of choice 0 (refusals excluded)."""
        for item in self:
            if _is_answer_text(item, self._driver.pipeline.accumulator):
                yield item.delta.text  # type: ignore[union-attr]

    def partial_output(self, model: type[ModelT], *,
                       interval: float | None = None) -> Iterator[ModelT]:
        """The structured answer as it streams, as partial ``model`` values
        (see :meth:`Stream.partial_output`)."""
        from .structured import iterate_sync

        return iterate_sync(self, model, interval)

    def _chunks(self) -> Iterator[Any]:
        source, driver = self._source, self._driver
        if driver.must_read_body(source):  # an error body, read up to its limit
            raise driver.body_error(source, driver.error_body().read(source.iter_bytes()))
        yield from source.iter_bytes() if _is_response(source) else source

    def _iterate(self) -> Iterator[StreamItem]:
        driver = self._driver
        try:
            try:
                for chunk in self._chunks():
                    yield from driver.feed(chunk)
                yield from driver.end()
            except Exception as exc:
                yield from driver.unseen(exc)
                driver.handle(exc)
            yield driver.pipeline.response
        finally:  # drained, failed or closed early: release the response now
            driver.stop()
            _close_source(self._source)


def _close_source(source: Any) -> None:
    close = getattr(source, "close", None)
    if close is not None:
        close()


def _is_async_source(source: Any) -> bool:
    if _is_response(source):
        return _is_async_response(source)
    return hasattr(source, "__aiter__")


@overload
def stream(source: AsyncIterable[Any], provider: str | Parser = "auto", *,
           options: ReadOptions | None = None, **keywords: Unpack[ReadKeywords]) -> Stream: ...


@overload
def stream(source: httpx.Response, provider: str | Parser = "auto", *,
           options: ReadOptions | None = None,
           **keywords: Unpack[ReadKeywords]) -> Stream | SyncStream: ...


@overload
def stream(source: Iterable[Any], provider: str | Parser = "auto", *,
           options: ReadOptions | None = None, **keywords: Unpack[ReadKeywords]) -> SyncStream: ...


def stream(source: Any, provider: str | Parser = "auto", *, options: ReadOptions | None = None,
           **keywords: Unpack[ReadKeywords]) -> Any:
    """Stream ``source`` as events ending in the final :class:`ChatResponse`.

    ``source`` is an ``httpx`` / ``httpx2`` response opened with
    ``client.stream(...)``, an official SDK's streaming response or
    ``Stream`` / ``AsyncStream`` (read through its HTTP response), an (async)
    iterator of ``bytes``, or an iterator of httpx-sse events; anything else
    raises ``TypeError`` naming these.

    Returns a :class:`Stream` for async sources (``async for`` / ``async with``)
    and a :class:`SyncStream` for sync ones (``for`` / ``with``); the overloads
    tell a type checker which, except for an ``httpx.Response``, whose class is
    the same for both clients (narrow it with ``isinstance``). ``provider``
    is a registry name (``"openai"``, ``"anthropic"``, ``"gemini"``,
    ``"deepseek"``...) or ``"auto"``. How it reads is a
    :class:`~streamkit.reading.options.ReadOptions`, given whole
    (``options=``) or as its fields' keywords: ``max_event_bytes`` /
    ``max_total_bytes`` bound memory against a hostile stream;
    ``on_error="return"`` ends a broken stream with the partial response
    instead of raising; ``think_tags=True`` turns inline ``<think>`` text into
    thinking blocks (see :class:`~streamkit.reading.pipeline.Pipeline`);
    ``request_timing`` says when the request was sent and what the call tried
    before (the client gives it); the stream times the body itself
    (``events.timing``, then ``response.timing``: see
    :mod:`streamkit.model.timing`).
    """
    options = read_options(options, keywords)
    timing = options.request_timing
    opened = (time.monotonic if timing is None else timing.clock)()
    source = _unwrap(source)
    _check_source(source)
    driver = _Driver(Pipeline(provider, options=options), opened)
    if _is_async_source(source):
        return Stream(source, driver)
    return SyncStream(source, driver)


def keep_chunk_gaps(events: Stream | SyncStream) -> list[float]:
    """The list into which ``events`` will put the gap before each chunk after
    the first, from now on (for a histogram of time per chunk); nothing is kept
    per chunk unless this is called."""
    return events._driver.keep_gaps()
