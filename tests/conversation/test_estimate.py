"""streamkit.estimate_tokens: the count where an API has none, said as an estimate."""

from __future__ import annotations

from streamkit import (
    AssistantMessage,
    DataBlock,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    Request,
    SystemMessage,
    ThinkingBlock,
    ToolCallBlock,
    UserMessage,
    estimate_tokens,
    tool,
)
from streamkit.model.blocks import Base64Source


def get_weather(city: str) -> str:
    """The weather in a city."""
    return "sunny"


def test_the_estimate_is_the_texts_characters_over_four_rounded_up() -> None:
    count = estimate_tokens(Request([UserMessage("abcdefgh"), UserMessage("x")]))
    assert (count.input_tokens, count.estimated, count.method) == (3, True, "characters/4")


def test_every_text_the_model_reads_counts_and_media_does_not() -> None:
    image = DataBlock(media_type="image/png", source=Base64Source(b"\x89PNG" * 1000))
    turns = [SystemMessage("ssss"), UserMessage(["uuuu", image]),
             AssistantMessage([ThinkingBlock("tttt"), ToolCallBlock("c1", "nnnn", '{"a":1}')]),
             FunctionExecutionResultMessage([FunctionExecutionResult("c1", "rrrr")])]
    # 4 + 4 (the image is not counted) + 4 + 4 + 7 + 4 = 27 characters
    assert estimate_tokens(Request(turns)).input_tokens == 7


def test_a_tool_counts_by_its_name_description_and_schema() -> None:
    bare = estimate_tokens(Request([UserMessage("x")])).input_tokens
    with_tool = estimate_tokens(Request([UserMessage("x")], tools=[tool(get_weather)]))
    schema = '{"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}'
    characters = 1 + len("get_weather") + len("The weather in a city.") + len(schema)
    assert (bare, with_tool.input_tokens) == (1, -(-characters // 4))
