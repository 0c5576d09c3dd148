"""Tests for streamkit.framing.ndjson: line splitting, blank lines, CRLF, limits, chunking."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.recordings import FIXTURES

from streamkit.framing.ndjson import NDJSONDecoder
from streamkit.model.errors import LimitExceeded


def feed_chunks(chunks: Iterable[bytes], decoder: NDJSONDecoder | None = None) -> list[bytes]:
    dec = decoder if decoder is not None else NDJSONDecoder()
    out: list[bytes] = []
    for chunk in chunks:
        out.extend(dec.feed(chunk))
    out.extend(dec.flush())
    return out


def split(stream: bytes, size: int) -> list[bytes]:
    return [stream[i : i + size] for i in range(0, len(stream), size)]


def decode_all_ways(stream: bytes) -> list[bytes]:
    whole = feed_chunks([stream])
    for size in (1, 2, 3):
        assert feed_chunks(split(stream, size)) == whole, f"chunk size {size}"
    return whole


def test_lines_are_split_on_lf() -> None:
    dec = NDJSONDecoder()
    assert dec.feed(b'{"a":1}\n{"b":') == [b'{"a":1}']
    assert dec.feed(b"2}\n") == [b'{"b":2}']
    assert dec.flush() == []


def test_results_are_bytes_not_bytearray() -> None:
    dec = NDJSONDecoder()
    dec.feed(b'{"a":')
    (line,) = dec.feed(b"1}\n")
    assert type(line) is bytes


def test_trailing_cr_is_stripped_even_when_split_from_its_lf() -> None:
    assert decode_all_ways(b'{"a":1}\r\n{"b":2}\r\n') == [b'{"a":1}', b'{"b":2}']
    dec = NDJSONDecoder()
    assert dec.feed(b'{"a":1}\r') == []
    assert dec.feed(b"\n") == [b'{"a":1}']


def test_only_one_trailing_cr_and_no_other_whitespace_is_stripped() -> None:
    assert decode_all_ways(b' {"a":1} \r\r\n{"b":\r2}\n') == [b' {"a":1} \r', b'{"b":\r2}']


def test_lone_cr_does_not_end_a_line() -> None:
    assert decode_all_ways(b'{"a":1}\r{"b":2}\n') == [b'{"a":1}\r{"b":2}']


def test_blank_and_whitespace_only_lines_are_skipped() -> None:
    stream = b'\n\n{"a":1}\n \t \n\r\n\x0b\x0c\n{"b":2}\n\n'
    assert decode_all_ways(stream) == [b'{"a":1}', b'{"b":2}']


def test_flush_returns_last_line_without_terminator() -> None:
    dec = NDJSONDecoder()
    assert dec.feed(b'{"a":1}\n{"error":"x"}') == [b'{"a":1}']
    assert dec.flush() == [b'{"error":"x"}']
    assert dec.flush() == []


def test_flush_strips_cr_and_skips_blank_tail() -> None:
    dec = NDJSONDecoder()
    dec.feed(b'{"a":1}\r')
    assert dec.flush() == [b'{"a":1}']
    dec = NDJSONDecoder()
    dec.feed(b'{"a":1}\n  \r')
    assert dec.flush() == []


def test_raw_json_error_body_without_newline() -> None:
    # Gemini answers errors with a pretty-printed JSON body: lines are not objects,
    # but joining them gives the body back (the caller decides how to use them).
    body = b'{\n  "error": {\n    "code": 400\n  }\n}\n'
    lines = decode_all_ways(body)
    assert lines == [b"{", b'  "error": {', b'    "code": 400', b"  }", b"}"]


@pytest.mark.parametrize("cut", range(5))
def test_a_leading_byte_order_mark_is_removed_wherever_the_chunks_split_it(cut: int) -> None:
    stream = b'\xef\xbb\xbf{"a":1}\n{"b":2}\n'
    assert feed_chunks([stream[:cut], stream[cut:]]) == [b'{"a":1}', b'{"b":2}']
    assert feed_chunks([stream[i:i + 1] for i in range(len(stream))]) == [b'{"a":1}', b'{"b":2}']
    assert feed_chunks([b'\xef\xbb\xbf{"a":1}']) == [b'{"a":1}']  # unterminated, at flush
    # only at the very start: a byte order mark later on is content
    assert feed_chunks([b'{"a":1}\n\xef\xbb\xbf{"b":2}\n']) == [b'{"a":1}',
                                                                  b'\xef\xbb\xbf{"b":2}']


def test_byte_offsets() -> None:
    dec = NDJSONDecoder()
    dec.feed(b'{"a":1}\n{"b"')
    assert (dec.bytes_received, dec.bytes_consumed) == (12, 8)
    dec.feed(b":2}\n")
    assert (dec.bytes_received, dec.bytes_consumed) == (16, 16)


def test_ollama_fixture() -> None:
    raw = (FIXTURES / "ollama/docs-generate-midstream-error.ndjson").read_bytes()
    lines = decode_all_ways(raw)
    assert feed_chunks(split(raw, 7)) == lines
    assert len(lines) == 5
    objs = [json.loads(line) for line in lines]
    assert [o.get("response") for o in objs[:4]] == [" Yes", ".", "I", "can"]
    assert objs[-1] == {"error": "an error was encountered while running the model"}


def test_line_at_limit_passes_and_one_byte_more_raises() -> None:
    line = b"x" * 16
    for size in (1, 5, 100):
        assert feed_chunks(split(line + b"\n", size), NDJSONDecoder(max_line_bytes=16)) == [line]
        with pytest.raises(LimitExceeded) as info:
            feed_chunks(split(line + b"x\n", size), NDJSONDecoder(max_line_bytes=16))
        assert (info.value.limit, info.value.value, info.value.observed) == (
            "max_line_bytes",
            16,
            17,
        )


def test_cr_counts_toward_the_limit_regardless_of_chunking() -> None:
    stream = b"x" * 16 + b"\r\n"
    for size in (1, 17, 100):
        with pytest.raises(LimitExceeded):
            feed_chunks(split(stream, size), NDJSONDecoder(max_line_bytes=16))


def test_many_lines_within_limit_are_fine() -> None:
    stream = (b"y" * 50 + b"\n") * 10
    assert len(feed_chunks([stream], NDJSONDecoder(max_line_bytes=50))) == 10


def test_endless_line_is_refused_before_buffering_past_limit() -> None:
    dec = NDJSONDecoder(max_line_bytes=1000)
    for _ in range(10):
        assert dec.feed(b"x" * 100) == []
    assert dec.bytes_received - dec.bytes_consumed == 1000
    with pytest.raises(LimitExceeded) as info:
        dec.feed(b"x" * 100)
    assert info.value.observed == 1100
    assert dec.bytes_received - dec.bytes_consumed == 1000
    with pytest.raises(LimitExceeded):
        dec.feed(b"\n")
    with pytest.raises(LimitExceeded):
        dec.flush()


def test_oversized_tail_after_line_end_is_refused_at_once() -> None:
    dec = NDJSONDecoder(max_line_bytes=100)
    with pytest.raises(LimitExceeded):
        dec.feed(b"\n" + b"x" * 101)
    assert dec.bytes_received - dec.bytes_consumed == 0


def test_lines_before_overflow_are_returned_then_error_raised() -> None:
    dec = NDJSONDecoder(max_line_bytes=20)
    assert dec.feed(b'{"a":1}\n{"b":2}\n' + b"z" * 30 + b"\n{}\n") == [b'{"a":1}', b'{"b":2}']
    with pytest.raises(LimitExceeded):
        dec.feed(b"{}\n")
    with pytest.raises(LimitExceeded):
        dec.flush()


def test_invalid_limit() -> None:
    with pytest.raises(ValueError):
        NDJSONDecoder(max_line_bytes=0)


_line = st.binary(max_size=12).map(lambda b: b.replace(b"\n", b""))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(_line, st.sampled_from([b"\n", b"\r\n"])), max_size=8),
    st.booleans(),
    st.lists(st.integers(0, 200), max_size=10),
)
def test_any_chunking_gives_the_expected_lines(
    lines: list[tuple[bytes, bytes]], unterminated_tail: bool, cuts: list[int]
) -> None:
    if unterminated_tail and lines:
        lines[-1] = (lines[-1][0], b"")  # flush() must deliver it
    stream = b"".join(line + eol for line, eol in lines)
    expected = []
    for index, (line, eol) in enumerate(lines):
        if index == 0:  # a leading byte order mark is framing, not content
            line = line.removeprefix(b"\xef\xbb\xbf")
        if eol != b"\r\n" and line.endswith(b"\r"):
            line = line[:-1]  # a CR before the LF (or at the end) is line framing
        if line and not line.isspace():
            expected.append(line)
    whole = feed_chunks([stream])
    assert whole == expected
    bounds = [0, *sorted(c for c in cuts if c <= len(stream)), len(stream)]
    assert feed_chunks(stream[a:b] for a, b in itertools.pairwise(bounds)) == whole
    assert feed_chunks(split(stream, 1)) == whole
