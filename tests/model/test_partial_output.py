"""Structured output as it streams: ``events.partial_output(Model)``,
``ToolCallBlock.partial_output`` and ``ChatResponse.parse(Model, partial=True)``.

Every stream here (scripted for each wire, and the recordings that carry a
structured answer) is checked the same way: each yielded value is an instance
of the partial model and validates as one, it is consistent with the final
value (each scalar shown equals the final one, each string is a prefix of the
final one, lists only grow) and with the value before it, no value repeats the
one before it, and the last is the whole model, ``==`` ``response.parse``.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any, Literal

import anyio
import pytest
from pydantic import BaseModel, Field
from support.recordings import EDGE, FIXTURES, body
from support.structured_streams import ANSWERS, RECIPE, WIRES, Recipe, Unit, fragments

import streamkit
from streamkit import ChatResponse, StructuredOutputError
from streamkit.model.errors import IncompleteStreamError
from streamkit.model.partial_json import PartialJSON
from streamkit.model.structured.partial import PartialValidator, partial_model
from streamkit.model.structured.reader import PartialOutputReader
from streamkit.model.structured.shapes import Slot
from streamkit.reading.structured import iterate_sync
from streamkit.testing import ReplayServer

CUTS = ["1", "3", "random", "whole"]


# ---------------------------------------------------------------------- the checks


def consistent(part: Any, whole: Any, where: str = "") -> None:
    """``part`` (a dump of a partial value) is a consistent prefix of ``whole``."""
    if part is None:
        return
    if isinstance(part, dict):
        assert isinstance(whole, dict), where
        for key, value in part.items():
            assert key in whole, f"{where}.{key} is not in the final value"
            consistent(value, whole[key], f"{where}.{key}")
    elif isinstance(part, list):
        assert isinstance(whole, list) and len(part) <= len(whole), where
        for index, value in enumerate(part):
            consistent(value, whole[index], f"{where}[{index}]")
    elif isinstance(part, str):
        assert isinstance(whole, str) and whole.startswith(part), f"{where}: {part!r}"
    else:
        assert part == whole and type(part) is type(whole), f"{where}: {part!r} != {whole!r}"


def check_values(values: list[Any], model: type[BaseModel], final: Any) -> list[Any]:
    """The contract of every partial stream; returns the partial values."""
    assert values, "nothing was yielded"
    last = values[-1]
    assert type(last) is model and last == final
    partial_class = partial_model(model)
    whole = final.model_dump()
    before: dict[str, Any] | None = None
    partials = values[:-1]
    for value in partials:
        assert isinstance(value, partial_class) and isinstance(value, model)
        dump = value.model_dump()
        assert partial_class.model_validate(value.model_dump(by_alias=True)).model_dump() == dump
        consistent(dump, whole)
        if before is not None:
            assert dump != before, "a value was yielded that did not change"
            consistent(before, dump)  # strings grow, lists grow, scalars stay
        before = dump
    return partials


def answer_stream(wire: str, answer: str, cut: str) -> bytes:
    return WIRES[wire](fragments(answer, cut))


def sync_values(raw: bytes, model: type[BaseModel], **options: Any) -> tuple[list[Any], Any]:
    with streamkit.stream(iter([raw[i:i + 61] for i in range(0, len(raw), 61)])) as events:
        values = list(events.partial_output(model, **options))
    return values, events.response


# ---------------------------------------------------------------------- every wire


#: Every wire with every answer form and cut; one character at a time for two
#: of the forms (the others are cut 3 at a time and at random); tool arguments
#: are never fenced.
CASES = [(wire, answer, cut) for wire in WIRES for answer in ANSWERS for cut in CUTS
         if not (answer == "fenced" and wire == "anthropic-tool")
         and not (cut == "1" and answer in ("indented", "fenced"))]


@pytest.mark.parametrize(("wire", "answer", "cut"), CASES)
def test_every_wire_streams_consistent_partial_recipes(wire: str, answer: str, cut: str) -> None:
    values, response = sync_values(answer_stream(wire, ANSWERS[answer], cut), Recipe)
    partials = check_values(values, Recipe, response.parse(Recipe))
    assert values[-1] == RECIPE
    if cut == "1":  # a value for (nearly) every character of the strings
        assert len(partials) > 150
        titles = [p.title for p in partials if p.title is not None]
        assert titles[:3] == ["", "C", "Cr"]
    if cut == "whole":  # one read holds all of it: the partial value is the whole
        assert [p.model_dump() for p in partials] in ([], [RECIPE.model_dump()])


@pytest.mark.parametrize("wire", list(WIRES))
def test_async_streams_yield_the_same_values(wire: str) -> None:
    raw = answer_stream(wire, ANSWERS["indented"], "3")
    expected, _ = sync_values(raw, Recipe)

    async def chunks() -> AsyncIterator[bytes]:
        for start in range(0, len(raw), 61):
            yield raw[start:start + 61]

    async def read() -> list[Any]:
        async with streamkit.stream(chunks()) as events:
            return [value async for value in events.partial_output(Recipe)]

    values = anyio.run(read)
    assert [v.model_dump() for v in values] == [v.model_dump() for v in expected]
    assert values[-1] == RECIPE


def test_numbers_and_literals_appear_only_once_complete() -> None:
    values, _ = sync_values(answer_stream("openai-chat", ANSWERS["compact"], "1"), Recipe)
    partials = values[:-1]
    assert {p.servings for p in partials} == {None, 4}
    amounts = {p.ingredients[1].amount for p in partials
               if p.ingredients is not None and len(p.ingredients) > 1}
    assert amounts <= {None, 500.5}  # never 5, 50, 500 or 500.0
    kinds = {p.steps[0].kind for p in partials if p.steps}
    assert kinds == {None, "prep"}
    units = {p.ingredients[0].unit for p in partials if p.ingredients}
    assert units == {None, Unit.GRAMS}
    # the key of a string appears with its first character... of its value: ""
    assert any(p.title == "" for p in partials)


def test_partial_values_are_snapshots_not_one_object_mutated() -> None:
    values, _ = sync_values(answer_stream("gemini", ANSWERS["compact"], "3"), Recipe)
    steps = [len(v.steps) for v in values if v.steps is not None]
    assert steps == sorted(steps) and steps[0] < steps[-1]
    assert len({id(v) for v in values}) == len(values)
    first_with_steps = next(v for v in values if v.steps)
    assert len(first_with_steps.steps) == 1  # not grown by the later reads


# ---------------------------------------------------------------------- recordings


class GetWeatherArgs(BaseModel):
    city: str
    country: str
    units: Literal["c", "f"] = "c"


class Country(BaseModel):
    country: str


class City(BaseModel):
    city: str


class Location(BaseModel):
    location: str


class NoArguments(BaseModel):
    pass


@pytest.mark.parametrize(("fixture", "model", "expected"), [
    ("openai-chat/tool-call-single.sse", GetWeatherArgs,
     GetWeatherArgs(city="Edinburgh", country="UK", units="c")),
    ("openai-responses/function-call.sse", Country, Country(country="France")),
    ("openai-responses/deepseek-responses-reasoning-function-call.sse", City,
     City(city="Tokyo")),
    ("openai-compatible/qwen-dashscope-tool-call.chunks.jsonl", Location,
     Location(location="San Francisco")),
    ("gemini/function-call-thought-signature.sse", NoArguments, NoArguments()),
])
def test_recorded_single_tool_calls_read_as_structured_output(
        fixture: str, model: type[BaseModel], expected: BaseModel) -> None:
    raw = body(FIXTURES / fixture)
    for size in (1, 7, len(raw)):
        with streamkit.stream(iter([raw[i:i + size] for i in range(0, len(raw), size)])) as ev:
            values = list(ev.partial_output(model))
        check_values(values, model, ev.response.parse(model))
        assert values[-1] == expected


def test_recorded_tool_arguments_fill_in_on_the_block() -> None:
    """ToolCallBlock.partial_output after every delta of a recorded Anthropic
    tool call, and of a recorded one cut off at max_tokens."""

    class MakeFile(BaseModel):
        filename: str
        lines_of_text: list[str]

    raw = body(FIXTURES / "anthropic/tool-use-incomplete-partial-json.sse")
    seen: list[dict[str, Any]] = []
    with streamkit.stream(iter([raw[i:i + 37] for i in range(0, len(raw), 37)])) as events:
        for item in events:
            if isinstance(item, streamkit.BlockDelta) and isinstance(
                    block := events.block(item), streamkit.ToolCallBlock):
                value = block.partial_output(MakeFile)
                assert block.partial_output(MakeFile) is value  # nothing new: the same object
                if not seen or value.model_dump() != seen[-1]:
                    seen.append(value.model_dump())
    call = events.response.tool_calls[0]
    assert call.incomplete
    last = call.partial_output(MakeFile)
    assert type(last) is partial_model(MakeFile) and last.filename == "taxes.txt"
    assert len(last.lines_of_text) == 5 and last.lines_of_text[-1] == "Filing taxes"
    for before, after in itertools.pairwise(seen):
        consistent(before, after)
    consistent(seen[-1], last.model_dump())
    with pytest.raises(streamkit.ToolArgumentsError):
        call.arguments(MakeFile)

    raw = body(FIXTURES / "anthropic/tool-use.sse")
    with streamkit.stream(iter([raw])) as events:
        final = events.final()
    call = final.tool_calls[0]
    assert call.partial_output(Location) == Location(location="Paris")
    assert type(call.partial_output(Location)) is Location


def test_recorded_nested_partial_arguments_cut_off() -> None:
    """Vertex partialArgs building a nested object that is cut off."""

    class Query(BaseModel):
        text: str
        limit: int

    class Search(BaseModel):
        query: Query
        flags: list[bool | None]
        note: str

    with streamkit.stream(iter([body(EDGE / "gemini-vertex-partialArgs-nested-cut.chunks.jsonl")])
                          ) as events:
        final = events.final()
    value = final.tool_calls[0].partial_output(Search)
    assert type(value) is partial_model(Search)
    assert value.query == partial_model(Query)(text='rainy "days" in Paris', limit=5)
    assert value.flags == [True, None] and value.note == "cut he"


def test_a_recorded_refusal_ends_in_the_error() -> None:
    raw = body(FIXTURES / "openai-chat/refusal.sse")
    with streamkit.stream(iter([raw])) as events, pytest.raises(StructuredOutputError) as error:
        list(events.partial_output(Recipe))
    assert "refused" in str(error.value)
    with pytest.raises(StructuredOutputError, match="refused"):
        events.response.parse(Recipe, partial=True)


def test_two_tool_calls_and_no_text_is_ambiguous() -> None:
    raw = body(FIXTURES / "openai-chat/tool-calls-parallel.sse")
    with streamkit.stream(iter([raw])) as events, pytest.raises(StructuredOutputError) as error:
        values = []
        for value in events.partial_output(GetWeatherArgs):
            values.append(value)
    assert "2 tool calls" in str(error.value)
    assert values and error.value.partial_output is values[-1]  # the first call's, kept
    assert values[-1].city == "Edinburgh"
    with pytest.raises(StructuredOutputError, match="2 tool calls"):
        events.response.parse(GetWeatherArgs, partial=True)


# ---------------------------------------------------------------------- failures


def test_an_invalid_final_names_the_field_and_keeps_the_partial() -> None:
    bad = json.loads(ANSWERS["compact"])
    bad["steps"][1]["minutes"] = "half an hour"
    values: list[Any] = []
    with (streamkit.stream(iter([openai_chat_body(json.dumps(bad))])) as events,
          pytest.raises(StructuredOutputError) as error):
        for value in events.partial_output(Recipe):
            values.append(value)
    assert "steps.1.minutes" in str(error.value)
    assert error.value.partial_output is values[-1]
    assert values[-1].steps[1].minutes is None and values[-1].steps[1].text == "Rest the batter."
    assert values[-1].steps[2].minutes == 20  # what came after the bad value still shows


def test_text_that_is_not_json_yields_nothing_and_fails_at_the_end() -> None:
    with (streamkit.stream(iter([openai_chat_body("Sorry, I can only do { this }")])) as events,
          pytest.raises(StructuredOutputError, match="not valid JSON") as error):
        list(events.partial_output(Recipe))
    assert error.value.partial_output is None
    with pytest.raises(StructuredOutputError, match="not valid JSON"):
        events.response.parse(Recipe, partial=True)


def test_a_broken_stream_raises_its_stream_error_with_the_partial_response() -> None:
    raw = answer_stream("anthropic-tool", ANSWERS["compact"], "3")

    def broken() -> Iterator[bytes]:
        yield raw[: len(raw) // 2]
        raise ConnectionResetError("gone")

    values: list[Any] = []
    with streamkit.stream(broken()) as events, pytest.raises(IncompleteStreamError) as error:
        for value in events.partial_output(Recipe):
            values.append(value)
    assert error.value.partial is not None and values
    snapshot = error.value.partial.parse(Recipe, partial=True)
    assert snapshot.model_dump() == values[-1].model_dump()

    with (streamkit.stream(broken(), on_error="return") as events,
          pytest.raises(StructuredOutputError, match="cut off") as failed):
        for _ in events.partial_output(Recipe):
            pass
    assert failed.value.partial_output.model_dump() == values[-1].model_dump()


# ---------------------------------------------------------------------- interval


def test_interval_yields_at_most_one_value_per_interval() -> None:
    raw = answer_stream("openai-chat", ANSWERS["compact"], "1")
    every, _ = sync_values(raw, Recipe)
    readings: list[float] = []

    def clock() -> float:  # one second per reading
        readings.append(float(len(readings)))
        return readings[-1]

    with streamkit.stream(iter([raw[i:i + 61] for i in range(0, len(raw), 61)])) as events:
        values = list(iterate_sync(events, Recipe, 10.0, clock=clock))
    # the clock is read for each item that grew the answer; 10 s between values
    assert len(readings) > len(every)
    assert 20 < len(values) - 1 <= len(readings) // 10 + 1
    check_values(values, Recipe, RECIPE)
    with streamkit.stream(iter([raw])) as events:
        assert len(list(events.partial_output(Recipe, interval=3600))) == 2  # first, final
    with pytest.raises(ValueError, match="interval"):
        list(streamkit.stream(iter([raw])).partial_output(Recipe, interval=-1))


# ---------------------------------------------------------------------- over a socket


def test_over_a_real_socket_with_the_client() -> None:
    raw = answer_stream("anthropic-tool", ANSWERS["indented"], "random")

    async def main() -> tuple[list[Any], Any]:
        async with ReplayServer() as server:
            server.add("/messages", raw, chunk_size=97)
            async with (
                streamkit.Client("anthropic:claude-sonnet-4-5", api_key="k",
                                 base_url=server.url) as client,
                client.stream([streamkit.UserMessage("A recipe")], max_tokens=500,
                              json_output=True) as events,
            ):
                values = [value async for value in events.partial_output(Recipe)]
            sent = server.requests[0].json()
        return values, sent

    values, sent = anyio.run(main)
    assert sent["tool_choice"] == {"type": "tool", "name": "json_output"}
    check_values(values, Recipe, RECIPE)
    assert len(values) > 20


# ---------------------------------------------------------------------- snapshots


def test_parse_partial_is_a_snapshot_at_any_moment() -> None:
    text = ANSWERS["compact"]
    response = ChatResponse()
    assert response.parse(Recipe, partial=True).model_dump() == dict.fromkeys(
        Recipe.model_fields)
    shown: list[dict[str, Any]] = []
    for fragment in fragments(text, "random"):
        response.append_text(fragment)
        value = response.parse(Recipe, partial=True)
        shown.append(value.model_dump())
        consistent(shown[-1], RECIPE.model_dump())
    assert type(value) is Recipe and value == RECIPE
    for before, after in itertools.pairwise(shown):
        consistent(before, after)
    tool = ChatResponse()
    tool.append_tool_call("t1", "json_output", text[:200])
    assert tool.parse(Recipe, partial=True).title == RECIPE.title


# ---------------------------------------------------------------------- the partial model


def test_the_partial_model_is_an_all_optional_subclass_made_once() -> None:
    partial = partial_model(Recipe)
    assert partial is partial_model(Recipe) and issubclass(partial, Recipe)
    assert partial.__name__ == "PartialRecipe"
    assert partial() == partial.model_validate({})  # every field optional
    step = partial.model_fields["steps"].annotation
    assert "PartialStep" in str(step)
    value = partial.model_validate({"steps": [{"text": "mix"}], "notes": {"a": "b"}})
    assert value.steps[0].minutes is None and value.notes == {"a": "b"}


def test_aliases_recursion_any_unions_and_constraints() -> None:
    class Node(BaseModel):
        label: str = Field(alias="Label")
        extra: Any = None
        children: list[Node] = []

    class Shape(BaseModel):
        kind: Literal["square"]
        side: float

    class Other(BaseModel):
        kind: Literal["circle"]
        radius: float

    class Doc(BaseModel):
        code: str = Field(max_length=4)
        tree: Node
        shapes: list[Shape | Other]
        flags: list[bool | None]
        missing: str | None

    text = json.dumps({"code": "abcd", "tree": {"Label": "root", "extra": {"k": [1, "x"]},
                                                "children": [{"Label": "leaf", "children": []}]},
                       "shapes": [{"kind": "square", "side": 2}, {"kind": "circle", "radius": 1}],
                       "flags": [True, None, False], "missing": None})
    values, response = sync_values(openai_chat_body(text, size=1), Doc)
    check_values(values, Doc, response.parse(Doc))
    partials = values[:-1]
    assert {p.code for p in partials} == {None, "", "a", "ab", "abc", "abcd"}
    labels = [p.tree.children[0].label for p in partials if p.tree and p.tree.children]
    assert labels[:2] == [None, ""] and labels[-1] == "leaf"
    # a union of models shows each item only once it is complete
    shapes = [len(p.shapes) for p in partials if p.shapes is not None]
    assert set(shapes) == {0, 1, 2}
    assert all(p.shapes[0] == Shape(kind="square", side=2) for p in partials
               if p.shapes)
    flags = [p.flags for p in partials if p.flags is not None]
    assert flags == [[], [True], [True, None], [True, None, False]]  # null is a value
    assert values[-2].missing is None and values[-1].missing is None  # null: no new value
    extras = [p.tree.extra for p in partials if p.tree and p.tree.extra]
    assert {"k": [1, "x"]} in extras and {"k": []} in extras  # Any streams as JSON
    too_long = PartialOutputReader(Doc)
    too_long.read_block(0, streamkit.TextBlock('{"code": "abcdef'))
    assert too_long.current().code is None  # a prefix past max_length is not shown


def test_each_value_is_validated_once_whatever_the_fragments(monkeypatch: Any) -> None:
    """The linear-cost contract: reading after every character validates each
    complete JSON value at most once (a container read as it streams is built
    from its children, not validated again): no more slot validations than one
    validation of the whole answer."""
    calls = {"n": 0}
    original = Slot.complete

    def counting(self: Slot, raw: Any) -> Any:
        calls["n"] += 1
        return original(self, raw)

    monkeypatch.setattr(Slot, "complete", counting)
    text = json.dumps({**RECIPE.model_dump(mode="json"),
                       "steps": [s.model_dump() for s in RECIPE.steps] * 60})
    parser = PartialJSON()
    validator = PartialValidator(Recipe)
    for character in text:
        parser.feed(character)
        validator.read(parser)
    per_character = calls["n"]
    calls["n"] = 0
    validator.shape.complete(json.loads(text))
    assert 0 < per_character <= calls["n"]
    assert validator.value.model_dump() == Recipe.model_validate_json(text).model_dump()


# ---------------------------------------------------------------------- helpers


def openai_chat_body(text: str, size: int = 5) -> bytes:
    return WIRES["openai-chat"](fragments(text, str(size)))


# ---------------------------------------------------------------------- the browser stream


def ui_chunks(raw: bytes, **options: Any) -> list[dict[str, Any]]:
    from streamkit.web import UIMessageStreamEncoder

    encoder = UIMessageStreamEncoder(**options)
    out = b""
    with streamkit.stream(iter([raw[i:i + 61] for i in range(0, len(raw), 61)])) as events:
        for item in events:
            out += encoder.encode(item)
    frames = [line[6:] for line in out.decode().split("\n\n") if line.startswith("data: {")]
    return [json.loads(frame) for frame in frames]


def test_the_encoder_sends_data_output_parts_throttled_by_its_clock() -> None:
    raw = answer_stream("anthropic-tool", ANSWERS["compact"], "1")
    every = [c for c in ui_chunks(raw, output=Recipe, output_interval=None)
             if c["type"] == "data-output"]
    readings: list[float] = []

    def clock() -> float:
        readings.append(float(len(readings)))
        return readings[-1]

    paced = [c for c in ui_chunks(raw, output=Recipe, output_interval=25.0, clock=clock)
             if c["type"] == "data-output"]
    assert len(paced) <= len(readings) // 25 + 2 < len(every)
    for chunks in (every, paced):
        assert {c["id"] for c in chunks} == {"output"}
        assert [c["data"]["state"] for c in chunks] == ["streaming"] * (len(chunks) - 1) + ["done"]
        assert chunks[-1]["data"]["object"] == RECIPE.model_dump(mode="json")
        objects = [c["data"]["object"] for c in chunks]
        for before, after in itertools.pairwise(objects):
            consistent(before, after)
    assert every[0]["data"]["object"] == {"title": ""}  # only the fields known so far
    assert not [c for c in ui_chunks(raw) if c["type"] == "data-output"]  # no output=


def test_a_step_that_is_not_the_structured_answer_sends_no_data_output() -> None:
    chunks = ui_chunks(body(FIXTURES / "anthropic/tool-use.sse"), output=Recipe)
    assert "tool-input-available" in [c["type"] for c in chunks]
    assert not [c for c in chunks if c["type"] == "data-output"]


# ---------------------------------------------------------------------- every recorded tool call


def _json_type(value: Any) -> Any:
    kinds = {str: str, int: int, float: float, bool: bool, list: list[Any],
             dict: dict[str, Any]}
    return kinds.get(type(value), Any)


def _recorded_calls() -> list[tuple[str, int]]:
    from support.recordings import fixture_id, recordings

    cases = []
    for path in recordings():
        try:
            _, final = streamkit.replay([body(path)])
        except streamkit.StreamError:
            continue
        cases += [(fixture_id(path), i) for i, call in enumerate(final.tool_calls)
                  if call.input.lstrip().startswith("{") and not call.incomplete
                  and call.partial_error is None]  # arguments that are JSON, whole
    return cases


@pytest.mark.parametrize(("fixture", "number"), _recorded_calls())
def test_every_recorded_tool_call_fills_in_on_its_block(fixture: str, number: int) -> None:
    """Each complete tool call of every recording (every wire: Ollama, Gemini,
    Vertex partialArgs, both OpenAI APIs, Anthropic, the compatible vendors),
    read with ``block.partial_output`` after every event, as a model made from
    its final arguments: consistent values, the last the whole model."""
    from pydantic import create_model

    raw = body(FIXTURES / fixture)
    _, final = streamkit.replay([raw])
    arguments = final.tool_calls[number].arguments()
    model = create_model("Arguments", **{key: (_json_type(value), ...)
                                         for key, value in arguments.items()})
    shown: list[dict[str, Any]] = []
    with streamkit.stream(iter([raw[i:i + 5] for i in range(0, len(raw), 5)])) as events:
        for item in events:
            if not isinstance(item, streamkit.BlockStart | streamkit.BlockDelta):
                continue
            block = events.block(item)
            if isinstance(block, streamkit.ToolCallBlock) and block.id == final.tool_calls[
                    number].id:
                dump = block.partial_output(model).model_dump()
                if not shown or dump != shown[-1]:
                    shown.append(dump)
    call = events.response.tool_calls[number]
    last = call.partial_output(model)
    assert type(last) is model and last == call.arguments(model)
    for before, after in itertools.pairwise([*shown, last.model_dump()]):
        consistent(before, after)
