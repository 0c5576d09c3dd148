"""An upstream that echoes the client's key back, however it writes it, shows
it to no caller: not in a stream's events, a ``create()`` answer, an error or
its partial, nor through the gateway (its caller's bytes and its log line).

Every wire, each with the key JSON-escaped every way JSON allows (and escaped
twice, as a tool call's arguments hold a JSON text), split across two and three
deltas, in an error body, an in-stream error, a tool call's arguments and a
field no wire defines (``support/key_echo.py`` writes them with the wires'
own encoders). The upstream is a :class:`~streamkit.testing.ReplayServer` on a
real socket, one per test, serving every case of the test in turn.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import httpx
import pytest
from support.key_echo import (
    ESCAPES,
    MASK,
    PROVIDERS,
    SECRET,
    SPLITS,
    answer_body,
    base_url,
    error_body,
    escaped,
    parts_answer_body,
    reveals_key,
    split_answer,
    stream_body,
    whole_stream_body,
    with_unknown_field,
    without_shown,
)

from streamkit import ProviderError, StreamError
from streamkit.client import Client
from streamkit.client.keys import ApiKey, Redactor, TextRedactor
from streamkit.conversation.messages import UserMessage
from streamkit.gateway import create_app
from streamkit.gateway.config import parse_config
from streamkit.model.response import ChatResponse
from streamkit.testing import ReplayServer, Reply

#: The calls' tests run once, on asyncio (the redaction is the same on trio).
ASYNCIO = pytest.mark.parametrize("anyio_backend", ["asyncio"])

CALLER_KEY = "sk-gateway-caller-echo-0123"
JSON = "application/json"


def client(server: ReplayServer, provider: str) -> Client:
    return Client(f"{provider}:m", api_key=SECRET, base_url=base_url(server.url, provider),
                  max_retries=0)


def shown(response: ChatResponse | None) -> list[Any]:
    """What a caller reads of a response: every block (tool arguments parsed and
    as sent), its metadata and its text."""
    if response is None:
        return []
    arguments = [getattr(block, "input", "") for block in response.content]
    return [response.to_dict(), response.text, *arguments]


async def streamed(chat: Client) -> tuple[list[Any], StreamError | None]:
    """What one streamed call shows: its events, the response (or the error and
    its partial)."""
    events: list[Any] = []
    try:
        async with chat.stream([UserMessage("hi")]) as stream:
            events += [event async for event in stream]
            return [*events, *shown(stream.response)], None
    except StreamError as error:
        return [*events, str(error), repr(error), getattr(error, "raw", None),
                *shown(error.partial)], error


async def created(chat: Client) -> tuple[list[Any], StreamError | None]:
    """What one ``create()`` shows: the answer, or the error and its partial."""
    try:
        return shown(await chat.create([UserMessage("hi")])), None
    except StreamError as error:
        return [str(error), repr(error), getattr(error, "raw", None),
                *shown(error.partial)], error


@pytest.mark.anyio
@ASYNCIO
@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_key_echoed_json_escaped_is_shown_nowhere(provider: str) -> None:
    """(a) escaped any way, (d) in a tool call's arguments, (e) in a field no wire
    defines: in a stream and in a whole answer."""
    async with ReplayServer() as server, client(server, provider) as chat:
        for how in ESCAPES:
            body, content_type = whole_stream_body(provider, how)
            server.add_sequence("*", [
                Reply(with_unknown_field(body, how), content_type=content_type),
                Reply(with_unknown_field(answer_body(provider, how), how), content_type=JSON)])
            for call in (streamed, created):
                seen, error = await call(chat)
                assert error is None and not reveals_key(*seen), (how, call.__name__)
                assert MASK in json.dumps(seen, default=repr)


@pytest.mark.anyio
@ASYNCIO
@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_key_echoed_split_across_deltas_is_shown_nowhere(provider: str) -> None:
    """(b) the key cut into two and three deltas of a text and of a tool call's
    arguments, each piece written plain or escaped; and into the parts of a
    whole answer that a decoder joins into one block."""
    async with ReplayServer() as server, client(server, provider) as chat:
        for pieces in SPLITS:
            for how in ("literal", "lower", "some"):
                body, content_type = stream_body(provider, split_answer(pieces), how, pieces)
                server.add("*", body, content_type=content_type)
                seen, error = await streamed(chat)
                assert error is None and not reveals_key(*seen), (pieces, how)
                texts = [without_shown(value) for value in seen if isinstance(value, str)]
                assert f"the key is {MASK} as sent" in texts  # the response's text
            server.add("*", parts_answer_body(provider, pieces), content_type=JSON)
            answer, error = await created(chat)  # a whole answer, its parts cut the key
            assert error is None and not reveals_key(answer[0]["content"]), pieces


@pytest.mark.anyio
@ASYNCIO
@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_key_echoed_in_an_error_is_shown_nowhere(provider: str) -> None:
    """(c) an error body, for a stream and ``create()``, and an in-stream error
    after a text that cut the key across deltas: the error and its partial."""
    async with ReplayServer() as server, client(server, provider) as chat:
        for how in ("literal", "solidus", "upper", "some"):
            status, body = error_body(provider, how)
            pieces = SPLITS[1]
            broken, content_type = stream_body(provider, split_answer(pieces, error=True), how,
                                               pieces)
            server.add_sequence("*", [Reply(body, status=status, content_type=JSON),
                                      Reply(body, status=status, content_type=JSON),
                                      Reply(broken, content_type=content_type)])
            for call in (streamed, created, streamed):
                seen, error = await call(chat)
                assert isinstance(error, ProviderError), (how, call.__name__)
                assert not reveals_key(*seen, error.message), (how, call.__name__)


# ---------------------------------------------------------------- the redactors alone


@pytest.mark.parametrize("how", ESCAPES)
def test_the_redactors_find_the_key_written_any_way_and_cut_anywhere(how: str) -> None:
    """The body's bytes and a block's decoded deltas: every cut into two and
    three parts, the key written ``how``, gives the key's printed form."""
    key = ApiKey(SECRET, "api_key=")
    written = escaped(SECRET, how)
    text = f"a {written} b {written}{written}"
    for cut in range(len(text) + 1):
        second = min(cut + 7, len(text))
        parts = [text[:cut], text[cut:second], text[second:]]
        in_bytes, in_text = Redactor(key), TextRedactor(key)
        got = b"".join(in_bytes.feed(part.encode()) for part in parts) + in_bytes.flush()
        assert got.decode() == f"a {MASK} b {MASK}{MASK}", (how, cut)
        got_text = "".join(in_text.feed(part, in_text.passed_end) for part in parts)
        got_text += in_text.flush()
        assert without_shown(got_text) == f"a {MASK} b {MASK}{MASK}", (how, cut)
        assert not reveals_key(got_text), (how, cut)


