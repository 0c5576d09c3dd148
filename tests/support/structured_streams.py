"""Scripted structured-output streams: the body each wire sends when its answer
is JSON text streamed in given fragments (``json_output=Model``), and
Anthropic's forced-tool form (the JSON is the input of one ``tool_use``).

The payload shapes are those of the recordings in ``tests/fixtures`` (OpenAI
Chat chunks, Responses events, Anthropic messages events, Gemini
``streamGenerateContent`` chunks, Ollama ``/api/chat`` lines), cut down to what
a structured answer needs.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel

from support.recordings import sse_body


class Unit(StrEnum):
    GRAMS = "g"
    MILLILITRES = "ml"


class Ingredient(BaseModel):
    name: str
    amount: float
    unit: Unit
    optional: bool = False


class Step(BaseModel):
    text: str
    minutes: int
    kind: Literal["prep", "cook", "rest"]


class Recipe(BaseModel):
    title: str
    servings: int
    tags: list[str]
    ingredients: list[Ingredient]
    steps: list[Step]
    notes: dict[str, str] = {}
    source: str | None = None
    difficulty: Literal["easy", "medium", "hard"] = "easy"


RECIPE = Recipe(
    title='Crêpes "Suzette" \U0001f95e',
    servings=4,
    tags=["french", "dessert", "line\nbreak", "tab\there"],
    ingredients=[
        Ingredient(name="flour", amount=250, unit=Unit.GRAMS),
        Ingredient(name="milk", amount=500.5, unit=Unit.MILLILITRES),
        Ingredient(name="Grand Marnier", amount=3e1, unit=Unit.MILLILITRES, optional=True),
    ],
    steps=[
        Step(text="Whisk the flour, eggs and milk \\ until smooth.", minutes=5, kind="prep"),
        Step(text="Rest the batter.", minutes=30, kind="rest"),
        Step(text="Cook each crêpe 1 minute a side; flambé.", minutes=20, kind="cook"),
    ],
    notes={"tip": "butter, not oil", "wine": "a sweet white"},
    source=None,
    difficulty="medium",
)

#: The answer as models write it: plain, pretty-printed, ASCII-escaped (so
#: surrogate pairs and \\u escapes are split by the fragments), and fenced.
ANSWERS = {
    "compact": RECIPE.model_dump_json(),
    "indented": RECIPE.model_dump_json(indent=2),
    "ascii": json.dumps(RECIPE.model_dump(mode="json")),
    "fenced": "```json\n" + RECIPE.model_dump_json(indent=1) + "\n```\n",
}


def fragments(text: str, how: str) -> list[str]:
    """``text`` cut ``"1"`` / ``"3"`` characters at a time, at ``"random"``
    places (a fixed seed), or left ``"whole"``."""
    if how == "whole":
        return [text]
    if how == "random":
        rnd = random.Random(len(text))
        cuts = sorted(rnd.sample(range(1, len(text)), min(len(text) - 1, len(text) // 4)))
        return [text[a:b] for a, b in itertools.pairwise([0, *cuts, len(text)])]
    size = int(how)
    return [text[i:i + size] for i in range(0, len(text), size)]


def _dump(payload: dict[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False)


def openai_chat(frags: Sequence[str]) -> bytes:
    head = {"id": "chatcmpl-s1", "object": "chat.completion.chunk", "created": 1,
            "model": "gpt-4.1-2025-04-14"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> tuple[None, str]:
        return None, _dump({**head, "choices": [{"index": 0, "delta": delta,
                                                 "finish_reason": finish}]})

    items = [chunk({"role": "assistant", "content": ""})]
    items += [chunk({"content": fragment}) for fragment in frags]
    items.append(chunk({}, "stop"))
    return sse_body([*items, (None, "[DONE]")])


def openai_responses(frags: Sequence[str]) -> bytes:
    text = "".join(frags)
    response = {"id": "resp_s1", "object": "response", "created_at": 1, "status": "in_progress",
                "model": "gpt-4.1-2025-04-14", "output": []}
    message = {"type": "message", "id": "msg_s1", "status": "in_progress", "role": "assistant",
               "content": []}
    part = {"type": "output_text", "text": "", "annotations": []}
    done_part = {**part, "text": text}
    done_message = {**message, "status": "completed", "content": [done_part]}
    where = {"item_id": "msg_s1", "output_index": 0, "content_index": 0}
    events: list[tuple[str, dict[str, Any]]] = [
        ("response.created", {"response": response}),
        ("response.output_item.added", {"output_index": 0, "item": message}),
        ("response.content_part.added", {**where, "part": part}),
        *(("response.output_text.delta", {**where, "delta": fragment}) for fragment in frags),
        ("response.output_text.done", {**where, "text": text}),
        ("response.content_part.done", {**where, "part": done_part}),
        ("response.output_item.done", {"output_index": 0, "item": done_message}),
        ("response.completed", {"response": {**response, "status": "completed",
                                             "output": [done_message]}}),
    ]
    return sse_body([(name, _dump({"type": name, **data})) for name, data in events])


def _anthropic(start: dict[str, Any], deltas: list[dict[str, Any]], stop: str) -> bytes:
    message = {"id": "msg_s1", "type": "message", "role": "assistant",
               "model": "claude-sonnet-4-5", "content": [], "stop_reason": None,
               "usage": {"input_tokens": 10, "output_tokens": 1}}
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"message": message}),
        ("content_block_start", {"index": 0, "content_block": start}),
        *(("content_block_delta", {"index": 0, "delta": delta}) for delta in deltas),
        ("content_block_stop", {"index": 0}),
        ("message_delta", {"delta": {"stop_reason": stop}, "usage": {"output_tokens": 99}}),
        ("message_stop", {}),
    ]
    return sse_body([(name, _dump({"type": name, **data})) for name, data in events])


def anthropic_text(frags: Sequence[str]) -> bytes:
    """Anthropic structured outputs (``output_config.format``): the JSON is the text."""
    return _anthropic({"type": "text", "text": ""},
                      [{"type": "text_delta", "text": fragment} for fragment in frags],
                      "end_turn")


def anthropic_tool(frags: Sequence[str]) -> bytes:
    """The forced ``json_output`` tool: the JSON is the tool's input."""
    start = {"type": "tool_use", "id": "toolu_s1", "name": "json_output", "input": {}}
    return _anthropic(start, [{"type": "input_json_delta", "partial_json": fragment}
                              for fragment in frags], "tool_use")


