"""The gateway's edge under slow callers (streamkit.gateway.limits): timeouts
for a request's headers, body and silences, and caps on connections.

One gateway for the module, under uvicorn on a real socket with the edge the
command gives it (``server_options``), its timeouts lowered to a second so the
slow sockets are closed within the test; its upstream a FakeProvider. The slow
sockets come from other loopback addresses (127.0.0.2...) than the real callers
(127.0.0.1), as an attacker's would.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import uvicorn
from support.asgi_server import serving
from uvicorn.server import ServerState

from streamkit import ChatResponse, TextBlock
from streamkit.gateway import create_app
from streamkit.gateway.config import CallerLimits, parse_config
from streamkit.gateway.limits import ConnectionGuard, guarded_protocol
from streamkit.gateway.serve import server_options
from streamkit.testing import FakeProvider

CALLER_KEY = "sk-gateway-edge-caller-0123"
LIMITS = {"caller_headers": 2.0, "caller_body": 2.0, "caller_idle": 1.5}
"""Short for the test, long enough for a real caller on a loaded machine (idle 0.6 s
cut real callers off there)."""
PER_CLIENT = 64
SLOW_ADDRESSES = [f"127.0.0.{number}" for number in range(2, 12)]


@pytest.fixture(scope="module")
def gateway() -> Iterator[str]:
    answer = ChatResponse(content=[TextBlock("one two three four five six seven eight")])
    with FakeProvider.in_thread(lambda request: answer) as fake:
        config = parse_config({
            "gateway": {"keys": [CALLER_KEY], "max_connections_per_client": PER_CLIENT},
            "timeouts": LIMITS,
            "models": {"fast": {"model": "openai:gpt-upstream"}},
            "providers": {"openai": {"base_url": fake.base_url("openai"), "api_key": "k"}},
        })
        protocol = guarded_protocol(config.limits)
        with serving(create_app(config), **server_options(config.limits, protocol)) as url:
            yield url


def _open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


async def _slow_socket(port: int, number: int) -> tuple[asyncio.StreamReader, Any]:
    """A keyless caller that never finishes: half of them trickle their
    headers a byte at a time, half send whole headers and never their body
    (number -1: a keyed one that never sends its body)."""
    reader, writer = await asyncio.open_connection(
        "127.0.0.1", port, local_addr=(SLOW_ADDRESSES[number % len(SLOW_ADDRESSES)], 0))
    if number < 0:
        writer.write(b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n"
                     b"authorization: Bearer " + CALLER_KEY.encode() + b"\r\n\r\n{")
    elif number % 2:
        writer.write(b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nx-slow: ")
    else:
        writer.write(b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\n"
                     b"content-type: application/json\r\ncontent-length: 100000\r\n\r\n{")
    return reader, writer


async def _trickle(writers: list[Any], stop: asyncio.Event) -> int:
    """One byte on every slow socket every 0.2 s: never idle long enough for
    the idle clock, so only the headers' or the body's deadline ends them.
    Returns the most files the process held meanwhile."""
    most = 0
    while not stop.is_set():
        most = max(most, _open_files())
        for writer in writers:
            if not writer.is_closing():
                writer.write(b"a")
        await asyncio.sleep(0.2)
    return most


async def _closed(reader: asyncio.StreamReader, began: float) -> tuple[bytes, float]:
    """What the gateway said before closing, and when it closed its side (a
    reset, which would lose what it said, is what the gateway's two-step close
    prevents: the test then sees what it got)."""
    said = b""
    try:
        while chunk := await reader.read(4096):
            said += chunk
    except ConnectionResetError:
        pass
    return said, time.monotonic() - began


async def _keyed_caller(http: httpx.AsyncClient) -> str:
    text = ""
    async with http.stream("POST", "/v1/chat/completions", json={
            "model": "fast", "stream": True, "messages": [{"role": "user", "content": "hi"}]},
            headers={"authorization": f"Bearer {CALLER_KEY}"}) as answer:
        assert answer.status_code == 200
        async for line in answer.aiter_lines():
            if line.startswith("data: {"):
                text += "".join(choice["delta"].get("content") or ""
                                for choice in json.loads(line[6:])["choices"])
    return text


def test_real_callers_get_their_streams_while_500_slow_sockets_are_held_then_closed(
        gateway: str, caplog: pytest.LogCaptureFixture) -> None:
    """The slowloris test: 500 keyless sockets that never finish their request
    (spread over 10 addresses, under the per-address cap) are open while 50
    keyed callers each complete a stream; every slow one is closed by its
    deadline (2 s), answered 408 (headers) or 401 then closed (body). A slow
    socket still trickling bytes when its time runs out reads its whole 408:
    the gateway closes in two steps, so its late bytes meet no reset."""
    caplog.set_level(logging.INFO, logger="streamkit.gateway")
    port = int(gateway.rsplit(":", 1)[1])
    files_before = _open_files()

    async def attack() -> dict[str, Any]:
        began = time.monotonic()
        slow = [await _slow_socket(port, number) for number in range(-1, 500)]
        stop = asyncio.Event()

        async def callers() -> tuple[list[str], float]:
            callers_began = time.monotonic()
            async with httpx.AsyncClient(base_url=gateway, timeout=10,
                                         limits=httpx.Limits(max_connections=50)) as http:
                texts = await asyncio.gather(*(_keyed_caller(http) for _ in range(50)))
            return texts, time.monotonic() - callers_began

        async def closings() -> list[tuple[bytes, float]]:
            try:
                return await asyncio.wait_for(
                    asyncio.gather(*(_closed(reader, began) for reader, _ in slow)), timeout=10)
            finally:
                stop.set()

        files_held, closed, (texts, callers_took) = await asyncio.gather(
            _trickle([writer for _, writer in slow], stop), closings(), callers())
        for _, writer in slow:
            writer.close()
        return {"texts": texts, "callers_took": callers_took, "closed": closed,
                "files_held": files_held}

    result = asyncio.run(attack())
    assert result["texts"] == ["one two three four five six seven eight"] * 50
    keyed, *said = [answer for answer, _ in result["closed"]]
    assert keyed.startswith(b"HTTP/1.1 408 ") and keyed.endswith(b"not sent in time")
    assert all(answer.startswith(b"HTTP/1.1 401 ") for answer in said[0::2])  # body never sent
    assert all(answer.startswith(b"HTTP/1.1 408 ") for answer in said[1::2])
    assert max(when for _, when in result["closed"]) < 6
    assert result["files_held"] >= files_before + 500  # the slow sockets were held
    deadline = time.monotonic() + 5
    while _open_files() > files_before + 10 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _open_files() <= files_before + 10
    lines = [json.loads(record.getMessage()) for record in caplog.records
             if record.name == "streamkit.gateway"]
    reasons = [line["closed"] for line in lines if "closed" in line]
    assert len(reasons) == 501  # one line each (an idle one when the trickle came late)
    assert [line["status"] for line in lines if line.get("client") == SLOW_ADDRESSES[-1]
            and "request_id" in line] == [408]  # the keyed one's request line
    assert {"headers timeout", "body timeout"} <= set(reasons) <= \
        {"headers timeout", "body timeout", "idle timeout"}
    print(f"\n50 keyed streams beside 500 slow sockets: {result['callers_took']:.2f} s; "
          f"open files {files_before} before, {result['files_held']} held, "
          f"{_open_files()} after")


def test_a_connection_over_the_per_address_cap_is_closed_before_it_is_read(
        gateway: str) -> None:
    port = int(gateway.rsplit(":", 1)[1])

    async def over_the_cap() -> tuple[float, bytes, int]:
        held = [await asyncio.open_connection("127.0.0.1", port, local_addr=("127.0.0.50", 0))
                for _ in range(PER_CLIENT)]
        began = time.monotonic()
        reader, writer = await asyncio.open_connection("127.0.0.1", port,
                                                       local_addr=("127.0.0.50", 0))
        try:
            said = await asyncio.wait_for(reader.read(), timeout=5)
        except ConnectionResetError:
            said = b""
        refused_after = time.monotonic() - began
        async with httpx.AsyncClient(base_url=gateway) as http:  # another address still served
            status = (await http.get("/health")).status_code
        for _, each in [*held, (reader, writer)]:
            each.close()
        return refused_after, said, status

    refused_after, said, status = asyncio.run(over_the_cap())
    assert said == b"" and refused_after < 0.5  # at once, not at the headers' deadline (1 s)
    assert status == 200


def test_the_total_cap_counts_every_address_and_frees_on_close() -> None:
    guard = ConnectionGuard(CallerLimits(connections=2, per_client=0))
    assert [guard.admit(address) for address in ("a", "b", "c")] == \
        [None, None, "max_connections"]
    guard.release("a")
    assert guard.admit("c") is None and dict(guard.by_client) == {"b": 1, "c": 1}



async def _never_reached(scope: Any, receive: Any, send: Any) -> None:
    raise AssertionError("no request is read after its time ran out")


def test_a_request_the_clock_beat_reads_its_408_and_a_clean_close() -> None:
    """The clock fires on a busy loop before it read a request that had come
    (in the kernel's buffer): closed at once, a socket with unread bytes is
    reset (RST), which a caller meets as a broken connection; closed in two
    steps, the caller reads the 408 and then the end of the stream."""

    async def beaten() -> tuple[bytes, str]:
        config = uvicorn.Config(_never_reached, lifespan="off", log_level="warning")
        config.load()
        protocol_class, state = guarded_protocol(CallerLimits()), ServerState()
        made: list[Any] = []

        def protocol() -> Any:
            made.append(protocol_class(config=config, server_state=state, app_state={}))
            return made[-1]

        server = await asyncio.get_running_loop().create_server(protocol, "127.0.0.1", 0)
        caller = socket.create_connection(server.sockets[0].getsockname()[:2], timeout=5)
        while not made:
            await asyncio.sleep(0.01)
        caller.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\n"
                       b"content-length: 2\r\n\r\n{}")
        made[0]._expired()  # no await since the send: the loop has not read it
        await asyncio.sleep(0.2)
        said, ending = b"", "end of stream"
        try:
            while chunk := caller.recv(65536):
                said += chunk
        except OSError as error:
            ending = type(error).__name__
        caller.close()  # the gateway's side closes on the caller's end, within its linger
        for _ in range(500):
            if made[0].transport.is_closing():
                break
            await asyncio.sleep(0.01)
        server.close()
        await server.wait_closed()
        return said, ending

    said, ending = asyncio.run(beaten())
    assert said.startswith(b"HTTP/1.1 408 ") and said.endswith(b"the request was not sent in time")
    assert ending == "end of stream"
