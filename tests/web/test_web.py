"""streamkit.web: any stream -> the AI SDK UI message stream.

The protocol itself is checked by the real client in ``test_node.py``;
here: the frames the encoder chooses, that it sends deltas only, keeps errors
and partials, never changes an event, and that no content can forge a frame.
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.comparing import comparable
from support.paths import ROOT
from support.recordings import FIXTURES, body, fixture_id, recordings

from streamkit import (
    BlockDelta,
    BlockEnd,
    BlockStart,
    ChatResponse,
    DataBlock,
    DataDelta,
    ErrorEvent,
    FinishReason,
    ResponseEnd,
    ResponseStart,
    TextBlock,
    TextDelta,
    ToolCallBlock,
    ToolInputDelta,
    replay,
    stream,
)
from streamkit.framing.sse import SSEDecoder
from streamkit.model.events import event_to_dict
from streamkit.web import (
    UI_MESSAGE_STREAM_HEADERS,
    UIMessageStreamEncoder,
    finish_reason_for_ui,
    ui_message_stream,
)


def chunks_of(frames: bytes) -> list[dict[str, Any]]:
    """The JSON chunks of a UI message stream, read with a WHATWG SSE decoder."""
    decoder = SSEDecoder()
    events = decoder.feed(frames) + decoder.flush()
    return [json.loads(e.data) for e in events if e.data != "[DONE]"]


def encode_all(items: list[Any], **options: Any) -> bytes:
    encoder = UIMessageStreamEncoder(**options)
    return b"".join(encoder.encode(item) for item in items)


def encoded_recording(name: str | Path) -> tuple[list[dict[str, Any]], ChatResponse, bytes]:
    events, final = replay(body(name if isinstance(name, Path) else FIXTURES / name),
                           on_error="return")
    frames = encode_all([*events, final])
    return chunks_of(frames), final, frames


async def _pieces(raw: bytes, size: int = 97, fail_after: int | None = None
                  ) -> AsyncIterator[bytes]:
    for start in range(0, len(raw), size):
        if fail_after is not None and start >= fail_after:
            raise OSError("connection reset by peer")
        yield raw[start:start + size]


async def collect(source: AsyncIterator[bytes]) -> bytes:
    out = b""
    async for frame in source:
        out += frame
    return out


# ---------------------------------------------------------------- the frames


def test_a_tool_call_turn_is_the_sequence_the_protocol_expects() -> None:
    chunks, final, frames = encoded_recording("anthropic/tool-use.sse")
    types = [c["type"] for c in chunks]
    deltas = types.count("tool-input-delta")
    assert types == ["start", "start-step", "text-start", "text-delta", "text-delta", "text-end",
                     "tool-input-start", *["tool-input-delta"] * deltas, "tool-input-available",
                     "finish-step", "finish"]
    assert frames.endswith(b"data: [DONE]\n\n")
    assert chunks[0]["messageId"] == final.id
    call = final.tool_calls[0]
    available = chunks[-3]
    assert (available["toolCallId"], available["toolName"]) == (call.id, "get_weather")
    assert available["input"] == call.arguments() == {"location": "Paris"}
    assert "".join(c["inputTextDelta"] for c in chunks if c["type"] == "tool-input-delta") \
        == call.input
    finish = chunks[-1]
    assert finish["finishReason"] == "tool-calls"
    assert finish["messageMetadata"]["finishReason"] == "tool_calls"
    assert finish["messageMetadata"]["usage"]["output_tokens"] == final.usage.output_tokens  # type: ignore[union-attr]


@pytest.mark.parametrize("path", recordings(), ids=fixture_id)
def test_the_deltas_add_up_to_the_final_text_and_reasoning(path: Path) -> None:
    chunks, final, _ = encoded_recording(path)
    sent: dict[str, str] = {}
    kinds: dict[str, str] = {}
    for chunk in chunks:
        if chunk["type"] in ("text-start", "reasoning-start"):
            sent[chunk["id"]], kinds[chunk["id"]] = "", chunk["type"]
        elif chunk["type"] in ("text-delta", "reasoning-delta"):
            sent[chunk["id"]] += chunk["delta"]
    texts = [sent[i] for i in sent if kinds[i] == "text-start"]
    reasoning = [sent[i] for i in sent if kinds[i] == "reasoning-start"]
    assert texts == [b.text for b in final.content if isinstance(b, TextBlock)]
    assert "".join(reasoning) == final.thinking


def test_audio_is_sent_once_not_once_per_delta() -> None:
    chunks, final, frames = encoded_recording("synthetic/openai-chat-audio.sse")
    audio = final.data_blocks[0]
    assert len(audio.data) > 100_000
    assert sum(1 for c in chunks if c["type"] == "file") == 1
    # base64 is 4/3 of the bytes; a per-delta snapshot would be hundreds of times more
    assert len(frames) < len(audio.data) * 4 / 3 + 20_000
    (file,) = [c for c in chunks if c["type"] == "file"]
    assert file["mediaType"] == "audio/wav"
    assert file["url"].startswith("data:audio/wav;base64,UklGR")  # RIFF
    assert file["providerMetadata"]["streamkit"] == {"transcript": audio.transcript,
                                                     "mediaType": audio.media_type}


def test_pcm_with_an_impossible_rate_is_sent_raw_not_as_a_crash() -> None:
    """``rate=0`` from the wire: no WAV header can be written, so the bytes go as
    they are, with their own media type (``to_wav()`` would raise)."""
    items = [
        ResponseStart(id="r"),
        BlockStart(index=0, block=DataBlock("a", "audio/pcm;rate=0")),
        BlockDelta(index=0, delta=DataDelta(b"\x01\x02\x03\x04")),
        BlockEnd(index=0),
        ResponseEnd(finish_reason=FinishReason.STOP),
    ]
    (file,) = [c for c in chunks_of(encode_all(items)) if c["type"] == "file"]
    assert file["mediaType"] == "audio/pcm;rate=0"
    assert file["url"] == "data:audio/pcm;rate=0;base64," + base64.b64encode(
        b"\x01\x02\x03\x04").decode()


def test_stream_audio_adds_each_delta_once_as_a_transient_data_part() -> None:
    events, final = replay(body(FIXTURES / "synthetic/openai-chat-audio.sse"))
    chunks = chunks_of(encode_all([*events, final], stream_audio=True))
    live = [c for c in chunks if c["type"] == "data-audio"]
    assert live and all(c["transient"] is True for c in live)
    joined = b"".join(base64.b64decode(c["data"]["base64"]) for c in live)
    assert joined == final.data_blocks[0].data


def test_thinking_signature_goes_into_provider_metadata() -> None:
    chunks, final, _ = encoded_recording("anthropic/thinking-signature.sse")
    signature = final.content[0].signature  # type: ignore[union-attr]
    assert signature
    (end,) = [c for c in chunks if c["type"] == "reasoning-end"]
    assert end["providerMetadata"] == {"streamkit": {"signature": signature}}


def test_redacted_reasoning_keeps_its_encrypted_data() -> None:
    chunks, final, _ = encoded_recording("anthropic/redacted-thinking.sse")
    starts = [c for c in chunks if c["type"] == "reasoning-start"]
    blocks = [b for b in final.content if b.type == "thinking"]
    assert [s["providerMetadata"]["streamkit"] for s in starts] == [
        {"encrypted": b.encrypted, "redacted": True} for b in blocks  # type: ignore[union-attr]
    ]


def test_a_cut_off_tool_call_is_a_tool_input_error_with_the_raw_input() -> None:
    chunks, final, _ = encoded_recording("anthropic/tool-use-incomplete-partial-json.sse")
    (error,) = [c for c in chunks if c["type"] == "tool-input-error"]
    assert not [c for c in chunks if c["type"] == "tool-input-available"]
    assert error["input"] == final.tool_calls[0].input
    assert "make_file" in error["errorText"] and "invalid JSON" in error["errorText"]


def test_a_tool_call_without_arguments_has_an_empty_object() -> None:
    chunks, _, _ = encoded_recording("anthropic/tool-no-args.chunks.jsonl")
    (available,) = [c for c in chunks if c["type"] == "tool-input-available"]
    assert available["input"] == {}


def test_a_refusal_is_flagged() -> None:
    chunks, _, _ = encoded_recording("openai-chat/refusal.sse")
    (start,) = [c for c in chunks if c["type"] == "text-start"]
    assert start["providerMetadata"] == {"streamkit": {"refusal": True}}


def test_citations_become_sources_with_the_provider_object() -> None:
    chunks, final, _ = encoded_recording("edge/anthropic-interleaved-tools-unknown.sse")
    (source,) = [c for c in chunks if c["type"].startswith("source-")]
    citation = next(b for b in final.content if isinstance(b, TextBlock)).citations[0]
    assert source["type"] == "source-document" and source["title"] == "Atlas"
    assert source["providerMetadata"]["streamkit"]["citation"] == citation.raw
    assert citation.raw and citation.title == "Atlas"
    chunks, _, _ = encoded_recording("edge/openai-responses-missing-index.sse")
    (source,) = [c for c in chunks if c["type"].startswith("source-")]
    assert (source["type"], source["url"], source["title"]) == \
        ("source-url", "https://example.com", "Example")


def test_a_snapshot_fills_in_what_the_deltas_missed() -> None:
    events, final = replay(body(FIXTURES / "edge/openai-responses-no-deltas.sse"))
    assert not any(type(e) is BlockDelta and type(e.delta) is TextDelta for e in events)
    chunks = chunks_of(encode_all([*events, final]))
    text = "".join(c["delta"] for c in chunks if c["type"] == "text-delta")
    assert text and text == final.text


# ---------------------------------------------------------------- errors


def test_a_provider_error_event_is_reported_once_after_the_partial() -> None:
    async def run() -> tuple[bytes, ChatResponse]:
        events = stream(_pieces(body(FIXTURES / "edge/anthropic-overloaded-midstream.sse")))
        return await collect(ui_message_stream(events)), events.response

    frames, partial = anyio.run(run)
    chunks = chunks_of(frames)
    types = [c["type"] for c in chunks]
    assert types.count("error") == 1
    assert types.index("text-end") < types.index("error") < types.index("finish-step")
    assert "".join(c["delta"] for c in chunks if c["type"] == "text-delta") == partial.text != ""
    assert "verloaded" in chunks[types.index("error")]["errorText"]
    assert chunks[-1]["finishReason"] == "error"


def test_a_broken_transport_ends_the_message_with_the_partial_kept() -> None:
    raw = body(FIXTURES / "anthropic/tool-use.sse")

    async def run() -> tuple[bytes, ChatResponse]:
        events = stream(_pieces(raw, 50, fail_after=1300))
        return await collect(ui_message_stream(events)), events.response

    frames, partial = anyio.run(run)
    chunks = chunks_of(frames)
    types = [c["type"] for c in chunks]
    assert types[-3:] == ["error", "finish-step", "finish"]
    assert "connection reset" in chunks[-3]["errorText"]
    assert "text-end" in types  # the open text part was closed, with what arrived
    assert "".join(c["delta"] for c in chunks if c["type"] == "text-delta") == partial.text != ""
    assert chunks[-1]["messageMetadata"]["finishReason"] == "interrupted"
    assert chunks[-1]["finishReason"] == "other"


def test_error_text_can_hide_provider_details() -> None:
    frames = encode_all([ErrorEvent(message="key sk-123 is invalid"), ChatResponse()],
                        error_text=lambda message: "Something went wrong.")
    (error,) = [c for c in chunks_of(frames) if c["type"] == "error"]
    assert error["errorText"] == "Something went wrong."


# ---------------------------------------------------------------- values, steps, closing


def test_finish_reason_may_be_the_enum_or_its_string() -> None:
    assert finish_reason_for_ui(FinishReason.TOOL_CALLS) == "tool-calls"
    assert finish_reason_for_ui("tool_calls") == "tool-calls"
    assert finish_reason_for_ui(FinishReason.PAUSE) == finish_reason_for_ui(None) == "other"
    for reason in (FinishReason.LENGTH, "length"):
        encoder = UIMessageStreamEncoder(steps=None)
        frames = encoder.encode(ResponseEnd(finish_reason=reason))  # type: ignore[arg-type]
        frames += encoder.finish()
        finish = chunks_of(frames)[-1]
        assert finish["finishReason"] == "length"
        assert finish["messageMetadata"]["finishReason"] == "length"


def test_encoding_never_changes_an_event_or_the_response() -> None:
    for path in recordings():
        events, final = replay(body(path), on_error="return")
        before = [event_to_dict(e) for e in events], comparable(final)
        encode_all([*events, final])
        assert ([event_to_dict(e) for e in events], comparable(final)) == before, path


def test_a_block_start_with_content_sends_it_as_the_first_delta() -> None:
    call = ToolCallBlock("call_1", "lookup", '{"q": 1}')
    items = [ResponseStart(id="r1"), BlockStart(index=0, block=call),
             BlockDelta(index=0, delta=ToolInputDelta("")), BlockEnd(index=0),
             ResponseEnd(finish_reason=FinishReason.TOOL_CALLS), ChatResponse()]
    chunks = chunks_of(encode_all(items))
    assert [c["type"] for c in chunks[2:5]] == ["tool-input-start", "tool-input-delta",
                                                "tool-input-available"]
    assert chunks[3]["inputTextDelta"] == '{"q": 1}' and chunks[4]["input"] == {"q": 1}
    assert call.input == '{"q": 1}'  # the event's block was only read


def test_other_choices_are_left_out() -> None:
    events, final = replay(body(FIXTURES / "edge/openai-chat-n2-choices.sse"))
    assert any(getattr(e, "choice", 0) == 1 for e in events)
    chunks = chunks_of(encode_all([*events, final]))
    assert "".join(c["delta"] for c in chunks if c["type"] == "text-delta") == final.text
    second = chunks_of(encode_all([*events, final], choice=1))
    assert "".join(c["delta"] for c in second if c["type"] == "text-delta") != final.text


def test_several_streams_are_the_steps_of_one_message() -> None:
    first = body(FIXTURES / "anthropic/thinking-signature.sse")
    second = body(FIXTURES / "anthropic/tool-use.sse")

    async def run() -> bytes:
        return await collect(ui_message_stream(stream(_pieces(first)), stream(_pieces(second))))

    chunks = chunks_of(anyio.run(run))
    types = [c["type"] for c in chunks]
    assert types.count("start") == types.count("finish") == 1
    assert types.count("start-step") == types.count("finish-step") == 2
    assert [s["finishReason"] for s in chunks[-1]["messageMetadata"]["steps"]] == \
        ["stop", "tool_calls"]
    assert chunks[-1]["finishReason"] == "tool-calls"


def test_leaving_early_closes_every_stream() -> None:
    closed: list[str] = []

    class Source:
        def __init__(self, name: str) -> None:
            self.name = name

        def __aiter__(self) -> Source:
            return self

        async def __anext__(self) -> Any:
            return ResponseStart(id="r")

        async def aclose(self) -> None:
            closed.append(self.name)

    async def run() -> None:
        frames = ui_message_stream(Source("a"), Source("b"))
        await frames.__anext__()
        await frames.aclose()  # type: ignore[attr-defined]

    anyio.run(run)
    assert closed == ["a", "b"]


def test_headers_name_the_protocol() -> None:
    assert UI_MESSAGE_STREAM_HEADERS["x-vercel-ai-ui-message-stream"] == "v1"
    assert UI_MESSAGE_STREAM_HEADERS["content-type"] == "text/event-stream"
    with pytest.raises(TypeError):
        UI_MESSAGE_STREAM_HEADERS["x"] = "y"  # type: ignore[index]


def test_nothing_is_encoded_after_finish() -> None:
    encoder = UIMessageStreamEncoder()
    encoder.encode(ChatResponse())
    assert encoder.finished
    with pytest.raises(RuntimeError):
        encoder.encode(ResponseStart())


# ---------------------------------------------------------------- forging frames

_NASTY = st.sampled_from(["\n", "\r", "\r\n", "\n\n", "data: ", "data: [DONE]", "event: x",
                          "\u2028", "\u2029", "\x85", "\x00", "\ud800", "\udfff", "\ud83d\ude00",
                          '"', "\\", '"}\n\ndata: {"type":"finish"}\n\n', ": comment", "id: 1"])
_TEXT = st.lists(st.one_of(_NASTY, st.text(), st.characters(categories=["Cs"])),
                 max_size=8).map("".join)


def _as_json_reads(text: str) -> str:
    """What a string must read as in the browser: itself, lone surrogates
    included (each travels as its JSON escape); a high and a low surrogate
    side by side are one character's pair, as JSON reads two escapes."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


