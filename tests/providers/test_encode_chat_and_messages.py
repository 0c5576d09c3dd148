"""Answers written back: ``encode_stream`` / ``encode_response`` for OpenAI Chat
and Anthropic.

The two oracles: our own parser (parse -> encode -> parse gives an equal
response, on every recording of the wire) and the official SDKs (openai's
``chat.completions.stream()``, anthropic's ``messages.stream()``), which read
the encoded bytes from a real socket (:class:`streamkit.testing.ReplayServer`)
and must end with the same text, reasoning, tool calls, usage and finish
reason; the non-streamed bodies validate as the SDKs' response models.
Each recording is also written to the other wire, and the SDK of that wire
reads it: what crosses is said per field below (``_expected_finish``,
``_prompt_tokens``). How Anthropic writes tool arguments is
``anthropic/test_encode.py``'s; OpenAI Chat's dialects, audio and errors are
``openai_chat/test_encode.py``'s.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.comparing import comparable, fresh_ids
from support.recordings import FIXTURES, body, fixture_id, recordings
from support.scripted import two_city_answer
from support.sdk_stream_readers import anthropic_final, openai_chat_final

import streamkit
from streamkit import (
    ChatResponse,
    ChatUsage,
    FinishReason,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    encode_response,
    encode_stream,
    replay,
)
from streamkit.model.accumulate import Accumulator
from streamkit.model.events import (
    BlockStart,
    ResponseEnd,
    ResponseStart,
    UsageUpdate,
)
from streamkit.model.replay import events_of
from streamkit.providers import wire_format
from streamkit.providers.anthropic.encode import ID_PREFIX as ANTHROPIC_ID
from streamkit.providers.encoder import response_id
from streamkit.providers.openai_chat.encode import ID_PREFIX as OPENAI_CHAT_ID

#: The wires that can write answers, and the registry name each is encoded for.
ENCODED = {"openai-chat": "openai", "anthropic": "anthropic"}

RECORDINGS = [path for path in recordings()
              if path.relative_to(FIXTURES).parts[0] in ENCODED]


def _provider(path: Path) -> str:
    return ENCODED[path.relative_to(FIXTURES).parts[0]]


def _parsed(path: Path) -> tuple[list[Any], ChatResponse]:
    with fresh_ids():
        return replay(body(path), _provider(path), on_error="return")


def _reparsed(provider: str, encoded: bytes) -> ChatResponse:
    with fresh_ids():
        return replay(encoded, provider, on_error="return")[1]


# ---------------------------------------------------------------- round trips


def test_every_recording_of_both_wires_is_round_tripped() -> None:
    """The recordings the tests below take: every stream of both wires' folders,
    the JSON-lines ones too (7 of each when this was written)."""
    names = {str(path.relative_to(FIXTURES)) for path in RECORDINGS}
    for wire in ENCODED:
        assert len([name for name in names if name.startswith(wire + "/")]) >= 7, wire
    assert "anthropic/tool-no-args.chunks.jsonl" in names


@pytest.mark.parametrize("path", RECORDINGS, ids=fixture_id)
def test_parse_encode_parse_gives_an_equal_response(path: Path) -> None:
    events, response = _parsed(path)
    provider = _provider(path)
    encoded = b"".join(encode_stream(provider, events))
    again = _reparsed(provider, encoded)
    assert comparable(again) == comparable(response)
    assert again.id == response.id and again.usage == response.usage
    assert [block.id for block in again.tool_calls] == [block.id for block in response.tool_calls]


@pytest.mark.parametrize("path", RECORDINGS, ids=fixture_id)
def test_a_final_response_replayed_as_events_encodes_to_the_same_answer(path: Path) -> None:
    _, response = _parsed(path)
    provider = _provider(path)
    accumulator = Accumulator()
    accumulator.apply_all(list(events_of(response)))
    assert comparable(accumulator.response) == comparable(response)
    again = _reparsed(provider, b"".join(encode_stream(provider, response)))
    assert comparable(again) == comparable(response)


@pytest.mark.parametrize("path", RECORDINGS, ids=fixture_id)
def test_each_event_is_written_as_it_comes(path: Path) -> None:
    """Incremental: a block's content is on the wire once its delta is fed, and
    the bytes of a stream are the sum of the bytes of its events."""
    events, _ = _parsed(path)
    encoder = wire_format(_wire(path)).encode_stream
    assert encoder is not None
    writer = encoder(None)
    written = b""
    for event in events:
        written += writer.feed(event)
        if isinstance(event, BlockStart) and isinstance(event.block, ToolCallBlock):
            assert event.block.id.encode() in written
    written += writer.close()
    assert written == b"".join(encode_stream(_provider(path), events))


def _wire(path: Path) -> str:
    return path.relative_to(FIXTURES).parts[0]


@pytest.mark.anyio
async def test_an_async_source_is_encoded_with_async_for() -> None:
    events, response = _parsed(FIXTURES / "anthropic/tool-use.sse")

    async def source() -> Any:
        for event in events:
            yield event
        yield response  # a Stream's final item is skipped

    encoded = encode_stream("anthropic", source())
    assert encoded.content_type == "text/event-stream"
    with pytest.raises(TypeError, match="async for"):
        iter(encoded).__next__()
    chunks = [chunk async for chunk in encode_stream("anthropic", source())]
    assert comparable(_reparsed("anthropic", b"".join(chunks))) == comparable(response)
    async def recorded() -> Any:
        yield body(FIXTURES / "anthropic/tool-use.sse")

    async with streamkit.stream(recorded(), provider="anthropic") as stream:  # a Stream too
        assert isinstance(stream, streamkit.Stream)
        streamed = b"".join([chunk async for chunk in encode_stream("openai", stream)])
    assert _reparsed("openai", streamed).tool_calls[0].arguments() == {"location": "Paris"}


# ---------------------------------------------------------------- the official SDKs read it


def _summary(response: ChatResponse) -> dict[str, Any]:
    """What every wire carries: text, refusal, reasoning, tool calls, finish."""
    return {"text": response.text, "refusal": response.refusal, "thinking": response.thinking,
            "calls": [(call.id, call.name, call.input) for call in response.tool_calls],
            "finish": response.finished_reason}


def _expected_finish(response: ChatResponse, target: str) -> str | None:
    """The finish word the target SDK must report: the recording's own word on
    its own wire; across wires, the target's word for the uniform reason
    (OpenAI has no refusal or pause word: its answer then stops)."""
    if target == _source_wire(response):
        return response.stop_reason
    finish = response.finished_reason
    words = {"openai-chat": {FinishReason.STOP: "stop", FinishReason.LENGTH: "length",
                             FinishReason.TOOL_CALLS: "tool_calls",
                             FinishReason.REFUSAL: "stop"},
             "anthropic": {FinishReason.STOP: "end_turn", FinishReason.LENGTH: "max_tokens",
                           FinishReason.TOOL_CALLS: "tool_use",
                           FinishReason.REFUSAL: "refusal"}}[target]
    return words[finish] if finish is not None else None


def _written_id(response: ChatResponse, target: str) -> str:
    """The response's id in the target's form (``test_encode_ids.py`` pins the rule)."""
    prefix = {"openai-chat": OPENAI_CHAT_ID, "anthropic": ANTHROPIC_ID}[target]
    return response_id(response.id, prefix, from_this_wire=_source_wire(response) == target)


def _source_wire(response: ChatResponse) -> str:
    return "anthropic" if response.provider == "anthropic" else "openai-chat"


def _prompt_tokens(usage: ChatUsage, source: str, target: str) -> int:
    """The input count the target reports: OpenAI's includes the prompt cache,
    Anthropic's counts it apart."""
    cache = (usage.cached_tokens or 0) + (usage.cache_creation_tokens or 0)
    count = usage.input_tokens or 0
    if source == "anthropic" and target == "openai-chat":
        return count + cache
    if source == "openai-chat" and target == "anthropic":
        return count - cache
    return count


