"""Gemini's OpenAPI schemas (tool ``parameters``, ``responseSchema``) and JSON Schema.

No recorded body declares a schema in Gemini's OpenAPI form (they all use
``parametersJsonSchema``), so tests/fixtures/edge/gemini-openapi-schemas.request.json
is built from the documented forms (Gemini API / Vertex AI ``Schema`` reference
and the function-calling guide): upper-case type words, ``nullable``,
``format: "enum"``, an INTEGER enum of strings (the reference's apartment-number
example), an int64 count as a string, lower-case types under ``parameters`` (the
guide's REST examples), ``anyOf`` with ``nullable``, and a ``responseSchema``.

Oracles: jsonschema's Draft 2020-12 metaschema (a converted schema is JSON
Schema, the body's is not) and instances validated against it (it means what
the Gemini schema means); google-genai's ``types.Schema`` (what
:func:`to_openapi` writes is a Schema it takes key for key); the official SDK
request types of every target wire (``support.request_oracles``).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from google.genai import types
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from support.recordings import FIXTURES
from support.request_oracles import sdk_valid
from support.translation_matrix import TARGETS, essence, losses

from streamkit import Request, Tool, UserMessage, build_request, parse_request
from streamkit.providers.gemini.schema import OPENAPI_SCHEMA, SCHEMA_FIELD, from_openapi, to_openapi

EDGE = FIXTURES / "edge" / "gemini-openapi-schemas.request.json"
CONVERSATIONS = FIXTURES / "conversations"
OTHER_WIRES = [wire for wire in TARGETS if wire != "gemini"]


def assert_round_trip(body: dict[str, Any]) -> Request:
    """``body`` read and rebuilt exactly, and valid for the SDK."""
    request = parse_request("gemini", body)
    assert build_request("gemini", request) == body
    sdk_valid("gemini", body)
    return request


def edge_body() -> dict[str, Any]:
    body: dict[str, Any] = json.loads(EDGE.read_text())
    return body


def declarations(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [d for entry in body.get("tools", []) for d in entry.get("functionDeclarations", [])]


def type_words(schema: Any) -> set[str]:
    """Every ``type`` value in a schema, at any depth."""
    found: set[str] = set()
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "type" and isinstance(value, (str, list)):
                found |= {value} if isinstance(value, str) else set(value)
            else:
                found |= type_words(value)
    elif isinstance(schema, list):
        for item in schema:
            found |= type_words(item)
    return found


# ---------------------------------------------------------------- the conversion


def test_an_openapi_schema_reads_as_the_json_schema_it_means() -> None:
    book = declarations(edge_body())[0]["parameters"]
    with pytest.raises(SchemaError):  # "OBJECT" is no JSON Schema type
        Draft202012Validator.check_schema(book)
    converted = from_openapi(book)
    Draft202012Validator.check_schema(converted)
    valid = Draft202012Validator(converted).is_valid
    assert valid({"people": 2, "time": "19:00"})
    assert valid({"people": 2, "time": "19:00", "seating": None, "table": 201,
                  "requests": ["high chair"]})
    assert not valid({"people": 2, "time": "19:00", "table": 999})  # the enum, as integers
    assert not valid({"people": 2, "time": "19:00", "table": "101"})
    assert not valid({"people": 2, "time": "19:00", "seating": "patio"})
    assert not valid({"people": 2, "time": "19:00", "requests": ["a", "b", "c", "d"]})
    assert not valid({"people": 0, "time": "19:00"})
    assert not valid({"time": "19:00"})


def test_nullable_choices_admit_null_and_nothing_else() -> None:
    weather = declarations(edge_body())[1]["parameters"]
    converted = from_openapi(weather)
    Draft202012Validator.check_schema(converted)
    valid = Draft202012Validator(converted).is_valid
    for unit in ("celsius", 3, None):
        assert valid({"location": "Paris", "unit": unit})
    assert not valid({"location": "Paris", "unit": "kelvin"})
    assert not valid({"location": "Paris", "unit": 2.5})


@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"city": {"type": "string", "description": "City"},
                                      "days": {"type": "integer", "minimum": 1, "maximum": 7}},
     "required": ["city"], "title": "Forecast"},
    {"type": "array", "items": {"type": ["number", "null"]}, "minItems": 1},
    {"type": "object", "properties": {"v": {"anyOf": [{"type": "string"}, {"type": "boolean"},
                                                      {"type": "null"}]}}},
    {"type": "integer", "enum": [1, 2, 3], "examples": [2]},
    {"type": ["string", "null"], "enum": ["indoor", "outdoor", None]},
    {"type": "object", "properties": {"type": {"type": "string"}}},  # a property named "type"
])
def test_json_schema_written_as_a_schema_the_sdk_takes(schema: dict[str, Any]) -> None:
    openapi = to_openapi(schema)
    assert openapi is not None
    types.Schema.model_validate(openapi)  # extra="forbid": an unknown key at any depth fails
    assert type_words(openapi) <= {"OBJECT", "ARRAY", "STRING", "INTEGER", "NUMBER",
                                   "BOOLEAN", "NULL"}
    assert from_openapi(openapi) == schema


@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {}}},
    {"type": "object", "properties": {}, "additionalProperties": False},
    {"oneOf": [{"type": "string"}, {"type": "integer"}]},
    {"type": "string", "const": "x"},
    {"type": ["string", "integer"]},
    {"type": "string", "examples": ["a", "b"]},
    {"type": "boolean", "enum": [True]},
    {"type": "object", "properties": {"deep": {"type": "array", "items": {"not": {}}}}},
])
def test_what_the_schema_object_cannot_say_is_declined(schema: dict[str, Any]) -> None:
    assert to_openapi(schema) is None


# ---------------------------------------------------------------- the Gemini body


def test_the_edge_body_rebuilds_exactly_and_holds_json_schema() -> None:
    request = assert_round_trip(edge_body())
    tools = [tool for tool in request.tools or [] if isinstance(tool, Tool)]
    assert [tool.name for tool in tools] == ["book_table", "get_weather"]
    for tool in tools:
        Draft202012Validator.check_schema(tool.parameters)
        assert type_words(tool.parameters) <= {"object", "array", "string", "integer", "null"}
        assert tool.metadata[SCHEMA_FIELD] == "parameters"
    # forms the conversion does not give back are kept (counts as strings, format "enum",
    # lower-case words), in Gemini's extras only
    assert all(OPENAPI_SCHEMA in tool.metadata for tool in tools)
    assert request.json_output is not None and not isinstance(request.json_output, bool)
    assert request.json_output.schema["properties"]["confidence"] == {"type": ["number", "null"]}
    assert OPENAPI_SCHEMA not in request.json_output.metadata  # converts back exactly


def test_a_schema_in_the_conversions_own_form_needs_no_copy() -> None:
    body = {"contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
            "tools": [{"functionDeclarations": [{"name": "f", "description": "F.", "parameters": {
                "type": "OBJECT", "properties": {"q": {"type": "STRING", "nullable": True}},
                "required": ["q"]}}]}]}
    (tool,) = assert_round_trip(body).tools or []
    assert isinstance(tool, Tool) and OPENAPI_SCHEMA not in tool.metadata
    assert tool.parameters == {"type": "object", "properties": {"q": {"type": ["string", "null"]}},
                               "required": ["q"]}


def test_a_changed_schema_goes_back_converted() -> None:
    """The body's own schema is written only while the tool's JSON Schema still
    stands for it; a new schema is converted, or goes to parametersJsonSchema
    when the OpenAPI form cannot say it."""
    request = parse_request("gemini", edge_body())
    book, weather = request.tools or []
    assert isinstance(book, Tool) and isinstance(weather, Tool)
    book.parameters = {"type": "object", "properties": {"people": {"type": "integer"}}}
    weather.parameters = {"type": "object", "properties": {"at": {"$ref": "#/$defs/Place"}},
                          "$defs": {"Place": {"type": "string"}}}
    body = build_request("gemini", request)
    sdk_valid("gemini", body)
    first, second = declarations(body)
    assert first["parameters"] == {"type": "OBJECT", "properties": {"people": {"type": "INTEGER"}}}
    assert "parameters" not in second and second["parametersJsonSchema"] == weather.parameters


def test_a_hand_made_tool_goes_as_json_schema() -> None:
    body = build_request("gemini", Request(messages=[UserMessage("Hi")], tools=[Tool("f", "F.")]))
    assert declarations(body) == [{"name": "f", "description": "F.", "parametersJsonSchema": {
        "type": "object", "properties": {}}}]


# ---------------------------------------------------------------- other wires


def _ready_for(wire: str, request: Request) -> Request:
    """The conversation as a caller sends it to ``wire`` (no options but
    Anthropic's required max_tokens), Responses tools marked non-strict (as
    Gemini's are)."""
    request = Request(messages=request.messages, tools=copy.deepcopy(request.tools),
                      tool_choice=request.tool_choice, json_output=request.json_output,
                      options={"max_tokens": 1024} if wire == "anthropic" else {})
    if wire == "openai-responses":
        for tool in request.tools or []:
            if isinstance(tool, Tool):
                tool.strict = False
    return request


@pytest.mark.parametrize("wire", OTHER_WIRES)
def test_gemini_schemas_reach_every_wire_as_json_schema(wire: str) -> None:
    source = parse_request("gemini", edge_body())
    vendor, model = TARGETS[wire]
    body = build_request(vendor, _ready_for(wire, source), model=model)
    sdk_valid(wire, body)
    text = json.dumps(body)
    assert not any(f'"{word}"' in text for word in ("OBJECT", "STRING", "INTEGER", "ARRAY"))
    back = parse_request(vendor, body)
    assert losses(essence(source), essence(back)) == []
    expected = {d["name"]: from_openapi(d["parameters"]) for d in declarations(edge_body())}
    assert {t.name: t.parameters for t in back.tools or [] if isinstance(t, Tool)} == expected
    if wire != "anthropic":  # Anthropic's structured output keeps no schema of its own form
        assert back.json_output is not None and not isinstance(back.json_output, bool)
        assert back.json_output.schema == from_openapi(
            edge_body()["generationConfig"]["responseSchema"])


def _recorded_gemini_bodies() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for exchange in sorted((CONVERSATIONS / "gemini").iterdir()):
        body = json.loads((exchange / "turn2.request.json").read_text())
        if any("functionDeclarations" in entry for entry in body.get("tools", [])):
            out.append((exchange.name, body))
    return out


@pytest.mark.parametrize(("name", "body"), _recorded_gemini_bodies())
@pytest.mark.parametrize("wire", OTHER_WIRES)
def test_recorded_gemini_schemas_reach_other_wires_unchanged(
        wire: str, name: str, body: dict[str, Any]) -> None:
    """The recordings declare JSON Schema (``parametersJsonSchema``): it goes
    to every wire as it is."""
    vendor, model = TARGETS[wire]
    built = build_request(vendor, _ready_for(wire, parse_request("gemini", body)), model=model)
    back = parse_request(vendor, built)
    schemas = {d["name"]: d.get("parametersJsonSchema", d.get("parameters_json_schema"))
               for d in declarations(body)}
    assert {t.name: t.parameters for t in back.tools or [] if isinstance(t, Tool)} == schemas
    for schema in schemas.values():
        Draft202012Validator.check_schema(schema)


# ---------------------------------------------------------------- a description of null


def _functions(wire: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """The function declarations of a body of ``wire``."""
    if wire == "gemini":
        return declarations(body)
    tools = body.get("tools", [])
    return [tool["function"] for tool in tools] if wire in ("openai-chat", "ollama") else tools


def test_a_null_description_rebuilds_on_gemini_and_is_left_out_elsewhere() -> None:
    body = {"contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
            "tools": [{"functionDeclarations": [{"name": "f", "description": None,
                                                 "parametersJsonSchema": {"type": "object"}}]}]}
    request = parse_request("gemini", body)
    (tool,) = request.tools or []
    assert isinstance(tool, Tool) and tool.description == ""
    assert build_request("gemini", request) == body
    for wire in OTHER_WIRES:
        vendor, model = TARGETS[wire]
        built = build_request(vendor, _ready_for(wire, request), model=model)
        sdk_valid(wire, built)
        assert [function.get("description", "absent") for function in _functions(wire, built)] == [
            "absent"], wire


def test_a_recorded_null_description_goes_to_every_wire_as_a_string_or_not_at_all() -> None:
    """The Bedrock Mantle Responses recording declares ``"description": null``."""
    body = json.loads((CONVERSATIONS / "openai-responses" / "bedrock-mantle-call-id-rewrite"
                       / "turn2.request.json").read_text())
    assert [tool["description"] for tool in body["tools"]] == [None, None]
    request = parse_request("openai-responses", body)
    for wire in ("openai-chat", "anthropic", "gemini", "ollama"):
        vendor, model = TARGETS[wire]
        built = build_request(vendor, _ready_for(wire, request), model=model)
        descriptions = [function.get("description", "absent")
                        for function in _functions(wire, built)]
        assert descriptions == (["", ""] if wire == "gemini" else ["absent", "absent"]), wire


def test_a_tool_without_a_description_goes_to_gemini_with_an_empty_one() -> None:
    tool = Tool("f")
    tool.description = None  # type: ignore[assignment]  # as a framework adapter may leave it
    body = build_request("gemini", Request(messages=[UserMessage("Hi")], tools=[tool]))
    sdk_valid("gemini", body)
    assert declarations(body)[0]["description"] == ""
