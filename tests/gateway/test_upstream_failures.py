"""Upstream failures that must never reach a caller as answers (issue 31,
findings 3 and 7). The upstream is a raw-socket server (``fault_server``)
that answers by the model asked: another wire's answer (all 20 wire pairs,
streamed and not), a redirect, an empty 200, a stream with no event, a stream
cut after its first content. Before the first byte each is the caller's wire's
502 error body; a stream cut after content ends with the caller's wire's
error, which its official SDK raises (Gemini's JSON array closed, its last
item the error)."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import re
from collections.abc import Iterator

import httpx
import pytest
from support.asgi_server import serving
from support.fault_server import Answer, FaultServer, head

from streamkit import (
    ChatResponse,
    FinishReason,
    ProviderError,
    TextBlock,
    encode_error,
    encode_response,
    encode_stream,
    replay,
)
from streamkit.gateway import create_app
from streamkit.gateway.config import parse_config
from streamkit.providers.wire_format import WIRE_NAMES

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")
genai = pytest.importorskip("google.genai")
ollama = pytest.importorskip("ollama")

KEY = "sk-gateway-no-answer-0123456789"
#: Each wire: the registry provider the gateway calls it as, its base URL path.
UPSTREAMS = {"openai-chat": ("openai", "/v1"), "openai-responses": ("openai-responses", "/v1"),
             "anthropic": ("anthropic", "/v1"), "gemini": ("gemini", "/v1beta"),
             "ollama": ("ollama", "")}
ANSWER = ChatResponse(content=[TextBlock(id="t", text="hello there, this is the answer")],
                      model="m", terminated=True)
#: The same answer, but it says why it stopped (a finish reason before the end marker).
STOPPED = ChatResponse(content=ANSWER.content, model="m", terminated=True,
                       finished_reason=FinishReason.LENGTH)
#: Seconds the gateway waits for an upstream that says nothing (``hungafter``).
UPSTREAM_READ = 1.0
#: OpenAI Chat's stream of :data:`ANSWER`, whole.
ANSWERED = b"".join(encode_stream("openai-chat", ANSWER))
FAULTS = ["redirect", "empty", "zero", "cut", "unended", "cutjson", "closing", "hungafter",
          *(f"wrong-{wire}" for wire in WIRE_NAMES)]


def _cut_after_first_content(wire: str) -> bytes:
    """``wire``'s stream of :data:`ANSWER`, up to the end of the event that
    carries its text: content, and no end."""
    whole = b"".join(encode_stream(wire, ANSWER))
    at = whole.index(b"hello")
    end = re.compile(rb"\n" if wire == "ollama" else rb"\r?\n\r?\n").search(whole, at)
    assert end is not None
    return whole[:end.end()]


def _without_its_end_marker(wire: str) -> bytes:
    """``wire``'s stream of :data:`STOPPED` but its last event: for OpenAI
    Chat and Anthropic, whose finish reason comes before their end marker
    (``[DONE]``, ``message_stop``), a stream that says why it stopped and was
    then cut."""
    frames = b"".join(encode_stream(wire, STOPPED)).split(b"\n\n")
    return b"\n\n".join(frames[:-2]) + b"\n\n"


def _upstream(request: bytes) -> Answer:
    """The fault the model asked names, in the wire of the path asked."""
    wire = ("gemini" if b"/models/" in request else "ollama" if b"/api/" in request
            else "anthropic" if b"/messages" in request
            else "openai-responses" if b"/responses" in request else "openai-chat")
    said = request.replace(b" ", b"")
    streamed = b'"stream":true' in said or b"streamGenerateContent" in said or (
        wire == "ollama" and b'"stream":false' not in said)  # Ollama streams unless told
    fault = re.search(rb"fault-([a-z-]+)", request)
    assert fault is not None, request[:300]
    name = fault.group(1).decode()
    kind = "text/event-stream" if streamed else "application/json"
    if name == "redirect":
        return Answer([head(307, [("location", f"https://elsewhere.example/x?key={KEY}"),
                                  ("content-length", "0"), ("connection", "close")])])
    body = {"empty": b"", "zero": b": keep-alive\n\n" if streamed else b""}.get(name)
    if name == "cut":
        body = _cut_after_first_content(wire)
    elif name == "unended":
        body = _without_its_end_marker(wire)
    elif name == "cutjson":  # cut inside its last event's JSON
        whole = b"".join(encode_stream(wire, STOPPED))
        body = whole[:whole.rindex(b'{"') + 4]
    elif name.startswith("wrong-"):
        other = name.removeprefix("wrong-")
        body = (b"".join(encode_stream(other, ANSWER)) if streamed
                else json.dumps(encode_response(other, ANSWER)).encode())
    if name == "hungafter":  # whole, then the connection held open, silent
        whole = b"".join(encode_stream(wire, STOPPED))
        return Answer([head(200, [("content-type", kind)]) + whole], then="hang")
    if name == "closing":  # whole, kept alive by its headers, closed at once all the same
        return Answer([head(200, [("content-type", kind), ("content-length", str(len(ANSWERED)))])
                       + ANSWERED])
    assert body is not None
    return Answer([head(200, [("content-type", kind), ("content-length", str(len(body))),
                              ("connection", "close")]), body])


@pytest.fixture(scope="module")
def gateway() -> Iterator[str]:
    with FaultServer(_upstream) as fault:
        config = parse_config({
            "gateway": {"keys": [KEY]},
            "timeouts": {"upstream_read": UPSTREAM_READ},
            "models": {f"{wire}-{name}": {"model": f"{provider}:fault-{name}"}
                       for wire, (provider, _) in UPSTREAMS.items() for name in FAULTS},
            "providers": {provider: {"base_url": fault.url + path, "api_key": "sk-up-1"}
                          for provider, path in UPSTREAMS.values()},
        })
        with serving(create_app(config)) as url:
            yield url


def _ask(url: str, caller: str, model: str, *, stream: bool, array: bool = False
         ) -> httpx.Response:
    """One raw call in the caller's wire."""
    user = [{"role": "user", "content": "hi"}]
    path, body = {
        "openai-chat": ("/v1/chat/completions", {"model": model, "messages": user}),
        "openai-responses": ("/v1/responses", {"model": model, "input": "hi"}),
        "anthropic": ("/v1/messages", {"model": model, "max_tokens": 16, "messages": user}),
        "ollama": ("/api/chat", {"model": model, "messages": user}),
        "gemini": (f"/v1beta/models/{model}:"
                   + (("streamGenerateContent" + ("" if array else "?alt=sse")) if stream
                      else "generateContent"),
                   {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}),
    }[caller]
    if caller != "gemini":
        body["stream"] = stream
    return httpx.post(url + path, json=body, headers={"authorization": f"Bearer {KEY}"},
                      timeout=30)