def test_a_text_redactor_holds_back_only_what_could_begin_the_key() -> None:
    redactor = ApiKey(SECRET, "api_key=").text_redactor()
    assert redactor.feed("the tokens") == "the tokens"  # "s": too short to hold, passed on
    assert not redactor.holding and redactor.passed_end == "ens"
    assert redactor.feed("k-echo/0123456789abcdefKEYQ!", "s") == MASK + "!"  # continued: masked
    assert redactor.feed("see sk-e") == "see " and redactor.holding  # four characters: held
    assert redactor.feed("cho and") == "sk-echo and" and not redactor.holding
    assert redactor.feed("sk-", "x") == "sk-" and redactor.passed_end == "xsk-"[-3:]  # shown
    assert redactor.feed("e", "sk-") == "" and redactor.feed("cho/0123456789abcdefKEYQ") == MASK
    assert redactor.feed("see \\u00") == "see "  # an escape begun, twice escaped
    assert redactor.feed("41 and \\") == "\\u0041 and " and redactor.holding
    assert redactor.flush() == "\\"  # fewer characters than a cut key: given back
    assert redactor.feed("sk-echo/01") == "" and redactor.flush() == MASK  # a cut key


# ---------------------------------------------------------------- through the gateway


def gateway_app(server: ReplayServer, provider: str) -> Any:
    return create_app(parse_config({
        "gateway": {"keys": [CALLER_KEY]},
        "models": {"echo": {"model": f"{provider}:m"}},
        "providers": {provider: {"base_url": base_url(server.url, provider),
                                 "api_key": SECRET}},
    }))


