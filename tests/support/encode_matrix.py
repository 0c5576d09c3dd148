"""The cross-wire encoding matrix's machinery: which wire each recording is in,
its parse (:func:`parsed`), the *portable summary* every wire says in some form
(:func:`portable_summary`), and each target wire's documented losses
(:data:`LOSSES` for streams, :data:`BODY_LOSSES` for non-streamed bodies), so
that :func:`expected` gives what a target must give back of a source without
ever reading the target's output.

``providers/test_encode_matrix.py`` runs it through streamkit's own reader,
``providers/test_encode_sdks.py`` through each wire's official SDK
(``support.sdk_stream_readers``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from streamkit import ChatResponse, FinishReason, TextBlock, replay
from streamkit.model.blocks import Base64Source, pcm_format
from streamkit.model.events import BlockEnd, ErrorEvent, Event
from streamkit.providers.encoder import input_tokens_for
from streamkit.providers.wire_format import wire_format
from support.comparing import fresh_ids
from support.recordings import FIXTURES, body, fixture_id, recordings

#: The five wires, each with the registry name of its own provider.
TARGETS = {"openai-chat": "openai", "openai-responses": "openai-responses",
           "anthropic": "anthropic", "gemini": "gemini", "ollama": "ollama"}
#: The OpenAI-compatible vendors a recording's file name may name
#: (as providers/openai_chat/test_encode.py).
VENDORS = ("deepseek", "openrouter", "qwen", "groq", "mistral")


def source_wire(path: Path) -> str:
    """The wire a recording is in: its folder, or an edge / synthetic file's prefix."""
    folder = path.relative_to(FIXTURES).parts[0]
    if folder == "openai-compatible":
        return "openai-chat"
    if folder in ("edge", "synthetic"):
        return next(wire for wire in ("openai-responses", "openai-chat", "anthropic", "gemini",
                                      "ollama") if path.name.startswith(wire + "-"))
    return folder


def source_provider(path: Path) -> str:
    """The registry name a recording is read with: its vendor's for an OpenAI Chat one."""
    wire = source_wire(path)
    if wire == "openai-chat" and path.relative_to(FIXTURES).parts[0] != "openai-responses":
        return next((name for name in VENDORS if name in path.name), "openai")
    return TARGETS[wire]


RECORDINGS = recordings()


@dataclass(frozen=True)
class Source:
    """One parsed recording: its events, its response and what the losses look at."""

    name: str
    wire: str
    events: list[Event]
    response: ChatResponse

    @property
    def choices(self) -> int:
        return len({getattr(event, "choice", 0) for event in self.events})

    @property
    def call_end_order(self) -> list[str]:
        """The ids of choice 0's calls in the order their blocks ended."""
        ids = {index: block.id for index, block in enumerate(self.response.content)}
        return [ids[event.index] for event in self.events
                if type(event) is BlockEnd and event.choice == 0 and event.index in ids]


@cache
def parsed(path: Path) -> Source:
    with fresh_ids():
        events, response = replay(body(path), source_provider(path), on_error="return")
    return Source(fixture_id(path), source_wire(path), events, response)


# ---------------------------------------------------------------- the portable summary


def arguments_of(input_text: str) -> Any:
    """Tool arguments as compared: the JSON value, or the text marked as not JSON."""
    try:
        return json.loads(input_text)
    except ValueError:
        return ("not JSON", input_text)


def portable_summary(response: ChatResponse, events: list[Event], *, counted_as: str,
                     wire: str | None) -> dict[str, Any]:
    """What crosses wires: text, reasoning, refusal, calls (id, name, parsed
    arguments), the uniform finish reason, the token counts (input counted as
    the ``counted_as`` wire counts it, from a response read from ``wire``),
    media (type and bytes) and the in-stream error's message."""
    usage = response.usage
    includes_cache = wire_format(counted_as).usage_fields.input_includes_cache
    errors = [event.message for event in events if type(event) is ErrorEvent]
    return {
        "text": response.text, "reasoning": response.thinking, "refusal": response.refusal,
        "calls": [(call.id, call.name, arguments_of(call.input)) for call in response.tool_calls],
        "finish": response.finished_reason,
        "output_tokens": None if usage is None else usage.output_tokens,
        "input_tokens": None if usage is None else input_tokens_for(
            usage, includes_cache=includes_cache),
        "data": [(block.media_type, block.source.raw if isinstance(block.source, Base64Source)
                  else block.source.url) for block in response.data_blocks],
        "error": errors[0] if errors else None,
    }


# ---------------------------------------------------------------- the losses, one each

Summary = dict[str, Any]


def refusal_is_text(summary: Summary, source: Source) -> Summary:
    """No refusal kind: the refusal is answer text, in block order."""
    text = "".join(block.text for block in source.response.content if type(block) is TextBlock)
    return {**summary, "text": text, "refusal": None}


