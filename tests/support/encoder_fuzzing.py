"""Random answers and hostile text through every encoder, read back three ways.

Shared by ``tests/test_fuzz_campaign.py`` (a seeded short run) and
``bench/fuzz_gateway.py --kinds encoders`` (100,000 cases). One
:class:`EncoderCase` is a random :class:`~streamkit.ChatResponse` (text,
reasoning and tool-call blocks in any order, their text drawn from
:data:`HOSTILE`: SSE and NDJSON framing, JSON punctuation, line separators,
lone surrogates, control characters), its stream events split into random
deltas, written to one wire as a stream (:func:`streamkit.encode_stream`, Gemini's
array form too) or a body (:func:`streamkit.encode_response`). The contract
(:func:`check`; each breach an :class:`~support.stream_fuzzing.Outcome`):

- the encoder raises nothing, or only a ``StreamkitError`` (``crash``);
- the bytes are UTF-8 without a raw U+2028, U+2029 or U+0085 (``Unreadable``);
- every frame (every body) validates as the wire's official SDK type
  (:data:`SDK_TYPES`; ``InvalidForSdk``);
- streamkit's own reader reads back the same portable summary
  (:func:`~support.encode_matrix.portable_summary`, the wire's own losses
  applied: ``Changed``), no error and no block or event more (``Injected``).

Reading by the official SDKs over a socket (``support.sdk_stream_readers``)
is :func:`check_with_sdk`, for one case in ``sdk_every``.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import random
import traceback
import typing
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from pydantic import ValidationError

from streamkit import (
    ChatResponse,
    FinishReason,
    StreamkitError,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    encode_response,
    encode_stream,
    parse_response,
    replay,
)
from streamkit.framing.encoding import json_bytes
from streamkit.model.events import (
    BlockDelta,
    BlockEnd,
    BlockStart,
    ErrorEvent,
    Event,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
)
from streamkit.model.replay import events_of
from support.comparing import paired
from support.encode_matrix import BODY_LOSSES, LOSSES, TARGETS, Source, expected, portable_summary
from support.stream_fuzzing import Outcome

#: Pieces of text that frame, escape or split something on some wire.
HOSTILE = [
    "\n", "\r\n", "\r", "\n\n", "data: ", "event: error\n", "data: [DONE]\n\n", '"', "\\",
    "\\u2028", "\u2028", "\u2029", "\x85", "\ud800", "\udfff", "\ud83d", "\ude00",
    "\U0001f600", "\x00", "\x1b[2J", "\ufeff", "}", "{", '{"type": "message_stop"}',
    '{"done": true}\n', "</think>", "<think>", "é", " ", "word", "a\tb", "\x7f", "'",
]
#: The stream forms of each wire (Gemini's JSON array besides its SSE).
FORMS = [(target, "stream", False) for target in TARGETS] + [("gemini", "stream", True)] + \
    [(target, "body", False) for target in TARGETS]
#: The share of streams that end in the provider's error after some block.
ERROR_ENDS = 0.1
#: Raw UTF-8 of what a line reader splits on.
_RAW_SEPARATORS = (b"\xe2\x80\xa8", b"\xe2\x80\xa9", b"\xc2\x85")


@dataclass
class EncoderCase:
    """One random answer written to one wire in one form."""

    number: int
    response: ChatResponse
    events: list[Event]
    target: str
    form: str
    array: bool = False
    written: bytes = field(default=b"", repr=False)

    def describe(self) -> str:
        blocks = [(type(block).__name__, getattr(block, "text", None)
                   or getattr(block, "thinking", None) or getattr(block, "input", ""))
                  for block in self.response.content]
        return (f"#{self.number} {self.target} {self.form}{' array' if self.array else ''}, "
                f"{len(self.events)} events, blocks {blocks!r}"[:600])


def hostile_text(rng: random.Random, pieces: int = 8) -> str:
    """A non-empty text of up to ``pieces`` hostile pieces."""
    return "".join(rng.choice(HOSTILE) for _ in range(rng.randint(1, pieces)))


def random_response(rng: random.Random) -> ChatResponse:
    """An answer of one to five blocks (text, reasoning, calls), finished."""
    content: list[Any] = []
    for number in range(rng.randint(1, 5)):
        kind = rng.choice(["text", "text", "thinking", "call"])
        if kind == "text":
            content.append(TextBlock(text=hostile_text(rng)))
        elif kind == "thinking":
            content.append(ThinkingBlock(thinking=hostile_text(rng)))
        else:
            arguments = json.dumps({"q": hostile_text(rng), "n": rng.randint(-9, 99)},
                                   ensure_ascii=rng.random() < 0.5)
            content.append(ToolCallBlock(f"call_{number}", f"tool_{rng.randint(0, 3)}",
                                         arguments))
    calls = any(type(block) is ToolCallBlock for block in content)
    reason = FinishReason.TOOL_CALLS if calls else rng.choice([FinishReason.STOP,
                                                               FinishReason.LENGTH])
    return ChatResponse(content=content, id=f"resp_{rng.randrange(10**6)}", model="m",
                        finished_reason=reason, terminated=True, is_last=True)


def split_deltas(events: list[Event], rng: random.Random) -> list[Event]:
    """``events`` with each text, reasoning and argument delta cut at random
    places (a surrogate pair may be cut too: a reader joins the two halves)."""
    out: list[Event] = []
    for event in events:
        if type(event) is not BlockDelta:
            out.append(event)
            continue
        delta = event.delta
        value, make = _delta_text(delta)
        if value is None or len(value) < 2 or rng.random() < 0.3:
            out.append(event)
            continue
        cuts = sorted(rng.sample(range(1, len(value)), min(len(value) - 1, rng.randint(1, 4))))
        for start, end in itertools.pairwise([0, *cuts, len(value)]):
            out.append(BlockDelta(index=event.index, choice=event.choice,
                                  delta=make(value[start:end])))
    return out


def _delta_text(delta: Any) -> tuple[str | None, Any]:
    if type(delta) is TextDelta:
        return delta.text, TextDelta
    if type(delta) is ThinkingDelta:
        return delta.thinking, ThinkingDelta
    if type(delta) is ToolInputDelta:
        return delta.partial_json, ToolInputDelta
    return None, None


def make_case(number: int, rng: random.Random) -> EncoderCase:
    """A random answer, split into random deltas, for one wire and form in turn."""
    response = random_response(rng)
    target, form, array = FORMS[number % len(FORMS)]
    events = split_deltas(list(events_of(response)), rng)
    if form == "stream" and rng.random() < ERROR_ENDS:
        events = _ending_in_error(events, rng)
    return EncoderCase(number, response, events, target, form, array)


def _ending_in_error(events: list[Event], rng: random.Random) -> list[Event]:
    """``events`` cut after a random block's end, then the provider's error."""
    ends = [at for at, event in enumerate(events) if type(event) is BlockEnd]
    cut = rng.choice(ends) + 1 if ends else 1
    return [*events[:cut], ErrorEvent(message="upstream failed: " + hostile_text(rng, 3))]


# ---------------------------------------------------------------- the contract


def check(case: EncoderCase) -> Outcome:
    """The contract (module docstring) for one case; ``case.written`` is kept."""
    provider = TARGETS[case.target]
    try:
        if case.form == "stream":
            options = {"array": True} if case.array else {}
            case.written = b"".join(encode_stream(provider, case.events, **options))
        else:
            case.written = json_bytes(encode_response(provider, case.response))
    except StreamkitError as error:
        return Outcome("error", type(error).__name__)
    except Exception as error:
        return Outcome("crash", type(error).__name__, where(error), str(error)[:300])
    return _read_back(case, provider)


def _read_back(case: EncoderCase, provider: str) -> Outcome:
    try:
        case.written.decode("utf-8")
    except UnicodeDecodeError as error:
        return Outcome("violation", "Unreadable", case.target, f"not UTF-8: {error}")
    raw = [separator for separator in _RAW_SEPARATORS if separator in case.written]
    if raw and (case.target == "ollama" or case.form == "body"):
        return Outcome("violation", "Unreadable", case.target, f"raw line separators {raw}")
    invalid = invalid_for_sdk(case.target, case.form, case.written, array=case.array)
    if invalid:
        return Outcome("violation", "InvalidForSdk", f"{case.target} {case.form}", invalid)
    try:
        if case.form == "stream":
            events, read = replay(case.written, provider, on_error="return")
        else:
            events, read = [], parse_response(provider, case.written)
    except Exception as error:
        return Outcome("violation", "ReadFailed", f"{case.target} {case.form}",
                       f"{type(error).__name__}: {str(error)[:300]}")
    return _compare(case, events, read)


def _compare(case: EncoderCase, events: list[Event], read: ChatResponse) -> Outcome:
    errors = sum(type(event) is ErrorEvent for event in events)
    if errors > sum(type(event) is ErrorEvent for event in case.events):
        return Outcome("violation", "Injected", case.target, "an error event read back")
    starts = sum(type(event) is BlockStart for event in events)
    if starts > sum(type(event) is BlockStart for event in case.events):
        return Outcome("violation", "Injected", case.target,
                       f"{starts} blocks read back of {len(case.response.content)}")
    return compare(_expected(case), portable_summary(read, events, counted_as=case.target,
                                                     wire=case.target),
                   f"{case.target} {case.form}")


def compare(want: dict[str, Any], got: dict[str, Any], where: str) -> Outcome:
    """``Changed`` naming the first part of the summary read back otherwise."""
    want, got = normal(want), normal(got)
    for key in ("text", "reasoning", "calls", "finish", "error"):
        if want[key] != got[key]:
            return Outcome("violation", "Changed", f"{where} {key}",
                           f"wrote {want[key]!r}, read {got[key]!r}"[:400])
    return Outcome("ok", "")


def _expected(case: EncoderCase) -> dict[str, Any]:
    return expected_summary(case.response, case.events, case.target, case.form)


def expected_summary(response: ChatResponse, events: list[Event], target: str,
                     form: str) -> dict[str, Any]:
    """What ``target`` must give back of ``response`` sent as ``events`` (a
    stream) or as a body: its own losses applied (``support.encode_matrix``); a
    stream ending in an error, the blocks before it, finished as an error."""
    if any(type(event) is ErrorEvent for event in events):
        blocks = sum(type(event) is BlockStart for event in events)
        response = ChatResponse(content=list(response.content[:blocks]), id=response.id,
                                model=response.model, finished_reason=FinishReason.ERROR)
    source = Source(f"fuzz-{response.id}", target, events, response)
    return expected(source, target, LOSSES if form == "stream" else BODY_LOSSES)


def normal(value: Any) -> Any:
    """``value`` as JSON reads it back: a high and a low surrogate side by side
    are the one character they are the pair of (also inside tool arguments)."""
    if isinstance(value, str):
        return paired(value)
    if isinstance(value, list | tuple):
        return type(value)(normal(item) for item in value)
    if isinstance(value, dict):
        return {normal(key): normal(item) for key, item in value.items()}
    return value


def where(exc: BaseException) -> str:
    """``path:function`` of the innermost streamkit frame of ``exc``."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/streamkit/" in f.filename]
    if not frames:
        return "?"
    return f"{frames[-1].filename.split('/streamkit/', 1)[1]}:{frames[-1].name}"


