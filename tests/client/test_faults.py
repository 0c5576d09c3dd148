"""The client under faults, against a raw-socket server that breaks the rules
(``tests/support/fault_server.py``): the total timeout in every phase, a body whose
content encoding does not decode, ``create()``'s partial answers and body
limit, and a key that a server echoes back.

Times are bounds, never exact: the machine is shared and loaded, so each
bound is several times what the call needs, and far below what the fault
cost before (a trickled head of 120 bytes took 30 s under a 1 s total).
"""

from __future__ import annotations

import contextlib
import gzip
import json
import logging
import re
import socket
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest
from support.client_calls import CALL_KINDS, JSON, SECRET, SSE, call, headers
from support.fault_server import Answer, FaultServer, head, trickle

import streamkit
from streamkit import (
    IncompleteStreamError,
    LimitExceeded,
    NoResponseError,
    ProtocolError,
    ProviderError,
    StreamError,
)
from streamkit.client import Client, SyncClient, Timeouts
from streamkit.client.keys import ApiKey, Redactor
from streamkit.model.vendors import ProviderConfigError


def chat_chunk(content: str) -> bytes:
    payload = {"id": "c", "object": "chat.completion.chunk", "model": "m",
               "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": None}]}
    return b"data: " + json.dumps(payload).encode() + b"\n\n"


def chat_answer(content: str) -> bytes:
    return json.dumps({"id": "chatcmpl-1", "object": "chat.completion", "model": "m",
                       "choices": [{"index": 0, "finish_reason": "stop", "message": {
                           "role": "assistant", "content": content}}]}).encode()



# ---------------------------------------------------------------- the total timeout


TOTAL = Timeouts(connect=30, read=30, write=30, pool=30, total=1.0)
#: A call under TOTAL ends within this (it took 13-30 s before, for the same faults).
BOUND = 6.0


@pytest.mark.parametrize("kind", CALL_KINDS)
def test_headers_trickled_one_byte_at_a_time_end_at_the_total_timeout(kind: str) -> None:
    answer = Answer(trickle(head(200, headers(SSE, x_padding="p" * 100))), pause=0.25)
    with FaultServer(answer) as server:
        error, _, took = call(kind, server.url, timeout=TOTAL)
        assert server.wait_all_left()  # the connection is closed, not left hanging
    assert type(error) is NoResponseError and "total timeout" in str(error)
    assert took < BOUND and error.partial is not None and error.partial.content == []


@pytest.mark.parametrize("kind", CALL_KINDS)
def test_an_error_body_trickled_ends_at_the_total_timeout_with_what_came(kind: str) -> None:
    body = json.dumps({"error": {"message": "overloaded, " + "x" * 2000}}).encode()
    answer = Answer([head(500, headers(JSON, content_length=str(len(body)))), *trickle(body)],
                    pause=0.005)  # 10 s at least: cut by the total timeout
    with FaultServer(answer) as server:
        error, _, took = call(kind, server.url, timeout=TOTAL)
    assert type(error) is ProviderError and error.status == 500 and took < BOUND
    assert error.message.startswith("overloaded, x") and "cut at" in error.message


@pytest.mark.parametrize("kind", CALL_KINDS)
def test_a_body_trickled_ends_at_the_total_timeout_with_its_partial(kind: str) -> None:
    body = chat_answer("Hello there, " + "word " * 300) if kind.endswith("create") \
        else chat_chunk("Hello") + b"".join(chat_chunk(" word") for _ in range(300))
    kind_headers = JSON if kind.endswith("create") else SSE
    answer = Answer([head(200, headers(kind_headers)), body[:200], *trickle(body[200:])],
                    pause=0.05)
    with FaultServer(answer) as server:
        error, _, took = call(kind, server.url, timeout=TOTAL)
    assert type(error) is IncompleteStreamError and "total timeout" in str(error)
    assert took < BOUND and error.partial is not None
    assert error.partial.text.startswith("Hello") and error.partial.finished_reason == "interrupted"


