"""Prompt-cache points (streamkit.model.cache.CachePoint) on every wire: written
in each wire's own mechanism (bodies checked by the official SDKs' types), read
back into the same points, Anthropic's four-breakpoint rule, the OpenAI-format
markers (LiteLLM's, OpenRouter's) reaching Anthropic, the wires that need no
marker left without one and without a warning, OpenAI's prompt-cache options,
Gemini's explicit cache refused elsewhere, and the gateway's automatic points."""

from __future__ import annotations

import copy
import warnings
from typing import Any

import pytest
from support.request_oracles import sdk_valid

from streamkit import (
    AssistantMessage,
    CachePoint,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    LossyTranslationWarning,
    Request,
    SystemMessage,
    TextBlock,
    Tool,
    UnsupportedFeatureError,
    UserMessage,
    build_request,
    parse_request,
)
from streamkit.blocks import block_from_dict
from streamkit.providers import vendor
from streamkit.providers.cache_points import with_automatic_points

EPHEMERAL = {"type": "ephemeral"}
HOUR = {"type": "ephemeral", "ttl": "1h"}


def conversation() -> list[Any]:
    """A point on each kind of holder: system prompt, block, message, tool result."""
    return [
        SystemMessage("You review contracts.", cache=CachePoint("1h")),
        UserMessage([TextBlock("A long contract."), TextBlock("What is clause 4?",
                                                              cache=CachePoint())]),
        AssistantMessage([TextBlock("Let me look.")], provider="x"),
        FunctionExecutionResultMessage([FunctionExecutionResult("c1", "clause 4 text", name="f",
                                                                cache=CachePoint())]),
    ]


TOOLS = [Tool("lookup", "Finds a clause.", cache=CachePoint("1h"))]  # an hour's first


def points(request: Request) -> list[tuple[str, CachePoint]]:
    """Every point of a request, by holder kind, in the prompt's order."""
    found = [("tool", tool.cache) for tool in request.tools or []
             if isinstance(tool, Tool) and tool.cache is not None]
    for message in request.messages:
        if message.cache is not None:  # type: ignore[union-attr]
            found.append((type(message).__name__, message.cache))  # type: ignore[union-attr]
        items = [] if isinstance(message.content, str) else message.content
        found += [(type(item).__name__, item.cache) for item in items
                  if item.cache is not None]  # type: ignore[union-attr]
    return found


# ---------------------------------------------------------------- the model


def test_a_blocks_point_survives_its_dict_and_its_copy() -> None:
    block = TextBlock("doc", cache=CachePoint("1h"))
    assert block.to_dict()["cache"] == {"ttl": "1h"}
    assert block_from_dict(block.to_dict()).cache == CachePoint("1h")
    assert block.copy() == block and block != TextBlock("doc", id=block.id)


def test_a_ttl_no_api_takes_is_refused_where_it_is_made() -> None:
    with pytest.raises(TypeError, match="5m or 1h"):
        CachePoint("2h")


# ---------------------------------------------------------------- Anthropic


def test_anthropic_writes_each_point_in_its_place_and_reads_it_back() -> None:
    body = build_request("anthropic", conversation(), model="claude-x", max_tokens=64,
                         tools=TOOLS)
    sdk_valid("anthropic", body)
    assert body["tools"][0]["cache_control"] == HOUR
    assert body["system"] == [{"type": "text", "text": "You review contracts.",
                               "cache_control": HOUR}]  # a message's point: its last block
    assert body["messages"][0]["content"][1]["cache_control"] == EPHEMERAL
    assert body["messages"][2]["content"][0]["cache_control"] == EPHEMERAL  # the tool result
    again = parse_request("anthropic", body)
    assert points(again) == [("tool", CachePoint("1h")), ("TextBlock", CachePoint("1h")),
                             ("TextBlock", CachePoint()), ("FunctionExecutionResult",
                                                           CachePoint())]
    assert build_request("anthropic", again) == body


