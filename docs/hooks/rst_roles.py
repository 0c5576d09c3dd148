"""A griffe extension for the API reference: streamkit's docstrings are written
with reST roles (``:class:`~streamkit.Stream``` and double backticks), which
mkdocstrings reads as Markdown; they are shown as code, the name the role
would print (``~`` keeps the last part)."""

from __future__ import annotations

import re
from typing import Any

from griffe import Extension

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|data|mod|exc|obj|const):`(~?)([^`]+)`")
_DOUBLE = re.compile(r"``([^`]+?)``")


def markdown_of(text: str) -> str:
    """reST roles and literals as Markdown code spans."""
    def role(match: re.Match[str]) -> str:
        name = match.group(2)
        if match.group(1):
            name = name.rsplit(".", 1)[-1]
        return f"`{name}`"

    return _DOUBLE.sub(r"`\1`", _ROLE.sub(role, text))


class RstRoles(Extension):
    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown_of(obj.docstring.value)
