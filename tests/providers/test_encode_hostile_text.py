"""Text that UTF-8 cannot carry or a line reader splits, written to every wire.

A ``str`` may hold a lone surrogate (a provider's JSON escape of half an
emoji reads as one): every encoder writes it as its JSON escape (``\\ud800``),
valid JSON that reads back as the same string, the same on every wire (not
replaced: nothing is lost). ``str.splitlines`` (ollama-python's NDJSON reader,
through httpx's line decoder) ends a line at CR, LF, VT, FF, FS, GS, RS,
U+0085, U+2028 and U+2029; the SSE readers (every SDK's, the browser's) at CR
and LF only. A response holding all of them in its text, its reasoning, its
tool arguments, its ids and its error message is written by
:func:`streamkit.encode_stream` to each of the five wires (Gemini's JSON array
form too), by :func:`streamkit.encode_response` as each wire's body and by
:func:`streamkit.encode_error`, and must come out as valid frames: UTF-8, no
line break but the framing's own, read back to the same text by streamkit's
own reader and, over a real socket (:class:`streamkit.testing.ReplayServer`),
by the wire's official SDK (``support/sdk_stream_readers.py``; ``ollama`` for
Ollama). The browser's UI message stream is held to the same in
``web/test_web.py`` (``test_no_content_can_forge_a_frame``).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from support.encode_matrix import TARGETS
from support.sdk_stream_readers import READERS, Raised

from streamkit import (
    ChatResponse,
    FinishReason,
    ProviderError,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    encode_error,
    encode_response,
    encode_stream,
    parse_response,
    replay,
)
from streamkit.framing.encoding import json_bytes
from streamkit.model.blocks import Citation
from streamkit.model.events import ErrorEvent, Event, ResponseEnd
from streamkit.model.replay import events_of
from streamkit.providers.anthropic.content import tool_id
from streamkit.testing import ThreadedReplayServer

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")
genai = pytest.importorskip("google.genai")
ollama = pytest.importorskip("ollama")

#: What each piece of content holds: a lone high and a lone low surrogate, the
#: three line separators, and a whole emoji beside them.
LONE_SURROGATES = "a\ud800b\udfffc \U0001f600 d\ud83d"
#: Every character a line reader splits on (``str.splitlines``' set).
LINE_BREAKS = ("\r", "\n", "\r\n", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028",
               "\u2029")
LINE_SEPARATORS = "one" + "".join(f"{line_break}{number}"
                                  for number, line_break in enumerate(LINE_BREAKS))
CONTENTS = {"lone-surrogates": LONE_SURROGATES, "line-separators": LINE_SEPARATORS,
            "both": LONE_SURROGATES + LINE_SEPARATORS}

#: The framings' own line ends (SSE's LF or Gemini's CRLF, NDJSON's LF, the
#: array form's ``,\r\n``): no other line break may be in a frame.
_FRAMING_LINE_ENDS = ("\r\n", "\n")

_case_numbers = itertools.count()


def hostile_response(content: str, *, escaped_arguments: bool = False) -> ChatResponse:
    """An answer holding ``content`` in its reasoning, its text and a tool
    call's argument (the argument JSON holding it raw, or as JSON escapes)."""
    arguments = json.dumps({"q": content}, ensure_ascii=escaped_arguments)
    return ChatResponse(
        content=[ThinkingBlock(thinking="think " + content),
                 TextBlock(text="say " + content),
                 ToolCallBlock("call_1", "lookup", arguments)],
        finished_reason=FinishReason.TOOL_CALLS, terminated=True)


def _same_meaning(text: str) -> str:
    """``text`` as JSON reads it back: itself, a high and a low surrogate side
    by side read as the one character they are the pair of (none here)."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _assert_valid_frames(written: bytes) -> None:
    """Valid UTF-8; no line break a reader would split on but the framing's own."""
    text = written.decode("utf-8")  # strict: a surrogate would have to be its escape
    for line_end in _FRAMING_LINE_ENDS:
        text = text.replace(line_end, "")
    assert not [line_break for line_break in LINE_BREAKS if line_break in text]


def _assert_same_content(response: ChatResponse, content: str) -> None:
    assert response.thinking == _same_meaning("think " + content)
    assert response.text == _same_meaning("say " + content)
    assert [call.arguments() for call in response.tool_calls] == [{"q": _same_meaning(content)}]


# ---------------------------------------------------------------- streams


STREAMS = [(target, options) for target in TARGETS
           for options in ([{}, {"array": True}] if target == "gemini" else [{}])]


def _stream_id(case: tuple[str, dict[str, Any]]) -> str:
    target, options = case
    return target + ("-array" if options else "")


