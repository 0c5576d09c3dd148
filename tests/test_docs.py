"""The code of the docs runs: every ``python`` block of docs/structured-output.md,
in order, in one namespace with top-level ``await`` (as a notebook runs it), and
the README's block of ``partial_output`` against a scripted stream."""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from pathlib import Path
from typing import Any

import anyio
from structured_streams import ANSWERS, RECIPE, WIRES, Recipe, fragments

import streamkit
from streamkit.testing import ReplayServer

ROOT = Path(__file__).parent.parent
_BLOCK = re.compile(r"^( *)```python\n(.*?)^\1```", re.DOTALL | re.MULTILINE)


def python_blocks(text: str) -> list[str]:
    """The ``python`` blocks of Markdown text, a list item's indentation removed."""
    return [textwrap.dedent(code) for _, code in _BLOCK.findall(text)]


async def run_blocks(blocks: list[str], namespace: dict[str, Any], name: str) -> None:
    for number, block in enumerate(blocks, 1):
        code = compile(block, f"{name} block {number}", "exec",  # not this file's __future__
                       flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
        result = eval(code, namespace)  # the block's own code, as the page shows it
        if inspect.isawaitable(result):
            await result


def test_every_block_of_the_structured_output_page_runs(capsys: Any) -> None:
    blocks = python_blocks((ROOT / "docs" / "structured-output.md").read_text(encoding="utf-8"))
    assert len(blocks) >= 8
    namespace: dict[str, Any] = {"__name__": "docs"}
    anyio.run(run_blocks, blocks, namespace, "structured-output.md")
    out = capsys.readouterr().out
    assert "a step being written: ['Whisk']" in out
    assert "title='Fluffy pancakes' servings=4 steps=['Whisk']" in out
    assert "servings" in out and "data-output chunks" in out
    assert namespace["server"].requests  # it did go over the socket


def test_the_readme_block_runs() -> None:
    """The README's "For UIs" example, with the ``client``, ``messages`` and
    ``render`` it leaves to the reader: a client over a scripted stream."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [block for block in python_blocks(text) if "partial_output" in block]
    assert len(blocks) == 1
    rendered: list[Any] = []

    async def main() -> None:
        async with ReplayServer() as server:
            raw = WIRES["openai-chat"](fragments(ANSWERS["compact"], "3"))
            server.add("/chat/completions", raw, chunk_size=50)
            async with streamkit.Client("openai:gpt-4.1", api_key="k",
                                        base_url=server.url) as client:
                namespace = {"__name__": "readme", "client": client, "render": rendered.append,
                             "messages": [streamkit.UserMessage("A recipe")]}
                await run_blocks(blocks, namespace, "README.md")
            assert server.requests[0].json()["response_format"]["type"] == "json_schema"

    anyio.run(main)
    assert len(rendered) > 50
    last = rendered[-1]
    assert type(last).__name__ == "Recipe" and type(last) is not Recipe  # the README's own
    assert last.title == RECIPE.title
    assert [(s.text, s.minutes) for s in last.steps] == [(s.text, s.minutes)
                                                          for s in RECIPE.steps]
    assert rendered[0].title is None and any(r.title == "Cr" for r in rendered)
    assert any(r.steps and r.steps[0].minutes is None for r in rendered)
