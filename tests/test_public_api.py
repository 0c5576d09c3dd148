"""``streamkit``'s public face: what users call is exported, internals are not.

The tiers are in ``streamkit/__init__.py``'s docstring: streams, the client, the
answer and its blocks, the events a UI handles and the deltas it checks, the
request side, every error type. The sans-IO machinery and the bookkeeping
events stay importable from their own modules only.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import streamkit
from streamkit.model.errors import StreamkitError

ROOT = Path(__file__).parent.parent

#: What a user of the README calls, by name.
USER_NAMES = {
    "stream", "replay", "Stream", "SyncStream",
    "Client", "SyncClient", "PROVIDERS", "Timeouts", "RetryPolicy", "Attempt",
    "ChatResponse", "ChatUsage", "FinishReason", "Accumulator",
    "TextBlock", "ThinkingBlock", "ToolCallBlock", "DataBlock", "ToolResultBlock", "RawBlock",
    "SystemMessage", "UserMessage", "AssistantMessage", "FunctionExecutionResult",
    "FunctionExecutionResultMessage",
    "ResponseStart", "BlockStart", "BlockDelta", "BlockEnd", "UsageUpdate", "ResponseEnd",
    "ErrorEvent", "TextDelta", "ThinkingDelta", "ToolInputDelta", "DataDelta",
    "build_request", "parse_request", "parse_response", "Request", "ToolChoice", "JsonOutput",
    "JsonSchemaOutput", "tool", "Tool", "encode_stream", "encode_response",
    "encode_error",
}

#: Internals, each importable from the module named, not from ``streamkit``.
INTERNALS = {
    "Pipeline": "streamkit.pipeline", "apply_delta": "streamkit.merge",
    "apply_snapshot": "streamkit.merge", "merge_usage": "streamkit.usage",
    "block_from_dict": "streamkit.blocks", "event_to_dict": "streamkit.events",
    "ResponseMetadata": "streamkit.events", "SignatureDelta": "streamkit.events",
    "MetadataDelta": "streamkit.events", "MetadataAppendDelta": "streamkit.events",
    "EncodedStream": "streamkit.codec",
    "EncodedError": "streamkit.codec", "events_of": "streamkit.replay_events",
}


def test_every_exported_name_resolves_and_the_users_names_are_exported() -> None:
    missing = sorted(USER_NAMES - set(streamkit.__all__))
    assert missing == []
    for name in streamkit.__all__:
        assert getattr(streamkit, name) is not None, name


@pytest.mark.parametrize(("name", "module"), sorted(INTERNALS.items()))
def test_internals_stay_in_their_modules(name: str, module: str) -> None:
    assert name not in streamkit.__all__
    assert not hasattr(streamkit, name)
    assert getattr(importlib.import_module(module), name) is not None


#: Modules of the optional extras: their errors stay in their own package.
OPTIONAL_EXTRAS = ("streamkit.adapters.", "streamkit.web.", "streamkit.gateway.")


def test_every_error_type_streamkit_defines_is_exported() -> None:
    for info in pkgutil.walk_packages(streamkit.__path__, "streamkit."):
        if info.name.startswith(OPTIONAL_EXTRAS) or info.name == "streamkit.__main__":
            continue  # optional extras (their frameworks may not be installed); the CLI
        importlib.import_module(info.name)
    pending, defined = [StreamkitError], set()
    while pending:
        cls = pending.pop()
        pending += cls.__subclasses__()
        if cls.__module__.startswith("streamkit.") \
                and not cls.__module__.startswith(OPTIONAL_EXTRAS):
            defined.add(cls.__name__)
    assert "NoResponseError" in defined and "StrictSchemaError" in defined
    assert sorted(defined - set(streamkit.__all__)) == []
    for name in defined:
        assert issubclass(getattr(streamkit, name), StreamkitError)


def _streamkit_attributes(path: Path) -> set[str]:
    """The ``streamkit.X`` names a Python file reads or imports from ``streamkit``."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module == "streamkit" and node.level == 0:
            names |= {alias.name for alias in node.names}
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id == "streamkit"):
            names.add(node.attr)
    return names


@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("*.py")), ids=lambda p: p.name)
def test_the_examples_use_only_exported_names_or_modules(path: Path) -> None:
    for name in _streamkit_attributes(path):
        assert name in streamkit.__all__ or importlib.util.find_spec(f"streamkit.{name}"), name


def test_import_streamkit_loads_neither_httpx_nor_pydantic() -> None:
    code = ("import sys, streamkit; streamkit.ToolChoice, streamkit.JsonOutput; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'httpx', 'pydantic'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"
