"""The contracts every wire keeps, written once and run on every wire.

Reading: on every stream of a wire (its recordings in ``tests/fixtures``, the
edge and synthetic ones, and the streamed turns of its recorded conversations),
the parser the registry builds keeps the event contract; payloads fed one at a
time give the response the byte pipeline gives from the whole body, and from
small network chunks; ``auto`` detects the wire from the bytes (at any chunking)
and gives the same response; the registry builds the wire's parser with its name
and framing.

Writing: every request body recorded for a wire (``tests/fixtures/conversations``,
and Ollama's documented requests and exchanges) is read and built again exactly,
twice, without changing the body; the rebuilt body is valid for the wire's
official SDK (``support.request_oracles.sdk_valid``) and shares no dict or list
with the request it was built from (:func:`known_sharing` says where two
builders still do).

What only one wire has (its SDK's accumulator as an oracle, its dialects, its
fast decoder...) stays in its own folder, ``tests/providers/<wire>/``.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from support.comparing import comparable, fresh_ids
from support.conversations import CONVERSATIONS, chat_conversations, conversations
from support.encode_matrix import source_wire
from support.parser_runs import Run, check_event_contract, run_parser
from support.recordings import FIXTURES, body, fixture_id, payloads, recordings
from support.request_oracles import sdk_valid

from streamkit import replay
from streamkit.model.events import event_to_dict
from streamkit.model.response import ChatResponse
from streamkit.providers import WIRE_NAMES, get_parser
from streamkit.providers.anthropic import AnthropicParser
from streamkit.providers.codec import build_request, parse_request
from streamkit.providers.gemini import GeminiParser
from streamkit.providers.ollama import OllamaParser
from streamkit.providers.openai_chat import OpenAIChatParser
from streamkit.providers.openai_responses import OpenAIResponsesParser
from streamkit.providers.wire_format import wire_format
from streamkit.reading.pipeline import Pipeline


@dataclass(frozen=True)
class Wire:
    """What the contracts need to know of a wire: its parser and how it reports."""

    name: str
    parser: type[Any]
    provider: str
    """The registry name of the wire's own vendor: what its parser reports."""
    framing: str
    conversations: tuple[str, ...]
    """Its folders of ``tests/fixtures/conversations``."""


WIRES = {wire.name: wire for wire in (
    Wire("openai-chat", OpenAIChatParser, "openai", "sse", ("openai-chat", "openai-compatible")),
    Wire("openai-responses", OpenAIResponsesParser, "openai-responses", "sse",
         ("openai-responses",)),
    Wire("anthropic", AnthropicParser, "anthropic", "sse", ("anthropic",)),
    Wire("gemini", GeminiParser, "gemini", "sse", ("gemini",)),
    Wire("ollama", OllamaParser, "ollama", "ndjson", ()),
)}
OLLAMA = FIXTURES / "ollama"


# ---------------------------------------------------------------- the streams


def conversation_streams() -> list[tuple[str, Path]]:
    """The streamed turn 1 answers of the recorded exchanges, by wire."""
    out = [(wire.name, path) for wire in WIRES.values() for folder in wire.conversations
           for path in sorted((CONVERSATIONS / folder).glob("*/turn1.response.sse"))]
    return out + [("ollama", path) for path in
                  sorted((OLLAMA / "conversations").glob("*/turn1.response.jsonl"))]


#: Every stream of every wire: (wire, recording).
STREAMS = sorted([(source_wire(path), path) for path in recordings()] + conversation_streams())


def stream_id(case: tuple[str, Path]) -> str:
    return f"{case[0]}:{fixture_id(case[1])}"


def read_by_payload(wire: str, path: Path) -> Run:
    """The recording's payloads one at a time into the parser the registry
    builds for the wire, ids counted afresh."""
    with fresh_ids():
        return run_parser(get_parser(wire), payloads(path))


def read_by_bytes(path: Path, provider: str, size: int | None) -> tuple[list[Any], ChatResponse]:
    """The recording's body through the pipeline in ``size``-byte chunks
    (``None``: one chunk), ids counted afresh."""
    raw = body(path)
    chunks = [raw] if size is None else [raw[i:i + size] for i in range(0, len(raw), size)]
    with fresh_ids():
        return replay(chunks, provider, on_error="return")