# ---------------------------------------------------------------- the SDKs' types


@cache
def sdk_types() -> dict[tuple[str, str], Any]:
    """The official SDK type each wire's stream frame and body validates as."""
    import anthropic.types as anthropic_types
    import ollama
    import openai.types.chat as chat_types
    import openai.types.responses as responses_types
    from google.genai import types as genai_types
    from pydantic import TypeAdapter

    return {
        ("openai-chat", "stream"): TypeAdapter(chat_types.ChatCompletionChunk),
        ("openai-chat", "body"): TypeAdapter(chat_types.ChatCompletion),
        ("openai-responses", "stream"): _ByType(responses_types.ResponseStreamEvent),
        ("openai-responses", "body"): TypeAdapter(responses_types.Response),
        ("anthropic", "stream"): _ByType(anthropic_types.RawMessageStreamEvent),
        ("anthropic", "body"): TypeAdapter(anthropic_types.Message),
        ("gemini", "stream"): TypeAdapter(genai_types.GenerateContentResponse),
        ("gemini", "body"): TypeAdapter(genai_types.GenerateContentResponse),
        ("ollama", "stream"): TypeAdapter(ollama.ChatResponse),
        ("ollama", "body"): TypeAdapter(ollama.ChatResponse),
    }


class _ByType:
    """A union of event types the SDK tells apart by ``type`` (its own
    discriminator, not pydantic's): each document validated as its member,
    so a failure names that member's field, not every member's."""

    def __init__(self, union: Any) -> None:
        members = typing.get_args(union)
        if members and not isinstance(members[0], type):  # Annotated[Union[...], ...]
            members = typing.get_args(members[0])
        self.members = {typing.get_args(member.model_fields["type"].annotation)[0]: member
                        for member in members}
        self.adapters: dict[str, Any] = {}  # made when first needed (a second each, in all)

    def validate_python(self, document: Any) -> Any:
        from pydantic import TypeAdapter

        kind = document.get("type") if isinstance(document, dict) else None
        if kind not in self.members:
            raise ValueError(f"no SDK event type {kind!r}")
        if kind not in self.adapters:
            self.adapters[kind] = TypeAdapter(self.members[kind])
        return self.adapters[kind].validate_python(document)


