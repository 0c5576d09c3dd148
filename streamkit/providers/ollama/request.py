"""Ollama's native ``/api/chat`` request body, both ways.

:func:`build_request` writes the body Ollama's ``/api/chat`` takes (its
``docs/api.md``, "Generate a chat completion", and ``api/types.go``
``ChatRequest`` / ``Message``); :func:`parse_request` reads one back into a
:class:`~streamkit.request.Request`, so that ``build_request(parse_request(b))
== b`` as data for every body that follows the documented API.

The body::

    {"model": "qwen3", "messages": [...], "tools": [{"type": "function",
     "function": {"name", "description", "parameters"}}], "format": "json" | {schema},
     "options": {"temperature", "top_p", "seed", "stop", "num_predict", ...},
     "stream": true, "think": true | false | "low" | "medium" | "high" | "max",
     "keep_alive": "5m", ...}

One wire message per streamkit message, ``content`` always a string:

=====================================  =============================================
streamkit                              Ollama message
=====================================  =============================================
SystemMessage                          ``{"role": "system", "content"}``
UserMessage (text, images)             ``{"role": "user", "content", "images": [b64]}``
AssistantMessage / ChatResponse        ``{"role": "assistant", "content", "thinking",
                                       "tool_calls": [{"id", "function": {"index",
                                       "name", "arguments": {...}}}], "images"}``
FunctionExecutionResult                ``{"role": "tool", "content", "tool_name",
                                       "tool_call_id", "images"}`` (one per result)
=====================================  =============================================

Images are base64 without a ``data:`` prefix and without a media type (Ollama
sniffs the bytes); a ``data:`` URL is unpacked, a web URL is refused (sans-IO:
nothing is fetched here) and so is a non-image file, with a message naming the
block. Tool call ``arguments`` go as a JSON object (Ollama refuses the JSON
text). A tool result's ``is_error`` has no field: the content says it (see
:meth:`streamkit.tools.Tool.run_json`). ``tool_name`` is filled from the call
it answers when the result does not name it.

Options. Uniform names map to Ollama's (both ways): ``temperature``,
``top_p``, ``seed``, ``stop``, ``max_tokens`` (``num_predict``) go inside
``options``; ``reasoning_effort`` is ``think`` with a level (``none`` is
``think: false``, ``minimal`` the lowest level ``low``, ``xhigh`` ``max``);
``thinking_budget`` can only switch thinking on (``> 0``) or off (``0``):
Ollama has no budget. Ollama's own model options (``top_k``, ``num_ctx``,
``repeat_penalty``...) may be given at the top level and go inside
``options`` (so ``frequency_penalty`` from an OpenAI request lands where
Ollama reads it); ``parse_request`` reads them back to the top level. Dropped,
because the wire has no such switch: ``include_usage`` (Ollama always reports
its counters), ``include_thoughts`` (thinking comes back whenever the model
thinks), ``parallel_tool_calls``. ``audio`` output is refused: no Ollama model
speaks. Anything else is passed through under its own name (``keep_alive``,
``truncate``, ``shift``, ``logprobs``, ``top_logprobs``, a ``think: true``).

Tools. A :class:`~streamkit.tools.Tool` is ``{"type": "function", "function":
{"name", "description", "parameters"}}`` (no ``strict``: Ollama has none), its
parameters rewritten by :func:`ollama_schema` into what the server keeps
(nested models inlined); a dict goes as it is.

``tool_choice``: Ollama has none. ``auto`` and ``required`` send the tools
(``required`` cannot be enforced), ``none`` sends no tools, a tool's name sends
only that tool (the model may still answer in text).
``json_output=True`` is ``format: "json"``, a schema is ``format: {schema}``.

Sending a turn back (same wire). Every block Ollama produced goes back:
thinking as ``thinking``, text as ``content``, tool calls with their ``id``
and ``index``, images. A call id the stream parser made up (Ollama before
0.12 sent none) is sent too: servers that do not know ids ignore it.

Cross-provider policy. An assistant turn from another wire format: its
signatures, encrypted / redacted reasoning, provider items (``RawBlock``),
tool-result blocks, non-image data (audio) and block metadata are dropped
(Ollama has no field for any of them); visible thinking becomes text, ``<think>
... </think>`` before the text it preceded (as the recorded Cerebras client
does), or is dropped with ``foreign_thinking="drop"``; text and tool calls (id,
name, arguments) go through. A turn without a ``provider`` (built by hand) is
treated as Ollama's own. There are no dialects: ``dialect`` is ignored.

What ``parse_request`` cannot model is kept so the body comes back exactly:
unknown top-level fields in ``Request.options``, unknown fields of a message in
its ``metadata`` (merged back into the wire message), unknown keys of
``options`` under ``options["options"]``. Two metadata keys are this module's
own, never sent: a message's ``"absent"`` lists documented fields the body
left out (``content``, ``tool_name``, ``tool_call_id``), and a tool call's
``"generated_id"`` marks an id made up because the body had none (it is not
sent, nor is ``tool_call_id`` on the results that answer it). A tool message
without ``tool_call_id`` answers the next unanswered call of the assistant
message before it (the one of its ``tool_name`` first), so a conversation read
here can be sent to a wire format that needs call ids.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from typing import Any
from urllib.parse import unquote_to_bytes

import msgspec

from ...blocks import (
    Base64Source,
    DataBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    URLSource,
    new_block_id,
)
from ...messages import (
    AssistantMessage,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    Message,
    SystemMessage,
    UserContent,
    UserMessage,
    as_assistant,
)
from ...request import JsonSchemaOutput, Request
from ...response import ChatResponse
from ...tools import Tool, inline_refs
from ..options import set_field, write_renamed
from ..turns import foreign_thinking_policy, is_own_turn, thinking_as_text
from .stream import _media_type as media_type_of  # private there: see the report

__all__ = ["ABSENT", "GENERATED_ID", "build_messages", "build_request", "ollama_schema",
           "parse_messages", "parse_request"]

#: Message metadata key: documented fields the parsed body did not have.
ABSENT = "absent"
#: Tool call metadata key: the id was made up (the body had none); never sent.
GENERATED_ID = "generated_id"
_RESERVED = frozenset({ABSENT, GENERATED_ID})

#: Uniform option -> its name inside Ollama's ``options`` object.
_MODEL_OPTIONS = {"temperature": "temperature", "top_p": "top_p", "seed": "seed",
                  "stop": "stop", "max_tokens": "num_predict"}
_UNIFORM_OF = {wire: uniform for uniform, wire in _MODEL_OPTIONS.items()}
#: Ollama's own model options (api/types.go ``Options`` and ``Runner``, the
#: ollama package's ``Options``, docs/api.md "Generate request (With
#: options)"): at the top level of a Request they go inside ``options``.
_OLLAMA_OPTIONS = frozenset({
    "num_keep", "top_k", "min_p", "typical_p", "tfs_z", "repeat_last_n",
    "repeat_penalty", "presence_penalty", "frequency_penalty", "mirostat", "mirostat_tau",
    "mirostat_eta", "penalize_newline", "numa", "num_ctx", "num_batch", "num_gpu",
    "main_gpu", "low_vram", "f16_kv", "logits_all", "vocab_only", "use_mmap", "use_mlock",
    "embedding_only", "num_thread", "draft_num_predict",
})
#: reasoning_effort -> think (``ThinkValue.IsValid``: a bool or "low" / "medium" / "high" / "max").
_THINK: dict[str, bool | str] = {"none": False, "minimal": "low", "low": "low",
                                  "medium": "medium", "high": "high", "xhigh": "max",
                                  "max": "max"}
_THINK_LEVELS = frozenset({"low", "medium", "high", "max"})
#: Uniform options with no Ollama switch (see the module docstring).
_NO_SUCH_SWITCH = frozenset({"include_usage", "include_thoughts", "parallel_tool_calls"})
#: Tool call metadata keys that belong inside ``function`` (``ToolCallFunction.Index``).
_FUNCTION_FIELDS = frozenset({"index"})
_TOOL_KEYS = frozenset({"type", "function"})
_FUNCTION_KEYS = frozenset({"name", "description", "parameters"})
_ROLES = frozenset({"system", "user", "assistant", "tool"})
_ENCODE = msgspec.json.encode
# What separates tagged thinking from the text it preceded in one content string.
_AFTER_THINKING = "\n\n"


# ================================================================ build

def build_request(request: Request, dialect: str | None) -> dict[str, Any]:
    """The ``/api/chat`` body for ``request`` (see the module docstring)."""
    options = dict(request.options)
    foreign_thinking = foreign_thinking_policy(options.pop("foreign_thinking", "text"))
    if "audio" in options:
        raise ValueError("Ollama's /api/chat has no audio output (the 'audio' option)")
    body: dict[str, Any] = {}
    if request.model is not None:
        body["model"] = request.model
    body["messages"] = build_messages(request.messages, foreign_thinking=foreign_thinking)
    tools = _chosen_tools(request.tools, request.tool_choice)
    if tools is not None:
        body["tools"] = [_tool(item) for item in tools]
    if request.json_output is not None and request.json_output is not False:
        body["format"] = (request.json_output.schema
                          if isinstance(request.json_output, JsonSchemaOutput) else "json")
    model_options = _model_options(options)
    if model_options is not None:
        body["options"] = model_options
    if request.stream is not None:
        body["stream"] = request.stream
    think = _think(options)
    if think is not None:
        body["think"] = think
    for key in _NO_SUCH_SWITCH:
        options.pop(key, None)
    body.update(options)  # everything else, under its own name
    return body


def build_messages(messages: Sequence[Message], *,
                   foreign_thinking: str = "text") -> list[dict[str, Any]]:
    """The ``messages`` array: one wire message per message, one per tool result."""
    out: list[dict[str, Any]] = []
    calls = _Calls()
    for message in messages:
        if isinstance(message, SystemMessage):
            out.append(_system(message))
        elif isinstance(message, UserMessage):
            out.append(_user(message))
        elif isinstance(message, (AssistantMessage, ChatResponse)):
            out.append(_assistant(as_assistant(message), foreign_thinking, calls))
        elif isinstance(message, FunctionExecutionResultMessage):
            out.extend(_tool_result(result, calls) for result in message.content)
        else:
            raise TypeError(f"not a message: {type(message).__name__}")
    return out


class _Calls:
    """What later tool results need to know about earlier tool calls: the tool
    each id called, and which ids were made up (never sent)."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.made_up: set[str] = set()


