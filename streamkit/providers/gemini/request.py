"""Gemini ``generateContent`` / ``streamGenerateContent`` request bodies (AI
Studio ``generativelanguage.googleapis.com`` and Vertex AI), both ways.

The body (REST ``GenerateContentRequest``; google-genai ``GenerateContentConfig``
is the same fields, flattened)::

    {"contents": [{"role": "user" | "model", "parts": [...]}],
     "systemInstruction": {"parts": [{"text": ...}]},
     "tools": [{"functionDeclarations": [...]}, {"googleSearch": {}}, ...],
     "toolConfig": {"functionCallingConfig": {"mode", "allowedFunctionNames"}},
     "generationConfig": {"temperature", "topP", "maxOutputTokens", "stopSequences",
                          "seed", "responseMimeType", "responseJsonSchema",
                          "thinkingConfig": {...}, "responseModalities", ...},
     "safetySettings": [...], "cachedContent": ..., "labels": {...}}

``model`` and ``stream`` are not in it: the URL says both
(``models/{model}:generateContent``, ``:streamGenerateContent?alt=sse``), so
:func:`build_request` never writes ``Request.model`` / ``Request.stream`` (the
client puts them in the URL) and :func:`parse_request` reads them as ``None``.

Where each part of a :class:`Request` goes:

- every :class:`SystemMessage` -> ``systemInstruction`` (its text parts, in
  order: Gemini has one system prompt and no system role in ``contents``, so a
  later system message joins it); its ``metadata`` (``role``) goes on it;
- :class:`UserMessage` -> a ``user`` content (text, ``inlineData``,
  ``fileData`` parts; a user ``name`` has no Gemini field and is not sent);
  :class:`FunctionExecutionResultMessage` -> one ``user`` content of
  ``functionResponse`` parts; an assistant turn -> a ``model`` content (see
  :mod:`.content` for the parts, and for what a turn of another API keeps);
- ``tools``: consecutive :class:`Tool` s -> one ``{"functionDeclarations":
  [...]}`` entry, each ``{"name", "description", "parametersJsonSchema"}``
  (JSON Schema, the form pydantic makes) plus its metadata; a tool read with
  ``parameters`` (the OpenAPI subset, ``"type": "OBJECT"``) holds the JSON
  Schema it stands for, as every other wire takes it, and is written back in
  its own form (:mod:`.schema`); ``description`` is always a string (``None``
  is written ``""``); ``strict`` has no Gemini field.
  A dict (``{"googleSearch": {}}``, ``{"codeExecution": {}}``, ``{"fileSearch":
  ...}``) goes as it is;
- ``tool_choice`` -> ``toolConfig.functionCallingConfig``: ``auto`` is
  ``AUTO``, ``required`` is ``ANY``, ``none`` is ``NONE``, a tool name is
  ``ANY`` with ``allowedFunctionNames: [name]`` (the function-calling guide's
  forms);
- structured output -> ``generationConfig.responseMimeType:
  "application/json"``, with a schema as ``responseJsonSchema`` (JSON Schema;
  one read as ``responseSchema``, the OpenAPI subset, is held as JSON Schema
  and written back to that field, as a tool's ``parameters`` are); the
  schema's name, ``strict`` and ``description`` have no Gemini field;
- options (:data:`~streamkit.conversation.request.UNIFORM_OPTIONS`), all inside
  ``generationConfig``: ``temperature``, ``top_p`` (``topP``), ``max_tokens``
  (``maxOutputTokens``), ``stop`` (``stopSequences``), ``seed``;
  ``thinking_budget``, ``include_thoughts`` and ``reasoning_effort`` ->
  ``thinkingConfig`` ``thinkingBudget`` / ``includeThoughts`` /
  ``thinkingLevel`` (the level words are Gemini's: ``minimal``, ``low``,
  ``medium``, ``high``; OpenAI's ``none`` is sent as ``minimal``, which "matches
  no thinking for most queries"; a level and a budget together are refused by
  the API, so building raises); ``audio`` -> ``responseModalities: ["AUDIO"]``
  and ``speechConfig.voiceConfig.prebuiltVoiceConfig.voiceName`` (Gemini speaks
  24 kHz 16-bit PCM only: a ``format`` other than ``pcm16`` raises).
  Dropped, because the wire has no switch for them: ``include_usage`` (every
  chunk carries ``usageMetadata``) and ``parallel_tool_calls``. Any other
  GenerationConfig field given as an option (``top_k`` / ``topK``,
  ``response_modalities``, ``speech_config``, ``candidate_count``...) goes
  inside ``generationConfig`` under the name given (the API takes either
  spelling); every other option goes at the top level under its own name
  (``safetySettings``, ``cachedContent``, ``labels``...).

Reading a body back gives the same parts, and every field the model has no
place for stays in ``options`` (top level; an unread ``generationConfig`` field
is lifted to the top level of ``options``, where building puts it back) or in
``metadata`` (contents, parts, declarations) under its own name, so
``build_request(parse_request(body)) == body``. The spelling of each field
(camelCase or snake_case) is kept as data (:mod:`.spelling`). A content that
mixes ``functionResponse`` parts with other parts becomes several messages; all
but the first carry ``metadata["same_turn"]`` and are written back into it. A
``functionResponse`` without ``id`` answers the earliest call of the same name
in the ``model`` content before it (it gets that call's id, marked
``generated_id``, and is written back without one).

Provenance: everything a read keeps (message, block, result and tool metadata,
dict tool entries, ``json_output.metadata``, ``options``) is
:class:`~streamkit.model.extras.Extras` of ``gemini``, and the ids it makes up derive
from the body (two reads are ``==``). Building writes only Gemini's extras (or
a hand-made dict's): a :class:`Request` another wire read gives its uniform
options only, and its dict tool entries (server tools of that API) and raw
user items are left out, so neither another wire's fields nor streamkit's
records (``snake_case``, ``same_turn``, ``schema_field``...) reach the body.

Limitation: a top-level field named like a GenerationConfig field (which the
API would refuse there) is read as that option and written inside
``generationConfig``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any, cast

from ...conversation.messages import (
    AssistantMessage,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    Message,
    SystemMessage,
    UserContent,
    UserMessage,
    as_assistant,
)
from ...conversation.request import ForeignThinking, JsonSchemaOutput, Request
from ...conversation.tools import Tool
from ...model.blocks import ContentBlock, TextBlock, ToolCallBlock
from ...model.errors import InvalidBodyError, UnsupportedFeatureError
from ...model.extras import Extras, extras_for
from ...model.ids import StreamIds
from ...model.response import ChatResponse
from ..coerce import path
from ..function_tools import own_entry
from ..lossless import ABSENT, put_back, take_list, unread, with_extras
from ..options import (
    finished_body,
    prepared_options,
    write_renamed,
)
from ..turns import SAME_TURN, is_own_turn, joins_previous, refuse_orphan_results, user_turns
from .content import (
    GENERATED_ID,
    RECORDS,
    Wire,
    absent_fields,
    made_up_id,
    model_parts,
    read_model_part,
    read_result,
    read_user_part,
    result_part,
    text_part,
    user_parts,
)
from .schema import from_openapi, to_openapi
from .spelling import SNAKE_CASE, Spelling, camel, snake
from .wire import NAME, PROVIDER

__all__ = ["GENERATION_FIELDS", "OPENAPI_SCHEMA", "PROVIDER", "SAME_TURN", "SCHEMA_FIELD",
           "TOOLS_ENTRY", "build_request", "parse_request"]

#: Tool metadata key: this tool starts a new ``tools`` entry, whose wrapper key
#: (``functionDeclarations`` or ``function_declarations``) is the value.
TOOLS_ENTRY = "tools_entry"
#: Tool / JsonSchemaOutput metadata key: the schema field the body used when it
#: is not the JSON Schema one (``parameters``, ``responseSchema``: the OpenAPI subset).
SCHEMA_FIELD = "schema_field"
#: Tool / JsonSchemaOutput metadata key: the body's own OpenAPI schema, kept when
#: writing the JSON Schema read from it would not give it back (lower-case types,
#: counts as strings...): written while the JSON Schema still stands for it.
OPENAPI_SCHEMA = "openapi_schema"
# The JSON Schema field beside each OpenAPI one (the API takes either, never both).
_JSON_SCHEMA_FIELD = {"parameters": "parametersJsonSchema",
                      "responseSchema": "responseJsonSchema"}

#: GenerationConfig's fields (REST ``GenerationConfig``; google-genai
#: ``types.GenerationConfig``), camelCase: an option of one of these names goes
#: inside ``generationConfig``.
GENERATION_FIELDS = frozenset({
    "stopSequences", "responseMimeType", "responseSchema", "responseJsonSchema",
    "responseModalities", "candidateCount", "maxOutputTokens", "temperature", "topP", "topK",
    "seed", "presencePenalty", "frequencyPenalty", "responseLogprobs", "logprobs",
    "enableEnhancedCivicAnswers", "speechConfig", "thinkingConfig", "imageConfig",
    "mediaResolution", "routingConfig", "modelSelectionConfig", "audioTimestamp",
    "enableAffectiveDialog", "audioTranscriptionConfig", "responseFormat", "translationConfig",
})

# Uniform options that are GenerationConfig fields under another name.
_SAMPLING = {"temperature": "temperature", "top_p": "topP", "max_tokens": "maxOutputTokens",
             "stop": "stopSequences", "seed": "seed"}
_SAMPLING_TYPES: dict[str, tuple[type, ...]] = {
    "temperature": (int, float), "topP": (int, float), "maxOutputTokens": (int,),
    "stopSequences": (list,), "seed": (int,)}

# Uniform options that are ThinkingConfig fields.
_THINKING = {"thinking_budget": "thinkingBudget", "include_thoughts": "includeThoughts",
             "reasoning_effort": "thinkingLevel"}
_THINKING_TYPES: dict[str, type] = {"thinkingBudget": int, "includeThoughts": bool,
                                    "thinkingLevel": str}
# reasoning_effort words of other wire formats -> the nearest thinkingLevel (the
# thinking guide's levels are minimal, low, medium, high; "minimal" matches "no
# thinking" for most queries: ai.google.dev/gemini-api/docs/thinking#thinking-levels).
_EFFORT = {"none": "minimal"}

# Uniform options this wire has no switch for: nothing is written.
_IMPLIED = ("include_usage", "parallel_tool_calls")

# tool_choice words <-> functionCallingConfig.mode.
_MODES = {"auto": "AUTO", "required": "ANY", "none": "NONE"}
_MODE_WORDS = {mode: word for word, mode in _MODES.items()}

_JSON = "application/json"
_MESSAGE_RECORDS = frozenset({SAME_TURN, ABSENT})


# ---------------------------------------------------------------- building


def build_request(request: Request, dialect: str | None) -> dict[str, Any]:
    """The body for ``request`` (see the module docstring); ``model`` and
    ``stream`` go in the URL, not here."""
    refuse_orphan_results(request.messages, NAME)
    options, foreign_thinking = prepared_options(request, NAME, implied=_IMPLIED)
    spelling = Spelling(path for path in options.pop(SNAKE_CASE, None) or ()
                        if isinstance(path, str))
    body: dict[str, Any] = {}
    systems = [m for m in request.messages if isinstance(m, SystemMessage)]
    turns: list[Message] = [m for m in request.messages if not isinstance(m, SystemMessage)]
    body["contents"] = _contents(turns, _calls(turns), foreign_thinking)
    if systems:
        body[spelling.key("systemInstruction")] = _system(systems)
    tools = _tools(request.tools or [])
    if tools:
        body["tools"] = tools
    tool_config = _tool_config(request.tool_choice, options, spelling)
    if tool_config is not None:
        _put(body, spelling.key("toolConfig"), tool_config)
    generation = _generation_config(options, request.json_output, spelling)
    if generation is not None:
        _put(body, spelling.key("generationConfig"), generation)
    return finished_body(body, options, put=_put)  # everything else, under its own name


def _put(target: dict[str, Any], key: str, value: Any) -> None:
    """Set a field; the same field given twice (in either spelling) with
    different values is an error, with equal values written once."""
    given = [k for k in dict.fromkeys((key, camel(key), snake(key))) if k in target]
    for existing in given:
        if target[existing] != value:
            raise ValueError(f"{camel(key)!r} is given twice, as {target[existing]!r} "
                             f"and as {value!r}")
    if not given:
        target[key] = value


def _pop_object(options: dict[str, Any], name: str) -> dict[str, Any] | None:
    """A wire object given as an option (``generationConfig={...}``): the base
    the built fields are added to."""
    for key in dict.fromkeys((name, snake(name))):
        if isinstance(options.get(key), dict):
            return dict(options.pop(key))
    return None


# ---------------------------------------------------------------- generationConfig


def _generation_config(options: dict[str, Any], json_output: bool | JsonSchemaOutput | None,
                       spelling: Spelling) -> Wire | None:
    """``generationConfig`` from the options it takes (popped from ``options``)."""
    base = _pop_object(options, "generationConfig")
    config: Wire = dict(base or {})

    def put_spelled(target: Wire, field: str, value: Any) -> None:
        """A field in the spelling the body was read in (camelCase unless snake_case)."""
        _put(target, spelling.key(field, f"generationConfig.{field}"), value)

    write_renamed(config, options, _SAMPLING, put=put_spelled)
    thinking = _thinking_config(options, spelling)
    if thinking is not None:
        _put(config, spelling.key("thinkingConfig", "generationConfig.thinkingConfig"), thinking)
    _write_audio(config, options.pop("audio", None))
    _write_json_output(config, json_output, spelling)
    for name in list(options):
        if camel(name) in GENERATION_FIELDS:
            _put(config, name, options.pop(name))
    return config if config or base is not None else None


def _thinking_config(options: dict[str, Any], spelling: Spelling) -> Wire | None:
    base = _pop_object(options, "thinkingConfig")
    config: Wire = dict(base or {})
    for uniform, field in _THINKING.items():
        if uniform in options:
            value = options.pop(uniform)
            if uniform == "reasoning_effort":
                value = _EFFORT.get(value, value)
            _put(config, spelling.key(field, f"generationConfig.thinkingConfig.{field}"), value)
    given = {camel(key) for key in config}
    if {"thinkingBudget", "thinkingLevel"} <= given:
        raise UnsupportedFeatureError(
            NAME, "a thinking budget and a thinking level together",
            "give thinking_budget or reasoning_effort (thinkingLevel), not both: the Gemini "
            "API refuses a request with both")
    return config if config or base is not None else None


def _write_audio(config: Wire, audio: Any) -> None:
    """``audio={"voice": ..., "format": ...}`` -> spoken output."""
    if audio is None:
        return
    if not isinstance(audio, dict) or not audio.keys() <= {"voice", "format"}:
        raise ValueError(f"audio must be {{'voice': ..., 'format': ...}}, not {audio!r}")
    if audio.get("format") not in (None, "pcm16"):
        raise UnsupportedFeatureError(NAME, f"audio format {audio['format']!r}",
                                      "Gemini speaks 24 kHz 16-bit PCM only (format 'pcm16')")
    _put(config, "responseModalities", ["AUDIO"])
    voice = audio.get("voice")
    if voice is not None:
        _put(config, "speechConfig", _speech_config(voice))


def _speech_config(voice: Any) -> Wire:
    return {"voiceConfig": {"prebuiltVoiceConfig": {"voiceName": voice}}}


def _write_json_output(config: Wire, json_output: bool | JsonSchemaOutput | None,
                       spelling: Spelling) -> None:
    """``responseMimeType: application/json`` and the schema, if any."""
    if json_output is None or json_output is False:
        return
    _put(config, spelling.key("responseMimeType", "generationConfig.responseMimeType"), _JSON)
    if isinstance(json_output, JsonSchemaOutput):
        metadata = extras_for(json_output.metadata, NAME)
        field = metadata.get(SCHEMA_FIELD, "responseJsonSchema")
        if field not in ("responseJsonSchema", "responseSchema"):
            raise ValueError(f"JsonSchemaOutput.metadata[{SCHEMA_FIELD!r}] must be "
                             f"'responseJsonSchema' or 'responseSchema', not {field!r}")
        field, schema = _schema_as(field, json_output.schema, metadata)
        _put(config, spelling.key(field, f"generationConfig.{field}"), schema)


def _schema_as(field: str, schema: dict[str, Any],
               metadata: Mapping[str, Any]) -> tuple[str, Any]:
    """The field and value that say ``schema`` (JSON Schema) where a body read
    it from ``field``: an OpenAPI field (``parameters``, ``responseSchema``)
    gets the body's own schema while ``schema`` still stands for it, else
    ``schema`` converted; a schema with no OpenAPI form goes to the JSON Schema
    field beside it. A JSON Schema field gets ``schema`` as it is."""
    if field not in _JSON_SCHEMA_FIELD:
        return field, schema
    given = metadata.get(OPENAPI_SCHEMA)
    if isinstance(given, dict) and from_openapi(given) == schema:
        return field, given
    converted = to_openapi(schema)
    return (field, converted) if converted is not None else (_JSON_SCHEMA_FIELD[field], schema)


def _read_schema(field: str, schema: dict[str, Any], metadata: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema a body's schema under ``field`` stands for: an OpenAPI
    one converted (kept in ``metadata`` when converting back would not give it
    exactly), a JSON Schema one as it is."""
    if field not in _JSON_SCHEMA_FIELD:
        return schema
    read = from_openapi(schema)
    if to_openapi(read) != schema:
        metadata[OPENAPI_SCHEMA] = schema
    return read


