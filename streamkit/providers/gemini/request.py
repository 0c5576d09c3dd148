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
- ``tools`` and ``tool_choice`` (``toolConfig.functionCallingConfig``):
  :mod:`.tools`;
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

from collections.abc import Callable
from typing import Any, cast

from streamkit.model.json_values import copy_json

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
from ...conversation.request import (
    REASONING_EFFORTS,
    ForeignThinking,
    JsonSchemaOutput,
    Request,
)
from ...model.blocks import ContentBlock, TextBlock, ToolCallBlock
from ...model.errors import InvalidBodyError, UnsupportedFeatureError, warn_lossy
from ...model.extras import Extras, extras_for, origin_of
from ...model.ids import StreamIds
from ...model.response import ChatResponse
from ..coerce import Wire, check_uniform_options, path
from ..function_tools import check_named_choice
from ..lossless import ABSENT, put_back, take_list, unread, with_extras
from ..options import (
    finished_body,
    prepared_options,
    write_renamed,
)
from ..turns import SAME_TURN, is_own_turn, joins_previous, refuse_orphan_results, user_turns
from .acceptance import honour_rules
from .content import (
    GENERATED_ID,
    made_up_id,
    model_parts,
    read_model_part,
    read_result,
    read_user_part,
    result_part,
    text_part,
    user_parts,
)
from .schema import SCHEMA_FIELD, read_schema, schema_as
from .spelling import SNAKE_CASE, Spelling, camel, pop_object, put_field
from .tools import read_tools, write_tools
from .wire import NAME, PROVIDER

__all__ = ["GENERATION_FIELDS", "PROVIDER", "SAME_TURN", "build_request", "parse_request"]

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
# and OpenAI's prompt-cache hints: Gemini caches prefixes implicitly, keyed by nothing else
_IMPLIED = ("include_usage", "parallel_tool_calls", "prompt_cache_key", "prompt_cache_retention")

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
    if origin_of(request.options) != NAME:  # a body of this wire goes back as it came
        honour_rules(body)
    write_tools(body, request, options, spelling)
    generation = _generation_config(options, request.json_output, spelling)
    if generation is not None:
        put_field(body, spelling.key("generationConfig"), generation)
    return finished_body(body, options, put=put_field)  # everything else, under its own name


# ---------------------------------------------------------------- generationConfig


def _generation_config(options: dict[str, Any], json_output: bool | JsonSchemaOutput | None,
                       spelling: Spelling) -> Wire | None:
    """``generationConfig`` from the options it takes (popped from ``options``)."""
    base = pop_object(options, "generationConfig")
    config: Wire = dict(base or {})

    def put_spelled(target: Wire, field: str, value: Any) -> None:
        """A field in the spelling the body was read in (camelCase unless snake_case)."""
        put_field(target, spelling.key(field, f"generationConfig.{field}"), value)

    write_renamed(config, options, _SAMPLING, put=put_spelled)
    thinking = _thinking_config(options, spelling)
    if thinking is not None:
        put_field(config, spelling.key("thinkingConfig", "generationConfig.thinkingConfig"),
                  thinking)
    _write_audio(config, options.pop("audio", None))
    _write_json_output(config, json_output, spelling)
    for name in list(options):
        if camel(name) in GENERATION_FIELDS:
            put_field(config, name, options.pop(name))
    return config if config or base is not None else None


def _thinking_config(options: dict[str, Any], spelling: Spelling) -> Wire | None:
    base = pop_object(options, "thinkingConfig")
    config: Wire = dict(base or {})
    for uniform, field in _THINKING.items():
        if uniform in options:
            value = options.pop(uniform)
            if uniform == "reasoning_effort":
                value = _EFFORT.get(value, value)
            put_field(config, spelling.key(field, f"generationConfig.thinkingConfig.{field}"),
                      value)
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
    put_field(config, "responseModalities", ["AUDIO"])
    voice = audio.get("voice")
    if voice is not None:
        put_field(config, "speechConfig", _speech_config(voice))


def _speech_config(voice: Any) -> Wire:
    return {"voiceConfig": {"prebuiltVoiceConfig": {"voiceName": voice}}}


def _write_json_output(config: Wire, json_output: bool | JsonSchemaOutput | None,
                       spelling: Spelling) -> None:
    """``responseMimeType: application/json`` and the schema, if any."""
    if json_output is None or json_output is False:
        return
    put_field(config, spelling.key("responseMimeType", "generationConfig.responseMimeType"), _JSON)
    if isinstance(json_output, JsonSchemaOutput):
        metadata = extras_for(json_output.metadata, NAME)
        field = metadata.get(SCHEMA_FIELD, "responseJsonSchema")
        if field not in ("responseJsonSchema", "responseSchema"):
            raise ValueError(f"JsonSchemaOutput.metadata[{SCHEMA_FIELD!r}] must be "
                             f"'responseJsonSchema' or 'responseSchema', not {field!r}")
        field, schema = schema_as(field, json_output.schema, metadata)
        put_field(config, spelling.key(field, f"generationConfig.{field}"), schema)


