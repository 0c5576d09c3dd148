"""Tools from typed functions (streamkit.tool), OpenAI strict schemas,
running tools from JSON arguments, and structured output (ChatResponse.parse)."""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import json
import keyword
import re
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Annotated, Any, Literal

import anyio
import pydantic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field
from typing_extensions import Doc, TypedDict  # pydantic wants this TypedDict before 3.12

from streamkit import (
    Base64Source,
    ChatResponse,
    DataBlock,
    FinishReason,
    FunctionExecutionResultMessage,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    UserMessage,
    build_request,
)
from streamkit.conversation.messages import FunctionExecutionResult
from streamkit.conversation.request import JsonSchemaOutput
from streamkit.conversation.tools import Tool, inline_refs, strict_schema, tool
from streamkit.model.errors import InvalidMessageError, StructuredOutputError, ToolDefinitionError

# ---------------------------------------------------------------- OpenAI's strict rules, checked


def strict_violations(schema: dict[str, Any]) -> list[str]:
    """Every place ``schema`` breaks a strict-mode rule (written from OpenAI's
    documented rules and API errors, independently of streamkit.conversation.tools)."""
    problems: list[str] = []
    defs = schema.get("$defs", {})

    def visit(node: Any, path: str) -> None:
        if not isinstance(node, dict):
            problems.append(f"{path}: not a schema")
            return
        if "$ref" in node:
            if len(node) > 1:
                problems.append(f"{path}: $ref with siblings {sorted(node)}")
            if node["$ref"].rsplit("/", 1)[-1] not in defs:
                problems.append(f"{path}: $ref {node['$ref']} does not resolve")
            return
        if "default" in node:
            problems.append(f"{path}: default")
        if "oneOf" in node:
            problems.append(f"{path}: oneOf")
        if not any(key in node for key in ("type", "anyOf")):
            problems.append(f"{path}: no type")
        for key in ("minLength", "maxLength", "uniqueItems", "patternProperties"):
            if key in node:
                problems.append(f"{path}: {key}")
        kinds = node.get("type")
        if kinds == "object" or (isinstance(kinds, list) and "object" in kinds):
            if node.get("additionalProperties") is not False:
                problems.append(f"{path}: additionalProperties is not false")
            properties = node.get("properties", {})
            if sorted(node.get("required", [])) != sorted(properties):
                problems.append(f"{path}: required {node.get('required')} != {list(properties)}")
            for name, sub in properties.items():
                visit(sub, f"{path}/properties/{name}")
        for index, variant in enumerate(node.get("anyOf", [])):
            visit(variant, f"{path}/anyOf/{index}")
        if isinstance(node.get("items"), dict):
            visit(node["items"], f"{path}/items")

    if schema.get("type") != "object":
        problems.append("root: not an object")
    visit({key: value for key, value in schema.items() if key != "$defs"}, "")
    for name, definition in defs.items():
        visit(definition, f"/$defs/{name}")
    return problems


def accepts_null(schema: dict[str, Any], defs: dict[str, Any]) -> bool:
    kinds = schema.get("type")
    if kinds == "null" or (isinstance(kinds, list) and "null" in kinds):
        return True
    if "$ref" in schema:
        return accepts_null(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    return any(accepts_null(variant, defs) for variant in schema.get("anyOf", []))


# ---------------------------------------------------------------- the functions under test


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Address(BaseModel):
    """A postal address."""

    street: str
    zip_code: int = 0


@dataclasses.dataclass
class Window:
    start: int
    end: int = 24


class Point(TypedDict):
    x: float
    y: float


async def get_weather(city: Annotated[str, "The city, e.g. Paris"],
                      unit: Unit = Unit.CELSIUS,
                      days: Annotated[int, Field(ge=1, le=7, description="Days ahead")] = 1,
                      when: Window | None = None) -> dict[str, Any]:
    """Get the weather forecast.

    Uses the national service.

    Args:
        city: Overridden by the Annotated text.
        unit: The unit of the
            temperatures.
        days (int): Overridden by Field.
        when: The hours of the day.

    Returns:
        The forecast.
    """
    return {"city": city, "unit": unit.value, "days": days, "when": when}


def locate(address: Address, precise: bool = False, mode: Literal["fast", "slow"] = "fast",
           point: Point | None = None) -> Address:
    """Find an address.

    Parameters
    ----------
    address : Address
        Where to look.
    precise : bool
        Whether to be precise.
    """
    return address


def sphinx_style(json: str, _private: int = 1, model_config: str = "x",
                 note: Annotated[str, Doc("A typing_extensions.Doc text")] = "") -> list[Any]:
    """Echo the arguments.

    :param json: A JSON text
        over two lines.
    :param _private: Private.
    :returns: the arguments.
    """
    return [json, _private, model_config, note]


# ---------------------------------------------------------------- defining


def test_schema_from_annotations_and_docstring() -> None:
    made = tool(get_weather)
    assert made.name == "get_weather" and made.strict is False and made.func is get_weather
    assert made.description == "Get the weather forecast.\n\nUses the national service."
    assert made.parameters == {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "The city, e.g. Paris"},
            "unit": {"$ref": "#/$defs/Unit", "default": "celsius",
                     "description": "The unit of the temperatures."},
            "days": {"type": "integer", "minimum": 1, "maximum": 7, "default": 1,
                     "description": "Days ahead"},
            "when": {"anyOf": [{"$ref": "#/$defs/Window"}, {"type": "null"}], "default": None,
                     "description": "The hours of the day."},
        },
        "required": ["city"],
        "$defs": {
            "Unit": {"enum": ["celsius", "fahrenheit"], "title": "Unit", "type": "string"},
            "Window": {"type": "object", "title": "Window", "required": ["start"],
                       "properties": {"start": {"type": "integer"},
                                      "end": {"type": "integer", "default": 24}}},
        },
    }


