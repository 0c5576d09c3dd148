"""A stream cut inside its last event's JSON is read with that event's raw
text kept (``response.metadata["truncated_payload"]``: nothing received is
lost); no encoder writes it back, to any wire, streamed or whole: it is no
field of any wire, and the SDKs' types forbid extra fields (issue 31, the
gateway fault campaign: Gemini chunks with a ``truncated_payload`` field)."""

from __future__ import annotations

import json

import pytest
from support.encode_matrix import TARGETS
from support.encoder_fuzzing import invalid_for_sdk

from streamkit import ChatResponse, FinishReason, TextBlock, encode_response, encode_stream, replay
from streamkit.model.events import TRUNCATED_PAYLOAD

ANSWER = ChatResponse(content=[TextBlock(id="t", text="hello there")], model="m",
                      terminated=True, finished_reason=FinishReason.LENGTH)


@pytest.mark.parametrize("wire", list(TARGETS))
def test_a_cut_events_raw_text_is_kept_but_never_written_back(wire: str) -> None:
    whole = b"".join(encode_stream(wire, ANSWER))
    cut = replay(whole[:whole.rindex(b'{"') + 4], TARGETS[wire])[1]
    assert TRUNCATED_PAYLOAD in cut.metadata  # kept by the reader
    stream = b"".join(encode_stream(wire, cut))
    body = json.dumps(encode_response(wire, cut)).encode()
    assert TRUNCATED_PAYLOAD.encode() not in stream + body
    assert not invalid_for_sdk(wire, "stream", stream)
    assert not invalid_for_sdk(wire, "body", body)
