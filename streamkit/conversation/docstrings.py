"""A function's docstring read for a tool: its prose, and each parameter's description.

:func:`summary` is the prose before the first section (the tool's
description); :func:`parameter_docs` reads the parameter sections of the three
common styles: Google (``Args:``), NumPy (``Parameters`` underlined) and
Sphinx (``:param x:``), each description joined into one line.
"""

from __future__ import annotations

import re

__all__ = ["parameter_docs", "summary"]

# Patterns as strings: re compiles (and caches) them when a docstring is first
# read, not when streamkit is imported.
_SECTION = (
    r"^(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Other Parameters|"
    r"Returns?|Yields?|Raises|Examples?|Notes?|See Also|Attributes|Warnings?|References)"
    r"\s*:?\s*$")
_PARAMETER_SECTIONS = {"Args", "Arguments", "Parameters", "Params", "Keyword Args",
                       "Keyword Arguments", "Other Parameters"}
_SPHINX_FIELD = (r"^:(param|parameter|arg|argument|key|keyword)\s+(?:[^:]*\s)?"
                 r"\*{0,2}(\w+)\s*:\s*(.*)$")
_SPHINX_ANY = r"^:\w+"
_GOOGLE_ITEM = r"^\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$"
_NUMPY_ITEM = r"^\*{0,2}(\w+)\s*(?::\s*.*)?$"
_UNDERLINE = r"^-{3,}\s*$"


def summary(doc: str) -> str:
    """The docstring's prose: everything before its first section."""
    lines = doc.splitlines()
    kept: list[str] = []
    for index, line in enumerate(lines):
        stripped = line.strip()
        if re.match(_SPHINX_ANY, stripped) or (re.match(_SECTION, stripped) and (
                stripped.endswith(":") or _next_is_underline(lines, index))):
            break
        kept.append(line)
    return "\n".join(kept).strip()


def _next_is_underline(lines: list[str], index: int) -> bool:
    return index + 1 < len(lines) and bool(re.match(_UNDERLINE, lines[index + 1].strip()))


def parameter_docs(doc: str) -> dict[str, str]:
    """Parameter descriptions from Google, NumPy or Sphinx sections, joined
    into one line each."""
    docs: dict[str, list[str]] = {}
    lines = doc.splitlines()
    section: str | None = None
    numpy = False  # a NumPy section: "name : type" lines, the text below them
    current: list[str] | None = None
    item_indent = -1
    for index, line in enumerate(lines):
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        sphinx = re.match(_SPHINX_FIELD, stripped)
        if sphinx:
            section, current = None, docs.setdefault(sphinx.group(2), [])
            current.append(sphinx.group(3))
            item_indent = indent
            continue
        if re.match(_SPHINX_ANY, stripped):
            section, current = None, None
            continue
        heading = re.match(_SECTION, stripped)
        if heading and (stripped.endswith(":") or _next_is_underline(lines, index)):
            section, current, item_indent = heading.group(1), None, -1
            numpy = _next_is_underline(lines, index)
            continue
        if re.match(_UNDERLINE, stripped) or not stripped:
            continue
        if section in _PARAMETER_SECTIONS and (item_indent < 0 or indent <= item_indent):
            item = re.match(_NUMPY_ITEM if numpy else _GOOGLE_ITEM, stripped)
            if item:
                current = docs.setdefault(item.group(1), [])
                if not numpy and item.group(2):
                    current.append(item.group(2))
                item_indent = indent
                continue
        if current is not None and indent > item_indent:
            current.append(stripped)
        elif section is None:
            current = None
    return {name: " ".join(part for part in parts if part).strip()
            for name, parts in docs.items() if any(parts)}
