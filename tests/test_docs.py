"""The documentation: the site builds strictly, and every code block of the
README and of ``docs/`` runs.

Each page's Python blocks run in order in one namespace (a block may use what
an earlier one defined), top-level ``await`` allowed, from a scratch folder;
the page's awaiting blocks share one event loop, as in a notebook (a server or
client one block enters is still open in the next). No server is hidden from
the reader: a block that needs a model API starts the fake one it uses
(:class:`~streamkit.testing.FakeProvider` or
:class:`~streamkit.testing.ReplayServer`) in its own code, over real sockets,
and a page with an awaiting block says once how to run it (:data:`AWAIT_NOTE`).
``<!-- test: skip REASON -->`` marks a block that cannot
run here (it is still compiled); they are counted and kept rare. Shell
blocks are checked line by line: ``make`` targets exist, ``pip install``
extras exist, ``python -m streamkit`` command lines parse, and anything else
must be a known command.
"""

from __future__ import annotations

import ast
import inspect
import os
import re
import shlex
import subprocess
import sys
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
import pytest

from streamkit.__about__ import DISTRIBUTION, __version__
from streamkit.model import vendors as registry

ROOT = Path(__file__).parent.parent
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(p for p in DOCS.rglob("*.md") if "hooks" not in p.parts)]

#: Most blocks that may be marked ``skip`` over all pages.
MAX_SKIPPED = 3

_FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[\w+-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```",
                    re.M | re.S)
_DIRECTIVE = re.compile(r"<!--\s*test:\s*(?P<text>.*?)\s*-->", re.S)


@dataclass
class Block:
    page: Path
    line: int
    lang: str
    source: str
    directive: str  # "" when the block has none

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks_of(page: Path) -> list[Block]:
    """The fenced code blocks of a page, each with the directive just above it."""
    text = page.read_text(encoding="utf-8")
    found = []
    for match in _FENCE.finditer(text):
        before = text[:match.start()].rstrip().rsplit("\n", 1)[-1]
        directive = _DIRECTIVE.fullmatch(before.strip())
        indent = len(match.group("indent"))
        source = "\n".join(line[indent:] for line in match.group("body").splitlines())
        found.append(Block(page, text.count("\n", 0, match.start()) + 1, match.group("lang"),
                           source, directive.group("text") if directive else ""))
    return found


ALL_BLOCKS = [block for page in PAGES for block in blocks_of(page)]


def page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


# ---------------------------------------------------------------- the site


def test_the_site_builds_strictly_with_the_generated_pages(tmp_path: Path) -> None:
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d",
                           str(site)], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          check=False, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    providers = (site / "providers" / "index.html").read_text()
    for name, entry in registry.PROVIDERS.items():  # the table comes from the registry
        assert f"<code>{name}</code>" in providers and entry.title.split(" (")[0] in providers
    front = (site / "index.html").read_text()
    assert "streamkit" in front and 'href="streaming/"' in front  # the README, links rebased
    reference = (site / "reference" / "stream" / "index.html").read_text()
    assert "Replayed" in reference and ":class:" not in reference


def test_every_block_has_a_language_and_few_are_skipped() -> None:
    unnamed = [block.where for block in ALL_BLOCKS if not block.lang]
    assert not unnamed, f"code blocks without a language: {unnamed}"
    known = ("python", "sh", "text", "toml")
    assert not [b.where for b in ALL_BLOCKS if b.lang not in known], \
        f"languages the tests do not run: only {known}"
    skipped = [b.where for b in ALL_BLOCKS if b.directive.startswith("skip")]
    assert len(skipped) <= MAX_SKIPPED, f"too many blocks that do not run: {skipped}"
    assert sum(b.lang == "python" for b in ALL_BLOCKS) >= 30
    for block in ALL_BLOCKS:  # `skip` is the only one: no directive serves a hidden API
        if block.directive and not block.directive.startswith("skip "):
            pytest.fail(f"{block.where}: unknown directive {block.directive!r}")


# ---------------------------------------------------------------- Python blocks


def run_python(block: Block, namespace: dict[str, Any], loop: PageLoop) -> None:
    code = compile(block.source, block.where, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    if block.directive.startswith("skip"):
        return  # compiled, not run
    execute(code, namespace, loop)


class PageLoop:
    """One task on one event loop (in a thread) that awaits a page's blocks in
    turn: what one block enters (a server, a client, their task groups) is
    still open, in the same task, when the next one runs."""

    def __init__(self, portal: anyio.from_thread.BlockingPortal) -> None:
        async def open_stream() -> Any:
            return anyio.create_memory_object_stream[tuple[Any, Future[None]]](1)

        self._portal = portal
        self._send, receive = portal.call(open_stream)
        portal.start_task_soon(self._run, receive)

    @staticmethod
    async def _run(receive: Any) -> None:
        async with receive:
            async for awaitable, done in receive:
                try:
                    await awaitable
                except BaseException as exc:  # the block's failure, raised by wait()
                    done.set_exception(exc)
                    if not isinstance(exc, Exception):
                        raise
                else:
                    done.set_result(None)

    def wait(self, awaitable: Any) -> None:
        done: Future[None] = Future()
        self._portal.call(self._send.send, (awaitable, done))
        done.result()

    def close(self) -> None:
        self._portal.call(self._send.aclose)


def execute(code: Any, namespace: dict[str, Any], loop: PageLoop) -> None:
    """Run a block; one with top-level ``await`` is awaited on the page's loop."""
    result = eval(code, namespace)
    if inspect.iscoroutine(result):
        loop.wait(result)


PYTHON_PAGES = sorted({b.page for b in ALL_BLOCKS if b.lang == "python"}, key=page_id)


@pytest.mark.parametrize("page", PYTHON_PAGES, ids=page_id)
def test_every_python_block_of_the_page_runs(page: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {"__name__": "__docs__"}
    with anyio.from_thread.start_blocking_portal() as portal:
        loop = PageLoop(portal)
        try:
            for block in blocks_of(page):
                if block.lang == "python":
                    run_block(block, namespace, loop)
        finally:
            loop.close()


def run_block(block: Block, namespace: dict[str, Any], loop: PageLoop) -> None:
    """Run one block; its failure says where it is."""
    try:
        run_python(block, namespace, loop)
    except Exception as exc:
        while isinstance(exc, ExceptionGroup) and len(exc.exceptions) == 1:
            exc = exc.exceptions[0]  # an event loop's group of one: say what it holds
        raise AssertionError(f"the block at {block.where} failed: "
                             f"{type(exc).__name__}: {exc}") from exc


def test_getting_started_shows_its_example_file_as_it_is() -> None:
    """The page's first example is ``examples/getting_started.py``, which
    tests/test_distribution.py runs from a freshly installed wheel: the same
    code, so the page cannot drift from what was run."""
    first = next(b for b in blocks_of(DOCS / "getting-started.md") if b.lang == "python")
    example = (ROOT / "examples" / "getting_started.py").read_text(encoding="utf-8")
    assert first.source.strip("\n") == example.strip("\n")


#: How a page's examples run, said once, before its first block that awaits, on
#: every page that has one: pasted into a file, top-level ``await`` is a SyntaxError.
AWAIT_NOTE = ("The examples use top-level `await` (as in `python -m asyncio` or Jupyter); in a "
              "file, put them in `async def main()` and run `asyncio.run(main())`.")


def awaits(block: Block) -> bool:
    """Whether a Python block awaits at top level (``await``, ``async with``, ``async for``)."""
    code = compile(block.source, block.where, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    return bool(code.co_flags & inspect.CO_COROUTINE)


def test_a_page_with_top_level_await_says_once_how_to_run_it() -> None:
    missing = []
    for page in PAGES:
        awaiting = [b.line for b in blocks_of(page) if b.lang == "python" and awaits(b)]
        lines = page.read_text(encoding="utf-8").splitlines()
        before = " ".join(" ".join(lines[:awaiting[0] - 1]).split()) if awaiting else ""
        if awaiting and (" ".join(" ".join(lines).split()).count(AWAIT_NOTE) != 1
                         or AWAIT_NOTE not in before):
            missing.append(f"{page_id(page)} (before line {awaiting[0]})")
    assert not missing, f"say once how the examples run ({AWAIT_NOTE!r}): {missing}"


# ---------------------------------------------------------------- shell blocks


def make_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text()
    return set(re.findall(r"^([A-Za-z][\w.-]*):", text, re.M))


def _project() -> dict[str, Any]:
    import tomllib

    project: dict[str, Any] = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return project


def extras() -> set[str]:
    return set(_project()["optional-dependencies"])


def _package_name(requirement: str) -> str:
    """A requirement's distribution name, normalised (``httpx_aiohttp>=1`` -> ``httpx-aiohttp``)."""
    return re.split(r"[\[<>=!~;@ ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def known_packages() -> set[str]:
    """The third-party packages a page may tell the reader to install: those
    pyproject.toml names (a dependency of the core or of any extra)."""
    project = _project()
    named = [*project["dependencies"], *(requirement for group in
                                         project["optional-dependencies"].values()
                                         for requirement in group)]
    return {_package_name(requirement) for requirement in named} - {DISTRIBUTION}


_REQUIREMENT = re.compile(r"(?P<target>[^\[\]<>=!~]+)(?:\[(?P<extras>[^\]]*)\])?(?P<version>.*)")
_OUR_WHEEL = re.compile(rf"{DISTRIBUTION.replace('-', '_')}-(?P<version>[^-]+)-py3-none-any\.whl")


def check_requirement(argument: str) -> str | None:
    """Why one argument of ``pip install`` is wrong, or ``None``: it must be
    this distribution (by name, the clone ``.``, or its wheel, of this
    version) with extras pyproject.toml has, or a package pyproject names."""
    found = _REQUIREMENT.fullmatch(argument)
    if found is None:
        return "not a requirement"
    target = found.group("target")
    chosen = {extra.strip() for extra in (found.group("extras") or "").split(",") if extra.strip()}
    name = _package_name(target)
    if name == "streamkit":
        return f"'streamkit' on the package index is someone else's package: name {DISTRIBUTION!r}"
    if target.rstrip("/") == ".":
        pass  # a clone of the repository
    elif "/" in target or target.endswith((".whl", ".tar.gz")):
        wheel = _OUR_WHEEL.fullmatch(target.rsplit("/", 1)[-1])
        if wheel is None or wheel.group("version") != __version__:
            return f"not this distribution's wheel ({DISTRIBUTION}, {__version__})"
    elif name in known_packages():
        return None  # a third-party package's extras are its own
    elif name != DISTRIBUTION:
        return f"unknown package {target!r} (pyproject.toml names no such package)"
    unknown = chosen - extras()
    return f"no extra {sorted(unknown)} in pyproject.toml" if unknown else None


def check_pip_install(arguments: list[str]) -> str | None:
    """Why the arguments of a ``pip install`` are wrong, or ``None``."""
    for argument in arguments:
        if not argument.startswith("-"):  # an option (-e, -q, -U) checks nothing
            wrong = check_requirement(argument)
            if wrong is not None:
                return f"{argument}: {wrong}"
    return None


#: Commands a page may show that these tests cannot run here, each checked for form.
_OTHER_COMMANDS = {
    "uvicorn": lambda args: (ROOT / (args[0].split(":")[0].replace(".", "/") + ".py")).exists(),
    "sudo": lambda args: args[:2] == ["apt-get", "install"],
    "apt-get": lambda args: args[:1] == ["install"],
    "export": lambda args: bool(args) and "=" in args[0],
    "uv": lambda args: args == ["build"],
}


def check_shell_line(line: str) -> str | None:
    """Why a shell line is wrong, or ``None``."""
    words = shlex.split(line, comments=True)
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[0]):  # VAR=value command
        words = words[1:]
    if not words:
        return None
    command, args = words[0], words[1:]
    if command == "make":
        targets = [a for a in args if "=" not in a]
        missing = [t for t in targets if t not in make_targets()]
        return f"no make target {missing}" if missing else None
    if command == "uv" and args[:1] == ["pip"]:  # uv pip install: as pip install
        command, args = "pip", args[1:]
    if command == "pip" and args[:1] == ["install"]:
        return check_pip_install(args[1:])
    if command in ("python", ".venv/bin/python") and args[:2] == ["-m", "streamkit"]:
        from streamkit.cli.commands import build_parser

        try:
            build_parser().parse_args(args[2:])
        except SystemExit:
            return "python -m streamkit does not take these arguments"
        return None
    if command in ("python", ".venv/bin/python") and args and args[0].endswith(".py"):
        return None if (ROOT / args[0]).exists() else f"no file {args[0]}"
    check = _OTHER_COMMANDS.get(command)
    if check is None:
        return f"unknown command {command!r} (add a rule to tests/test_docs.py)"
    return None if check(args) else f"{command} {' '.join(args)} does not look right"


SHELL_BLOCKS = [b for b in ALL_BLOCKS if b.lang == "sh"]
TOML_BLOCKS = [b for b in ALL_BLOCKS if b.lang == "toml"]


@pytest.mark.parametrize("block", TOML_BLOCKS, ids=lambda b: b.where)
def test_every_toml_block_is_a_gateway_config_that_loads(block: Block) -> None:
    """The pages' TOML is the gateway's configuration: each block loads, with
    every variable it names set."""
    import tomllib

    from streamkit.gateway.config import parse_config

    names = re.findall(r'_env\s*=\s*"(\w+)"', block.source)
    config = parse_config(tomllib.loads(block.source), environ=dict.fromkeys(names, "k1,k2"))
    assert config.models, block.where


@pytest.mark.parametrize("block", SHELL_BLOCKS, ids=lambda b: b.where)
def test_every_shell_line_is_a_command_that_exists(block: Block) -> None:
    for line in block.source.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            wrong = check_shell_line(line)
            assert wrong is None, f"{block.where}: {line!r}: {wrong}"


def test_the_shell_checks_catch_what_is_wrong() -> None:
    assert check_shell_line("make test") is None
    assert check_shell_line("make bench UPDATE=1") is None
    assert check_shell_line("CI=1 make test") is None
    assert check_shell_line("make nothing-here") is not None
    assert check_shell_line("pip install 'streamkit-llm[web]'") is None
    assert check_shell_line("pip install 'streamkit-llm[web,all]' fastapi") is None
    assert check_shell_line("pip install -e '.[all]'") is None
    assert check_shell_line(f"uv pip install 'dist/streamkit_llm-{__version__}"
                            "-py3-none-any.whl[all]'") is None
    assert check_shell_line("pip install 'dist/streamkit_llm-0.0.1-py3-none-any.whl'") is not None
    assert check_shell_line("pip install 'streamkit-llm[nope]'") is not None
    assert check_shell_line("pip install '.[nope]'") is not None
    assert check_shell_line("pip install 'streamkit[web]'") is not None  # someone else's
    assert check_shell_line("pip install streamkit") is not None
    assert check_shell_line("pip install streamkit-lm") is not None  # a typo: unknown
    assert check_shell_line("python -m streamkit replay x.sse --json") is None
    assert check_shell_line("python -m streamkit chat") is not None  # --model is required
    assert check_shell_line("rm -rf /") is not None


# ---------------------------------------------------------------- install lines anywhere

#: Where a reader meets an install line: the pages, the docstrings and runtime
#: messages of the package, the examples.
_READ = [ROOT / "README.md", *sorted(DOCS.rglob("*.md")), *sorted(ROOT.glob("streamkit/**/*.py")),
         *sorted(path for path in (ROOT / "examples").iterdir() if path.is_file())]
_PIP_INSTALL = re.compile(r"\bpip install\b")
#: One argument after it: quoted, or a run of what a shell word, a backtick
#: span or a Python string would not end at.
_ARGUMENT = re.compile(r"""[ \t]+('[^'\n]*'|"[^"\n]*"|[^\s'"`()]+)""")
#: A requirement of this package anywhere (a list of extras in prose, say).
_OUR_REQUIREMENT = re.compile(r"(?<![\w./-])streamkit(?:-llm)?\[[^\]\n]*\]")


def install_commands(text: str) -> list[tuple[int, list[str]]]:
    """Every ``pip install ...`` in a text, prose, code block or Python string
    alike: (line number, its arguments, unquoted). A template (``{extra}``)
    is not a line a reader runs and is left out."""
    found = []
    for match in _PIP_INSTALL.finditer(text):
        arguments, at = [], match.end()
        while (argument := _ARGUMENT.match(text, at)) is not None:
            word = argument.group(1)
            if word.startswith("#") or word in ("&&", "||", "|", ";"):
                break
            word = word.strip("'\"")
            arguments.append(word if set(word) == {"."} else word.rstrip(".,;:"))
            at = argument.end()
        if not any("{" in argument for argument in arguments):
            found.append((text.count("\n", 0, match.start()) + 1, arguments))
    return found


def test_every_install_line_names_this_distribution_and_extras_it_has() -> None:
    """``streamkit`` on the package index is someone else's package: every
    ``pip install`` a reader is shown (README, docs, docstrings, runtime hints,
    examples) names ``streamkit-llm`` with extras pyproject.toml has, the clone
    or its wheel, or a package pyproject.toml names."""
    wrong = set()
    for path in _READ:
        text, where = path.read_text(encoding="utf-8"), path.relative_to(ROOT)
        for line, arguments in install_commands(text):
            why = check_pip_install(arguments) if arguments else "installs nothing"
            if why is not None:
                wrong.add(f"{where}:{line}: pip install {' '.join(arguments)}: {why}")
        for requirement in _OUR_REQUIREMENT.finditer(text):
            why = check_requirement(requirement.group())
            if why is not None:
                line = text.count("\n", 0, requirement.start()) + 1
                wrong.add(f"{where}:{line}: {requirement.group()}: {why}")
    assert sorted(wrong) == []


def test_the_install_line_scan_reads_prose_code_and_strings() -> None:
    text = ("Run `pip install 'streamkit-llm[web]' fastapi`, then pip install -e .\n"
            "_INSTALL = \"missing: pip install 'streamkit[prices]'\"\n"
            "    pip install streamkit-llm  # the core\n"
            "f\"pip install '{DISTRIBUTION}[{extra}]'\"\n")
    assert install_commands(text) == [(1, ["streamkit-llm[web]", "fastapi"]), (1, ["-e", "."]),
                                      (2, ["streamkit[prices]"]), (3, ["streamkit-llm"])]
