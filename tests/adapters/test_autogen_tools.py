"""autogen's workbenches and streamkit's, each as the other
(:mod:`streamkit.adapters.autogen_tools`).

Each direction starts from a workbench native to its side (autogen's own
``StaticWorkbench`` and a picture-taking one written to autogen's ABC;
streamkit's ``StaticWorkbench`` and a stateful one written to ours), and the
agent tests run autogen's real ``AssistantAgent`` with streamkit's
``ChatCompletionClient`` over a :class:`~streamkit.testing.FakeProvider`
speaking the Anthropic wire, which carries images inside tool results.
"""

from __future__ import annotations

import asyncio
import io
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest
from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.base import TaskResult
from autogen_agentchat.messages import TextMessage
from autogen_core import CancellationToken, Image
from autogen_core.models import FunctionExecutionResult as AutogenResult
from autogen_core.models import FunctionExecutionResultMessage as AutogenResultMessage
from autogen_core.tools import FunctionTool, ImageResultContent, TextResultContent, ToolResult
from autogen_core.tools import StaticWorkbench as AutogenStaticWorkbench
from autogen_core.tools import Workbench as AutogenWorkbench
from PIL import Image as PILImage
from support.mcp_server import PNG as MCP_PNG

from streamkit import (
    ChatResponse,
    DataBlock,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    TextBlock,
    Tool,
    ToolCallBlock,
    tool,
)
from streamkit.adapters.autogen import (
    TOKENS_PER_MESSAGE,
    StreamkitChatCompletionClient,
    from_autogen_workbench,
    to_autogen_workbench,
)
from streamkit.adapters.autogen_tools import result_content_of_text, to_tool_result
from streamkit.conversation.workbench import StaticWorkbench, Workbench
from streamkit.mcp import McpWorkbench
from streamkit.model.data_sources import Base64Source, URLSource
from streamkit.model.errors import LossyTranslationWarning
from streamkit.testing import FakeProvider

MCP_SERVER = Path(__file__).parent.parent / "support" / "mcp_server.py"
CAPABLE = {"vision": True, "function_calling": True, "json_output": True,
           "structured_output": True}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # autogen runs on asyncio


def red_square() -> PILImage.Image:
    return PILImage.new("RGB", (3, 2), (255, 0, 0))


def png_of(picture: PILImage.Image) -> bytes:
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG")
    return buffer.getvalue()


def pixels(data: bytes | PILImage.Image) -> list[Any]:
    """A picture's size and pixels: what must survive a PNG re-encoding."""
    picture = PILImage.open(io.BytesIO(data)) if isinstance(data, bytes) else data
    return [picture.size, picture.convert("RGB").tobytes()]


def image_pixels(block: TextBlock | DataBlock) -> list[Any]:
    assert isinstance(block, DataBlock) and block.media_type == "image/png"
    assert isinstance(block.source, Base64Source)
    return pixels(block.source.raw)


def get_weather(location: str) -> str:
    """The current weather in a city."""
    return f"Sunny, 21 °C in {location}"


def broken(location: str) -> str:
    """Always fails."""
    raise RuntimeError(f"no weather station in {location}")


class AutogenCamera(AutogenWorkbench):
    """An autogen-native workbench answering with a text and a picture, that
    counts its shots (its state) and fails on a dark room."""

    def __init__(self) -> None:
        self.shots = 0
        self.running = False

    async def list_tools(self) -> list[Any]:
        return [{"name": "snap", "description": "Take a picture.", "strict": True,
                 "parameters": {"type": "object", "properties": {"room": {"type": "string"}},
                                "required": ["room"], "additionalProperties": False}}]

    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None,
                        cancellation_token: CancellationToken | None = None,
                        call_id: str | None = None) -> ToolResult:
        if (arguments or {}).get("room") == "cellar":
            return ToolResult(name=name, is_error=True,
                              result=[TextResultContent(content="too dark")])
        self.shots += 1
        return ToolResult(name=name, result=[TextResultContent(content="a red square"),
                                             ImageResultContent(content=Image(red_square()))])

    async def start(self) -> None:
        self.running = True

    async def stop(self) -> None:
        self.running = False

    async def reset(self) -> None:
        self.shots = 0

    async def save_state(self) -> Mapping[str, Any]:
        return {"shots": self.shots}

    async def load_state(self, state: Mapping[str, Any]) -> None:
        self.shots = state["shots"]


