"""Ollama native ``/api/chat`` and ``/api/generate``:
the whole wire format, both directions side by side, as :data:`WIRE`.

The verbs every wire package has (:mod:`streamkit.providers.wire_format`):

===============  =======================================================================
``stream.py``    the stream parser, NDJSON lines -> streamkit events (its lifecycle and
                 blocks on the shared block ledger)
``request.py``   request bodies, built and read back (:func:`streamkit.build_request` /
                 :func:`streamkit.parse_request`): the body's fields and options
``tools.py``     tool definitions both ways (Ollama has no ``tool_choice``), and the
                 schema form Ollama's server keeps
``response.py``  a non-streamed answer (:func:`streamkit.parse_response`), read as the
                 one line of a stream
``content.py``   the messages and their parts (text, thinking, tool calls, images, tool
                 results) <-> streamkit messages and blocks, both directions
``wire.py``      the wire's words as data: its name, finish words, usage counters
``http.py``      where the endpoint is, and that the model goes in the body
``encode.py``    answers written: the NDJSON stream encoder (events -> ``/api/chat``
                 lines), the non-streamed body and the error body
===============  =======================================================================

Ollama has no file of its own beyond them.
"""

from ..wire_format import WireFormat, no_answer_options
from . import http
from .encode import OllamaStreamEncoder, encode_error, encode_response
from .request import build_request, parse_request
from .response import parse_response
from .stream import OllamaParser
from .wire import FINISH_REASONS, NAME, USAGE_FIELDS, map_done_reason, map_usage

__all__ = ["FINISH_REASONS", "USAGE_FIELDS", "WIRE", "OllamaParser", "map_done_reason",
           "map_usage"]

WIRE = WireFormat(
    name=NAME, title="Ollama native /api/chat", parser=OllamaParser,
    build_request=build_request, parse_request=parse_request, parse_response=parse_response,
    finish_reasons=FINISH_REASONS, usage_fields=USAGE_FIELDS,
    endpoint=http.endpoint, model_in_body=http.MODEL_IN_BODY,
    served_path=http.SERVED_PATH, served_base=http.SERVED_BASE, streams_unless_said=True,
    encode_stream=OllamaStreamEncoder, encode_response=encode_response,
    encode_error=encode_error, answer_options=no_answer_options,
)
