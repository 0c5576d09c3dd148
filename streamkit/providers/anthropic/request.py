"""Anthropic Messages requests (``POST /v1/messages``; also the body of Bedrock's
InvokeModel and Vertex AI's rawPredict): built from a :class:`Request` and read
back into one, losslessly.

Where each part of a :class:`Request` goes:

- the leading :class:`SystemMessage` s -> top-level ``system`` (a string, or a
  list of text blocks when there are several or they carry ``cache_control``);
  a later one -> a ``{"role": "system"}`` message where it stands (accepted by
  Claude Opus 4.8 and later; older models refuse it, so put instructions first
  for them);
- :class:`UserMessage` -> a ``user`` message (``content`` a string or a list of
  text / image / document parts); :class:`FunctionExecutionResultMessage` ->
  a ``user`` message of ``tool_result`` parts (a string, or text and image
  parts, and ``is_error``); an assistant turn -> an ``assistant`` message (see
  :mod:`.content` for what a turn of another API keeps); consecutive turns of
  one role are one wire message (a tool result and the user's image after it
  are one user turn, its ``tool_result`` parts first), except the messages
  read as messages of their own from an Anthropic body;
- ``tools`` and ``tool_choice`` (with ``parallel_tool_calls``): :mod:`.tools`;
- structured output: a :class:`JsonSchemaOutput` -> ``output_config.format``
  ``{"type": "json_schema", "schema": ...}`` (Anthropic's structured outputs;
  the final text is the JSON). ``json_output=True`` has no Anthropic form: it
  becomes a forced tool, :data:`~.tools.JSON_TOOL` (:mod:`.tools` says how).
  For a schema on a model older than structured outputs,
  pass the schema as a tool and ``tool_choice=<its name>`` yourself;
- options (:data:`~streamkit.conversation.request.UNIFORM_OPTIONS`): ``api_version``, the
  ``anthropic-version`` the body is for (the client passes the header it
  sends; without it, the registry's ``2026-10-21``), writes nothing but
  decides what the version refuses (:mod:`.versions`: under ``2026-10-21``
  ``temperature``, ``top_p`` and ``top_k`` raise unless another wire's reader
  read them, then they are dropped with a warning); ``max_tokens``
  (REQUIRED by Anthropic: building without it raises), ``temperature``,
  ``top_p``, ``stop`` -> ``stop_sequences``, ``thinking_budget`` ->
  ``thinking: {"type": "enabled", "budget_tokens": N}`` (``0``: ``{"type":
  "disabled"}``; disabled, with a warning, for a request whose last tool-use
  turn has no signed thinking block: see :func:`_fit_thinking_to_tool_turn`),
  ``include_thoughts`` -> ``thinking.display``
  (``summarized`` / ``omitted``), ``reasoning_effort`` ->
  ``output_config.effort`` (``low`` ... ``max``; OpenAI's ``minimal`` is sent
  as ``low``). ``include_usage`` writes nothing: Anthropic streams always
  report usage. ``seed`` and ``audio`` have no Anthropic form and raise. Every
  other option goes through under its own name (``top_k``, ``metadata``,
  ``thinking: {"type": "adaptive"}``, ``anthropic_version`` for Bedrock and
  Vertex, ``mcp_servers``, ``context_management``, ``container``...).
- ``model`` and ``stream`` are written when set (a Bedrock InvokeModel body has
  neither: the URL says both);
- the ``name`` of a user message or of a tool result has no Anthropic field
  and is not sent.

Reading a body back gives the same :class:`Request` parts, and every field the
model has no place for stays in ``options`` (top level) or ``metadata``
(messages, blocks, tools) under its own name, as Anthropic's
:class:`~streamkit.model.extras.Extras`, so ``build_request`` rebuilds the body
exactly and no other wire's builder writes them. A wire user message that
mixes ``tool_result`` parts with other parts becomes several messages; all but
the first carry ``metadata[SAME_TURN]`` (in those extras) so they are written
back into the one wire message. The ids the reader makes up come from the body
(:class:`~streamkit.model.ids.StreamIds`): two reads of a body are equal.

Building writes only what this wire's readers kept or what was set by hand
(:func:`~streamkit.model.extras.extras_for`): another wire's message, block and tool
extras, and its options beyond the uniform ones, are left out; a tool or a
user part another wire's reader kept whole has no Anthropic form and raises
:class:`~streamkit.model.errors.UnsupportedFeatureError`, as everything else this
wire cannot take does.

What the Messages API refuses and another wire's conversation may hold (an
empty text block, a message with no content, a prefill ending in whitespace)
is left out of a body built from anything but an Anthropic body
(:mod:`.acceptance`).
"""

