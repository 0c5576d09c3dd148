"""The house's layers as tests: no import loops, the package's face and its
stable addresses imported by nobody inside, and rooms of a readable size.

The layers themselves (which package may import which) are import-linter's
contracts in ``pyproject.toml``, checked by ``lint-imports`` in ``make test``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp
import pytest

import streamkit

PACKAGE = Path(streamkit.__file__).parent

#: The modules left directly in ``streamkit/``: the public face, ``python -m``,
#: the version, and the stable addresses of the internals users import by
#: module (``tests/test_public_api.py``'s ``INTERNALS``).
STABLE_ADDRESSES = ("blocks", "codec", "errors", "events", "merge", "pipeline",
                    "replay_events", "usage")
ROOT_MODULES = {"__init__", "__main__", "__about__", *STABLE_ADDRESSES}


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    """Every import of streamkit, those inside functions included; imports
    under ``TYPE_CHECKING`` are left out (they never run)."""
    return grimp.build_graph("streamkit", exclude_type_checking_imports=True, cache_dir=None)


def test_no_import_loops_lazy_ones_included(graph: grimp.ImportGraph) -> None:
    loops = []
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back is not None:
                loops.append(" -> ".join((importer, *back)))
    assert loops == []


def test_nothing_inside_imports_the_face_or_a_stable_address(graph: grimp.ImportGraph) -> None:
    """``streamkit`` and its stable addresses re-export; the code imports where
    things live, so the layers stay what the contracts say."""
    outside = {"streamkit", *(f"streamkit.{name}" for name in STABLE_ADDRESSES)}
    found = sorted(f"{importer} -> {imported}"
                   for imported in outside
                   for importer in graph.find_modules_that_directly_import(imported)
                   if importer not in outside and importer != "streamkit.__main__")
    assert found == []


def test_the_root_holds_the_face_and_the_stable_addresses_only() -> None:
    modules = {path.stem for path in PACKAGE.glob("*.py")}
    assert modules == ROOT_MODULES
    assert len(modules) <= 12


def test_every_stable_address_re_exports_the_module_it_names(graph: grimp.ImportGraph) -> None:
    """A stable address imports one module, the one it stands for, and offers
    exactly what that module's ``__all__`` names. The module may gather names
    from its own room (``streamkit.model.blocks`` re-exports a data block's
    sources and PCM audio from their own modules), never from elsewhere."""
    import importlib
    import inspect

    for name in STABLE_ADDRESSES:
        address = importlib.import_module(f"streamkit.{name}")
        (home_name,) = graph.find_modules_directly_imported_by(f"streamkit.{name}")
        home = importlib.import_module(home_name)
        assert address.__all__ and address.__all__ == home.__all__, name
        assert all(getattr(address, each) is getattr(home, each) for each in home.__all__)
        homes = {value.__module__ for value in map(address.__dict__.get, address.__all__)
                 if inspect.isclass(value) or inspect.isfunction(value)}
        room = home_name.rpartition(".")[0]
        assert home_name in homes and {h.rpartition(".")[0] for h in homes} == {room}, (
            name, homes)


def test_no_module_is_over_700_lines() -> None:
    sizes = {str(path.relative_to(PACKAGE)): len(path.read_text().splitlines())
             for path in PACKAGE.rglob("*.py")}
    assert {name: lines for name, lines in sizes.items() if lines > 700} == {}


def test_every_module_imports_alone_as_the_first_import_of_an_interpreter() -> None:
    """``import streamkit.fake_provider`` alone once failed with a circular
    import through a package's ``__init__``, which the graph above does not
    see. One interpreter checks every module (``tests/support/import_alone.py``:
    a forked child per module, from the state a fresh ``import streamkit.x``
    reaches first)."""
    script = Path(__file__).parent / "support" / "import_alone.py"
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
