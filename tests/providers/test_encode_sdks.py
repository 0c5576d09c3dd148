"""Every recording written to every wire, read back by that wire's official SDK.

The cross-wire matrix (``test_encode_matrix.py``) checks our own reader gets
back, from each (recording, target wire) encoding, the source's portable
summary minus the target's documented losses. Here the same encodings are
served over a real socket (one :class:`streamkit.testing.ReplayServer` in a
thread, a path of its own per case: the fixtures of ``providers/conftest.py``)
and read by the official client of the target wire, each with its sync client
(``support/sdk_stream_readers.py``: openai ``chat.completions.stream()`` and
``responses.stream()``, anthropic ``messages.stream()``, google-genai
``models.generate_content_stream``, ollama ``Client.chat(stream=True)``).

What the SDK gives is reduced to the matrix's summary fields and compared with
the matrix's ``expected()``: text, reasoning, refusal (where the wire has a
kind for it), tool calls (name and parsed arguments; ids where the wire and
the SDK carry them), the finish (the SDK's word read with the target's own
finish table), the output and input token counts. A source that failed makes
the SDK raise its own error with the source's message, after giving the text
read before it. Media are not compared here (the SDKs' stream helpers do not
accumulate them); the matrix checks them through our reader.

Pairs the encoder refuses (two choices to a one-choice wire) are the matrix's
to check, not the SDKs'. What an SDK cannot read of what the encoder writes is
listed in :data:`SDK_CANNOT_READ` (whole cases) and :data:`FIELDS_NOT_READ`
(one field on every case of a wire), each with its reason, and asserted to be
exactly those.
"""

from __future__ import annotations

import functools
import itertools
from pathlib import Path
from typing import Any

import pydantic
import pytest
from support.encode_matrix import (
    LOSSES,
    ONE_CHOICE,
    RECORDINGS,
    TARGETS,
    Source,
    Summary,
    expected,
    parsed,
)
from support.recordings import fixture_id
from support.sdk_stream_readers import READERS, Raised, read_anthropic, read_gemini

from streamkit import UnsupportedFeatureError, encode_stream
from streamkit.testing import ThreadedReplayServer

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")
genai = pytest.importorskip("google.genai")
ollama = pytest.importorskip("ollama")

#: The (recording, target) pairs the encoder writes (it refuses a second choice
#: to a one-choice wire: the matrix checks that refusal).
CASES = [(path, target) for path in RECORDINGS for target in TARGETS
         if not (parsed(path).choices > 1 and target in ONE_CHOICE)]

_NOT_JSON = ("anthropic's stream helper raises ValueError ('Unable to parse tool parameter "
             "JSON from model') when a tool_use's streamed input is not JSON; the encoder "
             "writes an Anthropic answer's own arguments back as they came, as the API's "
             "fine-grained tool streaming may send them (another wire's are {})")

#: Whole cases an official SDK cannot read though the encoder writes them as
#: the wire says (our reader reads them in the matrix): (recording, target) ->
#: why. Each is checked to fail the way its reason says (:func:`_cannot_read`),
#: so an SDK that learns to read one fails the test until it is taken off.
SDK_CANNOT_READ: dict[tuple[str, str], str] = {
    ("edge/anthropic-tool-use-invalid-json.sse", "anthropic"): _NOT_JSON,
    ("edge/gemini-vertex-partialArgs-unplaceable.sse", "gemini"):
        "made up to hold a partialArgs value of the wrong type (a string as numberValue): "
        "google-genai's GenerateContentResponse model rejects it, as it would the recording",
}

#: Cases read with anthropic's beta client (``client.beta.messages.stream()``):
#: the stable one has no model of the block, so it keeps no streamed input for it.
BETA_READS: dict[tuple[str, str], str] = {
    ("edge/anthropic-server-tools.sse", "anthropic"):
        "an mcp_tool_use block (the MCP connector is a beta feature): the stable client "
        "drops its streamed input ({}); the beta client reads it",
}

#: Fields an SDK does not give on any case of its wire, though the encoder writes
#: them: target -> (what, why); :func:`test_the_fields_not_read_are_not_in_the_sdks_models`
#: checks the SDK's model has no place for them.
FIELDS_NOT_READ: dict[str, tuple[str, str]] = {
    "ollama": ("call ids", "ollama.Message.ToolCall has no id field: the client drops the "
               "id the encoder writes on each call"),
}