from __future__ import annotations

from typing import Any, cast

from streamkit.model.json_values import copy_json

from ...conversation.messages import (
    AssistantMessage,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    Message,
    SystemMessage,
    UserMessage,
    as_assistant,
)
from ...conversation.request import ForeignThinking, JsonSchemaOutput, Request
from ...model.blocks import TextBlock
from ...model.errors import InvalidBodyError, UnsupportedFeatureError, warn_lossy
from ...model.extras import Extras, extras_for, origin_of
from ...model.ids import StreamIds
from ...model.response import ChatResponse
from ..cache_points import place_points, read_points
from ..coerce import Wire, as_str, check_uniform_options
from ..lossless import message_extras, put_back, take, take_list, unread
from ..options import (
    finished_body,
    prepared_options,
    put_field,
    read_renamed,
    write_renamed,
)
from ..turns import SAME_TURN, is_own_turn, joins_previous, refuse_orphan_results, user_turns
from .acceptance import honour_rules
from .assistant import assistant_blocks, read_assistant_block
from .cache import CACHE_HINTS, MARKERS, fit_breakpoints
from .content import (
    own_extras,
    read_tool_result,
    read_user_part,
    text_part,
    tool_result,
    user_part,
)
from .tools import read_tools, tool_entries, write_tools
from .versions import fit_messages, fit_options, version_of
from .wire import NAME, PROVIDER

# Uniform options whose wire field differs at most by name.
_RENAMED = {"max_tokens": "max_tokens", "temperature": "temperature", "top_p": "top_p",
            "stop": "stop_sequences"}

# Uniform options Anthropic has no form for: sending them anyway would be refused
# (the API rejects unknown fields), so building raises with the reason.
_UNSUPPORTED = {
    "seed": "Anthropic's Messages API has no seed",
    "audio": "Anthropic's Messages API has no audio output",
}

# Uniform options that need nothing on this wire.
_IMPLIED = frozenset({"include_usage",  # message_start / message_delta always carry usage
                      *CACHE_HINTS})

# thinking.display <-> include_thoughts (ThinkingConfigEnabledParam.display:
# "summarized" returns the thinking, "omitted" only its signature).
_DISPLAY = {True: "summarized", False: "omitted"}
_SHOWN = {display: shown for shown, display in _DISPLAY.items()}

# reasoning_effort words other wire formats use -> the nearest output_config.effort
# (documented levels: low, medium, high, xhigh, max).
_EFFORT = {"minimal": "low"}


# ---------------------------------------------------------------- building


def build_request(request: Request, dialect: str | None) -> dict[str, Any]:
    """The Messages API body for ``request`` (see the module docstring)."""
    refuse_orphan_results(request.messages, NAME)
    request = place_points(request, MARKERS)  # cache points as cache_control (see .cache)
    options, foreign_thinking = prepared_options(request, NAME, _UNSUPPORTED, _IMPLIED,
                                                 versioned=True)
    origin = origin_of(request.options)
    version = version_of(options)
    fit_options(options, version, origin)
    body: dict[str, Any] = {}
    if request.model is not None:
        body["model"] = request.model
    system, turns = _leading_system(request.messages)
    if system is not None:
        put_field(body, "system", system)
    body["messages"] = _messages(turns, foreign_thinking)
    if origin != NAME:  # a body of this wire goes back as it came
        honour_rules(body)
    tools = tool_entries(request.tools)
    write_renamed(body, options, _RENAMED)
    _write_thinking(body, options, origin)
    _fit_thinking_to_tool_turn(body)
    _write_output_config(body, options, request.json_output)
    write_tools(body, request, tools, options.pop("parallel_tool_calls", None))
    if request.stream is not None:
        body["stream"] = request.stream
    body = finished_body(body, options)  # everything else, under its own name
    fit_messages(body["messages"], version)
    fit_breakpoints(body, request)
    if "max_tokens" not in body:
        raise UnsupportedFeatureError(
            NAME, "a request without max_tokens",
            "Anthropic requires max_tokens (the output budget): pass max_tokens=... "
            "to build_request")
    return body


