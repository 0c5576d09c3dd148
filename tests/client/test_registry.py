"""The provider registry: every entry's facts as data, and every entry driven over
real sockets (``ReplayServer``) with a recorded answer of its wire format.

Three layers, so a failure says where it is:

- the data alone (names, wires and dialects the parsers know, URLs, keys);
- the transport (``stream_body``: a body sent as it is): the URL, query and
  headers each entry puts on the wire, the key in exactly one header, the
  recorded answer parsed;
- the whole path (``client.stream(messages)``), which needs the wire's request
  encoder: for a wire whose encoder has not landed yet (issue 11) these tests fail
  with a message naming the missing module.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from support.comparing import fresh_ids
from support.paths import ROOT
from support.recordings import FIXTURES

import streamkit
from streamkit.client import Client
from streamkit.client.auth import AUTH_HEADERS
from streamkit.client.endpoint import fill_base_url, resolve_model
from streamkit.conversation.messages import UserMessage
from streamkit.model.vendors import ALIASES, PROVIDERS, ProviderConfigError, ProviderEntry
from streamkit.providers import OPENAI_COMPATIBLE, provider_names, wire_format, wire_of
from streamkit.testing import ReplayServer, load_recording

SECRET = "sk-test-0123456789abcdef-SECRET"
MODEL = "test-model"

#: Settings some base URLs need from the environment.
PLACES = {"AZURE_OPENAI_ENDPOINT": "https://contoso.openai.azure.com/",
          "GOOGLE_CLOUD_PROJECT": "proj-1", "GOOGLE_CLOUD_LOCATION": "us-central1"}

#: Where each entry's streamed request goes by default: the providers' documented URLs.
EXPECTED_URLS = {
    "openai": "https://api.openai.com/v1/chat/completions",
    "openai-responses": "https://api.openai.com/v1/responses",
    "azure": "https://contoso.openai.azure.com/openai/deployments/test-model/chat/completions"
             "?api-version=2024-10-21",
    "anthropic": "https://api.anthropic.com/v1/messages",
    "gemini": "https://generativelanguage.googleapis.com/v1beta/models/test-model"
              ":streamGenerateContent?alt=sse",
    "vertex": "https://us-central1-aiplatform.googleapis.com/v1/projects/proj-1/locations/"
              "us-central1/publishers/google/models/test-model:streamGenerateContent?alt=sse",
    "ollama": "http://localhost:11434/api/chat",
    "ollama-v1": "http://localhost:11434/v1/chat/completions",
    "deepseek": "https://api.deepseek.com/chat/completions",
    "qwen": "https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions",
    "qwen-intl": "https://dashscope-intl.aliyuncs.com/compatible-mode/v1/chat/completions",
    "zai": "https://api.z.ai/api/paas/v4/chat/completions",
    "bigmodel": "https://open.bigmodel.cn/api/paas/v4/chat/completions",
    "moonshot": "https://api.moonshot.cn/v1/chat/completions",
    "moonshot-intl": "https://api.moonshot.ai/v1/chat/completions",
    "ark": "https://ark.cn-beijing.volces.com/api/v3/chat/completions",
    "together": "https://api.together.ai/v1/chat/completions",
    "xai": "https://api.x.ai/v1/chat/completions",
    "yi": "https://api.lingyiwanwu.com/v1/chat/completions",
    "nvidia": "https://integrate.api.nvidia.com/v1/chat/completions",
    "sambanova": "https://api.sambanova.ai/v1/chat/completions",
    "openrouter": "https://openrouter.ai/api/v1/chat/completions",
    "fireworks": "https://api.fireworks.ai/inference/v1/chat/completions",
    "internlm": "https://chat.intern-ai.org.cn/api/v1/chat/completions",
    "groq": "https://api.groq.com/openai/v1/chat/completions",
    "mistral": "https://api.mistral.ai/v1/chat/completions",
    "perplexity": "https://api.perplexity.ai/v1/responses",
    "cerebras": "https://api.cerebras.ai/v1/chat/completions",
    "vllm": "http://localhost:8000/v1/chat/completions",
    "lmstudio": "http://localhost:1234/v1/chat/completions",
    "crusoe": "https://api.inference.crusoecloud.com/v1/chat/completions",
    "gemini-openai": "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions",
}

#: A recorded stream of each wire (a dialect's own recording where there is one).
#: A recording per wire format, and per vendor where it has one of its own.
RECORDING_OF_WIRE = {
    "openai-chat": "openai-chat/text-with-usage-chunk.sse",
    "openai-responses": "openai-responses/text.sse",
    "anthropic": "anthropic/text-basic.sse",
    "gemini": "gemini/text.sse",
    "ollama": "edge/ollama-chat-text-length.ndjson",
    "deepseek": "openai-compatible/deepseek-reasoning_content.sse",
    "qwen": "openai-compatible/qwen-dashscope-reasoning.chunks.jsonl",
    "openrouter": "openai-compatible/openrouter-reasoning-details.sse",
    "groq": "edge/openai-chat-groq-channel.sse",
    "mistral": "edge/openai-chat-mistral-list-content.sse",
}

ENTRIES = sorted(PROVIDERS.values(), key=lambda e: e.name)
NAMED = [e for e in ENTRIES if e.name != "openai-compatible"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def environ_for(entry: ProviderEntry, *, key: bool = True) -> dict[str, str]:
    env = dict(PLACES)
    if key and entry.env_keys:
        env[entry.env_keys[0]] = SECRET
    return env


def recording_for(entry: ProviderEntry) -> Path:
    return FIXTURES / (RECORDING_OF_WIRE.get(entry.name) or RECORDING_OF_WIRE[entry.wire])


def served_base(entry: ProviderEntry, server_url: str) -> str:
    """The entry's default base URL moved onto the test server (same path)."""
    if entry.name == "vertex":
        return server_url + "/v1/projects/p/locations/l/publishers/google"
    default = fill_base_url(entry.base_url or "", PLACES)
    return server_url + urlsplit(default).path.rstrip("/")