def test_numpy_docstring_nested_model_literal_typeddict() -> None:
    made = tool(locate, description="Look up an address.")
    properties = made.parameters["properties"]
    assert made.description == "Look up an address."
    assert properties["address"] == {"$ref": "#/$defs/Address", "description": "Where to look."}
    assert properties["precise"] == {"type": "boolean", "default": False,
                                     "description": "Whether to be precise."}
    assert properties["mode"] == {"type": "string", "enum": ["fast", "slow"], "default": "fast"}
    assert made.parameters["$defs"]["Address"]["description"] == "A postal address."
    assert made.parameters["$defs"]["Point"]["required"] == ["x", "y"]
    assert made.parameters["required"] == ["address"]


def test_sphinx_docstring_doc_metadata_and_awkward_names() -> None:
    made = tool(sphinx_style)
    properties = made.parameters["properties"]
    assert made.description == "Echo the arguments."
    assert list(properties) == ["json", "_private", "model_config", "note"]
    assert properties["json"]["description"] == "A JSON text over two lines."
    assert properties["_private"]["description"] == "Private."
    assert properties["note"]["description"] == "A typing_extensions.Doc text"
    result = made.run_json_sync('{"json": "{}", "_private": 5, "model_config": "y"}')
    assert result.content == '["{}",5,"y",""]' and not result.is_error


def test_positional_only_and_keyword_only_parameters() -> None:
    def scale(value: float, /, factor: float = 2.0, *, offset: float = 0.0) -> float:
        """Scale a value."""
        return value * factor + offset

    made = tool(scale)
    assert made.parameters["required"] == ["value"]
    assert made.run_json_sync({"value": 3, "offset": 1}).content == "7.0"


def test_callables_partials_and_explicit_names() -> None:
    class Adder:
        """Add numbers."""

        def __call__(self, a: int, b: int) -> int:
            return a + b

    import functools

    assert tool(Adder()).name == "Adder"
    assert tool(Adder()).run_json_sync({"a": 1, "b": 2}).content == "3"
    def add(a: int, b: int) -> int:
        return a + b

    partial = tool(functools.partial(add, 1), name="add_one")
    assert partial.name == "add_one" and partial.parameters["required"] == ["b"]
    assert partial.run_json_sync({"b": 2}).content == "3"


@pytest.mark.parametrize("func, message", [
    (lambda x: x, "pass name=... for a lambda"),
])
def test_lambda_needs_a_name(func: Callable[..., Any], message: str) -> None:
    with pytest.raises(ToolDefinitionError, match=message):
        tool(func)


def _callback(on_done: Callable[[int], None], retries: int) -> None: ...


def _star_args(*values: int) -> None: ...


def _star_kwargs(city: str, **extra: str) -> None: ...


def _untyped(city, days: int) -> None: ...  # type: ignore[no-untyped-def]


class _Socket:
    pass


def _arbitrary(connection: _Socket) -> None: ...


def _any(value: Any) -> None: ...


