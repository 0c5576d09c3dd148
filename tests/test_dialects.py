"""The dialect table: every registered vendor name has one, and no dialect can
make the parser blind to a shape another vendor uses."""

from __future__ import annotations

import pytest

from streamkit.providers import OPENAI_COMPATIBLE
from streamkit.providers.openai_chat.dialects import (
    DEFAULT,
    DIALECTS,
    OPENAI_FINISH_REASONS,
    REASONING_FIELDS,
    Dialect,
    dialect_names,
    get_dialect,
)
from streamkit.response import FinishReason


@pytest.mark.parametrize("name", OPENAI_COMPATIBLE)
def test_every_registered_vendor_has_a_dialect(name: str) -> None:
    assert get_dialect(name) is DIALECTS[name]
    assert get_dialect(name.upper()) is DIALECTS[name]


def test_aliases_resolve_to_the_same_dialect() -> None:
    assert get_dialect("dashscope") is get_dialect("qwen")
    assert get_dialect("zhipu") is get_dialect("glm")
    assert get_dialect("kimi") is get_dialect("moonshot")
    assert "dashscope" in dialect_names() and "openai" in dialect_names()


def test_none_is_openai_and_a_dialect_passes_through() -> None:
    assert get_dialect(None) is DEFAULT and DEFAULT.name == "openai"
    custom = Dialect("house", reasoning_fields=("reasoning", "reasoning_content"))
    assert get_dialect(custom) is custom


def test_unknown_dialect_raises() -> None:
    with pytest.raises(ValueError, match=r"known: .*deepseek"):
        get_dialect("not-a-vendor")


@pytest.mark.parametrize("dialect", sorted({d.name for d in DIALECTS.values()}))
def test_every_dialect_reads_every_reasoning_field(dialect: str) -> None:
    """A dialect reorders the reasoning fields; it never drops one, so a vendor
    behind another vendor's name (a proxy) still has its reasoning read."""
    fields = get_dialect(dialect).reasoning_fields
    assert sorted(fields) == sorted(REASONING_FIELDS)
    assert len(fields) == len(set(fields))


@pytest.mark.parametrize("dialect", sorted({d.name for d in DIALECTS.values()}))
def test_every_dialect_knows_every_vendor_finish_word(dialect: str) -> None:
    mapping = get_dialect(dialect).finish_reason_map()
    for other in DIALECTS.values():
        for word in other.finish_reasons:
            assert word in mapping
    for word, reason in OPENAI_FINISH_REASONS.items():
        assert mapping[word] == reason
    for reason in mapping.values():
        FinishReason(reason)  # every target is a real FinishReason value
        assert type(reason) is FinishReason  # typed, not a free string


def test_vendor_finish_words() -> None:
    assert get_dialect("deepseek").finish_reasons == {"insufficient_system_resource": "error"}
    assert get_dialect("glm").finish_reasons["sensitive"] == "content_filter"
    assert get_dialect("mistral").finish_reasons["model_length"] == "length"


def test_the_table_documents_each_vendor() -> None:
    for dialect in DIALECTS.values():
        assert dialect.quirks, f"{dialect.name} lists no quirks"
    assert get_dialect("groq").reasoning_fields[0] == "reasoning"
    assert get_dialect("deepseek").reasoning_fields[0] == "reasoning_content"


def test_think_tags_default_only_where_the_server_leaves_them_inline() -> None:
    """vLLM (without --reasoning-parser) and LM Studio (without its separate
    reasoning setting) leave ``<think>`` in ``content``; the parser exposes the
    dialect's default and the pipeline reads it."""
    inline = {dialect.name for dialect in DIALECTS.values() if dialect.think_tags}
    assert inline == {"vllm", "lmstudio"}
    for name in inline:
        assert any("<think>" in quirk for quirk in get_dialect(name).quirks)
    assert DEFAULT.think_tags is False
