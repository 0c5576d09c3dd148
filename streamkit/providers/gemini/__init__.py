"""Gemini ``generateContent`` (the Gemini API and Vertex AI): the whole wire
format, both directions side by side, and its record :data:`WIRE`.

The verbs every wire package has (:mod:`streamkit.providers.wire_format`):

===============  =======================================================================
``stream.py``    the stream parser: ``alt=sse`` chunks -> events (the chunk level:
                 identity, usage, prompt feedback, errors)
``request.py``   request bodies: :func:`build_request`, :func:`parse_request`
``tools.py``     tool definitions (``functionDeclarations``) and ``toolConfig``, both
                 ways
``response.py``  a non-streamed body -> ``ChatResponse`` (through the stream parser,
                 :func:`~streamkit.providers.body.read_body`)
``content.py``   request parts <-> blocks, both directions, and the cross-provider turn
                 policy
``wire.py``      the wire's words as data: finish reasons, usage fields, part field
                 types, inline bytes
``http.py``      where the endpoint is; the model goes in the URL
``encode.py``    responses written: the stream encoder (SSE or the JSON array), the body
                 and the error body
===============  =======================================================================

And this wire's own files:

===================  ======================================================================
``candidate.py``     one candidate (Gemini's word for a choice): what each part means as
                     blocks on its :class:`~streamkit.providers.ledger.BlockLedger`, its
                     metadata and citations
``spelling.py``      a body's camelCase / snake_case spelling, kept as data
``count_tokens.py``  the token count endpoint (``:countTokens``): its body and its answer,
                     both ways
``schema.py``        Gemini's OpenAPI ``Schema`` <-> JSON Schema (tool ``parameters``,
                     ``responseSchema``), and which field a body said a schema in
``acceptance.py``    what Gemini answers 400 to (empty text parts, contents with no
                     parts), left out of a built body
===================  ======================================================================

Vertex AI (registry name ``vertex``) speaks this wire with no dialect: the
parser reports the vendor it was built for as the responses' provider.
"""

from ..wire_format import WireFormat, no_answer_options
from .count_tokens import COUNTING
from .encode import encode_error, encode_response, stream_encoder
from .http import MODEL_IN_BODY, SERVED_BASE, SERVED_PATH, endpoint
from .request import build_request, parse_request
from .response import parse_response
from .spelling import SNAKE_CASE
from .stream import GeminiParser
from .wire import (
    FINISH_REASONS,
    NAME,
    PROMPT_REFERENCES,
    USAGE_FIELDS,
    map_finish_reason,
    map_usage,
)

WIRE = WireFormat(
    name=NAME, title="Gemini generateContent", parser=GeminiParser,
    build_request=build_request, parse_request=parse_request, parse_response=parse_response,
    finish_reasons=FINISH_REASONS, usage_fields=USAGE_FIELDS,
    endpoint=endpoint, model_in_body=MODEL_IN_BODY,
    served_path=SERVED_PATH, served_base=SERVED_BASE,
    option_records=frozenset({SNAKE_CASE}), prompt_references=PROMPT_REFERENCES,
    encode_stream=stream_encoder, encode_response=encode_response, encode_error=encode_error,
    answer_options=no_answer_options, operation="generate_content", count_tokens=COUNTING,
)

__all__ = ["FINISH_REASONS", "USAGE_FIELDS", "WIRE", "GeminiParser", "map_finish_reason",
           "map_usage"]
