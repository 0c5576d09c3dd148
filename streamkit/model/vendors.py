"""The provider registry, as data: every vendor once, with every name it goes by.

One record per vendor (:class:`ProviderEntry`) is the only table of provider
names: the client reads where the API lives and how it takes a key, the stream
parser registry (:func:`streamkit.providers.get_parser`), the request and
response codecs (:func:`streamkit.build_request` and its kin) read which wire
format the vendor speaks and with which dialect. So every name and alias means
the same vendor everywhere, and adding a vendor is one entry here (plus a
dialect in its wire's table only when it bends the wire in a new way).

:data:`PROVIDERS` maps a registry name (the part before ``:`` in
``Client("deepseek:deepseek-chat")``) to a frozen :class:`ProviderEntry`: the
wire format and dialect the request encoders and stream parsers use, the
default base URL, the environment variables users already set for the key,
how the key goes on the wire, the extra default headers and query parameters,
what is known about the models' capabilities, the vendor's price list in
genai-prices and its OpenTelemetry provider name, and the page each fact comes
from. Nothing here does I/O; :mod:`streamkit.client` reads an entry, and each
wire package's ``http.py`` says where its endpoint is under the base URL.

Every field can be overridden per client (``Client("azure:gpt-4o",
query={"api-version": "2025-04-01-preview"})``), and any OpenAI-compatible
server is reachable by ``base_url`` alone (``Client("my-model",
base_url="http://gpu:8000/v1")`` uses the ``openai-compatible`` entry, which
never reads a key from the environment: a stranger's server must not receive
your OpenAI key). A model name with a ``:`` in it names that entry itself
(``Client("openai-compatible:llama3.2:3b", base_url=...)``): the part before
the first ``:`` is always a provider, and an unknown one is refused, naming
the closest known name (:func:`did_you_mean`), with or without ``base_url``.

A base URL may name environment variables in braces
(``{AZURE_OPENAI_ENDPOINT}/openai``): they are filled in when the client is
made, and a missing one fails then, naming it.

Capabilities are per model, the registry is per provider: every capability is
``None`` (unknown) unless stated for the whole API, and ``family`` names the
vendor's own model family where the vendor serves only its own models. Pass
``model_info=ModelInfo(...)`` to the client for what you know of your model.

Sources, checked for this registry (provider documentation first; the official
SDK's source where it is the authority on an environment variable). Each entry's
``source`` field holds its first link.

- openai, openai-responses: https://platform.openai.com/docs/api-reference;
  the openai SDK reads ``OPENAI_API_KEY``, base ``https://api.openai.com/v1``.
- azure: https://learn.microsoft.com/azure/ai-services/openai/reference
  (``api-key`` header, ``/openai/deployments/{deployment}/chat/completions``,
  latest GA data-plane ``api-version`` 2024-10-21); the openai SDK's
  ``lib/azure.py`` reads ``AZURE_OPENAI_API_KEY`` and ``AZURE_OPENAI_ENDPOINT``.
- anthropic: https://platform.claude.com/docs/en/api/versioning
  (``anthropic-version: 2026-10-21``, the version anthropic SDK 2.x sends;
  migration guide /docs/en/api/migration-2026-10-21); the SDK reads
  ``ANTHROPIC_API_KEY`` and sends it as ``x-api-key``.
- gemini: https://ai.google.dev/gemini-api/docs/api-key (``GEMINI_API_KEY`` or
  ``GOOGLE_API_KEY``, the latter wins when both are set) and
  https://ai.google.dev/api (``streamGenerateContent`` over SSE); google-genai
  sends ``x-goog-api-key`` to ``https://generativelanguage.googleapis.com/v1beta``.
- vertex: https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest-rpc
  (``https://{location}-aiplatform.googleapis.com/v1/projects/{project}/
  locations/{location}/publishers/google/models/{model}:streamGenerateContent``,
  an OAuth bearer token); google-genai reads ``GOOGLE_CLOUD_PROJECT`` and
  ``GOOGLE_CLOUD_LOCATION``. No Google tool reads a token from the environment:
  ``GOOGLE_OAUTH_ACCESS_TOKEN`` is the name Google's Terraform provider uses.
- ollama: https://docs.ollama.com/api (``http://localhost:11434/api``;
  ``https://ollama.com/api`` with ``OLLAMA_API_KEY``, which the ollama SDK reads).
- ollama-v1: https://docs.ollama.com/api/openai-compatibility
  (``http://localhost:11434/v1``; the key is required by SDKs but ignored).
- deepseek: https://api-docs.deepseek.com/ (``https://api.deepseek.com``,
  ``DEEPSEEK_API_KEY``).
- qwen, qwen-intl:
  https://help.aliyun.com/zh/model-studio/compatibility-of-openai-with-dashscope
  (``https://dashscope.aliyuncs.com/compatible-mode/v1``, international
  ``dashscope-intl``; ``DASHSCOPE_API_KEY``).
- zai: https://docs.z.ai/guides/develop/http/introduction
  (``https://api.z.ai/api/paas/v4``); ``ZAI_API_KEY`` is what the zai-sdk and
  https://docs.litellm.ai/docs/providers/zai read.
- bigmodel: https://docs.bigmodel.cn (``https://open.bigmodel.cn/api/paas/v4``,
  the zai-sdk's ``ZhipuAiClient`` base); the zhipuai SDK reads ``ZHIPUAI_API_KEY``.
- moonshot: https://platform.kimi.com/docs/api/overview
  (``https://api.moonshot.cn/v1``, ``Authorization: Bearer $MOONSHOT_API_KEY``);
  moonshot-intl: https://platform.moonshot.ai (``https://api.moonshot.ai/v1``).
- ark: https://www.volcengine.com/docs/82379/1263482
  (``https://ark.cn-beijing.volces.com/api/v3``; the Ark SDK reads ``ARK_API_KEY``).
- together: https://docs.together.ai/docs/inference/openai-compatibility
  (``https://api.together.ai/v1``, ``TOGETHER_API_KEY``).
- xai: https://docs.x.ai/developers/quickstart (``XAI_API_KEY``) and
  https://docs.x.ai/api/integrations (``https://api.x.ai/v1``).
- yi: https://platform.lingyiwanwu.com/docs (``https://api.lingyiwanwu.com/v1``);
  ``YI_API_KEY`` as https://docs.langchain.com/oss/python/integrations/llms/yi reads it.
- nvidia: https://build.nvidia.com/ (``https://integrate.api.nvidia.com/v1``,
  ``Authorization: Bearer $NVIDIA_API_KEY``).
- sambanova: https://docs.sambanova.ai/cloud/docs/resources/glossary
  (``https://api.sambanova.ai/v1/chat/completions``); ``SAMBANOVA_API_KEY`` as
  https://docs.pipecat.ai/server/services/llm/sambanova and LlamaIndex read it.
- openrouter: https://openrouter.ai/docs/quick-start
  (``https://openrouter.ai/api/v1``, ``OPENROUTER_API_KEY``).
- fireworks: https://docs.fireworks.ai/tools-sdks/openai-compatibility
  (``https://api.fireworks.ai/inference/v1``); ``FIREWORKS_API_KEY`` as the
  Fireworks SDK and https://docs.langchain.com/oss/python/integrations/providers/fireworks read it.
- internlm: https://internlm.intern-ai.org.cn/doc/docs/Chat/
  (``https://chat.intern-ai.org.cn/api/v1``; older pages:
  ``https://internlm-chat.intern-ai.org.cn/puyu/api/v1``); ``INTERNLM_API_KEY``
  as the InternLM / OpenCompass tutorials set it.
- groq: https://console.groq.com/docs/openai
  (``https://api.groq.com/openai/v1``, ``GROQ_API_KEY``).
- mistral: https://docs.mistral.ai/api (``POST https://api.mistral.ai/v1/chat/completions``,
  ``MISTRAL_API_KEY``); ``stream_options`` is refused with 422 ``extra_forbidden``
  while the last chunk carries usage anyway:
  https://github.com/openai/openai-agents-python/issues/442,
  https://github.com/TabbyML/tabby/pull/4082.
- perplexity: https://docs.perplexity.ai/docs/agent-api/openai-compatibility
  (the Agent API in the Responses format, ``https://api.perplexity.ai/v1``,
  ``PERPLEXITY_API_KEY``); https://docs.perplexity.ai/docs/agent-api/migrate-from-sonar/how-to:
  Sonar Chat Completions was retired on 2026-09-27.
- cerebras: https://inference-docs.cerebras.ai/resources/openai
  (``https://api.cerebras.ai/v1``, ``CEREBRAS_API_KEY``).
- vllm: https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html
  (``http://localhost:8000/v1``; a key only when the server runs with
  ``--api-key``, or ``VLLM_API_KEY``, which the server itself reads).
- lmstudio: https://lmstudio.ai/docs/api/openai-api (``http://localhost:1234/v1``;
  no key unless "Require Authentication" is on: pass ``api_key=``).
- crusoe: https://docs.vllm.ai/en/latest/deployment/frameworks/crusoe/
  (``https://api.inference.crusoecloud.com/v1``, ``CRUSOE_API_KEY``).
- gemini-openai: https://ai.google.dev/gemini-api/docs/openai
  (``https://generativelanguage.googleapis.com/v1beta/openai``, the same key as gemini).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from .errors import ProviderConfigError

__all__ = [
    "ALIASES",
    "PROVIDERS",
    "AuthStyle",
    "ModelInfo",
    "ProviderConfigError",
    "ProviderEntry",
    "did_you_mean",
    "provider_entry",
    "vendor",
    "wire_of",
]

AuthStyle = Literal["bearer", "x-api-key", "api-key", "x-goog-api-key", "none"]
"""How a vendor takes its key (the header each puts it in is the client's:
:data:`streamkit.client.auth.AUTH_HEADERS`)."""


@dataclass(frozen=True)
class ModelInfo:
    """What a model can do, autogen's ``ModelInfo`` fields; ``None`` is unknown."""

    vision: bool | None = None
    function_calling: bool | None = None
    json_output: bool | None = None
    """JSON mode (any JSON object), not a schema."""
    structured_output: bool | None = None
    """Output constrained to a JSON schema."""
    family: str | None = None

    def merged(self, other: ModelInfo | None) -> ModelInfo:
        """This info with every field ``other`` knows (not ``None``) taken from it."""
        if other is None:
            return self
        known = {f.name: getattr(other, f.name) for f in dataclasses.fields(other)
                 if getattr(other, f.name) is not None}
        return dataclasses.replace(self, **known)