# ---------------------------------------------------------------- tools


def _tools(entries: list[Tool | dict[str, Any]]) -> list[Wire]:
    """Consecutive tools in one ``functionDeclarations`` entry (a tool marked
    :data:`TOOLS_ENTRY` starts its own); a dict entry as it is, unless another
    wire's reader kept it (its server tools are no Gemini tool entry: dropped,
    said by :func:`~streamkit.providers.function_tools.own_entry`)."""
    out: list[Wire] = []
    declarations: list[Wire] | None = None
    for entry in entries:
        if isinstance(entry, dict):
            kept = own_entry(entry, NAME)
            if kept is not None:
                out.append(kept)
                declarations = None
            continue
        mark = extras_for(entry.metadata, NAME).get(TOOLS_ENTRY)
        if declarations is None or isinstance(mark, str):
            declarations = []
            out.append({mark if isinstance(mark, str) else "functionDeclarations": declarations})
        declarations.append(_declaration(entry))
    return out


def _declaration(tool: Tool) -> Wire:
    """``{"name", "description", "parametersJsonSchema"}`` and the tool's
    Gemini extras."""
    metadata = extras_for(tool.metadata, NAME)
    spelling = Spelling.of(metadata)
    absent = absent_fields(metadata)
    out: Wire = {"name": tool.name}
    if "description" not in absent:  # a string (the API's docs call it required)
        out["description"] = tool.description if isinstance(tool.description, str) else ""
    if "parameters" not in absent:
        field, schema = _schema_as(metadata.get(SCHEMA_FIELD, "parametersJsonSchema"),
                                   tool.parameters, metadata)
        out[spelling.key(field)] = schema
    out.update({key: value for key, value in metadata.items()
                if key not in RECORDS and key not in _TOOL_RECORDS})
    return out


