"""docs/structured-output.md shows what it says: its blocks (which tests/test_docs.py
runs with every page) print the partial values the page describes."""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from pathlib import Path
from typing import Any

import anyio

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
