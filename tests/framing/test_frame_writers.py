"""The framing layer's writers (one per framing, over one JSON rule) and the
encoder core's rules: dispatch by a table, every frame through a writer,
both finish tables and ``NAME`` in every wire's ``wire.py``.

Each writer is checked against its reader (``SSEDecoder``, ``NDJSONDecoder``,
the standard library's JSON), never against itself."""

from __future__ import annotations

import importlib
import json
import math
import re
from pathlib import Path
from typing import Any, get_args

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import streamkit
from streamkit.framing.encoding import json_bytes
from streamkit.framing.json_array import JSONArrayWriter
from streamkit.framing.ndjson import NDJSONDecoder, ndjson_line
from streamkit.framing.sse import SSEDecoder, SSEWriter, sse_event
from streamkit.model.events import Event, TextDelta
from streamkit.model.finish import FinishReason
from streamkit.providers import WIRE_NAMES, wire_format
from streamkit.providers.encoder import StreamEncoder, arguments_json
from streamkit.web import UIMessageStreamEncoder

SEPARATORS = "\u2028\u2029\x85"
_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(codec=None)),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(st.characters(codec=None), max_size=4), inner, max_size=4),
    max_leaves=12)


# ---------------------------------------------------------------- the one JSON rule


def _as_json_reads(value: Any) -> Any:
    """``value`` as a JSON reader gives it back: a high and a low surrogate
    side by side become the character they are the pair of."""
    if isinstance(value, str):
        return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    if isinstance(value, list):
        return [_as_json_reads(item) for item in value]
    if isinstance(value, dict):
        return {_as_json_reads(key): _as_json_reads(item) for key, item in value.items()}
    return value


@settings(max_examples=300, deadline=None)
@given(value=_JSON_VALUES)
def test_any_value_is_valid_utf8_json_without_separators_and_reads_back(value: Any) -> None:
    written = json_bytes(value)
    written.decode("utf-8")  # strict
    assert not any(raw.encode() in written for raw in SEPARATORS)
    assert json.loads(written) == _as_json_reads(value)


def test_the_common_case_is_msgspecs_bytes() -> None:
    for value in ({"type": "text_delta", "text": " world"}, {"t": "caf\u00e9 \u201cquoted\u201d"}):
        assert json_bytes(value) == msgspec.json.encode(value)


def test_a_lone_surrogate_is_its_escape_and_the_separators_theirs() -> None:
    written = json_bytes({"k\ud800": ["a\udfffb", "one\u2028two\u2029three\x85"]})
    assert written == b'{"k\\ud800":["a\\udfffb","one\\u2028two\\u2029three\\u0085"]}'


def test_the_surrogate_path_says_every_other_value_as_msgspec_does() -> None:
    class Point(msgspec.Struct):
        x: float

    value = {"bytes": b"\x00\xff", "point": Point(math.nan), "tuple": (1, math.inf), "s": "\ud800"}
    plain = {**value, "s": "x"}
    assert json.loads(json_bytes(value)) == {**json.loads(msgspec.json.encode(plain)),
                                             "s": "\ud800"}


def test_a_value_json_cannot_say_still_raises() -> None:
    with pytest.raises(TypeError):
        json_bytes({"a": object()})


def test_tool_arguments_keep_their_meaning_with_a_lone_surrogate_escaped() -> None:
    text = '{"q": "caf\u00e9 \ud800"}'
    assert arguments_json(text) == '{"q": "caf\u00e9 \\ud800"}'
    assert json.loads(arguments_json(text)) == json.loads(text)
    assert arguments_json('{"q": 1}') == '{"q": 1}'


# ---------------------------------------------------------------- each framing's writer


def _sse_read(written: bytes) -> list[tuple[str, str]]:
    decoder = SSEDecoder()
    return [(event.event, event.data) for event in decoder.feed(written) + decoder.flush()]


def test_an_sse_event_reads_back_as_its_name_and_json() -> None:
    written = sse_event({"a": "x\ny\u2028"}, "content_block_delta") + sse_event({"b": 1})
    assert written.count(b"\n\n") == 2
    assert [(name, json.loads(data)) for name, data in _sse_read(written)] == [
        ("content_block_delta", {"a": "x\ny\u2028"}), ("message", {"b": 1})]


