"""parse_request / parse_response on hostile bodies: one promised error, on every wire.

Every malformed body raises ``InvalidBodyError`` (an error body: the
``ProviderError`` its stream would raise), fixed where each class of defect
lives: the depth and JSON checks before any reader walks the body, typed
readers in the wires. The codec keeps a last line for whatever a reader still
trips over; these tests say a class is fixed at its root by checking that
the error was not made by that last line (it keeps the reader's exception as
``__cause__``). ``tests/support/write_fuzzing.py`` runs the same contract on mutated
recorded bodies.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from support.growth import assert_linear

import streamkit
from streamkit import (
    InvalidBodyError,
    StreamkitError,
    UnsupportedFeatureError,
    build_request,
    parse_request,
    parse_response,
)
from streamkit.model.limits import MAX_JSON_DEPTH, json_depth, nested_deeper_than

REQUESTS: dict[str, dict[str, Any]] = {
    "openai": {"model": "m", "messages": [{"role": "user", "content": "TEXT"}]},
    "openai-responses": {"model": "m", "input": [{"role": "user", "content": "TEXT"}]},
    "anthropic": {"model": "m", "max_tokens": 5,
                  "messages": [{"role": "user", "content": "TEXT"}]},
    "gemini": {"contents": [{"role": "user", "parts": [{"text": "TEXT"}]}]},
    "ollama": {"model": "m", "messages": [{"role": "user", "content": "TEXT"}]},
}

RESPONSES: dict[str, dict[str, Any]] = {
    "openai": {"id": "c", "object": "chat.completion", "model": "m", "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "TEXT"},
         "finish_reason": "stop"}]},
    "openai-responses": {"id": "resp_1", "object": "response", "status": "completed",
                         "model": "m", "output": [
                             {"type": "message", "id": "msg_1", "role": "assistant",
                              "status": "completed", "content": [
                                  {"type": "output_text", "text": "TEXT", "annotations": []}]}]},
    "anthropic": {"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
                  "content": [{"type": "text", "text": "TEXT"}], "stop_reason": "end_turn",
                  "usage": {"input_tokens": 1, "output_tokens": 1}},
    "gemini": {"candidates": [{"content": {"role": "model", "parts": [{"text": "TEXT"}]},
                               "finishReason": "STOP"}]},
    "ollama": {"model": "m", "created_at": "t", "done": True, "done_reason": "stop",
               "message": {"role": "assistant", "content": "TEXT"}},
}

WIRES = list(REQUESTS)


def _with(body: dict[str, Any], text: Any) -> dict[str, Any]:
    """``body`` with its text ``TEXT`` replaced by ``text`` (any value)."""
    marker = "__streamkit_value__"
    filled: dict[str, Any] = json.loads(json.dumps(body).replace("TEXT", marker))

    def put(node: Any) -> Any:
        if node == marker:
            return text
        if isinstance(node, dict):
            return {key: put(item) for key, item in node.items()}
        if isinstance(node, list):
            return [put(item) for item in node]
        return node

    return put(filled)  # type: ignore[no-any-return]


def _nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


def refused_at_the_root(call: Callable[[], Any]) -> InvalidBodyError:
    """The InvalidBodyError ``call`` raises, made where its class of defect lives:
    not by the codec's last line (which keeps another exception as the cause)."""
    with pytest.raises(InvalidBodyError) as info:
        call()
    cause = info.value.__cause__
    assert cause is None or isinstance(cause, StreamkitError), repr(cause)
    return info.value


# ---------------------------------------------------------------- lone surrogates


@pytest.mark.parametrize("wire", WIRES)
def test_a_lone_surrogate_in_a_request_is_kept_and_written_back(wire: str) -> None:
    body = _with(REQUESTS[wire], "a\ud800b")
    request = parse_request(wire, body)
    assert build_request(wire, request) == body


def test_a_lone_surrogate_in_a_call_id_for_a_vendor_of_fixed_ids_gives_one() -> None:
    """Mistral takes nine-letter call ids: the one derived from an id holding a
    lone surrogate was hashed with a strict encode (``UnicodeEncodeError``)."""
    call = {"id": "call_\ud800", "type": "function",
            "function": {"name": "f", "arguments": "{}"}}
    body = {"model": "m", "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_\ud800", "content": "ok"}]}
    built = build_request("mistral", parse_request("openai", body), model="m")
    written = built["messages"][1]["tool_calls"][0]["id"]
    assert len(written) == 9 and written == built["messages"][2]["tool_call_id"]


