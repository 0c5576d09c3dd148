"""The Gemini request oracle: a body checked with the official google-genai SDK,
three checks.

1. types: ``contents`` items and ``systemInstruction`` validate as
   ``types.Content``, ``tools`` items as ``types.Tool``, ``toolConfig`` as
   ``types.ToolConfig``, ``generationConfig`` as ``types.GenerationConfig``,
   ``safetySettings`` items as ``types.SafetySetting``, and the body's other
   top-level fields with them as a ``types.GenerateContentConfig``. These are
   pydantic models with ``extra="forbid"`` and both spellings accepted, so an
   unknown key fails at any depth; a top-level key that belongs inside
   ``generationConfig`` is also refused (the flattened config would accept it).
2. nothing dropped: each validated model, dumped, equals the body (both
   spellings brought to the SDK's field names by :func:`canonical`, base64
   bytes compared decoded, enums by value).
3. placement: the SDK's own request converter
   (``models._GenerateContentParameters_to_mldev``, or ``_to_vertex`` for a
   Vertex body: what ``client.models.generate_content`` sends) turns those
   models into a body, which must equal ours, canonically. This checks that
   ``maxOutputTokens`` and friends are where the SDK puts them, not only that
   they are valid somewhere. The converter is private API: if a release renames
   it, that check is skipped (the first two still run).

What the SDK cannot check: free-form JSON (``functionCall.args``,
``functionResponse.response``, JSON schemas) is ``dict[str, Any]`` there;
values the API checks itself (a known model name, a voice name, thinking
levels a model supports) are strings to the SDK.
"""

from __future__ import annotations

import base64
import binascii
import enum
import inspect
import types as pytypes
from typing import Any, Union, get_args, get_origin

from google.genai import types
from pydantic import BaseModel

from streamkit.providers.gemini.spelling import camel, snake

# The body's top-level fields and the SDK type of each (the rest are plain values).
_BODY_TYPES: dict[str, Any] = {
    "contents": list[types.Content],
    "systemInstruction": types.Content,
    "tools": list[types.Tool],
    "toolConfig": types.ToolConfig,
    "generationConfig": types.GenerationConfig,
    "safetySettings": list[types.SafetySetting],
}
_GENERATION_ONLY = {camel(name) for name in types.GenerationConfig.model_fields}


def base64_bytes(text: str) -> bytes:
    """Bytes of standard or URL-safe base64 (the API takes both)."""
    padded = text + "=" * (-len(text) % 4)
    try:
        return base64.b64decode(padded, altchars=b"-_", validate=True) if (
            "-" in text or "_" in text) else base64.b64decode(padded, validate=True)
    except binascii.Error:
        return text.encode()


def _model_of(annotation: Any, value: Any) -> Any:
    """The member of an ``Optional`` / ``Union`` annotation that fits ``value``."""
    if get_origin(annotation) in (Union, pytypes.UnionType):
        members = [arg for arg in get_args(annotation) if arg is not type(None)]
        for member in members:
            if isinstance(value, dict) and inspect.isclass(member) and issubclass(
                    member, BaseModel):
                return member
        return members[0]
    return annotation


def canonical(value: Any, annotation: Any) -> Any:
    """``value`` (wire JSON or a model dump) in the SDK's terms: keys in either
    spelling as the model's field names, base64 bytes decoded, enums by value.
    Free-form objects (``args``, JSON schemas) stay as they are."""
    annotation = _model_of(annotation, value)
    if isinstance(value, enum.Enum):
        return value.value
    if inspect.isclass(annotation) and issubclass(annotation, BaseModel) and isinstance(
            value, dict):
        fields = annotation.model_fields
        out = {}
        for key, item in value.items():
            name = key if key in fields else snake(key)
            field = fields.get(name)
            out[name] = canonical(item, field.annotation) if field is not None else item
        return out
    if get_origin(annotation) is list and isinstance(value, list):
        return [canonical(item, get_args(annotation)[0]) for item in value]
    if get_origin(annotation) is dict and isinstance(value, dict):  # Schema.properties
        return {key: canonical(item, get_args(annotation)[1]) for key, item in value.items()}
    if annotation is bytes and isinstance(value, str):
        return base64_bytes(value)
    if annotation is int and isinstance(value, str) and value.lstrip("-").isdigit():
        return int(value)  # proto JSON writes an int64 as a string (Schema.maxItems: "3")
    if inspect.isclass(annotation) and issubclass(annotation, enum.Enum) and isinstance(
            value, str):
        return annotation(value).value
    return value


