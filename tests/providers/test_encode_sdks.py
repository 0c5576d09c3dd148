"""Every recording written to every wire, read back by that wire's official SDK.

The cross-wire matrix (``test_encode_matrix.py``) checks our own reader gets
back, from each (recording, target wire) encoding, the source's portable
summary minus the target's documented losses. Here the same encodings are
served over a real socket (one :class:`streamkit.testing.ReplayServer` in a
thread, a path of its own per case) and read by the official client of the
target wire, each with its sync client:

* ``openai-chat``: openai ``chat.completions.stream()``;
* ``openai-responses``: openai ``responses.stream()``;
* ``anthropic``: anthropic ``messages.stream()``;
* ``gemini``: google-genai ``models.generate_content_stream`` (``v1beta``);
* ``ollama``: ollama ``Client.chat(stream=True)``.

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
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pydantic
import pytest
from conftest import fixture_id
from test_encode_matrix import (
    LOSSES,
    ONE_CHOICE,
    RECORDINGS,
    TARGETS,
    Source,
    Summary,
    _arguments,
    expected,
    parsed,
)

from streamkit import FinishReason, UnsupportedFeatureError, encode_stream
from streamkit.providers.anthropic.wire import FINISH_REASONS as ANTHROPIC_WORDS
from streamkit.providers.gemini.wire import map_finish_reason as gemini_finish
from streamkit.providers.ollama.wire import map_done_reason as ollama_finish
from streamkit.providers.openai_chat.wire import FINISH_REASONS as CHAT_WORDS
from streamkit.providers.openai_responses.wire import FINISH_REASONS as RESPONSES_WORDS
from streamkit.testing import ReplayServer, ThreadedReplayServer

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")
genai = pytest.importorskip("google.genai")
ollama = pytest.importorskip("ollama")
from google.genai import errors as genai_errors  # noqa: E402
from google.genai import types as genai_types  # noqa: E402

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


# ---------------------------------------------------------------- one server, one client per SDK


@pytest.fixture(scope="module")
def server() -> Iterator[ThreadedReplayServer]:
    with ReplayServer.in_thread() as running:
        yield running
        assert not running.errors


@pytest.fixture(scope="module")
def clients(server: ThreadedReplayServer) -> Iterator[dict[str, Any]]:
    """One sync client per SDK (each case reaches its own path through
    ``with_options`` or the model name, on the same connection pool)."""
    made = {"openai": openai.OpenAI(base_url=server.url, api_key="k", max_retries=0),
            "anthropic": anthropic.Anthropic(base_url=server.url, api_key="k", max_retries=0),
            "gemini": genai.Client(api_key="k", http_options=genai_types.HttpOptions(
                base_url=server.url, api_version="v1beta",
                retry_options=genai_types.HttpRetryOptions(attempts=1)))}
    yield made
    made["openai"].close()
    made["anthropic"].close()
    made["gemini"].close()


class Raised(Exception):
    """What an SDK raised on a failed stream, with the text it gave before."""

    def __init__(self, error: Exception, text: str) -> None:
        super().__init__(str(error))
        self.error = error
        self.text = text


# ---------------------------------------------------------------- each SDK, read into a summary


def _read_openai_chat(server: ThreadedReplayServer, clients: dict[str, Any], case: str,
                      encoded: bytes) -> Summary:
    server.add(f"/{case}/v1/chat/completions", encoded, chunk_size=97)
    client = clients["openai"].with_options(base_url=f"{server.url}/{case}/v1")
    text = ""
    try:
        with client.chat.completions.stream(
                model="m", messages=[{"role": "user", "content": "hi"}]) as stream:
            for event in stream:
                if event.type == "content.delta":
                    text += event.delta
            final = stream.get_final_completion()
    except (openai.LengthFinishReasonError, openai.ContentFilterFinishReasonError) as error:
        final = error.completion  # the helper refuses to parse a cut answer: it read it
    except openai.APIError as error:
        raise Raised(error, text) from error
    choice = final.choices[0]
    message = choice.message
    usage = final.usage
    finish = _word(CHAT_WORDS, choice.finish_reason)
    if finish is FinishReason.STOP and message.refusal and not message.content \
            and not message.tool_calls:
        finish = FinishReason.REFUSAL  # the wire's rule: a stop with nothing but a refusal
    return {
        "text": message.content or "", "reasoning": getattr(message, "reasoning_content", None)
        or "", "refusal": message.refusal,
        "calls": [(call.id, call.function.name, _arguments(call.function.arguments))
                  for call in message.tool_calls or []],
        "finish": finish,
        "output_tokens": None if usage is None else usage.completion_tokens,
        "input_tokens": None if usage is None else usage.prompt_tokens,
    }


def _read_openai_responses(server: ThreadedReplayServer, clients: dict[str, Any], case: str,
                           encoded: bytes) -> Summary:
    server.add(f"/{case}/v1/responses", encoded, chunk_size=97)
    client = clients["openai"].with_options(base_url=f"{server.url}/{case}/v1")
    text, refusal, reasoning, final = "", "", "", None
    arguments: dict[str, str] = {}
    calls: dict[str, tuple[str, str]] = {}
    try:
        with client.responses.stream(model="m", input="hi") as stream:
            for event in stream:
                if event.type == "response.output_text.delta":
                    text += event.delta
                elif event.type == "response.refusal.delta":
                    refusal += event.delta
                elif event.type in ("response.reasoning_summary_text.delta",
                                    "response.reasoning_text.delta"):
                    reasoning += event.delta
                elif event.type == "response.output_item.added" and \
                        event.item.type == "function_call":
                    calls[event.item.id or event.item.call_id] = (event.item.call_id,
                                                                 event.item.name)
                    arguments[event.item.id or event.item.call_id] = event.item.arguments
                elif event.type == "response.function_call_arguments.delta":
                    arguments[event.item_id] += event.delta
                elif event.type in ("response.completed", "response.incomplete",
                                    "response.failed"):
                    final = event.response
    except openai.APIError as error:
        raise Raised(error, text) from error
    if final is None:  # a cut stream: what its events gave
        return {"text": text, "reasoning": reasoning, "refusal": refusal or None,
                "calls": [(call_id, name, _arguments(arguments[key]))
                          for key, (call_id, name) in calls.items()],
                "finish": FinishReason.UNKNOWN, "output_tokens": None, "input_tokens": None}
    texts, refusals, thoughts, done_calls = [], [], [], []
    for item in final.output:
        if item.type == "message":
            texts += [part.text for part in item.content if part.type == "output_text"]
            refusals += [part.refusal for part in item.content if part.type == "refusal"]
        elif item.type == "reasoning":
            thoughts += [part.text for part in item.summary]
            thoughts += [part.text for part in item.content or ()]
        elif item.type == "function_call":
            done_calls.append((item.call_id, item.name, _arguments(item.arguments)))
        elif item.type == "custom_tool_call":
            done_calls.append((item.call_id, item.name, _arguments(item.input)))
    assert "".join(texts) == text  # the events and the final response agree
    word = final.incomplete_details.reason if final.incomplete_details else final.status
    finish = _word(RESPONSES_WORDS, word)
    if finish is FinishReason.STOP and done_calls:
        finish = FinishReason.TOOL_CALLS  # the reader's rule: completed with calls
    usage = final.usage
    return {"text": "".join(texts), "reasoning": "".join(thoughts),
            "refusal": "".join(refusals) or None, "calls": done_calls, "finish": finish,
            "output_tokens": None if usage is None else usage.output_tokens,
            "input_tokens": None if usage is None else usage.input_tokens}


def _read_anthropic(server: ThreadedReplayServer, clients: dict[str, Any], case: str,
                    encoded: bytes, *, beta: bool = False) -> Summary:
    server.add(f"/{case}/v1/messages", encoded, chunk_size=97)
    client = clients["anthropic"].with_options(base_url=f"{server.url}/{case}")
    messages = client.beta.messages if beta else client.messages
    text = ""
    partial_json: dict[int, str] = {}
    try:
        with messages.stream(model="m", max_tokens=64,
                             messages=[{"role": "user", "content": "hi"}]) as stream:
            for event in stream:
                if event.type == "text":
                    text += event.text
                elif event.type == "content_block_delta" and \
                        event.delta.type == "input_json_delta":
                    partial_json[event.index] = partial_json.get(event.index, "") + \
                        event.delta.partial_json
            final = stream.get_final_message()
    except anthropic.APIError as error:
        raise Raised(error, text) from error
    calls = []
    for index, block in enumerate(final.content):
        if block.type in ("tool_use", "server_tool_use", "mcp_tool_use"):
            # the SDK's ``input`` when the streamed arguments are a whole JSON
            # object; else the arguments as streamed (its ``input`` is then its
            # partial reading of them, a dict even of cut-off JSON)
            streamed = partial_json.get(index)
            whole = streamed is None or isinstance(_arguments(streamed), dict)
            calls.append((block.id, block.name, block.input if whole
                          else _arguments(streamed or "")))
    return {
        "text": "".join(block.text for block in final.content if block.type == "text"),
        "reasoning": "".join(block.thinking for block in final.content
                             if block.type == "thinking"),
        "refusal": None, "calls": calls,
        "finish": _word(ANTHROPIC_WORDS, final.stop_reason),
        "output_tokens": final.usage.output_tokens, "input_tokens": final.usage.input_tokens,
    }


def _read_gemini(server: ThreadedReplayServer, clients: dict[str, Any], case: str,
                 encoded: bytes) -> Summary:
    server.add(f"/v1beta/models/{case}:streamGenerateContent", encoded, chunk_size=97)
    text, thought, calls, word, usage = "", "", [], None, None
    try:
        for chunk in clients["gemini"].models.generate_content_stream(model=case,
                                                                       contents="hi"):
            usage = chunk.usage_metadata or usage
            for candidate in chunk.candidates or []:
                if candidate.index not in (None, 0):
                    continue
                word = candidate.finish_reason or word
                for part in (candidate.content.parts or []) if candidate.content else []:
                    call = part.function_call
                    if call is not None and call.name is not None:
                        calls.append((None, call.name, call.args or {}))
                    if call is not None and call.partial_args:  # Vertex's streamed arguments
                        _place(calls[-1][2], call.partial_args)
                    elif part.text and part.thought:
                        thought += part.text
                    elif part.text:
                        text += part.text
    except genai_errors.APIError as error:
        raise Raised(error, text) from error
    return {
        "text": text, "reasoning": thought, "refusal": None, "calls": calls,
        "finish": FinishReason.UNKNOWN if word is None
        else gemini_finish(word.value, tool_calls=bool(calls)),
        "output_tokens": None if usage is None else usage.candidates_token_count,
        "input_tokens": None if usage is None else usage.prompt_token_count,
    }


def _place(arguments: dict[str, Any], partial_args: list[Any]) -> None:
    """Vertex's streamed arguments as google-genai gives them (``partial_args``:
    a JSON path and a value each; a string's pieces share their path) set
    into the call's ``arguments``."""
    for partial in partial_args:
        steps = [int(step) if step.isdigit() else step for step in
                 partial.json_path.removeprefix("$.").replace("[", ".").replace("]", "")
                 .split(".")]
        holder: Any = arguments
        for step, following in itertools.pairwise(steps):
            if isinstance(holder, list):
                holder.extend([None] * (step + 1 - len(holder)))
                holder[step] = holder[step] if holder[step] is not None else \
                    ([] if isinstance(following, int) else {})
            else:
                holder = holder.setdefault(step, [] if isinstance(following, int) else {})
                continue
            holder = holder[step]
        last = steps[-1]
        value = next(value for value in (partial.string_value, partial.number_value,
                                         partial.bool_value) if value is not None) \
            if partial.null_value is None else None
        if isinstance(holder, list):
            holder.extend([None] * (last + 1 - len(holder)))
            holder[last] = value
        elif isinstance(value, str) and isinstance(holder.get(last), str):
            holder[last] += value
        else:
            holder[last] = value


