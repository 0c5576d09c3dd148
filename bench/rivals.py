"""Every contender of bench/compare.py: how it is fed, what it returns, what it includes.

A contender is prepared once per scenario (``prepare(scenario)``): anything a
real user would *not* pay per stream (building a client class, pre-decoding
payloads for the rivals that we feed pre-decoded) happens there, outside the
timing; the returned callable is what gets timed and returns the final object.
``digest(final)`` reduces that object to ``(text chars, tool-argument chars,
audio bytes)`` so every contender is checked to have produced the full output.

Rivals that have an SSE decoder of their own are fed the same bytes through an
in-memory HTTP response (``httpx.MockTransport``, ``httpx2`` for anthropic),
exactly as their users' code reads a real response. The others get payloads
already JSON-decoded, which flatters them; the tables say so.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import httpx
from floor import FLOORS

import streamkit

Digest = tuple[int, int, int]
Run = Callable[[], object]
BYTES = "bytes → final"
PRE = "pre-decoded → final"
URL = "http://bench.invalid/v1"
MESSAGES = [{"role": "user", "content": "hi"}]


@dataclass
class Scenario:
    """One generated stream and the network chunks it arrives in."""

    key: str
    provider: str  # "openai" | "anthropic"
    kind: str  # "text" | "tools" | "audio"
    body: bytes
    chunks: list[bytes]
    units: int  # chunks (OpenAI) or events (Anthropic) carrying content
    live: bool = False  # one SSE event per network read (else 4 KB reads)
    expected: Digest = (0, 0, 0)

    def __post_init__(self) -> None:
        text, args, pcm = FLOORS[self.provider](self.chunks)
        self.expected = (len(text), sum(map(len, args.values())), len(pcm))

    @cached_property
    def payloads(self) -> list[dict[str, Any]]:
        """Every JSON payload of the body, decoded (for the pre-decoded rivals)."""
        return [json.loads(line[6:]) for line in self.body.split(b"\n")
                if line.startswith(b"data: {")]

    @cached_property
    def deltas(self) -> list[dict[str, Any]]:
        """OpenAI ``choices[0].delta`` objects, in order."""
        return [p["choices"][0]["delta"] for p in self.payloads if p.get("choices")]


@dataclass
class Contender:
    """A named way to get from the scenario's stream to a final response."""

    name: str
    path: str  # BYTES or PRE
    includes: str
    prepare: Callable[[Scenario], Run]
    digest: Callable[[Any], Digest]
    requires: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ("text", "tools")
    max_runs: int = 5
    notes: list[str] = field(default_factory=list)


def _sse_transport(module: Any, body: bytes, reads: list[bytes] | None = None) -> Any:
    """An in-memory HTTP transport (httpx or httpx2) that answers ``body``: in
    one piece, or as the given ``reads`` (the live shape: one SSE event a read)."""
    headers = {"content-type": "text/event-stream"}

    def answer(request: Any) -> Any:
        content: Any = body if reads is None else iter(reads)
        return module.Response(200, headers=headers, content=content)

    return module.MockTransport(answer)


def _transport(module: Any, sc: Scenario) -> Any:
    """The scenario's body, read as its shape says."""
    return _sse_transport(module, sc.body, sc.chunks if sc.live else None)


def _b64_len(data: str | None) -> int:
    return len(base64.b64decode(data)) if data else 0


# ------------------------------------------------------------------ streamkit


def _touch(response: streamkit.ChatResponse) -> streamkit.ChatResponse:
    """Read the final content, so lazy joins are inside the timing."""
    _ = response.text, [c.input for c in response.tool_calls]
    _ = [b.data for b in response.data_blocks]
    return response


def streamkit_replay(sc: Scenario) -> Run:
    return lambda: _touch(streamkit.replay(sc.chunks, sc.provider)[1])


def streamkit_http(sc: Scenario) -> Run:
    """streamkit.stream() over an httpx response, the path the SDK helpers take."""
    transport = _transport(httpx, sc)

    def run() -> object:
        with httpx.Client(transport=transport) as client, \
                client.stream("POST", URL, json={}) as response:
            return _touch(streamkit.stream(response, sc.provider).final())
    return run


def streamkit_digest(r: streamkit.ChatResponse) -> Digest:
    return (len(r.text), sum(len(c.input) for c in r.tool_calls),
            sum(len(b.data) for b in r.data_blocks))


def floor_run(sc: Scenario) -> Run:
    floor = FLOORS[sc.provider]
    return lambda: floor(sc.chunks)


def floor_digest(result: tuple[str, dict[int, str], bytes]) -> Digest:
    text, args, pcm = result
    return len(text), sum(map(len, args.values())), len(pcm)


