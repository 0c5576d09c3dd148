"""The block ledger every stream parser keeps its lifecycle and blocks in,
the ids a stream makes up, and extras that remember their wire."""

from __future__ import annotations

import copy
import pickle

import pytest

from streamkit.model.accumulate import Accumulator
from streamkit.model.blocks import RawBlock, TextBlock, ToolCallBlock, block_from_dict
from streamkit.model.events import (
    BlockEnd,
    BlockStart,
    ErrorEvent,
    Event,
    ResponseEnd,
    ResponseMetadata,
    ResponseStart,
)
from streamkit.model.extras import Extras, extras_for, origin_of
from streamkit.model.finish import FinishReason
from streamkit.model.ids import StreamIds, id_factory
from streamkit.providers.ledger import BlockLedger, OpenBlock, Phase
from streamkit.providers.lossless import exactly, unmodelled, unread


def _ledger(seed: bytes = b"first payload") -> BlockLedger[OpenBlock]:
    ids = StreamIds()
    ids.seed(seed)
    return BlockLedger("anthropic", ids)


def test_the_first_block_starts_the_response_with_a_made_up_id_and_the_provider() -> None:
    ledger, out = _ledger(), []
    with id_factory(None):
        ledger.open("k", TextBlock(id="t"), out)
    start = out[0]
    assert isinstance(start, ResponseStart) and start.provider == "anthropic"
    assert start.id is not None and start.id.startswith("resp_") and len(start.id) == 29
    assert isinstance(out[1], BlockStart) and out[1].index == 0
    assert ledger.phase is Phase.STREAMING


def test_a_late_start_event_gives_metadata_not_a_second_start() -> None:
    ledger, out = _ledger(), []
    ledger.open("k", TextBlock(id="t"), out)
    ledger.start(out, id="msg_1", model="claude", metadata={"a": 1})
    assert [type(e) for e in out] == [ResponseStart, BlockStart, ResponseMetadata]
    assert out[2] == ResponseMetadata(metadata={"a": 1}, id="msg_1", model="claude")
    ledger.start(out)  # says nothing new: no event
    assert len(out) == 3


def test_blocks_are_numbered_in_opening_order_and_closed_by_key() -> None:
    ledger, out = _ledger(), []
    ledger.open(7, TextBlock(id="a"), out)
    ledger.open(3, ToolCallBlock("c", "f"), out)
    assert {key: slot.index for key, slot in ledger.blocks.items()} == {7: 0, 3: 1}
    assert ledger.close(3, out) is not None
    assert ledger.close(3, out) is None  # a stop for a part not open closes nothing
    assert [e for e in out if isinstance(e, BlockEnd)] == [BlockEnd(index=1)]


def test_reopening_a_key_ends_the_old_block_first() -> None:
    ledger, out = _ledger(), []
    ledger.open("k", TextBlock(id="a"), out)
    ledger.open("k", TextBlock(id="b"), out)
    assert [type(e) for e in out][1:] == [BlockStart, BlockEnd, BlockStart]
    assert out[2] == BlockEnd(index=0) and ledger.blocks["k"].index == 1


def test_end_closes_blocks_in_index_order_with_their_snapshots_then_ends_once() -> None:
    ledger, out = _ledger(), []
    ledger.open("b", TextBlock(id="1"), out)
    ledger.open("a", ToolCallBlock("c", "f"), out)
    ledger.stop_reason = "end_turn"
    snapshot = ToolCallBlock("c", "f", "{}")
    ledger.end(out, FinishReason.STOP,
               snapshot=lambda slot: snapshot if slot.kind is ToolCallBlock else None)
    ledger.end(out, FinishReason.LENGTH)  # ended already: nothing
    ledger.finish(out)
    tail = out[3:]
    assert tail == [BlockEnd(index=0), BlockEnd(index=1, snapshot=snapshot),
                    ResponseEnd(finish_reason=FinishReason.STOP, stop_reason="end_turn",
                                terminated=True)]
    assert ledger.phase is Phase.ENDED and ledger.ended


def test_finish_without_the_providers_end_is_a_cut_off_with_the_reason_given_or_unknown() -> None:
    ledger, out = _ledger(), []
    ledger.open("k", TextBlock(id="a"), out)
    ledger.finish(out)
    assert out[-1] == ResponseEnd(finish_reason=FinishReason.UNKNOWN, terminated=False)
    assert ledger.phase is Phase.CUT_OFF
    other, tail = _ledger(), []
    other.finish(tail, FinishReason.LENGTH)
    assert [type(e) for e in tail] == [ResponseStart, ResponseEnd]  # an empty stream starts too
    assert tail[-1] == ResponseEnd(finish_reason=FinishReason.LENGTH, terminated=False)


def test_an_error_starts_the_response_and_makes_the_end_an_error() -> None:
    ledger, out = _ledger(), []
    event = ErrorEvent(message="overloaded")
    ledger.error(event, out)
    assert isinstance(out[0], ResponseStart) and out[0].provider == "anthropic"
    assert out[1] is event
    ledger.end(out, None)
    assert out[-1] == ResponseEnd(finish_reason=FinishReason.ERROR, terminated=True)
    cut, tail = _ledger(), []
    cut.error(event, tail)
    cut.finish(tail, FinishReason.STOP)
    assert tail[-1] == ResponseEnd(finish_reason=FinishReason.ERROR, terminated=False)