def _assert_the_callers_502(answer: httpx.Response, caller: str) -> None:
    assert answer.status_code == 502, (caller, answer.status_code, answer.text[:300])
    shape = encode_error(caller, "x", status=502).body
    body = answer.json()
    assert body.keys() == shape.keys() and type(body["error"]) is type(shape["error"]), body
    assert KEY not in answer.text


#: Every ordered pair of wires (upstream, body of another wire), with the caller's
#: wire taken in turn and streamed or not in turn: each caller meets each kind,
#: each upstream is read both ways (the body check itself is every pair's, both
#: ways, in tests/providers/test_body_shapes.py and tests/reading).
PAIRS = [(upstream, other, WIRE_NAMES[n % 5], n % 2 == 1) for n, (upstream, other)
         in enumerate(itertools.permutations(WIRE_NAMES, 2))]


@pytest.mark.parametrize(("upstream", "other", "caller", "stream"), PAIRS)
def test_another_wires_answer_upstream_is_the_callers_502(
        gateway: str, upstream: str, other: str, caller: str, stream: bool) -> None:
    answer = _ask(gateway, caller, f"{upstream}-wrong-{other}", stream=stream)
    _assert_the_callers_502(answer, caller)


#: Each fault, streamed and not, with the callers' and the upstreams' wires in turn.
NO_ANSWERS = [(fault, stream, WIRE_NAMES[n % 5], WIRE_NAMES[(n + 2) % 5]) for n, (fault, stream)
              in enumerate(itertools.product(["redirect", "empty", "zero"], [False, True]))]


@pytest.mark.parametrize(("fault", "stream", "caller", "upstream"), NO_ANSWERS)
def test_no_answer_upstream_is_the_callers_502(gateway: str, fault: str, stream: bool,
                                               caller: str, upstream: str) -> None:
    answer = _ask(gateway, caller, f"{upstream}-{fault}", stream=stream)
    _assert_the_callers_502(answer, caller)
    if fault == "redirect":
        assert "307" in answer.text and "https://elsewhere.example/x" in answer.text


def _read_with_the_sdk(url: str, caller: str, model: str) -> str:
    """The caller's official SDK reading the stream to its end: its text."""
    user = [{"role": "user", "content": "hi"}]
    if caller == "openai-chat":
        chat = openai.OpenAI(base_url=url + "/v1", api_key=KEY, max_retries=0)
        with chat.chat.completions.stream(model=model, messages=user) as events:
            return events.get_final_completion().choices[0].message.content or ""
    if caller == "openai-responses":
        responses = openai.OpenAI(base_url=url + "/v1", api_key=KEY, max_retries=0)
        with responses.responses.stream(model=model, input="hi") as events:
            return events.get_final_response().output_text
    if caller == "anthropic":
        messages = anthropic.Anthropic(base_url=url, api_key=KEY, max_retries=0)
        with messages.messages.stream(model=model, max_tokens=16, messages=user) as events:
            return events.get_final_text()
    if caller == "gemini":
        google = genai.Client(api_key=KEY, http_options={"base_url": url})
        return "".join(chunk.text or "" for chunk in
                       google.models.generate_content_stream(model=model, contents="hi"))
    local = ollama.Client(host=url, headers={"authorization": f"Bearer {KEY}"})
    return "".join(part.message.content or "" for part in
                   local.chat(model=model, messages=user, stream=True))


