"""Tests for streamkit.model.partial_json: incremental views, final equality, errors, paths."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.recordings import FIXTURES

from streamkit.model.json_path import JSONPathBuilder, parse_json_path
from streamkit.model.limits import MAX_JSON_DEPTH
from streamkit.model.partial_json import PartialJSON, PartialJSONError


def views(fragments: list[str]) -> tuple[PartialJSON, list[Any]]:
    """Feed fragments one by one; return the parser and a deep copy of each view."""
    p = PartialJSON()
    seen = []
    for f in fragments:
        p.feed(f)
        seen.append(json.loads(json.dumps(p.value)) if p.value is not None else None)
    return p, seen


def check_view(p: PartialJSON, view: Any, final: Any, path: tuple[str | int, ...]) -> None:
    """Assert ``view`` is a prefix-consistent approximation of ``final`` at ``path``."""
    complete = p.is_complete(path)
    if complete:
        assert view == final and type(view) is type(final), path
    if isinstance(view, dict):
        assert isinstance(final, dict), path
        keys = list(view)
        assert keys == list(final)[: len(keys)], path  # document order, known keys only
        for k in keys:
            check_view(p, view[k], final[k], (*path, k))
    elif isinstance(view, list):
        assert isinstance(final, list), path
        assert len(view) <= len(final), path
        for i, item in enumerate(view):
            check_view(p, item, final[i], (*path, i))
    elif isinstance(view, str):
        assert isinstance(final, str), path
        assert final.startswith(view), path
    else:  # a scalar is only ever shown once complete, so it is final
        assert complete, path
        assert view == final and type(view) is type(final), path


# ---------------------------------------------------------------- property test

json_text = st.text(alphabet=st.characters(exclude_categories=()), max_size=12)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | json_text,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(json_text, children, max_size=4)
    ),
    max_leaves=25,
)


@settings(max_examples=200, deadline=None)
@given(
    value=json_values,
    indent=st.sampled_from([None, 2]),
    ensure_ascii=st.booleans(),
    data=st.data(),
)
def test_every_view_is_consistent_with_the_final_value(
    value: Any, indent: int | None, ensure_ascii: bool, data: st.DataObject
) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ensure_ascii)
    if data.draw(st.booleans(), label="one char per fragment"):
        cuts = list(range(1, len(text)))
    else:
        cuts = sorted(
            set(data.draw(st.lists(st.integers(0, len(text)), max_size=30), label="cuts"))
        )
    bounds = [0, *cuts, len(text)]
    fragments = [text[a:b] for a, b in itertools.pairwise(bounds)]
    p = PartialJSON()
    for fragment in fragments:
        p.feed(fragment)
        view = p.value
        if view is None and not p.done:
            assert not p.is_complete(())
            continue
        check_view(p, view, value, ())
    result = p.finish()
    assert result == value == json.loads(text)
    assert p.done and p.is_complete(())
    assert p.text == text


# ---------------------------------------------------------------- view semantics


def test_number_is_not_shown_until_a_delimiter_follows() -> None:
    _, seen = views(list('{"a": 1.5e3, "b": [2, -0.25]}'))
    assert seen[: len('{"a": 1.5e3')] == [{}] * len('{"a": 1.5e3')
    assert seen[len('{"a": 1.5e3,') - 1] == {"a": 1500.0}
    assert seen[len('{"a": 1.5e3, "b": [2') - 1] == {"a": 1500.0, "b": []}
    assert seen[len('{"a": 1.5e3, "b": [2,') - 1] == {"a": 1500.0, "b": [2]}
    assert seen[-3] == {"a": 1500.0, "b": [2]}  # -0.25 awaits its ']'
    assert seen[-2] == seen[-1] == {"a": 1500.0, "b": [2, -0.25]}


def test_incomplete_number_view_is_empty_object() -> None:
    p = PartialJSON()
    p.feed('{"a": 1.5')
    assert p.value == {}
    assert not p.is_complete(("a",))
    p.feed("}")
    assert p.value == {"a": 1.5}


def test_top_level_number_needs_delimiter_or_finish() -> None:
    p = PartialJSON()
    p.feed("42")
    assert p.value is None and not p.done
    assert p.finish() == 42
    q = PartialJSON()
    q.feed("42 ")
    assert q.value == 42 and q.done


def test_literals_only_when_complete() -> None:
    p = PartialJSON()
    p.feed("[tr")
    assert p.value == []
    p.feed("ue, fal")
    assert p.value == [True]
    p.feed("se, nul")
    assert p.value == [True, False]
    p.feed("l")
    assert p.value == [True, False, None]
    top = PartialJSON()
    top.feed("nul")
    assert not top.done
    top.feed("l")
    assert top.done and top.value is None


def test_key_appears_only_when_complete_and_its_value_started() -> None:
    p = PartialJSON()
    for fragment, expected in [
        ('{"ab', {}),
        ('"', {}),
        (": ", {}),
        ('"', {"ab": ""}),
        ("c", {"ab": "c"}),
        ('", "l": ', {"ab": "c"}),
        ("[", {"ab": "c", "l": []}),
        ('{"x"', {"ab": "c", "l": [{}]}),
        (":{", {"ab": "c", "l": [{"x": {}}]}),
    ]:
        p.feed(fragment)
        assert p.value == expected, fragment


def test_escapes_appear_only_when_complete() -> None:
    p = PartialJSON()
    for fragment, expected in [
        ('"x\\', "x"),
        ("n", "x\n"),
        ("\\u00", "x\n"),
        ("e", "x\n"),
        ("9", "x\né"),
        ("\\", "x\né"),
        ('"', 'x\né"'),
        ('"', 'x\né"'),
    ]:
        p.feed(fragment)
        assert p.value == expected, fragment
    assert p.done


def test_surrogate_pair_split_across_fragments() -> None:
    p = PartialJSON()
    for fragment, expected in [
        ('["\\ud8', [""]),
        ("3d", [""]),
        ("\\", [""]),
        ("ude", [""]),
        ("00", ["\U0001f600"]),
        ('!"]', ["\U0001f600!"]),
    ]:
        p.feed(fragment)
        assert p.value == expected, fragment
    assert p.finish() == ["\U0001f600!"]


@pytest.mark.parametrize(
    "text",
    [
        '"\\ud83dx"',  # lone high surrogate, then a plain char
        '"\\ud83d"',  # lone high surrogate at the end
        '"\\ud83d\\u0041"',  # high surrogate followed by a non-surrogate escape
        '"\\ud83d\\ud83d\\ude00"',  # lone high, then a pair
        '"\\ude00\\ud83d\\n"',  # lone low, lone high, other escape
        '"\\/\\b\\f\\r\\t\\"\\\\"',
    ],
)
def test_surrogate_and_escape_edge_cases_match_json(text: str) -> None:
    for fragments in ([text], list(text)):
        p = PartialJSON()
        for f in fragments:
            p.feed(f)
        assert p.finish() == json.loads(text)


def test_value_is_the_same_object_mutated_in_place() -> None:
    p = PartialJSON()
    p.feed('{"items": [')
    root = p.value
    items = root["items"]
    p.feed('{"n": "a')
    p.feed('bc"}, 1')
    assert p.value is root and root["items"] is items
    assert items == [{"n": "abc"}]


def test_open_path_and_is_complete() -> None:
    p = PartialJSON()
    assert p.open_path is None and not p.is_complete(())
    p.feed('{"a": [1, "x')
    assert p.open_path == ("a", 1)
    assert p.is_complete(("a", 0))
    assert not p.is_complete(("a",))
    assert not p.is_complete(("a", 1))
    assert not p.is_complete(())
    assert not p.is_complete(("b",))
    assert not p.is_complete(("a", 2))
    p.feed('"]')
    assert p.open_path == ()
    assert p.is_complete(("a",)) and p.is_complete(("a", 1))
    assert not p.done
    p.feed(', "b": 7')
    assert not p.is_complete(("b",))
    p.feed("}")
    assert p.done and p.open_path is None
    assert p.is_complete(()) and p.is_complete(("b",))


def test_top_level_partial_string() -> None:
    p = PartialJSON()
    p.feed('  "he')
    assert p.value == "he" and p.open_path == () and not p.done
    p.feed('llo"  ')
    assert p.value == "hello" and p.done
    assert p.finish() == "hello"


def test_whitespace_and_empty_fragments() -> None:
    p = PartialJSON()
    p.feed("")
    p.feed(" \n\t\r ")
    assert p.value is None and not p.done
    p.feed('{ "a" :\n [ ] ,"b":{ } }')
    p.feed("")
    p.feed(" \r\n")
    assert p.finish() == {"a": [], "b": {}}


def test_linear_work_however_fragmented() -> None:
    doc = {
        "title": "x" * 2000,
        "rows": [{"id": i, "v": i / 7, "ok": i % 2 == 0, "s": "é\n" * 10} for i in range(200)],
    }
    text = json.dumps(doc, indent=1)
    for size in (1, 3, 50, len(text)):
        p = PartialJSON()
        for i in range(0, len(text), size):
            p.feed(text[i : i + size])
            _ = p.value
        assert p.finish() == doc
        # Main-loop iterations: at most two per character (a number end is
        # handled twice) -- nothing fed earlier is ever scanned again.
        assert p._work <= 2 * len(text), size


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "text",
    [
        '{"a": x}',
        "[01]",
        "[1.x]",
        "[-]",
        "[tru]",
        '"\\x"',
        '"\\u12x4"',
        '"a\x01"',
        "[1,]",
        '{"a" 1}',
        "{1:2}",
        "1 2",
        "[1-2]",
        "truex",
        "[1}",
        '{"a":1]',
        "[1 2]",
        '{"a":1 "b":2}',
        '{"a":1,}',
        '{"a":1} x',
        "{} {}",
    ],
)
def test_invalid_json_offset_matches_json_module(text: str) -> None:
    with pytest.raises(json.JSONDecodeError) as expected:
        json.loads(text)
    for fragments in ([text], list(text)):
        p = PartialJSON()
        with pytest.raises(PartialJSONError) as err:
            for f in fragments:
                p.feed(f)
            p.finish()
        assert err.value.offset == expected.value.pos, fragments
        assert text.startswith(p.text) and len(p.text) > err.value.offset


def test_nan_and_infinity_are_rejected() -> None:
    for text, offset in [("[NaN]", 1), ("-Infinity", 0), ('{"a": Infinity}', 6)]:
        p = PartialJSON()
        with pytest.raises(PartialJSONError) as err:
            p.feed(text)
            p.finish()
        assert err.value.offset == offset, text


def test_error_details_and_stickiness() -> None:
    p = PartialJSON()
    p.feed('{"a": ')
    with pytest.raises(PartialJSONError) as err:
        p.feed("x}")
    assert isinstance(err.value, ValueError)
    assert err.value.offset == 6
    assert "offset 6" in str(err.value)
    assert p.text == '{"a": x}'
    assert p.value == {}
    with pytest.raises(PartialJSONError):
        p.feed("1")
    with pytest.raises(PartialJSONError):
        p.finish()


def test_depth_limit_raises_partial_json_error_not_recursion_error() -> None:
    p = PartialJSON()  # the default limit is streamkit.model.limits.MAX_JSON_DEPTH
    with pytest.raises(PartialJSONError) as err:
        p.feed("[" * 10_000)
    assert err.value.offset == MAX_JSON_DEPTH
    ok = PartialJSON()
    ok.feed("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH)
    assert ok.finish() == json.loads("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH)
    small = PartialJSON(max_depth=2)
    small.feed('{"a": [')
    with pytest.raises(PartialJSONError) as err:
        small.feed("{")
    assert err.value.offset == 7
    with pytest.raises(ValueError):
        PartialJSON(max_depth=0)


@pytest.mark.parametrize(
    ("text", "offset"),
    [
        ('{"a": 1', 7),
        ("", 0),
        ("   ", 3),
        ('"abc', 4),
        ("[1,", 3),
        ('{"a"', 4),
        ("tru", 3),
        ("-", 0),  # an invalid number is reported where it goes wrong
        ("1.", 1),
    ],
)
def test_finish_on_incomplete_raises(text: str, offset: int) -> None:
    p = PartialJSON()
    p.feed(text)
    with pytest.raises(PartialJSONError) as err:
        p.finish()
    assert err.value.offset == offset
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)


def test_trailing_garbage_after_complete_value() -> None:
    p = PartialJSON()
    p.feed('{"a": 1}')
    assert p.done
    with pytest.raises(PartialJSONError) as err:
        p.feed(" , ")
    assert err.value.offset == 9


def test_feed_after_finish_raises() -> None:
    p = PartialJSON()
    p.feed("1")
    assert p.finish() == 1
    assert p.finish() == 1
    with pytest.raises(PartialJSONError):
        p.feed("2")


# ---------------------------------------------------------------- JSONPathBuilder


def build(updates: list[tuple[str, Any, bool]]) -> tuple[str, list[str]]:
    b = JSONPathBuilder()
    deltas = [b.update(*u) for u in updates]
    deltas.append(b.close())
    assert b.text == "".join(deltas)
    return "".join(deltas), deltas


def test_path_builder_streams_string_pieces() -> None:
    text, deltas = build(
        [("$.location", "Bos", True), ("$.location", "ton", False), ("$.unit", "c", False)]
    )
    assert json.loads(text) == {"location": "Boston", "unit": "c"}
    # Append-only: every prefix of the output parses incrementally without error.
    p = PartialJSON()
    for d in deltas:
        p.feed(d)
    assert p.value == {"location": "Boston", "unit": "c"}


def test_path_builder_nested_objects_and_arrays() -> None:
    updates = [
        ("$.a.b", 1, False),
        ("$.a.c", 'q"\n\u00e9', False),
        ("$.items[0].name", "n0", False),
        ("$.items[0].qty", 2.5, False),
        ("$.items[1].name", "n", True),
        ("$.items[1].name", "1", True),
        ("$.items[1].name", "", False),
        ("$.tags[0]", "t", False),
        ("$.tags[1]", None, False),
        ("$['odd.key']", True, False),
        ("$.deep[0][0]", False, False),
        ("$.deep[0][1]", 3, False),
        ("$.deep[1][0]", "x", False),
    ]
    text, deltas = build(updates)
    assert json.loads(text) == {
        "a": {"b": 1, "c": 'q"\n\u00e9'},
        "items": [{"name": "n0", "qty": 2.5}, {"name": "n1"}],
        "tags": ["t", None],
        "odd.key": True,
        "deep": [[False, 3], ["x"]],
    }
    p = PartialJSON()
    for d in deltas:
        p.feed(d)
    assert p.finish() == json.loads(text)


def test_path_builder_no_updates_is_empty_object() -> None:
    b = JSONPathBuilder()
    assert b.close() == "{}"
    assert b.close() == ""


def test_path_builder_open_string_closed_by_another_path_or_close() -> None:
    text, _ = build([("$.a", "x", True), ("$.b", "y", True)])
    assert json.loads(text) == {"a": "x", "b": "y"}


@pytest.mark.parametrize(
    "updates",
    [
        [("$.items[0]", 1, False), ("$.items[2]", 2, False)],  # index gap
        [("$.a.x", 1, False), ("$.b", 2, False), ("$.a.y", 3, False)],  # back into a
        [("$.a", 1, False), ("$.a", 2, False)],  # duplicate key
        [("$.a[0]", 1, False), ("$.a.b", 2, False)],  # key into an array
        [("$.a", 1, True)],  # non-string continuing
        [("$", 1, False)],  # root is not a member
        [("$.a", "x", True), ("$.a", 5, False)],  # non-string piece for a string
    ],
)
def test_path_builder_rejects_out_of_order_updates(updates: list[tuple[str, Any, bool]]) -> None:
    b = JSONPathBuilder()
    with pytest.raises(ValueError):
        for u in updates:
            b.update(*u)


def test_path_builder_update_after_close_raises() -> None:
    b = JSONPathBuilder()
    b.update("$.a", 1)
    b.close()
    with pytest.raises(ValueError):
        b.update("$.b", 2)


def test_parse_json_path() -> None:
    assert parse_json_path("$.items[0].name") == ("items", 0, "name")
    assert parse_json_path('$[\'a.b\']["c\\"d"]') == ("a.b", 'c"d')
    with pytest.raises(ValueError):
        parse_json_path("items")
    with pytest.raises(ValueError):
        parse_json_path("$.a[x]")


def test_path_builder_on_vertex_fixture() -> None:
    """Two calls from a recorded Vertex stream: name first, then partialArgs, then {}."""
    calls: list[tuple[str, str]] = []
    builder: JSONPathBuilder | None = None
    name = ""
    text = ""
    lines = (FIXTURES / "gemini/vertex-function-call-partialArgs.chunks.jsonl").read_text()
    for line in lines.splitlines():
        for part in json.loads(line)["candidates"][0]["content"]["parts"]:
            fc = part.get("functionCall")
            if fc is None:
                continue
            if "name" in fc:
                builder, name, text = JSONPathBuilder(), fc["name"], ""
            elif not fc and builder is not None:
                calls.append((name, text + builder.close()))
                builder = None
            for arg in fc.get("partialArgs", []):
                assert builder is not None
                value = next(arg[k] for k in arg if k.endswith("Value"))
                text += builder.update(arg["jsonPath"], value, arg.get("willContinue", False))
    assert [(n, json.loads(t)) for n, t in calls] == [
        ("getWeather", {"location": "Boston"}),
        ("getWeather", {"location": "San Francisco"}),
    ]
