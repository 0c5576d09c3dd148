"""A recipe that fills in as the model writes it: structured output as it streams.

    python examples/structured_stream.py

``client.stream(..., json_output=Recipe)`` asks for the answer as a ``Recipe``
(the wire's own structured-output form); ``events.partial_output(Recipe)``
yields it while it streams, validated as a partial ``Recipe`` (every field
``None`` until known, strings as far as they came, numbers once complete), and
ends with the whole ``Recipe``. A UI repaints from each value; this prints a
line whenever a step or ingredient appears.

The model here is a recorded-style OpenAI Chat stream served over real HTTP by
``streamkit.testing.ReplayServer`` on 127.0.0.1 (no key, no network); point the
same code at a real model by changing the model string and dropping
``base_url``. ``tests/test_examples.py`` runs it.
"""

from __future__ import annotations

import json

import anyio
from pydantic import BaseModel

import streamkit
from streamkit.testing import ReplayServer


class Ingredient(BaseModel):
    name: str
    quantity: str


class Recipe(BaseModel):
    title: str
    servings: int
    ingredients: list[Ingredient]
    steps: list[str]


ANSWER = Recipe(
    title="Fluffy pancakes",
    servings=4,
    ingredients=[Ingredient(name="flour", quantity="200 g"),
                 Ingredient(name="milk", quantity="300 ml"),
                 Ingredient(name="eggs", quantity="2"),
                 Ingredient(name="baking powder", quantity="2 tsp")],
    steps=["Whisk the flour and baking powder.", "Beat in the eggs and milk until smooth.",
           "Rest the batter for 10 minutes.", "Cook ladlefuls on a hot pan, 1 minute a side."],
)


def scripted_stream(answer: str, piece: int = 4) -> bytes:
    """The OpenAI Chat stream of ``answer``, a few characters per chunk, as a
    model with ``response_format`` writes it."""
    head = {"id": "chatcmpl-demo", "object": "chat.completion.chunk", "created": 1,
            "model": "gpt-4.1-mini"}
    deltas = [{"role": "assistant", "content": ""}]
    deltas += [{"content": answer[i:i + piece]} for i in range(0, len(answer), piece)]
    chunks = [{**head, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
              for delta in deltas]
    chunks.append({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    events = [f"data: {json.dumps(chunk)}\n\n" for chunk in chunks] + ["data: [DONE]\n\n"]
    return "".join(events).encode()


async def main() -> None:
    async with ReplayServer() as server:
        server.add("/chat/completions", scripted_stream(ANSWER.model_dump_json()),
                   chunk_size=256, delay=0.001)
        async with streamkit.Client("openai:gpt-4.1-mini", api_key="demo",
                                    base_url=server.url) as client:
            messages = [streamkit.UserMessage("A pancake recipe, please.")]
            async with client.stream(messages, json_output=Recipe) as events:
                shown = (0, 0)
                values = 0
                async for recipe in events.partial_output(Recipe):
                    values += 1
                    counts = (len(recipe.ingredients or []), len(recipe.steps or []))
                    if counts != shown:
                        shown = counts
                        print(f"{recipe.title!r}: {counts[0]} ingredients, {counts[1]} steps; "
                              f"last step so far: {(recipe.steps or [''])[-1]!r}")
        sent = server.requests[0].json()["response_format"]["json_schema"]["name"]
    print(f"asked for {sent} with response_format; {values} values received")
    print(f"final: {type(recipe).__name__} {recipe.title!r} for {recipe.servings}, "
          f"{len(recipe.ingredients)} ingredients, {len(recipe.steps)} steps")
    print(f"equal to the answer: {recipe == ANSWER}")


if __name__ == "__main__":
    anyio.run(main)