@pytest.mark.parametrize("func, strict, parameter", [
    (_callback, False, "'on_done'"),
    (_star_args, False, "'*values'"),
    (_star_kwargs, False, "'**extra'"),
    (_untyped, False, "'city'"),
    (_arbitrary, False, "'connection'"),
    (_any, True, "'value'"),  # strict mode needs a type: OpenAI refuses {}
])
def test_unsupported_parameters_fail_at_definition(func: Callable[..., Any], strict: bool,
                                                   parameter: str) -> None:
    with pytest.raises(ToolDefinitionError, match=re.escape(parameter)):
        tool(func, strict=strict)


def test_any_is_allowed_without_strict() -> None:
    assert tool(_any).parameters["properties"]["value"] == {}


def test_unresolvable_annotation_is_named() -> None:
    namespace: dict[str, Any] = {}
    exec("from __future__ import annotations\n"
         "def f(a: int, b: Missing) -> None: ...", namespace)
    with pytest.raises(ToolDefinitionError, match=r"parameter 'b'.*Missing"):
        tool(namespace["f"])


@pytest.mark.parametrize("name", ["get weather", "1abc", "a" * 65, "météo", ""])
def test_names_every_provider_accepts(name: str) -> None:
    with pytest.raises(ToolDefinitionError, match="not accepted"):
        tool(_any, name=name)


def test_arguments_model_types_a_call() -> None:
    made = tool(locate)
    assert made.arguments_model is not None
    call = ToolCallBlock("c1", "locate", '{"address": {"street": "Main St"}, "mode": "slow"}')
    arguments = call.arguments(made.arguments_model)
    assert arguments.address == Address(street="Main St")  # type: ignore[attr-defined]


# ---------------------------------------------------------------- strict


def test_strict_tool_follows_openai_rules() -> None:
    made = tool(get_weather, strict=True)
    assert made.strict is True
    assert strict_violations(made.parameters) == []
    properties = made.parameters["properties"]
    assert properties["city"] == {"type": "string", "description": "The city, e.g. Paris"}
    assert properties["days"]["type"] == ["integer", "null"]
    assert "Days ahead" in properties["days"]["description"]
    assert "default: 1" in properties["days"]["description"]
    assert properties["unit"]["anyOf"] == [{"$ref": "#/$defs/Unit"}, {"type": "null"}]
    assert properties["when"]["anyOf"] == [{"$ref": "#/$defs/Window"}, {"type": "null"}]


def test_strict_keeps_unsupported_keywords_as_description() -> None:
    class Tag(BaseModel):
        label: Annotated[str, Field(min_length=2, max_length=8, description="The label")]
        items: Annotated[list[int], Field(json_schema_extra={"uniqueItems": True})]

    schema = strict_schema(Tag.model_json_schema())
    assert strict_violations(schema) == []
    assert schema["properties"]["label"]["description"] == (
        'The label (minLength: 2, maxLength: 8)')


