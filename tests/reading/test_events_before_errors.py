"""What a caller was given always adds up to the partial response, and replay()
fails as a stream does.

A read that breaks the stream (a bad payload after good ones in the same
chunk, a limit passed mid-read), and the end of a stream that ends in the
provider's error (``finish()`` flushes closing events, then the error is
raised), apply events to the partial before the error. Those events reach the
caller first: a stream yields them, then raises; ``replay()`` and a
``Pipeline`` call hand them over on the error (``error.events``). So a UI that
builds its state from events shows exactly the partial, on every wire, in
``replay()``, a sync and an async stream.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from support.recordings import FIXTURES
from support.stream_fuzzing import _comparable, shown

import streamkit
from streamkit import (
    BlockDelta,
    ChatResponse,
    Event,
    LimitExceeded,
    ProtocolError,
    ProviderError,
    ResponseEnd,
    StreamError,
    TextDelta,
    replay,
)
from streamkit.cli import main
from streamkit.model.limits import MAX_JSON_DEPTH
from streamkit.reading.pipeline import Pipeline
from streamkit.testing import load_recording


def recorded_prefix(name: str, events: int) -> bytes:
    """The first ``events`` SSE events of a recording (up to its first text)."""
    raw = load_recording(FIXTURES / name)[0]
    separator = b"\r\n\r\n" if b"\r\n\r\n" in raw else b"\n\n"
    return separator.join(raw.split(separator)[:events]) + separator


def ollama_line(content: str) -> bytes:
    return json.dumps({"model": "m", "created_at": "t", "done": False,
                       "message": {"role": "assistant", "content": content}}).encode() + b"\n"


#: Per wire: the start of a stream that has shown some text, and the provider's
#: own in-stream error in that wire's form.
WIRES: dict[str, tuple[bytes, bytes]] = {
    "openai": (recorded_prefix("openai-chat/text-with-usage-chunk.sse", 2),
               b'data: {"error": {"message": "boom", "code": 502}}\n\n'),
    "openai-responses": (recorded_prefix("openai-responses/text.sse", 5),
                         b'event: error\ndata: {"type": "error", "code": "server_error", '
                         b'"message": "boom", "param": null, "sequence_number": 99}\n\n'),
    "anthropic": (recorded_prefix("anthropic/text-basic.sse", 4),
                  b'event: error\ndata: {"type": "error", "error": '
                  b'{"type": "overloaded_error", "message": "boom"}}\n\n'),
    "gemini": (recorded_prefix("gemini/text.sse", 1),
               b'data: {"error": {"code": 500, "message": "boom", "status": "INTERNAL"}}\r\n\r\n'),
    "ollama": (ollama_line("hi"), b'{"error": "boom"}\n'),
}


def is_json_lines(provider: str) -> bool:
    return provider == "ollama"


def bad_json(provider: str) -> bytes:
    return b"{bad\n" if is_json_lines(provider) else b"data: {bad\n\n"


def too_deep(provider: str) -> bytes:
    deep = b"[" * (MAX_JSON_DEPTH + 50) + b"]" * (MAX_JSON_DEPTH + 50)
    return b'{"a": ' + deep + b"}\n" if is_json_lines(provider) else \
        b'data: {"a": ' + deep + b"}\n\n"


def too_long(provider: str) -> bytes:
    """An event past ``max_event_bytes=4096``: for JSON lines a document spread
    over lines (each one still the beginning of JSON) that grows past it."""
    if is_json_lines(provider):
        return b"{\n" + b'"a": 1,\n' * 1_000
    return b"data: " + b"x" * 10_000 + b"\n\n"


class Given:
    """How one way of reading ended: the events the caller was given, the error."""

    def __init__(self, events: list[Event], error: StreamError | None,
                 response: ChatResponse) -> None:
        self.events = events
        self.error = error
        self.response = response

    @property
    def text(self) -> str:
        return "".join(e.delta.text for e in self.events
                       if isinstance(e, BlockDelta) and isinstance(e.delta, TextDelta)
                       and e.choice == 0)


def by_replay(chunks: list[bytes], provider: str, **options: Any) -> Given:
    try:
        events, response = replay(chunks, provider, **options)
    except StreamError as error:
        assert error.partial is not None
        return Given(list(error.events), error, error.partial)
    return Given(events, None, response)


def by_sync_stream(chunks: list[bytes], provider: str, **options: Any) -> Given:
    def source() -> Iterator[bytes]:
        yield from chunks

    events: list[Event] = []
    stream = streamkit.stream(source(), provider, **options)
    try:
        for item in stream:
            if not isinstance(item, ChatResponse):
                events.append(item)
    except StreamError as error:
        assert error.partial is stream.response and error.events == ()
        return Given(events, error, stream.response)
    return Given(events, None, stream.response)


def by_async_stream(chunks: list[bytes], provider: str, **options: Any) -> Given:
    async def source() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    async def main() -> Given:
        events: list[Event] = []
        stream = streamkit.stream(source(), provider, **options)
        try:
            async with stream:
                async for item in stream:
                    if not isinstance(item, ChatResponse):
                        events.append(item)
        except StreamError as error:
            assert error.partial is stream.response and error.events == ()
            return Given(events, error, stream.response)
        return Given(events, None, stream.response)

    return anyio.run(main)


WAYS = {"replay": by_replay, "sync stream": by_sync_stream, "async stream": by_async_stream}


def assert_the_events_add_up(given: Given, error_type: type[StreamError]) -> None:
    assert type(given.error) is error_type, given.error
    assert given.text and given.text == given.response.text
    assert shown(given.events, given.error) == _comparable(given.response)


@pytest.mark.parametrize("way", WAYS)
def test_the_issues_repro_a_good_chunk_then_bad_json_in_one_read(way: str) -> None:
    read = (b'data: {"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, '
            b'"delta": {"content": "hi"}, "finish_reason": null}]}\n\ndata: {bad\n\n')
    given = WAYS[way]([read], "openai")
    assert_the_events_add_up(given, ProtocolError)
    assert given.text == given.response.text == "hi"


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("provider", WIRES)
def test_bad_json_after_good_payloads_in_one_read(provider: str, way: str) -> None:
    start, _ = WIRES[provider]
    assert_the_events_add_up(WAYS[way]([start + bad_json(provider)], provider), ProtocolError)


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("provider", WIRES)
def test_a_payload_nested_past_the_limit_after_good_ones_in_one_read(provider: str,
                                                                     way: str) -> None:
    start, _ = WIRES[provider]
    assert_the_events_add_up(WAYS[way]([start + too_deep(provider)], provider), ProtocolError)


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("provider", WIRES)
def test_an_event_past_max_event_bytes_after_good_ones_in_one_read(provider: str,
                                                                   way: str) -> None:
    start, _ = WIRES[provider]
    given = WAYS[way]([start + too_long(provider)], provider, max_event_bytes=4096)
    assert_the_events_add_up(given, LimitExceeded)


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("provider", WIRES)
def test_the_end_of_a_stream_with_an_error_is_given_before_the_error(provider: str,
                                                                     way: str) -> None:
    """``finish()`` closes the open block and the response, then the provider's
    error is raised: the closing events come first."""
    start, error = WIRES[provider]
    given = WAYS[way]([start + error], provider)
    assert_the_events_add_up(given, ProviderError)
    assert isinstance(given.events[-1], ResponseEnd)
    assert given.response.finished_reason == "error" and str(given.error).startswith("boom")


@pytest.mark.parametrize("way", WAYS)
def test_a_check_at_the_end_that_fails_after_the_closing_events(way: str) -> None:
    """Naming the wrong provider is found at the end, after ``finish()`` made the
    closing events (a response end, after the unknown fields kept): they are given too."""
    anthropic = recorded_prefix("anthropic/text-basic.sse", 4)
    given = WAYS[way]([anthropic], "openai")
    assert type(given.error) is ProtocolError and "looks like anthropic" in str(given.error)
    assert isinstance(given.events[-1], ResponseEnd) and not given.text
    assert shown(given.events, given.error) == _comparable(given.response)


def test_a_pipeline_call_that_raises_hands_over_what_it_applied() -> None:
    start, _ = WIRES["openai"]
    pipeline = Pipeline("openai")
    with pytest.raises(ProtocolError) as caught:
        pipeline.feed(start + bad_json("openai"))
    last = caught.value.events[-1]
    assert last == BlockDelta(index=0, delta=TextDelta(text="I'm"))
    lines = Pipeline("ollama", max_event_bytes=4096)
    with pytest.raises(LimitExceeded) as limit:
        lines.feed(ollama_line("a") + ollama_line("b") + too_long("ollama"))
    assert [e.delta.text for e in limit.value.events if isinstance(e, BlockDelta)] == ["a", "b"]
    assert lines.response.text == "ab"


# ---------------------------------------------------------------- replay() fails as a stream


@pytest.mark.parametrize("provider", WIRES)
def test_replay_raises_an_in_stream_error_as_a_stream_does(provider: str) -> None:
    start, error = WIRES[provider]
    body = start + error
    with pytest.raises(ProviderError) as replayed:
        replay(body, provider)
    with pytest.raises(ProviderError) as streamed:
        streamkit.stream(iter([body]), provider).final()
    assert str(replayed.value) == str(streamed.value) and replayed.value.raw == streamed.value.raw
    assert replayed.value.partial is not None and streamed.value.partial is not None
    assert replayed.value.partial.finished_reason == "error"
    expected = _comparable(streamed.value.partial)
    expected.pop("timing", None)  # when the stream's chunks came: a stream's own
    got = _comparable(replayed.value.partial)
    got.pop("timing", None)
    assert got == expected


@pytest.mark.parametrize("provider", WIRES)
def test_replay_with_on_error_return_gives_the_partial(provider: str) -> None:
    start, error = WIRES[provider]
    events, response = replay(start + error, provider, on_error="return")
    assert response.finished_reason == "error" and isinstance(events[-1], ResponseEnd)
    assert shown(events, ProviderError("boom")) == _comparable(response)
    _, cut = replay(start + bad_json(provider), provider, on_error="return")
    assert cut.finished_reason == "interrupted" and cut.text


def test_the_replay_command_exits_1_on_an_in_stream_error(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    start, error = WIRES["anthropic"]
    path = tmp_path / "overloaded.txt"
    path.write_bytes(start + error)
    assert main(["replay", str(path), "--json"]) == 1
    out, err = capsys.readouterr()
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[-2]["type"] == "response_end"  # every event, then the partial
    assert lines[-1]["finished_reason"] == "error" and lines[-1]["content"][0]["text"] == "Hello"
    assert err.startswith("python -m streamkit replay: ProviderError: boom")
    recorded = FIXTURES / "edge/anthropic-overloaded-midstream.sse"
    assert main(["replay", str(recorded)]) == 1