def test_every_wire_has_its_streams() -> None:
    """Each recording is a stream of one wire, and every wire has streams of
    its own: recorded, edge and from its recorded exchanges."""
    counts = {name: sum(1 for wire, _ in STREAMS if wire == name) for name in WIRE_NAMES}
    assert set(WIRES) == set(WIRE_NAMES)
    assert all(count >= 8 for count in counts.values()), counts
    assert len(STREAMS) == len(recordings()) + len(conversation_streams())
    assert {wire for wire, _ in conversation_streams()} >= {"openai-responses", "gemini",
                                                            "ollama"}


@pytest.mark.parametrize(("wire", "path"), STREAMS, ids=[stream_id(s) for s in STREAMS])
def test_every_stream_keeps_the_event_contract(wire: str, path: Path) -> None:
    check_event_contract(read_by_payload(wire, path).events)


@pytest.mark.parametrize(("wire", "path"), STREAMS, ids=[stream_id(s) for s in STREAMS])
def test_payload_at_a_time_equals_the_byte_pipeline(wire: str, path: Path) -> None:
    """The parser fed payload by payload and the pipeline fed the whole body
    give the same events and the same response."""
    direct = read_by_payload(wire, path)
    events, response = read_by_bytes(path, wire, None)
    assert comparable(response) == comparable(direct.response)
    assert [event_to_dict(e) for e in events] == [event_to_dict(e) for e in direct.events]


@pytest.mark.parametrize(("wire", "path"), STREAMS, ids=[stream_id(s) for s in STREAMS])
def test_small_network_chunks_change_nothing(wire: str, path: Path) -> None:
    """7-byte network chunks (every frame and many characters cut) give the
    response of the whole body."""
    expected = comparable(read_by_payload(wire, path).response)
    assert comparable(read_by_bytes(path, wire, 7)[1]) == expected


@pytest.mark.parametrize(("wire", "path"), STREAMS, ids=[stream_id(s) for s in STREAMS])
def test_auto_detection_picks_the_wire(wire: str, path: Path) -> None:
    """``auto`` reads the wire from the first bytes, whole or cut in 7, 64 or
    512-byte chunks, reports the wire's own vendor and gives the response of
    the wire's own parser."""
    expected = comparable(read_by_payload(wire, path).response)
    raw = body(path)
    for size in (None, 7, 64, 512):
        chunks = [raw] if size is None else [raw[i:i + size] for i in range(0, len(raw), size)]
        with fresh_ids():
            pipeline = Pipeline("auto")
            for chunk in chunks:
                pipeline.feed(chunk)
            pipeline.finish()
        assert pipeline.provider == WIRES[wire].provider, size
        assert comparable(pipeline.response) == expected, size


@pytest.mark.parametrize("wire", WIRES)
def test_the_registry_builds_the_parser(wire: str) -> None:
    expected = WIRES[wire]
    for parser in (get_parser(wire), wire_format(wire).parser()):
        assert isinstance(parser, expected.parser)
        assert (parser.name, parser.framing) == (expected.provider, expected.framing)


# ---------------------------------------------------------------- the requests


@dataclass(frozen=True)
class Recorded:
    """A recorded request body of a wire, and what its SDK check needs."""

    name: str
    wire: str
    body: dict[str, Any]
    dialect: str | None = None

    @property
    def variant(self) -> dict[str, Any]:
        """The keywords of this wire's SDK check (``support.request_oracles``)."""
        if self.wire == "openai-chat":
            return {"dialect": self.dialect}
        if self.wire == "gemini":
            return {"vertex": "vertex" in self.name}
        return {}

    def read(self, body: dict[str, Any]) -> Any:
        """The body read: by the codec for the wire's own vendor, by the wire's
        record for a dialect (some dialects have no registry name of their own)."""
        if self.dialect is None:
            return parse_request(WIRES[self.wire].provider, body)
        return wire_format(self.wire).parse_request(body, self.dialect)

    def build(self, request: Any) -> dict[str, Any]:
        if self.dialect is None:
            return build_request(WIRES[self.wire].provider, request)
        return wire_format(self.wire).build_request(request, self.dialect)