def canonical_body(body: dict[str, Any]) -> dict[str, Any]:
    """A whole body in the SDK's terms (top-level keys camelCase)."""
    out = {}
    for key, value in body.items():
        name = camel(key)
        out[name] = canonical(value, _BODY_TYPES[name]) if name in _BODY_TYPES else value
    return out


def _dump(model: BaseModel) -> Any:
    return model.model_dump(exclude_none=True)


def _config_of(body: dict[str, Any]) -> dict[str, Any]:
    """The body as the SDK's flattened ``GenerateContentConfig`` (+ contents)."""
    config: dict[str, Any] = {}
    for key, value in body.items():
        if camel(key) == "generationConfig":
            config.update(value)
        elif key != "contents":
            config[key] = value
    return config


def _sdk_body(contents: list[types.Content], config: types.GenerateContentConfig,
              vertex: bool) -> dict[str, Any] | None:
    """What ``client.models.generate_content`` would send (``None``: the
    private converter is not there in this SDK release)."""
    try:
        from google.genai import _common, models
        from google.genai._api_client import BaseApiClient
    except ImportError:
        return None
    convert = getattr(models, "_GenerateContentParameters_to_vertex" if vertex
                      else "_GenerateContentParameters_to_mldev", None)
    parameters_type = getattr(types, "_GenerateContentParameters", None)
    if convert is None or parameters_type is None:
        return None
    client = (BaseApiClient(vertexai=True, project="project", location="global") if vertex
              else BaseApiClient(api_key="test-key"))
    parameters = parameters_type(model="gemini-test", contents=contents, config=config)
    out = convert(client, parameters, None, parameters)
    out.pop("_url", None)
    out.pop("config", None)
    return _common.encode_unserializable_types(_common.convert_to_dict(out))


def _sdk_tool_layout(body: dict[str, Any]) -> dict[str, Any]:
    """The body with its tools laid out as the SDK lays them out (``t_tools``:
    every function declaration merged into one entry, put last). The API takes
    either layout: this is the SDK's choice, compared only for the placement check."""
    if "tools" not in body:
        return body
    declarations = [d for entry in body["tools"] for d in entry.get("function_declarations") or []]
    others = [{k: v for k, v in entry.items() if k != "function_declarations"}
              for entry in body["tools"]]
    tools = [entry for entry in others if entry]
    if declarations:
        tools.append({"function_declarations": declarations})
    return {**body, "tools": tools}


def check(body: dict[str, Any], *, vertex: bool = False) -> None:
    """``body`` is a request the google-genai SDK's types accept key for key,
    and the one its converter would send for them (see the module docstring)."""
    misplaced = [key for key in body if camel(key) in _GENERATION_ONLY]
    assert misplaced == [], f"generationConfig fields at the top level: {misplaced}"
    assert "model" not in body and "stream" not in body  # the URL's
    contents = [types.Content.model_validate(item) for item in body.get("contents", [])]
    config = types.GenerateContentConfig.model_validate(_config_of(body))
    for key, value in body.items():
        name = camel(key)
        annotation = _BODY_TYPES.get(name)
        if annotation is None or name == "contents":
            continue
        model_type = get_args(annotation)[0] if get_origin(annotation) is list else annotation
        items = value if get_origin(annotation) is list else [value]
        for item in items:
            assert canonical(_dump(model_type.model_validate(item)), model_type) == canonical(
                item, model_type), f"{name}: the SDK dropped or changed something"
    assert [canonical(_dump(c), types.Content) for c in contents] == canonical(
        body.get("contents", []), list[types.Content])
    sent = _sdk_body(contents, config, vertex)
    if sent is not None:
        if sent.get("generationConfig") == {} and "generationConfig" not in body:
            del sent["generationConfig"]  # the SDK always sends one, empty when unused
        assert canonical_body(sent) == _sdk_tool_layout(canonical_body(body))
