"""OpenAI Responses (``POST /v1/responses``; also Perplexity's Agent API and
DeepSeek's, OpenRouter's, Bedrock Mantle's ``/responses``): the whole wire
format, both directions side by side, exported as :data:`WIRE`.

The verbs every wire package has (:mod:`streamkit.providers.wire_format`):

===============  =======================================================================
``stream.py``    the stream parser (payloads -> events); its lifecycle and blocks are a
                 :class:`~streamkit.providers.ledger.BlockLedger` keyed by output part
``request.py``   request bodies, built from a :class:`~streamkit.Request` and read back
                 into one (:func:`streamkit.build_request` /
                 :func:`streamkit.parse_request`)
``tools.py``     tool definitions and ``tool_choice``, both ways
``response.py``  a non-streamed ``Response`` object, read as the stream it ends
                 (:func:`streamkit.parse_response`)
``content.py``   input items and content parts <-> blocks, both directions, and the
                 policy for another API's assistant turns
``wire.py``      the wire's words as data: finish words, usage fields, server tool
                 events
``http.py``      where the endpoint is; the model goes in the body
``encode.py``    answers written: the ``response.*`` stream encoder (events -> SSE), the
                 non-streamed ``Response`` body and the HTTP error body
===============  =======================================================================

And this wire's own files:

======================  ==================================================================
``citations.py``        ``output_text`` annotations <-> typed citations
``items.py``            output items and their parts: where an event's item is, and the blocks
                        an item or part implies (read the same way from a stream, a response
                        body and a request's input items)
``deltas.py``           the table of the streamed content kinds (``*.delta`` / ``*.done``) and
                        the typed decode of the per-token case
``encode_objects.py``   the objects the encoder writes: items, parts, usage, the end status
``count_tokens.py``     the input token count endpoint (``/v1/responses/input_tokens``): its
                        body and its answer, both ways
``freeform.py``         custom (freeform) tools and their calls, rewritten as functions of
                        one string ``input`` for another wire
======================  ==================================================================
"""

from ..wire_format import FunctionForms, WireFormat, no_answer_options
from . import http
from .count_tokens import COUNTING
from .encode import OpenAIResponsesStreamEncoder, encode_error, encode_response
from .freeform import function_forms
from .request import build_request, parse_request
from .response import parse_response
from .stream import OpenAIResponsesParser
from .wire import FINISH_REASONS, NAME, USAGE_FIELDS, map_usage

WIRE = WireFormat(
    name=NAME, title="OpenAI Responses", parser=OpenAIResponsesParser,
    build_request=build_request, parse_request=parse_request, parse_response=parse_response,
    finish_reasons=FINISH_REASONS, usage_fields=USAGE_FIELDS,
    endpoint=http.endpoint, model_in_body=http.MODEL_IN_BODY,
    served_path=http.SERVED_PATH, served_base=http.SERVED_BASE,
    encode_stream=OpenAIResponsesStreamEncoder, encode_response=encode_response,
    encode_error=encode_error, answer_options=no_answer_options, count_tokens=COUNTING,
    forwarded_headers=http.FORWARDED_HEADERS, function_forms=FunctionForms(function_forms),
)

__all__ = ["WIRE", "OpenAIResponsesParser", "map_usage"]