def frames(target: str, form: str, written: bytes, *, array: bool = False) -> list[Any]:
    """The JSON documents of ``written``: the body, each SSE event's data, each
    NDJSON line, each element of Gemini's array (``[DONE]`` left out)."""
    if form == "body" or array:
        document = json.loads(written)
        return document if array else [document]
    if target == "ollama":
        return [json.loads(line) for line in written.split(b"\n") if line.strip()]
    documents = []
    for event in written.replace(b"\r\n", b"\n").split(b"\n\n"):
        data = b"\n".join(line[5:].removeprefix(b" ") for line in event.split(b"\n")
                          if line.startswith(b"data:"))
        if data and data != b"[DONE]":
            documents.append(json.loads(data))
    return documents


def invalid_for_sdk(target: str, form: str, written: bytes, *, array: bool = False) -> str:
    """Why a frame of ``written`` is not the SDK's type ("": every one is)."""
    adapter = sdk_types()[(target, form)]
    try:
        documents = frames(target, form, written, array=array)
    except ValueError as error:
        return f"not JSON: {error}"[:300]
    for document in documents:
        if form == "stream" and isinstance(document, dict) and document.get("error"):
            # the wire's in-stream error: no SDK chunk type, a message it reads
            if _error_message(document) is None:
                return f"an error frame with no message: {json.dumps(document)[:200]}"
            continue
        try:
            adapter.validate_python(document)
        except ValidationError as error:
            errors = [each for each in error.errors() if not _newer_usage_field(each)]
            if errors:
                return f"{errors[:3]!r}"[:400] + f" in {json.dumps(document)[:200]}"
        except ValueError as error:
            return f"{str(error)[:300]} in {json.dumps(document)[:200]}"
    return ""


