"""Every wire format's codecs behind one door, by provider name.

:func:`build_request` encodes a conversation (:mod:`streamkit.messages`), tools
(:mod:`streamkit.tools`), structured output and options into the JSON body of
one provider's wire format; :func:`parse_request` reads such a body back into
a :class:`~streamkit.Request`, so a gateway can take a request in one format
and send it in another, and ``build_request(provider, parse_request(provider,
body))`` gives ``body`` back. :func:`parse_response` reads a non-streamed JSON
response into the same :class:`~streamkit.ChatResponse` a stream gives. All
three are sans-IO: dicts in, dicts out.

``provider`` is any registry name or alias (:data:`streamkit.PROVIDERS`): the
vendor record says which wire format it speaks and with which dialect, and
the wire's record (:class:`~streamkit.providers.wire_format.WireFormat`) does
the work. This module knows no wire field name.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from .messages import Message
from .registry import ProviderEntry
from .request import JsonOutput, JsonSchemaOutput, Request, ToolChoice
from .response import ChatResponse
from .tools import Tool, tool

__all__ = ["build_request", "parse_request", "parse_response"]

Tools = Sequence[Tool | Callable[..., Any] | dict[str, Any]]


def _vendor(provider: str) -> ProviderEntry:
    from .providers import vendor

    return vendor(provider)


def _tools(tools: Tools | None) -> list[Tool | dict[str, Any]] | None:
    if tools is None:
        return None
    return [t if isinstance(t, (Tool, dict)) else tool(t) for t in tools]


def _json_output(json_output: JsonOutput | None) -> bool | JsonSchemaOutput | None:
    from pydantic import BaseModel

    if isinstance(json_output, type) and issubclass(json_output, BaseModel):
        return JsonSchemaOutput.from_model(json_output)
    if isinstance(json_output, dict):
        return JsonSchemaOutput(name=str(json_output.get("title", "output")), schema=json_output)
    return json_output


def build_request(
    provider: str,
    messages: Sequence[Message] | Request,
    *,
    model: str | None = None,
    tools: Tools | None = None,
    tool_choice: ToolChoice | Tool | None = None,
    json_output: JsonOutput | None = None,
    stream: bool | None = True,
    **options: Any,
) -> dict[str, Any]:
    """The JSON body of ``provider``'s wire format for this conversation.

    ``messages`` is a list of messages (a :class:`~streamkit.ChatResponse` counts
    as the assistant turn it is) or a :class:`~streamkit.Request` (from
    :func:`parse_request`), whose fields are then used as they are, except
    ``model``: a ``model=`` given here always wins. ``tools`` take Python
    functions too (see :func:`streamkit.tool`); ``json_output`` is ``True`` (any
    JSON object), a pydantic model or a JSON schema.
    """
    from .providers import wire_format

    if isinstance(messages, Request):
        request = messages if model is None else dataclasses.replace(messages, model=model)
    else:
        request = Request(
            messages=list(messages), model=model, tools=_tools(tools),
            tool_choice=tool_choice.name if isinstance(tool_choice, Tool) else tool_choice,
            json_output=_json_output(json_output), stream=stream, options=options,
        )
    entry = _vendor(provider)
    return wire_format(entry.wire).build_request(request, entry.dialect)


def parse_request(provider: str, body: dict[str, Any]) -> Request:
    """The :class:`~streamkit.Request` a body of ``provider``'s wire format stands for."""
    from .providers import wire_format

    entry = _vendor(provider)
    return wire_format(entry.wire).parse_request(body, entry.dialect)


def parse_response(provider: str, body: dict[str, Any] | bytes | str) -> ChatResponse:
    """A non-streamed JSON response of ``provider``'s wire format as a
    :class:`~streamkit.ChatResponse` (the same model a stream gives, with the
    provider's registry name)."""
    from .providers import wire_format
    from .providers.base import decode_json

    payload = decode_json(body, "response") if isinstance(body, (bytes, str)) else body
    entry = _vendor(provider)
    response = wire_format(entry.wire).parse_response(payload, entry.dialect)
    response.provider = entry.name
    return response