@pytest.fixture
def full_backlog() -> Iterator[int]:
    """A port whose listener never accepts and whose backlog is full: a new
    connection's handshake is never answered (the kernel drops its SYN)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    fillers = []
    for _ in range(4):
        filler = socket.socket()
        filler.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            filler.connect(("127.0.0.1", port))
        fillers.append(filler)
    yield port
    for filler in fillers:
        filler.close()
    listener.close()


@pytest.mark.parametrize("kind", ["Client.create", "SyncClient.stream"])
def test_a_connect_that_hangs_ends_at_the_total_timeout(kind: str, full_backlog: int) -> None:
    error, _, took = call(kind, f"http://127.0.0.1:{full_backlog}", timeout=TOTAL)
    assert type(error) is NoResponseError and "total timeout" in str(error) and took < BOUND


# ---------------------------------------------------------------- content encoding


def gzip_corrupt(body: bytes) -> bytes:
    """``body`` gzipped, with bytes inside the deflate stream overwritten."""
    packed = bytearray(gzip.compress(body))
    packed[20:26] = b"\xff\x00\xff\x00\xff\x00"
    return bytes(packed)


@pytest.mark.parametrize("kind", CALL_KINDS)
def test_a_body_whose_gzip_does_not_decode_is_a_protocol_error_with_its_partial(
        kind: str) -> None:
    good = chat_answer("Hi") if kind.endswith("create") else chat_chunk("Hi") * 30
    body = gzip_corrupt(good)
    fields = JSON if kind.endswith("create") else SSE
    answer = Answer([head(200, headers(fields, content_encoding="gzip",
                                       content_length=str(len(body)))), body])
    with FaultServer(answer) as server:
        error, _, _ = call(kind, server.url)
    assert type(error) is ProtocolError and "content encoding does not decode" in str(error)
    assert isinstance(error.__cause__, httpx.DecodingError)
    assert error.partial is not None and error.partial.finished_reason == "interrupted"
    assert error.partial.content == [] and error.partial.provider in ("deepseek", None)


def test_stream_over_a_plain_httpx_response_whose_gzip_does_not_decode() -> None:
    body = gzip_corrupt(chat_chunk("Hi") * 30)
    answer = Answer([head(200, headers(SSE, content_encoding="gzip",
                                       content_length=str(len(body)))), body])
    with FaultServer(answer) as server:
        with httpx.Client() as http, http.stream("POST", server.url) as response, \
                pytest.raises(ProtocolError) as caught:
            streamkit.stream(response, "openai").final()
        assert caught.value.partial is not None

        async def main() -> StreamError:
            async with httpx.AsyncClient() as http, http.stream("POST", server.url) as response:
                events = streamkit.stream(response, "openai", on_error="return")
                await events.final()
                assert events.error is not None
                return events.error

        assert type(anyio.run(main)) is ProtocolError


# ---------------------------------------------------------------- create()'s partials


@pytest.mark.parametrize("kind", ["Client.create", "SyncClient.create"])
def test_a_create_body_cut_off_keeps_what_it_decoded_to(kind: str) -> None:
    body = chat_answer("Hello there, how are you today?")
    cut = body.index(b"how")
    answer = Answer([head(200, headers(JSON, content_length=str(len(body)))), body[:cut]])
    with FaultServer(answer) as server:
        error, _, _ = call(kind, server.url)
    assert type(error) is IncompleteStreamError and error.partial is not None
    assert error.partial.text == "Hello there, " and error.partial.provider == "deepseek"
    assert error.partial.finished_reason == "interrupted"


@pytest.mark.parametrize("kind", ["Client.create", "SyncClient.create"])
def test_a_create_body_past_max_body_bytes_is_refused_unread(kind: str) -> None:
    """The server would send 64 MiB; the client reads 64 KiB and stops."""
    opening = chat_answer("x")[:-3].replace(b'"x"', b'"Hello')
    answer = Answer([head(200, headers(JSON)), opening, *[b"y" * 65536] * 1024], pause=0.001)
    with FaultServer(answer) as server:
        error, _, took = call(kind, server.url, max_body_bytes=65536)
        assert server.wait_all_left()
    assert type(error) is LimitExceeded and error.limit == "max_body_bytes"
    assert error.value == 65536 and error.partial is not None
    assert error.partial.text.startswith("Hello") and error.partial.provider == "deepseek"
    assert took < 30


@pytest.mark.parametrize("kind", ["Client.create", "SyncClient.create"])
@pytest.mark.parametrize(("body", "error_type"), [
    (b'{"id": "x", "choices": [{"message": {"content": "Hel', ProtocolError),  # not JSON
    (b"<html>bad gateway</html>", ProtocolError),
    (b'{"error": {"message": "quota", "type": "insufficient_quota"}}', ProviderError),
])
def test_a_200_that_is_not_an_answer_is_typed_with_a_partial(
        kind: str, body: bytes, error_type: type[StreamError]) -> None:
    answer = Answer([head(200, headers(JSON, content_length=str(len(body)))), body])
    with FaultServer(answer) as server:
        error, _, _ = call(kind, server.url)
    assert type(error) is error_type and error.partial is not None
    assert error.partial.provider == "deepseek"


# ---------------------------------------------------------------- a key echoed back


def sent_key(request: bytes) -> str:
    found = re.search(rb"(?im)^authorization: Bearer (\S+)\r$", request)
    assert found is not None, request[:300]
    return found.group(1).decode()


def echoing_error(request: bytes) -> Answer:
    """A 401 whose message, type, request id and header all hold the key sent."""
    key = sent_key(request)
    body = json.dumps({"error": {"message": f"Incorrect API key provided: {key}.",
                                 "type": f"invalid_key:{key}", "code": key,
                                 "param": {"key": key}}}).encode()
    return Answer([head(401, headers(JSON, x_request_id=f"req-{key}", retry_after=key,
                                     content_length=str(len(body)))), body])


def echoing_stream(request: bytes) -> Answer:
    """A 200 stream that shows the key in its text, split across two reads, then
    ends in an error event that holds it too."""
    key = sent_key(request)
    text = chat_chunk(f"your key is {key} and again {key}")
    error = b"data: " + json.dumps({"error": {"message": f"bad key {key}",
                                             "metadata": {"key": key}}}).encode() + b"\n\n"
    middle = text.index(key.encode()) + 7
    return Answer([head(200, headers(SSE)), chat_chunk("Hi"), text[:middle], text[middle:],
                   error], pause=0.01)


def _shown(value: Any) -> str:
    try:
        return repr(value)
    except Exception:  # an object half made when its constructor failed
        return ""


def _holds(value: Any, secret: str, depth: int = 4, seen: set[int] | None = None) -> bool:
    """Whether ``value``'s repr, or anything reachable from it in ``depth`` steps
    (items, attributes: an httpcore request's raw headers, say), holds ``secret``;
    an :class:`ApiKey` is the one place allowed to."""
    seen = set() if seen is None else seen
    if isinstance(value, ApiKey) or id(value) in seen:
        return False
    seen.add(id(value))
    if isinstance(value, (str, bytes, bytearray)):
        return (secret if isinstance(value, str) else secret.encode()) in value
    if secret in _shown(value):
        return True
    if depth == 0 or isinstance(value, (int, float, type)) or callable(value):
        return False
    if isinstance(value, dict):
        children: list[Any] = [*value.keys(), *value.values()]
    elif isinstance(value, (list, tuple, set, frozenset)):
        children = list(value)
    else:
        children = list(getattr(value, "__dict__", {}).values())
        children += [getattr(value, name, None) for name in getattr(type(value), "__slots__", ())]
    return any(_holds(child, secret, depth - 1, seen) for child in children)


def frames_holding(error: BaseException, secret: str) -> list[str]:
    """Every frame local, along ``error``'s chain, that holds ``secret`` (in its
    repr, or in what it reaches: what an error tracker that records locals, or a
    debugger, would find); the test's own frames are left out."""
    found, seen, pending = [], set(), [error]
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        trace = current.__traceback__
        while trace is not None:
            frame = trace.tb_frame
            if "/tests/" not in frame.f_code.co_filename:
                for name, value in frame.f_locals.items():
                    if _holds(value, secret):
                        found.append(f"{frame.f_code.co_filename}:{frame.f_code.co_name}:{name}")
            trace = trace.tb_next
        pending += [current.__cause__, current.__context__]
    return found


