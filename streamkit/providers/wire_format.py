"""What a wire format is: one record of the verbs every wire package provides.

streamkit speaks five wire formats (OpenAI Chat Completions with its vendor
dialects, OpenAI Responses, Anthropic Messages, Gemini ``generateContent``,
Ollama ``/api/chat``). Each lives in one package under
:mod:`streamkit.providers`, with the same file for the same verb:

=============  =============================================================
``stream.py``  the stream parser: payloads -> :mod:`streamkit.model.events`
``request.py`` request bodies: build one from a :class:`~streamkit.Request`, read one back
``response.py`` a non-streamed response body -> :class:`~streamkit.ChatResponse`
``content.py`` the wire's content parts <-> streamkit blocks, for both directions
``wire.py``    the wire's words as data: finish words, usage fields
``http.py``    where the endpoint is under a base URL, and whether the model
               goes in the body
``encode.py``  responses written: the stream encoder (events -> the wire's
               stream bytes) and the non-streamed body
=============  =============================================================

and exports its record as ``WIRE``, a :class:`WireFormat`. Everything above
the providers (the codec facade, the client, the vendor registry) reaches a
wire through its record, never by importing a module by name, and the record
is checked: mypy checks each field's type where the record is made, and a test
checks that every wire package has every verb.

``dialect`` is the vendor dialect a vendor of the wire speaks (``deepseek`` on
OpenAI Chat; ``None`` for the wire's own API); see :mod:`streamkit.model.vendors`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..conversation.request import Request
    from ..model.events import ErrorEvent
    from ..model.finish import FinishReason
    from ..model.response import ChatResponse
    from .base import Parser
    from .encoder import StreamEncoder
    from .usage_fields import UsageFields

__all__ = ["WIRE_NAMES", "Endpoint", "WireFormat", "wire_format"]

#: Every wire format, by its name.
WIRE_NAMES = ("openai-chat", "openai-responses", "anthropic", "gemini", "ollama")

Endpoint = Callable[..., str]
"""``endpoint(base_url, model, *, stream, dialect) -> url``."""


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
    served_path: str = ""
    """The path (a regular expression, matched whole) a server of this wire
    answers at; named groups ``model`` and ``method`` when the path says them
    (Gemini). See :mod:`streamkit.providers.routes`."""
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
    tools_with_tool_history: bool = False
    """Whether the API refuses a conversation holding tool calls or results
    unless tools are declared (Anthropic: "Requests which include tool_use or
    tool_result blocks must define tools")."""
    version_header: str | None = None
    """The request header naming the API version a body is for (Anthropic's
    ``anthropic-version``): the client passes the value it sends to the
    builder as the ``api_version`` option, so the body fits that version.
    ``None``: the wire's API has no versions."""
    operation: str = "chat"
    """The OpenTelemetry GenAI operation a call on this wire's API is
    (``gen_ai.operation.name``, a value of the conventions'
    ``GenAiOperationNameValues``): ``generate_content`` for Gemini's own API, a
    ``chat`` for the others."""
    encode_stream: Callable[..., StreamEncoder] | None = None
    """``encode_stream(dialect, **options)``: a fresh stream encoder for the
    dialect: streamkit events -> the bytes the provider streams (``encode.py``;
    ``options`` are the wire's own choices of form, such as Gemini's JSON
    array). ``None``: not written yet for this wire."""
    encode_response: Callable[[ChatResponse, str | None], dict[str, Any]] | None = None
    """A :class:`~streamkit.ChatResponse` -> the provider's non-streamed body
    (``encode.py``). ``None``: not written yet for this wire."""
    answer_options: Callable[[Request], dict[str, Any]] | None = None
    """The stream encoder's options a request asks for, when the stream answers
    that request (:func:`streamkit.encode_stream`'s ``request``): OpenAI Chat's
    usage chunk is sent only to a request that asked for it. ``None``: the
    wire's stream is the same for every request."""
    encode_error: Callable[[ErrorEvent, int, str | None], dict[str, Any]] | None = None
    """``encode_error(error, status, dialect)``: the JSON body the provider
    answers an HTTP error with (before any stream), for an error with that
    status, so its SDK raises its own exception for the status with the
    message (``encode.py``). ``None``: not written yet for this wire."""


def wire_format(name: str) -> WireFormat:
    """The record of the wire format ``name`` (one of :data:`WIRE_NAMES`),
    importing its package on first use."""
    if name not in WIRE_NAMES:
        raise ValueError(f"unknown wire format {name!r}; known: {', '.join(WIRE_NAMES)}")
    package = importlib.import_module(f"{__package__}.{name.replace('-', '_')}")
    record: WireFormat = package.WIRE
    return record
