"""A caller's headers a gateway forwards (streamkit.client.forwarding): to a
model of the caller's wire, never to another wire's, never a key."""

from __future__ import annotations

import pytest

from streamkit import (
    ChatResponse,
    Client,
    Fallback,
    ProviderError,
    Request,
    StreamkitError,
    TextBlock,
    UserMessage,
)
from streamkit.client import ForwardedHeaders
from streamkit.testing import FakeProvider

pytestmark = pytest.mark.anyio

SENT = [("Anthropic-Beta", "b1"), ("anthropic-beta", "b2"), ("X-Api-Key", "caller-key"),
        ("Authorization", "Bearer caller-key"), ("x-other", "o")]


def test_only_the_allowed_headers_are_kept_never_a_key() -> None:
    chosen = ForwardedHeaders.chosen("anthropic", SENT, {"anthropic-beta", "x-api-key",
                                                          "authorization"})
    assert dict(chosen.headers) == {"anthropic-beta": "b1, b2"}
    assert chosen.for_wire("anthropic") == {"anthropic-beta": "b1, b2"}
    assert chosen.for_wire("gemini") == {}


def _answer(request: Request) -> ChatResponse | StreamkitError:
    if request.model == "claude-down":
        return ProviderError("overloaded", status=503)
    return ChatResponse(content=[TextBlock("Sunny.")])


async def test_a_fallback_of_another_wire_gets_none_of_the_callers_headers() -> None:
    forwarded = ForwardedHeaders.chosen("anthropic", SENT, {"anthropic-beta", "x-other"})
    async with FakeProvider(_answer) as fake:
        async with Client("anthropic:claude-down", api_key="up-key", max_retries=0,
                          base_url=fake.base_url("anthropic"),
                          fallbacks=[Fallback("gemini:gem-up", api_key="g-key",
                                              base_url=fake.base_url("gemini"))]) as client:
            answer = await client.create([UserMessage("hi")], forward_headers=forwarded)
        assert answer.text == "Sunny."
        down, up = fake.requests
    assert (down.wire, up.wire) == ("anthropic", "gemini")
    assert (down.headers["anthropic-beta"], down.headers["x-other"]) == ("b1, b2", "o")
    assert list(down.raw.secret_headers.values()) == ["up-key"]
    assert not {"anthropic-beta", "x-other"} & set(up.headers)
