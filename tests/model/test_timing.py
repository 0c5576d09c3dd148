"""response.timing: what the stream's clock said, exactly on a clock the test
drives, and within generous bounds over real sockets against a server that
delays its first chunk and stalls once mid-stream (machines here are noisy:
lower bounds are the server's sleeps less a margin, upper bounds are loose)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from support.recordings import FIXTURES, body

import streamkit
from streamkit import ChatResponse, IncompleteStreamError, ProviderError
from streamkit.model.timing import RequestTiming, ResponseTiming
from streamkit.reading.stream import keep_chunk_gaps
from streamkit.testing import ReplayServer

ANTHROPIC_TEXT = FIXTURES / "anthropic" / "text-basic.sse"
FIRST = 0.6  # the server's silence between the headers and the first byte
STALL = 0.5  # its silence mid-stream, between the first and second text delta
MARGIN = 0.1  # what a busy client may lose of a sleep by reading a chunk late


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Clock:
    """A monotonic clock the test sets: the stream reads it once per chunk."""

    def __init__(self, now: float = 100.0) -> None:
        self.now = now
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        return self.now


def reads_at(clock: Clock, reads: list[tuple[float, bytes]]) -> Iterator[bytes]:
    """Each read handed over when the clock says its time."""
    for at, data in reads:
        clock.now = at
        yield data


def events(path: Path) -> list[bytes]:
    """A recording's SSE events, one read each."""
    return [part + b"\n\n" for part in body(path).split(b"\n\n") if part.strip()]


def test_every_time_on_a_clock_the_test_drives() -> None:
    reads = events(ANTHROPIC_TEXT)  # start, block start, ping, 3 text deltas, stop, delta, stop
    times = [101.0, 101.5, 101.75, 102.0, 102.25, 104.5, 104.625, 104.75, 104.875]
    clock = Clock()
    timing = RequestTiming(request_sent=99.0, headers_received=100.0, attempts=3,
                           before_answer=7.5, clock=clock)
    stream = streamkit.stream(reads_at(clock, list(zip(times, reads, strict=True))),
                              "anthropic", request_timing=timing)
    final = stream.final()
    assert final.timing == ResponseTiming(
        opened=100.0, request_sent=99.0, headers_received=100.0, first_byte=101.0,
        first_token=102.0, last_byte=104.875, longest_gap=2.25, output_tokens=6, attempts=3,
        before_answer=7.5)
    assert clock.reads == 1 + len(reads)  # opened, then one read per chunk
    assert final.timing.time_to_first_byte == 2.0
    assert final.timing.time_to_first_token == 3.0
    assert final.timing.duration == 5.875
    assert final.timing.time_per_output_token == 2.875 / 5  # after the first of 6 tokens
    assert final.timing.output_tokens_per_second == pytest.approx(5 / 2.875)


def test_without_a_request_timing_durations_count_from_the_stream_opening() -> None:
    clock = Clock(50.0)
    reads = events(ANTHROPIC_TEXT)
    stream = streamkit.stream(reads_at(clock, [(51.0 + i, r) for i, r in enumerate(reads)]),
                              "anthropic", request_timing=RequestTiming(
                                  request_sent=50.0, clock=clock))
    timing = stream.final().timing
    assert timing is not None and timing.first_token == 54.0  # the fourth read: "Hello"
    plain = streamkit.stream(iter(reads), "anthropic").final().timing
    assert plain is not None and plain.request_sent is None and plain.attempts == 1
    assert plain.start == plain.opened and plain.time_to_first_token is not None
    assert 0 <= plain.time_to_first_token < 5


