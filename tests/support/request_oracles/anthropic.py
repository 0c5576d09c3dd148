"""The Anthropic Messages request oracle: a body checked with the official
``anthropic`` SDK's request types.

The body is validated with ``pydantic.TypeAdapter`` over the beta
``MessageCreateParams`` (a superset of the GA one: MCP, compaction, context
management) and, unless the body uses a beta feature, the GA one; every content
block of every message also against the union of the SDK's block *param* types
alone (the SDK's message union also admits its response models, which would
accept anything shaped like a response). TypedDicts ignore keys they do not
declare, so the validated value is compared with the body: a key the SDK does
not know is a failure, except inside JSON schemas (``input_schema``,
``output_config.format.schema``, open by definition) and the sampling options
``temperature`` / ``top_p`` / ``top_k``, which this SDK release (anthropic 2.14)
no longer declares (they were removed with Claude Opus 4.7) while older models
still take them. ``Iterable`` fields validate lazily in pydantic, so every
iterator is consumed.
"""

from __future__ import annotations

from typing import Any, Union, get_args

from anthropic.types.beta import BetaContentBlockParam
from anthropic.types.beta.message_create_params import (
    MessageCreateParams as BetaMessageCreateParams,
)
from anthropic.types.message_create_params import MessageCreateParams
from pydantic import TypeAdapter

from support.request_oracles.typed_dicts import materialize, unknown_keys

_BETA = TypeAdapter(BetaMessageCreateParams)
_GA = TypeAdapter(MessageCreateParams)
_PARAM_TYPES: Any = tuple(member for member in get_args(BetaContentBlockParam)
                          if getattr(member, "__name__", "").endswith("Param"))
_BLOCK_PARAMS: TypeAdapter[Any] = TypeAdapter(Union[_PARAM_TYPES])  # noqa: UP007 (built at runtime)
_BETA_ONLY_FIELDS = ("mcp_servers", "context_management", "compaction", "container")
_BETA_ONLY_BLOCKS = ("mcp_tool_use", "mcp_tool_result", "compaction", "container_upload")
# Not declared by anthropic 2.14 (removed with Claude Opus 4.7), still taken by older models.
_SAMPLING = ("temperature", "top_p", "top_k")
# Open JSON schemas: any keyword is valid there.
_OPEN = (".input_schema", ".format.schema")


def _is_open(path: str) -> bool:
    """Whether ``path`` is inside open JSON, where any key is valid."""
    return any(open_path in path for open_path in _OPEN)


def _uses_beta(body: dict[str, Any]) -> bool:
    kinds = {block.get("type") for message in body["messages"]
             if isinstance(message["content"], list) for block in message["content"]}
    return any(field in body for field in _BETA_ONLY_FIELDS) or bool(
        kinds & set(_BETA_ONLY_BLOCKS))


def check(body: dict[str, Any]) -> None:
    """``body`` is a request the official SDK's types accept, key for key."""
    params = dict(body)
    if "model" not in params:
        # A Bedrock InvokeModel body: the SDK's Bedrock client takes MessageCreateParams,
        # moves model (and stream) into the URL and adds anthropic_version
        # (anthropic/lib/bedrock/_client.py, _prepare_options).
        assert params.pop("anthropic_version") == "bedrock-2023-05-31"
        params["model"] = "eu.anthropic.claude-haiku-4-5-20251001-v1:0"
    adapters = [_BETA] + ([] if _uses_beta(params) else [_GA])
    for adapter in adapters:
        validated = materialize(adapter.validate_python(params))
        unknown = [p for p in unknown_keys(params, validated, is_open=_is_open)
                   if p.removeprefix("$.") not in _SAMPLING]
        assert unknown == [], unknown
    for index, message in enumerate(params["messages"]):
        if isinstance(message["content"], list):
            for number, block in enumerate(message["content"]):
                validated = materialize(_BLOCK_PARAMS.validate_python(block))
                unknown = unknown_keys(block, validated, f"messages[{index}][{number}]",
                                       is_open=_is_open)
                assert unknown == [], unknown