def _write_thinking(body: dict[str, Any], options: dict[str, Any], origin: str | None) -> None:
    """``thinking`` from ``thinking_budget`` and ``include_thoughts`` (or a
    ``thinking`` option passed as it is). ``include_thoughts`` without thinking
    on has nothing to show: refused when the caller gave it, dropped when
    another wire's reader read it (that API showed its thoughts; this request
    turns none on), with a warning when it asked to show them."""
    budget = options.pop("thinking_budget", None)
    shown = options.pop("include_thoughts", None)
    thinking = options.pop("thinking", None)
    if budget is not None:
        if thinking is not None:
            raise UnsupportedFeatureError(
                NAME, "thinking_budget with a thinking object",
                "give thinking_budget or a thinking object, not both")
        thinking = {"type": "enabled", "budget_tokens": budget} if budget else {"type": "disabled"}
    if shown is not None and not isinstance(thinking, dict) and origin not in (None, NAME):
        if shown:
            warn_lossy(NAME, f"include_thoughts read from {origin}",
                       "Anthropic shows thinking only when thinking is on, and this request "
                       "turns none on (no thinking_budget)")
        shown = None
    if shown is not None:
        if not isinstance(thinking, dict):
            raise UnsupportedFeatureError(
                NAME, "include_thoughts without thinking",
                "include_thoughts needs thinking on: pass thinking_budget=N or "
                "thinking={'type': 'adaptive'}")
        thinking = {**thinking, "display": _DISPLAY[bool(shown)]}
    if thinking is not None:
        body["thinking"] = thinking


def _fit_thinking_to_tool_turn(body: dict[str, Any]) -> None:
    """Turn extended thinking off for a request whose tool-use turn Anthropic
    would refuse under it.

    With ``thinking: {"type": "enabled"}``, the assistant turn the last tool
    results answer must start with a signed ``thinking`` (or
    ``redacted_thinking``) block: the API answers 400 "When `thinking` is
    enabled, a final `assistant` message must start with a thinking block
    (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We
    recommend you include thinking blocks from previous turns. To avoid this
    requirement, disable `thinking`." Another provider's turn has no block
    Anthropic can verify, nor does one of ours whose signature was lost (a
    cut-off stream), and none can be made up; so this request follows the
    API's own advice and is sent with ``{"type": "disabled"}``, with a
    :class:`~streamkit.model.errors.LossyTranslationWarning`. Thinking comes back on
    the next turn that starts afresh, since a tool-use loop is one assistant
    turn and Anthropic's docs ask for one thinking configuration per turn.

    Adaptive thinking is left as it is: under it thinking is the model's
    choice (it may skip it and start with the tool call), so the API cannot
    require the block, and the models that only think adaptively refuse
    ``{"type": "disabled"}``."""
    thinking = body.get("thinking")
    if not isinstance(thinking, dict) or thinking.get("type") != "enabled":
        return
    turn = _last_tool_use_turn(body["messages"])
    if turn is None or _starts_with_thinking(turn):
        return
    body["thinking"] = {"type": "disabled"}
    warn_lossy(NAME, "thinking for this request",
               "the assistant turn the last tool results answer has no signed thinking block "
               "(another provider's turn, or one whose signature was lost), which Anthropic "
               "requires with thinking enabled; as its error advises, thinking is disabled")