@pytest.mark.parametrize("wire", WIRES)
def test_a_lone_surrogate_in_a_response_reads_as_the_same_text_does(wire: str) -> None:
    body = _with(RESPONSES[wire], "a\ud800b")
    response = parse_response(wire, body)
    assert response.text == "a?b"  # as a stream reads text holding one
    assert response.text == parse_response(wire, json.dumps(body, ensure_ascii=False)).text


@pytest.mark.parametrize("wire", ["ollama", "anthropic", "gemini"])
def test_tool_arguments_holding_a_lone_surrogate_are_read_and_written_back(wire: str) -> None:
    bodies = {
        "ollama": {"model": "m", "messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"function": {"name": "f", "arguments": {"a": "x\ud800"}}}]}]},
        "anthropic": {"model": "m", "max_tokens": 5, "messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "t1", "name": "f", "input": {"a": "x\ud800"}}]}]},
        "gemini": {"contents": [
            {"role": "user", "parts": [{"text": "q"}]},
            {"role": "model", "parts": [
                {"functionCall": {"name": "f", "args": {"a": "x\ud800"}}}]}]},
    }
    request = parse_request(wire, bodies[wire])
    call = request.messages[1].content[0]  # type: ignore[union-attr, index]
    assert isinstance(call, streamkit.ToolCallBlock) and call.arguments() == {"a": "x\ud800"}
    assert build_request(wire, request) == bodies[wire]


# ---------------------------------------------------------------- wrong types


@pytest.mark.parametrize("role", [[], {}, ["user"], 1, None])
@pytest.mark.parametrize("wire", WIRES)
def test_a_role_that_is_not_a_string_is_refused_or_read(wire: str, role: Any) -> None:
    """Refused by the wire's reader (a list raised TypeError: ``in`` a frozenset),
    or read as a message without a known role; either way the request builds."""
    body = json.loads(json.dumps(REQUESTS[wire]))
    messages = body.get("messages") or body.get("contents") or body.get("input")
    messages[0]["role"] = role
    try:
        request = parse_request(wire, body)
    except InvalidBodyError:
        refused_at_the_root(lambda: parse_request(wire, body))
    else:
        assert isinstance(build_request(wire, request), dict)


@pytest.mark.parametrize("entry", [0, None, "googleSearch", []])
def test_gemini_tool_entries_that_are_not_objects_are_kept_as_they_are(entry: Any) -> None:
    body = {**REQUESTS["gemini"], "tools": [entry]}
    assert build_request("gemini", parse_request("gemini", body)) == body


@pytest.mark.parametrize("body", [[None], 3, None])
@pytest.mark.parametrize("wire", WIRES)
def test_a_request_body_that_is_no_object_is_an_invalid_body(wire: str, body: Any) -> None:
    """Found by ``make fuzz``: a list reached the Ollama reader's ``dict()``."""
    with pytest.raises(InvalidBodyError, match="is a JSON object") as refused:
        parse_request(wire, body)
    assert refused.value.wire == streamkit.providers.wire_of(wire)[0]


# ---------------------------------------------------------------- limits


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 990, 5000])
@pytest.mark.parametrize("wire", WIRES)
def test_deep_bodies_are_refused_before_a_reader_walks_them(wire: str, depth: int) -> None:
    for parse, body in ((parse_request, REQUESTS[wire]), (parse_response, RESPONSES[wire])):
        deep = _with(body, _nested(depth))
        error = refused_at_the_root(lambda: parse(wire, deep))  # noqa: B023
        assert "nests" in str(error) and str(MAX_JSON_DEPTH) in str(error)
        assert error.wire  # the wire format's name


@pytest.mark.parametrize("wire", WIRES)
def test_the_deepest_allowed_body_is_read(wire: str) -> None:
    body = {**REQUESTS[wire], "x_vendor_field": _nested(MAX_JSON_DEPTH - 2)}
    parse_request(wire, body)  # kept or refused by the wire's rules, not by the depth limit


