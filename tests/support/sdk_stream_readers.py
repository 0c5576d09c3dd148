"""Each wire's official SDK reading a stream served over a real socket, into
the encoding matrix's summary (``support.encode_matrix``): ``READERS[wire](server,
clients, case, encoded)`` serves ``encoded`` at a path of its own (``case``) on a
:class:`~streamkit.testing.ThreadedReplayServer` and reads it with that wire's
sync client (``clients``: the ``clients`` fixture of ``providers/conftest.py``):

* ``openai-chat``: openai ``chat.completions.stream()``;
* ``openai-responses``: openai ``responses.stream()``;
* ``anthropic``: anthropic ``messages.stream()`` (``beta=True``: the beta client);
* ``gemini``: google-genai ``models.generate_content_stream`` (``v1beta``);
* ``ollama``: ollama ``Client.chat(stream=True)``.

A stream that ends in an error makes the SDK raise its own error: :class:`Raised`
carries it with the text the SDK gave before it. :func:`openai_chat_final` and
:func:`anthropic_final` give the whole answer the async clients' stream helpers
end with.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import anthropic
import ollama
import openai
from google.genai import errors as genai_errors

from streamkit import FinishReason
from streamkit.providers.anthropic.wire import FINISH_REASONS as ANTHROPIC_WORDS
from streamkit.providers.gemini.wire import map_finish_reason as gemini_finish
from streamkit.providers.ollama.wire import map_done_reason as ollama_finish
from streamkit.providers.openai_chat.wire import FINISH_REASONS as CHAT_WORDS
from streamkit.providers.openai_responses.wire import FINISH_REASONS as RESPONSES_WORDS
from streamkit.testing import ReplayServer, ThreadedReplayServer
from support.comparing import paired
from support.encode_matrix import Summary, arguments_of


class Raised(Exception):
    """What an SDK raised on a failed stream, with the text it gave before."""

    def __init__(self, error: Exception, text: str) -> None:
        super().__init__(str(error))
        self.error = error
        self.text = text


# ---------------------------------------------------------------- each SDK, read into a summary


def read_openai_chat(server: ThreadedReplayServer, clients: dict[str, Any], case: str,
                      encoded: bytes) -> Summary:
    server.add(f"/{case}/v1/chat/completions", encoded, chunk_size=97)
    client = clients["openai"].with_options(base_url=f"{server.url}/{case}/v1")
    text = ""
    try:
        with client.chat.completions.stream(
                model="m", messages=[{"role": "user", "content": "hi"}]) as stream:
            for event in stream:
                if event.type == "content.delta":
                    text += event.delta
            final = stream.get_final_completion()
    except (openai.LengthFinishReasonError, openai.ContentFilterFinishReasonError) as error:
        final = error.completion  # the helper refuses to parse a cut answer: it read it
    except openai.APIError as error:
        raise Raised(error, text) from error
    choice = final.choices[0]
    message = choice.message
    usage = final.usage
    finish = _word(CHAT_WORDS, choice.finish_reason)
    if finish is FinishReason.STOP and message.refusal and not message.content \
            and not message.tool_calls:
        finish = FinishReason.REFUSAL  # the wire's rule: a stop with nothing but a refusal
    return {
        "text": message.content or "", "reasoning": getattr(message, "reasoning_content", None)
        or "", "refusal": message.refusal,
        "calls": [(call.id, call.function.name, arguments_of(call.function.arguments))
                  for call in message.tool_calls or []],
        "finish": finish,
        "output_tokens": None if usage is None else usage.completion_tokens,
        "input_tokens": None if usage is None else usage.prompt_tokens,
    }


def read_openai_responses(server: ThreadedReplayServer, clients: dict[str, Any], case: str,
                           encoded: bytes) -> Summary:
    server.add(f"/{case}/v1/responses", encoded, chunk_size=97)
    client = clients["openai"].with_options(base_url=f"{server.url}/{case}/v1")
    text, refusal, reasoning, final = "", "", "", None
    arguments: dict[str, str] = {}
    calls: dict[str, tuple[str, str]] = {}
    try:
        with client.responses.stream(model="m", input="hi") as stream:
            for event in stream:
                if event.type == "response.output_text.delta":
                    text += event.delta
                elif event.type == "response.refusal.delta":
                    refusal += event.delta
                elif event.type in ("response.reasoning_summary_text.delta",
                                    "response.reasoning_text.delta"):
                    reasoning += event.delta
                elif event.type == "response.output_item.added" and \
                        event.item.type == "function_call":
                    calls[event.item.id or event.item.call_id] = (event.item.call_id,
                                                                 event.item.name)
                    arguments[event.item.id or event.item.call_id] = event.item.arguments
                elif event.type == "response.function_call_arguments.delta":
                    arguments[event.item_id] += event.delta
                elif event.type in ("response.completed", "response.incomplete",
                                    "response.failed"):
                    final = event.response
    except openai.APIError as error:
        raise Raised(error, text) from error
    if final is None:  # a cut stream: what its events gave
        return {"text": text, "reasoning": reasoning, "refusal": refusal or None,
                "calls": [(call_id, name, arguments_of(arguments[key]))
                          for key, (call_id, name) in calls.items()],
                "finish": FinishReason.UNKNOWN, "output_tokens": None, "input_tokens": None}
    texts, refusals, thoughts, raw_calls = responses_output(final)
    done_calls = [(call_id, name, arguments_of(raw)) for call_id, name, raw in raw_calls]
    # the events and the final response agree (a pair split across two deltas
    # is two lone halves there and one character here)
    assert paired("".join(texts)) == paired(text)
    word = final.incomplete_details.reason if final.incomplete_details else final.status
    finish = _word(RESPONSES_WORDS, word)
    if finish is FinishReason.STOP and done_calls:
        finish = FinishReason.TOOL_CALLS  # the reader's rule: completed with calls
    usage = final.usage
    return {"text": "".join(texts), "reasoning": "".join(thoughts),
            "refusal": "".join(refusals) or None, "calls": done_calls, "finish": finish,
            "output_tokens": None if usage is None else usage.output_tokens,
            "input_tokens": None if usage is None else usage.input_tokens}


def responses_output(final: Any) -> tuple[list[str], list[str], list[str],
                                           list[tuple[str, str, str]]]:
    """What the openai SDK's final Responses object holds, item by item: the
    output texts, the refusals, the reasoning (summaries and texts) and the
    calls as (call id, name, raw argument text), custom tools' input included."""
    texts: list[str] = []
    refusals: list[str] = []
    thoughts: list[str] = []
    calls: list[tuple[str, str, str]] = []
    for item in final.output:
        if item.type == "message":
            texts += [part.text for part in item.content if part.type == "output_text"]
            refusals += [part.refusal for part in item.content if part.type == "refusal"]
        elif item.type == "reasoning":
            thoughts += [part.text for part in item.summary]
            thoughts += [part.text for part in item.content or ()]
        elif item.type == "function_call":
            calls.append((item.call_id, item.name, item.arguments))
        elif item.type == "custom_tool_call":
            calls.append((item.call_id, item.name, item.input))
    return texts, refusals, thoughts, calls


