"""Test helpers for the OpenAI Chat parser: fixture payloads, driving the parser,
and the official openai SDK accumulator as an oracle."""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from openai._models import construct_type
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletionChunk

from streamkit.accumulate import Accumulator
from streamkit.events import BlockDelta, BlockEnd, BlockStart, Event
from streamkit.providers.openai_chat import OpenAIChatParser
from streamkit.response import ChatResponse
from streamkit.sse import SSEDecoder

FIXTURES = Path(__file__).parent / "fixtures"

Payload = tuple[str | None, str]  # (SSE event name or None, data)


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


@dataclass
class Run:
    """The events a parser produced for a list of payloads, and their accumulation."""

    parser: OpenAIChatParser
    events: list[Event] = field(default_factory=list)
    accumulator: Accumulator = field(default_factory=Accumulator)

    @property
    def response(self) -> ChatResponse:
        return self.accumulator.response

    @property
    def responses(self) -> list[ChatResponse]:
        return self.accumulator.responses

    def of_type(self, kind: type[Any]) -> list[Any]:
        return [e for e in self.events if type(e) is kind]


def run(items: list[Payload], *, finish: bool = True, **options: Any) -> Run:
    """Feed payloads one at a time (then ``finish()``), folding into an Accumulator."""
    result = Run(OpenAIChatParser(**options))
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


def chunk(delta: dict[str, Any] | None = None, *, finish: str | None = None, index: int = 0,
          **top: Any) -> str:
    """One ``chat.completion.chunk`` payload (a single choice unless ``choices`` is given)."""
    payload: dict[str, Any] = {"id": "chatcmpl-t", "object": "chat.completion.chunk",
                               "created": 1, "model": "m"}
    payload.update(top)
    if "choices" not in payload:
        payload["choices"] = [{"index": index, "delta": delta or {}, "finish_reason": finish}]
    return json.dumps(payload)


def sdk_snapshot(items: list[Payload], *, lenient: bool = False) -> Any:
    """What the openai SDK accumulates from the same payloads: ``[DONE]`` ends
    it, named events and non-chunk objects (Azure filter frames) are skipped.

    Chunks are ``ChatCompletionChunk.model_validate``-d; ``lenient=True`` builds
    them with the SDK's own ``construct_type`` instead, as its ``Stream`` does,
    for payloads validation rejects (Mistral's list ``content``)."""
    state: ChatCompletionStreamState[Any] = ChatCompletionStreamState()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pydantic warns when dumping mistyped fields
        for event, data in items:
            if data == "[DONE]":
                break
            payload = json.loads(data)
            if event is not None or payload.get("object") != "chat.completion.chunk":
                continue
            parsed: Any
            if lenient:
                parsed = construct_type(type_=ChatCompletionChunk, value=payload)
            else:
                parsed = ChatCompletionChunk.model_validate(payload)
            state.handle_chunk(parsed)
    return state.current_completion_snapshot


def sdk_thinking(message: Any) -> str:
    """The SDK keeps vendor reasoning fields as extras of the message."""
    extra = message.model_extra or {}
    return str(extra.get("reasoning_content") or extra.get("reasoning") or "")


def assert_matches_sdk(response: ChatResponse, snapshot: Any, choice: int = 0, *,
                       usage: bool = True, thinking: bool = True) -> None:
    """Our final text, refusal, thinking, tool calls, raw finish reason and usage
    equal the SDK's for one choice."""
    sdk_choice = snapshot.choices[choice]
    message = sdk_choice.message
    assert response.text == (message.content or "")
    assert response.refusal == message.refusal
    if thinking:
        assert response.thinking == sdk_thinking(message)
    ours = [(c.id, c.name, c.input) for c in response.tool_calls]
    theirs = [(t.id, t.function.name, t.function.arguments) for t in message.tool_calls or []]
    assert ours == theirs
    assert response.stop_reason == sdk_choice.finish_reason
    if usage:
        sdk_usage = snapshot.usage
        assert response.usage is not None and sdk_usage is not None
        assert response.usage.input_tokens == sdk_usage.prompt_tokens
        assert response.usage.output_tokens == sdk_usage.completion_tokens
        assert response.usage.total_tokens == sdk_usage.total_tokens
        assert response.usage.raw == sdk_usage.model_dump(exclude_unset=True)


def check_event_order(events: list[Event]) -> None:
    """Per choice: block indexes open as 0, 1, 2...; every delta follows its
    BlockStart and precedes its BlockEnd; every BlockStart gets one BlockEnd."""
    opened: dict[int, list[int]] = {}
    closed: dict[int, set[int]] = {}
    for event in events:
        if type(event) is BlockStart:
            indexes = opened.setdefault(event.choice, [])
            assert event.index == len(indexes), f"block {event.index} opened out of order"
            indexes.append(event.index)
        elif type(event) is BlockDelta:
            assert event.index in opened.get(event.choice, []), "delta before BlockStart"
            assert event.index not in closed.get(event.choice, set()), "delta after BlockEnd"
        elif type(event) is BlockEnd:
            ended = closed.setdefault(event.choice, set())
            assert event.index not in ended, "block ended twice"
            assert event.index in opened.get(event.choice, []), "BlockEnd without BlockStart"
            ended.add(event.index)
    for choice, indexes in opened.items():
        assert set(indexes) == closed.get(choice, set()), "a block never ended"


def normalized(response: ChatResponse) -> dict[str, Any]:
    """``to_dict`` without the generated parts (block ids made up by streamkit,
    the local ``created_at``), for comparing two runs."""
    out = response.to_dict()
    out.pop("created_at")
    for block in out["content"]:
        if block["id"].startswith(("text_", "think_", "data_")):
            block.pop("id")
    return out
