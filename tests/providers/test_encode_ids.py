"""A response id written to a wire takes that wire's form (issue 30): ``msg_``
on Anthropic, ``chatcmpl-`` on OpenAI Chat, ``resp_`` on Responses, when the
id came from another wire or was made up (a scripted answer's ``resp_...``);
an id read from the wire itself goes back as it came. Stream and body alike,
read back by streamkit's own readers."""

from __future__ import annotations

import pytest
from support.paths import FIXTURES

from streamkit import (
    ChatResponse,
    TextBlock,
    encode_response,
    encode_stream,
    parse_response,
    replay,
)
from streamkit.model.events import Event
from streamkit.model.replay import events_of

#: One recording of each wire with its own id (Gemini's ``responseId`` has no prefix).
SOURCES = {"anthropic": ("anthropic/text-basic.sse", "anthropic"),
           "openai-chat": ("openai-chat/text-with-usage-chunk.sse", "openai"),
           "openai-responses": ("openai-responses/text.sse", "openai-responses"),
           "gemini": ("gemini/text.sse", "gemini")}
#: The wires whose ids have a form, and the registry name each is written as.
FORMS = {"anthropic": ("msg_", "anthropic"), "openai-chat": ("chatcmpl-", "openai"),
         "openai-responses": ("resp_", "openai-responses")}


def _ids_written(target: str, answer: ChatResponse, events: list[Event]) -> tuple[str, str]:
    """The id of ``answer`` written to ``target`` (stream, body) and read back."""
    provider = FORMS[target][1]
    streamed = replay(b"".join(encode_stream(provider, events)), provider, on_error="return")[1]
    whole = parse_response(provider, encode_response(provider, answer))
    return streamed.id, whole.id


@pytest.mark.parametrize("target", FORMS)
@pytest.mark.parametrize("source", SOURCES)
def test_an_id_takes_the_form_of_the_wire_it_is_written_to(source: str, target: str) -> None:
    path, provider = SOURCES[source]
    events, answer = replay((FIXTURES / path).read_bytes(), provider)
    streamed, whole = _ids_written(target, answer, events)
    assert streamed == whole  # the same id gives the same written id
    if source == target:
        assert streamed == answer.id  # its own: as it came
    else:
        prefix = FORMS[target][0]
        assert streamed.startswith(prefix) and streamed != prefix
        assert answer.id.split("_", 1)[-1].split("-", 1)[-1] in streamed  # derived from it


@pytest.mark.parametrize("target", FORMS)
def test_a_made_up_id_takes_the_wires_form(target: str) -> None:
    answer = ChatResponse(content=[TextBlock("hi")], id="resp_000000000000000000000001")
    streamed, whole = _ids_written(target, answer, list(events_of(answer)))
    want = {"anthropic": "msg_000000000000000000000001",
            "openai-chat": "chatcmpl-000000000000000000000001",
            "openai-responses": "resp_000000000000000000000001"}[target]
    assert streamed == whole == want