def everything_shown(error: StreamError) -> str:
    """The error as a caller, a log or a tracker sees it."""
    partial = error.partial.to_json().decode() if error.partial is not None else ""
    return " ".join([str(error), repr(error), repr(getattr(error, "raw", None)),
                     repr(dict(getattr(error, "headers", {}))), partial,
                     repr(error.args), repr(error.events)])


@pytest.mark.parametrize("kind", CALL_KINDS)
def test_a_key_echoed_in_an_error_body_and_headers_is_redacted(
        kind: str, caplog: pytest.LogCaptureFixture) -> None:
    seen: list[Any] = []
    with FaultServer(echoing_error) as server, caplog.at_level(logging.DEBUG):
        error, _, _ = call(kind, server.url, on_attempt=seen.append)
        assert sent_key(server.connections[0].request) == SECRET
    assert type(error) is ProviderError and error.status == 401
    assert "<key from api_key=>" in error.message and error.request_id == "req-<key from api_key=>"
    ours = [record.getMessage() for record in caplog.records if record.name.startswith("streamkit")]
    assert ours and SECRET not in everything_shown(error) + " ".join(ours)
    assert seen and all(SECRET not in repr(attempt) for attempt in seen)
    assert frames_holding(error, SECRET) == []


@pytest.mark.parametrize("kind", ["Client.stream", "SyncClient.stream"])
def test_a_key_echoed_in_a_stream_is_redacted_from_events_text_and_the_error(kind: str) -> None:
    with FaultServer(echoing_stream) as server:
        error, _, _ = call(kind, server.url)
    assert type(error) is ProviderError and error.partial is not None
    assert error.partial.text == ("Hiyour key is <key from api_key=> and again "
                                  "<key from api_key=>")
    assert SECRET not in everything_shown(error)
    assert frames_holding(error, SECRET) == []