def read_anthropic(server: ThreadedReplayServer, clients: dict[str, Any], case: str,
                    encoded: bytes, *, beta: bool = False) -> Summary:
    server.add(f"/{case}/v1/messages", encoded, chunk_size=97)
    client = clients["anthropic"].with_options(base_url=f"{server.url}/{case}")
    messages = client.beta.messages if beta else client.messages
    text = ""
    partial_json: dict[int, str] = {}
    try:
        with messages.stream(model="m", max_tokens=64,
                             messages=[{"role": "user", "content": "hi"}]) as stream:
            for event in stream:
                if event.type == "text":
                    text += event.text
                elif event.type == "content_block_delta" and \
                        event.delta.type == "input_json_delta":
                    partial_json[event.index] = partial_json.get(event.index, "") + \
                        event.delta.partial_json
            final = stream.get_final_message()
    except anthropic.APIError as error:
        raise Raised(error, text) from error
    calls = []
    for index, block in enumerate(final.content):
        if block.type in ("tool_use", "server_tool_use", "mcp_tool_use"):
            # the SDK's ``input`` when the streamed arguments are a whole JSON
            # object; else the arguments as streamed (its ``input`` is then its
            # partial reading of them, a dict even of cut-off JSON)
            streamed = partial_json.get(index)
            whole = streamed is None or isinstance(arguments_of(streamed), dict)
            calls.append((block.id, block.name, block.input if whole
                          else arguments_of(streamed or "")))
    return {
        "text": "".join(block.text for block in final.content if block.type == "text"),
        "reasoning": "".join(block.thinking for block in final.content
                             if block.type == "thinking"),
        "refusal": None, "calls": calls,
        "finish": _word(ANTHROPIC_WORDS, final.stop_reason),
        "output_tokens": final.usage.output_tokens, "input_tokens": final.usage.input_tokens,
    }


def read_gemini(server: ThreadedReplayServer, clients: dict[str, Any], case: str,
                 encoded: bytes) -> Summary:
    server.add(f"/v1beta/models/{case}:streamGenerateContent", encoded, chunk_size=97)
    text, thought, calls, word, usage = "", "", [], None, None
    try:
        for chunk in clients["gemini"].models.generate_content_stream(model=case,
                                                                       contents="hi"):
            usage = chunk.usage_metadata or usage
            for candidate in chunk.candidates or []:
                if candidate.index not in (None, 0):
                    continue
                word = candidate.finish_reason or word
                for part in (candidate.content.parts or []) if candidate.content else []:
                    call = part.function_call
                    if call is not None and call.name is not None:
                        calls.append((None, call.name, call.args or {}))
                    if call is not None and call.partial_args:  # Vertex's streamed arguments
                        _place(calls[-1][2], call.partial_args)
                    elif part.text and part.thought:
                        thought += part.text
                    elif part.text:
                        text += part.text
    except genai_errors.APIError as error:
        raise Raised(error, text) from error
    return {
        "text": text, "reasoning": thought, "refusal": None, "calls": calls,
        "finish": FinishReason.UNKNOWN if word is None
        else gemini_finish(word.value, tool_calls=bool(calls)),
        "output_tokens": None if usage is None else usage.candidates_token_count,
        "input_tokens": None if usage is None else usage.prompt_token_count,
    }