# A tool's metadata keys that are this module's records, never declaration fields.
_TOOL_RECORDS = frozenset({TOOLS_ENTRY, SCHEMA_FIELD, OPENAPI_SCHEMA})


def _tool_config(choice: str | None, options: dict[str, Any], spelling: Spelling) -> Wire | None:
    """``toolConfig`` with the ``functionCallingConfig`` of ``tool_choice``."""
    base = _pop_object(options, "toolConfig")
    config: Wire = dict(base or {})
    if choice is not None:
        mode = _MODES.get(choice)
        calling: Wire = {"mode": mode} if mode is not None else {
            "mode": "ANY",
            spelling.key("allowedFunctionNames",
                         "toolConfig.functionCallingConfig.allowedFunctionNames"): [choice]}
        _put(config, spelling.key("functionCallingConfig", "toolConfig.functionCallingConfig"),
             calling)
    return config if config or base is not None else None


# ---------------------------------------------------------------- messages


def _system(messages: list[SystemMessage]) -> Wire:
    """``systemInstruction``: the text parts of every system message, in order."""
    parts: list[Wire] = []
    extras: Wire = {}
    for message in messages:
        parts += ([{"text": message.content}] if isinstance(message.content, str)
                  else [text_part(block) for block in message.content])
        for key, value in extras_for(message.metadata, NAME).items():
            _put(extras, key, value)
    return {"parts": parts, **extras}