def _read_ollama(server: ThreadedReplayServer, clients: dict[str, Any], case: str,
                 encoded: bytes) -> Summary:
    server.add(f"/{case}/api/chat", encoded, content_type="application/x-ndjson",
               chunk_size=97)
    parts = []
    with ollama.Client(host=f"{server.url}/{case}") as client:
        try:
            for part in client.chat(model="m", messages=[{"role": "user", "content": "hi"}],
                                    stream=True):
                parts.append(part)
        except ollama.ResponseError as error:
            raise Raised(error, "".join(part.message.content or "" for part in parts)) \
                from error
    calls = [(None, call.function.name, dict(call.function.arguments))
             for part in parts for call in part.message.tool_calls or []]
    last = parts[-1]
    return {
        "text": "".join(part.message.content or "" for part in parts),
        "reasoning": "".join(part.message.thinking or "" for part in parts),
        "refusal": None, "calls": calls,
        "finish": ollama_finish(last.done_reason if last.done else None,
                                tool_calls=bool(calls)),
        "output_tokens": last.eval_count, "input_tokens": last.prompt_eval_count,
    }


def _word(table: dict[str, FinishReason] | Any, word: str | None) -> FinishReason:
    """The uniform reason for the SDK's finish word, by the wire's own table
    (no word: ``unknown``, as a cut stream's)."""
    if word is None:
        return FinishReason.UNKNOWN
    return table.get(word, FinishReason.UNKNOWN)  # type: ignore[no-any-return]


READERS: dict[str, Callable[[ThreadedReplayServer, dict[str, Any], str, bytes], Summary]] = {
    "openai-chat": _read_openai_chat, "openai-responses": _read_openai_responses,
    "anthropic": _read_anthropic, "gemini": _read_gemini, "ollama": _read_ollama,
}


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
        stable = _read_anthropic(server, clients, case + "s", encoded)
        assert stable != _as_the_sdk_gives_it(want, target)  # the reason still holds
        read = functools.partial(_read_anthropic, beta=True)
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
            _read_anthropic(server, clients, case, encoded)
    else:
        with pytest.raises(pydantic.ValidationError, match="partialArgs"):
            _read_gemini(server, clients, case, encoded)


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
