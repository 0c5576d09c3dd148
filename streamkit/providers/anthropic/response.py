"""Anthropic Messages non-streamed responses (``stream: false``): the JSON
``Message`` read as the stream that would have carried it.

A ``Message`` is what the stream's events add up to, so :func:`payloads`
turns it back into them: ``message_start`` with the message's fields (id,
model, usage, ``container``...), a ``content_block_start`` and
``content_block_stop`` per content block (complete: a tool call's whole
``input``, a text's citations), ``message_delta`` with the stop reason,
``stop_sequence``, ``stop_details`` and the usage, and ``message_stop``: a
stream the official SDK accumulates back into the same ``Message`` (tested).
The stream parser reads them (:func:`~streamkit.providers.body.read_body`),
so a body and the stream of the same message give the same
:class:`~streamkit.ChatResponse` by construction: the same blocks (a tool
call's input as compact JSON text, ``{}`` when empty), usage, finish words and
metadata (nulls and the constant ``type`` / ``role`` left out); the response
is complete (``is_last``, ``terminated``).

An error body (``{"type": "error", "error": {...}}``, or another wire's
``{"error": ...}``) is the stream's ``error`` event:
:class:`~streamkit.model.errors.ProviderError` with the status its type
implies. A body with no ``content`` that is no error body (another wire's
answer) is refused (:func:`~streamkit.providers.body.require_answer`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...framing.encoding import json_bytes
from ...model.errors import InvalidBodyError
from ...model.response import ChatResponse
from ..body import read_body, require_answer
from .stream import AnthropicParser
from .wire import NAME, PROVIDER

_ENCODE = json_bytes  # a lone surrogate read from the body is its escape again

# Message fields the stream sends in message_delta, as the end of the message.
_ENDING = ("stop_reason", "stop_sequence", "stop_details")


def parse_response(body: dict[str, Any], dialect: str | None) -> ChatResponse:
    """The :class:`~streamkit.ChatResponse` of a non-streamed Messages API response."""
    if type(body) is not dict:
        raise InvalidBodyError(f"an Anthropic response is a JSON object, not "
                               f"{type(body).__name__}", wire=NAME)
    require_answer(body, NAME)
    try:
        seed = _ENCODE(body)
    except (TypeError, ValueError) as exc:  # a dict built by hand, holding no JSON value
        raise InvalidBodyError(f"an Anthropic response must be JSON: {exc}", wire=NAME) from None
    parser = AnthropicParser(provider=PROVIDER)
    parser.ids.seed(seed)  # the ids it makes up come from the whole body
    return read_body(parser, payloads(body))[0]


def payloads(body: dict[str, Any]) -> Iterator[tuple[str, bytes]]:
    """The ``(SSE event name, data)`` payloads of the stream ``body`` stands for."""
    if body.get("type") == "error" or "content" not in body:  # an error body, of any wire
        yield "error", _ENCODE(body)
        return
    content = body.get("content")
    blocks = content if type(content) is list else []
    message = {key: value for key, value in body.items() if key not in _ENDING}
    if type(content) is list:
        message["content"] = []  # as message_start has it: the blocks follow
    yield "message_start", _ENCODE({"type": "message_start", "message": message})
    for index, block in enumerate(blocks):
        yield "content_block_start", _ENCODE({"type": "content_block_start", "index": index,
                                              "content_block": block})
        yield "content_block_stop", _ENCODE({"type": "content_block_stop", "index": index})
    ending: dict[str, Any] = {"type": "message_delta",
                              "delta": {key: body[key] for key in _ENDING if key in body}}
    if type(body.get("usage")) is dict:  # the final counts, as message_delta repeats them
        ending["usage"] = body["usage"]
    yield "message_delta", _ENCODE(ending)
    yield "message_stop", b'{"type":"message_stop"}'