def _last_tool_use_turn(messages: list[Wire]) -> Wire | None:
    """The assistant message the last message's tool results answer (``None``
    when the conversation does not end with tool results)."""
    if len(messages) < 2 or messages[-1].get("role") != "user":
        return None
    content = messages[-1].get("content")
    if not isinstance(content, list) or not any(
            isinstance(part, dict) and part.get("type") == "tool_result" for part in content):
        return None
    turn = messages[-2]
    return turn if turn.get("role") == "assistant" else None


def _starts_with_thinking(turn: Wire) -> bool:
    content = turn.get("content")
    return (isinstance(content, list) and bool(content) and isinstance(content[0], dict)
            and content[0].get("type") in _THINKING_TYPES)


_THINKING_TYPES = frozenset({"thinking", "redacted_thinking"})


def _write_output_config(body: dict[str, Any], options: dict[str, Any],
                         json_output: bool | JsonSchemaOutput | None) -> None:
    """``output_config``: ``effort`` from ``reasoning_effort``, ``format`` from a schema."""
    given = "output_config" in options
    config = dict(options.pop("output_config", None) or {})
    effort = options.pop("reasoning_effort", None)
    if effort is not None:
        put_field(config, "effort", _EFFORT.get(effort, effort))
    if isinstance(json_output, JsonSchemaOutput):
        put_field(config, "format", {"type": "json_schema", "schema": json_output.schema,
                                     **extras_for(json_output.metadata, NAME)})
    if config or given:
        body["output_config"] = config


# ---------------------------------------------------------------- messages


def _leading_system(messages: list[Message]) -> tuple[str | list[Wire] | None, list[Message]]:
    """The top-level ``system`` of the leading system messages, and the rest."""
    count = 0
    while count < len(messages) and isinstance(messages[count], SystemMessage):
        count += 1
    leading = cast(list[SystemMessage], messages[:count])
    if not leading:
        return None, messages
    if len(leading) == 1 and isinstance(leading[0].content, str) and not own_extras(
            leading[0]):
        return leading[0].content, messages[count:]
    blocks: list[Wire] = []
    for message in leading:
        blocks += _system_blocks(message)
    return blocks, messages[count:]


def _system_blocks(message: SystemMessage) -> list[Wire]:
    """A system message as text blocks; its extras (``cache_control``) go on
    its last block, the place a breakpoint marks."""
    if isinstance(message.content, str):
        blocks = [{"type": "text", "text": message.content}]
    else:
        blocks = [text_part(block) for block in message.content]
    metadata = own_extras(message)
    if metadata and blocks:
        blocks[-1] = {**blocks[-1], **metadata}
    return blocks


def _messages(messages: list[Message], foreign_thinking: ForeignThinking) -> list[Wire]:
    """The wire messages, user and assistant turns alternating: a message
    joins the one before it when they have one role (:func:`joins_previous`:
    a tool result and the user's next words from another wire are one user
    turn here), except a message read as one of its own from an Anthropic body."""
    out: list[Wire] = []
    joined: dict[int, int] = {}  # a joined message's index -> its parts that go results first
    for message in messages:
        if isinstance(message, ChatResponse):  # its metadata is the response's, not wire extras
            message = as_assistant(message)
        metadata = own_extras(message)
        same_turn = metadata.pop(SAME_TURN, False)
        wire = _message(message, metadata, foreign_thinking)
        if wire is None:
            continue
        if (out and out[-1]["role"] == wire["role"] and wire["role"] in _ALTERNATING
                and joins_previous(message, NAME)):
            index = len(out) - 1
            _join(out[index], wire, own_list=index in joined)
            joined[index] = joined.get(index, 0) if same_turn else len(out[index]["content"])
        else:
            out.append(wire)
    for index, results_first in joined.items():
        _results_first(out[index]["content"], results_first)
    return out


# The roles whose turns alternate (a mid-conversation system message stands alone).
_ALTERNATING = frozenset({"user", "assistant"})


def _join(previous: Wire, wire: Wire, *, own_list: bool) -> None:
    """Put a message into the wire message before it: back into the one it was
    read from, or joining another of its role (whose ``tool_result`` parts then
    go first: :func:`_results_first`, once the turn is whole). The content list
    is copied at the first join (``own_list`` after it) and extended in place:
    each join costs its own parts, not the turn's so far."""
    content = previous["content"]
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    elif not own_list:
        content = list(content)
    added = wire["content"]
    content.extend([{"type": "text", "text": added}] if isinstance(added, str) else added)
    previous["content"] = content
    previous.update({k: v for k, v in wire.items() if k not in ("role", "content")})


