"""The cross-wire translation matrix: every real turn-2 request, read in its own
wire and written to every other, checked by the target SDK's request types and
by what a conversation must keep.

Each case is one (recorded request, target wire, mode). Modes: ``conversation``
sends the messages, tools, tool choice, structured output and the uniform
options; ``request`` sends the whole parsed :class:`~streamkit.Request` (its
wire's own options too), as a gateway passing a request through would. A case
ends as one of:

- ``intact``: valid for the target and nothing of the conversation is lost;
- ``dropped``: valid, and what the target cannot hold was dropped with a
  :class:`streamkit.LossyTranslationWarning` naming it;
- ``refused``: an :class:`streamkit.UnsupportedFeatureError` naming the target
  wire and the feature (a conversation the target cannot express at all);
- ``lost``: valid, but something was dropped without a warning (a defect);
- ``invalid``: the target SDK's types refuse the body, or it has a key they do
  not know (a defect: the API would answer 400);
- ``crash``: any other exception (a defect).

What a conversation must keep (:func:`losses`), compared between the source
request and the target body read back by the target's own ``parse_request``:
the system prompt's text, every user text and every assistant text, every
visible thinking (kept as thinking, or as ``<think>`` text, or dropped with a
warning), every tool call
(name and arguments) paired with its result, and every image.

Run it as a script to print the matrix: ``python tests/support/translation_matrix.py``.
"""

from __future__ import annotations

import json
import sys
import warnings
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # as a script: tests/, for support

import streamkit
from streamkit import (
    AssistantMessage,
    ChatResponse,
    DataBlock,
    FunctionExecutionResultMessage,
    RawBlock,
    Request,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnsupportedFeatureError,
    UserMessage,
    build_request,
    parse_request,
)
from streamkit.conversation.request import UNIFORM_OPTIONS
from streamkit.model.extras import Extras, origin_of
from support.paths import FIXTURES
from support.request_oracles import sdk_valid

CONVERSATIONS = FIXTURES / "conversations"

#: Each wire's own vendor, the target of a translation, and a model name of its.
TARGETS: dict[str, tuple[str, str]] = {
    "openai-chat": ("openai", "gpt-4o"),
    "openai-responses": ("openai-responses", "gpt-5"),
    "anthropic": ("anthropic", "claude-sonnet-4-5"),
    "gemini": ("gemini", "gemini-2.5-flash"),
    "ollama": ("ollama", "qwen3"),
}

#: The vendor each openai-compatible recording's endpoint is (its SOURCE.txt).
COMPATIBLE_VENDOR = {
    "cerebras-glm-think-tags": "cerebras",
    "crusoe-reasoning-tool-call": "crusoe",
    "gemini-openai-compat-tool-call": "gemini-openai",
    "mistral-content-array-prefix": "mistral",
    "mistral-tool-call": "mistral",
    "ollama-cloud-reasoning": "ollama-v1",
    "openrouter-tool-call": "openrouter",
    "zai-reasoning-content-preserved": "zai",
}

MODES = ("conversation", "request")
OUTCOMES = ("intact", "dropped", "refused", "lost", "invalid", "crash")
DEFECTS = frozenset({"lost", "invalid", "crash"})


@dataclass(frozen=True)
class Source:
    """One recorded request: its name, the vendor that received it, the body."""

    name: str
    provider: str
    body: dict[str, Any]

    @property
    def wire(self) -> str:
        return streamkit.providers.vendor(self.provider).wire


def sources() -> list[Source]:
    """Every recorded turn-2 request (the 36 shared exchanges and the Ollama ones)."""
    out = []
    for folder in sorted(CONVERSATIONS.iterdir()):
        if not folder.is_dir():
            continue
        for exchange in sorted(p for p in folder.iterdir() if p.is_dir()):
            provider = (COMPATIBLE_VENDOR[exchange.name] if folder.name == "openai-compatible"
                        else TARGETS[folder.name][0])
            out.append(Source(f"{folder.name}/{exchange.name}", provider,
                              json.loads((exchange / "turn2.request.json").read_text())))
    for exchange in sorted((FIXTURES / "ollama" / "conversations").iterdir()):
        out.append(Source(f"ollama/{exchange.name}", "ollama",
                          json.loads((exchange / "turn2.request.json").read_text())))
    return out