def _frozen(mapping: dict[str, str] | None = None) -> Mapping[str, str]:
    return MappingProxyType(dict(mapping or {}))


@dataclass(frozen=True)
class ProviderEntry:
    """One provider: everything a client needs to reach it, as data."""

    name: str
    """The registry name (``deepseek`` in ``deepseek:deepseek-chat``)."""
    title: str
    wire: str
    """The wire format the provider speaks (:data:`~streamkit.providers.wire_format.WIRE_NAMES`):
    ``openai-chat``, ``openai-responses``, ``anthropic``, ``gemini`` or ``ollama``."""
    dialect: str | None
    """How the vendor bends its wire format, by the wire's dialect table
    (OpenAI Chat's :mod:`~streamkit.providers.openai_chat.dialects`:
    reasoning fields and finish words when reading, history rules when
    writing); ``None`` for the wire's own API, and for vendors that bend
    nothing known. On a wire without dialect tables it still names a server
    of its own (``perplexity`` on the Responses wire), whose item ids and
    encrypted state the wire's own API must not receive."""
    base_url: str | None
    """The default base URL; ``{NAME}`` parts are environment variables. ``None``:
    the caller must give one."""
    env_keys: tuple[str, ...]
    """Environment variables holding the key, the first one set wins."""
    auth: AuthStyle
    source: str
    """Where these facts come from (the provider's documentation)."""
    headers: Mapping[str, str] = field(default_factory=_frozen)
    """Extra default headers (``anthropic-version``)."""
    query: Mapping[str, str] = field(default_factory=_frozen)
    """Extra default query parameters (Azure's ``api-version``)."""
    key_required: bool = True
    """``False`` for local servers, where a key is optional."""
    options: Mapping[str, Any] = field(default_factory=_frozen)
    """Request options sent unless the call gives its own (Anthropic requires
    ``max_tokens``)."""
    stream_usage: bool = True
    """Whether a stream asks for usage (``include_usage``: OpenAI's
    ``stream_options``), which the client's usage totals need. ``False`` where the
    API refuses the option and reports usage anyway (Mistral: HTTP 422)."""
    model_info: ModelInfo = field(default_factory=ModelInfo)
    notes: str = ""
    aliases: tuple[str, ...] = ()
    """Other names people use for this provider; every entry point takes them."""
    price_provider: str | None = field(kw_only=True)
    """genai-prices' id of the vendor's price list, which ``response.cost()``
    prices with (:mod:`streamkit.model.cost`). ``None``: genai-prices has no list
    for it, since it is a local server (its models cost what the machine costs),
    any OpenAI-compatible server (whose vendor nobody knows), or a vendor
    genai-prices does not cover."""
    telemetry_name: str = field(kw_only=True)
    """The OpenTelemetry ``gen_ai.provider.name`` of calls to it: the GenAI semantic
    conventions' value (``GenAiProviderNameValues``) where they have one for the
    vendor, else the registry name, as the conventions allow."""

    def replace(self, **changes: Any) -> ProviderEntry:
        """A copy with some fields changed; an unknown field name is a ``TypeError``
        naming the fields there are."""
        names = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(changes) - names)
        if unknown:
            raise TypeError(f"unknown provider setting(s) {', '.join(unknown)}; "
                            f"settings: {', '.join(sorted(names))}")
        for key in ("headers", "query", "options"):
            if key in changes:
                changes[key] = MappingProxyType(dict(changes[key]))
        if "env_keys" in changes and isinstance(changes["env_keys"], str):
            changes["env_keys"] = (changes["env_keys"],)
        return dataclasses.replace(self, **changes)


