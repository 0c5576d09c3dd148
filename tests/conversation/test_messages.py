"""Content lists as people write them: a plain string beside a block is text
on every wire (it was an ``AttributeError`` on four wires and silently gone
on Ollama); any other item that is no block is an
:class:`~streamkit.InvalidMessageError` naming it, made when the message is."""

from __future__ import annotations

from typing import Any

import pytest
from support.request_oracles import sdk_valid

from streamkit import (
    AssistantMessage,
    FunctionExecutionResult,
    InvalidMessageError,
    SystemMessage,
    TextBlock,
    UserMessage,
    build_request,
    parse_request,
)
from streamkit.model.blocks import DataBlock
from streamkit.model.data_sources import Base64Source

#: Each wire's own vendor name.
TARGETS = {"openai-chat": "openai", "openai-responses": "openai-responses",
           "anthropic": "anthropic", "gemini": "gemini", "ollama": "ollama"}

_PNG = b"\x89PNG\r\n\x1a\n" + bytes(16)


def _image() -> DataBlock:
    return DataBlock(media_type="image/png", source=Base64Source(_PNG, "image/png"))


@pytest.mark.parametrize("wire", TARGETS)
def test_a_string_beside_an_image_is_text_on_every_wire(wire: str) -> None:
    body = build_request(TARGETS[wire], [UserMessage(["Describe this:", _image()])],
                         model="m", max_tokens=10)
    sdk_valid(wire, body)
    user = parse_request(TARGETS[wire], body).messages[-1]
    assert isinstance(user, UserMessage)
    texts = [block.text for block in user.blocks if isinstance(block, TextBlock)]
    images = [block for block in user.blocks if isinstance(block, DataBlock)]
    assert texts == ["Describe this:"]
    assert len(images) == 1 and images[0].source is not None
    assert isinstance(images[0].source, Base64Source) and images[0].source.raw == _PNG


def _texts(content: Any) -> list[str]:
    """The text of each item, every item being a text block."""
    assert all(isinstance(block, TextBlock) for block in content)
    return [block.text for block in content]


def test_strings_are_text_blocks_in_every_message_kind() -> None:
    assert _texts(UserMessage(["a", TextBlock("b")]).content) == ["a", "b"]
    assert _texts(SystemMessage(["be brief"]).content) == ["be brief"]
    assert _texts(AssistantMessage(["done"]).content) == ["done"]
    assert _texts(FunctionExecutionResult("c1", ["42"]).content) == ["42"]


def test_a_list_of_blocks_stays_the_callers_list() -> None:
    blocks: list[Any] = [TextBlock("a")]
    assert UserMessage(blocks).content is blocks


@pytest.mark.parametrize(("item", "advice"), [
    (b"\x89PNG", "wrap bytes in a DataBlock"),
    (bytearray(b"x"), "wrap bytes in a DataBlock"),
    ({"type": "text", "text": "hi"}, "parse_request"),
    (3, "where a TextBlock, a DataBlock or a RawBlock (or a string) belongs"),
])
def test_an_item_that_is_no_block_is_refused_naming_it(item: object, advice: str) -> None:
    with pytest.raises(InvalidMessageError) as raised:
        UserMessage(["look:", item])  # type: ignore[list-item]
    assert f"UserMessage.content[1] holds a {type(item).__name__} object" in str(raised.value)
    assert advice in str(raised.value)


def test_content_that_is_no_list_is_refused() -> None:
    with pytest.raises(InvalidMessageError, match=r"UserMessage.content holds a TextBlock"):
        UserMessage(TextBlock("hi"))  # type: ignore[arg-type]
