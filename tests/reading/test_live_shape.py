"""The live shape: one SSE event per network read.

A live stream mostly arrives one event per read, and the pipeline takes a
shortcut for it (``SSEDecoder.feed_one`` -> ``Parser.fast_delta`` ->
``Accumulator.apply_delta``) past the chunk machinery. Whatever the shortcut
takes or leaves, the result must be the one of the whole body in one chunk:
every recording, provider named and ``auto``, fast decoders on and off.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest
from support.comparing import comparable, fresh_ids
from support.recordings import Payload, body, fixture_id, payloads, recordings

from streamkit.framing.sse import SSEDecoder
from streamkit.model.errors import StreamError
from streamkit.model.events import BlockDelta, Event
from streamkit.providers import get_parser, parser_class
from streamkit.reading.pipeline import Pipeline

SSE_RECORDINGS = [path for path in recordings() if body(path).lstrip()[:1] not in (b"{", b"[")]


def detected(path: Path) -> str:
    """The registry name ``auto`` finds for a recording."""
    provider = outcome([body(path)], "auto")["provider"]
    assert isinstance(provider, str), path
    return provider


def has_fast_decode(provider: str) -> bool:
    return "fast_decode" in inspect.signature(parser_class(provider)).parameters


def as_bytes(data: str | bytes) -> bytes:
    return data.encode() if isinstance(data, str) else data


def one_event_per_read(raw: bytes) -> list[bytes]:
    """The body as a live stream usually delivers it."""
    events = raw.split(b"\n\n")
    return [event + b"\n\n" for event in events[:-1]] + ([events[-1]] if events[-1] else [])


def outcome(reads: list[bytes], provider: Any, **options: Any) -> dict[str, Any]:
    """Everything a consumer sees: the events, the response, the error if any."""
    pipeline = Pipeline(provider, **options)
    events: list[Event] = []
    error = None
    with fresh_ids():
        try:
            for read in reads:
                events += pipeline.feed(read)
            events += pipeline.finish()
        except StreamError as exc:
            error = (type(exc).__name__, str(exc))
    return {"events": events, "response": comparable(pipeline.response), "error": error,
            "provider": pipeline.provider}


@pytest.mark.parametrize("fast_decode", [True, False], ids=["fast", "general"])
@pytest.mark.parametrize("path", SSE_RECORDINGS, ids=fixture_id)
def test_one_event_per_read_gives_what_the_whole_body_gives(path: Path, fast_decode: bool) -> None:
    raw = body(path)
    whole = outcome([raw], "auto")
    provider = detected(path)
    options = {"fast_decode": fast_decode} if has_fast_decode(provider) else {}
    for named in ("auto", provider):
        assert outcome(one_event_per_read(raw), named, **options) == whole


def test_per_token_reads_skip_the_chunk_machinery(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shortcut is really taken: of an Anthropic text stream read one event
    at a time, only the reads that are not a text fragment go the long way."""
    raw = body("anthropic/text-basic.sse")
    reads = one_event_per_read(raw)
    long_way: list[int] = []
    original = Pipeline._feed_sse_events

    def counted(self: Pipeline, sse_events: list[tuple[str, bytes]], out: list[Event]) -> None:
        long_way.append(len(sse_events))
        original(self, sse_events, out)

    monkeypatch.setattr(Pipeline, "_feed_sse_events", counted)
    pipeline = Pipeline("anthropic")
    deltas = sum(isinstance(e, BlockDelta) for read in reads for e in pipeline.feed(read))
    fragments = sum(b'"text_delta"' in read for read in reads)
    assert deltas == fragments >= 3
    assert len(long_way) == len(reads) - fragments


# Gemini's parser has no fast path (its fast_delta is always None): its recordings are left out.
FAST_PATH_RECORDINGS = [path for path in SSE_RECORDINGS if has_fast_decode(detected(path))]


@pytest.mark.parametrize("path", FAST_PATH_RECORDINGS, ids=fixture_id)
def test_fast_delta_changes_nothing_when_it_declines(path: Path) -> None:
    """The pipeline asks ``fast_delta`` first and feeds the payload when it says
    ``None``: asking must not change what the payload then gives. A parser asked
    before every payload agrees with one that never takes the fast path."""
    provider = detected(path)
    items = payloads(path)
    assert parser_events(provider, items, ask_first=True) == \
        parser_events(provider, items, ask_first=False)


def parser_events(provider: str, items: list[Payload], *, ask_first: bool) -> list[Any]:
    """The events of ``items``, each payload's ``fast_delta`` asked first (the
    general path taken when it declines), or the fast path switched off; the
    name of the error that ended them, if any."""
    parser = get_parser(provider, fast_decode=ask_first)
    events: list[Any] = []
    with fresh_ids():
        try:
            for name, data in items:
                event = parser.fast_delta(name or "message", as_bytes(data))
                events += [event] if event is not None else parser.feed(data, name)
            events += parser.finish()
        except StreamError as exc:
            events.append(type(exc).__name__)
    return events


