"""A response's body as a shell reads it: before the call's deadline, the key
taken out of every chunk, httpx's errors without their frames' locals.

:class:`AsyncDeadlineBody` bounds each read by what is left of the total
timeout; :class:`SyncDeadlineBody` checks it between reads (the sync client's
own transport keeps each socket operation to it: :mod:`streamkit.client.sync_deadline`).
Either is what :func:`streamkit.stream` reads a streamed answer from, and what
an error body or a non-streamed answer is read through.
"""

from __future__ import annotations

import traceback
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import anyio
import httpx

from .keys import ApiKey

__all__ = ["AsyncDeadlineBody", "DeadlineBody", "SyncDeadlineBody", "forget_locals", "left",
           "total_passed"]


def forget_locals(error: BaseException) -> None:
    """Clear the local variables of the finished frames ``error`` and its causes
    went through: httpx's and httpcore's hold the request's headers (the key) and
    the bytes read (the key, when a server echoes it), which error trackers that
    record locals would keep. Where each frame was is still told."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        traceback.clear_frames(current.__traceback__)
        current = current.__cause__ or current.__context__


def left(deadline: float | None, monotonic: Callable[[], float]) -> float | None:
    """What is left of ``deadline`` (``None``: no deadline)."""
    return None if deadline is None else max(deadline - monotonic(), 0.0)


def total_passed(request: httpx.Request) -> httpx.TimeoutException:
    """The error of an attempt whose total timeout passed before its headers came."""
    return httpx.TimeoutException("the total timeout passed before the response headers",
                                  request=request)


class DeadlineBody:
    """An httpx response as the client reads its body: before a deadline (the
    total timeout: past it, reading raises ``httpx.ReadTimeout``, which the
    stream layer turns into an error carrying the partial response), and with
    the key taken out of every chunk (:class:`~streamkit.client.keys.Redactor`). A
    read's httpx error loses its frames' locals (:func:`forget_locals`)."""

    def __init__(self, response: httpx.Response, deadline: float | None,
                 monotonic: Callable[[], float], key: ApiKey | None) -> None:
        self._response = response
        self._deadline = deadline
        self._monotonic = monotonic
        self._redactor = None if key is None else key.redactor()
        self.status_code = response.status_code
        self.headers = response.headers
        self.stream = response.stream  # says "async" or "sync" to streamkit.stream()

    @classmethod
    def around(cls, response: httpx.Response, deadline: float | None,
               monotonic: Callable[[], float], key: ApiKey | None = None) -> Any:
        """``response`` read within ``deadline``, ``key`` taken out; ``response``
        itself when there is neither."""
        if deadline is None and key is None:
            return response
        return cls(response, deadline, monotonic, key)

    def _passed(self) -> httpx.ReadTimeout:
        return httpx.ReadTimeout("the total timeout passed", request=self._response.request)

    def _redacted(self, chunk: bytes) -> bytes:
        return chunk if self._redactor is None else self._redactor.feed(chunk)

    def _held(self) -> bytes:
        """What the redactor held back, at the end of the body or a break."""
        return b"" if self._redactor is None else self._redactor.flush()


class AsyncDeadlineBody(DeadlineBody):
    """The async body, each read bounded by what is left of the deadline."""

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        chunks = self._response.aiter_bytes().__aiter__()
        while True:
            try:
                with anyio.fail_after(left(self._deadline, self._monotonic)):
                    chunk = self._redacted(await chunks.__anext__())
            except StopAsyncIteration:
                break
            except TimeoutError:
                raise self._passed() from None
            except httpx.HTTPError as error:
                forget_locals(error)
                if held := self._held():
                    yield held
                raise
            if chunk:
                yield chunk
        if held := self._held():
            yield held

    async def aclose(self) -> None:
        await self._response.aclose()


class SyncDeadlineBody(DeadlineBody):
    """The sync body: the client's own transport keeps every read to the
    deadline (:mod:`streamkit.client.sync_deadline`); it is checked between reads too
    (all an http client of the caller's own allows)."""

    def iter_bytes(self) -> Iterator[bytes]:
        chunks = self._response.iter_bytes()
        while True:
            try:
                chunk = self._redacted(next(chunks))
            except StopIteration:
                break
            except httpx.HTTPError as error:
                forget_locals(error)
                if held := self._held():
                    yield held
                raise
            if self._deadline is not None and self._monotonic() >= self._deadline:
                raise self._passed()
            if chunk:
                yield chunk
        if held := self._held():
            yield held

    def close(self) -> None:
        self._response.close()