@pytest.mark.parametrize(("path", "provider", "content_read"), [
    # the first read with content: a thinking delta, a tool call's start, a Gemini thought part
    ("anthropic/thinking-signature.sse", "anthropic", b'"thinking_delta"'),
    ("anthropic/tool-use.sse", "anthropic", b'"text_delta"'),
    ("openai-chat/tool-call-single.sse", "openai", b'"tool_calls"'),
    ("gemini/thinking-thought-parts.sse", "gemini", b'"thought": true'),
])
def test_the_first_token_is_the_first_read_with_content(path: str, provider: str,
                                                        content_read: bytes) -> None:
    reads = events(FIXTURES / path)
    expected = next(i for i, read in enumerate(reads) if content_read in read)
    clock = Clock(0.0)
    stream = streamkit.stream(reads_at(clock, [(float(i), r) for i, r in enumerate(reads)]),
                              provider, request_timing=RequestTiming(0.0, clock=clock))
    timing = stream.final().timing
    assert timing is not None and timing.first_token == float(expected)


def test_gemini_output_tokens_count_the_thoughts_google_bills_as_output() -> None:
    final = streamkit.stream(iter(events(FIXTURES / "gemini/thinking-thought-parts.sse")),
                             "gemini").final()
    assert final.usage is not None and final.usage.output_tokens == 469
    assert final.usage.reasoning_tokens == 787
    assert final.timing is not None and final.timing.output_tokens == 469 + 787


def test_kept_gaps_are_every_gap_after_the_first_chunk() -> None:
    clock = Clock()
    reads = events(ANTHROPIC_TEXT)[:4]
    stream = streamkit.stream(reads_at(clock, list(zip([1.0, 1.25, 3.0, 3.5], reads,
                                                       strict=True))),
                              "anthropic", request_timing=RequestTiming(0.0, clock=clock))
    gaps = keep_chunk_gaps(stream)
    stream.final()
    assert gaps == [0.25, 1.75, 0.5]


def test_a_response_built_by_hand_has_no_timing_and_timing_is_not_content() -> None:
    assert ChatResponse().timing is None
    streamed = streamkit.stream(iter(events(ANTHROPIC_TEXT)), "anthropic").final()
    assert streamed.timing is not None
    assert "timing" not in streamed.to_dict()
    copy = ChatResponse.from_dict(streamed.to_dict())
    assert copy.timing is None and copy == streamed


def test_a_stream_that_breaks_keeps_its_timing_on_the_partial() -> None:
    clock = Clock()
    reads = events(ANTHROPIC_TEXT)[:5]

    def broken() -> Iterator[bytes]:
        yield from reads_at(clock, [(1.0 + i, r) for i, r in enumerate(reads)])
        raise httpx.ReadError("connection reset")

    with pytest.raises(IncompleteStreamError) as caught:
        streamkit.stream(broken(), "anthropic",
                         request_timing=RequestTiming(0.5, clock=clock)).final()
    assert caught.value.partial is not None
    timing = caught.value.partial.timing
    assert timing is not None
    assert (timing.first_byte, timing.first_token, timing.last_byte) == (1.0, 4.0, 5.0)


def test_closing_early_stamps_what_came() -> None:
    stream = streamkit.stream(iter(events(ANTHROPIC_TEXT)), "anthropic")
    for item in stream:
        if isinstance(item, streamkit.BlockDelta):
            break
    stream.close()
    assert stream.response.timing is not None
    assert stream.response.timing.first_token is not None


# ---------------------------------------------------------------- real sockets


def pauses_for(raw: bytes) -> dict[int, float]:
    """One-byte writes: silence before the first byte, and before the second text delta."""
    first_delta = raw.index(b"event: content_block_delta")
    second_delta = raw.index(b"event: content_block_delta", first_delta + 1)
    return {0: FIRST, second_delta: STALL}


def check_bounds(timing: ResponseTiming) -> None:
    assert timing.first_byte is not None and timing.first_token is not None
    assert timing.last_byte is not None and timing.longest_gap is not None
    assert timing.first_byte <= timing.first_token <= timing.last_byte
    # the stall is the longest gap; the wait for the first byte is not a gap
    assert STALL - MARGIN <= timing.longest_gap < FIRST + STALL
    # the first token came before the stall, the last byte after it
    assert timing.first_token - timing.first_byte < STALL
    assert timing.last_byte - timing.first_token >= STALL - MARGIN
    assert timing.duration is not None and timing.duration < 30


