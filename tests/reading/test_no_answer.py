"""A stream that ends with no content and without its wire's end is no answer
(issue 31, finding 3): an :class:`~streamkit.IncompleteStreamError` carrying
the partial (what came: the response's id, model, usage), never an empty
response that looks complete. A stream that said why it stopped, or ended as
its wire ends, stays an answer however empty; content without an end stays
the documented lenient cut (``terminated=False``)."""

from __future__ import annotations

import pytest

import streamkit
from streamkit import FinishReason, IncompleteStreamError, replay

#: Per wire: a stream's opening payload(s), with nothing in them yet.
OPENINGS = {
    "openai": b'data: {"id":"c1","object":"chat.completion.chunk","model":"g","choices":'
              b'[{"index":0,"delta":{"role":"assistant","content":""}}]}\n\n',
    "openai-responses": b'event: response.created\ndata: {"type":"response.created","response":'
                        b'{"id":"r1","object":"response","status":"in_progress","output":[]}}\n\n',
    "anthropic": b'event: message_start\ndata: {"type":"message_start","message":{"id":"m1",'
                 b'"type":"message","role":"assistant","content":[],"model":"c",'
                 b'"usage":{"input_tokens":3,"output_tokens":1}}}\n\n',
    "gemini": b'data: {"usageMetadata":{"promptTokenCount":3},"responseId":"g1"}\n\n',
    "ollama": b'{"model":"m","created_at":"t","message":{"role":"assistant","content":""},'
              b'"done":false}\n',
}


@pytest.mark.parametrize("provider", sorted(OPENINGS))
@pytest.mark.parametrize("opened", [False, True], ids=["zero-events", "opened-only"])
def test_no_content_and_no_end_is_an_incomplete_stream(provider: str, opened: bool) -> None:
    body = OPENINGS[provider] if opened else b": keep-alive\n\n" * (provider != "ollama")
    with pytest.raises(IncompleteStreamError, match="no content") as caught:
        replay(body, provider)
    partial = caught.value.partial
    assert partial is not None and partial.finished_reason is FinishReason.INTERRUPTED
    assert partial.text == "" and not partial.terminated
    with pytest.raises(IncompleteStreamError):
        list(streamkit.stream([body] if body else [], provider))


@pytest.mark.parametrize("provider", sorted(OPENINGS))
def test_on_error_return_keeps_the_partial(provider: str) -> None:
    _, response = replay(OPENINGS[provider], provider, on_error="return")
    assert response.finished_reason is FinishReason.INTERRUPTED


def test_an_empty_answer_that_ended_is_still_an_answer() -> None:
    refusal = (OPENINGS["anthropic"] + b'event: message_delta\ndata: {"type":"message_delta",'
               b'"delta":{"stop_reason":"refusal"},"usage":{"output_tokens":1}}\n\n'
               b'event: message_stop\ndata: {"type":"message_stop"}\n\n')
    assert replay(refusal, "anthropic").response.terminated
    stopped = OPENINGS["openai"] + (b'data: {"id":"c1","object":"chat.completion.chunk",'
                                   b'"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n')
    assert replay(stopped, "openai").response.finished_reason is FinishReason.STOP


def test_content_without_an_end_stays_a_lenient_cut() -> None:
    body = OPENINGS["openai"] + (b'data: {"id":"c1","object":"chat.completion.chunk",'
                                b'"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\n')
    response = replay(body, "openai").response
    assert response.text == "Hi" and not response.terminated
