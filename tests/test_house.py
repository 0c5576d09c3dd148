"""One house per wire format: every wire package has the same shape (every
verb in its file, no file it does not list, the tool definitions in
``tools.py``), every vendor name means the same everywhere, and the ids
streamkit makes up travel in the events."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import re
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from support.comparing import comparable
from support.recordings import body, fixture_id, recordings

import streamkit
from streamkit import Tool, UserMessage, build_request, parse_request, parse_response, replay
from streamkit.model.accumulate import Accumulator
from streamkit.model.ids import id_factory
from streamkit.model.vendors import ALIASES, PROVIDERS
from streamkit.providers import WIRE_NAMES, WireFormat, get_parser, vendor, wire_format
from streamkit.providers.wire_format import SHARED_FILES, VERB_FILES

PROVIDERS_DIR = Path(streamkit.__file__).parent / "providers"

#: A file's row in a wire package's docstring table: its name first on the line.
LISTED_FILE = re.compile(r"^``(\w+\.py)``  ", re.MULTILINE)

#: What every ``tools.py`` defines: a tool's declaration both ways, the body's
#: tool fields both ways.
TOOL_VERBS = ("tool_definition", "read_tool_definition", "write_tools", "read_tools")

#: The shared helpers that write or read a tool's declaration: only ``tools.py``
#: takes them.
DECLARATION_HELPERS = frozenset({"function_fields", "read_function", "own_entry",
                                 "written_tools", "named_tools"})

WEATHER = Tool(name="get_weather", description="The weather in a city.",
               parameters={"type": "object", "properties": {"city": {"type": "string"}},
                           "required": ["city"]})

#: A minimal non-streamed answer ("hi") in each wire format.
ANSWERS: dict[str, dict[str, Any]] = {
    "openai-chat": {"id": "chatcmpl-1", "object": "chat.completion", "created": 1,
                    "model": "m", "choices": [{"index": 0, "finish_reason": "stop",
                                               "message": {"role": "assistant",
                                                           "content": "hi"}}]},
    "openai-responses": {"id": "resp_1", "object": "response", "status": "completed",
                         "model": "m", "output": [{
                             "type": "message", "id": "msg_1", "role": "assistant",
                             "status": "completed",
                             "content": [{"type": "output_text", "text": "hi",
                                          "annotations": []}]}]},
    "anthropic": {"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
                  "content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn",
                  "usage": {"input_tokens": 1, "output_tokens": 1}},
    "gemini": {"responseId": "g1", "modelVersion": "m", "candidates": [
        {"content": {"role": "model", "parts": [{"text": "hi"}]}, "finishReason": "STOP"}]},
    "ollama": {"model": "m", "created_at": "2026-01-01T00:00:00Z", "done": True,
               "done_reason": "stop", "message": {"role": "assistant", "content": "hi"}},
}

#: A recorded stream of each wire format.
STREAMS = {
    "openai-chat": "openai-chat/text-with-usage-chunk.sse",
    "openai-responses": "openai-responses/text.sse",
    "anthropic": "anthropic/text-basic.sse",
    "gemini": "gemini/text.sse",
    "ollama": "ollama/docs-generate-midstream-error.ndjson",
}

ALL_NAMES = sorted({*PROVIDERS, *ALIASES})


# ---------------------------------------------------------------- the wire record


def _package_dir(name: str) -> Path:
    return PROVIDERS_DIR / name.replace("-", "_")


def _module(name: str, file: str = "__init__.py") -> ModuleType:
    package = f"streamkit.providers.{name.replace('-', '_')}"
    return importlib.import_module(package if file == "__init__.py" else f"{package}.{file[:-3]}")


def _verbs() -> list[dataclasses.Field[Any]]:
    """The record's fields that are functions (its verbs)."""
    return [field for field in dataclasses.fields(WireFormat)
            if isinstance(field.type, str) and field.type.startswith(("Callable", "Endpoint"))]


@pytest.mark.parametrize("name", WIRE_NAMES)
def test_every_wire_package_has_every_verb_in_its_file(name: str) -> None:
    wire = wire_format(name)
    assert isinstance(wire, WireFormat) and wire.name == name
    assert sorted(f for f in VERB_FILES if not (_package_dir(name) / f).is_file()) == []
    for verb in _verbs():
        assert callable(getattr(wire, verb.name)), verb.name
    assert wire.finish_reasons and all(isinstance(k, str) for k in wire.finish_reasons)


def test_the_wire_record_has_no_optional_verb() -> None:
    """A wire without a verb is no wire: every function of the record is a
    required field, never ``None``."""
    verbs = _verbs()
    assert {verb.name for verb in verbs} == {
        "parser", "build_request", "parse_request", "parse_response", "endpoint",
        "encode_stream", "encode_response", "encode_error", "answer_options"}
    for verb in verbs:
        assert verb.default is dataclasses.MISSING, verb.name
        assert verb.default_factory is dataclasses.MISSING, verb.name
        assert not str(verb.type).replace(" ", "").endswith("|None"), verb.name


@pytest.mark.parametrize("name", WIRE_NAMES)
def test_every_file_of_a_wire_package_is_listed_with_its_job(name: str) -> None:
    """The package's docstring table lists every file it holds, each once, and
    nothing it does not hold: a new file says its job where a reader looks."""
    files = {path.name for path in _package_dir(name).glob("*.py")} - {"__init__.py"}
    listed = LISTED_FILE.findall(_module(name).__doc__ or "")
    assert sorted(listed) == sorted(set(listed))
    assert set(listed) == files