@pytest.mark.parametrize("escaped_arguments", [False, True], ids=["raw", "escaped"])
@pytest.mark.parametrize("content", CONTENTS, ids=list(CONTENTS))
@pytest.mark.parametrize("case", STREAMS, ids=[_stream_id(case) for case in STREAMS])
def test_a_stream_holding_it_is_valid_and_streamkit_reads_the_same_text(
        case: tuple[str, dict[str, Any]], content: str, escaped_arguments: bool) -> None:
    target, options = case
    response = hostile_response(CONTENTS[content], escaped_arguments=escaped_arguments)
    written = b"".join(encode_stream(TARGETS[target], response, **options))
    _assert_valid_frames(written)
    read = replay(written, TARGETS[target])[1]
    _assert_same_content(read, CONTENTS[content])
    assert ChatResponse.from_json(read.to_json()) == read  # what was read can be kept


#: (target, content) -> why the wire's official SDK cannot read the tool
#: arguments of that stream (its text and reasoning it reads): checked to fail
#: as said, so an SDK that learns to read them fails the test until taken off.
SDK_CANNOT_READ_ARGUMENTS = {
    ("anthropic", name): "anthropic's stream helper parses input_json_delta with jiter, "
    "which refuses the JSON escape of a lone surrogate (ValueError 'Unable to parse tool "
    "parameter JSON'); the raw one it could not even encode as UTF-8"
    for name in ("lone-surrogates", "both")
}


@pytest.mark.parametrize("content", CONTENTS, ids=list(CONTENTS))
@pytest.mark.parametrize("target", TARGETS)
def test_the_official_sdk_reads_a_stream_holding_it_to_the_same_text(
        target: str, content: str, server: ThreadedReplayServer,
        clients: dict[str, Any]) -> None:
    response = hostile_response(CONTENTS[content])
    read = READERS[target]
    want = _same_meaning(CONTENTS[content])
    if (target, content) in SDK_CANNOT_READ_ARGUMENTS:
        written = b"".join(encode_stream(TARGETS[target], response))
        with pytest.raises(ValueError, match="Unable to parse tool parameter JSON"):
            read(server, clients, f"h{next(_case_numbers)}", written)
        response.content.pop()  # the call: the rest it reads
    written = b"".join(encode_stream(TARGETS[target], response))
    got = read(server, clients, f"h{next(_case_numbers)}", written)
    assert (got["text"], got["reasoning"]) == ("say " + want, "think " + want)
    calls = [] if (target, content) in SDK_CANNOT_READ_ARGUMENTS else [{"q": want}]
    assert [arguments for _, _, arguments in got["calls"]] == calls


# ---------------------------------------------------------------- bodies


def _read_openai_chat(url: str, path: str) -> tuple[str, str, list[Any]]:
    with openai.OpenAI(base_url=f"{url}/{path}/v1", api_key="k", max_retries=0) as client:
        message = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}]).choices[0].message
    return (message.content or "", getattr(message, "reasoning_content", ""),
            [json.loads(call.function.arguments) for call in message.tool_calls or []])


def _read_openai_responses(url: str, path: str) -> tuple[str, str, list[Any]]:
    with openai.OpenAI(base_url=f"{url}/{path}/v1", api_key="k", max_retries=0) as client:
        answer = client.responses.create(model="m", input="hi")
    thinking = "".join(part.text for item in answer.output if item.type == "reasoning"
                       for part in item.summary)
    calls = [json.loads(item.arguments) for item in answer.output
             if item.type == "function_call"]
    return answer.output_text, thinking, calls


def _read_anthropic(url: str, path: str) -> tuple[str, str, list[Any]]:
    with anthropic.Anthropic(base_url=f"{url}/{path}", api_key="k", max_retries=0) as client:
        message = client.messages.create(model="m", max_tokens=64,
                                         messages=[{"role": "user", "content": "hi"}])
    return ("".join(block.text for block in message.content if block.type == "text"),
            "".join(block.thinking for block in message.content if block.type == "thinking"),
            [block.input for block in message.content if block.type == "tool_use"])


def _read_gemini(url: str, path: str) -> tuple[str, str, list[Any]]:
    from google.genai import types

    client = genai.Client(api_key="k", http_options=types.HttpOptions(
        base_url=f"{url}/{path}", api_version="v1beta",
        retry_options=types.HttpRetryOptions(attempts=1)))
    with client:
        answer = client.models.generate_content(model="m", contents="hi")
    parts = answer.candidates[0].content.parts  # type: ignore[index, union-attr]
    return ("".join(part.text for part in parts if part.text and not part.thought),
            "".join(part.text for part in parts if part.text and part.thought),
            [part.function_call.args for part in parts if part.function_call])


def _read_ollama(url: str, path: str) -> tuple[str, str, list[Any]]:
    with ollama.Client(host=f"{url}/{path}") as client:
        message = client.chat(model="m", messages=[{"role": "user", "content": "hi"}]).message
    return (message.content or "", message.thinking or "",
            [dict(call.function.arguments) for call in message.tool_calls or []])


#: Each wire's official client, reading a non-streamed answer: (the route the
#: body is served on, below the case's own path prefix; the reader).
BODY_READERS: dict[str, tuple[str, Callable[[str, str], tuple[str, str, list[Any]]]]] = {
    "openai-chat": ("/v1/chat/completions", _read_openai_chat),
    "openai-responses": ("/v1/responses", _read_openai_responses),
    "anthropic": ("/v1/messages", _read_anthropic),
    "gemini": ("/v1beta/models/m:generateContent", _read_gemini),
    "ollama": ("/api/chat", _read_ollama),
}


