"""Every streamkit module imports alone, as the first import of a fresh interpreter.

An import cycle can pass through a package's ``__init__``, which Python runs
implicitly before any of its modules: ``import streamkit.testing.fakes`` runs
``streamkit/testing/__init__.py`` first, which may import a module that needs
``streamkit.testing`` finished. The grimp graph of ``tests/test_layers.py``
sees the imports written, not those implicit ones, and a test process that
has already imported everything cannot fail this way at all: each module must
be the first one imported.

One interpreter per module would cost a second each (~200 modules). This
script is one interpreter instead: it imports ``streamkit`` (the first thing
any ``import streamkit.x`` does, so every module it loads is covered by that
import succeeding) and then, for every module it did not load, forks a child
that imports that module and nothing else, from the state any fresh
``import streamkit.x`` reaches first. Forking copies the interpreter, so a
child costs only its own module's imports.

The suite checks the modules a user imports by name (every package and the
top package's modules: 12 s of CPU for all ~200 was too much for the suite);
``--all`` checks every module.

Run: ``python tests/support/import_alone.py [--all]``: prints each module that failed
with its error, exits 1 if any did.
"""

from __future__ import annotations

import contextlib
import os
import sys
import traceback
from pathlib import Path

import streamkit

PACKAGE = Path(streamkit.__file__).parent
#: Modules that are no library to import: ``python -m streamkit``'s entry point.
SCRIPTS = frozenset({"streamkit.__main__"})


def module_names(everything: bool = False) -> list[str]:
    """The modules a user imports by name, by dotted name: every package (its
    ``__init__`` is where such a cycle passes) and every module of the top
    package (``streamkit.merge``, ``streamkit.codec``...); with ``everything``,
    every module of streamkit."""
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        if everything or is_package or len(parts) == 2:
            names.append(".".join(parts[:-1] if is_package else parts))
    return [name for name in names if name not in SCRIPTS]


def import_alone(name: str) -> str | None:
    """``None`` when ``name`` imports in a child of this process, else the
    child's error (the last line of its traceback)."""
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # the child: import, say how it went, leave without cleanup
        os.close(read)
        status = 0
        try:
            __import__(name)
        except BaseException:
            os.write(write, traceback.format_exc().strip().splitlines()[-1].encode())
            status = 1
        os._exit(status)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        said = pipe.read().decode(errors="replace")
    _, status = os.waitpid(child, 0)
    return None if os.waitstatus_to_exitcode(status) == 0 else said or f"status {status}"


def preload(names: list[str]) -> None:
    """Load here every module outside streamkit that ``names`` need (starlette,
    the adapters' frameworks...), then forget streamkit's own and import
    ``streamkit`` again: the state every fresh ``import streamkit.x`` reaches
    first, but for third-party modules already loaded, which take no part in
    a cycle of streamkit's and would cost each child a second of its own."""
    for name in names:
        with contextlib.suppress(BaseException):
            __import__(name)
    for name in [name for name in sys.modules if name.partition(".")[0] == "streamkit"]:
        del sys.modules[name]
    __import__("streamkit")


def main() -> int:
    names = [name for name in module_names("--all" in sys.argv) if name not in sys.modules]
    preload(names)
    failed = {name: error for name in names if name not in sys.modules
              for error in [import_alone(name)] if error is not None}
    for name, error in failed.items():
        print(f"{name}: {error}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
