"""The OpenAI Responses request oracle: a body checked with the official
``openai`` SDK's request types.

The body is validated with ``pydantic.TypeAdapter`` over
``ResponseCreateParamsStreaming`` or ``...NonStreaming`` (the two members of
``ResponseCreateParams``, picked by ``stream``), and every input item alone over
``ResponseInputItemParam``. TypedDicts ignore keys they do not declare, which a
validator cannot express, so the validated value is compared with the body: a
key the SDK does not know is a failure, except inside open JSON (tool
``parameters``, ``text.format.schema``, an MCP tool's ``input_schema``,
``metadata``, MCP ``headers``). ``Iterable`` fields validate lazily in pydantic,
so every iterator is consumed. One known gap between the SDK and the API:
``FunctionToolParam`` declares ``strict`` required, while the API takes a tool
without it (strict mode); the tests that build one say so.
"""

from __future__ import annotations

import copy
from typing import Any

from openai.types.responses import ResponseInputItemParam
from openai.types.responses.response_create_params import (
    ResponseCreateParamsNonStreaming,
    ResponseCreateParamsStreaming,
)
from pydantic import TypeAdapter

from support.request_oracles.typed_dicts import materialize, unknown_keys

_STREAMING = TypeAdapter(ResponseCreateParamsStreaming)
_NON_STREAMING = TypeAdapter(ResponseCreateParamsNonStreaming)
_ITEM: TypeAdapter[Any] = TypeAdapter(ResponseInputItemParam)
# Open JSON: any key is valid there.
_OPEN = (".parameters", ".schema", ".input_schema", ".metadata", ".headers")


def _is_open(path: str) -> bool:
    """Whether ``path`` is at open JSON, where any key is valid."""
    return any(path.endswith(open_path) for open_path in _OPEN)


def _sdk_gaps(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` without what the API takes but the SDK does not declare: web search
    sources of type ``api`` (``{"type": "api", "name": "oai-weather"}``; the SDK's
    ``ActionSearchSource`` says ``url`` only: openai/openai-python#2636), which the
    output item goes back with as the API wrote it; and a ``reasoning`` item
    carrying its ``encrypted_content`` without ``id`` or with ``"content":
    null``, which Codex CLI sends on every turn (``store: false``: its
    ``ResponseItem::Reasoning`` never serializes ``id`` and writes ``content`` as
    null when it has none; openai/codex codex-rs/protocol/src/models.rs at
    001cb8e), while the SDK declares ``id`` required and ``content`` a list. A
    reasoning item with neither id nor encrypted content stays refused."""
    body = copy.deepcopy(body)
    for item in body.get("input") if isinstance(body.get("input"), list) else []:
        action = item.get("action") if item.get("type") == "web_search_call" else None
        if isinstance(action, dict) and isinstance(action.get("sources"), list):
            action["sources"] = [s for s in action["sources"] if s.get("type") != "api"]
        if item.get("type") == "reasoning":
            _codex_reasoning_gaps(item)
    return body


def _codex_reasoning_gaps(item: dict[str, Any]) -> None:
    """A Codex CLI reasoning item as the SDK would declare it (see :func:`_sdk_gaps`)."""
    if not isinstance(item.get("encrypted_content"), str):
        return
    item.setdefault("id", "rs_id_the_api_does_not_require")
    if item.get("content", []) is None:
        del item["content"]


def check(body: dict[str, Any]) -> None:
    """``body`` is a request the official SDK's types accept, key for key."""
    body = _sdk_gaps(body)
    adapter = _STREAMING if body.get("stream") is True else _NON_STREAMING
    validated = materialize(adapter.validate_python(body))
    assert unknown_keys(body, validated, is_open=_is_open) == []
    given = body.get("input")
    for index, item in enumerate(given if isinstance(given, list) else []):
        validated_item = materialize(_ITEM.validate_python(item))
        assert unknown_keys(item, validated_item, f"input[{index}]", is_open=_is_open) == []