def test_a_file_name_two_wires_have_is_a_verb_or_one_shared_job() -> None:
    """Beyond the verbs, a file name in two wire packages is one of
    :data:`~streamkit.providers.wire_format.SHARED_FILES` (one job, one name),
    and each of those is in two packages at least."""
    names = Counter(path.name for name in WIRE_NAMES for path in _package_dir(name).glob("*.py"))
    repeated = {file for file, count in names.items() if count > 1}
    assert repeated - {"__init__.py", *VERB_FILES} == set(SHARED_FILES)


@pytest.mark.parametrize("name", WIRE_NAMES)
def test_the_tool_definitions_live_in_tools_py_both_ways(name: str) -> None:
    tools = _module(name, "tools.py")
    for verb in TOOL_VERBS:
        assert verb in tools.__all__ and getattr(tools, verb).__module__ == tools.__name__
    declaration = tools.tool_definition(WEATHER)
    read = tools.read_tool_definition(declaration)
    assert isinstance(read, Tool)
    assert (read.name, read.description, read.parameters) == (
        WEATHER.name, WEATHER.description, WEATHER.parameters)
    assert tools.tool_definition(read) == declaration
    assert tools.read_tool_definition({"googleSearch": {}}) is None  # no declaration


@pytest.mark.parametrize("name", WIRE_NAMES)
def test_no_other_file_of_a_wire_writes_or_reads_a_tool_declaration(name: str) -> None:
    for path in _package_dir(name).glob("*.py"):
        if path.name == "tools.py":
            continue
        taken = {alias.name for node in ast.walk(ast.parse(path.read_text()))
                 if isinstance(node, ast.ImportFrom) and node.module == "function_tools"
                 for alias in node.names}
        assert not taken & DECLARATION_HELPERS, path.name


def test_every_vendor_speaks_a_known_wire_with_a_known_dialect() -> None:
    from streamkit.providers.openai_chat.dialects import DIALECTS

    for entry in PROVIDERS.values():
        assert entry.wire in WIRE_NAMES, entry.name
        if entry.dialect is not None and wire_format(entry.wire).dialects:
            assert entry.dialect in DIALECTS, entry.name
    assert len(ALIASES) == sum(len(entry.aliases) for entry in PROVIDERS.values())
    assert not set(ALIASES) & set(PROVIDERS)


# ---------------------------------------------------------------- one name, one meaning


@pytest.mark.parametrize("name", ALL_NAMES)
def test_every_name_works_in_every_entry_point_with_the_same_meaning(name: str) -> None:
    entry = vendor(name)
    wire = entry.wire
    body_sent = build_request(name, [UserMessage("hi")], model="m", max_tokens=100)
    assert isinstance(body_sent, dict)
    assert build_request(name, parse_request(name, body_sent)) == body_sent
    assert parse_response(name, ANSWERS[wire]).provider == entry.name
    assert parse_response(name, ANSWERS[wire]).text == "hi"
    streamed = streamkit.stream(iter([body(STREAMS[wire])]), provider=name,
                                on_error="return").final()
    assert streamed.provider == entry.name
    assert get_parser(name).name == entry.name
    client = streamkit.SyncClient(f"{name}:m", api_key="k", base_url="http://127.0.0.1:9")
    assert client.provider.name == entry.name
    client.close()


def test_an_unknown_name_is_refused_the_same_way_everywhere() -> None:
    for call in (lambda: build_request("nope", [UserMessage("hi")]),
                 lambda: parse_request("nope", {}),
                 lambda: parse_response("nope", {}),
                 lambda: get_parser("nope"),
                 lambda: streamkit.SyncClient("nope:m", api_key="k")):
        with pytest.raises(streamkit.ProviderConfigError, match="unknown provider 'nope'"):
            call()


# ---------------------------------------------------------------- ids that travel in the events


@pytest.mark.parametrize("fixture", recordings(), ids=fixture_id)
def test_reapplying_a_streams_events_with_random_ids_gives_its_response(fixture: Path) -> None:
    with id_factory(None):
        events, final = replay(body(fixture), on_error="return")
        again = Accumulator()
        again.apply_all(events)
    assert comparable(again.response) == comparable(final)


@pytest.mark.parametrize("fixture", recordings(), ids=fixture_id)
def test_two_parses_of_the_same_bytes_are_equal_with_random_ids(fixture: Path) -> None:
    raw = body(fixture)
    with id_factory(None):
        whole = replay(raw, on_error="return")[1]
        bytewise = replay([raw[i:i + 1] for i in range(len(raw))], on_error="return")[1]
    assert whole == bytewise
    assert whole.id == bytewise.id
    assert [b.id for b in whole.content] == [b.id for b in bytewise.content]


@pytest.mark.parametrize("wire", WIRE_NAMES)
def test_two_reads_of_a_response_body_are_equal_with_random_ids(wire: str) -> None:
    with id_factory(None):
        first, second = (parse_response(wire, ANSWERS[wire]) for _ in range(2))
    assert first == second and first.id == second.id
    assert [b.id for b in first.content] == [b.id for b in second.content]
