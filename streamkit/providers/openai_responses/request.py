"""OpenAI Responses requests (``POST /v1/responses``; also DeepSeek's, OpenRouter's,
Bedrock Mantle's ``/responses``): built from a :class:`Request` and read back into
one, losslessly.

Where each part of a :class:`Request` goes:

- a leading :class:`SystemMessage` with no ``metadata`` -> top-level
  ``instructions`` (a string). Any other system message -> an input message item
  where it stands, with the role the body used (``metadata["role"]``: ``system``
  or ``developer``; ``system`` when built by hand). ``instructions`` are not
  carried over by ``previous_response_id`` (the API reference: "the instructions
  from a previous response will not be carried over"), so they are sent on every
  turn;
- :class:`UserMessage` -> ``{"role": "user", "content": ...}`` (a string, or
  ``input_text`` / ``input_image`` / ``input_file`` parts; see :mod:`.content`),
  or the whole ``input`` string when the body had one
  (``metadata[STRING_INPUT]``); a user message's ``name`` has no field here;
- an assistant turn (an :class:`AssistantMessage` or a :class:`ChatResponse`) ->
  its items: ``reasoning``, ``message``, ``function_call``, server tool items...
  (:mod:`.content` says what a turn of another API keeps);
- :class:`FunctionExecutionResultMessage` -> one ``function_call_output`` item per
  result (``custom_tool_call_output`` for a custom tool's call);
- ``tools`` and ``tool_choice``: :mod:`.tools`;
- structured output -> ``text.format``: a :class:`JsonSchemaOutput` ->
  ``{"type": "json_schema", "name", "schema", "strict", "description"}``;
  ``json_output=True`` -> ``{"type": "json_object"}`` (JSON mode; as in Chat
  Completions, whose 400 says "'messages' must contain the word 'json'", the input
  should mention JSON). Other ``text`` fields (``verbosity``) go through;
- options (:data:`~streamkit.conversation.request.UNIFORM_OPTIONS`): ``max_tokens`` ->
  ``max_output_tokens``, ``temperature``, ``top_p``, ``parallel_tool_calls``;
  ``reasoning_effort`` -> ``reasoning.effort``; ``include_thoughts=True`` ->
  ``reasoning.summary: "auto"`` (summaries are opt-in; ``False`` writes nothing).
  ``include_usage`` writes nothing (``response.completed`` always carries usage).
  ``thinking_budget`` -> the ``reasoning.effort`` it stands for
  (:func:`~streamkit.providers.options.budget_as_effort`). ``stop``, ``seed``
  and ``audio`` have no form here (the SDK's ``ResponseCreateParams`` declares
  no stop sequences, seed or audio output): given by hand they raise
  :class:`~streamkit.model.errors.UnsupportedFeatureError`; read from another wire's
  body they are dropped with a :class:`~streamkit.LossyTranslationWarning`. Every other option goes
  through under its own name (``include``, ``store``, ``previous_response_id``,
  ``conversation``, ``truncation``, ``metadata``, ``service_tier``...), unless
  the options were read from another wire's body: then only the uniform ones
  are written (the rest are that wire's fields);
- ``model`` and ``stream`` are written when set.

Chaining (``previous_response_id``, ``conversation``): the server holds the
conversation, so only the new items are sent, and sending one it holds again is
refused ("Duplicate item found with id rs_...": continuedev/continue#10723). When
the messages contain the :class:`ChatResponse` that ``previous_response_id``
names (its ``id``), or one that belongs to the ``conversation`` (its
``metadata["conversation"]``), that response and every message before it are
left out of ``input``, as LangChain's ``use_previous_response_id`` does; the
leading instructions stay. An :class:`AssistantMessage` carries no response id,
so a list that holds only those is sent whole.

Reading a body back gives the same :class:`Request` parts, and every field the
model has no place for stays in ``options`` (top level) or ``metadata``
(messages, blocks, tools, structured output) under its own name, so
``build_request`` rebuilds the body exactly. All of them are
:class:`~streamkit.model.extras.Extras` of ``openai-responses``, as is a tool kept as
its dict: written back here, never into another wire's body. Ids the body does
not give are made up from the body, so two readings of it are equal.

Consecutive assistant-side items (reasoning, messages, calls, server tool
items) are one :class:`AssistantMessage` (``provider`` ``openai-responses``);
consecutive outputs one :class:`FunctionExecutionResultMessage`. Items streamkit does not model, the
client's own included (``computer_call_output``, ``mcp_approval_response``,
``item_reference``), are :class:`RawBlock` s of the assistant turn they stand in:
sent back verbatim here, dropped for any other wire format, which could not read
them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from streamkit.model.json_values import copy_json

from ...conversation.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    UserMessage,
)
from ...conversation.request import ForeignThinking, JsonSchemaOutput, Request
from ...model.blocks import TextBlock
from ...model.errors import InvalidBodyError, UnsupportedFeatureError
from ...model.extras import Extras
from ...model.ids import StreamIds
from ...model.response import ChatResponse
from ..coerce import Wire, check_uniform_options
from ..function_tools import read_schema_output, schema_fields
from ..lossless import message_extras, put_back, take, typed_part
from ..options import (
    budget_as_effort,
    finished_body,
    prepared_options,
    put_field,
    read_renamed,
    write_renamed,
)
from ..turns import add_result, is_own_vendor_turn, refuse_orphan_results, write_messages
from .content import (
    Calls,
    assistant_items,
    own,
    read_assistant_item,
    read_tool_output,
    read_user_part,
    text_part,
    tool_output,
    user_part,
)
from .items import ItemReader, request_fields
from .tools import read_tools, write_tools
from .wire import NAME

#: The registry name of this wire format's own API.
PROVIDER = "openai-responses"

#: Metadata key of the :class:`UserMessage` a body's string ``input`` was read into.
STRING_INPUT = "string_input"

# Uniform options whose wire field differs at most by name.
_RENAMED = {"max_tokens": "max_output_tokens", "temperature": "temperature",
            "top_p": "top_p", "parallel_tool_calls": "parallel_tool_calls"}

# Uniform options this API has no form for: it rejects unknown parameters, so
# building raises with the reason.
_UNSUPPORTED = {
    "stop": "the OpenAI Responses API has no stop sequences; leave them out",
    "seed": "the OpenAI Responses API has no seed; leave it out",
    "audio": "the OpenAI Responses API has no audio output (OpenAI Chat Completions has)",
}

# Uniform options that need nothing on this wire.
_IMPLIED = frozenset({"include_usage"})  # response.completed always carries usage

_INPUT_ROLES = ("system", "developer")
_OUTPUT_TYPES = ("function_call_output", "custom_tool_call_output")
# reasoning.summary for include_thoughts=True: "auto" lets the API pick the level (the
# SDK's Reasoning.summary: auto, concise or detailed; the other two stay options).
_SUMMARY_SHOWN = "auto"


# ---------------------------------------------------------------- building


def build_request(request: Request, dialect: str | None) -> dict[str, Any]:
    """The Responses API body for ``request`` (see the module docstring)."""
    options, foreign_thinking = prepared_options(request, NAME, _UNSUPPORTED, _IMPLIED)
    body: dict[str, Any] = {}
    if request.model is not None:
        body["model"] = request.model
    instructions, turns = _instructions(request.messages)
    if instructions is not None:
        body["instructions"] = instructions
    if not _chained(options):
        refuse_orphan_results(request.messages, NAME)
    turns = turns[_held_by_server(turns, options):]
    items = _items(turns, dialect, foreign_thinking)
    if items:
        string = _string_input(turns)
        body["input"] = items if string is None else string
    write_renamed(body, options, _RENAMED)
    budget_as_effort(options, NAME)
    _write_reasoning(body, options)
    _write_text(body, options, request.json_output)
    write_tools(body, request)
    if request.stream is not None:
        body["stream"] = request.stream
    return finished_body(body, options)  # everything else, under its own name


def _object_option(options: dict[str, Any], name: str, fields: str) -> dict[str, Any]:
    """The option ``name``, an object that uniform options add ``fields`` to, taken
    out of ``options`` (a copy; ``{}`` when not given)."""
    given = options.pop(name, None)
    if given is not None and not isinstance(given, dict):
        raise UnsupportedFeatureError(NAME, f"{name}={given!r}",
                                      f"{name} is an object ({fields})")
    return dict(given or {})


def _write_reasoning(body: dict[str, Any], options: dict[str, Any]) -> None:
    """``reasoning`` from ``reasoning_effort`` and ``include_thoughts``, merged into
    a ``reasoning`` option (``context``, ``summary: "detailed"``...)."""
    effort = options.pop("reasoning_effort", None)
    shown = options.pop("include_thoughts", None)
    if effort is None and not shown:
        return  # a reasoning option, if any, goes through as it is
    config = _object_option(options, "reasoning", "effort, summary...")
    if effort is not None:
        put_field(config, "effort", effort)
    if shown:
        put_field(config, "summary", _SUMMARY_SHOWN)
    body["reasoning"] = config


def json_format(json_output: bool | JsonSchemaOutput | None) -> Wire | None:
    """``text.format`` for structured output (``None``: plain text)."""
    if json_output is True:
        return {"type": "json_object"}
    if not isinstance(json_output, JsonSchemaOutput):
        return None
    return schema_fields(json_output, NAME, prefix={"type": "json_schema"})


def _write_text(body: dict[str, Any], options: dict[str, Any],
                json_output: bool | JsonSchemaOutput | None) -> None:
    """``text.format`` from ``json_output``, merged into a ``text`` option
    (``verbosity``)."""
    output = json_format(json_output)
    if output is None:
        return  # a text option, if any, goes through as it is
    text = _object_option(options, "text", "format, verbosity...")
    put_field(text, "format", output)
    body["text"] = text


# ---------------------------------------------------------------- messages


def _instructions(messages: list[Message]) -> tuple[str | None, list[Message]]:
    """Top-level ``instructions`` from a leading system message with no wire
    extras (text blocks without metadata), and the messages that follow."""
    if not messages or not isinstance(messages[0], SystemMessage):
        return None, messages
    first = messages[0]
    if own(first.metadata) or (not isinstance(first.content, str) and any(
            own(block.metadata) or block.citations for block in first.content)):
        return None, messages
    return first.text, messages[1:]


def _conversation_id(conversation: Any) -> str | None:
    """The id of a ``conversation`` option or response field (a string or ``{"id"}``)."""
    if isinstance(conversation, dict):
        conversation = conversation.get("id")
    return conversation if isinstance(conversation, str) else None


def _chained(options: dict[str, Any]) -> bool:
    """Whether the request continues a history the server keeps (its results
    may answer calls this request does not carry)."""
    return options.get("previous_response_id") is not None or options.get(
        "conversation") is not None


def _held_by_server(messages: list[Message], options: dict[str, Any]) -> int:
    """How many leading messages the server already holds: up to and including the
    last response that ``previous_response_id`` names or that belongs to the
    ``conversation`` (see the module docstring)."""
    previous = options.get("previous_response_id")
    conversation = _conversation_id(options.get("conversation"))
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if not isinstance(message, ChatResponse):
            continue
        if previous is not None and message.id == previous:
            return index + 1
        if conversation is not None and _conversation_id(
                message.metadata.get("conversation")) == conversation:
            return index + 1
    return 0


def _string_input(messages: list[Message]) -> str | None:
    """The body's ``input`` string, when the one message was read from one."""
    if len(messages) != 1:
        return None
    message = messages[0]
    if isinstance(message, UserMessage) and own(message.metadata).get(STRING_INPUT) and \
            isinstance(message.content, str):
        return message.content
    return None


