"""Non-streamed Chat Completions responses (``"object": "chat.completion"``):
the same :class:`~streamkit.ChatResponse` the stream of the same answer gives.

A ``chat.completion`` body is what a stream's chunks add up to: each
``choices[].message`` is the sum of that choice's ``delta`` s, and the body's
other fields are the chunks' (``id``, ``model``, ``created``, ``usage``,
``system_fingerprint``, a vendor's extras). So the body is read as ONE chunk
by the stream parser itself (:class:`~.stream.OpenAIChatParser`), then
``[DONE]``, through the one path every wire reads a body by
(:func:`~streamkit.providers.body.read_body`): the same blocks in the same
order (reasoning, text, refusal, tool calls, audio), the same metadata keys,
usage table, finish words and made-up ids, by construction rather than by a
second copy of the field mapping. A dialect whose server leaves reasoning
inline as ``<think>`` tags (vLLM, LM Studio) has them split as a stream's
pipeline splits them by default (:class:`_InlineThinking`). The only
rewriting: ``message`` is the chunk's ``delta``, and a tool call without an
``index`` gets its position (a stream's fragments carry one; without it two
calls whose ids are ``""``, as Gemini's endpoint sends, would read as one).

``n > 1``: a ChatResponse is one choice. The response is choice 0, as a
stream's is; the other choices are kept whole in ``metadata["choices"]``
(each a :meth:`~streamkit.ChatResponse.to_dict`, rebuilt with
:meth:`~streamkit.ChatResponse.from_dict`), the one place the result differs
from the stream's choice-0 response.

An error body (``{"error": {...}}``, vLLM's ``{"object": "error"}``) raises
:class:`~streamkit.model.errors.ProviderError` with choice 0's response as ``partial``;
a body that is not a JSON object, :class:`~streamkit.model.errors.InvalidBodyError`.

The responses name the vendor of the dialect (:func:`.request.provider_name`);
:func:`streamkit.parse_response` then names the exact vendor it was asked for.
"""

from __future__ import annotations

from typing import Any, Final

from ...framing.encoding import json_bytes
from ...model.errors import InvalidBodyError
from ...model.events import Event
from ...model.response import ChatResponse
from ...model.think import ThinkTagFilter
from ..body import read_body, require_answer
from .dialects import get_dialect
from .request import provider_name
from .stream import OpenAIChatParser
from .wire import DONE_MARKERS, NAME

__all__ = ["OTHER_CHOICES", "as_chunk", "parse_response"]

#: Response metadata key holding choices other than 0 (``n > 1``).
OTHER_CHOICES: Final = "choices"

_ENCODE = json_bytes  # a lone surrogate read from the body is its escape again


def parse_response(body: dict[str, Any], dialect: str | None) -> ChatResponse:
    """The :class:`~streamkit.ChatResponse` of a non-streamed response body."""
    if not isinstance(body, dict):
        raise InvalidBodyError(f"a Chat Completions response is a JSON object, not "
                               f"{type(body).__name__}", wire=NAME)
    require_answer(body, NAME)
    try:
        chunk = _ENCODE(as_chunk(body))
    except (TypeError, ValueError) as exc:  # a dict built by hand, holding no JSON value
        raise InvalidBodyError(f"a Chat Completions response must be JSON: {exc}",
                               wire=NAME) from None
    provider = provider_name(dialect)
    parser = (_InlineThinking if get_dialect(dialect).think_tags else OpenAIChatParser)(
        dialect, provider=provider)
    response, *others = read_body(parser, [(None, chunk), (None, DONE_MARKERS[1])])
    if others:
        response.metadata[OTHER_CHOICES] = [choice.to_dict() for choice in others]
    return response


class _InlineThinking(OpenAIChatParser):
    """The parser of a dialect whose server leaves reasoning inline as
    ``<think>`` tags, with the tags split into thinking blocks, as the stream
    pipeline splits them by default for that dialect: a body reads as its
    stream."""

    def __init__(self, *args: Any, **options: Any) -> None:
        super().__init__(*args, **options)
        self._tags = ThinkTagFilter()

    def feed(self, data: bytes | str, event: str | None = None) -> list[Event]:
        return self._tags.process(super().feed(data, event))

    def finish(self) -> list[Event]:
        return self._tags.process(super().finish())


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