def _at_the_depth_limit(source: str) -> tuple[dict[str, Any], str, str]:
    """A body of ``source`` whose deepest value a build for another wire writes
    deeper (a wire it then exceeds the limit for, where): Ollama's ``format``
    schema (one level down; three in OpenAI Chat), OpenAI Chat tool arguments
    (text: no depth; Anthropic's ``input`` object)."""
    if source == "ollama":
        schema: dict[str, Any] = {"type": "string"}
        while json_depth(json.dumps({"format": schema})) < MAX_JSON_DEPTH:
            schema = {"type": "object", "properties": {"a": schema}}
        return ({**_with(REQUESTS["ollama"], "hi"), "format": schema}, "openai",
                "response_format.json_schema.schema.properties.a")
    arguments = '{"a": ' + "[" * (MAX_JSON_DEPTH - 4) + "]" * (MAX_JSON_DEPTH - 4) + "}"
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}
    return ({"model": "m", "messages": [
        {"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"}]}, "anthropic",
        "messages[1].content[0].input.a")


def test_a_values_nesting_is_its_jsons_depth_without_encoding_it() -> None:
    """The builder's check walks a body's containers instead of encoding it:
    it must say what the JSON's depth says, around the limit, whatever holds
    the deepest branch (dicts, lists, tuples, a shallower sibling; text with
    brackets does not count)."""
    wrappers: list[tuple[int, Callable[[Any], Any]]] = [
        (1, lambda v: [v]), (1, lambda v: {"k": v, "s": "]}"}), (1, lambda v: ("x", v)),
        (2, lambda v: {"a": [[1]], "b": [2, v]})]
    rng = random.Random(31)
    seen = set()
    for _ in range(200):
        value: Any = "[{" * rng.randrange(3)
        depth, goal = 0, rng.randrange(MAX_JSON_DEPTH - 3, MAX_JSON_DEPTH + 4)
        while depth < goal:
            levels, wrap = rng.choice(wrappers)
            value, depth = wrap(value), depth + levels
        deeper = json_depth(json.dumps(value)) > MAX_JSON_DEPTH
        assert nested_deeper_than(value) is deeper
        seen.add(json_depth(json.dumps(value)))
    assert {MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1} <= seen


@pytest.mark.parametrize("source", ["ollama", "openai"])
def test_a_request_read_within_the_depth_limit_is_built_readable_or_refused_naming_where(
        source: str) -> None:
    """A build writes some values deeper than the wire they were read from: an
    Ollama body of 128 levels was built 130 deep for OpenAI Chat, which
    streamkit's own reader (and serde_json's default limit) refuse (the request
    fuzzer). A build past the limit is the builder's typed refusal, naming the
    depth and where; anything built reads back."""
    body, refusing, where = _at_the_depth_limit(source)
    request = parse_request(source, body)
    refused = []
    for target in WIRES:
        try:
            built = build_request(target, request, model="m")
        except UnsupportedFeatureError as error:
            assert "levels deep" in str(error), str(error)
            refused.append(target)
            if target == refusing:
                assert where in str(error), str(error)
        else:
            parse_request(target, built)
    assert refusing in refused and source not in refused


@pytest.mark.parametrize("wire", WIRES)
def test_an_integer_past_pythons_digit_limit_is_refused(wire: str) -> None:
    for parse, body in ((parse_request, REQUESTS[wire]), (parse_response, RESPONSES[wire])):
        huge = {**body, "x_vendor_field": 10**5000}
        error = refused_at_the_root(lambda: parse(wire, huge))  # noqa: B023
        assert "must be JSON" in str(error)


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("text", [b"{", b'{"a": 1', b"\xff\xfe", "not json", b"[" * 5000])
def test_response_text_that_is_not_json_is_an_invalid_body(wire: str, text: bytes | str) -> None:
    error = refused_at_the_root(lambda: parse_response(wire, text))
    assert error.wire == streamkit.providers.vendor(wire).wire