def is_own(provider: str | None, dialect: str | None) -> bool:
    """Whether a turn written by ``provider`` is this wire format's and vendor's
    (``None``: built by hand or read from a Responses request)."""
    return is_own_vendor_turn(provider, NAME, dialect)


def _items(messages: list[Message], dialect: str | None,
           foreign_thinking: ForeignThinking) -> list[Wire]:
    calls = Calls()
    # an assistant turn is several items: its blocks carry their items' fields, and
    # the message's own metadata (a response's, or a message's) has no place here
    return write_messages(
        messages, system=_system_item, user=_user_item,
        assistant=lambda message: assistant_items(
            message.blocks, own=is_own(message.provider, dialect),
            foreign_thinking=foreign_thinking, calls=calls),
        results=lambda message: [tool_output(result, calls) for result in message.content])


def _user_item(message: UserMessage) -> Wire:
    metadata = {k: v for k, v in own(message.metadata).items() if k != STRING_INPUT}
    content: Any = message.content if isinstance(message.content, str) else [
        user_part(block) for block in message.content]
    return {"role": "user", "content": content, **metadata}


def _system_item(message: SystemMessage) -> Wire:
    """A system or developer message item (the role the body used; ``system``
    for one built by hand)."""
    metadata = own(message.metadata)
    role = metadata.pop("role", "system")
    content: Any = message.content if isinstance(message.content, str) else [
        text_part(block) for block in message.content]
    return {"role": role, "content": content, **metadata}