async def gateway_answers(server: ReplayServer, provider: str, calls: int) -> list[bytes]:
    """The bytes of ``calls`` calls through the gateway, each as an OpenAI Chat
    caller, streamed and not in turn."""
    answers = []
    async with httpx.AsyncClient(transport=httpx.ASGITransport(gateway_app(server, provider)),
                                 base_url="http://gateway") as caller:
        for number in range(calls):
            answer = await caller.post(
                "/v1/chat/completions", headers={"authorization": f"Bearer {CALLER_KEY}"},
                json={"model": "echo", "stream": number % 2 == 0,
                      "messages": [{"role": "user", "content": "hi"}]})
            answers.append(answer.content)
    return answers


@pytest.mark.anyio
@ASYNCIO
@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_key_echoed_upstream_reaches_no_gateway_caller_nor_log(
        provider: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    async with ReplayServer() as server:
        whole, content_type = whole_stream_body(provider, "some")
        pieces = SPLITS[1]
        split, _ = stream_body(provider, split_answer(pieces), "lower", pieces)
        broken, _ = stream_body(provider, split_answer(pieces, error=True), "upper", pieces)
        status, error = error_body(provider, "solidus")
        server.add_sequence("*", [
            Reply(with_unknown_field(whole, "twice"), content_type=content_type),
            Reply(answer_body(provider, "upper"), content_type=JSON),
            Reply(split, content_type=content_type),
            Reply(with_unknown_field(answer_body(provider, "lower"), "solidus"),
                  content_type=JSON),
            Reply(broken, content_type=content_type),
            Reply(error, status=status, content_type=JSON)])
        answers = await gateway_answers(server, provider, 6)
    assert all(answers) and not reveals_key(*answers)
    assert sum(b"<key from [providers." in answer for answer in answers) >= 4  # its mask
    assert caplog.records and not reveals_key(caplog.text)


@pytest.mark.anyio
@ASYNCIO
async def test_a_block_ending_while_another_holds_the_key_s_beginning_ends_cleanly() -> None:
    """A text block holds the key's first characters while a tool call opened
    before it (another block) ends first: the end of a block that held nothing looked up its held
    text and raised ``KeyError`` out of the stream (the gateway's campaign:
    215 callers' connections broken)."""
    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        return "data: " + json.dumps({"id": "c", "object": "chat.completion.chunk", "model": "m",
                                      "choices": [{"index": 0, "delta": delta,
                                                   "finish_reason": finish}]}) + "\n\n"

    call = {"index": 0, "id": "call_1", "type": "function",
            "function": {"name": "f", "arguments": "{}"}}
    body = (chunk({"role": "assistant", "tool_calls": [call]})
            + chunk({"content": "see " + SECRET[:5]}) + chunk({}, "tool_calls")
            + "data: [DONE]\n\n")
    async with ReplayServer() as server, client(server, "openai") as chat:
        server.add("*", body.encode(), content_type="text/event-stream")
        seen, error = await streamed(chat)
    assert error is None
    response = seen[-1] if isinstance(seen[-1], ChatResponse) else None
    texts = [value for value in seen if isinstance(value, str)]
    assert "see " + SECRET[:5] in texts, (texts, response)  # held, then given at the block's end