def _check_openai(final: Any, response: ChatResponse) -> None:
    choice = final.choices[0]
    message = choice.message
    assert final.id == _written_id(response, "openai-chat") and final.object == "chat.completion"
    assert (message.content or "") == response.text
    assert message.refusal == response.refusal
    assert getattr(message, "reasoning_content", None) == (response.thinking or None)
    assert [(call.id, call.function.name, call.function.arguments)
            for call in message.tool_calls or []] == \
        [(call.id, call.name, call.input) for call in response.tool_calls]
    assert choice.finish_reason == _expected_finish(response, "openai-chat")
    assert response.usage is not None and final.usage is not None
    prompt = _prompt_tokens(response.usage, _source_wire(response), "openai-chat")
    assert (final.usage.prompt_tokens, final.usage.completion_tokens) == \
        (prompt, response.usage.output_tokens)


def _check_anthropic(final: Any, response: ChatResponse) -> None:
    assert final.id == _written_id(response, "anthropic") and final.type == "message"
    texts = [block.text for block in final.content if block.type == "text"]
    assert "".join(texts) == response.text + (response.refusal or "")
    thinking = [block for block in final.content if block.type == "thinking"]
    assert "".join(block.thinking for block in thinking) == response.thinking
    own = _source_wire(response) == "anthropic"
    expected_thinking = [block for block in response.content
                         if type(block) is ThinkingBlock and not block.redacted]
    assert [block.signature for block in thinking] == \
        [(block.signature or "") if own else "" for block in expected_thinking]
    redacted = [block.data for block in final.content if block.type == "redacted_thinking"]
    assert redacted == [block.encrypted for block in response.content
                        if type(block) is ThinkingBlock and block.redacted]
    calls = [block for block in final.content if block.type == "tool_use"]
    assert [(call.id, call.name) for call in calls] == \
        [(call.id, call.name) for call in response.tool_calls]
    for call, expected in zip(calls, response.tool_calls, strict=True):
        if not expected.incomplete:  # cut-off JSON: the SDK's own partial reading
            assert call.input == expected.arguments()
    assert final.stop_reason == _expected_finish(response, "anthropic")
    assert response.usage is not None
    prompt = _prompt_tokens(response.usage, _source_wire(response), "anthropic")
    assert (final.usage.input_tokens, final.usage.output_tokens) == \
        (prompt, response.usage.output_tokens)


