"""Tests for streamkit.model.think.ThinkSplitter: results must not depend on chunking."""

from __future__ import annotations

import itertools

import pytest

from streamkit.model.think import Piece, ThinkSplitter


def merged(pieces: list[Piece]) -> list[Piece]:
    """Merge adjacent pieces of the same kind (pieces from different feed calls)."""
    out: list[Piece] = []
    for kind, text in pieces:
        assert text, "empty piece emitted"
        if out and out[-1][0] == kind:
            out[-1] = (kind, out[-1][1] + text)
        else:
            out.append((kind, text))
    return out


def run(chunks: list[str], **kwargs: object) -> list[Piece]:
    splitter = ThinkSplitter(**kwargs)  # type: ignore[arg-type]
    pieces: list[Piece] = []
    for chunk in chunks:
        got = splitter.feed(chunk)
        assert merged(got) == got, "adjacent pieces of one call were not merged"
        pieces += got
    pieces += splitter.flush()
    return merged(pieces)


def splits(text: str) -> itertools.chain[list[str]]:
    """Every split into 2 and 3 chunks, plus all 1-character chunks."""
    n = len(text)
    two = ([text[:i], text[i:]] for i in range(n + 1))
    three = ([text[:i], text[i:j], text[j:]] for i in range(n + 1) for j in range(i, n + 1))
    ones = iter([list(text)])
    return itertools.chain(two, three, ones)


CASES: list[tuple[str, dict[str, object], list[Piece]]] = [
    (
        "Hi <think>plan it</think>\nAnswer.",
        {},
        [("text", "Hi "), ("thinking", "plan it"), ("text", "\nAnswer.")],
    ),
    (
        "<think>a</think>b<think>c</think>d",
        {},
        [("thinking", "a"), ("text", "b"), ("thinking", "c"), ("text", "d")],
    ),
    ("a < b and <th</think> x", {}, [("text", "a < b and <th</think> x")]),
    ("<think>x <think> y</think>z", {}, [("thinking", "x <think> y"), ("text", "z")]),
    ("x<think></think>y", {}, [("text", "xy")]),
    ("ends with <thi", {}, [("text", "ends with <thi")]),
    ("<think>never closed </thin", {}, [("thinking", "never closed </thin")]),
    (
        "reasoning</think>\n\nThe answer",
        {"start_in_thinking": True},
        [("thinking", "reasoning"), ("text", "\n\nThe answer")],
    ),
    (
        "<thinking>t</thinking>a<think>b",
        {"open_tag": "<thinking>", "close_tag": "</thinking>"},
        [("thinking", "t"), ("text", "a<think>b")],
    ),
    (
        "<|begin_of_thought|>q<|end_of_thought|>r",
        {"open_tag": "<|begin_of_thought|>", "close_tag": "<|end_of_thought|>"},
        [("thinking", "q"), ("text", "r")],
    ),
    (
        "<<think>><</think>>",
        {},
        [("text", "<"), ("thinking", "><"), ("text", ">")],
    ),
    (
        "Use:\n```\n<think>x</think>\n```\n<think>y</think>z",
        {"ignore_in_code_fences": True},
        [("text", "Use:\n```\n<think>x</think>\n```\n"), ("thinking", "y"), ("text", "z")],
    ),
    (
        "a ```<think>b</think>\n   ```x\n<think>c",
        {"ignore_in_code_fences": True},
        [("text", "a ```"), ("thinking", "b"), ("text", "\n   ```x\n<think>c")],
    ),
    (
        "    ```\n<think>b",
        {"ignore_in_code_fences": True},
        [("text", "    ```\n"), ("thinking", "b")],
    ),
    (
        "<think>\n```\n</think>\n```\n</think>done",
        {"ignore_in_code_fences": True},
        [("thinking", "\n```\n</think>\n```\n"), ("text", "done")],
    ),
]


@pytest.mark.parametrize(("text", "kwargs", "expected"), CASES)
def test_whole_input(text: str, kwargs: dict[str, object], expected: list[Piece]) -> None:
    assert run([text], **kwargs) == expected


@pytest.mark.parametrize(("text", "kwargs", "expected"), CASES)
def test_every_chunking_gives_the_same_pieces(
    text: str, kwargs: dict[str, object], expected: list[Piece]
) -> None:
    for chunks in splits(text):
        assert run(chunks, **kwargs) == expected, chunks


def test_fences_change_nothing_when_option_is_off() -> None:
    text = "```\n<think>x</think>\n```"
    assert run([text]) == [("text", "```\n"), ("thinking", "x"), ("text", "\n```")]