def test_strict_recursive_model_and_discriminated_union() -> None:
    class Node(BaseModel):
        value: int
        children: list[Node] = []

    class Cat(BaseModel):
        kind: Literal["cat"]
        meows: bool

    class Dog(BaseModel):
        kind: Literal["dog"]
        barks: bool

    class Pet(BaseModel):
        pet: Annotated[Cat | Dog, Field(discriminator="kind")]

    tree = strict_schema(Node.model_json_schema())
    assert strict_violations(tree) == [] and tree["type"] == "object"
    assert tree["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    pet = strict_schema(Pet.model_json_schema())
    assert strict_violations(pet) == []
    assert "discriminator" not in json.dumps(pet)


def test_strict_refuses_what_it_cannot_express() -> None:
    with pytest.raises(ValueError, match="additionalProperties"):
        strict_schema({"type": "object", "properties": {
            "tags": {"type": "object", "additionalProperties": {"type": "string"}}}})
    with pytest.raises(ValueError, match="root must be an object"):
        strict_schema({"type": "array", "items": {"type": "string"}})


def test_strict_schema_leaves_its_input_alone() -> None:
    schema = Address.model_json_schema()
    before = json.dumps(schema, sort_keys=True)
    strict_schema(schema)
    assert json.dumps(schema, sort_keys=True) == before


def test_json_schema_output_from_model_is_strict() -> None:
    output = JsonSchemaOutput.from_model(Address)
    assert output.strict is True and strict_violations(output.schema) == []


# Random models: fields of scalar, enum, literal, list, optional and nested
# model types, with and without defaults.
SCALARS: list[tuple[Any, Any]] = [(int, 3), (str, "s"), (float, 1.5), (bool, True),
                                  (Literal["a", "b"], "a"), (Unit, Unit.CELSIUS)]


@st.composite
def field_types(draw: st.DrawFn, depth: int = 0) -> tuple[Any, Any]:
    """(annotation, a default value for it)."""
    choice = draw(st.integers(0, 4 if depth < 2 else 1))
    if choice <= 1:
        scalar: tuple[Any, Any] = draw(st.sampled_from(SCALARS))
        return scalar
    if choice == 2:
        inner, _ = draw(field_types(depth + 1))
        return list[inner], []  # type: ignore[valid-type]
    if choice == 3:
        inner, _ = draw(field_types(depth + 1))
        return inner | None, None
    return draw(models(depth + 1)), None


@st.composite
def models(draw: st.DrawFn, depth: int = 0) -> Any:
    names = draw(st.lists(st.from_regex(r"[a-z][a-z_]{0,6}", fullmatch=True)
                               .filter(lambda name: not keyword.iskeyword(name)), min_size=1,
                          max_size=4, unique=True))
    fields: dict[str, Any] = {}
    for name in names:
        annotation, default = draw(field_types(depth))
        if default is None and not (annotation is not None and "None" in repr(annotation)):
            fields[name] = (annotation, ...)
        else:
            fields[name] = (annotation, default if draw(st.booleans()) else ...)
    return pydantic.create_model(f"M{depth}_{draw(st.integers(0, 10**6))}", **fields)


@settings(max_examples=150, deadline=None)
@given(models())
def test_strict_schema_of_any_model_follows_the_rules(model: type[BaseModel]) -> None:
    original = model.model_json_schema()
    strict = strict_schema(original)
    assert strict_violations(strict) == []
    assert list(strict["properties"]) == list(original["properties"])
    defs = strict.get("$defs", {})
    for name, prop in strict["properties"].items():
        optional = name not in original.get("required", [])
        assert accepts_null(prop, defs) or not optional, name


@settings(max_examples=100, deadline=None)
@given(models())
def test_strict_tool_takes_null_for_every_optional_argument(model: type[BaseModel]) -> None:
    """What strict mode makes the model send: every key, null for the optional
    ones; the tool runs with their defaults."""
    seen: list[dict[str, Any]] = []
    made = tool(_model_function(model, seen), strict=True)
    assert strict_violations(made.parameters) == []
    required = model.model_json_schema().get("required", [])
    arguments = {name: (_example(field.annotation) if name in required else None)
                 for name, field in model.model_fields.items()}
    result = made.run_json_sync(json.dumps(arguments, default=_json_default))
    assert not result.is_error, result.content
    expected = model.model_validate({k: v for k, v in arguments.items()
                                     if k in required or v is not None})
    assert seen == [{name: getattr(expected, name) for name in model.model_fields}]


def _model_function(model: type[BaseModel], seen: list[dict[str, Any]]) -> Callable[..., str]:
    """A function whose parameters are ``model``'s fields; its calls go to ``seen``."""
    import inspect

    parameters = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY,
                                    annotation=field.annotation,
                                    default=(inspect.Parameter.empty if field.is_required()
                                             else field.default))
                  for name, field in model.model_fields.items()]

    def run(**kwargs: Any) -> str:
        seen.append(kwargs)
        return "ok"

    run.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    return run


def _example(annotation: Any) -> Any:
    """A valid JSON value for ``annotation`` (required fields only)."""
    for kind, value in SCALARS:
        if annotation == kind:
            return value.value if isinstance(value, enum.Enum) else value
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        required = annotation.model_json_schema().get("required", [])
        return {name: _example(field.annotation) for name, field in
                annotation.model_fields.items() if name in required}
    if getattr(annotation, "__origin__", None) is list:
        return []
    return None


def _json_default(value: Any) -> Any:
    return value.value if isinstance(value, enum.Enum) else str(value)


# ---------------------------------------------------------------- running


async def _run(made: Tool, arguments: str | dict[str, Any], call_id: str = "call_1",
               ) -> FunctionExecutionResult:
    return await made.run_json(arguments, call_id=call_id)


def test_async_tool_runs_and_returns_json() -> None:
    result = asyncio.run(_run(tool(get_weather), '{"city": "Paris", "days": 3, "unit": null}'))
    assert result == FunctionExecutionResult(
        call_id="call_1", name="get_weather",
        content='{"city":"Paris","unit":"celsius","days":3,"when":null}')


