"""Test helpers for the OpenAI Responses wire: inline payloads, driving the
parser, the official openai SDK's ``ResponseStreamState`` as the stream's oracle
and its request types as the request oracle (:func:`assert_sdk_valid`). The
shared scaffolding (fixtures, ``run_parser``, the event contract) is ``conftest``'s."""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from conftest import Payload, Run, payloads, run_parser
from openai import omit
from openai._models import construct_type
from openai.lib.streaming.responses._responses import ResponseStreamState
from openai.types.responses import ResponseInputItemParam, ResponseStreamEvent
from openai.types.responses.response_create_params import (
    ResponseCreateParamsNonStreaming,
    ResponseCreateParamsStreaming,
)
from pydantic import TypeAdapter
from sdk_oracles import materialize, unknown_keys

from streamkit.model.response import ChatResponse
from streamkit.providers.openai_responses import OpenAIResponsesParser


def wire(payload: dict[str, Any]) -> Payload:
    """An inline test payload as the SSE layer would hand it over."""
    return Payload(str(payload.get("type")), json.dumps(payload))


def run(items: Sequence[tuple[str | None, str]], *, finish: bool = True, **options: Any) -> Run:
    """Feed payloads one at a time (then ``finish()``), folding into an Accumulator."""
    return run_parser(OpenAIResponsesParser(**options), items, finish=finish)


def run_file(name: str | Path, **options: Any) -> Run:
    return run(payloads(name), **options)


def sdk_final(items: Sequence[tuple[str | None, str]]) -> Any:
    """The response the openai SDK's ``ResponseStreamState`` ends with: the one it
    returns for ``response.completed`` (or the ``incomplete`` / ``failed`` event's).
    ``[DONE]`` stops it, as the SDK's ``Stream`` does."""
    state: ResponseStreamState[Any] = ResponseStreamState(input_tools=omit, text_format=omit)
    final = None
    for _, data in items:
        if data.strip() == "[DONE]":
            break
        event: Any = construct_type(type_=ResponseStreamEvent, value=json.loads(data))
        for out in state.handle_event(event):
            if out.type in ("response.completed", "response.incomplete", "response.failed"):
                final = out.response
    return final


def sdk_thinking(final: Any) -> str:
    """Reasoning summaries and raw reasoning text of the SDK's final output, in order."""
    parts: list[str] = []
    for item in final.output:
        if item.type == "reasoning":
            parts += [s.text for s in item.summary or []]
            parts += [c.text for c in item.content or []]
    return "".join(parts)


def sdk_tool_calls(final: Any) -> list[tuple[str, str, str]]:
    out = []
    for item in final.output:
        if item.type == "function_call":
            out.append((item.call_id, item.name, item.arguments))
        elif item.type == "custom_tool_call":
            out.append((item.call_id, item.name, item.input))
    return out


def assert_matches_sdk(response: ChatResponse, final: Any, *, thinking: bool = True) -> None:
    """Our final text, thinking, tool calls, status and usage equal the SDK's."""
    assert final is not None
    assert response.text == final.output_text
    if thinking:
        assert response.thinking == sdk_thinking(final)
    assert [(c.id, c.name, c.input) for c in response.tool_calls] == sdk_tool_calls(final)
    reason = final.incomplete_details.reason if final.incomplete_details else final.status
    assert response.stop_reason == reason
    if final.usage is None:
        assert response.usage is None
        return
    usage = response.usage
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (
        final.usage.input_tokens, final.usage.output_tokens, final.usage.total_tokens)
    details_in, details_out = final.usage.input_tokens_details, final.usage.output_tokens_details
    assert usage.cached_tokens == (details_in.cached_tokens if details_in else None)
    assert usage.reasoning_tokens == (details_out.reasoning_tokens if details_out else None)
    assert usage.raw == final.usage.model_dump(exclude_unset=True)


# ---------------------------------------------------------------- the request oracle

_STREAMING = TypeAdapter(ResponseCreateParamsStreaming)
_NON_STREAMING = TypeAdapter(ResponseCreateParamsNonStreaming)
_ITEM: TypeAdapter[Any] = TypeAdapter(ResponseInputItemParam)
# Open JSON: any key is valid there.
_OPEN = (".parameters", ".schema", ".input_schema", ".metadata", ".headers")


def _is_open(path: str) -> bool:
    """Whether ``path`` is at open JSON, where any key is valid."""
    return any(path.endswith(open_path) for open_path in _OPEN)


def _sdk_gaps(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` without what the API writes but the SDK does not declare: web search
    sources of type ``api`` (``{"type": "api", "name": "oai-weather"}``; the SDK's
    ``ActionSearchSource`` says ``url`` only: openai/openai-python#2636). The
    output item goes back as the API wrote it."""
    body = copy.deepcopy(body)
    for item in body.get("input") if isinstance(body.get("input"), list) else []:
        action = item.get("action") if item.get("type") == "web_search_call" else None
        if isinstance(action, dict) and isinstance(action.get("sources"), list):
            action["sources"] = [s for s in action["sources"] if s.get("type") != "api"]
    return body


def assert_sdk_valid(body: dict[str, Any]) -> None:
    """``body`` is a request the official SDK's types accept, key for key."""
    body = _sdk_gaps(body)
    adapter = _STREAMING if body.get("stream") is True else _NON_STREAMING
    validated = materialize(adapter.validate_python(body))
    assert unknown_keys(body, validated, is_open=_is_open) == []
    given = body.get("input")
    for index, item in enumerate(given if isinstance(given, list) else []):
        validated_item = materialize(_ITEM.validate_python(item))
        assert unknown_keys(item, validated_item, f"input[{index}]", is_open=_is_open) == []
