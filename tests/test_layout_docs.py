"""The layout the docs show is the layout the code has.

``docs/internals.md`` ("The layout") names every package and every module of
``streamkit/`` floor by floor, and README.md's "The layout" table names every
package; both must follow the order of the layers contract in
``pyproject.toml`` (the one import-linter checks), top floor first.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

import streamkit

ROOT = Path(__file__).parent.parent
PACKAGE = Path(streamkit.__file__).parent
WIRES = {"openai_chat", "openai_responses", "anthropic", "gemini", "ollama"}


def _layers() -> list[set[str]]:
    """The layers contract's packages, top first, as paths under ``streamkit/``."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contract = next(c for c in config["tool"]["importlinter"]["contracts"] if c["id"] == "layers")
    return [{name.strip().removeprefix("streamkit.") for name in layer.split("|")}
            for layer in contract["layers"]]


def _floor_of(package: str) -> int:
    top = package.split("/")[0]
    return next(index for index, layer in enumerate(_layers()) if top in layer)


def _table(text: str, heading: str) -> list[list[str]]:
    """The rows (cells) of the first table under ``heading``."""
    section = text.split(heading + "\n", 1)[1].split("\n## ", 1)[0]
    lines = section.splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith("|"))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def _packages() -> set[str]:
    """Every package under streamkit/, as a path (the wire packages are the providers')."""
    return {str(init.parent.relative_to(PACKAGE)) for init in PACKAGE.rglob("__init__.py")
            if init.parent != PACKAGE and init.parent.name not in WIRES}


INTERNALS = _table((ROOT / "docs/internals.md").read_text(), "## The layout")


def _row_package(row: list[str]) -> str:
    return row[1].strip("`").removesuffix("/")


def test_every_package_has_one_row_in_internals() -> None:
    listed = [_row_package(row) for row in INTERNALS]
    assert sorted(listed) == sorted(_packages())


@pytest.mark.parametrize("row", INTERNALS, ids=_row_package)
def test_a_row_names_every_module_of_its_package_and_nothing_else(row: list[str]) -> None:
    package = PACKAGE / _row_package(row)
    named = set(re.findall(r"`([a-z_]+\.py)`", row[2]))
    modules = {path.name for path in package.glob("*.py")} - {"__init__.py"}
    assert modules - named == set(), "modules the row leaves out"
    assert {name for name in named if not any(package.rglob(name))} == set(), "no such module"
    subpackages = {path.parent.name for path in package.glob("*/__init__.py")}
    named_packages = set(re.findall(r"`([a-z_]+)/`", row[2]))
    own_rows = {Path(_row_package(other)).name for other in INTERNALS}
    assert subpackages - named_packages - own_rows == set()


def test_internals_runs_from_the_top_floor_down() -> None:
    floors = [_floor_of(_row_package(row)) for row in INTERNALS]
    assert floors == sorted(floors)
    by_label: dict[str, set[int]] = {}
    for row, floor in zip(INTERNALS, floors, strict=True):
        by_label.setdefault(row[0], set()).add(floor)
    assert all(len(found) == 1 for found in by_label.values()), by_label


def test_the_readme_names_every_package_top_floor_first() -> None:
    rows = _table((ROOT / "README.md").read_text(), "## The layout")
    packages = [[name.removeprefix("streamkit/").removesuffix("/")
                 for name in re.findall(r"`(streamkit/[a-z_/]+)`", row[1])] for row in rows]
    listed = [name for names in packages for name in names]
    assert sorted(listed) == sorted(name for name in _packages() if "/" not in name)
    floors = [_floor_of(name) for name in listed]
    assert floors == sorted(floors)


def test_every_path_the_docs_and_docstrings_name_exists() -> None:
    """A test, script or module named by its path in the docs, README or a
    docstring is where it says (moving a file moves its mentions)."""
    texts = [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *PACKAGE.rglob("*.py")]
    pattern = re.compile(r"(?<![\w/.])((?:tests|streamkit|bench|examples)/[\w/]+\.py)\b")
    named = {(str(path.relative_to(ROOT)), found) for path in texts
             for found in pattern.findall(path.read_text())}
    assert sorted((where, found) for where, found in named if not (ROOT / found).exists()) == []
