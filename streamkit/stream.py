"""The thin I/O layer: ``streamkit.stream(source)`` -> events, then the final response.

A :class:`Stream` (async sources) or :class:`SyncStream` (sync sources) pulls
one network chunk at a time from its source, feeds the sans-IO
:class:`~streamkit.pipeline.Pipeline`, and yields the events that chunk
completed; the last item is the final :class:`~streamkit.response.ChatResponse`.
Nothing is read ahead.

Sources: an ``httpx`` (or ``httpx2``) response opened with ``client.stream(...)``,
any (async) iterator of ``bytes``, or an iterator of httpx-sse
``ServerSentEvent`` s.

Failures never lose what was received: every error is a
:class:`~streamkit.errors.StreamError` whose ``partial`` is the response so
far. A transport that breaks mid-stream is an
:class:`~streamkit.errors.IncompleteStreamError` and the partial is marked
``interrupted``; closing the stream early (``aclose()``, leaving ``async with``,
cancellation) closes the HTTP response at once and marks it the same way.
With ``on_error="return"`` the stream ends with the partial response instead of
raising, and :attr:`Stream.error` holds the error.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Literal, overload

import anyio
import msgspec

from .accumulate import Accumulator
from .blocks import ContentBlock
from .errors import IncompleteStreamError, ProtocolError, ProviderError, StreamError
from .events import BlockDelta, BlockEnd, BlockStart, Event, TextDelta
from .finish import FinishReason
from .pipeline import DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_TOTAL_BYTES, Pipeline
from .providers import Parser
from .response import ChatResponse

if TYPE_CHECKING:
    import httpx

OnError = Literal["raise", "return"]
StreamItem = Event | ChatResponse

_STREAM_TYPES = ("text/event-stream", "application/x-ndjson", "application/jsonl",
                 "application/json-lines", "application/x-jsonlines", "application/stream+json")
_MAX_ERROR_BODY = 1024 * 1024


def _is_transport_error(exc: BaseException) -> bool:
    """A broken connection, from httpx, httpx2, anyio or the OS."""
    if isinstance(exc, (OSError, anyio.BrokenResourceError, anyio.EndOfStream)):
        return True
    return any(
        cls.__name__ in ("TransportError", "StreamError")
        and cls.__module__.split(".")[0] in ("httpx", "httpx2", "httpcore", "httpcore2")
        for cls in type(exc).__mro__
    )


def _is_response(source: Any) -> bool:
    return hasattr(source, "status_code") and hasattr(source, "headers") and (
        hasattr(source, "aiter_bytes") or hasattr(source, "iter_bytes")
    )


def _is_async_response(source: Any) -> bool:
    stream = getattr(source, "stream", None)
    return stream is not None and hasattr(stream, "__aiter__") and not hasattr(stream, "__iter__")


def provider_error_from_body(status: int | None, body: bytes, content_type: str) -> ProviderError:
    """A :class:`ProviderError` from an HTTP error body (JSON when it is JSON)."""
    try:
        payload: Any = msgspec.json.decode(body)
    except msgspec.DecodeError:
        payload = None
    if isinstance(payload, list) and payload and isinstance(payload[0], dict):
        payload = payload[0]  # Gemini wraps errors of non-SSE calls in an array
    error = payload.get("error", payload) if isinstance(payload, dict) else None
    if isinstance(error, dict):
        code = error.get("code")
        message = error.get("message") or str(error)
        error_type = error.get("type") or error.get("status")
        return ProviderError(str(message), status=status, code=None if code is None else str(code),
                             error_type=error_type, raw=payload)
    if isinstance(error, str):
        return ProviderError(error, status=status, raw=payload)
    text = body[:2000].decode("utf-8", "replace")
    return ProviderError(f"HTTP {status}: {text or content_type or 'no body'}", status=status,
                         raw=body)


class _Driver:
    """What both stream flavours share: the pipeline, the end, the errors."""

    def __init__(self, pipeline: Pipeline, on_error: OnError) -> None:
        self.pipeline = pipeline
        self.on_error = on_error
        self.error: StreamError | None = None
        self.finished = False

    def must_read_body(self, response: Any) -> bool:
        """Whether an HTTP response must be read whole as an error body (an error
        status, or JSON / HTML where a stream was expected)."""
        kind = response.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        return (int(response.status_code) >= 400 or kind == "application/json"
                or kind.startswith("text/html"))

    def body_error(self, response: Any, body: bytes) -> StreamError:
        """The error an HTTP response read whole stands for."""
        status = int(response.status_code)
        content_type = response.headers.get("content-type", "")
        error = provider_error_from_body(status, body[:_MAX_ERROR_BODY], content_type)
        if status >= 400 or (isinstance(error.raw, dict) and "error" in error.raw):
            return error
        return ProtocolError(
            f"expected a streamed response, got {content_type!r} (was stream=true requested?)",
            raw=body[:2000],
        )

    def feed(self, item: Any) -> list[Event]:
        """Events of one source item: a network chunk, or an httpx-sse event."""
        if isinstance(item, (bytes, bytearray)):
            return self.pipeline.feed(bytes(item))
        return self.pipeline.feed_payload(item.data, item.event or None)

    def end(self) -> list[Event]:
        """Flush at a clean end of input; the first in-stream provider error
        (if any) is raised now that everything it came with is applied."""
        events = self.pipeline.finish()
        self.finished = True
        for response in self.pipeline.responses:
            response.is_last = True
        if self.pipeline.errors:
            first = self.pipeline.errors[0]
            raise ProviderError(first.message, status=first.status, code=first.code,
                                error_type=first.error_type, raw=first.raw)
        return events

    def interrupt(self) -> None:
        if not self.finished:
            self.pipeline.accumulator.interrupt()

    def fail(self, exc: BaseException) -> StreamError:
        """The error to surface for ``exc``, with the partial response attached."""
        if isinstance(exc, StreamError):
            error = exc
        else:
            error = IncompleteStreamError(
                f"the stream broke after {self.pipeline.bytes_received} bytes: "
                f"{type(exc).__name__}: {exc}"
            )
            error.__cause__ = exc
        if isinstance(error, ProviderError):
            for response in self.pipeline.responses:
                response.finished_reason = response.finished_reason or FinishReason.ERROR
        else:  # the transport broke, or we stopped a malformed or oversized stream
            self.interrupt()
        self.finished = True
        error.partial = self.pipeline.response
        self.error = error
        return error


def _is_answer_text(item: StreamItem, accumulator: Accumulator) -> bool:
    """A text delta of choice 0 that is not a refusal."""
    return (type(item) is BlockDelta and item.choice == 0 and type(item.delta) is TextDelta
            and not getattr(accumulator.block(item.index), "refusal", False))


class _BaseStream:
    """Attributes both stream flavours expose."""

    _driver: _Driver

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
    def provider(self) -> str | None:
        """The provider's name (detected with ``provider="auto"``)."""
        return self._driver.pipeline.provider

    def block(self, event: BlockStart | BlockDelta | BlockEnd) -> ContentBlock:
        """The current state of the block an event belongs to: the stream's own live
        block, read-only for the caller (it keeps growing as the stream goes on;
        ``.copy()`` it to keep a snapshot). No copy is made, so a UI can call this
        after every delta at O(1) cost."""
        return self._driver.pipeline.accumulator.block(event.index, event.choice)