def test_more_than_four_breakpoints_keep_the_first_and_the_last_three() -> None:
    messages = [SystemMessage("s", cache=CachePoint())]
    for number in range(5):
        messages += [UserMessage(f"u{number}", cache=CachePoint()),
                     AssistantMessage("a", provider="anthropic")]
    with pytest.warns(LossyTranslationWarning, match=r"7 cache breakpoints: the ones at "
                      r"system\[0\], messages\[0\]\.content\[0\], "
                      r"messages\[2\]\.content\[0\]: "):
        body = build_request("anthropic", [*messages, UserMessage("q")], model="c",
                             max_tokens=5, tools=TOOLS)
    sdk_valid("anthropic", body)
    marked = [path for path, part in _parts(body) if "cache_control" in part]
    assert marked == ["tools[0]", "messages[4].content[0]", "messages[6].content[0]",
                      "messages[8].content[0]"]


def _parts(body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    out = [(f"tools[{n}]", tool) for n, tool in enumerate(body.get("tools", []))]
    out += [(f"system[{n}]", part) for n, part in enumerate(body["system"])] if isinstance(
        body.get("system"), list) else []
    for number, message in enumerate(body["messages"]):
        if isinstance(message["content"], list):
            out += [(f"messages[{number}].content[{n}]", part)
                    for n, part in enumerate(message["content"])]
    return out


# ---------------------------------------------------------------- OpenAI-format markers


# The convention LiteLLM and OpenRouter accept: cache_control on a system part,
# on a user message, on a user part and on a tool entry.
OPENAI_FORMAT: dict[str, Any] = {
    "model": "claude-via-proxy",
    "messages": [
        {"role": "system", "content": [{"type": "text", "text": "Long rules.",
                                        "cache_control": HOUR}]},
        {"role": "user", "content": "A long document.", "cache_control": EPHEMERAL},
        {"role": "assistant", "content": "Read it."},
        {"role": "user", "content": [{"type": "text", "text": "Summarise."},
                                     {"type": "text", "text": "Briefly.",
                                      "cache_control": EPHEMERAL}]},
    ],
    "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}},
               "cache_control": HOUR}],
}


def test_openai_format_markers_reach_anthropic() -> None:
    """The issue's finding: every marker was dropped, without a warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", LossyTranslationWarning)
        body = build_request("anthropic", parse_request("openai", copy.deepcopy(OPENAI_FORMAT)),
                             max_tokens=64)
    sdk_valid("anthropic", body)
    assert body["tools"][0]["cache_control"] == HOUR
    assert body["system"][0]["cache_control"] == HOUR
    assert body["messages"][0]["content"] == [{"type": "text", "text": "A long document.",
                                               "cache_control": EPHEMERAL}]
    assert body["messages"][2]["content"][1]["cache_control"] == EPHEMERAL


def test_openrouter_takes_the_markers_back_where_they_were() -> None:
    request = parse_request("openrouter", copy.deepcopy(OPENAI_FORMAT))
    assert points(request) == [("tool", CachePoint("1h")), ("TextBlock", CachePoint("1h")),
                               ("UserMessage", CachePoint()), ("TextBlock", CachePoint())]
    body = build_request("openrouter", request)
    assert body == OPENAI_FORMAT
    sdk_valid("openai-chat", body, dialect="openrouter")


@pytest.mark.parametrize("provider", ["openai", "openai-responses", "gemini", "ollama"])
def test_a_wire_that_caches_prefixes_by_itself_gets_no_marker_and_no_warning(
        provider: str) -> None:
    """A documented no-op (docs/caching.md): the prefix is cached all the same,
    and OpenAI refuses a field it does not know in a message."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", LossyTranslationWarning)
        body = build_request(provider, conversation(), model="m", tools=TOOLS)
    assert "cache_control" not in str(body) and "ephemeral" not in str(body)
    sdk_valid(vendor(provider).wire, body)


def test_a_marker_this_model_cannot_hold_stays_the_wires_own() -> None:
    odd = {"type": "ephemeral", "ttl": "30m"}
    body = copy.deepcopy(OPENAI_FORMAT)
    body["messages"][1]["cache_control"] = odd
    request = parse_request("openrouter", body)
    assert request.messages[1].metadata == {"cache_control": odd}
    assert request.messages[1].cache is None  # type: ignore[union-attr]
    assert build_request("openrouter", request) == body