def gemini(frags: Sequence[str]) -> bytes:
    def chunk(text: str, finish: str | None = None) -> tuple[None, str]:
        candidate: dict[str, Any] = {"content": {"parts": [{"text": text}], "role": "model"},
                                     "index": 0}
        if finish:
            candidate["finishReason"] = finish
        return None, _dump({"candidates": [candidate], "modelVersion": "gemini-2.5-flash",
                            "responseId": "r_s1"})

    items = [chunk(fragment) for fragment in frags[:-1]]
    items.append(chunk(frags[-1], "STOP"))
    return sse_body(items)


def ollama(frags: Sequence[str]) -> bytes:
    def line(content: str, done: bool = False) -> str:
        payload: dict[str, Any] = {"model": "qwen3", "created_at": "2025-06-01T11:00:00Z",
                                   "message": {"role": "assistant", "content": content},
                                   "done": done}
        if done:
            payload["done_reason"] = "stop"
        return _dump(payload)

    lines = [line(fragment) for fragment in frags] + [line("", done=True)]
    return "".join(f"{text}\n" for text in lines).encode()


#: Every scripted form, by name: a function of the fragments to the body.
WIRES: dict[str, Callable[[Sequence[str]], bytes]] = {
    "openai-chat": openai_chat,
    "openai-responses": openai_responses,
    "anthropic-text": anthropic_text,
    "anthropic-tool": anthropic_tool,
    "gemini": gemini,
    "ollama": ollama,
}
