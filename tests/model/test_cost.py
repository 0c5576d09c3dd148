"""response.cost() and Client.total_cost against genai-prices itself: for
recorded answers of OpenAI, Anthropic, Gemini and DeepSeek models (cached and
reasoning tokens included) the price equals what genai-prices computes from the
provider's own usage object, read by genai-prices' own extractor for that API;
an answer that cannot be priced says why."""

from __future__ import annotations

import json
import re
import sys
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import genai_prices
import pytest
from genai_prices.data import providers as price_lists
from genai_prices.data_snapshot import find_provider_by_id
from support.conversations import CONVERSATIONS
from support.recordings import FIXTURES, body, payloads

import streamkit
from streamkit import ChatResponse, ChatUsage, Client, UserMessage
from streamkit.client.endpoint import fill_base_url
from streamkit.model.cost import Cost, CostTotals, price
from streamkit.model.vendors import PROVIDERS, ProviderEntry
from streamkit.testing import ReplayServer, load_recording


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def last_payload_with(path: Path, key: str) -> dict[str, Any]:
    """The last payload of a recorded stream that holds ``key`` (where its usage is)."""
    decoded = [json.loads(p.data) for p in payloads(path) if p.data.strip() not in ("", "[DONE]")]
    return next(d for d in reversed(decoded) if key in d)


def anthropic_stream_usage(path: Path) -> dict[str, Any]:
    """Anthropic streams its usage in two parts: ``message_start`` (input, cache)
    and ``message_delta`` (output), the later counts replacing the earlier."""
    decoded = [json.loads(p.data) for p in payloads(path)]
    start = next(d for d in decoded if d.get("type") == "message_start")["message"]["usage"]
    delta = [d["usage"] for d in decoded if d.get("type") == "message_delta"][-1]
    return {"usage": {**start, **delta}}


def when(response: ChatResponse) -> datetime:
    return datetime.fromisoformat(response.created_at)


# (what, provider to read it with, registry name priced as, genai-prices' reading of the
# provider's usage object: provider id and API flavor, the object, the model priced)
RECORDED = [
    # OpenAI Responses, streamed: 8,320 of 9,463 input tokens cached, 512 reasoning
    ("openai gpt-5, cached", CONVERSATIONS / "openai-responses/web-search-call-stream/"
     "turn1.response.sse", "openai-responses", "openai-responses", ("openai", "responses"),
     lambda path: last_payload_with(path, "response")["response"]),
    ("openai gpt-4o chat", FIXTURES / "openai-chat/text-with-usage-chunk.sse", "openai",
     "openai", ("openai", "chat"), lambda path: last_payload_with(path, "usage")),
    # Anthropic leaves cache reads and writes out of input_tokens
    ("anthropic haiku 4.5, 9,511 cached", CONVERSATIONS / "anthropic/"
     "bedrock-invoke-cache-breakpoint/turn1.response.json", "anthropic", "anthropic",
     ("anthropic", "default"), lambda path: json.loads(path.read_bytes())),
    ("anthropic, cache read and write", FIXTURES / "edge/anthropic-interleaved-tools-unknown.sse",
     "anthropic", "anthropic", ("anthropic", "default"), anthropic_stream_usage),
    ("anthropic sonnet 4 thinking", FIXTURES / "anthropic/thinking-signature.sse", "anthropic",
     "anthropic", ("anthropic", "default"), anthropic_stream_usage),
    # Gemini bills thoughts as output and its tool-use prompt as input
    ("gemini 2.5 pro thinking", FIXTURES / "gemini/thinking-thought-parts.sse", "gemini",
     "gemini", ("google", "default"), lambda path: last_payload_with(path, "usageMetadata")),
    ("gemini 2.5 flash, cached", FIXTURES / "edge/gemini-mixed-parts-parallel-calls.sse",
     "gemini", "gemini", ("google", "default"),
     lambda path: last_payload_with(path, "usageMetadata")),
    ("gemini 2.5 pro, search grounding", CONVERSATIONS / "gemini/google-search-grounding/"
     "turn1.response.json", "gemini", "gemini", ("google", "default"),
     lambda path: json.loads(path.read_bytes())),
    ("deepseek-reasoner", FIXTURES / "openai-compatible/deepseek-reasoning_content.sse",
     "deepseek", "deepseek", ("deepseek", "chat"), lambda path: last_payload_with(path, "usage")),
    # DeepSeek's Responses API: its usage read as the Responses format it is, priced at DeepSeek
    ("deepseek v4 flash, 256 cached", FIXTURES / "openai-responses/"
     "deepseek-responses-reasoning-function-call.sse", "openai-responses", "deepseek",
     ("openai", "responses"), lambda path: last_payload_with(path, "response")["response"]),
]