def served_environ(entry: ProviderEntry, server_url: str) -> dict[str, str]:
    env = environ_for(entry)
    env["AZURE_OPENAI_ENDPOINT"] = server_url
    return env


# ---------------------------------------------------------------- the data


def test_every_entry_has_a_documented_url() -> None:
    assert set(EXPECTED_URLS) == {e.name for e in NAMED}


@pytest.mark.parametrize("entry", NAMED, ids=lambda e: e.name)
def test_default_url_is_the_documented_one(entry: ProviderEntry) -> None:
    client = Client(f"{entry.name}:{MODEL}", environ=environ_for(entry))
    assert client.url(stream=True) == EXPECTED_URLS[entry.name]


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_entry_is_consistent_with_the_parsers_and_encoders(entry: ProviderEntry) -> None:
    assert entry.name in provider_names()
    assert wire_of(entry.name) == (entry.wire, entry.dialect)
    assert entry.dialect is None or entry.name in OPENAI_COMPATIBLE \
        or entry.wire != "openai-chat"
    wire = wire_format(entry.wire)
    assert callable(wire.endpoint) and isinstance(wire.model_in_body, bool)
    assert entry.auth in AUTH_HEADERS
    assert entry.source.startswith("https://")
    assert all(re.fullmatch(r"[A-Z][A-Z0-9_]*", name) for name in entry.env_keys)
    if entry.base_url is not None:
        assert entry.base_url.startswith(("https://", "http://localhost:", "{"))
    assert entry.key_required is bool(entry.env_keys) or not entry.key_required


def test_aliases_point_at_entries() -> None:
    assert set(ALIASES.values()) <= set(PROVIDERS)
    assert resolve_model("dashscope:qwen-max")[0].name == "qwen"
    assert resolve_model("kimi:kimi-k2")[0].name == "moonshot"
    assert resolve_model("glm:glm-4.6")[0].name == "zai"
    assert resolve_model("GROK:grok-4")[0].name == "xai"


def test_only_the_first_colon_separates_provider_and_model() -> None:
    entry, model = resolve_model("ollama:llama3.2:3b")
    assert (entry.name, model) == ("ollama", "llama3.2:3b")


def test_a_bare_model_needs_a_base_url() -> None:
    with pytest.raises(ProviderConfigError, match=r"name the provider .*'openai:gpt-4o'"):
        resolve_model("gpt-4o")
    assert resolve_model("my-model", base_url="http://gpu:8000/v1")[0].name == \
        "openai-compatible"
    entry, model = resolve_model("openai-compatible:llama3.2:3b", base_url="http://gpu:8000/v1")
    assert (entry.name, model) == ("openai-compatible", "llama3.2:3b")
    with pytest.raises(ProviderConfigError, match="unknown provider 'nope'; known: anthropic"):
        Client("nope:model", environ={})


