"""What a conversation from elsewhere needs to be a request Anthropic accepts:
the API version the body is for (its sampling options and content rules), the
thinking-before-tool-use rule for another provider's tool turn, and turns
that alternate (on Gemini too).

Every body built here is checked with the official SDK's request types
(``support.request_oracles.sdk_valid``); the recorded turn-2
requests show the cases where they hold them.
"""

from __future__ import annotations

import copy
import json
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from support.conversations import CONVERSATIONS
from support.recordings import FIXTURES
from support.request_oracles import sdk_valid

from streamkit import (
    AssistantMessage,
    Citation,
    DataBlock,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    LossyTranslationWarning,
    RawBlock,
    Request,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    UnsupportedFeatureError,
    UserMessage,
    build_request,
    parse_request,
)
from streamkit.client import Client
from streamkit.conversation.messages import Message
from streamkit.conversation.tools import Tool
from streamkit.model.blocks import Base64Source
from streamkit.model.extras import Extras
from streamkit.model.vendors import PROVIDERS, ProviderConfigError
from streamkit.providers import wire_format
from streamkit.providers.anthropic import versions
from streamkit.testing import ReplayServer, load_recording

ANTHROPIC = "anthropic"
MODEL = "claude-sonnet-4-5"
NEW, OLD = "2026-10-21", "2023-06-01"
SAMPLING = {"temperature": 0.2, "top_p": 0.9, "top_k": 40}
SECRET = "sk-ant-test-0123456789-SECRET"
PNG = b"\x89PNG\r\n\x1a\n fake"


def recorded(name: str) -> dict[str, Any]:
    body: dict[str, Any] = json.loads((CONVERSATIONS / name / "turn2.request.json").read_text())
    return body


def parsed(provider: str, name: str, **options: Any) -> Request:
    """A recorded turn-2 request read in its own wire, with ``options`` added
    (as the caller of a gateway would: under the request's own origin)."""
    request = parse_request(provider, recorded(name))
    request.options.update(options)
    return request


@contextmanager
def lossy() -> Iterator[list[str]]:
    """The LossyTranslationWarning messages issued inside the block."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        said: list[str] = []
        yield said
    said += [str(w.message) for w in caught if issubclass(w.category, LossyTranslationWarning)]


@contextmanager
def strict() -> Iterator[None]:
    """A block where any LossyTranslationWarning is an error (nothing dropped)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", LossyTranslationWarning)
        yield


def build(messages: list[Any] | Request, **options: Any) -> dict[str, Any]:
    options.setdefault("max_tokens", 4096)
    body = build_request(ANTHROPIC, messages, model=MODEL, **options)
    sdk_valid("anthropic", body)
    return body


def tool_turn(provider: str | None, *blocks: Any) -> list[Any]:
    """A user question, an assistant turn (``blocks`` then a get_weather call)
    written by ``provider``, and the call's result."""
    return [UserMessage("Weather in Paris?"),
            AssistantMessage([*blocks, ToolCallBlock("call_1", "get_weather", '{"city": "Paris"}')],
                             provider=provider),
            FunctionExecutionResultMessage([FunctionExecutionResult("call_1", "18C, sunny")])]


WEATHER = Tool("get_weather", "The weather in a city.",
               {"type": "object", "properties": {"city": {"type": "string"}}})


# ---------------------------------------------------------------- the API version (sampling)


@pytest.mark.parametrize("name", sorted(SAMPLING))
def test_the_registrys_version_refuses_a_sampling_option_the_caller_gave(name: str) -> None:
    for version in (None, NEW, "2027-01-01"):  # the default, said, and any later version
        given = {name: SAMPLING[name]} | ({"api_version": version} if version else {})
        with pytest.raises(UnsupportedFeatureError) as caught:
            build([UserMessage("q")], **given)
        assert caught.value.wire == ANTHROPIC and name in caught.value.feature
        assert "api_version='2023-06-01'" in caught.value.hint  # the way out
        assert "'anthropic-version': '2023-06-01'" in caught.value.hint


def test_the_older_version_takes_every_sampling_option() -> None:
    with strict():
        body = build([UserMessage("q")], api_version=OLD, **SAMPLING)
    assert {name: body[name] for name in SAMPLING} == SAMPLING
    assert "api_version" not in body  # a header, never a body field


