"""Anthropic's token count endpoint, ``POST /v1/messages/count_tokens``, both ways.

Its body is a Messages request without what only generation takes: the fields
of the SDK's ``MessageCountTokensParams`` (and its beta twin) are
:data:`COUNT_FIELDS`; ``max_tokens``, ``stream``, the sampling options and
``metadata`` are left out. Its answer is ``{"input_tokens": N}``
(``MessageTokensCount``: "the total number of tokens across the provided list
of messages, system prompt, and tools").
"""

from __future__ import annotations

from ..counting import body_counting
from .wire import NAME

__all__ = ["COUNTING", "COUNT_FIELDS"]

#: The body fields the count endpoint takes (anthropic-sdk-python,
#: ``types/message_count_tokens_params.py`` and ``types/beta/...``).
COUNT_FIELDS = frozenset({"model", "messages", "system", "tools", "tool_choice", "thinking",
                          "cache_control", "output_config", "speed", "context_management",
                          "mcp_servers"})

COUNTING = body_counting(path="/messages/count_tokens",
                         served_path=r"/(?:v1/)?messages/count_tokens",
                         fields=COUNT_FIELDS, wire=NAME,
                         answer=lambda tokens: {"input_tokens": tokens})