@pytest.mark.parametrize("caller", WIRE_NAMES)
def test_a_stream_cut_upstream_is_an_error_for_the_callers_sdk(gateway: str,
                                                               caller: str) -> None:
    upstream = WIRE_NAMES[(WIRE_NAMES.index(caller) + 2) % 5]
    with pytest.raises(Exception) as caught:
        text = _read_with_the_sdk(gateway, caller, f"{upstream}-cut")
        pytest.fail(f"the SDK read a cut stream as an answer: {text!r}")
    assert "incomplete" in str(caught.value) or "ended before its end" in str(caught.value), (
        type(caught.value), caught.value)


@pytest.mark.parametrize("caller", WIRE_NAMES)
def test_a_stream_that_said_why_it_stopped_but_lost_its_end_marker_is_an_error(
        gateway: str, caller: str) -> None:
    upstream = ["anthropic", "openai-chat"][WIRE_NAMES.index(caller) % 2]
    answer = _ask(gateway, caller, f"{upstream}-unended", stream=True)
    assert answer.status_code == 200 and b"hello" in answer.content
    with pytest.raises(ProviderError, match="ended before its end"):
        replay(answer.content, caller)


@pytest.mark.parametrize("wire", WIRE_NAMES)
def test_an_upstream_event_cut_is_not_written_to_a_caller_of_its_wire(gateway: str,
                                                                       wire: str) -> None:
    answer = _ask(gateway, wire, f"{wire}-cutjson", stream=True)
    assert answer.status_code == 200 and b"hello" in answer.content
    assert b"truncated_payload" not in answer.content, answer.text
    with pytest.raises(ProviderError, match="ended before its end"):
        replay(answer.content, wire)


#: A stream cut after its first content from each wire, and one cut after its
#: finish reason (an Anthropic stream without ``message_stop``).
ARRAY_FAULTS = [*(f"{wire}-cut" for wire in WIRE_NAMES), "anthropic-unended"]


@pytest.mark.parametrize("model", ARRAY_FAULTS)
def test_gemini_s_array_is_closed_by_its_error_when_the_upstream_fails(gateway: str,
                                                                       model: str) -> None:
    answer = _ask(gateway, "gemini", model, stream=True, array=True)
    assert answer.status_code == 200
    items = json.loads(answer.content)  # valid JSON: the array is closed
    assert "hello" in json.dumps(items[0]) and "ended before its end" in json.dumps(items[-1])
    assert list(items[-1]) == ["error"]


def test_a_kept_alive_connection_the_upstream_closed_costs_no_attempt(
        gateway: str, caplog: pytest.LogCaptureFixture) -> None:
    """An upstream that closes each connection after its answer without saying
    so (no ``connection: close``; servers close idle connections so): a call
    the pool handed such a connection could not be written, and is sent again
    at once on a new one, never a failed attempt (a retry after a wait, a 502
    after three). Main failed ~15% of these attempts (issue 31's campaign:
    AnswerLost, 'Can not write request body')."""
    async def calls() -> list[httpx.Response]:
        user = [{"role": "user", "content": "hi"}]
        async with httpx.AsyncClient(timeout=30) as http:
            answers: list[httpx.Response] = []
            for _ in range(3):  # waves: the connections of one kept for the next
                answers += await asyncio.gather(*(http.post(
                    gateway + "/v1/chat/completions", headers={"authorization": f"Bearer {KEY}"},
                    json={"model": "openai-chat-closing", "messages": user, "stream": True})
                    for _ in range(32)))
            return answers

    with caplog.at_level(logging.INFO, logger="streamkit.client"):
        answers = asyncio.run(calls())
    assert all(answer.status_code == 200 and b"hello there" in answer.content
               for answer in answers)
    failed = [record.getMessage() for record in caplog.records if "failed" in record.getMessage()]
    # a new connection can meet the race too, more often on a loaded machine
    # (5 of 64 seen there); before the resend about a third of the calls failed one
    assert len(failed) <= 8, failed[:3]


@pytest.mark.parametrize("caller", ["gemini", "openai-chat"])
def test_a_whole_stream_whose_connection_then_hangs_is_the_whole_answer(gateway: str,
                                                                        caller: str) -> None:
    """The upstream's stream came whole, to its wire's end (Ollama's ``done``),
    and then its connection stayed open, silent, until the gateway's read
    timeout: the answer is whole, the caller gets it (was the caller's error
    after it: the campaign's AnswerLost, 'hang in body')."""
    answer = _ask(gateway, caller, "ollama-hungafter", stream=True)
    assert answer.status_code == 200
    read = replay(answer.content, caller)[1]  # no error in it
    assert read.text == ANSWER.text and read.terminated