def _with_extras(wire: dict[str, Any], metadata: dict[str, Any]) -> dict[str, Any]:
    """``wire`` with the fields a parsed body had that the model has no place
    for, and without the documented fields it did not have."""
    for key, value in metadata.items():
        if key not in _RESERVED:
            wire[key] = value
    for key in metadata.get(ABSENT, ()):
        wire.pop(key, None)
    return wire


def _system(message: SystemMessage) -> dict[str, Any]:
    return _with_extras({"role": "system", "content": message.text}, message.metadata)


def _user(message: UserMessage) -> dict[str, Any]:
    texts: list[str] = []
    images: list[str] = []
    for block in message.blocks:
        if isinstance(block, TextBlock):
            texts.append(block.text)
        elif isinstance(block, DataBlock):
            images.append(_image(block))
        # a RawBlock is another wire format's item: Ollama has no place for it
    wire: dict[str, Any] = {"role": "user", "content": "\n".join(texts)}
    if images:
        wire["images"] = images
    return _with_extras(wire, message.metadata)


def _assistant(message: AssistantMessage, foreign_thinking: str,
               calls: _Calls) -> dict[str, Any]:
    native = is_own_turn(message.provider, "ollama")
    text: list[str] = []
    thinking: list[str] = []
    tool_calls: list[dict[str, Any]] = []
    images: list[str] = []
    for block in message.blocks:
        if isinstance(block, TextBlock):
            text.append(block.text)
        elif isinstance(block, ThinkingBlock):
            if not block.thinking:
                continue  # redacted / encrypted only: nothing Ollama can read
            if native:
                thinking.append(block.thinking)
            elif foreign_thinking == "text":
                text.append(thinking_as_text(block.thinking) + _AFTER_THINKING)
        elif isinstance(block, ToolCallBlock):
            tool_calls.append(_tool_call(block, native, calls))
        elif isinstance(block, DataBlock):
            image = _image_or_none(block)
            if image is not None:
                images.append(image)
        # RawBlock, ToolResultBlock: provider items Ollama cannot take
    wire: dict[str, Any] = {"role": "assistant", "content": "".join(text)}
    if thinking:
        wire["thinking"] = "".join(thinking)
    if tool_calls:
        wire["tool_calls"] = tool_calls
    if images:
        wire["images"] = images
    return _with_extras(wire, message.metadata)