def test_a_reader_that_trips_still_raises_the_promised_type(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The codec's last line: a reader's own exception reaches the caller as an
    InvalidBodyError, the reader's exception kept as the cause."""
    import streamkit.providers as providers

    real = providers.wire_format

    def tripping(name: str) -> Any:
        def trip(body: Any, dialect: str | None) -> Any:
            return len(body["model"] or 0)  # TypeError: an int has no len()

        return dataclasses.replace(real(name), parse_request=trip, parse_response=trip)

    monkeypatch.setattr(providers, "wire_format", tripping)
    for parse in (parse_request, parse_response):
        with pytest.raises(InvalidBodyError, match="TypeError") as info:
            parse("openai", {"model": 7})
        assert isinstance(info.value.__cause__, TypeError)


# ---------------------------------------------------------------- linear cost


def test_a_responses_body_of_many_parts_reads_in_linear_time() -> None:
    """Each part was looked up in a list of the item's parts: 16,000 parts took
    7.7 s. 4x the parts may cost at most 8x the time (linear: 4x)."""
    def run(parts: int) -> Callable[[], Any]:
        body = json.loads(json.dumps(RESPONSES["openai-responses"]))
        message = body["output"][0]
        message["content"] = [dict(message["content"][0]) for _ in range(parts)]
        return lambda: parse_response("openai-responses", body)

    assert_linear(run, 1000)


@pytest.mark.filterwarnings("ignore::streamkit.LossyTranslationWarning")  # one a call: said
def test_many_unanswered_calls_are_dropped_in_linear_time() -> None:
    """Calls no result answers are dropped for the APIs that refuse them; the
    turn was rebuilt by testing each block for membership in the dropped list,
    whole dicts compared: 3,000 calls of one Ollama turn took 11.9 s (the request
    fuzzer, seed 15), 2,000 to OpenAI 6.7 s."""
    def run(count: int) -> Callable[[], Any]:
        call = {"type": "function", "function": {"name": "f", "arguments": {"a": 1}}}
        messages = [{"role": "user", "content": "go"},
                    {"role": "assistant", "tool_calls": [call] * count},
                    {"role": "user", "content": "never mind"}]
        request = parse_request("ollama", {"model": "m", "messages": messages})
        return lambda: build_request("openai", request, model="m")

    assert_linear(run, 400)


@pytest.mark.parametrize("apart", [False, True], ids=["together", "apart"])
@pytest.mark.parametrize("target", ["anthropic", "gemini"])
def test_many_messages_of_one_turn_are_joined_in_linear_time(target: str, apart: bool) -> None:
    """Consecutive user messages (and tool results) are one turn for Anthropic and
    Gemini: each was joined by copying the turn so far (Anthropic sorted it
    again for its tool results first): 3,000 took 1.4 s (the request fuzzer).
    So are user messages apart only by empty assistant turns, which the
    acceptance rules drop (Anthropic joined them the same way: 8,000 in 5.2 s)."""
    def run(count: int) -> Callable[[], Any]:
        turn = [{"role": "user", "content": "hi"}]
        turn += [{"role": "assistant", "content": ""}] if apart else []
        messages = [*turn * count, {"role": "user", "content": "end"}]
        request = parse_request("openai", {"model": "m", "messages": messages})
        return lambda: build_request(target, request)

    assert_linear(run, 1500)


@pytest.mark.parametrize("where", ["message.content", "message.thinking", "response", "thinking"])
def test_an_ollama_answer_whose_text_is_no_string_is_refused_naming_it(where: str) -> None:
    """Ollama's text fields are strings. A list there was kept as metadata: the
    body encoded and decoded again (read as its stream) and the value deep-copied
    in Python: 1.8 s for 0.8 MB of small nested lists (the response fuzzer)."""
    body = json.loads(json.dumps(RESPONSES["ollama"]))
    container, _, name = where.rpartition(".")
    (body[container] if container else body)[name] = [{"a": [1]}] * 2
    error = refused_at_the_root(lambda: parse_response("ollama", body))
    assert error.where == where and "text" in str(error)


@pytest.mark.parametrize("arguments", ["[" * 5000 + "]" * 5000, '{"n": ' + "9" * 5000 + "}"])
def test_tool_call_arguments_past_the_limits_are_written_back_without_a_crash(
        arguments: str) -> None:
    """The builders decoded argument text with json.loads: RecursionError on deep
    text, ValueError on an integer past Python's digit limit (Ollama). Text
    past the limits is no JSON to them: the call goes out with what was read."""
    bodies = {
        "openai": {"model": "m", "messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {
                "name": "f", "arguments": arguments}}]}]},
        "ollama": {"model": "m", "messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"function": {"name": "f", "arguments": {}}}]}]},
    }
    for wire, body in bodies.items():
        request = parse_request(wire, body)
        call = request.messages[1].content[0]  # type: ignore[union-attr, index]
        assert isinstance(call, streamkit.ToolCallBlock)
        call.input = arguments  # as a stream or a hand-built turn may leave it
        built = build_request(wire, request)
        assert isinstance(built, dict) and call.partial_error is not None