def read(path: Path, provider: str) -> ChatResponse:
    if path.suffix == ".json":
        return streamkit.parse_response(provider, path.read_bytes())
    return streamkit.replay(body(path), provider)[1]


@pytest.mark.parametrize(("what", "path", "provider", "priced_as", "reader", "usage_object"),
                         RECORDED, ids=[case[0] for case in RECORDED])
def test_the_price_of_a_recorded_answer_is_genai_prices_own(
        what: str, path: Path, provider: str, priced_as: str, reader: tuple[str, str],
        usage_object: Any) -> None:
    response = read(path, provider)
    assert response.model is not None
    reading = next(p for p in price_lists if p.id == reader[0])
    _, extracted = reading.extract_usage(usage_object(path), api_flavor=reader[1])
    expected = genai_prices.calc_price(extracted, response.model,
                                       provider_id=PROVIDERS[priced_as].price_provider,
                                       genai_request_timestamp=when(response))
    cost = response.cost() if priced_as == provider else price(
        response.usage, response.model, priced_as, response.created_at)
    assert cost == Cost(expected.total_price, input=expected.input_price,
                        output=expected.output_price, model=expected.model.id,
                        price_provider=expected.provider.id)
    assert isinstance(cost.amount, Decimal) and cost.amount > 0 and cost.currency == "USD"


def test_cached_tokens_are_priced_at_their_own_rate() -> None:
    response = read(CONVERSATIONS / "anthropic/bedrock-invoke-cache-breakpoint/"
                    "turn1.response.json", "anthropic")
    assert response.usage is not None and response.usage.cached_tokens == 9511
    cost = response.cost()
    as_if_uncached = price(ChatUsage(input_tokens=3 + 9511, output_tokens=1944),
                           response.model, "anthropic", response.created_at)
    assert cost.input is not None and as_if_uncached.input is not None
    # Haiku 4.5: $1 per million input tokens, $0.10 per million read from the cache
    assert cost.input == Decimal(3) / 10**6 + Decimal(9511) / 10**7
    assert as_if_uncached.input == Decimal(3 + 9511) / 10**6


#: Settings some default base URLs need from the environment.
PLACES = {"AZURE_OPENAI_ENDPOINT": "https://contoso.openai.azure.com",
          "GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_CLOUD_LOCATION": "us-central1"}


def genai_prices_list_of(entry: ProviderEntry) -> str | None:
    """The price list genai-prices itself finds for a vendor: the first whose API
    URL pattern matches the vendor's default base URL, else the one its provider
    matching finds for the registry name. An entry without a base URL is any
    server, whose vendor nobody knows."""
    if entry.base_url is None:
        return None
    url = fill_base_url(entry.base_url, PLACES)
    by_url = next((p.id for p in price_lists if re.match(p.api_pattern, url)), None)
    by_name = find_provider_by_id(price_lists, entry.name)
    return by_url or (by_name.id if by_name else None)


@pytest.mark.parametrize("entry", PROVIDERS.values(), ids=list(PROVIDERS))
def test_each_vendor_is_priced_by_the_list_genai_prices_finds_for_it(entry: ProviderEntry) -> None:
    assert entry.price_provider == genai_prices_list_of(entry)
    if entry.price_provider is not None:
        assert find_provider_by_id(price_lists, entry.price_provider) is not None


def test_a_vendor_without_a_price_list_says_so() -> None:
    usage = ChatUsage(input_tokens=1, output_tokens=1)
    unpriced = [name for name, entry in PROVIDERS.items() if entry.price_provider is None]
    assert {"openai-compatible", "ollama", "vllm", "qwen"} <= set(unpriced)
    for name in unpriced:
        assert price(usage, "some-model", name).reason == (
            f"genai-prices has no prices for provider {name!r}")
    assert price(usage, "gpt-4o", "no-such-vendor").reason == (
        "genai-prices has no prices for provider 'no-such-vendor'")


@pytest.mark.parametrize(("response", "reason"), [
    (ChatResponse(model="gpt-4o", provider="openai"), "the provider reported no token usage"),
    (ChatResponse(usage=ChatUsage(input_tokens=1, output_tokens=1), provider="openai"),
     "the response names no model"),
    (ChatResponse(usage=ChatUsage(input_tokens=1, output_tokens=1), model="llama3.2",
                  provider="ollama"), "genai-prices has no prices for provider 'ollama'"),
    (ChatResponse(usage=ChatUsage(input_tokens=1, output_tokens=1), model="no-such-model",
                  provider="openai"), "genai-prices does not know model 'no-such-model' at "
                                      "'openai'"),
    (ChatResponse(usage=ChatUsage(total_tokens=5), model="gpt-4o", provider="openai"),
     "the provider reported no input or output token count"),
])
def test_what_cannot_be_priced_says_why(response: ChatResponse, reason: str) -> None:
    cost = response.cost()
    assert cost.amount is None and cost.reason == reason
    assert str(cost) == f"not priced: {reason}"