@pytest.mark.anyio
async def test_sync_tool_runs_in_a_worker_thread() -> None:
    threads: list[int] = []

    def where(label: str) -> str:
        """Report the thread."""
        threads.append(threading.get_ident())
        return label

    result = await tool(where).run_json({"label": "x"}, call_id="c")
    assert result.content == "x" and threads != [threading.get_ident()]


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.mark.parametrize("arguments, message", [
    ('{"city": 3, "days": 9}', "invalid arguments for tool 'get_weather': city: Input should "
                               "be a valid string; days: Input should be less than or equal "
                               "to 7"),
    ('{"days": 2}', "city: Field required"),
    ('{"city": "Paris", "when": {"start": "noon"}}', "when.start: Input should be a valid "
                                                     "integer"),
    ('{"city": "Paris", "units": "metric"}', "unexpected 'units'"),
    ('{"city": "Par', "not valid JSON (at offset 9"),
    ('["Paris"]', "must be a JSON object, not list"),
])
def test_invalid_arguments_are_error_results_naming_the_field(arguments: str,
                                                              message: str) -> None:
    result = asyncio.run(_run(tool(get_weather), arguments))
    assert result.is_error and result.call_id == "call_1" and result.name == "get_weather"
    assert message in result.text


def test_an_exception_in_the_tool_is_an_error_result() -> None:
    def fails(city: str) -> str:
        """Fail."""
        raise LookupError(f"no station in {city}")

    made = tool(fails)
    for result in (asyncio.run(_run(made, {"city": "Oslo"})),
                   made.run_json_sync({"city": "Oslo"}, call_id="call_1")):
        assert result.is_error
        assert result.text == "tool 'fails' raised LookupError: no station in Oslo"


def test_cancellation_is_not_swallowed() -> None:
    async def slow(seconds: float) -> str:
        """Sleep."""
        await asyncio.sleep(seconds)
        return "done"

    async def main() -> None:
        task = asyncio.ensure_future(tool(slow).run_json({"seconds": 10}))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())


def test_results_as_text() -> None:
    def model() -> Address:
        """A model."""
        return Address(street="Main St", zip_code=5)

    def nothing() -> None:
        """Nothing."""

    def image() -> list[TextBlock | DataBlock]:
        """An image."""
        return [TextBlock("plot:"), DataBlock(media_type="image/png", source=Base64Source(b"x"))]

    assert tool(model).run_json_sync(None).content == '{"street":"Main St","zip_code":5}'
    assert tool(nothing).run_json_sync("").content == "null"
    blocks = tool(image).run_json_sync("{}").content
    assert isinstance(blocks, list) and [type(b) for b in blocks] == [TextBlock, DataBlock]


def test_async_tool_in_the_sync_twin() -> None:
    result = tool(get_weather).run_json_sync('{"city": "Rome"}', call_id="c9")
    assert result.call_id == "c9" and json.loads(result.text)["city"] == "Rome"


def test_run_call_takes_a_tool_call_block() -> None:
    made = tool(get_weather)
    call = ToolCallBlock("toolu_1", "get_weather", '{"city": "Lima"}')
    result = anyio.run(made.run_call, call, backend="trio")  # awaited under trio too
    assert result.call_id == "toolu_1" and json.loads(result.text)["city"] == "Lima"
    cut = ToolCallBlock("toolu_2", "get_weather", '{"city": "Li', incomplete=True)
    result = made.run_call_sync(cut)
    assert result.is_error and "cut off" in result.text and result.call_id == "toolu_2"


def test_a_result_not_awaited_is_refused_where_it_lands_naming_the_sync_twin() -> None:
    """``tool.run_call(call)`` in sync code is a coroutine: put in a result
    message, or in the conversation, it is refused at once, naming the sync
    twin (it failed at the next request, reading ``call_id`` off a coroutine);
    anything else that is no message is refused by its place and type. The
    coroutine itself stays usable where awaiting it is right (asyncio.run)."""
    made = tool(get_weather)
    call = ToolCallBlock("toolu_1", "get_weather", '{"city": "Lima"}')
    with pytest.raises(InvalidMessageError, match=r"content\[0\] holds Tool\.run_call\(\.\.\.\) "
                       r"not awaited.*in sync code call Tool\.run_call_sync instead"):
        FunctionExecutionResultMessage([made.run_call(call)])
    with pytest.raises(InvalidMessageError, match=r"messages\[1\] holds Tool\.run_json\(\.\.\.\) "
                       r"not awaited.*Tool\.run_json_sync"):
        build_request("anthropic", [UserMessage("hi"), made.run_json("{}")], model="m")
    with pytest.raises(InvalidMessageError, match=r"messages\[0\] holds a dict object, where "
                       r"a message belongs"):
        build_request("gemini", [{"role": "user", "content": "hi"}], model="m")
    assert asyncio.run(made.run_call(call)).call_id == "toolu_1"