@pytest.mark.anyio
@pytest.mark.parametrize("target", ["openai", "anthropic"])
@pytest.mark.parametrize("path", RECORDINGS, ids=fixture_id)
async def test_the_official_sdk_reads_the_encoded_stream(path: Path, target: str) -> None:
    events, response = _parsed(path)
    encoded = b"".join(encode_stream(target, events))
    if target == "openai":
        _check_openai(await openai_chat_final(encoded), response)
    else:
        _check_anthropic(await anthropic_final(encoded), response)


# ---------------------------------------------------------------- scripted answers


def _scripted(provider: str | None) -> ChatResponse:
    """Reasoning with its signature, text, then two parallel tool calls."""
    return two_city_answer(provider)


@pytest.mark.anyio
async def test_a_scripted_answer_with_thinking_and_parallel_calls_reaches_both_sdks() -> None:
    response = _scripted(None)
    final = await anthropic_final(b"".join(encode_stream("anthropic", response)))
    assert [block.type for block in final.content] == ["thinking", "text", "tool_use",
                                                       "tool_use"]
    assert final.content[0].signature == "sig-1"
    assert [block.input for block in final.content[2:]] == [{"city": "Paris"}, {"city": "Rome"}]
    assert final.stop_reason == "tool_use"
    assert (final.usage.input_tokens, final.usage.cache_read_input_tokens) == (20, 5)
    chat = await openai_chat_final(b"".join(encode_stream("openai", response)))
    message = chat.choices[0].message
    assert message.content == "Checking both."
    assert message.reasoning_content == "Two cities: call twice."
    assert [(call.id, json.loads(call.function.arguments)) for call in message.tool_calls] == \
        [("call_a", {"city": "Paris"}), ("call_b", {"city": "Rome"})]
    assert chat.choices[0].finish_reason == "tool_calls"
    assert chat.usage.prompt_tokens == 20 and chat.usage.prompt_tokens_details.cached_tokens == 5


def test_another_wires_signature_is_not_written_to_anthropic() -> None:
    response = _scripted("gemini")
    encoded = b"".join(encode_stream("anthropic", response))
    assert b"sig-1" not in encoded and b'"signature":""' in encoded
    assert encode_response("anthropic", response)["content"][0]["signature"] == ""
    assert encode_response("anthropic", _scripted("anthropic"))["content"][0]["signature"] \
        == "sig-1"


@pytest.mark.parametrize("finish", [FinishReason.STOP, FinishReason.LENGTH,
                                    FinishReason.TOOL_CALLS, FinishReason.CONTENT_FILTER,
                                    FinishReason.REFUSAL, FinishReason.PAUSE])
