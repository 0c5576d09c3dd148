"""OpenAI Responses annotations as typed citations, read from a stream, a body and a
request, and written back only to this wire.

The annotation shapes are the openai SDK's ``ResponseOutputText.Annotation``
members; every one written is checked against the SDK's request types.
"""

from __future__ import annotations

from typing import Any

import pytest
from openai.types.responses.response_output_text import (
    AnnotationContainerFileCitation,
    AnnotationFileCitation,
    AnnotationFilePath,
    AnnotationURLCitation,
)
from support.openai_responses_stream import run, wire
from support.request_oracles import sdk_valid

from streamkit.conversation.messages import AssistantMessage, UserMessage
from streamkit.model.blocks import Citation, TextBlock
from streamkit.model.events import BlockDelta, CitationDelta
from streamkit.model.response import ChatResponse
from streamkit.providers.codec import build_request, parse_request, parse_response

RESPONSES = "openai-responses"

URL = {"type": "url_citation", "url": "https://example.com/a", "title": "A page",
       "start_index": 3, "end_index": 9}
FILE = {"type": "file_citation", "file_id": "file-1", "filename": "notes.pdf", "index": 12}
CONTAINER = {"type": "container_file_citation", "container_id": "cntr_1", "file_id": "cfile_1",
             "filename": "out.csv", "start_index": 0, "end_index": 4}
PATH = {"type": "file_path", "file_id": "file-2", "index": 1}

# What each annotation says in the typed fields (the annotation itself is ``raw``).
TYPED = [
    (URL, Citation(url="https://example.com/a", title="A page", start=3, end=9)),
    (FILE, Citation(title="notes.pdf", start=12, end=12)),  # a point in the text
    (CONTAINER, Citation(title="out.csv", start=0, end=4)),
    (PATH, Citation()),  # its index is a file's in a list, not a place in the text
]


def _typed(citation: Citation) -> Citation:
    """The citation without what the reader adds to every one (raw, wire)."""
    return Citation(**{key: value for key, value in citation.to_dict().items()
                       if key not in ("raw", "wire")})


@pytest.mark.parametrize(("annotation", "sdk_type"), [
    (URL, AnnotationURLCitation), (FILE, AnnotationFileCitation),
    (CONTAINER, AnnotationContainerFileCitation), (PATH, AnnotationFilePath)])
def test_the_annotation_shapes_are_the_sdks(annotation: dict[str, Any], sdk_type: Any) -> None:
    assert sdk_type.model_validate(annotation).model_dump() == annotation


def _message(annotations: list[dict[str, Any]], text: str = "See the sources here.") -> Any:
    return {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": annotations}]}


def test_a_parts_annotations_are_typed_citations() -> None:
    body = {"id": "resp_1", "object": "response", "status": "completed", "model": "gpt-5",
            "output": [_message([annotation for annotation, _ in TYPED])]}
    [text] = parse_response(RESPONSES, body).content
    assert isinstance(text, TextBlock)
    assert [_typed(citation) for citation in text.citations] == [typed for _, typed in TYPED]
    assert [citation.raw for citation in text.citations] == [a for a, _ in TYPED]
    assert {citation.wire for citation in text.citations} == {RESPONSES}


def test_a_streamed_annotation_is_a_citation_delta() -> None:
    result = run([
        wire({"type": "response.created", "response": {"id": "resp_1", "model": "m"}}),
        wire({"type": "response.output_text.delta", "output_index": 0, "content_index": 0,
              "item_id": "msg_1", "delta": "See the sources here."}),
        wire({"type": "response.output_text.annotation.added", "output_index": 0,
              "content_index": 0, "item_id": "msg_1", "annotation_index": 0,
              "annotation": CONTAINER}),
    ])
    [delta] = [event.delta for event in result.of_type(BlockDelta)
               if isinstance(event.delta, CitationDelta)]
    assert delta.citation == Citation(title="out.csv", start=0, end=4, raw=CONTAINER,
                                      wire=RESPONSES)
    assert result.response.content[0].citations == [delta.citation]  # type: ignore[union-attr]


def test_an_own_turns_citations_go_back_as_they_came() -> None:
    annotations = [annotation for annotation, _ in TYPED]
    body = {"id": "resp_1", "object": "response", "status": "completed", "model": "gpt-5",
            "output": [_message(annotations)]}
    response = parse_response(RESPONSES, body)
    built = build_request(RESPONSES, [UserMessage("q"), response, UserMessage("more")],
                          model="gpt-5")
    sdk_valid("openai-responses", built)
    assert built["input"][1]["content"][0]["annotations"] == annotations
    again = parse_request(RESPONSES, built)
    assert build_request(RESPONSES, again) == built  # and the request reads back exactly
    [turn] = [message for message in again.messages if isinstance(message, AssistantMessage)]
    assert turn.blocks[0].citations == response.content[0].citations  # type: ignore[union-attr]


def test_citations_of_another_wire_or_incomplete_ones_are_not_written() -> None:
    """Only this wire's annotations, or a hand-made citation with all a
    ``url_citation`` requires, have a form here."""
    anthropic = Citation(url="https://example.com/b", title="B", cited_text="quoted",
                         raw={"type": "web_search_result_location", "url": "https://example.com/b",
                              "cited_text": "quoted", "encrypted_index": "Eo8BCioIAh"},
                         wire="anthropic")
    by_hand = Citation(url="https://example.com/c", title="C", start=0, end=3)
    no_place = Citation(url="https://example.com/d")  # no title, no place in the text
    turn = AssistantMessage([TextBlock("See the sources.", citations=[anthropic, by_hand,
                                                                      no_place],
                                       metadata={"item_id": "msg_1"})])
    built = build_request(RESPONSES, [UserMessage("q"), turn], model="gpt-5")
    sdk_valid("openai-responses", built)
    assert built["input"][1]["content"][0]["annotations"] == [
        {"type": "url_citation", "url": "https://example.com/c", "title": "C",
         "start_index": 0, "end_index": 3}]


def test_a_foreign_turn_keeps_its_text_not_its_citations() -> None:
    response = ChatResponse(content=[TextBlock("Cited.", citations=[Citation(
        url="https://example.com/a", title="A", start=0, end=6, raw=URL, wire=RESPONSES)])],
        provider="anthropic")
    built = build_request(RESPONSES, [UserMessage("q"), response], model="gpt-5")
    assert built["input"][1] == {"role": "assistant", "content": "Cited."}