class Stream(_BaseStream):
    """An async stream of events ending in the final :class:`ChatResponse`."""

    def __init__(self, source: Any, driver: _Driver) -> None:
        self._source = source
        self._driver = driver
        self._iterator: AsyncIterator[StreamItem] | None = None

    def __aiter__(self) -> AsyncIterator[StreamItem]:
        if self._iterator is None:
            self._iterator = self._iterate()
        return self._iterator

    async def __anext__(self) -> StreamItem:
        return await self.__aiter__().__anext__()

    async def __aenter__(self) -> Stream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Stop now: close the HTTP response; unfinished responses become interrupted."""
        iterator = self._iterator
        if iterator is not None and hasattr(iterator, "aclose"):
            await iterator.aclose()
        self._driver.interrupt()
        self._driver.finished = True
        await _aclose_source(self._source)

    async def final(self) -> ChatResponse:
        """Drain the stream and return the final response."""
        async for _ in self:
            pass
        return self.response

    @property
    def text_stream(self) -> AsyncIterator[str]:
        """Only the text deltas of choice 0 (refusals excluded), like the SDKs' helper."""
        return self._texts()

    async def _texts(self) -> AsyncIterator[str]:
        async for item in self:
            if _is_answer_text(item, self._driver.pipeline.accumulator):
                yield item.delta.text  # type: ignore[union-attr]

    async def _chunks(self) -> AsyncIterator[Any]:
        source = self._source
        if _is_response(source):
            if self._driver.must_read_body(source):
                raise self._driver.body_error(source, await source.aread())
            async for chunk in source.aiter_bytes():
                yield chunk
        else:
            async for chunk in source:
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
                if not isinstance(exc, StreamError) and not _is_transport_error(exc):
                    raise
                error = driver.fail(exc)
                if driver.on_error == "raise":
                    raise error from (exc if error is not exc else None)
            yield driver.pipeline.response
        finally:  # drained, failed, closed early or cancelled: release the response now
            if not driver.finished:
                driver.interrupt()
                driver.finished = True
            with anyio.CancelScope(shield=True):
                await _aclose_source(self._source)