def _entry(name: str, title: str, wire: str, base_url: str | None, env_keys: tuple[str, ...],
           source: str, *, dialect: str | None = None, auth: AuthStyle = "bearer",
           headers: dict[str, str] | None = None, query: dict[str, str] | None = None,
           key_required: bool = True, options: dict[str, Any] | None = None,
           stream_usage: bool = True, family: str | None = None,
           notes: str = "", aliases: tuple[str, ...] = (), price: str | None,
           telemetry: str | None = None) -> ProviderEntry:
    """One entry; ``price`` (genai-prices' id, or ``None``) has no default, so a
    new vendor says whether it is priced; ``telemetry`` defaults to the name."""
    return ProviderEntry(name=name, title=title, wire=wire, dialect=dialect, base_url=base_url,
                         env_keys=env_keys, auth=auth, source=source, headers=_frozen(headers),
                         query=_frozen(query), key_required=key_required,
                         options=MappingProxyType(dict(options or {})),
                         stream_usage=stream_usage,
                         model_info=ModelInfo(family=family), notes=notes, aliases=aliases,
                         price_provider=price, telemetry_name=telemetry or name)


_OPENAI_DOCS = "https://platform.openai.com/docs/api-reference"
_LOCAL = "local server: a key is optional and only sent when given"