@pytest.mark.anyio
async def test_a_delayed_first_chunk_and_a_stall_over_real_http() -> None:
    raw = body(ANTHROPIC_TEXT)
    streamkit.stream(iter([raw]), "anthropic").final()  # the parser's imports, out of the timing
    async with ReplayServer() as server:
        server.add("/v1/messages", raw, chunk_size=1, pauses=pauses_for(raw))
        async with httpx.AsyncClient() as client, \
                client.stream("POST", server.url + "/v1/messages") as http:
            stream = streamkit.stream(http, "anthropic")
            assert isinstance(stream, streamkit.Stream)
            final = await stream.final()
    assert final.timing is not None
    check_bounds(final.timing)
    assert final.timing.time_to_first_byte is not None
    assert final.timing.time_to_first_byte >= FIRST - MARGIN  # opened at the headers


def test_the_sync_stream_times_the_same_way() -> None:
    raw = body(ANTHROPIC_TEXT)
    streamkit.stream(iter([raw]), "anthropic").final()
    with ReplayServer.in_thread() as server:
        server.add("/v1/messages", raw, chunk_size=1, pauses=pauses_for(raw))
        with httpx.Client() as client, client.stream("POST", server.url + "/v1/messages") as http:
            stream = streamkit.stream(http, "anthropic")
            assert isinstance(stream, streamkit.SyncStream)
            final = stream.final()
    assert final.timing is not None
    check_bounds(final.timing)


@pytest.mark.anyio
async def test_an_error_status_has_a_timing_without_bytes() -> None:
    async with ReplayServer() as server:
        server.add("/v1/messages", b'{"error": {"message": "overloaded"}}', status=529,
                   content_type="application/json")
        async with httpx.AsyncClient() as client, \
                client.stream("POST", server.url + "/v1/messages") as http:
            stream = streamkit.stream(http, "anthropic")
            assert isinstance(stream, streamkit.Stream)
            with pytest.raises(ProviderError) as caught:
                await stream.final()
    assert caught.value.partial is not None
    timing = caught.value.partial.timing
    assert timing is not None and timing.first_byte is None and timing.duration is None


def test_a_fallback_layer_adds_the_attempts_it_made_before() -> None:
    """The seam for fallbacks across providers: the layer that tried others first
    hands the stream a request timing preceded by its own attempts and time."""
    clock = Clock()
    answering = RequestTiming(request_sent=20.0, headers_received=20.5, attempts=2,
                              before_answer=1.5, clock=clock)
    timing = answering.preceded_by(attempts=3, seconds=4.0)
    assert (timing.attempts, timing.before_answer) == (5, 5.5)
    assert (timing.request_sent, timing.headers_received, timing.clock) == (20.0, 20.5, clock)
    reads = events(ANTHROPIC_TEXT)
    final = streamkit.stream(reads_at(clock, [(21.0 + i, r) for i, r in enumerate(reads)]),
                             "anthropic", request_timing=timing).final()
    assert final.timing is not None
    assert (final.timing.attempts, final.timing.before_answer) == (5, 5.5)
    assert final.timing.time_to_first_token == 4.0  # from the answering attempt's send


def test_the_stream_says_its_timing_while_it_goes() -> None:
    clock = Clock()
    reads = events(ANTHROPIC_TEXT)
    stream = streamkit.stream(reads_at(clock, [(1.0 + i, r) for i, r in enumerate(reads)]),
                              "anthropic", request_timing=RequestTiming(0.0, clock=clock))
    seen = []
    for item in stream:
        if isinstance(item, streamkit.BlockDelta):
            seen.append((stream.timing.first_byte, stream.timing.first_token,
                         stream.timing.last_byte))
    assert seen[0] == (1.0, 4.0, 4.0) and seen[-1] == (1.0, 4.0, 6.0)
    assert stream.response.timing == stream.timing  # the end's value, once ended
