"""Talking back: the request you send, for any wire format, and its inverse.

:func:`build_request` encodes a conversation (:mod:`streamkit.messages`), tools
(:mod:`streamkit.tools`), structured output and options into the JSON body of
one provider's wire format; :func:`parse_request` reads such a body back into a
:class:`Request`, so a gateway can take a request in one format and send it in
another, and ``build_request(provider, parse_request(provider, body))`` gives
``body`` back. :func:`parse_response` reads a non-streamed JSON response into
the same :class:`~streamkit.ChatResponse` a stream gives. All three are
sans-IO: dicts in, dicts out.

Options have uniform names where every wire format has the concept
(:data:`UNIFORM_OPTIONS`); any other option is passed through untouched under
the wire's own name (``top_k``, ``frequency_penalty``, ``metadata``...).

Sending a turn to the API that wrote it keeps everything: Anthropic thinking
signatures and redacted thinking, Gemini ``thoughtSignature`` s, OpenAI
Responses reasoning items with ``encrypted_content``, DeepSeek / GLM
``reasoning_content``, OpenRouter ``reasoning_details``, server tool blocks.
Sending it to another API follows one policy: signatures, encrypted reasoning
and provider items the target cannot read are dropped (it would refuse them);
visible thinking is kept as text in ``<think>`` tags, or dropped with
``foreign_thinking="drop"``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeAlias

from .messages import Message
from .response import ChatResponse
from .tools import Tool, tool

if TYPE_CHECKING:  # pydantic is imported where a model is used, not by `import streamkit`
    from pydantic import BaseModel

#: Options every wire format encodes under its own name.
UNIFORM_OPTIONS = (
    "temperature",  # float
    "top_p",  # float
    "max_tokens",  # int: the output budget
    "stop",  # list[str]
    "seed",  # int
    "reasoning_effort",  # "minimal" | "low" | "medium" | "high" ...
    "thinking_budget",  # int tokens of reasoning (Anthropic, Gemini)
    "include_thoughts",  # bool: reasoning summaries in the answer (Gemini, Responses)
    "include_usage",  # bool: usage in the stream (OpenAI Chat stream_options)
    "audio",  # {"voice": ..., "format": ...}: spoken output (OpenAI Chat)
    "parallel_tool_calls",  # bool
    "foreign_thinking",  # "text" | "drop": thinking from another provider's turn
)

ForeignThinking = Literal["text", "drop"]
ToolChoice = Literal["auto", "required", "none"] | str
"""``auto`` / ``required`` / ``none``, or the name of the one tool to call."""


@dataclass
class JsonSchemaOutput:
    """Structured output: the model answers with JSON valid against ``schema``."""

    name: str
    schema: dict[str, Any]
    strict: bool | None = None
    description: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_model(cls, model: type[BaseModel], *, strict: bool | None = True) -> JsonSchemaOutput:
        """The schema of a pydantic model (OpenAI's strict rules applied when ``strict``)."""
        from .tools import strict_schema

        schema = model.model_json_schema()
        return cls(name=model.__name__, schema=strict_schema(schema) if strict else schema,
                   strict=strict, description=model.__doc__)


JsonOutput: TypeAlias = "bool | JsonSchemaOutput | type[BaseModel] | dict[str, Any]"


@dataclass
class Request:
    """A provider-independent request: what :func:`parse_request` reads and
    :func:`build_request` writes.

    ``tools`` holds :class:`~streamkit.tools.Tool` s and, as plain dicts, the
    wire format's own tool entries (server tools such as web search), sent as
    they are. ``stream`` is ``None`` where the body does not say (Gemini: the
    URL does). ``options`` holds the :data:`UNIFORM_OPTIONS` and, under their
    wire names, every other field of the body.
    """

    messages: list[Message]
    model: str | None = None
    tools: list[Tool | dict[str, Any]] | None = None
    tool_choice: ToolChoice | None = None
    json_output: bool | JsonSchemaOutput | None = None
    stream: bool | None = None
    options: dict[str, Any] = field(default_factory=dict)


class WireRequests(Protocol):
    """What a wire format's ``request`` module provides."""

    def build_request(self, request: Request, dialect: str | None) -> dict[str, Any]: ...

    def parse_request(self, body: dict[str, Any], dialect: str | None) -> Request: ...


class WireResponses(Protocol):
    """What a wire format's ``response`` module provides."""

    def parse_response(self, body: dict[str, Any], dialect: str | None) -> ChatResponse: ...


def _wire(provider: str, part: str) -> tuple[Any, str | None]:
    """The wire format's ``part`` module (``request`` / ``response``) and the dialect."""
    from .providers import wire_of

    package, dialect = wire_of(provider)
    return importlib.import_module(f"streamkit.providers.{package}.{part}"), dialect


def _tools(tools: Sequence[Tool | Callable[..., Any] | dict[str, Any]] | None,
           ) -> list[Tool | dict[str, Any]] | None:
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
    tools: Sequence[Tool | Callable[..., Any] | dict[str, Any]] | None = None,
    tool_choice: ToolChoice | Tool | None = None,
    json_output: JsonOutput | None = None,
    stream: bool | None = True,
    **options: Any,
) -> dict[str, Any]:
    """The JSON body of ``provider``'s wire format for this conversation.

    ``messages`` is a list of messages (a :class:`~streamkit.ChatResponse` counts
    as the assistant turn it is) or a :class:`Request` (from
    :func:`parse_request`), whose fields are then used as they are. ``tools``
    take Python functions too (see :func:`streamkit.tool`); ``json_output`` is
    ``True`` (any JSON object), a pydantic model or a JSON schema.
    """
    if isinstance(messages, Request):
        request = messages
    else:
        request = Request(
            messages=list(messages), model=model, tools=_tools(tools),
            tool_choice=tool_choice.name if isinstance(tool_choice, Tool) else tool_choice,
            json_output=_json_output(json_output), stream=stream, options=options,
        )
    module, dialect = _wire(provider, "request")
    body: dict[str, Any] = module.build_request(request, dialect)
    return body


def parse_request(provider: str, body: dict[str, Any]) -> Request:
    """The :class:`Request` a body of ``provider``'s wire format stands for."""
    module, dialect = _wire(provider, "request")
    request: Request = module.parse_request(body, dialect)
    return request


def parse_response(provider: str, body: dict[str, Any] | bytes | str) -> ChatResponse:
    """A non-streamed JSON response of ``provider``'s wire format as a
    :class:`~streamkit.ChatResponse` (the same model a stream gives)."""
    from .providers.base import decode_json

    payload = body if isinstance(body, dict) else decode_json(body, "response")
    module, dialect = _wire(provider, "response")
    response: ChatResponse = module.parse_response(payload, dialect)
    response.provider = response.provider or provider
    return response
