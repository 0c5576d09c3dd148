"""OpenAI Responses non-streamed responses (``stream: false``): the JSON ``Response``
object as the same :class:`~streamkit.ChatResponse` its stream gives.

A stream's terminal event (``response.completed`` / ``incomplete`` / ``failed``)
carries this very object, and the stream parser closes every output item from it
that it has not streamed (:meth:`~.stream.OpenAIResponsesParser`'s terminal
handler). So the body is read by that parser, as a stream whose one event is the
terminal event its ``status`` names: the same blocks for each output item (a
reasoning item's ``encrypted_content`` on its first thinking block, server tool
items as :class:`~streamkit.model.blocks.RawBlock` s, an image generation's image), the
same usage table, finish reasons (``tool_calls`` when a function or custom tool
call is in the output) and response metadata, by construction rather than by a
second copy of those rules.

A response that has not ended (``queued`` / ``in_progress``: a background
response polled early) or was ``cancelled`` is read as a stream cut before its
terminal event: its items so far, ``terminated=False`` and finish reason
``unknown``; its ``status`` is in ``metadata``.

A ``failed`` response ends as ``error`` (its ``error`` in ``metadata["error"]``),
and, as its stream does, raises :class:`~streamkit.model.errors.ProviderError` with that
response as ``partial``; so does an error body (``{"error": {...}}`` with no response
object, what an HTTP error carries), read as the stream's ``error`` event.

The events go through :func:`~streamkit.providers.body.read_body`, the one path of
every wire's non-streamed body.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...framing.encoding import json_bytes
from ...model.errors import InvalidBodyError
from ...model.response import ChatResponse
from ..body import read_body, require_answer
from ..coerce import as_dict, as_list, as_str
from .stream import OpenAIResponsesParser
from .wire import NAME

# The terminal event of a stream that ends with a response of this status.
_TERMINAL_EVENTS = {
    "completed": "response.completed",
    "incomplete": "response.incomplete",
    "failed": "response.failed",
}


def parse_response(body: dict[str, Any], dialect: str | None) -> ChatResponse:
    """The :class:`~streamkit.ChatResponse` of a non-streamed Responses API response."""
    if not isinstance(body, dict):
        raise InvalidBodyError(f"a Responses API response is a JSON object, not "
                               f"{type(body).__name__}", wire=NAME)
    require_answer(body, NAME)
    return read_body(OpenAIResponsesParser(), _payloads(body))[0]


def _payloads(body: dict[str, Any]) -> Iterator[tuple[str, bytes]]:
    """The body as the stream payloads it stands for."""
    for event_type, payload in _events(body):
        yield event_type, json_bytes(payload)


def _events(body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The stream the body is the end of: its terminal event; for a response that
    has not ended, its start and each output item as done; for an error body, the
    ``error`` event."""
    if _is_error_body(body):
        return [("error", body)]
    status = as_str(body.get("status")) or "completed"
    terminal = _TERMINAL_EVENTS.get(status)
    if terminal is not None:
        return [(terminal, {"type": terminal, "response": body})]
    started = {key: value for key, value in body.items() if key != "output"}
    events = [("response.in_progress", {"type": "response.in_progress", "response": started})]
    for index, item in enumerate(as_list(body.get("output")) or ()):
        done: dict[str, Any] = {"type": "response.output_item.done", "output_index": index,
                                "item": item}
        events.append(("response.output_item.done", done))
    return events


def _is_error_body(body: dict[str, Any]) -> bool:
    """An HTTP error body: an ``error`` object and no response around it."""
    return as_dict(body.get("error")) is not None and "output" not in body and body.get(
        "object") != "response"
