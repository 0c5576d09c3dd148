"""Side by side with LiteLLM: the same OpenAI-format requests translated to
Anthropic Messages and to Gemini generateContent, judged by the same checks, timed.

Run: make bench-translation   (or .venv-bench/bin/python bench/translation.py [--repeat N])

Inputs: every turn-2 request of tests/fixtures/conversations/openai-chat/* and
openai-compatible/*, the README's tool loop (a question, a tool call, its
result) and a request with prompt-cache markers in the convention LiteLLM and
OpenRouter accept (``cache_control`` on a system part, a user message, a user
part and a tool), written by hand. A translation to Anthropic that keeps fewer
of the markers than the request has (up to Anthropic's four) loses them;
Gemini caches implicitly, so no marker is owed there. Anthropic needs
``max_tokens``: both libraries get ``max_tokens: 1024`` in the body for that
target. Anthropic's two cache rules no SDK type checks (at most four
breakpoints, one-hour ones first) are checked beside the SDK's types.

- streamkit: ``parse_request("openai", body)`` then ``build_request(target, request, model=...)``.
- LiteLLM: what ``litellm.completion`` runs before its HTTP call, without the
  call: ``get_optional_params`` (the provider config's ``map_openai_params``),
  then ``AnthropicConfig.transform_request`` and the handler's beta-header
  filtering, or ``sync_transform_request_body`` on the Google AI Studio route
  (``gemini/``). ``drop_params=True``, as a gateway sets it (without it LiteLLM
  refuses ``prompt_cache_key``). Each body is compared with the one
  ``litellm.utils.return_raw_request`` captures from ``litellm.completion``.
  LiteLLM downloads URL images for Gemini; offline, its own URL cache is given
  a placeholder JPEG for the one URL image, so that translation is judged and
  its timing has no download in it.

Each body is judged by the target SDK's request types (tests/support/request_oracles
``sdk_valid``), by the target's acceptance rules (streamkit.providers.acceptance.RULES:
what the API answers 400 to, each with its error and source; the requests of
:data:`EMPTY_BLOCKS` hold such shapes) and by what the conversation must keep, read back with
streamkit's ``parse_request`` of the target wire (tests/support/translation_matrix.py
``essence`` / ``losses``, plus the declared tools, the tool choice and files).
Results are printed and written to bench/translation.latest.md (untracked).
"""

from __future__ import annotations

import argparse
import copy
import datetime
import gc
import importlib.metadata
import json
import logging
import os
import statistics
import sys
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, get_args, get_origin

sys.path.insert(0, str(Path(__file__).parent))
# tests/ (its support package: the request oracles, the cross-wire matrix: essence, losses)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network at import

import litellm
from _timing import fmt_seconds, median_times, table
from litellm.anthropic_beta_gated_fields import strip_beta_gated_request_body
from litellm.anthropic_beta_headers_manager import update_request_with_filtered_beta
from litellm.litellm_core_utils.get_litellm_params import get_litellm_params
from litellm.litellm_core_utils.prompt_templates.image_handling import in_memory_cache
from litellm.llms.anthropic.chat.transformation import AnthropicConfig
from litellm.llms.vertex_ai.gemini.transformation import sync_transform_request_body
from litellm.types.utils import CallTypes
from litellm.utils import get_optional_params, return_raw_request
from pydantic import ValidationError
from support import translation_matrix as matrix
from support.request_oracles import anthropic as anthropic_oracle
from support.request_oracles import gemini as gemini_oracle_module

import streamkit
from streamkit import (
    AssistantMessage,
    ChatResponse,
    DataBlock,
    FunctionExecutionResultMessage,
    Request,
    ThinkingBlock,
    UserMessage,
)
from streamkit.providers.acceptance import RULES

TARGETS = ("anthropic", "gemini")
MODELS = {target: matrix.TARGETS[target][1] for target in TARGETS}
ANTHROPIC_URL = "https://api.anthropic.com/v1/messages"
#: Where a body the SDK types refuse would be refused, and how.
API_DOCS = {
    "anthropic": "Messages API reference, docs.anthropic.com/en/api/messages: "
                 "400 invalid_request_error",
    "gemini": "generateContent reference, ai.google.dev/api/generate-content: "
              "400 INVALID_ARGUMENT",
}
GEMINI_MIME_RULE = ("Gemini API reference, FileData.mimeType: \"the IANA standard MIME type of "
                    "the source data\"; a wildcard is no type")