@settings(max_examples=300, deadline=None)
@given(text=_TEXT, tool_input=_TEXT, name=_TEXT, error=_TEXT)
def test_no_content_can_forge_a_frame(text: str, tool_input: str, name: str, error: str) -> None:
    items = [
        ResponseStart(id=name),
        BlockStart(index=0, block=TextBlock()),
        BlockDelta(index=0, delta=TextDelta(text)),
        BlockEnd(index=0),
        BlockStart(index=1, block=ToolCallBlock("call", name)),
        BlockDelta(index=1, delta=ToolInputDelta(tool_input)),
        BlockEnd(index=1),
        ErrorEvent(message=error),
        ChatResponse(),
    ]
    frames = encode_all(items)
    lines = frames.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
    assert all(line.startswith(b"data: ") for line in lines if line), "a line outside a frame"
    assert b"\xe2\x80\xa8" not in frames and b"\xe2\x80\xa9" not in frames
    assert b"\xc2\x85" not in frames
    frames.decode("utf-8")  # valid UTF-8: a lone surrogate travels as its JSON escape
    chunks = chunks_of(frames)
    expected = ["start", "start-step", "text-start", "text-delta", "text-end", "tool-input-start",
                "tool-input-delta", "tool-input-end", "error", "finish-step", "finish"]
    if not text:
        expected.remove("text-delta")
    if not tool_input:
        expected.remove("tool-input-delta")
    types = [c["type"] for c in chunks]
    assert [t if not t.startswith("tool-input-") or t in ("tool-input-start",
            "tool-input-delta") else "tool-input-end" for t in types] == expected
    by_type = {c["type"]: c for c in chunks}
    if text:
        assert by_type["text-delta"]["delta"] == _as_json_reads(text)
    if tool_input:
        assert by_type["tool-input-delta"]["inputTextDelta"] == _as_json_reads(tool_input)
    assert by_type["tool-input-start"]["toolName"] == _as_json_reads(name)
    assert by_type["error"]["errorText"] == (_as_json_reads(error) or "error")
    assert by_type.get("start", {}).get("messageId", "") == _as_json_reads(name)