def _calls(messages: list[Message]) -> dict[str, ToolCallBlock]:
    """Every tool call of the conversation by id (a result is matched to its call)."""
    calls: dict[str, ToolCallBlock] = {}
    for message in messages:
        if isinstance(message, (AssistantMessage, ChatResponse)):
            for block in as_assistant(message).blocks:
                if isinstance(block, ToolCallBlock):
                    calls.setdefault(block.id, block)
    return calls


def _contents(messages: list[Message], calls: dict[str, ToolCallBlock],
              foreign_thinking: ForeignThinking) -> list[Wire]:
    """The wire contents, user and model turns alternating: a message joins
    the content before it when it is of the same turn (:func:`joins_previous`:
    back into the user content its reader split, or, from elsewhere, a tool
    result and the user's next words as one user content)."""
    out: list[Wire] = []
    for message in messages:
        if isinstance(message, ChatResponse):  # its metadata is the response's, not wire extras
            message = as_assistant(message)
        content = _content(message, calls, foreign_thinking)
        if content is None:
            continue
        if out and _same_turn(out[-1], content) and joins_previous(message, NAME):
            out[-1]["parts"] = [*out[-1]["parts"], *content["parts"]]
        else:
            out.append(content)
    return out


def _same_turn(previous: Wire, content: Wire) -> bool:
    """Whether two contents are one side's (a user content's ``role`` may be
    another word a reader kept, or absent: any but ``model`` is the user's)."""
    return (previous.get("role") == "model") == (content.get("role") == "model")