def _finish(table: dict[FinishReason, FinishReason]) -> Callable[[Summary, Source], Summary]:
    def finish_without_a_word(summary: Summary, source: Source) -> Summary:
        return {**summary, "finish": table.get(summary["finish"], summary["finish"])}
    return finish_without_a_word


def calls_finish_as_tool_calls(summary: Summary, source: Source) -> Summary:
    """No word for "stopped to call tools": the reader says ``tool_calls`` when
    the answer holds a call."""
    if summary["finish"] is FinishReason.STOP and summary["calls"]:
        return {**summary, "finish": FinishReason.TOOL_CALLS}
    return summary


def cut_stream_loses_its_finish(summary: Summary, source: Source) -> Summary:
    """The finish word comes on the end event only, which a cut stream lacks."""
    if source.response.terminated or summary["finish"] is FinishReason.ERROR:
        return summary
    return {**summary, "finish": FinishReason.UNKNOWN}


def cut_stream_loses_its_usage(summary: Summary, source: Source) -> Summary:
    """The counts come on the end event only, which a cut stream lacks."""
    if source.response.terminated:
        return summary
    return {**summary, "input_tokens": None, "output_tokens": None}


def cut_answer_is_in_progress(summary: Summary, source: Source) -> Summary:
    """A body of an answer whose end was not seen says ``in_progress``: no finish."""
    if source.response.terminated:
        return summary
    return {**summary, "finish": FinishReason.UNKNOWN}


def usage_always_written(summary: Summary, source: Source) -> Summary:
    """Every answer has a usage: none at all is 0 in, 0 out."""
    if summary["output_tokens"] is None:
        return {**summary, "input_tokens": 0, "output_tokens": 0}
    return summary


def server_tool_calls_dropped(summary: Summary, source: Source) -> Summary:
    """Calls another provider ran itself have no answer to follow here."""
    server = {call.id for call in source.response.tool_calls if call.server_side}
    return {**summary, "calls": [call for call in summary["calls"] if call[0] not in server]}


def call_ids_made_up(summary: Summary, source: Source) -> Summary:
    """The call ids are not written: the reader makes them up (not compared)."""
    return {**summary, "calls": [(None, name, arguments) for _, name, arguments in
                                 summary["calls"]]}


def calls_written_when_they_end(summary: Summary, source: Source) -> Summary:
    """A call is written whole when its block ends: interleaved calls come in that order."""
    order = source.call_end_order
    return {**summary, "calls": sorted(summary["calls"], key=lambda call: order.index(call[0]))}


def arguments_not_an_object_become_empty(summary: Summary, source: Source) -> Summary:
    """Arguments are a JSON object on this wire: cut-off or other JSON is ``{}``."""
    return {**summary, "calls": [(id_, name, arguments if type(arguments) is dict else {})
                                 for id_, name, arguments in summary["calls"]]}


def cut_off_arguments_become_empty(summary: Summary, source: Source) -> Summary:
    """A body holds arguments as a JSON object: cut-off ones (or not an object) are ``{}``."""
    cut = {call.id for call in source.response.tool_calls if call.incomplete}
    return {**summary, "calls": [(id_, name, {} if id_ in cut or type(arguments) is not dict
                                  else arguments) for id_, name, arguments in summary["calls"]]}


def media_dropped(summary: Summary, source: Source) -> Summary:
    """No media in an answer."""
    return {**summary, "data": []}


def media_but_one_audio_dropped(summary: Summary, source: Source) -> Summary:
    """Only the answer's first audio, as OpenAI's 16-bit PCM (``audio/pcm;rate=``)."""
    audio = [(media, raw) for media, raw in summary["data"] if media.startswith("audio/")]
    return {**summary, "data": [_as_openai_pcm(media, raw) for media, raw in audio[:1]]}


def images_of_another_wire_dropped(summary: Summary, source: Source) -> Summary:
    """Images only as this wire's own image generation; audio as 16-bit PCM."""
    return {**summary, "data": [_as_openai_pcm(media, raw) for media, raw in summary["data"]
                                if media.startswith("audio/")]}


def media_but_final_generated_images_dropped(summary: Summary, source: Source) -> Summary:
    """A body holds an image generation's final image only: no audio, no partial images."""
    final = [(block.media_type, block.source.raw) for block in source.response.data_blocks
             if isinstance(block.source, Base64Source) and block.media_type.startswith("image/")
             and not block.metadata.get("partial") and source.wire == "openai-responses"]
    return {**summary, "data": final}


def _as_openai_pcm(media: str, raw: Any) -> tuple[str, Any]:
    pcm = pcm_format(media)
    return (f"audio/pcm;rate={pcm.rate}" if pcm is not None else media), raw


@dataclass(frozen=True)
class Loss:
    """One thing a wire cannot hold: the function that applies it, the sentence
    the docs print, and whether it touches the wire's own answers too."""

    apply: Callable[[Summary, Source], Summary]
    says: str
    own_too: bool = False


_F = FinishReason
_STOPS = {_F.REFUSAL: _F.STOP, _F.PAUSE: _F.STOP, _F.INTERRUPTED: _F.STOP}

