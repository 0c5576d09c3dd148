"""The Ollama request oracle: a body checked with the ``ollama`` package, used
the way its ``Client.chat`` builds a request, and against the fields of the
server's Go structs (``api/types.go``), since the package's pydantic types
ignore keys they do not declare."""

from __future__ import annotations

from typing import Any

from ollama._client import _copy_messages, _copy_tools  # how ollama.Client.chat builds a body
from ollama._types import ChatRequest, Options

# api/types.go @ fb30760: the JSON fields the server decodes (others are ignored).
GO_CHAT_REQUEST = {"model", "messages", "stream", "format", "keep_alive", "tools", "options",
                   "think", "truncate", "shift", "_debug_render_only", "logprobs", "top_logprobs"}
GO_MESSAGE = {"role", "content", "thinking", "images", "tool_calls", "tool_name", "tool_call_id"}
GO_TOOL_CALL = {"id", "function"}
GO_TOOL_CALL_FUNCTION = {"index", "name", "arguments"}
GO_TOOL = {"type", "items", "function"}
GO_TOOL_FUNCTION = {"name", "description", "parameters"}
GO_PARAMETERS = {"type", "$defs", "items", "required", "properties"}
GO_PROPERTY = {"anyOf", "type", "items", "description", "enum", "properties", "required"}
# Options and Runner (api/types.go) plus the older names the docs and the ollama package list.
GO_OPTIONS = {
    "num_keep", "seed", "num_predict", "top_k", "top_p", "min_p", "typical_p", "repeat_last_n",
    "temperature", "repeat_penalty", "presence_penalty", "frequency_penalty", "stop", "num_ctx",
    "num_batch", "num_gpu", "main_gpu", "use_mmap", "num_thread", "draft_num_predict",
    "tfs_z", "mirostat", "mirostat_tau", "mirostat_eta", "penalize_newline", "numa", "low_vram",
    "f16_kv", "logits_all", "vocab_only", "use_mlock", "embedding_only",
}
# Go fields the python package's Message / ToolCall do not declare (it drops them).
SDK_UNDECLARED = {"tool_call_id"}


def sdk_request(wire: dict[str, Any]) -> dict[str, Any]:
    """``wire`` validated by the ollama package as ``Client.chat`` builds its
    request (pydantic types: raises on a wrongly typed field, an image that is
    not base64, arguments that are not an object...), serialized back."""
    request = ChatRequest(
        model=wire["model"], messages=list(_copy_messages(wire["messages"])),
        tools=list(_copy_tools(wire.get("tools"))), stream=wire.get("stream"),
        think=wire.get("think"), logprobs=wire.get("logprobs"),
        top_logprobs=wire.get("top_logprobs"), format=wire.get("format"),
        options=wire.get("options"), keep_alive=wire.get("keep_alive"))
    if isinstance(wire.get("options"), dict):
        Options.model_validate(wire["options"])  # the known options typed (others ignored)
    return request.model_dump(exclude_none=True)


def check(wire: dict[str, Any]) -> None:
    """The SDK's serialization of ``wire`` is ``wire`` itself, but for what the
    client drops on purpose (falsy values) and the Go fields it does not
    declare; and every field is one the server reads (a TypedDict-free check
    for extra keys, which pydantic's default ``extra="ignore"`` cannot make)."""
    sent = sdk_request(wire)
    assert set(wire) <= GO_CHAT_REQUEST, set(wire) - GO_CHAT_REQUEST
    for ours, theirs in zip(wire["messages"], sent["messages"], strict=True):
        assert set(ours) <= GO_MESSAGE, set(ours) - GO_MESSAGE
        expected = {key: value for key, value in ours.items()
                    if value and key not in SDK_UNDECLARED}
        for call in expected.get("tool_calls", ()):
            assert set(call) <= GO_TOOL_CALL | {"type"}, call
            assert set(call["function"]) <= GO_TOOL_CALL_FUNCTION, call
            assert isinstance(call["function"]["arguments"], dict), call
        calls = [{"function": {k: v for k, v in call["function"].items() if k != "index"}}
                 for call in expected.get("tool_calls", ())]
        if calls:
            expected["tool_calls"] = calls
        assert theirs == expected
    for entry in wire.get("tools") or ():
        assert set(entry) <= GO_TOOL and set(entry["function"]) <= GO_TOOL_FUNCTION, entry
    if isinstance(wire.get("options"), dict):
        assert set(wire["options"]) <= GO_OPTIONS, set(wire["options"]) - GO_OPTIONS


def go_decoded(schema: dict[str, Any], *, top: bool = True) -> dict[str, Any]:
    """What the server keeps of tool parameters (``ToolFunctionParameters`` at
    the top, ``ToolProperty`` below; ``items`` and ``$defs`` are kept whole)."""
    fields = GO_PARAMETERS if top else GO_PROPERTY
    out = {key: value for key, value in schema.items() if key in fields}
    if isinstance(out.get("properties"), dict):
        out["properties"] = {name: go_decoded(sub, top=False)
                             for name, sub in out["properties"].items()}
    if isinstance(out.get("anyOf"), list):
        out["anyOf"] = [go_decoded(sub, top=False) for sub in out["anyOf"]]
    return out