# ---------------------------------------------------------------- reading


def parse_request(body: dict[str, Any], dialect: str | None) -> Request:
    """The :class:`Request` a Responses API body stands for (see the module docstring)."""
    rest = copy_json(body)  # the Request shares no object with the body
    reader = ItemReader(StreamIds.of_body(body), request_fields)
    messages: list[Message] = []
    if isinstance(rest.get("instructions"), str):
        messages.append(SystemMessage(rest.pop("instructions"), metadata=Extras(NAME)))
    given = rest.get("input")
    if isinstance(given, str):
        messages.append(UserMessage(rest.pop("input"),
                                    metadata=Extras(NAME, {STRING_INPUT: True})))
    elif isinstance(given, list) and given:
        messages += _read_items(rest.pop("input"), reader)
    request = Request(messages=messages, model=take(rest, "model", str, NAME),
                      stream=take(rest, "stream", bool, NAME), options=Extras(NAME))
    read_tools(rest, request)
    _read_text(rest, request)
    _read_reasoning(rest, request.options)
    read_renamed(rest, request.options, _RENAMED, null_stays=True)
    request.options.update(rest)
    check_uniform_options(request.options, NAME, _RENAMED)
    return request


def _side(item: Any) -> str:
    """Which message an input item belongs to: ``user``, ``system``, ``results``
    or ``assistant`` (the model's items, and every item streamkit does not model)."""
    if not isinstance(item, dict):
        raise InvalidBodyError(f"not a Responses input item: {str(item)[:200]}",
                               wire=NAME, where="input")
    typed_part(item, NAME)
    item_type = item.get("type")
    if item_type in (None, "message"):
        role = item.get("role")
        if role == "user":
            return "user"
        if role in _INPUT_ROLES:
            return "system"
        return "assistant"
    if item_type in _OUTPUT_TYPES and isinstance(item.get("call_id"), str):
        return "results"
    return "assistant"


