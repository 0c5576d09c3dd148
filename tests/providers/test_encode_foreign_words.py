"""A vendor's own word, written back to its wire, where the wire's SDK types
take only their own set (issue 31, the gateway fault campaign): OpenRouter's
``finish_reason: "error"`` (with its ``error`` object in the chunk, code 502)
read from OpenAI Chat and written to an OpenAI Chat caller, or its code as a
Responses ``response.failed``'s ``error.code``. Each is written as the wire's
own word (OpenAI Chat's ``stop``, or none after the error that ended the
answer; Responses' ``server_error``), the vendor's code kept in the message.
The SDK's types are the oracle."""

from __future__ import annotations

import json

import pytest
from support.encoder_fuzzing import invalid_for_sdk
from support.paths import FIXTURES

from streamkit import encode_response, encode_stream, replay

OPENROUTER_ERROR = (FIXTURES / "edge/openai-chat-openrouter-error-in-chunk.sse").read_bytes()


@pytest.mark.parametrize("wire", ["openai-chat", "openai-responses"])
def test_a_vendors_error_word_is_written_as_the_sdk_takes_it(wire: str) -> None:
    events, read = replay(OPENROUTER_ERROR, "openai", on_error="return")
    assert read.stop_reason == "error"  # the vendor's word, as read
    stream = b"".join(encode_stream(wire, events))
    body = json.dumps(encode_response(wire, read)).encode()
    assert not invalid_for_sdk(wire, "stream", stream)
    assert not invalid_for_sdk(wire, "body", body)
    assert b"Provider disconnected unexpectedly" in stream
    if wire == "openai-responses":
        failed = [json.loads(line[6:]) for line in stream.splitlines()
                  if line.startswith(b"data: ") and b"response.failed" in line]
        assert failed[0]["response"]["error"]["code"] == "server_error"
        assert "502" in failed[0]["response"]["error"]["message"]
