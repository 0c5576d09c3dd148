"""The pieces the request oracles of ``support.request_oracles`` share.

Each wire's oracle validates a built body with its official SDK's request
types. Most SDKs declare those as TypedDicts, which pydantic validates lazily
(``Iterable`` fields) and which drop the keys they do not declare instead of
failing: so the validated value is consumed whole (:func:`materialize`) and
compared with the body key by key (:func:`unknown_keys`). What is open JSON,
and how a wire reports the keys, stays in each wire's oracle.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from pydantic import BaseModel


def materialize(value: Any) -> Any:
    """The validated value with every lazy iterator consumed (which validates it)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_unset=True)
    if isinstance(value, dict):
        return {key: materialize(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)) or (isinstance(value, Iterator)
                                            and not isinstance(value, (str, bytes))):
        return [materialize(item) for item in value]
    return value


def never_open(path: str) -> bool:
    """No place in the body is open JSON (every key must be declared)."""
    return False


def unknown_keys(body: Any, validated: Any, path: str = "$", *,
                 is_open: Callable[[str], bool] = never_open,
                 numbered: bool = True) -> list[str]:
    """Paths of the keys the SDK type dropped (it does not declare them),
    except below the paths ``is_open`` says hold free-form JSON. List items are
    ``[i]`` with ``numbered``, else ``[]`` (to compare with a set of allowed paths)."""
    if is_open(path):
        return []
    if isinstance(body, dict) and isinstance(validated, dict):
        out = [f"{path}.{key}" for key in body if key not in validated]
        for key in body.keys() & validated.keys():
            out += unknown_keys(body[key], validated[key], f"{path}.{key}",
                                is_open=is_open, numbered=numbered)
        return out
    if isinstance(body, list) and isinstance(validated, list):
        assert len(body) == len(validated), path
        return [found for index, (given, kept) in enumerate(zip(body, validated, strict=True))
                for found in unknown_keys(given, kept,
                                          f"{path}[{index if numbered else ''}]",
                                          is_open=is_open, numbered=numbered)]
    return []
