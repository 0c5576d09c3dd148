"""McpWorkbench against real MCP servers: one written with the official SDK,
over stdio (a process) and streamable HTTP (127.0.0.1), and a hostile one
that writes its JSON-RPC by hand. The model is a FakeProvider on every wire."""

from __future__ import annotations

import copy
import logging
import subprocess
import sys
import time

import anyio
import pytest
from support.mcp_loop import RAW_SERVER, tool_loop
from support.mcp_server import PNG
from support.request_oracles import sdk_valid

import streamkit
from streamkit import (
    ChatResponse,
    DataBlock,
    FunctionExecutionResultMessage,
    McpWorkbench,
    Message,
    TextBlock,
    ToolCallBlock,
    ToolServerError,
    UserMessage,
)
from streamkit.mcp.content import STRUCTURED_CONTENT
from streamkit.providers import WIRE_NAMES
from streamkit.providers.routes import OWN_PROVIDER
from streamkit.testing import FakeProvider

pytestmark = pytest.mark.anyio

SECRET = "s3cret-token-0123456789"
IN_URL = "url-token-9876543210"


def _client(fake: FakeProvider, wire: str) -> streamkit.Client:
    provider = OWN_PROVIDER[wire]
    return streamkit.Client(f"{provider}:test-model", api_key="sk-fake",
                            base_url=fake.base_url(provider))


def _tool_names(request: object) -> list[str]:
    return [tool.name for tool in getattr(request, "tools", None) or []
            if isinstance(tool, streamkit.Tool)]


# ---------------------------------------------------------------- the loop


#: Every wire over each transport.
LOOPS = [(transport, wire) for transport in ("stdio", "http") for wire in WIRE_NAMES]


@pytest.mark.parametrize(("workbench", "wire"), LOOPS, indirect=["workbench"])
async def test_a_three_turn_loop_where_a_call_unlocks_a_tool_that_returns_an_image(
        workbench: McpWorkbench, wire: str) -> None:
    fake = FakeProvider([
        ChatResponse(content=[ToolCallBlock("call_1", "unlock", "{}")]),
        ChatResponse(content=[ToolCallBlock("call_2", "chart", '{"title": "Paris"}')]),
        ChatResponse(content=[TextBlock("Here is the chart.")]),
    ])
    messages: list[Message] = [UserMessage("A weather chart of Paris?")]
    try:
        async with fake, _client(fake, wire) as client:
            answer = await tool_loop(client, [workbench], messages)
    finally:
        await workbench.call_tool("lock")  # the server's list is the module's
    assert answer.text == "Here is the chart." and not fake.errors
    first, second, third = (request.request for request in fake.requests)
    assert "chart" not in _tool_names(first)
    assert {"unlock", "chart", "weather"} <= set(_tool_names(second))  # the list changed
    unlocked, charted = (message.content[0] for message in messages
                         if isinstance(message, FunctionExecutionResultMessage))
    assert (unlocked.call_id, unlocked.content, unlocked.is_error) == (
        "call_1", "chart unlocked", False)
    text, image = charted.content
    assert isinstance(text, TextBlock) and text.text == "chart: Paris"
    assert isinstance(image, DataBlock) and (image.media_type, image.data) == ("image/png", PNG)
    sent = str(third.messages[2:])  # the turns after the question, as the wire carried them
    assert "chart: Paris" in sent and "Base64Source(<70 bytes>, media_type='image/png')" in sent


async def test_a_change_another_session_makes_reaches_the_list_by_its_notification(
        http_url: str) -> None:
    async with (McpWorkbench.http(http_url, timeout=20) as watching,
                McpWorkbench.http(http_url, timeout=20) as changing):
        assert "chart" not in {tool.name for tool in await watching.list_tools()}  # kept
        await changing.call_tool("unlock")
        try:
            with anyio.fail_after(10):  # the notice comes on the watcher's listen stream
                while "chart" not in {tool.name for tool in await watching.list_tools()}:
                    await anyio.sleep(0.01)
        finally:
            await changing.call_tool("lock")


# ---------------------------------------------------------------- tools and results


async def test_schemas_with_refs_and_unions_reach_every_wire_as_the_sdk_takes_them(
        stdio_workbench: McpWorkbench) -> None:
    tools = await stdio_workbench.list_tools()
    plan = next(tool for tool in tools if tool.name == "plan")
    shape = plan.parameters["properties"]["shape"]
    assert shape == {"anyOf": [{"$ref": "#/$defs/Circle"}, {"$ref": "#/$defs/Square"}],
                     "title": "Shape"}  # as the server gave it
    assert set(plan.parameters["$defs"]) == {"Circle", "Square"} and plan.strict is None
    for wire in WIRE_NAMES:
        options = {"max_tokens": 1024} if wire == "anthropic" else {}
        body = streamkit.build_request(OWN_PROVIDER[wire], [UserMessage("plan")], model="m",
                                       tools=copy.deepcopy(tools), **options)
        sdk_valid(wire, body)
        if wire == "openai-responses":
            assert {tool["strict"] for tool in body["tools"]} == {False}


