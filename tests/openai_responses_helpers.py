"""Test helpers for the OpenAI Responses parser: fixture payloads, driving the
parser, event-order invariants, and the official openai SDK's
``ResponseStreamState`` as an oracle."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from openai import omit
from openai._models import construct_type
from openai.lib.streaming.responses._responses import ResponseStreamState
from openai.types.responses import ResponseStreamEvent

from streamkit.accumulate import Accumulator
from streamkit.events import BlockDelta, BlockEnd, BlockStart, Event
from streamkit.providers.openai_responses import OpenAIResponsesParser
from streamkit.response import ChatResponse
from streamkit.sse import SSEDecoder

FIXTURES = Path(__file__).parent / "fixtures"

Payload = tuple[str | None, str]  # (SSE event name or None, data)
_GENERATED_ID = re.compile(r"^[a-z]+_[0-9a-f]{24}$")  # streamkit.blocks.new_block_id


def payloads(name: str) -> list[Payload]:
    """The SSE payloads of a fixture, in order (``.chunks.jsonl``: one per line)."""
    raw = (FIXTURES / name).read_bytes()
    if name.endswith(".chunks.jsonl"):
        return [(None, line.decode()) for line in raw.splitlines() if line.strip()]
    decoder = SSEDecoder()
    events = decoder.feed(raw) + decoder.flush()
    return [(None if e.event == "message" else e.event, e.data) for e in events]


def body(name: str) -> bytes:
    """The fixture as an HTTP body (``.chunks.jsonl`` re-wrapped as SSE)."""
    raw = (FIXTURES / name).read_bytes()
    if name.endswith(".chunks.jsonl"):
        return b"".join(b"data: " + line + b"\n\n" for line in raw.splitlines() if line.strip())
    return raw


def wire(payload: dict[str, Any]) -> Payload:
    """An inline test payload as the SSE layer would hand it over."""
    return str(payload.get("type")), json.dumps(payload)


@dataclass
class Run:
    """The events a parser produced for a list of payloads, and their accumulation."""

    parser: OpenAIResponsesParser
    events: list[Event] = field(default_factory=list)
    accumulator: Accumulator = field(default_factory=Accumulator)

    @property
    def response(self) -> ChatResponse:
        return self.accumulator.response

    def of_type(self, kind: type[Any]) -> list[Any]:
        return [e for e in self.events if type(e) is kind]


def run(items: list[Payload], *, finish: bool = True, **options: Any) -> Run:
    """Feed payloads one at a time (then ``finish()``), folding into an Accumulator."""
    result = Run(OpenAIResponsesParser(**options))
    for event, data in items:
        events = result.parser.feed(data, event)
        result.accumulator.apply_all(events)
        result.events += events
    if finish:
        tail = result.parser.finish()
        result.accumulator.apply_all(tail)
        result.events += tail
    return result


def run_file(name: str, **options: Any) -> Run:
    return run(payloads(name), **options)


def sdk_final(items: list[Payload]) -> Any:
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


def check_event_order(events: list[Event]) -> None:
    """Block indexes open as 0, 1, 2...; every delta follows its BlockStart and
    precedes its BlockEnd; every BlockStart gets exactly one BlockEnd."""
    opened: list[int] = []
    closed: set[int] = set()
    for event in events:
        if type(event) is BlockStart:
            assert event.index == len(opened), f"block {event.index} opened out of order"
            opened.append(event.index)
        elif type(event) is BlockDelta:
            assert event.index in opened, "delta before BlockStart"
            assert event.index not in closed, "delta after BlockEnd"
        elif type(event) is BlockEnd:
            assert event.index in opened, "BlockEnd without BlockStart"
            assert event.index not in closed, "block ended twice"
            closed.add(event.index)
    assert set(opened) == closed, "a block never ended"


def normalized(response: ChatResponse) -> dict[str, Any]:
    """``to_dict`` without what streamkit generates (block ids it made up, the
    local ``created_at``), for comparing two runs."""
    out = response.to_dict()
    out.pop("created_at")
    for block in out["content"]:
        if _GENERATED_ID.match(block["id"]):
            block.pop("id")
    return out