@pytest.fixture(scope="module")
def body_server() -> Iterator[ThreadedReplayServer]:
    from streamkit.testing import ReplayServer

    with ReplayServer.in_thread() as running:
        yield running
        assert not running.errors


@pytest.mark.parametrize("content", CONTENTS, ids=list(CONTENTS))
@pytest.mark.parametrize("target", TARGETS)
def test_a_body_holding_it_is_valid_and_read_to_the_same_text(
        target: str, content: str, body_server: ThreadedReplayServer) -> None:
    """The body is served as the gateway serves one (the one JSON rule)."""
    written = json_bytes(encode_response(TARGETS[target], hostile_response(CONTENTS[content])))
    _assert_valid_frames(written)
    _assert_same_content(parse_response(TARGETS[target], written), CONTENTS[content])
    path = f"b{next(_case_numbers)}"
    route, read = BODY_READERS[target]
    body_server.add(f"/{path}{route}", written, content_type="application/json")
    want = _same_meaning(CONTENTS[content])
    assert read(body_server.url, path) == ("say " + want, "think " + want, [{"q": want}])


# ---------------------------------------------------------------- every string a wire writes


def _everywhere(content: str) -> ChatResponse:
    """``content`` in every string of an answer a wire writes: the response's
    id and model, reasoning and its signature, text and a citation, a call's
    id and arguments."""
    return ChatResponse(
        id="resp" + content, model="model" + content,
        content=[ThinkingBlock(thinking="think " + content, signature="sig" + content),
                 TextBlock(text="say " + content, citations=[Citation(
                     url="https://example.com/" + content, title="title" + content,
                     cited_text="cited" + content, start=0, end=3)]),
                 ToolCallBlock("call" + content, "lookup", json.dumps({"q": content}))],
        finished_reason=FinishReason.TOOL_CALLS, terminated=True)


def _failing(response: ChatResponse, message: str) -> list[Event]:
    """``response``'s events with an in-stream error holding ``message`` before its end."""
    events = list(events_of(response))
    assert type(events[-1]) is ResponseEnd
    return [*events[:-1], ErrorEvent(message=message, status=500),
            ResponseEnd(finish_reason=FinishReason.ERROR)]


#: The call id each wire gives back of a call written with ``call_id``
#: (Anthropic's pattern refuses most characters: a stable id it accepts).
_CALL_IDS: dict[str, Callable[[str], str]] = {"anthropic": tool_id}


@pytest.mark.parametrize("content", CONTENTS, ids=list(CONTENTS))
@pytest.mark.parametrize("case", STREAMS, ids=[_stream_id(case) for case in STREAMS])
def test_every_string_a_wire_writes_is_valid_in_its_frames(
        case: tuple[str, dict[str, Any]], content: str) -> None:
    """Stream, body and error body: valid frames; the error message and the
    call id read back as they were (the text as above)."""
    target, options = case
    provider, text = TARGETS[target], CONTENTS[content]
    response = _everywhere(text)
    written = b"".join(encode_stream(provider, _failing(response, "failed " + text), **options))
    _assert_valid_frames(written)
    with pytest.raises(ProviderError) as raised:
        replay(written, provider)
    assert raised.value.message == _same_meaning("failed " + text)
    partial = raised.value.partial
    assert partial is not None and partial.text == _same_meaning("say " + text)
    call_id = _CALL_IDS.get(target, str)("call" + text)
    assert [call.id for call in partial.tool_calls] == [_same_meaning(call_id)]
    body = json_bytes(encode_response(provider, response))
    _assert_valid_frames(body)
    assert [call.id for call in parse_response(provider, body).tool_calls] == \
        [_same_meaning(call_id)]
    error = encode_error(provider, ErrorEvent(message="failed " + text), status=500)
    _assert_valid_frames(json_bytes(error.body))


def _sdk_error_message(target: str, error: Exception) -> Any:
    """The message an SDK's exception carries, as the SDK gives it."""
    if target == "anthropic":
        return error.body["error"]["message"]  # type: ignore[attr-defined]
    if target == "ollama":
        return error.error  # type: ignore[attr-defined]
    return error.message  # type: ignore[attr-defined]


@pytest.mark.parametrize("target", TARGETS)
def test_the_official_sdk_raises_an_in_stream_error_with_its_message_whole(
        target: str, server: ThreadedReplayServer, clients: dict[str, Any]) -> None:
    message = "failed " + CONTENTS["both"]
    answer = ChatResponse(content=[TextBlock(text="say")], terminated=True)
    written = b"".join(encode_stream(TARGETS[target], _failing(answer, message)))
    with pytest.raises(Raised) as raised:
        READERS[target](server, clients, f"e{next(_case_numbers)}", written)
    assert _sdk_error_message(target, raised.value.error) == _same_meaning(message)
    assert raised.value.text == "say"