def _content(message: Message, calls: dict[str, ToolCallBlock],
             foreign_thinking: ForeignThinking) -> Wire | None:
    """One wire content (``None``: a turn with nothing Gemini can take)."""
    if isinstance(message, UserMessage):
        if isinstance(message.content, str):
            parts = [{"text": message.content}]
        else:
            parts = user_parts(message.content)
            if not parts and message.content:
                return None  # all of it another API's own items: nothing to send
        return _with_metadata({"role": "user", "parts": parts}, message.metadata)
    if isinstance(message, FunctionExecutionResultMessage):
        parts = [_result(result, calls) for result in message.content]
        return _with_metadata({"role": "user", "parts": parts}, message.metadata)
    assistant = as_assistant(cast(AssistantMessage | ChatResponse, message))
    own = is_own_turn(assistant.provider, NAME)
    blocks = assistant.blocks
    parts = model_parts(blocks, own=own, foreign_thinking=foreign_thinking)
    if not parts and blocks:
        return None  # everything was the other API's own: nothing to send
    # the message extras of another API's turn mean nothing here
    return _with_metadata({"role": "model", "parts": parts}, assistant.metadata if own else {})


def _with_metadata(content: Wire, metadata: dict[str, Any]) -> Wire:
    """The content with its Gemini extras (a ``role`` other than the default,
    or none); another wire's message extras are not Gemini fields."""
    return with_extras(content, metadata, NAME, _MESSAGE_RECORDS)


