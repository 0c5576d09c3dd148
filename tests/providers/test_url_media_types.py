"""Media by URL where the target needs a real media type (Gemini's
``fileData.mimeType``): the caller's type, or the one the URL's path names;
``image/*`` (what OpenAI's ``image_url`` and Anthropic's URL source readers
say: an image, type unknown) is no type, and none is invented.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from support.conversations import CONVERSATIONS
from support.request_oracles import sdk_valid

from streamkit import (
    DataBlock,
    Request,
    TextBlock,
    UnsupportedFeatureError,
    URLSource,
    UserMessage,
    build_request,
    parse_request,
)
from streamkit.providers.media import url_media_type


def file_data(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [part["fileData"] for content in body["contents"] for part in content["parts"]
            if "fileData" in part]


@pytest.mark.parametrize(("url", "given", "expected"), [
    ("https://example.com/cat.jpg", "image/*", "image/jpeg"),
    ("https://example.com/a/b/cat.PNG?size=2#top", "image/*", "image/png"),
    ("https://example.com/cat.webp", "image/*", "image/webp"),
    ("https://example.com/cat.webp", "", "image/webp"),
    ("https://example.com/render?id=3", "image/png", "image/png"),  # the caller's, as given
    ("https://example.com/cat.jpg", "image/png", "image/png"),
    ("https://example.com/render?id=3", "image/*", None),  # the path names no type
    ("https://example.com/report.pdf", "image/*", None),  # not an image: not one to claim
    ("https://example.com/report.pdf", "", "application/pdf"),
    ("gs://bucket/clip", "", None),
])
def test_url_media_type(url: str, given: str, expected: str | None) -> None:
    assert url_media_type(url, given) == expected


def test_a_recorded_openai_url_image_goes_to_gemini_with_its_type() -> None:
    """The recorded Chat turn sends an image by URL (image_url names no type)."""
    body = json.loads((CONVERSATIONS / "openai-chat" / "tool-result-then-user-image"
                       / "turn2.request.json").read_text())
    request = parse_request("openai", body)
    images = [block for message in request.messages if isinstance(message, UserMessage)
              for block in message.blocks if isinstance(block, DataBlock)]
    assert [image.media_type for image in images] == ["image/*"]
    built = build_request("gemini", request)
    sdk_valid("gemini", built)
    (image,) = file_data(built)
    assert image["mimeType"] == "image/jpeg" and image["fileUri"].endswith(".jpg")


def anthropic_url_image(url: str) -> dict[str, Any]:
    content = [{"type": "image", "source": {"type": "url", "url": url}},
               {"type": "text", "text": "What is in this picture?"}]
    return {"model": "claude-sonnet-4-5", "max_tokens": 100,
            "messages": [{"role": "user", "content": content}]}


def test_an_anthropic_url_image_goes_to_gemini_with_the_type_its_path_names() -> None:
    request = parse_request("anthropic", anthropic_url_image("https://example.com/cat.webp"))
    built = build_request("gemini", request)
    sdk_valid("gemini", built)
    assert file_data(built) == [{"mimeType": "image/webp",
                                 "fileUri": "https://example.com/cat.webp"}]


@pytest.mark.parametrize("url", ["https://example.com/render?id=3",
                                 "https://example.com/report.pdf"])
def test_an_image_url_with_no_media_type_is_refused_not_invented(url: str) -> None:
    request = parse_request("anthropic", anthropic_url_image(url))
    with pytest.raises(UnsupportedFeatureError) as caught:
        build_request("gemini", request)
    assert caught.value.wire == "gemini"
    assert "image url" in str(caught.value).lower() and "no media type" in str(caught.value)
    # the same picture with the caller's type goes
    (message,) = request.messages
    assert isinstance(message, UserMessage) and isinstance(message.content, list)
    image = message.content[0]
    assert isinstance(image, DataBlock) and isinstance(image.source, URLSource)
    image.source.media_type = "image/png"
    assert file_data(build_request("gemini", request)) == [{"mimeType": "image/png",
                                                            "fileUri": url}]


def test_other_wires_take_the_url_image_as_it_is() -> None:
    """OpenAI, Responses and Anthropic take an image URL with no type."""
    request = parse_request("anthropic", anthropic_url_image("https://example.com/render?id=3"))
    for vendor in ("openai", "openai-responses", "anthropic"):
        assert "https://example.com/render?id=3" in json.dumps(build_request(vendor, request))


def test_a_hand_made_url_without_a_type_is_sent_without_one() -> None:
    """A Files API URI has its own type (the API knows it): no mimeType is made up."""
    uri = "https://generativelanguage.googleapis.com/v1beta/files/abc123"
    built = build_request("gemini", Request(messages=[UserMessage([
        TextBlock("Describe it."), DataBlock(source=URLSource(uri))])]))
    assert file_data(built) == [{"fileUri": uri}]


def test_geminis_own_file_data_rebuilds_as_it_came() -> None:
    body = {"contents": [{"role": "user", "parts": [
        {"fileData": {"mimeType": "image/*", "fileUri": "https://example.com/render?id=3"}},
        {"fileData": {"fileUri": "https://example.com/cat.png"}}]}]}
    assert build_request("gemini", parse_request("gemini", body)) == body