class Darkroom(Workbench):
    """A streamkit-native workbench: ``develop`` answers with a text and a
    picture, and ``print`` is listed only once something was developed (a
    tool list that changes after a call, as an MCP server's may)."""

    def __init__(self) -> None:
        self.developed = 0
        self.calls: list[str] = []
        self.running = False

    async def list_tools(self) -> list[Tool]:
        found = [Tool("develop", "Develop the film.")]
        return [*found, Tool("print", "Print what was developed.")] if self.developed else found

    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None, *,
                        call_id: str = "") -> FunctionExecutionResult:
        self.calls.append(name)
        if name == "develop":
            self.developed += 1
            return FunctionExecutionResult(call_id, [TextBlock("a red square"), DataBlock(
                source=Base64Source(png_of(red_square()), "image/png"))], name=name)
        return FunctionExecutionResult(call_id, f"printed {self.developed}", name=name)

    async def start(self) -> None:
        self.running = True

    async def stop(self) -> None:
        self.running = False

    async def reset(self) -> None:
        self.developed = 0

    async def save_state(self) -> Mapping[str, Any]:
        return {"developed": self.developed}

    async def load_state(self, state: Mapping[str, Any]) -> None:
        self.developed = state["developed"]


# ================================================================= autogen's as ours


@pytest.mark.anyio
async def test_an_autogen_static_workbench_lists_and_runs_as_ours() -> None:
    weather = FunctionTool(get_weather, description="The current weather in a city.",
                           strict=True)
    ours = from_autogen_workbench(AutogenStaticWorkbench([weather]))
    assert await ours.list_tools() == [Tool("get_weather", "The current weather in a city.",
                                            dict(weather.schema["parameters"]), strict=True)]
    assert await ours.call_tool("get_weather", {"location": "Paris"}, call_id="c1") == \
        FunctionExecutionResult("c1", "Sunny, 21 °C in Paris", name="get_weather")
    missing = await ours.run_call(ToolCallBlock("c2", "get_rain", '{"location": "Paris"}'))
    assert (missing.call_id, missing.is_error, missing.content) == \
        ("c2", True, "Tool get_rain not found.")


@pytest.mark.anyio
async def test_an_autogen_image_result_is_text_and_a_png_block() -> None:
    camera = AutogenCamera()
    ours = from_autogen_workbench(camera)
    [snap] = await ours.list_tools()
    assert snap.strict is True and snap.parameters["required"] == ["room"]
    result = await ours.call_tool("snap", {"room": "hall"}, call_id="c1")
    text, image = result.blocks
    assert (result.call_id, result.name, result.is_error) == ("c1", "snap", False)
    assert isinstance(text, TextBlock) and text.text == "a red square"
    assert image_pixels(image) == pixels(red_square())
    failed = await ours.call_tool("snap", {"room": "cellar"})
    assert (failed.is_error, failed.content) == (True, "too dark")


# ================================================================= ours as autogen's


@pytest.mark.anyio
async def test_our_static_workbench_lists_and_runs_as_autogen_s() -> None:
    weather = tool(get_weather, strict=True)
    theirs = to_autogen_workbench(StaticWorkbench([weather, broken]))
    listed = await theirs.list_tools()
    assert listed[0] == {"name": "get_weather", "description": "The current weather in a city.",
                         "parameters": weather.parameters, "strict": True}
    assert listed[1]["name"] == "broken"
    answered = await theirs.call_tool("get_weather", {"location": "Paris"}, call_id="c1")
    assert answered == ToolResult(name="get_weather",
                                  result=[TextResultContent(content="Sunny, 21 °C in Paris")])
    failed = await theirs.call_tool("broken", {"location": "Paris"})
    assert failed.is_error and "no weather station in Paris" in failed.to_text()