def test_without_genai_prices_the_reason_says_how_to_install_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "genai_prices", None)  # import genai_prices fails
    response = ChatResponse(usage=ChatUsage(input_tokens=1, output_tokens=1), model="gpt-4o",
                            provider="openai")
    assert response.cost().reason == ("genai-prices is not installed: "
                                      "pip install 'streamkit-llm[prices]'")


@pytest.mark.anyio
async def test_the_client_totals_the_cost_of_its_answers() -> None:
    streamed, content_type = load_recording(FIXTURES / "anthropic/thinking-signature.sse")
    whole = (CONVERSATIONS / "anthropic/bedrock-invoke-cache-breakpoint/"
             "turn1.response.json").read_bytes()
    async with ReplayServer() as server, Client("anthropic:claude-sonnet-4-0", api_key="k",
                                                base_url=server.url) as client:
        assert client.total_cost == Cost(Decimal(0), calls=0)
        server.default(streamed, content_type=content_type)
        async with client.stream([UserMessage("hi")]) as events:
            first = await events.final()
        server.default(whole, content_type="application/json")
        second = await client.create([UserMessage("hi")])
        total = client.total_cost
    parts = [first.cost().amount, second.cost().amount]
    assert parts[0] is not None and parts[1] is not None
    assert total == Cost(parts[0] + parts[1], calls=2)
    assert str(total).endswith(" USD")


def test_a_total_with_an_unpriced_answer_has_no_amount_and_says_why() -> None:
    totals = CostTotals(batch=2)
    priced = ChatResponse(usage=ChatUsage(input_tokens=10, output_tokens=5), model="gpt-4o",
                          provider="openai")
    for response in (priced, priced, ChatResponse(model="gpt-4o", provider="openai")):
        totals.add(response)
    total = totals.total
    assert total.amount is None and total.calls == 3
    assert total.reason == "1 of 3 calls could not be priced: the provider reported no token usage"


# ---------------------------------------------------------------- the CLI's line


def test_the_summary_line_of_an_answer() -> None:
    from streamkit.model.timing import RequestTiming
    from streamkit.observability.summary import summary_line

    reads = [part + b"\n\n" for part in body(FIXTURES / "anthropic/thinking-signature.sse")
             .split(b"\n\n") if part.strip()]
    times = iter([10.0] + [11.0 + 0.5 * i for i in range(len(reads))])

    def clock() -> float:
        return next(times)

    stream = streamkit.stream(iter(reads), "anthropic",
                              request_timing=RequestTiming(10.0, clock=clock))
    final = stream.final()
    assert final.timing is not None and final.timing.time_to_first_token is not None
    cost = final.cost()
    assert cost.amount is not None
    speed = final.timing.output_tokens_per_second
    assert speed is not None
    assert summary_line(final) == (
        f"43 in · 282 out tokens · first token {final.timing.time_to_first_token:.2f} s · "
        f"{speed:,.0f} tokens/s · ${cost.amount:.6f}")
    assert final.timing.time_to_first_token == 2.5  # the thinking delta: the fourth read
    cached = read(CONVERSATIONS / "anthropic/bedrock-invoke-cache-breakpoint/"
                  "turn1.response.json", "anthropic")
    assert summary_line(cached, cost=False).startswith("9,514 in (9,511 cached) · 1,944 out tokens")
    assert summary_line(ChatResponse()) == ""
    gemini = read(FIXTURES / "gemini/thinking-thought-parts.sse", "gemini")
    assert summary_line(gemini, cost=False).startswith("34 in · 1,256 out (787 reasoning) tokens")


def test_a_model_genai_prices_does_not_know_is_looked_for_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from streamkit.model import cost

    calls: list[str] = []
    real = genai_prices.calc_price

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(genai_prices, "calc_price", counting)
    monkeypatch.setattr(cost, "_UNKNOWN_MODELS", set())
    usage = ChatUsage(input_tokens=10, output_tokens=5)
    first = cost.price(usage, "no-such-model-anywhere", "openai")
    second = cost.price(usage, "no-such-model-anywhere", "openai")
    assert first.amount is None and second.amount is None
    assert "does not know model 'no-such-model-anywhere'" in (second.reason or "")
    assert calls == ["no-such-model-anywhere"]
    assert cost.price(usage, "gpt-4o", "openai").amount is not None  # a known one still prices