def test_the_accumulated_response_has_the_ledgers_made_up_id() -> None:
    ledger, out = _ledger(), []
    with id_factory(None):
        ledger.open("k", TextBlock(id="a"), out)
        ledger.finish(out)
    accumulator = Accumulator()
    accumulator.apply_all(out)
    start = out[0]
    assert isinstance(start, ResponseStart)
    assert accumulator.response.id == start.id


def test_a_slot_subclass_carries_a_wires_own_state() -> None:
    class CallSlot(OpenBlock):
        __slots__ = ("arguments_streamed",)

        def __init__(self, index: int, kind: type) -> None:
            super().__init__(index, kind)
            self.arguments_streamed = False

    ids = StreamIds()
    ledger: BlockLedger[CallSlot] = BlockLedger("x", ids, slot=CallSlot)
    out: list[Event] = []
    slot = ledger.open(0, ToolCallBlock("c", "f"), out)
    slot.arguments_streamed = True
    assert ledger.blocks[0].arguments_streamed and ledger.blocks[0].kind is ToolCallBlock


# ---------------------------------------------------------------- ids


def test_stream_ids_are_derived_from_the_seed_and_counted_per_prefix() -> None:
    with id_factory(None):
        one, two, other = StreamIds(), StreamIds(), StreamIds()
        for ids in (one, two):
            ids.seed(b"payload")
            ids.seed(b"a later payload changes nothing")
        other.seed(b"another payload")
        made = [one.make("text"), one.make("text"), one.make("call")]
        assert made == [two.make("text"), two.make("text"), two.make("call")]
        assert len(set(made)) == 3 and all(len(i.split("_")[1]) == 24 for i in made)
        assert other.make("text") != made[0]


def test_an_installed_factory_makes_the_stream_ids_too() -> None:
    ids = StreamIds()
    ids.seed(b"x")
    with id_factory(lambda prefix: f"{prefix}-fixed"):
        assert ids.make("text") == "text-fixed"


# ---------------------------------------------------------------- extras with provenance


def test_extras_remember_their_wire_through_copies_pickles_and_block_dicts() -> None:
    extras = Extras("anthropic", {"cache_control": {"type": "ephemeral"}})
    assert extras == {"cache_control": {"type": "ephemeral"}}
    for copied in (extras.copy(), copy.copy(extras), copy.deepcopy(extras),
                   pickle.loads(pickle.dumps(extras))):
        assert isinstance(copied, Extras) and copied.wire == "anthropic" and copied == extras
    deep = copy.deepcopy(extras)
    deep["cache_control"]["type"] = "changed"
    assert extras["cache_control"]["type"] == "ephemeral"
    block = TextBlock("hi", metadata=extras)
    assert block.to_dict()["origin"] == "anthropic"
    for rebuilt in (block.copy(), block_from_dict(block.to_dict())):
        assert origin_of(rebuilt.metadata) == "anthropic"
    raw = RawBlock("server_tool_use", {"id": "x"}, metadata=Extras("anthropic"))
    assert origin_of(raw.copy().metadata) == "anthropic"  # empty extras keep their wire too


def test_a_builder_writes_its_own_wires_extras_and_hand_made_ones_only() -> None:
    own, foreign, by_hand = Extras("gemini", {"a": 1}), Extras("anthropic", {"b": 2}), {"c": 3}
    assert extras_for(own, "gemini") == {"a": 1}
    assert extras_for(foreign, "gemini") == {}
    assert extras_for(by_hand, "gemini") == {"c": 3}
    assert origin_of(by_hand) is None and origin_of(own) == "gemini"


def test_the_lossless_readers() -> None:
    obj = {"type": "text", "text": "hi", "extra": None, "cache_control": {"type": "ephemeral"},
           "index": "not an int"}
    assert unmodelled(obj, {"type": "text", "text": "hi", "index": None}) == {
        "cache_control": {"type": "ephemeral"}, "index": "not an int"}
    kept = unread(obj, "type", "text", wire="anthropic")
    assert kept == {"extra": None, "cache_control": {"type": "ephemeral"}, "index": "not an int"}
    assert origin_of(kept) == "anthropic"
    wire = {"type": "text", "text": "hi"}
    block = TextBlock("hi")
    assert exactly(block, lambda b: {"type": "text", "text": b.text}, wire, kind="text",
                   wire="anthropic") is block
    kept_whole = exactly(block, lambda b: {"type": "text"}, wire, kind="text", wire="anthropic")
    assert isinstance(kept_whole, RawBlock) and kept_whole.data == wire
    assert origin_of(kept_whole.metadata) == "anthropic"

    def refuses(block: TextBlock) -> dict[str, str]:
        raise ValueError("cannot")

    assert isinstance(exactly(block, refuses, wire, kind="text", wire="anthropic"), RawBlock)


@pytest.mark.parametrize("name", ["text", "call", "resp"])
def test_hand_made_ids_stay_random(name: str) -> None:
    from streamkit.model.ids import new_id

    with id_factory(None):
        assert new_id(name) != new_id(name)
