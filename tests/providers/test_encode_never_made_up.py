"""What an encoder writes is what came, never made up (issue 30).

A response id written to a wire takes that wire's form (``msg_`` on Anthropic,
``chatcmpl-`` on OpenAI Chat, ``resp_`` on Responses) when the id came from
another wire or was made up (a scripted answer's ``resp_...``); an id read from
the wire itself goes back as it came. An unknown finish (a word streamkit does
not know, or none) goes back as the word that came to its own wire and as no
word elsewhere: it reads back ``unknown``, never a success. Stream and body
alike, read back by streamkit's own readers."""

from __future__ import annotations

import pytest
from support.paths import FIXTURES

from streamkit import (
    ChatResponse,
    FinishReason,
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


# ---------------------------------------------------------------- unknown finishes

UNKNOWN_WORD = FIXTURES / "edge/anthropic-unknown-stop-reason.sse"
#: Every wire's registry name, and the success words it has.
SUCCESS = {"openai": {"stop", "tool_calls"}, "anthropic": {"end_turn", "tool_use"},
           "openai-responses": {"completed"}, "gemini": {"STOP"}, "ollama": {"stop"}}


@pytest.mark.parametrize("source", ["recording", "no word"])
@pytest.mark.parametrize("target", SUCCESS)
def test_an_unknown_finish_is_never_written_as_a_success(target: str, source: str) -> None:
    """An unknown finish (a word streamkit does not know, or none) reads back
    ``unknown`` from every wire, stream and body; the same wire gets its own word."""
    events, answer = replay(UNKNOWN_WORD.read_bytes(), "anthropic")
    assert answer.finished_reason is FinishReason.UNKNOWN
    assert answer.stop_reason == "model_rethinking"
    if source == "no word":  # made by hand: no word at all
        answer = ChatResponse(content=[TextBlock("hi")], finished_reason=FinishReason.UNKNOWN,
                              terminated=True)
        events = list(events_of(answer))
    streamed = replay(b"".join(encode_stream(target, events)), target, on_error="return")[1]
    whole = parse_response(target, encode_response(target, answer))
    # the openai SDK's ChatCompletion requires a finish word in a body: the one
    # place an unknown end is still written (as stop); its stream says none
    for again in (streamed, whole) if target != "openai" else (streamed,):
        assert again.finished_reason is FinishReason.UNKNOWN, target
        assert again.stop_reason not in SUCCESS[target]
        if target == "anthropic" and source == "recording":
            assert again.stop_reason == "model_rethinking"  # its own word, as it came