# ------------------------------------------------------------------ openai


def openai_stream(sc: Scenario) -> Run:
    import openai

    transport = _transport(httpx, sc)

    def run() -> object:
        client = openai.OpenAI(api_key="x", base_url=URL,
                               http_client=httpx.Client(transport=transport))
        with client.chat.completions.stream(model="gpt-4o", messages=MESSAGES) as stream:
            for _ in stream:
                pass
            return stream.get_final_completion()
    return run


def openai_state(sc: Scenario) -> Run:
    from openai._models import construct_type
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    chunks = [construct_type(type_=ChatCompletionChunk, value=p) for p in sc.payloads]

    def run() -> object:
        state: Any = ChatCompletionStreamState()
        for chunk in chunks:
            state.handle_chunk(chunk)
        return state.get_final_completion()
    return run


def openai_digest(completion: Any) -> Digest:
    message = completion.choices[0].message
    args = sum(len(c.function.arguments) for c in message.tool_calls or [])
    audio = getattr(message, "audio", None)
    data = audio.get("data") if isinstance(audio, dict) else getattr(audio, "data", None)
    return len(message.content or ""), args, _b64_len(data)


# ------------------------------------------------------------------ anthropic


def anthropic_stream(sc: Scenario) -> Run:
    import anthropic
    import httpx2

    transport = _transport(httpx2, sc)

    def run() -> object:
        client = anthropic.Anthropic(api_key="x", base_url=URL,
                                     http_client=httpx2.Client(transport=transport))
        with client.messages.stream(model="claude", max_tokens=64000,
                                    messages=MESSAGES) as stream:  # type: ignore[arg-type]
            for _ in stream:
                pass
            return stream.get_final_message()
    return run


def anthropic_accumulate(sc: Scenario) -> Run:
    from anthropic._models import construct_type
    from anthropic.lib.streaming._messages import accumulate_event
    from anthropic.types import RawMessageStreamEvent

    events = [construct_type(type_=RawMessageStreamEvent, value=p) for p in sc.payloads
              if p["type"] != "ping"]

    def run() -> object:
        snapshot: Any = None
        json_bufs: dict[int, bytes] = {}
        for event in events:
            snapshot = accumulate_event(event=event, current_snapshot=snapshot,
                                        json_bufs=json_bufs)
        return snapshot
    return run


def anthropic_digest(message: Any) -> Digest:
    text = sum(len(b.text) for b in message.content if b.type == "text")
    args = sum(len(json.dumps(b.input, separators=(",", ":"))) for b in message.content
               if b.type == "tool_use")
    return text, args, 0


# ------------------------------------------------------------------ agentscope


def agentscope_openai_model(sc: Scenario) -> Run:
    from agentscope.credential import OpenAICredential
    from agentscope.message import UserMsg
    from agentscope.model import OpenAIChatModel

    transport = _transport(httpx, sc)
    credential = OpenAICredential(api_key="x", base_url=URL)  # type: ignore[arg-type]

    async def go() -> object:
        model = OpenAIChatModel(credential=credential, model="gpt-4o", max_retries=0,
                                client_kwargs={"http_client": httpx.AsyncClient(
                                    transport=transport)})
        last = None
        async for response in await model([UserMsg(name="user", content="hi")]):
            last = response
        return last
    return lambda: asyncio.run(go())


def agentscope_anthropic_model(sc: Scenario) -> Run:
    import httpx2
    from agentscope.credential import AnthropicCredential
    from agentscope.message import UserMsg
    from agentscope.model import AnthropicChatModel

    transport = _transport(httpx2, sc)
    credential = AnthropicCredential(api_key="x", base_url=URL)  # type: ignore[arg-type]

    async def go() -> object:
        model = AnthropicChatModel(credential=credential, model="claude-sonnet-4-5",
                                   max_retries=0, client_kwargs={
                                       "http_client": httpx2.AsyncClient(transport=transport)})
        last = None
        async for response in await model([UserMsg(name="user", content="hi")]):
            last = response
        return last
    return lambda: asyncio.run(go())


def agentscope_append_openai(sc: Scenario) -> Run:
    """agentscope's ``ChatResponse.append_*`` fed decoded OpenAI deltas."""
    from agentscope.model import ChatResponse

    deltas = sc.deltas

    def run() -> object:
        response = ChatResponse(content=[], is_last=False)
        names: dict[int, tuple[str, str]] = {}
        for delta in deltas:
            if delta.get("content"):
                response.append_text(delta["content"], block_id="text")
            for call in delta.get("tool_calls") or ():
                fn = call.get("function") or {}
                ident, name = names.setdefault(call["index"], (call.get("id"), fn.get("name")))
                response.append_tool_call(ident, name, fn.get("arguments") or "")
            audio = delta.get("audio") or {}
            if audio.get("data"):
                response.append_data_block("audio", base64.b64decode(audio["data"]),
                                           "audio/pcm;rate=24000")
        return response
    return run