# ---------------------------------------------------------------- messages


def _system(messages: list[SystemMessage]) -> Wire:
    """``systemInstruction``: the text parts of every system message, in order."""
    parts: list[Wire] = []
    extras: Wire = {}
    for message in messages:
        parts += ([{"text": message.content}] if isinstance(message.content, str)
                  else [text_part(block) for block in message.content])
        for key, value in extras_for(message.metadata, NAME).items():
            put_field(extras, key, value)
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
    joined = -1  # the index of the content whose parts list is this builder's own
    for message in messages:
        if isinstance(message, ChatResponse):  # its metadata is the response's, not wire extras
            message = as_assistant(message)
        content = _content(message, calls, foreign_thinking)
        if content is None:
            continue
        if out and _same_turn(out[-1], content) and joins_previous(message, NAME):
            if joined != len(out) - 1:  # copied once, then extended: linear in the parts
                out[-1]["parts"] = list(out[-1]["parts"])
                joined = len(out) - 1
            out[-1]["parts"].extend(content["parts"])
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
    write_id = not result.metadata.get(GENERATED_ID) and not (
        call is not None and made_up_id(call))
    name = (result.name or (call.name if call is not None else None)) if (
        write_id or call is None) else _name_pairing(result, call)
    if not name:
        raise UnsupportedFeatureError(
            NAME, f"tool result {result.call_id!r} without a name",
            "it needs a name (functionResponse.name is required) and answers no call of this "
            "conversation: set FunctionExecutionResult.name")
    return result_part(result, name=name, write_id=write_id)


def _name_pairing(result: FunctionExecutionResult, call: ToolCallBlock) -> str:
    """The name of a response sent without id: its call's, which is how Gemini
    pairs it (the earliest unanswered call of its name in the model turn
    before), the rule Ollama's reader also pairs by when its ``tool_name``
    names no unanswered call (else it picks the same call): the pairing is
    kept. A name of the result's own that differs is dropped, and said."""
    if result.name and result.name != call.name:
        warn_lossy(NAME, f"the name {result.name!r} of the result answering the {call.name!r} "
                   f"call", "a response without id answers the call of its name: it goes "
                   "under its call's")
    return call.name


# ---------------------------------------------------------------- reading


def parse_request(body: dict[str, Any], dialect: str | None) -> Request:
    """The :class:`Request` a body stands for (see the module docstring);
    ``model`` and ``stream`` are ``None`` (the URL says them)."""
    rest = copy_json(body)  # the Request shares no object with the body
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
    read_tools(rest, request, spelling)
    check_named_choice(request, NAME)
    _read_generation_config(rest, request, spelling)
    request.options.update(rest)
    check_uniform_options(request.options, NAME, {
        uniform: f"generationConfig.{field}" for uniform, field in _SAMPLING.items()})
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
        if found is not None and leftover[found] is not None:
            _check_type(leftover[found], _SAMPLING_TYPES[field], f"generationConfig.{field}")
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


def _check_type(value: Any, types: tuple[type, ...], where: str) -> None:
    """Refuse a field the reader takes whose value has none of its ``types``:
    taken, another wire's builder would write it as it came."""
    if not _typed(value, types):
        raise InvalidBodyError(f"{where!r} must be {' or '.join(t.__name__ for t in types)}, "
                               f"not {type(value).__name__}", wire=NAME, where=where)


def _read_thinking(config: Wire, options: dict[str, Any], spelling: Spelling) -> None:
    key = spelling.find(config, "thinkingConfig", "generationConfig.thinkingConfig")
    thinking = config.get(key) if key is not None else None
    if key is None or not isinstance(thinking, dict):
        return
    leftover = dict(thinking)
    read = False
    for uniform, field in _THINKING.items():
        found = spelling.find(leftover, field, f"generationConfig.thinkingConfig.{field}")
        if found is None or leftover[found] is None:
            continue
        _check_type(leftover[found], (_THINKING_TYPES[field],),
                    f"generationConfig.thinkingConfig.{field}")
        if uniform == "reasoning_effort" and (leftover[found] in _EFFORT
                                              or leftover[found] not in REASONING_EFFORTS):
            continue  # a word that would not read back, or one only Gemini says
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
            schema = read_schema(field, config.pop(found), metadata)
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