def test_a_tool_read_from_a_request_cannot_run() -> None:
    with pytest.raises(TypeError, match="no function"):
        Tool(name="remote").run_json_sync("{}")


def test_a_hand_built_tool_with_a_function_validates_from_its_annotations() -> None:
    def add(a: int, b: int) -> int:
        return a + b

    made = Tool(name="add", parameters={"type": "object"}, func=add)
    assert made.run_json_sync({"a": 1, "b": "2"}).content == "3"
    assert made.run_json_sync({"a": "x", "b": 2}).is_error


# ---------------------------------------------------------------- refs


def test_inline_refs() -> None:
    schema = tool(locate).parameters
    inlined = inline_refs(schema)
    assert "$defs" not in inlined and "$ref" not in json.dumps(inlined)
    assert inlined["properties"]["address"]["properties"]["street"] == {"type": "string"}
    assert inlined["properties"]["address"]["description"] == "Where to look."
    assert schema["properties"]["address"] == {"$ref": "#/$defs/Address",
                                               "description": "Where to look."}


# ---------------------------------------------------------------- SDK types


def test_tool_definitions_validate_against_sdk_types() -> None:
    """The schema dict in each wire's tool definition type: openai
    ChatCompletionFunctionToolParam / FunctionDefinition (TypedDicts: pydantic
    checks the shape, not extra keys), anthropic ToolParam, google-genai
    FunctionDeclaration and its JSONSchema model (extra keys forbidden: it
    names every keyword Gemini's JSON schema takes)."""
    from anthropic.types import ToolParam
    from google.genai import types as genai
    from openai.types.chat import ChatCompletionFunctionToolParam
    from openai.types.shared_params import FunctionDefinition

    for made in (tool(get_weather), tool(get_weather, strict=True), tool(locate),
                 tool(locate, strict=True), tool(sphinx_style)):
        function = {"name": made.name, "description": made.description,
                    "parameters": made.parameters, "strict": made.strict}
        pydantic.TypeAdapter(FunctionDefinition).validate_python(function)
        pydantic.TypeAdapter(ChatCompletionFunctionToolParam).validate_python(
            {"type": "function", "function": function})
        pydantic.TypeAdapter(ToolParam).validate_python(
            {"name": made.name, "description": made.description,
             "input_schema": made.parameters})
        genai.FunctionDeclaration(name=made.name, description=made.description,
                                  parameters_json_schema=made.parameters)
        json_schema = genai.JSONSchema.model_validate(made.parameters)
        genai.Schema.from_json_schema(json_schema=json_schema)


def _openai_chat_tool(entry: dict[str, Any]) -> None:
    from openai.types.chat import ChatCompletionFunctionToolParam

    pydantic.TypeAdapter(ChatCompletionFunctionToolParam).validate_python(entry, strict=True)


def _openai_responses_tool(entry: dict[str, Any]) -> None:
    from openai.types.responses import FunctionToolParam

    pydantic.TypeAdapter(FunctionToolParam).validate_python(entry, strict=True)


def _anthropic_tool(entry: dict[str, Any]) -> None:
    from anthropic.types import ToolParam

    pydantic.TypeAdapter(ToolParam).validate_python(entry, strict=True)


def _gemini_tool(entry: dict[str, Any]) -> None:
    from google.genai import types as genai

    genai.Tool.model_validate(entry)  # extra keys forbidden


def _ollama_tool(entry: dict[str, Any]) -> None:
    from ollama._types import Tool as OllamaTool

    OllamaTool.model_validate(entry)


# provider -> the SDK type of one entry of the body's "tools", and what the
# strict flag looks like there (None: the wire has no such flag)
ENCODED_TOOLS: dict[str, tuple[Callable[[dict[str, Any]], None], tuple[str, ...] | None]] = {
    "openai": (_openai_chat_tool, ("function", "strict")),
    "openai-responses": (_openai_responses_tool, ("strict",)),
    "anthropic": (_anthropic_tool, ("strict",)),
    "gemini": (_gemini_tool, None),
    "ollama": (_ollama_tool, None),
}