def _result(result: FunctionExecutionResult, calls: dict[str, ToolCallBlock]) -> Wire:
    """A ``functionResponse`` part: named after its call, with the call's id
    unless that id was made up (then Gemini matches by name and order)."""
    call = calls.get(result.call_id)
    name = result.name or (call.name if call is not None else None)
    if not name:
        raise UnsupportedFeatureError(
            NAME, f"tool result {result.call_id!r} without a name",
            "it needs a name (functionResponse.name is required) and answers no call of this "
            "conversation: set FunctionExecutionResult.name")
    write_id = not result.metadata.get(GENERATED_ID) and not (
        call is not None and made_up_id(call))
    return result_part(result, name=name, write_id=write_id)


# ---------------------------------------------------------------- reading


def parse_request(body: dict[str, Any], dialect: str | None) -> Request:
    """The :class:`Request` a body stands for (see the module docstring);
    ``model`` and ``stream`` are ``None`` (the URL says them)."""
    rest = copy.deepcopy(body)  # the Request shares no object with the body
    ids = StreamIds.of_body(body)  # the ids made up for the body derive from it: two reads agree
    spelling = Spelling()
    contents = take_list(rest, "contents", NAME)
    messages: list[Message] = []
    system_key = spelling.find(rest, "systemInstruction")
    if system_key is not None:
        system = _read_system(rest[system_key], ids)
        if system is not None:
            del rest[system_key]
            messages.append(system)
    messages += _read_contents(contents, ids)
    request = Request(messages=messages, options=Extras(NAME))
    _read_tools(rest, request)
    _read_tool_config(rest, request, spelling)
    _read_generation_config(rest, request, spelling)
    request.options.update(rest)
    if spelling.paths:
        request.options[SNAKE_CASE] = spelling.record()
    return request


def _read_system(wire: Any, ids: StreamIds) -> SystemMessage | None:
    """``systemInstruction`` as a :class:`SystemMessage` (``None``: not one that
    writes back exactly, so it stays an option)."""
    if not isinstance(wire, dict) or not isinstance(wire.get("parts"), list):
        return None
    try:
        blocks = [read_user_part(part, ids) for part in wire["parts"]]
    except ValueError:
        return None
    texts = [block for block in blocks if isinstance(block, TextBlock)]
    if len(texts) != len(blocks):
        return None
    plain = len(texts) == 1 and not texts[0].metadata
    message = SystemMessage(texts[0].text if plain else texts,
                            metadata=unread(wire, "parts", wire=NAME))
    return message if _system([message]) == wire else None


def _read_contents(contents: list[Any], ids: StreamIds) -> list[Message]:
    messages: list[Message] = []
    pending: list[ToolCallBlock] = []  # the calls of the last model content, unanswered
    for position, content in enumerate(contents):
        if not isinstance(content, dict) or not isinstance(content.get("parts"), list):
            raise InvalidBodyError(f"not a Gemini content: {str(content)[:200]}", wire=NAME,
                                   where=f"contents[{position}]")
        role = content.get("role")
        extras = unread(content, "role", "parts", wire=NAME)
        if role == "model":
            blocks: list[ContentBlock] = [read_model_part(part, ids)
                                          for part in content["parts"]]
            messages.append(AssistantMessage(blocks, provider=PROVIDER, metadata=extras))
            pending = [block for block in blocks if isinstance(block, ToolCallBlock)]
            continue
        if role is None:
            extras[ABSENT] = ["role"]
        elif role != "user":
            extras["role"] = role
        messages += _read_user_content(content["parts"], extras, pending, ids)
    return messages


def _read_user_content(parts: list[Any], metadata: Extras, pending: list[ToolCallBlock],
                       ids: StreamIds) -> list[Message]:
    """A user content: its runs of ``functionResponse`` parts become
    :class:`FunctionExecutionResultMessage` s, the other runs
    :class:`UserMessage` s (the later ones marked :data:`SAME_TURN`)."""
    call_id_for = _answering(pending, ids)

    def result_of(part: Any) -> FunctionExecutionResult | None:
        result = read_result(part, call_id_for, ids) if isinstance(part, dict) else None
        if result is not None:
            _answered(pending, result.call_id)
        return result

    return user_turns(parts, result_of, lambda part: read_user_part(part, ids), metadata,
                      _user_content)