def test_an_unknown_provider_is_refused_with_the_closest_name_even_with_a_base_url() -> None:
    """A typo is not sent to the base URL as some OpenAI-compatible model."""
    with pytest.raises(ProviderConfigError,
                       match=r"unknown provider 'antropic' \(did you mean 'anthropic'\?\)"):
        Client("antropic:claude-sonnet-4-5", base_url="http://127.0.0.1:1/v1", environ={})
    with pytest.raises(ProviderConfigError,
                       match=r"write 'openai-compatible:llama3\.2:3b' and pass base_url="):
        Client("llama3.2:3b", base_url="http://127.0.0.1:1/v1", environ={})
    with pytest.raises(ProviderConfigError, match=r"did you mean 'gemini'\?"):  # the codecs too
        streamkit.build_request("gemeni", [UserMessage("hi")], model="m")


@pytest.mark.parametrize("entry", [e for e in NAMED if e.key_required], ids=lambda e: e.name)
def test_a_missing_key_names_the_environment_variable(entry: ProviderEntry) -> None:
    with pytest.raises(ProviderConfigError) as caught:
        Client(f"{entry.name}:{MODEL}", environ=environ_for(entry, key=False))
    assert caught.value.missing == entry.env_keys
    assert all(name in str(caught.value) for name in entry.env_keys)


def test_a_missing_base_url_setting_is_named() -> None:
    with pytest.raises(ProviderConfigError, match="needs AZURE_OPENAI_ENDPOINT") as caught:
        Client("azure:gpt-4o", environ={"AZURE_OPENAI_API_KEY": SECRET})
    assert caught.value.missing == ("AZURE_OPENAI_ENDPOINT",)
    with pytest.raises(ProviderConfigError) as caught:
        Client("vertex:gemini-2.5-pro", environ={"GOOGLE_OAUTH_ACCESS_TOKEN": SECRET})
    assert caught.value.missing == ("GOOGLE_CLOUD_LOCATION", "GOOGLE_CLOUD_PROJECT")
    assert "needs GOOGLE_CLOUD_LOCATION and GOOGLE_CLOUD_PROJECT" in str(caught.value)


def test_gemini_prefers_google_api_key_as_googles_sdk_does() -> None:
    client = Client("gemini:gemini-2.5-flash",
                    environ={"GEMINI_API_KEY": "from-gemini", "GOOGLE_API_KEY": "from-google"})
    assert "GOOGLE_API_KEY" in repr(client) and "from-google" not in repr(client)


def test_every_field_can_be_overridden_per_client() -> None:
    env = environ_for(PROVIDERS["azure"])
    client = Client("azure:gpt-4o", environ=env, query={"api-version": "2025-04-01-preview"})
    assert client.url().endswith("/openai/deployments/gpt-4o/chat/completions"
                                 "?api-version=2025-04-01-preview")
    anthropic = Client("anthropic:claude", environ={"ANTHROPIC_API_KEY": SECRET},
                       headers={"anthropic-beta": "context-1m"})
    assert dict(anthropic.provider.headers) == {"anthropic-version": "2026-10-21",
                                                "anthropic-beta": "context-1m"}
    older = Client("anthropic:claude", environ={"ANTHROPIC_API_KEY": SECRET},
                   headers={"anthropic-version": "2023-06-01"})
    assert older.provider.headers["anthropic-version"] == "2023-06-01"
    keyless = Client("openai:gpt-4o", environ={}, auth="none")
    assert keyless.provider.auth == "none"
    assert Client("deepseek:x", environ={"MY_KEY": SECRET}, env_keys="MY_KEY").provider.env_keys \
        == ("MY_KEY",)
    with pytest.raises(TypeError, match=r"unknown provider setting.*bogus"):
        Client("openai:gpt-4o", environ={"OPENAI_API_KEY": SECRET}, bogus=1)


def test_model_info_is_data_overridable_per_client() -> None:
    client = Client("deepseek:deepseek-chat", environ={"DEEPSEEK_API_KEY": SECRET},
                    model_info=streamkit.ModelInfo(function_calling=True))
    assert client.model_info == streamkit.ModelInfo(function_calling=True, family="deepseek")
    assert Client("nvidia:meta/llama-3.3-70b-instruct",
                  environ={"NVIDIA_API_KEY": SECRET}).model_info == streamkit.ModelInfo()


