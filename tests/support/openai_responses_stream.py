"""The OpenAI Responses stream in tests: inline payloads, driving the parser,
and the official openai SDK's ``ResponseStreamState`` as the stream's oracle
(the request oracle is ``support.request_oracles.openai_responses``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from openai import omit
from openai._models import construct_type
from openai.lib.streaming.responses._responses import ResponseStreamState
from openai.types.responses import ResponseStreamEvent

from streamkit.model.response import ChatResponse
from streamkit.providers.openai_responses import OpenAIResponsesParser
from support.parser_runs import Run, run_parser
from support.recordings import Payload, payloads


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
