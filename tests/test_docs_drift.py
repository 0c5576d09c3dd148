"""Where a number or a name in the docs comes from the code, a test reads both.

The README and the pages of ``docs/`` quote the registry's size, link to each
other's headings, list every option of the command line and order the guides;
each is checked here against its source (the registry, the headings, the CLI's
argparse parsers, mkdocs.yml's nav), cheaply: no server, no site build
(``tests/test_docs.py`` builds the site and runs the blocks).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import yaml
from markdown.extensions.toc import slugify

import streamkit
from streamkit.cli.commands import build_parser

ROOT = Path(__file__).parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(p for p in DOCS.rglob("*.md") if "hooks" not in p.parts)]

_FENCED = re.compile(r"^( *)```.*?^\1```", re.M | re.S)
_HEADING = re.compile(r"^#{1,6} +(.+?) *#*$", re.M)
_LINK = re.compile(r"\]\((?P<target>[^)\s]*#[^)\s]+)\)")


def prose(page: Path) -> str:
    """A page without its code blocks (a ``# comment`` there is no heading)."""
    return _FENCED.sub("", page.read_text(encoding="utf-8"))


def anchors(page: Path) -> set[str]:
    """The ids of a page's headings, as mkdocs (and GitHub, for these headings) make them."""
    return {slugify(heading.replace("`", ""), "-") for heading in _HEADING.findall(prose(page))}


def test_every_count_of_providers_is_the_registrys() -> None:
    claims = [(page.relative_to(ROOT), int(number)) for page in PAGES
              for number in re.findall(r"\b(\d+)\s+providers\b", prose(page))]
    assert claims, "no page says how many providers there are"
    wrong = [claim for claim in claims if claim[1] != len(streamkit.PROVIDERS)]
    assert not wrong, f"streamkit.PROVIDERS has {len(streamkit.PROVIDERS)}: {wrong}"


def test_every_link_to_a_heading_finds_it() -> None:
    """mkdocs --strict checks the site's anchors; this checks them on GitHub too,
    the README's included, without building the site."""
    broken = []
    for page in PAGES:
        for target in _LINK.findall(prose(page)):
            path, anchor = target.split("#", 1)
            if path.startswith(("http://", "https://")):
                continue
            linked = (page.parent / path).resolve() if path else page
            if not linked.exists() or anchor not in anchors(linked):
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert not broken, f"links to headings that do not exist: {broken}"


def test_every_mention_of_a_readme_section_names_one() -> None:
    sections = {slugify(name, "-") for name in _HEADING.findall(prose(README))}
    wrong = [f"{page.relative_to(ROOT)}: {name}" for page in PAGES
             for name in re.findall(r"README's (\w[\w ]*?) section", prose(page))
             if slugify(name, "-") not in sections]
    assert not wrong, f"README sections that do not exist: {wrong}"


def subcommands() -> dict[str, argparse.ArgumentParser]:
    """``python -m streamkit``'s subcommands by name."""
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def section(page: Path, command: str) -> str:
    """The text of the ``##`` sections whose heading names ``command`` in backticks."""
    parts = re.split(r"^(?=## )", page.read_text(encoding="utf-8"), flags=re.M)
    return "".join(part for part in parts
                   if part.startswith("## ") and f"`{command}`" in part.splitlines()[0])


def test_every_option_of_the_command_line_is_in_its_section_of_cli_md() -> None:
    page = DOCS / "cli.md"
    missing = []
    for name, parser in subcommands().items():
        text = section(page, name)
        assert text, f"docs/cli.md has no section headed `{name}`"
        missing += [f"{name} {option}" for action in parser._actions
                    for option in action.option_strings
                    if option.startswith("--") and option != "--help"
                    and not re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text)]
    assert not missing, f"options docs/cli.md does not describe: {missing}"


def readme_guides() -> list[str]:
    """The pages the README's "The documentation" list links to, in order."""
    text = README.read_text(encoding="utf-8")
    listed = text.split("\n## The documentation\n", 1)[1].split("\n## ", 1)[0]
    return [path for path in re.findall(r"^- \[[^]]+\]\(docs/([\w/-]+\.md)\)", listed, re.M)
            if not path.startswith("reference/")]


def nav_guides() -> list[str]:
    """The pages of mkdocs.yml's Guides section, in order."""
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]
    guides = next(item["Guides"] for item in nav if isinstance(item, dict) and "Guides" in item)
    return [next(iter(entry.values())) for entry in guides]


def test_the_guides_are_in_the_readmes_order_the_gateway_before_the_internals() -> None:
    listed = readme_guides()
    assert nav_guides() == listed, "mkdocs.yml's Guides must follow README's list"
    assert listed.index("gateway.md") < listed.index("internals.md") < \
        listed.index("benchmarks.md")
