"""Structured output read back: a response validated into a pydantic model.

What was asked with ``json_output=Model`` (or a tool the model was forced to
call) comes back as JSON text in the answer, or as the arguments of that one
tool call. :func:`parse_structured` (``ChatResponse.parse(Model)``) takes
whichever the response holds and validates it; anything else is a
:class:`~streamkit.model.errors.StructuredOutputError` saying which case it was.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pydantic

from ..blocks import ModelT
from ..errors import StructuredOutputError
from ..finish import FinishReason

if TYPE_CHECKING:
    from ..response import ChatResponse

# A whole answer in one Markdown code fence (models without a JSON mode write it so).
_FENCED = re.compile(r"^\s*```[A-Za-z0-9_-]*[ \t]*\n(.*)\n[ \t]*```\s*$", re.DOTALL)


def parse_structured(response: ChatResponse, model: type[ModelT]) -> ModelT:
    """``response``'s structured output as a ``model`` instance.

    The JSON is the answer text (refusals excluded; one enclosing Markdown code
    fence is removed) or, when the response has no text and exactly one tool
    call, that call's arguments (a forced tool used for structured output).
    Raises :class:`~streamkit.model.errors.StructuredOutputError` when the model
    refused, when there is nothing or too much to read, and when the JSON does
    not validate (pydantic's ``ValidationError`` is the cause).
    """
    name = model.__name__
    refusal = response.refusal
    if refusal is not None:
        raise StructuredOutputError(f"the model refused to answer with {name}: {refusal}",
                                    model=model, text=None, response=response)
    text = response.text
    calls = response.tool_calls
    if text.strip():
        fenced = _FENCED.match(text)
        source, origin = (fenced.group(1) if fenced else text), "the answer text"
    elif len(calls) == 1:
        call = calls[0]
        if call.incomplete:
            raise StructuredOutputError(
                f"the arguments of tool call {call.name!r} were cut off: no {name} to read",
                model=model, text=call.input, response=response)
        source, origin = call.input, f"the arguments of tool call {call.name!r}"
    elif calls:
        raise StructuredOutputError(
            f"the response has no text and {len(calls)} tool calls "
            f"({', '.join(repr(c.name) for c in calls)}): which one is the {name}?",
            model=model, text=None, response=response)
    else:
        raise StructuredOutputError(
            f"the response has no text and no tool call to read a {name} from"
            + _finish_note(response), model=model, text=None, response=response)
    try:
        return model.model_validate_json(source)
    except pydantic.ValidationError as exc:
        errors = exc.errors(include_url=False)
        if any(error["type"] == "json_invalid" for error in errors):
            reason = f"is not valid JSON ({errors[0]['msg']})"
        else:
            reason = "does not validate: " + "; ".join(
                f"{'.'.join(str(part) for part in error['loc']) or '(root)'}: {error['msg']}"
                for error in errors)
        raise StructuredOutputError(f"{origin} is no {name}: it {reason}"
                                    + _finish_note(response), model=model, text=source,
                                    response=response, errors=errors) from exc


def _finish_note(response: ChatResponse) -> str:
    if response.finished_reason is FinishReason.LENGTH:
        return " (the response was cut off at its length limit)"
    reason = response.finished_reason
    if reason is not None and reason not in (FinishReason.STOP, FinishReason.TOOL_CALLS):
        return f" (finish reason: {reason.value})"
    return ""
