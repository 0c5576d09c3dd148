"""A conversation's input tokens, counted by the provider's own endpoint or estimated.

:func:`count_steps` is the sans-IO part of ``client.count_tokens()``: the
request body is built for the client's wire as a call's would be, then
reduced to what the wire's count endpoint takes
(:attr:`~streamkit.providers.wire_format.WireFormat.count_tokens`: Anthropic's
``/v1/messages/count_tokens``, Gemini's ``:countTokens``, OpenAI Responses'
``/v1/responses/input_tokens``) and sent with the client's usual attempts (key,
headers, retries, errors: :meth:`ClientCore.attempts
<streamkit.client.core.ClientCore.attempts>`); the answer is read by the wire's
reader. A wire whose API has no count endpoint (OpenAI Chat and its vendors,
Ollama) gets an estimate, made here without any request and marked as one
(:func:`~streamkit.conversation.estimate.estimate_tokens`). A count is for the
client's own model only (no fallbacks), and adds nothing to the usage totals.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Generator, Mapping
from typing import Any

from ..conversation.estimate import estimate_tokens
from ..model.errors import InvalidBodyError, ProtocolError
from ..model.finish import FinishReason
from ..model.token_count import TokenCount
from ..providers.codec import parse_request
from ..providers.counting import TokenCounting
from .answers import nothing
from .core import ClientCore, Clock
from .steps import Call, Step

__all__ = ["count_steps", "read_count"]

#: What a count's steps are: a generator ending with the count, or the count
#: itself when no request is needed (an estimate).
Counting = TokenCount | Generator[Step, Any, TokenCount]


def count_steps(core: ClientCore, body: dict[str, Any], model: str,
                headers: Mapping[str, str], clock: Clock) -> Counting:
    """The count of the request ``body`` (built for ``core``'s wire, for
    ``model``): the steps of a call to the wire's count endpoint, or an
    estimate where the wire has none."""
    counting = core.wire.count_tokens
    if counting is None:
        return estimate_tokens(parse_request(core.entry.name, body), provider=core.entry.name)
    url = core.with_query(counting.endpoint(core.base_url, model))
    call = core.call(counting.body(body, model, core.entry.name), stream=False,
                     now=clock.monotonic(), headers=headers, url=url)
    return _counted(core, counting, call, clock)


def _counted(core: ClientCore, counting: TokenCounting, call: Call,
             clock: Clock) -> Generator[Step, Any, TokenCount]:
    """The count endpoint's answer, after the client's usual attempts."""
    response = yield from core.attempts(call, clock)
    data = yield from core.whole_body(response, call)
    return read_count(core.entry.name, core.wire.name, counting, data)


def read_count(provider: str, wire: str, counting: TokenCounting, data: bytes) -> TokenCount:
    """A count endpoint's answer as a :class:`~streamkit.TokenCount`; one that
    is not JSON or holds no count is a
    :class:`~streamkit.model.errors.ProtocolError` saying what was wrong."""
    try:
        decoded = json.loads(data)
    except ValueError:  # UnicodeDecodeError too
        raise ProtocolError(f"the {wire} token count answer is not JSON",
                            raw=data[:2000], partial=nothing(provider, FinishReason.ERROR)
                            ) from None
    try:
        count = counting.read_answer(decoded)
    except InvalidBodyError as wrong:
        raise ProtocolError(f"the {wire} token count answer holds no count: {wrong}",
                            raw=data[:2000], partial=nothing(provider, FinishReason.ERROR)
                            ) from None
    return dataclasses.replace(count, provider=provider)