# ---------------------------------------------------------------- bodies as they came


@pytest.mark.parametrize("wire", WIRES)
def test_a_request_body_as_its_bytes_reads_as_its_dict(wire: str) -> None:
    """A server passes the bytes it received: the same request as the dict,
    a lone surrogate's escape kept (msgspec refuses it; Python's decoder reads it)."""
    body = _with(REQUESTS[wire], "a\ud800b")
    text = json.dumps(body)
    assert "\\ud800" in text
    assert parse_request(wire, text.encode()) == parse_request(wire, body) \
        == parse_request(wire, text)


@pytest.mark.parametrize("wire", WIRES)
def test_request_text_holding_a_lone_surrogate_itself_reads_or_is_refused(wire: str) -> None:
    """Text (a ``str``) may hold a lone surrogate itself, not its escape:
    msgspec decodes text as UTF-8, which cannot carry one, and raised
    ``UnicodeEncodeError`` (found by the request fuzzer). It is read as its
    escape is, kept; text that is no JSON with one is refused as no JSON."""
    body = _with(REQUESTS[wire], "a\ud800b")
    assert parse_request(wire, json.dumps(body, ensure_ascii=False)) == parse_request(wire, body)
    error = refused_at_the_root(lambda: parse_request(wire, "\udc80abc"))
    assert "not JSON" in str(error)


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize(("text", "says"), [
    (b"[" * 200_000, "nests 200000 levels deep"),
    (b'{"messages": [', "not JSON"),
    (b"\xff\xfe{}", "not JSON"),
    (b"[1, 2]", "a JSON object, not list"),
])
def test_a_request_body_that_is_no_json_object_is_refused_naming_why(
        wire: str, text: bytes, says: str) -> None:
    error = refused_at_the_root(lambda: parse_request(wire, text))
    assert says in str(error)


# ---------------------------------------------------------------- typed where read

#: Where each wire's body says a uniform option (``max_tokens`` and ``temperature``).
_OPTION_FIELDS: dict[str, dict[str, tuple[str, ...]]] = {
    "openai": {"max_tokens": ("max_tokens",), "temperature": ("temperature",)},
    "openai-responses": {"max_tokens": ("max_output_tokens",),
                         "temperature": ("temperature",)},
    "anthropic": {"max_tokens": ("max_tokens",), "temperature": ("temperature",)},
    "gemini": {"max_tokens": ("generationConfig", "maxOutputTokens"),
               "temperature": ("generationConfig", "temperature")},
    "ollama": {"max_tokens": ("options", "num_predict"), "temperature": ("options", "temperature")},
}