def agentscope_append_anthropic(sc: Scenario) -> Run:
    """agentscope's ``ChatResponse.append_*`` fed decoded Anthropic events."""
    from agentscope.model import ChatResponse

    payloads = sc.payloads

    def run() -> object:
        response = ChatResponse(content=[], is_last=False)
        tools: dict[int, tuple[str, str]] = {}
        for p in payloads:
            if p["type"] == "content_block_start" and p["content_block"]["type"] == "tool_use":
                block = p["content_block"]
                tools[p["index"]] = (block["id"], block["name"])
            elif p["type"] == "content_block_delta":
                delta = p["delta"]
                if delta["type"] == "text_delta":
                    response.append_text(delta["text"], block_id=f"text{p['index']}")
                elif delta["type"] == "input_json_delta":
                    response.append_tool_call(*tools[p["index"]], delta["partial_json"])
        return response
    return run


def agentscope_digest(response: Any) -> Digest:
    text = args = audio = 0
    for block in response.content:
        kind = type(block).__name__
        if kind == "TextBlock":
            text += len(block.text)
        elif kind == "ToolCallBlock":
            raw = block.input
            args += len(raw if isinstance(raw, str) else json.dumps(raw, separators=(",", ":")))
        elif kind == "DataBlock":
            audio += _b64_len(block.source.data)
    return text, args, audio


# ------------------------------------------------------------------ LangChain


def _langchain_chunks_openai(sc: Scenario) -> list[dict[str, Any]]:
    """Constructor arguments of the ``AIMessageChunk`` s langchain-openai builds."""
    out = []
    for delta in sc.deltas:
        calls = [{"name": (c.get("function") or {}).get("name"),
                  "args": (c.get("function") or {}).get("arguments"),
                  "id": c.get("id"), "index": c["index"], "type": "tool_call_chunk"}
                 for c in delta.get("tool_calls") or ()]
        out.append({"content": delta.get("content") or "", "tool_call_chunks": calls})
    return out


def _langchain_chunks_anthropic(sc: Scenario) -> list[dict[str, Any]]:
    """Constructor arguments of the chunks langchain-anthropic builds (text as
    string content, tool input as tool_call_chunks)."""
    out: list[dict[str, Any]] = []
    for p in sc.payloads:
        if p["type"] == "content_block_start" and p["content_block"]["type"] == "tool_use":
            block = p["content_block"]
            call = {"name": block["name"], "args": "", "id": block["id"], "index": p["index"],
                    "type": "tool_call_chunk"}
            out.append({"content": "", "tool_call_chunks": [call]})
        elif p["type"] == "content_block_delta":
            delta = p["delta"]
            if delta["type"] == "text_delta":
                out.append({"content": delta["text"], "tool_call_chunks": []})
            else:
                call = {"name": None, "args": delta["partial_json"], "id": None,
                        "index": p["index"], "type": "tool_call_chunk"}
                out.append({"content": "", "tool_call_chunks": [call]})
    return out


def langchain_sum(sc: Scenario) -> Run:
    from langchain_core.messages import AIMessageChunk

    build = _langchain_chunks_openai if sc.provider == "openai" else _langchain_chunks_anthropic
    kwargs = build(sc)

    def run() -> object:
        full: Any = None
        for item in kwargs:
            chunk = AIMessageChunk(**item)
            full = chunk if full is None else full + chunk
        return full
    return run


def langchain_digest(message: Any) -> Digest:
    args = sum(len(c.get("args") or "") for c in message.tool_call_chunks)
    content = message.content
    return (len(content) if isinstance(content, str) else 0), args, 0


# ------------------------------------------------------------------ pydantic-ai


def pydantic_parts(sc: Scenario) -> Run:
    from pydantic_ai._parts_manager import ModelResponsePartsManager
    from pydantic_ai.models import ModelRequestParameters

    feed = _pydantic_feed_openai if sc.provider == "openai" else _pydantic_feed_anthropic
    items = sc.deltas if sc.provider == "openai" else sc.payloads

    def run() -> object:
        manager = ModelResponsePartsManager(model_request_parameters=ModelRequestParameters())
        feed(manager, items)
        return manager.get_parts()
    return run