# ---------------------------------------------------------------- the transport


def check_auth(entry: ProviderEntry, headers: dict[str, str], *, key: str | None) -> None:
    """The key in the entry's header and in no other."""
    style = AUTH_HEADERS[entry.auth]
    holding = {name for name, value in headers.items() if SECRET in value}
    if key is None or style is None:
        assert holding == set()
        assert "authorization" not in headers
        return
    name, prefix = style
    assert headers[name] == prefix + key
    assert holding == {name}


@pytest.mark.anyio
@pytest.mark.parametrize("entry", NAMED, ids=lambda e: e.name)
async def test_each_entry_over_real_sockets(entry: ProviderEntry) -> None:
    body = {"model": MODEL, "probe": ["any", "body"], "stream": True}
    recording = recording_for(entry)
    async with ReplayServer() as server:
        base = served_base(entry, server.url)
        client = Client(f"{entry.name}:{MODEL}", environ=served_environ(entry, server.url),
                        base_url=None if entry.name == "azure" else base)
        target = urlsplit(client.url(stream=True))
        server.add_file(target.path, recording, chunk_size=61)
        async with client, client.stream_body(body) as events:
            with fresh_ids():
                final = await events.final()
        request, = server.requests
    assert request.method == "POST"
    assert request.path == urlsplit(EXPECTED_URLS[entry.name]).path.replace(
        "/v1/projects/proj-1/locations/us-central1", "/v1/projects/p/locations/l")
    assert request.query == urlsplit(EXPECTED_URLS[entry.name]).query
    check_auth(entry, {**request.headers, **request.secret_headers},
               key=SECRET if entry.env_keys else None)
    for name, value in entry.headers.items():
        assert request.headers[name] == value
    assert request.headers["content-type"] == "application/json"
    assert request.json() == body
    with fresh_ids():
        _, replayed = streamkit.replay(load_recording(recording)[0], entry.wire)
    assert final.is_last and events.error is None
    assert final.text == replayed.text
    assert [b.type for b in final.content] == [b.type for b in replayed.content]


@pytest.mark.anyio
async def test_any_openai_compatible_server_by_base_url_alone() -> None:
    async with ReplayServer() as server:
        server.add_file("/v1/chat/completions", FIXTURES / RECORDING_OF_WIRE["openai-chat"])
        leaky_env = {"OPENAI_API_KEY": "sk-real-openai-key-never-sent"}
        keyless = Client("my-local-model", base_url=server.url + "/v1", environ=leaky_env)
        async with keyless, keyless.stream_body({"model": "my-local-model"}) as events:
            await events.final()
        keyed = Client("my-local-model", api_key=SECRET, base_url=server.url + "/v1",
                       environ=leaky_env)
        async with keyed, keyed.stream_body({"model": "my-local-model"}) as events:
            await events.final()
        first, second = server.requests
    assert "authorization" not in first.headers
    assert not any("never-sent" in value for value in first.headers.values())
    assert second.secret_headers["authorization"] == f"Bearer {SECRET}"


@pytest.mark.anyio
async def test_local_servers_need_no_key() -> None:
    async with ReplayServer() as server:
        server.add_file("/api/chat", FIXTURES / RECORDING_OF_WIRE["ollama"])
        client = Client("ollama:llama3.2", base_url=server.url, environ={})
        async with client, client.stream_body({"model": "llama3.2"}) as events:
            final = await events.final()
        request, = server.requests
    assert "authorization" not in request.headers
    assert final.text == "The sky is blue because"


# ---------------------------------------------------------------- the whole path


@pytest.mark.anyio
@pytest.mark.parametrize("entry", NAMED, ids=lambda e: e.name)
async def test_each_entry_streams_a_conversation(entry: ProviderEntry) -> None:
    wire = wire_format(entry.wire)
    async with ReplayServer() as server:
        base = served_base(entry, server.url)
        client = Client(f"{entry.name}:{MODEL}", environ=served_environ(entry, server.url),
                        base_url=None if entry.name == "azure" else base)
        server.add_file(urlsplit(client.url(stream=True)).path, recording_for(entry))
        async with client, client.stream([UserMessage("Hello there")]) as events:
            final = await events.final()
        request, = server.requests
    sent: dict[str, Any] = request.json()
    assert ("model" in sent) is wire.model_in_body
    if wire.model_in_body:
        assert sent["model"] == MODEL
    assert "Hello there" in json.dumps(sent)
    assert final.is_last
    if entry.name == "mistral":  # refuses stream_options with a 422
        assert "stream_options" not in sent