_TABLE: tuple[ProviderEntry, ...] = (
    _entry("openai", "OpenAI (Chat Completions)", "openai-chat", "https://api.openai.com/v1",
           ("OPENAI_API_KEY",), _OPENAI_DOCS, family="gpt",
           aliases=("openai-chat",),
           price="openai"),
    _entry("openai-responses", "OpenAI (Responses)", "openai-responses",
           "https://api.openai.com/v1", ("OPENAI_API_KEY",), _OPENAI_DOCS, family="gpt",
           price="openai", telemetry="openai"),
    _entry("openai-compatible", "Any OpenAI-compatible server", "openai-chat", None, (),
           "https://platform.openai.com/docs/api-reference/chat", key_required=False,
           notes="base_url is required; no environment variable is read, pass api_key=",
           price=None),
    _entry("azure", "Azure OpenAI", "openai-chat", "{AZURE_OPENAI_ENDPOINT}/openai",
           ("AZURE_OPENAI_API_KEY",),
           "https://learn.microsoft.com/azure/ai-services/openai/reference",
           dialect="azure", auth="api-key", query={"api-version": "2024-10-21"},
           notes="the model is the deployment name (in the URL path); the v1 API "
                 "(https://RESOURCE.openai.azure.com/openai/v1, no api-version) is "
                 "openai-compatible with auth='api-key'",
           aliases=("azure-openai",),
           price="azure", telemetry="azure.ai.openai"),
    _entry("anthropic", "Anthropic", "anthropic", "https://api.anthropic.com/v1",
           ("ANTHROPIC_API_KEY",), "https://platform.claude.com/docs/en/api/versioning",
           auth="x-api-key", headers={"anthropic-version": "2026-10-21"},
           options={"max_tokens": 4096}, family="claude",
           notes="2026-10-21 refuses temperature/top_p/top_k (400); send "
                 "headers={'anthropic-version': '2023-06-01'} to keep them",
           aliases=("claude",),
           price="anthropic"),
    _entry("gemini", "Google Gemini API (AI Studio)", "gemini",
           "https://generativelanguage.googleapis.com/v1beta",
           ("GOOGLE_API_KEY", "GEMINI_API_KEY"),
           "https://ai.google.dev/gemini-api/docs/api-key", auth="x-goog-api-key",
           family="gemini", notes="GOOGLE_API_KEY wins when both are set, as in Google's SDK",
           aliases=("google",),
           price="google", telemetry="gcp.gemini"),
    _entry("vertex", "Google Vertex AI (Gemini)", "gemini",
           "https://{GOOGLE_CLOUD_LOCATION}-aiplatform.googleapis.com/v1/projects/"
           "{GOOGLE_CLOUD_PROJECT}/locations/{GOOGLE_CLOUD_LOCATION}/publishers/google",
           ("GOOGLE_OAUTH_ACCESS_TOKEN",),
           "https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest-rpc",
           family="gemini",
           notes="an OAuth access token (gcloud auth print-access-token, valid one hour); "
                 "location 'global' is https://aiplatform.googleapis.com/v1/...: pass base_url",
           aliases=("vertexai",),
           price="google", telemetry="gcp.vertex_ai"),
    _entry("ollama", "Ollama (native /api/chat)", "ollama", "http://localhost:11434",
           ("OLLAMA_API_KEY",), "https://docs.ollama.com/api", key_required=False,
           notes="the key is for ollama.com (base_url='https://ollama.com')",
           price=None),
    _entry("ollama-v1", "Ollama (OpenAI-compatible /v1)", "openai-chat",
           "http://localhost:11434/v1", ("OLLAMA_API_KEY",),
           "https://docs.ollama.com/api/openai-compatibility", dialect="ollama-openai",
           key_required=False, notes=_LOCAL,
           aliases=("ollama-openai",),
           price=None),
    _entry("deepseek", "DeepSeek", "openai-chat", "https://api.deepseek.com",
           ("DEEPSEEK_API_KEY",), "https://api-docs.deepseek.com/", dialect="deepseek",
           family="deepseek",
           price="deepseek"),
    _entry("qwen", "Qwen / Alibaba Cloud Model Studio (DashScope, Beijing)", "openai-chat",
           "https://dashscope.aliyuncs.com/compatible-mode/v1", ("DASHSCOPE_API_KEY",),
           "https://help.aliyun.com/zh/model-studio/compatibility-of-openai-with-dashscope",
           dialect="qwen", family="qwen",
           aliases=("dashscope",),
           price=None),
    _entry("qwen-intl", "Qwen / Alibaba Cloud Model Studio (international)", "openai-chat",
           "https://dashscope-intl.aliyuncs.com/compatible-mode/v1", ("DASHSCOPE_API_KEY",),
           "https://help.aliyun.com/zh/model-studio/compatibility-of-openai-with-dashscope",
           dialect="qwen", family="qwen",
           price=None),
    _entry("zai", "Zhipu GLM on Z.ai", "openai-chat", "https://api.z.ai/api/paas/v4",
           ("ZAI_API_KEY",),
           "https://docs.z.ai/guides/develop/http/introduction", dialect="glm", family="glm",
           aliases=("glm",),
           price="zai"),
    _entry("bigmodel", "Zhipu GLM on bigmodel.cn", "openai-chat", "https://open.bigmodel.cn/api/paas/v4",
           ("ZHIPUAI_API_KEY", "ZAI_API_KEY"), "https://docs.bigmodel.cn", dialect="glm",
           family="glm", notes="zhipuai SDK reads ZHIPUAI_API_KEY; zai-sdk users set ZAI_API_KEY",
           aliases=("zhipu",),
           price="zhipuai"),
    _entry("moonshot", "Moonshot AI / Kimi (China)", "openai-chat", "https://api.moonshot.cn/v1",
           ("MOONSHOT_API_KEY",), "https://platform.kimi.com/docs/api/overview",
           dialect="moonshot", family="kimi",
           aliases=("kimi",),
           price="moonshotai"),
    _entry("moonshot-intl", "Moonshot AI / Kimi (global)", "openai-chat",
           "https://api.moonshot.ai/v1", ("MOONSHOT_API_KEY",), "https://platform.moonshot.ai",
           dialect="moonshot", family="kimi",
           price="moonshotai"),
    _entry("ark", "Volcengine Ark (Doubao)", "openai-chat", "https://ark.cn-beijing.volces.com/api/v3",
           ("ARK_API_KEY",), "https://www.volcengine.com/docs/82379/1263482", family="doubao",
           notes="the model is a model id or an endpoint id (ep-...)",
           aliases=("volcengine", "doubao"),
           price=None),
    _entry("together", "Together AI", "openai-chat", "https://api.together.ai/v1",
           ("TOGETHER_API_KEY",), "https://docs.together.ai/docs/inference/openai-compatibility",
           dialect="together",
           price="together"),
    _entry("xai", "xAI (Grok)", "openai-chat", "https://api.x.ai/v1", ("XAI_API_KEY",),
           "https://docs.x.ai/api/integrations", dialect="xai", family="grok",
           notes="xAI calls Chat Completions legacy; the Responses API is at the same base URL",
           aliases=("grok",),
           price="x-ai", telemetry="x_ai"),
    _entry("yi", "01.AI (Yi)", "openai-chat", "https://api.lingyiwanwu.com/v1", ("YI_API_KEY",),
           "https://platform.lingyiwanwu.com/docs", family="yi",
           price=None),
    _entry("nvidia", "NVIDIA API Catalog (NIM)", "openai-chat", "https://integrate.api.nvidia.com/v1",
           ("NVIDIA_API_KEY",), "https://build.nvidia.com/",
           price=None),
    _entry("sambanova", "SambaNova Cloud", "openai-chat", "https://api.sambanova.ai/v1",
           ("SAMBANOVA_API_KEY",), "https://docs.sambanova.ai/cloud/docs/resources/glossary",
           price=None),
    _entry("openrouter", "OpenRouter", "openai-chat", "https://openrouter.ai/api/v1",
           ("OPENROUTER_API_KEY",), "https://openrouter.ai/docs/quick-start",
           dialect="openrouter",
           price="openrouter"),
    _entry("fireworks", "Fireworks AI", "openai-chat", "https://api.fireworks.ai/inference/v1",
           ("FIREWORKS_API_KEY",), "https://docs.fireworks.ai/tools-sdks/openai-compatibility",
           dialect="fireworks",
           price="fireworks"),
    _entry("internlm", "InternLM (Shanghai AI Lab)", "openai-chat", "https://chat.intern-ai.org.cn/api/v1",
           ("INTERNLM_API_KEY",), "https://internlm.intern-ai.org.cn/doc/docs/Chat/",
           family="internlm",
           notes="older docs: https://internlm-chat.intern-ai.org.cn/puyu/api/v1",
           price=None),
    _entry("groq", "Groq", "openai-chat", "https://api.groq.com/openai/v1", ("GROQ_API_KEY",),
           "https://console.groq.com/docs/openai", dialect="groq",
           price="groq"),
    _entry("mistral", "Mistral AI", "openai-chat", "https://api.mistral.ai/v1",
           ("MISTRAL_API_KEY",),
           "https://docs.mistral.ai/api", dialect="mistral", family="mistral",
           stream_usage=False,
           notes="stream_options is refused (422 extra_forbidden) and usage comes anyway: "
                 "https://github.com/openai/openai-agents-python/issues/442",
           price="mistral", telemetry="mistral_ai"),
    _entry("perplexity", "Perplexity (Agent API)", "openai-responses",
           "https://api.perplexity.ai/v1", ("PERPLEXITY_API_KEY",),
           "https://docs.perplexity.ai/docs/agent-api/openai-compatibility",
           dialect="perplexity",
           notes="Responses format (/v1/responses, alias of /v1/agent); the Sonar Chat "
                 "Completions API was retired on 2026-09-27",
           price="perplexity"),
    _entry("cerebras", "Cerebras Inference", "openai-chat", "https://api.cerebras.ai/v1",
           ("CEREBRAS_API_KEY",), "https://inference-docs.cerebras.ai/resources/openai",
           dialect="cerebras",
           price="cerebras"),
    _entry("vllm", "vLLM server", "openai-chat", "http://localhost:8000/v1", ("VLLM_API_KEY",),
           "https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html",
           dialect="vllm", key_required=False, notes=_LOCAL,
           price=None),
    _entry("lmstudio", "LM Studio server", "openai-chat", "http://localhost:1234/v1",
           (), "https://lmstudio.ai/docs/api/openai-api", dialect="lmstudio",
           key_required=False, notes=_LOCAL,
           aliases=("lm-studio",),
           price=None),
    _entry("crusoe", "Crusoe Managed Inference", "openai-chat",
           "https://api.inference.crusoecloud.com/v1", ("CRUSOE_API_KEY",),
           "https://docs.vllm.ai/en/latest/deployment/frameworks/crusoe/", dialect="crusoe",
           notes="a vLLM-based service",
           price=None),
    _entry("gemini-openai", "Google Gemini API (OpenAI-compatible)", "openai-chat",
           "https://generativelanguage.googleapis.com/v1beta/openai",
           ("GOOGLE_API_KEY", "GEMINI_API_KEY"),
           "https://ai.google.dev/gemini-api/docs/openai", dialect="gemini-openai",
           family="gemini", notes="thought signatures ride in extra_content.google",
           price="google", telemetry="gcp.gemini"),
)