LONE_SURROGATE_DELTAS = {  # payloads handed over as text (httpx-sse) with a lone surrogate
    "anthropic": [("message_start", '{"type":"message_start","message":{"id":"m","model":"c"}}'),
                  ("content_block_start", '{"type":"content_block_start","index":0,'
                                          '"content_block":{"type":"text","text":""}}'),
                  ("content_block_delta", '{"type":"content_block_delta","index":0,'
                                          '"delta":{"type":"text_delta","text":"\ud800"}}')],
    "openai": [(None, '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m",'
                      '"choices":[{"index":0,"delta":{"content":"a"}}]}'),
               (None, '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m",'
                      '"choices":[{"index":0,"delta":{"content":"\ud800"}}]}')],
    "openai-responses": [
        ("response.created", '{"type":"response.created","response":{"id":"r","model":"m"}}'),
        ("response.output_text.delta", '{"type":"response.output_text.delta","item_id":"x",'
                                       '"output_index":0,"content_index":0,"delta":"\ud800"}')],
}


@pytest.mark.parametrize("provider", sorted(LONE_SURROGATE_DELTAS))
def test_text_with_a_lone_surrogate_is_read_as_the_general_path_reads_it(provider: str) -> None:
    """``fast_delta`` declines text it cannot encode (it raised UnicodeEncodeError
    for OpenAI Responses); the general path replaces the surrogate."""
    results = []
    for fast_decode in (True, False):
        pipeline = Pipeline(provider, fast_decode=fast_decode)
        with fresh_ids():
            events = [e for name, data in LONE_SURROGATE_DELTAS[provider]
                      for e in pipeline.feed_payload(data, name)]
        results.append((events, comparable(pipeline.response)))
    assert results[0] == results[1]
    assert pipeline.response.text.endswith("?")


class WithoutFastDelta:
    """A caller's own parser written before ``fast_delta`` joined the protocol."""

    def __init__(self, name: str) -> None:
        self.inner = get_parser(name)
        self.framing = self.inner.framing
        self.name = self.inner.name

    def feed(self, data: bytes | str, event: str | None = None) -> list[Event]:
        return self.inner.feed(data, event)

    def feed_into(self, payloads: Any, out: list[Event]) -> None:
        self.inner.feed_into(payloads, out)

    def finish(self) -> list[Event]:
        return self.inner.finish()

    @property
    def done(self) -> bool:
        return self.inner.done


@pytest.mark.parametrize("path", FAST_PATH_RECORDINGS, ids=fixture_id)
def test_a_parser_without_fast_delta_takes_the_general_path(path: Path) -> None:
    raw = body(path)
    parser: Any = WithoutFastDelta(detected(path))
    assert outcome(one_event_per_read(raw), parser) == outcome([raw], detected(path))


# ---------------------------------------------------------------- SSEDecoder.feed_one


@pytest.mark.parametrize("reads", [
    [b"data: 1\n"],  # a partial event: a line is pending
    [b"data: 1"],  # a partial line
    [b"data: 0\n\ndata: 1"],  # an event, then a partial line
    [b"event: a\n"],  # a pending event type
    [b"retry: 10\n"],  # a pending retry
    [b"data: 1\r"],  # a CR whose LF may follow
    [],  # nothing yet: the byte order mark is still to check
])
def test_feed_one_declines_while_something_is_pending(reads: list[bytes]) -> None:
    decoder = SSEDecoder()
    for read in reads:
        decoder.feed_payloads(read)
    received = decoder.bytes_received
    assert decoder.feed_one(b"data: 2\n\n") is None
    assert decoder.bytes_received == received  # nothing consumed


@pytest.mark.parametrize("read", [
    b"data: 1\n\ndata: 2\n\n",  # two events
    b"data: 1\ndata: 2\n\n",  # two data lines
    b"id: 1\ndata: 2\n\n",  # another field
    b"data: 1\n\n\n",  # a blank line more
    b"data: 1\r\n\r\n",  # CR line ends
    b"data: 1\r2\n\n",  # a lone CR ends a line too: data 1, then a field named 2
    b"data: 1\n",  # no blank line
    b": ping\n\n",  # a comment
    b"",
])
def test_feed_one_declines_all_but_one_whole_event(read: bytes) -> None:
    decoder = SSEDecoder()
    decoder.feed_payloads(b"data: 0\n\n")
    assert decoder.feed_one(read) is None
    assert decoder.bytes_received == 9
    assert decoder.feed_payloads(read) == SSEDecoder().feed_payloads(read)


def test_feed_one_takes_one_whole_event_and_refuses_one_over_the_limit() -> None:
    decoder = SSEDecoder(max_event_bytes=40)
    decoder.feed_payloads(b"data: 0\n\n")
    assert decoder.feed_one(b"event: delta\ndata: {\"a\": 1}\n\n") == ("delta", b'{"a": 1}')
    assert decoder.bytes_received == decoder.bytes_consumed == 9 + 29
    assert decoder.feed_one(b"data: " + b"x" * 40 + b"\n\n") is None  # the loop raises it


def test_feed_one_declines_after_flush() -> None:
    decoder = SSEDecoder()
    decoder.feed_payloads(b"data: 0\n\n")
    decoder.flush_payloads()  # a new stream: its first line may carry a byte order mark
    assert decoder.feed_one(b"data: 1\n\n") is None
