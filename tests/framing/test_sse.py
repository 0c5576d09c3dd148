"""Tests for streamkit.framing.sse: WHATWG event-stream rules, chunking invariance, limits."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from pathlib import Path

import msgspec
import pytest
from httpx_sse._decoders import SSEDecoder as HttpxSSEDecoder
from httpx_sse._decoders import SSELineDecoder
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.recordings import FIXTURES

from streamkit.framing.sse import SSEDecoder, SSEEvent
from streamkit.model.errors import LimitExceeded

# the real recordings (edge/ holds hand-written edge cases with deliberately odd events)
SSE_FIXTURES = sorted(p for p in FIXTURES.glob("**/*.sse") if "edge" not in p.parts)


def feed_chunks(chunks: Iterable[bytes], decoder: SSEDecoder | None = None) -> list[SSEEvent]:
    """Feed every chunk, then flush; return all events in order."""
    dec = decoder if decoder is not None else SSEDecoder()
    events: list[SSEEvent] = []
    for chunk in chunks:
        events.extend(dec.feed(chunk))
    events.extend(dec.flush())
    return events


def split(stream: bytes, size: int) -> list[bytes]:
    return [stream[i : i + size] for i in range(0, len(stream), size)]


def decode(stream: bytes, size: int | None = None) -> list[SSEEvent]:
    """Decode a whole stream, in one chunk or in ``size``-byte chunks."""
    return feed_chunks([stream] if size is None else split(stream, size))


def decode_all_ways(stream: bytes) -> list[SSEEvent]:
    """Decode in one chunk, 1-byte and 2/3-byte chunks; assert they agree."""
    whole = decode(stream)
    for size in (1, 2, 3):
        assert decode(stream, size) == whole, f"chunk size {size}"
    return whole


# --- SSEEvent -------------------------------------------------------------------------


def test_event_defaults_and_value_semantics() -> None:
    ev = SSEEvent(data="x")
    assert (ev.event, ev.data, ev.id, ev.retry) == ("message", "x", None, None)
    assert SSEEvent("a", "b", "c", 1) == SSEEvent(event="a", data="b", id="c", retry=1)
    assert SSEEvent("a", "b") != SSEEvent("a", "c")
    with pytest.raises(AttributeError):
        ev.data = "y"  # type: ignore[misc]


# --- line ends ------------------------------------------------------------------------


@pytest.mark.parametrize("eol", [b"\n", b"\r", b"\r\n"])
def test_each_line_end_kind(eol: bytes) -> None:
    stream = eol.join([b"event: e", b"data: a", b"data: b", b"", b"data: c", b"", b""])
    assert decode_all_ways(stream) == [SSEEvent("e", "a\nb"), SSEEvent("message", "c")]


def test_mixed_line_ends() -> None:
    stream = b"data: a\rdata: b\r\ndata: c\n\r\ndata: d\r\r"
    assert decode_all_ways(stream) == [SSEEvent(data="a\nb\nc"), SSEEvent(data="d")]


def test_crlf_split_across_chunks_is_one_line_end() -> None:
    # Counted as two line ends, the LF would be a blank line dispatching "a" alone.
    dec = SSEDecoder()
    assert dec.feed(b"data: a\r") == []
    assert dec.feed(b"\ndata: b\r") == []
    assert dec.feed(b"\n") == []
    assert dec.feed(b"\r\n") == [SSEEvent(data="a\nb")]
    assert dec.flush() == []


def test_crlf_split_with_empty_chunk_in_between() -> None:
    dec = SSEDecoder()
    assert dec.feed(b"data: a\r") == []
    assert dec.feed(b"") == []
    assert dec.feed(b"\n") == []
    assert dec.feed(b"data: b\n\n") == [SSEEvent(data="a\nb")]


def test_lone_cr_at_chunk_end_then_other_byte() -> None:
    dec = SSEDecoder()
    assert dec.feed(b"data: a\r") == []
    assert dec.feed(b"\r") == [SSEEvent(data="a")]  # CR CR: line end, blank line
    assert dec.feed(b"\ndata: b\n\n") == [SSEEvent(data="b")]  # that LF paired the CR


def test_only_cr_and_lf_end_lines() -> None:
    # VT, FF, FS, NEL and U+2028 split str.splitlines() but are not SSE line ends.
    value = "a\x0bb\x0cc\x1cd\x1de\x85f\u2028g"
    stream = b"data: " + value.encode() + b"\n\n"
    assert decode_all_ways(stream) == [SSEEvent(data=value)]


# --- fields ---------------------------------------------------------------------------


def test_comments_are_ignored_and_counted() -> None:
    dec = SSEDecoder()
    stream = b": keep-alive\ndata: a\n:\n:x: y\ndata: b\n\n: last one\n"
    assert feed_chunks([stream], dec) == [SSEEvent(data="a\nb")]
    assert dec.comment_count == 4
    assert dec.last_comment == " last one"
    assert SSEDecoder().last_comment is None


def test_comment_only_stream_dispatches_nothing() -> None:
    assert decode_all_ways(b": ping\n\n: ping\n\n") == []


def test_only_one_leading_space_is_stripped() -> None:
    stream = b"data:none\ndata: one\ndata:  two\ndata:\tthree\n\n"
    assert decode_all_ways(stream) == [SSEEvent(data="none\none\n two\n\tthree")]


def test_value_keeps_later_colons() -> None:
    stream = b'event: a:b\ndata: {"k": "v:w"}\n\n'
    assert decode_all_ways(stream) == [SSEEvent("a:b", '{"k": "v:w"}')]


def test_line_without_colon_is_field_with_empty_value() -> None:
    # "data" alone is an empty data line; "event" alone resets the type.
    stream = b"event: x\nevent\ndata\ndata\n\ndata\n\n"
    assert decode_all_ways(stream) == [SSEEvent("message", "\n"), SSEEvent("message", "")]


def test_data_lines_joined_with_lf_and_trailing_empty_kept() -> None:
    stream = b"data: a\ndata:\ndata: b\ndata:\n\n"
    assert decode_all_ways(stream) == [SSEEvent(data="a\n\nb\n")]


def test_event_type_applies_to_one_event_only() -> None:
    stream = (
        b"event: first\ndata: 1\n\ndata: 2\n\nevent:\ndata: 3\n\n"
        b"event: x\nevent: y\ndata: 4\n\nevent: z\nevent: \ndata: 5\n\n"
    )
    assert decode_all_ways(stream) == [
        SSEEvent("first", "1"),
        SSEEvent("message", "2"),
        SSEEvent("message", "3"),
        SSEEvent("y", "4"),
        SSEEvent("message", "5"),
    ]


def test_blank_line_without_data_dispatches_nothing_but_resets_type() -> None:
    stream = b"event: orphan\n\n\n\ndata: x\n\n"
    assert decode_all_ways(stream) == [SSEEvent("message", "x")]


def test_id_is_sticky_and_none_until_seen() -> None:
    dec = SSEDecoder()
    stream = (
        b"data: a\n\n"  # no id yet
        b"id: 1\ndata: b\n\n"
        b"data: c\n\n"  # keeps 1
        b"data: d\nid: 2\n\n"  # id after data still applies at dispatch
        b"id: 3\n\n"  # no dispatch, but the last event ID changes
        b"data: e\n\n"
        b"id\ndata: f\n\n"  # an empty id resets it to ""
    )
    assert feed_chunks([stream], dec) == [
        SSEEvent(data="a", id=None),
        SSEEvent(data="b", id="1"),
        SSEEvent(data="c", id="1"),
        SSEEvent(data="d", id="2"),
        SSEEvent(data="e", id="3"),
        SSEEvent(data="f", id=""),
    ]
    assert dec.last_event_id == ""
    assert decode(stream, 1) == feed_chunks([stream])


def test_id_containing_nul_is_ignored() -> None:
    stream = b"id: ok\ndata: a\n\nid: bad\x00id\ndata: b\n\n"
    assert decode_all_ways(stream) == [SSEEvent(data="a", id="ok"), SSEEvent(data="b", id="ok")]


def test_retry_requires_ascii_digits() -> None:
    dec = SSEDecoder()
    stream = (
        b"retry: 1500\ndata: a\n\n"
        b"data: b\n\n"  # retry is per event block; the stream keeps 1500
        b"retry: 1.5\ndata: c\n\n"
        b"retry: -1\ndata: d\n\n"
        b"retry:\ndata: e\n\n"
        b"retry: 12a\ndata: f\n\n"
        b"retry: 1 \ndata: g\n\n"
        + "retry: \u0661\u0662\ndata: h\n\n".encode()  # Arabic-Indic digits
    )
    events = feed_chunks([stream], dec)
    assert [(e.data, e.retry) for e in events] == [
        ("a", 1500),
        ("b", None),
        ("c", None),
        ("d", None),
        ("e", None),
        ("f", None),
        ("g", None),
        ("h", None),
    ]
    assert dec.retry == 1500


def test_retry_without_data_updates_stream_reconnection_time() -> None:
    dec = SSEDecoder()
    assert feed_chunks([b"retry: 3000\n\nretry: 0042\ndata: x\n\n"], dec) == [
        SSEEvent(data="x", retry=42)
    ]
    assert dec.retry == 42


def test_retry_with_huge_number_of_digits_is_ignored() -> None:
    # int() refuses more than 4300 digits; that must not escape as ValueError.
    dec = SSEDecoder()
    events = feed_chunks([b"retry: 7\n\nretry: " + b"9" * 5000 + b"\ndata: x\n\n"], dec)
    assert events == [SSEEvent(data="x", retry=None)]
    assert dec.retry == 7


def test_unknown_and_wrongly_cased_fields_are_ignored() -> None:
    stream = b"foo: bar\nDATA: no\nData: no\nEvent: no\ndata: yes\nx\n\n"
    assert decode_all_ways(stream) == [SSEEvent("message", "yes")]


# --- byte order mark and UTF-8 --------------------------------------------------------


def test_leading_bom_is_stripped() -> None:
    assert decode_all_ways(b"\xef\xbb\xbfdata: x\n\n") == [SSEEvent(data="x")]


def test_bom_split_across_chunks() -> None:
    dec = SSEDecoder()
    assert dec.feed(b"\xef") == []
    assert dec.feed(b"\xbb") == []
    assert dec.feed(b"\xbfdat") == []
    assert dec.feed(b"a: x\n\n") == [SSEEvent(data="x")]


def test_bom_stripped_only_once() -> None:
    # The second BOM is part of the field name "\ufeffdata", which is unknown.
    assert decode_all_ways(b"\xef\xbb\xbf\xef\xbb\xbfdata: x\n\ndata: y\n\n") == [
        SSEEvent(data="y")
    ]


def test_bom_after_start_is_not_stripped() -> None:
    stream = b"data: a\n\n\xef\xbb\xbfdata: b\n\ndata: \xef\xbb\xbfc\n\n"
    assert decode_all_ways(stream) == [SSEEvent(data="a"), SSEEvent(data="\ufeffc")]


def test_bom_as_only_first_line() -> None:
    assert decode_all_ways(b"\xef\xbb\xbf\n\ndata: x\n\n") == [SSEEvent(data="x")]


def test_multibyte_utf8_split_across_chunks() -> None:
    text = "h\u00e9llo \u20ac \U0001f600 \u4e2d\u6587"
    stream = f"event: \u00e9v\u00e9nement\nid: \u00b5\ndata: {text}\n\n".encode()
    assert decode_all_ways(stream) == [SSEEvent("\u00e9v\u00e9nement", text, "\u00b5")]


def test_invalid_utf8_becomes_replacement_character() -> None:
    stream = b"event: e\xff\nid: i\xc3\ndata: a\xffb\ndata: \xe2\x82\n\n"
    assert decode_all_ways(stream) == [SSEEvent("e\ufffd", "a\ufffdb\n\ufffd", "i\ufffd")]


# --- end of input ---------------------------------------------------------------------


def test_flush_delivers_event_without_blank_line() -> None:
    dec = SSEDecoder()
    assert dec.feed(b"event: message_stop\ndata: {}\n") == []
    assert dec.flush() == [SSEEvent("message_stop", "{}")]


def test_flush_processes_last_line_without_terminator() -> None:
    dec = SSEDecoder()
    assert dec.feed(b"data: a\n\nevent: end\ndata: b") == [SSEEvent(data="a")]
    assert dec.flush() == [SSEEvent("end", "b")]


def test_flush_after_trailing_cr() -> None:
    dec = SSEDecoder()
    assert dec.feed(b"data: a\r") == []
    assert dec.flush() == [SSEEvent(data="a")]


def test_flush_without_pending_data_returns_nothing() -> None:
    for stream in (b"", b"data: a\n\n", b"event: x\n", b"id: 1", b": comment", b"retry: 5"):
        dec = SSEDecoder()
        dec.feed(stream)
        assert dec.flush() == [], stream


def test_flush_applies_trailing_id_line() -> None:
    assert decode(b"data: a\nid: 9") == [SSEEvent(data="a", id="9")]


def test_decoder_is_reusable_after_flush() -> None:
    dec = SSEDecoder()
    assert feed_chunks([b"id: 5\ndata: a"], dec) == [SSEEvent(data="a", id="5")]
    # A new stream: its BOM is stripped again; the last event ID carries over.
    assert feed_chunks([b"\xef\xbb\xbfdata: b\n\n"], dec) == [SSEEvent(data="b", id="5")]


def test_whatwg_spec_examples() -> None:
    assert decode_all_ways(b"data: YHOO\ndata: +2\ndata: 10\n\n") == [SSEEvent(data="YHOO\n+2\n10")]
    assert decode_all_ways(b"data:test\n\ndata: test\n\n") == [
        SSEEvent(data="test"),
        SSEEvent(data="test"),
    ]
    stream = (
        b": test stream\n\ndata: first event\nid: 1\n\n"
        b"data:second event\nid\n\ndata:  third event\n"
    )
    dec = SSEDecoder()
    assert dec.feed(stream) == [
        SSEEvent(data="first event", id="1"),
        SSEEvent(data="second event", id=""),
    ]
    # The spec drops the unterminated third event; flush delivers it on purpose.
    assert dec.flush() == [SSEEvent(data=" third event", id="")]
    dec = SSEDecoder()
    assert dec.feed(b"data\n\ndata\ndata\n\ndata:") == [SSEEvent(data=""), SSEEvent(data="\n")]
    assert dec.flush() == [SSEEvent(data="")]


# --- offsets --------------------------------------------------------------------------


def test_byte_offsets() -> None:
    dec = SSEDecoder()
    dec.feed(b"data: a\n\nda")
    assert (dec.bytes_received, dec.bytes_consumed) == (11, 9)
    dec.feed(b"ta: b\r")
    assert (dec.bytes_received, dec.bytes_consumed) == (17, 17)
    dec.feed(b"\n")
    assert (dec.bytes_received, dec.bytes_consumed) == (18, 18)
    dec.feed(b"data: c")
    dec.flush()
    assert (dec.bytes_received, dec.bytes_consumed) == (25, 25)


# --- limits ---------------------------------------------------------------------------


def test_event_at_limit_passes_and_one_byte_more_raises() -> None:
    line = b"data: " + b"x" * 10  # 16 bytes
    for size in (None, 1, 5):
        assert decode(line + b"\n\n", size) == [SSEEvent(data="x" * 10)]
        assert decode(line + b"\n\n", size) == feed_chunks(
            [line + b"\n\n"], SSEDecoder(max_event_bytes=16)
        )
        dec = SSEDecoder(max_event_bytes=16)
        with pytest.raises(LimitExceeded) as info:
            feed_chunks([line + b"x\n\n"] if size is None else split(line + b"x\n\n", size), dec)
        assert (info.value.limit, info.value.value, info.value.observed) == (
            "max_event_bytes",
            16,
            17,
        )
        assert info.value.partial is None


def test_oversized_event_from_many_data_lines() -> None:
    # Each line fits, the accumulated data does not: 3 * (40 + 1) > 100.
    stream = b"data: " + b"a" * 40 + b"\n"
    dec = SSEDecoder(max_event_bytes=100)
    with pytest.raises(LimitExceeded) as info:
        dec.feed(stream * 3 + b"\n")
    assert info.value.limit == "max_event_bytes"
    assert info.value.value == 100
    assert info.value.observed > 100
    # Completed events reset the count: many small events are fine.
    assert len(decode(b"data: " + b"a" * 40 + b"\n\n") * 10) == 10
    assert len(feed_chunks([(stream + b"\n") * 10], SSEDecoder(max_event_bytes=100))) == 10


def test_oversized_event_is_independent_of_chunking() -> None:
    stream = (b"data: " + b"a" * 40 + b"\n") * 3 + b"\n"
    for size in (1, 7, 50, len(stream)):
        with pytest.raises(LimitExceeded):
            feed_chunks(split(stream, size), SSEDecoder(max_event_bytes=100))


def test_endless_line_is_refused_before_buffering_past_limit() -> None:
    limit = 1000
    dec = SSEDecoder(max_event_bytes=limit)
    piece = b"x" * 100
    for _ in range(10):  # exactly 1000 bytes buffered: still allowed
        assert dec.feed(piece) == []
    assert dec.bytes_received - dec.bytes_consumed == limit
    with pytest.raises(LimitExceeded) as info:
        dec.feed(piece)
    assert info.value.observed == limit + 100
    # The refused piece was not buffered, and the decoder stays failed.
    assert dec.bytes_received - dec.bytes_consumed == limit
    with pytest.raises(LimitExceeded):
        dec.feed(b"\n\n")
    with pytest.raises(LimitExceeded):
        dec.flush()


def test_oversized_tail_after_line_end_is_refused_at_once() -> None:
    dec = SSEDecoder(max_event_bytes=100)
    with pytest.raises(LimitExceeded) as info:
        dec.feed(b"\n" + b"x" * 101)
    assert info.value.observed == 101
    assert dec.bytes_received - dec.bytes_consumed == 0


def test_endless_line_after_data_counts_pending_data() -> None:
    dec = SSEDecoder(max_event_bytes=100)
    assert dec.feed(b"data: " + b"a" * 59 + b"\n") == []  # 60 bytes of pending data
    assert dec.feed(b": " + b"c" * 38) == []  # 40 bytes buffered: 100 in total
    with pytest.raises(LimitExceeded) as info:
        dec.feed(b"c")
    assert info.value.observed == 101


def test_events_before_overflow_are_returned_then_error_raised() -> None:
    dec = SSEDecoder(max_event_bytes=50)
    events = dec.feed(b"data: a\n\nevent: e\ndata: b\n\n" + b"data: " + b"z" * 60)
    assert events == [SSEEvent(data="a"), SSEEvent("e", "b")]
    assert dec.bytes_received - dec.bytes_consumed == 0  # the oversized tail was refused
    with pytest.raises(LimitExceeded) as info:
        dec.feed(b"\n\n")
    assert info.value.limit == "max_event_bytes"
    with pytest.raises(LimitExceeded):
        dec.flush()


def test_invalid_limit() -> None:
    with pytest.raises(ValueError):
        SSEDecoder(max_event_bytes=0)


# --- property: chunking never matters -------------------------------------------------

_special = st.sampled_from(
    ["\u00e9", "\u20ac", "\U0001f600", "\ufeff", ":", " ", "\x00", "\x0b", "\x85", "\u2028"]
)
_char = st.one_of(_special, st.characters(codec="utf-8"))
# Field values as bytes: mostly valid UTF-8, sometimes arbitrary (invalid) bytes.
_value = st.one_of(st.text(_char, max_size=8).map(str.encode), st.binary(max_size=6)).map(
    lambda b: b.replace(b"\r", b"").replace(b"\n", b"")
)
_event_spec = st.tuples(
    st.one_of(st.none(), _value),  # event type
    st.lists(_value, max_size=3),  # data lines (none: no dispatch)
    st.one_of(st.none(), _value.map(lambda b: b.replace(b"\x00", b""))),  # id
    st.one_of(st.none(), st.integers(0, 10**6)),  # retry
    st.lists(_value, max_size=2),  # comments
)


def _text(value: bytes) -> str:
    return value.decode("utf-8", "replace")


@st.composite
def _streams(draw: st.DrawFn) -> tuple[bytes, list[SSEEvent], list[int]]:
    specs = draw(st.lists(_event_spec, max_size=6))
    lines: list[bytes] = []
    expected: list[SSEEvent] = []
    last_id: str | None = None
    for etype, data, id_, retry, comments in specs:
        block = [b":" + c for c in comments[:1]]
        if etype is not None:
            block.append(b"event: " + etype)
        for i, d in enumerate(data):
            block.append(b"data: " + d)
            if i == 0:
                block.extend(b":" + c for c in comments[1:])
        if id_ is not None:
            block.append(b"id: " + id_)
            last_id = _text(id_)
        if retry is not None:
            block.append(b"retry: %d" % retry)
        lines.extend(block)
        lines.append(b"")
        if data:
            event = _text(etype or b"") or "message"
            expected.append(SSEEvent(event, "\n".join(map(_text, data)), last_id, retry))
    if draw(st.booleans()) and lines:
        lines.pop()  # no blank line after the last event: flush must deliver it
    stream = b"\xef\xbb\xbf" if draw(st.booleans()) else b""
    prev_eol = b""
    for line in lines:
        eol = draw(st.sampled_from([b"\n", b"\r", b"\r\n"]))
        if prev_eol == b"\r" and not line and eol == b"\n":
            eol = b"\r\n"  # CR followed by LF would be one line end, not two
        stream += line + eol
        prev_eol = eol
    if stream.endswith((b"\n", b"\r")) and lines and lines[-1] and draw(st.booleans()):
        stream = stream.rstrip(b"\r\n")  # the last line may lack its terminator
    cuts = sorted(draw(st.lists(st.integers(0, len(stream)), max_size=12)))
    return stream, expected, cuts


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_streams())
def test_any_chunking_gives_the_expected_events(
    case: tuple[bytes, list[SSEEvent], list[int]],
) -> None:
    stream, expected, cuts = case
    whole = decode(stream)
    assert whole == expected
    bounds = [0, *cuts, len(stream)]
    assert feed_chunks(stream[a:b] for a, b in itertools.pairwise(bounds)) == whole
    assert decode(stream, 1) == whole


# --- recorded provider streams --------------------------------------------------------


def test_fixtures_are_present() -> None:
    assert len(SSE_FIXTURES) >= 20


@pytest.mark.parametrize("path", SSE_FIXTURES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_fixture_is_chunking_invariant_and_json(path: Path) -> None:
    raw = path.read_bytes()
    whole = decode(raw)
    assert whole, "no events decoded"
    assert decode(raw, 1) == whole
    assert decode(raw, 7) == whole
    for ev in whole:
        assert "\r" not in ev.data
        assert ev.data == "[DONE]" or isinstance(json.loads(ev.data), dict)
        assert ev.id is None and ev.retry is None
        if ev.event != "message":  # named events repeat their name in "type"
            assert msgspec.json.decode(ev.data)["type"] in (ev.event, "error")


def _httpx_sse_events(raw: bytes) -> list[tuple[str, str]]:
    """What httpx-sse makes of the stream (blank line appended: it drops the tail)."""
    lines = SSELineDecoder()
    sse = HttpxSSEDecoder()
    out = []
    for line in lines.decode((raw + b"\n\n").decode()) + lines.flush():
        ev = sse.decode(line)
        if ev is not None:
            out.append((ev.event or "message", ev.data))
    return out


@pytest.mark.parametrize("path", SSE_FIXTURES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_fixture_matches_httpx_sse(path: Path) -> None:
    raw = path.read_bytes()
    assert [(e.event, e.data) for e in decode(raw, 7)] == _httpx_sse_events(raw)


def test_anthropic_text_basic_facts() -> None:
    raw = (FIXTURES / "anthropic/text-basic.sse").read_bytes()
    assert not raw.endswith(b"\n")  # the final event relies on flush()
    events = decode(raw, 7)
    assert [e.event for e in events] == [
        "message_start",
        "content_block_start",
        "ping",
        "content_block_delta",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert events[2].data == '{"type": "ping"}'
    assert events[-1].data == '{"type":"message_stop"}'
    texts = [json.loads(e.data)["delta"]["text"] for e in events[3:6]]
    assert "".join(texts) == "Hello there!"


def test_gemini_crlf_framing() -> None:
    raw = (FIXTURES / "gemini/text.sse").read_bytes()
    assert raw.count(b"\r\n\r\n") == 3
    assert b"\n\n" not in raw
    events = decode(raw, 7)
    assert len(events) == 3
    assert all(e.event == "message" for e in events)
    first = json.loads(events[0].data)
    assert first["candidates"][0]["content"]["parts"][0]["text"] == "The"
    assert json.loads(events[-1].data)["candidates"][0]["finishReason"] == "STOP"


def test_openrouter_keepalive_comments() -> None:
    raw = (FIXTURES / "openai-compatible/openrouter-reasoning-details.sse").read_bytes()
    dec = SSEDecoder()
    events = feed_chunks(split(raw, 7), dec)
    assert dec.comment_count == 4
    assert dec.last_comment == " OPENROUTER PROCESSING"
    assert events[-1].data == "[DONE]"


@pytest.mark.parametrize("path", SSE_FIXTURES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_feed_payloads_equals_feed(path: Path) -> None:
    raw = path.read_bytes()
    events = decode(raw, 7)
    decoder = SSEDecoder()
    payloads: list[tuple[str, bytes]] = []
    for i in range(0, len(raw), 7):
        payloads += decoder.feed_payloads(raw[i:i + 7])
    payloads += decoder.flush_payloads()
    assert payloads == [(e.event, e.data.encode()) for e in events]


def _read_live(decoder: SSEDecoder, read: bytes) -> list[tuple[str, bytes]]:
    """A read as the pipeline hands it over: the one-event shortcut, else the loop."""
    one = decoder.feed_one(read)
    return [one] if one is not None else decoder.feed_payloads(read)


def _one_event_per_read(raw: bytes) -> list[bytes]:
    events = raw.split(b"\n\n")
    return [event + b"\n\n" for event in events[:-1]] + ([events[-1]] if events[-1] else [])


@pytest.mark.parametrize("path", sorted(FIXTURES.rglob("*.sse")),
                         ids=lambda p: p.name)
def test_one_event_per_read_gives_the_same_payloads(path: Path) -> None:
    """The live shape (one event a read) takes a shortcut past the line loop; it
    must hand out exactly what the loop gives for the whole body."""
    raw = path.read_bytes()
    whole = SSEDecoder()
    expected = whole.feed_payloads(raw) + whole.flush_payloads()
    live = SSEDecoder()
    got = [p for read in _one_event_per_read(raw) for p in _read_live(live, read)]
    assert got + live.flush_payloads() == expected


@pytest.mark.parametrize("reads", [
    [b"event: a\ndata: 1\n\n", b"data: 2\n\n"],  # the event name does not leak
    [b"id: 7\ndata: 1\n\n", b"data: 2\n\n"],  # another field: the loop
    [b"data: 1\r\n\r\n", b"data: 2\n\n"],  # CR line ends: the loop
    [b"event: a\n", b"data: 1\n\n", b"data: 2\n\n"],  # a pending event type
    [b"data: 1\n\ndata: 2\n\n"],  # two events in one read
    [b"data:1\n\n", b": ping\n\n", b"data: 2\n\n"],  # no space, a comment
])
def test_the_shortcut_and_the_loop_agree_on_odd_reads(reads: list[bytes]) -> None:
    live = SSEDecoder()
    got = [p for read in reads for p in _read_live(live, read)]
    whole = SSEDecoder()
    assert got == whole.feed_payloads(b"".join(reads))


def test_one_event_reads_follow_a_changing_head() -> None:
    # the one-event shortcut caches the last read's head (``event: NAME\ndata: ``);
    # a read with another name, no name, or a second data line must still decode right
    reads = [b"event: a\ndata: 1\n\n", b"event: a\ndata: 2\n\n", b"event: b\ndata: 3\n\n",
             b"data: 4\n\n", b"event: a\ndata: 5\ndata: 6\n\n", b"event: ab\ndata: 7\n\n",
             b"event: a\ndata:8\n\n", b"data: 9\n\n"]
    decoder = SSEDecoder()
    got = [payload for read in reads for payload in _read_live(decoder, read)]
    assert got == [("a", b"1"), ("a", b"2"), ("b", b"3"), ("message", b"4"),
                   ("a", b"5\n6"), ("ab", b"7"), ("a", b"8"), ("message", b"9")]
    assert decoder.bytes_received == decoder.bytes_consumed == sum(map(len, reads))