def _results_first(content: list[Any], count: int) -> None:
    """The ``tool_result`` parts of the first ``count`` parts first, as Anthropic
    requires of a user message that holds them (a stable sort: the rest keep
    their order; the parts after ``count`` joined back into the message they
    were read from, and keep the order its own reader saw). Sorting once is
    sorting after each join: a stable partition of a partition is the same."""
    if count:
        content[:count] = sorted(content[:count], key=lambda part: not _is_tool_result(part))


def _is_tool_result(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") == "tool_result"


def _message(message: Message, metadata: dict[str, Any],
             foreign_thinking: ForeignThinking) -> Wire | None:
    """One wire message (``None``: an assistant turn with nothing Anthropic can take)."""
    if isinstance(message, UserMessage):
        content: Any = message.content if isinstance(message.content, str) else [
            user_part(block) for block in message.content]
        return {"role": "user", "content": content, **metadata}
    if isinstance(message, FunctionExecutionResultMessage):
        return {"role": "user", "content": [tool_result(r) for r in message.content], **metadata}
    if isinstance(message, SystemMessage):  # after the first turn: where it stands
        content = message.content if isinstance(message.content, str) else [
            text_part(block) for block in message.content]
        return {"role": "system", "content": content, **metadata}
    return _assistant(as_assistant(message), metadata, foreign_thinking)


def _assistant(message: AssistantMessage, metadata: dict[str, Any],
               foreign_thinking: ForeignThinking) -> Wire | None:
    """An assistant turn; the message extras of another API's turn are dropped."""
    own = is_own_turn(message.provider, NAME)
    if not own:
        metadata = {}
    if isinstance(message.content, str):
        return {"role": "assistant", "content": message.content, **metadata}
    content = assistant_blocks(message.content, own=own, foreign_thinking=foreign_thinking)
    if not content and message.content:
        return None  # everything was the other API's own: nothing to send
    return {"role": "assistant", "content": content, **metadata}


# ---------------------------------------------------------------- reading


def parse_request(body: dict[str, Any], dialect: str | None) -> Request:
    """The :class:`Request` a Messages API body stands for (see the module docstring)."""
    if not isinstance(body, dict):
        raise InvalidBodyError(f"an Anthropic request is a JSON object, not "
                               f"{type(body).__name__}", wire=NAME)
    reader = _Reader(body)
    rest = copy_json(body)  # the Request shares no object with the body
    wire_messages = take_list(rest, "messages", NAME)
    messages: list[Message] = []
    if "system" in rest:
        system = reader.system(rest["system"])
        if system is not None:
            del rest["system"]
            messages.append(system)
    for number, wire in enumerate(wire_messages):
        messages += reader.message(wire, number)
    request = Request(messages=messages, model=take(rest, "model", str, NAME),
                      stream=take(rest, "stream", bool, NAME), options=Extras(NAME))
    read_tools(rest, request)
    _read_output_config(rest, request)
    _read_thinking(rest, request.options)
    read_renamed(rest, request.options, _RENAMED)
    request.options.update(rest)
    check_uniform_options(request.options, NAME, _RENAMED)
    read_points(request, MARKERS)
    return request


class _Reader:
    """Reads one body's messages, making up the ids the body does not give
    from the body itself, so two reads of it are equal."""

    def __init__(self, body: dict[str, Any]) -> None:
        self.ids = StreamIds.of_body(body)

    def system(self, system: Any) -> SystemMessage | None:
        """Top-level ``system`` as a :class:`SystemMessage` (``None``: not one
        streamkit can write back exactly, so it stays an option)."""
        if isinstance(system, str):
            return SystemMessage(system)
        if not isinstance(system, list):
            return None
        blocks = [read_user_part(part, self.ids) for part in system]
        texts = [block for block in blocks if isinstance(block, TextBlock)]
        if len(texts) != len(blocks):
            return None
        message = SystemMessage(texts)
        return message if _leading_system([message])[0] == system else None

    def message(self, wire: Any, number: int) -> list[Message]:
        if not isinstance(wire, dict) or as_str(wire.get("role")) not in _ROLES:
            raise InvalidBodyError(f"not an Anthropic message: {str(wire)[:200]}", wire=NAME,
                                   where=f"messages[{number}]")
        role: str = wire["role"]
        if role == "user":
            return self.user(wire)
        if role == "assistant":
            return self.assistant(wire)
        return self.system_message(wire, number)

    def user(self, wire: Wire) -> list[Message]:
        """A ``user`` message: its runs of ``tool_result`` parts become
        :class:`FunctionExecutionResultMessage` s, the other runs
        :class:`UserMessage` s (the later ones marked :data:`SAME_TURN`)."""
        content = wire.get("content")
        if not isinstance(content, list):
            return [UserMessage(content if isinstance(content, str) else [],
                                metadata=message_extras(wire, NAME))]
        return user_turns(content, self._tool_result, lambda part: read_user_part(part, self.ids),
                          message_extras(wire, NAME))

    def _tool_result(self, part: Any) -> FunctionExecutionResult | None:
        is_result = isinstance(part, dict) and part.get("type") == "tool_result"
        return read_tool_result(part, self.ids) if is_result else None

    def assistant(self, wire: Wire) -> list[Message]:
        content = wire.get("content")
        if isinstance(content, list):
            content = [read_assistant_block(block, self.ids) for block in content]
        return [AssistantMessage(content if isinstance(content, (str, list)) else [],
                                 provider=PROVIDER, metadata=message_extras(wire, NAME))]

    def system_message(self, wire: Wire, number: int) -> list[Message]:
        """A mid-conversation ``{"role": "system"}`` message."""
        content = wire.get("content")
        message = self.system(content)
        if message is None:
            raise InvalidBodyError(f"system message content streamkit cannot hold: "
                                   f"{str(content)[:200]}", wire=NAME,
                                   where=f"messages[{number}].content")
        message.metadata = message_extras(wire, NAME)
        return [message]


_ROLES = frozenset({"user", "assistant", "system"})


def _read_output_config(rest: dict[str, Any], request: Request) -> None:
    """``output_config.effort`` -> ``reasoning_effort``; ``output_config.format``
    (a JSON schema) -> ``json_output``; what else it holds stays an option."""
    config = rest.get("output_config")
    if not isinstance(config, dict):
        return
    config = dict(config)
    effort = config.get("effort")
    if isinstance(effort, str) and effort not in _EFFORT:  # "minimal" would not read back
        request.options["reasoning_effort"] = config.pop("effort")
    output = config.get("format")
    if isinstance(output, dict) and output.get("type") == "json_schema" and isinstance(
            output.get("schema"), dict):
        schema = output["schema"]
        request.json_output = JsonSchemaOutput(
            name=str(schema.get("title", "output")), schema=schema,
            metadata=unread(output, "type", "schema", wire=NAME))
        del config["format"]
    put_back(rest, "output_config", config, keep_empty=not rest["output_config"])


def _read_thinking(rest: dict[str, Any], options: dict[str, Any]) -> None:
    """``thinking`` -> ``thinking_budget`` (``enabled`` with a budget; ``disabled``
    is 0) and ``include_thoughts`` (``display``); any other form stays whole."""
    thinking = rest.get("thinking")
    if not isinstance(thinking, dict):
        return
    config = dict(thinking)
    display = config.get("display")
    shown = _SHOWN.get(display) if isinstance(display, str) else None
    if shown is not None:
        del config["display"]
        options["include_thoughts"] = shown
    budget = config.get("budget_tokens")
    if config == {"type": "enabled", "budget_tokens": budget} and isinstance(
            budget, int) and not isinstance(budget, bool) and budget > 0:
        options["thinking_budget"] = budget
        del rest["thinking"]
    elif config == {"type": "disabled"}:
        options["thinking_budget"] = 0
        del rest["thinking"]
    else:
        rest["thinking"] = config
