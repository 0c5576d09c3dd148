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
import contextlib
import itertools
import json
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
from streamkit.gateway.upstream import UpstreamTransport
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
FAULTS = ["redirect", "empty", "zero", "cut", "unended", "cutjson", "hungafter",
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


def _posted(url: str, count: int) -> list[httpx.Response]:
    """``count`` calls one after the other through the gateway's upstream
    transport, its pool held open between them as the gateway's lifespan holds it."""
    async def calls() -> list[httpx.Response]:
        transport = UpstreamTransport()
        async with transport.held(), httpx.AsyncClient(transport=transport) as http:
            return [await http.post(url + "/v1/x", content=b'{"n": %d}' % n)
                    for n in range(count)]
    return asyncio.run(calls())


@pytest.mark.parametrize("dropped", ["close when asked again", "reset when asked again"])
def test_a_request_a_kept_alive_connection_dropped_is_sent_again_on_a_new_one(
        dropped: str) -> None:
    """The upstream keeps a connection alive after its answer, then closes it
    (FIN or RST) unanswered when the next request comes on it: what a server
    closing idle connections does to a request that crosses its close. Nothing
    came back, so the request is sent again at once on a new connection, no
    failed attempt (was: the attempt failed as 'ConnectTimeout: Server
    disconnected' or '[Errno None] Can not write request body', the client
    waited and retried, and three such in a row were a 502: issue 31's
    campaign, AnswerLost)."""
    body = b'{"ok": true}'
    answer = Answer([head(200, [("content-type", "application/json"),
                                ("content-length", str(len(body)))]) + body], then=dropped)
    with FaultServer(answer) as fault:
        answers = _posted(fault.url, 2)
        requests = [connection.request for connection in fault.connections]
    assert [(answer.status_code, answer.content) for answer in answers] == [(200, body)] * 2
    assert [request.rpartition(b"\r\n\r\n")[2] for request in requests] == [b'{"n": 0}',
                                                                           b'{"n": 1}']


@pytest.mark.parametrize(("end", "named"), [("close", httpx.RemoteProtocolError),
                                            ("reset", httpx.ReadError)])
def test_a_new_connection_closed_unanswered_is_named_so_and_not_sent_again(
        end: str, named: type[httpx.TransportError]) -> None:
    """A new connection the upstream closes (FIN) or resets after reading the
    request, with no answer: httpx's error for it (the server disconnected, a
    read that failed), not a ``ConnectTimeout`` (aiohttp's transport calls every
    connection error so: the caller's 502 said it), and never sent again by
    the transport (the client's retry policy decides)."""
    with FaultServer(Answer([], then=end)) as fault, pytest.raises(named) as info:
        _posted(fault.url, 1)
    assert len(fault.connections) == 1
    assert not isinstance(info.value, httpx.TimeoutException)


@pytest.mark.parametrize("stream", [False, True])
def test_a_caller_who_leaves_before_the_answer_ends_its_upstream_call(stream: bool) -> None:
    """The caller gives up while the upstream has not begun its answer: the
    gateway closes the upstream call at once, and tries no other (was: it
    waited out the upstream's read timeout, then retried twice, for nobody,
    each a generation an upstream bills; the campaign's callers who gave up
    tripled the gateway's upstream calls)."""
    with FaultServer(Answer([b"", b""], pause=30)) as fault:  # silent for 30 s
        config = parse_config({
            "gateway": {"keys": [KEY]}, "timeouts": {"upstream_read": 30},
            "models": {"m": {"model": "openai:hangs"}},
            "providers": {"openai": {"base_url": fault.url + "/v1", "api_key": "sk-up-1"}}})
        with serving(create_app(config)) as url:
            asyncio.run(_leave_once_asked(url, fault, stream))
            assert fault.wait_all_closed(timeout=10)  # its answer hangs until the gateway goes
            assert len(fault.connections) == 1


async def _leave_once_asked(url: str, fault: FaultServer, stream: bool) -> None:
    """A call whose caller leaves (closes its connection) once the upstream has
    read the gateway's request."""
    async with httpx.AsyncClient(timeout=30) as http:
        call = asyncio.ensure_future(http.post(
            url + "/v1/chat/completions", headers={"authorization": f"Bearer {KEY}"},
            json={"model": "m", "stream": stream, "messages": [{"role": "user", "content": "hi"}]}))
        for _ in range(2000):
            if fault.connections and fault.connections[0].request:
                break
            await asyncio.sleep(0.01)
        call.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await call