@dataclass
class Case:
    """One translation and how it ended."""

    source: Source
    target: str
    mode: str
    outcome: str = ""
    detail: str = ""
    warned: list[str] = field(default_factory=list)
    body: dict[str, Any] | None = None


# ---------------------------------------------------------------- what a conversation keeps


@dataclass
class Essence:
    """What must survive a translation, as comparable values."""

    system: str = ""
    user_texts: list[str] = field(default_factory=list)
    assistant_texts: list[str] = field(default_factory=list)
    calls: list[tuple[str, str]] = field(default_factory=list)
    results: list[str] = field(default_factory=list)
    unpaired_calls: int = 0
    orphan_results: int = 0
    """Results answering no call of the request (only a chained Responses
    request may send them: its calls are on OpenAI's server)."""
    images: int = 0
    thinking: list[str] = field(default_factory=list)
    """Visible thinking of the assistant turns (kept as thinking or as text)."""
    server_items: int = 0
    """Server-side calls, their results and other provider items (RawBlocks)."""


def _norm(text: str) -> str:
    return " ".join(text.split())


def _arguments(call: ToolCallBlock) -> str:
    try:
        return json.dumps(call.arguments(), sort_keys=True)
    except ValueError:
        return call.input


def essence(request: Request) -> Essence:
    """The essence of a request's conversation."""
    out = Essence()
    call_ids: list[str] = []
    answered: set[str] = set()
    for message in request.messages:
        if isinstance(message, SystemMessage):
            out.system += _norm(message.text)
        elif isinstance(message, UserMessage):
            for block in message.blocks:
                if isinstance(block, TextBlock) and block.text.strip():
                    out.user_texts.append(_norm(block.text))
                elif isinstance(block, DataBlock) and block.media_type.startswith("image/"):
                    out.images += 1
                elif isinstance(block, RawBlock):
                    out.server_items += 1
        elif isinstance(message, FunctionExecutionResultMessage):
            for result in message.content:
                answered.add(result.call_id)
                out.orphan_results += result.call_id not in call_ids
                out.results.append(_norm(result.text))
                out.images += sum(1 for b in result.blocks if isinstance(b, DataBlock)
                                  and b.media_type.startswith("image/"))
        elif isinstance(message, (AssistantMessage, ChatResponse)):
            blocks = message.content if isinstance(message, ChatResponse) else message.blocks
            for block in blocks:
                if isinstance(block, TextBlock) and block.text.strip():
                    out.assistant_texts.append(_norm(block.text))
                elif isinstance(block, ThinkingBlock) and block.thinking.strip():
                    out.thinking.append(_norm(block.thinking))
                elif isinstance(block, ToolCallBlock) and not block.server_side:
                    out.calls.append((block.name, _arguments(block)))
                    call_ids.append(block.id)
                elif isinstance(block, (ToolCallBlock, ToolResultBlock, RawBlock)):
                    out.server_items += 1
    out.unpaired_calls = sum(1 for call_id in call_ids if call_id not in answered)
    return out


def _covered(texts: list[str], kept: list[str]) -> list[str]:
    """The texts of ``texts`` that appear in none of ``kept``."""
    joined = "\n".join(kept)
    return [text for text in texts if text not in joined]


def losses(before: Essence, after: Essence) -> list[str]:
    """What of ``before`` is missing in ``after``, in words."""
    out = []
    if before.system and before.system not in after.system + " ".join(after.user_texts):
        out.append("system prompt")
    missing = _covered(before.user_texts, [*after.user_texts, after.system])
    if missing:
        out.append(f"{len(missing)} user text(s)")
    missing = _covered(before.assistant_texts, after.assistant_texts)
    if missing:
        out.append(f"{len(missing)} assistant text(s)")
    missing = _covered(before.thinking, [*after.thinking, *after.assistant_texts])
    if missing:
        out.append(f"{len(missing)} thinking text(s)")
    if Counter(before.calls) - Counter(after.calls):
        out.append("tool call(s)")
    if len(after.results) < len(before.results):
        out.append("tool result(s)")
    if after.unpaired_calls > before.unpaired_calls:
        out.append("call/result pairing")
    if after.images < before.images:
        out.append("image(s)")
    if after.server_items < before.server_items:
        out.append("server-side item(s)")
    return out