#: Every provider by registry name.
PROVIDERS: Mapping[str, ProviderEntry] = MappingProxyType({e.name: e for e in _TABLE})

#: Other names people use for the same entries (each entry's ``aliases``).
ALIASES: Mapping[str, str] = MappingProxyType({
    alias: entry.name for entry in _TABLE for alias in entry.aliases})


def provider_entry(name: str, *, model: str = "<model>") -> ProviderEntry:
    """The entry registered as ``name`` (or an alias of it, any case): the one
    lookup every entry point uses (``Client``, ``stream(provider=)``,
    ``build_request`` / ``parse_request`` / ``parse_response``). An unknown
    name is refused naming the closest known one, and how ``model`` (the
    whole model string, where there is one) reaches an OpenAI-compatible
    server."""
    key = name.lower()
    key = ALIASES.get(key, key)
    try:
        return PROVIDERS[key]
    except KeyError:
        suggestion = did_you_mean(name)
        otherwise = "" if suggestion else (f"; for an OpenAI-compatible server write "
                                           f"'openai-compatible:{model}' and pass base_url=")
        raise ProviderConfigError(f"unknown provider {name!r}{suggestion}; known: "
                                  f"{', '.join(sorted(PROVIDERS))}{otherwise}") from None


def did_you_mean(name: str) -> str:
    """``" (did you mean 'anthropic'?)"`` when ``name`` is close to a registry
    name or alias (a typo: ``antropic``), else ``""``: the one suggestion every
    entry point that reads a provider name gives (the client, the codecs, the
    gateway's config)."""
    import difflib

    close = difflib.get_close_matches(name.lower(), [*PROVIDERS, *ALIASES], n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""


def vendor(name: str) -> ProviderEntry:
    """The vendor record for a registry name or alias (any case); ``auto`` is
    not a vendor: requests and responses must name theirs."""
    if name.lower() == "auto":
        raise ValueError("name the provider: only a stream's provider can be detected ('auto')")
    return provider_entry(name)


def wire_of(name: str) -> tuple[str, str | None]:
    """The wire format (one of :data:`streamkit.providers.WIRE_NAMES`) and the
    dialect of a vendor."""
    entry = vendor(name)
    return entry.wire, entry.dialect