def _newer_usage_field(error: Any) -> bool:
    """A usage field the SDK's type requires and the API itself leaves out
    (the openai SDK's ``input_tokens_details.cache_write_tokens``; the SDK
    builds its objects without validating, so it reads them)."""
    return error["type"] == "missing" and "usage" in error["loc"]


def _error_message(document: dict[str, Any]) -> str | None:
    """The message of an error frame (Ollama's ``error`` is the message itself)."""
    error = document["error"]
    message = error.get("message") if isinstance(error, dict) else error
    return message if isinstance(message, str) else None


def check_with_sdk(case: EncoderCase, server: Any, clients: dict[str, Any]) -> Outcome:
    """A stream case read by its wire's official SDK over a socket
    (``support.sdk_stream_readers``): the same text, reasoning and calls (name
    and arguments: not every wire keeps call ids), or the SDK's own error for
    a stream ending in one. ``SdkCannotRead``: Anthropic's stream helper
    refuses a lone surrogate's escape in tool arguments (jiter), a limit of
    the SDK (``providers/test_encode_hostile_text.py``), counted apart."""
    from support.sdk_stream_readers import READERS, Raised

    if case.form != "stream" or case.array or not case.written:
        return Outcome("ok", "")
    if case.target == "anthropic" and _lone_surrogate_in_arguments(case.response):
        return Outcome("ok", "SdkCannotRead")
    ends_in_error = any(type(event) is ErrorEvent for event in case.events)
    try:
        summary = READERS[case.target](server, clients, f"e{case.number}", case.written)
    except Raised as error:
        if ends_in_error:
            return Outcome("error", "SdkRaised")
        return Outcome("violation", "SdkFailed", case.target, str(error.error)[:300])
    except Exception as error:
        return Outcome("violation", "SdkFailed", case.target,
                       f"{type(error).__name__}: {str(error)[:300]}")
    if ends_in_error:
        return Outcome("violation", "SdkMissedTheError", case.target, repr(summary)[:300])
    want, got = normal(_expected(case)), normal(summary)
    for key, wrote, read in (
            ("text", want["text"], got["text"]),
            ("reasoning", want["reasoning"], got["reasoning"]),
            ("calls", [call[1:] for call in want["calls"]], [call[1:] for call in got["calls"]])):
        if wrote != read:
            return Outcome("violation", "SdkChanged", f"{case.target} {key}",
                           f"wrote {wrote!r}, the SDK read {read!r}"[:400])
    return Outcome("ok", "")


def _lone_surrogate_in_arguments(response: ChatResponse) -> bool:
    """Whether a call's arguments hold a surrogate no other one pairs with."""
    text = normal(json.dumps([json.loads(call.input) for call in response.tool_calls],
                             ensure_ascii=False))
    return any(0xD800 <= ord(char) <= 0xDFFF for char in text)


@contextlib.contextmanager
def sdk_readers() -> Iterator[tuple[Any, dict[str, Any]]]:
    """A replay server in a thread and one sync client per SDK, as
    ``support.sdk_stream_readers`` reads with (``providers/conftest.py`` makes
    the same for its tests)."""
    import anthropic
    import openai
    from google import genai

    from streamkit.testing import ReplayServer

    with ReplayServer.in_thread() as server:
        clients = {
            "openai": openai.OpenAI(base_url=server.url, api_key="k", max_retries=0),
            "anthropic": anthropic.Anthropic(base_url=server.url, api_key="k", max_retries=0),
            "gemini": genai.Client(api_key="k", http_options=genai.types.HttpOptions(
                base_url=server.url, api_version="v1beta",
                retry_options=genai.types.HttpRetryOptions(attempts=1)))}
        try:
            yield server, clients
        finally:
            for client in clients.values():
                client.close()
