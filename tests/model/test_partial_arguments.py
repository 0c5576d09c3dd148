"""ToolCallBlock.partial_arguments: the incremental view a UI reads per delta."""

from __future__ import annotations

import json

import pytest
from support.recordings import FIXTURES

from streamkit import ChatResponse, ToolArgumentsError, ToolCallBlock
from streamkit.model.partial_json import PartialJSONError

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


def test_invalid_json_shows_the_last_good_value_and_says_why() -> None:
    """A view for UIs never raises: it raised PartialJSONError inside the render loop."""
    call = ToolCallBlock("c", "f", '{"a": "b", "n": x}')
    assert call.partial_arguments == {"a": "b"}  # what the valid text gave
    error = call.partial_error
    assert isinstance(error, PartialJSONError) and error.offset == 16
    assert call.input == '{"a": "b", "n": x}'
    with pytest.raises(ToolArgumentsError) as info:
        call.arguments()
    assert info.value.offset == 16


def test_a_render_loop_over_text_that_goes_bad_never_raises() -> None:
    call = ToolCallBlock("c", "write")
    shown = []
    for fragment in ['{"path": "a', '.py", "n": 1', "2,, ", '"body": "x"}', "more"]:
        call._input.append(fragment)
        shown.append((json.dumps(call.partial_arguments), call.partial_error is None))
    assert shown == [('{"path": "a"}', True), ('{"path": "a.py"}', True),
                     ('{"path": "a.py", "n": 12}', False), ('{"path": "a.py", "n": 12}', False),
                     ('{"path": "a.py", "n": 12}', False)]
    error = call.partial_error
    assert error is not None and error.offset == call.input.index(",,") + 1


def test_valid_text_has_no_partial_error_complete_or_not() -> None:
    for text in ["", "{", '{"a": [1, "x', '{"a": 1}']:
        call = ToolCallBlock("c", "f", text)
        assert call.partial_error is None


def test_replacing_the_text_clears_the_error() -> None:
    call = ToolCallBlock("c", "f", "{]")
    assert call.partial_error is not None and call.partial_arguments == {}
    call.input = '{"b": 2}'
    assert call.partial_error is None and call.partial_arguments == {"b": 2}


@pytest.mark.parametrize("text", ["[" * 10_000, '{"n": ' + "9" * 5000 + "}"])
def test_text_past_a_limit_is_a_partial_error_not_an_exception(text: str) -> None:
    call = ToolCallBlock("c", "f", text)
    value = call.partial_arguments
    assert isinstance(call.partial_error, PartialJSONError)
    assert value is None or isinstance(value, (list, dict))
    with pytest.raises(ToolArgumentsError):
        call.arguments()


def test_gemini_partial_args_and_complete_args_give_the_same_view() -> None:
    from streamkit import replay
    from streamkit.reading.pipeline import Pipeline
    from streamkit.testing import load_recording

    body, _ = load_recording(FIXTURES / "gemini/vertex-function-call-partialArgs.chunks.jsonl")
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
    body, _ = load_recording(FIXTURES / "gemini/function-call-thought-signature.sse")
    _, final = replay(body, "gemini")
    (call,) = final.tool_calls
    assert call.name == "get_country"
    assert call.partial_arguments == call.arguments() == {}  # the recorded call has no arguments
    assert call.partial_parser.done