def _tool_call(block: ToolCallBlock, native: bool, calls: _Calls) -> dict[str, Any]:
    """One ``tool_calls`` entry; only Ollama's own blocks bring their metadata."""
    calls.names[block.id] = block.name
    metadata = block.metadata if native else {}
    wire: dict[str, Any] = {}
    if metadata.get(GENERATED_ID):
        calls.made_up.add(block.id)
    else:
        wire["id"] = block.id
    function: dict[str, Any] = {}
    for key, value in metadata.items():
        if key in _FUNCTION_FIELDS:
            function[key] = value
        elif key not in _RESERVED:
            wire[key] = value
    function["name"] = block.name
    function["arguments"] = _arguments(block)
    wire["function"] = function
    return wire


def _arguments(block: ToolCallBlock) -> dict[str, Any]:
    """The arguments as the object Ollama takes (cut-off JSON: what was parsed
    of it; not an object: none)."""
    try:
        value = json.loads(block.input) if block.input.strip() else {}
    except json.JSONDecodeError:
        try:
            value = block.partial_arguments
        except ValueError:
            value = {}
    return value if isinstance(value, dict) else {}


def _tool_result(result: FunctionExecutionResult, calls: _Calls) -> dict[str, Any]:
    texts = [block.text for block in result.blocks if isinstance(block, TextBlock)]
    images = [_image(block) for block in result.blocks if isinstance(block, DataBlock)]
    wire: dict[str, Any] = {"role": "tool", "content": "\n".join(texts)}
    if images:
        wire["images"] = images
    name = result.name or calls.names.get(result.call_id)
    if name:
        wire["tool_name"] = name
    if result.call_id and result.call_id not in calls.made_up:
        wire["tool_call_id"] = result.call_id
    return _with_extras(wire, result.metadata)


