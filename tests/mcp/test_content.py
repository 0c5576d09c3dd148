"""MCP's results in streamkit's types, sans-IO: each kind of content part the
SDK's types allow, as the conversation sends it back."""

from __future__ import annotations

import base64

import mcp_types

from streamkit import DataBlock, TextBlock
from streamkit.mcp.content import STRUCTURED_CONTENT, result_from_mcp

WAV = b"RIFF\x00\x00\x00\x00WAVE"


def _result(*content: mcp_types.ContentBlock, structured: object = None,
            is_error: bool = False) -> mcp_types.CallToolResult:
    return mcp_types.CallToolResult(content=list(content), structured_content=structured,
                                    is_error=is_error)


def test_text_parts_audio_and_a_resource_link_become_blocks() -> None:
    result = result_from_mcp(_result(
        mcp_types.TextContent(text="one"), mcp_types.TextContent(text="two"),
        mcp_types.AudioContent(data=base64.b64encode(WAV).decode(), mime_type="audio/wav"),
        mcp_types.ResourceLink(name="report", uri="file:///report.pdf")),
        call_id="c1", name="t", max_chars=10_000)
    first, second, audio, link = result.content
    assert isinstance(first, TextBlock) and isinstance(second, TextBlock)
    assert (first.text, second.text) == ("one", "two")
    assert isinstance(audio, DataBlock) and (audio.media_type, audio.data) == ("audio/wav", WAV)
    assert isinstance(link, TextBlock) and link.text == "[resource report: file:///report.pdf]"


def test_structured_content_alone_is_also_the_text_and_is_error_is_kept() -> None:
    result = result_from_mcp(_result(structured={"temperature": 21}, is_error=True),
                             call_id="c2", name="t", max_chars=10_000)
    assert (result.content, result.is_error) == ('{"temperature": 21}', True)
    assert result.metadata == {STRUCTURED_CONTENT: {"temperature": 21}}


def test_data_that_is_not_base64_is_an_error_result() -> None:
    image = mcp_types.ImageContent(data="not base64!", mime_type="image/png")
    result = result_from_mcp(_result(image), call_id="c3", name="chart", max_chars=10_000)
    assert result.is_error and "not base64" in result.text and "'chart'" in result.text