def _user_content(blocks: list[UserContent]) -> str | list[UserContent]:
    """One plain text part is the string (``content="..."``, as users write it)."""
    if len(blocks) == 1 and isinstance(blocks[0], TextBlock) and not blocks[0].metadata:
        return blocks[0].text
    return blocks


def _answering(pending: list[ToolCallBlock], ids: StreamIds) -> Callable[[str], str]:
    """The call id a ``functionResponse`` without ``id`` answers: the earliest
    unanswered call of its name (a new id when there is none)."""
    def call_id_for(name: str) -> str:
        for block in pending:
            if block.name == name:
                return block.id
        return ids.make("call")
    return call_id_for


def _answered(pending: list[ToolCallBlock], call_id: str) -> None:
    for index, block in enumerate(pending):
        if block.id == call_id:
            del pending[index]
            return


def _read_tools(rest: dict[str, Any], request: Request) -> None:
    """``tools``: each ``functionDeclarations`` entry as :class:`Tool` s, any other
    entry as it is (all as they are unless they write back exactly)."""
    entries = rest.get("tools")
    if not isinstance(entries, list):
        return
    read: list[Tool | dict[str, Any]] = []
    for entry in entries:
        tools = _read_entry(entry)
        if tools is None:
            if not isinstance(entry, dict):
                return  # not a tool entry: kept as it is, with the rest
            read.append(entry)
            continue
        if read and isinstance(read[-1], Tool):  # written into the entry before otherwise
            tools[0].metadata[TOOLS_ENTRY] = next(iter(entry))
        read += tools
    if _tools(read) == entries:
        request.tools = [Extras(NAME, entry) if isinstance(entry, dict) else entry
                         for entry in read]
        del rest["tools"]


def _read_entry(entry: Any) -> list[Tool] | None:
    """A ``{"functionDeclarations": [...]}`` entry as tools (``None``: another entry)."""
    if not isinstance(entry, dict) or len(entry) != 1:
        return None
    spelling = Spelling()
    key = spelling.find(entry, "functionDeclarations")
    declarations = entry.get(key) if key is not None else None
    if not isinstance(declarations, list) or not declarations:
        return None
    tools = [_read_declaration(declaration) for declaration in declarations]
    if any(tool is None for tool in tools):
        return None
    out = cast(list[Tool], tools)
    if spelling.paths:  # the wrapper spelled function_declarations: its own entry
        out[0].metadata[TOOLS_ENTRY] = key
    return out


def _read_declaration(declaration: Any) -> Tool | None:
    if not isinstance(declaration, dict) or not isinstance(declaration.get("name"), str):
        return None
    spelling = Spelling()
    metadata = Extras(NAME)
    absent: list[str] = []
    description = declaration.get("description")
    if "description" not in declaration:
        absent.append("description")
    elif not isinstance(description, str):  # null or another type: written back as it was
        metadata["description"] = description
    schema_key = spelling.find(declaration, "parametersJsonSchema")
    if schema_key is None and "parameters" in declaration:
        schema_key = "parameters"
        metadata[SCHEMA_FIELD] = "parameters"
    schema = declaration.get(schema_key) if schema_key is not None else None
    if schema_key is None:
        absent.append("parameters")
    metadata.update({k: v for k, v in declaration.items()
                     if k not in ("name", "description", schema_key)})
    if spelling.paths:
        metadata[SNAKE_CASE] = spelling.record()
    if absent:
        metadata[ABSENT] = absent
    tool = Tool(name=declaration["name"],
                description=description if isinstance(description, str) else "",
                metadata=metadata)
    if isinstance(schema, dict):
        tool.parameters = _read_schema(metadata.get(SCHEMA_FIELD, ""), schema, metadata)
    try:
        return tool if _declaration(tool) == declaration else None
    except (ValueError, TypeError):
        return None


def _read_tool_config(rest: dict[str, Any], request: Request, spelling: Spelling) -> None:
    """``toolConfig.functionCallingConfig`` in a form :func:`_tool_config` writes
    -> ``tool_choice``; the rest of ``toolConfig`` stays an option."""
    local = Spelling(spelling.paths)
    key = local.find(rest, "toolConfig")
    config = rest.get(key) if key is not None else None
    if key is None or not isinstance(config, dict):
        return
    calling_key = local.find(config, "functionCallingConfig", "toolConfig.functionCallingConfig")
    calling = config.get(calling_key) if calling_key is not None else None
    if not isinstance(calling, dict):
        return
    choice = _read_calling(calling, local)
    if choice is None:
        return
    leftover = {k: v for k, v in config.items() if k != calling_key}
    options = {key: leftover} if leftover else {}
    if _tool_config(choice, dict(options), local) != config:
        return
    del rest[key]
    request.tool_choice = choice
    request.options.update(options)
    spelling.paths |= local.paths


