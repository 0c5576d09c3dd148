"""Answers that are no answer, against a raw-socket server (issue 31, finding
3): a redirect is a :class:`~streamkit.ProtocolError` naming the status and
where it points (no secret of the URL), an empty 200 body or a stream that
ends with nothing and without its end an error with its partial, never a
complete empty answer; each for every way of calling."""

from __future__ import annotations

import json

import pytest
from support.client_calls import CALL_KINDS, JSON, SECRET, SSE, call, headers
from support.fault_server import Answer, FaultServer, head

from streamkit import IncompleteStreamError, ProtocolError

STREAMS = [kind for kind in CALL_KINDS if kind.endswith("stream")]


#: Each way of calling, each with another redirect status.
REDIRECTS = list(zip(CALL_KINDS, [301, 307, 308, 302], strict=True))


@pytest.mark.parametrize(("kind", "status"), REDIRECTS)
def test_a_redirect_is_a_protocol_error_naming_where_it_points(kind: str, status: int) -> None:
    location = f"https://user:{SECRET}@elsewhere.example/v1/chat/completions?key={SECRET}#x"
    body = b'{"moved": true}'
    answer = Answer([head(status, headers(JSON, location=location,
                                          content_length=str(len(body)))), body])
    with FaultServer(answer) as server:
        error, got, _ = call(kind, server.url)
    assert type(error) is ProtocolError, (error, got)
    assert str(status) in str(error)
    assert "https://elsewhere.example/v1/chat/completions" in str(error)
    assert SECRET not in str(error) + repr(error.args) and "key=" not in str(error)
    assert error.partial is not None and error.partial.provider == "deepseek"


@pytest.mark.parametrize("kind", CALL_KINDS)
def test_an_empty_200_is_an_error_with_its_partial(kind: str) -> None:
    content_type = SSE if kind.endswith("stream") else JSON
    answer = Answer([head(200, headers(content_type, content_length="0"))])
    with FaultServer(answer) as server:
        error, got, _ = call(kind, server.url)
    expected = IncompleteStreamError if kind.endswith("stream") else ProtocolError
    assert type(error) is expected, (error, got)
    assert error.partial is not None and error.partial.text == ""


@pytest.mark.parametrize("kind", STREAMS)
@pytest.mark.parametrize("said", [b": keep-alive\n\n", b'data: {"id":"c","object":'
                                  b'"chat.completion.chunk","choices":[{"index":0,"delta":'
                                  b'{"role":"assistant","content":""}}]}\n\n'],
                         ids=["zero-events", "opened-only"])
def test_a_stream_closed_before_any_answer_is_incomplete(kind: str, said: bytes) -> None:
    answer = Answer([head(200, headers(SSE, content_length=str(len(said)))), said])
    with FaultServer(answer) as server:
        error, got, _ = call(kind, server.url)
    assert type(error) is IncompleteStreamError, (error, got)
    assert error.partial is not None and error.partial.finished_reason == "interrupted"


def test_a_200_of_another_wire_is_refused_naming_the_wire() -> None:
    body = json.dumps({"id": "m", "type": "message", "role": "assistant", "model": "c",
                       "content": [{"type": "text", "text": "hi"}]}).encode()
    answer = Answer([head(200, headers(JSON, content_length=str(len(body)))), body])
    with FaultServer(answer) as server:
        error, _, _ = call("Client.create", server.url)
    assert type(error) is ProtocolError and "looks like a anthropic answer" in str(error)