def test_bytes_are_sent_as_they_are_each_line_its_own_data_line() -> None:
    assert sse_event(b"[DONE]") == b"data: [DONE]\n\n"
    assert _sse_read(sse_event(b"a\r\nb\rc\n")) == [("message", "a\nb\nc\n")]


def test_crlf_frames_read_as_lf_frames_do() -> None:
    crlf = SSEWriter(b"\r\n").event({"x": 1}, "e")
    assert crlf == b"event: e\r\ndata: {\"x\":1}\r\n\r\n"
    assert _sse_read(crlf) == _sse_read(sse_event({"x": 1}, "e"))


def test_an_event_name_cannot_forge_a_frame() -> None:
    for name in ("a\nb", "a\rdata: x"):
        with pytest.raises(ValueError, match="line break"):
            sse_event({}, name)
    with pytest.raises(ValueError, match="LF or CRLF"):
        SSEWriter(b"\r")


def test_the_kept_heads_are_bounded() -> None:
    writer = SSEWriter()
    for number in range(2 * SSEWriter.MAX_KEPT_HEADS):
        assert _sse_read(writer.event({}, f"e{number}")) == [(f"e{number}", "{}")]
    assert len(writer._heads) == SSEWriter.MAX_KEPT_HEADS


def test_ndjson_lines_read_back_one_value_each() -> None:
    values = [{"content": "one\u2028two\x85"}, {"content": "a\ud800"}, {"done": True}]
    written = b"".join(ndjson_line(value) for value in values)
    assert written.count(b"\n") == 3
    lines = NDJSONDecoder().feed(written)
    assert [json.loads(line) for line in lines] == values
    assert [json.loads(line) for line in written.decode().splitlines()] == values  # as ollama


def test_a_json_array_reads_back_whole() -> None:
    writer = JSONArrayWriter(b",\r\n")
    written = b"".join(writer.item({"n": n}) for n in range(3)) + writer.end()
    assert written.startswith(b"[{") and written.count(b",\r\n") == 2
    assert json.loads(written) == [{"n": 0}, {"n": 1}, {"n": 2}]
    assert JSONArrayWriter().end() == b"[]"
    with pytest.raises(ValueError, match="comma"):
        JSONArrayWriter(b";")


# ---------------------------------------------------------------- the encoder core


@pytest.mark.parametrize("encoder", [UIMessageStreamEncoder(),
                                     *(wire_format(name).encode_stream(None)
                                       for name in WIRE_NAMES)],
                         ids=["web", *WIRE_NAMES])
def test_every_event_type_has_a_handler_and_nothing_else_does(encoder: StreamEncoder) -> None:
    assert set(encoder._handlers) == set(get_args(Event))
    with pytest.raises(TypeError, match="not a streamkit event: TextDelta"):
        encoder.feed(TextDelta("x"))  # type: ignore[arg-type]


PACKAGE = Path(streamkit.__file__).parent
_HAND_WRITTEN = re.compile(rb'b"data: |b"event: |\+ b"\\n"\s*$|json\.encode\([^)]*\) \+ b"', re.M)


def test_no_frame_is_written_by_hand_outside_the_framing_layer() -> None:
    found = [str(path.relative_to(PACKAGE)) for path in sorted(PACKAGE.rglob("*.py"))
             if path.parent.name != "framing" and _HAND_WRITTEN.search(path.read_bytes())]
    assert found == []


@pytest.mark.parametrize("name", WIRE_NAMES)
def test_every_wire_names_itself_and_has_both_finish_tables_in_its_wire_module(
        name: str) -> None:
    tables = importlib.import_module(f"streamkit.providers.{name.replace('-', '_')}.wire")
    assert name == tables.NAME
    assert not hasattr(tables, "WIRE_NAME")
    assert dict(tables.FINISH_REASONS) == dict(wire_format(name).finish_reasons)
    words = tables.FINISH_WORDS
    assert set(words) == set(FinishReason), "a word (or None) for every uniform reason"
    for reason, word in words.items():  # each word is one the wire's reader knows
        assert word is None or word in tables.FINISH_REASONS or word == "OTHER", (reason, word)
    for word, reason in tables.FINISH_REASONS.items():  # a reason it has a word for: one
        assert words[reason] is not None and tables.FINISH_REASONS[words[reason]] is reason, word
