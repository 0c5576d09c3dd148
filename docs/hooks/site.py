"""mkdocs hooks of the documentation site (mkdocs.yml ``hooks:``).

- The front page is the README: ``index.md`` is made from README.md at build
  time, its ``docs/...`` links made relative to the site, so the two never drift;
  a page's ``../README.md`` links (which GitHub follows) lead to it on the site.
- The providers table is generated from ``streamkit.PROVIDERS`` wherever a page
  holds the marker ``<!-- providers-table -->``: never written by hand.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]
MARKER = "<!-- providers-table -->"


def front_page(readme: str) -> str:
    """The README as the site's index: ``docs/x.md`` links become ``x.md``."""
    return re.sub(r"\]\(docs/", "](", readme)


def on_files(files: Files, config: Any) -> Files:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    files.append(File.generated(config, "index.md", content=front_page(readme)))
    return files


def providers_table() -> str:
    """One row per registry entry: name, what it is, wire format, base URL, key
    variables, where the facts come from."""
    from streamkit.model.vendors import ALIASES, PROVIDERS

    aliases: dict[str, list[str]] = {}
    for alias, name in ALIASES.items():
        aliases.setdefault(name, []).append(alias)
    rows = ["| name | provider | wire format | base URL | key from | source |",
            "|---|---|---|---|---|---|"]
    for name, entry in PROVIDERS.items():
        also = f" (also {', '.join(f'`{a}`' for a in sorted(aliases[name]))})" \
            if name in aliases else ""
        wire = entry.wire if entry.dialect is None or entry.dialect == entry.wire \
            else f"{entry.wire} ({entry.dialect})"
        keys = " or ".join(f"`{k}`" for k in entry.env_keys) or "—"
        if not entry.key_required and entry.env_keys:
            keys += " (optional)"
        base = f"`{entry.base_url}`" if entry.base_url else "your `base_url`"
        rows.append(f"| `{name}`{also} | {entry.title} | `{wire}` | {base} | {keys} | "
                    f"[docs]({entry.source}) |")
    return "\n".join(rows)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    markdown = re.sub(r"\]\(\.\./README\.md(?=[#)])", "](index.md", markdown)
    if MARKER in markdown:
        markdown = markdown.replace(MARKER, providers_table())
    return markdown