def _pydantic_feed_openai(manager: Any, deltas: list[dict[str, Any]]) -> None:
    """What pydantic-ai's OpenAI chat streaming does with each delta."""
    for delta in deltas:
        if delta.get("content"):
            for _ in manager.handle_text_delta(vendor_part_id="content",
                                               content=delta["content"]):
                pass
        for call in delta.get("tool_calls") or ():
            fn = call.get("function") or {}
            manager.handle_tool_call_delta(vendor_part_id=call["index"], tool_name=fn.get("name"),
                                           args=fn.get("arguments"), tool_call_id=call.get("id"))


def _pydantic_feed_anthropic(manager: Any, payloads: list[dict[str, Any]]) -> None:
    """What pydantic-ai's Anthropic streaming does with each event."""
    for p in payloads:
        if p["type"] == "content_block_start" and p["content_block"]["type"] == "tool_use":
            block = p["content_block"]
            manager.handle_tool_call_delta(vendor_part_id=p["index"], tool_name=block["name"],
                                           args="", tool_call_id=block["id"])
        elif p["type"] == "content_block_delta":
            delta = p["delta"]
            if delta["type"] == "text_delta":
                for _ in manager.handle_text_delta(vendor_part_id=p["index"],
                                                   content=delta["text"]):
                    pass
            else:
                manager.handle_tool_call_delta(vendor_part_id=p["index"],
                                               args=delta["partial_json"])


def pydantic_model(sc: Scenario) -> Run:
    """pydantic-ai's own OpenAI / Anthropic model, ``request_stream`` over the bytes."""
    from pydantic_ai.messages import ModelRequest
    from pydantic_ai.models import ModelRequestParameters

    make = _pydantic_openai_model if sc.provider == "openai" else _pydantic_anthropic_model

    async def go() -> object:
        model = make(sc.body)
        async with model.request_stream([ModelRequest.user_text_prompt("hi")], None,
                                        ModelRequestParameters()) as stream:
            async for _ in stream:
                pass
            return stream.get()
    return lambda: asyncio.run(go())


def _pydantic_openai_model(body: bytes) -> Any:
    import openai
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    client = openai.AsyncOpenAI(api_key="x", base_url=URL, http_client=httpx.AsyncClient(
        transport=_sse_transport(httpx, body)))
    return OpenAIChatModel("gpt-4o", provider=OpenAIProvider(openai_client=client))


def _pydantic_anthropic_model(body: bytes) -> Any:
    import anthropic
    import httpx2
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    client = anthropic.AsyncAnthropic(api_key="x", base_url=URL, http_client=httpx2.AsyncClient(
        transport=_sse_transport(httpx2, body)))
    return AnthropicModel("claude-sonnet-4-5", provider=AnthropicProvider(anthropic_client=client))


def pydantic_digest(parts: Any) -> Digest:
    parts = getattr(parts, "parts", parts)
    text = sum(len(p.content) for p in parts if type(p).__name__ == "TextPart")
    args = 0
    for p in parts:
        if type(p).__name__ == "ToolCallPart":
            raw = p.args
            args += len(raw if isinstance(raw, str) else json.dumps(raw, separators=(",", ":")))
    return text, args, 0


# ------------------------------------------------------------------ LiteLLM


def _litellm() -> Any:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.telemetry = False
    litellm.suppress_debug_info = True
    return litellm


def litellm_builder(sc: Scenario) -> Run:
    litellm = _litellm()
    from litellm.types.utils import ModelResponseStream

    chunks = [ModelResponseStream(**p) for p in sc.payloads]
    return lambda: litellm.stream_chunk_builder(chunks)


def litellm_completion(sc: Scenario) -> Run:
    import openai

    litellm = _litellm()
    transport = _transport(httpx, sc)

    def run() -> object:
        client = openai.OpenAI(api_key="x", base_url=URL,
                               http_client=httpx.Client(transport=transport))
        stream = litellm.completion(model="openai/gpt-4o", messages=MESSAGES, stream=True,
                                    client=client, api_key="x", api_base=URL)
        return litellm.stream_chunk_builder(list(stream))
    return run


# ------------------------------------------------------------------ the line-up


def _base() -> list[Contender]:
    every = ("text", "tools", "audio")
    return [
        Contender("**streamkit** `replay()`", BYTES,
                  "4 KB reads → SSE → parser → events → Accumulator → final ChatResponse",
                  streamkit_replay, streamkit_digest, kinds=every, max_runs=9),
        Contender("streamkit `stream()` over httpx", BYTES,
                  "httpx MockTransport response → `streamkit.stream(resp).final()`",
                  streamkit_http, streamkit_digest, kinds=every, max_runs=9),
        Contender("FLOOR", BYTES,
                  "split lines → msgspec typed Struct → list append → join; no features",
                  floor_run, floor_digest, kinds=every, max_runs=9),
    ]