# ---------------------------------------------------------------- the example and the demo app


def test_the_fastapi_example_streams_the_protocol() -> None:
    import subprocess
    import sys

    root = ROOT
    done = subprocess.run([sys.executable, str(root / "examples" / "web_fastapi.py")], cwd=root,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    streamed, refused = done.stdout.split("HTTP ")[1:]
    assert streamed.startswith("200 text/event-stream")
    assert '"type":"tool-input-available"' in streamed and "data: [DONE]" in streamed
    assert refused == "401 text/plain; charset=utf-8\n  invalid x-api-key\n"


def test_the_demo_app_answers_the_prompt_with_steps_and_the_tool_result() -> None:
    import httpx

    from streamkit.web.demo import ScriptedUpstream, create_app, demo_finals, get_weather

    message = {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Paris?"}]}

    async def run(upstream: ScriptedUpstream) -> httpx.Response:
        transport = httpx.ASGITransport(app=create_app(upstream=upstream))
        async with httpx.AsyncClient(transport=transport, base_url="http://demo",
                                     timeout=60) as client:
            page = await client.get("/")
            assert page.status_code == 200 and '<script type="module" src="/app.js">' in page.text
            refused = await client.post("/api/chat", json={"messages": []})
            assert refused.status_code == 400
            return await client.post("/api/chat", json={"messages": [message]})

    upstream = ScriptedUpstream(delay=0)
    try:
        response = anyio.run(run, upstream)
        sent = [request.json() for request in upstream.requests]
    finally:
        upstream.close()
    assert response.headers["x-vercel-ai-ui-message-stream"] == "v1"
    assert response.headers["content-type"].startswith("text/event-stream")
    chunks = chunks_of(response.content)
    types = [c["type"] for c in chunks]
    assert types.count("start-step") == types.count("finish-step") == 2
    (tool_step, audio_step), _ = demo_finals()
    assert "".join(c["delta"] for c in chunks if c["type"] == "text-delta") == \
        tool_step.text + audio_step.text
    call, = tool_step.tool_calls
    output = next(c for c in chunks if c["type"] == "tool-output-available")
    assert output == {"type": "tool-output-available", "toolCallId": call.id,
                      "output": get_weather(**call.arguments())}
    assert types.index("tool-input-available") < types.index("tool-output-available") \
        < types.index("finish-step")  # the result closes the step that called the tool
    assert sum(1 for c in chunks if c["type"] == "file") == 1
    assert any(c["type"] == "data-audio" for c in chunks)  # the page plays it as it arrives
    steps = chunks[-1]["messageMetadata"]["steps"]
    assert [s["usage"]["output_tokens"] for s in steps] == \
        [tool_step.usage.output_tokens, audio_step.usage.output_tokens]
    assert sent[0]["messages"] == [{"role": "user", "content": "Paris?"}]
    assert sent[1]["messages"][-1]["role"] == "tool"


def test_a_tool_result_is_sent_for_the_calls_part() -> None:
    from streamkit.conversation.messages import FunctionExecutionResult
    from streamkit.web import UIMessageStreamEncoder

    encoder = UIMessageStreamEncoder(steps=None)
    final = replay((FIXTURES / "anthropic/tool-use.sse").read_bytes()).response
    call, = final.tool_calls
    for event in replay((FIXTURES / "anthropic/tool-use.sse").read_bytes()).events:
        encoder.encode(event)
    ok = chunks_of(encoder.encode_tool_result(FunctionExecutionResult(call.id, "sunny")))
    failed = chunks_of(encoder.encode_tool_result(
        FunctionExecutionResult(call.id, "no station", is_error=True)))
    assert ok == [{"type": "tool-output-available", "toolCallId": call.id, "output": "sunny"}]
    assert failed == [{"type": "tool-output-error", "toolCallId": call.id,
                       "errorText": "no station"}]
