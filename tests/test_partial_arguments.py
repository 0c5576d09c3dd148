"""ToolCallBlock.partial_arguments: the incremental view a UI reads per delta."""

from __future__ import annotations

import json

import pytest

from streamkit import ChatResponse, ToolCallBlock
from streamkit.partial_json import PartialJSONError

DOC = {"city": "Paris", "days": 3, "units": ["c", "f"], "detail": {"hourly": True}}


def test_view_grows_with_each_fragment_and_ends_equal_to_json_loads() -> None:
    text = json.dumps(DOC)
    r = ChatResponse()
    views = []
    for i in range(0, len(text), 3):
        r.append_tool_call("c1", "weather", text[i:i + 3])
        views.append(json.dumps(r.tool_calls[0].partial_arguments))
    call = r.tool_calls[0]
    assert call.partial_arguments == json.loads(call.input) == DOC
    assert call.partial_parser.done and call.partial_parser.is_complete(("units",))
    assert views[0] == "{}"  # '{"c' : the key is not complete yet
    assert any('"city": "Pa"' in v for v in views)  # partial strings show
    for view in views:  # numbers never appear half-typed
        loaded = json.loads(view)
        assert loaded.get("days") in (None, 3)


def test_replaced_input_is_parsed_afresh() -> None:
    call = ToolCallBlock("c", "f", '{"a": "x')
    assert call.partial_arguments == {"a": "x"}
    call.input = '{"b": 2}'
    assert call.partial_arguments == {"b": 2}


def test_invalid_json_is_a_typed_error_and_the_text_is_kept() -> None:
    call = ToolCallBlock("c", "f", '{"a": x}')
    with pytest.raises(PartialJSONError) as info:
        _ = call.partial_arguments
    assert info.value.offset == 6
    assert call.input == '{"a": x}'


def test_deep_nesting_is_an_error_not_a_recursion_error() -> None:
    call = ToolCallBlock("c", "f", "[" * 10_000)
    with pytest.raises(PartialJSONError):
        _ = call.partial_arguments


def test_gemini_partial_args_and_complete_args_give_the_same_view() -> None:
    from pathlib import Path

    from streamkit import replay
    from streamkit.pipeline import Pipeline
    from streamkit.testing import load_recording

    fixtures = Path(__file__).parent / "fixtures"
    body, _ = load_recording(fixtures / "gemini/vertex-function-call-partialArgs.chunks.jsonl")
    views: list[object] = []
    pipeline = Pipeline("gemini")
    for i in range(0, len(body), 64):  # read the view after every network chunk
        pipeline.feed(body[i:i + 64])
        views += [json.dumps(c.partial_arguments) for c in pipeline.response.tool_calls]
    pipeline.finish()
    streamed = [c.partial_arguments for c in pipeline.response.tool_calls]
    assert streamed == [c.arguments() for c in pipeline.response.tool_calls]
    assert streamed == [{"location": "Boston"}, {"location": "San Francisco"}]
    assert len(set(views)) > 2  # the view grew while the arguments streamed
    body, _ = load_recording(fixtures / "gemini/function-call-thought-signature.sse")
    _, final = replay(body, "gemini")
    (call,) = final.tool_calls
    assert call.name == "get_country"
    assert call.partial_arguments == call.arguments() == {}  # the recorded call has no arguments
    assert call.partial_parser.done
