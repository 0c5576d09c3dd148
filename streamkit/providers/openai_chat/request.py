"""Chat Completions requests (``POST /v1/chat/completions``) for OpenAI and every
OpenAI-compatible dialect, both ways: :func:`build_request` writes the body
for a :class:`~streamkit.conversation.request.Request`, :func:`parse_request` reads a body
back into one, so that ``build_request(parse_request(body)) == body`` as data.

Messages (one wire message per streamkit message, except tool results):

====================================  ===========================================
streamkit                             Chat Completions
====================================  ===========================================
SystemMessage                         ``{"role": "system", "content"}`` (a string,
                                      or text parts); ``metadata["role"] =
                                      "developer"`` for a ``developer`` message
                                      (o-series): a body's role is kept, a new
                                      message is ``system``
UserMessage                           ``{"role": "user", "content", "name"?}``: a
                                      string, or parts (:mod:`.content`: text,
                                      ``image_url``, ``input_audio``, ``file``)
AssistantMessage / ChatResponse       ``{"role": "assistant", ...}`` (:mod:`.assistant`)
FunctionExecutionResultMessage        one ``{"role": "tool", "tool_call_id",
                                      "content"}`` per result (a string, or text
                                      parts), then, when results hold images,
                                      audio or files, ONE user message with them
====================================  ===========================================

A tool message takes only text, so what a tool returned besides text goes in
the user message that follows the tool messages (as the recorded clients do):
each such result's data is introduced by the text ``"Attached to the result of
tool call <id>:"``; a result with no text at all says so in its tool message
(:data:`SEE_NEXT_MESSAGE`). ``is_error`` has no field on this wire: the content
says what failed (:meth:`streamkit.conversation.tools.Tool.run_json` writes it so). A
result's ``name`` is not sent (a tool message has none); a call that came as
the legacy ``function_call`` is answered by a ``{"role": "function", "name",
"content"}`` message.

Top-level fields:

- ``model``, ``messages``, ``stream`` (when the Request says);
- ``tools`` and ``tool_choice``: :mod:`.tools`;
- structured output: ``json_output=True`` -> ``response_format: {"type":
  "json_object"}``; a :class:`~streamkit.conversation.request.JsonSchemaOutput` ->
  ``{"type": "json_schema", "json_schema": {"name", "schema", "strict"?,
  "description"?}}``;
- uniform options: ``max_tokens`` -> the dialect's budget field
  (``max_completion_tokens`` for OpenAI and Azure, whose newer models refuse
  ``max_tokens``; ``max_tokens`` elsewhere: the dialect's ``history`` rules in
  :mod:`.dialects`); a body with the other spelling keeps it: the option
  :data:`MAX_TOKENS_FIELD` names the field (consumed, never sent).
  ``include_usage`` -> ``stream_options.include_usage`` (only in a streaming
  request: OpenAI refuses ``stream_options`` otherwise).
  ``audio`` ({voice, format}) -> ``audio`` plus ``modalities: ["text",
  "audio"]`` unless given. ``temperature``, ``top_p``, ``stop``, ``seed``,
  ``reasoning_effort``, ``parallel_tool_calls`` have the wire's own names.
  ``thinking_budget`` -> the dialect's budget field (Qwen's
  ``thinking_budget``); OpenAI's own API takes it as the ``reasoning_effort`` it
  stands for (:func:`~streamkit.providers.options.budget_as_effort`); another
  dialect without a budget field refuses it (given by hand) or drops it with a
  warning (read from another wire), as it does ``include_thoughts``.
  ``include_thoughts`` has no Chat Completions switch (pass the vendor's own
  field, e.g. ``reasoning={...}`` for OpenRouter): given by hand it raises
  :class:`~streamkit.model.errors.UnsupportedFeatureError`, read from another wire's
  body it is dropped with a :class:`~streamkit.LossyTranslationWarning`. ``foreign_thinking``
  (``"text"`` / ``"drop"``) is the cross-provider policy of :mod:`.assistant`.
  Any other option goes through under its own name (``n``,
  ``frequency_penalty``, ``thinking``, ``chat_template_kwargs``...), unless
  another wire format's reader read it (``Request.options`` an
  :class:`~streamkit.model.extras.Extras` of another wire: a gateway's request): those
  options are that wire's words, and only the uniform ones are written.

Reading a body back keeps every field the model has no place for: unknown
top-level fields in ``options``, unknown message fields in the message's
``metadata`` (written back over the rebuilt message, see
:func:`.assistant.patch`), unknown part fields in the block's ``metadata``,
parts that would not write back exactly as RawBlocks, tool entries that would
not as the dicts they are (:mod:`.tools`). All of it is this wire's
:class:`~streamkit.model.extras.Extras` (``options`` itself is one), and the builder
writes only its own wire's extras or metadata set by hand
(:func:`~streamkit.model.extras.extras_for`): what an Anthropic or Gemini reader kept
never reaches a Chat Completions body. The ids the reader makes up are derived from the body, so two
reads of one body are ``==``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Final

from ...conversation.messages import (
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    Message,
    SystemMessage,
    UserContent,
    UserMessage,
)
from ...conversation.request import JsonSchemaOutput, Request
from ...model.blocks import DataBlock, TextBlock, ToolCallBlock
from ...model.errors import InvalidBodyError
from ...model.ids import StreamIds
from ...model.vendors import PROVIDERS
from ..cache_points import read_points
from ..coerce import Wire, check_uniform_options
from ..function_tools import read_schema_output, schema_fields
from ..lossless import put_back, take, take_list, unread, with_extras
from ..options import budget_as_effort, finished_body, prepared_options, refuse_or_drop, set_field
from ..tool_media import result_blocks
from ..turns import add_result, refuse_orphan_results, write_messages
from .assistant import RESERVED, assistant_message, patch, read_assistant
from .cache import MARKERS, check_markers, with_markers
from .content import data_part, own, read_text_part, read_user_part, text_part, user_part
from .dialects import DEFAULT, Dialect, HistoryRules, get_dialect
from .history import BuildContext
from .tools import read_tools, write_tools
from .wire import NAME

__all__ = [
    "MAX_TOKENS_FIELD",
    "SEE_NEXT_MESSAGE",
    "build_messages",
    "build_request",
    "parse_messages",
    "parse_request",
    "provider_name",
]

#: Option naming the body field of the output budget when it is not the
#: dialect's own (a body read back with the other spelling); never sent.
MAX_TOKENS_FIELD: Final = "max_tokens_field"
#: The content of a tool message whose result is only images, audio or files.
SEE_NEXT_MESSAGE: Final = "The result is attached to the next message."

_BUDGET_FIELDS: Final = ("max_tokens", "max_completion_tokens")  # reading order
_SPOKEN: Final = ["text", "audio"]


def provider_name(dialect: str | None) -> str:
    """The registry name a turn read from a body of ``dialect`` is attributed to:
    the first vendor of this wire that speaks it (``glm`` -> ``zai``; ``None``,
    OpenAI's own -> ``openai``), so that sending the turn back to any vendor of
    the same dialect keeps all of it. A dialect no vendor speaks keeps its name."""
    if dialect is None:
        return "openai"
    name = dialect.lower()
    return next((entry.name for entry in PROVIDERS.values()
                 if entry.wire == NAME and entry.dialect == name), name)


# ================================================================ build

def build_request(request: Request, dialect: str | None) -> dict[str, Any]:
    """The Chat Completions body for ``request`` (see the module docstring)."""
    target = get_dialect(dialect)
    rules = target.history
    refuse_orphan_results(request.messages, NAME)
    request = with_markers(request, rules)  # cache points, where the dialect takes them
    options, foreign_thinking = prepared_options(request, NAME, nulls=True)
    body: dict[str, Any] = {}
    if request.model is not None:
        body["model"] = request.model
    context = BuildContext(target, foreign_thinking)
    body["messages"] = build_messages(request.messages, context)
    write_tools(body, request)
    response_format = _response_format(request.json_output)
    if response_format is not None:
        body["response_format"] = response_format
    if request.stream is not None:
        body["stream"] = request.stream
    _write_options(body, options, target, rules, request.stream is True)
    body = finished_body(body, options, put=set_field)  # everything else, under its own name
    check_markers(body, request, rules)
    return body


def _write_options(body: dict[str, Any], options: dict[str, Any], target: Dialect,
                   rules: HistoryRules, streaming: bool) -> None:
    """The uniform options with a wire form of their own (consumed from ``options``)."""
    budget_field = options.pop(MAX_TOKENS_FIELD, rules.max_tokens_field)
    if "max_tokens" in options:
        body[budget_field] = options.pop("max_tokens")
    include_usage = options.pop("include_usage", None)
    if include_usage is not None and streaming:
        body["stream_options"] = {**options.pop("stream_options", {}),
                                  "include_usage": include_usage}
    if "audio" in options:
        body["audio"] = options.pop("audio")
        body["modalities"] = options.pop("modalities", list(_SPOKEN))
    if rules.thinking_budget_field is not None:
        if "thinking_budget" in options:
            body[rules.thinking_budget_field] = options.pop("thinking_budget")
    elif target is DEFAULT:
        budget_as_effort(options, NAME)  # reasoning_effort is OpenAI's word for it
    elif "thinking_budget" in options:
        refuse_or_drop(
            options, "thinking_budget", NAME,
            f"{target.name} has no reasoning budget field on Chat Completions: use "
            "reasoning_effort, or the vendor's own field",
            feature=f"thinking_budget ({target.name})")
    if "include_thoughts" in options:
        refuse_or_drop(
            options, "include_thoughts", NAME,
            "Chat Completions has no include_thoughts switch: pass the vendor's own field "
            "(OpenRouter reasoning={...}, Z.ai thinking={...})", feature="include_thoughts")


def _response_format(json_output: bool | JsonSchemaOutput | None) -> dict[str, Any] | None:
    if json_output is True:
        return {"type": "json_object"}
    if not isinstance(json_output, JsonSchemaOutput):
        return None
    return {"type": "json_schema", "json_schema": schema_fields(json_output, NAME)}


# ---------------------------------------------------------------- messages

def build_messages(messages: Sequence[Message], context: BuildContext) -> list[Wire]:
    """The ``messages`` array (one tool message per result)."""
    return write_messages(
        messages, system=_system, user=_user,
        assistant=lambda message: [assistant_message(message, context)],
        results=lambda message: _tool_results(message, context))


def _system(message: SystemMessage) -> Wire:
    content: str | list[Wire] = (message.content if isinstance(message.content, str)
                                 else [text_part(block) for block in message.content])
    wire: Wire = {"role": "system", "content": content}
    with_extras(wire, message.metadata, NAME, RESERVED)
    return wire


def _user(message: UserMessage) -> Wire:
    content: str | list[Wire] = message.content if isinstance(message.content, str) else [
        part for part in map(user_part, message.content) if part is not None]
    wire: Wire = {"role": "user", "content": content}
    if message.name is not None:
        wire["name"] = message.name
    with_extras(wire, message.metadata, NAME, RESERVED)
    return wire


def _tool_results(message: FunctionExecutionResultMessage, context: BuildContext) -> list[Wire]:
    """One tool message per result, then one user message with what the
    results held besides text."""
    out: list[Wire] = []
    attached: list[Wire] = []
    for result in message.content:
        if not isinstance(result.content, str):
            result = dataclasses.replace(result, content=result_blocks(result, data_part, NAME))
        out.append(_tool_message(result, context))
        data = [block for block in result.blocks if isinstance(block, DataBlock)]
        if data:
            attached.append({"type": "text",
                             "text": f"Attached to the result of tool call {result.call_id}:"})
            attached += [data_part(block) for block in data]
    if attached:
        out.append({"role": "user", "content": attached})
    return out


def _tool_message(result: FunctionExecutionResult, context: BuildContext) -> Wire:
    """The tool message of one result (its text; its data goes after)."""
    texts = [block for block in result.blocks if isinstance(block, TextBlock)]
    content: str | list[Wire]
    if isinstance(result.content, str):
        content = result.content
    elif texts:
        content = [text_part(block) for block in texts]
    else:
        content = SEE_NEXT_MESSAGE if result.blocks else ""
    legacy_name = context.legacy_calls.get(result.call_id)
    wire: Wire
    if legacy_name is not None:
        text = content if isinstance(content, str) else "".join(b.text for b in texts)
        wire = {"role": "function", "name": result.name or legacy_name, "content": text}
    else:
        wire = {"role": "tool", "tool_call_id": context.call_id(result.call_id),
                "content": content}
    with_extras(wire, result.metadata, NAME, RESERVED)
    return wire


# ================================================================ parse

def parse_request(body: dict[str, Any], dialect: str | None) -> Request:
    """The :class:`~streamkit.conversation.request.Request` a Chat Completions body stands for."""
    if not isinstance(body, dict):
        raise InvalidBodyError(f"a Chat Completions request is a JSON object, not "
                               f"{type(body).__name__}", wire=NAME)
    target = get_dialect(dialect)
    rules = target.history
    rest = dict(body)
    request = Request(messages=[], model=take(rest, "model", str, NAME))
    messages = take_list(rest, "messages", NAME)
    context = BuildContext(target)
    context.ids = StreamIds.of_body(body)
    request.messages = parse_messages(messages, context, provider_name(dialect))
    read_tools(rest, request)
    _read_response_format(rest, request)
    request.stream = take(rest, "stream", bool, NAME)
    options = own()
    _read_options(rest, options, rules, request.stream is True)
    options.update(rest)
    check_uniform_options(options, NAME, {
        "max_tokens": options.get(MAX_TOKENS_FIELD, rules.max_tokens_field),
        "thinking_budget": rules.thinking_budget_field or "thinking_budget",
        "include_usage": "stream_options.include_usage"})
    request.options = options
    read_points(request, MARKERS)  # cache_control markers (LiteLLM's, OpenRouter's): .cache
    return request


def _read_options(rest: dict[str, Any], options: dict[str, Any], rules: HistoryRules,
                  streaming: bool) -> None:
    """The uniform options with a wire form of their own (consumed from ``rest``)."""
    # ``max_tokens`` is read first whenever present: left in ``rest`` it would
    # become the uniform option; a second budget field stays under its own name
    field = next((name for name in _BUDGET_FIELDS if name in rest), None)
    if field is not None:
        options["max_tokens"] = rest.pop(field)
        if field != rules.max_tokens_field:
            options[MAX_TOKENS_FIELD] = field
    stream_options = rest.get("stream_options")
    if streaming and isinstance(stream_options, dict) \
            and isinstance(stream_options.get("include_usage"), bool):
        options["include_usage"] = stream_options["include_usage"]
        put_back(rest, "stream_options",
                 {k: v for k, v in stream_options.items() if k != "include_usage"})
    if "audio" in rest and rest.get("modalities") == _SPOKEN:
        del rest["modalities"]  # implied by the audio option
    budget = rules.thinking_budget_field
    if budget is not None and budget in rest:
        options["thinking_budget"] = rest.pop(budget)


def _read_response_format(rest: dict[str, Any], request: Request) -> None:
    given = rest.get("response_format")
    if given == {"type": "json_object"}:
        request.json_output = True
        del rest["response_format"]
        return
    schema = given.get("json_schema") if isinstance(given, dict) else None
    output = read_schema_output(schema, NAME) if isinstance(schema, dict) else None
    if output is not None and _response_format(output) == given:
        request.json_output = output
        del rest["response_format"]


# ---------------------------------------------------------------- messages

def parse_messages(items: list[Any], context: BuildContext, provider: str) -> list[Message]:
    """The ``messages`` array as streamkit messages (consecutive tool messages
    are one :class:`~streamkit.conversation.messages.FunctionExecutionResultMessage`);
    assistant turns are attributed to ``provider``; made-up ids come from
    ``context.ids``."""
    out: list[Message] = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise InvalidBodyError(f"message {index} is not an object: {str(item)[:200]}",
                                   wire=NAME, where=f"messages[{index}]")
        role = item.get("role")
        if role in ("tool", "function"):
            add_result(out, _read_tool_message(item, context), NAME)
        elif role == "assistant":
            message = read_assistant(item, context, provider)
            for block in message.blocks:
                if isinstance(block, ToolCallBlock) and block.metadata.get("legacy"):
                    context.legacy_calls[block.id] = block.name
            out.append(message)
        elif role in ("system", "developer"):
            out.append(_read_system(item, context))
        else:  # "user", or a role this wire does not know (kept in metadata)
            out.append(_read_user(item, context))
    return out


def _text_content(content: Any, context: BuildContext) -> str | list[TextBlock]:
    """The ``content`` of a message that takes only text: a string, or text
    parts (anything else reads as ``""`` and stays in the message's metadata)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(
            isinstance(part, dict) and part.get("type") == "text"
            and isinstance(part.get("text"), str) for part in content):
        return [read_text_part(part, context.ids) for part in content]
    return ""


def _read_system(item: Wire, context: BuildContext) -> SystemMessage:
    text = _text_content(item.get("content"), context)
    message = SystemMessage(content=text, metadata=unread(item, "role", "content", wire=NAME))
    patch(message.metadata, item, _system(message))
    return message


def _read_user(item: Wire, context: BuildContext) -> UserMessage:
    content = item.get("content")
    blocks: str | list[UserContent] = ""
    if isinstance(content, str):
        blocks = content
    elif isinstance(content, list):
        blocks = [read_user_part(part, context.ids) for part in content]
    name = item.get("name")
    message = UserMessage(content=blocks, name=name if isinstance(name, str) else None,
                          metadata=unread(item, "role", "content", "name", wire=NAME))
    patch(message.metadata, item, _user(message))
    return message


def _read_tool_message(item: Wire, context: BuildContext) -> FunctionExecutionResult:
    """A ``tool`` message (or a legacy ``function`` one, answering the latest
    legacy call of that name) as one result; ``name`` stays in its metadata."""
    text = _text_content(item.get("content"), context)
    blocks: str | list[TextBlock | DataBlock] = text if isinstance(text, str) else [*text]
    name = item.get("name")
    call_id = item.get("tool_call_id")
    if item.get("role") == "function":
        answered = [call for call, called in context.legacy_calls.items() if called == name]
        call_id = answered[-1] if answered else None
    result = FunctionExecutionResult(
        call_id=call_id if isinstance(call_id, str) else "", content=blocks,
        name=name if isinstance(name, str) else None,
        metadata=unread(item, "role", "content", "tool_call_id", wire=NAME))
    patch(result.metadata, item, _tool_message(result, context))
    return result