@pytest.mark.anyio
async def test_our_image_result_is_an_autogen_picture_and_other_data_a_named_text() -> None:
    theirs = to_autogen_workbench(Darkroom())
    text, image = (await theirs.call_tool("develop")).result
    assert text == TextResultContent(content="a red square")
    assert isinstance(image, ImageResultContent) and pixels(image.content.image) == \
        pixels(red_square())
    jpeg = io.BytesIO()
    red_square().save(jpeg, format="JPEG", quality=100)
    at_url = DataBlock(source=URLSource("https://example.com/a.png", "image/png"))
    pdf = DataBlock(source=Base64Source(b"%PDF-1.7", "application/pdf"), name="report.pdf")
    with pytest.warns(LossyTranslationWarning, match="application/pdf"):
        converted = to_tool_result(FunctionExecutionResult("c1", [
            DataBlock(source=Base64Source(jpeg.getvalue(), "image/jpeg")), at_url, pdf],
            name="read"))
    picture, url, described = converted.result
    assert isinstance(picture, ImageResultContent) and picture.content.image.size == (3, 2)
    assert url == TextResultContent(content="[image: https://example.com/a.png]")
    assert described == TextResultContent(content="[application/pdf report.pdf: not shown]")


@pytest.mark.anyio
async def test_our_workbench_s_own_failure_is_an_is_error_result_for_autogen() -> None:
    """autogen's agent records the calls before running them: a raise would
    leave them unanswered, so a ``ToolServerError`` is an ``is_error`` result."""
    never_started = McpWorkbench.stdio("python", "server.py")
    failed = await to_autogen_workbench(never_started).call_tool("get_weather", {"city": "x"})
    assert failed.is_error and "before the session started" in failed.to_text()


@pytest.mark.anyio
async def test_a_cancelled_token_cancels_our_call_under_way() -> None:
    started, cancelled = asyncio.Event(), asyncio.Event()

    class Stalling(Darkroom):
        async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None, *,
                            call_id: str = "") -> FunctionExecutionResult:
            started.set()
            try:
                await asyncio.Event().wait()
            finally:
                cancelled.set()
            raise AssertionError("never reached")

    token = CancellationToken()
    call = asyncio.ensure_future(to_autogen_workbench(Stalling()).call_tool(
        "develop", cancellation_token=token))
    await started.wait()
    token.cancel()
    with pytest.raises(asyncio.CancelledError), anyio.fail_after(5):  # a guard, never waited
        await call
    assert cancelled.is_set()


# ================================================================= both ways


@pytest.mark.anyio
async def test_lifecycle_and_state_go_through_both_ways() -> None:
    darkroom, camera = Darkroom(), AutogenCamera()
    theirs, ours = to_autogen_workbench(darkroom), from_autogen_workbench(camera)
    for wrapper, native, tool_name in ((theirs, darkroom, "develop"), (ours, camera, "snap")):
        async with wrapper:
            assert native.running
            await wrapper.call_tool(tool_name, {"room": "hall"})
            saved = await wrapper.save_state()
            await wrapper.call_tool(tool_name, {"room": "hall"})
            await wrapper.load_state(saved)
            assert await wrapper.save_state() == saved != {}
            await wrapper.reset()
            assert await wrapper.save_state() != saved
        assert not native.running
    assert from_autogen_workbench(theirs) is darkroom and to_autogen_workbench(ours) is camera


def test_the_agent_s_text_of_an_image_result_is_the_image_again() -> None:
    """autogen's ``AssistantAgent`` sends ``ToolResult.to_text()``: the image is
    base64 in the text; the client sends it as an image."""
    result = ToolResult(name="snap", result=[
        TextResultContent(content="before\n"), ImageResultContent(content=Image(red_square())),
        TextResultContent(content="after")])
    content = result_content_of_text(result.to_text())
    assert isinstance(content, list)
    before, image, after = content
    assert isinstance(before, TextBlock) and isinstance(after, TextBlock)
    assert (before.text, after.text) == ("before\n", "after")
    assert image_pixels(image) == pixels(red_square())
    assert result_content_of_text("[Image: bm90IGEgcGljdHVyZQ==]") == \
        "[Image: bm90IGEgcGljdHVyZQ==]"  # base64, but no PNG: left as it came


