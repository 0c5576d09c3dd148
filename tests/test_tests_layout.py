"""The tests mirror the house: a folder per package of ``streamkit/`` and per
wire, the same file names for the same verbs in every wire's folder, helpers in
``support/`` and fixtures alone in ``conftest.py``, so a reader finds a module's
tests where the module is."""

from __future__ import annotations

import ast
from pathlib import Path

from support.paths import ROOT, TESTS

from streamkit.providers import WIRE_NAMES

PACKAGE = ROOT / "streamkit"
#: Folders of tests/ that are not tests of a package.
NOT_A_PACKAGE = {"support", "fixtures", "typing", "__pycache__"}
#: The verbs every wire has, each tested in a file of that name in its folder.
EVERY_WIRE_HAS = {"test_stream.py", "test_request.py", "test_response.py", "test_encode.py"}


def _folders(root: Path) -> set[str]:
    return {path.name for path in root.iterdir() if path.is_dir()} - NOT_A_PACKAGE


def _test_modules() -> list[Path]:
    return sorted(path for path in TESTS.rglob("test_*.py")
                  if not NOT_A_PACKAGE & set(path.relative_to(TESTS).parts))


def test_each_folder_is_a_package_of_streamkit() -> None:
    folders = _folders(TESTS)
    assert all((PACKAGE / name / "__init__.py").exists() for name in folders), folders
    assert folders >= {"model", "conversation", "framing", "providers", "reading",
                       "observability", "client", "testing", "web", "gateway", "adapters",
                       "cli"}


def test_each_wire_has_a_folder_with_the_same_file_names() -> None:
    wires = _folders(TESTS / "providers")
    assert wires == {name.replace("-", "_") for name in WIRE_NAMES}
    for wire in wires:
        assert (PACKAGE / "providers" / wire / "__init__.py").exists(), wire
        names = {path.name for path in (TESTS / "providers" / wire).glob("test_*.py")}
        assert names >= EVERY_WIRE_HAS, (wire, EVERY_WIRE_HAS - names)


def test_no_test_module_is_named_after_a_wire() -> None:
    """A wire's tests are in its folder, named by verb (not ``test_request_gemini.py``)."""
    spellings = {name.replace("-", "_") for name in WIRE_NAMES}
    named = [path for path in _test_modules()
             if any(spelling in path.stem for spelling in spellings)]
    assert named == []


def test_test_modules_import_no_other_test_module() -> None:
    """What two test modules share is in ``support`` (or a ``conftest.py`` fixture)."""
    found = []
    for path in _test_modules() + sorted((TESTS / "support").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            found += [f"{path.relative_to(TESTS)}: {name}" for name in names
                      if name.split(".")[-1].startswith(("test_", "conftest"))]
    assert found == []


def test_conftest_holds_fixtures_and_hooks_only() -> None:
    for path in sorted(TESTS.rglob("conftest.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):  # async fixtures too
                fixture = any("fixture" in ast.unparse(decorator)
                              for decorator in node.decorator_list)
                assert fixture or node.name.startswith("pytest_"), (path, node.name)
            else:
                assert isinstance(node, ast.Import | ast.ImportFrom | ast.Expr) or (
                    isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "__all__"
                ), (path, ast.unparse(node)[:80])