def test_partial_tag_false_alarm_is_released_by_next_chunk() -> None:
    s = ThinkSplitter()
    assert s.feed("x <th") == [("text", "x ")]
    assert s.feed("e> y") == [("text", "<the> y")]
    assert s.feed("a < b") == [("text", "a < b")]
    assert s.flush() == []


def test_tag_split_at_chunk_boundaries() -> None:
    s = ThinkSplitter()
    assert s.feed("abc<") == [("text", "abc")]
    assert s.feed("think") == []
    assert s.feed(">") == []
    assert s.in_thinking
    assert s.feed("deep") == [("thinking", "deep")]
    assert s.feed("</think") == []
    assert s.feed(">\nok") == [("text", "\nok")]
    assert not s.in_thinking


def test_flush_emits_dangling_partial_tag_as_current_kind() -> None:
    s = ThinkSplitter()
    assert s.feed("see <thi") == [("text", "see ")]
    assert s.flush() == [("text", "<thi")]
    assert s.flush() == []
    t = ThinkSplitter(start_in_thinking=True)
    assert t.feed("hmm </th") == [("thinking", "hmm ")]
    assert t.flush() == [("thinking", "</th")]


def test_start_in_thinking_only_closing_tag() -> None:
    s = ThinkSplitter(start_in_thinking=True)
    assert s.in_thinking
    assert s.feed("step 1\n") == [("thinking", "step 1\n")]
    assert s.feed("</think>\n\nDone") == [("text", "\n\nDone")]
    assert not s.in_thinking


def test_newline_after_close_tag_is_kept() -> None:
    assert run(["<think>a</think>\nb"]) == [("thinking", "a"), ("text", "\nb")]


STRIP = {"strip_newlines_after_close": True}
STRIP_CASES: list[tuple[str, dict[str, object], list[Piece]]] = [
    ("<think>plan</think>\n\nHello\n\nbye", STRIP, [("thinking", "plan"),
                                                   ("text", "Hello\n\nbye")]),
    ("<think>a</think>\r\n\r\nb", STRIP, [("thinking", "a"), ("text", "b")]),
    ("<think>a</think>\n\n", STRIP, [("thinking", "a")]),  # only line breaks: no text
    ("<think>a</think> \nb", STRIP, [("thinking", "a"), ("text", " \nb")]),  # breaks only
    ("<think>\na\n</think>\nb<think>c</think>\n\nd", STRIP,
     [("thinking", "\na\n"), ("text", "b"), ("thinking", "c"), ("text", "d")]),
    ("x</think>\n\ny", {**STRIP, "start_in_thinking": True}, [("thinking", "x"), ("text", "y")]),
    ("<think>a</think>\n```\n<think>b</think>\n```\n<think>c</think>\nd",
     {**STRIP, "ignore_in_code_fences": True},
     [("thinking", "a"), ("text", "```\n<think>b</think>\n```\n"), ("thinking", "c"),
      ("text", "d")]),
]


@pytest.mark.parametrize(("text", "kwargs", "expected"), STRIP_CASES)
def test_line_breaks_after_the_closing_tag_are_dropped_on_request_whatever_the_chunks(
    text: str, kwargs: dict[str, object], expected: list[Piece]
) -> None:
    for chunks in splits(text):
        assert run(chunks, **kwargs) == expected, chunks


def test_holds_back_less_than_a_tag() -> None:
    tag = "<|begin_of_thought|>"
    s = ThinkSplitter(open_tag=tag, close_tag="<|end_of_thought|>")
    emitted = 0
    for fed, ch in enumerate("plain text with < and <| and <|begin_of and more " * 20, 1):
        emitted += sum(len(t) for _, t in s.feed(ch))
        assert fed - emitted <= len(tag) - 1


def test_empty_feed_returns_nothing() -> None:
    s = ThinkSplitter()
    assert s.feed("") == []
    assert s.feed("<thi") == []
    assert s.feed("") == []
    assert s.feed("nk>x") == [("thinking", "x")]


def test_in_code_fence_property() -> None:
    s = ThinkSplitter(ignore_in_code_fences=True)
    s.feed("a\n``")
    assert not s.in_code_fence
    s.feed("`py\n")
    assert s.in_code_fence
    s.feed("```\n")
    assert not s.in_code_fence


@pytest.mark.parametrize(
    ("kwargs"),
    [
        {"open_tag": ""},
        {"close_tag": ""},
        {"open_tag": "`x", "ignore_in_code_fences": True},
        {"close_tag": "</a\nb>", "ignore_in_code_fences": True},
    ],
)
def test_rejects_bad_tags(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        ThinkSplitter(**kwargs)  # type: ignore[arg-type]