#: What each wire cannot hold, for streams: applied in order to the source's summary.
LOSSES: dict[str, list[Loss]] = {
    "openai-chat": [
        Loss(server_tool_calls_dropped, "server tool calls"),
        Loss(_finish(_STOPS), "refusal, pause finish -> stop"),
        Loss(media_but_one_audio_dropped, "media but one audio"),
    ],
    "openai-responses": [
        Loss(server_tool_calls_dropped, "server tool calls"),
        Loss(_finish({_F.REFUSAL: _F.STOP, _F.PAUSE: _F.STOP}), "refusal, pause finish -> stop"),
        Loss(calls_finish_as_tool_calls, "stop with calls -> tool_calls", own_too=True),
        Loss(cut_stream_loses_its_finish, "a cut stream's finish"),
        Loss(cut_stream_loses_its_usage, "a cut stream's usage"),
        Loss(images_of_another_wire_dropped, "images"),
    ],
    "anthropic": [
        Loss(refusal_is_text, "refusal as its own kind (text)"),
        Loss(_finish({_F.CONTENT_FILTER: _F.REFUSAL, _F.INTERRUPTED: _F.STOP}),
             "content filter -> refusal"),
        Loss(usage_always_written, "no usage -> 0 / 0"),
        Loss(arguments_not_an_object_become_empty, "arguments not a JSON object -> {}"),
        Loss(media_dropped, "media"),
    ],
    "gemini": [
        Loss(server_tool_calls_dropped, "server tool calls"),
        Loss(refusal_is_text, "refusal as its own kind (text)"),
        Loss(_finish({_F.REFUSAL: _F.CONTENT_FILTER, _F.PAUSE: _F.STOP,
                      _F.INTERRUPTED: _F.UNKNOWN}),
             "refusal -> content_filter; pause -> stop"),
        Loss(calls_finish_as_tool_calls, "stop with calls -> tool_calls"),
        Loss(cut_stream_loses_its_finish, "a cut stream's finish"),
        Loss(calls_written_when_they_end, "call order (as they end)"),
        Loss(call_ids_made_up, "call ids (made up)"),
        Loss(arguments_not_an_object_become_empty, "arguments not a JSON object -> {}"),
    ],
    "ollama": [
        Loss(server_tool_calls_dropped, "server tool calls"),
        Loss(refusal_is_text, "refusal as its own kind (text)"),
        Loss(_finish({_F.REFUSAL: _F.STOP, _F.CONTENT_FILTER: _F.STOP, _F.PAUSE: _F.STOP,
                      _F.INTERRUPTED: _F.STOP}),
             "refusal, content filter, pause -> stop"),
        Loss(calls_finish_as_tool_calls, "stop with calls -> tool_calls", own_too=True),
        Loss(cut_stream_loses_its_finish, "a cut stream's finish", own_too=True),
        Loss(cut_stream_loses_its_usage, "a cut stream's usage", own_too=True),
        Loss(calls_written_when_they_end, "call order (as they end)", own_too=True),
        Loss(arguments_not_an_object_become_empty, "arguments not a JSON object -> {}",
             own_too=True),
        Loss(media_dropped, "media", own_too=True),
    ],
}

#: What the wire can say only in a stream, and what a body cannot hold besides.
_STREAM_ONLY = {calls_written_when_they_end, cut_stream_loses_its_finish,
                cut_stream_loses_its_usage}


def _body_losses(target: str) -> list[Loss]:
    kept = [loss for loss in LOSSES[target] if loss.apply not in _STREAM_ONLY]
    if target == "openai-chat":  # the SDK's body type requires a finish word
        kept.append(Loss(_finish({_F.UNKNOWN: _F.STOP}), "unknown finish -> stop (body)"))
    if target in ("anthropic", "ollama"):  # a body's arguments are an object, whole
        kept.append(Loss(cut_off_arguments_become_empty, "cut-off arguments -> {}",
                         own_too=True))
    if target == "openai-responses":
        kept = [loss if loss.apply is not images_of_another_wire_dropped else
                Loss(media_but_final_generated_images_dropped, "media but final images",
                     own_too=True)
                for loss in kept] + [Loss(cut_answer_is_in_progress, "a cut answer's finish",
                                          own_too=True)]
    return kept


#: What each wire cannot hold in a non-streamed body.
BODY_LOSSES: dict[str, list[Loss]] = {target: _body_losses(target) for target in TARGETS}

#: Wires whose answer is one choice: a source with more is refused, naming the wire.
ONE_CHOICE = {"openai-responses", "anthropic", "ollama"}


def expected(source: Source, target: str, losses: dict[str, list[Loss]]) -> Summary:
    """The source's summary as the target must give it back: its losses applied."""
    summary = portable_summary(source.response, source.events, counted_as=target,
                               wire=source.wire)
    own = source.wire == target
    for loss in losses[target]:
        if loss.own_too or not own:
            summary = loss.apply(summary, source)
    return summary