async def _aclose_source(source: Any) -> None:
    close = getattr(source, "aclose", None)
    if close is not None:
        result = close()
        if inspect.isawaitable(result):
            await result


class SyncStream(_BaseStream):
    """The synchronous twin of :class:`Stream`, for sync sources."""

    def __init__(self, source: Any, driver: _Driver) -> None:
        self._source = source
        self._driver = driver
        self._iterator: Iterator[StreamItem] | None = None

    def __iter__(self) -> Iterator[StreamItem]:
        if self._iterator is None:
            self._iterator = self._iterate()
        return self._iterator

    def __next__(self) -> StreamItem:
        return next(iter(self))

    def __enter__(self) -> SyncStream:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop now: close the HTTP response; unfinished responses become interrupted."""
        iterator = self._iterator
        if iterator is not None and hasattr(iterator, "close"):
            iterator.close()
        self._driver.interrupt()
        self._driver.finished = True
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

    def _chunks(self) -> Iterator[Any]:
        source = self._source
        if _is_response(source):
            if self._driver.must_read_body(source):
                raise self._driver.body_error(source, source.read())
            yield from source.iter_bytes()
        else:
            yield from source

    def _iterate(self) -> Iterator[StreamItem]:
        driver = self._driver
        try:
            try:
                for chunk in self._chunks():
                    yield from driver.feed(chunk)
                yield from driver.end()
            except Exception as exc:
                if not isinstance(exc, StreamError) and not _is_transport_error(exc):
                    raise
                error = driver.fail(exc)
                if driver.on_error == "raise":
                    raise error from (exc if error is not exc else None)
            yield driver.pipeline.response
        finally:  # drained, failed or closed early: release the response now
            if not driver.finished:
                driver.interrupt()
                driver.finished = True
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
def stream(
    source: AsyncIterable[Any],
    provider: str | Parser = "auto",
    *,
    on_error: OnError = "raise",
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES,
    think_tags: bool | tuple[str, str] | None = None,
    start_in_thinking: bool = False,
    **parser_options: Any,
) -> Stream: ...


@overload
def stream(
    source: httpx.Response,
    provider: str | Parser = "auto",
    *,
    on_error: OnError = "raise",
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES,
    think_tags: bool | tuple[str, str] | None = None,
    start_in_thinking: bool = False,
    **parser_options: Any,
) -> Stream | SyncStream: ...


@overload
def stream(
    source: Iterable[Any],
    provider: str | Parser = "auto",
    *,
    on_error: OnError = "raise",
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES,
    think_tags: bool | tuple[str, str] | None = None,
    start_in_thinking: bool = False,
    **parser_options: Any,
) -> SyncStream: ...


def stream(
    source: Any,
    provider: str | Parser = "auto",
    *,
    on_error: OnError = "raise",
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES,
    think_tags: bool | tuple[str, str] | None = None,
    start_in_thinking: bool = False,
    **parser_options: Any,
) -> Any:
    """Stream ``source`` as events ending in the final :class:`ChatResponse`.

    Returns a :class:`Stream` for async sources (``async for`` / ``async with``)
    and a :class:`SyncStream` for sync ones (``for`` / ``with``); the overloads
    tell a type checker which, except for an ``httpx.Response``, whose class is
    the same for both clients (narrow it with ``isinstance``). ``provider``
    is a registry name (``"openai"``, ``"anthropic"``, ``"gemini"``,
    ``"deepseek"``...) or ``"auto"``; ``max_event_bytes`` / ``max_total_bytes``
    bound memory against a hostile stream; ``on_error="return"`` ends a broken
    stream with the partial response instead of raising; ``think_tags=True``
    turns inline ``<think>`` text into thinking blocks (see
    :class:`~streamkit.pipeline.Pipeline`).
    """
    pipeline = Pipeline(provider, max_event_bytes=max_event_bytes,
                        max_total_bytes=max_total_bytes, think_tags=think_tags,
                        start_in_thinking=start_in_thinking, **parser_options)
    driver = _Driver(pipeline, on_error)
    if _is_async_source(source):
        return Stream(source, driver)
    return SyncStream(source, driver)
