"""Workbenches in a client's ``tools=`` on every wire, over a FakeProvider.

A two-tool, three-turn loop (:func:`support.tool_loops.run_loop`): a
workbench whose tool list grows after its first call, beside a plain
function; the second turn's call returns an image. Every request lists the
workbench's tools as they are then, is valid for the wire's SDK types, and
the image reaches the wire where it allows (inside the result on Anthropic,
Gemini, Responses and Ollama, beside it on OpenAI Chat).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from support.request_oracles import sdk_valid
from support.tool_loops import PNG, WIRES, call, image_result, run_loop

import streamkit
from streamkit import FunctionExecutionResult, StaticWorkbench, Tool, Workbench

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def shout(text: str) -> str:
    """The text in capitals."""
    return text.upper()


def chart() -> list[Any]:
    """A chart of the sums so far."""
    return image_result()


class GrowingWorkbench(Workbench):
    """``add`` first; after its first call, ``chart`` too (a server's
    ``list_changed``)."""

    def __init__(self) -> None:
        self.inner = StaticWorkbench([add])

    async def list_tools(self) -> list[Tool]:
        return await self.inner.list_tools()

    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None, *,
                        call_id: str = "") -> FunctionExecutionResult:
        result = await self.inner.call_tool(name, arguments, call_id=call_id)
        self.inner = StaticWorkbench([add, chart])
        return result


@pytest.mark.parametrize("wire", sorted(WIRES))
async def test_a_changing_workbench_and_a_function_through_three_turns(wire: str) -> None:
    turns = [[call("call_1", "add", '{"a": 2, "b": 3}'), call("call_2", "shout", '{"text": "hi"}')],
             [call("call_3", "chart")]]
    run = await run_loop(WIRES[wire], [GrowingWorkbench(), shout], turns)
    assert [run.tool_names(n) for n in range(3)] == [
        ["add", "shout"], ["add", "chart", "shout"], ["add", "chart", "shout"]]
    first_results = run.messages[2]
    assert isinstance(first_results, streamkit.FunctionExecutionResultMessage)
    assert [result.text for result in first_results.content] == ["5", "HI"]
    assert run.images(2) == [PNG]  # the chart's image went out on the third request
    for number in range(3):
        sdk_valid(wire, run.body(number))
    last = run.messages[-1]
    assert isinstance(last, streamkit.ChatResponse) and last.text == "Done."


async def test_run_calls_answers_a_name_nobody_has_with_an_error_result() -> None:
    (result,) = await streamkit.run_calls([call("c1", "nope")], tools=[StaticWorkbench([add])])
    assert result.is_error and "no tool named 'nope'" in result.text and "add" in result.text


class Broken(GrowingWorkbench):
    """A workbench whose connection is gone: its calls raise."""

    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None, *,
                        call_id: str = "") -> FunctionExecutionResult:
        raise ConnectionError("the server is gone")


async def test_run_calls_raises_a_workbench_failure_as_it_is_not_in_a_group() -> None:
    raw = {"type": "function", "function": {"name": "mine", "parameters": {}}}
    with pytest.raises(TypeError, match="raw tool dict"):
        await streamkit.run_calls([call("c1", "mine"), call("c2", "shout", '{"text": "a"}')],
                                  tools=[raw, shout])
    with pytest.raises(ConnectionError, match="gone"):
        await streamkit.run_calls([call("c1", "add"), call("c2", "shout", '{"text": "a"}')],
                                  tools=[Broken(), shout])


def test_a_workbench_is_refused_where_its_tools_cannot_be_listed() -> None:
    workbench = StaticWorkbench([add])
    with pytest.raises(streamkit.ToolDefinitionError, match=r"await workbench.list_tools\(\)"):
        streamkit.build_request("openai", [streamkit.UserMessage("hi")], model="m",
                                tools=[workbench])  # type: ignore[list-item]
    client = streamkit.SyncClient("openai:model", api_key="sk-fake", base_url="http://127.0.0.1:9")
    with pytest.raises(streamkit.ToolDefinitionError, match=r"streamkit\.Client"):
        client.create([streamkit.UserMessage("hi")], tools=[workbench])
    with pytest.raises(streamkit.ToolDefinitionError, match=r"SyncClient\.stream"), \
            client.stream([streamkit.UserMessage("hi")], tools=[workbench]):
        pass