@pytest.mark.parametrize("provider", list(ENCODED_TOOLS))
def test_encoded_tool_definitions_validate_against_sdk_types(provider: str) -> None:
    """Tools from functions as each wire's encoder writes them, validated by
    that wire's SDK type; Responses gets ``strict: false`` for a non-strict
    tool (it would otherwise make the schema strict itself)."""
    from streamkit.conversation.messages import UserMessage
    from streamkit.providers.codec import build_request

    tools = [tool(get_weather), tool(locate, strict=True), tool(sphinx_style)]
    try:
        wire = build_request(provider, [UserMessage("hi")], model="m", max_tokens=16,
                             tools=tools)
    except (ModuleNotFoundError, NotImplementedError) as exc:
        pytest.skip(f"no request encoder for {provider} yet: {exc}")
    validate, strict_path = ENCODED_TOOLS[provider]
    entries = wire["tools"]
    if provider == "gemini":
        entries = [{"functionDeclarations": [declaration]} for entry in entries
                   for declaration in entry.get("functionDeclarations",
                                                entry.get("function_declarations", []))]
    assert len(entries) == len(tools)
    for entry, made in zip(entries, tools, strict=True):
        validate(entry)
        if strict_path is not None:
            found: Any = entry
            for key in strict_path:
                found = found.get(key) if isinstance(found, dict) else None
            assert found is made.strict, (provider, made.name, found)


# ---------------------------------------------------------------- structured output


class Weather(BaseModel):
    city: str
    celsius: float


def test_parse_answer_text() -> None:
    response = ChatResponse(content=[ThinkingBlock("hm"), TextBlock('{"city": "Oslo", '),
                                     TextBlock('"celsius": -3.5}')])
    assert response.parse(Weather) == Weather(city="Oslo", celsius=-3.5)
    fenced = ChatResponse(content=[TextBlock('```json\n{"city": "Oslo", "celsius": 1}\n```')])
    assert fenced.parse(Weather).celsius == 1


def test_parse_forced_tool_call() -> None:
    response = ChatResponse(content=[ToolCallBlock("c1", "Weather",
                                                   '{"city": "Lima", "celsius": 20}')],
                            finished_reason=FinishReason.TOOL_CALLS)
    assert response.parse(Weather) == Weather(city="Lima", celsius=20)


@pytest.mark.parametrize("content, reason, message", [
    ([TextBlock("I can't help", refusal=True)], None, "refused to answer with Weather"),
    ([], FinishReason.STOP, "no text and no tool call"),
    ([ToolCallBlock("a", "x", "{}"), ToolCallBlock("b", "y", "{}")], None, "2 tool calls"),
    ([TextBlock('{"city": "Oslo", "cel')], FinishReason.LENGTH,
     "is not valid JSON.*cut off at its length limit"),
    ([TextBlock('{"city": "Oslo"}')], None, "does not validate: celsius: Field required"),
    ([ToolCallBlock("a", "Weather", '{"city": "O', incomplete=True)], FinishReason.LENGTH,
     "were cut off"),
])
def test_parse_errors(content: list[Any], reason: FinishReason | None, message: str) -> None:
    response = ChatResponse(content=content, finished_reason=reason)
    with pytest.raises(StructuredOutputError, match=message) as caught:
        response.parse(Weather)
    assert caught.value.model is Weather and caught.value.response is response
    assert isinstance(caught.value, ValueError)


def test_parse_error_carries_the_text_and_errors() -> None:
    response = ChatResponse(content=[TextBlock('{"city": 5, "celsius": "hot"}')])
    with pytest.raises(StructuredOutputError) as caught:
        response.parse(Weather)
    assert caught.value.text == '{"city": 5, "celsius": "hot"}'
    assert [error["loc"] for error in caught.value.errors] == [("city",), ("celsius",)]
    assert isinstance(caught.value.__cause__, pydantic.ValidationError)


# ---------------------------------------------------------------- import cost


_IMPORT_COST = """
import sys, streamkit
before = set(sys.modules)
import streamkit.conversation.tools
print(sorted(m for m in set(sys.modules) - before if not m.startswith("streamkit")))
print(sorted(m for m in sys.modules if m.split(".")[0] in ("pydantic", "pydantic_core")))

@streamkit.tool
def weather(city: str) -> str:
    return city

print("pydantic" in sys.modules)
"""


