"""Items a reader keeps whole go back valid for the official SDK's types.

The Responses reader keeps a server tool's item (a web search, a file
search...) whole, as a :class:`~streamkit.model.blocks.RawBlock`, and the
encoders and the request builder write it back as it came. A vendor's item
may lack what the openai SDK's model of its type requires: xAI (and DeepSeek)
send ``web_search_call`` without ``action``, xAI's ``status`` is optional.
Written back as it came, such an item made the body invalid for
``openai.types.responses.Response`` (71 bodies of the issue 31 campaign).
Here each such item is read from a stream, then written as a body, a stream
and a request's history, each checked with the SDK's own types; nothing the
item had is changed.
"""

from __future__ import annotations

import json
import typing
from typing import Any

import pydantic
import pytest
from support.request_oracles import openai_responses as request_oracle

from streamkit import (
    RawBlock,
    UserMessage,
    build_request,
    encode_response,
    encode_stream,
    parse_response,
    replay,
)
from streamkit.framing.sse import SSEDecoder
from streamkit.providers.openai_responses.wire import ITEM_DEFAULTS

types = pytest.importorskip("openai.types.responses")
OUTPUT_ITEM: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(types.ResponseOutputItem)
WIRE = "openai-responses"

#: Vendors' items lacking what the SDK requires of their type.
VENDOR_ITEMS = {
    "xai-web-search": {"id": "ws_1", "type": "web_search_call", "status": "completed"},
    "web-search-no-status": {"id": "ws_2", "type": "web_search_call"},
    "web-search-with-sources": {"id": "ws_3", "type": "web_search_call", "status": "completed",
                                "action": {"type": "search", "query": "q", "sources": [
                                    {"type": "url", "url": "https://x.ai/"}]}},
    "file-search": {"id": "fs_1", "type": "file_search_call", "status": "completed"},
    "code-execution": {"id": "ci_1", "type": "code_interpreter_call", "code": "print(1)",
                       "outputs": None},
    "image": {"id": "ig_1", "type": "image_generation_call", "result": None},
}


def _vendor_stream(item: dict[str, Any]) -> bytes:
    """A vendor's stream: the item (added bare, done as given), then a message."""
    head = {"id": "resp_v", "object": "response", "created_at": 1, "model": "grok-4",
            "status": "in_progress", "output": []}
    message = {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
               "content": [{"type": "output_text", "text": "found", "annotations": []}]}
    events = [{"type": "response.created", "response": head},
              {"type": "response.output_item.added", "output_index": 0,
               "item": {"id": item["id"], "type": item["type"]}},
              {"type": "response.output_item.done", "output_index": 0, "item": item},
              {"type": "response.output_item.added", "output_index": 1,
               "item": {**message, "status": "in_progress", "content": []}},
              {"type": "response.output_item.done", "output_index": 1, "item": message},
              {"type": "response.completed",
               "response": {**head, "status": "completed", "output": [item, message]}}]
    return b"".join(f"event: {event['type']}\ndata: {json.dumps({**event, 'sequence_number': n})}"
                    f"\n\n".encode() for n, event in enumerate(events))


def _kept_whole(written: dict[str, Any], item: dict[str, Any]) -> None:
    """``written`` holds every field of ``item`` unchanged."""
    assert {key: written[key] for key in item} == item


@pytest.mark.parametrize("name", VENDOR_ITEMS)
def test_a_vendors_item_is_written_so_the_sdks_types_take_it(name: str) -> None:
    item = VENDOR_ITEMS[name]
    response = replay(_vendor_stream(item), WIRE).response
    assert [block.data for block in response.content if type(block) is RawBlock] == [item]
    body = encode_response(WIRE, response)
    types.Response.model_validate(body)
    _kept_whole(body["output"][0], item)
    decoder = SSEDecoder()
    streamed = [json.loads(event.data) for event in
                decoder.feed(b"".join(encode_stream(WIRE, response))) + decoder.flush()]
    items = [event["item"] for event in streamed if event["type"].startswith(
        "response.output_item.")] + streamed[-1]["response"]["output"]
    for written in items:
        OUTPUT_ITEM.validate_python(written)
    again = parse_response(WIRE, body)
    assert [block.data for block in again.content if type(block) is RawBlock] == \
        [body["output"][0]]  # read back with the added fields, and only those
    request = build_request(WIRE, [UserMessage("find"), response, UserMessage("more")],
                            model="grok-4")
    request_oracle.check(request)
    _kept_whole(request["input"][1], item)


#: Item types the SDK models that streamkit reads as blocks of its own (not kept whole).
_MODELLED = {"message", "function_call", "reasoning", "custom_tool_call"}
#: Kept-whole item types whose required fields have no value that says nothing:
#: an id, a name, a command or a patch to run would be made up. Written as
#: they came; no vendor is known to leave these out.
_NO_NEUTRAL_VALUE = {
    "function_call_output", "computer_call_output", "program", "program_output",
    "tool_search_call", "tool_search_output", "additional_tools", "compaction",
    "local_shell_call", "local_shell_call_output", "shell_call", "shell_call_output",
    "apply_patch_call", "apply_patch_call_output", "mcp_call", "mcp_list_tools",
    "mcp_approval_request", "mcp_approval_response", "custom_tool_call_output",
    "computer_call"}


def test_every_item_type_the_sdk_models_is_either_completed_or_said_why_not() -> None:
    """A new item type of the SDK fails here until it is placed."""
    union = typing.get_args(typing.get_args(types.ResponseOutputItem)[0])
    sdk_types = {typing.get_args(model.model_fields["type"].annotation)[0] for model in union}
    assert sdk_types == _MODELLED | set(ITEM_DEFAULTS) | _NO_NEUTRAL_VALUE
    for item_type, defaults in ITEM_DEFAULTS.items():  # each completes a bare item
        required = {name for model in union if typing.get_args(
            model.model_fields["type"].annotation)[0] == item_type
            for name, field in model.model_fields.items() if field.is_required()}
        assert required <= {"id", "type", "status", *defaults}, item_type
