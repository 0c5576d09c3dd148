"""Every recording written to every wire: the cross-wire half of the round trip.

Each stream recording in ``tests/fixtures`` (every wire folder, the edge and
synthetic ones too, read with the registry name its wire or vendor is read
with) is encoded to each of the five wires (``encode_stream``), read back
(``replay``) and compared with the source as a *portable summary*
(:func:`portable_summary`): what every wire says in some form. The expected
summary is the source's, with the target's documented losses applied
(:data:`LOSSES`: one function per loss, named after it, and the sentence the
docs print); it is never read from the target's output. The non-streamed path
(``encode_response`` -> ``parse_response``) is checked the same way against
:data:`BODY_LOSSES`.

The table "What each wire can hold" in ``docs/encoding.md`` is generated from
the same tables (:func:`crossing_table`), and a test checks the page holds it.
The machinery (summary, losses, expected) is ``support/encode_matrix.py``;
the per-wire files (``providers/<wire>/test_encode.py``) check the same-wire ``==``
and ``test_encode_sdks.py`` the official SDKs over sockets; this file needs no socket.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from support.comparing import fresh_ids
from support.encode_matrix import (
    BODY_LOSSES,
    LOSSES,
    ONE_CHOICE,
    RECORDINGS,
    TARGETS,
    VENDORS,
    Summary,
    expected,
    parsed,
    portable_summary,
    source_provider,
)
from support.paths import ROOT
from support.recordings import FIXTURES, fixture_id

from streamkit import (
    FinishReason,
    UnsupportedFeatureError,
    encode_response,
    encode_stream,
    parse_response,
    replay,
)
from streamkit.model.events import ErrorEvent

# ---------------------------------------------------------------- the matrix


def test_every_wire_folder_is_a_source() -> None:
    wires = {parsed(path).wire for path in RECORDINGS}
    assert wires == set(TARGETS)
    folders = {path.relative_to(FIXTURES).parts[0] for path in RECORDINGS}
    assert folders == {"openai-chat", "openai-compatible", "openai-responses", "anthropic",
                       "gemini", "ollama", "edge", "synthetic"}
    assert len(RECORDINGS) >= 60
    assert {source_provider(path) for path in RECORDINGS} >= {*VENDORS, *TARGETS.values()}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("path", RECORDINGS, ids=fixture_id)
def test_a_recording_crosses_to_every_wire_minus_its_losses(path: Path, target: str) -> None:
    source = parsed(path)
    provider = TARGETS[target]
    if source.choices > 1 and target in ONE_CHOICE:
        with pytest.raises(UnsupportedFeatureError, match=provider):
            b"".join(encode_stream(provider, source.events))
        return
    encoded = b"".join(encode_stream(provider, source.events))
    with fresh_ids():
        events, again = replay(encoded, provider, on_error="return")
    got = portable_summary(again, events, counted_as=target, wire=target)
    assert _comparable_ids(got, expected(source, target, LOSSES)) == expected(
        source, target, LOSSES)


def _comparable_ids(got: Summary, want: Summary) -> Summary:
    """Call ids where both wires carry them: none where the target makes them up."""
    made_up = [call[0] is None for call in want["calls"]]
    return {**got, "calls": [(None if none else call[0], *call[1:])
                             for call, none in zip(got["calls"], made_up + [False] * len(
                                 got["calls"]), strict=False)]}


#: The answers a body can hold: an answer that failed is an HTTP error, not a body.
BODY_SOURCES = [path for path in RECORDINGS
                if parsed(path).response.finished_reason is not FinishReason.ERROR]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("path", BODY_SOURCES, ids=fixture_id)
def test_a_recordings_body_crosses_to_every_wire_minus_its_losses(path: Path,
                                                                   target: str) -> None:
    source = parsed(path)
    provider = TARGETS[target]
    with fresh_ids():
        again = parse_response(provider, encode_response(provider, source.response))
    got = portable_summary(again, [], counted_as=target, wire=target)
    single = replace(source, events=[event for event in source.events
                                     if type(event) is not ErrorEvent])
    want = expected(single, target, BODY_LOSSES)
    assert _comparable_ids(got, want) == want


def test_the_losses_are_each_seen_on_some_recording() -> None:
    """No loss is dead weight: each changes the summary of some (source, target)."""
    for target, losses in LOSSES.items():
        for loss in losses:
            changed = False
            for path in RECORDINGS:
                source = parsed(path)
                if source.wire == target and not loss.own_too:
                    continue
                summary = portable_summary(source.response, source.events, counted_as=target,
                                           wire=source.wire)
                changed = changed or loss.apply(summary, source) != summary
            assert changed, (target, loss.apply.__name__)


def test_a_failed_answer_keeps_its_message_on_every_wire() -> None:
    failed = [parsed(path) for path in RECORDINGS
              if parsed(path).response.finished_reason is FinishReason.ERROR]
    assert len(failed) >= 5
    for source in failed:
        for target, provider in TARGETS.items():
            events, again = replay(b"".join(encode_stream(provider, source.events)), provider,
                                   on_error="return")
            message = portable_summary(again, events, counted_as=target, wire=target)["error"]
            assert message is not None and message == \
                portable_summary(source.response, source.events, counted_as=target,
                                 wire=source.wire)["error"], (source.name, target)


# ---------------------------------------------------------------- the docs table


def loss_table(corner: str, *, rows: str) -> str:
    """A markdown table of what crosses between wires: each cell the target's
    losses for that source (``=`` where nothing is lost). ``rows`` says what a
    row is: the ``source`` wire (the encoding page) or the ``target`` (the
    gateway page: a row per client, a column per upstream)."""
    wires = list(TARGETS)
    lines = [f"| {corner} | " + " | ".join(f"`{wire}`" for wire in wires) + " |",
             "|---" * (len(wires) + 1) + "|"]
    for row in wires:
        cells = []
        for column in wires:
            source, target = (row, column) if rows == "source" else (column, row)
            says = [loss.says for loss in LOSSES[target] if loss.own_too or source != target]
            cells.append("; ".join(says) if says else "=")
        lines.append(f"| `{row}` | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def crossing_table() -> str:
    """What crosses from a source wire (a row) to a target wire (a column)."""
    return loss_table("from \\ to", rows="source")


def gateway_table() -> str:
    """The same losses seen from the gateway: a row per client (the wire the
    answer is written in), a column per upstream (the wire it was read from)."""
    return loss_table("client \\ upstream", rows="target")


def test_the_docs_table_is_what_the_loss_tables_say() -> None:
    page = (ROOT / "docs/encoding.md").read_text()
    assert crossing_table() in page
    assert gateway_table() in (ROOT / "docs/gateway.md").read_text()
    assert "encoding.md" in (ROOT / "mkdocs.yml").read_text()
