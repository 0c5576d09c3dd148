"""What ``pip install`` gets: the sdist and the wheel built from this tree,
installed in a fresh virtual environment and run from outside the tree.

uv (which make's install step puts in .venv) builds the sdist, then the wheel
from the sdist, so a wheel that works proves the sdist holds what a build
needs. A fresh venv gets ``<wheel>[all]`` from uv's cache (filled by the same
install step: under a second offline, a few seconds online when the cache
falls short), and ``examples/getting_started.py``, the Getting-started page's
first example, runs there with that venv's Python in a folder outside the
repository: it imports the installed package, not this tree.
"""

from __future__ import annotations

import email.message
import email.parser
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

from streamkit.__about__ import DISTRIBUTION, __version__

ROOT = Path(__file__).parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
#: The extras of the development and the benchmarks, in no one's ``all``.
NOT_RUNTIME = {"dev", "bench", "all"}
RUNTIME_EXTRAS = set(PROJECT["optional-dependencies"]) - NOT_RUNTIME
STEM = f"{DISTRIBUTION.replace('-', '_')}-{__version__}"

#: Run in the fresh venv: where ``streamkit`` comes from, which distribution
#: and version, every requirement of ``all`` installed (on stderr), then the
#: example as ``python getting_started.py`` would run it (on stdout).
PROBE = """
import importlib.metadata as metadata, re, runpy, sys
import streamkit
needed = [re.split(r"[<>=!~ ;\\[]", r, maxsplit=1)[0]
          for r in metadata.requires(sys.argv[1]) or () if "extra == 'all'" in r]
missing = []
for name in needed:
    try:
        metadata.distribution(name)
    except metadata.PackageNotFoundError:
        missing.append(name)
print(streamkit.__file__, metadata.version(sys.argv[1]), missing, file=sys.stderr)
runpy.run_path(sys.argv[2], run_name="__main__")
"""


def uv() -> str:
    found = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if found is None:
        pytest.fail("uv is not installed: `make .venv/.dev-installed` installs it in .venv")
    return found


def run(*command: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run([str(part) for part in command], cwd=cwd, env=environ,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, f"{command}: {done.stdout[-2000:]}{done.stderr[-4000:]}"
    return done


def metadata_of(text: str) -> email.message.Message:
    return email.parser.Parser().parsestr(text)


def requirements(metadata: email.message.Message, extra: str) -> set[str]:
    return {requirement.split(";")[0].strip() for requirement in metadata.get_all("Requires-Dist")
            if f"extra == '{extra}'" in requirement}


def check_the_built_files(dist: Path) -> Path:
    """The sdist and the wheel are ``streamkit-llm`` of this version, with
    every extra of pyproject.toml, ``all`` holding every runtime extra's
    requirements; the wheel's path."""
    wheel, sdist = dist / f"{STEM}-py3-none-any.whl", dist / f"{STEM}.tar.gz"
    assert {path.name for path in dist.iterdir() if path.name != ".gitignore"} == \
        {sdist.name, wheel.name}
    with tarfile.open(sdist) as archive:
        pkg_info = archive.extractfile(f"{STEM}/PKG-INFO")
        assert pkg_info is not None
        sdist_metadata = metadata_of(pkg_info.read().decode())
    with zipfile.ZipFile(wheel) as archive:
        wheel_metadata = metadata_of(archive.read(f"{STEM}.dist-info/METADATA").decode())
    for metadata in (sdist_metadata, wheel_metadata):
        assert (metadata["Name"], metadata["Version"]) == (DISTRIBUTION, __version__)
    assert set(wheel_metadata.get_all("Provides-Extra")) == set(PROJECT["optional-dependencies"])
    every_runtime_extra = set().union(*(requirements(wheel_metadata, extra)
                                        for extra in RUNTIME_EXTRAS))
    assert requirements(wheel_metadata, "all") == every_runtime_extra
    return wheel


def test_the_wheel_installs_with_all_in_a_fresh_venv_and_getting_started_runs(
        tmp_path: Path) -> None:
    dist, venv, outside = tmp_path / "dist", tmp_path / "venv", tmp_path / "elsewhere"
    run(uv(), "build", "-q", "--out-dir", dist, ROOT, cwd=ROOT)
    wheel = check_the_built_files(dist)
    run(uv(), "venv", "-q", "--python", sys.executable, venv, cwd=tmp_path)
    python = venv / "bin" / "python"
    install = [uv(), "pip", "install", "-q", "--python", str(python), f"{wheel}[all]"]
    if subprocess.run([*install, "--offline"], capture_output=True, check=False).returncode:
        run(*install, cwd=tmp_path)  # what make's install step left in uv's cache was not enough
    outside.mkdir()
    example = shutil.copy(ROOT / "examples" / "getting_started.py", outside)
    done = run(python, "-c", PROBE, DISTRIBUTION, example, cwd=outside)
    imported_from, version, missing = done.stderr.split(" ", 2)
    assert Path(imported_from).is_relative_to(venv / "lib")
    assert (version, missing.strip()) == (__version__, "[]")
    page = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
    printed = page.split("```text\n", 1)[1].split("```", 1)[0]  # the output the page shows
    assert done.stdout == printed == "Hello! I am a fake model, streamed live.\nfinished: stop\n"


def test_the_readme_lists_every_extra_and_all() -> None:
    """README's Installation table names every extra a user installs, and
    ``all``; not dev or bench."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Installation\n", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\| `([\w-]+)` \|", section, re.M)
    assert listed[-1] == "all" and set(listed) == RUNTIME_EXTRAS | {"all"}
    assert len(listed) == len(set(listed))
