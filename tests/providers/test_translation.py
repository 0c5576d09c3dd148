"""Any conversation to any provider: every recorded request, read in its own wire
and written to every other, is valid for the target and keeps the conversation,
or drops what the target cannot hold with a warning, or is refused clearly
(the matrix and its rules are in tests/support/translation_matrix.py)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from support.translation_matrix import (
    DEFECTS,
    MODES,
    TARGETS,
    Source,
    run_case,
    sources,
)

import streamkit
from streamkit import LossyTranslationWarning, UnsupportedFeatureError, UserMessage, build_request

SOURCES = sources()

#: What a refusal may be about: a conversation the target cannot express at all.
REFUSABLE = ("audio", "application/pdf", "pdf", "image url", "an image url", "chained",
             "answer no call", "answers no call", "a file")


def _pairs() -> list[tuple[Source, str]]:
    return [(source, target) for source in SOURCES for target in TARGETS
            if target != source.wire]


@pytest.mark.parametrize(("source", "target"), _pairs(),
                         ids=[f"{s.name}->{t}" for s, t in _pairs()])
def test_a_recorded_request_crosses_to_another_wire(source: Source, target: str) -> None:
    for mode in MODES:
        case = run_case(source, target, mode)
        assert case.outcome not in DEFECTS, f"{mode}: {case.outcome}: {case.detail}"
        if case.outcome == "refused":
            assert any(word in case.detail.lower() for word in REFUSABLE), case.detail
        if case.outcome == "dropped":
            assert case.warned and all(target in w or "cannot hold" in w for w in case.warned)


def test_the_matrix_counts_are_sane() -> None:
    assert len(SOURCES) == 40
    assert len(_pairs()) == 160


def test_a_loss_never_passes_silently() -> None:
    """The harness itself: a builder that drops a user text without warning is a defect."""
    from support.translation_matrix import essence, losses

    request = streamkit.Request([UserMessage("one"), UserMessage("two")])
    kept = streamkit.Request([UserMessage("one")])
    assert losses(essence(request), essence(kept)) == ["1 user text(s)"]


def test_lossy_warnings_can_be_made_errors() -> None:
    """Python's warnings filter turns a lossy translation into a refusal."""
    anthropic_body: dict[str, Any] = {
        "model": "claude", "max_tokens": 100,
        "tools": [{"type": "web_search_20250305", "name": "web_search"}],
        "messages": [{"role": "user", "content": "hi"}]}
    request = streamkit.parse_request("anthropic", anthropic_body)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LossyTranslationWarning)
        with pytest.raises(LossyTranslationWarning, match="web_search"):
            build_request("openai", request, model="gpt-4o")


def test_a_chained_responses_request_goes_only_to_its_own_wire() -> None:
    """Its tool result answers a call kept on OpenAI's server: rebuilt exactly
    for Responses, refused by every other wire (each would answer 400)."""
    source = next(s for s in SOURCES if s.name == "openai-responses/previous-response-id-"
                  "function-output")
    request = streamkit.parse_request("openai-responses", source.body)
    assert build_request("openai-responses", request) == source.body
    for target in ("openai-chat", "anthropic", "gemini", "ollama"):
        vendor, model = TARGETS[target]
        with pytest.raises(UnsupportedFeatureError, match="answers no call") as refused:
            build_request(vendor, request, model=model)
        assert refused.value.wire == target and "chained" in refused.value.hint