def _image(block: DataBlock) -> str:
    """An image as Ollama takes it: base64 of the bytes, no ``data:`` prefix."""
    media_type = block.media_type.split(";", 1)[0].strip().lower()
    if media_type and not media_type.startswith("image/") and (
            media_type != "application/octet-stream"):
        raise ValueError(f"Ollama's messages take images only; block {block.id!r} is "
                         f"{block.media_type!r}")
    source = block.source
    if isinstance(source, URLSource):
        data = _data_url_bytes(source.url)
        if data is None:
            raise ValueError(f"Ollama takes image bytes, not URLs: fetch {source.url!r} (block "
                             f"{block.id!r}) and send the bytes")
        return base64.b64encode(data).decode("ascii")
    original = block.metadata.get("base64")
    if isinstance(original, str) and _decodes_to(original, source):
        return original  # the body's own spelling of these bytes
    return source.data


def _image_or_none(block: DataBlock) -> str | None:
    """An assistant turn's image, or ``None`` for what Ollama cannot take back."""
    try:
        return _image(block)
    except ValueError:
        return None


def _decodes_to(text: str, source: Base64Source) -> bool:
    try:
        return binascii.a2b_base64(text) == source.raw
    except binascii.Error:
        return False


def _data_url_bytes(url: str) -> bytes | None:
    """The bytes of a ``data:`` URL (``None`` for any other URL)."""
    if not url.startswith("data:") or "," not in url:
        return None
    header, payload = url[5:].split(",", 1)
    if header.endswith(";base64"):
        return base64.b64decode(payload)
    return unquote_to_bytes(payload)


def _chosen_tools(tools: list[Tool | dict[str, Any]] | None,
                  choice: str | None) -> list[Tool | dict[str, Any]] | None:
    """The tools to send for ``tool_choice`` (Ollama has no such field)."""
    if tools is None or choice in (None, "auto", "required"):
        return tools
    if choice == "none":
        return None
    chosen = [item for item in tools if _tool_name(item) == choice]
    if not chosen:
        raise ValueError(f"tool_choice names {choice!r}, which is not among the tools")
    return chosen


def _tool_name(item: Tool | dict[str, Any]) -> str | None:
    if isinstance(item, Tool):
        return item.name
    function = item.get("function")
    name = function.get("name") if isinstance(function, dict) else None
    return name if isinstance(name, str) else None


