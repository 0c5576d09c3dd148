"""The JSON text of tool-call arguments: written from a wire's object, decoded within limits.

Tool-call arguments are text in streamkit (:attr:`~streamkit.model.blocks.ToolCallBlock.input`,
exactly as streamed), while three wires send them as an object: their readers
write it as text with :func:`arguments_text`, and everything that parses the
text whole (a call's ``arguments()``, the tool loop, the encoders) uses
:func:`decode_arguments`, which keeps :mod:`streamkit.model.limits` and says the
offset and reason of every failure, found by the incremental parser when
:func:`json.loads` gives none.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from .limits import MAX_JSON_DEPTH, too_deep
from .partial_json import PartialJSON, PartialJSONError

__all__ = ["arguments_text", "decode_arguments"]


def arguments_text(value: Any) -> str:
    """The JSON text of tool-call arguments a wire gives as an object
    (Anthropic ``input``, Gemini ``args``, Ollama ``arguments``): msgspec's
    compact text; for an object holding a lone surrogate (JSON's ``"\\ud800"``,
    which UTF-8 cannot carry) the same text by :mod:`json`, the surrogate kept,
    so that parsing it gives the object back."""
    try:
        return msgspec.json.encode(value).decode()
    except UnicodeEncodeError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def decode_arguments(text: str) -> Any:
    """``json.loads`` of tool-call argument text within :mod:`streamkit.model.limits`:
    every failure (not JSON, nested deeper than ``MAX_JSON_DEPTH``, an integer
    past Python's digit limit) is a :class:`~streamkit.model.partial_json.PartialJSONError`
    with the offset and the reason."""
    if too_deep(text) is None:
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise PartialJSONError(exc.msg, exc.pos) from exc
        except (ValueError, RecursionError):  # an integer past Python's digit limit
            pass  # json.loads gives no position: the incremental parser finds it
    offset, reason = _diagnose(text)
    raise PartialJSONError(reason, offset)


def _diagnose(text: str) -> tuple[int, str]:
    """Offset and reason for text ``json.loads`` refused without a position, or
    that nests deeper than :data:`~streamkit.model.limits.MAX_JSON_DEPTH`: the
    incremental parser (which reads each character once and never recurses)
    stops at the very character."""
    parser = PartialJSON(max_depth=MAX_JSON_DEPTH)
    try:
        parser.feed(text)
        parser.finish()
    except PartialJSONError as error:
        return error.offset, error.message
    return 0, "nested too deeply to decode"  # only with a nearly full call stack