# ---------------------------------------------------------------- running a case


def _request_for(request: Request, mode: str) -> Request:
    if mode == "request":
        return request
    # The uniform options as a gateway passes them on: still marked as read from
    # the source wire (another wire's option the target lacks is dropped, not refused).
    uniform = {key: value for key, value in request.options.items() if key in UNIFORM_OPTIONS}
    origin = origin_of(request.options)
    options = uniform if origin is None else Extras(origin, uniform)
    return Request(messages=request.messages, tools=request.tools,
                   tool_choice=request.tool_choice, json_output=request.json_output,
                   stream=request.stream, options=options)


def run_case(source: Source, target: str, mode: str) -> Case:
    """Translate one recorded request and classify the outcome."""
    case = Case(source, target, mode)
    vendor, model = TARGETS[target]
    parsed = parse_request(source.provider, source.body)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            case.body = build_request(vendor, _request_for(parsed, mode), model=model)
        except UnsupportedFeatureError as error:
            named = error.wire == target and bool(error.feature)
            case.outcome = "refused" if named else "crash"
            case.detail = str(error) if named else f"a refusal naming {error.wire!r}: {error}"
            return case
        except Exception as error:
            case.outcome, case.detail = "crash", f"{type(error).__name__}: {error}"
            return case
    case.warned = [str(w.message) for w in caught
                   if issubclass(w.category, _lossy_warning())]
    try:
        sdk_valid(target, case.body)
    except Exception as error:
        case.outcome, case.detail = "invalid", f"{type(error).__name__}: {error}"[:600]
        return case
    try:
        after = essence(parse_request(vendor, case.body))
    except Exception as error:
        case.outcome, case.detail = "crash", f"reading back: {type(error).__name__}: {error}"
        return case
    if after.orphan_results and target != "openai-responses":
        case.outcome = "invalid"
        case.detail = f"{after.orphan_results} tool result(s) answering no call (the API refuses)"
        return case
    lost = losses(essence(parsed), after)
    if not lost:
        case.outcome = "intact" if not case.warned else "dropped"
    elif case.warned:
        case.outcome, case.detail = "dropped", "; ".join(lost)
    else:
        case.outcome, case.detail = "lost", "; ".join(lost)
    return case


def _lossy_warning() -> type[Warning]:
    return getattr(streamkit, "LossyTranslationWarning", UserWarning)


def cases() -> Iterator[tuple[Source, str, str]]:
    """Every (source, target, mode) of the matrix: each source to each other wire."""
    for source in sources():
        for target in TARGETS:
            if target != source.wire:
                for mode in MODES:
                    yield source, target, mode


def matrix() -> list[Case]:
    return [run_case(source, target, mode) for source, target, mode in cases()]


def table(results: list[Case]) -> str:
    """The matrix as text: per source wire -> target wire, the outcome counts."""
    rows = []
    for mode in MODES:
        rows.append(f"\nmode: {mode}\n{'source -> target':<40}" + "".join(
            f"{o:>9}" for o in OUTCOMES))
        pairs = sorted({(c.source.wire, c.target) for c in results if c.mode == mode})
        for source_wire, target in pairs:
            counts = Counter(c.outcome for c in results if c.mode == mode
                             and c.source.wire == source_wire and c.target == target)
            rows.append(f"{source_wire + ' -> ' + target:<40}"
                        + "".join(f"{counts.get(o, 0):>9}" for o in OUTCOMES))
        totals = Counter(c.outcome for c in results if c.mode == mode)
        rows.append(f"{'total':<40}" + "".join(f"{totals.get(o, 0):>9}" for o in OUTCOMES))
    return "\n".join(rows)


if __name__ == "__main__":
    results = matrix()
    print(table(results))
    for case in results:
        if case.outcome in DEFECTS or "-v" in sys.argv:
            print(f"{case.outcome:>8} {case.mode:<12} {case.source.name} -> {case.target}: "
                  f"{case.detail}")