def test_pydantic_comes_with_the_first_tool_not_with_import_streamkit() -> None:
    """``import streamkit`` loads no pydantic (~16 ms a user without tools need
    not pay), nor does importing the tools module, which loads nothing beyond
    streamkit; defining the first tool loads it."""
    out = subprocess.run([sys.executable, "-c", _IMPORT_COST], capture_output=True, text=True,
                         check=True).stdout
    assert out.splitlines() == ["[]", "[]", "True"]


def test_a_function_passed_to_build_request_resolves_its_local_model() -> None:
    """With ``from __future__ import annotations`` the annotation is the string
    'Parcel': it resolves where the function is defined, past streamkit's frames."""
    from streamkit.conversation.messages import UserMessage
    from streamkit.providers.codec import build_request

    class Parcel(BaseModel):
        weight: float

    def send(parcel: Parcel) -> str:
        """Send a parcel."""
        return "sent"

    wire = build_request("ollama", [UserMessage("send it")], model="m", tools=[send])
    parameters = wire["tools"][0]["function"]["parameters"]
    assert parameters["properties"]["parcel"]["properties"] == {"weight": {"type": "number"}}


# ---------------------------------------------------------------- hostile arguments and results


def _echo_anything(data: Any = None) -> Any:
    """Give the argument back as it came."""
    return data


def _echo_text(text: str) -> str:
    """Give the text back."""
    return text


def _both_ways(made: Tool, arguments: str | dict[str, Any]) -> list[FunctionExecutionResult]:
    return [asyncio.run(_run(made, arguments)), made.run_json_sync(arguments, call_id="call_1")]


def _deep(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("depth", [129, 1000, 100_000])
def test_deep_arguments_are_an_error_result(depth: int) -> None:
    """They raised RecursionError (json.loads, copy.deepcopy, the validator)."""
    made = tool(_echo_anything, name="echo")
    for arguments in ('{"data": ' + "[" * depth + "]" * depth + "}", {"data": _deep(depth)}):
        for result in _both_ways(made, arguments):
            assert result.is_error and result.call_id == "call_1"
            assert "128" in result.text and "could not be read" not in result.text


def test_arguments_at_the_depth_limit_run() -> None:
    made = tool(_echo_anything, name="echo")
    for result in _both_ways(made, {"data": _deep(126)}):
        assert not result.is_error and result.text.startswith("[[[")


def test_an_integer_past_pythons_digit_limit_is_an_error_result_naming_the_offset() -> None:
    """json.loads raised ValueError (no JSONDecodeError: no position)."""
    made = tool(_echo_anything, name="echo")
    for result in _both_ways(made, '{"data": ' + "9" * 5000 + "}"):
        assert result.is_error and "not valid JSON (at offset 9" in result.text


@pytest.mark.parametrize("arguments", ['{"text": "a\\ud800b"}', {"text": "a\ud800b"}])
def test_a_lone_surrogate_echoed_back_is_sent_as_u_fffd(arguments: str | dict[str, Any]) -> None:
    """A result must go on the wire as UTF-8: the text result held the surrogate,
    the JSON result raised PydanticSerializationError."""
    for made in (tool(_echo_text, name="echo_text"), tool(_echo_anything, name="echo")):
        args = arguments if made.name == "echo_text" else (
            {"data": arguments} if isinstance(arguments, dict) else
            '{"data": ' + arguments + "}")
        for result in _both_ways(made, args):
            assert not result.is_error, result.text
            result.text.encode("utf-8")
            assert "a\ufffdb" in result.text


def test_a_result_no_json_can_say_is_an_error_result() -> None:
    def circular() -> list[Any]:
        """Return a list that holds itself."""
        loop: list[Any] = []
        loop.append(loop)
        return loop

    for result in _both_ways(tool(circular), {}):
        assert result.is_error and "cannot be sent as JSON" in result.text


def test_an_exception_whose_message_fails_or_holds_a_surrogate_is_an_error_result() -> None:
    class Unprintable(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no")

    def unprintable() -> str:
        """Fail badly."""
        raise Unprintable

    def surrogate(text: str) -> str:
        """Fail naming the text."""
        raise ValueError(text)

    for result in _both_ways(tool(unprintable), {}):
        assert result.is_error and result.text == "tool 'unprintable' raised Unprintable"
    for result in _both_ways(tool(surrogate), {"text": "x\ud800"}):
        assert result.is_error and result.text == "tool 'surrogate' raised ValueError: x\ufffd"
