"""Tools from Python functions, as autogen's ``FunctionTool`` makes them.

(Being written: see issue 11. The lead defined :class:`Tool` so that the
request encoders can be written against it.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Tool:
    """A tool the model may call: its name, description and JSON schema of
    parameters; ``func`` runs it (``None`` for a tool read from a request)."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = field(default_factory=lambda: {"type": "object",
                                                                "properties": {}})
    strict: bool | None = None
    func: Callable[..., Any] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


def tool(func: Callable[..., Any], *, name: str | None = None, description: str | None = None,
         strict: bool = False) -> Tool:
    """A :class:`Tool` from a typed Python function (to be written)."""
    raise NotImplementedError


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """OpenAI's strict-mode rules applied to a schema (to be written)."""
    raise NotImplementedError