# ---------------------------------------------------------------- a two-turn tool loop


def get_weather(location: str) -> str:
    """Weather (Anthropic's recording)."""
    return f"sunny in {location}"


def get_weather_args(city: str, country: str, units: str = "c") -> str:
    """Weather (OpenAI Chat's recording)."""
    return f"rain in {city}, {country}"


def get_capital(country: str) -> str:
    """A capital (OpenAI Responses' recording)."""
    return f"the capital of {country} is Paris"


def get_country() -> str:
    """The user's country (Gemini's recording)."""
    return "the user is in Mexico"


def ollama_weather(city: str, unit: str) -> str:
    """Weather (Ollama's recording)."""
    return f"22 {unit} in {city}"


def get_time(tz: str) -> str:
    """The time (Ollama's recording)."""
    return f"noon in {tz}"


#: Per wire format: a recorded turn that calls tools, the tools it calls, and a
#: recorded final answer.
TOOL_TURNS: dict[str, tuple[str, list[Any], str]] = {
    "anthropic": ("anthropic/tool-use.sse", [get_weather], "anthropic/text-basic.sse"),
    "openai-chat": ("openai-chat/tool-call-single.sse",
                    [streamkit.tool(get_weather_args, name="GetWeatherArgs")],
                    "openai-chat/text-with-usage-chunk.sse"),
    "openai-responses": ("openai-responses/function-call.sse", [get_capital],
                         "openai-responses/text.sse"),
    "gemini": ("gemini/function-call-thought-signature.sse", [get_country], "gemini/text.sse"),
    "ollama": ("edge/ollama-chat-thinking-tools.ndjson",
               [streamkit.tool(ollama_weather, name="get_weather"), get_time],
               "edge/ollama-chat-text-length.ndjson"),
}


def load_tool_loop() -> Any:
    path = ROOT / "examples" / "tool_loop.py"
    spec = importlib.util.spec_from_file_location("tool_loop_example", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.anyio
@pytest.mark.parametrize("entry", NAMED, ids=lambda e: e.name)
async def test_the_same_two_turn_tool_loop_runs_on_every_entry(entry: ProviderEntry) -> None:
    """The README's promise: change the model string, nothing else."""
    calling, tools, answering = TOOL_TURNS[entry.wire]
    tools = [t if isinstance(t, streamkit.Tool) else streamkit.tool(t) for t in tools]
    answers = [FIXTURES / calling, FIXTURES / answering]
    with fresh_ids():
        _, called = streamkit.replay(load_recording(answers[0])[0], entry.name)
    async with ReplayServer() as server:
        server.add_sequence("*", answers)
        async with Client(f"{entry.name}:{MODEL}", environ=served_environ(entry, server.url),
                          base_url=None if entry.name == "azure" else
                          served_base(entry, server.url)) as client:
            with fresh_ids():
                final = await load_tool_loop().tool_loop(client, "Use the tools, please.", tools)
        first, second = (json.dumps(r.json()) for r in server.requests)
    assert not final.tool_calls and final.text
    expected_results = [await t.run_call(c) for c in called.tool_calls
                        for t in tools if t.name == c.name]
    assert len(expected_results) == len(called.tool_calls) >= 1
    for result in expected_results:
        assert json.dumps(result.text)[1:-1] in second  # every result went back
    for call in called.tool_calls:
        assert call.name in first and call.name in second
    if entry.wire == "gemini":
        return  # Gemini's wire has no call ids (the stream's are made up)
    if entry.dialect == "mistral":  # Mistral takes 9-character ids: the dialect rewrites them
        ids = re.findall(r'"tool_call_id": "([A-Za-z0-9]{9})"', second)
        assert len(ids) == len(called.tool_calls)
    else:
        ids = [call.id for call in called.tool_calls]
    for call_id in ids:
        assert second.count(call_id) >= 2  # the call, and the result answering it