def _turns(wire: str, name: str, turn1: dict[str, Any], turn2: dict[str, Any],
           dialect: str | None = None) -> list[Recorded]:
    return [Recorded(f"{name}/turn1", wire, turn1, dialect),
            Recorded(f"{name}/turn2", wire, turn2, dialect)]


def recorded_requests() -> list[Recorded]:
    """Every request body recorded for a wire: both turns of each exchange,
    and Ollama's documented requests."""
    out = [recorded for conversation, dialect in chat_conversations()
           for recorded in _turns("openai-chat", conversation.name, conversation.turn1_request,
                                  conversation.turn2_request, dialect)]
    for wire in ("openai-responses", "anthropic", "gemini"):
        out += [recorded for c in conversations(wire)
                for recorded in _turns(wire, c.name, c.turn1_request, c.turn2_request)]
    out += [Recorded(f"ollama/requests/{path.stem}", "ollama", _json(path))
            for path in sorted((OLLAMA / "requests").glob("*.json"))]
    for folder in sorted(path for path in (OLLAMA / "conversations").iterdir() if path.is_dir()):
        out += _turns("ollama", f"ollama/{folder.name}", _json(folder / "turn1.request.json"),
                      _json(folder / "turn2.request.json"))
    return out


def _json(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(path.read_bytes())
    return loaded


REQUESTS = recorded_requests()


def scrambled(value: Any) -> Any:
    """``value`` with every dict and list in it changed in place (a key added,
    an item appended): what shares a container with it sees the change."""
    if isinstance(value, dict):
        for item in list(value.values()):
            scrambled(item)
        value["__scrambled__"] = True
    elif isinstance(value, list):
        for item in list(value):
            scrambled(item)
        value.append("__scrambled__")
    return value


def test_every_wire_has_recorded_requests() -> None:
    counts = {name: sum(1 for r in REQUESTS if r.wire == name) for name in WIRE_NAMES}
    assert all(count >= 12 for count in counts.values()), counts
    assert {r.dialect for r in REQUESTS} >= {None, "mistral", "openrouter", "glm",
                                             "ollama-openai"}


@pytest.mark.parametrize("recorded", REQUESTS, ids=[r.name for r in REQUESTS])
def test_a_recorded_request_round_trips_exactly(recorded: Recorded) -> None:
    """``build_request(parse_request(body)) == body``, again from the rebuilt
    body; reading leaves the body as it was. The model and ``stream`` are the
    body's (none where the URL says them)."""
    original = copy.deepcopy(recorded.body)
    request = recorded.read(recorded.body)
    rebuilt = recorded.build(request)
    assert rebuilt == original
    assert recorded.body == original  # reading did not change the body
    assert recorded.build(recorded.read(copy.deepcopy(rebuilt))) == original
    if not wire_format(recorded.wire).model_in_body:
        assert request.model is None and request.stream is None
    else:
        assert (request.model, request.stream) == (original.get("model"),
                                                   original.get("stream"))


@pytest.mark.parametrize("recorded", REQUESTS, ids=[r.name for r in REQUESTS])
def test_a_built_body_shares_nothing_with_the_request(recorded: Recorded) -> None:
    """Every dict and list of a built body is its own: a caller (a gateway, a
    client adding its defaults) may edit it and build the request again."""
    request = recorded.read(copy.deepcopy(recorded.body))
    scrambled(recorded.build(request))
    assert recorded.build(request) == recorded.body


@pytest.mark.parametrize("recorded", REQUESTS, ids=[r.name for r in REQUESTS])
def test_a_rebuilt_request_is_valid_for_the_official_sdk(recorded: Recorded) -> None:
    sdk_valid(recorded.wire, recorded.body, **recorded.variant)
    sdk_valid(recorded.wire, recorded.build(recorded.read(copy.deepcopy(recorded.body))),
              **recorded.variant)