def test_an_anthropic_body_holding_them_is_the_callers_own() -> None:
    """A body read from Anthropic is the caller's: rebuilt for the new version
    it is refused, not quietly changed; pinned to its version it is exact."""
    body = {"model": MODEL, "max_tokens": 64, "temperature": 0.5,
            "messages": [{"role": "user", "content": "q"}]}
    request = parse_request(ANTHROPIC, copy.deepcopy(body))
    with pytest.raises(UnsupportedFeatureError, match=r"temperature=0\.5 under"):
        build_request(ANTHROPIC, request)
    request.options["api_version"] = OLD
    assert build_request(ANTHROPIC, request) == body


def test_another_wires_sampling_options_are_dropped_with_a_warning() -> None:
    """The recorded Mistral request sends top_p: 1.0: that API's setting, not
    this request's wish, so the conversation goes without it."""
    request = parsed("mistral", "openai-compatible/mistral-content-array-prefix",
                     max_tokens=1024)
    assert request.options["top_p"] == 1.0
    with lossy() as said:
        body = build(request)
    assert "top_p" not in body
    assert [text for text in said if "top_p" in text] == [
        "anthropic cannot hold top_p read from openai-chat: anthropic-version 2026-10-21 "
        "refuses the sampling options; dropped"]
    request.options["api_version"] = OLD  # a gateway pinning the older version keeps it
    assert build(request)["top_p"] == 1.0


def test_a_cloud_platforms_body_is_for_its_own_version() -> None:
    """Bedrock names its version in the body (``anthropic_version``); its Messages
    rules are 2023-06-01's, so the sampling options stay."""
    body = build_request(ANTHROPIC, [UserMessage("q")], model=None, stream=None,
                         max_tokens=10, temperature=0.3, anthropic_version="bedrock-2023-05-31")
    assert body == {"max_tokens": 10, "temperature": 0.3, "anthropic_version": "bedrock-2023-05-31",
                    "messages": [{"role": "user", "content": "q"}]}


@pytest.mark.parametrize("version", ["latest", 20261021, "2026-10"])
def test_an_api_version_that_is_no_date_is_refused(version: Any) -> None:
    with pytest.raises(UnsupportedFeatureError, match="api_version="):
        build([UserMessage("q")], api_version=version)


def test_the_builders_version_is_the_one_the_registry_sends() -> None:
    header = wire_format(ANTHROPIC).version_header
    assert header == "anthropic-version"
    assert PROVIDERS["anthropic"].headers[header] == versions.API_VERSION == NEW


@pytest.mark.parametrize("provider", ["openai", "openai-responses", "gemini", "ollama"])
def test_wires_without_versions_drop_api_version_silently(provider: str) -> None:
    with strict():
        body = build_request(provider, [UserMessage("q")], model="m", api_version=NEW)
    assert "api_version" not in json.dumps(body)


# ---------------------------------------------------------------- the API version (content)


def _cited() -> TextBlock:
    return TextBlock("Paris is in France.", citations=[Citation(
        cited_text="Paris", document_index=0, start=0, end=5, wire=ANTHROPIC,
        raw={"type": "char_location", "cited_text": "Paris", "document_index": 0,
             "document_title": None, "start_char_index": 0, "end_char_index": 5})])


def test_the_new_version_leaves_out_assistant_documents_and_user_citations() -> None:
    document = RawBlock("document", {"type": "document", "source": {
        "type": "text", "media_type": "text/plain", "data": "Paris is in France."}})
    messages = [UserMessage([_cited()]),
                AssistantMessage([document, TextBlock("Noted.")], provider=ANTHROPIC),
                UserMessage("And Lyon?")]
    with lossy() as said:
        body = build(messages)
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Paris is in France."}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Noted."}]},
        {"role": "user", "content": "And Lyon?"}]
    assert said == [
        "anthropic cannot hold 1 document block(s) in assistant messages: anthropic-version "
        "2026-10-21 refuses documents in assistant messages; dropped",
        "anthropic cannot hold the citations of 1 user text block(s): anthropic-version "
        "2026-10-21 refuses citations on user text blocks; dropped"]
    with strict():
        old = build(messages, api_version=OLD)
    assert old["messages"][0]["content"][0]["citations"][0]["cited_text"] == "Paris"
    assert old["messages"][1]["content"][0]["type"] == "document"


def test_citations_inside_a_tool_result_are_left_out_too() -> None:
    messages = [UserMessage("Look it up."),
                AssistantMessage([ToolCallBlock("t1", "get_weather", "{}")], provider=ANTHROPIC),
                FunctionExecutionResultMessage([FunctionExecutionResult("t1", [_cited()])])]
    with lossy() as said:
        body = build(messages, tools=[WEATHER])
    assert body["messages"][2]["content"][0]["content"] == [
        {"type": "text", "text": "Paris is in France."}]
    assert len(said) == 1 and "citations of 1 user text block" in said[0]