def openai_contenders() -> list[Contender]:
    """Everyone who reads an OpenAI Chat stream."""
    every = ("text", "tools", "audio")
    return [*_base(),
        Contender("openai `chat.completions.stream()`", BYTES,
                  "MockTransport → SDK SSE → pydantic chunk → snapshot rebuilt per chunk → "
                  "`get_final_completion()`", openai_stream, openai_digest, ("openai",), every),
        Contender("openai `ChatCompletionStreamState`", PRE,
                  "pre-built `ChatCompletionChunk` s → `handle_chunk` → `get_final_completion()`",
                  openai_state, openai_digest, ("openai",), every),
        Contender("agentscope `OpenAIChatModel` stream", BYTES,
                  "MockTransport → openai AsyncStream → per-chunk ChatResponse → "
                  "`_StreamAccumulator` → final", agentscope_openai_model, agentscope_digest,
                  ("agentscope",), every),
        Contender("agentscope `ChatResponse.append_*`", PRE,
                  "decoded deltas → `append_text` / `append_tool_call` / `append_data_block`",
                  agentscope_append_openai, agentscope_digest, ("agentscope",), every),
        Contender("LangChain `AIMessageChunk` +", PRE,
                  "decoded deltas → `AIMessageChunk(content, tool_call_chunks)` → summed",
                  langchain_sum, langchain_digest, ("langchain_core",)),
        Contender("pydantic-ai parts manager", PRE,
                  "decoded deltas → `handle_text_delta` / `handle_tool_call_delta` → "
                  "`get_parts()`", pydantic_parts, pydantic_digest, ("pydantic_ai",)),
        Contender("pydantic-ai `OpenAIChatModel.request_stream`", BYTES,
                  "MockTransport → openai AsyncStream → parts manager → `get()`",
                  pydantic_model, pydantic_digest, ("pydantic_ai", "openai")),
        Contender("LiteLLM `stream_chunk_builder`", PRE,
                  "pre-built `ModelResponseStream` s → `stream_chunk_builder`",
                  litellm_builder, openai_digest, ("litellm",), every),
        Contender("LiteLLM `completion(stream=True)`", BYTES,
                  "MockTransport → openai SDK → `CustomStreamWrapper` → "
                  "`stream_chunk_builder`", litellm_completion, openai_digest,
                  ("litellm", "openai")),
    ]


def anthropic_contenders() -> list[Contender]:
    """Everyone who reads an Anthropic Messages stream."""
    return [*_base(),
        Contender("anthropic `messages.stream()`", BYTES,
                  "httpx2 MockTransport → SDK SSE → events → snapshot → `get_final_message()`",
                  anthropic_stream, anthropic_digest, ("anthropic", "httpx2")),
        Contender("anthropic `accumulate_event`", PRE,
                  "pre-built `RawMessageStreamEvent` s → `accumulate_event`",
                  anthropic_accumulate, anthropic_digest, ("anthropic",)),
        Contender("agentscope `AnthropicChatModel` stream", BYTES,
                  "httpx2 MockTransport → anthropic AsyncStream → per-event ChatResponse → "
                  "`_StreamAccumulator` → final", agentscope_anthropic_model,
                  agentscope_digest, ("agentscope", "httpx2")),
        Contender("agentscope `ChatResponse.append_*`", PRE,
                  "decoded events → `append_text` / `append_tool_call`",
                  agentscope_append_anthropic, agentscope_digest, ("agentscope",)),
        Contender("LangChain `AIMessageChunk` +", PRE,
                  "decoded events → `AIMessageChunk(content, tool_call_chunks)` → summed",
                  langchain_sum, langchain_digest, ("langchain_core",)),
        Contender("pydantic-ai parts manager", PRE,
                  "decoded events → `handle_text_delta` / `handle_tool_call_delta` → "
                  "`get_parts()`", pydantic_parts, pydantic_digest, ("pydantic_ai",)),
        Contender("pydantic-ai `AnthropicModel.request_stream`", BYTES,
                  "httpx2 MockTransport → anthropic AsyncStream → parts manager → `get()`",
                  pydantic_model, pydantic_digest, ("pydantic_ai", "anthropic", "httpx2")),
    ]


def contenders_for(sc: Scenario) -> list[Contender]:
    """The line-up for a scenario's provider and kind."""
    line_up = openai_contenders() if sc.provider == "openai" else anthropic_contenders()
    return [c for c in line_up if sc.kind in c.kinds]
