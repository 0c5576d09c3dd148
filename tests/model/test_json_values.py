"""copy_json: the deep copy the accumulator and the request readers make of
the values they keep, so that no consumer's edit reaches another's."""

from __future__ import annotations

from typing import Any

from streamkit.model.extras import Extras, origin_of
from streamkit.model.json_values import copy_json


def test_a_copy_shares_no_container_and_keeps_every_value() -> None:
    value: dict[str, Any] = {"a": [1, 2.5, {"b": None, "c": True}], "d": "text",
                             "e": [[["deep"]]]}
    copied = copy_json(value)
    assert copied == value
    copied["a"][2]["b"] = "changed"
    copied["e"][0][0].append("more")
    assert value == {"a": [1, 2.5, {"b": None, "c": True}], "d": "text", "e": [[["deep"]]]}


def test_extras_keep_their_wire_and_their_values_are_copied() -> None:
    metadata = Extras("anthropic", {"cache_control": {"type": "ephemeral"}})
    copied = copy_json({"outer": metadata})["outer"]
    assert origin_of(copied) == "anthropic" and copied == metadata
    copied["cache_control"]["type"] = "changed"
    assert metadata["cache_control"] == {"type": "ephemeral"}


def test_a_cycle_or_an_object_of_another_type_is_still_a_deep_copy() -> None:
    cyclic: dict[str, Any] = {"items": []}
    cyclic["items"].append(cyclic)  # a caller's own metadata may hold one
    copied = copy_json(cyclic)
    assert copied is not cyclic and copied["items"][0] is copied
    held = {"pair": ([1], {"x": 2})}
    other = copy_json(held)
    assert other == held and other["pair"][0] is not held["pair"][0]