# ---------------------------------------------------------------- request options


def test_openais_prompt_cache_options_cross_between_its_two_apis_and_ask_nothing_elsewhere(
        ) -> None:
    chat = parse_request("openai", {"model": "gpt-5", "prompt_cache_key": "tenant-7",
                                    "prompt_cache_retention": "24h",
                                    "messages": [{"role": "user", "content": "hi"}]})
    assert chat.options == {"prompt_cache_key": "tenant-7", "prompt_cache_retention": "24h"}
    with warnings.catch_warnings():
        warnings.simplefilter("error", LossyTranslationWarning)
        responses = build_request("openai-responses", chat)
        others = {wire: build_request(wire, chat, max_tokens=5)
                  for wire in ("anthropic", "gemini", "ollama")}
    sdk_valid("openai-responses", responses)
    assert (responses["prompt_cache_key"], responses["prompt_cache_retention"]) == (
        "tenant-7", "24h")
    assert parse_request("openai-responses", responses).options == chat.options
    assert all("prompt_cache" not in str(body) for body in others.values())


def test_a_gemini_explicit_cache_goes_to_gemini_and_is_refused_elsewhere() -> None:
    body = {"contents": [{"role": "user", "parts": [{"text": "and clause 5?"}]}],
            "cachedContent": "cachedContents/contract-42"}
    request = parse_request("gemini", body)
    assert build_request("gemini", request) == body
    for provider in ("anthropic", "openai", "openai-responses", "ollama"):
        with pytest.raises(UnsupportedFeatureError, match=r"cachedContents/contract-42.*"
                           r"explicit context cache"):
            build_request(provider, request, model="m", max_tokens=5)


# ---------------------------------------------------------------- automatic points


def test_automatic_points_mark_the_tools_the_system_prompt_and_the_last_user_turn() -> None:
    messages = [SystemMessage("rules"), UserMessage("q1"), AssistantMessage("a"),
                FunctionExecutionResultMessage([FunctionExecutionResult("c", "r")]),
                AssistantMessage("a2")]
    tools: list[Any] = [Tool("a"), Tool("b"), {"type": "web_search_20250305"}]
    request = with_automatic_points(Request(messages, tools=tools))
    assert points(request) == [("tool", CachePoint()), ("SystemMessage", CachePoint()),
                               ("FunctionExecutionResultMessage", CachePoint())]
    assert request.tools[0] is tools[0]  # type: ignore[index]  # the caller's are untouched
    assert tools[1].cache is None and messages[0].cache is None
    body = build_request("anthropic", request, model="c", max_tokens=5)
    assert [path for path, part in _parts(body) if "cache_control" in part] == [
        "tools[1]", "system[0]", "messages[2].content[0]"]


def test_a_request_with_points_of_its_own_gets_none_added() -> None:
    request = Request([SystemMessage("rules"), UserMessage([TextBlock("q", cache=CachePoint())])])
    assert with_automatic_points(request) is request


def test_a_shorter_breakpoint_before_an_hour_long_one_lives_an_hour_too() -> None:
    """Anthropic: "1-hour entries must appear before 5-minute entries"."""
    messages = [SystemMessage("rules", cache=CachePoint()),
                UserMessage("doc", cache=CachePoint("1h")), AssistantMessage("ok"),
                UserMessage("q", cache=CachePoint())]
    with pytest.warns(LossyTranslationWarning, match=r"5-minute TTL of the cache "
                      r"breakpoint\(s\) at tools\[0\], system\[0\]: "):
        body = build_request("anthropic", messages, model="c", max_tokens=5,
                             tools=[Tool("lookup", cache=CachePoint("5m"))])
    ttls = [part["cache_control"].get("ttl") for _, part in _parts(body)
            if "cache_control" in part]
    assert ttls == ["1h", "1h", "1h", None]
