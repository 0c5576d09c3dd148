"""OpenAI Responses' input token count, ``POST /v1/responses/input_tokens``, both ways.

Its body is a Responses request without what only generation takes: the fields
of the SDK's ``InputTokenCountParams`` are :data:`COUNT_FIELDS`
(``max_output_tokens``, ``stream``, ``store``, sampling and ``include`` are left
out). Its answer is ``{"object": "response.input_tokens", "input_tokens": N}``
(``InputTokenCountResponse``; developers.openai.com/api/reference, "Get input
token counts").
"""

from __future__ import annotations

from ..counting import body_counting
from .wire import NAME

__all__ = ["COUNTING", "COUNT_FIELDS"]

#: The body fields the count endpoint takes (openai-python,
#: ``types/responses/input_token_count_params.py``).
COUNT_FIELDS = frozenset({"model", "input", "instructions", "tools", "tool_choice",
                          "parallel_tool_calls", "reasoning", "text", "truncation",
                          "conversation", "previous_response_id", "personality"})

COUNTING = body_counting(path="/responses/input_tokens",
                         served_path=r"/(?:v1/)?responses/input_tokens",
                         fields=COUNT_FIELDS, wire=NAME,
                         answer=lambda tokens: {"object": "response.input_tokens",
                                                "input_tokens": tokens})