def _tool(item: Tool | dict[str, Any]) -> dict[str, Any]:
    """A tool definition; a dict is the wire's own entry, sent as it is."""
    if isinstance(item, dict):
        return item
    function: dict[str, Any] = {"name": item.name}
    if item.description:
        function["description"] = item.description
    function["parameters"] = ollama_schema(item.parameters)
    return {"type": "function", "function": function}


def ollama_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Tool parameters in the form Ollama's server keeps.

    The server decodes ``parameters`` into Go structs (api/types.go
    ``ToolFunctionParameters``: type, $defs, items, required, properties;
    ``ToolProperty``: anyOf, type, items, description, enum, properties,
    required) and renders the model's prompt from them, so any other keyword of
    a property is silently lost: a ``$ref`` to a nested model (the model would
    see a property with no type), a ``const``, a ``oneOf``. Refs are inlined
    (:func:`~streamkit.tools.inline_refs`), ``const`` becomes a one-value
    ``enum``, ``oneOf`` becomes ``anyOf``; other keywords stay (harmless).
    """
    return _keep_forms(inline_refs(schema))


_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_ONES = ("items", "additionalProperties", "not")


def _keep_forms(node: dict[str, Any]) -> dict[str, Any]:
    """``const`` / ``oneOf`` rewritten in ``node`` and every schema inside it
    (by keyword: a property named "const" is not the keyword)."""
    out = dict(node)
    if "const" in out and "enum" not in out:
        out["enum"] = [out.pop("const")]
    if "oneOf" in out and "anyOf" not in out:
        out["anyOf"] = out.pop("oneOf")
    for key in _SCHEMA_MAPS:
        if isinstance(out.get(key), dict):
            out[key] = {name: _keep_forms(sub) if isinstance(sub, dict) else sub
                        for name, sub in out[key].items()}
    for key in _SCHEMA_LISTS:
        if isinstance(out.get(key), list):
            out[key] = [_keep_forms(sub) if isinstance(sub, dict) else sub for sub in out[key]]
    for key in _SCHEMA_ONES:
        if isinstance(out.get(key), dict):
            out[key] = _keep_forms(out[key])
        elif key == "items" and isinstance(out.get(key), list):
            out[key] = [_keep_forms(sub) if isinstance(sub, dict) else sub for sub in out[key]]
    return out


def _model_options(options: dict[str, Any]) -> Any:
    """The ``options`` object: the body's own, the uniform options under
    Ollama's names, Ollama's model options given at the top level. Consumes
    them from ``options``; ``None`` when there are none."""
    given = options.pop("options", None)
    if given is not None and not isinstance(given, dict):
        return given  # not an object: the caller's, verbatim
    out: dict[str, Any] = dict(given) if isinstance(given, dict) else {}
    write_renamed(out, options, _MODEL_OPTIONS, put=set_field)
    for key in [key for key in options if key in _OLLAMA_OPTIONS]:
        out[key] = options.pop(key)
    return out if out or given is not None else None


def _think(options: dict[str, Any]) -> bool | str | None:
    """``think`` from ``reasoning_effort`` or ``thinking_budget`` (consumed);
    a ``think`` given under its own name stays in ``options`` and wins."""
    effort = options.pop("reasoning_effort", None)
    budget = options.pop("thinking_budget", None)
    if effort is not None:
        if effort not in _THINK:
            raise ValueError(f"reasoning_effort {effort!r} has no Ollama think level "
                             f"(known: {', '.join(_THINK)})")
        return _THINK[effort]
    if budget is not None:
        return bool(budget)
    return None


# ================================================================ parse

def parse_request(body: dict[str, Any], dialect: str | None) -> Request:
    """The :class:`~streamkit.request.Request` an ``/api/chat`` body stands for."""
    rest = dict(body)
    request = Request(messages=[])
    model = rest.pop("model", None)
    if isinstance(model, str) or model is None:
        request.model = model
    else:
        rest["model"] = model
    messages = rest.pop("messages", [])
    if not isinstance(messages, list):
        raise ValueError(f"'messages' must be a list, not {type(messages).__name__}")
    request.messages = parse_messages(messages)
    tools = rest.pop("tools", None)
    if isinstance(tools, list) and all(isinstance(item, dict) for item in tools):
        request.tools = [_parse_tool(item) for item in tools]
    elif tools is not None:
        rest["tools"] = tools
    if "format" in rest:
        fmt = rest["format"]
        if fmt == "json":
            request.json_output = True
            del rest["format"]
        elif isinstance(fmt, dict):
            title = fmt.get("title")
            request.json_output = JsonSchemaOutput(
                name=title if isinstance(title, str) else "output", schema=fmt)
            del rest["format"]
    if isinstance(rest.get("stream"), bool):
        request.stream = rest.pop("stream")
    options: dict[str, Any] = {}
    if isinstance(rest.get("options"), dict):
        options.update(_parse_model_options(rest.pop("options")))
    think = rest.get("think")
    if isinstance(think, str) and think in _THINK_LEVELS:
        options["reasoning_effort"] = rest.pop("think")
    options.update(rest)
    request.options = options
    return request


def _parse_model_options(given: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    unknown: dict[str, Any] = {}
    for key, value in given.items():
        if key in _UNIFORM_OF:
            out[_UNIFORM_OF[key]] = value
        elif key in _OLLAMA_OPTIONS:
            out[key] = value
        else:
            unknown[key] = value
    if unknown or not given:
        out["options"] = unknown  # kept in place (an empty object too)
    return out


def _parse_tool(item: dict[str, Any]) -> Tool | dict[str, Any]:
    """A documented function entry as a :class:`~streamkit.tools.Tool`; any
    other entry stays the dict it is (sent back as it is)."""
    if item.get("type") != "function" or set(item) != _TOOL_KEYS:
        return item
    function = item["function"]
    if (not isinstance(function, dict) or not set(function) <= _FUNCTION_KEYS
            or not isinstance(function.get("name"), str)
            or not isinstance(function.get("parameters"), dict)):
        return item
    description = function.get("description")
    if "description" in function and not (isinstance(description, str) and description):
        return item  # an empty or odd description would not come back as it was
    if ollama_schema(function["parameters"]) != function["parameters"]:
        return item  # the encoder would rewrite this schema: keep the body's own
    return Tool(name=function["name"], description=description or "",
                parameters=function["parameters"])


def parse_messages(items: list[Any]) -> list[Message]:
    """The ``messages`` array as streamkit messages (consecutive tool messages
    are one :class:`~streamkit.messages.FunctionExecutionResultMessage`)."""
    out: list[Message] = []
    unanswered: list[ToolCallBlock] = []  # calls of the last assistant message
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise ValueError(f"message {index} is not an object: {item!r}")
        role = item.get("role")
        if role == "tool":
            result = _parse_tool_result(item, unanswered)
            last = out[-1] if out else None
            if isinstance(last, FunctionExecutionResultMessage):
                last.content.append(result)
            else:
                out.append(FunctionExecutionResultMessage(content=[result]))
        elif role == "assistant":
            message = _parse_assistant(item)
            unanswered = [block for block in message.blocks if isinstance(block, ToolCallBlock)]
            out.append(message)
        elif role == "system":
            metadata = _extras(item)
            out.append(SystemMessage(content=_text(item, metadata), metadata=metadata))
        else:  # "user", or a role Ollama does not know (kept in metadata)
            out.append(_parse_user(item))
    return out


def _extras(item: dict[str, Any], handled: Sequence[str] = ()) -> dict[str, Any]:
    """The wire message's fields the model has no place for: the metadata (a
    role Ollama does not know is one: it replaces ``user`` when built)."""
    skip = {"content", *handled} | ({"role"} if item.get("role") in _ROLES else set())
    metadata = {key: value for key, value in item.items() if key not in skip}
    if "role" not in item:
        _absent(metadata, "role")
    return metadata


def _absent(metadata: dict[str, Any], key: str) -> None:
    metadata.setdefault(ABSENT, []).append(key)


def _text(item: dict[str, Any], metadata: dict[str, Any]) -> str:
    """The ``content`` string ("" when absent or not a string: then noted)."""
    if "content" not in item:
        _absent(metadata, "content")
        return ""
    content = item["content"]
    if isinstance(content, str):
        return content
    metadata["content"] = content
    return ""


def _parse_images(item: dict[str, Any], metadata: dict[str, Any]) -> list[DataBlock]:
    """``images`` as data blocks; kept in metadata unless every entry decodes."""
    images = item.get("images")
    if images is None and "images" not in item:
        return []
    blocks = [_parse_image(image) for image in images] if isinstance(images, list) else []
    if images and all(block is not None for block in blocks):
        return [block for block in blocks if block is not None]
    metadata["images"] = images  # empty, null, or something that is not base64
    return []


def _parse_image(image: Any) -> DataBlock | None:
    if not isinstance(image, str):
        return None
    try:
        data = binascii.a2b_base64(image.encode("ascii"))
    except (binascii.Error, UnicodeEncodeError):
        return None
    media_type = media_type_of(data)
    source = Base64Source(data, media_type)
    block = DataBlock(media_type=media_type, source=source)
    if source.data != image:  # not the canonical spelling: keep the body's
        block.metadata["base64"] = image
    return block


def _parse_user(item: dict[str, Any]) -> UserMessage:
    metadata = _extras(item, ("images",))
    text = _text(item, metadata)
    images = _parse_images(item, metadata)
    if not images:
        return UserMessage(content=text, metadata=metadata)
    content: list[UserContent] = [TextBlock(text)] if text else []
    content.extend(images)
    return UserMessage(content=content, metadata=metadata)


def _parse_assistant(item: dict[str, Any]) -> AssistantMessage:
    metadata = _extras(item, ("thinking", "tool_calls", "images"))
    blocks: list[Any] = []
    thinking = item.get("thinking")
    if isinstance(thinking, str) and thinking:
        blocks.append(ThinkingBlock(thinking))
    elif "thinking" in item:
        metadata["thinking"] = thinking
    text = _text(item, metadata)
    if text:
        blocks.append(TextBlock(text))
    blocks.extend(_parse_tool_calls(item, metadata))
    blocks.extend(_parse_images(item, metadata))
    return AssistantMessage(content=blocks, provider="ollama", metadata=metadata)


def _parse_tool_calls(item: dict[str, Any], metadata: dict[str, Any]) -> list[ToolCallBlock]:
    """``tool_calls`` as blocks; kept in metadata unless every entry is a call."""
    calls = item.get("tool_calls")
    if calls is None and "tool_calls" not in item:
        return []
    blocks = [_parse_tool_call(call) for call in calls] if isinstance(calls, list) else []
    if calls and all(block is not None for block in blocks):
        return [block for block in blocks if block is not None]
    metadata["tool_calls"] = calls
    return []


def _parse_tool_call(call: Any) -> ToolCallBlock | None:
    """One entry: ``{"id"?, "function": {"index"?, "name", "arguments": {...}}}``;
    metadata holds ``index`` and any other key, as the stream parser does."""
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict):
        return None
    name = function.get("name")
    arguments = function.get("arguments")
    call_id = call.get("id")
    if (not isinstance(name, str) or not isinstance(arguments, dict)
            or not set(function) - {"name", "arguments"} <= _FUNCTION_FIELDS
            or ("id" in call and not (isinstance(call_id, str) and call_id))):
        return None
    metadata = {key: value for key, value in function.items() if key not in ("name", "arguments")}
    metadata.update({key: value for key, value in call.items() if key not in ("id", "function")})
    if call_id is None:
        call_id = new_block_id("call")
        metadata[GENERATED_ID] = True
    return ToolCallBlock(call_id, name, _ENCODE(arguments).decode(), metadata=metadata)


def _parse_tool_result(item: dict[str, Any],
                       unanswered: list[ToolCallBlock]) -> FunctionExecutionResult:
    metadata = _extras(item, ("images", "tool_name", "tool_call_id"))
    text = _text(item, metadata)
    images = _parse_images(item, metadata)
    name = item.get("tool_name")
    if "tool_name" not in item:
        _absent(metadata, "tool_name")
    elif not isinstance(name, str):
        metadata["tool_name"] = name
        name = None
    call_id = item.get("tool_call_id")
    if isinstance(call_id, str) and call_id:
        answered = next((call for call in unanswered if call.id == call_id), None)
    else:
        if "tool_call_id" in item:
            metadata["tool_call_id"] = call_id
        else:
            _absent(metadata, "tool_call_id")
        answered = next((call for call in unanswered if call.name == name),
                        unanswered[0] if unanswered else None)
        call_id = answered.id if answered is not None else new_block_id("call")
    if answered is not None:
        unanswered.remove(answered)
    content: str | list[TextBlock | DataBlock] = text
    if images:
        content = [TextBlock(text), *images] if text else list(images)
    return FunctionExecutionResult(call_id=call_id, content=content, name=name,
                                   metadata=metadata)