async def test_results_keep_structured_content_resources_and_the_servers_errors(
        stdio_workbench: McpWorkbench) -> None:
    added = await stdio_workbench.call_tool("add", {"a": 2, "b": 3}, call_id="c1")
    assert (added.call_id, added.content, added.metadata[STRUCTURED_CONTENT]) == (
        "c1", "5", {"result": 5})
    notes, blob = (await stdio_workbench.call_tool("documents")).content
    assert isinstance(notes, TextBlock) and notes.text == "the notes"
    assert isinstance(blob, DataBlock) and (blob.data, blob.name) == (b"\x00\x01", "file:///raw.bin")
    failed = await stdio_workbench.call_tool("fail", {"reason": "the city is closed"})
    assert failed.is_error and "the city is closed" in failed.text
    unknown = await stdio_workbench.call_tool("nope", {})
    assert unknown.is_error and "nope" in unknown.text


async def test_a_huge_result_is_an_error_result_naming_the_limit(
        stdio_workbench: McpWorkbench) -> None:
    stdio_workbench.max_result_chars = 1000
    try:
        huge = await stdio_workbench.call_tool("huge", {"size": 5000})
        fits = await stdio_workbench.call_tool("huge", {"size": 1000})
    finally:
        stdio_workbench.max_result_chars = 1_000_000
    assert huge.is_error and "5,000" in huge.text and "max_result_chars" in huge.text
    assert fits.content == "x" * 1000


# ---------------------------------------------------------------- failures


async def test_a_slow_tool_times_out_as_a_typed_error_and_the_session_goes_on(
        workbench: McpWorkbench) -> None:
    workbench.timeout = 0.3
    started = time.monotonic()
    try:
        with pytest.raises(ToolServerError) as raised:
            await workbench.call_tool("slow", {"seconds": 30})
    finally:
        workbench.timeout = 20
    assert time.monotonic() - started < 5
    assert raised.value.timed_out and raised.value.tool == "slow" and "0.3 s" in str(raised.value)
    after = await workbench.call_tool("weather", {"city": "Oslo"})
    assert after.content == "Sunny, 21 °C in Oslo"


async def test_a_server_that_dies_mid_call_is_a_typed_error_and_the_conversation_is_kept() -> None:
    fake = FakeProvider([ChatResponse(content=[ToolCallBlock("call_1", "crash", "{}")])])
    messages: list[Message] = [UserMessage("Crash, please.")]
    async with (McpWorkbench.stdio(sys.executable, str(RAW_SERVER), timeout=5) as workbench,
                fake, _client(fake, "anthropic") as client):
        with pytest.raises(ToolServerError) as raised:
            await tool_loop(client, [workbench], messages)
        with pytest.raises(ToolServerError):  # and every call after it
            await workbench.call_tool("secret")
    assert "went away" in str(raised.value) and not raised.value.timed_out
    assert [type(message) for message in messages] == [UserMessage]


async def test_a_malformed_result_is_an_error_result_and_a_legacy_list_change_is_seen() -> None:
    async with McpWorkbench.stdio(sys.executable, str(RAW_SERVER), timeout=5) as workbench:
        before = [tool.name for tool in await workbench.list_tools()]
        malformed = await workbench.call_tool("malformed", call_id="c9")
        grown = await workbench.call_tool("grow")
        after = [tool.name for tool in await workbench.list_tools()]
    assert malformed.is_error and malformed.call_id == "c9"
    assert "not an MCP tool result" in malformed.text and "content.0" in malformed.text
    assert grown.content == "grown" and "grown" not in before and after == [*before, "grown"]


async def test_a_server_that_cannot_start_or_a_call_before_the_start_is_a_typed_error() -> None:
    with pytest.raises(ToolServerError) as raised:
        async with McpWorkbench.stdio(sys.executable, "-c", "pass", timeout=5):
            pass
    assert "could not be started" in str(raised.value)
    with pytest.raises(ToolServerError, match="could not be started or reached"):
        async with McpWorkbench.http("http://127.0.0.1:9/mcp", timeout=5):
            pass
    with pytest.raises(ToolServerError, match="async with workbench"):
        await McpWorkbench.stdio("mcp-server").list_tools()


# ---------------------------------------------------------------- secrets


async def test_env_and_header_values_are_in_no_repr_error_or_log(
        http_url: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    stdio = McpWorkbench.stdio(sys.executable, str(RAW_SERVER), env={"MCP_TOKEN": SECRET},
                               timeout=5)
    async with stdio:
        said = await stdio.call_tool("secret")
        with pytest.raises(ToolServerError) as crashed:
            await stdio.call_tool("crash")
    http = McpWorkbench.http(http_url.replace("http://", f"http://user:{IN_URL}@") +
                             f"?key={IN_URL}", headers={"Authorization": f"Bearer {SECRET}"},
                             timeout=0.3)
    async with http:
        with pytest.raises(ToolServerError) as slow:
            await http.call_tool("slow", {"seconds": 30})
    assert said.content == f"a token of {len(SECRET)} characters"  # the server had it
    ours = [repr(stdio), repr(http), str(crashed.value), str(slow.value), http.server]
    assert not [text for text in ours if SECRET in text or IN_URL in text]
    assert SECRET not in caplog.text  # (httpx2 logs a URL whole: a token belongs in a header)
    assert "MCP_TOKEN" in repr(stdio) and "Authorization" in repr(http)


# ---------------------------------------------------------------- the extra


def test_import_streamkit_loads_no_mcp_and_without_it_the_error_names_the_extra() -> None:
    code = ("import sys, streamkit; print('mcp' in sys.modules); sys.modules['mcp'] = None\n"
            "try:\n    streamkit.McpWorkbench\nexcept ModuleNotFoundError as error:\n"
            "    print(error)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.splitlines() == ["False", "streamkit.McpWorkbench needs the mcp package, which "
                                "is not installed: pip install 'streamkit-llm[mcp]'"]