def test_every_finish_reason_is_written_as_a_word_each_wire_reads_back(
        finish: FinishReason) -> None:
    response = ChatResponse(id="r1", model="m", content=[TextBlock("x", id="t")],
                            finished_reason=finish, terminated=True)
    collapsed = {"openai": {FinishReason.REFUSAL: FinishReason.STOP,
                            FinishReason.PAUSE: FinishReason.STOP},
                 "anthropic": {FinishReason.CONTENT_FILTER: FinishReason.REFUSAL}}
    for provider in ENCODED.values():
        again = _reparsed(provider, b"".join(encode_stream(provider, response)))
        assert again.finished_reason == collapsed[provider].get(finish, finish), provider
        assert again.terminated


def test_a_stream_cut_before_its_end_is_written_without_the_end_marker() -> None:
    response = ChatResponse(id="r1", model="m", content=[TextBlock("par", id="t")],
                            finished_reason=None, terminated=False)
    chat = b"".join(encode_stream("openai", response))
    messages = b"".join(encode_stream("anthropic", response))
    assert b"[DONE]" not in chat and b"message_stop" not in messages
    for provider, encoded in (("openai", chat), ("anthropic", messages)):
        again = _reparsed(provider, encoded)
        assert (again.text, again.terminated) == ("par", False)


def test_an_in_stream_error_is_the_wires_error_event() -> None:
    events: list[Any] = [ResponseStart(id="r1", model="m", provider="gemini"),
                         streamkit.ErrorEvent(message="overloaded", error_type="overloaded_error")]
    for provider in ENCODED.values():
        encoded = b"".join(encode_stream(provider, events))
        assert b"overloaded" in encoded
        _, partial = replay(encoded, provider, on_error="return")
        assert partial.finished_reason == FinishReason.ERROR, provider


# ---------------------------------------------------------------- non-streamed bodies


@pytest.mark.parametrize("path", RECORDINGS, ids=fixture_id)
def test_the_body_validates_as_the_sdks_response_and_reads_back(path: Path) -> None:
    openai_types = pytest.importorskip("openai.types.chat")
    anthropic_types = pytest.importorskip("anthropic.types")
    _, response = _parsed(path)
    for provider, model in (("openai", openai_types.ChatCompletion),
                            ("anthropic", anthropic_types.Message)):
        written = encode_response(provider, response)
        validated = model.model_validate(written)
        target = "openai-chat" if provider == "openai" else provider
        assert validated.id == _written_id(response, target)
        again = streamkit.parse_response(provider, written)
        expected = _summary(response)
        got = _summary(again)
        if provider == "anthropic":  # a body holds arguments as an object
            expected["calls"] = [(call.id, call.name, json.loads(call.input)
                                  if not call.incomplete else {})
                                 for call in response.tool_calls]
            got["calls"] = [(call.id, call.name, call.arguments()) for call in again.tool_calls]
            expected["text"] += expected.pop("refusal") or ""  # no refusal block on Anthropic
            got.pop("refusal")
            if response.finished_reason == FinishReason.CONTENT_FILTER:
                expected["finish"] = FinishReason.REFUSAL
        elif response.finished_reason == FinishReason.REFUSAL and response.refusal is None:
            expected["finish"] = FinishReason.STOP  # a refusal without refusal text stops
        assert got == expected, provider
        assert again.usage is not None and response.usage is not None
        assert again.usage.output_tokens == response.usage.output_tokens


def test_an_own_body_keeps_the_fields_its_reader_kept() -> None:
    _, response = _parsed(FIXTURES / "openai-chat/gpt5-obfuscation-usage-moderation.sse")
    written = encode_response("openai", response)
    assert written["service_tier"] == "default" and "moderation" in written
    assert streamkit.parse_response("openai", written).metadata == response.metadata
    assert "moderation" not in encode_response("anthropic", response)
    _, refusal = _parsed(FIXTURES / "anthropic/refusal-stop-details.chunks.jsonl")
    message = encode_response("anthropic", refusal)
    assert message["stop_details"]["category"] == "cyber"
    assert streamkit.parse_response("anthropic", message).metadata == refusal.metadata


def test_usage_events_merge_before_they_are_written() -> None:
    start = ResponseStart(id="r1", model="m", provider="anthropic")
    events: list[Any] = [start, UsageUpdate(usage=ChatUsage(input_tokens=7, output_tokens=1)),
                         UsageUpdate(usage=ChatUsage(output_tokens=9)),
                         ResponseEnd(finish_reason=FinishReason.STOP, stop_reason="end_turn")]
    again = _reparsed("anthropic", b"".join(encode_stream("anthropic", events)))
    assert again.usage is not None
    assert (again.usage.input_tokens, again.usage.output_tokens) == (7, 9)