def _read_items(items: list[Any], reader: ItemReader) -> list[Message]:
    """Input items as messages: runs of assistant-side items and of outputs are
    one message each."""
    messages: list[Message] = []
    previous = ""
    for position, item in enumerate(items):
        side = _side(item)
        last = messages[-1] if messages and side == previous else None
        if side == "assistant":
            blocks = read_assistant_item(item, position, reader)
            if isinstance(last, AssistantMessage) and isinstance(last.content, list):
                last.content += blocks
            else:
                messages.append(AssistantMessage(blocks, provider=PROVIDER,
                                                 metadata=Extras(NAME)))
        elif side == "results":
            add_result(messages, read_tool_output(item, reader), NAME)
        else:
            messages.append(_MESSAGE_READERS[side](item, reader))
        previous = side
    return messages


def _read_user(item: Wire, reader: ItemReader) -> Message:
    """A user message: a string, or parts (each kept whole if streamkit cannot
    hold it); content of another shape stays in ``metadata["content"]``."""
    content = item.get("content")
    if isinstance(content, list):
        content = [read_user_part(part, reader) for part in content]
    return UserMessage(content if isinstance(content, (str, list)) else [],
                       metadata=message_extras(item, NAME))


def _read_system(item: Wire, reader: ItemReader) -> Message:
    """A system / developer message item (its role in ``metadata["role"]``)."""
    content = item.get("content")
    metadata = Extras(NAME, {"role": item.get("role"), **message_extras(item, NAME)})
    if isinstance(content, str):
        return SystemMessage(content, metadata=metadata)
    parts = ([read_user_part(part, reader) for part in content]
             if isinstance(content, list) else None)
    if parts is not None and all(isinstance(part, TextBlock) for part in parts):
        return SystemMessage([part for part in parts if isinstance(part, TextBlock)],
                             metadata=metadata)
    metadata["content"] = content
    return SystemMessage([], metadata=metadata)


_MESSAGE_READERS: dict[str, Callable[[Wire, ItemReader], Message]] = {
    "user": _read_user,
    "system": _read_system,
}


def _read_text(rest: dict[str, Any], request: Request) -> None:
    """``text.format`` -> ``json_output`` (``json_object`` is ``True``, a
    ``json_schema`` a :class:`JsonSchemaOutput`); what else ``text`` holds stays."""
    text = rest.get("text")
    if not isinstance(text, dict) or not isinstance(text.get("format"), dict):
        return
    output = _read_format(text["format"])
    if output is None:
        return
    request.json_output = output
    put_back(rest, "text", {k: v for k, v in text.items() if k != "format"})


def _read_format(wire: Wire) -> bool | JsonSchemaOutput | None:
    """A ``text.format`` as structured output, when it writes back exactly."""
    if wire == {"type": "json_object"}:
        return True
    output = read_schema_output(wire, NAME, written=("type",)) if wire.get(
        "type") == "json_schema" else None
    return output if output is not None and json_format(output) == wire else None


def _read_reasoning(rest: dict[str, Any], options: dict[str, Any]) -> None:
    """``reasoning.effort`` -> ``reasoning_effort``, ``summary: "auto"`` ->
    ``include_thoughts``; what else ``reasoning`` holds stays an option."""
    reasoning = rest.get("reasoning")
    if not isinstance(reasoning, dict):
        return
    config = dict(reasoning)
    if isinstance(config.get("effort"), str):
        options["reasoning_effort"] = config.pop("effort")
    if config.get("summary") == _SUMMARY_SHOWN:
        options["include_thoughts"] = True
        del config["summary"]
    if config == reasoning:
        return
    put_back(rest, "reasoning", config)