README_TOOL_LOOP = {
    "model": "gpt-4o",
    "stream": True,
    "messages": [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": None, "tool_calls": [{
            "id": "call_weather_paris", "type": "function",
            "function": {"name": "get_weather", "arguments": "{\"location\": \"Paris\"}"}}]},
        {"role": "tool", "tool_call_id": "call_weather_paris", "content": "Sunny, 21 °C in Paris"},
    ],
    "tools": [{"type": "function", "function": {
        "name": "get_weather", "description": "The current weather in a city.",
        "parameters": {"type": "object", "properties": {"location": {"type": "string"}},
                       "required": ["location"]}}}],
}


_EPHEMERAL = {"type": "ephemeral"}
_HOUR = {"type": "ephemeral", "ttl": "1h"}
CACHE_MARKERS = {  # LiteLLM's and OpenRouter's convention (docs.litellm.ai prompt caching)
    "model": "gpt-4o",
    "messages": [
        {"role": "system", "content": [{"type": "text", "text": "You review contracts.",
                                        "cache_control": _HOUR}]},
        {"role": "user", "content": "Clause 1. The parties ... Clause 9.", "cache_control": _HOUR},
        {"role": "assistant", "content": "I have read it."},
        {"role": "user", "content": [{"type": "text", "text": "What does clause 4 say?",
                                      "cache_control": _EPHEMERAL}]},
    ],
    "tools": [{"type": "function", "function": {
        "name": "lookup", "description": "Finds a clause.",
        "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}}},
        "cache_control": _HOUR}],
}

# One marker more than Anthropic takes, a five-minute one before an hour's: two 400s to avoid.
CACHE_MARKERS_FIVE = {**CACHE_MARKERS, "messages": [
    CACHE_MARKERS["messages"][0],
    {"role": "user", "content": "Earlier: the cover letter.", "cache_control": _EPHEMERAL},
    {"role": "assistant", "content": "Noted."}, *CACHE_MARKERS["messages"][1:]]}
#: Anthropic's prompt-cache rules no SDK type checks: its 400 for a fifth breakpoint
#: (tghamm/Anthropic.SDK#50), and its guide's TTL order (quoted in Portkey's docs).
ANTHROPIC_CACHE_RULES = ("\"A maximum of 4 blocks with cache_control may be provided\"",
                         "\"1-hour entries must appear before 5-minute entries\"")

#: Requests OpenAI takes whose shape a target refuses (streamkit.providers.acceptance.RULES:
#: each with the API's 400 and its source): an empty text part beside the words (the issue's),
#: an assistant turn that said nothing and an empty system prompt, a prefill ending in a space.
EMPTY_BLOCKS = {
    "empty text part": [{"role": "user", "content": [{"type": "text", "text": ""},
                                                     {"type": "text", "text": "go"}]}],
    "empty turns": [{"role": "system", "content": ""}, {"role": "user", "content": "Hi"},
                    {"role": "assistant", "content": ""}, {"role": "user", "content": "Hello?"}],
    "prefill ending in a space": [{"role": "user", "content": "Name a colour."},
                                  {"role": "assistant", "content": "The colour is "}],
}


def inputs() -> dict[str, dict[str, Any]]:
    """Every OpenAI-format request of the comparison, by name."""
    out = {}
    for folder in ("openai-chat", "openai-compatible"):
        for path in sorted((matrix.CONVERSATIONS / folder).glob("*/turn2.request.json")):
            out[f"{folder}/{path.parent.name}"] = json.loads(path.read_text())
    out["README tool loop"] = README_TOOL_LOOP
    out["cache markers"] = CACHE_MARKERS
    out["cache markers, five"] = CACHE_MARKERS_FIVE
    for name, messages in EMPTY_BLOCKS.items():
        out[name] = {"model": "gpt-4o", "messages": messages}
    return out


def for_target(body: dict[str, Any], target: str) -> dict[str, Any]:
    return {**body, "max_tokens": 1024} if target == "anthropic" else body


# ---------------------------------------------------------------- the two translators


def streamkit_translate(body: dict[str, Any], target: str) -> dict[str, Any]:
    return streamkit.build_request(target, streamkit.parse_request("openai", body),
                                   model=MODELS[target])


def litellm_translate(body: dict[str, Any], target: str) -> dict[str, Any]:
    """The body litellm.completion would send (its main.py and provider handlers),
    from a copy: LiteLLM rewrites the messages and params it is given."""
    model, body = MODELS[target], copy.deepcopy(body)
    messages = body.pop("messages")
    params = {key: value for key, value in body.items() if key != "model"}
    optional = get_optional_params(model=model, custom_llm_provider=target, messages=messages,
                                   drop_params=True, **params)
    optional.pop("stream", None)
    litellm_params = get_litellm_params(custom_llm_provider=target, drop_params=True)
    if target == "gemini":
        return dict(sync_transform_request_body(
            gemini_api_key="offline", messages=messages, api_base=None, model=model, client=None,
            timeout=None, extra_headers=None, optional_params=optional, logging_obj=None,
            custom_llm_provider="gemini", litellm_params=litellm_params, vertex_project=None,
            vertex_location=None, vertex_auth_header=None))
    optional.pop("json_mode", None)
    optional["is_vertex_request"] = False
    config = AnthropicConfig()
    headers = config.validate_environment(
        api_key="offline", headers={}, model=model, messages=messages, optional_params=optional,
        litellm_params=litellm_params, api_base=ANTHROPIC_URL)
    data = config.transform_request(model=model, messages=messages, optional_params=optional,
                                    litellm_params=litellm_params, headers=headers)
    headers, data = update_request_with_filtered_beta(
        headers=headers, request_data=data, provider="anthropic", api_base=ANTHROPIC_URL)
    return dict(strip_beta_gated_request_body(data, headers, drop_params=True, model=model,
                                              provider="anthropic"))


def litellm_completion_body(body: dict[str, Any], target: str) -> Any:
    """What litellm.completion itself sends (captured before its HTTP call)."""
    raw = return_raw_request(CallTypes.completion, {
        **copy.deepcopy(body), "model": f"{target}/{MODELS[target]}", "drop_params": True})
    return raw.get("raw_request_body")


def serve_url_images_offline(bodies: list[dict[str, Any]]) -> None:
    """LiteLLM inlines URL images for Gemini: seed its URL cache (the one it checks
    before downloading) with a placeholder JPEG for each, so nothing goes out."""
    for body in bodies:
        for message in body["messages"]:
            for part in message.get("content") or []:
                if isinstance(part, dict) and part.get("type") == "image_url":
                    in_memory_cache.set_cache(part["image_url"]["url"],
                                              "data:image/jpeg;base64,/9j/2Q==", ttl=86_400)


# ---------------------------------------------------------------- judging


@dataclass
class Reading:
    """What a conversation must keep, as comparable values."""

    essence: matrix.Essence
    tools: list[str] = field(default_factory=list)
    tool_choice: str | None = None
    files: int = 0
    thinking: list[str] = field(default_factory=list)
    """Reasoning sent as the target's thinking (only to tell translations apart:
    another provider's reasoning may be kept as text or dropped)."""
    cache: list[str] = field(default_factory=list)
    """The prompt-cache points, each as its holder's kind and its TTL."""


def read(request: Request, tools: list[str]) -> Reading:
    reading = Reading(matrix.essence(request), tools, request.tool_choice)
    reading.essence.results = [_result_text(text) for text in reading.essence.results]
    blocks = [block for message in request.messages for block in _blocks(message)]
    reading.files = sum(1 for b in blocks if isinstance(b, DataBlock)
                        and not b.media_type.startswith("image/"))
    reading.thinking = [b.thinking for b in blocks if isinstance(b, ThinkingBlock)]
    reading.cache = _cache_points(request)
    return reading


def _cache_points(request: Request) -> list[str]:
    holders: list[Any] = [tool for tool in request.tools or [] if not isinstance(tool, dict)]
    for message in request.messages:
        holders.append(message)
        if not isinstance(message, ChatResponse) and not isinstance(message.content, str):
            holders += list(message.content)
    return [f"{type(holder).__name__} {holder.cache.ttl or '5m'}" for holder in holders
            if getattr(holder, "cache", None) is not None]


def _blocks(message: Any) -> list[Any]:
    if isinstance(message, UserMessage):
        return list(message.blocks)
    if isinstance(message, FunctionExecutionResultMessage):
        return [block for result in message.content for block in result.blocks]
    if isinstance(message, ChatResponse):
        return list(message.content)
    return list(message.blocks) if isinstance(message, AssistantMessage) else []


def _result_text(text: str) -> str:
    """Gemini's functionResponse wraps a result in an object (``output`` is the
    documented key; LiteLLM writes ``content``): compare what is inside."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    if isinstance(value, dict) and len(value) == 1 and next(iter(value)) in ("output", "content"):
        inner = next(iter(value.values()))
        return inner if isinstance(inner, str) else text
    return text


def source_reading(body: dict[str, Any]) -> Reading:
    names = [t.get("function", {}).get("name", "?") for t in body.get("tools", [])]
    return read(streamkit.parse_request("openai", body), names)


@dataclass
class Verdict:
    """One library's translation of one request, judged."""

    right: bool
    summary: str
    reasons: list[str] = field(default_factory=list)
    reading: Reading | None = None
    oracle_gap: bool = False
    """Valid only with the Gemini oracle's gap closed (see :func:`gemini_oracle`)."""

    @property
    def raised(self) -> bool:
        return self.summary in ("refused", "crashed")


def gemini_oracle(body: dict[str, Any]) -> None:
    """tests/support/request_oracles/gemini.py's oracle with one gap closed: its
    ``canonical`` does not descend into dict-valued fields (``Schema.properties``),
    so a ``parameters`` schema whose nested types are spelled ``"string"`` (as the
    API's own examples spell them; the SDK reads them case-insensitively) looks
    changed by the SDK. Run only when the oracle as it is refuses the body."""
    module = gemini_oracle_module
    original = module.canonical

    def canonical(value: Any, annotation: Any) -> Any:
        annotation = module._model_of(annotation, value)
        if get_origin(annotation) is dict and isinstance(value, dict):
            return {key: canonical(item, get_args(annotation)[1]) for key, item in value.items()}
        return original(value, annotation)

    module.canonical = canonical
    try:
        module.check(body)
    finally:
        module.canonical = original


def check(target: str, body: dict[str, Any]) -> bool:
    """Raises if the target SDK's types refuse ``body``; True when only the
    Gemini oracle's gap made it refuse."""
    if target == "anthropic":
        anthropic_oracle.check(body)
        return False
    try:
        gemini_oracle_module.check(body)
        return False
    except AssertionError:
        gemini_oracle(body)
        return True


@dataclass
class Output:
    """What a translation gave: the body as it goes on the wire, or the error;
    and the LossyTranslationWarnings it issued."""

    body: dict[str, Any] | None
    error: Exception | None = None
    warned: list[str] = field(default_factory=list)


def translate(run: Callable[[], dict[str, Any]]) -> Output:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            output = Output(json.loads(json.dumps(run())))
        except Exception as error:
            output = Output(None, error)
    output.warned = [str(w.message) for w in caught
                     if issubclass(w.category, streamkit.LossyTranslationWarning)]
    return output


def judge(output: Output, target: str, before: Reading) -> Verdict:
    body, error, warned = output.body, output.error, output.warned
    if body is None:
        kind = "refused" if isinstance(error, streamkit.UnsupportedFeatureError) else "crashed"
        return Verdict(False, kind, [f"{kind}, no body: {type(error).__name__}: "
                                     f"{_short(str(error), 160)}"])
    try:
        gap = check(target, body)
    except Exception as error:
        return Verdict(False, "invalid", [f"invalid ({API_DOCS[target]}): {_why(error)}"])
    broken = [GEMINI_MIME_RULE + f": {m!r}" for m in _wildcard_mime_types(body)]
    broken += _cache_rules_broken(body) if target == "anthropic" else []
    broken += [f"400 \"{rule.says}\" ({rule.source})" for rule in RULES
               if rule.wire == target and rule.broken(body)]
    if broken:
        return Verdict(False, "invalid", broken)
    read_back = streamkit.parse_request(target, body)
    after = read(read_back, [t.name for t in read_back.tools or [] if not isinstance(t, dict)])
    lost = losses(before, after, target)
    if lost and not warned:
        return Verdict(False, "lost", [f"silently lost: {', '.join(lost)}"], after, gap)
    if lost:
        return Verdict(True, "dropped, warned", [f"dropped with a warning: {'; '.join(warned)}"],
                       after, gap)
    return Verdict(True, "intact", [], after, gap)


def _why(error: Exception) -> str:
    """The first thing the SDK types refuse, as ``field.path: message``."""
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        path = ".".join(str(p) for p in first["loc"] if not str(p)[:1].isupper())
        return f"{path}: {first['msg']}"
    return f"{type(error).__name__}: {_short(str(error), 200)}"


def losses(before: Reading, after: Reading, target: str) -> list[str]:
    out = matrix.losses(before.essence, after.essence)
    owed = min(len(before.cache), 4) if target == "anthropic" else 0  # Gemini: implicit
    if len(after.cache) < owed:
        out.append(f"prompt-cache marker(s): {len(after.cache)} of {owed} kept")
    if missing := [name for name in before.tools if name not in after.tools]:
        out.append(f"tool declaration(s) {', '.join(missing)}")
    if before.tool_choice and after.tool_choice != before.tool_choice:
        out.append(f"tool choice {before.tool_choice!r} (became {after.tool_choice!r})")
    if after.files < before.files:
        out.append("file(s)")
    return out


def _cache_rules_broken(body: dict[str, Any]) -> list[str]:
    """Anthropic's cache rules (:data:`ANTHROPIC_CACHE_RULES`) a body breaks."""
    ttls = [marker.get("ttl", "5m") for marker in _markers(body)]
    broken = [ANTHROPIC_CACHE_RULES[0] + f": {len(ttls)}"] if len(ttls) > 4 else []
    if "1h" in ttls and "5m" in ttls[:len(ttls) - ttls[::-1].index("1h")]:
        broken.append(ANTHROPIC_CACHE_RULES[1] + f": {ttls}")
    return broken


def _markers(value: Any) -> list[dict[str, Any]]:
    """Every ``cache_control`` under ``value``, in the order of the prompt's
    parts as the body lists them (tools, system, messages)."""
    if isinstance(value, dict):
        found = [value["cache_control"]] if isinstance(value.get("cache_control"), dict) else []
        keys = ("tools", "system", "messages") if "messages" in value else value.keys()
        return found + [m for key in keys if key != "cache_control"
                        for m in _markers(value.get(key))]
    if isinstance(value, list):
        return [marker for item in value for marker in _markers(item)]
    return []


def _wildcard_mime_types(body: dict[str, Any]) -> list[str]:
    """Media types like ``image/*`` in Gemini parts (the SDK types take any string)."""
    found = []
    for content in body.get("contents", []):
        for part in content.get("parts", []):
            for key in ("fileData", "file_data", "inlineData", "inline_data"):
                media = part.get(key) or {}
                mime = media.get("mimeType") or media.get("mime_type") or ""
                if "*" in mime:
                    found.append(mime)
    return found


def differences(ours: Reading, theirs: Reading) -> list[str]:
    """How two right translations differ in what they keep, in words."""
    out = []
    pairs = [(f.name, getattr(ours.essence, f.name), getattr(theirs.essence, f.name))
             for f in fields(matrix.Essence)]
    pairs += [(name, getattr(ours, name), getattr(theirs, name))
              for name in ("tools", "tool_choice", "files", "thinking", "cache")]
    for name, a, b in pairs:
        if a == b:
            continue
        if isinstance(a, list):
            only_a = list((Counter(map(str, a)) - Counter(map(str, b))).elements())
            only_b = list((Counter(map(str, b)) - Counter(map(str, a))).elements())
            sides = [f"only streamkit's has {_quoted(only_a)}" if only_a else "",
                     f"only LiteLLM's has {_quoted(only_b)}" if only_b else ""]
            out.append(f"{name.replace('_', ' ')}: " + "; ".join(s for s in sides if s))
        else:
            out.append(f"{name.replace('_', ' ')}: streamkit {a!r}, LiteLLM {b!r}")
    return out


def _quoted(items: list[str]) -> str:
    return ", ".join(f'"{_short(item, 60)}"' for item in items)


def _short(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 1] + "…"


# ---------------------------------------------------------------- one case


@dataclass
class Case:
    name: str
    target: str
    streamkit: Verdict
    litellm: Verdict
    same_as_completion: bool
    times: dict[str, float] = field(default_factory=dict)

    @property
    def outcome(self) -> str:
        if self.streamkit.right and self.litellm.right:
            return "disagree" if self.differences() else "agree"
        if self.streamkit.right or self.litellm.right:
            return "LiteLLM wrong" if self.streamkit.right else "streamkit wrong"
        return "both wrong"

    def differences(self) -> list[str]:
        if self.streamkit.reading is None or self.litellm.reading is None:
            return []
        return differences(self.streamkit.reading, self.litellm.reading)

    def ratio(self) -> float | None:
        if "streamkit" not in self.times or "LiteLLM" not in self.times:
            return None
        return self.times["LiteLLM"] / self.times["streamkit"]


def run_case(name: str, body: dict[str, Any], target: str) -> Case:
    body = for_target(body, target)
    before = source_reading(body)
    ours = translate(lambda: streamkit_translate(body, target))
    theirs = translate(lambda: litellm_translate(body, target))
    same = litellm_completion_body(body, target) == theirs.body  # None == None: both raised
    return Case(name, target, judge(ours, target, before), judge(theirs, target, before), same)


def time_case(case: Case, body: dict[str, Any], repeat: int) -> None:
    """Median time of one translation, both libraries alternating (batches of
    runs sized to ~10 ms, so the clock's resolution does not matter)."""
    if case.streamkit.raised or case.litellm.raised:
        return  # a library that raised has no translation time
    body = for_target(body, case.target)
    runs = {"streamkit": lambda: streamkit_translate(body, case.target),
            "LiteLLM": lambda: litellm_translate(body, case.target)}
    batches = {}
    for label, run in runs.items():
        once = median_times({label: run}, repeat=3)[label]
        batches[label] = max(1, int(0.01 / max(once, 1e-7)))
    medians = median_times({label: _batch(run, batches[label]) for label, run in runs.items()},
                           repeat=repeat)
    case.times = {label: medians[label] / batches[label] for label in runs}


def _batch(run: Callable[[], object], count: int) -> Callable[[], object]:
    return lambda: [run() for _ in range(count)]


# ---------------------------------------------------------------- the report


OUTCOMES = ("agree", "disagree", "streamkit wrong", "LiteLLM wrong", "both wrong")


def report(cases: list[Case], argv: list[str]) -> str:
    rows = [(c.name, c.target, c.streamkit.summary, c.litellm.summary, c.outcome,
             fmt_seconds(c.times["streamkit"]) if c.times else "-",
             fmt_seconds(c.times["LiteLLM"]) if c.times else "-",
             f"{c.ratio():.1f}x" if c.ratio() else "-") for c in cases]
    parts = ["# streamkit vs LiteLLM: OpenAI-format requests translated to Anthropic and Gemini",
             environment(argv),
             table("Every case", rows, ("request", "target", "streamkit", "LiteLLM", "outcome",
                                        "streamkit time", "LiteLLM time", "LiteLLM / streamkit")),
             counts(cases), details(cases), timing(cases)]
    gaps = [f"{label} {c.name} -> {c.target}" for c in cases for label, verdict in
            (("streamkit", c.streamkit), ("LiteLLM", c.litellm)) if verdict.oracle_gap]
    if gaps:
        parts.append(f"\nValid only with the Gemini oracle's gap closed ({len(gaps)}: "
                     f"{', '.join(gaps)}): tests/support/request_oracles/gemini.py "
                     "`canonical` does not "
                     "descend into `Schema.properties`, so nested lowercase types (`\"string\"`, "
                     "which the SDK reads case-insensitively) look changed; see "
                     "`gemini_oracle` in bench/translation.py.")
    same = sum(c.same_as_completion for c in cases)
    parts.append(f"\nLiteLLM's bodies here are the ones `litellm.completion` sends "
                 f"(`return_raw_request`): {same} of {len(cases)} identical"
                 + ("." if same == len(cases) else
                    " (differing: " + ", ".join(f"{c.name} -> {c.target}" for c in cases
                                                if not c.same_as_completion) + ")."))
    return "\n".join(parts) + "\n"


def counts(cases: list[Case]) -> str:
    rows = []
    for target in (*TARGETS, None):
        chosen = [c for c in cases if target in (None, c.target)]
        tally = Counter(c.outcome for c in chosen)
        rows.append((target or "**total**", *(str(tally[o]) for o in OUTCOMES)))
    return table("Agreement", rows, ("target", *OUTCOMES))


def details(cases: list[Case]) -> str:
    lines = ["\n### Disagreements and wrong translations\n"]
    for case in cases:
        if case.outcome == "agree":
            continue
        lines.append(f"- **{case.name} -> {case.target}** ({case.outcome})")
        lines += [f"  - {text}" for text in case.differences()]
        for label, verdict in (("streamkit", case.streamkit), ("LiteLLM", case.litellm)):
            lines += [f"  - {label}: {reason}" for reason in verdict.reasons]
    return "\n".join(lines if len(lines) > 1 else [*lines, "None."])


def timing(cases: list[Case]) -> str:
    timed = [c for c in cases if c.times]
    if not timed:
        return "\nNo case was timed."
    ours = sum(c.times["streamkit"] for c in timed)
    theirs = sum(c.times["LiteLLM"] for c in timed)
    ratios = [c.ratio() or 0.0 for c in timed]
    return (f"\n### Translation time\n\nThe {len(timed)} cases both libraries translate, each "
            f"once: streamkit {fmt_seconds(ours)}, LiteLLM {fmt_seconds(theirs)}: **LiteLLM takes "
            f"{theirs / ours:.1f}x streamkit's time** (per case {min(ratios):.1f}x to "
            f"{max(ratios):.1f}x, median {statistics.median(ratios):.1f}x). Per case: medians of "
            "runs alternating between the two, each run a batch of ~10 ms; streamkit's path is "
            "`parse_request` + `build_request`, LiteLLM's is the one described above, from the "
            "same dict to the body dict (JSON encoding excluded for both).")


def environment(argv: list[str]) -> str:
    versions = ", ".join(f"{name} {importlib.metadata.version(name)}" for name in
                         ("streamkit-llm", "litellm", "anthropic", "google-genai"))
    return "\n".join([
        f"\n- date: {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}",
        f"- packages: {versions}; Python {sys.version.split()[0]}, {os.cpu_count()} CPUs",
        f"- command: `{' '.join(argv)}`",
        "- outcomes: *agree* = both bodies valid for the target SDK's types and equal in what "
        "the conversation keeps (system prompt, texts, tool calls, results and their pairing, "
        "images, files, declared tools, tool choice); *disagree* = both valid and lossless but "
        "different in that, or in the reasoning sent as the target's thinking; *X wrong* = "
        "X's body is invalid, loses something silently, or X raised. streamkit dropping "
        "content with a `LossyTranslationWarning` counts as right.",
    ])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="timed runs per case and library")
    parser.add_argument("--output", type=Path, default=Path(__file__).parent /
                        "translation.latest.md", help="where to write the Markdown report")
    args = parser.parse_args(argv)
    litellm.suppress_debug_info = True
    logging.getLogger("LiteLLM").setLevel(logging.CRITICAL)
    bodies = inputs()
    serve_url_images_offline(list(bodies.values()))
    cases = [run_case(name, body, target) for name, body in bodies.items() for target in TARGETS]
    gc.collect()
    gc.freeze()  # the libraries' modules out of the collector's sight (see compare.py)
    warnings.simplefilter("ignore")
    for case in cases:
        time_case(case, bodies[case.name], args.repeat)
    text = report(cases, [".venv-bench/bin/python", "bench/translation.py",
                          *(sys.argv[1:] if argv is None else argv)])
    print(text)
    args.output.write_text(text)
    print(f"wrote {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
