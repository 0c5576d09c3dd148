"""What a wire format is: one record of the verbs every wire package provides,
and the one shape every wire package has.

streamkit speaks five wire formats (OpenAI Chat Completions with its vendor
dialects, OpenAI Responses, Anthropic Messages, Gemini ``generateContent``,
Ollama ``/api/chat``). Each lives in one package under
:mod:`streamkit.providers`, with the same file for the same verb
(:data:`VERB_FILES`):

==============  ============================================================
``stream.py``   the stream parser: payloads -> :mod:`streamkit.model.events`
``request.py``  request bodies: build one from a :class:`~streamkit.Request`, read one back
``tools.py``    tool definitions, both ways: a :class:`~streamkit.conversation.tools.Tool`
                <-> the wire's declaration (``tool_definition`` /
                ``read_tool_definition``), and the body's tools and tool
                choice (``write_tools`` / ``read_tools``)
``response.py`` a non-streamed response body -> :class:`~streamkit.ChatResponse`
``content.py``  the wire's content parts <-> streamkit blocks, for both directions
``wire.py``     the wire's words as data: its name, finish words, usage fields
``http.py``     where the endpoint is under a base URL, and whether the model
                goes in the body
``encode.py``   responses written: the stream encoder (events -> the wire's
                stream bytes), the non-streamed body and the HTTP error body
==============  ============================================================

A wire may add files of its own, for what only it has (OpenAI Chat's
``dialects.py``, Gemini's ``spelling.py``) or for a verb too large for one
file; each is listed with its job in its package's docstring, in the same
table form as above, and a file of the same name means the same job in every
wire that has one (:data:`SHARED_FILES`). ``tests/test_house.py`` holds every
package to this: every verb file, no file its docstring does not list, the
tool definitions in ``tools.py`` and nowhere else.

Each package exports its record as ``WIRE``, a :class:`WireFormat`. Everything
above the providers (the codec facade, the client, the vendor registry)
reaches a wire through its record, never by importing a module by name, and
the record is checked: mypy checks each field's type where the record is made,
and every verb is a required field (a wire without one is no wire).

``dialect`` is the vendor dialect a vendor of the wire speaks (``deepseek`` on
OpenAI Chat; ``None`` for the wire's own API); see :mod:`streamkit.model.vendors`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..conversation.request import Request
    from ..model.events import ErrorEvent
    from ..model.finish import FinishReason
    from ..model.response import ChatResponse
    from .base import Parser
    from .counting import TokenCounting
    from .encoder import StreamEncoder
    from .usage_fields import UsageFields

__all__ = ["SHARED_FILES", "VERB_FILES", "WIRE_NAMES", "Endpoint", "FunctionForms", "WireFormat",
           "no_answer_options", "wire_format"]

#: Every wire format, by its name.
WIRE_NAMES = ("openai-chat", "openai-responses", "anthropic", "gemini", "ollama")

#: The files every wire package has, one per verb (the table above).
VERB_FILES = ("stream.py", "request.py", "tools.py", "response.py", "content.py", "wire.py",
              "http.py", "encode.py")

#: The files a wire package may add that more than one wire has, by their one job.
SHARED_FILES = {
    "assistant.py": "what the model writes (an assistant turn) <-> blocks, both ways",
    "citations.py": "the wire's citation objects <-> typed citations, both ways",
    "cache.py": "the wire's prompt-cache markers <-> cache points, both ways",
    "count_tokens.py": "the API's token count endpoint: its request body and its answer, "
                       "both ways",
    "acceptance.py": "what the wire's API answers 400 to, left out of a built body",
}

Endpoint = Callable[..., str]
"""``endpoint(base_url, model, *, stream, dialect) -> url``."""


@dataclass(frozen=True)
class FunctionForms:
    """A wire's tools that are no functions but have a function's form on every
    other wire (a freeform tool taking text: a function of one string argument)."""

    rewrite: Callable[[Request, str], Request]
    """``rewrite(request, wire)``: ``request`` for another ``wire`` with those
    tools and their calls in the history in their function form, each loss
    said; the request itself when it holds none."""


@dataclass(frozen=True)
class WireFormat:
    """One wire format's verbs and tables."""

    name: str
    """``openai-chat``, ``openai-responses``, ``anthropic``, ``gemini`` or ``ollama``."""
    title: str
    parser: Callable[..., Parser]
    """A fresh stream parser: ``parser(dialect=...)`` for wires with dialects."""
    build_request: Callable[[Request, str | None], dict[str, Any]]
    """A request body for a :class:`~streamkit.Request` (``dialect`` second)."""
    parse_request: Callable[[dict[str, Any], str | None], Request]
    """The :class:`~streamkit.Request` a body stands for (exact: building it again
    gives the body)."""
    parse_response: Callable[[Any, str | None], ChatResponse]
    """A decoded non-streamed response body -> the response a stream would give."""
    finish_reasons: Mapping[str, FinishReason]
    """The wire's stop words -> uniform finish reasons."""
    usage_fields: UsageFields
    """Where the wire's usage object keeps each count."""
    endpoint: Endpoint
    """The URL a request goes to (see ``http.py``)."""
    model_in_body: bool
    """Whether the model is a body field (else the URL names it)."""
    encode_stream: Callable[..., StreamEncoder]
    """``encode_stream(dialect, **options)``: a fresh stream encoder for the
    dialect: streamkit events -> the bytes the provider streams (``encode.py``;
    ``options`` are the wire's own choices of form, such as Gemini's JSON
    array)."""
    encode_response: Callable[[ChatResponse, str | None], dict[str, Any]]
    """A :class:`~streamkit.ChatResponse` -> the provider's non-streamed body
    (``encode.py``)."""
    encode_error: Callable[[ErrorEvent, int, str | None], dict[str, Any]]
    """``encode_error(error, status, dialect)``: the JSON body the provider
    answers an HTTP error with (before any stream), for an error with that
    status, so its SDK raises its own exception for the status with the
    message (``encode.py``)."""
    answer_options: Callable[[Request], dict[str, Any]]
    """The stream encoder's options a request asks for, when the stream answers
    that request (:func:`streamkit.encode_stream`'s ``request``): OpenAI Chat's
    usage chunk is sent only to a request that asked for it. A wire whose
    stream is the same for every request says so with
    :func:`no_answer_options`."""
    served_path: str = ""
    """The path (a regular expression, matched whole) a server of this wire
    answers at; named groups ``model`` and ``method`` when the path says them
    (Gemini). See :mod:`streamkit.providers.routes`."""
    served_base: str = ""
    """The base URL path (``/v1``, ``/v1beta``, or none) under which a client
    of the wire's own API reaches a server of this wire: a test's fake
    provider or the gateway, at ``http://host:port`` + this."""
    streams_unless_said: bool = False
    """Whether the API streams when a request's body does not say (Ollama's
    ``stream`` is ``true`` unless given); the others answer whole."""
    dialects: bool = False
    """Whether vendors of this wire have dialects (only OpenAI Chat)."""
    option_records: frozenset[str] = frozenset()
    """The keys the request reader puts among a request's options that are its
    own records, never wire fields (OpenAI Chat's ``max_tokens_field``, Gemini's
    ``snake_case``): another wire drops them without a word, since nothing the
    caller asked for is lost with them."""
    prompt_references: Mapping[str, str] = field(default_factory=dict)
    """The options that name prompt content the provider keeps (Gemini's
    ``cachedContent``), each with why no other API can take it: another wire
    refuses a request read with one, since sent without it the request would
    lack part of its prompt (see :func:`~streamkit.providers.options.own_options`)."""
    tools_with_tool_history: bool = False
    """Whether the API refuses a conversation holding tool calls or results
    unless tools are declared (Anthropic: "Requests which include tool_use or
    tool_result blocks must define tools")."""
    version_header: str | None = None
    """The request header naming the API version a body is for (Anthropic's
    ``anthropic-version``): the client passes the value it sends to the
    builder as the ``api_version`` option, so the body fits that version.
    ``None``: the wire's API has no versions."""
    forwarded_headers: frozenset[str] = frozenset()
    """The request headers (lower case) of a caller of this wire that a gateway
    passes on to an upstream of the same wire (Anthropic's ``anthropic-beta``),
    and only there: another wire's API does not know them. A gateway's config
    may add names (``[gateway] forward_headers``); a key never goes."""
    count_tokens: TokenCounting | None = None
    """The API's token count endpoint (Anthropic's ``/v1/messages/count_tokens``,
    Gemini's ``:countTokens``, OpenAI Responses' ``/v1/responses/input_tokens``);
    ``None``: the API has none, and a count is estimated
    (:func:`~streamkit.conversation.estimate.estimate_tokens`)."""
    function_forms: FunctionForms | None = None
    """This wire's own tools that another wire holds as functions (Responses'
    freeform ``custom`` tools, Codex CLI's ``apply_patch``), and their calls:
    how a request for another wire is rewritten to that form (see
    :class:`FunctionForms`); ``None``: every tool of this wire another has is a
    function already (its others are dropped, said, by
    :func:`~streamkit.providers.function_tools.own_entry`)."""
    operation: str = "chat"
    """The OpenTelemetry GenAI operation a call on this wire's API is
    (``gen_ai.operation.name``, a value of the conventions'
    ``GenAiOperationNameValues``): ``generate_content`` for Gemini's own API, a
    ``chat`` for the others."""


def wire_format(name: str) -> WireFormat:
    """The record of the wire format ``name`` (one of :data:`WIRE_NAMES`),
    importing its package on first use."""
    if name not in WIRE_NAMES:
        raise ValueError(f"unknown wire format {name!r}; known: {', '.join(WIRE_NAMES)}")
    package = importlib.import_module(f"{__package__}.{name.replace('-', '_')}")
    record: WireFormat = package.WIRE
    return record


def no_answer_options(request: Request) -> dict[str, Any]:
    """The ``answer_options`` of a wire whose stream is the same whatever the
    request asked: none."""
    return {}