# ---------------------------------------------------------------- the client sends one version


def _sent(server: ReplayServer) -> tuple[str, dict[str, Any]]:
    request, = server.requests
    return request.headers["anthropic-version"], request.json()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_the_clients_header_and_body_agree() -> None:
    answer, _ = load_recording(FIXTURES / "anthropic/text-basic.sse")
    with_history = parsed("mistral", "openai-compatible/mistral-content-array-prefix",
                          max_tokens=1024)
    with_history.stream = True  # a Request is sent as it is: the recording asked for JSON
    # the registry's version: the caller's temperature is refused before anything is sent
    async with ReplayServer() as server:
        server.add("/v1/messages", answer)
        async with Client(f"anthropic:{MODEL}", base_url=server.url + "/v1",
                          environ={"ANTHROPIC_API_KEY": SECRET}) as client:
            with pytest.raises(UnsupportedFeatureError, match="temperature"):
                async with client.stream([UserMessage("q")], temperature=0.2) as events:
                    await events.final()
            assert server.requests == []
            with lossy() as said:  # another wire's top_p: sent without it, said
                async with client.stream(with_history) as events:
                    await events.final()
            with pytest.raises(ProviderConfigError, match=r"headers=.*2023-06-01"):
                async with client.stream([UserMessage("q")], api_version=OLD) as events:
                    await events.final()
        header, body = _sent(server)
    assert header == NEW and "top_p" not in body and any("top_p" in text for text in said)
    sdk_valid("anthropic", body)
    # pinned on the client: the same header is sent, and the body keeps the options
    async with ReplayServer() as server:
        server.add("/v1/messages", answer)
        async with Client(f"anthropic:{MODEL}", base_url=server.url + "/v1",
                          environ={"ANTHROPIC_API_KEY": SECRET},
                          headers={"anthropic-version": OLD}) as client, \
                client.stream([UserMessage("q")], temperature=0.2, api_version=OLD) as events:
            assert (await events.final()).text == "Hello there!"
        header, body = _sent(server)
    assert header == OLD and body["temperature"] == 0.2
    sdk_valid("anthropic", body)


# ---------------------------------------------------------------- thinking before tool use


def test_another_providers_tool_turn_turns_thinking_off_with_a_warning() -> None:
    """The recorded OpenAI tool call, answered, sent to Anthropic with thinking:
    its turn has no signed thinking block, so the request disables thinking."""
    request = parsed("openai", "openai-chat/tool-call-json", max_tokens=4096,
                     thinking_budget=2048)
    with lossy() as said:
        body = build(request)
    assert body["thinking"] == {"type": "disabled"}
    assert body["messages"][-2]["content"][0]["type"] == "tool_use"
    assert [text for text in said if "thinking" in text] == [
        "anthropic cannot hold thinking for this request: the assistant turn the last tool "
        "results answer has no signed thinking block (another provider's turn, or one whose "
        "signature was lost), which Anthropic requires with thinking enabled; as its error "
        "advises, thinking is disabled; dropped"]


def test_an_own_signed_tool_turn_keeps_thinking_on() -> None:
    body = recorded("anthropic/tool-use-thinking-signature")
    request = parse_request(ANTHROPIC, copy.deepcopy(body))
    with strict():
        assert build_request(ANTHROPIC, request) == body  # thinking enabled, as recorded
    assert body["thinking"]["type"] == "enabled"
    with strict():
        signed = build(tool_turn(ANTHROPIC, ThinkingBlock("Look it up.", signature="sig")),
                       tools=[WEATHER], thinking_budget=2048)
    assert signed["thinking"] == {"type": "enabled", "budget_tokens": 2048}


@pytest.mark.parametrize("blocks", [
    (ThinkingBlock("Look it up."),),  # ours, but the signature was lost (a cut-off stream)
    (TextBlock("Let me check."),),  # ours, without thinking
], ids=["unsigned", "no-thinking"])
def test_an_own_tool_turn_without_a_signed_block_turns_thinking_off(blocks: Any) -> None:
    with lossy() as said:
        body = build(tool_turn(ANTHROPIC, *blocks), tools=[WEATHER], thinking_budget=2048,
                     include_thoughts=True)
    assert body["thinking"] == {"type": "disabled"}
    assert len(said) == 1 and "thinking for this request" in said[0]