def _set(body: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    node = body
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value
    return body


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize(("option", "value"), [("max_tokens", "w"), ("max_tokens", True),
                                               ("temperature", [1]), ("temperature", "hot")])
def test_a_uniform_option_of_the_wrong_kind_is_refused_naming_its_field(
        wire: str, option: str, value: Any) -> None:
    """Carried into the request, it reached another wire's builder as it came
    (an OpenAI body with ``"max_tokens": "w"``, which the SDK refuses)."""
    path = _OPTION_FIELDS[wire][option]
    body = _set(_with(REQUESTS[wire], "hi"), path, value)
    with pytest.raises(InvalidBodyError) as info:
        parse_request(wire, body)
    assert info.value.where in (path[-1], ".".join(path)), info.value.where
    assert info.value.__cause__ is None  # refused by the reader, not the codec's last line


@pytest.mark.parametrize("wire", [wire for wire in WIRES if wire != "gemini"])
@pytest.mark.parametrize("value", [5, ["m"], {"name": "m"}])
def test_a_model_or_stream_of_the_wrong_type_is_refused(wire: str, value: Any) -> None:
    """A ``model`` that was no string stayed an option: ``build_request(...,
    model=...)`` then raised a plain ``ValueError`` ("'model' is given twice")."""
    for field in ("model", "stream"):
        with pytest.raises(InvalidBodyError) as info:
            parse_request(wire, {**_with(REQUESTS[wire], "hi"), field: value})
        assert info.value.where == field
    null_model = parse_request(wire, {**_with(REQUESTS[wire], "hi"), "model": None})
    assert build_request(wire, null_model, model="m")["model"] == "m"


def test_an_anthropic_block_whose_type_is_no_string_is_refused_not_a_crash_in_building(
) -> None:
    """With thinking on and a tool result last, building looked the block's
    ``type`` up in a set: ``TypeError: unhashable type: 'list'`` (a plain-text
    500 through the gateway)."""
    for kind in (["thinking"], {"a": 1}, 7):
        body = {"model": "m", "max_tokens": 2048,
                "thinking": {"type": "enabled", "budget_tokens": 1024},
                "messages": [{"role": "user", "content": "hi"},
                             {"role": "assistant", "content": [{"type": kind, "text": "a"}]},
                             {"role": "user", "content": [{"type": "tool_result",
                                                           "tool_use_id": "t", "content": "x"}]}]}
        with pytest.raises(InvalidBodyError) as info:
            parse_request("anthropic", body)
        assert info.value.where == "type" and info.value.__cause__ is None


@pytest.mark.parametrize(("item_type", "parts", "part"), [
    ("message", "content", {"content": None}),
    ("message", "content", {"type": "output_text", "text": "a", "annotations": [], "content": 7}),
    ("reasoning", "summary", {"type": "summary_text", "text": "a", "summary": None}),
    ("reasoning", "content", {"type": "reasoning_text", "text": "a", "content": None})])
def test_a_responses_part_holding_a_field_named_as_its_items_parts_is_read_and_written_back(
        item_type: str, parts: str, part: dict[str, Any]) -> None:
    """A part's own unknown field is kept with its block, and the writer took it
    for one of its item's: ``content`` (``summary``) replaced the list the parts
    go into (``AttributeError: 'NoneType' object has no attribute 'append'``,
    an InvalidBodyError only by the codec's last line; the request fuzzer)."""
    item = {"type": item_type, "id": "it_1", "summary": [], parts: [part]}
    if item_type == "message":
        item = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                "content": [part]}
    answer = {"type": "message", "id": "msg_2", "role": "assistant", "status": "completed",
              "content": [{"type": "output_text", "text": "x", "annotations": []}]}
    body = {"model": "m", "input": [{"role": "user", "content": "hi"}, item, answer]}
    request = parse_request("openai-responses", body)
    assert build_request("openai-responses", request) == body


_NAMED_CHOICES: dict[str, dict[str, Any]] = {
    "openai": {"tools": [{"type": "function", "function": {"name": "a", "parameters": {}}}],
               "tool_choice": {"type": "function", "function": {"name": "zzz"}}},
    "openai-responses": {"tools": [{"type": "function", "name": "a", "parameters": {}}],
                         "tool_choice": {"type": "function", "name": "zzz"}},
    "anthropic": {"tools": [{"name": "a", "input_schema": {"type": "object"}}],
                  "tool_choice": {"type": "tool", "name": "zzz"}},
    "gemini": {"tools": [{"functionDeclarations": [{"name": "a", "parameters": {}}]}],
               "toolConfig": {"functionCallingConfig": {"mode": "ANY",
                                                        "allowedFunctionNames": ["zzz"]}}},
}


@pytest.mark.parametrize("wire", list(_NAMED_CHOICES))
def test_a_tool_choice_naming_no_tool_of_the_body_is_refused(wire: str) -> None:
    """Read, it made every other wire's builder raise a plain ``ValueError``
    ("tool_choice names 'zzz', which is not among the tools")."""
    with pytest.raises(InvalidBodyError) as info:
        parse_request(wire, {**_with(REQUESTS[wire], "hi"), **_NAMED_CHOICES[wire]})
    assert info.value.where == "tool_choice"


@pytest.mark.parametrize("property_schema", [{"type": {"text": 1}}, {"type": [1]},
                                             {"description": 5}, {"enum": "a"}, "string"])
def test_a_tool_whose_property_schema_is_no_json_schema_is_never_declared_to_ollama(
        property_schema: Any) -> None:
    """Read as a function, it was written to Ollama as a declaration its SDK's
    types refuse (``type`` must be a name): such a schema stays the OpenAI
    wire's own entry, which Ollama's builder leaves out with a warning."""
    import ollama

    body = {**_with(REQUESTS["openai"], "hi"), "tools": [{"type": "function", "function": {
        "name": "f", "parameters": {"type": "object", "properties": {"x": property_schema}}}}]}
    with pytest.warns(streamkit.LossyTranslationWarning):
        built = build_request("ollama", parse_request("openai", body), model="m")
    for tool in built.get("tools", []):
        ollama.Tool.model_validate(tool)
    assert "tools" not in built