def _read_calling(calling: Wire, spelling: Spelling) -> str | None:
    """A ``functionCallingConfig`` as a tool_choice word or name (``None``: another form)."""
    mode = calling.get("mode")
    names_key = spelling.find(calling, "allowedFunctionNames",
                              "toolConfig.functionCallingConfig.allowedFunctionNames")
    if names_key is None:
        return _MODE_WORDS.get(mode) if isinstance(mode, str) and len(calling) == 1 else None
    names = calling[names_key]
    if mode == "ANY" and len(calling) == 2 and isinstance(names, list) and len(names) == 1 and (
            isinstance(names[0], str) and names[0] not in _MODES):
        # a tool named like a word (``auto``) would read back as the word: kept as it is
        return names[0]
    return None


def _read_generation_config(rest: dict[str, Any], request: Request, spelling: Spelling) -> None:
    """``generationConfig`` -> uniform options and ``json_output``; its other
    fields are lifted to the top level of the options (kept inside a
    ``generationConfig`` option when that is not possible). Only when building
    them gives the object back exactly."""
    local = Spelling(spelling.paths)
    key = local.find(rest, "generationConfig")
    config = rest.get(key) if key is not None else None
    if key is None or not isinstance(config, dict):
        return
    leftover = dict(config)
    options: dict[str, Any] = {}
    for uniform, field in _SAMPLING.items():
        found = local.find(leftover, field, f"generationConfig.{field}")
        if found is not None and _typed(leftover[found], _SAMPLING_TYPES[field]):
            options[uniform] = leftover.pop(found)
    _read_thinking(leftover, options, local)
    json_output = _read_json_output(leftover, local)
    _read_audio(leftover, options)
    for name in list(leftover):  # lifted under its own name, unless the top level has it
        if camel(name) in GENERATION_FIELDS and name not in rest and name not in options:
            options[name] = leftover.pop(name)
    if leftover or (not options and json_output is None):
        options[key] = leftover
    if _generation_config(dict(options), json_output, local) != config:
        return
    del rest[key]
    request.options.update(options)
    request.json_output = json_output
    spelling.paths |= local.paths


def _typed(value: Any, types: tuple[type, ...]) -> bool:
    """``value`` is of one of ``types`` (``bool`` is not a number here)."""
    return type(value) in types or (float in types and type(value) is int)


def _read_thinking(config: Wire, options: dict[str, Any], spelling: Spelling) -> None:
    key = spelling.find(config, "thinkingConfig", "generationConfig.thinkingConfig")
    thinking = config.get(key) if key is not None else None
    if key is None or not isinstance(thinking, dict):
        return
    leftover = dict(thinking)
    read = False
    for uniform, field in _THINKING.items():
        found = spelling.find(leftover, field, f"generationConfig.thinkingConfig.{field}")
        if found is None or type(leftover[found]) is not _THINKING_TYPES[field]:
            continue
        if uniform == "reasoning_effort" and leftover[found] in _EFFORT:
            continue  # a word that would not read back
        options[uniform] = leftover.pop(found)
        read = True
    put_back(config, key, leftover, keep_empty=not read)


def _read_json_output(config: Wire, spelling: Spelling) -> bool | JsonSchemaOutput | None:
    """``responseMimeType: application/json`` (and a schema) -> ``json_output``."""
    key = spelling.find(config, "responseMimeType", "generationConfig.responseMimeType")
    if key is None or config[key] != _JSON:
        return None
    del config[key]
    for field in ("responseJsonSchema", "responseSchema"):
        found = spelling.find(config, field, f"generationConfig.{field}")
        if found is not None and isinstance(config[found], dict):
            metadata = Extras(NAME, {} if field == "responseJsonSchema"
                              else {SCHEMA_FIELD: field})
            schema = _read_schema(field, config.pop(found), metadata)
            title = schema.get("title")
            return JsonSchemaOutput(
                name=title if isinstance(title, str) else "output", schema=schema,
                metadata=metadata)
    return True


def _read_audio(config: Wire, options: dict[str, Any]) -> None:
    """``responseModalities: ["AUDIO"]`` with a prebuilt voice (or none) -> ``audio``."""
    if config.get("responseModalities") != ["AUDIO"]:
        return
    speech = config.get("speechConfig")
    voice = path(speech, "voiceConfig", "prebuiltVoiceConfig", "voiceName")
    if speech is not None and (voice is None or speech != _speech_config(voice)):
        return
    del config["responseModalities"]
    config.pop("speechConfig", None)
    options["audio"] = {"voice": voice} if voice is not None else {}
