"""Non-streamed Chat Completions responses (``"object": "chat.completion"``):
the same :class:`~streamkit.ChatResponse` the stream of the same answer gives.

A ``chat.completion`` body is what a stream's chunks add up to: each
``choices[].message`` is the sum of that choice's ``delta`` s, and the body's
other fields are the chunks' (``id``, ``model``, ``created``, ``usage``,
``system_fingerprint``, a vendor's extras). So the body is read as ONE chunk
by the stream parser itself (:class:`~.stream.OpenAIChatParser`), through the
same :class:`~streamkit.pipeline.Pipeline` a stream goes through, then
``[DONE]``: the same blocks in the same order (reasoning, text, refusal, tool
calls, audio), the same metadata keys, usage table, finish words and the
dialect's ``<think>`` handling, by construction rather than by a second copy of
the field mapping. The only rewriting: ``message`` is the chunk's ``delta``,
and a tool call without an ``index`` gets its position (a stream's fragments
carry one; without it two calls whose ids are ``""``, as Gemini's endpoint
sends, would read as one).

``n > 1``: a ChatResponse is one choice. The response is choice 0, as a
stream's is; the other choices are kept whole in ``metadata["choices"]``
(each a :meth:`~streamkit.ChatResponse.to_dict`, rebuilt with
:meth:`~streamkit.ChatResponse.from_dict`), the one place the result differs
from the stream's choice-0 response.

An error body (``{"error": {...}}``, vLLM's ``{"object": "error"}``) raises
:class:`~streamkit.errors.ProviderError` with the response as ``partial``.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from ...errors import ProviderError
from ...pipeline import Pipeline
from ...response import ChatResponse
from .request import provider_name
from .stream import OpenAIChatParser
from .wire import DONE_MARKERS

__all__ = ["OTHER_CHOICES", "as_chunk", "parse_response"]

#: Response metadata key holding choices other than 0 (``n > 1``).
OTHER_CHOICES: Final = "choices"

_ENCODE = msgspec.json.encode


def parse_response(body: dict[str, Any], dialect: str | None) -> ChatResponse:
    """The :class:`~streamkit.ChatResponse` of a non-streamed response body."""
    pipeline = Pipeline(OpenAIChatParser(dialect))
    pipeline.feed_payload(_ENCODE(as_chunk(body)))
    pipeline.feed_payload(DONE_MARKERS[1])
    pipeline.finish()
    response = pipeline.response
    response.provider = provider_name(dialect)
    others = [choice.to_dict() for choice in pipeline.responses[1:]]
    if others:
        response.metadata[OTHER_CHOICES] = others
    if pipeline.errors:
        error = pipeline.errors[0]
        raise ProviderError(error.message, status=error.status, code=error.code,
                            error_type=error.error_type, raw=error.raw, partial=response)
    return response


def as_chunk(body: dict[str, Any]) -> dict[str, Any]:
    """The ``chat.completion`` body as the one chunk that streams the same answer."""
    choices = body.get("choices")
    if not isinstance(choices, list):
        return body
    return {**body, "choices": [_as_delta(choice) for choice in choices]}


def _as_delta(choice: Any) -> Any:
    if not isinstance(choice, dict) or "message" not in choice:
        return choice
    out = {key: value for key, value in choice.items() if key != "message"}
    message = choice["message"]
    calls = message.get("tool_calls") if isinstance(message, dict) else None
    if isinstance(calls, list):
        message = {**message, "tool_calls": [
            {"index": position, **call} if isinstance(call, dict) and "index" not in call
            else call for position, call in enumerate(calls)]}
    out["delta"] = message
    return out