@pytest.mark.parametrize("kind", CALL_KINDS)
def test_no_frame_of_a_failed_send_holds_the_key(kind: str) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed once the block ends: refused
    error, _, _ = call(kind, f"http://127.0.0.1:{port}")
    assert type(error) is NoResponseError and isinstance(error.__cause__, httpx.ConnectError)
    assert frames_holding(error, SECRET) == [] and SECRET not in everything_shown(error)


@pytest.mark.parametrize("kind", ["Client.create", "SyncClient.stream"])
def test_no_frame_of_a_send_cut_mid_request_holds_the_key(kind: str) -> None:
    """The server resets the connection as the request arrives: httpx fails while
    the key is on its way, in httpcore's and h11's frames."""
    with FaultServer(Answer([], then="reset")) as server:
        error, _, _ = call(kind, server.url)
    assert isinstance(error, IncompleteStreamError)
    assert frames_holding(error, SECRET) == [] and SECRET not in everything_shown(error)


def test_a_key_that_cannot_be_sent_is_refused_and_held_by_no_frame() -> None:
    bad = SECRET + "\u00e9"
    for make in (lambda: Client("deepseek:deepseek-chat", api_key=bad),
                 lambda: SyncClient("deepseek:deepseek-chat",
                                    environ={"DEEPSEEK_API_KEY": bad})):
        with pytest.raises(ProviderConfigError) as caught:
            make()
        assert SECRET not in str(caught.value)
        assert [where for where in frames_holding(caught.value, SECRET)
                if "environ" not in where] == []  # the caller's own environment is theirs


# ---------------------------------------------------------------- the redactor


def test_the_redactor_catches_the_key_split_anywhere() -> None:
    key = ApiKey(SECRET, "api_key=")
    body = f"before {SECRET} middle {SECRET}{SECRET} after".encode()
    expected = body.replace(SECRET.encode(), b"<key from api_key=>")
    for cut in range(len(body) + 1):
        for second in (cut, min(cut + 5, len(body))):
            redactor = Redactor(key)
            pieces = [body[:cut], body[cut:second], body[second:]]
            got = b"".join(redactor.feed(piece) for piece in pieces) + redactor.flush()
            assert got == expected, (cut, second)


def test_the_redactor_holds_back_only_what_could_begin_the_key() -> None:
    redactor = Redactor(ApiKey(SECRET, "api_key="))
    assert redactor.feed(b"data: x\n\n") == b"data: x\n\n"  # a stream's read: nothing held
    assert redactor.feed(b"results") == b"result"  # "s" could begin the key
    assert redactor.feed(b" are in") == b"s are in"
    assert redactor.feed(b"and sk-fault-0") == b"and "
    assert redactor.flush() == b"<key from api_key=>"  # a long cut key is masked too
    assert redactor.feed(b"plus sk") == b"plus " and redactor.flush() == b"sk"


def test_a_key_prints_as_where_it_came_from() -> None:
    key = ApiKey(f" {SECRET}\n", "DEEPSEEK_API_KEY")
    assert key.reveal() == SECRET and key.can_be_sent
    assert SECRET not in repr(key) + str(key) and repr(key) == "<key from DEEPSEEK_API_KEY>"
    assert key.redact(f"echo {SECRET}!") == "echo <key from DEEPSEEK_API_KEY>!"
    with pytest.raises(TypeError):
        __import__("pickle").dumps(key)
    assert not ApiKey("a key", "x").can_be_sent and not ApiKey("", "x").can_be_sent
    placeholder = ApiKey("EMPTY", "api_key=")  # a local server's: no secret, not looked for
    assert placeholder.redact("EMPTY answer") == "EMPTY answer"
    assert Redactor(placeholder).feed(b"an EMPTY answer") == b"an EMPTY answer"