def _place(arguments: dict[str, Any], partial_args: list[Any]) -> None:
    """Vertex's streamed arguments as google-genai gives them (``partial_args``:
    a JSON path and a value each; a string's pieces share their path) set
    into the call's ``arguments``."""
    for partial in partial_args:
        steps = [int(step) if step.isdigit() else step for step in
                 partial.json_path.removeprefix("$.").replace("[", ".").replace("]", "")
                 .split(".")]
        holder: Any = arguments
        for step, following in itertools.pairwise(steps):
            if isinstance(holder, list):
                holder.extend([None] * (step + 1 - len(holder)))
                holder[step] = holder[step] if holder[step] is not None else \
                    ([] if isinstance(following, int) else {})
            else:
                holder = holder.setdefault(step, [] if isinstance(following, int) else {})
                continue
            holder = holder[step]
        last = steps[-1]
        value = next(value for value in (partial.string_value, partial.number_value,
                                         partial.bool_value) if value is not None) \
            if partial.null_value is None else None
        if isinstance(holder, list):
            holder.extend([None] * (last + 1 - len(holder)))
            holder[last] = value
        elif isinstance(value, str) and isinstance(holder.get(last), str):
            holder[last] += value
        else:
            holder[last] = value


def read_ollama(server: ThreadedReplayServer, clients: dict[str, Any], case: str,
                 encoded: bytes) -> Summary:
    server.add(f"/{case}/api/chat", encoded, content_type="application/x-ndjson",
               chunk_size=97)
    parts = []
    with ollama.Client(host=f"{server.url}/{case}") as client:
        try:
            for part in client.chat(model="m", messages=[{"role": "user", "content": "hi"}],
                                    stream=True):
                parts.append(part)
        except ollama.ResponseError as error:
            raise Raised(error, "".join(part.message.content or "" for part in parts)) \
                from error
    calls = [(None, call.function.name, dict(call.function.arguments))
             for part in parts for call in part.message.tool_calls or []]
    last = parts[-1]
    return {
        "text": "".join(part.message.content or "" for part in parts),
        "reasoning": "".join(part.message.thinking or "" for part in parts),
        "refusal": None, "calls": calls,
        "finish": ollama_finish(last.done_reason if last.done else None,
                                tool_calls=bool(calls)),
        "output_tokens": last.eval_count, "input_tokens": last.prompt_eval_count,
    }


def _word(table: dict[str, FinishReason] | Any, word: str | None) -> FinishReason:
    """The uniform reason for the SDK's finish word, by the wire's own table
    (no word: ``unknown``, as a cut stream's)."""
    if word is None:
        return FinishReason.UNKNOWN
    return table.get(word, FinishReason.UNKNOWN)  # type: ignore[no-any-return]


READERS: dict[str, Callable[[ThreadedReplayServer, dict[str, Any], str, bytes], Summary]] = {
    "openai-chat": read_openai_chat, "openai-responses": read_openai_responses,
    "anthropic": read_anthropic, "gemini": read_gemini, "ollama": read_ollama,
}


# ---------------------------------------------------------------- whole answers, async


async def openai_chat_final(encoded: bytes) -> Any:
    """The completion openai's ``chat.completions.stream()`` ends with, reading ``encoded``."""
    async with ReplayServer() as server:
        server.add("/v1/chat/completions", encoded, chunk_size=37)
        client = openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
        try:
            async with client.chat.completions.stream(
                    model="m", messages=[{"role": "user", "content": "hi"}]) as stream:
                return await stream.get_final_completion()
        except (openai.LengthFinishReasonError, openai.ContentFilterFinishReasonError) as error:
            return error.completion  # the helper's refusal to parse a cut answer: it read it
        finally:
            await client.close()
            assert not server.errors


async def anthropic_final(encoded: bytes) -> Any:
    """The message anthropic's ``messages.stream()`` ends with, reading ``encoded``."""
    async with ReplayServer() as server:
        server.add("/v1/messages", encoded, chunk_size=37)
        client = anthropic.AsyncAnthropic(base_url=server.url, api_key="k", max_retries=0)
        try:
            async with client.messages.stream(
                    model="m", max_tokens=64,
                    messages=[{"role": "user", "content": "hi"}]) as stream:
                return await stream.get_final_message()
        finally:
            await client.close()
            assert not server.errors