def test_an_image_in_a_result_s_text_counts_as_the_picture_sent() -> None:
    """The client sends the agent's ``[Image: <base64>]`` as a picture, so its
    token estimate counts a picture (3 x 2 pixels: 1 token), not the base64."""
    model = StreamkitChatCompletionClient("anthropic:claude-sonnet-4-5", api_key="sk-fake")
    text = ToolResult(name="snap", result=[TextResultContent(content="a red square"),
                                           ImageResultContent(content=Image(red_square()))])
    results = AutogenResultMessage(content=[AutogenResult(content=text.to_text(),
                                                          call_id="c1", name="snap")])
    assert model.count_tokens([results]) == TOKENS_PER_MESSAGE + 3 + 1


# ================================================================= autogen's agent


def calling(name: str, call_id: str) -> ChatResponse:
    return ChatResponse(content=[ToolCallBlock(call_id, name, "{}")])


def tool_names(request_tools: list[Tool | dict[str, Any]] | None) -> list[str]:
    return [item.name if isinstance(item, Tool) else item["name"] for item in request_tools or []]


def sent_results(fake: FakeProvider, number: int) -> list[FunctionExecutionResult]:
    """The tool results the ``number``-th request sent, as the fake read them."""
    return [result for message in fake.requests[number].messages
            if isinstance(message, FunctionExecutionResultMessage) for result in message.content]


def final_text(result: TaskResult) -> str:
    """The agent's last message, which must be its text answer."""
    final = result.messages[-1]
    assert isinstance(final, TextMessage)
    return final.content


def model_on(fake: FakeProvider) -> StreamkitChatCompletionClient:
    return StreamkitChatCompletionClient("anthropic:claude-sonnet-4-5", api_key="sk-fake",
                                         base_url=fake.base_url("anthropic"), model_info=CAPABLE)


@pytest.mark.anyio
async def test_assistant_agent_runs_a_call_through_our_static_workbench() -> None:
    ran: list[str] = []

    def photograph(subject: str) -> list[TextBlock | DataBlock]:
        """Take a picture of the subject."""
        ran.append(subject)
        return [TextBlock(f"a picture of {subject}"),
                DataBlock(source=Base64Source(png_of(red_square()), "image/png"))]

    answers = [ChatResponse(content=[ToolCallBlock("call_1", "photograph",
                                                   '{"subject": "a red square"}')]),
               ChatResponse(content=[TextBlock("It is a red square.")])]
    async with FakeProvider(answers) as fake:
        model = model_on(fake)
        agent = AssistantAgent("assistant", model_client=model, reflect_on_tool_use=True,
                               workbench=to_autogen_workbench(StaticWorkbench([photograph])))
        result = await agent.run(task="What is in the picture?")
        await model.close()
    assert ran == ["a red square"]
    assert final_text(result) == "It is a red square."
    [sent] = sent_results(fake, 1)
    _, image = sent.blocks
    assert (sent.call_id, sent.text) == ("call_1", "a picture of a red square")
    assert image_pixels(image) == pixels(red_square())
    assert not fake.errors


@pytest.mark.anyio
async def test_assistant_agent_runs_an_mcp_server_s_changing_tools_and_sees_its_image() -> None:
    """autogen's agent over an MCP server written with the official SDK (stdio):
    ``unlock`` adds ``chart`` to the list, and the agent's next request has it;
    ``chart``'s image reaches the provider as a picture."""
    server = McpWorkbench.stdio(sys.executable, str(MCP_SERVER))
    answers = [calling("unlock", "call_1"),
               ChatResponse(content=[ToolCallBlock("call_2", "chart", '{"title": "Paris"}')]),
               ChatResponse(content=[TextBlock("Here is the chart.")])]
    async with server, FakeProvider(answers) as fake:
        model = model_on(fake)
        agent = AssistantAgent("assistant", model_client=model, reflect_on_tool_use=True,
                               max_tool_iterations=2, workbench=to_autogen_workbench(server))
        result = await agent.run(task="Unlock the chart and draw one for Paris.")
        await model.close()
    first, second, _ = (tool_names(request.request.tools if request.request else None)
                        for request in fake.requests)
    assert "chart" not in first and "chart" in second
    unlocked, chart = sent_results(fake, 2)
    assert (unlocked.text, chart.text) == ("chart unlocked", "chart: Paris")
    assert image_pixels(chart.blocks[1]) == pixels(MCP_PNG)
    assert final_text(result) == "Here is the chart."
    assert not fake.errors
