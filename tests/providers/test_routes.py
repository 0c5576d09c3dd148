"""Which wire a served request is in, from its path (streamkit.providers.routes)."""

from __future__ import annotations

import pytest

from streamkit.providers import WIRE_NAMES, wire_format
from streamkit.providers.routes import ServedCall, served_call


@pytest.mark.parametrize(("path", "query", "expected"), [
    ("/v1/chat/completions", "", ServedCall("openai-chat", "openai")),
    ("/chat/completions", "", ServedCall("openai-chat", "openai")),
    ("/v1/responses", "", ServedCall("openai-responses", "openai-responses")),
    ("/v1/messages", "", ServedCall("anthropic", "anthropic")),
    ("/api/chat", "", ServedCall("ollama", "ollama")),
    ("/v1beta/models/gemini-2.5-flash:streamGenerateContent", "alt=sse",
     ServedCall("gemini", "gemini", model="gemini-2.5-flash", stream=True)),
    ("/v1beta/models/gemini-2.5-flash:streamGenerateContent", "",
     ServedCall("gemini", "gemini", model="gemini-2.5-flash", stream=True, array=True)),
    ("/v1/models/my%20model:generateContent", "",
     ServedCall("gemini", "gemini", model="my model", stream=False)),
    ("/v1/messages/count_tokens", "beta=true",
     ServedCall("anthropic", "anthropic", stream=False, count=True)),
    ("/v1beta/models/gemini-2.5-flash:countTokens", "",
     ServedCall("gemini", "gemini", model="gemini-2.5-flash", stream=False, count=True)),
    ("/v1/responses/input_tokens", "",
     ServedCall("openai-responses", "openai-responses", stream=False, count=True)),
])
def test_each_wires_path_is_recognised(path: str, query: str, expected: ServedCall) -> None:
    assert served_call(path, query) == expected


@pytest.mark.parametrize("path", ["/", "/v1/models", "/v1/chat/completions/x", "/api/generate",
                                  "/v1beta/models/g:embedContent", "/v2/messages",
                                  "/v1/chat/completions/count_tokens"])
def test_a_path_no_wire_serves_is_none(path: str) -> None:
    assert served_call(path) is None


def test_every_wire_says_where_it_is_served() -> None:
    assert all(wire_format(name).served_path for name in WIRE_NAMES)


@pytest.mark.parametrize(("path", "stream", "expected"), [
    ("/v1/chat/completions", None, False), ("/v1/chat/completions", True, True),
    ("/api/chat", None, True), ("/api/chat", False, False),
    ("/v1beta/models/g:generateContent", True, False),
    ("/v1beta/models/g:streamGenerateContent", None, True),
])
def test_the_path_then_the_body_then_the_wire_say_whether_to_stream(
        path: str, stream: bool | None, expected: bool) -> None:
    call = served_call(path)
    assert call is not None
    assert call.streams(stream) is expected
