"""Gemini's token count endpoint, ``POST {base}/models/{model}:countTokens``, both ways.

The Gemini API takes ``contents`` alone, or the whole ``generateContentRequest``
(with its ``model``, ``models/{model}``) when the system instruction, the tools
or the generation config count too: "Model + Contents or a
generateContentRequest, but never both" (ai.google.dev/api/tokens). Vertex AI
takes ``contents``, ``systemInstruction``, ``tools`` and ``generationConfig``
at the top level (google-genai's ``_CountTokensConfig_to_vertex``). The answer
is ``{"totalTokens": N, "cachedContentTokenCount": C}``, the cached part inside
the total; proto3's JSON leaves a zero out, so an answer without
``totalTokens`` counts none.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from ...model.token_count import TokenCount
from ..counting import TokenCounting, count_field
from .http import RESOURCE_PREFIXES
from .wire import NAME

__all__ = ["COUNTING"]

#: The method after the model in the URL.
METHOD = "countTokens"

#: The request's wrapper field on the Gemini API.
WRAPPER = "generateContentRequest"

#: The fields Vertex AI's count request takes of a ``generateContent`` body.
VERTEX_FIELDS = frozenset({"contents", "systemInstruction", "tools", "generationConfig"})

#: The providers of this wire whose count takes the fields at the top level.
TOP_LEVEL_PROVIDERS = frozenset({"vertex"})

#: What a count answer may hold besides its counts (per-modality details).
ANSWER_FIELDS = frozenset({"totalTokens", "cachedContentTokenCount", "promptTokensDetails",
                           "cacheTokensDetails", "totalBillableCharacters"})


def _resource(model: str) -> str:
    return model if model.startswith(RESOURCE_PREFIXES) else f"models/{model}"


def endpoint(base_url: str, model: str) -> str:
    """Where a count for ``model`` is posted (the URL names it)."""
    return f"{base_url.rstrip('/')}/{quote(_resource(model), safe='/')}:{METHOD}"


def count_body(body: dict[str, Any], model: str, provider: str) -> dict[str, Any]:
    """The count request for a ``generateContent`` body, in ``provider``'s form."""
    if provider in TOP_LEVEL_PROVIDERS:
        return {key: value for key, value in body.items() if key in VERTEX_FIELDS}
    return {WRAPPER: {"model": _resource(model), **body}}


def request_body(body: dict[str, Any]) -> dict[str, Any]:
    """The ``generateContent`` body a count request stands for: the wrapped
    request without its ``model`` (the path names it), or the body itself."""
    wrapped = body.get(WRAPPER)
    if isinstance(wrapped, dict):
        return {key: value for key, value in wrapped.items() if key != "model"}
    return body


def read_answer(body: Any) -> TokenCount:
    """``{"totalTokens": N, "cachedContentTokenCount": C}`` -> the count."""
    absent = isinstance(body, dict) and set(body) <= ANSWER_FIELDS
    total = count_field(body, "totalTokens", NAME, zero_if_absent=absent)
    cached = count_field(body, "cachedContentTokenCount", NAME) \
        if "cachedContentTokenCount" in body else None
    return TokenCount(total, cached_tokens=cached)


def write_answer(count: TokenCount) -> dict[str, Any]:
    """The count as the endpoint answers it."""
    answer: dict[str, Any] = {"totalTokens": count.input_tokens}
    if count.cached_tokens is not None:
        answer["cachedContentTokenCount"] = count.cached_tokens
    return answer


COUNTING = TokenCounting(
    endpoint=endpoint,
    served_path=rf"/(?:v1beta|v1alpha|v1)/models/(?P<model>[^:/]+):{METHOD}",
    body=count_body, request_body=request_body, read_answer=read_answer,
    write_answer=write_answer)
