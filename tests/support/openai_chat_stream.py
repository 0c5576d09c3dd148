"""Test helpers for the OpenAI Chat parser: its recordings, driving the parser
with repeatable ids, chunk payloads, and the official openai SDK accumulator as
an oracle (the request oracle is ``support.request_oracles.openai_chat``)."""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from openai._models import construct_type
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletionChunk

from streamkit.model.events import Event
from streamkit.model.ids import counting_ids, id_factory
from streamkit.model.response import ChatResponse
from streamkit.providers.openai_chat import OpenAIChatParser
from streamkit.reading.pipeline import replay
from support.parser_runs import Run, run_parser
from support.recordings import Payload, payloads, recordings


def chat_recordings() -> list[Path]:
    """Every recorded or edge stream of the Chat Completions wire format."""
    return [path for path in recordings()
            if path.parent.name in ("openai-chat", "openai-compatible")
            or path.name.startswith("openai-chat")]


def run(items: Sequence[tuple[str | None, str]], *, finish: bool = True,
        **options: Any) -> Run:
    """Feed payloads one at a time (then ``finish()``), folding into an Accumulator.
    Ids are counted afresh on every call (:func:`streamkit.model.ids.counting_ids`), so two runs
    can be compared whole."""
    with id_factory(counting_ids()):
        return run_parser(OpenAIChatParser(**options), items, finish=finish)


def run_file(name: str | Path, **options: Any) -> Run:
    return run(payloads(name), **options)


def replay_fresh(chunks: bytes | list[bytes], provider: str = "openai-chat",
                 **options: Any) -> tuple[list[Event], ChatResponse]:
    """:func:`streamkit.replay` with ids counted afresh, like :func:`run` (a stream
    that ends in the provider's error gives its partial: ``on_error="return"``)."""
    with id_factory(counting_ids()):
        return replay(chunks, provider, on_error="return", **options)


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
