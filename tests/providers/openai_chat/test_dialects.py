"""The dialect table: every registered vendor's dialect is in it, and no
dialect can make the parser blind to a shape another vendor uses."""

from __future__ import annotations

import pytest

from streamkit.model.response import FinishReason
from streamkit.model.vendors import PROVIDERS
from streamkit.providers import OPENAI_COMPATIBLE, vendor
from streamkit.providers.openai_chat.dialects import (
    DEFAULT,
    DIALECTS,
    REASONING_FIELDS,
    Dialect,
    dialect_names,
    get_dialect,
)
from streamkit.providers.openai_chat.wire import FINISH_REASONS as OPENAI_FINISH_REASONS


@pytest.mark.parametrize("name", OPENAI_COMPATIBLE)
def test_every_registered_vendor_has_a_dialect(name: str) -> None:
    dialect = PROVIDERS[name].dialect
    assert dialect is not None
    assert get_dialect(dialect) is DIALECTS[dialect]
    assert get_dialect(dialect.upper()) is DIALECTS[dialect]


def test_aliases_resolve_to_the_same_dialect() -> None:
    """Names and aliases are the registry's: an alias names a vendor, the
    vendor names its dialect, keyed by the dialect's name only."""
    assert get_dialect(vendor("dashscope").dialect) is get_dialect("qwen")
    assert vendor("zhipu").name == "bigmodel" and vendor("glm").name == "zai"
    assert get_dialect(vendor("zhipu").dialect) is get_dialect(vendor("glm").dialect) \
        is get_dialect("glm")
    assert get_dialect(vendor("kimi").dialect) is get_dialect("moonshot")
    assert "openai" in dialect_names() and "dashscope" not in dialect_names()
    with pytest.raises(ValueError, match="unknown OpenAI-compatible dialect"):
        get_dialect("dashscope")


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
