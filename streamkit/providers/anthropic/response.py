"""Anthropic Messages non-streamed responses (``stream: false``): the JSON
``Message`` as the same :class:`~streamkit.ChatResponse` its stream gives.

A ``Message`` is what the stream's events add up to: ``message_start`` carries
the id, model and first usage, each ``content_block_start`` a block, and
``message_delta`` the stop reason, ``stop_sequence`` and final usage. So every
part is read with the rules the stream parser uses (:mod:`.wire`): the same
block for each content block (a tool call's ``input`` as compact JSON text,
``{}`` when empty), the same usage table and finish words, and the message's
other fields (``stop_sequence``, ``container``, ``context_management``...) in
``metadata``, nulls and the constant ``type``/``role`` left out. The response
is complete: ``is_last`` and ``terminated`` are set.

An error body (``{"type": "error", "error": {...}}``) raises
:class:`~streamkit.errors.ProviderError` with the status its type implies.
"""

from __future__ import annotations

from typing import Any

from ...errors import ProviderError
from ...finish import FinishReason
from ...response import ChatResponse
from ..coerce import as_dict, as_list, as_str
from ..error_payloads import error_event
from ..usage_fields import usage_from
from .content import response_block
from .wire import USAGE_FIELDS, extras, map_stop_reason

# Fields of a Message that equal these say nothing worth keeping (as in the stream).
_MESSAGE_DEFAULTS = {"type": "message", "role": "assistant"}


def parse_response(body: dict[str, Any], dialect: str | None) -> ChatResponse:
    """The :class:`~streamkit.ChatResponse` of a non-streamed Messages API response."""
    if body.get("type") == "error":
        raise _provider_error(body)
    response_id = as_str(body.get("id"))
    model = as_str(body.get("model"))
    usage = as_dict(body.get("usage"))
    content = as_list(body.get("content"))
    stop_reason = as_str(body.get("stop_reason"))
    response = ChatResponse(
        content=[response_block(block) for block in content or []],
        is_last=True,
        model=model,
        usage=usage_from(USAGE_FIELDS, usage) if usage is not None else None,
        finished_reason=map_stop_reason(stop_reason) or FinishReason.UNKNOWN,
        metadata=_metadata(body, {"id": response_id, "model": model, "usage": usage,
                                  "content": content, "stop_reason": stop_reason}),
        stop_reason=stop_reason,
        terminated=True,
    )
    if response_id:
        response.id = response_id
    return response


def _metadata(body: dict[str, Any], read: dict[str, Any]) -> dict[str, Any]:
    """The message's fields streamkit has no slot for."""
    metadata = extras(body, read)
    for key, default in _MESSAGE_DEFAULTS.items():
        if metadata.get(key) == default:
            del metadata[key]
    return metadata


def _provider_error(body: dict[str, Any]) -> ProviderError:
    event = error_event(body.get("error", body), body)
    return ProviderError(event.message, status=event.status, code=event.code,
                         error_type=event.error_type, raw=body)
