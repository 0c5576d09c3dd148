"""``StaticWorkbench``: its tools' state saved, loaded and reset (autogen's
``StaticWorkbenchState`` shape), and a call to a name it does not have."""

from __future__ import annotations

from typing import Any

import pytest

import streamkit
from streamkit import StaticWorkbench

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Counter:
    """A tool's state: what its calls change."""

    def __init__(self) -> None:
        self.count = 0

    def bump(self, by: int = 1) -> int:
        """Add to the count."""
        self.count += by
        return self.count

    def save_state(self) -> dict[str, Any]:
        return {"count": self.count}

    async def load_state(self, state: dict[str, Any]) -> None:  # async: both kinds are awaited
        self.count = state["count"]


def plain(text: str) -> str:
    """No state."""
    return text


async def test_state_saves_loads_and_resets() -> None:
    counter = Counter()
    counter.count = 5  # the state before the workbench's first use
    async with StaticWorkbench([counter.bump, plain]) as workbench:
        assert (await workbench.call_tool("bump", {"by": 2})).text == "7"
        saved = await workbench.save_state()
        assert saved == {"type": "StaticWorkbenchState", "tools": {"bump": {"count": 7}}}
        await workbench.call_tool("bump", {"by": 10})
        await workbench.load_state(saved)
        assert counter.count == 7
        await workbench.reset()
        assert counter.count == 5
        await workbench.load_state({"tools": {"other": {}}})  # names it lacks: left alone
        assert counter.count == 5


async def test_a_state_that_is_not_one_is_refused() -> None:
    with pytest.raises(streamkit.InvalidMessageError, match="'tools' mapping"):
        await StaticWorkbench([plain]).load_state({"tools": []})


async def test_a_name_it_lacks_is_an_error_result() -> None:
    result = await StaticWorkbench([plain]).call_tool("nope", {}, call_id="c1")
    assert result.is_error and result.call_id == "c1" and "it has plain" in result.text
