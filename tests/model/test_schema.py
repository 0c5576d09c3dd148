"""ChatResponse, its blocks and ChatUsage as first-class pydantic types, and in FastAPI.

Oracles: pydantic's own TypeAdapter, the ``jsonschema`` validator (Draft 2020-12)
on the dumped JSON of every recording, and FastAPI's TestClient.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pydantic
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from support.comparing import comparable
from support.recordings import body, fixture_id, recordings

import streamkit
from streamkit import ChatResponse, ChatUsage, ContentBlock, DataBlock, TextBlock, ToolCallBlock

RECORDINGS = recordings()
RESPONSE = pydantic.TypeAdapter(ChatResponse)
SCHEMA = RESPONSE.json_schema()


def replayed(path: Path) -> ChatResponse:
    return streamkit.replay(body(path), on_error="return")[1]


@pytest.mark.parametrize("path", RECORDINGS, ids=fixture_id)
def test_json_dump_is_to_dict_and_validates_back(path: Path) -> None:
    original = replayed(path)
    dumped = RESPONSE.dump_json(original)
    assert json.loads(dumped) == json.loads(original.to_json())
    back = RESPONSE.validate_json(dumped)
    assert comparable(back) == comparable(original)
    assert back.created_at == original.created_at


@pytest.mark.parametrize("path", RECORDINGS, ids=fixture_id)
def test_python_dump_has_bytes_and_validates_back(path: Path) -> None:
    original = replayed(path)
    dumped = RESPONSE.dump_python(original)
    for block, item in zip(original.content, dumped["content"], strict=True):
        if isinstance(block, DataBlock):
            assert item["source"]["data"] == block.data  # the bytes, not base64
    assert comparable(RESPONSE.validate_python(dumped)) == comparable(original)


@pytest.mark.parametrize("path", RECORDINGS, ids=fixture_id)
def test_the_json_schema_accepts_the_dumped_json(path: Path) -> None:
    jsonschema.validate(json.loads(RESPONSE.dump_json(replayed(path))), SCHEMA,
                        cls=jsonschema.Draft202012Validator)


def test_the_json_schema_describes_the_real_shape() -> None:
    """Not a schema that accepts anything: blocks are discriminated by type, and a
    block of the wrong shape or an unknown type is refused."""
    content = SCHEMA["properties"]["content"]["items"]
    assert content["discriminator"]["propertyName"] == "type"
    assert set(content["discriminator"]["mapping"]) == {
        "text", "thinking", "tool_call", "data", "tool_result", "raw"}
    assert RESPONSE.json_schema(mode="serialization") == SCHEMA
    good = json.loads(replayed(RECORDINGS[0]).to_json())
    for bad_block in ({"type": "text", "id": "a", "text": 5}, {"type": "video", "id": "a"},
                      {"type": "tool_call", "id": "a", "name": "f"}):
        bad = {**good, "content": [bad_block]}
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, SCHEMA, cls=jsonschema.Draft202012Validator)
        with pytest.raises(pydantic.ValidationError):
            RESPONSE.validate_json(json.dumps(bad))


def test_blocks_and_usage_are_pydantic_types_too() -> None:
    blocks = pydantic.TypeAdapter(list[ContentBlock])
    items = [TextBlock("hi", id="t"), ToolCallBlock("c", "f", '{"a": 1}'),
             DataBlock("d", "audio/pcm;rate=24000")]
    items[2].append_bytes(b"\x00\x01")  # type: ignore[union-attr]
    assert blocks.validate_json(blocks.dump_json(items)) == items
    assert pydantic.TypeAdapter(TextBlock).validate_python({"type": "text", "id": "t",
                                                            "text": "hi"}) == items[0]
    with pytest.raises(pydantic.ValidationError):  # a tool call is not a text block
        pydantic.TypeAdapter(TextBlock).validate_python(items[1].to_dict())
    usage = ChatUsage(input_tokens=3, raw={"x": 1})
    adapter = pydantic.TypeAdapter(ChatUsage)
    assert adapter.dump_python(usage) == usage.to_dict()
    assert adapter.validate_json(adapter.dump_json(usage)) == usage


def test_a_pydantic_model_can_hold_a_response() -> None:
    class Turn(pydantic.BaseModel):
        question: str
        answer: ChatResponse

    answer = replayed(RECORDINGS[0])
    turn = Turn.model_validate_json(Turn(question="q", answer=answer).model_dump_json())
    assert turn.answer == answer
    answer_schema = Turn.model_json_schema()["properties"]["answer"]
    assert answer_schema["title"] == "ChatResponse"
    assert answer_schema["properties"]["content"]["items"]["discriminator"]["mapping"]["text"] == (
        "#/$defs/TextBlock")


def test_fastapi_serves_a_response_with_its_schema() -> None:
    recorded = replayed(next(p for p in RECORDINGS if p.name == "openai-chat-audio.sse"))
    app = FastAPI()

    @app.get("/answer")
    def answer() -> ChatResponse:
        return recorded

    @app.post("/echo")
    def echo(response: ChatResponse) -> ChatResponse:
        return response

    with TestClient(app) as client:  # starting the app builds every route's schema
        served = client.get("/answer")
        assert served.status_code == 200
        assert served.json() == json.loads(recorded.to_json())
        echoed = client.post("/echo", json=served.json())
        assert echoed.status_code == 200 and echoed.json() == served.json()
        refused = client.post("/echo", json={**served.json(), "content": [{"type": "video"}]})
        assert refused.status_code == 422
        openapi = client.get("/openapi.json").json()
    schemas = openapi["components"]["schemas"]
    assert {"TextBlock", "ThinkingBlock", "ToolCallBlock", "DataBlock", "ChatUsage"} <= set(
        schemas)
    ok = openapi["paths"]["/answer"]["get"]["responses"]["200"]["content"]["application/json"]
    expected = json.loads(json.dumps(SCHEMA).replace("#/$defs/", "#/components/schemas/"))
    del expected["$defs"], expected["title"]
    served_schema = dict(ok["schema"])
    assert served_schema.pop("title") == "Response Answer Answer Get"  # FastAPI's naming
    assert served_schema == expected  # the ChatResponse schema, its blocks as components


def test_import_streamkit_does_not_import_the_schema_module() -> None:
    code = "import sys, streamkit; print('streamkit.model.schema' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