_case_numbers = itertools.count()


# ---------------------------------------------------------------- what the SDK must give


def _as_the_sdk_gives_it(want: Summary, target: str) -> Summary:
    """The expected summary in the SDK's terms: the fields compared here, an
    absent reasoning as ``""``, no call ids where the wire or client has none."""
    out = {key: want[key] for key in ("text", "reasoning", "refusal", "calls", "finish",
                                      "output_tokens", "input_tokens")}
    out["reasoning"] = out["reasoning"] or ""
    if target in ("gemini", "ollama"):
        out["calls"] = [(None, name, arguments) for _, name, arguments in out["calls"]]
    return out


@pytest.mark.parametrize(("path", "target"), CASES,
                         ids=[f"{fixture_id(path)}->{target}" for path, target in CASES])
def test_the_official_sdk_reads_every_recording_written_to_its_wire(
        path: Path, target: str, server: ThreadedReplayServer, clients: dict[str, Any]) -> None:
    source: Source = parsed(path)
    want = expected(source, target, LOSSES)
    encoded = b"".join(encode_stream(TARGETS[target], source.events))
    case = f"c{next(_case_numbers)}"
    read = READERS[target]
    if (fixture_id(path), target) in SDK_CANNOT_READ:
        _cannot_read(server, clients, case, encoded, target)
        return
    if (fixture_id(path), target) in BETA_READS:
        stable = read_anthropic(server, clients, case + "s", encoded)
        assert stable != _as_the_sdk_gives_it(want, target)  # the reason still holds
        read = functools.partial(read_anthropic, beta=True)
    if want["error"] is not None:
        with pytest.raises(Raised) as raised:
            read(server, clients, case, encoded)
        assert _message(raised.value.error, target) == want["error"]
        assert raised.value.text == want["text"]
        return
    got = read(server, clients, case, encoded)
    assert got == _as_the_sdk_gives_it(want, target)


def _cannot_read(server: ThreadedReplayServer, clients: dict[str, Any], case: str,
                 encoded: bytes, target: str) -> None:
    """The failure :data:`SDK_CANNOT_READ` gives as its reason."""
    if target == "anthropic":
        with pytest.raises(ValueError, match="Unable to parse tool parameter JSON"):
            read_anthropic(server, clients, case, encoded)
    else:
        with pytest.raises(pydantic.ValidationError, match="partialArgs"):
            read_gemini(server, clients, case, encoded)


def _message(error: Exception, target: str) -> str:
    """The message the SDK's error carries."""
    if target == "ollama":
        return str(error.error)  # type: ignore[attr-defined]
    if target == "anthropic":  # the message is the body's repr; the body is parsed
        return str(error.body["error"]["message"])  # type: ignore[attr-defined]
    return str(error.message)  # type: ignore[attr-defined]


def test_every_pair_the_encoder_writes_is_an_sdk_case() -> None:
    """The pairs left out are exactly those the encoder refuses."""
    left_out = [(path, target) for path in RECORDINGS for target in TARGETS
                if (path, target) not in CASES]
    for path, target in left_out:
        with pytest.raises(UnsupportedFeatureError, match=TARGETS[target]):
            b"".join(encode_stream(TARGETS[target], parsed(path).events))
    assert len(CASES) + len(left_out) == len(RECORDINGS) * len(TARGETS)
    assert len(RECORDINGS) >= 60 and len(left_out) <= 3 * 2


def test_the_exceptions_are_cases_of_the_matrix() -> None:
    """Each listed case is a pair the encoder writes (its check runs above)."""
    names = {(fixture_id(path), target) for path, target in CASES}
    assert set(SDK_CANNOT_READ) | set(BETA_READS) <= names
    assert len(SDK_CANNOT_READ) == 2 and len(BETA_READS) == 1


def test_the_fields_not_read_are_not_in_the_sdks_models() -> None:
    assert set(FIELDS_NOT_READ) == {"ollama"}
    assert "id" not in ollama.Message.ToolCall.model_fields
    encoded = b"".join(encode_stream("ollama", parsed(next(
        path for path in RECORDINGS
        if fixture_id(path) == "edge/ollama-chat-thinking-tools.ndjson")).events))
    assert b'"id":' in encoded  # written, then dropped by the client