def test_thinking_stays_on_when_the_conversation_moved_past_the_tool_turn() -> None:
    messages = [*tool_turn("openai"), AssistantMessage("Sunny, 18C.", provider="openai"),
                UserMessage("And tomorrow?")]
    with strict():
        body = build(messages, tools=[WEATHER], thinking_budget=2048)
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}


def test_adaptive_thinking_is_left_as_it_is() -> None:
    """Under adaptive thinking the model may skip thinking, and the models that
    only think adaptively refuse ``disabled``: nothing to change."""
    with strict():
        body = build(tool_turn("openai"), tools=[WEATHER], thinking={"type": "adaptive"})
    assert body["thinking"] == {"type": "adaptive"}


def test_include_thoughts_from_another_wire_without_thinking_is_dropped() -> None:
    """The recorded Gemini request asks for thoughts with no budget: Anthropic
    has nothing to show, so the option goes, said; the caller's is refused."""
    request = parsed("gemini", "gemini/thought-parts-then-user", max_tokens=1024)
    assert request.options["include_thoughts"] is True
    with lossy() as said:
        body = build(Request(request.messages, options=request.options))
    assert "thinking" not in body
    assert [text for text in said if "include_thoughts" in text] == [
        "anthropic cannot hold include_thoughts read from gemini: Anthropic shows thinking "
        "only when thinking is on, and this request turns none on (no thinking_budget); dropped"]
    with pytest.raises(UnsupportedFeatureError, match="include_thoughts without thinking"):
        build([UserMessage("q")], include_thoughts=True)


# ---------------------------------------------------------------- alternating turns


def test_a_tool_result_then_the_users_image_is_one_user_turn() -> None:
    """The recorded OpenAI request answers a call with a tool message, then a
    user message with text and an image: on Anthropic one user turn, its
    tool_result first; on Gemini one user content."""
    request = parsed("openai", "openai-chat/tool-result-then-user-image", max_tokens=1024)
    with strict():
        body = build(Request(request.messages, tools=request.tools))
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert [part["type"] for part in body["messages"][2]["content"]] == [
        "tool_result", "text", "image"]
    with strict():
        gemini = build_request("gemini", Request(request.messages, tools=request.tools),
                               model="gemini-2.5-flash")
    sdk_valid("gemini", gemini)
    assert [c["role"] for c in gemini["contents"]] == ["user", "model", "user"]
    assert [next(iter(part)) for part in gemini["contents"][2]["parts"]] == [
        "functionResponse", "text", "fileData"]


def test_user_text_before_tool_results_goes_after_them() -> None:
    """Anthropic requires a user message's tool_result parts first."""
    messages = [UserMessage("Weather?"),
                AssistantMessage([ToolCallBlock("c1", "get_weather", "{}")], provider="openai"),
                UserMessage("(one moment)"),
                FunctionExecutionResultMessage([FunctionExecutionResult("c1", "sunny")])]
    body = build(messages, tools=[WEATHER])
    assert body["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "c1", "content": "sunny"},
        {"type": "text", "text": "(one moment)"}]


@pytest.mark.parametrize("provider", [ANTHROPIC, "gemini"])
def test_two_user_messages_in_a_row_are_one_turn(provider: str) -> None:
    image = DataBlock(source=Base64Source(PNG, "image/png"))
    messages: list[Message] = [UserMessage("Look:"), UserMessage([image]),
                               AssistantMessage("A cat."), AssistantMessage("Anything else?"),
                               UserMessage("No.")]
    body = build_request(provider, messages, model="m", max_tokens=100)
    turns = body["messages"] if provider == ANTHROPIC else body["contents"]
    assert len(turns) == 3
    sdk_valid(provider, body)


@pytest.mark.parametrize(("provider", "body"), [
    (ANTHROPIC, {"model": MODEL, "max_tokens": 10, "messages": [
        {"role": "user", "content": "a"}, {"role": "user", "content": "b"}]}),
    ("gemini", {"contents": [{"role": "user", "parts": [{"text": "a"}]},
                             {"role": "user", "parts": [{"text": "b"}]}]}),
])
def test_a_body_with_two_user_messages_is_rebuilt_as_it_was(provider: str,
                                                            body: dict[str, Any]) -> None:
    """Read from its own wire, each wire message stays one: the body comes back exactly."""
    request = parse_request(provider, copy.deepcopy(body))
    assert build_request(provider, request) == body
    for message in request.messages:  # the same turns from elsewhere are joined
        message.metadata = Extras("openai-chat")
    assert len(next(iter(v for k, v in build_request(provider, request).items()
                         if k in ("messages", "contents")))) == 1
