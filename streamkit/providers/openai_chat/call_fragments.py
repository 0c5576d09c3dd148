"""Tool calls of one choice: ``delta.tool_calls[]`` fragments and the legacy
``delta.function_call``.

Fragments are keyed by ``index`` within the choice, never by id (Qwen repeats
``"id": ""`` on every continuation, some vendors repeat the real id): id, type
and name are set once, arguments appended. A fragment without an index (some
Gemini-compatible gateways) continues the latest call unless it carries an id
not seen before. A call's block opens at its first id or argument text; a
name-only header waits, and a call still waiting at the end is opened then.
Arguments sent as a parsed object are kept as their JSON text. ``type`` other
than the default ``"function"`` (a custom tool), unknown fragment fields and an
id or name that arrived after the block opened go to the block's metadata; a
late name also reaches the block through its ``BlockEnd`` snapshot. A call
without an id gets one made up from the stream (two parses agree on it).
"""

from __future__ import annotations

from typing import Any, Final

from ...model.blocks import Block, ToolCallBlock
from ...model.events import BlockDelta, Event, MetadataDelta, ToolInputDelta
from ..coerce import as_int, as_str
from .choice_blocks import ChoiceBlocks
from .wire import json_text

__all__ = ["ToolCall", "ToolCalls"]

_FRAGMENT_FIELDS: Final = frozenset({"index", "id", "type", "function", "custom"})
_FUNCTION_FIELDS: Final = frozenset({"name", "arguments"})
_MISSING: Final = object()


class ToolCall:
    """One tool call: its block once opened, and what is set once."""

    __slots__ = ("block", "id", "late_name", "metadata", "name", "type")

    def __init__(self) -> None:
        self.block: int | None = None
        self.id = ""
        self.name = ""
        self.type: str | None = None
        self.metadata: dict[str, Any] = {}  # the block's metadata as reported so far
        self.late_name = False  # the name arrived after the block opened


class ToolCalls:
    """A choice's tool calls in the order they appeared."""

    __slots__ = ("by_id", "by_index", "calls", "legacy")

    def __init__(self) -> None:
        self.calls: list[ToolCall] = []
        self.by_index: dict[int, ToolCall] = {}
        self.by_id: dict[str, ToolCall] = {}
        self.legacy: ToolCall | None = None  # the one call of ``delta.function_call``

    def opened(self) -> bool:
        """Whether any call has a block."""
        return any(call.block is not None for call in self.calls)

    def fragment(self, choice: ChoiceBlocks, fragment: Any, out: list[Event]) -> None:
        """One ``tool_calls[]`` fragment."""
        if type(fragment) is not dict:
            choice.keep("tool_calls", fragment, out)
            return
        call_id = as_str(fragment.get("id")) or None
        call = self._call_for(as_int(fragment.get("index")), call_id)
        function = fragment.get("function")
        custom = fragment.get("custom")
        name: Any = None
        arguments: Any = None
        metadata: dict[str, Any] = {}
        if type(function) is dict:
            name = function.get("name")
            arguments = function.get("arguments")
            metadata.update((key, value) for key, value in function.items()
                            if key not in _FUNCTION_FIELDS and value is not None)
        elif function is not None:
            metadata["function"] = function
        if type(custom) is dict:  # a custom (free-form input) tool
            name = name or custom.get("name")
            arguments = arguments if arguments is not None else custom.get("input")
        elif custom is not None:
            metadata["custom"] = custom
        metadata.update((key, value) for key, value in fragment.items()
                        if key not in _FRAGMENT_FIELDS and value is not None)
        kind = as_str(fragment.get("type"))
        if kind and call.type is None:
            call.type = kind
            if kind != "function":
                metadata["type"] = kind
        self._apply(choice, call, call_id, name, arguments, metadata, out)

    def function_call(self, choice: ChoiceBlocks, fragment: Any, out: list[Event]) -> None:
        """The deprecated ``delta.function_call`` ({name, arguments}): one call."""
        if type(fragment) is not dict:
            choice.keep("function_call", fragment, out)
            return
        metadata: dict[str, Any] = {}
        if self.legacy is None:
            self.legacy = self._new()
            metadata["legacy"] = "function_call"
        self._apply(choice, self.legacy, None, fragment.get("name"), fragment.get("arguments"),
                    metadata, out)

    def _call_for(self, index: int | None, call_id: str | None) -> ToolCall:
        """The call a fragment continues (position wins over ids), or a new one."""
        if index is not None and index >= 0:
            call = self.by_index.get(index)
            if call is None:
                call = self.by_index[index] = self._new()
            return call
        if call_id is not None and call_id in self.by_id:
            return self.by_id[call_id]
        latest = self.calls[-1] if self.calls else None
        # no index: continue the latest call (an id for a call that had none yet is
        # its late id, not a new call)
        if latest is not None and (call_id is None or call_id == latest.id or not latest.id):
            return latest
        return self._new()

    def _new(self) -> ToolCall:
        call = ToolCall()
        self.calls.append(call)
        return call

    def _apply(self, choice: ChoiceBlocks, call: ToolCall, call_id: str | None, name: Any,
               arguments: Any, metadata: dict[str, Any], out: list[Event]) -> None:
        """One fragment: id and name set once, metadata reported when it changes,
        arguments appended."""
        if arguments is not None and type(arguments) is not str:
            arguments = json_text(arguments)  # a vendor sent parsed arguments
        if call_id is not None:
            self.by_id.setdefault(call_id, call)
            if not call.id:
                call.id = call_id
                if call.block is not None:  # the block opened under a generated id
                    metadata["call_id"] = call_id
        name = as_str(name)
        if name and not call.name:
            call.name = name
            call.late_name = call.block is not None
        if metadata:
            metadata = {key: value for key, value in metadata.items()
                        if call.metadata.get(key, _MISSING) != value}
            call.metadata.update(metadata)
        if call.block is None:
            if not call.id and not arguments:
                return  # a name-only header: wait for the id or the arguments
            self._open(choice, call, out)
        elif metadata:
            out.append(BlockDelta(index=call.block, delta=MetadataDelta(metadata),
                                  choice=choice.index))
        assert call.block is not None
        choice.written = call.block
        if arguments:
            out.append(BlockDelta(index=call.block, delta=ToolInputDelta(arguments),
                                  choice=choice.index))

    @staticmethod
    def _open(choice: ChoiceBlocks, call: ToolCall, out: list[Event]) -> None:
        block = ToolCallBlock(call.id or choice.made_up_id("call"), call.name,
                              metadata=dict(call.metadata))
        call.block = choice.open(block, out)
        call.late_name = False
        choice.kind = None  # text after a new call is a new block, after it

    def open_waiting(self, choice: ChoiceBlocks, out: list[Event]) -> None:
        """At the end: a call that only ever got a header is still reported."""
        for call in self.calls:
            if call.block is None:
                self._open(choice, call, out)

    def snapshots(self, choice: ChoiceBlocks) -> dict[int, Block]:
        """The ``BlockEnd`` snapshots of calls whose name came after their block opened."""
        return {call.block: ToolCallBlock(call.id or choice.made_up_id("call"), call.name)
                for call in self.calls if call.late_name and call.block is not None}
